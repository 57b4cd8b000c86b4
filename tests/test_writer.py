"""The database writer's group commits (``catsack.server.tables.writer``).

Moves that reach the writer while it waits out its window are committed in one transaction, each
move still committed before its ``append`` returns (commit before broadcast); the
writer keeps its connection while busy, hands it back when idle or broken, and tries a batch once
more when its kept connection died meanwhile. On PostgreSQL a batch is one statement sent from the event
loop, and a batch whose connection died there is written through the pool. The window's wait and the
idle clock are injected: the tests count batches and connections, not seconds.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy.exc import DBAPIError

from catsack.server.storage.store import Append, AppendConflict, SeatRow, Store
from catsack.server.tables.writer import Writer


def _store(tmp_path: Path, tables: int = 3, cls: type[Store] = Store) -> Store:
    store = cls(f"sqlite:///{tmp_path / 'writer.db'}")
    for i in range(tables):
        seats = [SeatRow(s, "human", f"p{s}", None, None, False) for s in range(3)]
        store.create_table(f"t{i}", "w", seats, {}, {"start": 0, "removed": [], "dummy": []}, "playing")
    return store


def _log(store: Store, table: str) -> list[int]:
    loaded = store.load(table)
    assert loaded is not None
    return [a.version for a in loaded[2]]


def _move(table: str, version: int) -> Append:
    return Append(table, version, 0, "place +15", f"a{table}{version}", "human", "playing", None, 1)


def _run(coro: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(coro())


class _Window:
    """The window's wait, opened by the test."""

    def __init__(self) -> None:
        self.waiting = 0
        self.open = asyncio.Event()

    async def __call__(self, _seconds: float) -> None:
        self.waiting += 1
        await self.open.wait()
        self.open.clear()


def test_moves_that_come_during_the_window_are_committed_together(tmp_path: Path) -> None:
    store = _store(tmp_path)

    async def go() -> None:
        window = _Window()
        w = Writer(store, window=0.005, sleep=window)
        w.gap = 0.001  # moves of different tables come a millisecond apart: company is likely
        first = asyncio.ensure_future(w.append(_move("t0", 1)))
        while not window.waiting:  # the writer holds the first move and waits for company
            await asyncio.sleep(0)
        others = [asyncio.ensure_future(w.append(_move(f"t{i}", 1))) for i in (1, 2)]
        await asyncio.sleep(0)
        assert not first.done()  # nothing is acknowledged before its commit
        window.open.set()
        await asyncio.gather(first, *others)
        assert (w.batches, w.appends) == (1, 3)
        await w.stop()

    _run(go)
    assert [_log(store, f"t{i}") for i in range(3)] == [[1], [1], [1]]


def test_the_wait_follows_the_gaps_between_tables_moves_and_a_quiet_writer_commits_at_once(tmp_path: Path) -> None:
    store = _store(tmp_path)
    now = [0.0]
    waits: list[float] = []
    versions = {"t0": 0, "t1": 0}

    async def record(seconds: float) -> None:
        waits.append(seconds)

    async def go() -> None:
        w = Writer(store, window=0.03, clock=lambda: now[0], sleep=record)

        async def move(table: str, after: float) -> None:
            now[0] += after
            versions[table] += 1
            await w.append(_move(table, versions[table]))

        for _ in range(50):  # one table played quickly: its next move cannot join this one, so no wait
            await move("t0", 0.001)
        assert w.wait() == 0.0 and not waits
        for i in range(40):  # two tables, a move a second: company is unlikely
            await move(f"t{i % 2}", 1.0)
        assert w.wait() == 0.0 and not waits
        for i in range(80):  # a hundred moves a second of two tables: 1.5 gaps, about 15 ms
            await move(f"t{i % 2}", 0.01)
        assert waits and abs(waits[-1] - 0.015) < 0.001
        for i in range(60):  # fifty a second: 1.5 gaps would be 30 ms, the window
            await move(f"t{i % 2}", 0.02)
        assert abs(w.wait() - 0.03) < 0.002
        for i in range(40):  # twenty a second: the mean gap is past the window, so no wait
            await move(f"t{i % 2}", 0.05)
        assert w.wait() == 0.0
        await w.stop()

    _run(go)
    assert _log(store, "t0") == list(range(1, versions["t0"] + 1))
    assert _log(store, "t1") == list(range(1, versions["t1"] + 1))


def test_a_conflicting_move_in_a_batch_fails_alone(tmp_path: Path) -> None:
    store = _store(tmp_path)

    async def go() -> None:
        w = Writer(store)
        results = await asyncio.gather(
            w.append(_move("t0", 1)), w.append(_move("t1", 2)), w.append(_move("t2", 1)), return_exceptions=True
        )
        assert results[0] is None and results[2] is None
        assert isinstance(results[1], AppendConflict)
        await w.stop()

    _run(go)


def test_the_connection_is_kept_while_busy_and_handed_back_when_idle(tmp_path: Path) -> None:
    store = _store(tmp_path)
    now = [0.0]

    async def go() -> None:
        w = Writer(store, clock=lambda: now[0])
        for v in range(1, 4):
            await w.append(_move("t0", v))
        assert (w.batches, w.connections) == (3, 1)
        now[0] += Writer.HOLD_SECONDS + 1  # idle: the next batch takes a connection from the pool again
        await w.append(_move("t0", 4))
        assert w.connections == 2
        await w.stop()

    _run(go)


class _FlakyStore(Store):
    """Fails the next ``fail`` appends as a database that went away would."""

    fail = 0
    invalidated = True

    def append_batch(self, items: Any, conn: Any = None) -> list[AppendConflict | None]:
        if self.fail:
            self.fail -= 1
            raise DBAPIError("INSERT", {}, ConnectionError("gone"), connection_invalidated=self.invalidated)
        return super().append_batch(items, conn)


def test_a_kept_connection_that_died_is_replaced_and_the_batch_written(tmp_path: Path) -> None:
    store = _store(tmp_path, cls=_FlakyStore)
    assert isinstance(store, _FlakyStore)

    async def go() -> None:
        w = Writer(store)
        await w.append(_move("t0", 1))
        store.fail = 1  # the database restarted while the writer kept its connection
        await w.append(_move("t0", 2))
        assert (w.batches, w.connections) == (2, 2)
        await w.stop()

    _run(go)
    assert _log(store, "t0") == [1, 2]


def test_a_failure_on_a_fresh_connection_fails_the_batch_and_nothing_is_written(tmp_path: Path) -> None:
    store = _store(tmp_path, cls=_FlakyStore)
    assert isinstance(store, _FlakyStore)

    async def go() -> None:
        w = Writer(store)
        store.fail = 1
        with pytest.raises(DBAPIError):
            await w.append(_move("t0", 1))
        store.fail, store.invalidated = 1, False  # not a lost connection: no second try
        with pytest.raises(DBAPIError):
            await w.append(_move("t0", 1))
        await w.append(_move("t0", 1))  # the database is back
        assert w.connections == 3  # each failure handed its connection back
        await w.stop()

    _run(go)
    assert _log(store, "t0") == [1]


def test_a_kept_connection_killed_by_postgresql_is_replaced(db_schema_url: str) -> None:
    import secrets

    name = f"catsack_writer_{secrets.token_hex(4)}"
    store = Store(f"{db_schema_url}&application_name={name}")
    seats = [SeatRow(s, "human", f"p{s}", None, None, False) for s in range(3)]
    store.create_table("t0", "w", seats, {}, {"start": 0, "removed": [], "dummy": []}, "playing")

    async def go() -> None:
        w = Writer(store)
        w.appender = None  # the moves go through the thread's kept connection
        await w.append(_move("t0", 1))
        # The database drops every connection of this store, the writer's kept one among them.
        _terminate(db_schema_url, name)
        await w.append(_move("t0", 2))  # written on a new connection, no error
        assert w.connections == 2
        await w.stop()

    try:
        _run(go)
        assert _log(store, "t0") == [1, 2]
    finally:
        store.close()


def _terminate(url: str, application_name: str) -> None:
    """PostgreSQL drops every connection named ``application_name``."""
    import psycopg

    from server_procs import libpq_dsn

    with psycopg.connect(libpq_dsn(url.split("?")[0]), autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s", (application_name,)
        )


def test_postgresql_moves_are_written_on_the_event_loop_and_survive_a_killed_connection(db_schema_url: str) -> None:
    """On PostgreSQL a batch is one statement sent from the event loop (no thread, no pool); when the
    database drops that connection, the batch is written through the pool instead, and the next batches
    on a new connection of the event loop's."""
    import secrets

    name = f"catsack_writer_{secrets.token_hex(4)}"
    store = Store(f"{db_schema_url}&application_name={name}")
    for t in ("t0", "t1"):
        seats = [SeatRow(s, "human", f"p{s}", None, None, False) for s in range(3)]
        store.create_table(t, "w", seats, {}, {"start": 0, "removed": [], "dummy": []}, "playing")

    async def go() -> None:
        w = Writer(store)
        assert w.appender is not None
        w.appender.PAUSE = 0.0  # try the event loop's connection again at once
        results = await asyncio.gather(w.append(_move("t0", 1)), w.append(_move("t1", 2)), return_exceptions=True)
        assert results[0] is None and isinstance(results[1], AppendConflict)  # t1 is at version 0
        assert (w.direct, w.connections) == (1, 0)
        _terminate(db_schema_url, name)
        await w.append(_move("t0", 2))  # through the pool, no error
        assert (w.direct, w.connections, w.appender.failures) == (1, 1, 1)
        await w.append(_move("t0", 3))
        await w.append(_move("t1", 1))
        assert (w.direct, w.connections) == (3, 1)
        await w.stop()

    try:
        _run(go)
        assert _log(store, "t0") == [1, 2, 3]
        assert _log(store, "t1") == [1]
    finally:
        store.close()
