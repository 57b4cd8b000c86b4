"""The rules core is stdlib-only and free of I/O (STYLE.md habit 1).

The core modules import only the standard library and each other, never
print, and never touch the global random state; checked on their source with
``ast``, and once at run time in a fresh interpreter.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import catsack

PACKAGE = Path(catsack.__file__).resolve().parent
CORE = (
    "cards",
    "constants",
    "moves",
    "setup",
    "game",
    "events",
    "view",
    "belief",
    "record",
    "narrative",
    "summary",
    "errors",
)
# The package's __init__ runs on every ``import catsack.x``, so it is held to the same rules.
CHECKED = (*CORE, "__init__")
# Standard-library modules that would mean I/O, logging or process control in the core.
IO_MODULES = {"os", "sys", "io", "pathlib", "shutil", "subprocess", "socket", "logging", "tempfile", "glob", "builtins"}
FORBIDDEN_CALLS = {"print", "input", "open", "breakpoint", "exec", "eval"}
GLOBAL_RANDOM = {"random", "randint", "randrange", "choice", "choices", "shuffle", "sample", "seed", "uniform"}


def source(name: str) -> ast.Module:
    path = PACKAGE / f"{name}.py"
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imported_modules(tree: ast.Module) -> list[str]:
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import stays inside the package
                out.append("catsack." + (node.module or ""))
            else:
                assert node.module is not None
                out.append(node.module)
    return out


def test_core_modules_exist() -> None:
    for name in CHECKED:
        assert (PACKAGE / f"{name}.py").is_file(), name


@pytest.mark.parametrize("name", CHECKED)
def test_core_imports_only_stdlib_and_core(name: str) -> None:
    for module in imported_modules(source(name)):
        top = module.split(".")[0]
        if top == "catsack":
            assert module == "catsack" or module.split(".")[1] in CORE, f"catsack.{name} imports {module}"
        else:
            assert top in sys.stdlib_module_names, f"catsack.{name} imports a third-party module: {module}"
            assert top not in IO_MODULES, f"catsack.{name} imports {module} (I/O belongs outside the core)"


@pytest.mark.parametrize("name", CHECKED)
def test_core_has_no_print_or_io_calls(name: str) -> None:
    for node in ast.walk(source(name)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            assert node.func.id not in FORBIDDEN_CALLS, f"catsack.{name}:{node.lineno} calls {node.func.id}()"


@pytest.mark.parametrize("name", CHECKED)
def test_core_never_uses_the_global_random_state(name: str) -> None:
    for node in ast.walk(source(name)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            assert node.attr not in GLOBAL_RANDOM, f"catsack.{name}:{node.lineno} uses random.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            names = {alias.name for alias in node.names}
            assert not names & GLOBAL_RANDOM, f"catsack.{name} imports {names & GLOBAL_RANDOM} from random"


def test_importing_the_core_loads_no_third_party_module() -> None:
    """Run time: a fresh interpreter importing every core module holds only stdlib and core modules."""
    code = (
        "import json, sys\n"
        + "".join(f"import catsack.{name}\n" for name in CORE)
        + "print(json.dumps(sorted(sys.modules)))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = json.loads(proc.stdout)
    foreign = [
        m
        for m in loaded
        if m.split(".")[0] not in sys.stdlib_module_names
        and not (m == "catsack" or (m.startswith("catsack.") and m.split(".")[1] in CORE))
        and not m.startswith("_")  # interpreter internals such as _distutils_hack, _virtualenv
    ]
    assert foreign == []
