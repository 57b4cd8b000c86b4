"""The repository speaks of the project only: no "session" followed by a number in tracked files.

Code comments cite rules by R-number and measurements by the bench command that reproduces them; the
history of how a figure came about belongs in CHANGELOG.md and commit messages.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WORDS = re.compile(r"\bsessions?[\s_-]*\d", re.IGNORECASE)


def tracked() -> list[str]:
    """The repository's tracked files; skips outside a git checkout (an unpacked sdist)."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.split("\0") if p]


def offences(paths: list[str]) -> list[str]:
    """``path:line: text`` for each place ``WORDS`` matches, the path itself included."""
    found = []
    for path in paths:
        if WORDS.search(path):
            found.append(f"{path}: (its name)")
        file = ROOT / path
        if not file.is_file():
            continue  # a tracked file deleted in the work tree
        text = file.read_bytes().decode("utf-8", errors="replace")
        for match in WORDS.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path}:{line}: {match.group(0)!r}")
    return found


def test_the_pattern_finds_session_numbers() -> None:
    word = "session"  # the examples are assembled so that this file does not match itself
    for text in (f"{word} 16", f"{word.title()} 8's model", f"{word}s 7-10", f"{word}10-closing-note", f"{word}\n12"):
        assert WORDS.search(text), text
    for text in ("a session of play", "sessionStorage 2", "the session's cookie", "Sessions: 3"):
        assert not WORDS.search(text), text


def test_no_session_numbers_in_tracked_files() -> None:
    found = offences(tracked())
    assert not found, "cite rules (R-numbers) and bench commands instead:\n" + "\n".join(found)
