"""Rewrite main_80x24.txt, the text snapshot of the play screen checked by tests/test_tui.py.

Run from the repository root after an intended change of the screen:
    .venv/bin/python tests/data/tui/regenerate.py
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))  # the tests folder, for test_tui's helpers

from test_tui import SNAPSHOT, snapshot_text  # noqa: E402


def main() -> None:
    text = asyncio.run(snapshot_text(None))
    SNAPSHOT.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT}")


if __name__ == "__main__":
    main()
