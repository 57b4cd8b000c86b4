"""Where finished games are kept: a per-user data directory (no extra dependency).

``CATSACK_DATA_DIR`` overrides the location; otherwise ``$XDG_DATA_HOME/catsack/games``
or ``~/.local/share/catsack/games``. Files are ``catsack/1`` records that
``catsack replay`` reads back.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from datetime import datetime
from pathlib import Path

from catsack.record import Record, dumps_record

__all__ = ["games_dir", "replace_record", "save_record"]

ENV_VAR = "CATSACK_DATA_DIR"


def games_dir() -> Path:
    """The directory for saved games (not created here)."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "catsack" / "games"


def save_record(record: Record, *, directory: Path | None = None, stem: str | None = None) -> Path:
    """Write ``record`` as a new JSON file and return its path; never overwrites a file.

    Raises :class:`OSError` when the directory cannot be created or written.
    """
    folder = directory if directory is not None else games_dir()
    folder.mkdir(parents=True, exist_ok=True)
    base = stem or datetime.now().strftime("game-%Y%m%d-%H%M%S")
    text = dumps_record(record) + "\n"
    for i in range(1000):
        path = folder / (f"{base}.json" if i == 0 else f"{base}-{i}.json")
        try:
            # "x" mode: two games saved in the same second get different names.
            with path.open("x", encoding="utf-8") as fh:
                fh.write(text)
        except FileExistsError:
            continue
        return path
    raise OSError(f"too many saved games named {base}*.json in {folder}")


def replace_record(record: Record, path: Path) -> Path:
    """Write ``record`` over the file at ``path`` (a resumed game goes on in its own file) and return it.

    The new text goes to a temporary file beside it first, so a failed write leaves the old record whole.
    Raises :class:`OSError` when the directory cannot be written.
    """
    path = Path(path)
    text = dumps_record(record) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
