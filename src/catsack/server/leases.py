"""A server process's heartbeat: the proof, renewed a few times a second, that it still drives its tables.

A lease in ``table_leases`` is valid while its holder's row in ``server_processes`` has not run
out (:meth:`~catsack.server.store.Store.heartbeat`): one small write per beat however many tables
the process drives, so the beat can be frequent and a dead process is noticed in about
``lease_seconds`` (issue 29: the stall after a ``kill -9`` of the driving process).

The beat runs in a thread of its own, so a busy event loop (a burst of moves, a long garbage
collection) does not make a live process look dead and have its tables taken over. It beats only
while the event loop has ticked recently: a process whose loop hangs for good stops beating, and
its tables go to a live process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Callable

from sqlalchemy import Connection

from catsack.server.store import Store

__all__ = ["Heartbeat"]

log = logging.getLogger("catsack.server")


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
        self.tick = time.monotonic()  # set by the event loop (Hub._lease_keeper): the loop is alive
        self.beats = 0
        self._conn: Connection | None = None
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
        if self._conn is None:
            self._conn = self.store.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            dead = self.store.heartbeat(self.holder, self.seconds, conn=self._conn)
        except Exception:
            conn, self._conn = self._conn, None  # a new connection next time (the database restarted?)
            with contextlib.suppress(Exception):
                conn.close()
            raise
        self.beats += 1
        return dead

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
