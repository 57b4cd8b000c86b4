"""The messages of the other processes about the tables held here (catsack.server.tables.fanout, Redis).

A move another process committed is played on this process's copy of the table, in the order the
messages came, without reading the database; anything that does not follow (a seat change, a lost
message: a version gap) makes the table read the database instead. The messages about presence and
leases keep track of which process has players of a table and which drives it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable
from typing import Any

from catsack.errors import CatsackError
from catsack.moves import Move
from catsack.server.tables.connections import PRESENCE_TTL
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import LiveTable

log = logging.getLogger("catsack.server")

_Handler = Callable[[LiveTable, str, dict[str, Any]], None]


class Relay:
    """Applies the messages of the other processes to the tables of this one."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub
        #: The handler of each kind of message about one table.
        self.handlers: dict[str, _Handler] = {
            "m": self.on_move,
            "seats": self.on_seats,
            "p": self.on_presence,
            "want": self.on_want,
            "unwant": self.on_unwant,
            "at": self.on_at,
            "driver": self.on_driver,
            "handed": self.on_handed,
        }

    def on_message(self, msg: dict[str, Any]) -> None:
        """One message from another process (catsack.server.tables.fanout). Runs in the subscriber's loop
        without waiting: what needs the database or a busy table's lock goes to a task."""
        kind = msg.get("k")
        if kind == "pa":
            self.on_presence_all(msg)
            return
        table_id = msg.get("t")
        table = self.hub.tables.get(table_id) if isinstance(table_id, str) else None
        handler = self.handlers.get(kind) if isinstance(kind, str) else None
        if table is not None and handler is not None:
            handler(table, str(msg.get("o")), msg)

    def on_move(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if not table.conns and not table.driver:
            self.hub.forget(table)
        elif table.inbox or table.lock.locked() or not self.apply(table, msg):
            self.queue(table, msg)

    def on_seats(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if not table.conns and not table.driver:
            self.hub.forget(table)
        else:
            self.queue(table, msg)

    def on_presence(self, table: LiveTable, origin: str, msg: dict[str, Any]) -> None:
        if table.elsewhere_set(origin, msg.get("s"), bool(msg.get("on")), PRESENCE_TTL):
            table.players_changed()

    def on_want(self, table: LiveTable, origin: str, _msg: dict[str, Any]) -> None:
        """Players of this table are connected to ``origin``."""
        if not table.driver:
            return
        table.listeners[origin] = time.monotonic() + PRESENCE_TTL
        if self.hub.fanout is not None:  # where we are: a move it missed meanwhile is read at once
            self.hub.fanout.publish({"k": "at", "t": table.id, "v": table.version})
        if table.conns:
            table.wanted_by = origin  # handed over when the last player here leaves
        else:
            self.hub.loops.spawn(self.hub.hand(table, origin))

    def on_unwant(self, table: LiveTable, origin: str, _msg: dict[str, Any]) -> None:
        table.listeners.pop(origin, None)
        if table.wanted_by == origin:
            table.wanted_by = None

    def on_at(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        version = msg.get("v")
        if type(version) is int and version > table.version:
            self.queue(table, msg)

    def on_driver(self, table: LiveTable, _origin: str, _msg: dict[str, Any]) -> None:
        if not table.driver and table.conns and self.hub.fanout is not None:
            self.hub.fanout.publish({"k": "want", "t": table.id})

    def on_handed(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if msg.get("to") == self.hub.process_id and not table.driver:
            self.hub.loops.spawn(self.hub.drive(table))

    def on_presence_all(self, msg: dict[str, Any]) -> None:
        """Every seat connected to another process, and the tables it has players of."""
        origin = str(msg.get("o"))
        until = time.monotonic() + PRESENCE_TTL
        tables = self.hub.tables
        for table_id in msg.get("w") or ():  # tables it has players of: it still wants their moves
            table = tables.get(table_id) if isinstance(table_id, str) else None
            if table is not None and table.driver:
                table.listeners[origin] = until
        for item in msg.get("seats") or ():
            if isinstance(item, list) and len(item) == 2:
                table = tables.get(item[0]) if isinstance(item[0], str) else None
                if table is not None and table.elsewhere_set(origin, item[1], True, PRESENCE_TTL):
                    table.players_changed()

    def queue(self, table: LiveTable, msg: dict[str, Any]) -> None:
        """Keep ``msg`` for ``table`` in arrival order and let one task apply the queue under its lock."""
        table.inbox.append(msg)
        if table.inbox_task is None or table.inbox_task.done():
            table.inbox_task = asyncio.get_running_loop().create_task(self.drain(table))

    async def drain(self, table: LiveTable) -> None:
        """Apply the queued messages of ``table`` under its lock; read the database after a gap."""
        try:
            async with table.lock:
                gap = False
                while table.inbox:
                    msg = table.inbox.popleft()
                    if msg.get("k") != "m" or not self.apply(table, msg):
                        gap = True
                if gap:
                    await self.hub.catch_up(table)
        except Exception:  # the database is away: the sweep compares versions again
            log.exception("catch-up failed", extra={"fields": {"table": table.id}})

    def apply(self, table: LiveTable, msg: dict[str, Any]) -> bool:
        """Play a move another process committed on this process's copy of the table (the caller
        holds the table's lock, or nothing can run in between). ``False`` if it does not follow
        the version held here: the caller reads the log instead."""
        try:
            version = int(msg["v"])
            if version <= table.version:
                return True  # read from the log already
            if version != table.version + 1:
                return False
            seat, text = int(msg["s"]), str(msg["m"])
            action_id = msg.get("a")
            status = str(msg["st"])
            deadline = msg.get("d")
            table.game.play(Move.parse(text))
        except (KeyError, TypeError, ValueError, CatsackError):
            return False
        if isinstance(action_id, str):
            table.results[(seat, action_id)] = version
        clock = msg.get("c")
        table.row = dataclasses.replace(
            table.row,
            version=version,
            status=status,
            deadline=float(deadline) if isinstance(deadline, int | float) else None,
            finished=time.time() if status == "over" else None,
            to_move=table.game.to_move,
            clock=clock if isinstance(clock, str) else None,
        )
        table.touched = time.monotonic()
        began = msg.get("b")
        table.turn_began = float(began) if isinstance(began, int | float) else time.time()
        table.broadcast_state()
        self.hub.schedule(table)
        return True

    def heard(self, table: LiveTable) -> bool:
        """Whether a move of ``table`` must go to the other processes: always from a process that
        does not drive it (the driver must learn it); from the driver while another process has
        players there, and for a while after it started driving. With routing by table
        (docs/deploy.md) a table's players are all on its driver, and its moves cost Redis nothing."""
        if not table.driver:
            return True
        now = time.monotonic()
        if now < table.announce_until:
            return True
        for origin, until in list(table.listeners.items()):
            if until > now:
                return True
            del table.listeners[origin]
        return False
