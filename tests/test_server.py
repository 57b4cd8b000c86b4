"""The server over HTTP and WebSocket, in process: every case of SERVER_CHECKLIST.md that needs
no second process (17, 18 across restarts and 20 are in test_server_crash / test_server_multiprocess).
"""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
import tracemalloc
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

import contextlib
import itertools

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from catsack.game import Game
from catsack.locales import LANGUAGES
from catsack.moves import Move
from catsack.record import record_from_game, redact
from catsack.server.settings import Settings
from catsack.server.storage.store import Store
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import state_frame
from catsack.server.tables.seating import BOT_LEVELS, FORMER_LEVELS
from catsack.server.web.app import create_app
from catsack.setup import Setup

PROTO = "catsack-ws/1"


def make_settings(tmp_path: Path, **kw: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'server.db'}",
        "bot_delay": 0.0,
        "sweep_seconds": 0.1,
        "grace_seconds": 3600.0,
        "log_json": True,
    }
    base.update(kw)
    return Settings(**base)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Callable[..., TestClient]]:
    """A factory: ``server(**settings)`` gives a started TestClient (closed at the end)."""
    clients: list[TestClient] = []

    def start(**kw: Any) -> TestClient:
        c = TestClient(create_app(make_settings(tmp_path, **kw)))
        c.__enter__()
        clients.append(c)
        return c

    yield start
    for c in reversed(clients):
        for ws in _SOCKETS.pop(id(c), []):  # an open socket would keep the app from shutting down
            with contextlib.suppress(Exception):
                ws.__exit__(None, None, None)
        c.__exit__(None, None, None)


_SOCKETS: dict[int, list[Any]] = {}


def hub_of(client: TestClient) -> Hub:
    h: Hub = client.app.state.hub  # type: ignore[attr-defined]
    return h


WAIT = 30.0  # seconds: bounds a wait for a condition, so only a failure ever takes this long


def wait_until(pred: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Poll ``pred`` until it holds; fail naming ``what`` after ``timeout`` seconds."""
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out after {timeout} s waiting for {what}"
        time.sleep(0.02)


async def await_until(pred: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """:func:`wait_until` inside the event loop."""
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out after {timeout} s waiting for {what}"
        await asyncio.sleep(0.02)


def new_table(client: TestClient, seats: int = 4, bots: dict[int, str] | None = None, **opts: Any) -> str:
    body = {"seats": seats, "bots": {str(k): v for k, v in (bots or {}).items()}, **opts}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["table"])


def join(client: TestClient, table: str, name: str = "Ann", seat: int | None = None) -> tuple[int, str]:
    body: dict[str, Any] = {"name": name}
    if seat is not None:
        body["seat"] = seat
    r = client.post(f"/api/tables/{table}/join", json=body)
    assert r.status_code == 200, r.text
    return int(r.json()["seat"]), str(r.json()["token"])


class Client:
    """A WebSocket client that keeps every frame it received."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.frames: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.n = 0
        self.acted_at = -1  # the version our last move was made against

    def send(self, obj: Any) -> None:
        self.ws.send_text(obj if isinstance(obj, str) else json.dumps(obj))

    def recv(self) -> dict[str, Any]:
        f: dict[str, Any] = self.ws.receive_json()
        self.frames.append(f)
        if f["type"] == "state":
            self.state = f
        return f

    def until(self, pred: Callable[[dict[str, Any]], bool], limit: int = 2000) -> dict[str, Any]:
        for _ in range(limit):
            f = self.recv()
            if pred(f):
                return f
        raise AssertionError("frame not seen")

    def state_where(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        return self.until(lambda f: f["type"] == "state" and pred(f))

    def current(self) -> dict[str, Any]:
        """The latest state frame, waiting for the first one if none came yet."""
        return self.state if self.state is not None else self.state_where(lambda f: True)

    def my_turn(self) -> dict[str, Any]:
        """The state where this seat is to move (or the game is over). The server coalesces state
        frames, so that state may already have arrived, before the ack of our previous move."""
        st = self.state
        if st is not None and st["version"] != self.acted_at and self._mine(st):
            return st
        return self.state_where(self._mine)

    @staticmethod
    def _mine(f: dict[str, Any]) -> bool:
        return bool(f["view"]["to_move"] == f["view"]["seat"] or f["view"]["phase"] == "over")

    def move(self, text: str, version: int | None = None, action_id: str | None = None) -> dict[str, Any]:
        assert self.state is not None
        self.n += 1
        aid = action_id or f"a{self.n}"
        v = self.state["version"] if version is None else version
        self.acted_at = v
        self.send({"type": "move", "action_id": aid, "version": v, "move": text})
        return self.until(lambda f: f["type"] in ("ack", "error") and f.get("action_id") == aid)

    def ping(self) -> dict[str, Any]:
        """Round-trip: everything the server queued before the pong arrives first."""
        self.send({"type": "ping"})
        return self.until(lambda f: f["type"] == "pong")


def connect(client: TestClient, table: str, token: str | None, since: int | None = None) -> Any:
    ws = client.websocket_connect("/ws")
    s = ws.__enter__()
    _SOCKETS.setdefault(id(client), []).append(s)
    s.send_text(json.dumps({"type": "hello", "protocol": PROTO, "table": table, "token": token, "since": since}))
    return s


def open_client(client: TestClient, table: str, token: str | None, since: int | None = None) -> Client:
    c = Client(connect(client, table, token, since))
    welcome = c.recv()
    assert welcome["type"] == "welcome", welcome
    return c


def choose(view: dict[str, Any], rng: random.Random) -> str:
    legal: list[str] = view["legal"]
    bids = [m for m in legal if m.startswith("bid")]
    if bids and rng.random() < 0.4:
        return bids[0]
    if "pass" in legal:
        return "pass"
    return rng.choice(legal)


def play_out(c: Client, rng: random.Random) -> dict[str, Any]:
    """Play ``c``'s seat until the game is over; returns the last state."""
    while True:
        st = c.my_turn()
        if st["view"]["phase"] == "over":
            return st
        ans = c.move(choose(st["view"], rng), version=st["version"])
        assert ans["type"] == "ack", ans


# ---------------------------------------------------------------------- HTTP


def test_http_create_join_list_and_openapi(server: Callable[..., TestClient]) -> None:
    c = server()
    assert c.get("/health").json()["status"] == "ok"
    t = new_table(c, 4, {1: "heuristic", 2: "random"}, name="Friday", money_visible=True)
    listed = c.get("/api/tables").json()
    assert [x["table"] for x in listed] == [t]
    info = c.get(f"/api/tables/{t}").json()
    assert info["name"] == "Friday" and info["money_visible"] is True and info["status"] == "open"
    assert [p["kind"] for p in info["players"]] == ["open", "bot", "bot", "open"]
    assert join(c, t, "Ann")[0] == 0
    assert join(c, t, "Bea", seat=3)[0] == 3
    assert c.get(f"/api/tables/{t}").json()["status"] == "playing"
    assert c.get("/api/tables").json() == []
    r = c.post(f"/api/tables/{t}/join", json={"name": "Cy"})
    assert r.status_code == 409 and "no open seat" in r.json()["detail"]
    schema = c.get("/openapi.json").json()
    for path in ("/api/tables", "/api/tables/{table_id}/join", "/api/tables/{table_id}/record", "/health"):
        assert path in schema["paths"]
    assert c.get("/").status_code in (200, 404)  # 404 only while the client files are missing
    public = c.get(f"/api/tables/{t}/state").json()
    assert public["type"] == "state" and public["view"]["seat"] is None and public["view"]["hand"] == []
    _, tok = join(c, new_table(c, 3, {1: "random", 2: "random"}), "Dee")
    mine = c.get(f"/api/tables/{t}/state", headers={"Authorization": f"Bearer {tok}"})
    assert mine.status_code == 403  # a token of another table


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"seats": 6}, "seats"),
        ({"seats": 2}, "seats"),
        ({"seats": "four"}, "seats"),
        ({"bots": {"1": "external:rm -rf /"}}, "unknown bot level"),
        ({"bots": {"9": "heuristic"}}, "not a seat"),
        ({"turn_seconds": 1}, "turn_seconds"),
        ({"colour": "red"}, "colour"),
        ({"seats": 10**30}, "seats"),
    ],
)
@pytest.mark.slow
def test_http_bad_create_requests_get_clear_errors(server: Callable[..., TestClient], body: Any, fragment: str) -> None:
    c = server()
    r = c.post("/api/tables", json=body)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["detail"]


def test_http_tables_seat_every_level_and_the_former_ones(server: Callable[..., TestClient]) -> None:
    """The lobby's levels (weakest first) and the ``ismcts`` levels they replaced, asked for by name."""
    assert BOT_LEVELS == ("random", "heuristic", "expert:easy", "expert:normal", "expert:strong", "expert")
    c = server()
    specs = [*BOT_LEVELS, *FORMER_LEVELS]
    for start in range(0, len(specs), 4):  # seat 0 stays open, so no game starts
        chunk = specs[start : start + 4]
        t = new_table(c, 5, dict(enumerate(chunk, start=1)))
        names = [p["name"] for p in c.get(f"/api/tables/{t}").json()["players"] if p["kind"] == "bot"]
        assert [n.split(" ")[0] for n in names] == chunk
    r = c.post("/api/tables", json={"bots": {"1": "expert:hard"}})
    assert r.status_code == 422 and ", ".join(BOT_LEVELS) in r.json()["detail"]


def test_http_bad_requests_never_500(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random"})
    cases = [
        ("post", "/api/tables", b"not json"),
        ("post", "/api/tables", b"null"),
        ("post", "/api/tables", b"[]"),
        ("post", f"/api/tables/{t}/join", b'{"name": ""}'),
        ("post", f"/api/tables/{t}/join", b'{"name": "\\u0000"}'),
        ("post", f"/api/tables/{t}/join", b'{"name": "x", "seat": 7}'),
        ("post", f"/api/tables/{t}/join", b'{"name": "x", "seat": 1}'),
        ("post", "/api/tables/nope/join", b'{"name": "x"}'),
        ("get", "/api/tables/nope", None),
        ("get", "/api/tables/" + "x" * 5000, None),
        ("get", f"/api/tables/{t}/record", None),
        ("get", f"/api/tables/{t}/record/0", None),
        ("get", f"/api/tables/{t}/record/abc", None),
        ("get", "/api/tables/finished?limit=0", None),
    ]
    for method, path, content in cases:
        r = c.request(method, path, content=content, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, (path, content, r.status_code, r.text)
        assert isinstance(r.json().get("detail"), str) and r.json()["detail"], (path, r.text)


def test_records_full_after_end_and_redacted_with_token(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 4, {1: "heuristic", 2: "heuristic", 3: "random"})
    seat, token = join(c, t)
    r = c.get(f"/api/tables/{t}/record/{seat}", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    red = r.json()
    assert red["redacted_for"] == seat and red["removed"][1] is None and red["removed"][0] is not None
    assert red["agents"] == ["human", "heuristic", "heuristic", "random"]  # what the lobby shows of each seat
    assert c.get(f"/api/tables/{t}/record/1", headers={"Authorization": f"Bearer {token}"}).status_code == 403
    assert c.get(f"/api/tables/{t}/record/0", headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert c.get(f"/api/tables/{t}/record").status_code == 409
    cl = open_client(c, t, token)
    final = play_out(cl, random.Random(1))
    cl.ws.__exit__(None, None, None)
    rec = c.get(f"/api/tables/{t}/record")
    assert rec.status_code == 200
    from catsack.record import loads_record

    game = loads_record(rec.text).to_game()
    assert game.is_over and list(game.scores()) == final["view"]["scores"]
    finished = c.get("/api/tables/finished").json()
    assert finished[0]["table"] == t and finished[0]["status"] == "over"


# ---------------------------------------------------------------------- actions (-6)


def test_c1_same_action_twice_applied_once(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    frame = {"type": "move", "action_id": "dup", "version": st["version"], "move": st["view"]["legal"][0]}
    cl.send(frame)
    cl.send(frame)
    acks = [cl.until(lambda f: f["type"] in ("ack", "error")) for _ in range(2)]
    assert acks[0] == acks[1] == {"type": "ack", "action_id": "dup", "version": st["version"] + 1}
    cl.ping()  # both frames were answered: whatever they did is done
    hub = hub_of(c)
    moves = hub.tables[t].game.moves
    assert sum(1 for i, m in enumerate(moves) if hub.tables[t].game.seat_of(i) == 0) == 1
    cl.ws.__exit__(None, None, None)


def test_c2_stale_action_refused_nothing_broadcast(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    ans = cl.move(st["view"]["legal"][0], version=st["version"] - 1 if st["version"] else 99)
    assert ans["type"] == "error" and ans["code"] == "stale" and ans["version"] == st["version"]
    before = len(cl.frames)
    cl.ping()
    assert [f["type"] for f in cl.frames[before:]] == ["pong"]  # no state frame: nothing changed
    assert hub_of(c).tables[t].version == st["version"]


def test_c3_out_of_turn_refused(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3)
    toks = [join(c, t, f"P{i}")[1] for i in range(3)]
    cls = [open_client(c, t, tok) for tok in toks]
    st = cls[0].current()
    for cl in cls:
        cl.current()
    mover = st["view"]["to_move"]
    other = cls[(mover + 1) % 3]
    assert other.move("pass")["code"] == "not_your_turn"
    # the mover places; then placing again (out of turn now) is refused too
    mc = cls[mover]
    assert mc.move(mc.current()["view"]["legal"][0])["type"] == "ack"
    mc.ping()
    after = mc.current()
    assert after["version"] == 1
    again = mc.move("place " + after["view"]["hand"][0])
    assert again["type"] == "error" and again["code"] == "not_your_turn"
    assert hub_of(c).tables[t].version == 1


def test_c4_two_connections_of_one_seat_exactly_one_wins(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok = join(c, t)
    a, b = open_client(c, t, tok), open_client(c, t, tok)
    st = a.my_turn()
    while b.current()["version"] != st["version"]:
        b.recv()
    legal = st["view"]["legal"]
    a.send({"type": "move", "action_id": "from-a", "version": st["version"], "move": legal[0]})
    b.send({"type": "move", "action_id": "from-b", "version": st["version"], "move": legal[-1]})
    ra = a.until(lambda f: f.get("action_id") == "from-a")
    rb = b.until(lambda f: f.get("action_id") == "from-b")
    assert sorted([ra["type"], rb["type"]]) == ["ack", "error"]
    loser = ra if ra["type"] == "error" else rb
    assert loser["code"] == "stale"

    def again(f: dict[str, Any]) -> bool:  # the bots moved on to this seat's next turn, where they wait
        return f["version"] > st["version"] and Client._mine(f)

    fa, fb = (cl.state if cl.state is not None and again(cl.state) else cl.state_where(again) for cl in (a, b))
    assert fa["version"] == fb["version"] and fa["view"] == fb["view"]


def test_c5_slow_database_write_still_serialises(server: Callable[..., TestClient]) -> None:
    c = server(write_delay=0.15)
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok = join(c, t)
    conns = [open_client(c, t, tok) for _ in range(3)]
    st = conns[0].my_turn()
    for i, cl in enumerate(conns):
        cl.ping()
        assert cl.current()["version"] == st["version"]
        cl.send({"type": "move", "action_id": f"x{i}", "version": st["version"], "move": st["view"]["legal"][i % 2]})
    answers = [cl.until(lambda f, i=i: f.get("action_id") == f"x{i}") for i, cl in enumerate(conns)]
    assert [a["type"] for a in answers].count("ack") == 1
    store = hub_of(c).store
    loaded = store.load(t)
    assert loaded is not None
    versions = [a.version for a in loaded[2]]
    assert versions == list(range(1, len(versions) + 1))


class _UncheckedStore(Store):
    """A store whose move appends check nothing (no version guard, no unique key): whatever it is
    given it "commits", slowly. Only the hub's per-table lock can keep actions apart now."""

    def __init__(self, url: str, delay: float) -> None:
        super().__init__(url)
        self.delay = delay
        self.appended: list[tuple[str, int, str]] = []

    def append_batch(self, items: Any, conn: Any = None) -> list[Any]:
        time.sleep(self.delay)  # the slow write between check and apply
        self.appended.extend((it.table_id, it.version, it.move) for it in items)
        return [None] * len(items)


class _NoLock:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def _race_one_seat(tmp_path: Path, *, locked: bool) -> tuple[list[str], list[tuple[str, int, str]]]:
    """Three connections of one seat send three different moves against one version at once."""
    from catsack.server.tables.live import Conn

    tmp_path.mkdir(parents=True, exist_ok=True)
    settings = make_settings(tmp_path, sweep_seconds=3600)

    async def scenario() -> tuple[list[str], list[tuple[str, int, str]]]:
        store = _UncheckedStore(settings.database_url, delay=0.1)
        hub = Hub(settings, store=store)
        await hub.start()
        try:
            table = await hub.create(
                3, {1: "random", 2: "random"}, name="race", money_visible=False, turn_seconds=None, hints=False
            )
            seat, _token = await hub.join(table, "Ann", 0)
            await await_until(lambda: table.game.to_move == seat, "the bots to reach Ann's turn")
            if not locked:
                table.lock = _NoLock()  # type: ignore[assignment]

            async def sink(_text: str) -> None:
                return None

            conns = [Conn(sink, seat, None) for _ in range(3)]
            for conn in conns:
                hub.attach(table, conn)
            legal = [m.text for m in table.game.legal_moves()][:3]
            version = table.version
            answers = await asyncio.gather(
                *(hub.act(conn, f"a{i}", version, legal[i % len(legal)]) for i, conn in enumerate(conns)),
                return_exceptions=True,
            )
            kinds = [a["type"] if isinstance(a, dict) else type(a).__name__ for a in answers]
            mine = [a for a in store.appended if a[1] == version + 1]
            return kinds, mine
        finally:
            await hub.stop()

    return asyncio.run(scenario())


def test_c5_the_table_lock_serialises_with_the_database_guard_bypassed(tmp_path: Path) -> None:
    """Two actions never interleave, with the database out of the picture: a store that accepts every append, slowly.
    With the per-table lock, exactly one of three simultaneous moves is committed; without it
    (the control), several are, so this test would catch a lock that does not serialise."""
    kinds, appended = _race_one_seat(tmp_path / "locked", locked=True)
    assert kinds.count("ack") == 1 and kinds.count("error") == 2, kinds
    assert len(appended) == 1, appended
    kinds, appended = _race_one_seat(tmp_path / "unlocked", locked=False)
    assert len(appended) > 1, (kinds, appended)  # the control: no lock, no serialisation


class _VirtualClock:
    """The hub's clock in :func:`_bot_gaps`: it moves only when a bot thinks and when a bot's turn waits
    out the table's delay, so the gaps it shows are the hub's arithmetic, not the machine's load."""

    def __init__(self, delay: float) -> None:
        self.now = 1000.0
        self.delay = delay
        self.real_sleep = asyncio.sleep

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float, result: Any = None) -> Any:
        if 0 < seconds <= self.delay:  # a bot's wait (the hub's other loops sleep far longer, for real)
            self.now += seconds
            seconds = 0
        return await self.real_sleep(seconds, result)


def _bot_gaps(tmp_path: Path, think: float, delay: float, monkeypatch: pytest.MonkeyPatch) -> tuple[list[float], int]:
    """Seconds (of the hub's clock) between the moves of a whole game of bots (two random bots that think
    ``think`` seconds, a heuristic bot), and how many of them were forced (one legal move: round 9's
    placements at least, R10)."""
    import types

    from catsack.bots import random_bot
    from catsack.server.tables import turns as hub_module  # the bots and timers of the hub

    tmp_path.mkdir(parents=True, exist_ok=True)
    settings = make_settings(tmp_path, bot_delay=delay, bot_delay_jitter=0.0, sweep_seconds=3600)
    clock = _VirtualClock(delay)
    original = random_bot.RandomBot.choose

    def slow(self: Any, view: Any) -> Move:
        clock.now += think  # thinking takes ``think`` seconds of the hub's clock
        return original(self, view)

    with monkeypatch.context() as m:
        m.setattr(hub_module, "time", types.SimpleNamespace(**{**vars(time), "monotonic": clock.monotonic}))
        m.setattr(hub_module, "asyncio", types.SimpleNamespace(**{**vars(asyncio), "sleep": clock.sleep}))
        m.setattr(random_bot.RandomBot, "choose", slow)

        async def scenario() -> tuple[list[float], int]:
            stamps: list[float] = []
            forced = 0
            hub = Hub(settings)
            hub.pace.clock, hub.pace.sleep = clock.monotonic, clock.sleep  # the bots' pace on the hub's clock
            real = hub.commit

            async def stamped(table: Any, seat: int, move: Move, action_id: str | None, actor: str) -> Any:
                nonlocal forced
                forced += len(table.game.legal_moves()) == 1
                stamps.append(clock.now)
                return await real(table, seat, move, action_id, actor)

            hub.commit = stamped  # type: ignore[method-assign]
            await hub.start()
            try:
                table = await hub.create(
                    3,
                    {0: "random", 1: "random", 2: "heuristic"},
                    name="b",
                    money_visible=False,
                    turn_seconds=None,
                    hints=False,
                )
                await await_until(lambda: table.game.is_over, "the bots to finish the game")
            finally:
                await hub.stop()
            return [b - a for a, b in itertools.pairwise(stamps)], forced

        return asyncio.run(scenario())


def test_c10_bot_delay_does_not_depend_on_think_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """How long a bot takes must not tell anything (its thinking depends on its cards).
    A bot that thinks 0.15 s and one that thinks not at all take the same time per move, the table's
    delay, exactly: the hub waits out what is left of it after the bot thought. On the hub's own clock
    (a virtual one here), so the machine's load cannot blur it."""
    delay = 0.3
    quick, forced = _bot_gaps(tmp_path / "quick", 0.0, delay, monkeypatch)
    assert forced >= 3  # forced moves (one legal move) wait the same delay too
    slow, _ = _bot_gaps(tmp_path / "slow", 0.15, delay, monkeypatch)
    assert quick == pytest.approx([delay] * len(quick)) and slow == pytest.approx([delay] * len(slow)), (quick, slow)
    # The control: a random bot thinking longer than the delay shows its think time (nothing to wait out).
    slower, _ = _bot_gaps(tmp_path / "slower", 0.5, delay, monkeypatch)
    assert max(slower) == pytest.approx(0.5) and min(slower) == pytest.approx(delay)


def test_c6_action_after_game_end_refused(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "heuristic", 2: "heuristic"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    final = play_out(cl, random.Random(2))
    ans = cl.move("pass", version=final["version"])
    assert ans["type"] == "error" and ans["code"] == "game_over"


# ---------------------------------------------------------------------- identity and secrecy (7-11)


def test_c7_bad_tokens_get_no_view(server: Callable[..., TestClient]) -> None:
    c = server()
    t1 = new_table(c, 3)
    t2 = new_table(c, 3, {1: "random", 2: "random"})
    _, tok1 = join(c, t1)
    _, tok2 = join(c, t2)
    for table, token in [(t1, "wrong"), (t1, tok2), (t2, tok1), (t1, ""), ("nosuch", tok1)]:
        ws = connect(c, table, token)
        f = ws.receive_json()
        assert f["type"] == "error" and f["code"] in ("unauthorized", "unknown_table"), f
        ws.send_text(json.dumps({"type": "move", "action_id": "a", "version": 0, "move": "pass"}))
        f2 = ws.receive_json()
        assert f2["type"] == "error" and f2["code"] == "bad_hello"
        ws.__exit__(None, None, None)
    # a spectator cannot act
    spec = open_client(c, t2, None)
    spec.state_where(lambda f: True)
    assert spec.move("pass")["code"] == "unauthorized"
    assert spec.state is not None and spec.state["view"]["hand"] == []


def test_c8_c16_grace_period_bot_takes_seat_old_token_stops(server: Callable[..., TestClient]) -> None:
    c = server(grace_seconds=1.0)
    t = new_table(c, 4, {1: "random", 2: "random"})
    _, tok_a = join(c, t, "Ann")
    a = open_client(c, t, tok_a)  # connected at once: Ann's grace period never runs out
    _, tok_b = join(c, t, "Bea")
    b = open_client(c, t, tok_b)
    a.current()
    b.ws.__exit__(None, None, None)  # Bea leaves
    a.until(lambda f: f["type"] == "players" and f["players"][3]["kind"] == "bot", limit=5000)
    ws = connect(c, t, tok_b)
    f = ws.receive_json()
    assert f["type"] == "error" and f["code"] == "replaced"
    assert "bot" in f["message"] and "no longer works" in f["message"]
    ws.__exit__(None, None, None)
    r = c.get(f"/api/tables/{t}/record/3", headers={"Authorization": f"Bearer {tok_b}"})
    assert r.status_code == 403
    # the game goes on: Ann can finish it with bots in every other seat
    final = play_out(a, random.Random(3))
    assert final["view"]["phase"] == "over"


def _redealt_replay(game: Game, receiver: int | None, seed: int) -> Game:
    g = game.clone()
    g.redeal(receiver, random.Random(seed))
    fresh = Game(g.setup, events=True)
    for m in g.moves:
        fresh.play(m)
    return fresh


@pytest.mark.slow
def test_c9_every_frame_unchanged_when_hidden_cards_redealt(server: Callable[..., TestClient]) -> None:
    """Each seat sees only its view (R23), mechanically: every state frame a receiver got equals the frame built from a
    game where everything hidden from that receiver was re-dealt (R23)."""
    c = server(rate_per_second=1e6, rate_burst=10**6)
    hub = hub_of(c)
    hub.record_frames = True
    rng = random.Random(9)
    for seats in (3, 4, 5, 3, 4, 5):
        t = new_table(c, seats, {i: "random" for i in range(2, seats)}, money_visible=seats == 5)
        toks = [join(c, t, f"P{i}")[1] for i in range(2)]
        cls = [open_client(c, t, tok) for tok in toks]
        spectator = open_client(c, t, None)
        # seat 0 plays from its socket; seat 1 too, alternately reading both sockets. The HTTP snapshot
        # of each seat (GET /state with its token) and of a spectator is taken along the way.
        http_frames: list[tuple[int | None, dict[str, Any]]] = []
        done = False
        while not done:
            for idx, cl in enumerate(cls):
                cl.ping()
                st = cl.state
                assert st is not None
                r = c.get(f"/api/tables/{t}/state", headers={"authorization": f"Bearer {toks[idx]}"})
                http_frames.append((idx, r.json()))
                if st["view"]["phase"] == "over":
                    done = True
                    break
                if st["view"]["to_move"] == st["view"]["seat"]:
                    cl.move(choose(st["view"], rng), version=st["version"])
            http_frames.append((None, c.get(f"/api/tables/{t}/state").json()))
        spectator.ping()
        table = hub.tables[t]
        full = table.game
        for seat, frame in http_frames:  # HTTP snapshots: the same re-deal check (R23)
            v = frame["version"]
            at_v = Game(full.setup, events=True)
            for m in full.moves[:v]:
                at_v.play(m)
            for k in range(2):
                other = _redealt_replay(at_v, seat, seed=v * 11 + k)
                rebuilt = state_frame(
                    other,
                    seat,
                    None,
                    names=table.names(),
                    players=frame["players"],
                    money_visible=bool(table.options.get("money_visible")),
                    deadline=None,
                )
                assert rebuilt == frame, ("http", seats, seat, v)
        for idx, tok in enumerate(toks):  # a seat's redacted record (GET /record/{seat}) hides what R23 hides
            got = c.get(f"/api/tables/{t}/record/{idx}", headers={"authorization": f"Bearer {tok}"}).json()
            assert got["agents"] == ["human" if k is None else k for k in table.kinds]  # public: the lobby shows them
            got = {k: v for k, v in got.items() if k not in ("table", "event", "date", "agents")}
            assert got != record_from_game(full, table.names()).to_dict()
            for k in range(3):
                other = _redealt_replay(full, idx, seed=1000 + k)
                assert redact(other, idx, table.names()).to_dict() == got, ("record", seats, idx)
        conns = {id(x): x for x in table.conns}
        assert len(conns) == 3
        checked = 0
        for conn in table.conns:
            for text in conn.sent:
                frame = json.loads(text)
                if frame["type"] != "state":
                    assert "view" not in frame and "hand" not in text
                    continue
                v = frame["version"]
                since = frame["events"][0]["version"] - 1 if frame["events"] else v
                at_v = Game(full.setup, events=True)
                for m in full.moves[:v]:
                    at_v.play(m)
                for k in range(2):
                    other = _redealt_replay(at_v, conn.seat, seed=v * 7 + k)
                    rebuilt = state_frame(
                        other,
                        conn.seat,
                        since,
                        names=table.names(),
                        players=frame["players"],
                        money_visible=bool(table.options.get("money_visible")),
                        deadline=None,
                    )
                    assert rebuilt == frame, (seats, conn.seat, v)
                checked += 1
        assert checked > 20
        for cl in [*cls, spectator]:
            cl.ws.__exit__(None, None, None)


def test_c9_frames_carry_no_setup_or_seed(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    text = json.dumps(st) + json.dumps(c.get(f"/api/tables/{t}").json()) + json.dumps(c.get("/api/tables").json())
    for word in ("seed", "dummy", "setup", "token"):
        assert word not in text
    view = st["view"]
    assert view["removed"] is not None  # own removed card: known to the seat
    assert all(set(r) == {"owner", "card", "face_up"} for r in view["row"])  # no card ids


def test_c11_bots_receive_exactly_their_own_view(server: Callable[..., TestClient], monkeypatch: Any) -> None:
    from catsack.bots import random_bot

    seen: list[tuple[int, Any]] = []
    original = random_bot.RandomBot.choose

    def spy(self: Any, view: Any) -> Move:
        seen.append((self.seat_for_test, view))
        return original(self, view)

    def reset(self: Any, seat: int, seats: int) -> None:
        self.seat_for_test = seat

    met: list[list[str | None]] = []
    monkeypatch.setattr(random_bot.RandomBot, "choose", spy)
    monkeypatch.setattr(random_bot.RandomBot, "reset", reset)
    monkeypatch.setattr(random_bot.RandomBot, "meet", lambda self, players: met.append(list(players)))
    c = server()
    t = new_table(c, 4, {i: "random" for i in range(4)})
    hub = hub_of(c)
    wait_until(lambda: hub.tables[t].game.is_over, "the bots to finish the game")
    game = hub.tables[t].game
    assert game.is_over and len(seen) == len(game.moves)
    replay = Game(game.setup)
    for (seat, view), m in zip(seen, game.moves, strict=True):
        assert view.seat == seat == replay.to_move
        assert view == replay.view(seat)
        replay.play(m)
    assert met == [["random"] * 4] * 4  # each bot met the table as the lobby shows it (Bot.meet)


# ---------------------------------------------------------------------- input (12-14)


@pytest.mark.parametrize(
    "frame",
    [
        "not json",
        "null",
        "[]",
        "[1, 2]",
        "42",
        '"move"',
        "{}",
        '{"type": null}',
        '{"type": "dance"}',
        '{"type": ["move"]}',
        '{"type": "move"}',
        '{"type": "move", "action_id": 5, "version": 0, "move": "pass"}',
        '{"type": "move", "action_id": "", "version": 0, "move": "pass"}',
        '{"type": "move", "action_id": "a", "version": "0", "move": "pass"}',
        '{"type": "move", "action_id": "a", "version": 1e400, "move": "pass"}',
        '{"type": "move", "action_id": "a", "version": 123456789012345678901234567890, "move": "pass"}',
        '{"type": "move", "action_id": "a", "version": -1, "move": "pass"}',
        '{"type": "move", "action_id": "a", "version": 0, "move": 7}',
        '{"type": "move", "action_id": "a", "version": 0, "move": "bid 99999999999999999999"}',
        '{"type": "move", "action_id": "a", "version": 0, "move": "place +16"}',
        '{"type": "resync", "since": "x"}',
        '{"type": "resync", "since": 1e999}',
        '{"type": "hello", "protocol": "catsack-ws/1"}',
        '{"type": "hint"}',
        b"\xff\xfe not utf-8",
    ],
)
@pytest.mark.slow
def test_c12_malformed_frames_structured_error_connection_stays(
    server: Callable[..., TestClient], frame: str | bytes
) -> None:
    c = server()
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    cl.my_turn()
    before = len(cl.frames)
    if isinstance(frame, bytes):
        cl.ws.send_bytes(frame)
    else:
        cl.send(frame)
    cl.ping()  # the connection is still open and answering
    replies = [f for f in cl.frames[before:] if f["type"] == "error"]
    assert replies, frame
    for f in replies:
        assert f["code"] in ("bad_frame", "illegal", "stale", "hints_off", "not_your_turn"), f
        assert f["message"] and "Traceback" not in f["message"] and "internal" not in f["message"].lower()


def test_c13_oversized_frame_closes_with_1009(server: Callable[..., TestClient]) -> None:
    c = server(max_frame_bytes=1024)
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    cl.my_turn()
    cl.send('{"type": "ping", "pad": "' + "x" * 5000 + '"}')
    with pytest.raises(WebSocketDisconnect) as info:
        for _ in range(100):
            cl.recv()
    assert info.value.code == 1009


def test_c14_flooding_is_dropped_then_closed(server: Callable[..., TestClient]) -> None:
    c = server(rate_per_second=5.0, rate_burst=5, rate_close_after=30)
    t = new_table(c, 3, {1: "random", 2: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    for _ in range(60):
        cl.send({"type": "ping"})
    kinds: list[str] = []
    with pytest.raises(WebSocketDisconnect) as info:
        for _ in range(200):
            kinds.append(cl.recv()["type"])
    assert info.value.code == 1008
    assert kinds.count("pong") <= 10 and "error" in kinds


def test_c14_connection_cap_per_address(server: Callable[..., TestClient]) -> None:
    c = server(max_connections_per_address=2)
    t = new_table(c, 3, {1: "random", 2: "random"})
    a, b = open_client(c, t, None), open_client(c, t, None)
    ws = c.websocket_connect("/ws").__enter__()
    _SOCKETS.setdefault(id(c), []).append(ws)
    f = ws.receive_json()
    assert f["code"] == "busy"
    with pytest.raises(WebSocketDisconnect) as info:
        ws.receive_json()
    assert info.value.code == 1013
    a.ws.__exit__(None, None, None)
    b.ws.__exit__(None, None, None)


# ---------------------------------------------------------------------- connections (15, 18, 19)


def test_c15_reconnect_mid_auction_gets_exactly_what_it_missed(server: Callable[..., TestClient]) -> None:
    c = server(bot_delay=0.01)
    t = new_table(c, 4, {1: "heuristic", 2: "heuristic", 3: "heuristic"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    rng = random.Random(15)
    while True:  # into the first auction
        st = cl.my_turn()
        if st["view"]["phase"] == "bidding":
            break
        cl.move(choose(st["view"], rng), version=st["version"])
    seen = st["version"]
    history = st["view"]["history"]
    legal = st["view"]["legal"]
    bid = next((m for m in legal if m.startswith("bid")), "pass")
    assert cl.move(bid, version=seen)["type"] == "ack"
    cl.ws.__exit__(None, None, None)  # the connection drops right after the ack
    hub = hub_of(c)
    wait_until(lambda: hub.tables[t].version > seen + 1, "the bots to move on meanwhile")
    cl2 = open_client(c, t, tok, since=seen)
    st2 = cl2.state_where(lambda f: True)
    assert st2["version"] >= seen + 1
    assert st2["view"]["history"][: len(history)] == history
    assert st2["view"]["history"][len(history)] == [0, bid]
    versions = [e["version"] for e in st2["events"]]
    assert versions == sorted(versions) and set(versions) == set(range(seen + 1, st2["version"] + 1))


def test_c18_turn_timer_plays_for_absent_seat_and_survives_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)

    async def scenario() -> None:
        hub = Hub(settings)
        await hub.start()
        table = await hub.create(
            3, {1: "random", 2: "random"}, name="t", money_visible=False, turn_seconds=1, hints=False
        )
        await hub.join(table, "Ann", 0)
        await await_until(lambda: table.game.to_move == 0, "the bots to reach Ann's turn")
        v = table.version
        stored = hub.store.table(table.id)
        assert stored is not None and stored.deadline is not None and stored.deadline > time.time()
        await hub.stop()  # "crash": the deadline lives in the database only
        hub2 = Hub(settings)
        await hub2.start()
        t2 = hub2.tables[table.id]
        assert t2.row.deadline == stored.deadline
        await await_until(lambda: t2.version > v, "the turn timer to move for the absent seat")
        assert t2.game.seat_of(v) == 0  # a bot moved for the absent seat
        loaded = hub2.store.load(table.id)
        assert loaded is not None and loaded[2][v].actor == "timer"
        await hub2.stop()

    asyncio.run(scenario())


@pytest.mark.slow
def test_c19_abandoned_tables_evicted_memory_back_to_baseline(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, evict_open_seconds=0.0, evict_idle_seconds=0.0, evict_finished_seconds=0.0, sweep_seconds=3600
    )

    async def cycle(hub: Hub, n: int) -> None:
        for i in range(n):
            table = await hub.create(
                4, {1: "random"}, name=f"t{i}", money_visible=False, turn_seconds=None, hints=False
            )
            if i % 2:
                await hub.join(table, "Ann", 0)
        await hub.sweep(now=time.monotonic() + 1.0)

    async def scenario() -> tuple[int, int, int]:
        hub = Hub(settings)
        await hub.start()
        await cycle(hub, 20)  # warm caches
        assert not hub.tables
        tracemalloc.start()
        gc.collect()  # what is retained, not garbage that a collection would free anyway
        base = tracemalloc.get_traced_memory()[0]
        await cycle(hub, 100)
        held = len(hub.tables)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        await hub.stop()
        return held, base, after

    held, base, after = asyncio.run(scenario())
    assert held == 0
    assert after - base < 200_000, f"{after - base} bytes still held after 100 create/abandon cycles"
    store = Store(settings.database_url)
    assert not store.list_tables("open")  # never-filled tables are marked abandoned, not listed
    store.close()


def test_restart_resumes_unfinished_tables_exactly(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    setup = Setup.deal(4, 77)

    async def scenario() -> None:
        hub = Hub(settings)
        await hub.start()
        table = await hub.create(
            4,
            {1: "random", 2: "random", 3: "random"},
            name="r",
            money_visible=False,
            turn_seconds=None,
            hints=False,
            setup=setup,
        )
        await hub.join(table, "Ann", 0)
        await await_until(lambda: table.game.to_move == 0, "the bots to reach Ann's turn")
        moves = list(table.game.moves)
        await hub.stop()
        hub2 = Hub(settings)
        await hub2.start()
        t2 = hub2.tables[table.id]
        assert list(t2.game.moves) == moves and t2.game.setup == setup
        await hub2.stop()

    asyncio.run(scenario())


def test_hints_when_allowed(server: Callable[..., TestClient]) -> None:
    c = server()
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"}, hints=True)
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    st = cl.my_turn()
    cl.send({"type": "hint"})
    h = cl.until(lambda f: f["type"] in ("hint", "error"), limit=100)
    assert h["type"] == "hint", h
    assert h["best"] in st["view"]["legal"] and set(h["values"]) <= set(st["view"]["legal"])
    assert len(h["beliefs"]) == len(st["view"]["row"])
    # Each value's noise, the moves as good as the best within it, the reason in every language.
    assert set(h["noise"]) == set(h["values"]) and h["equal"][0] == h["best"]
    assert h["values"][h["best"]] == max(h["values"].values())
    assert set(h["sentences"]) == set(LANGUAGES) and len(h["sentences"]["en"]) == len(h["explain"])
    t2 = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok2 = join(c, t2)
    cl2 = open_client(c, t2, tok2)
    cl2.my_turn()
    cl2.send({"type": "hint"})
    assert cl2.until(lambda f: f["type"] == "error")["code"] == "hints_off"


# ---------------------------------------------------------------------- the store on SQLite and PostgreSQL


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_store_one_append_per_version_and_one_claim_per_seat(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    from catsack.server.storage.store import AppendConflict, SeatRow

    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / 's.db'}"
    else:  # a schema of its own: the shared database's public schema may hold another version's tables
        url = request.getfixturevalue("db_schema_url")
    store = Store(url)
    tid = "t" + str(random.randrange(10**12))
    seats = [SeatRow(i, "open", None, None, None, False) for i in range(3)]
    store.create_table(tid, "x", seats, {"hints": False}, {"start": 0, "removed": [], "dummy": []}, "open")
    assert store.claim_seat(tid, 1, "Ann", "h1")
    assert not store.claim_seat(tid, 1, "Bea", "h2")  # taken
    store.append(tid, 1, 0, "place +15", "a1", "human", status="playing", deadline=None)
    with pytest.raises(AppendConflict):
        store.append(tid, 1, 0, "place +11", "a2", "human", status="playing", deadline=None)
    with pytest.raises(AppendConflict):
        store.append(tid, 3, 0, "place +11", "a2", "human", status="playing", deadline=None)
    store.append(tid, 2, 1, "place R", None, "bot", status="playing", deadline=123.0)
    loaded = store.load(tid)
    assert loaded is not None
    row, seat_rows, actions = loaded
    assert row.version == 2 and row.deadline == 123.0
    assert [(a.version, a.move, a.action_id) for a in actions] == [(1, "place +15", "a1"), (2, "place R", None)]
    assert seat_rows[1].name == "Ann" and seat_rows[1].kind == "human"
    assert store.replace_with_bot(tid, 1, "heuristic")
    assert store.seats(tid)[1].replaced
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_store_writes_a_persons_move_only_while_the_token_holds_the_seat(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A new seat link ends the old one across processes: a person's move carries its token's hash and
    is written only while that token still holds the seat, in the same statement; a seat another
    process gave to a bot, or to a new token, refuses it however current the version. Bots' moves carry no token."""
    from catsack.server.people.accounts import change_seat_token
    from catsack.server.storage.store import Append, AppendConflict, SeatRow

    url = f"sqlite:///{tmp_path / 's.db'}" if backend == "sqlite" else request.getfixturevalue("db_schema_url")
    store = Store(url)
    tid = "k" + str(random.randrange(10**12))
    seats = [SeatRow(i, "open", None, None, None, False) for i in range(3)]
    store.create_table(tid, "x", seats, {}, {"start": 0, "removed": [], "dummy": []}, "open")
    for i, who in enumerate(("Ann", "Bea", "Cal")):
        assert store.claim_seat(tid, i, who, f"h{i}")
    store.append(tid, 1, 0, "place +15", "a1", "human", status="playing", deadline=None, token_hash="h0")
    with pytest.raises(AppendConflict, match="no longer this token's"):  # someone else's token
        store.append(tid, 2, 1, "place +11", "b1", "human", status="playing", deadline=None, token_hash="h0")
    assert change_seat_token(store.engine, tid, 1, "h1-new")  # Bea took her seat over elsewhere
    with pytest.raises(AppendConflict, match="seat 1 is no longer this token's"):
        store.append(tid, 2, 1, "place +11", "b1", "human", status="playing", deadline=None, token_hash="h1")
    store.append(tid, 2, 1, "place +11", "b2", "human", status="playing", deadline=None, token_hash="h1-new")
    assert store.replace_with_bot(tid, 2, "heuristic")  # Cal's seat went to a bot elsewhere
    late = Append(tid, 3, 2, "place -8", "c1", "human", "playing", None, 0, token_hash="h2")
    other = Append(tid, 3, 0, "place +15", "a2", "human", "playing", None, 1, token_hash="h0")
    [refused] = store.append_batch([late])
    assert isinstance(refused, AppendConflict)
    store.append(tid, 3, 2, "place -8", None, "bot", status="playing", deadline=None)  # the bot's move
    assert isinstance(store.append_batch([other])[0], AppendConflict)  # stale version, right token
    loaded = store.load(tid)
    assert loaded is not None
    assert [(a.version, a.seat, a.action_id, a.actor) for a in loaded[2]] == [
        (1, 0, "a1", "human"),
        (2, 1, "b2", "human"),
        (3, 2, None, "bot"),
    ]
    store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_store_group_commit_refuses_only_the_stale_move(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A batch of moves is written with one statement per kind of row; a table that is no longer at
    the version its move expects refuses that move alone, and the batch's other moves are kept."""
    from catsack.server.storage.store import Append, AppendConflict, SeatRow

    url = f"sqlite:///{tmp_path / 's.db'}" if backend == "sqlite" else request.getfixturevalue("db_schema_url")
    store = Store(url)
    ids = [f"b{random.randrange(10**12)}{i}" for i in range(3)]
    for tid in ids:
        seats = [SeatRow(i, "open", None, None, None, False) for i in range(3)]
        store.create_table(tid, "x", seats, {}, {"start": 0, "removed": [], "dummy": []}, "playing")

    def move(tid: str, version: int, text: str) -> Append:
        return Append(tid, version, 0, text, None, "human", "playing", None, 1)

    assert store.append_batch([move(t, 1, "place +15") for t in ids]) == [None, None, None]
    results = store.append_batch([move(ids[0], 2, "pass"), move(ids[1], 5, "pass"), move(ids[2], 2, "pass")])
    assert results[0] is None and isinstance(results[1], AppendConflict) and results[2] is None
    # Two moves of one table in one batch: applied in order.
    assert store.append_batch([move(ids[1], 2, "pass"), move(ids[1], 3, "bid 1")]) == [None, None]
    versions = {t: [a.version for a in store.load(t)[2]] for t in ids}  # type: ignore[index]
    assert versions == {ids[0]: [1, 2], ids[1]: [1, 2, 3], ids[2]: [1, 2]}
    store.close()


#: Inputs the attack run found or that broke servers elsewhere: deep nesting (4 KB, under the frame
#: limit), NUL, lone surrogates raw and escaped, control characters, huge numbers.
NASTY_TEXT = ["a\x00b", "\x00", "\ud800", "x\udfffy", "\x1b[2J", "\u202e", "\ufeff", "%00", "9" * 400]
NASTY_FRAMES = [
    "[" * 2000 + "]" * 2000,
    "{" * 2000,
    '{"a":' * 600 + "1" + "}" * 600,
    '"\\ud800"',
    '{"type": "move", "action_id": "\\u0000", "version": 0, "move": "pass"}',
    '{"type": "move", "action_id": "a", "version": 0, "move": "pa\\u0000ss"}',
    '{"type": "hello", "protocol": "catsack-ws/1", "table": "a\\u0000b"}',
    '{"type": "ping", "x": "\\udfff"}',
    '{"type": "resync", "since": ' + "9" * 500 + "}",
    "\ud800",
    "\x00" * 100,
    "null",
    "1e999",
    '{"seats": 3, "name": "\\u0000"}',
    '{"seats": 3, "player": "\\ud83d"}',
]


@pytest.mark.slow
def test_c12_fuzzed_frames_never_an_internal_error(server: Callable[..., TestClient]) -> None:
    """Hypothesis throws arbitrary JSON values and near-valid move frames at one open connection:
    every answer is a structured error (or a legitimate ack/pong), and the connection stays open."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    c = server(rate_per_second=1e6, rate_burst=10**6)
    t = new_table(c, 4, {1: "random", 2: "random", 3: "random"})
    _, tok = join(c, t)
    cl = open_client(c, t, tok)
    cl.my_turn()
    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )
    kinds = st.sampled_from(["move", "resync", "ping", "hint", "hello", "nope", "", *NASTY_TEXT]) | values
    frames = (
        st.fixed_dictionaries(
            {"type": kinds},
            optional={
                "action_id": values,
                "version": values,
                "move": st.sampled_from(["pass", "bid 3", "place +15"]) | values,
                "since": values,
            },
        )
        | values
    )
    sent = 0

    raw = st.sampled_from(NASTY_FRAMES) | st.text(max_size=60) | st.text(st.characters(codec="utf-8"), max_size=30)
    errors = 0

    @settings(max_examples=300, deadline=None)
    @given(frames.map(json.dumps) | raw)
    def check(text: str) -> None:
        nonlocal sent, errors
        if len(text.encode("utf-8", "surrogatepass")) > 4000:
            return
        before = len(cl.frames)
        cl.send(text)
        sent += 1
        cl.ping()  # the connection is open and answers after every frame
        for f in cl.frames[before:]:
            assert f["type"] in ("error", "ack", "pong", "state", "players", "chat", "notice"), f
            if f["type"] == "error":
                errors += 1
                assert f["code"] not in ("internal", "unavailable") and isinstance(f["message"], str) and f["message"]

    check()
    assert sent >= 250 and errors >= 100


@pytest.mark.slow
def test_http_fuzzed_bodies_never_500(server: Callable[..., TestClient]) -> None:
    """Arbitrary JSON bodies and path segments on every endpoint: 2xx or a 4xx with a reason, never 5xx."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    c = server(http_rate_per_second=1e6, http_rate_burst=10**6)  # the routes, not the rate limit, are fuzzed
    t = new_table(c, 5, {1: "random"})
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20)
        | st.sampled_from(NASTY_TEXT)
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
        max_leaves=10,
    )
    create = st.fixed_dictionaries(
        {},
        optional={
            "seats": values | st.integers(0, 7),
            "bots": values | st.dictionaries(st.sampled_from(["0", "1", "4", "x"]), st.sampled_from(["random", "x"])),
            "money_visible": values,
            "turn_seconds": values,
            "hints": values,
            "name": values,
        },
    )
    sent = 0

    segments = st.text(max_size=40) | st.sampled_from(NASTY_TEXT)
    tails = st.sampled_from(["", "/join", "/state", "/record", "/record/0"])

    @settings(max_examples=150, deadline=None)
    @given(create | values, segments, values, st.sampled_from(NASTY_FRAMES), tails)
    def check(body: Any, segment: str, join_body: Any, raw: str, tail: str) -> None:
        nonlocal sent
        quoted = urllib.parse.quote(segment.encode("utf-8", "surrogatepass"), safe="")
        # json.dumps writes Infinity/NaN literals and escapes surrogates: invalid JSON the server must refuse cleanly
        for method, path, text in (
            ("post", "/api/tables", json.dumps(body)),
            ("post", f"/api/tables/{t}/join", json.dumps(join_body)),
            ("get", f"/api/tables/{quoted}{tail}", None),
            ("post", f"/api/tables/{quoted}/join", json.dumps({"name": segment})),
            ("post", "/api/tables", raw),
        ):
            if text is None:
                r = c.request(method, path)
            else:
                content = text.encode("utf-8", "surrogatepass")
                r = c.request(method, path, content=content, headers={"content-type": "application/json"})
            sent += 1
            assert r.status_code < 500, (path, text, r.text)
            if r.status_code >= 400:
                assert r.json()["detail"]

    check()
    assert sent >= 700
