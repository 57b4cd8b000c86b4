"""The background loops of one server process, by name, and the one place that stops them.

The hub's sweeps (grace periods and eviction, leases, turn-based clocks) and the application's
(stale open tables, tournaments, timed garbage collection) start here with a name each, so a reader
finds every loop the process runs in :attr:`Loops.names`, and shutting down is one :meth:`Loops.stop`.
Fire-and-forget work (a lease hand-over, an adoption) goes through :meth:`Loops.spawn`: kept
referenced until it ends, so the event loop never drops it half done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

__all__ = ["Loops"]


class Loops:
    """Named long-running tasks, and unnamed short ones kept until they end."""

    def __init__(self) -> None:
        self._named: dict[str, asyncio.Task[None]] = {}
        self._spawned: set[asyncio.Future[Any]] = set()

    @property
    def names(self) -> list[str]:
        """The loops running now, in the order they started."""
        return [n for n, t in self._named.items() if not t.done()]

    def start(self, name: str, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as the loop ``name`` (a loop of that name already running is an error)."""
        running = self._named.get(name)
        if running is not None and not running.done():
            coro.close()
            raise RuntimeError(f"the loop {name!r} is running already")
        self._named[name] = asyncio.get_running_loop().create_task(coro, name=name)

    def spawn(self, coro: Any) -> None:
        """Run ``coro`` (a coroutine or future) without waiting for it, kept referenced until it ends.

        Only on the running event loop (the hub's): called from outside it, this is a ``RuntimeError``,
        never a task bound to whatever loop the calling thread happens to have, which would never run."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if asyncio.iscoroutine(coro):
                coro.close()  # not left behind unawaited
            raise
        task = asyncio.ensure_future(coro, loop=loop)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    def cancel(self) -> list[asyncio.Task[None]]:
        """Cancel every named loop now; the tasks, to wait for."""
        tasks = list(self._named.values())
        self._named.clear()
        for t in tasks:
            t.cancel()
        return tasks

    async def stop(self) -> None:
        """Cancel every named loop and wait until they have ended (safe to call again)."""
        await asyncio.gather(*self.cancel(), return_exceptions=True)
