"""Fault run: how long a table stands still after ``kill -9`` of the process driving it, and that no
acknowledged move is ever lost, with two processes behind nginx and Redis restarting too.

The deployment of docs/deploy.md on this machine: two ``catsack serve`` processes (A and B) on PostgreSQL
(a fresh schema, dropped afterwards) and a Redis server of the run's own (so it can be killed and started
again), behind Debian's nginx with the repository's site file (TLS, routing by table). Throughout the run:

* **people** (``--people-tables`` tables of three players, this script's clients) play through nginx at
  ``/ws/{table}`` as the browser does: each move is sent with an action id and counted once acknowledged.
  When their process dies they connect again through nginx (with the last version they saw) and send an
  unanswered move again with the same action id. A finished game is replaced by a new one.
* **kills**: each round makes a table of four bots on the process to be killed (the *victim*; A and B take
  turns), with a spectator on it (so it keeps driving the table) and one on the other process (the
  *watcher*). At a random moment of the game (a random number of moves in, then a random pause) the victim
  is killed with SIGKILL and started again once the watcher has seen the table move on.
* **Redis** is killed with SIGKILL just before every ``--redis-every``-th kill and started again a moment
  after it (messages between the processes are lost meanwhile: the version gaps are read from the log).

Per kill it reports the **stall**: from the kill to the watcher's first state of a version after the one
the database held at the kill (the table's bots move only in the process that drives it, so this is
noticing the death, adopting the table and the bots' next move), and the longest gap between two moves
around the kill. At the end: acknowledged moves lost (every acknowledged action id must be in the action
log, once; it must be 0), the logs' errors, nginx's 502 answers, and the load average.

    nice -n 10 env PYTHONPATH=src .venv/bin/python bench/server_failover.py --kills 20
    nice -n 10 env PYTHONPATH=src .venv/bin/python bench/server_failover.py --kills 20 --bot-delay 0.8 --jitter 0.5

(``--bot-delay 0.8 --jitter 0.5`` are the server's defaults; the bench's own default, 0.1 s and no jitter,
keeps the bots' pace out of the stall.) Needs PostgreSQL (the tests' ``CATSACK_TEST_POSTGRES_URL``, by default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), ``redis-server``, nginx and openssl.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import os
import random
import re
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_procs import (
    POSTGRES_URL,
    START_BOUND,
    Nginx,
    ServerProc,
    WsClient,
    free_port,
    kill_group,
    libpq_dsn,
    postgres_schema,
    spawn,
    stop_group,
)

#: Seconds a wait may take before the run counts as broken (a bound on a failure, never a timing).
BOUND = START_BOUND


def tls_client() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # the run's self-signed certificate
    return ctx


class Redis:
    """A redis-server of the run's own on a fixed port, killed and started again on it."""

    def __init__(self, folder: Path) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            raise SystemExit("redis-server is not installed")
        self.exe = exe
        self.folder = folder
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        args = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.proc = spawn(
            [self.exe, *args, "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        import redis

        end = time.monotonic() + BOUND
        while True:
            try:
                r = redis.Redis.from_url(self.url, socket_connect_timeout=1)
                r.ping()
                r.close()
                return
            except Exception:
                if time.monotonic() > end:
                    raise
                time.sleep(0.05)

    def kill9(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)

    def stop(self) -> None:
        if self.proc is not None:
            stop_group(self.proc)


# ---------------------------------------------------------------------- people through nginx


@dataclass
class People:
    """The run's players: their tables, the action ids acknowledged, what went wrong."""

    base: str  # https://127.0.0.1:port of nginx
    rng: random.Random
    acked: dict[str, set[str]] = field(default_factory=dict)  # table -> action ids acknowledged
    reconnects: int = 0
    refused: int = 0  # connection attempts nginx or a process refused
    stale: int = 0  # moves answered "stale" (the table had moved on, e.g. a resend after a kill)
    errors: list[str] = field(default_factory=list)
    stopping: bool = False
    games: int = 0

    async def new_table(self) -> tuple[str, list[str]]:
        import httpx

        async with httpx.AsyncClient(base_url=self.base, verify=False, timeout=30) as http:
            for _ in range(100):
                try:
                    r = await http.post("/api/tables", json={"seats": 3, "name": "fault run"})
                    table = r.json()["table"]
                    tokens = []
                    for s in range(3):
                        j = await http.post(f"/api/tables/{table}/join", json={"name": f"P{s}", "seat": s})
                        tokens.append(j.json()["token"])
                    self.acked[table] = set()
                    return table, tokens
                except Exception as exc:  # a process died under the request: make another table
                    self.errors.append(f"new table: {type(exc).__name__}: {exc}"[:160])
                    await asyncio.sleep(0.2)
        raise AssertionError("no table could be made through nginx")

    async def connect(self, c: WsClient) -> None:
        end = time.monotonic() + BOUND
        while not self.stopping:
            try:
                await c.connect(since=c.version if c.latest is not None else None, timeout=30)
                return
            except Exception:
                self.refused += 1
                await c.close()
                if time.monotonic() > end:
                    raise
                await asyncio.sleep(0.1)

    async def play_table(self, slot: int) -> None:
        """Three players at a table through nginx until the run stops; a new table when a game ends."""
        while not self.stopping:
            table, tokens = await self.new_table()
            url = self.base.replace("https://", "wss://") + f"/ws/{table}"
            clients = [WsClient(url, table, tokens[s], label=f"{table}:{s}", ssl=tls_client()) for s in range(3)]
            for c in clients:
                await self.connect(c)
            await asyncio.gather(*(self.play_seat(c, s, table) for s, c in enumerate(clients)))
            for c in clients:
                await c.close()
            self.games += 1

    async def play_seat(self, c: WsClient, seat: int, table: str) -> None:
        pending: tuple[str, str, int] | None = None  # (action id, move, version) sent and not answered
        n = itertools.count()
        while not self.stopping:
            try:
                if c.closed:
                    self.reconnects += 1
                    await self.connect(c)
                st = c.latest
                assert st is not None
                if st["table_status"] == "over":
                    return
                if pending is None and st["view"]["to_move"] == seat and st["view"]["legal"]:
                    await asyncio.sleep(self.rng.uniform(0.05, 0.4))  # a person thinks
                    st = c.latest
                    if st is None or st["view"]["to_move"] != seat or c.closed:
                        continue
                    pending = (f"{table}-{seat}-{next(n)}", self.rng.choice(st["view"]["legal"]), int(st["version"]))
                if pending is not None:
                    action, move, version = pending
                    answer = await c.move(move, version, action_id=action, timeout=30)
                    pending = None
                    if answer.get("type") == "ack":
                        self.acked[table].add(action)
                    elif answer.get("code") == "stale":
                        self.stale += 1
                    else:
                        self.errors.append(f"{table} seat {seat}: {answer}"[:200])
                    continue
                version = c.version
                await c.wait(lambda v=version: c.version > v or self.stopping, timeout=BOUND)
            except (ConnectionError, OSError):
                continue  # the process died: connect again (the pending move goes again, same action id)
            except AssertionError as exc:  # no answer within the bound: say so, and send it again
                self.errors.append(f"{table} seat {seat}: {exc}"[:200])


# ---------------------------------------------------------------------- one kill


def db_version(schema: str, table: str) -> int:
    import psycopg

    with psycopg.connect(libpq_dsn(POSTGRES_URL)) as conn:
        row = conn.execute(f"SELECT version FROM {schema}.tables WHERE id = %s", (table,)).fetchone()
    return int(row[0]) if row else -1


async def one_kill(
    victim: ServerProc, survivor: ServerProc, redis: Redis | None, schema: str, rng: random.Random
) -> dict[str, Any]:
    table = victim.create_table(seats=4, bots={str(s): "random" for s in range(4)})["table"]
    on_victim = WsClient(victim.ws_url, table, None, label="on-victim")  # keeps the table driven there
    await on_victim.connect()
    watcher = WsClient(survivor.ws_url, table, None, label="watcher")
    await watcher.connect()
    await watcher.wait_version(2 + rng.randrange(8), timeout=BOUND)
    await asyncio.sleep(rng.uniform(0.0, 0.5))  # a random moment between two moves and two beats
    if redis is not None:
        await asyncio.to_thread(redis.kill9)
    await asyncio.to_thread(victim.kill9)
    t_kill = time.monotonic()
    at_kill = await asyncio.to_thread(db_version, schema, table)
    if redis is not None:
        await asyncio.sleep(rng.uniform(0.2, 1.0))
        await asyncio.to_thread(redis.start)
        redis.restarts += 1
    await watcher.wait_version(at_kill + 1, timeout=BOUND)
    stall = next(t for t, v in watcher.arrivals if v > at_kill) - t_kill
    restart = asyncio.create_task(asyncio.to_thread(victim.start))
    await watcher.wait_version(at_kill + 3, timeout=BOUND)
    times = [t for t, v in watcher.arrivals]
    gaps = [y - x for x, y in itertools.pairwise(times)]
    await restart
    await watcher.close()
    await on_victim.close()
    return {
        "victim": victim.name,
        "redis_restarted": redis is not None,
        "version_at_kill": at_kill,
        "stall_s": round(stall, 3),
        "longest_gap_s": round(max(gaps), 3),
    }


# ---------------------------------------------------------------------- the run


def action_log(schema: str) -> dict[str, list[tuple[int, str | None]]]:
    import psycopg

    with psycopg.connect(libpq_dsn(POSTGRES_URL)) as conn:
        rows = conn.execute(f"SELECT table_id, version, action_id FROM {schema}.actions ORDER BY table_id, version")
        out: dict[str, list[tuple[int, str | None]]] = {}
        for table_id, version, action_id in rows:
            out.setdefault(table_id, []).append((int(version), action_id))
    return out


def log_errors(paths: list[Path]) -> list[str]:
    found = []
    for path in paths:
        for line in path.read_text(errors="replace").splitlines():
            if re.search(r"\bERROR\b|Traceback|CRITICAL", line):
                found.append(f"{path.stem}: {line[:200]}")
    return found


async def run(args: argparse.Namespace, db_url: str, schema: str, folder: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    redis = Redis(folder)
    redis.start()
    env = {
        "CATSACK_DATABASE_URL": db_url,
        "CATSACK_REDIS_URL": redis.url,
        "CATSACK_BOT_DELAY": str(args.bot_delay),
        "CATSACK_BOT_DELAY_JITTER": str(args.jitter),
        "CATSACK_LEASE_SECONDS": str(args.lease),
        "CATSACK_GRACE_SECONDS": "3600",
        "CATSACK_TRUSTED_PROXIES": "127.0.0.1",
        # One client address for every player of the run: the per-address limits are not what is measured.
        "CATSACK_MAX_CONNECTIONS_PER_ADDRESS": "10000",
        "CATSACK_MAX_PENDING_PER_ADDRESS": "10000",
        "CATSACK_HTTP_RATE_PER_SECOND": "10000",
        "CATSACK_HTTP_RATE_BURST": "10000",
    }
    a = ServerProc(folder, env, name="A")
    b = ServerProc(folder, env, name="B")
    nginx = Nginx(folder / "nginx", [a.port, b.port])
    people: People | None = None
    tasks: list[asyncio.Task[None]] = []
    kills: list[dict[str, Any]] = []
    try:
        await asyncio.to_thread(a.start)  # one after the other: the first makes the schema
        await asyncio.to_thread(b.start)
        await asyncio.to_thread(nginx.start)
        people = People(f"https://127.0.0.1:{nginx.port}", random.Random(rng.random()))
        tasks = [asyncio.create_task(people.play_table(i)) for i in range(args.people_tables)]
        await asyncio.sleep(1.0)
        for i in range(args.kills):
            victim, survivor = (a, b) if i % 2 == 0 else (b, a)
            with_redis = args.redis_every > 0 and i % args.redis_every == args.redis_every - 1
            kills.append(await one_kill(victim, survivor, redis if with_redis else None, schema, rng))
            print(f"kill {i + 1}: {kills[-1]}", file=sys.stderr, flush=True)
        people.stopping = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        if people is not None:
            people.stopping = True
        for t in tasks:
            t.cancel()
        nginx.stop()
        a.stop()
        b.stop()
        redis.stop()
    assert people is not None
    log = action_log(schema)
    acked = sum(len(v) for v in people.acked.values())
    lost = []
    doubled = []
    for table, ids in people.acked.items():
        rows = log.get(table, [])
        logged = [x for _, x in rows if x is not None]
        lost += sorted(ids - set(logged))
        doubled += sorted({x for x in logged if logged.count(x) > 1})
        assert [v for v, _ in rows] == list(range(1, len(rows) + 1)), f"{table}: the log has a gap"
    access = (folder / "nginx" / "access.log").read_text(errors="replace")
    stalls = [k["stall_s"] for k in kills]
    gaps = [k["longest_gap_s"] for k in kills]
    return {
        "kills": kills,
        "summary": {
            "kills": len(kills),
            "redis_restarts": redis.restarts,
            "stall_median_s": round(statistics.median(stalls), 3),
            "stall_max_s": max(stalls),
            "longest_gap_median_s": round(statistics.median(gaps), 3),
            "longest_gap_max_s": max(gaps),
            "moves_acknowledged": acked,
            "acknowledged_moves_lost": len(lost),
            "lost": lost[:10],
            "logged_twice": doubled[:10],
            "people_games": people.games,
            "people_reconnects": people.reconnects,
            "people_refused_connects": people.refused,
            "people_stale_answers": people.stale,
            "people_errors": people.errors[:10],
            "nginx_502": len(bad := [line for line in access.splitlines() if '" 502 ' in line]),
            "nginx_502_requests": [line.split('"')[1] for line in bad[:5]],
            "server_log_errors": len(errs := log_errors([a.log_path, b.log_path])),
            "server_log_error_lines": errs[:10],
        },
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--lease", type=float, default=2.0, help="CATSACK_LEASE_SECONDS (default 2, the default)")
    p.add_argument("--bot-delay", type=float, default=0.1, help="CATSACK_BOT_DELAY (default 0.1)")
    p.add_argument("--jitter", type=float, default=0.0, help="CATSACK_BOT_DELAY_JITTER (default 0)")
    p.add_argument("--people-tables", type=int, default=3, help="tables of three players through nginx")
    p.add_argument("--redis-every", type=int, default=4, help="kill Redis too at every n-th kill (0: never)")
    p.add_argument("--seed", type=int, default=52)
    p.add_argument("--json", type=Path, help="also write the results there")
    args = p.parse_args()
    load0 = os.getloadavg()
    cpu0 = time.process_time()
    with tempfile.TemporaryDirectory(prefix="catsack-failover-") as tmp, postgres_schema() as (db_url, schema):
        result = asyncio.run(run(args, db_url, schema, Path(tmp)))
    result["summary"].update(
        lease_s=args.lease,
        bot_delay_s=args.bot_delay,
        bot_delay_jitter=args.jitter,
        load_average_before_after=[round(load0[0], 2), round(os.getloadavg()[0], 2)],
        bench_cpu_s=round(time.process_time() - cpu0, 1),
    )
    text = json.dumps(result, indent=2)
    print(json.dumps(result["summary"], indent=2))
    if args.json is not None:
        args.json.write_text(text)
    return 0 if result["summary"]["acknowledged_moves_lost"] == 0 else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
