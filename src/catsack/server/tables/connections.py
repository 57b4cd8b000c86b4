"""The connections of the tables held here, and which seats are connected (presence).

A seat counts as present while a connection of it is open here or at another process; processes
tell each other (catsack.server.tables.fanout) and the database (when each last saw the seat) so that the
grace period runs only for a seat nobody has open anywhere.
"""

from __future__ import annotations

import asyncio
import logging
import time

from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import Conn, LiveTable

log = logging.getLogger("catsack.server")

#: How long a seat counts as connected to another process after that process last said so. Processes
#: repeat it for every connected seat every PRESENCE_REFRESH seconds, and say at once when a seat's
#: first connection opens or its last one closes.
PRESENCE_REFRESH = 30.0
PRESENCE_TTL = 3 * PRESENCE_REFRESH


class Connections:
    """Attaches and detaches the connections of the tables, and writes which seats are connected."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub
        self.touched: set[tuple[str, int]] = set()  # seats connected here since the last presence write
        self.touched_all = 0.0  # time.monotonic() of the last write of every connected seat

    def attach(self, table: LiveTable, conn: Conn) -> LiveTable:
        """Add ``conn`` to ``table`` and send it the state; the table it was attached to (the one
        this process holds: ``table`` may have been dropped, or reloaded, since the caller got it)."""
        hub = self.hub
        held = hub.tables.get(table.id)
        behind = False
        if held is None:  # dropped while the hello was checked: hold it again, and read what it missed
            hub.tables[table.id] = table
            behind = True
        elif held is not table:
            if conn.seat is not None and table.players[conn.seat].token_hash != held.players[conn.seat].token_hash:
                behind = True  # the reloaded copy must agree on the seat: catch it up first
            table = held
        conn.table = table
        first = conn.seat is not None and not any(c.seat == conn.seat for c in table.conns)
        table.conns.add(conn)
        table.touched = time.monotonic()
        if conn.seat is not None:
            table.players[conn.seat].away_since = None
            self.touched.add((table.id, conn.seat))
            table.players_changed()
            if first and hub.fanout is not None:
                hub.fanout.publish({"k": "p", "t": table.id, "s": conn.seat, "on": 1})
        if not table.driver and not table.game.is_over and hub.fanout is not None:
            hub.loops.spawn(hub.claim(table))
        if behind or (conn.since is not None and conn.since > table.version):
            # The client saw a later version, on another process: read it before showing a state,
            # or the client would see the table go back.
            hub.loops.spawn(self.attach_behind(table, conn))
        else:
            conn.push(Conn.FULL)
        return table

    async def attach_behind(self, table: LiveTable, conn: Conn) -> None:
        """Catch ``table`` up with the database, then send ``conn`` its state."""
        try:
            async with table.lock:
                await self.hub.catch_up(table)
        except Exception:  # the database is away: show what this process has
            log.exception("catch-up on hello failed", extra={"fields": {"table": table.id}})
        finally:
            conn.push(Conn.FULL)

    def detach(self, conn: Conn) -> None:
        """Take ``conn`` off its table; a table nobody here needs any more is handed over or let go."""
        hub = self.hub
        table = conn.table
        if table is None or conn not in table.conns:
            return
        table.conns.discard(conn)
        table.touched = time.monotonic()
        if conn.seat is not None and not any(c.seat == conn.seat for c in table.conns):
            table.players[conn.seat].away_since = time.monotonic()
            table.players_changed()
            if hub.fanout is not None:
                hub.fanout.publish({"k": "p", "t": table.id, "s": conn.seat, "on": 0})
        if not table.conns and table.driver and table.wanted_by is not None:
            # Another process asked for this table while players were here: they are gone now.
            hub.loops.spawn(hub.hand(table, table.wanted_by))
            table.wanted_by = None
        elif not table.conns and not table.driver and hub.fanout is not None:
            # Nobody here needs this table's moves any more: tell its driver, and let it go.
            hub.fanout.publish({"k": "unwant", "t": table.id})
            hub.forget(table)

    @staticmethod
    def drop_seat(table: LiveTable, seat: int) -> None:
        """The seat's token stopped working: tell its connections and turn them into spectators."""
        if table.players[seat].kind == "bot":
            message = "A bot now plays your seat; you are watching."
        else:
            message = "This seat was taken over with a new link; you are watching here."
        for c in list(table.conns):
            if c.seat == seat:
                c.push({"type": "error", "code": "replaced", "message": message})
                c.seat = None
                c.push(Conn.FULL)

    async def write_presence(self, now: float) -> None:
        """Tell the other processes which seats are connected here: the seats that connected since the
        last sweep at once, and every connected seat a few times per grace period."""
        hub = self.hub
        seats = self.touched
        self.touched = set()
        if now - self.touched_all >= min(hub.settings.grace_seconds / 4.0, PRESENCE_REFRESH):
            self.touched_all = now
            tables = hub.tables.values()
            connected = {(t.id, c.seat) for t in tables for c in t.conns if c.seat is not None}
            seats |= connected
            relayed = sorted(t.id for t in tables if t.conns and not t.driver)
            if hub.fanout is not None and (connected or relayed):
                hub.fanout.publish({"k": "pa", "seats": sorted(connected), "w": relayed})
        if seats:
            await asyncio.to_thread(hub.store.touch_seats, sorted(seats))
