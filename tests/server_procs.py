"""Helpers for tests that run real ``catsack serve`` processes.

- :class:`ServerProc`: one ``python -m catsack serve`` subprocess on a free port, its log in a file,
  started, health-checked, killed with SIGKILL or stopped, and restarted on the same port.
- :class:`Nginx`: Debian's nginx as a child process in front of server processes, with the repository's
  own site file (``deploy/nginx/catsack.conf``; ports, names and a self-signed certificate substituted).
- :class:`WsClient`: one ``catsack-ws/1`` WebSocket connection (``websockets`` library) whose reader
  task records every frame: ``state`` frames, ``ack`` and ``error`` answers, notices.
- :func:`need_postgres` / :func:`need_redis`: skip with a clear reason when a service is absent, and
  fail instead when ``CATSACK_REQUIRE_SERVICES=1``.
- :func:`need_program`: the same for a program (nginx, openssl).
- :func:`postgres_schema`: a fresh PostgreSQL schema and a URL whose search_path is it, dropped afterwards.
- :func:`private_redis`: a Redis server of the test's own on a free port.

Servers run with the current interpreter and environment (so ``PYTHONPATH`` reaches them) and with
their working directory in the test's tmp_path: nothing is written into the repository.

No process outlives its test: every child is started by :func:`spawn`, in a process group of its own,
and kept in a list. A start that fails stops what it started before raising; ``stop`` ends the whole
group (the server's worker processes too); and :func:`stop_all`, which tests/conftest.py calls when the
session ends (and Python calls at exit, for the bench scripts), kills whatever is still running.
Start-up waits for a condition (``/health`` answers, a port accepts); :data:`START_BOUND` only bounds a
failure, and is generous because a loaded machine starts a server slowly.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

__all__ = [
    "NGINX",
    "OPENSSL",
    "POSTGRES_URL",
    "PROTOCOL",
    "REDIS_URL",
    "START_BOUND",
    "Nginx",
    "ServerProc",
    "WsClient",
    "free_port",
    "kill_group",
    "need_postgres",
    "need_program",
    "need_redis",
    "postgres_schema",
    "private_redis",
    "services_required",
    "spawn",
    "stop_all",
    "stop_group",
]

PROTOCOL = "catsack-ws/1"
NGINX = "/usr/sbin/nginx"
OPENSSL = "/usr/bin/openssl"
SITE = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "catsack.conf"
POSTGRES_URL = os.environ.get("CATSACK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("CATSACK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


#: Seconds a start may take before it counts as failed: it bounds a failure only (a start waits for
#: its condition, and a server on a loaded machine can take a minute to answer).
START_BOUND = 180.0


# ---------------------------------------------------------------------- child processes

#: Every child started by :func:`spawn` (stopped by :func:`stop_all` at the latest).
_CHILDREN: list[subprocess.Popen[bytes]] = []


def spawn(cmd: list[str], **kw: Any) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a process group of its own (a kill reaches it and whatever it started, and the
    test's own group is left alone) and keep it for :func:`stop_all`."""
    proc: subprocess.Popen[bytes] = subprocess.Popen(cmd, start_new_session=True, **kw)
    _CHILDREN.append(proc)
    return proc


def _killpg(proc: subprocess.Popen[bytes], sig: int) -> None:
    # Only while the leader has not been waited for (alive, or a zombie): its pid, the group's id, cannot
    # have been given to an unrelated process then.
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether ``proc`` has exited, without waiting for it (so its group id stays reserved)."""
    if proc.returncode is not None:
        return True
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL to ``proc``'s whole process group, then reap it."""
    _killpg(proc, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(10)


def stop_group(proc: subprocess.Popen[bytes], grace: float = 5.0) -> None:
    """A clean stop of ``proc`` (SIGTERM to it alone: it ends what it started itself), then SIGKILL to
    whatever of its process group is left (itself after ``grace`` seconds, stray workers), then reap it."""
    if proc.returncode is not None:
        return
    if not _exited(proc):
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        end = time.monotonic() + grace
        while not _exited(proc) and time.monotonic() < end:
            time.sleep(0.02)
    kill_group(proc)


def stop_all() -> list[str]:
    """Kill every child still running (a test or a fixture that did not stop its own); what was found."""
    left = []
    for proc in _CHILDREN:
        if proc.poll() is None:
            left.append(" ".join(str(a) for a in proc.args[:4]) if isinstance(proc.args, list) else str(proc.args))
            kill_group(proc)
    _CHILDREN[:] = [p for p in _CHILDREN if p.poll() is None]
    return left


atexit.register(stop_all)


def free_port() -> int:
    """A TCP port nobody listens on right now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


# ---------------------------------------------------------------------- services


def services_required() -> bool:
    """``CATSACK_REQUIRE_SERVICES=1``: a missing PostgreSQL or Redis is a failure, not a skip."""
    return os.environ.get("CATSACK_REQUIRE_SERVICES", "").strip() not in ("", "0", "false", "no")


def _missing(what: str, why: str) -> None:
    msg = f"{what} is not reachable ({why})"
    if services_required():
        pytest.fail(f"{msg}, and CATSACK_REQUIRE_SERVICES=1 demands it")
    pytest.skip(f"{msg}; set CATSACK_REQUIRE_SERVICES=1 to fail instead of skipping")


def need_postgres(url: str = POSTGRES_URL) -> str:
    """``url`` if PostgreSQL answers there (and psycopg is installed); otherwise skip or fail."""
    try:
        import psycopg
    except ImportError as exc:
        _missing("PostgreSQL", f"psycopg is not installed: {exc}")
    dsn = libpq_dsn(url)
    try:
        with psycopg.connect(dsn, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        _missing("PostgreSQL", f"{url}: {exc}".strip())
    return url


def libpq_dsn(url: str) -> str:
    """The libpq form (for psycopg) of a SQLAlchemy ``postgresql+psycopg://`` URL."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@contextlib.contextmanager
def postgres_schema() -> Iterator[tuple[str, str]]:
    """A fresh, empty PostgreSQL schema: (SQLAlchemy URL whose search_path is that schema, schema name).

    Skips or fails like :func:`need_postgres`. Servers on that URL see only their own tables, not
    other tests' tables in the shared database; the schema is dropped afterwards.
    """
    base = need_postgres()
    import psycopg

    dsn = libpq_dsn(base)
    schema = f"catsack_test_{secrets.token_hex(6)}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in base else "?"
    try:
        yield f"{base}{sep}options=-csearch_path%3D{schema}", schema
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextlib.contextmanager
def private_redis(tmp_path: Path) -> Iterator[str]:
    """A Redis server of our own on a free port (so a process subscribed there hears nobody else)."""
    exe = shutil.which("redis-server")
    if exe is None:
        if services_required():
            pytest.fail("redis-server is not installed, and CATSACK_REQUIRE_SERVICES=1 demands it")
        pytest.skip("redis-server is not installed (needed to start a private Redis)")
    port = free_port()
    proc = spawn(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        url = f"redis://127.0.0.1:{port}/0"
        end = time.monotonic() + START_BOUND
        while True:
            try:
                _ping(url)
                break
            except Exception as exc:
                if proc.poll() is not None or time.monotonic() > end:
                    raise AssertionError(f"the private redis-server on port {port} does not answer: {exc}") from exc
                time.sleep(0.05)
        yield url
    finally:
        stop_group(proc)


def _ping(url: str) -> None:
    import redis

    r = redis.Redis.from_url(url, socket_connect_timeout=1)
    try:
        r.ping()
    finally:
        r.close()


def need_program(path: str, package: str) -> str:
    """``path`` if that program is installed (Debian ``package``); otherwise skip or fail."""
    if not os.access(path, os.X_OK):
        _missing(path, f"not installed: apt-get install {package}")
    return path


def need_redis(url: str = REDIS_URL) -> str:
    """``url`` if Redis answers PING there (and redis-py is installed); otherwise skip or fail."""
    try:
        import redis
    except ImportError as exc:
        _missing("Redis", f"redis is not installed: {exc}")
    try:
        r = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        try:
            r.ping()
        finally:
            r.close()
    except Exception as exc:
        _missing("Redis", f"{url}: {exc}")
    return url


# ---------------------------------------------------------------------- server processes


class ServerProc:
    """A ``catsack serve`` subprocess. ``env`` adds ``CATSACK_*`` settings to the inherited environment."""

    def __init__(self, workdir: Path, env: dict[str, str], *, name: str = "server", port: int | None = None) -> None:
        self.workdir = workdir
        self.name = name
        self.port = port or free_port()
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", "CATSACK_LOG_JSON": "false", **env}
        self.log_path = workdir / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = START_BOUND) -> ServerProc:
        """Start the process and wait until ``/health`` answers (raise with the log tail if not, after
        stopping the process: a failed start leaves nothing running)."""
        assert self.proc is None or self.proc.poll() is not None, "already running"
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"===== start {self.starts} of {self.name} on port {self.port} =====\n".encode())
            log.flush()
            self.proc = spawn(
                [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=self.workdir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            self.wait_healthy(timeout)
        except BaseException:
            kill_group(self.proc)
            raise
        return self

    def wait_healthy(self, timeout: float = START_BOUND) -> None:
        end = time.monotonic() + timeout
        last: object = None
        while time.monotonic() < end:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.proc.returncode}\n{self.tail()}")
            try:
                r = httpx.get(self.url + "/health", timeout=2.0)
                if r.status_code == 200 and r.json().get("status") == "ok":
                    return
                last = f"{r.status_code} {r.text[:200]}"
            except httpx.HTTPError as exc:
                last = exc
            time.sleep(0.05)
        raise AssertionError(f"{self.name} not healthy after {timeout} s ({last})\n{self.tail()}")

    def kill9(self) -> None:
        """SIGKILL: no shutdown handler runs, nothing is flushed that was not committed."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            self.kills += 1

    def stop(self) -> None:
        """A clean stop (SIGTERM, then SIGKILL after 5 s), of the server and its worker processes."""
        if self.proc is not None:
            stop_group(self.proc)

    def tail(self, lines: int = 40) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return f"(no log at {self.log_path})"
        return f"--- last {lines} lines of {self.log_path} ---\n" + "\n".join(text.splitlines()[-lines:])

    # HTTP shortcuts (synchronous: they are quick and keep the tests simple)

    def create_table(self, **body: Any) -> dict[str, Any]:
        r = httpx.post(self.url + "/api/tables", json=body, timeout=10)
        assert r.status_code == 201, f"{r.status_code} {r.text}"
        out: dict[str, Any] = r.json()
        return out

    def join(self, table: str, name: str, seat: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        r = httpx.post(f"{self.url}/api/tables/{table}/join", json=body, timeout=10)
        assert r.status_code == 200, f"{r.status_code} {r.text}"
        out: dict[str, Any] = r.json()
        return out

    def get_json(self, path: str) -> Any:
        r = httpx.get(self.url + path, timeout=10)
        assert r.status_code == 200, f"GET {path}: {r.status_code} {r.text}"
        return r.json()


# ---------------------------------------------------------------------- nginx in front (docs/deploy.md)


def self_signed(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            OPENSSL,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def site_config(upstreams: list[int], https_port: int, http_port: int, cert: Path, key: Path) -> str:
    """The repository's site file with this machine's ports and certificate: nothing else changes (the
    upstream blocks, round robin, by table and by bot, list the same processes, each with the file's parameters)."""
    text = SITE.read_text()

    def servers(block: re.Match[str]) -> str:
        # The file's own parameters of a process (max_fails, fail_timeout...), for each of this test's ports.
        params = re.match(r"    server 127\.0\.0\.1:\d+([^\n]*)\n", block.group(0))
        assert params is not None
        return "".join(f"    server 127.0.0.1:{p}{params.group(1)}\n" for p in upstreams)

    text, n = re.subn(
        r"(?m)^    server 127\.0\.0\.1:\d+[^\n]*\n(?:    server 127\.0\.0\.1:\d+[^\n]*\n)*", servers, text
    )
    assert n == 3, "the upstream blocks of deploy/nginx/catsack.conf (round robin, by table, by bot) changed shape"
    for pattern, new in [
        (r"(?m)^\s*listen \[::\]:\d+[^\n]*\n", ""),  # the test listens on IPv4 loopback only
        (r"listen 443 ssl", f"listen 127.0.0.1:{https_port} ssl"),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};"),
        (r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};"),
        (r"server_name catsack\.example\.org;", "server_name localhost 127.0.0.1;"),
    ]:
        text, n = re.subn(pattern, new, text)
        assert n >= 1 or pattern.startswith("(?m)^\\s*listen \\["), f"{pattern!r} not found in {SITE}"
    return text


class Nginx:
    """``nginx -g 'daemon off;'`` with everything (pid, logs, temp files) under one folder."""

    def __init__(self, folder: Path, upstreams: list[int], *, worker_connections: int = 1024) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.http_port = free_port()
        cert, key = self_signed(folder)
        (folder / "catsack.conf").write_text(site_config(upstreams, self.port, self.http_port, cert, key))
        temp = "".join(
            f"    {kind}_temp_path {folder / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read this folder
        (folder / "nginx.conf").write_text(
            f"{user}worker_processes 1;\npid {folder / 'nginx.pid'};\nerror_log {folder / 'error.log'} info;\n"
            f"worker_rlimit_nofile {4 * worker_connections + 1024};\n"
            f"events {{ worker_connections {worker_connections}; }}\n"
            f"http {{\n    access_log {folder / 'access.log'};\n{temp}    include {folder / 'catsack.conf'};\n}}\n"
        )
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Nginx:
        cmd = [
            NGINX,
            "-p",
            str(self.folder),
            "-c",
            str(self.folder / "nginx.conf"),
            "-e",
            str(self.folder / "error.log"),
        ]
        check = subprocess.run([*cmd, "-t"], capture_output=True, text=True)
        assert check.returncode == 0, f"nginx -t refused the configuration:\n{check.stderr}"
        self.proc = spawn([*cmd, "-g", "daemon off;"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        end = time.monotonic() + START_BOUND
        try:
            while True:
                try:
                    httpx.get(f"https://127.0.0.1:{self.port}/health", verify=False, timeout=2)
                    return self
                except httpx.HTTPError:
                    if self.proc.poll() is not None or time.monotonic() > end:
                        raise AssertionError(f"nginx did not start:\n{self.tail()}") from None
                    time.sleep(0.05)
        except BaseException:
            kill_group(self.proc)
            raise

    def stop(self) -> None:
        """nginx and its workers (SIGTERM: a fast shutdown; SIGKILL after 5 s)."""
        if self.proc is not None:
            stop_group(self.proc)

    def tail(self) -> str:
        path = self.folder / "error.log"
        return path.read_text(errors="replace")[-3000:] if path.exists() else "(no error.log)"


# ---------------------------------------------------------------------- WebSocket clients

_ids = itertools.count(1)


class WsClient:
    """A ``catsack-ws/1`` connection. Every received frame is kept in ``frames``; ``latest`` is the newest
    ``state`` frame, ``acks`` maps action ids to the version their ack named, ``errors`` lists error frames.

    ``connect`` may be called again after the connection dropped (a server kill): the record persists.
    """

    def __init__(self, ws_url: str, table: str, token: str | None, *, label: str = "", ssl: Any = None) -> None:
        self.ws_url = ws_url
        self.ssl = ssl  # an ssl.SSLContext for wss:// (a test's self-signed certificate)
        self.upstream: str | None = None  # X-Catsack-Upstream of the handshake: which process behind nginx
        self.table = table
        self.token = token
        self.label = label or f"client{next(_ids)}"
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.frames: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []
        self.latest: dict[str, Any] | None = None
        self.acks: dict[str, int] = {}
        self.errors: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None
        self.seat: int | None = None
        self.cond = asyncio.Condition()
        self.closed = True
        self.arrivals: list[tuple[float, int]] = []  # (monotonic time, version) of every state frame

    @property
    def version(self) -> int:
        return -1 if self.latest is None else int(self.latest["version"])

    async def connect(self, since: int | None = None, timeout: float = 10.0) -> dict[str, Any]:
        """Open, say hello (``since``: last version seen) and wait for the welcome and the first state."""
        import websockets

        extra: dict[str, Any] = {"ssl": self.ssl} if self.ssl is not None else {}
        self.ws = await websockets.connect(self.ws_url, open_timeout=timeout, max_size=2**22, **extra)
        response = getattr(self.ws, "response", None)
        self.upstream = None if response is None else response.headers.get("X-Catsack-Upstream")
        self.closed = False
        n_states = len(self.states)
        n_frames = len(self.frames)
        self.reader = asyncio.create_task(self._read())
        await self.send(
            {"type": "hello", "protocol": PROTOCOL, "table": self.table, "token": self.token, "since": since}
        )
        await self.wait(lambda: len(self.states) > n_states or self._error_after(n_frames), timeout)
        if self.welcome is None or self._error_after(n_frames):
            raise AssertionError(f"{self.label}: no welcome: {self.frames[n_frames:]}")
        return self.states[n_states]

    def _error_after(self, n: int) -> bool:
        return any(f.get("type") == "error" and "action_id" not in f for f in self.frames[n:])

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                frame = json.loads(text)
                async with self.cond:
                    self.frames.append(frame)
                    kind = frame.get("type")
                    if kind == "state":
                        self.states.append(frame)
                        self.latest = frame
                        self.arrivals.append((time.monotonic(), int(frame["version"])))
                    elif kind == "ack":
                        self.acks[frame["action_id"]] = int(frame["version"])
                    elif kind == "error":
                        self.errors.append(frame)
                    elif kind == "welcome":
                        self.welcome = frame
                        self.seat = frame["seat"]
                    self.cond.notify_all()
        except Exception:  # the connection dropped (a killed server): callers see `closed`
            pass
        finally:
            async with self.cond:
                self.closed = True
                self.cond.notify_all()

    async def send(self, frame: dict[str, Any]) -> None:
        """Send a frame; a dropped connection raises :class:`ConnectionError` (as :meth:`wait` does)."""
        from websockets.exceptions import ConnectionClosed

        try:
            await self.ws.send(json.dumps(frame))
        except ConnectionClosed as exc:
            raise ConnectionError(f"{self.label}: connection closed: {exc}") from exc

    async def wait(self, pred: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until ``pred()`` holds (checked after every frame); raise on timeout or a dropped connection."""
        async with self.cond:
            try:
                await asyncio.wait_for(self.cond.wait_for(lambda: pred() or self.closed), timeout)
            except TimeoutError:
                last = self.frames[-3:]
                raise AssertionError(f"{self.label}: timed out after {timeout} s; last frames {last}") from None
            if not pred():
                raise ConnectionError(f"{self.label}: connection closed while waiting")

    async def wait_version(self, version: int, timeout: float = 10.0) -> dict[str, Any]:
        await self.wait(lambda: self.version >= version, timeout)
        assert self.latest is not None
        return self.latest

    async def move(
        self, text: str, version: int, action_id: str | None = None, timeout: float = 10.0
    ) -> dict[str, Any]:
        """Send a move and return its answer (``ack`` or ``error`` with this action id)."""
        action_id = action_id or f"{self.label}-{next(_ids)}"
        n = len(self.frames)
        await self.send({"type": "move", "action_id": action_id, "version": version, "move": text})

        def answered() -> bool:
            return any(f.get("action_id") == action_id for f in self.frames[n:])

        await self.wait(answered, timeout)
        return next(f for f in self.frames[n:] if f.get("action_id") == action_id)

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.reader, 2.0)
