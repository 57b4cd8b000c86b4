"""Table leases in the store: which process drives a table's bots and timers.

Pure database logic on SQLite, with explicit clocks: one holder at a time, renewal, take-over after
expiry, release by name only, and the hub's use of it (a relaying hub runs no bot).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

pytest.importorskip("fastapi")

from catsack.server.settings import Settings
from catsack.server.storage.store import Store
from catsack.server.tables.hub import Hub
from catsack.server.tables.leases import Heartbeat


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'l.db'}")


def test_one_holder_at_a_time_until_expiry(store: Store) -> None:
    assert store.leases.sync_leases("A", ["t1", "t2"], 10.0, now=100.0) == {"t1", "t2"}
    assert store.leases.sync_leases("B", ["t1", "t3"], 10.0, now=101.0) == {"t3"}  # t1 is A's until 110
    assert store.leases.take_leases("B", ["t1"], 10.0, now=109.9) == set()
    assert store.leases.sync_leases("A", ["t1", "t2"], 10.0, now=105.0) == {"t1", "t2"}  # renewed to 115
    assert store.leases.take_leases("B", ["t1"], 10.0, now=112.0) == set()
    assert store.leases.take_leases("B", ["t1"], 10.0, now=115.5) == {"t1"}  # A stopped renewing: taken over
    assert store.leases.all()["t1"] == ("B", 125.5)
    # A's next sync learns it lost t1 and keeps t2.
    assert store.leases.sync_leases("A", ["t1", "t2"], 10.0, now=116.0) == {"t2"}


def test_leases_are_given_up_only_by_name(store: Store) -> None:
    store.leases.sync_leases("A", ["t1"], 10.0, now=100.0)
    store.leases.take_leases("A", ["t2"], 10.0, now=100.5)  # taken by get() while a sync had ["t1"] only
    assert store.leases.sync_leases("A", ["t1"], 10.0, now=101.0) == {"t1", "t2"}  # t2 is kept
    assert store.leases.sync_leases("A", ["t1"], 10.0, now=102.0, release=["t2"]) == {"t1"}
    assert store.leases.take_leases("B", ["t2"], 10.0, now=102.5) == {"t2"}  # free at once, no expiry wait
    store.leases.release_leases("A", ["t1", "t2"])  # t2 is B's: A cannot release it
    assert store.leases.all() == {"t2": ("B", 112.5)}


def test_a_relaying_hub_runs_no_bots(tmp_path: Path) -> None:
    """Two hubs on one database: the one that made a table of bots drives it; the other loads it,
    gets no lease and schedules nothing; when the first stops (leases given back), the other takes
    over on its next sync and plays the game to its end."""
    url = f"sqlite:///{tmp_path / 'h.db'}"

    async def go() -> None:
        settings = Settings(database_url=url, bot_delay=0.02, lease_seconds=30.0, log_json=False)
        a, b = Hub(settings), Hub(settings)
        await a.start()
        await b.start()
        try:
            made = await a.create(
                3,
                {0: "random", 1: "random", 2: "random"},
                name="x",
                money_visible=False,
                turn_seconds=None,
                hints=False,
            )
            assert made.driver and a.driving() == 1
            other = await b.get(made.id)
            assert other is not None and not other.driver and other.task is None
            await a.stop()
            await b.sync_leases()
            assert other.driver and other.task is not None
            for _ in range(600):
                if other.game.is_over:
                    break
                await asyncio.sleep(0.05)
            assert other.game.is_over
            loaded = b.store.load(made.id)
            assert loaded is not None
            assert [r.version for r in loaded[2]] == list(range(1, other.version + 1))
        finally:
            await b.stop()

    asyncio.run(go())


def test_a_heartbeat_renews_its_own_row_and_names_the_dead(store: Store) -> None:
    """One statement a beat (fail-over within a few seconds): the first beat writes the
    holder's row, later beats renew it, and every beat names the other holders that ran out."""
    with store.engine.connect() as raw:
        conn = raw.execution_options(isolation_level="AUTOCOMMIT")
        assert store.leases.heartbeat("A", 2.0, now=100.0, conn=conn) == []
        assert store.leases.heartbeat("B", 2.0, now=100.5, conn=conn) == []
        assert store.leases.heartbeat("A", 2.0, now=101.5, conn=conn) == []  # A to 103.5, B until 102.5
        assert store.leases.heartbeat("A", 2.0, now=103.0, conn=conn) == ["B"]  # B stopped beating
        assert store.leases.heartbeat("B", 2.0, now=103.1, conn=conn) == []  # B is back: alive until 105.1
        assert store.leases.heartbeat("A", 2.0, now=104.0, conn=conn) == []
    assert store.leases.adopt("A", 2.0, dead=["B"], now=104.0) == set()  # B is alive again: nothing to take


def test_a_hub_that_has_not_heard_of_a_seat_change_cannot_write_the_old_tokens_move(tmp_path: Path) -> None:
    """A new seat link ends the old one across processes, without the message that tells of it: hub B
    gives one seat a new token and another seat to a bot; hub A, which has heard of neither (no Redis
    here), still holds the old tokens' connections. Their moves are refused as ``replaced`` when A
    writes them, A learns the seats' new state from the database, those connections become
    spectators, and no move of theirs is in the record. The seat's new token plays on A."""
    from catsack.server.people.social import take_over
    from catsack.server.tables.live import Conn, hash_token

    url = f"sqlite:///{tmp_path / 'r.db'}"

    async def sink(_text: str) -> None:
        return None

    async def go() -> None:
        settings = Settings(database_url=url, bot_delay=0.0, sweep_seconds=3600, lease_seconds=30.0, log_json=False)
        a, b = Hub(settings), Hub(settings)
        await a.start()
        await b.start()
        try:
            t = await a.create(3, {}, name="x", money_visible=False, turn_seconds=None, hints=False)
            for who in ("Ann", "Bea", "Cal"):
                await a.join(t, who, None)
            conns = [Conn(sink, seat, None) for seat in range(3)]
            for c in conns:
                a.attach(t, c)

            def legal() -> str:
                return t.game.legal_moves()[0].text

            def to_move() -> int:
                seat = t.game.to_move
                assert seat is not None
                return seat

            first = to_move()
            assert (await a.act(conns[first], "m1", t.version, legal()))["type"] == "ack"

            # B takes over the next seat's link (a person moving to another device) ...
            second = to_move()
            other = await b.get(t.id)
            assert other is not None and other.version == 1
            new_token = await take_over(b, other, second)
            answer = await a.act(conns[second], "m2", t.version, legal())
            assert answer["type"] == "error" and answer["code"] == "replaced", answer
            assert conns[second].seat is None  # a spectator now
            assert t.players[second].token_hash == hash_token(new_token) and t.version == 1
            again = Conn(sink, await a.find_seat(t, new_token), None)
            a.attach(t, again)
            assert (await a.act(again, "m3", t.version, legal()))["type"] == "ack"

            # ... and gives the third seat to a bot (its person away, say).
            third = to_move()
            assert third not in (first, second)
            await b.catch_up(other)
            assert await b.replace(other, third)
            answer = await a.act(conns[third], "m4", t.version, legal())
            assert answer["type"] == "error" and answer["code"] == "replaced", answer
            assert conns[third].seat is None and t.players[third].kind == "bot"
            loaded = a.store.load(t.id)
            assert loaded is not None
            people = [(r.version, r.seat, r.action_id) for r in loaded[2] if r.actor == "human"]
            assert people == [(1, first, "m1"), (2, second, "m3")]
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(go())


def test_a_hello_with_a_link_changed_elsewhere_is_checked_against_the_database(tmp_path: Path, redis_url: str) -> None:
    """A new seat link ends the old one across processes, at the hello: hub B gives a seat's person a
    new link and another seat to a bot, and hub A has not heard (each hub listens on a Redis channel of its own here, so
    the messages never arrive). A token that A still holds in memory is checked against the database
    on its hello: the old link is refused (``unauthorized``; ``replaced`` for the seat given to the
    bot) instead of being shown the seat's hand, its open connection becomes a spectator's, and the
    new link is welcomed. If the database cannot be read, memory answers; a lone process (no Redis)
    answers a token it holds from memory without a read."""
    import uuid

    from catsack.server.people.social import take_over
    from catsack.server.storage.store import SeatRow
    from catsack.server.tables.live import Conn, LiveTable, TableError, hash_token

    url = f"sqlite:///{tmp_path / 'h.db'}"

    async def sink(_text: str) -> None:
        return None

    def settings(channel: str | None) -> Settings:
        return Settings(
            database_url=url,
            bot_delay=0.0,
            sweep_seconds=3600,
            lease_seconds=30.0,
            log_json=False,
            redis_url=redis_url if channel else None,
            redis_channel=channel or "catsack:tables",
        )

    async def refused(hub: Hub, table: LiveTable, token: str) -> str:
        with pytest.raises(TableError) as exc:
            await hub.find_seat(table, token)
        return exc.value.code

    async def go() -> None:
        a = Hub(settings(f"catsack:test:{uuid.uuid4().hex}"))
        b = Hub(settings(f"catsack:test:{uuid.uuid4().hex}"))
        await a.start()
        await b.start()
        try:
            t = await a.create(3, {}, name="x", money_visible=False, turn_seconds=None, hints=False)
            tokens = [(await a.join(t, who, None))[1] for who in ("Ann", "Bea", "Cal")]
            old = Conn(sink, 1, None)
            a.attach(t, old)
            assert await a.find_seat(t, tokens[1]) == 1  # the database agrees

            other = await b.get(t.id)
            assert other is not None
            new_token = await take_over(b, other, 1)
            assert t.players[1].token_hash == hash_token(tokens[1])  # A has not heard
            assert await refused(a, t, tokens[1]) == "unauthorized"
            assert t.players[1].token_hash == hash_token(new_token) and old.seat is None
            assert await a.find_seat(t, new_token) == 1

            await b.catch_up(other)
            assert await b.replace(other, 2)
            assert t.players[2].kind == "human"  # A has not heard
            assert await refused(a, t, tokens[2]) == "replaced"
            assert t.players[2].kind == "bot"

            def away(_table_id: str) -> list[SeatRow]:
                raise OSError("the database is away")

            a.store.seats = away  # type: ignore[method-assign,assignment]
            assert await a.find_seat(t, tokens[0]) == 0
        finally:
            await a.stop()
            await b.stop()

        lone = Hub(settings(None))
        await lone.start()
        try:
            held = await lone.get(t.id)
            assert held is not None
            lone.store.seats = away  # type: ignore[method-assign,assignment]
            assert await lone.find_seat(held, tokens[0]) == 0
        finally:
            await lone.stop()

    asyncio.run(go())


# ---------------------------------------------------------------------- a dead process found by its closed connection


def heartbeat(url: str, holder: str) -> Heartbeat:
    """A heartbeat that is beaten by hand (its thread never started), with an hour's lease: only its
    closed connection can tell it died within the test."""
    store = Store(url)
    return Heartbeat(store, holder, 3600.0, 0.3, asyncio.new_event_loop(), lambda dead: None)


def test_a_killed_process_is_found_dead_by_its_closed_connection_long_before_its_heartbeat_runs_out(
    db_schema_url: str,
) -> None:
    """PostgreSQL: a process's connection closes when it dies, and with it its liveness lock; the other
    processes find it dead at their next beat or the one after (not when its hour-long heartbeat runs out),
    end its heartbeat and can adopt its tables. A live process is never found dead, not even after its
    connection broke and came back (the database restarted) between two looks."""
    a, b, c = (heartbeat(db_schema_url, h) for h in ("a0a0a0a0a0a0", "b1b1b1b1b1b1", "c2c2c2c2c2c2"))
    for _ in range(4):  # everyone alive, beating in turn: nobody is dead
        assert a.beat() == [] and b.beat() == [] and c.beat() == []
    # B's connection breaks and comes back (a new connection, the lock taken again) between A's looks.
    assert b._conn is not None
    b._conn.invalidate()
    b._conn = None
    assert b.beat() == [] and a.beat() == [] and c.beat() == []
    # C is killed: its connection closes without a word. A finds it within two of its beats, B likewise.
    assert c._conn is not None
    c._conn.invalidate()
    found = [a.beat() for _ in range(2)]
    assert ["c2c2c2c2c2c2"] in found, found
    assert b.beat() == ["c2c2c2c2c2c2"]  # its heartbeat was ended: dead for everyone now
    store = a.store
    assert store.leases.take_leases("b1b1b1b1b1b1", ["t"], 3600.0) == {"t"}
    adopted = store.leases.adopt("a0a0a0a0a0a0", 3600.0, ["b1b1b1b1b1b1"])
    assert adopted == set()  # B is alive: its tables stay its own
    for hb in (a, b, c):
        hb.stop()
        hb.store.close()


def test_a_process_of_an_earlier_release_is_judged_by_its_heartbeat_alone(db_schema_url: str) -> None:
    """A process that never held a liveness lock is not found dead for want of one."""
    a = heartbeat(db_schema_url, "a0a0a0a0a0a0")
    old = heartbeat(db_schema_url, "0d0d0d0d0d0d")
    old.locks = False  # beats without taking the lock, as before
    for _ in range(4):
        assert old.beat() == [] and a.beat() == []
    for hb in (a, old):
        hb.stop()
        hb.store.close()


def test_a_process_taking_a_table_over_counts_the_bots_delay_from_when_the_turn_began(tmp_path: Path) -> None:
    """A bot's move is due its delay after its turn began. A process that takes a table over (here: loads
    it after the process driving it stopped) reads when that was from the log, so a turn that began a
    minute ago is played at once, not a whole delay after the take-over; the moves after it keep the delay.
    The pace's clock and sleep are injected: nothing waits."""
    from sqlalchemy import update

    from catsack.server.storage.store import actions_t
    from catsack.server.tables.thinking import Pace

    url = f"sqlite:///{tmp_path / 'turn.db'}"
    now = [1000.0]
    slept: list[tuple[float, int]] = []  # (seconds, the table's version then)
    never = asyncio.Event()  # the second sleep never ends: the game stops there

    async def go() -> None:
        first = Hub(Settings(database_url=url, bot_delay=0.01, bot_delay_jitter=0.0, log_json=False))
        await first.start()
        try:
            table = await first.create(
                3, {s: "random" for s in range(3)}, name="x", money_visible=False, turn_seconds=None, hints=False
            )
            while table.version < 3:
                await asyncio.sleep(0.001)
        finally:
            await first.stop()
        version = first.store.table(table.id).version  # type: ignore[union-attr]
        with first.store.engine.begin() as conn:  # the last move was made a minute ago
            conn.execute(
                update(actions_t).where(actions_t.c.table_id == table.id).values(created=actions_t.c.created - 60.0)
            )
        second = Hub(Settings(database_url=url, bot_delay=5.0, bot_delay_jitter=0.0, log_json=False))

        async def sleep(seconds: float) -> None:
            slept.append((seconds, second.tables[table.id].version))
            now[0] += seconds
            if len(slept) > 1:
                await never.wait()

        second.pace = Pace(5.0, 0.0, 0.6, clock=lambda: now[0], sleep=sleep)
        await second.start()
        try:
            for _ in range(2000):  # a bound on a stuck table, not a timing
                if len(slept) >= 2:
                    break
                await asyncio.sleep(0.005)
            # The first move after the take-over slept not at all; the next ones wait the whole delay.
            assert slept[:2] == [(5.0, version + 1), (5.0, version + 2)], (version, slept)
        finally:
            await second.stop()

    asyncio.run(go())


def test_a_statement_that_fails_keeps_the_connection_and_its_lock(db_schema_url: str) -> None:
    """A beat whose statement fails on a connection that still works keeps that connection, and the
    liveness lock on it: the other processes do not take the process for dead."""
    a, b = heartbeat(db_schema_url, "a0a0a0a0a0a0"), heartbeat(db_schema_url, "b1b1b1b1b1b1")
    for _ in range(3):
        assert a.beat() == [] and b.beat() == []
    kept = b._conn
    real = b.store.leases.heartbeat

    def failing(*args: object, **kw: object) -> list[str]:
        assert b._conn is not None
        b._conn.execute(text("SELECT 1 / 0"))  # an error from the database, the connection intact
        return []

    b.store.leases.heartbeat = failing  # type: ignore[method-assign]
    with pytest.raises(DBAPIError):
        b.beat()
    assert b._conn is kept
    b.store.leases.heartbeat = real  # type: ignore[method-assign]
    for _ in range(3):
        assert a.beat() == [] and b.beat() == []
    for hb in (a, b):
        hb.stop()
        hb.store.close()
