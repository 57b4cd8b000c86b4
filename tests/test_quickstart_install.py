"""The released wheel, installed with the Quick start's extras in a fresh virtualenv, serves and rates a game.

The sdist and the wheel are built from this checkout as a release is (tests/repository.py), and a
fresh virtualenv in a temporary directory gets exactly ``pip install "<wheel>[server,tui]"``: the
package as users receive it, without the checkout's files. Its ``catsack --version`` is the wheel's,
and tests/quickstart_smoke.py starts its ``catsack serve``, waits for ``/health`` to answer with
that version, and plays a rated game (accounts, a bot taking an abandoned seat over, OpenSkill at
the end). A runtime dependency missing from those extras, or a file missing from the wheel (pages,
migrations, rules), fails it: the server cannot start, or logs the error and never rates the game.

It downloads the server's dependencies from PyPI and takes a minute or more, so it runs when
``CATSACK_QUICKSTART=1`` (``.ci/run`` sets it; CI has PyPI) and is skipped otherwise;
tests/test_server_dependencies.py checks the same extras offline on every run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

import catsack
from repository import ROOT, build_release
from server_procs import kill_group, spawn

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("CATSACK_QUICKSTART") != "1",
        reason="builds a virtualenv from PyPI: set CATSACK_QUICKSTART=1 (.ci/run does)",
    ),
]


def test_the_wheel_with_the_quickstart_extras_serves_and_rates_a_game(tmp_path: Path) -> None:
    _, wheel = build_release(tmp_path / "release")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PIP_USER")}
    install = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", f"{wheel}[server,tui]"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    work = tmp_path / "work"  # outside the checkout: nothing of it can be imported by accident
    work.mkdir()
    version = subprocess.run(
        [str(bin_dir / "catsack"), "--version"], env=env, cwd=work, capture_output=True, text=True, timeout=60
    )
    assert version.stdout == f"catsack {catsack.__version__}\n", version.stdout + version.stderr
    # The smoke script and the server it starts share a process group of their own: whatever happens
    # (a timeout, a failed assertion), the group is killed, so no server outlives the test.
    smoke = spawn(
        [str(bin_dir / "python"), str(ROOT / "tests" / "quickstart_smoke.py"), str(bin_dir), str(work)],
        env=env,
        cwd=work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = (b.decode(errors="replace") for b in smoke.communicate(timeout=300))
    finally:
        kill_group(smoke)
    assert smoke.returncode == 0, out[-3000:] + err[-3000:]
    assert f"health ok: version {catsack.__version__}\n" in out
    assert "rated game ok" in out
