"""State frames built from shared parts, and how a connection writes them (``catsack.server.tables.live``).

After a move every receiver of a table gets a state frame whose view is mostly the same for all of
them: :class:`~catsack.server.tables.live.ViewTemplate` encodes those fields once (from the spectator's
view) and each receiver adds its own view's seat fields. These tests check that the result is, byte
for byte, what each receiver's own view encodes to, at every move of whole games, and that nothing a
receiver may not see reaches it through the shared part (R23: re-dealing what it cannot see changes
none of its bytes, whoever's frame built the shared part first).

The connection tests check the direct write path: everything pending goes out in one write per turn
of the event loop, in order, and frames wait in the ASGI path while the socket cannot take them;
under a real uvicorn, a table's frames take that path and are exactly the per-seat frames.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

pytest.importorskip("fastapi")

from catsack.game import Game
from catsack.server.storage.store import TableRow
from catsack.server.tables.live import Conn, LiveTable, Player, ViewTemplate, state_frame

SEEDS = (11, 12)


def _game(seats: int, seed: int) -> list[Game]:
    """Every state of one random game (a copy per version, the deal included)."""
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    states = [g.clone()]
    while not g.is_over:
        g.play(rng.choice(g.legal_moves()))
        states.append(g.clone())
    return states


def _table(game: Game, money_visible: bool) -> LiveTable:
    """A live table over ``game`` with a person in every seat (what the frames read: no hub needed)."""
    seats = game.seats
    row = TableRow(
        id="t1",
        name="frames",
        seats=seats,
        options={"money_visible": money_visible},
        setup={},
        status="playing",
        version=len(game.moves),
        created=0.0,
        finished=None,
        deadline=None,
    )
    players = [Player("human", f"P{i}") for i in range(seats)]
    return LiveTable(hub=cast(Any, None), row=row, players=players, game=game)


def _redealt(game: Game, receiver: int | None, seed: int) -> Game:
    """``game`` with everything hidden from ``receiver`` re-dealt, replayed from its new deal (R23)."""
    g = game.clone()
    g.redeal(receiver, random.Random(seed))
    fresh = Game(g.setup, events=True)
    for m in g.moves:
        fresh.play(m)
    return fresh


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_the_shared_view_filled_is_each_viewers_own_view_byte_for_byte(seats: int) -> None:
    for seed in SEEDS:
        for g in _game(seats, seed):
            for money in (False, True):
                public = g.view(None, show_money=money)
                template = ViewTemplate(public.shared_dict())
                encoded = ViewTemplate(
                    public.shared_dict(rounds=False), {"rounds": orjson.dumps(public.shared_dict()["rounds"])}
                )
                live = _table(g, money)
                for viewer in [None, *range(seats)]:
                    v = g.view(viewer, show_money=money)
                    want = orjson.dumps(v.to_dict())
                    own = {key: orjson.dumps(value) for key, value in v.seat_dict().items()}
                    assert template.fill(own) == want, (seats, seed, viewer)
                    assert encoded.fill(own) == want, (seats, seed, viewer)
                    frame = live.state_bytes(viewer, None)  # the server's own way: history in two parts
                    assert frame[frame.index(b'"view":') + 7 : frame.index(b',"events":')] == want


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_shared_frames_equal_the_per_seat_frames_at_every_move(seats: int) -> None:
    # The receivers of each version ask in a shuffled order, so the shared part is built for any of them.
    rng = random.Random(seats)
    for seed in SEEDS:
        states = _game(seats, seed)
        final = states[-1]
        live = _table(Game(final.setup, events=True), money_visible=seed % 2 == 0)
        for v, m in enumerate([*final.moves, None]):
            receivers: list[int | None] = [None, *range(seats)]
            rng.shuffle(receivers)
            for receiver in receivers:
                for since in (None, v - 1, v - 3):
                    got = json.loads(live.state_bytes(receiver, since))
                    want = state_frame(
                        live.game,
                        receiver,
                        since,
                        names=live.names(),
                        players=live.players_public(),
                        money_visible=seed % 2 == 0,
                        deadline=None,
                    )
                    assert got == want, (seats, seed, v, receiver, since)
                    assert list(got["view"]) == list(want["view"])  # the same key order as well
            if m is not None:
                live.game.play(m)


@pytest.mark.slow
@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_shared_frames_unchanged_when_hidden_cards_are_redealt(seats: int) -> None:
    """Each seat sees only its view (R23), for the shared parts: every receiver's frame is the same, byte for byte, when
    everything hidden from it is re-dealt, even when another seat's frame built the shared part."""
    for seed in SEEDS:
        for g in _game(seats, seed):
            v = len(g.moves)
            for receiver in [None, *range(seats)]:
                others = [r for r in [None, *range(seats)] if r != receiver]
                live = _table(g, money_visible=False)
                for other in others[:2]:  # the shared part is built for someone else first
                    live.state_bytes(other, v - 1)
                mine = live.state_bytes(receiver, v - 1)
                for k in range(2):
                    again = _table(_redealt(g, receiver, seed * 1000 + v * 7 + k), money_visible=False)
                    again.state_bytes(others[-1], v - 1)
                    assert again.state_bytes(receiver, v - 1) == mine, (seats, seed, v, receiver)


# ---------------------------------------------------------------------- the connection's writes


class _Socket:
    """A fake direct writer: records each write's frames; refuses while ``full``."""

    def __init__(self) -> None:
        self.writes: list[list[bytes]] = []
        self.full = False

    def __call__(self, frames: list[bytes]) -> bool:
        if self.full:
            return False
        self.writes.append(list(frames))
        return True


def test_everything_pushed_in_one_turn_goes_out_in_one_write_in_order() -> None:
    async def go() -> tuple[list[list[bytes]], list[str]]:
        sock = _Socket()
        sent: list[str] = []

        async def send(text: str) -> None:
            sent.append(text)

        conn = Conn(send, 0, None, write=sock)
        conn.push({"type": "state", "n": 1})
        conn.push({"type": "ack", "n": 2})
        await asyncio.sleep(0)
        conn.push({"type": "pong", "n": 3})
        await asyncio.sleep(0)
        return sock.writes, sent

    writes, sent = asyncio.run(go())
    assert [[json.loads(f)["n"] for f in w] for w in writes] == [[1, 2], [3]]
    assert sent == []  # nothing went the slow way


def test_frames_wait_in_the_asgi_path_while_the_socket_is_full_and_keep_their_order() -> None:
    async def go() -> tuple[list[int], list[int], Conn]:
        sock = _Socket()
        sent: list[int] = []
        gate = asyncio.Event()

        async def send(text: str) -> None:
            await gate.wait()  # the client reads slowly
            sent.append(json.loads(text)["n"])

        conn = Conn(send, 0, None, write=sock)
        conn.push({"n": 1})
        await asyncio.sleep(0)
        sock.full = True
        conn.push({"n": 2})
        conn.push({"n": 3})
        await asyncio.sleep(0)
        sock.full = False  # room again, but 2 and 3 are still on their way: 4 must wait behind them
        conn.push({"n": 4})
        await asyncio.sleep(0)
        gate.set()
        while conn.task is not None and not conn.task.done():
            await asyncio.sleep(0)
        conn.push({"n": 5})  # the slow way is done: straight to the socket again
        await asyncio.sleep(0)
        direct = [json.loads(f)["n"] for w in sock.writes for f in w]
        return direct, sent, conn

    direct, sent, conn = asyncio.run(go())
    assert direct == [1, 5] and sent == [2, 3, 4]
    assert conn.written == 2


def test_a_write_that_fails_closes_the_connection() -> None:
    async def go() -> Conn:
        def broken(_frames: list[bytes]) -> bool:
            raise OSError("gone")

        async def send(_text: str) -> None:
            raise AssertionError("not used")

        conn = Conn(send, None, None, write=broken)
        conn.push({"n": 1})
        await asyncio.sleep(0)
        conn.push({"n": 2})  # ignored: closed
        await asyncio.sleep(0)
        return conn

    conn = asyncio.run(go())
    assert conn.closed and not conn.pending


@pytest.mark.slow
def test_under_uvicorn_frames_go_straight_to_the_socket_and_are_each_seats_own(tmp_path: Path) -> None:
    import httpx
    import uvicorn
    from websockets.sync.client import connect

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'frames.db'}",
        bot_delay=0.0,
        bot_delay_jitter=0.0,
        log_json=False,
        log_level="WARNING",
    )
    app = create_app(settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30.0
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the server did not start"
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    try:
        r = httpx.post(
            f"{base}/api/tables", json={"seats": 3, "name": "direct", "bots": {"1": "random", "2": "random"}}
        )
        assert r.status_code == 201, r.text
        table = r.json()["table"]
        token = httpx.post(f"{base}/api/tables/{table}/join", json={"name": "Ann", "seat": 0}).json()["token"]
        frames: dict[int | None, list[dict[str, Any]]] = {0: [], None: []}
        rng = random.Random(4)
        with (
            connect(f"ws://127.0.0.1:{port}/ws/{table}") as player,
            connect(f"ws://127.0.0.1:{port}/ws/{table}") as watcher,
        ):
            for ws, tok in ((player, token), (watcher, None)):
                hello = {"type": "hello", "protocol": "catsack-ws/1", "table": table, "token": tok, "since": None}
                ws.send(json.dumps(hello))
                assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            n = 0
            while True:
                f = json.loads(player.recv(timeout=30))
                if f["type"] != "state":
                    continue
                frames[0].append(f)
                view = f["view"]
                if view["phase"] == "over":
                    break
                if view["to_move"] == 0 and view["legal"]:
                    n += 1
                    move = {
                        "type": "move",
                        "action_id": f"a{n}",
                        "version": f["version"],
                        "move": rng.choice(view["legal"]),
                    }
                    player.send(json.dumps(move))
            while not frames[None] or frames[None][-1]["view"]["phase"] != "over":
                f = json.loads(watcher.recv(timeout=30))
                if f["type"] == "state":
                    frames[None].append(f)
            hub = app.state.hub
            conns = list(hub.tables[table].conns)
            assert len(conns) == 2 and all(c.write is not None for c in conns)
            assert all(c.written >= len(frames[c.seat]) for c in conns)  # every state frame went straight out
            full = hub.tables[table].game
            names = hub.tables[table].names()
        for seat, got in frames.items():
            for f in got:
                at_v = Game(full.setup, events=True)
                for m in full.moves[: f["version"]]:
                    at_v.play(m)
                since = f["events"][0]["version"] - 1 if f["events"] else f["version"]
                want = state_frame(
                    at_v, seat, since, names=names, players=f["players"], money_visible=False, deadline=None
                )
                assert f == want, (seat, f["version"])
    finally:
        server.should_exit = True
        thread.join(30)
