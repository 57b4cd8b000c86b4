"""A server process's heartbeat: the proof, renewed a few times a second, that it still drives its tables.

A lease in ``table_leases`` is valid while its holder's row in ``server_processes`` has not run
out (:meth:`~catsack.server.storage.leases.Leases.heartbeat`): one small write per beat however many tables
the process drives, so the beat can be frequent and a dead process is noticed in about
``lease_seconds`` (the stall after a ``kill -9`` of the driving process).

The beat runs in a thread of its own, so a busy event loop (a burst of moves, a long garbage
collection) does not make a live process look dead and have its tables taken over. It beats only
while the event loop has ticked recently: a process whose loop hangs for good stops beating, and
its tables go to a live process.

**A closed connection tells sooner (PostgreSQL).** Each process holds an advisory lock, keyed by its
id, on the connection it beats with. When a process dies (``kill -9``, a crash) the operating
system closes that connection and PostgreSQL drops the lock at once, long before the heartbeat runs
out. At every beat each process also reads which of the others still hold their lock: one whose lock
it saw held before, that holds it no more, and that has not beaten since the last look is dead; it
ends that heartbeat itself (only if the row is still as it read it, so a process that beat meanwhile
stays alive) and adopts the tables. So a table stands still for about one or two beats
(``lease_seconds / 6`` each) plus the take-over, instead of ``lease_seconds`` and more. A process
that loses its connection while alive (the database restarted) takes its lock again at its next
beat; a process that beats but whose event loop hangs keeps its lock and is found by its heartbeat
running out, as before. A process that never held a lock (an earlier release) is judged by its
heartbeat alone, and so is every process on SQLite (one process only).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy import Connection, func, select, text, update
from sqlalchemy.exc import DBAPIError

from catsack.server.storage.store import Store, processes_t

__all__ = ["Heartbeat"]

log = logging.getLogger("catsack.server")

#: Every other process whose heartbeat has not run out, and whether the connection it beats with still
#: holds its advisory lock (keyed by ``hashtextextended(holder, 0)``; PostgreSQL keeps a bigint key in
#: ``pg_locks`` as its high and low 32 bits).
_LIVENESS = text(
    f"""
    SELECT p.holder, p.expires,
           EXISTS (
               SELECT 1 FROM pg_locks l
               WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
                 AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                 AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended(p.holder, 0)
           ) AS locked
    FROM {processes_t.name} p
    WHERE p.holder <> :me AND p.expires >= :now
    """
)


class Heartbeat:
    """Renew ``holder``'s heartbeat every ``interval`` seconds (valid ``seconds``) and report the dead
    holders it sees to ``on_dead`` (called in the event loop)."""

    def __init__(
        self,
        store: Store,
        holder: str,
        seconds: float,
        interval: float,
        loop: asyncio.AbstractEventLoop,
        on_dead: Callable[[list[str]], None],
        *,
        hung_after: float = 10.0,
    ) -> None:
        self.store = store
        self.holder = holder
        self.seconds = seconds
        self.interval = interval
        self.loop = loop
        self.on_dead = on_dead
        self.hung_after = max(hung_after, 3.0 * seconds)
        self.tick = time.monotonic()  # set by the event loop (Leasing.keeper): the loop is alive
        self.beats = 0
        self._conn: Connection | None = None
        #: PostgreSQL: the liveness lock on the beat's connection, and what the last beats saw of the
        #: others' (holders seen holding theirs; each holder's heartbeat at the last look).
        self.locks = store.engine.dialect.name == "postgresql"
        self._locked: set[str] = set()
        self._looked: dict[str, float] = {}
        self._stop = threading.Event()
        self._failing = False
        self._thread = threading.Thread(target=self._run, name="catsack-heartbeat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5.0)
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None

    def beat(self) -> list[str]:
        """One beat now: renew, and return the dead holders seen."""
        now = time.time()
        try:
            if self._conn is None:
                self._conn = self.store.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
                if self.locks:
                    self._conn.execute(select(func.pg_try_advisory_lock(func.hashtextextended(self.holder, 0))))
                    # A lock not seen since this connection began proves nothing about its holder.
                    self._locked.clear()
                    self._looked.clear()
            dead = self.store.leases.heartbeat(self.holder, self.seconds, now, conn=self._conn)
            if self.locks:
                dead += [h for h in self._lock_lost(self._conn, now) if h not in dead]
        except Exception as exc:
            # A statement that failed on a connection that still works keeps it (and the lock on it, so no
            # other process takes this one for dead); a lost connection is made again at the next beat.
            lost = not isinstance(exc, DBAPIError) or exc.connection_invalidated
            if lost or (self._conn is not None and self._conn.invalidated):
                conn, self._conn = self._conn, None
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
            elif self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.rollback()
            raise
        self.beats += 1
        return dead

    def _lock_lost(self, conn: Connection, now: float) -> list[str]:
        """The processes whose liveness lock is gone (their connection closed: they died) and that have not
        beaten since the last look; their heartbeat is ended here, so that they can be adopted at once."""
        gone = []
        looked = {}
        for r in conn.execute(_LIVENESS, {"me": self.holder, "now": now}):
            looked[r.holder] = r.expires
            if r.locked:
                self._locked.add(r.holder)
            elif r.holder in self._locked and self._looked.get(r.holder) == r.expires:
                ended = conn.execute(
                    update(processes_t)
                    .where(processes_t.c.holder == r.holder, processes_t.c.expires == r.expires)
                    .values(expires=0.0)
                )
                if ended.rowcount == 1:
                    gone.append(r.holder)
                    log.info("process gone: its connection closed", extra={"fields": {"holder": r.holder}})
        self._looked = looked
        self._locked &= looked.keys()
        return gone

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if time.monotonic() - self.tick > self.hung_after:
                continue  # the event loop hangs: let the leases run out
            try:
                dead = self.beat()
            except Exception:  # the database is away: keep trying; the heartbeat runs out meanwhile
                if not self._failing:
                    log.exception("heartbeat failed")
                self._failing = True
                continue
            self._failing = False
            if dead:
                try:
                    self.loop.call_soon_threadsafe(self.on_dead, dead)
                except RuntimeError:  # the loop closed: the process is stopping
                    return
