"""Where the server's bots and hints think, and when a bot's move is due.

**Processes, not threads.** A search is pure Python: in a thread it holds the GIL the event loop needs,
and 30 connections asking for hints took ``/health`` from 2.5 ms to 174 ms. Searching bots
(``expert``, ``ismcts``) and hints run in small process pools of their own instead
(:class:`Thinkers`: one for bots' moves, one for hints, so a burst of hints never delays a bot).
Post-game analyses keep their own low-priority pool (:mod:`catsack.server.people.analysis_jobs`): hundreds of
queued decisions there would hold a live decision up for minutes.

**A wall-clock budget with a floor.** A live decision searches until a deadline, but at least
``think_min_iterations`` iterations, and at most its level's iterations
(:func:`catsack.server.tables.think_worker.bot_move`). When more decisions wait than a pool has workers, each
deadline is brought nearer in proportion, so a queue shortens every search instead of delaying every
answer. On a busy machine the bots and hints play weaker rather than later.
Post-game analysis and ``catsack analyse`` keep iteration budgets: reproducible for a seed.

**A move's time tells nothing (R23, R24).** A bot's move is released when it is due, a delay after its
turn began drawn from a fixed distribution (:class:`Pace`: uniform between ``bot_delay`` and
``bot_delay * (1 + bot_delay_jitter)``); nothing of the view goes into the draw. The release never waits
for the search (:meth:`Pace.release`): the search is given a deadline before the move is due
(``think_seconds`` at most), and whatever it has not answered by then is replaced by the stand-in bot's
move, worked out in this process when the turn began (a fraction of a millisecond). So the moment a move
leaves depends only on the drawn delay and on when the event loop wakes, never on the options, the
search or the load of the thinking processes: a forced move (one legal option: a pass that says "I
cannot outbid") and a move with a choice are released alike by construction. A forced move still goes
through the same queue and searches as a move with a choice would (its result unused), so the two
load the thinking processes alike too. On a machine so busy that searches overrun, bots play the
stand-in's moves, weaker but on time (docs/protocol.md; ``bench/decision_latency.py`` compares the
two distributions). With ``bot_delay`` 0 (tests, local play) there is no delay to keep: a move is
released when its search answers.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from catsack.server.settings import Settings
from catsack.server.tables.think_worker import bot_move, die_with_parent, hint
from catsack.view import View

__all__ = ["Pace", "Plan", "Thinkers", "end_pool"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Plan:
    """One bot move's timing: when its turn began, when its search must end, when the move is due
    (all on the pace's clock)."""

    start: float
    think_until: float
    due: float

    def resumed(self, began: float) -> Plan:
        """This plan for a turn that began at ``began``, earlier than the plan's start (a process took a
        table over from one that died, and read when the turn began): the same delay, counted from then,
        so the move is due that much sooner, at once if the delay has passed."""
        shift = max(0.0, self.start - began)
        return Plan(self.start - shift, self.think_until - shift, self.due - shift)


class Pace:
    """When a bot's moves are due: drawn from a fixed distribution that never sees the bot's view.

    ``clock`` and ``sleep`` are injectable, so tests check the timing without waiting for it.
    """

    def __init__(
        self,
        base: float,
        spread: float,
        think: float,
        *,
        rng: random.Random | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.base = base
        self.spread = spread
        self.think = think
        self.rng = rng or random.Random(secrets.randbits(64))
        self.clock = clock
        self.sleep = sleep

    def plan(self) -> Plan:
        """A new move's timing, starting now."""
        start = self.clock()
        delay = self.base + self.rng.random() * self.spread
        return Plan(start, start + min(self.think, delay), start + delay)

    async def release(self, plan: Plan, search: asyncio.Future[T], fallback: T) -> T:
        """The move to release at ``plan.due``, returned then on this clock and never before: the
        search's answer if it has one by then, else ``fallback`` (the search goes on unheeded). A plan
        without a delay (``bot_delay`` 0) waits for the search instead."""
        if plan.due <= plan.start:
            return await search
        await self.until(plan.due)
        if search.done() and not search.cancelled() and search.exception() is None:
            return search.result()
        if not search.done():
            search.add_done_callback(_unheeded)
        return fallback

    async def until(self, when: float) -> None:
        """Sleep until ``when`` on the pace's clock (at once if it has passed)."""
        rest = when - self.clock()
        if rest > 0:
            await self.sleep(rest)

    def wall(self, when: float) -> float:
        """``when`` on the pace's clock as epoch seconds: what the thinking processes compare with."""
        return time.time() + (when - self.clock())


def _unheeded(search: asyncio.Future[Any]) -> None:
    """A search answered after its move was released: its result (or error) is dropped."""
    if not search.cancelled():
        search.exception()


def end_pool(pool: ProcessPoolExecutor) -> None:
    """Shut ``pool`` down now: queued calls are dropped and running workers terminated. ``shutdown``
    alone lets each worker finish the call it holds, and on SIGTERM the server exited before they did,
    leaving them running."""
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
        return
    # Before 3.14 the workers are only reachable through the executor's own table of them.
    workers: dict[int, Any] = getattr(pool, "_processes", None) or {}
    for process in list(workers.values()):
        if process.is_alive():
            process.terminate()
    for process in list(workers.values()):
        process.join(timeout=5)


def _pool(workers: int) -> ProcessPoolExecutor:
    # spawn: the server holds threads and sockets that a forked child must not inherit.
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent
    )


class Thinkers:
    """The process pools where bots and hints search, made on first use; at most ``hint_max_running``
    hints at once in this process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.pools: dict[str, ProcessPoolExecutor] = {}
        self.hints_running = 0
        self.waiting = {"bots": 0, "hints": 0}  # calls sent to each pool and not yet answered

    def shared_deadline(self, kind: str, deadline: float) -> float:
        """``deadline`` brought nearer when more calls wait than the pool has workers: each gets its share of
        the workers' time, so a queue makes every search shorter instead of every answer later."""
        workers = self.settings.think_workers if kind == "bots" else self.settings.hint_workers
        share = min(1.0, workers / max(1, self.waiting[kind]))
        now = time.time()
        return now + max(0.0, deadline - now) * share

    def _pool(self, kind: str) -> ProcessPoolExecutor:
        pool = self.pools.get(kind)
        if pool is None:
            workers = self.settings.think_workers if kind == "bots" else self.settings.hint_workers
            pool = self.pools[kind] = _pool(workers)
        return pool

    async def _run(self, kind: str, fn: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(kind), functools.partial(fn, *args))
        except BrokenProcessPool:  # a worker died (killed, out of memory): the next call gets a fresh pool
            broken = self.pools.pop(kind, None)
            if broken is not None:
                end_pool(broken)
            raise
        finally:
            self.waiting[kind] -= 1

    async def move(
        self,
        spec: str,
        seat: int,
        seats: int,
        players: Sequence[str | None],
        view: View,
        deadline: float,
        memory: dict[str, Any] | None = None,
    ) -> str:
        """The bot ``spec``'s move at ``view`` (its text), searched until ``deadline`` (epoch seconds); ``memory``:
        what the bot read from the table's earlier games (:func:`catsack.server.tables.think_worker.bot_move`)."""
        seed = secrets.randbits(32)
        floor = self.settings.think_min_iterations
        self.waiting["bots"] += 1
        deadline = self.shared_deadline("bots", deadline)
        return await self._run("bots", bot_move, spec, seed, seat, seats, list(players), view, deadline, floor, memory)

    def hint_slot(self) -> bool:
        """Take one of this process's hint slots; ``False`` when all are busy."""
        if self.hints_running >= self.settings.hint_max_running:
            return False
        self.hints_running += 1
        return True

    def hint_done(self) -> None:
        self.hints_running -= 1

    async def hint(self, view: View, players: Sequence[str | None] | None) -> dict[str, Any]:
        """The expert's advice at ``view`` within ``hint_seconds`` (at least ``think_min_iterations``)."""
        s = self.settings
        self.waiting["hints"] += 1
        deadline = self.shared_deadline("hints", time.time() + s.hint_seconds)
        seed = secrets.randbits(32)
        kinds = None if players is None else list(players)
        return await self._run("hints", hint, view, seed, kinds, deadline, s.think_min_iterations)

    def stop(self) -> None:
        for pool in self.pools.values():
            end_pool(pool)
        self.pools.clear()
