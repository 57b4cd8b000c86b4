"""What a release is made of: one version, the licence, and an sdist and a wheel that stand on their own.

The version is written once (``catsack.__version__``; pyproject.toml reads it from there), and
``catsack --version`` and the installed metadata agree with it. The sdist and the wheel are built
here as a release is (sdist first, the wheel from the sdist) from a copy of the checkout: neither
holds a symbolic link, both hold the rules texts and card pictures and the licence, and the sdist
holds the tests with what they run but not docs/ (tests/repository.py says how its tests skip).
tests/test_quickstart_install.py installs that wheel in a fresh virtualenv and serves from it.
"""

from __future__ import annotations

import importlib.metadata
import re
import stat
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib import resources
from pathlib import Path, PurePosixPath

import pytest
from typer.testing import CliRunner

import catsack
from catsack.cli import app
from catsack.i18n import SOURCE_LANGUAGE
from catsack.rulebook import LANGUAGES
from repository import ROOT, build_release

# What the rulebook ships, relative to the package: the texts and the pictures they show.
RULEBOOK = sorted(
    [f"rulebook/{lang}.md" for lang in LANGUAGES]
    + [
        f"rulebook/img/{lang}/{p.name}"
        for lang in LANGUAGES
        for p in (resources.files("catsack.rulebook") / "img" / lang).iterdir()
        if p.name.endswith(".svg")
    ]
)


# The catalogues of the Python side's texts (catsack.i18n): read at run time, so they ship as they are.
CATALOGUES = ["locale/catsack.pot"] + [
    f"locale/{lang}/LC_MESSAGES/catsack.po" for lang in LANGUAGES if lang != SOURCE_LANGUAGE
]


def test_one_version() -> None:
    """``catsack --version``, the installed package's metadata and ``catsack.__version__`` agree, and
    pyproject.toml writes no version of its own."""
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output == f"catsack {catsack.__version__}\n", result.output
    installed = importlib.metadata.version("catsack")
    assert installed == catsack.__version__, (
        f"the installed metadata says {installed}, the code {catsack.__version__}: reinstall (make install)"
    )
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "catsack.__version__"}


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_release(tmp_path_factory.mktemp("release"))


def _sdist_members(sdist: Path) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(sdist) as tar:
        # Every member sits under the one top folder "catsack-<version>/".
        return {str(PurePosixPath(*PurePosixPath(m.name).parts[1:])): m for m in tar.getmembers()}


@pytest.mark.slow
def test_no_symbolic_links_in_the_sdist_or_the_wheel(release: tuple[Path, Path]) -> None:
    sdist, wheel = release
    links = [name for name, m in _sdist_members(sdist).items() if m.issym() or m.islnk()]
    assert not links, f"links in the sdist: {links}"
    with zipfile.ZipFile(wheel) as whl:
        links = [i.filename for i in whl.infolist() if stat.S_ISLNK(i.external_attr >> 16)]
    assert not links, f"links in the wheel: {links}"


@pytest.mark.slow
def test_the_rulebook_and_the_catalogues_are_in_the_sdist_and_the_wheel(release: tuple[Path, Path]) -> None:
    """The rules texts and their card pictures (what the /rules page, the terminal and the docs show), and
    the catalogues of every language, byte for byte as the package holds them."""
    assert len(RULEBOOK) == len(LANGUAGES) * (1 + 11)
    sdist, wheel = release
    packaged = resources.files("catsack")
    with tarfile.open(sdist) as tar, zipfile.ZipFile(wheel) as whl:
        top = tar.getmembers()[0].name.split("/")[0]
        for name in RULEBOOK + CATALOGUES:
            want = (packaged / name).read_bytes()
            member = tar.extractfile(f"{top}/src/catsack/{name}")
            assert member is not None and member.read() == want, name
            assert whl.read(f"catsack/{name}") == want, name


@pytest.mark.slow
def test_the_licence_is_in_the_sdist_and_the_wheel_metadata(release: tuple[Path, Path]) -> None:
    sdist, wheel = release
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License") and "the catsack authors" in licence
    with zipfile.ZipFile(wheel) as whl:
        info = f"catsack-{catsack.__version__}.dist-info"
        assert whl.read(f"{info}/licenses/LICENSE").decode() == licence
        metadata = whl.read(f"{info}/METADATA").decode()
    headers = metadata.split("\n\n", 1)[0].splitlines()
    assert f"Version: {catsack.__version__}" in headers
    assert "License-Expression: MIT" in headers and "License-File: LICENSE" in headers
    with tarfile.open(sdist) as tar:
        top = tar.getmembers()[0].name.split("/")[0]
        member = tar.extractfile(f"{top}/LICENSE")
        assert member is not None and member.read().decode() == licence


@pytest.mark.slow
def test_what_the_sdist_and_the_wheel_hold(release: tuple[Path, Path]) -> None:
    """The sdist: the package, its tests and what they run, no docs/ (whose tests skip there, told by
    PKG-INFO). The wheel: the package with its data (pages, migrations, models), no tests."""
    sdist, wheel = release
    assert sdist.name == f"catsack-{catsack.__version__}.tar.gz"
    assert wheel.name == f"catsack-{catsack.__version__}-py3-none-any.whl"
    names = set(_sdist_members(sdist))
    for name in ("PKG-INFO", "pyproject.toml", "README.md", "tests/repository.py", "tests/conftest.py"):
        assert name in names, name
    assert any(n.startswith("tests/data/") for n in names)
    assert "examples/external_bot.py" in names and "deploy/nginx/catsack.conf" in names
    assert not any(n.startswith(("docs/", "scripts/", ".ci/")) for n in names)
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    with zipfile.ZipFile(wheel) as whl:
        inside = set(whl.namelist())
    assert "catsack/py.typed" in inside and "catsack/server/static/index.html" in inside
    assert any(n.startswith("catsack/server/migrations/versions/0001") for n in inside)
    assert not any(n.startswith(("tests/", "docs/", "bench/")) for n in inside)


# The tests that read files the sdist leaves out (docs/, scripts/).
READ_THE_REPOSITORY = (
    "tests/test_rules_doc.py::test_the_docs_rules_pages_include_the_package_texts",
    "tests/test_rules_doc.py::test_card_pictures_come_from_the_browser_card_art",
    "tests/test_records.py::test_records_md_example_plays",
    "tests/test_envs_encoding.py::test_docs_tables_match_the_layout",
    "tests/test_envs_encoding.py::test_docs_examples_run",
    "tests/test_vector_numba.py::test_docs_example_runs",
)


@pytest.mark.slow
def test_the_sdist_tests_collect_and_skip_what_they_cannot_read(release: tuple[Path, Path], tmp_path: Path) -> None:
    """Unpacked, the sdist's whole test suite collects, and the tests that read docs/ or scripts/ skip
    there with the reason instead of failing."""
    sdist, _ = release
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path, filter="data")
    (root,) = tmp_path.iterdir()
    pytest_args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider"]
    collected = subprocess.run(
        [*pytest_args, "--collect-only", "-q"], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    ran = subprocess.run(
        [*pytest_args, "-rs", *READ_THE_REPOSITORY], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    skipped = re.findall(r"^SKIPPED \[(\d+)\] .*: (\S+) is not in the sdist", ran.stdout, flags=re.M)
    assert sum(int(n) for n, _ in skipped) >= len(READ_THE_REPOSITORY), ran.stdout[-3000:]
    assert {path for _, path in skipped} == {
        "docs/rules.md",
        *(f"docs/rules.{lang}.md" for lang in LANGUAGES if lang != "en"),
        "scripts/make_cards.mjs",
        "docs/records.md",
        "docs/envs.md",
    }, ran.stdout[-3000:]
    assert " passed" not in ran.stdout.splitlines()[-1], ran.stdout[-3000:]
