"""The database writer of a server process: one thread, concurrent move appends committed together."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from catsack.server.store import Append, Store

__all__ = ["Writer"]

T = TypeVar("T")


class Writer:
    """Every database write of this process goes through one thread, and concurrent move appends
    are committed together (group commit): SQLite allows one writer at a time, and threads that
    wait on its lock sleep in long steps; one writer with batches keeps latency flat under load."""

    MAX_BATCH = 512

    def __init__(self, store: Store) -> None:
        self.store = store
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="catsack-db")
        self.queue: asyncio.Queue[tuple[Append, asyncio.Future[None]]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.batches = 0
        self.appends = 0

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(fn, *args))

    async def append(self, item: Append) -> None:
        if self.task is None or self.task.done():
            self.task = asyncio.create_task(self._loop())
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((item, fut))
        await fut

    async def _loop(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty() and len(batch) < self.MAX_BATCH:
                batch.append(self.queue.get_nowait())
            try:
                results = await self.run(self.store.append_batch, [it for it, _ in batch])
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

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        self.executor.shutdown(wait=True)
