"""The documented deployment, started on this machine (issue 16; docs/deploy.md).

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
- One person in Chromium (Playwright) plays a whole game against two bots through the proxy,
  reloading the page now and then (which lands it on the other process).
- Plain ``http://`` is redirected to ``https://``.

Without nginx, openssl, PostgreSQL or Redis (or Chromium for the browser test) the tests skip, or
fail when ``CATSACK_REQUIRE_SERVICES=1``. CI needs ``apt-get install nginx`` (and openssl, chromium).
"""

from __future__ import annotations

import asyncio
import itertools
import random
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from server_procs import (
    NGINX,
    OPENSSL,
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


@pytest.fixture
def deployment(tmp_path: Path) -> Iterator[Deployment]:
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


def test_browser_game_through_nginx(deployment: Deployment, tmp_path: Path) -> None:
    """One person in Chromium plays a whole game against two bots through nginx, reloading the page now
    and then (round robin puts the reloaded page on the other process); the game ends on every process
    with one move per version."""
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
                    ann.page.wait_for_function("(document.body.dataset.version ?? '') !== ''")
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
