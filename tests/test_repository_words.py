"""The repository speaks of itself: no tracker's numbers and no builder's machine in what it ships.

A reader of the code, the docs, the tests or the pages has no issue tracker and no access to the machine
the project was built on, so a comment that says which numbered ticket asked for a line tells them
nothing, and a figure "measured on the project's machine" cannot be checked. Say what a thing does and
why; say where figures were measured as docs/benchmarks.md does (CPU, Python, load).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: What a tracker's reference looks like: a ticket word and a number ("defect 3", "issue #12").
TRACKER = re.compile(r"\b(?:issues?|defects?|papercuts?|checklist|findings?)\s+#?\d+", re.IGNORECASE)
#: A machine only the project's builders have.
MACHINE = re.compile(r"\b(?:the|this|our) project'?s? (?:\d-core |two-core )?machines?\b", re.IGNORECASE)
TEXT_SUFFIXES = {".py", ".md", ".js", ".html", ".css", ".json", ".po", ".pot", ".toml", ".cfg", ".txt", ".sh", ".ini"}
#: Files about this rule itself, and changelog entries that name upstream projects' tickets.
SKIP = {"tests/test_repository_words.py"}


def shipped_texts() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        names = out.split()
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: no git, read the tree
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    keep = []
    for name in names:
        path = ROOT / name
        top = name.split("/", 1)[0]
        if name in SKIP or top.startswith(".") or top in {"build", "dist", "artifacts"}:
            continue
        if path.suffix in TEXT_SUFFIXES or path.name in {"Makefile", "README.md", "CHANGELOG.md"}:
            keep.append(path)
    return keep


def test_the_rule_finds_what_it_forbids() -> None:
    assert TRACKER.search("as asked in Issue 16, defect 3")
    assert TRACKER.search("see #  checklist 19")
    assert MACHINE.search("measured on the project's 2-core machine")
    assert not TRACKER.search("an issue with 3 seats") and not TRACKER.search("issues of the game")


@pytest.mark.parametrize("pattern", [TRACKER, MACHINE], ids=["tracker numbers", "builders' machine"])
def test_no_file_names_a_tracker_or_the_builders_machine(pattern: re.Pattern[str]) -> None:
    files = shipped_texts()
    assert files, "no files found to read"
    found = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:100]}")
    assert not found, "say what the thing does instead:\n" + "\n".join(found[:40])
