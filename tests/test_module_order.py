"""Modules share public names and import each other in one direction (STYLE.md habit 11).

Checked on the source with ``ast`` (imports inside functions included), so neither a private name
nor a circle can hide behind a lazy import.
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


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: Path, place: Path | None = None) -> list[str]:
    """The ``_private`` names the source at ``path`` takes from other modules (``from m import _x``,
    ``import m._x``), as a module at ``place`` (default: ``path``) of the package.

    A package's private submodule (``catsack.envs._vector_kernels``) may be imported by the modules of
    that package: it is theirs, not another module's.
    """
    where = (place or path).parent
    package = ".".join(("catsack", *where.relative_to(PACKAGE).parts))

    def own_submodule(module: str, name: str) -> bool:
        return module == package and (where / f"{name}.py").is_file()

    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module is not None:
            for alias in node.names:
                if (is_private(alias.name) or any(map(is_private, node.module.split(".")))) and not own_submodule(
                    node.module, alias.name
                ):
                    out.append(f"line {node.lineno}: from {node.module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                head, _, last = alias.name.rpartition(".")
                if any(map(is_private, alias.name.split("."))) and not (
                    own_submodule(head, last) and not any(map(is_private, head.split(".")))
                ):
                    out.append(f"line {node.lineno}: import {alias.name}")
    return out


def test_no_module_takes_another_modules_private_names() -> None:
    found = {str(p.relative_to(PACKAGE)): bad for p in sorted(PACKAGE.rglob("*.py")) if (bad := private_imports(p))}
    assert not found, f"private names imported across modules (give them a public home): {found}"


def test_the_private_name_check_sees_what_it_should(tmp_path: Path) -> None:
    """The check flags a private name taken from another module, at any depth, and lets a package's own
    private submodule and dunder names through."""
    here = PACKAGE / "envs" / "probe.py"  # not written: only its place in the package matters
    bad = "from catsack.game import _NEXT\ndef f():\n    from catsack.bots.heuristic import _stats\n"
    bad += "import catsack.envs._x.y\n"
    ok = "from catsack.envs import _vector_kernels\nfrom catsack import __version__\nfrom catsack.game import Game\n"
    for text, expected in ((bad, 3), (ok, 0)):
        probe = tmp_path / "probe.py"
        probe.write_text(text, encoding="utf-8")
        assert len(private_imports(probe, here)) == expected, text
