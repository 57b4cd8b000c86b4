"""The helpers that start processes for tests (tests/server_procs.py): nothing they start outlives a test.

A start that fails stops its process before raising; a stop ends the process and whatever it left in its
process group; whatever a test left running anyway is killed by :func:`stop_all` when the session ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from server_procs import START_BOUND, ServerProc, spawn, stop_all, stop_group

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, waiting for its parent to reap it, does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pid: int) -> None:
    deadline = time.monotonic() + START_BOUND  # bounds a failure only
    while alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs"
        time.sleep(0.02)


#: A parent that starts a child in its own process group and then waits; it prints the child's pid.
PARENT = (
    "import subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "print(child.pid, flush=True)\n"
    "time.sleep(600)\n"
)


def test_a_failed_start_stops_the_server(tmp_path: Path) -> None:
    """A server that does not answer within the start's bound is stopped before the start raises (a
    bound of 0 s fails at once, whatever the machine's speed)."""
    server = ServerProc(tmp_path, {"CATSACK_DATABASE_URL": f"sqlite:///{tmp_path / 'x.db'}"}, name="late")
    with pytest.raises(AssertionError, match="not healthy"):
        server.start(timeout=0.0)
    assert server.proc is not None and server.proc.returncode is not None
    wait_gone(server.proc.pid)


def test_stop_ends_the_process_and_what_it_left_in_its_group() -> None:
    """SIGTERM ends the parent; the child it started (a worker it did not stop) is killed with the group."""
    proc = spawn([sys.executable, "-c", PARENT], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert alive(child)
    stop_group(proc)
    assert proc.returncode is not None
    wait_gone(child)


def test_stop_all_kills_what_a_test_left_running() -> None:
    proc = spawn([sys.executable, "-c", PARENT], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    left = stop_all()
    assert any(sys.executable in entry for entry in left), left
    wait_gone(proc.pid)
    wait_gone(child)
    assert stop_all() == []
    assert os.getpgid(0) != proc.pid  # the test's own process group was never the child's


def test_a_browser_tests_server_that_fails_to_start_is_stopped(tmp_path: Path) -> None:
    """The browser tests' server (test_browser.Server) likewise: a start that fails stops the process."""
    from test_browser import Server

    server = Server(tmp_path)
    with pytest.raises(pytest.fail.Exception, match="did not answer"):
        server.start(timeout=0.0)
    assert server.proc is not None and server.proc.returncode is not None
    wait_gone(server.proc.pid)
