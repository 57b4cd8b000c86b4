"""Server load benchmark: many 5-seat tables of scripted clients over real WebSockets.

One ``catsack serve`` process (SQLite in a temporary directory unless
``--database-url``) is started; this script creates ``--tables`` 5-seat tables
over HTTP, joins all five seats of each, then starts ``--workers`` load
generator processes (separate from the server, so they do not share its CPU
accounting) that open one WebSocket per seat (``catsack-ws/1``) and play random
legal moves with a think time, so each table makes about ``--rate`` moves per
second. It reports:

* action-to-broadcast latency: from a client sending a move to *every*
  connection of that table holding the ``state`` frame with the new version
  (p50/p90/p99/max over the actions sent inside the measurement window);
* the mover's ack latency;
* the server's CPU (``/proc/<pid>/stat``: percent of one core, and per acknowledged move, with the
  kernel's share) and the whole machine's CPU use in the window (other tenants included);
* server RSS: idle, after the tables were made, after the connections were
  opened, at the end; memory per connection and per table;
* garbage-collector pauses inside the server, parsed from its stderr
  (``CATSACK_GC_LOG=1`` makes it log ``{"msg": "gc", "gen": .., "ms": ..}``);
* the generators' own CPU and event-loop lag, so a saturated generator shows.

Tables whose game ends are replaced by fresh ones (counted). Connection
failures and protocol errors are counted and shown.

    .venv/bin/python bench/server_load.py --tables 50 --seconds 10
    .venv/bin/python bench/server_load.py              # the target: 1,000 tables, 30 s
    .venv/bin/python bench/server_load.py --tables 200 --rate 2 --workers 2 --json

Several processes as deployed (docs/deploy.md): ``--nginx`` starts ``--processes``
(default 2) servers on PostgreSQL and Redis behind Debian's nginx with the repository's site file
(TLS, routing by table; the generators connect with wss:// to ``/ws/{table}`` like the browser
client, or to ``/ws`` with ``--ws-path plain``), and reports their CPU (each and nginx's), their CPU
per acknowledged move and their RSS together. Each run gets a fresh database (a new PostgreSQL
schema, dropped afterwards) and, with several processes, a Redis channel of its own.
``--server-cpus 0/1 --generator-cpus 1`` pins them with taskset; ``--compare PAIRS`` runs one
process and ``--processes`` in pairs at the same offered load, the order swapped every pair, and
compares their CPU per move:

    .venv/bin/python bench/server_load.py --nginx --compare 6 --tables 100 --rate 1 --no-compression \
        --server-cpus 0/1 --generator-cpus 1 --database-url postgresql+psycopg://postgres@127.0.0.1/test \
        --redis-url redis://127.0.0.1:6379/0

Two versions of the server: ``--against SRC`` runs it alternately from ``SRC`` (the folder holding
another commit's ``catsack`` package, e.g. the ``src`` of a ``git worktree`` of that commit) and from
this checkout (or ``--with SRC``), ``--pairs`` times, the order swapped every pair, each run on a
fresh database, and compares their CPU per move pair by pair (median and range):

    git worktree add ../catsack-before <commit>
    .venv/bin/python bench/server_load.py --against ../catsack-before/src --pairs 6 --tables 100 --rate 1 \
        --no-compression --server-cpus 0 --generator-cpus 1 \
        --database-url postgresql+psycopg://postgres@127.0.0.1/test

On a machine shared with other work compare CPU per move (it holds where wall-clock latency does
not), and only within one run: docs/deploy.md (*Measured*) has the figures and their commands.

Target: 1,000 tables in one process with p99 <= 50 ms. Linux only (reads ``/proc``).
``--profile PATH`` samples the server with py-spy during the window (``pip install py-spy``; the
samples of the thread holding the interpreter's lock) and shows where its busy time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import random
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PROTOCOL = "catsack-ws/1"
SEATS = 5
TARGET_TABLES = 1000
TARGET_P99_MS = 50.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- small helpers


def percentile(sorted_values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of an already sorted list (``None`` when empty)."""
    if not sorted_values:
        return None
    k = max(0, min(len(sorted_values) - 1, round(q / 100.0 * len(sorted_values) + 0.5) - 1))
    return sorted_values[k]


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    return sum(proc_cpu_split(pid))


def proc_cpu_split(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of process ``pid`` (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK  # utime, stime (fields 14 and 15)


def proc_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from ``/proc/stat``."""
    with open("/proc/stat") as f:
        parts = [int(x) for x in f.readline().split()[1:]]
    idle = parts[3] + (parts[4] if len(parts) > 4 else 0)
    return float(sum(parts) - idle), float(sum(parts))


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft open-files limit towards ``wanted`` (children inherit it); the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        soft = target
    return soft


def sum_rss(pids: list[int]) -> float:
    """Resident MiB of the server processes together."""
    return sum(proc_rss_mib(pid) for pid in pids)


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (nginx's workers)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry))
    return out


def start_nginx(folder: Path, ports: list[int], connections: int) -> Any:
    """Debian's nginx with the repository's site file (deploy/nginx/catsack.conf), as tests/test_deploy.py
    runs it: TLS on a free port, round robin to ``ports``."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from server_procs import NGINX, Nginx

    if not os.access(NGINX, os.X_OK):
        raise RuntimeError(f"--nginx needs {NGINX} (apt-get install nginx)")
    return Nginx(folder / "nginx", ports, worker_connections=2 * connections + 1024).start()


def pinned(cpus: str | None) -> list[str]:
    """The ``taskset`` prefix that keeps a command (and every thread it starts) on ``cpus`` ("0", "1-3")."""
    return [] if not cpus else ["taskset", "-c", cpus]


def pin_running(pids: list[int], cpus: str | None) -> None:
    """Move running processes (every thread) onto ``cpus``: nginx, started by its own helper."""
    if cpus:
        for pid in pids:
            subprocess.run(["taskset", "-a", "-cp", cpus, str(pid)], check=True, capture_output=True)


@contextlib.contextmanager
def fresh_database(url: str | None, tmp: str) -> Any:
    """A database of this run's own: a SQLite file in ``tmp``, or a new PostgreSQL schema on ``url``
    (dropped afterwards). Servers load every unfinished table at start, so runs must not share one."""
    if not url:
        yield f"sqlite:///{tmp}/bench-{time.monotonic_ns()}.db"
        return
    if not url.startswith("postgresql"):
        yield url
        return
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://", 1).split("?", 1)[0]
    schema = f"bench_{os.getpid()}_{time.monotonic_ns() % 10**9}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{dsn.replace('postgresql://', 'postgresql+psycopg://', 1)}?options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def use_uvloop() -> str:
    try:
        import uvloop
    except ImportError:
        return "asyncio"
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return "uvloop"


# ---------------------------------------------------------------------- HTTP: tables and seats


async def make_table(client: Any, base: str) -> dict[str, Any]:
    """Create a 5-seat table with every seat human and join all five: ``{"id", "tokens"}``."""
    r = await client.post(f"{base}/api/tables", json={"seats": SEATS, "name": "bench"})
    if r.status_code != 201:
        raise RuntimeError(f"POST /api/tables answered {r.status_code}: {r.text[:200]}")
    table_id = r.json()["table"]
    tokens = []
    for seat in range(SEATS):
        r = await client.post(f"{base}/api/tables/{table_id}/join", json={"name": f"bot{seat}", "seat": seat})
        if r.status_code != 200:
            raise RuntimeError(f"join seat {seat} of {table_id} answered {r.status_code}: {r.text[:200]}")
        tokens.append(r.json()["token"])
    return {"id": table_id, "tokens": tokens}


async def make_tables(base: str, n: int, concurrency: int) -> tuple[list[dict[str, Any]], list[str]]:
    import httpx

    out: list[dict[str, Any]] = []
    errors: list[str] = []
    sem = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)

    async with httpx.AsyncClient(timeout=120.0, limits=limits, verify=False) as client:

        async def one() -> None:
            async with sem:
                try:
                    out.append(await make_table(client, base))
                except Exception as exc:
                    errors.append(f"{type(exc).__name__}: {exc}")
                if len(out) % 100 == 0 and out:
                    print(f"  {len(out)}/{n} tables made", file=sys.stderr, flush=True)

        await asyncio.gather(*(one() for _ in range(n)))
    return out, errors


# ---------------------------------------------------------------------- the load generator (worker process)


@dataclass
class Client:
    table: TableState
    seat: int
    token: str
    ws: Any = None
    seen: int = -1  # highest state version this connection holds
    scheduled: int = -1  # version a move has been scheduled against
    last_view: dict[str, Any] | None = None


@dataclass
class TableState:
    id: str
    clients: list[Client] = field(default_factory=list)
    sent: dict[int, float] = field(default_factory=dict)  # target version -> perf time of the move's send
    got: dict[int, int] = field(default_factory=dict)  # target version -> connections holding it
    over_seen: int = 0
    broken: bool = False
    done: bool = False


class Worker:
    """One load generator process: its share of the tables, 5 connections each."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.base: str = spec["base_url"]
        self.ws_url = self.base.replace("https://", "wss://", 1).replace("http://", "ws://", 1) + "/ws"
        # "table": /ws/{table}, the URL the browser client uses (a proxy routes a table to one process);
        # "plain": /ws, as clients from before table routing connect (any process).
        self.by_table = spec.get("ws_path", "table") == "table"
        self.ssl: Any = None
        if self.ws_url.startswith("wss://"):  # nginx with the bench's self-signed certificate
            import ssl

            self.ssl = ssl.create_default_context()
            self.ssl.check_hostname = False
            self.ssl.verify_mode = ssl.CERT_NONE
        self.rate: float = spec["rate"]
        self.compression: str | None = "deflate" if spec["compression"] else None
        self.replace: bool = spec["replace"]
        self.connect_sem = asyncio.Semaphore(spec["connect_concurrency"])
        self.rng = random.Random(spec["seed"])
        self.tables = [TableState(t["id"]) for t in spec["tables"]]
        self.tokens = {t["id"]: t["tokens"] for t in spec["tables"]}
        self.go = asyncio.Event()
        self.stopping = False
        self.win_start = float("inf")  # perf_counter domain
        self.win_end = float("inf")
        # results
        self.latencies: list[float] = []
        self.ack_latencies: list[float] = []
        self.ack_sent: dict[tuple[str, int, str], float] = {}
        self.actions_sent = 0
        self.actions_in_window = 0
        self.acks = 0
        self.errors: dict[str, int] = {}
        self.conn_errors: dict[str, int] = {}
        self.conn_error_samples: list[str] = []
        self.closed_codes: dict[str, int] = {}
        self.games_finished = 0
        self.tables_replaced = 0
        self.replace_failures = 0
        self.frames_in = 0
        self.bytes_in = 0
        self.loop_lag: list[float] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        self.counter = 0

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.tasks.discard(task)
        exc = None if task.cancelled() else task.exception()
        if exc is not None:
            self.conn_error("generator bug", exc)

    def conn_error(self, what: str, exc: BaseException) -> None:
        key = f"{what}: {type(exc).__name__}"
        self.conn_errors[key] = self.conn_errors.get(key, 0) + 1
        if len(self.conn_error_samples) < 5:
            self.conn_error_samples.append(f"{key}: {str(exc)[:160]}")

    # ------------------------------------------------------------------ connections

    async def open_table(self, table: TableState, tokens: list[str]) -> bool:
        from websockets.asyncio.client import connect

        clients = [Client(table, seat, tok) for seat, tok in enumerate(tokens)]
        table.clients = clients
        for c in clients:
            try:
                async with self.connect_sem:
                    c.ws = await connect(
                        f"{self.ws_url}/{table.id}" if self.by_table else self.ws_url,
                        ssl=self.ssl,
                        compression=self.compression,
                        ping_interval=None,
                        open_timeout=120,
                        max_size=2**22,
                    )
                    await c.ws.send(
                        json.dumps(
                            {"type": "hello", "protocol": PROTOCOL, "table": table.id, "token": c.token, "since": None}
                        )
                    )
            except Exception as exc:
                self.conn_error("connect", exc)
                table.broken = True
                return False
            self.spawn(self.reader(c))
        return True

    async def close_table(self, table: TableState) -> None:
        for c in table.clients:
            if c.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(c.ws.close(), 5.0)

    async def reader(self, c: Client) -> None:
        from websockets.exceptions import ConnectionClosed

        ws = c.ws
        table = c.table
        loads = json.loads
        perf = time.perf_counter
        try:
            async for raw in ws:
                now = perf()
                self.frames_in += 1
                self.bytes_in += len(raw)
                msg = loads(raw)
                kind = msg.get("type")
                if kind == "state":
                    self.on_state(c, msg, now)
                elif kind == "ack":
                    self.acks += 1
                    t0 = self.ack_sent.pop((table.id, c.seat, msg.get("action_id")), None)
                    if t0 is not None and self.win_start <= t0 <= self.win_end:
                        self.ack_latencies.append((now - t0) * 1000.0)
                elif kind == "error":
                    code = str(msg.get("code"))
                    self.errors[code] = self.errors.get(code, 0) + 1
        except ConnectionClosed as exc:
            if not self.stopping and not table.done:
                rcvd = exc.rcvd
                code = f"{rcvd.code} {rcvd.reason}" if rcvd is not None else "no close frame"
                self.closed_codes[code] = self.closed_codes.get(code, 0) + 1
                table.broken = True
        except Exception as exc:
            if not self.stopping:
                self.conn_error("read", exc)
                table.broken = True

    # ------------------------------------------------------------------ the game

    def on_state(self, c: Client, msg: dict[str, Any], now: float) -> None:
        table = c.table
        v = msg["version"]
        if v > c.seen:
            # This connection now holds every version in (seen, v]; an action is broadcast when all 5 do.
            for target in [t for t in table.sent if c.seen < t <= v]:
                n = table.got.get(target, 0) + 1
                if n >= SEATS:
                    t0 = table.sent.pop(target)
                    table.got.pop(target, None)
                    if self.win_start <= t0 <= self.win_end:
                        self.latencies.append((now - t0) * 1000.0)
                else:
                    table.got[target] = n
            c.seen = v
        if msg.get("table_status") == "over":
            if c.scheduled != -2:
                c.scheduled = -2
                table.over_seen += 1
                if table.over_seen == SEATS and not table.done:
                    table.done = True
                    self.games_finished += 1
                    if self.replace and not self.stopping:
                        self.spawn(self.replace_table(table))
            return
        view = msg["view"]
        if view.get("legal") and view.get("to_move") == c.seat and c.scheduled < v and v == c.seen:
            c.scheduled = v
            c.last_view = view
            self.spawn(self.move_later(c, v, view["legal"]))

    async def move_later(self, c: Client, version: int, legal: list[str]) -> None:
        first = not self.go.is_set()
        await self.go.wait()
        mean = 1.0 / self.rate
        # The first move of each table after GO is spread over one period, so tables do not move in step.
        await asyncio.sleep(self.rng.uniform(0.0, mean) if first else self.rng.uniform(0.5 * mean, 1.5 * mean))
        table = c.table
        if self.stopping or table.broken or table.done or c.seen != version:
            return
        move = self.rng.choice(legal)
        self.counter += 1
        action_id = f"a{self.counter}"
        t0 = time.perf_counter()
        table.sent[version + 1] = t0
        table.got.pop(version + 1, None)
        self.ack_sent[(table.id, c.seat, action_id)] = t0
        self.actions_sent += 1
        if self.win_start <= t0 <= self.win_end:
            self.actions_in_window += 1
        try:
            await c.ws.send(json.dumps({"type": "move", "action_id": action_id, "version": version, "move": move}))
        except Exception as exc:
            self.conn_error("send", exc)
            table.broken = True

    async def replace_table(self, old: TableState) -> None:
        import httpx

        await self.close_table(old)
        with contextlib.suppress(ValueError):
            self.tables.remove(old)
        try:
            async with httpx.AsyncClient(timeout=60.0, verify=False) as client:
                made = await make_table(client, self.base)
        except Exception as exc:
            self.replace_failures += 1
            self.conn_error("replace", exc)
            return
        table = TableState(made["id"])
        self.tables.append(table)
        self.tables_replaced += 1
        await self.open_table(table, made["tokens"])

    async def lag_monitor(self) -> None:
        """Event-loop lag of this generator: if it is large, latencies include the generator's own delay."""
        step = 0.05
        while not self.stopping:
            t0 = time.perf_counter()
            await asyncio.sleep(step)
            t1 = time.perf_counter()
            if self.win_start <= t0 <= self.win_end:
                self.loop_lag.append((t1 - t0 - step) * 1000.0)

    # ------------------------------------------------------------------ the run

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        t0 = time.perf_counter()
        await asyncio.gather(*(self.open_table(t, self.tokens[t.id]) for t in self.tables))
        opened = sum(1 for t in self.tables for c in t.clients if c.ws is not None)
        print(f"READY {opened} {time.perf_counter() - t0:.3f}", flush=True)
        line = await loop.run_in_executor(None, sys.stdin.readline)
        parts = line.split()
        if not parts or parts[0] != "GO":
            self.stopping = True
            return
        go_wall, start_wall, end_wall = (float(x) for x in parts[1:4])
        offset = time.perf_counter() - time.time()
        self.win_start, self.win_end = start_wall + offset, end_wall + offset
        await asyncio.sleep(max(0.0, go_wall - time.time()))
        self.go.set()
        monitor = asyncio.create_task(self.lag_monitor())
        await asyncio.sleep(max(0.0, end_wall - time.time()))
        # Actions sent just before the end may still be in flight: give them a moment.
        drain_until = time.perf_counter() + 3.0
        while time.perf_counter() < drain_until and any(
            t0 <= self.win_end for t in self.tables if not t.broken for t0 in t.sent.values()
        ):
            await asyncio.sleep(0.05)
        self.stopping = True
        incomplete = sum(1 for t in self.tables for t0 in t.sent.values() if self.win_start <= t0 <= self.win_end)
        result = {
            "latencies_ms": self.latencies,
            "ack_latencies_ms": self.ack_latencies,
            "acked_in_window": len(self.ack_latencies),
            "loop_lag_ms": self.loop_lag,
            "actions_sent": self.actions_sent,
            "actions_in_window": self.actions_in_window,
            "incomplete": incomplete,
            "acks": self.acks,
            "errors": self.errors,
            "conn_errors": self.conn_errors,
            "conn_error_samples": self.conn_error_samples,
            "closed_codes": self.closed_codes,
            "games_finished": self.games_finished,
            "tables_replaced": self.tables_replaced,
            "replace_failures": self.replace_failures,
            "broken_tables": sum(1 for t in self.tables if t.broken),
            "silent_connections": sum(1 for t in self.tables for c in t.clients if c.seen < 0),
            "frames_in": self.frames_in,
            "bytes_in": self.bytes_in,
            "connections_opened": opened,
        }
        print("RESULT " + json.dumps(result), flush=True)
        monitor.cancel()
        for t in list(self.tasks):
            t.cancel()
        await asyncio.gather(*(self.close_table(t) for t in self.tables), return_exceptions=True)


def worker_main(spec_path: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the orchestrator stops us
    use_uvloop()
    spec = json.loads(Path(spec_path).read_text())
    raise_fd_limit(SEATS * len(spec["tables"]) * 2 + 256)
    asyncio.run(Worker(spec).run())


# ---------------------------------------------------------------------- the server process


class ServerProc:
    """``python -m catsack serve`` in its own session; stderr parsed for GC pauses and warnings."""

    def __init__(self, port: int, env: dict[str, str], cpus: str | None = None) -> None:
        self.port = port
        self.proc = subprocess.Popen(
            [*pinned(cpus), sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # Ctrl+C reaches only us; we shut the server down cleanly
        )
        self.gc: list[tuple[float, int, float]] = []  # (wall time, generation, ms)
        self.problems: list[str] = []
        self.problem_count = 0
        self.tail: list[str] = []
        self.lock = threading.Lock()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            now = time.time()
            try:
                obj = json.loads(line)
            except ValueError:
                obj = None
            with self.lock:
                if not isinstance(obj, dict):
                    self.tail = [*self.tail, line.rstrip()][-20:]
                    continue
                if obj.get("msg") == "gc":
                    self.gc.append((now, int(obj.get("gen", -1)), float(obj.get("ms", 0.0))))
                elif obj.get("level") in ("warning", "error", "critical"):
                    self.problem_count += 1
                    if len(self.problems) < 10:
                        self.problems.append(line.strip()[:300])

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def health(self) -> dict[str, Any]:
        """The process's /health: the tables it holds and drives."""
        import httpx

        try:
            out: dict[str, Any] = httpx.get(f"{self.base}/health", timeout=10.0).json()
        except (httpx.HTTPError, ValueError) as exc:
            return {"error": type(exc).__name__}
        return {k: out.get(k) for k in ("tables", "driving")}

    def moves(self) -> float | None:
        """Moves this process committed and applied so far (its ``/metrics``), ``None`` if unknown."""
        import httpx

        try:
            text = httpx.get(f"{self.base}/metrics", timeout=10.0).text
        except httpx.HTTPError:
            return None
        lines = text.splitlines()
        return sum(float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("catsack_moves_applied_total"))

    def wait_ready(self, timeout: float) -> None:
        import httpx

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited at start:\n" + "\n".join(self.tail))
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{self.base}/health", timeout=2.0).status_code == 200:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer /health within {timeout:g} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class WorkerProc:
    def __init__(self, spec_path: Path, cpus: str | None = None) -> None:
        self.proc = subprocess.Popen(
            [*pinned(cpus), sys.executable, str(Path(__file__).resolve()), "--worker", str(spec_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put("")

    def expect(self, word: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"a load generator sent no {word} within {timeout:g} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line == "":
                raise RuntimeError(f"a load generator exited before {word} (rc {self.proc.wait()})")
            if line.startswith(word + " ") or line.strip() == word:
                return line[len(word) :].strip()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout: float) -> None:
        """Let the generator close its connections and exit by itself."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


# ---------------------------------------------------------------------- orchestration


def run_bench(args: argparse.Namespace, cleanup: list[Any]) -> dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="catsack-load-")
    cleanup.append(tmp)
    with fresh_database(args.database_url, tmp) as db_url:
        try:
            return run_once(args, cleanup, tmp, db_url)
        finally:  # stop this run's processes before its database goes
            for item in reversed(cleanup):
                if not isinstance(item, str):
                    with contextlib.suppress(Exception):
                        item.stop()
            cleanup[:] = [x for x in cleanup if isinstance(x, str)]


def run_once(args: argparse.Namespace, cleanup: list[Any], tmp: str, db_url: str) -> dict[str, Any]:
    conns_wanted = args.tables * SEATS
    fd_soft = raise_fd_limit(conns_wanted * 2 + 1024)
    env = dict(os.environ)
    if getattr(args, "source", None):  # --against: the server runs from this source folder
        env["PYTHONPATH"] = str(args.source)
    env.update(
        {
            "CATSACK_DATABASE_URL": db_url,
            # Every generator connection comes from 127.0.0.1: lift the per-address caps (connections,
            # HTTP requests per second) that protect a public server.
            "CATSACK_MAX_CONNECTIONS_PER_ADDRESS": str(max(64, conns_wanted * 2 + 100)),
            "CATSACK_MAX_PENDING_CONNECTIONS": str(max(256, conns_wanted + 100)),
            "CATSACK_MAX_PENDING_PER_ADDRESS": str(max(16, conns_wanted + 100)),
            "CATSACK_HTTP_RATE_PER_SECOND": "1000000",
            "CATSACK_HTTP_RATE_BURST": "1000000",
            # Making 1,000 tables on a busy machine can take minutes before the seats connect: no seat
            # may be handed to a bot meanwhile (the default grace period is 120 s).
            "CATSACK_GRACE_SECONDS": "86400",
            "CATSACK_GC_LOG": "1",
            "CATSACK_LOG_JSON": "1",
            "CATSACK_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
        }
    )
    if args.redis_url and args.processes > 1:
        env["CATSACK_REDIS_URL"] = args.redis_url
        # A channel of this run's own: other servers on the same Redis (tests) do not reach it.
        env["CATSACK_REDIS_CHANNEL"] = f"catsack:bench:{os.getpid()}:{time.monotonic_ns()}"
    if args.nginx:
        env["CATSACK_TRUSTED_PROXIES"] = "127.0.0.1"

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    load0 = os.getloadavg()
    servers: list[ServerProc] = []
    for i in range(args.processes):  # one after the other: the first one creates the schema
        port = free_port()
        log(f"starting server {i + 1} of {args.processes} on port {port} ({_safe(db_url)}); open files {fd_soft}")
        cpus = args.server_cpus[i % len(args.server_cpus)] if args.server_cpus else None
        servers.append(ServerProc(port, env, cpus))
        cleanup.append(servers[-1])
        servers[-1].wait_ready(60.0)
    base = servers[0].base
    nginx = None
    if args.nginx:
        nginx = start_nginx(Path(tmp), [s.port for s in servers], conns_wanted)
        cleanup.append(nginx)
        assert nginx.proc is not None
        pin_running([nginx.proc.pid, *children(nginx.proc.pid)], args.generator_cpus)
        base = f"https://127.0.0.1:{nginx.port}"
        log(f"nginx on {base} round-robin to ports {', '.join(str(s.port) for s in servers)}")
    pids = [s.proc.pid for s in servers]
    time.sleep(0.5)
    rss_idle = sum_rss(pids)

    log(f"creating {args.tables} tables of {SEATS} seats and joining every seat over HTTP ...")
    t0 = time.perf_counter()
    tables, create_errors = asyncio.run(make_tables(base, args.tables, args.http_concurrency))
    create_s = time.perf_counter() - t0
    log(f"  {len(tables)} tables in {create_s:.1f} s ({len(create_errors)} failed)")
    if not tables:
        raise RuntimeError("no table could be created: " + "; ".join(create_errors[:3]))
    rss_tables = sum_rss(pids)

    workers: list[WorkerProc] = []
    shares = [tables[i :: args.workers] for i in range(args.workers)]
    for i, share in enumerate(shares):
        spec = {
            "base_url": base,
            "tables": share,
            "rate": args.rate,
            "compression": args.compression,
            "replace": not args.no_replace,
            "connect_concurrency": args.connect_concurrency,
            "seed": args.seed + i,
            "ws_path": args.ws_path,
        }
        path = Path(tmp) / f"worker{i}.json"
        path.write_text(json.dumps(spec))
        w = WorkerProc(path, args.generator_cpus)
        workers.append(w)
        cleanup.append(w)
    log(f"opening {len(tables) * SEATS} WebSocket connections from {args.workers} generator process(es) ...")
    t0 = time.perf_counter()
    connect_cpu0 = sum(proc_cpu_seconds(pid) for pid in pids)
    opened = 0
    for w in workers:
        opened += int(w.expect("READY", 900.0).split()[0])
    connect_s = time.perf_counter() - t0
    # Server CPU (all processes) spent while the seats connected: each connection's hello (the seat
    # token checked, with several processes against the database) and its first state frame.
    connect_cpu = sum(proc_cpu_seconds(pid) for pid in pids) - connect_cpu0
    log(f"  {opened} connections open in {connect_s:.1f} s")
    time.sleep(1.0)
    rss_conns = sum_rss(pids)

    go = time.time() + 0.3
    start = go + args.warmup
    end = start + args.seconds
    for w in workers:
        w.send(f"GO {go:.6f} {start:.6f} {end:.6f}")
    log(f"playing: warm-up {args.warmup:g} s, then measuring {args.seconds:g} s ...")
    time.sleep(max(0.0, start - time.time()))
    spy = start_profile(args.profile, pids[0], args.seconds) if args.profile else None
    nginx_pids = [] if nginx is None or nginx.proc is None else [nginx.proc.pid, *children(nginx.proc.pid)]
    moves0 = [server.moves() for server in servers]
    cpu_s0 = [proc_cpu_seconds(pid) for pid in pids]
    sys_s0 = sum(proc_cpu_split(pid)[1] for pid in pids)
    nginx_cpu0 = sum(proc_cpu_seconds(pid) for pid in nginx_pids)
    gen_cpu0 = [proc_cpu_seconds(w.proc.pid) for w in workers]
    mach0 = machine_cpu()
    rss_peak = sum_rss(pids)
    while time.time() < end:
        time.sleep(min(1.0, max(0.0, end - time.time())))
        with contextlib.suppress(OSError):
            rss_peak = max(rss_peak, sum_rss(pids))
    cpu_s1 = [proc_cpu_seconds(pid) for pid in pids]
    sys_s1 = sum(proc_cpu_split(pid)[1] for pid in pids)
    moves1 = [server.moves() for server in servers]
    nginx_cpu1 = sum(proc_cpu_seconds(pid) for pid in nginx_pids)
    gen_cpu1 = [proc_cpu_seconds(w.proc.pid) for w in workers]
    mach1 = machine_cpu()
    window = args.seconds
    rss_end = sum_rss(pids)
    held = [server.health() for server in servers]  # how the tables spread over the processes
    load1 = os.getloadavg()

    results = [json.loads(w.expect("RESULT", 120.0)) for w in workers]
    profile = finish_profile(spy, args.profile) if spy is not None else None
    for w in workers:
        w.finish(15.0)

    def total(key: str) -> int:
        return sum(int(r[key]) for r in results)

    def merged(key: str) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in results:
            for k, v in r[key].items():
                out[k] = out.get(k, 0) + int(v)
        return out

    lat = sorted(x for r in results for x in r["latencies_ms"])
    ack = sorted(x for r in results for x in r["ack_latencies_ms"])
    lag = sorted(x for r in results for x in r["loop_lag_ms"])
    gcs: list[tuple[float, int, float]] = []
    problems: list[str] = []
    problem_count = 0
    tail: list[str] = []
    for server in servers:
        with server.lock:
            gcs += [g for g in server.gc if start <= g[0] <= end]
            problems += server.problems
            problem_count += server.problem_count
            tail += server.tail
    gc_ms = sorted(g[2] for g in gcs)
    gc_by_gen = {str(gen): sum(1 for g in gcs if g[1] == gen) for gen in (0, 1, 2)}
    conns = max(opened, 1)
    p99 = percentile(lat, 99)
    summary: dict[str, Any] = {
        "tables": len(tables),
        "tables_requested": args.tables,
        "table_create_failures": len(create_errors),
        "table_create_errors": create_errors[:5],
        "table_setup_seconds": round(create_s, 2),
        "connections": opened,
        "connect_seconds": round(connect_s, 2),
        "server_cpu_ms_per_connection": round(1000.0 * connect_cpu / max(1, opened), 3),
        "generator_processes": args.workers,
        "compression": args.compression,
        "database": _safe(db_url),
        "rate_per_table": args.rate,
        "warmup_s": args.warmup,
        "window_s": window,
        "offered_actions_per_s": round(len(tables) * args.rate, 1),
        "actions_sent_in_window": total("actions_in_window"),
        "actions_per_s": round(total("actions_in_window") / window, 1),
        "broadcasts_measured": len(lat),
        "broadcasts_incomplete": total("incomplete"),
        "latency_ms": {q: _r(percentile(lat, p)) for q, p in (("p50", 50), ("p90", 90), ("p99", 99), ("max", 100))},
        "ack_latency_ms": {q: _r(percentile(ack, p)) for q, p in (("p50", 50), ("p99", 99), ("max", 100))},
        "server_processes": len(servers),
        "behind_nginx": nginx is not None,
        "redis": bool(args.redis_url) and len(servers) > 1,
        "server_cpu_percent": round(100.0 * (sum(cpu_s1) - sum(cpu_s0)) / window, 1),
        "moves_acked_in_window": total("acked_in_window"),
        "moves_acked_per_s": round(total("acked_in_window") / window, 1),
        # Server CPU (all processes, from /proc) per acknowledged move: unlike wall-clock latencies it
        # holds on a machine shared with other work, so runs are compared by it.
        "server_cpu_ms_per_move": round(1000.0 * (sum(cpu_s1) - sum(cpu_s0)) / max(1, total("acked_in_window")), 3),
        # The kernel's share of it (socket writes and reads, the database's connection).
        "server_system_cpu_ms_per_move": round(1000.0 * (sys_s1 - sys_s0) / max(1, total("acked_in_window")), 3),
        "server_cpus": args.server_cpus,
        "generator_cpus": args.generator_cpus,
        "ws_path": args.ws_path,
        "server_cpu_percent_each": [round(100.0 * (b - a) / window, 1) for a, b in zip(cpu_s0, cpu_s1, strict=True)],
        "server_tables_each": held,
        # Each process's CPU per move it applied (its own /metrics): with the processes on different
        # cores, shows whether one of them pays more per move (a core shared with the generator).
        "server_cpu_ms_per_move_each": [
            round(1000.0 * (c1 - c0) / (m1 - m0), 3) if m0 is not None and m1 is not None and m1 > m0 else None
            for c0, c1, m0, m1 in zip(cpu_s0, cpu_s1, moves0, moves1, strict=True)
        ],
        "nginx_cpu_percent": round(100.0 * (nginx_cpu1 - nginx_cpu0) / window, 1) if nginx_pids else None,
        "generator_cpu_percent": [round(100.0 * (b - a) / window, 1) for a, b in zip(gen_cpu0, gen_cpu1, strict=True)],
        "generator_loop_lag_ms": {"p99": _r(percentile(lag, 99)), "max": _r(percentile(lag, 100))},
        "machine_cpu_busy_percent": round(100.0 * (mach1[0] - mach0[0]) / max(1.0, mach1[1] - mach0[1]), 1),
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load0],
        "load_average_after": [round(x, 2) for x in load1],
        "rss_mib": {
            "idle": round(rss_idle, 1),
            "after_tables": round(rss_tables, 1),
            "after_connections": round(rss_conns, 1),
            "peak": round(rss_peak, 1),
            "end": round(rss_end, 1),
        },
        "kib_per_connection": round((rss_end - rss_tables) * 1024.0 / conns, 1),
        "kib_per_connection_idle": round((rss_conns - rss_tables) * 1024.0 / conns, 1),
        "kib_per_table_all_in": round((rss_end - rss_idle) * 1024.0 / max(1, len(tables)), 1),
        "gc": {
            "logged": any(s.gc for s in servers),
            "collections": len(gcs),
            "by_generation": gc_by_gen,
            "total_ms": round(sum(gc_ms), 1),
            "share_percent": round(100.0 * sum(gc_ms) / 1000.0 / window, 2),
            "p99_ms": _r(percentile(gc_ms, 99)),
            "max_ms": _r(percentile(gc_ms, 100)),
            "max_gen2_ms": _r(max((g[2] for g in gcs if g[1] == 2), default=None)),
        },
        "errors": merged("errors"),
        "connection_errors": merged("conn_errors"),
        "connection_error_samples": [s for r in results for s in r["conn_error_samples"]][:5],
        "closed_by_server": merged("closed_codes"),
        "broken_tables": total("broken_tables"),
        "silent_connections": total("silent_connections"),
        "games_finished": total("games_finished"),
        "tables_replaced": total("tables_replaced"),
        "replace_failures": total("replace_failures"),
        "frames_received": total("frames_in"),
        "mean_frame_bytes": round(total("bytes_in") / max(1, total("frames_in"))),
        "server_warnings": problem_count,
        "server_warning_samples": problems[:5],
        "server_stderr_tail": tail[-5:],
        "profile": profile,
    }
    at_target = len(tables) >= TARGET_TABLES
    summary["target"] = {
        "tables": TARGET_TABLES,
        "p99_ms": TARGET_P99_MS,
        "tested_at_target_size": at_target,
        "met": bool(at_target and p99 is not None and p99 <= TARGET_P99_MS and total("incomplete") == 0),
    }
    return summary


def start_profile(path: str, pid: int, seconds: float) -> subprocess.Popen[str] | None:
    """Sample the server with py-spy (collapsed stacks to ``path``) for the measurement window."""
    exe = Path(sys.executable).with_name("py-spy")
    cmd = [str(exe) if exe.exists() else "py-spy", "record", "--pid", str(pid), "--duration", str(int(seconds))]
    cmd += ["--rate", "100", "--gil", "--format", "raw", "--output", path]
    try:
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except OSError as exc:
        print(f"no profile: py-spy could not start ({exc}); pip install py-spy", file=sys.stderr)
        return None


#: Where the server's busy samples go: the first bucket whose marker is in a sample's stack takes it.
PROFILE_BUCKETS = (
    ("permessage-deflate compression", ("permessage_deflate",)),
    ("database writes/reads (SQLAlchemy + SQLite)", ("sqlalchemy/", "sqlite3", "server/storage/store.py")),
    ("building state frames (view, events, JSON)", ("state_text", "state_frame")),
    ("WebSocket send (framing + socket write)", ("WebSocket.send", "Protocol.send", "transport.write")),
    ("WebSocket receive + move handling", ("_read_loop", "Hub.act", "_handle (", "data_received")),
    ("HTTP requests (table replacement)", ("httptools_impl", "routing.py")),
    ("logging (incl. GC log lines)", ("logging/", "GcLog")),
    ("asyncio / threads plumbing", ("asyncio/", "concurrent/futures", "threading.py")),
)
#: Leaf frames that are waiting, not working (uvloop's C loop shows as Runner.run; idle pool threads).
IDLE_LEAVES = ("Runner.run (asyncio/runners.py", "_worker (concurrent/futures/thread.py:81)")


def finish_profile(spy: subprocess.Popen[str], path: str) -> dict[str, Any] | None:
    """Wait for py-spy and summarise its collapsed stacks: where the server's busy samples go."""
    try:
        _, err = spy.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        spy.kill()
        return None
    if not Path(path).exists():
        print(f"no profile: {err.strip()[-300:]}", file=sys.stderr)
        return None
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    buckets: dict[str, int] = {}
    samples = 0
    for line in Path(path).read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        frames = stack.split(";")
        if frames[-1].startswith(IDLE_LEAVES):
            continue
        count = int(n)
        samples += count
        for f in set(frames):
            inclusive[f] = inclusive.get(f, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
        name = next((b for b, marks in PROFILE_BUCKETS if any(m in stack for m in marks)), "other")
        buckets[name] = buckets.get(name, 0) + count
    if not samples:
        return None

    def top(d: dict[str, int], n: int) -> list[tuple[str, float]]:
        return [(k, round(100.0 * v / samples, 1)) for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:n]]

    busy = {k: v for k, v in inclusive.items() if v < 0.6 * samples}  # drop the frames every sample shares
    return {
        "file": path,
        "busy_samples": samples,
        "buckets": top(buckets, len(buckets)),
        "self": top(own, 15),
        "inclusive": top(busy, 25),
    }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def _safe(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def print_summary(s: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f} ms"

    t = Table(title="catsack server load", show_header=True, header_style="bold")
    t.add_column("figure", no_wrap=True)
    t.add_column("value", justify="right", no_wrap=True)
    lat, gc = s["latency_ms"], s["gc"]
    rows: list[tuple[str, str]] = [
        ("tables / connections", f"{s['tables']} / {s['connections']}"),
        ("generator processes", str(s["generator_processes"])),
        (
            "database",
            "SQLite, temporary file"
            if s["database"].startswith("sqlite:///" + tempfile.gettempdir())
            else s["database"],
        ),
        ("permessage-deflate", "on" if s["compression"] else "off"),
        ("table setup (HTTP create + 5 joins)", f"{s['table_setup_seconds']:.1f} s"),
        ("connections opened in", f"{s['connect_seconds']:.1f} s"),
        ("server CPU per connection opened", f"{s['server_cpu_ms_per_connection']:.2f} ms"),
        ("window (after warm-up)", f"{s['window_s']:g} s (warm-up {s['warmup_s']:g} s)"),
        ("offered load", f"{s['offered_actions_per_s']:g} actions/s"),
        ("actions sent in window", f"{s['actions_sent_in_window']} ({s['actions_per_s']:g}/s)"),
        ("broadcasts measured / incomplete", f"{s['broadcasts_measured']} / {s['broadcasts_incomplete']}"),
        ("action-to-broadcast p50", ms(lat["p50"])),
        ("action-to-broadcast p90", ms(lat["p90"])),
        ("action-to-broadcast p99", ms(lat["p99"])),
        ("action-to-broadcast max", ms(lat["max"])),
        ("moves acknowledged in window", f"{s['moves_acked_in_window']} ({s['moves_acked_per_s']:g}/s)"),
        ("server CPU per move (/proc)", f"{s['server_cpu_ms_per_move']:.2f} ms" + _each(s)),
        ("ack p50 / p99", f"{ms(s['ack_latency_ms']['p50'])} / {ms(s['ack_latency_ms']['p99'])}"),
        (
            "server processes",
            f"{s['server_processes']}"
            + (" behind nginx (TLS)" if s["behind_nginx"] else "")
            + (" + Redis" if s["redis"] else ""),
        ),
        (
            "server CPU (% of one core)",
            f"{s['server_cpu_percent']:.0f} %"
            + (
                f" ({' + '.join(f'{x:.0f}' for x in s['server_cpu_percent_each'])})"
                if s["server_processes"] > 1
                else ""
            ),
        ),
        ("nginx CPU", "-" if s["nginx_cpu_percent"] is None else f"{s['nginx_cpu_percent']:.0f} %"),
        ("generator CPU", " + ".join(f"{x:.0f} %" for x in s["generator_cpu_percent"])),
        (
            "generator loop lag p99 / max",
            f"{ms(s['generator_loop_lag_ms']['p99'])} / {ms(s['generator_loop_lag_ms']['max'])}",
        ),
        ("machine CPU busy (all tenants)", f"{s['machine_cpu_busy_percent']:.0f} % of {s['cpus']} cores"),
        ("load average before / after", f"{s['load_average_before'][0]:.2f} / {s['load_average_after'][0]:.2f}"),
        (
            "server RSS idle / tables / conns / end",
            "{idle:.0f} / {after_tables:.0f} / {after_connections:.0f} / {end:.0f} MiB".format(**s["rss_mib"]),
        ),
        (
            "memory per connection (playing / idle)",
            f"{s['kib_per_connection']:.1f} / {s['kib_per_connection_idle']:.1f} KiB",
        ),
        ("memory per table, all in", f"{s['kib_per_table_all_in']:.0f} KiB"),
        (
            "GC collections (gen 0/1/2)",
            "not logged (server lacks CATSACK_GC_LOG?)"
            if not gc["logged"]
            else f"{gc['collections']} ({'/'.join(str(gc['by_generation'][g]) for g in '012')})",
        ),
        ("GC pause total / share of window", f"{gc['total_ms']:.0f} ms / {gc['share_percent']:.2f} %"),
        ("GC pause p99 / max / max gen 2", f"{ms(gc['p99_ms'])} / {ms(gc['max_ms'])} / {ms(gc['max_gen2_ms'])}"),
        ("mean state frame received", f"{s['mean_frame_bytes']} bytes"),
        ("games finished / tables replaced", f"{s['games_finished']} / {s['tables_replaced']}"),
        ("protocol errors", _counts(s["errors"])),
        ("connection errors", _counts(s["connection_errors"])),
        ("closed by server", _counts(s["closed_by_server"])),
        ("broken tables", str(s["broken_tables"])),
        ("connections never sent a state", str(s["silent_connections"])),
        ("table create failures", str(s["table_create_failures"])),
        ("server warnings logged", str(s["server_warnings"])),
    ]
    for k, v in rows:
        t.add_row(k, v)
    console = Console(width=max(Console().width, 100))
    console.print(t)
    tgt = s["target"]
    if not tgt["tested_at_target_size"]:
        console.print(f"Target ({tgt['tables']:,} tables, p99 <= {tgt['p99_ms']:g} ms): not tested at this size.")
    elif tgt["met"]:
        console.print(f"[green]Target met[/]: {s['tables']:,} tables, p99 {ms(lat['p99'])} <= {tgt['p99_ms']:g} ms.")
    else:
        console.print(
            f"[red]Target NOT met[/]: {s['tables']:,} tables, p99 {ms(lat['p99'])} (target {tgt['p99_ms']:g} ms)."
        )
    if s["machine_cpu_busy_percent"] >= 95.0:
        console.print(
            f"[yellow]Note[/]: the machine's CPUs were {s['machine_cpu_busy_percent']:.0f} % busy "
            f"(load average {s['load_average_after'][0]:.1f} on {s['cpus']} cores): the server and the generator "
            "competed for CPU with each other and other tenants; latencies and GC pauses (wall time) include that."
        )
    lag = s["generator_loop_lag_ms"]["p99"]
    if lag is not None and lag > 10.0:
        console.print(
            f"[yellow]Note[/]: the generator's event loop lagged (p99 {lag:.1f} ms): latencies include that delay. "
            + (
                "The machine was saturated (other tenants or the server): the generator waited for a CPU."
                if s["machine_cpu_busy_percent"] >= 90.0
                else "The generator is saturated: try --workers 2."
            )
        )
    prof = s.get("profile")
    if prof:
        pt = Table(title=f"where the server's busy time goes (py-spy, {prof['busy_samples']} busy samples)")
        pt.add_column("bucket", no_wrap=True)
        pt.add_column("share", justify="right")
        for k, v in prof["buckets"]:
            pt.add_row(k, f"{v:g} %")
        console.print(pt)
        console.print("hottest functions (self): " + "; ".join(f"{k} {v:g}%" for k, v in prof["self"][:8]))
        console.print(f"collapsed stacks: {prof['file']}")
    for sample in s["connection_error_samples"] + s["server_warning_samples"] + s["table_create_errors"]:
        console.print(f"  [dim]{sample}[/]")


def _counts(d: dict[str, int]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in sorted(d.items())) or "none"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=TARGET_TABLES, help="5-seat tables (default 1000)")
    p.add_argument("--seconds", type=float, default=30.0, help="measurement window in seconds (default 30)")
    p.add_argument("--rate", type=float, default=1.0, help="moves per second per table (default 1)")
    p.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the window (default 5)")
    p.add_argument("--database-url", help="SQLAlchemy URL (default: SQLite in a temporary directory)")
    p.add_argument("--redis-url", help="Redis URL for the server processes (needed with more than one)")
    p.add_argument("--processes", type=int, help="server processes (default 1; 2 with --nginx)")
    p.add_argument(
        "--nginx",
        action="store_true",
        help="the deployment of docs/deploy.md: --processes processes behind nginx (TLS, round robin); "
        "needs PostgreSQL (--database-url) and Redis (--redis-url)",
    )
    p.add_argument("--workers", type=int, default=1, help="load generator processes (default 1)")
    p.add_argument(
        "--server-cpus",
        type=lambda text: text.split("/"),
        help="pin the servers with taskset: '0' (all on core 0) or '0/1' (the first on 0, the second on 1)",
    )
    p.add_argument("--generator-cpus", help="pin the load generators and nginx with taskset, e.g. '1'")
    p.add_argument(
        "--ws-path",
        choices=("table", "plain"),
        default="table",
        help="connect to /ws/{table} as the browser client does (default), or to /ws as older clients did",
    )
    p.add_argument(
        "--compare",
        type=int,
        metavar="PAIRS",
        help="run PAIRS pairs, one process then --processes (default 2) behind nginx, alternately at the same "
        "offered load, and compare their server CPU per move (needs --nginx, PostgreSQL and Redis)",
    )
    p.add_argument(
        "--against",
        metavar="SRC",
        help="A/B: run the server alternately from SRC (the folder holding another commit's catsack package, "
        "e.g. a git worktree's src) and from this checkout, --pairs times, and compare their CPU per move",
    )
    p.add_argument(
        "--with",
        dest="with_source",
        metavar="SRC",
        help="side B of --against: the catsack package folder to run instead of this checkout's src",
    )
    p.add_argument("--pairs", type=int, default=6, help="pairs of runs for --against (default 6)")
    p.add_argument(
        "--compression",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="offer permessage-deflate like a browser does (default on)",
    )
    p.add_argument("--no-replace", action="store_true", help="do not start a new table when a game ends")
    p.add_argument("--http-concurrency", type=int, default=8, help="parallel HTTP requests while making tables")
    p.add_argument("--connect-concurrency", type=int, default=50, help="parallel WebSocket handshakes per generator")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--profile", metavar="PATH", help="sample the server with py-spy during the window (collapsed stacks to PATH)"
    )
    p.add_argument("--json", action="store_true", help="print a machine-readable JSON summary instead of the table")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--worker", metavar="SPEC", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker is None and (
        args.tables < 1 or args.workers < 1 or args.rate <= 0 or args.seconds <= 0 or args.warmup < 0
    ):
        p.error("--tables and --workers must be >= 1, --rate and --seconds > 0, --warmup >= 0")
    if args.processes is None:
        args.processes = 2 if args.nginx else 1
    if args.worker is None and args.processes > 1 and not (args.redis_url and args.database_url):
        p.error("several processes need PostgreSQL (--database-url postgresql+psycopg://...) and --redis-url")
    if args.worker is None and args.processes > 1 and not args.nginx:
        p.error("several processes are reached through nginx: add --nginx")
    if args.compare and (not args.nginx or args.processes < 2):
        p.error("--compare runs one process against several behind nginx: add --nginx")
    if args.against and args.compare:
        p.error("--against and --compare are separate comparisons: choose one")
    for flag, folder in (("--against", args.against), ("--with", args.with_source)):
        if folder and not (Path(folder) / "catsack" / "__init__.py").exists():
            p.error(f"{flag} {folder}: no catsack package there")
    if args.with_source and not args.against:
        p.error("--with names side B of --against")
    if args.pairs < 1:
        p.error("--pairs must be >= 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker is not None:
        worker_main(args.worker)
        return 0
    if not Path("/proc/self/stat").exists():
        print("this benchmark reads /proc: it runs on Linux only", file=sys.stderr)
        return 2
    cleanup: list[Any] = []

    def interrupted(_sig: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    # Ctrl+C and SIGTERM both shut the generators and the server down (even where SIGINT came in ignored).
    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)
    try:
        if args.compare:
            summary = compare(args, cleanup)
        elif args.against:
            summary = against(args, cleanup)
        else:
            summary = run_bench(args, cleanup)
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the load generators and the server ...", file=sys.stderr)
        return 130
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        for item in reversed(cleanup):
            with contextlib.suppress(Exception):
                if isinstance(item, str):
                    import shutil

                    shutil.rmtree(item, ignore_errors=True)
                else:
                    item.stop()
    if args.json:
        print(json.dumps(summary, indent=2))
    elif args.compare:
        print_compare(summary)
    elif args.against:
        print_against(summary)
    else:
        print_summary(summary)
    return 0


def compare(args: argparse.Namespace, cleanup: list[Any]) -> dict[str, Any]:
    """One process and ``args.processes`` behind nginx, ``args.compare`` times over, at the same
    offered load (each run on a fresh database), the order swapped every pair (one, several; several,
    one; ...): the runs of a pair are a minute apart, so the other tenants of the machine weigh on
    both alike; CPU per move is compared within each pair."""
    runs: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for i in range(args.compare):
        got: dict[int, dict[str, Any]] = {}
        for n in (1, args.processes) if i % 2 == 0 else (args.processes, 1):
            one = argparse.Namespace(**vars(args))
            one.processes = n
            print(f"pair {i + 1} of {args.compare}: {n} process(es)", file=sys.stderr, flush=True)
            summary = run_bench(one, cleanup)
            summary.pop("profile", None)
            got[n] = summary
        pair = [got[1], got[args.processes]]
        runs.extend(pair)
        one_cpu, many_cpu = (r["server_cpu_ms_per_move"] for r in pair)
        pairs.append(
            {
                "cpu_ms_per_move": [one_cpu, many_cpu],
                "cpu_ratio": round(many_cpu / one_cpu, 3) if one_cpu else None,
                "moves_per_s": [r["moves_acked_per_s"] for r in pair],
                "p99_ms": [r["latency_ms"]["p99"] for r in pair],
                "load_average": [r["load_average_after"][0] for r in pair],
            }
        )
    ratios = sorted(p["cpu_ratio"] for p in pairs if p["cpu_ratio"] is not None)
    return {
        "runs": runs,
        "pairs": pairs,
        "cpu_ratio_median": _median(ratios),
        "cpu_ratio_range": [ratios[0], ratios[-1]] if ratios else None,
        "cpu_ms_per_move_median": [_median([p["cpu_ms_per_move"][k] for p in pairs]) for k in (0, 1)],
    }


def _median(xs: list[float]) -> float | None:
    xs = sorted(xs)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else round((xs[mid - 1] + xs[mid]) / 2, 3)


#: This checkout's package folder: side B of an A/B comparison (--against).
HERE_SRC = Path(__file__).resolve().parent.parent / "src"


def imported_from(source: Path) -> str:
    """Where ``python -m catsack`` imports the package from with ``PYTHONPATH=source``: checks that a
    side of an A/B comparison runs the code it names, not the installed package."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    out = subprocess.run(
        [sys.executable, "-c", "import catsack; print(catsack.__file__)"], env=env, capture_output=True, text=True
    )
    return out.stdout.strip() or out.stderr.strip()[-200:]


def against(args: argparse.Namespace, cleanup: list[Any]) -> dict[str, Any]:
    """Interleaved A/B pairs: the server from ``args.against`` (A) and from this checkout (B) at the same
    offered load, each run on a fresh database, the order swapped every pair (A B, B A, ...) so that a
    drift of the machine's other load weighs on both sides alike; CPU per move compared within each pair."""
    sides = {"A": Path(args.against).resolve(), "B": Path(args.with_source).resolve() if args.with_source else HERE_SRC}
    where = {k: imported_from(v) for k, v in sides.items()}
    for k, v in where.items():
        if not v.startswith(str(sides[k])):
            raise RuntimeError(f"side {k} would import catsack from {v}, not from {sides[k]}")
    runs: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for i in range(args.pairs):
        got: dict[str, dict[str, Any]] = {}
        for side in ("A", "B") if i % 2 == 0 else ("B", "A"):
            one = argparse.Namespace(**vars(args))
            one.source = sides[side]
            print(f"pair {i + 1} of {args.pairs}: side {side} ({sides[side]})", file=sys.stderr, flush=True)
            summary = run_bench(one, cleanup)
            summary.pop("profile", None)
            summary["side"] = side
            runs.append(summary)
            got[side] = summary
        a, b = (got[k]["server_cpu_ms_per_move"] for k in ("A", "B"))
        pairs.append(
            {
                "cpu_ms_per_move": {"A": a, "B": b},
                "ratio": round(b / a, 3) if a else None,
                "moves_per_s": {k: got[k]["moves_acked_per_s"] for k in ("A", "B")},
                "p50_p99_ms": {k: [got[k]["latency_ms"]["p50"], got[k]["latency_ms"]["p99"]] for k in ("A", "B")},
                "load_average": {k: got[k]["load_average_after"][0] for k in ("A", "B")},
            }
        )
    ratios = sorted(p["ratio"] for p in pairs if p["ratio"] is not None)
    return {
        "sides": {k: str(v) for k, v in sides.items()},
        "imported_from": where,
        "runs": runs,
        "pairs": pairs,
        "ratio_median": _median(ratios),
        "ratio_range": [ratios[0], ratios[-1]] if ratios else None,
        "cpu_ms_per_move_median": {k: _median([p["cpu_ms_per_move"][k] for p in pairs]) for k in ("A", "B")},
        "load_average_range": [
            min(r["load_average_before"][0] for r in runs),
            max(r["load_average_after"][0] for r in runs),
        ],
    }


def print_against(c: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"A: {c['sides']['A']}  against  B: {c['sides']['B']} (pairs in alternating order)")
    for col in ("pair", "CPU ms/move A", "CPU ms/move B", "B / A", "moves/s A / B", "p50 / p99 ms A", "p50 / p99 ms B"):
        t.add_column(col, justify="right", no_wrap=True)
    t.add_column("load avg A / B", justify="right", no_wrap=True)
    for i, p in enumerate(c["pairs"]):
        cpu, lat = p["cpu_ms_per_move"], p["p50_p99_ms"]
        t.add_row(
            str(i + 1),
            f"{cpu['A']:.3f}",
            f"{cpu['B']:.3f}",
            "-" if p["ratio"] is None else f"{p['ratio']:.3f}",
            f"{p['moves_per_s']['A']:g} / {p['moves_per_s']['B']:g}",
            f"{lat['A'][0]} / {lat['A'][1]}",
            f"{lat['B'][0]} / {lat['B'][1]}",
            f"{p['load_average']['A']:.2f} / {p['load_average']['B']:.2f}",
        )
    console = Console(width=max(Console().width, 120))
    console.print(t)
    lo, hi = c["ratio_range"] or (None, None)
    console.print(
        f"B / A CPU per move: median {c['ratio_median']}, range {lo} to {hi}; "
        f"median CPU per move A {c['cpu_ms_per_move_median']['A']} ms, B {c['cpu_ms_per_move_median']['B']} ms; "
        f"load average {c['load_average_range'][0]:.2f} to {c['load_average_range'][1]:.2f}"
    )
    warnings = sum(r["server_warnings"] for r in c["runs"])
    errors = sum(sum(r["errors"].values()) + sum(r["connection_errors"].values()) for r in c["runs"])
    console.print(f"server warnings: {warnings}; protocol and connection errors: {errors}")


def _each(s: dict[str, Any]) -> str:
    """Each process's CPU per move, in brackets, where there are several."""
    each = s.get("server_cpu_ms_per_move_each") or []
    if len(each) < 2:
        return ""
    return " (" + " / ".join("?" if x is None else f"{x:.2f}" for x in each) + ")"


def print_compare(c: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="one process against several (same offered load, pairs run back to back)")
    for col in ("pair", "processes", "tables x rate", "moves/s", "CPU ms/move", "ratio", "p50 / p99 ms", "load avg"):
        t.add_column(col, justify="right", no_wrap=True)
    for i, pair in enumerate(c["pairs"]):
        for j, r in enumerate(c["runs"][2 * i : 2 * i + 2]):
            lat = r["latency_ms"]
            t.add_row(
                str(i + 1) if j == 0 else "",
                f"{r['server_processes']}" + (" + Redis" if r["redis"] else ""),
                f"{r['tables']} x {r['rate_per_table']:g}",
                f"{r['moves_acked_per_s']:g}",
                f"{r['server_cpu_ms_per_move']:.2f}" + _each(r),
                "" if j == 0 else f"{pair['cpu_ratio']:.2f}",
                f"{lat['p50']} / {lat['p99']}",
                f"{r['load_average_before'][0]:.2f} -> {r['load_average_after'][0]:.2f}",
            )
    console = Console(width=max(Console().width, 110))
    console.print(t)
    lo, hi = c["cpu_ratio_range"] or (None, None)
    one, many = c["cpu_ms_per_move_median"]
    console.print(
        f"CPU-per-move ratio (several / one): median {c['cpu_ratio_median']}, range {lo} to {hi}; "
        f"median CPU per move {one} ms (one), {many} ms (several)"
    )
    warnings = sum(r["server_warnings"] for r in c["runs"])
    errors = sum(sum(r["errors"].values()) + sum(r["connection_errors"].values()) for r in c["runs"])
    console.print(f"server warnings: {warnings}; protocol and connection errors: {errors}")


if __name__ == "__main__":
    sys.exit(main())
