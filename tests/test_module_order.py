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
EXPERT_ORDER = ("leaf", "spec", "players", "kinds", "worlds", "search", "memory", "bot")


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


#: Modules that may read another object's private attributes, and why.
PRIVATE_READERS = {
    "game.py": "the rules core: a Game reads the fields of the Game it clones or restores",
    "view.py": "the rules core: a View is built from the Game's fields (R23 decides what it copies)",
}
#: Private-looking names that are other libraries' public API, or that no public API replaces.
FOREIGN = {
    "_exit": "os._exit: the documented way out of a forked worker",
    "_mapping": "SQLAlchemy's Row._mapping: documented public API despite the underscore",
    "_compositor": "Textual offers no public plain-text rendering of a screen (tui.app.screen_text)",
}


def own_attributes(tree: ast.AST) -> set[str]:
    """The private names a module gives its own objects: ``self._a =``, methods, class-body names and
    ``__slots__``. (Setting ``other._a =`` on another module's object does not make ``_a`` one's own.)"""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and is_self(node.value):
            out.add(node.attr)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.add(node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    out.add(item.target.id)
                elif isinstance(item, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets
                ):
                    out.update(
                        e.value
                        for e in ast.walk(item.value)
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    )
    return {name for name in out if is_private(name)}


def is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def private_reads(path: Path) -> list[str]:
    """Reads of another module's private attributes (``other._x``) in the source at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    own = own_attributes(tree)
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and is_private(node.attr)
            and node.attr not in own | FOREIGN.keys()
            and not is_self(node.value)  # its own, or a base class's
        ):
            out.append(f"line {node.lineno}: {ast.unparse(node)}")
    return out


def test_no_module_reads_another_modules_private_attributes() -> None:
    found = {
        name: bad
        for p in sorted(PACKAGE.rglob("*.py"))
        if (name := str(p.relative_to(PACKAGE))) not in PRIVATE_READERS and (bad := private_reads(p))
    }
    assert not found, f"private attributes read across modules (give them a public name): {found}"


def test_the_private_attribute_check_sees_what_it_should(tmp_path: Path) -> None:
    """It flags ``game._moves``, ``hub._publish(...)`` and attaching ``hub._box``, and lets a class's own
    privates, ``__slots__``, methods and ``self._x`` through."""
    bad = "def f(game, hub):\n    game._moves.append(1)\n    hub._publish()\n    hub._box = getattr(hub, '_box', 1)\n"
    ok = (
        "class A:\n    __slots__ = ('_b',)\n    _c: int\n    def __init__(self): self._a = 1\n"
        "    def _m(self): pass\n    def copy(self):\n        c = A(); c._b = self._a; c._m(); return c._c\n"
    )
    for text, expected in ((bad, 3), (ok, 0)):
        probe = tmp_path / "probe.py"
        probe.write_text(text, encoding="utf-8")
        assert len(private_reads(probe)) == expected, text
