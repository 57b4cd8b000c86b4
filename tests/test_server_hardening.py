# ruff: noqa: F811  (the ``server`` fixture is imported from test_server)
"""One server process against hostile input, each case with the reproduction that found it: deep JSON
nesting, NUL and surrogates in identifiers and names, a seat joined elsewhere, HTTP abuse limits,
trusted proxies, the dropped-frame window, open tables nobody joined; plus /metrics and /ready, and a
refused name that creates no table.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from catsack.server.limits import AddressBuckets, RateLimit, client_address
from catsack.server.settings import Settings, parse_networks
from catsack.server.storage.store import SeatRow, Store
from catsack.server.tables.live import setup_to_json
from catsack.server.tables.lobby import abandon_unjoined
from catsack.server.validate import NAME_MAX
from catsack.server.web.app import create_app
from catsack.setup import Setup
from server_procs import postgres_schema
from test_server import (  # noqa: F401  (server is a fixture)
    _SOCKETS,
    PROTO,
    hub_of,
    join,
    make_settings,
    new_table,
    open_client,
    server,
)

DEEP = "[" * 2000 + "]" * 2000


def raw_socket(client: TestClient, headers: dict[str, str] | None = None) -> Any:
    ws = client.websocket_connect("/ws", headers=dict(headers or {}))
    s = ws.__enter__()
    _SOCKETS.setdefault(id(client), []).append(s)
    return s


def hello(table: str, token: str | None = None) -> str:
    return json.dumps({"type": "hello", "protocol": PROTO, "table": table, "token": token})


# ---------------------------------------------------------------------- deep nesting


def test_deep_nesting_before_hello_is_an_error_and_hello_still_works(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random", 2: "random"})
    ws = raw_socket(c)
    for frame in (DEEP, "[" * 4000 + "]" * 90, '"\\ud800"', "\x00", '{"type":"hello","x":1e999}'):
        ws.send_text(frame)
        f = ws.receive_json()
        assert f["type"] == "error" and f["code"] == "bad_hello", f
    ws.send_text(hello(t))
    assert ws.receive_json()["type"] == "welcome"


def test_bad_hellos_do_not_keep_a_connection_past_the_hello_deadline(
    server: Callable[..., TestClient], monkeypatch: Any
) -> None:
    from catsack.server.routes import ws as ws_routes

    monkeypatch.setattr(ws_routes, "HELLO_TIMEOUT", 0.6)
    c = server()
    sock = raw_socket(c)
    with pytest.raises(WebSocketDisconnect) as info:
        for _ in range(300):  # bounds a failure only (30 s): the server closes after HELLO_TIMEOUT
            sock.send_text("{}")
            assert sock.receive_json()["code"] == "bad_hello"
            time.sleep(0.1)
    assert info.value.code == 1008


def test_a_client_gone_mid_answer_is_a_disconnect_not_an_internal_error() -> None:
    """uvicorn answers a send after the connection closed with a RuntimeError; the socket code turns
    it into WebSocketDisconnect (handled), so a client leaving at the wrong moment logs no traceback."""
    from starlette.websockets import WebSocketState

    from catsack.server.routes.ws import _close, _receive_text, _send_direct

    class Gone:
        client_state = WebSocketState.CONNECTED
        application_state = WebSocketState.CONNECTED

        async def send_text(self, _text: str) -> None:
            raise RuntimeError("Unexpected ASGI message 'websocket.send', after sending 'websocket.close'")

        async def close(self, code: int, reason: str) -> None:
            raise RuntimeError("already closed")

        async def receive(self) -> Any:
            raise RuntimeError('Cannot call "receive" once a disconnect message has been received.')

    ws: Any = Gone()
    with pytest.raises(WebSocketDisconnect):
        asyncio.run(_send_direct(ws, {"type": "pong"}))
    asyncio.run(_close(ws, 1008, "x"))  # nothing raised
    assert asyncio.run(_receive_text(ws, Settings())) is None
    ws.client_state = WebSocketState.DISCONNECTED
    with pytest.raises(WebSocketDisconnect):
        asyncio.run(_send_direct(ws, {"type": "pong"}))


def test_deep_nesting_after_hello_keeps_the_connection(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    cl.my_turn()
    for frame in (DEEP, '{"type":' * 500, '{"type":"ping","x":"\\udfff"}', '{"type":"mo\x00ve"}'):
        before = len(cl.frames)
        cl.send(frame)
        cl.ping()
        errors = [f for f in cl.frames[before:] if f["type"] == "error"]
        assert len(errors) == 1 and errors[0]["code"] == "bad_frame", cl.frames[before:]


# ---------------------------------------------------------------------- identifiers and text


BAD_IDS = ["%00", "a%00b", "%F0%9F%90%88", "x" * 33, "%ED%A0%80", "%E2%80%8B", "a%20b", "%1B"]


def _id_routes(table_id: str) -> list[tuple[str, str, Any]]:
    base = f"/api/tables/{table_id}"
    return [
        ("get", base, None),
        ("post", f"{base}/join", {"name": "Ann"}),
        ("get", f"{base}/state", None),
        ("get", f"{base}/record", None),
        ("get", f"{base}/record/0", None),
        # other routers' {id} routes too: the check happens before any router
        ("get", f"{base}/replay", None),
        ("get", f"{base}/analysis?seat=0", None),
        ("post", f"{base}/analysis", {"seat": 0}),
        ("post", f"{base}/rematch", None),
    ]


def _check_bad_ids(c: TestClient, t: str) -> int:
    checked = 0
    for bad in BAD_IDS:
        for method, path, body in _id_routes(bad):
            r = c.request(method, path, json=body)
            assert r.status_code == 404, (path, r.status_code, r.text)
            assert "no table" in r.json()["detail"] or "not printable" in r.json()["detail"]
            checked += 1
    for path in ("/api/users/a%00b", "/t/%00", "/replay/x%1Fy", "/api/%00"):
        r = c.get(path)
        assert r.status_code == 404 and r.json()["code"] == "not_found", (path, r.text)
    # NUL and surrogates in names and tokens: 4xx with a reason, nothing stored
    for name in ("a\x00b", "\ud800x", "\x1b[31mred", "x" * (NAME_MAX + 1), "   "):
        r = c.post(
            f"/api/tables/{t}/join", content=json.dumps({"name": name}), headers={"content-type": "application/json"}
        )
        assert r.status_code == 422, (name, r.text)
        checked += 1
    for body in ({"name": "a\x00b"}, {"name": "x" * 41}, {"seats": 3, "player": "\x00"}):
        r = c.post("/api/tables", json=body)
        assert r.status_code == 422, (body, r.text)
    for token in (b"a\x00b", b"x" * 200, "\u00e9t\u00e9".encode()):
        r = c.get(f"/api/tables/{t}/state", headers={"authorization": b"Bearer " + token})
        assert r.status_code == 401, (token, r.text)
    return checked


def _check_bad_hellos(c: TestClient, t: str) -> None:
    ws = raw_socket(c)
    for table, token in (("a\x00b", None), ("\ud800", None), ("x" * 1000, None), (t, "a\x00b"), (t, "\udc00")):
        ws.send_text(json.dumps({"type": "hello", "protocol": PROTO, "table": table, "token": token}))
        f = ws.receive_json()
        assert f["type"] == "error" and f["code"] in ("unknown_table", "unauthorized", "bad_hello"), f
    ws.send_text(hello(t))
    assert ws.receive_json()["type"] == "welcome"


def test_nul_and_bad_ids_are_4xx_on_sqlite(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 4, {1: "random"})
    assert _check_bad_ids(c, t) >= 60
    _check_bad_hellos(c, t)
    assert [x["table"] for x in c.get("/api/tables").json()] == [t]  # no table was made by a refused request


def test_nul_and_bad_ids_are_4xx_on_postgres(tmp_path: Path) -> None:
    with postgres_schema() as (url, _schema), TestClient(create_app(make_settings(tmp_path, database_url=url))) as c:
        t = new_table(c, 4, {1: "random"})
        assert _check_bad_ids(c, t) >= 60
        _check_bad_hellos(c, t)
        for ws in _SOCKETS.pop(id(c), []):
            ws.__exit__(None, None, None)


def test_move_frames_with_nul_or_surrogates_in_action_ids_are_bad_frames(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    for aid in ("a\x00", "\x7f", "x" * 65):
        before = len(cl.frames)
        cl.send({"type": "move", "action_id": aid, "version": st["version"], "move": st["view"]["legal"][0]})
        cl.ping()
        errors = [f for f in cl.frames[before:] if f["type"] == "error"]
        assert errors and errors[0]["code"] == "bad_frame", (aid, cl.frames[before:])
    assert cl.move(st["view"]["legal"][0], version=st["version"])["type"] == "ack"


# ---------------------------------------------------------------------- a refused name


def test_papercut1_too_long_name_refused_before_any_table_exists(server: Callable[..., TestClient]) -> None:
    c = server()
    r = c.post("/api/tables", json={"seats": 3, "bots": {"1": "random"}, "player": "x" * (NAME_MAX + 1)})
    assert r.status_code == 422 and "at most 24" in r.json()["detail"]
    assert c.get("/api/tables").json() == []
    assert hub_of(c).store.list_tables("open") == []  # nothing left behind in the database either
    r = c.post("/api/tables", json={"seats": 3, "bots": {"1": "random"}, "player": "  Ann   Lee "})
    assert r.status_code == 201
    made = r.json()
    assert made["seat"] == 0 and made["token"] and made["players"][0]["name"] == "Ann Lee"
    cl = open_client(c, made["table"], made["token"])
    assert cl.frames[0]["seat"] == 0
    r = c.post("/api/tables", json={"seats": 3, "bots": {"0": "random", "1": "random", "2": "random"}, "player": "A"})
    assert r.status_code == 422


def test_papercut1_a_failed_join_on_create_leaves_no_table(server: Callable[..., TestClient], monkeypatch: Any) -> None:
    from catsack.server.tables.live import TableError

    c = server()
    hub = hub_of(c)

    async def refuse(*_args: Any, **_kw: Any) -> Any:
        raise TableError("seat_taken", "somebody was faster", 409)

    monkeypatch.setattr(hub, "join", refuse)
    r = c.post("/api/tables", json={"seats": 3, "player": "Ann"})
    assert r.status_code == 409 and r.json()["code"] == "seat_taken"
    assert c.get("/api/tables").json() == [] and not hub.tables
    assert hub.store.list_tables("open") == []


def test_papercut1_lobby_input_agrees_with_the_server() -> None:
    html = (Path(__file__).parents[1] / "src/catsack/server/static/index.html").read_text()
    m = re.search(r'<input id="your-name"[^>]*maxlength="(\d+)"', html)
    assert m is not None and int(m.group(1)) == NAME_MAX


# ---------------------------------------------------------------------- a seat joined elsewhere


def test_token_miss_consults_the_database(tmp_path: Path) -> None:
    """Two apps on one database (two processes, no Redis): a seat joined on A is found by B at once."""
    settings = make_settings(tmp_path)
    with TestClient(create_app(settings)) as a, TestClient(create_app(settings)) as b:
        t = new_table(a, 3, {1: "random"})
        assert b.get(f"/api/tables/{t}").status_code == 200  # B holds the table before the join
        _, tok = join(a, t, "Ann")
        ws = raw_socket(b)
        ws.send_text(hello(t, tok))
        f = ws.receive_json()
        assert f["type"] == "welcome" and f["seat"] == 0, f
        r = b.get(f"/api/tables/{t}/state", headers={"authorization": f"Bearer {tok}"})
        assert r.status_code == 200 and r.json()["view"]["seat"] == 0
        ws.send_text(json.dumps({"type": "ping"}))
        ws.__exit__(None, None, None)
        _SOCKETS.pop(id(b), None)
        ws2 = raw_socket(b)
        ws2.send_text(hello(t, "not-a-real-token"))
        assert ws2.receive_json()["code"] == "unauthorized"
        ws2.__exit__(None, None, None)
        _SOCKETS.pop(id(b), None)


# ---------------------------------------------------------------------- HTTP abuse limits


def test_mutating_requests_rate_limited_per_address_with_retry_after(server: Callable[..., TestClient]) -> None:
    c = server(http_rate_per_second=0.5, http_rate_burst=5)
    codes = [c.post("/api/tables", json={"seats": 3}).status_code for _ in range(8)]
    assert codes[:5] == [201] * 5 and codes[5:] == [429] * 3
    r = c.post("/api/tables", json={"seats": 3})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1 and r.json()["code"] == "rate_limited"
    assert c.get("/api/tables").status_code == 200  # reading is not limited
    assert len(c.get("/api/tables").json()) == 5


def test_address_buckets_refill() -> None:
    now = [0.0]
    b = AddressBuckets(2.0, 3, clock=lambda: now[0])
    assert [b.take("a") for _ in range(3)] == [0.0] * 3
    assert b.take("a") == pytest.approx(0.5)
    assert b.take("b") == 0.0  # another address has its own budget
    now[0] += 0.5
    assert b.take("a") == 0.0


def test_body_size_limit_before_parsing(server: Callable[..., TestClient]) -> None:
    c = server(max_body_bytes=4096)
    big = b'{"seats": 3, "name": "' + b"x" * 20_000_000 + b'"}'  # the 20 MB body of the report
    t0 = time.process_time()  # CPU time: refused unread, so however busy the machine, it costs little
    r = c.post("/api/tables", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "4096" in r.json()["detail"]
    assert time.process_time() - t0 < 5.0

    def chunks() -> Any:  # no Content-Length: counted while it streams in
        for _ in range(100):
            yield b" " * 1000

    r = c.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413, r.text
    assert c.get("/api/tables").json() == []


def test_http_guard_refuses_bad_content_length_and_paths_without_calling_the_app() -> None:
    from catsack.server.limits import HttpGuard

    called: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        called.append(scope["path"])

    guard = HttpGuard(app, max_body_bytes=1024, buckets=AddressBuckets(1e6, 10**6), proxies=())

    def run(path: str, headers: list[tuple[bytes, bytes]]) -> int:
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": path, "headers": headers, "client": ("1.2.3.4", 1)}
        asyncio.run(guard(scope, receive, send))
        return int(sent[0]["status"]) if sent else 0

    assert run("/api/tables", [(b"content-length", "\u00b2".encode("latin-1"))]) == 400  # "²".isdigit()
    assert run("/api/tables", [(b"content-length", b"-1")]) == 400
    assert run("/api/tables", [(b"content-length", b"99999999999999999999")]) == 413
    assert run("/api/tables/a\x00b/join", []) == 404
    assert run("/api/users/\udcff", []) == 404
    assert called == []
    assert run("/api/tables", [(b"content-length", b"2")]) == 0 and called == ["/api/tables"]


@pytest.mark.slow
def test_open_tables_nobody_joined_leave_the_lobby(server: Callable[..., TestClient]) -> None:
    c = server(http_rate_burst=1000)
    real = new_table(c, 4, {1: "random"}, name="Real")
    join(c, real, "Ann")
    junk = [new_table(c, 3, name=f"junk{i}") for i in range(101)]
    listed = [x["table"] for x in c.get("/api/tables").json()]
    assert listed[0] == real and len(listed) == 100  # somebody waiting: listed first, however many others
    hub = hub_of(c)
    ids = abandon_unjoined(hub.store, time.time() + 1)
    assert set(ids) == set(junk)  # the one somebody joined stays
    listed = [x["table"] for x in c.get("/api/tables").json()]
    assert listed == [real]


def test_stale_open_tables_abandoned_at_start_and_by_the_sweep(tmp_path: Path) -> None:
    """Open tables nobody joined are marked abandoned in the database, at start-up before they would
    be loaded (none is held in memory) and by the periodic sweep; a table somebody joined stays."""
    settings = make_settings(tmp_path, evict_open_seconds=0.3, sweep_seconds=3600)  # the in-memory sweep idles
    store = Store(settings.database_url)
    setup = setup_to_json(Setup.deal(3, 5))
    for tid, kind in (("stale1", "open"), ("stale2", "open"), ("waiting", "human")):
        seats = [SeatRow(0, kind, "Ann" if kind == "human" else None, None, "h" if kind == "human" else None, False)]
        seats += [SeatRow(i, "open", None, None, None, False) for i in (1, 2)]
        store.create_table(tid, tid, seats, {}, setup, "open")
    store.close()
    time.sleep(0.35)
    with TestClient(create_app(settings)) as c:
        hub = hub_of(c)
        assert "stale1" not in hub.tables and "stale2" not in hub.tables and "waiting" in hub.tables
        assert [x["table"] for x in c.get("/api/tables").json()] == ["waiting"]
        fresh = new_table(c, 3)
        deadline = time.monotonic() + 30  # bounds a failure only
        while time.monotonic() < deadline:
            row = hub.store.table(fresh)
            if row is not None and row.status == "abandoned":
                break
            time.sleep(0.05)
        assert row is not None and row.status == "abandoned"


# ---------------------------------------------------------------------- trusted proxies


def test_client_address_believes_only_trusted_proxies() -> None:
    proxies = parse_networks("127.0.0.1, 10.0.0.0/8")
    fwd = {"x-forwarded-for": "203.0.113.9, 10.1.2.3"}
    assert client_address("10.0.0.5", fwd, proxies) == "203.0.113.9"
    assert client_address("198.51.100.7", fwd, proxies) == "198.51.100.7"  # not a proxy: header ignored
    assert client_address("10.0.0.5", fwd, ()) == "10.0.0.5"  # no proxies configured
    spoof = {"x-forwarded-for": "1.2.3.4, 203.0.113.9"}  # the client wrote 1.2.3.4 itself
    assert client_address("127.0.0.1", spoof, proxies) == "203.0.113.9"
    assert client_address("127.0.0.1", {"x-real-ip": "192.0.2.1"}, proxies) == "192.0.2.1"
    assert client_address("127.0.0.1", {"x-forwarded-for": "junk"}, proxies) == "127.0.0.1"
    assert client_address("127.0.0.1", {"x-forwarded-for": "2001:db8::1"}, proxies) == "2001:db8::1"
    with pytest.raises(ValueError, match="not an IP"):
        Settings(trusted_proxies="10.0.0.0/8, nonsense")


def test_forwarded_addresses_count_for_caps_and_rate_limits(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, trusted_proxies="127.0.0.1", max_connections_per_address=1, http_rate_burst=2)
    with TestClient(create_app(settings), client=("127.0.0.1", 40000)) as c:  # the proxy's address
        t = new_table(c, 3, {1: "random", 2: "random"})
        # behind the proxy, two players from different addresses both get in
        a = raw_socket(c, {"x-forwarded-for": "203.0.113.1"})
        a.send_text(hello(t))
        assert a.receive_json()["type"] == "welcome"
        b = raw_socket(c, {"x-real-ip": "203.0.113.2"})
        b.send_text(hello(t))
        assert b.receive_json()["type"] == "welcome"
        again = raw_socket(c, {"x-forwarded-for": "203.0.113.1"})
        assert again.receive_json()["code"] == "busy"
        # HTTP budgets are per forwarded address too
        h1, h2 = {"x-forwarded-for": "198.51.100.1"}, {"x-forwarded-for": "198.51.100.2"}
        assert [c.post("/api/tables", json={"seats": 3}, headers=h1).status_code for _ in range(3)] == [201, 201, 429]
        assert c.post("/api/tables", json={"seats": 3}, headers=h2).status_code == 201
        for ws in _SOCKETS.pop(id(c), []):
            ws.__exit__(None, None, None)


def test_untrusted_forwarded_header_is_ignored(server: Callable[..., TestClient]) -> None:
    c = server(max_connections_per_address=1)  # no trusted proxies: the TestClient's address counts
    t = new_table(c, 3, {1: "random", 2: "random"})
    a = raw_socket(c, {"x-forwarded-for": "203.0.113.1"})
    a.send_text(hello(t))
    assert a.receive_json()["type"] == "welcome"
    b = raw_socket(c, {"x-forwarded-for": "203.0.113.2"})
    assert b.receive_json()["code"] == "busy"


# ---------------------------------------------------------------------- dropped-frame window


def test_dropped_frames_counted_per_window() -> None:
    now = [0.0]
    limit = RateLimit(1.0, 2, window=10.0, clock=lambda: now[0])
    for _burst in range(20):  # a long session: a burst of 5 every 30 s, 3 dropped each time
        results = [limit.allow() for _ in range(5)]
        assert results.count(False) == 3
        assert limit.dropped == 3  # never accumulates across quiet windows
        now[0] += 30.0
    flood = [limit.allow() for _ in range(60)]  # sustained flooding still adds up
    assert flood.count(False) == 58 and limit.dropped == 58


def test_long_session_with_bursts_stays_open(server: Callable[..., TestClient]) -> None:
    c = server(rate_per_second=50.0, rate_burst=4, rate_close_after=6, rate_window_seconds=0.2)
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    cl.my_turn()
    for _ in range(4):  # 4 bursts, each dropping some frames: 4 x 4 drops > rate_close_after
        for _ in range(8):
            cl.send({"type": "ping"})
        time.sleep(0.35)
    assert cl.ping()["type"] == "pong"


# ---------------------------------------------------------------------- metrics and readiness


def test_metrics_and_ready(server: Callable[..., TestClient]) -> None:
    c = server()
    other = server()  # a second app in the same process: its own registry, no clash
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    assert cl.move(st["view"]["legal"][0], version=st["version"])["type"] == "ack"
    cl.send("not json")
    cl.ping()
    text = c.get("/metrics").text
    for name in (
        "catsack_live_tables 1.0",
        "catsack_connections 1.0",
        'catsack_moves_applied_total{actor="human"} 1.0',
        "catsack_acks_total 1.0",
        'catsack_errors_total{code="bad_frame"} 1.0',
        "catsack_append_conflicts_total 0.0",
        "catsack_action_broadcast_seconds_count 1.0",
        "catsack_gc_pause_seconds",
        "catsack_bot_think_seconds_count",
    ):
        assert name in text, name
    assert c.get("/api/tables/nope").status_code == 404
    assert 'catsack_errors_total{code="http_404"} 1.0' in c.get("/metrics").text
    assert "catsack_acks_total 0.0" in other.get("/metrics").text
    assert c.get("/ready").json() == {"status": "ready", "database": "ok"}
    assert c.get("/health").json()["status"] == "ok"


def test_ready_is_503_when_the_database_is_gone(server: Callable[..., TestClient]) -> None:
    c = server()
    store = hub_of(c).store

    def broken() -> list[str]:
        raise ConnectionError("database down")

    store.unfinished_ids = broken  # type: ignore[method-assign]
    r = c.get("/ready")
    assert r.status_code == 503 and r.json()["database"].startswith("failed")
    assert c.get("/health").status_code == 200  # liveness does not depend on the database


def test_ready_reports_an_unreachable_redis() -> None:
    pytest.importorskip("redis")
    from catsack.server.routes.health import _redis_check

    assert asyncio.run(_redis_check("redis://127.0.0.1:1/0")).startswith("failed")  # nothing listens on port 1
