"""The repository's own files for the tests that read them, and what happens when the tests run from an sdist.

The sdist holds the package, its tests and what they run (``src/``, ``tests/``, ``bench/``,
``examples/``, ``deploy/``; MANIFEST.in) but not the documentation's sources (``docs/``) nor the
maintainers' scripts (``scripts/``). A test that reads one of those skips there, naming the file,
instead of failing. An unpacked sdist is told apart from a checkout by the ``PKG-INFO`` file at its
root, which only an sdist has; in a checkout a missing file fails the test that reads it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Whether the tests run from an unpacked sdist rather than from a checkout of the repository.
FROM_SDIST = (ROOT / "PKG-INFO").is_file()


def repository_file(relative: str) -> Path:
    """``ROOT / relative``; from an sdist that lacks it, the calling test (or module) is skipped."""
    path = ROOT / relative
    if FROM_SDIST and not path.exists():
        # allow_module_level: also right for a module that reads the file while it is collected.
        pytest.skip(f"{relative} is not in the sdist: this test reads the repository's files", allow_module_level=True)
    return path


def tracked_files() -> list[str]:
    """The checkout's tracked files that exist in the work tree (skips outside a git checkout)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout", allow_module_level=True)
    return [p for p in out.decode().split("\0") if p and os.path.lexists(ROOT / p)]


def build_release(out: Path) -> tuple[Path, Path]:
    """Build the sdist, then the wheel from it (as ``python -m build`` does), from a copy of the checkout's
    tracked files in ``out`` (a build writes into its source folder; the tests never write into the
    repository). The setuptools of the running environment builds (no download). ``(sdist, wheel)``."""
    source = out / "source"
    for name in tracked_files():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target, follow_symlinks=False)
    dist = out / "dist"
    built = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return sdist, wheel
