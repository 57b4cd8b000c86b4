"""The Quick start's install runs the server: every third-party module the server can import is
installed by ``pip install -e ".[server,tui]"`` (OpenSkill was in ``stats`` only,
so rated games were never rated on the README's install).

Two checks:

- here, always: every import the server's code can reach (``catsack.server``, ``catsack serve``,
  ``catsack db`` and ``catsack play``, following imports of catsack modules,
  module level and inside functions) names a module that the ``server`` and ``tui`` extras (and
  their own requirements) provide. An import inside ``try: … except ImportError`` is optional.
- tests/test_quickstart_install.py: a fresh virtualenv with exactly those extras plays a rated game
  through a real server (CI runs it; it needs PyPI).
"""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

packaging_requirements = pytest.importorskip("packaging.requirements")

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
ROOTS = ("catsack.server", "catsack.commands.serve", "catsack.commands.db", "catsack.tui")
#: Imports the server's code holds but never reaches on its own install, each with the reason.
UNREACHED = {
    "numpy": "the learned 'policy' bot and the expert's learned leaf value (catsack.learn): no level that a "
    "table seats (tables.seating.SEATABLE_BOTS) uses them",
}


def _module_file(name: str) -> Path | None:
    base = SRC / Path(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _optional(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """Whether ``node`` sits in a ``try`` whose handlers catch ImportError (an optional import)."""
    child, up = node, parents.get(node)
    while up is not None:
        if isinstance(up, ast.Try) and child in up.body:
            for h in up.handlers:
                names = [h.type] if not isinstance(h.type, ast.Tuple) else list(h.type.elts)
                if h.type is None or any(isinstance(n, ast.Name) and "ImportError" in n.id for n in names):
                    return True
                if any(isinstance(n, ast.Name) and n.id == "ModuleNotFoundError" for n in names):
                    return True
        child, up = up, parents.get(up)
    return False


def _imports(path: Path, module: str) -> Iterator[tuple[str, bool]]:
    """``(imported module, optional)`` for every import in ``path`` (``TYPE_CHECKING`` blocks left out)."""
    tree = ast.parse(path.read_text("utf-8"))
    parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        up = parents.get(node)
        if isinstance(up, ast.If) and "TYPE_CHECKING" in ast.unparse(up.test):
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, _optional(node, parents)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            yield name, _optional(node, parents)
            for a in node.names:  # "from catsack.server import ratings" imports a module too
                yield f"{name}.{a.name}", _optional(node, parents)


def reachable_imports() -> dict[str, str]:
    """Every third-party top-level module the roots can import (not optionally) -> a module importing it."""
    todo = []
    for root in ROOTS:
        path = _module_file(root)
        assert path is not None, root
        if path.name == "__init__.py":
            todo += [
                ".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
                for p in path.parent.rglob("*.py")
            ]
        else:
            todo.append(root)
    seen: set[str] = set()
    third: dict[str, str] = {}
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        path = _module_file(module)
        if path is None:
            continue
        for name, optional in _imports(path, module):
            top = name.split(".")[0]
            if top == "catsack":
                parts = name.split(".")
                for i in range(2, len(parts) + 1):  # the package and the module both run
                    if _module_file(".".join(parts[:i])) is not None:
                        todo.append(".".join(parts[:i]))
            elif top and top not in sys.stdlib_module_names and not optional and top != "__future__":
                third.setdefault(top, module)
    return third


def provided_modules(extras: tuple[str, ...]) -> set[str]:
    """Top-level modules installed by catsack's base requirements plus ``extras`` (read from this
    checkout's pyproject.toml), with every requirement of those requirements (as installed here)."""
    from packaging.requirements import Requirement

    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    texts = list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]
    wanted = [(Requirement(t), frozenset(Requirement(t).extras)) for t in texts]
    dists: set[str] = set()
    while wanted:
        req, req_extras = wanted.pop()
        key = re.sub(r"[-_.]+", "-", req.name).lower()
        if key in dists:
            continue
        dists.add(key)
        try:
            requires = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue
        for text in requires:
            sub = Requirement(text)
            envs = [{"extra": e} for e in ("", *req_extras)]
            if sub.marker is None or any(sub.marker.evaluate(env) for env in envs):
                wanted.append((sub, frozenset(sub.extras)))
    modules: set[str] = set()
    for module, owners in md.packages_distributions().items():
        if any(re.sub(r"[-_.]+", "-", o).lower() in dists for o in owners):
            modules.add(module)
    return modules


def test_the_scan_finds_the_server_imports() -> None:
    """The scan is not vacuous: it sees the server's frameworks and its lazily imported rating library."""
    found = reachable_imports()
    assert {"fastapi", "sqlalchemy", "alembic", "argon2", "openskill", "textual"} <= found.keys(), sorted(found)
    assert found["openskill"].startswith("catsack.server")


def test_server_and_tui_extras_provide_every_runtime_import() -> None:
    """Nothing the server (or ``catsack play``) imports is missing from ``.[server,tui]``."""
    provided = provided_modules(("server", "tui"))
    missing = {
        name: where for name, where in reachable_imports().items() if name not in provided and name not in UNREACHED
    }
    assert missing == {}, f"imported by the server but not installed by .[server,tui]: {missing}"


def test_the_check_would_catch_openskill_in_stats_only() -> None:
    """Without the server extra, the rating library is reported (the defect this file guards)."""
    assert "openskill" not in provided_modules(("tui", "rl"))
    assert "openskill" in provided_modules(("server",))
