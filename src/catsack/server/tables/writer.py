"""The database writer of a server process: concurrent move appends committed together, on the event loop
(PostgreSQL) or in one thread."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError

from catsack.server.storage.store import Append, AppendConflict, Store, append_results

__all__ = ["Writer"]

T = TypeVar("T")


class Writer:
    """Every database write of this process goes through one thread, and concurrent move appends
    are committed together (group commit): SQLite allows one writer at a time, and threads that
    wait on its lock sleep in long steps; one writer with batches keeps latency flat under load.

    A batch costs about the same whatever it holds (a transaction, two statements), so the writer
    lets a batch's first move wait for others to join it: :data:`COMPANY` mean gaps between moves of
    different tables (a moving average, :attr:`gap`; a table's next move cannot come before this one is
    committed, so one table played quickly never waits), at most ``window``, so that batches hold
    about as many moves at any busy load: at 100 moves a second 15 ms, at 50 moves a second 30 ms. A
    process whose moves come less often than once a ``window`` commits each move at once. A move is
    still committed before it is shown and acknowledged. While moves keep coming the writer keeps its
    database connection between batches (no pool check-out and ping per batch); one idle for
    :attr:`HOLD_SECONDS`, or that failed, goes back to the pool, which pings it before its next use.

    On PostgreSQL a batch of moves of different tables is one statement, sent from the event loop on a
    connection the writer keeps for it (:class:`~catsack.server.storage.pgappend.AsyncAppender`): the
    hand-over to the thread and back cost more CPU than the statement. Should that fail, the batch is
    written in the thread as above.
    """

    MAX_BATCH = 512
    HOLD_SECONDS = 5.0
    GAP_WEIGHT = 0.1  # of each new gap in :attr:`gap`
    COMPANY = 1.5  # mean gaps a batch's first move waits for others

    def __init__(
        self,
        store: Store,
        *,
        window: float = 0.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.store = store
        self.window = window
        self.clock = clock  # for how long the kept connection was idle
        self.sleep = sleep  # the window's wait
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="catsack-db")
        self.queue: asyncio.Queue[tuple[Append, asyncio.Future[None]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.batches = 0
        self.appends = 0
        self.connections = 0  # connections taken from the pool for batches
        #: Writes moves on the event loop, on a connection of its own (PostgreSQL), with no thread.
        self.appender = store.async_appender()
        self.direct = 0  # batches it wrote
        self._conn: Connection | None = None  # used in the writer's thread only
        self._used = 0.0
        #: Moving average of the seconds between moves of different tables (infinite until known).
        self.gap = math.inf
        self._last: tuple[float, str] | None = None  # the time and table of the last move

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(fn, *args))

    async def append(self, item: Append) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._loop())
        now = self.clock()
        last = self._last
        if last is not None and last[1] != item.table_id:
            step = now - last[0]
            self.gap = step if self.gap == math.inf else self.gap + self.GAP_WEIGHT * (step - self.gap)
        self._last = (now, item.table_id)
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((item, fut))
        await fut

    def wait(self) -> float:
        """Seconds a batch's first move waits for others: :data:`COMPANY` mean gaps between moves of
        different tables, at most ``window``; none when the mean gap is longer than ``window`` or not
        known yet (company is unlikely)."""
        if self.window <= 0:
            return 0.0
        return min(self.COMPANY * self.gap, self.window) if self.gap <= self.window else 0.0

    async def _loop(self) -> None:
        while True:
            batch = [await self.queue.get()]
            wait = self.wait()
            if wait > 0:
                await self.sleep(wait)
            while not self.queue.empty() and len(batch) < self.MAX_BATCH:
                batch.append(self.queue.get_nowait())
            try:
                results = await self._commit([it for it, _ in batch])
            except Exception as exc:  # the database is down: every waiting move fails, none is applied
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
                continue
            self.batches += 1
            self.appends += len(batch)
            for (_, fut), err in zip(batch, results, strict=True):
                if fut.done():
                    continue
                if err is None:
                    fut.set_result(None)
                else:
                    fut.set_exception(err)

    async def _commit(self, items: list[Append]) -> list[AppendConflict | None]:
        """One batch: on the event loop in one statement where the store can (no thread), else in the thread."""
        appender = self.appender
        if appender is not None and len({it.table_id for it in items}) == len(items):
            moved = await appender.append(items)
            if moved is not None:
                self.direct += 1
                return append_results(items, moved)
        return await self.run(self._append, items)

    def _append(self, items: list[Append]) -> list[AppendConflict | None]:
        """One batch, on the kept connection (in the writer's thread). A kept connection that turns out
        dead (the database restarted meanwhile) is replaced and the batch tried once more, as the pool's
        ping would have found it before use."""
        if self._conn is not None and self.clock() - self._used > self.HOLD_SECONDS:
            self._release()
        kept = self._conn is not None
        try:
            return self._write(items)
        except DBAPIError as exc:
            if not (kept and exc.connection_invalidated):
                raise
        return self._write(items)

    def _write(self, items: list[Append]) -> list[AppendConflict | None]:
        if self._conn is None:
            self._conn = self.store.engine.connect()
            self.connections += 1
        try:
            return self.store.append_batch(items, self._conn)
        except Exception:
            self._release(broken=True)
            raise
        finally:
            self._used = self.clock()

    def _release(self, *, broken: bool = False) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        with contextlib.suppress(Exception):
            if broken:
                conn.invalidate()
            conn.close()

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        with contextlib.suppress(Exception):
            await self.run(self._release)
        if self.appender is not None:
            await self.appender.close()
        self.executor.shutdown(wait=True)
