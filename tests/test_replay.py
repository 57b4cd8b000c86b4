"""Replays, post-game analysis and rematch over HTTP, in process with TestClient.

Secrecy (R23, SERVER_CHECKLIST 9): while a game runs, a seat's replay is built
from nothing but that seat's views: re-dealing everything hidden from it gives
the same bytes; spectators and other seats get nothing; analyses wait for the end.
"""

from __future__ import annotations

import contextlib
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient

from catsack.advice.analysis import analyse_record, judge
from catsack.game import Game
from catsack.record import dumps_record, loads_record, record_from_game, redact
from catsack.server.people.analysis_jobs import THRESHOLDS, decision_plies, seed_for
from catsack.server.people.replay import ALL, replay_payload
from catsack.server.settings import Settings
from catsack.server.tables.hub import Hub
from catsack.server.web.app import create_app

PROTO = "catsack-ws/1"
LEVEL = "iters=8"  # cheap: these tests check plumbing and numbers, not playing strength


def make_settings(tmp_path: Path, **kw: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path / 'replay.db'}",
        "bot_delay": 0.0,
        "sweep_seconds": 0.1,
        "grace_seconds": 3600.0,
        "expensive_gets_burst": 100_000,  # replays are read in loops here; the budget is tested in test_server_attacks
    }
    base.update(kw)
    return Settings(**base)


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., TestClient]]:
    """A factory: ``server(**settings)`` gives a started TestClient with a cheap analysis level."""
    monkeypatch.setenv("CATSACK_ANALYSIS_LEVEL", LEVEL)
    clients: list[TestClient] = []

    def start(**kw: Any) -> TestClient:
        c = TestClient(create_app(make_settings(tmp_path, **kw)))
        c.__enter__()
        clients.append(c)
        return c

    yield start
    for c in reversed(clients):
        for ws in _SOCKETS.pop(id(c), []):
            with contextlib.suppress(Exception):
                ws.__exit__(None, None, None)
        c.__exit__(None, None, None)


_SOCKETS: dict[int, list[Any]] = {}


def hub_of(client: TestClient) -> Hub:
    h: Hub = client.app.state.hub  # type: ignore[attr-defined]
    return h


def new_table(client: TestClient, seats: int, bots: dict[int, str]) -> str:
    r = client.post("/api/tables", json={"seats": seats, "bots": {str(k): v for k, v in bots.items()}})
    assert r.status_code == 201, r.text
    return str(r.json()["table"])


def join(client: TestClient, table: str, name: str) -> tuple[int, str]:
    r = client.post(f"/api/tables/{table}/join", json={"name": name})
    assert r.status_code == 200, r.text
    return int(r.json()["seat"]), str(r.json()["token"])


def wait_over(client: TestClient, table: str) -> None:
    deadline = time.monotonic() + 30
    while client.get(f"/api/tables/{table}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish the game"
        time.sleep(0.02)


def bots_game(client: TestClient, seats: int) -> str:
    table = new_table(client, seats, {i: "random" for i in range(seats)})
    wait_over(client, table)
    return table


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Seat:
    """One seat's WebSocket: moves, and every frame it received."""

    def __init__(self, client: TestClient, table: str, token: str) -> None:
        self.token = token
        ws = client.websocket_connect("/ws")
        self.ws = ws.__enter__()
        _SOCKETS.setdefault(id(client), []).append(self.ws)
        self.ws.send_text(json.dumps({"type": "hello", "protocol": PROTO, "table": table, "token": token}))
        self.frames: list[dict[str, Any]] = []
        self.n = 0

    def recv(self) -> dict[str, Any]:
        f: dict[str, Any] = self.ws.receive_json()
        self.frames.append(f)
        return f

    def move(self, text: str, version: int) -> None:
        self.n += 1
        aid = f"m{self.n}"
        self.ws.send_text(json.dumps({"type": "move", "action_id": aid, "version": version, "move": text}))
        while True:
            f = self.recv()
            if f.get("action_id") == aid:
                assert f["type"] == "ack", f
                return


def step(client: TestClient, table: str, seats: dict[int, Seat], rng: random.Random) -> bool:
    """One move by whoever is to move (people through their socket); False once the game is over."""
    st = client.get(f"/api/tables/{table}/state").json()
    view = st["view"]
    if view["phase"] == "over":
        return False
    mover = view["to_move"]
    if mover not in seats:
        time.sleep(0.005)  # a bot's turn
        return True
    mine = client.get(f"/api/tables/{table}/state", headers=auth(seats[mover].token)).json()
    if mine["version"] != st["version"]:
        return True
    legal = mine["view"]["legal"]
    bids = [m for m in legal if m.startswith("bid")]
    choice = bids[0] if bids and rng.random() < 0.4 else ("pass" if "pass" in legal else rng.choice(legal))
    seats[mover].move(choice, mine["version"])
    return True


def people_table(client: TestClient, seats: int, people: int) -> tuple[str, dict[int, Seat]]:
    table = new_table(client, seats, {i: "random" for i in range(people, seats)})
    socks = {}
    for i in range(people):
        seat, token = join(client, table, f"P{i}")
        socks[seat] = Seat(client, table, token)
    return table, socks


def redealt(game: Game, seat: int | None, seed: int) -> Game:
    g = game.clone()
    g.redeal(seat, random.Random(seed))
    fresh = Game(g.setup)
    for m in g.moves:
        fresh.play(m)
    return fresh


# ---------------------------------------------------------------------- replay


def test_finished_table_replay_every_perspective(server: Callable[..., TestClient]) -> None:
    """A finished game: 'all' shows every card; a seat's frames are its views at every ply (R23)."""
    c = server()
    for seats in (3, 4):
        table = bots_game(c, seats)
        game = hub_of(c).tables[table].game
        r = c.get(f"/api/tables/{table}/replay")
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["perspective"] == ALL and data["perspectives"] == [ALL, *range(seats)]
        assert data["plies"] == len(game.moves) and len(data["frames"]) == len(game.moves) + 1
        assert [m[1] for m in data["moves"]] == [m.text for m in game.moves]
        assert len(data["rounds"]) == 9 and len(data["round_starts"]) == 9 and data["round_starts"][0] == 0
        assert len(data["chart"]) == 10 and data["chart"][-1]["score"] == list(game.scores())  # R21
        first = data["frames"][1]
        assert first["row"][-1]["card"] is not None  # everything: even a face-down card shows
        g1 = Game(game.setup)
        g1.play(game.moves[0])
        assert first["hands"] == [[card.token for card in g1.hand(s)] for s in range(seats)]
        assert data["frames"][0]["removed_all"] == [card.token for card in game.setup.removed]
        if seats == 3:
            assert data["frames"][0]["dummy_deck"] == [card.token for card in game.setup.dummy[1:]]  # R8
        one = c.get(f"/api/tables/{table}/replay?perspective=1").json()
        replay = Game(game.setup)
        for ply, frame in enumerate(one["frames"]):
            expected = replay.view(1, show_money=True).to_dict()
            expected.pop("history")
            assert frame == expected, ply
            if ply < len(game.moves):
                replay.play(game.moves[ply])
        assert c.get(f"/api/tables/{table}/replay").content == r.content  # cached: a finished game never changes
        assert c.get(f"/api/tables/{table}/replay?perspective=7").status_code == 403
        assert c.get(f"/api/tables/{table}/replay?perspective=x").status_code == 422
    assert c.get("/api/tables/nope/replay").status_code == 404
    assert c.get("/replay").status_code == 200 and c.get("/replay/abc").status_code == 200


@pytest.mark.slow
def test_secrecy_during_the_game_replay_and_analysis(server: Callable[..., TestClient]) -> None:
    """Each seat sees only its view (R23) on the review endpoints: at many points of running 3- and 4-seat games, each
    seat's replay equals the replay of a game where everything hidden from it was re-dealt;
    spectators, other seats and bad tokens get no frame; analyses are refused (R23)."""
    c = server()
    rng = random.Random(14)
    for seats in (3, 4):
        table, socks = people_table(c, seats, seats)
        checked = changed = 0
        while True:
            live = hub_of(c).tables[table]
            v = live.version
            if v % 11 == 5 and not live.game.is_over:
                assert c.get(f"/api/tables/{table}/replay").status_code == 409  # spectators: nothing
                assert c.get(f"/api/tables/{table}/replay", headers=auth("forged")).status_code == 403
                assert c.post(f"/api/tables/{table}/analysis", json={"seat": 0}).status_code == 409
                assert c.get(f"/api/tables/{table}/analysis?seat=0").status_code == 409
                for seat, sock in socks.items():
                    other = (seat + 1) % seats
                    for p in (ALL, other):
                        r = c.get(f"/api/tables/{table}/replay?perspective={p}", headers=auth(sock.token))
                        assert r.status_code == 403, (p, r.text)
                    r = c.get(f"/api/tables/{table}/replay", headers=auth(sock.token))
                    assert r.status_code == 200, r.text
                    got = r.json()
                    assert got["perspectives"] == [seat] and got["plies"] == v
                    game = live.game
                    other_game = redealt(game, seat, seed=v)  # everything hidden from the seat, dealt anew
                    changed += other_game.setup != game.setup
                    again = replay_payload(
                        other_game,
                        seat,
                        names=got["names"],
                        money_visible=False,
                        perspectives=[seat],
                        table=table,
                        title=got["title"],
                    )
                    assert isinstance(got.pop("chat"), list)  # the table's chat: public, not from the game
                    assert json.loads(json.dumps(again)) == got, (seats, seat, v)
                    checked += 1
            if not step(c, table, socks, rng):
                break
        assert checked >= 4 * seats and changed >= checked // 2  # the re-deals did hide something


def test_upload_replays_a_record_and_explains_bad_ones(server: Callable[..., TestClient]) -> None:
    c = server()
    game = Game.new(3, seed=5)
    rng = random.Random(5)
    while game.to_move is not None:
        game.play(rng.choice(game.legal_moves()))
    text = dumps_record(record_from_game(game, ["Ann", "Ben", "Cy"], event="Club night"))
    r = c.post("/api/replay?perspective=all", content=text)
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["names"] == ["Ann", "Ben", "Cy"] and data["title"] == "Club night" and data["over"]
    assert data["perspectives"] == [ALL, 0, 1, 2] and data["plies"] == len(game.moves)
    # A redacted record (R23) opens only its own seat's views.
    mid = Game(game.setup)
    for m in game.moves[:20]:
        mid.play(m)
    red = dumps_record(redact(mid, 2, ["Ann", "Ben", "Cy"]))
    r = c.post("/api/replay", content=red)
    assert r.status_code == 200, r.text
    assert r.json()["perspectives"] == [2] and r.json()["redacted_for"] == 2 and r.json()["plies"] == 20
    assert c.post("/api/replay?perspective=all", content=red).status_code == 403
    # What the redacted record hides was filled in somehow: none of it shows (R23). The replay is
    # the one the true game gives seat 2.
    truth = replay_payload(mid, 2, names=["Ann", "Ben", "Cy"], money_visible=False, perspectives=[2])
    got = r.json()
    assert {k: v for k, v in got.items() if k not in ("title", "redacted_for")} == {
        k: v for k, v in json.loads(json.dumps(truth)).items() if k != "title"
    }
    # Bad files get the record loader's message.
    bad = {
        "{not json": "not valid JSON",
        json.dumps({"format": "catsack/9"}): "'format' must be 'catsack/1'",
        json.dumps({"format": "catsack/1", "seats": 4, "start": 0, "removed": ["+3"], "moves": []}): "'removed'",
        text.replace('"place ', '"plaice ', 1): "move 1",
    }
    for body, fragment in bad.items():
        r = c.post("/api/replay?name=game.json", content=body)
        assert r.status_code == 422, (body[:40], r.text)
        assert fragment in r.json()["detail"] and "game.json" in r.json()["detail"], r.json()
    illegal = json.loads(text)
    illegal["moves"][0] = "bid 3"
    r = c.post("/api/replay", content=json.dumps(illegal))
    assert r.status_code == 422 and "move 1" in r.json()["detail"], r.text
    assert c.post("/api/replay", content=b"\xff\xfe").status_code == 422
    r = c.post("/api/replay", content=b" " * (64 * 1024 + 1))
    assert r.status_code == 413 and r.json()["detail"]  # the server's body cap or this route's


# ---------------------------------------------------------------------- analysis


def poll_analysis(c: TestClient, table: str, seat: int) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        a: dict[str, Any] = c.get(f"/api/tables/{table}/analysis?seat={seat}").json()
        if a["status"] in ("done", "failed"):
            return a
        assert a["status"] == "running" and 0 <= a["done"] <= a["total"]
        assert time.monotonic() < deadline, a
        time.sleep(0.05)


@pytest.mark.parametrize("level", [LEVEL, "expert:iters=8"])
@pytest.mark.slow
def test_analysis_runs_in_workers_is_stored_and_matches_the_cli(
    server: Callable[..., TestClient], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: str
) -> None:
    """Start, progress, result; a second request is served from the database; `catsack analyse`
    with the same seed and level gives the same numbers (the ISMCTS and the expert search)."""
    monkeypatch.setenv("CATSACK_ANALYSIS_LEVEL", level)
    c = server()
    table = bots_game(c, 4)
    assert c.get(f"/api/tables/{table}/analysis?seat=0").json()["status"] == "none"
    r = c.post(f"/api/tables/{table}/analysis", json={"seat": 0})
    assert r.status_code in (200, 202), r.text
    assert r.json()["level"] == level and r.json()["seed"] == seed_for(table)
    a = poll_analysis(c, table, 0)
    assert a["status"] == "done", a
    result = a["result"]
    record = loads_record(c.get(f"/api/tables/{table}/record").text)
    plies = decision_plies(record, 0)
    assert [d["ply"] for d in result["decisions"]] == plies and a["done"] == a["total"] == len(plies)
    expected = analyse_record(record, 0, level=level, seed=a["seed"])
    for got, want in zip(result["decisions"], expected, strict=True):
        w = want.to_dict()
        assert {k: got[k] for k in w} == json.loads(json.dumps(w))
        verdict = judge(got["values"], got["noise"], got["best"], got["played"])
        assert got["class"] == verdict.cls and got["lost"] == verdict.lost >= 0
        assert got["class"] is None or got["lost"] > got["margin"]  # never a mistake within the noise
    summary = result["summary"]
    assert summary["decisions"] == len(plies)
    assert summary["lost_per_decision"] == pytest.approx(sum(d["lost"] for d in result["decisions"]) / len(plies), 1e-3)
    assert result["thresholds"] == dict(THRESHOLDS)

    # Served again without recomputing: no job starts, same answer.
    jobs = c.app.state.analysis_jobs  # type: ignore[attr-defined]
    again = c.post(f"/api/tables/{table}/analysis", json={"seat": 0})
    assert again.status_code == 200 and not jobs.jobs and again.json()["result"] == result

    if level != LEVEL:
        return  # the command line calls analyse_record too: checking it at one level is enough
    # The command line, same record, seat, level and seed: the same numbers.
    path = tmp_path / "game.json"
    path.write_text(dumps_record(record))
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "catsack",
            "analyse",
            str(path),
            "--json",
            *("--seat", "1", "--level", level),  # the API's seat 0 is the seat people call 1
            *("--seed", str(a["seed"])),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    cli = [json.loads(line) for line in out.splitlines()]
    assert [(d["ply"], d["best"], d["values"]) for d in cli] == [
        (d["ply"], d["best"], d["values"]) for d in result["decisions"]
    ]


def test_analysis_limits(server: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    """One address may run CATSACK_ANALYSIS_PER_ADDRESS analyses at once; bad seats are refused."""
    monkeypatch.setenv("CATSACK_ANALYSIS_PER_ADDRESS", "1")
    monkeypatch.setenv("CATSACK_ANALYSIS_LEVEL", "iters=20")  # still running at the next request: the pool spawns
    c = server()
    table = bots_game(c, 3)
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": 5}).status_code == 422
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": 3}).status_code == 422
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": "x"}).status_code == 422
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": 0}).status_code == 202
    busy = c.post(f"/api/tables/{table}/analysis", json={"seat": 1})
    assert busy.status_code == 429 and "wait" in busy.json()["detail"]
    # Asking again for the running one is not a new analysis.
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": 0}).status_code == 202
    assert poll_analysis(c, table, 0)["status"] == "done"
    assert c.post(f"/api/tables/{table}/analysis", json={"seat": 1}).status_code == 202


# ---------------------------------------------------------------------- rematch


@pytest.mark.slow
def test_rematch_same_seats_new_deal_rotated_start(server: Callable[..., TestClient]) -> None:
    """ "Play again": one new table, bots at their seats, people back at theirs in one request each,
    a new deal with the start player rotated (R9); the old table's connections are told."""
    c = server()
    rng = random.Random(3)
    table, socks = people_table(c, 4, 2)
    while step(c, table, socks, rng):
        pass
    old = hub_of(c).tables[table]
    assert c.post(f"/api/tables/{table}/rematch").status_code == 401
    assert c.post(f"/api/tables/{table}/rematch", headers=auth("forged")).status_code == 403
    assert c.get(f"/api/tables/{table}/rematch").json() == {"table": None}

    first = c.post(f"/api/tables/{table}/rematch", headers=auth(socks[0].token))
    assert first.status_code == 200, first.text
    new = first.json()
    assert new["created"] and new["seat"] == 0 and new["token"]
    twice = c.post(f"/api/tables/{table}/rematch", headers=auth(socks[0].token)).json()
    assert twice == {**new, "created": False}  # the same seat, not a second one
    second = c.post(f"/api/tables/{table}/rematch", headers=auth(socks[1].token)).json()
    assert second["table"] == new["table"] and second["seat"] == 1 and not second["created"]
    assert c.get(f"/api/tables/{table}/rematch").json() == {"table": new["table"]}

    info = c.get(f"/api/tables/{new['table']}").json()
    assert [p["kind"] for p in info["players"]] == ["human", "human", "bot", "bot"]
    assert [p["name"] for p in info["players"]][:2] == ["P0", "P1"]
    assert info["status"] == "playing"
    fresh = hub_of(c).tables[new["table"]].game
    assert fresh.setup.start == (old.game.setup.start + 1) % 4
    assert fresh.setup != old.game.setup
    # The new token is a seat token there (and the old one is not).
    st = c.get(f"/api/tables/{new['table']}/state", headers=auth(new["token"])).json()
    assert st["view"]["seat"] == 0
    # Everyone still at the old table was offered the new one.
    offer = socks[1]
    while True:
        f = offer.recv()
        if f["type"] == "rematch":
            assert f["table"] == new["table"] and f["by"] == "P0"
            break

    unfinished, people = people_table(c, 3, 1)
    r = c.post(f"/api/tables/{unfinished}/rematch", headers=auth(people[0].token))
    assert r.status_code == 409


def test_rematch_frees_the_seats_of_people_who_left(server: Callable[..., TestClient]) -> None:
    """A person a bot replaced left: in the rematch that seat is open for the invite link."""
    c = server()
    table, socks = people_table(c, 3, 2)
    hub = hub_of(c)
    c.portal.call(hub.replace, hub.tables[table], 1)  # type: ignore[union-attr]
    assert c.get(f"/api/tables/{table}").json()["players"][1]["kind"] == "bot"
    rng = random.Random(4)
    while step(c, table, {0: socks[0]}, rng):
        pass
    new = c.post(f"/api/tables/{table}/rematch", headers=auth(socks[0].token)).json()
    info = c.get(f"/api/tables/{new['table']}").json()
    assert [p["kind"] for p in info["players"]] == ["human", "open", "bot"] and info["status"] == "open"
    seat, _token = join(c, new["table"], "Newcomer")  # the invite link fills it
    assert seat == 1 and c.get(f"/api/tables/{new['table']}").json()["status"] == "playing"


def test_a_misconfigured_analysis_level_says_why(
    server: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CATSACK_ANALYSIS_LEVEL", "clairvoyant")
    c = server()
    table = bots_game(c, 3)
    r = c.post(f"/api/tables/{table}/analysis", json={"seat": 2})
    assert r.status_code == 503 and "unknown analysis level 'clairvoyant'" in r.json()["detail"]
    assert c.get(f"/api/tables/{table}/analysis?seat=2").json()["status"] == "none"
