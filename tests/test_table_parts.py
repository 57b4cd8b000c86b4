"""The live tables' parts (catsack.server.tables), each on its own with a stand-in hub.

The hub's behaviour as a whole is tested through it (tests/test_server.py, test_leases.py, ...); here
each part's own decisions: which moves go to other processes, how messages are dispatched, which
tables are let go, how a move is worked out and taken back before its commit.
"""

from __future__ import annotations

import asyncio
import collections
import time
from types import SimpleNamespace
from typing import Any

from catsack.game import Game
from catsack.server.tables.connections import Connections
from catsack.server.tables.housekeeping import Housekeeping, arrival_wait, bots_only
from catsack.server.tables.live import Conn
from catsack.server.tables.moves import Moves
from catsack.server.tables.relay import Relay
from catsack.server.tables.seating import BOT_LEVELS, SEATABLE_BOTS, one_seat, same_hash, unknown_bot
from catsack.setup import Setup


def stand_in_hub(**fields: Any) -> Any:
    """A hub as the parts see it, with only what a test needs."""
    hub = SimpleNamespace(tables={}, fanout=None, process_id="here", forgotten=[], **fields)
    hub.forget = hub.forgotten.append
    return hub


def table(**fields: Any) -> Any:
    base: dict[str, Any] = {
        "id": "t1",
        "driver": False,
        "conns": set(),
        "listeners": {},
        "announce_until": 0.0,
        "wanted_by": None,
        "task": None,
        "bots": {},
        "players": [],
        "options": {},
        "inbox": [],
    }
    return SimpleNamespace(**{**base, **fields})


def test_relay_sends_a_move_out_from_a_relaying_process_and_while_others_listen() -> None:
    relay = Relay(stand_in_hub())
    assert relay.heard(table(driver=False))  # the driver must learn it
    assert relay.heard(table(driver=True, announce_until=time.monotonic() + 60))  # just took it over
    listening = table(driver=True, listeners={"there": time.monotonic() + 60})
    assert relay.heard(listening)
    gone = table(driver=True, listeners={"there": time.monotonic() - 1})
    assert not relay.heard(gone)  # routed by table: its moves cost Redis nothing
    assert gone.listeners == {}  # a lapsed listener is forgotten


def test_relay_dispatches_by_kind_and_ignores_unknown_tables_and_kinds() -> None:
    t = table(driver=True, listeners={"there": 1.0}, wanted_by="there")
    hub = stand_in_hub()
    hub.tables["t1"] = t
    relay = Relay(hub)
    relay.on_message({"k": "unwant", "t": "t1", "o": "there"})
    assert t.listeners == {} and t.wanted_by is None
    relay.on_message({"k": "nonsense", "t": "t1", "o": "x"})  # unknown kind: nothing happens
    relay.on_message({"k": "unwant", "t": "elsewhere", "o": "x"})  # a table not held here: ignored
    relay.on_message({"k": "seats", "t": 7, "o": "x"})  # not a table id
    # A seat change of a table nobody here needs: it is let go instead of read.
    idle = table(driver=False)
    hub.tables["t2"] = idle
    relay.on_message({"k": "seats", "t": "t2", "o": "x"})
    assert hub.forgotten == [idle]


def test_housekeeping_forgets_only_tables_neither_driven_nor_watched() -> None:
    hub = stand_in_hub()
    keeper = Housekeeping(hub, Connections(hub))
    watched = table(id="w", conns={object()})
    driven = table(id="d", driver=True)
    idle = table(id="i")
    hub.tables.update(w=watched, d=driven, i=idle)
    for t in (watched, driven, idle):
        keeper.forget(t)
    assert set(hub.tables) == {"w", "d"}
    assert keeper.evicted == 1


def test_arrival_wait_is_for_mailed_seats_only() -> None:
    t = table(options={"mailed_seats": [1], "wait_seconds": 600})
    assert arrival_wait(t, 1) == 600.0
    assert arrival_wait(t, 0) == 0.0
    assert arrival_wait(table(), 0) == 0.0


def test_bots_only_means_an_unfinished_game_of_bots() -> None:
    bot, human = SimpleNamespace(kind="bot"), SimpleNamespace(kind="human")
    playing = SimpleNamespace(is_over=False)
    assert bots_only(table(players=[bot, bot], game=playing))
    assert not bots_only(table(players=[bot, human], game=playing))
    assert not bots_only(table(players=[bot, bot], game=SimpleNamespace(is_over=True)))


def test_seating_refusals_name_the_seat_and_the_levels() -> None:
    err = one_seat(2)
    assert (err.code, err.status, err.params) == ("one_seat", 409, {"n": 3})
    assert "seat 3" in err.message
    assert one_seat(None).params == {"n": 0}
    assert all(level in unknown_bot("nope") for level in BOT_LEVELS)
    assert set(BOT_LEVELS) < set(SEATABLE_BOTS)
    assert same_hash("abc", "abc") and not same_hash(None, "abc") and not same_hash("abd", "abc")


def test_a_dropped_seat_turns_its_connections_into_spectators() -> None:
    sent: list[Any] = []

    class Probe:
        def __init__(self, seat: int | None) -> None:
            self.seat = seat

        def push(self, item: Any) -> None:
            sent.append((self, item))

    mine, other = Probe(0), Probe(1)
    t = table(conns={mine, other}, players=[SimpleNamespace(kind="bot"), SimpleNamespace(kind="human")])
    Connections.drop_seat(t, 0)
    assert mine.seat is None and other.seat == 1
    assert [item["code"] if isinstance(item, dict) else item for who, item in sent if who is mine] == [
        "replaced",
        Conn.FULL,
    ]
    assert all(who is mine for who, _ in sent)


def test_a_move_is_worked_out_and_taken_back_before_its_commit() -> None:
    """Moves.plan plays the move on the game to learn its consequences and undoes it at once: nothing a
    frame could show changes before the commit."""
    game = Game(Setup.deal(3, 11), events=True)
    hub = stand_in_hub(deadline_for=lambda _table, _game, _clock=None: 123.0)
    t = table(game=game, clock=None)
    before = (len(game.moves), game.to_move)
    move = game.legal_moves()[0]
    plan = Moves(hub).plan(t, game.to_move, move, "human")
    assert (len(game.moves), game.to_move) == before
    assert plan.version == before[0] + 1
    assert plan.status == "playing" and not plan.over
    assert plan.deadline == 123.0 and plan.clock is None and plan.clock_text is None


def test_relay_queues_a_move_that_cannot_be_applied_now() -> None:
    """A move message for a table whose lock is held waits in its inbox, in order."""

    async def scenario() -> list[Any]:
        t = table(driver=True, lock=asyncio.Lock(), inbox=collections.deque(), inbox_task=None)
        hub = stand_in_hub()
        hub.tables["t1"] = t
        relay = Relay(hub)
        await t.lock.acquire()
        relay.on_message({"k": "m", "t": "t1", "o": "there", "v": 5})
        waiting = list(t.inbox)
        t.inbox_task.cancel()
        t.lock.release()
        return waiting

    assert asyncio.run(scenario()) == [{"k": "m", "t": "t1", "o": "there", "v": 5}]
