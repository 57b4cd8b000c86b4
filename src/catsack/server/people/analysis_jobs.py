"""Post-game analysis on the server: a pool of worker processes, progress, storage.

For a finished game and one seat, every decision the seat made is searched
with :func:`catsack.advice.analysis.analyse_view` at the library's default level
(unless ``CATSACK_ANALYSIS_LEVEL`` names another), exactly as
:func:`catsack.advice.analysis.analyse_record` does it: the seat's view at that
ply (R23: nothing hidden), the move played among the options, and the seed
``seed * 1000 + ply``. So ``catsack analyse RECORD --seat N --seed S`` prints the
same numbers (tested). Decisions are searched one task each in a
:class:`~concurrent.futures.ProcessPoolExecutor` whose workers run at a lower
CPU priority, never on the event loop that serves live tables.

Each decision gets the value the player lost, ``value(preferred) - value(played)``
in points (0 when the played move is the preferred one; never negative), and a
class from :data:`THRESHOLDS`. How they were calibrated: ``bench/analysis_load.py
--calibrate`` (see its docstring and docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from catsack.record import Record, dumps_record, record_from_game
from catsack.server.storage.analysis_store import AnalysisRow, AnalysisStore
from catsack.server.tables.analysis_worker import THRESHOLDS, analyse_decision, annotate, classify, lower_priority
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import TableError
from catsack.server.tables.thinking import end_pool

__all__ = [
    "THRESHOLDS",
    "AnalysisJobs",
    "AnalysisSettings",
    "analyse_decision",
    "annotate",
    "classify",
    "decision_plies",
    "seed_for",
    "summarise",
]

log = logging.getLogger("catsack.server")

#: How often a running analysis writes its progress to the database (this process answers from memory).
PROGRESS_WRITE_SECONDS = 15.0


class AnalysisSettings(BaseSettings):
    """Knobs of the analysis pool, from ``CATSACK_ANALYSIS_*`` environment variables."""

    model_config = SettingsConfigDict(env_prefix="CATSACK_ANALYSIS_", extra="ignore")

    #: Analysis level (``easy``, ``normal``, ``strong``, ``iters=N`` …); empty: the library's default.
    level: str = ""
    #: Worker processes searching decisions (the machine's other cores serve live tables).
    workers: int = Field(default=1, ge=1, le=64)
    #: Analyses one client address may have running at once.
    per_address: int = Field(default=2, ge=1)
    #: Analyses running in this process at once (all addresses).
    max_running: int = Field(default=8, ge=1)
    #: A running analysis whose row was not updated for this long (its process died) is taken over.
    stale_seconds: float = Field(default=300.0, gt=0)
    #: Worker processes' niceness increment (0: same priority as the server).
    nice: int = Field(default=10, ge=0, le=19)


def seed_for(table_id: str) -> int:
    """The analysis seed of a table: fixed, so an analysis can be repeated with ``catsack analyse``."""
    return int.from_bytes(hashlib.sha256(table_id.encode()).digest()[:3], "big")


def check_level(level: str | None) -> None:
    """Refuse a level the analysis does not know (a misconfigured server: 503) before any work."""
    if level is None:
        return
    from catsack.advice.analysis import analyse_record
    from catsack.errors import CatsackError
    from catsack.game import Game

    try:  # a game without moves: only the level is checked
        analyse_record(record_from_game(Game.new(3, seed=0)), 0, level=level)
    except CatsackError as exc:
        raise TableError("misconfigured", f"the server's analysis level is wrong: {exc}", 503) from None


def decision_plies(record: Record, seat: int) -> list[int]:
    """The plies (0-based move numbers) at which ``seat`` was to move."""
    from catsack.advice.analysis import game_for_seat
    from catsack.game import Game

    game = game_for_seat(record, seat)
    replay = Game(game.setup)
    out = []
    for ply, move in enumerate(game.moves):
        if replay.to_move == seat:
            out.append(ply)
        replay.play(move)
    return out


def summarise(decisions: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-seat summary: decisions, points lost in all and per decision (the "accuracy"), classes."""
    n = len(decisions)
    lost = sum(d["lost"] for d in decisions)
    counts = {name: sum(d["class"] == name for d in decisions) for name, _ in THRESHOLDS}
    return {
        "decisions": n,
        "lost": round(lost, 3),
        "lost_per_decision": round(lost / n, 3) if n else 0.0,
        "agreed": sum(d["played"] == d["best"] for d in decisions),
        **counts,
    }


@dataclass
class Job:
    table_id: str
    seat: int
    level: str
    seed: int
    address: str
    total: int
    done: int = 0
    task: asyncio.Task[None] | None = None
    decisions: list[dict[str, Any]] = field(default_factory=list)


class AnalysisJobs:
    """The analyses of one server process: start, progress, results (stored, served again)."""

    def __init__(self, hub: Hub, settings: AnalysisSettings | None = None) -> None:
        self.hub = hub
        self.settings = settings or AnalysisSettings()
        self.store = AnalysisStore(hub.store.engine)
        self.pool: ProcessPoolExecutor | None = None
        self.jobs: dict[tuple[str, int, str], Job] = {}
        self.by_address: dict[str, int] = {}  # analyses running or starting, per client address
        self.running = 0  # analyses running or starting, all addresses
        #: Test and benchmark hook: called with (job, decision) after each decision.
        self.on_decision: Callable[[Job, dict[str, Any]], None] | None = None

    @property
    def level(self) -> str | None:
        return self.settings.level or None

    @property
    def level_key(self) -> str:
        return self.settings.level or "default"

    async def stop(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None:
                job.task.cancel()
        await asyncio.gather(*(j.task for j in self.jobs.values() if j.task is not None), return_exceptions=True)
        if self.pool is not None:
            end_pool(self.pool)
            self.pool = None

    def _pool(self) -> ProcessPoolExecutor:
        if self.pool is None:
            # spawn: the server process holds threads and sockets that a forked child must not inherit.
            self.pool = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=lower_priority,
                initargs=(self.settings.nice,),
            )
        return self.pool

    # ------------------------------------------------------------------ answers

    def _answer(self, table_id: str, seat: int, row: AnalysisRow | None, job: Job | None) -> dict[str, Any]:
        out: dict[str, Any] = {"table": table_id, "seat": seat, "level": self.level_key}
        if job is not None:
            return {**out, "status": "running", "seed": job.seed, "done": job.done, "total": job.total, "result": None}
        if row is None:
            return {**out, "status": "none", "seed": seed_for(table_id), "done": 0, "total": 0, "result": None}
        return {
            **out,
            "status": row.status,
            "seed": row.seed,
            "done": row.done,
            "total": row.total,
            "result": row.result,
        }

    async def status(self, table_id: str, seat: int) -> dict[str, Any]:
        job = self.jobs.get((table_id, seat, self.level_key))
        if job is not None:
            return self._answer(table_id, seat, None, job)
        row = await asyncio.to_thread(self.store.get, table_id, seat, self.level_key)
        return self._answer(table_id, seat, row, None)

    async def request(self, table_id: str, seat: int, record: Record, address: str) -> dict[str, Any]:
        """Start the analysis of ``seat`` in the finished game ``record`` (or answer its progress or result)."""
        key = (table_id, seat, self.level_key)
        job = self.jobs.get(key)
        if job is not None:
            return self._answer(table_id, seat, None, job)
        row = await asyncio.to_thread(self.store.get, table_id, seat, self.level_key)
        if row is not None and row.status == "done":
            return self._answer(table_id, seat, row, None)
        # Check and count in one step, with no await between (four requests at once
        # all passed the check before any was counted). The slot is given back unless a job takes it.
        self._reserve(address)
        started = False
        try:
            check_level(self.level)
            plies = await asyncio.to_thread(decision_plies, record, seat)
            seed = seed_for(table_id)
            claim = functools.partial(self.store.claim, stale_after=self.settings.stale_seconds)
            claimed = await self.hub.writer.run(claim, table_id, seat, self.level_key, seed, len(plies))
            if not claimed:  # done meanwhile, or running in another server process
                row = await asyncio.to_thread(self.store.get, table_id, seat, self.level_key)
                return self._answer(table_id, seat, row, None)
            job = self.jobs.get(key)
            if job is not None:  # the same analysis, asked for twice at once: one job
                return self._answer(table_id, seat, None, job)
            job = Job(table_id, seat, self.level_key, seed, address, len(plies))
            self.jobs[key] = job
            job.task = asyncio.create_task(self._run(job, dumps_record(record, indent=None), plies))
            started = True
        finally:
            if not started:
                self._release(address)
        log.info("analysis started", extra={"fields": {"table": table_id, "seat": seat, "decisions": len(plies)}})
        return self._answer(table_id, seat, None, job)

    def _reserve(self, address: str) -> None:
        """Count an analysis of ``address`` (started or starting), or refuse it with 429."""
        if self.by_address.get(address, 0) >= self.settings.per_address:
            raise TableError(
                "busy",
                f"you already have {self.settings.per_address} analyses running: wait until one is done",
                429,
            )
        if self.running >= self.settings.max_running:
            raise TableError("busy", "the server is busy with other analyses: try again in a minute", 429)
        self.by_address[address] = self.by_address.get(address, 0) + 1
        self.running += 1

    def _release(self, address: str) -> None:
        self.running -= 1
        left = self.by_address.get(address, 1) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    async def _run(self, job: Job, record_text: str, plies: list[int]) -> None:
        loop = asyncio.get_running_loop()
        key = (job.table_id, job.seat, job.level)
        t0 = time.monotonic()
        status, result = "failed", None
        futures: list[asyncio.Future[dict[str, Any]]] = []
        try:
            pool = self._pool()
            futures = [
                loop.run_in_executor(pool, analyse_decision, record_text, job.seat, ply, self.level, job.seed)
                for ply in plies
            ]
            last_write = time.monotonic()
            for fut in asyncio.as_completed(futures):
                decision = await fut
                job.decisions.append(decision)
                job.done += 1
                if self.on_decision is not None:
                    self.on_decision(job, decision)
                # Progress for other server processes (and proof of life against a take-over), rarely:
                # database writes share one thread with the live tables' moves.
                if time.monotonic() - last_write > PROGRESS_WRITE_SECONDS:
                    last_write = time.monotonic()
                    await self.hub.writer.run(self.store.progress, job.table_id, job.seat, job.level, job.done)
            decisions = sorted(job.decisions, key=lambda d: int(d["ply"]))
            result = {
                "decisions": decisions,
                "summary": summarise(decisions),
                "thresholds": {name: t for name, t in THRESHOLDS},
                "seconds": round(time.monotonic() - t0, 2),
            }
            status = "done"
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, BrokenProcessPool):  # a worker died: the next analysis gets a fresh pool
                self.pool = None
            log.exception("analysis failed", extra={"fields": {"table": job.table_id, "seat": job.seat}})
            result = {"error": str(exc)[:300], "decisions": []}
        finally:
            for fut in futures:  # after a failure or a cancel: drop the rest, and collect their outcomes
                fut.cancel()
            await asyncio.gather(*futures, return_exceptions=True)
            self.jobs.pop(key, None)
            self._release(job.address)
            if status == "done" or result is not None:
                try:
                    await self.hub.writer.run(self.store.finish, job.table_id, job.seat, job.level, status, result)
                except Exception:
                    log.exception("analysis not stored", extra={"fields": {"table": job.table_id}})
        log.info(
            "analysis done",
            extra={"fields": {"table": job.table_id, "seat": job.seat, "seconds": round(time.monotonic() - t0, 2)}},
        )
