"""Turn-based tables (docs/rules.md, "Playing online"): time per move and a time bank, no bot for a
disconnected seat, the seat handed to a bot when both run out, and nothing in memory while nobody looks.

Clocks are hours long, so tests move a stored deadline into the past (as time passing would) and ask
the hub for one pass of its clock sweep instead of waiting.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from catsack.server.storage.store import tables_t
from catsack.server.tables.turnbased import HOUR, Clock, ClockError, TurnBased
from test_server import hub_of, join, new_table, open_client

TB = {"move_hours": 24, "bank_hours": 72}


def wait_for(pred: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def run(client: TestClient, coro: Any) -> Any:
    """Run a coroutine on the app's event loop (the hub lives there)."""
    return client.portal.call(lambda: coro)  # type: ignore[union-attr]


def stored(client: TestClient, table: str) -> Any:
    with hub_of(client).store.engine.connect() as conn:
        return conn.execute(select(tables_t).where(tables_t.c.id == table)).first()


def expire(client: TestClient, table: str, seat_bank: float = 0.0) -> None:
    """Let the running turn's time per move and bank run out, as hours passing would."""
    row = stored(client, table)
    clock = json.loads(row.clock)
    past = time.time() - clock["move"] - seat_bank - 5.0
    clock["since"] = past
    with hub_of(client).store.engine.begin() as conn:
        conn.execute(
            update(tables_t).where(tables_t.c.id == table).values(deadline=time.time() - 5.0, clock=json.dumps(clock))
        )


def two_people(client: TestClient, **opts: Any) -> tuple[str, str, str]:
    """A 3-seat turn-based table: Ann (seat 0), Bea (seat 1), a random bot (seat 2)."""
    t = new_table(client, 3, {2: "random"}, turn_based=TB, **opts)
    _, ann = join(client, t, "Ann", seat=0)
    _, bea = join(client, t, "Bea", seat=1)
    return t, ann, bea


# ---------------------------------------------------------------------- the clock


def test_time_control_choices() -> None:
    assert TurnBased(24).options() == {"move_hours": 24, "bank_hours": 72}
    for bad in ((5, 72), (24, 13), (0, 0)):
        with pytest.raises(ClockError):
            TurnBased(*bad)
    assert TurnBased.of({"turn_seconds": 30}) is None
    assert TurnBased.of({"turn_based": {"move_hours": 12, "bank_hours": 0}}) == TurnBased(12, 0)


def test_time_beyond_the_move_time_comes_out_of_the_bank() -> None:
    clock = TurnBased(12, 24).new_clock(3).started(1000.0)
    assert clock.deadline(0) == 1000.0 + 36 * HOUR
    quick = clock.after_move(0, 1000.0 + 11 * HOUR, charged=True)
    assert quick.banks == (24 * HOUR,) * 3 and quick.since == 1000.0 + 11 * HOUR
    slow = clock.after_move(0, 1000.0 + 15 * HOUR, charged=True)
    assert slow.banks == (21 * HOUR, 24 * HOUR, 24 * HOUR)
    spent = slow.after_move(0, slow.since + 100 * HOUR, charged=True)  # never below zero
    assert spent.banks[0] == 0.0
    bot = clock.after_move(2, 1000.0 + 30 * HOUR, charged=False)  # bots have no clock
    assert bot.banks == clock.banks
    assert Clock(**{"move_seconds": 1.0, "banks": (2.0,), "since": None}).deadline(0) is None


# ---------------------------------------------------------------------- a table


def test_a_turn_based_table_shows_its_clock_and_is_never_given_to_a_bot_for_being_away(
    app_server: Callable[..., TestClient],
) -> None:
    c = app_server(grace_seconds=0.0)  # a real-time seat would be handed to a bot at once
    bad = c.post("/api/tables", json={"seats": 3, "turn_based": {"move_hours": 5}})
    assert bad.status_code == 422
    both = c.post("/api/tables", json={"seats": 3, "turn_based": TB, "turn_seconds": 30})
    assert both.status_code == 422
    t, ann, bea = two_people(c)
    info = c.get(f"/api/tables/{t}").json()
    assert info["turn_based"] == TB and info["turn_seconds"] is None and info["status"] == "playing"
    # The deal may give the bot (seat 2) the first turn: a bot has no clock, so wait for a person's turn.
    state = wait_for(
        lambda: (s := c.get(f"/api/tables/{t}/state").json())["deadline"] is not None and s, "a person's turn"
    )
    assert state["clock"]["move_seconds"] == 24 * HOUR and state["clock"]["banks"] == [72 * 3600] * 3
    deadline = time.mktime(time.strptime(state["deadline"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert abs(deadline - (time.time() + 96 * HOUR)) < 60
    row = stored(c, t)
    assert row.to_move == state["view"]["to_move"] and json.loads(row.clock)["since"] is not None

    # Both leave; sweeps run (grace 0 s): a turn-based seat keeps its person.
    hub = hub_of(c)
    table = hub.tables[t]
    before = hub_of(c).settings.sweep_seconds
    time.sleep(before * 3)
    run(c, hub.sweep(time.monotonic() + 10.0))
    assert [p.kind for p in table.players] == ["human", "human", "bot"]

    # A move: the clock's turn starts again, and the stored row says who is next.
    mover = ann if state["view"]["to_move"] == 0 else bea
    cl = open_client(c, t, mover)
    st = cl.my_turn()
    ans = cl.move(st["view"]["legal"][0], version=st["version"])
    assert ans["type"] == "ack"
    cl.ws.__exit__(None, None, None)
    # The bot may move right after: compare the stored row with the table once both are at one version.
    live = hub.tables[t]

    def settled() -> Any:
        r = stored(c, t)
        return r.version >= ans["version"] and r.version == live.version and r.to_move == live.game.to_move and r

    row = wait_for(settled, "the move stored, and the stored row naming the seat to move")
    assert json.loads(row.clock)["since"] >= json.loads(stored(c, t).clock)["since"] - 1


def test_the_clock_running_out_hands_the_seat_to_a_bot(app_server: Callable[..., TestClient]) -> None:
    """The rule: time per move and bank spent, a bot plays the seat for the rest of the game, the
    player's link stops working, and the other person's clock runs on."""
    c = app_server(evict_turn_based_seconds=0.0)
    t, ann, bea = two_people(c)
    hub = hub_of(c)
    wait_for(lambda: t not in hub.tables, "the unwatched table evicted")
    # From here on the table must stay loaded while the test looks at it: once the bot has played up to
    # the other person's turn nobody watches it, and a sweep could evict it again before it is seen.
    hub.settings.evict_turn_based_seconds = 3600.0
    first = stored(c, t).to_move
    token = ann if first == 0 else bea
    expire(c, t)
    assert run(c, hub.drive_due_tables()) == 1
    table = wait_for(lambda: hub.tables.get(t), "the table loaded by the clock sweep")
    wait_for(lambda: table.players[first].kind == "bot", "the seat handed to a bot")
    assert table.players[first].replaced
    r = c.get(f"/api/tables/{t}/state", headers={"authorization": f"Bearer {token}"})
    assert r.status_code == 403 and r.json()["code"] == "replaced" and "time bank" in r.json()["detail"]
    # The bots play on until the other person is to move; then that person's clock runs.
    other = 1 - first
    wait_for(lambda: table.game.to_move == other or table.game.is_over, "the other person's turn")
    row = wait_for(lambda: (r := stored(c, t)).version == table.version and r, "stored")
    if not table.game.is_over:
        assert row.deadline is not None and row.deadline > time.time() + 90 * HOUR


def test_turn_based_games_wait_in_the_database_across_a_restart(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    t, _, _ = two_people(c)
    real = new_table(c, 3, {1: "random", 2: "random"}, player="Cy")  # a real-time game in play
    hub = hub_of(c)
    clock = stored(c, t).clock
    c.__exit__(None, None, None)
    c2 = app_server()
    hub2 = hub_of(c2)
    assert real in hub2.tables and t not in hub2.tables  # real-time games resume in memory, turn-based do not
    assert run(c2, hub2.drive_due_tables()) == 0  # its clock runs: nothing to drive
    state = c2.get(f"/api/tables/{t}/state").json()  # opening it loads it, clock as it was
    assert t in hub2.tables and stored(c2, t).clock == clock
    assert state["clock"]["banks"] == [72 * 3600] * 3
    assert hub is not hub2


def test_a_bot_to_move_when_the_server_stopped_moves_after_the_restart(app_server: Callable[..., TestClient]) -> None:
    """A bot's turn has no deadline: after a restart the clock sweep finds it and the bot moves."""
    c = app_server(bot_delay=30.0)  # the bots think long: the server stops while one is to move
    t = new_table(c, 3, {1: "random", 2: "random"}, turn_based=TB)
    _, tok = join(c, t, "Ann", seat=0)
    if stored(c, t).to_move == 0:
        cl = open_client(c, t, tok)
        st = cl.my_turn()
        assert cl.move(st["view"]["legal"][0], version=st["version"])["type"] == "ack"
        cl.ws.__exit__(None, None, None)
    start = wait_for(lambda: (r := stored(c, t)).to_move != 0 and r, "a bot to move")
    assert start.deadline is None
    c.__exit__(None, None, None)
    c2 = app_server(bot_delay=0.0)
    hub2 = hub_of(c2)
    assert t not in hub2.tables
    assert run(c2, hub2.drive_due_tables()) == 1 and t in hub2.tables
    wait_for(lambda: stored(c2, t).version > start.version, "the bot's move")


def test_the_host_cannot_hand_a_turn_based_seat_to_a_bot(app_server: Callable[..., TestClient]) -> None:
    """No bot takes a turn-based seat while its clock runs, not even at the host's request (409
    ``clock_running``, worded in both catalogues); the seat stays its person's."""
    c = app_server(grace_seconds=0.0)
    r = c.post("/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"})
    assert r.status_code == 201, r.text
    t, host = r.json()["table"], r.json()["token"]
    join(c, t, "Bea", seat=1)  # Bea never connects: a real-time table's host could hand her seat over
    refused = c.post(f"/api/tables/{t}/seats/1/bot", headers={"authorization": f"Bearer {host}"})
    assert refused.status_code == 409, refused.text
    assert refused.json()["code"] == "clock_running" and refused.json()["params"] == {"n": 2}
    assert [p.kind for p in hub_of(c).tables[t].players] == ["human", "human", "bot"]


def test_a_move_at_the_instant_the_clock_runs_out_keeps_the_seat(app_server: Callable[..., TestClient]) -> None:
    """The race: the clock's timer wakes and waits for the table's lock while the player's move is being
    committed under it. The move was in time, so the seat stays the player's (checked again under the lock)."""
    c = app_server()
    t, _, _ = two_people(c)
    hub = hub_of(c)
    table = hub.tables[t]
    wait_for(lambda: table.game.to_move in (0, 1), "a person to move")

    async def race() -> tuple[str, bool]:
        seat, version = table.game.to_move, table.version
        assert seat is not None
        async with table.lock:  # the player's move holds the lock, as Hub.act does
            ran_out = asyncio.ensure_future(hub.turns.clock_ran_out(table, seat, version))
            await asyncio.sleep(0)  # the timer runs up to the lock and waits there
            assert not ran_out.done()
            assert await hub.commit(table, seat, table.game.legal_moves()[0], "in-time", "human") is None
        await ran_out
        return table.players[seat].kind, table.players[seat].replaced

    assert run(c, race()) == ("human", False)
