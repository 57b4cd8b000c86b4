"""The documented deployment, started on this machine (docs/deploy.md).

nginx (Debian's ``/usr/sbin/nginx``, run as a child process with a prefix and configuration in
tmp_path) serves TLS on a free local port and round-robins to two ``catsack serve`` processes that
share PostgreSQL (a schema of their own) and Redis. The site configuration is the repository's own
``deploy/nginx/catsack.conf``: only its ports, names and certificate paths are substituted (a
self-signed certificate made with ``openssl``). That file has nginx name the process that answered
(``X-Catsack-Upstream``), so the tests put clients on each process on purpose.

- Four WebSocket players (``wss://``) join and play a game through the proxy, each seat's connection
  on a chosen process, and every few moves one of them reconnects (with its last version) to the
  *other* process. Every acknowledged move is in the action log exactly once, the log has no gap,
  no client saw a version twice or skipped one it then lacked, and everyone ends on the same state.
- Routing by table: every request naming a table (``/ws/{table}``, ``/api/tables/{table}/…``)
  reaches the same process, whichever process made the table; the table's lease follows its players
  there, and moves never need the other process.
- One person in Chromium (Playwright) plays a whole game against two bots through the proxy,
  reloading the page now and then.
- Plain ``http://`` is redirected to ``https://``.
- After each process was killed (``kill -9``) and started again, with sockets held open at tables on
  both, 200 new WebSockets opened over 10 s all connect: nginx holds no process out for having failed
  once (``max_fails=0``; docs/deploy.md, "Fail-over").

Without nginx, openssl, PostgreSQL or Redis (or Chromium for the browser test) the tests skip, or
fail when ``CATSACK_REQUIRE_SERVICES=1``. CI needs ``apt-get install nginx`` (and openssl, chromium).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server_procs import (
    NGINX,
    OPENSSL,
    START_BOUND,
    Nginx,
    ServerProc,
    WsClient,
    libpq_dsn,
    need_postgres,
    need_program,
    need_redis,
    postgres_schema,
)

pytest.importorskip("fastapi", reason="the server extra (fastapi, uvicorn, sqlalchemy) is not installed")
pytest.importorskip("websockets", reason="websockets is not installed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.services


@dataclass
class Deployment:
    a: ServerProc
    b: ServerProc
    nginx: Nginx
    schema: str

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.nginx.port}"

    @property
    def ws_url(self) -> str:
        return f"wss://127.0.0.1:{self.nginx.port}/ws"

    @property
    def upstreams(self) -> dict[str, str]:
        """``127.0.0.1:port`` (as nginx names it) -> process name."""
        return {f"127.0.0.1:{self.a.port}": "A", f"127.0.0.1:{self.b.port}": "B"}

    def post(self, path: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """POST through nginx: the JSON answer and the process that made it."""
        r = httpx.post(self.base + path, json=body, verify=False, timeout=10)
        assert r.status_code in (200, 201), f"{path}: {r.status_code} {r.text}"
        out: dict[str, Any] = r.json()
        return out, self.upstreams[r.headers["X-Catsack-Upstream"]]


def tls_client() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # the test's self-signed certificate
    return ctx


@contextlib.contextmanager
def deployed(tmp_path: Path, **settings: str) -> Iterator[Deployment]:
    """Two processes on PostgreSQL (a schema of their own) and Redis behind the repository's nginx file;
    ``settings`` are more ``CATSACK_*`` variables. Everything is stopped afterwards, whatever happened."""
    need_program(NGINX, "nginx")
    need_program(OPENSSL, "openssl")
    redis_url = need_redis()
    with postgres_schema() as (db_url, schema):
        env = {
            "CATSACK_DATABASE_URL": db_url,
            "CATSACK_REDIS_URL": redis_url,
            "CATSACK_BOT_DELAY": "0.05",
            "CATSACK_SWEEP_SECONDS": "0.5",
            "CATSACK_LEASE_SECONDS": "3",
            "CATSACK_GRACE_SECONDS": "600",
            "CATSACK_TRUSTED_PROXIES": "127.0.0.1",
            **settings,
        }
        a = ServerProc(tmp_path, env, name="A")
        b = ServerProc(tmp_path, env, name="B")
        nginx = Nginx(tmp_path / "nginx", [a.port, b.port])
        try:
            a.start()  # one after the other: the first creates the schema
            b.start()
            nginx.start()
            yield Deployment(a, b, nginx, schema)
        except BaseException:
            for p in (a, b):
                print(p.tail(30))
            print(nginx.tail())
            raise
        finally:
            nginx.stop()
            a.stop()
            b.stop()


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
    with deployed(tmp_path) as d:
        yield d


def action_log(schema: str, table: str) -> list[tuple[int, int, str, str | None]]:
    import psycopg

    with psycopg.connect(libpq_dsn(need_postgres())) as conn:
        rows = conn.execute(
            f"SELECT version, seat, move, action_id FROM {schema}.actions WHERE table_id = %s ORDER BY version",
            (table,),
        ).fetchall()
    return [(int(r[0]), int(r[1]), str(r[2]), r[3]) for r in rows]


# ---------------------------------------------------------------------- WebSocket players


async def connect_on(c: WsClient, process: str, d: Deployment, since: int | None = None) -> int:
    """Connect ``c`` through nginx until round robin puts it on ``process``; the tries it took."""
    for tries in range(1, 9):
        await c.connect(since=since)
        assert c.upstream is not None, "nginx did not name the process (X-Catsack-Upstream) on the handshake"
        if d.upstreams[c.upstream] == process:
            return tries
        await c.close()
    raise AssertionError(f"{c.label}: never landed on process {process} in 8 tries")


async def play_through_proxy(d: Deployment, figures: dict[str, Any]) -> None:
    rng = random.Random(16)
    created, made_on = d.post("/api/tables", {"seats": 4, "name": "through nginx"})
    table = created["table"]
    joins = [d.post(f"/api/tables/{table}/join", {"name": f"P{s}", "seat": s}) for s in range(4)]
    http_on = {made_on, *(on for _, on in joins)}
    tokens = [j["token"] for j, _ in joins]
    ctx = tls_client()
    clients = [WsClient(d.ws_url, table, tokens[s], label=f"P{s}", ssl=ctx) for s in range(4)]
    where = {c: "AB"[s % 2] for s, c in enumerate(clients)}
    for c in clients:
        await connect_on(c, where[c], d)
    acked: set[str] = set()
    reconnects = 0
    version = 0
    while True:
        for c in clients:
            await c.wait_version(version, timeout=10)
        st = clients[0].latest
        assert st is not None
        if st["table_status"] == "over":
            break
        mover = clients[st["view"]["to_move"]]
        assert mover.latest is not None
        answer = await mover.move(rng.choice(mover.latest["view"]["legal"]), version)
        assert answer["type"] == "ack", answer
        acked.add(answer["action_id"])
        version += 1
        if version % 6 == 0:  # someone's connection drops; they come back on the other process
            c = rng.choice(clients)
            await c.close()
            where[c] = "B" if where[c] == "A" else "A"
            await connect_on(c, where[c], d, since=c.version)
            reconnects += 1

    # Nothing lost, nothing twice: the log is 1..N, holds every acknowledged move once and nothing else.
    log = action_log(d.schema, table)
    assert [r[0] for r in log] == list(range(1, version + 1))
    logged = [r[3] for r in log]
    assert sorted(x for x in logged if x is not None) == sorted(acked) and len(set(logged)) == len(logged)
    for c in clients:
        versions = [int(s["version"]) for s in c.states]
        assert c.latest is not None and c.latest["version"] == version and c.latest["table_status"] == "over"
        assert all(x <= y for x, y in itertools.pairwise(versions)), f"{c.label} went back"
    publics = [[seat for seat, _ in c.latest["view"]["history"]] for c in clients if c.latest is not None]
    assert all(p == publics[0] for p in publics), "the clients end on different histories"
    assert d.a.get_json(f"/api/tables/{table}/record") == d.b.get_json(f"/api/tables/{table}/record")
    figures.update(
        moves=version,
        reconnects=reconnects,
        http_processes=sorted(http_on),
        ws_processes=sorted(set(where.values())),
    )
    for c in clients:
        await c.close()


def test_clients_play_through_nginx_on_two_processes(deployment: Deployment) -> None:
    """docs/deploy.md as deployed: four players over wss:// through nginx, on both processes on purpose,
    reconnecting across them; no move lost or doubled, everyone on the same final state."""
    figures: dict[str, Any] = {}
    try:
        asyncio.run(play_through_proxy(deployment, figures))
    finally:
        print(f"\nthrough nginx on two processes: {figures}")
    assert figures["ws_processes"] == ["A", "B"]
    # Plain HTTP is sent to HTTPS.
    r = httpx.get(f"http://127.0.0.1:{deployment.nginx.http_port}/t/x", follow_redirects=False, timeout=5)
    assert r.status_code == 301 and r.headers["location"].startswith("https://")


async def routed_tables(d: Deployment, figures: dict[str, Any]) -> None:
    rng = random.Random(29)
    ctx = tls_client()
    made: dict[str, str] = {}
    routed: dict[str, str] = {}
    clients: dict[str, list[WsClient]] = {}
    for _ in range(8):
        created, on = d.post("/api/tables", {"seats": 3, "name": "routed"})  # round robin: either process
        table = created["table"]
        made[table] = on
        joins = [d.post(f"/api/tables/{table}/join", {"name": f"P{s}", "seat": s}) for s in range(3)]
        assert len({where for _, where in joins}) == 1, f"the joins of {table} went to both processes"
        routed[table] = joins[0][1]
        clients[table] = [
            WsClient(f"{d.ws_url}/{table}", table, j["token"], label=f"{table}:{s}", ssl=ctx)
            for s, (j, _) in enumerate(joins)
        ]
        for c in clients[table]:
            await c.connect()
            assert c.upstream is not None and d.upstreams[c.upstream] == routed[table], (table, c.upstream)
    # The lease follows the players: each process drives exactly the tables routed to it.
    want = {p: sum(1 for t in routed if routed[t] == p) for p in ("A", "B")}

    def driving() -> dict[str, int]:
        return {n: int(p.get_json("/health")["driving"]) for n, p in (("A", d.a), ("B", d.b))}

    for _ in range(200):
        if driving() == want:
            break
        await asyncio.sleep(0.05)
    assert driving() == want, (driving(), want)
    # A few moves on every table, each through its own process.
    for cs in clients.values():
        for _ in range(6):
            st = cs[0].latest
            assert st is not None
            mover = cs[st["view"]["to_move"]]
            await mover.wait_version(st["version"])
            assert mover.latest is not None
            answer = await mover.move(rng.choice(mover.latest["view"]["legal"]), st["version"])
            assert answer["type"] == "ack", answer
            for c in cs:
                await c.wait_version(st["version"] + 1)
        for c in cs:
            await c.close()
    # Either process, asked directly, shows every table as it is (the one not routed to reads it again).
    for table, cs in clients.items():
        assert cs[0].latest is not None
        for p in (d.a, d.b):
            assert p.get_json(f"/api/tables/{table}")["version"] == cs[0].latest["version"], (table, p.name)
    figures.update(
        tables=len(routed),
        routed_to=want,
        made_elsewhere=sum(1 for t in routed if made[t] != routed[t]),
    )


def test_a_table_is_routed_to_one_process(deployment: Deployment) -> None:
    """With the repository's nginx file, the joins and the /ws/{table} sockets of a table all
    reach one process, and the lease of a table made on the other process follows its players there."""
    figures: dict[str, Any] = {}
    try:
        asyncio.run(routed_tables(deployment, figures))
    finally:
        print(f"\nrouting by table: {figures}")
    log = "".join(p.log_path.read_text(errors="replace") for p in (deployment.a, deployment.b))
    assert "append conflict" not in log


def test_browser_game_through_nginx(deployment: Deployment, tmp_path: Path) -> None:
    """One person in Chromium plays a whole game against two bots through nginx, reloading the page now
    and then (the page's socket, /ws/{table}, goes back to the table's process); the game ends on every
    process with one move per version."""
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        need_program("/nonexistent/playwright", "python3-playwright (or pip install playwright)")
    from playwright.sync_api import sync_playwright

    from test_browser import CHROMIUM, CHROMIUM_ARGS, Player

    need_program(str(CHROMIUM), "chromium")
    with sync_playwright() as pw:
        # The test's certificate is self-signed: the context ignores it for pages, and the flag for the
        # service worker's script too (Chromium refuses that fetch otherwise, and logs it as an error).
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=[*CHROMIUM_ARGS, "--ignore-certificate-errors"]
        )
        try:
            ann = Player(browser, deployment.base, ignore_https_errors=True, viewport={"width": 1200, "height": 900})
            table = ann.create_table("Ann", ["random", "heuristic"])
            reloads = 0
            while ann.wait_turn_or_end():
                ann.act()
                if len(ann.moves) % 5 == 0:
                    ann.page.reload()
                    ann.page.wait_for_function("() => (document.body.dataset.version ?? '') !== ''")
                    reloads += 1
                assert len(ann.moves) < 200, "the game does not end"
            version = int(ann.body("version"))
            errors = [e for e in ann.errors if "WebSocket" not in e]  # a reload may cut a socket mid-frame
            ann.page.screenshot(path=str(tmp_path / "browser-through-nginx.png"), full_page=True)
            ann.close()
        finally:
            browser.close()
    log = action_log(deployment.schema, table)
    assert [r[0] for r in log] == list(range(1, version + 1))
    for p in (deployment.a, deployment.b):
        assert p.get_json(f"/api/tables/{table}")["status"] == "over"
    assert deployment.a.get_json(f"/api/tables/{table}/record") == deployment.b.get_json(f"/api/tables/{table}/record")
    assert errors == [], errors
    print(f"\nbrowser game through nginx: {len(log)} moves, {len(ann.moves)} by Ann, {reloads} reloads")


# ---------------------------------------------------------------------- nginx after processes restarted


class Watcher:
    """A socket that stays open, like a browser's at a table: when its process dies it connects again
    (through nginx, to whichever process nginx picks) until it is told to stop."""

    def __init__(self, d: Deployment, table: str, label: str) -> None:
        self.client = WsClient(f"{d.ws_url}/{table}", table, None, label=label, ssl=tls_client())
        self.refused = 0  # tries nginx or a process answered with an error
        self.connects = 0
        self.task: asyncio.Task[None] | None = None
        self.stopping = False

    @property
    def open(self) -> bool:
        return not self.client.closed

    async def run(self) -> None:
        while not self.stopping:
            if self.client.closed:
                try:
                    await self.client.connect()
                    self.connects += 1
                except Exception:
                    self.refused += 1
                    await asyncio.sleep(0.2)
                    continue
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        self.stopping = True
        if self.task is not None:
            await self.task
        await self.client.close()


async def wait_until(what: str, probe: Any) -> None:
    deadline = time.monotonic() + START_BOUND  # bounds a failure only
    while not probe():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def one_new_socket(d: Deployment, table: str, label: str, opened: list[WsClient]) -> str | None:
    """Connect a new spectator to ``table`` (hello, welcome, first state); what went wrong, if anything."""
    c = WsClient(f"{d.ws_url}/{table}", table, None, label=label, ssl=tls_client())
    try:
        await c.connect(timeout=START_BOUND)
    except Exception as exc:
        await c.close()
        return f"{type(exc).__name__}: {exc}"[:200]
    opened.append(c)
    return None


async def restarts_then_new_sockets(d: Deployment, figures: dict[str, Any]) -> None:
    # Tables on both processes (routed by their ids), each with two sockets that stay open.
    by_process: dict[str, list[str]] = {"A": [], "B": []}
    while min(len(v) for v in by_process.values()) < 3:
        created, _ = d.post("/api/tables", {"seats": 3, "name": "restarts"})
        _, on = d.post(f"/api/tables/{created['table']}/join", {"name": "P0", "seat": 0})
        by_process[on].append(created["table"])
    tables = by_process["A"] + by_process["B"]
    watchers = [Watcher(d, t, f"{t}:{i}") for t in tables for i in range(2)]
    for w in watchers:
        w.task = asyncio.create_task(w.run())
    await wait_until("every socket open", lambda: all(w.open for w in watchers))
    # Kill each process in turn: its sockets drop and come back through nginx (to the other process,
    # nginx seeing the dead one fail), and it is started again.
    for name, proc in (("A", d.a), ("B", d.b)):
        await asyncio.to_thread(proc.kill9)
        await wait_until(f"the sockets of {name} back", lambda: all(w.open for w in watchers))
        await asyncio.to_thread(proc.start)
    # Both processes are up again: 200 new sockets over 10 s (20 a second), spread over the tables.
    opened: list[WsClient] = []
    tries = []
    for i in range(200):
        tries.append(asyncio.create_task(one_new_socket(d, tables[i % len(tables)], f"new{i}", opened)))
        await asyncio.sleep(0.05)
    errors = [e for e in await asyncio.gather(*tries) if e is not None]
    figures.update(
        new_sockets=200,
        connected=len(opened),
        errors=errors[:5],
        on=sorted({d.upstreams.get(c.upstream or "", "?") for c in opened}),
        watcher_refusals=sum(w.refused for w in watchers),
    )
    for c in opened:
        await c.close()
    for w in watchers:
        await w.stop()


@pytest.mark.slow
def test_new_sockets_connect_after_each_process_restarted(tmp_path: Path) -> None:
    """With the repository's nginx file, a process that failed once is not held out afterwards: each of two
    processes is killed (kill -9) and started again while sockets stay open at tables on both, and then
    200 new WebSockets opened over 10 s all connect."""
    figures: dict[str, Any] = {}
    # One client address for everything here: the per-address limits are not what is tested.
    limits = {
        "CATSACK_MAX_CONNECTIONS_PER_ADDRESS": "10000",
        "CATSACK_MAX_PENDING_PER_ADDRESS": "10000",
        "CATSACK_MAX_PENDING_CONNECTIONS": "10000",
        "CATSACK_HTTP_RATE_PER_SECOND": "10000",
        "CATSACK_HTTP_RATE_BURST": "10000",
    }
    with deployed(tmp_path, **limits) as d:
        try:
            asyncio.run(restarts_then_new_sockets(d, figures))
        finally:
            print(f"\nnew sockets after both processes restarted: {figures}")
    assert figures["connected"] == 200, figures
    assert figures["on"] == ["A", "B"], figures
