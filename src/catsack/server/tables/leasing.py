"""Which process drives a table: leases, adoption of dead processes' tables, and hand-over.

With several processes (CATSACK_REDIS_URL) each table is driven (its bots, timers and clocks run) by
the one process holding its lease in the database; the others only relay its moves to their
connections. A process whose heartbeat runs out has its tables adopted; a table whose players connect
to another process is handed over to it once none of its players is left here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

from catsack.server.tables.bus import TablesAdopted
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.leases import Heartbeat
from catsack.server.tables.live import LiveTable
from catsack.server.tables.turnbased import realtime_unfinished_ids

log = logging.getLogger("catsack.server")

#: The full lease sync runs every this many lease periods (``lease_seconds``).
LEASE_SYNC_LEASES = 5
#: After a process starts driving a table, how long it sends every move out before it relies on the
#: "want" answers of the processes with players there.
ANNOUNCE_SECONDS = 5.0


class Leasing:
    """The leases of one process's tables, kept in the database (catsack.server.storage.store)."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub
        self.heartbeat: Heartbeat | None = None
        self.stray: set[str] = set()  # leases held for tables no longer here at the end of the last sync
        self.claiming: set[str] = set()  # tables whose lease this process is asking for

    async def resumable(self) -> list[str]:
        """At start: the tables this process takes over and loads now (their "your turn" mails that a
        dead process had not queued are queued)."""
        hub = self.hub
        s = hub.settings
        if s.redis_url:
            # Several processes: the tables of processes that died (or stopped) are adopted; those of
            # live processes stay theirs, and come here when their players do (hand-over, below).
            ids = sorted(await asyncio.to_thread(hub.store.leases.adopt, hub.process_id, s.lease_seconds))
            await self.missed_turn_mails(ids)
            # Turn-based games are not loaded: they wait in the database until someone opens one or
            # its clock needs driving (the clock sweep); a lease of one adopted here lapses at the sync.
            realtime = set(await asyncio.to_thread(realtime_unfinished_ids, hub.store.engine))
            return [i for i in ids if i in realtime]
        # A lone process (several need CATSACK_REDIS_URL, docs/deploy.md): any lease in the database is
        # a dead predecessor's (a crash, kill -9). Take the tables over now instead of leaving bots and
        # turn timers idle until those leases run out.
        await asyncio.to_thread(hub.store.leases.release_leases_of_others, hub.process_id)
        ids = await asyncio.to_thread(realtime_unfinished_ids, hub.store.engine)
        await self.missed_turn_mails(None)
        return list(ids)

    def start(self) -> None:
        """Start the heartbeat thread (catsack.server.tables.leases)."""
        s = self.hub.settings
        self.heartbeat = Heartbeat(
            self.hub.store,
            self.hub.process_id,
            s.lease_seconds,
            s.lease_seconds / 6.0,
            asyncio.get_running_loop(),
            self.on_dead,
        )
        self.heartbeat.start()

    async def stop(self) -> None:
        """Stop the heartbeat, and retire this process so that the others adopt its tables at once."""
        if self.heartbeat is not None:
            await asyncio.to_thread(self.heartbeat.stop)
        # Hand the tables over at once instead of after the heartbeat runs out: the others see this
        # process retired at their next beat and adopt its leases (those without players too).
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.hub.store.leases.retire, self.hub.process_id)

    def driving(self) -> int:
        """How many live tables this process drives (holds the lease of)."""
        return sum(1 for t in self.hub.tables.values() if t.driver)

    async def sync(self, *, fresh: bool = False) -> None:
        """Renew this process's heartbeat, take the free (or a dead holder's) leases of its live
        unfinished tables, give up those of finished tables; start driving the tables gained (after
        reading what the last holder appended, unless they were ``fresh``ly loaded) and stop driving
        the ones lost (taken by a process that thought this one dead)."""
        hub = self.hub
        tables = list(hub.tables.values())  # tables loaded meanwhile keep what get() gave them
        # A table whose driving changed while the database answered (a hand-over, a claim, an
        # adoption) keeps what that change decided: the answer may predate it.
        before = {t.id: t.driver for t in tables}
        want = [t.id for t in tables if not t.game.is_over]
        done = [t.id for t in tables if t.game.is_over and t.driver]
        # Leases held for tables no longer here at the end of the last sync (an eviction racing with
        # a sync) and still not here: give them up, or no other process could ever take them.
        done += [i for i in self.stray if i not in hub.tables]
        held = await asyncio.to_thread(
            hub.store.leases.sync_leases, hub.process_id, want, hub.settings.lease_seconds, release=done
        )
        self.stray = held - hub.tables.keys()
        for table in tables:
            if hub.tables.get(table.id) is not table or table.driver != before[table.id]:
                continue  # evicted, or its driving changed, meanwhile
            if table.id in held and not table.driver:
                await self.drive(table, catch_up=not fresh)
                if not fresh:
                    log.info("lease taken", extra={"fields": {"table": table.id}})
            elif table.driver and table.id not in held and not table.game.is_over:
                table.driver = False
                if table.task is not None:
                    table.task.cancel()
                    table.task = None
                log.warning("lease lost", extra={"fields": {"table": table.id}})

    async def drive(self, table: LiveTable, *, catch_up: bool = True) -> None:
        """Start driving ``table`` (its lease is ours now): read what the last holder appended, then
        start its bot or timer."""
        async with table.lock:
            if table.driver:
                return
            table.driver = True
            # Processes with players of this table learn who drives it now, and answer with "want";
            # until they have, every move goes out.
            table.announce_until = time.monotonic() + ANNOUNCE_SECONDS
            if self.hub.fanout is not None:
                self.hub.fanout.publish({"k": "driver", "t": table.id})
            if catch_up:
                await self.hub.catch_up(table)
            self.hub.schedule(table, resume=True)

    async def keeper(self) -> None:
        """Tell the heartbeat thread the event loop is alive, and sync the leases now and then
        (tables whose lease came free; leases lost to a process that thought this one dead). Dead
        processes are noticed by the heartbeat thread, not here: this can be slow and cheap."""
        s = self.hub.settings
        step = s.lease_seconds / 4.0
        synced = time.monotonic()
        while True:
            await asyncio.sleep(step)
            now = time.monotonic()
            if self.heartbeat is not None:
                self.heartbeat.tick = now
            if now - synced < LEASE_SYNC_LEASES * s.lease_seconds:
                continue
            synced = now
            try:
                await self.sync()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: keep trying; the heartbeat runs out meanwhile
                log.exception("lease renewal failed")

    def on_dead(self, dead: list[str]) -> None:
        """The heartbeat thread saw processes whose heartbeat ran out: adopt their tables."""
        for table in self.hub.tables.values():
            for origin in dead:
                table.listeners.pop(origin, None)
                if table.elsewhere_gone(origin):
                    table.players_changed()
        self.hub.loops.spawn(self.adopt(dead))

    async def adopt(self, dead: list[str]) -> None:
        """Take the leases of the dead processes' tables, and drive the unfinished ones."""
        hub = self.hub
        try:
            taken = await asyncio.to_thread(hub.store.leases.adopt, hub.process_id, hub.settings.lease_seconds, dead)
            await self.missed_turn_mails(sorted(taken))
            for table_id in sorted(taken):
                table = await hub.get(table_id)
                if table is not None and not table.game.is_over:
                    await self.drive(table)
            if taken:
                log.info("tables adopted", extra={"fields": {"tables": len(taken), "from": dead}})
        except Exception:
            log.exception("adopting the tables of a dead process failed")

    async def missed_turn_mails(self, table_ids: list[str] | None) -> None:
        """Tell the listeners that this process took these tables over (``None``: all of them): the
        "your turn" mails a dead process had not queued yet are queued (catsack.server.people.mail)."""
        await self.hub.events.publish(TablesAdopted(None if table_ids is None else tuple(table_ids)))

    async def claim(self, table: LiveTable) -> None:
        """A player connected here to a table another process drives: take its lease if it is free
        (or its holder dead), else ask the holder to hand it over once it has no players of its own.
        So a table's bots, timers and moves end up in the process its players are routed to."""
        hub = self.hub
        if table.driver or table.game.is_over or table.id in self.claiming:
            return
        self.claiming.add(table.id)
        try:
            lease = hub.settings.lease_seconds
            held = await asyncio.to_thread(hub.store.leases.take_leases, hub.process_id, [table.id], lease)
            if table.id in held:
                await self.drive(table)
            elif hub.fanout is not None:
                hub.fanout.publish({"k": "want", "t": table.id})
        except Exception:
            log.exception("lease claim failed", extra={"fields": {"table": table.id}})
        finally:
            self.claiming.discard(table.id)

    async def hand(self, table: LiveTable, to: str) -> None:
        """Give the lease of ``table`` (driven here, nobody connected here) to process ``to``."""
        hub = self.hub
        try:
            async with table.lock:
                if not table.driver or table.conns or hub.tables.get(table.id) is not table:
                    return
                if not await hub.writer.run(hub.store.leases.hand_lease, hub.process_id, to, table.id):
                    return
                table.driver = False
                if hub.fanout is not None:  # after every move of ours: the queue keeps the order
                    hub.fanout.publish({"k": "handed", "t": table.id, "to": to})
                hub.forget(table)
            log.info("lease handed over", extra={"fields": {"table": table.id, "to": to}})
        except Exception:
            log.exception("lease hand-over failed", extra={"fields": {"table": table.id}})
