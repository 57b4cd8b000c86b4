"""The server stays in pieces a reader can hold: no class over 400 lines, no function over 60.

Measured with ``ast`` from a ``def`` or ``class`` line to the end of its body (docs/design.md, "The server
in rooms"); complexity is ruff's C901 (at most 15). A migration's ``upgrade`` is data, not logic, so
``migrations/versions`` is not measured.
"""

from __future__ import annotations

import ast
from pathlib import Path

import catsack

SERVER = Path(catsack.__file__).resolve().parent / "server"
EXEMPT = SERVER / "migrations" / "versions"
MAX_CLASS_LINES = 400
MAX_FUNCTION_LINES = 60

#: Pieces allowed over the limits for now, each by its module and qualified name. Every entry is to be
#: split, and comes off this list when it is; nothing is added to it.
ALLOWED: set[tuple[str, str]] = set()


def oversized(path: Path, place: str) -> list[tuple[str, str, int]]:
    """Every class over :data:`MAX_CLASS_LINES` and function over :data:`MAX_FUNCTION_LINES` lines in the
    source at ``path`` (named ``place``): its module, qualified name and length."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                lines = (child.end_lineno or child.lineno) - child.lineno + 1
                limit = MAX_CLASS_LINES if isinstance(child, ast.ClassDef) else MAX_FUNCTION_LINES
                if lines > limit:
                    found.append((place, name, lines))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), "")
    return found


def test_no_class_or_function_of_the_server_is_over_its_size() -> None:
    found = [
        piece
        for path in sorted(SERVER.rglob("*.py"))
        if not path.is_relative_to(EXEMPT)
        for piece in oversized(path, path.relative_to(SERVER).as_posix())
    ]
    over = [f"{place}: {name} ({lines} lines)" for place, name, lines in found if (place, name) not in ALLOWED]
    assert not over, (
        f"over {MAX_CLASS_LINES} lines a class or {MAX_FUNCTION_LINES} a function; split by concern: {over}"
    )


def test_the_allow_list_names_only_what_is_still_over() -> None:
    """An entry that is split comes off the list, so that the list cannot hide a new piece by its name."""
    found = {
        (place, name)
        for path in sorted(SERVER.rglob("*.py"))
        if not path.is_relative_to(EXEMPT)
        for place, name, _ in oversized(path, path.relative_to(SERVER).as_posix())
    }
    assert not ALLOWED - found, f"split already, take them off ALLOWED: {sorted(ALLOWED - found)}"


def test_the_measure_sees_what_it_should(tmp_path: Path) -> None:
    """Nested functions and methods are measured by their qualified names, lines from ``def`` to the end."""
    body = "\n".join(f"    x = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"class A:\n    def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}\n"
    source += f"def short():\n{body[: body.rindex(chr(10))]}\n"
    probe = tmp_path / "probe.py"
    probe.write_text(source, encoding="utf-8")
    assert oversized(probe, "probe.py") == [("probe.py", "A.long", MAX_FUNCTION_LINES + 1)]
