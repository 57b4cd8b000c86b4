"""A duplicate tournament round's embargo: while the round's deal is still played at one table, nothing
shows another table's game but each player's own seat (docs/tournaments.md). Every route and writer that
serialises a game asks one check (:mod:`catsack.server.people.gameaccess`); the walk below goes over every route
of the app's OpenAPI schema and every other route it has, so a new route cannot forget the check."""

from __future__ import annotations

import gzip
import io
import json
import time
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient

from catsack.record import dumps_record, record_from_game
from test_social import account, hello, play_out, until
from web_clients import ORIGIN, browser


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout  # bounds a failure only: the loop waits for the condition
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@dataclass
class Round:
    """Round 1 of a 3-seat duplicate tournament of four accounts: one table over, the other still played."""

    c: TestClient
    tid: str
    done: str  # the finished table
    playing: str  # the table of the same deal still being played
    people: dict[str, TestClient]
    seats: dict[str, tuple[str, int, str]]  # name -> (table, seat, token) of those who took their seat
    at_done: list[str]  # who sat at the finished table
    at_playing: list[str]

    @property
    def hub(self) -> Any:
        return self.c.app.state.hub  # type: ignore[attr-defined]

    def record(self, table: str) -> dict[str, Any]:
        """The table's full catsack/1 record, read from the database (what nobody may read yet)."""
        from catsack.game import Game
        from catsack.server.tables.live import seat_names, setup_from_json

        row, seats, actions = self.hub.store.load(table)
        game = Game(setup_from_json(row.seats, row.setup))
        for a in actions:
            game.play(a.move)
        return dict(json.loads(dumps_record(record_from_game(game, seat_names(seats)))))


def embargoed_round(c: TestClient) -> Round:
    """The reported scenario: four accounts in a 3-seat duplicate tournament of 2 rounds; the people at
    one table of round 1 play it to the end while the other table waits for its people."""
    names = ("Ann", "Ben", "Cid", "Dan")
    people = {n: account(c, n) for n in names}
    body = {"name": "Dup", "seats": 3, "rounds": 2, "duplicate": True, "turn_seconds": 600, "filler": "random"}
    t = people["Ann"].post("/api/tournaments", json=body, headers=ORIGIN).json()
    for n in names[1:]:
        assert people[n].post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
    assert people["Ann"].post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    info = wait_for("round 1", lambda: (d := c.get(f"/api/tournaments/{t['id']}").json())["round"] == 1 and d)
    tables = info["tables"]
    assert len(tables) == 2
    done, playing = tables[0]["game"], tables[1]["game"]
    at = {tb["game"]: [p["name"] for p in tb["players"] if p["kind"] == "human"] for tb in tables}
    seats: dict[str, tuple[str, int, str]] = {}
    for n in at[done]:
        r = people[n].post(f"/api/tables/{done}/takeover", headers=ORIGIN)
        assert r.status_code == 200, r.text
        seats[n] = (done, r.json()["seat"], r.json()["token"])
    with ThreadPoolExecutor(len(at[done])) as pool:
        for f in [pool.submit(play_out, people[n], *seats[n]) for n in at[done]]:
            f.result()
    hub = c.app.state.hub  # type: ignore[attr-defined]
    wait_for("the first table over", lambda: hub.store.table(done).status == "over")
    for n in at[playing]:  # they take their seats but do not move
        r = people[n].post(f"/api/tables/{playing}/takeover", headers=ORIGIN)
        assert r.status_code == 200, r.text
        seats[n] = (playing, r.json()["seat"], r.json()["token"])
    assert hub.store.table(playing).status == "playing"
    return Round(c, t["id"], done, playing, people, seats, at[done], at[playing])


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TestClient]:
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/app.db", bot_delay=0.0, sweep_seconds=0.1, grace_seconds=3600.0
    )
    with TestClient(create_app(settings)) as c:
        yield c


def zipped_records(body: bytes) -> dict[str, dict[str, Any]]:
    with zipfile.ZipFile(io.BytesIO(body)) as zf:
        return {n: json.loads(zf.read(n)) for n in zf.namelist()}


@pytest.mark.slow
def test_export_holds_no_embargoed_record(app: TestClient) -> None:
    """A player whose table is over exports their games while the round's other table is still played:
    the zip holds their own seat's record only (other seats' removed cards are null); once the round is
    scored, the whole record."""
    rnd = embargoed_round(app)
    who = rnd.at_done[0]
    table, seat, _token = rnd.seats[who]
    r = rnd.people[who].get("/api/account/games.zip")
    assert r.status_code == 200
    records = zipped_records(r.content)
    full = rnd.record(table)
    assert [r for r in records.values() if r.get("table") == table and r.get("removed") == full["removed"]] == []
    mine = [rec for rec in records.values() if rec.get("table") == table]
    assert len(mine) == 1 and mine[0]["redacted_for"] == seat
    assert [x for i, x in enumerate(mine[0]["removed"]) if i != seat] == [None, None]
    # The other table is played to the end: the round is scored, the embargo lifts.
    with ThreadPoolExecutor(len(rnd.at_playing)) as pool:
        for f in [pool.submit(play_out, rnd.people[n], *rnd.seats[n]) for n in rnd.at_playing]:
            f.result()
    wait_for("round 2", lambda: app.get(f"/api/tournaments/{rnd.tid}").json()["round"] == 2)
    after = zipped_records(rnd.people[who].get("/api/account/games.zip").content)
    assert [rec["removed"] for rec in after.values() if rec.get("table") == table] == [full["removed"]]


# ---------------------------------------------------------------------- every route, during the embargo

#: Routes of the OpenAPI schema that cannot serialise a table's game, with the reason. Every GET route
#: not listed here is walked; a POST, PUT or DELETE route must be listed here or in WALKED, so that a new
#: route of the app fails this test until somebody decides which it is.
NO_GAME: dict[tuple[str, str], str] = {
    ("GET", "/api/mygames/events"): "a stream of bare 'changed' events (no data): ask /api/mygames again",
    ("POST", "/api/tables"): "makes a new table with a fresh deal",
    ("POST", "/api/tables/{table_id}/join"): "answers a seat and its token (every seat of a round's table is taken)",
    ("POST", "/api/learn"): "makes a learning table with its own deal",
    ("POST", "/api/account/register"): "account",
    ("POST", "/api/account/login"): "account",
    ("POST", "/api/account/logout"): "account",
    ("DELETE", "/api/account"): "account",
    ("POST", "/api/account/password"): "account",
    ("POST", "/api/account/claim"): "answers the seats claimed (table id and seat number)",
    ("POST", "/api/quickplay"): "makes or joins a table with its own deal",
    ("POST", "/api/tables/{table_id}/takeover"): "answers the account's own seat and a new token for it",
    ("POST", "/api/tables/{table_id}/seats/{seat}/bot"): "the host hands a seat to a bot (no game in the answer)",
    ("POST", "/api/tables/{table_id}/bots"): "the host fills open seats with bots (no game in the answer)",
    ("POST", "/api/replay"): "replays the record that the client itself sends",
    ("POST", "/api/tables/{table_id}/rematch"): "makes a rematch table with a fresh deal; answers its id and seat",
    ("POST", "/api/friends/follow"): "friends",
    ("POST", "/api/friends/unfollow"): "friends",
    ("POST", "/api/friends/block"): "friends",
    ("POST", "/api/friends/unblock"): "friends",
    ("POST", "/api/challenges"): "makes a challenge (a new table with its own deal once accepted)",
    ("POST", "/api/challenges/{challenge_id}/accept"): "challenges",
    ("POST", "/api/challenges/{challenge_id}/decline"): "challenges",
    ("POST", "/api/challenges/{challenge_id}/cancel"): "challenges",
    ("POST", "/api/mail/address"): "mail settings",
    ("DELETE", "/api/mail/address"): "mail settings",
    ("POST", "/api/mail/prefs"): "mail settings",
    ("POST", "/api/account/reset"): "password reset",
    ("POST", "/api/account/reset/confirm"): "password reset",
    ("POST", "/api/tournaments"): "makes a tournament",
    ("POST", "/api/tournaments/{tid}/enter"): "tournament entry",
    ("POST", "/api/tournaments/{tid}/leave"): "tournament entry",
    ("POST", "/api/tournaments/{tid}/start"): "tournament start",
    ("POST", "/api/admin/games/{table_id}/revert"): "the operator's rating revert (answers rating changes)",
    ("POST", "/api/push/subscribe"): "push settings (answers the account's devices and kinds of push)",
    ("POST", "/api/push/unsubscribe"): "push settings (answers the account's devices and kinds of push)",
    ("DELETE", "/api/push/devices/{device_id}"): "push settings (answers the account's devices and kinds of push)",
    ("POST", "/api/push/prefs"): "push settings (answers the account's devices and kinds of push)",
    ("POST", "/api/push/test"): "queues a test push (a fixed text, no game) and answers the push settings",
    ("POST", "/api/vacation/start"): "vacation (answers the account's allowance and vacations; no game)",
    ("POST", "/api/vacation/end"): "vacation (answers the account's allowance and vacations; no game)",
    ("POST", "/api/account/bots"): "makes a bot account (answers its name, dates and token)",
    ("DELETE", "/api/account/bots/{name}"): "revokes a bot account's token (answers its name and dates)",
    ("POST", "/api/bots/challenges"): "makes a bot arena table with its own deal; answers its id, seat and token",
}

#: Non-GET routes that may answer with a game: walked with these bodies.
WALKED: dict[tuple[str, str], Callable[[int], dict[str, Any]]] = {
    ("POST", "/api/tables/{table_id}/analysis"): lambda seat: {"seat": seat},
    ("POST", "/api/training/{position_id}/answer"): lambda seat: {"move": "pass"},
}

#: Routes outside the OpenAPI schema: the pages (static HTML, the same for every game) and the mail links.
NOT_IN_SCHEMA = {
    "/",
    "/t/{table_id}",
    "/rules",
    "/rules/{lang}",
    "/replay",
    "/replay/{table_id}",
    "/u/{name}",
    "/leaderboard",
    "/account",
    "/games",
    "/friends",
    "/training",
    "/learn",
    "/reset",
    "/tournaments",
    "/tournaments/{tid}",
    "/admin/fairplay",
    "/database",
    "/database/explorer",
    "/mail/verify",
    "/mail/unsubscribe",
    "/manifest.webmanifest",
    "/sw.js",
    "/metrics",
    "/docs",
    "/docs/oauth2-redirect",
    "/redoc",
    "/openapi.json",
    "/offline",
    "/i18n/languages.json",
    "/rules/img/{lang}/{name}",
}

#: WebSockets outside ``/ws`` (whose every table the walk asks), with the reason and the walk they get.
OTHER_SOCKETS = {
    "/api/bot/ws": "a bot account's socket: sent its own seats' state frames only, at tables a challenge made "
    "for it (a fresh deal); the walk asks it as a bot of a round's player, seated nowhere",
}

#: Keys that carry a game's content: an outsider's answer holds none of them beside an embargoed table's id.
GAME_KEYS = {"score", "scores", "margin", "moves", "frames", "view", "removed", "dummy", "events", "won", "version"}


@dataclass
class Reader:
    """One who asks: a browser (its cookies), the seat token it holds, and at which table."""

    name: str
    client: TestClient
    table: str | None = None
    seat: int | None = None
    token: str | None = None


def json_values(body: Any) -> Iterator[Any]:
    """Every value inside a JSON document, the document first."""
    yield body
    if isinstance(body, dict):
        for v in body.values():
            yield from json_values(v)
    elif isinstance(body, list):
        for v in body:
            yield from json_values(v)


def documents(content: bytes, media: str) -> list[Any]:
    """The JSON documents of an answer: itself, each file of a zip, or each line of gzip-compressed JSON
    lines (the game database's dumps)."""
    if "gzip" in media:
        return [json.loads(line) for line in gzip.decompress(content).splitlines()]
    if "zip" in media:
        with zipfile.ZipFile(io.BytesIO(content)) as zf:
            return [json.loads(zf.read(n)) for n in zf.namelist()]
    if "json" in media:
        return [json.loads(content)]
    return [content.decode("utf-8", "replace")]


def leaks(rnd: Round, reader: Reader, docs: list[Any], full: dict[str, Any]) -> list[str]:
    """What of the embargoed games ``docs`` reveal to ``reader`` (empty: nothing)."""
    found = []
    closed = {rnd.done, rnd.playing}
    for doc in docs:
        if isinstance(doc, str):
            if json.dumps(full["removed"]) in doc or json.dumps(full["removed"], separators=(",", ":")) in doc:
                found.append("the full list of removed cards in text")
            continue
        for v in json_values(doc):
            if isinstance(v, list) and v == full["removed"]:
                found.append("the full list of removed cards")
            record = isinstance(v, dict) and v.get("format") == "catsack/1" and v.get("table") in closed
            if record and (v.get("table") != reader.table or v.get("redacted_for") != reader.seat):
                found.append(f"a record of {v.get('table')}: {sorted(v)}")
            if isinstance(v, dict):  # no game content beside the id of a closed table the reader is not at
                mentioned = (closed - {reader.table}) & {x for x in v.values() if isinstance(x, str)}
                if mentioned and GAME_KEYS & set(v):
                    found.append(f"{sorted(GAME_KEYS & set(v))} beside {sorted(mentioned)}")
            if isinstance(v, list) and reader.table != rnd.done:
                if full["moves"] and len(v) >= len(full["moves"]) and _holds_run(v, full["moves"]):
                    found.append("the finished table's moves")
                if full.get("dummy") and v == full["dummy"]:
                    found.append("the dummy deck's order")
    return found


def _holds_run(items: list[Any], run: list[str]) -> bool:
    n = len(run)
    return any(items[i : i + n] == run for i in range(len(items) - n + 1))


def route_paths(routes: list[Any], prefix: str = "") -> Iterator[str]:
    """The path of every route, those of included routers too: FastAPI keeps an included router as one
    entry of the app's routes (its ``original_router``), so the app's list alone misses them."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            context = getattr(route, "include_context", None)
            yield from route_paths(inner.routes, prefix + str(getattr(context, "prefix", "") or ""))
        elif hasattr(route, "path"):
            yield prefix + str(route.path)


def _walks(app: TestClient) -> tuple[list[tuple[str, str, dict[str, Any]]], set[tuple[str, str]]]:
    """The schema's operations: those walked (method, path, operation) and every one there is."""
    schema = app.get("/openapi.json").json()
    every = set()
    walked = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            key = (method.upper(), path)
            every.add(key)
            if key in NO_GAME:
                continue
            if key[0] == "GET" or key in WALKED:
                walked.append((key[0], path, op))
    return walked, every


def _requests(
    rnd: Round, reader: Reader, method: str, path: str, op: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any], dict[str, str], dict[str, Any] | None]]:
    """Each request of a walk over one operation: url, query, headers, body."""
    names = {p["name"]: p for p in op.get("parameters", [])}
    tables = [rnd.done, rnd.playing] if "table_id" in names else [None]
    for table in tables:
        seat = reader.seat if reader.seat is not None and table == reader.table else 0
        values = {
            "table_id": table,
            "seat": seat,
            "name": rnd.at_done[0],
            "position_id": "nosuch",
            "tid": rnd.tid,
            "challenge_id": "nosuch",
            "q": rnd.at_done[0],
            "month": time.strftime("%Y-%m", time.gmtime()),  # the game database's current month
        }
        url = path
        query: dict[str, Any] = {}
        headers = dict(ORIGIN)
        if reader.token is not None:
            headers["Authorization"] = f"Bearer {reader.token}"
        for pname, p in names.items():
            if p["in"] == "path":
                assert pname in values, f"{method} {path}: no value for the path parameter {pname!r}; add one"
                url = url.replace("{" + pname + "}", str(values[pname]))
            elif p["in"] == "query" and p.get("required"):
                assert pname in values, f"{method} {path}: no value for the query parameter {pname!r}; add one"
                query[pname] = values[pname]
        body = WALKED[(method, path)](seat) if (method, path) in WALKED else None
        if "perspective" in names:
            for perspective in (None, "all", "0", "1", "2"):
                yield url, {**query, **({} if perspective is None else {"perspective": perspective})}, headers, body
        elif "source" in names:
            for source in ("own", "pool"):
                yield url, {**query, "source": source}, headers, body
        else:
            yield url, query, headers, body


def _socket_frames(reader: Reader, table: str) -> list[Any]:
    """The frames a hello to ``table`` gets (with the reader's token where it holds a seat there)."""
    token = reader.token if reader.table == table else None
    frames = []
    with reader.client.websocket_connect(f"/ws/{table}") as ws:
        frames.append(hello(ws, table, token))
        if frames[0]["type"] == "welcome":
            frames.append(until(ws, lambda f: f["type"] == "state"))
    return frames


def _bot_socket_frames(owner: TestClient) -> list[Any]:
    """What the bot socket says to a new bot account of ``owner`` (seated at no table)."""
    made = owner.post("/api/account/bots", json={"name": "EmbargoBot"}, headers=ORIGIN)
    assert made.status_code == 201, made.text
    headers = {"Authorization": f"Bearer {made.json()['token']}"}
    with owner.websocket_connect("/api/bot/ws", headers=headers) as ws:
        first = ws.receive_json()
    assert first["type"] == "hello", first
    return [first]


@pytest.fixture
def walk_app(tmp_path: Path) -> Iterator[TestClient]:
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/app.db",
        bot_delay=0.0,
        sweep_seconds=0.1,
        grace_seconds=3600.0,
        expensive_gets_burst=10_000,
        http_rate_burst=10_000,
    )
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.mark.slow
def test_no_route_reveals_an_embargoed_game(walk_app: TestClient) -> None:
    """The walk: during a duplicate round's embargo, every route of the schema (and the WebSocket) asked by
    a stranger, by a player of the table still played and by a player of the finished table. None answers
    an internal error; none shows the finished table's record (its removed cards, its moves to those not
    at it); the strangers get nothing of either table's game; the finished table's players their own seat
    only."""
    rnd = embargoed_round(walk_app)
    full = rnd.record(rnd.done)
    walked, every = _walks(walk_app)
    assert every >= set(NO_GAME) | set(WALKED), sorted((set(NO_GAME) | set(WALKED)) - every)
    unlisted = sorted(k for k in every if k[0] != "GET" and k not in NO_GAME and k not in WALKED)
    assert unlisted == [], f"decide whether these routes can show a game (NO_GAME or WALKED): {unlisted}"
    schema_paths = {p for _, p in every}
    paths = set(route_paths(walk_app.app.routes))  # type: ignore[attr-defined]
    assert every <= {(m, p) for p in paths for m in ("GET", "POST", "PUT", "DELETE")}, "the route walk misses routes"
    others = {p for p in paths if p not in schema_paths and not p.startswith(("/static", "/ws"))}
    decided = NOT_IN_SCHEMA | set(OTHER_SOCKETS)
    assert others <= decided, f"routes outside the schema to decide about: {sorted(others - decided)}"

    outsider_name = rnd.at_playing[0]
    insider_name = rnd.at_done[0]
    readers = [
        Reader("a stranger", browser(walk_app)),
        Reader(outsider_name, rnd.people[outsider_name], *rnd.seats[outsider_name]),
        Reader(insider_name, rnd.people[insider_name], *rnd.seats[insider_name]),
    ]
    problems: list[str] = []
    asked = 0
    for reader in readers:
        for method, path, op in walked:
            for url, query, headers, body in _requests(rnd, reader, method, path, op):
                r = reader.client.request(method, url, params=query, headers=headers, json=body)
                asked += 1
                where = f"{reader.name}: {method} {url} {query}"
                if r.status_code >= 500:
                    problems.append(f"{where}: {r.status_code}")
                    continue
                if r.status_code >= 300:
                    continue
                names_closed = any(t in url for t in (rnd.done, rnd.playing) if t != reader.table)
                if names_closed and path != "/api/tables/{table_id}/rematch":
                    problems.append(f"{where}: {r.status_code} for a table the reader is not at")
                docs = documents(r.content, r.headers.get("content-type", ""))
                problems += [f"{where}: {leak}" for leak in leaks(rnd, reader, docs, full)]
        for table in (rnd.done, rnd.playing):
            frames = _socket_frames(reader, table)
            if reader.table != table and frames[0] != {**frames[0], "type": "error", "code": "embargoed"}:
                problems.append(f"{reader.name}: the socket of {table} said {frames[0]}")
            problems += [f"{reader.name}: socket of {table}: {leak}" for leak in leaks(rnd, reader, frames, full)]
    bot_frames = _bot_socket_frames(rnd.people[insider_name])
    problems += [f"the bot socket: {leak}" for leak in leaks(rnd, readers[2], bot_frames, full)]
    assert asked > 100
    assert problems == [], "\n".join(problems)
