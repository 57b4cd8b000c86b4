"""The sweep over the tables held here: grace periods, eviction, version gaps, retention and the
turn-based games whose clock needs driving.

A table nobody looks at is let go once it has been idle long enough for its state (it waits in the
database); its memory and that of closed connections goes back to the system.
"""

from __future__ import annotations

import asyncio
import logging
import time

from catsack.server.tables.connections import Connections
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import LiveTable
from catsack.server.tables.retention import prune
from catsack.server.tables.runtime import malloc_trim
from catsack.server.tables.turnbased import due_tables

log = logging.getLogger("catsack.server")


class Housekeeping:
    """Sweeps the tables of one process: who is gone past the grace period, what can be let go."""

    def __init__(self, hub: Coordinator, connections: Connections) -> None:
        self.hub = hub
        self.connections = connections
        self.evicted = 0  # tables let go since the allocator was last asked to give memory back
        self.trimmed = 0.0  # time.monotonic() of the last time it was asked
        self.pruned = 0.0  # time.monotonic() of the last retention pass

    async def sweeper(self) -> None:
        """The sweep, every ``sweep_seconds``."""
        while True:
            await asyncio.sleep(self.hub.settings.sweep_seconds)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep failed")

    async def sweep(self, now: float | None = None) -> None:
        """Grace periods, eviction and version gaps across processes."""
        hub = self.hub
        now = time.monotonic() if now is None else now
        await self.connections.write_presence(now)
        for table in list(hub.tables.values()):
            # A turn-based seat is never handed to a bot for being away: its clock is the only limit.
            if table.status == "playing" and table.driver and table.clock is None:
                await self.grace(table, now)
            if not table.conns:
                await self.evict_idle(table, now)
        if hub.fanout is not None:
            await self.close_gaps()
        await self.retention(now)
        if (self.evicted or hub.sockets_dropped) and now - self.trimmed >= 2.0:
            # Memory of evicted tables and of closed connections (silent ones above all)
            # go back to the system instead of staying with the allocator.
            self.evicted, hub.sockets_dropped, self.trimmed = 0, 0, now
            await asyncio.to_thread(malloc_trim)

    async def grace(self, table: LiveTable, now: float) -> None:
        """A bot takes the seats of a real-time table whose people are gone past the grace period."""
        grace = self.hub.settings.grace_seconds
        away = [
            seat
            for seat, p in enumerate(table.players)
            if p.kind == "human"
            and p.away_since is not None
            and now - p.away_since >= grace
            and table.seat_status(seat) == "away"  # not connected to another process either
        ]
        if not away:
            return
        # Connected to another process? It writes when it last saw the seat.
        seen = await asyncio.to_thread(self.hub.store.seen, table.id)
        wall = time.time()
        for seat in away:
            last = seen.get(seat)
            since = table.players[seat].away_since
            if last is None and since is not None and now - since < arrival_wait(table, seat):
                continue  # mailed to come and not come yet: the seat waits longer
            if last is None or wall - last >= grace:
                await self.hub.replace(table, seat)

    async def evict_idle(self, table: LiveTable, now: float) -> None:
        """Let go of a table nobody here looks at, once it has been idle long enough for its state."""
        s = self.hub.settings
        idle = now - table.touched
        if table.clock is not None and table.status != "over":
            # Nobody looks at this turn-based game: it waits in the database (its clock is stored),
            # unless a bot is about to move.
            mover = table.game.to_move
            if idle >= s.evict_turn_based_seconds and (mover is None or table.players[mover].kind != "bot"):
                self.evict(table)
            return
        if table.status == "over" and idle >= s.evict_finished_seconds:
            self.evict(table)
        elif table.status == "open" and idle >= s.evict_open_seconds:
            await self.hub.writer.run(self.hub.store.set_status, table.id, "abandoned")
            self.evict(table)
        elif table.status == "playing" and idle >= s.evict_idle_seconds and not bots_only(table):
            self.evict(table)

    async def close_gaps(self) -> None:
        """A lost message shows as a version gap: read what is missing (one query for all tables)."""
        watched = [t for t in self.hub.tables.values() if (t.conns or t.driver) and not t.inbox]
        stored = await asyncio.to_thread(self.hub.store.versions, [t.id for t in watched])
        for table in watched:
            if stored.get(table.id, -1) > table.version:
                async with table.lock:
                    await self.hub.catch_up(table)

    async def retention(self, now: float) -> None:
        """Delete (after archiving, if set) finished games older than ``retention_days``, hourly."""
        s = self.hub.settings
        if not s.retention_days or now - self.pruned < 3600.0:
            return
        self.pruned = now
        n = await asyncio.to_thread(prune, self.hub.store, s.retention_days, s.retention_archive_dir)
        if n:
            log.info("finished games deleted", extra={"fields": {"tables": n, "days": s.retention_days}})

    def evict(self, table: LiveTable) -> None:
        """Let go of ``table`` here (and of its lease, if held)."""
        if table.task is not None:
            table.task.cancel()
        for b in table.bots.values():
            b.close()
        self.hub.tables.pop(table.id, None)
        self.evicted += 1
        if table.driver:  # another process holding it may drive it at once
            table.driver = False
            self.hub.loops.spawn(self.release(table.id))
        log.info("table evicted", extra={"fields": {"table": table.id, "status": table.status}})

    async def release(self, table_id: str) -> None:
        """Give up the lease of a table let go."""
        try:
            await asyncio.to_thread(self.hub.store.leases.release_leases, self.hub.process_id, [table_id])
        except Exception:  # it runs out by itself
            log.warning("lease release failed", extra={"fields": {"table": table_id}})

    def forget(self, table: LiveTable) -> None:
        """Drop a table this process neither drives nor has connections for: it would only cost a
        move applied per message. A later request loads it afresh from the database."""
        if table.conns or table.driver:  # a player attached meanwhile (during a hand-over's write)
            return
        if table.task is not None:
            table.task.cancel()
            table.task = None
        for b in table.bots.values():
            b.close()
        table.bots.clear()
        if self.hub.tables.get(table.id) is table:
            del self.hub.tables[table.id]
            self.evicted += 1

    async def clock_sweeper(self) -> None:
        """Load the turn-based games whose clock ran out or whose bot is to move while nobody had them
        open (after a restart too), so that they are driven; the others stay in the database."""
        while True:
            await asyncio.sleep(self.hub.settings.clock_sweep_seconds)
            try:
                await self.drive_due_tables()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock sweep failed")

    async def drive_due_tables(self) -> int:
        """One pass of :meth:`clock_sweeper`; how many tables it loaded."""
        hub = self.hub
        ids = await asyncio.to_thread(due_tables, hub.store.engine, hub.process_id, list(hub.tables))
        for table_id in ids:
            await hub.get(table_id, lease=True)
        return len(ids)


def bots_only(table: LiveTable) -> bool:
    """Whether only bots play ``table``'s unfinished game (it goes on with nobody looking)."""
    return all(p.kind == "bot" for p in table.players) and not table.game.is_over


def arrival_wait(table: LiveTable, seat: int) -> float:
    """How long ``seat`` is kept for a person who has not come to the table yet: a tournament table
    waits ``wait_seconds`` for the players it mailed (``mailed_seats``), any other seat nothing beyond
    the grace period."""
    if seat in (table.options.get("mailed_seats") or ()):
        return float(table.options.get("wait_seconds") or 0.0)
    return 0.0
