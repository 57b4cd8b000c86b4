"""Modules import each other in one direction: the expert's modules in a fixed order.

Checked on the source with ``ast`` (imports inside functions included), so a circle cannot hide
behind a lazy import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import catsack

PACKAGE = Path(catsack.__file__).resolve().parent
#: The expert's modules, lowest first: each may import only those before it.
EXPERT_ORDER = ("leaf", "spec", "players", "worlds", "search", "bot")


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)  # ``from pkg import module``
    return out


def test_expert_modules_are_all_in_the_order() -> None:
    found = {p.stem for p in (PACKAGE / "bots" / "expert").glob("*.py")} - {"__init__"}
    assert found == set(EXPERT_ORDER)


def test_expert_modules_import_one_way() -> None:
    for i, name in enumerate(EXPERT_ORDER):
        deps = {
            m.removeprefix("catsack.bots.expert.").split(".")[0]
            for m in imported(PACKAGE / "bots" / "expert" / f"{name}.py")
            if m.startswith("catsack.bots.expert.")
        }
        later = deps & set(EXPERT_ORDER[i:])
        assert not later, f"catsack.bots.expert.{name} imports {sorted(later)}, which come at or after it"
