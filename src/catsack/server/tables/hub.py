"""Live tables: the in-memory game of each table, its connections, bots and timers.

One :class:`Hub` per server process holds the tables in play. It is a small coordinator: each concern
is a part of :mod:`catsack.server.tables` (loading, seating, connections, moves, turns, leasing, the
relay of other processes' messages, housekeeping), and the parts ask each other for what they need
through the hub (:class:`~catsack.server.tables.coordinator.Coordinator`).

Every change to a table happens under that table's :class:`asyncio.Lock` and is committed to the
database before the table's game changes and the connections hear of it
(:mod:`catsack.server.tables.moves`). What leaves the server for a receiver is built in
:mod:`catsack.server.tables.live` from that receiver's view (R23) and public events only.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from catsack.game import Game
from catsack.moves import Move
from catsack.server.metrics import Metrics
from catsack.server.settings import Settings
from catsack.server.storage.store import Store
from catsack.server.tables.bus import Bus, MoveApplied, SeatsChanged
from catsack.server.tables.connections import Connections
from catsack.server.tables.fanout import Fanout
from catsack.server.tables.housekeeping import Housekeeping
from catsack.server.tables.leasing import Leasing
from catsack.server.tables.live import (
    Conn,
    LiveTable,
)
from catsack.server.tables.loading import Loader
from catsack.server.tables.loops import Loops
from catsack.server.tables.moves import Moves
from catsack.server.tables.relay import Relay
from catsack.server.tables.seating import Seating
from catsack.server.tables.thinking import Pace, Thinkers
from catsack.server.tables.turnbased import Clock, TurnBased
from catsack.server.tables.turns import Turns
from catsack.server.tables.writer import Writer
from catsack.setup import Setup

__all__ = ["Hub"]

log = logging.getLogger("catsack.server")

_S = TypeVar("_S")


class Hub:
    """Every live table of this process, the database, and (optionally) Redis fan-out."""

    def __init__(self, settings: Settings, store: Store | None = None) -> None:
        self.settings = settings
        self.store = store or Store(
            settings.database_url, write_delay=settings.write_delay, upgrade=settings.db_auto_upgrade
        )
        self.writer = Writer(self.store, window=settings.commit_window)
        self.tables: dict[str, LiveTable] = {}
        self._services: dict[type, object] = {}
        self.process_id = uuid.uuid4().hex[:12]
        self.record_frames = False  # tests: keep every frame sent on each connection
        self.fanout: Any = None  # catsack.server.tables.fanout.Fanout when CATSACK_REDIS_URL is set
        #: What happens at the tables, for whoever listens (catsack.server.tables.bus; wired by the app).
        self.events = Bus()
        #: The process's background loops (the app starts its own here too) and fire-and-forget tasks.
        self.loops = Loops()
        self.addresses: dict[str, int] = {}
        self.metrics: Metrics | None = None  # catsack.server.metrics, set by create_app
        self.pace = Pace(settings.bot_delay, settings.bot_delay * settings.bot_delay_jitter, settings.think_seconds)
        self.thinkers = Thinkers(settings)
        #: Connections that have not said a good hello yet (bounded per process).
        self.pending = 0
        self.pending_addresses: dict[str, int] = {}  # the same, per client address
        self.sockets_dropped = 0  # connections closed since the allocator was last asked to give memory back
        # The parts, each one concern of the tables (catsack.server.tables).
        self.loader = Loader(self)
        self.seating = Seating(self)
        self.connections = Connections(self)
        self.moves = Moves(self)
        self.turns = Turns(self)
        self.leasing = Leasing(self)
        self.relay = Relay(self)
        self.housekeeping = Housekeeping(self, self.connections)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Resume the tables this process takes over, and start its loops."""
        s = self.settings
        if s.redis_url:
            # Subscribed before any table loads: a move committed elsewhere meanwhile is either in the
            # loaded log or in a message that follows it.
            self.fanout = Fanout(s.redis_url, self.process_id, self.relay.on_message, s.redis_channel)
            await self.fanout.start()
        ids = await self.leasing.resumable()
        for table_id in ids:
            await self.get(table_id)
        await self.sync_leases(fresh=True)  # one lease sync for all of them
        log.info("resumed tables", extra={"fields": {"tables": len(ids), "driving": self.driving()}})
        self.leasing.start()
        self.loops.start("tables sweep", self.housekeeping.sweeper())
        self.loops.start("lease keeper", self.leasing.keeper())
        self.loops.start("turn-based clocks", self.housekeeping.clock_sweeper())

    async def stop(self) -> None:
        """Stop the loops, the tables' tasks and connections, and hand the tables over."""
        loops = self.loops.cancel()
        for table in self.tables.values():
            if table.task is not None:
                table.task.cancel()
            for c in list(table.conns):
                c.close()
            for b in table.bots.values():
                b.close()
        await asyncio.gather(*loops, return_exceptions=True)
        await self.leasing.stop()
        if self.fanout is not None:
            await self.fanout.stop()
        await self.writer.stop()
        self.thinkers.stop()

    def service(self, kind: type[_S], make: Callable[[], _S]) -> _S:
        """This hub's one object of ``kind`` (a mailbox, the chat log, ...), made by ``make`` on first use."""
        found = self._services.get(kind)
        if found is None:
            found = self._services[kind] = make()
        assert isinstance(found, kind)
        return found

    # ------------------------------------------------------------------ loading (tables.loading)

    async def get(self, table_id: str, *, lease: bool = False) -> LiveTable | None:
        """The live table ``table_id``, loaded from the database on first use (``None``: no such table);
        its lease is tried at once when ``lease`` or when something waits to be driven."""
        return await self.loader.get(table_id, lease=lease)

    async def catch_up(self, table: LiveTable) -> None:
        """Read what other processes appended (or seat changes) and tell our connections (the
        caller holds the table's lock)."""
        await self.loader.catch_up(table)

    # ------------------------------------------------------------------ seats (tables.seating)

    async def create(
        self,
        seats: int,
        bots: dict[int, str],
        *,
        name: str,
        money_visible: bool,
        turn_seconds: int | None,
        hints: bool,
        setup: Setup | None = None,
        table_id: str | None = None,
        extra_options: dict[str, Any] | None = None,
        turn_based: TurnBased | None = None,
    ) -> LiveTable:
        """A new table in the database and in memory. ``extra_options`` are kept with the table's
        options (``rated``, ``private``, ``host_seat``…; never sent to clients as they are).
        ``turn_based`` makes it a turn-based table (catsack.server.tables.turnbased) instead of a real-time one."""
        return await self.seating.create(
            seats,
            bots,
            name=name,
            money_visible=money_visible,
            turn_seconds=turn_seconds,
            hints=hints,
            setup=setup,
            table_id=table_id,
            extra_options=extra_options,
            turn_based=turn_based,
        )

    async def join(
        self,
        table: LiveTable,
        name: str,
        seat: int | None,
        *,
        token: str | None = None,
        account_id: int | None = None,
        distinct: bool = False,
    ) -> tuple[int, str]:
        """Give a person a seat: returns the seat and its secret token (``token``: one the caller
        made, e.g. a rematch's, derived from the seat's old token so a second press finds the seat).
        With ``account_id`` the seat is bound to that account in the same write; an account holds at
        most one seat of a table (409 ``one_seat``; the database's key decides across processes).
        With ``distinct`` (a guest's name) a name that reads like a seated player's or bot's is refused
        (409 ``name_at_table``: :func:`catsack.server.storage.names.skeleton`)."""
        return await self.seating.join(table, name, seat, token=token, account_id=account_id, distinct=distinct)

    async def seat_bots(self, table: LiveTable, spec: str) -> list[int]:
        """Bots of ``spec`` take every open seat of a waiting table, which then starts; the seats they took."""
        return await self.seating.seat_bots(table, spec)

    async def find_seat(self, table: LiveTable, token: str) -> int:
        """:meth:`seat_for_token`, checked against the database where another process may have
        changed the seat without this one hearing yet (the database is the truth, the message only
        a wake-up). A miss asks the database: the seat may have been joined through another process;
        only a token the database knows costs more than that one read. With
        several processes a hit asks too: another process may have given the seat to a bot or the
        seat's person a new link (``take_over``), and the old token must not see the seat's hand
        meanwhile. A lone process makes every seat change itself, so its hits are
        answered from memory."""
        return await self.seating.find_seat(table, token)

    def seat_for_token(self, table: LiveTable, token: str) -> int:
        """The seat ``token`` holds; raise ``unauthorized`` or ``replaced``."""
        return self.seating.seat_for_token(table, token)

    async def replace(self, table: LiveTable, seat: int, *, version: int | None = None) -> bool:
        """A bot takes over an absent player's seat; the old token stops working.

        With ``version``, only while the table is still at that version (checked under the table's lock:
        a turn-based clock ran out at that version, and a move since then keeps the seat its person's).
        Whether the seat was handed over."""
        return await self.seating.replace(table, seat, version=version)

    async def publish_seats(self, table_id: str, version: int = -1) -> None:
        """Tell the other processes that ``table_id``'s seats changed (they read them). Moves go out
        with their content from :meth:`commit`; any other ``version`` is a plain wake-up."""
        self.events.emit(MoveApplied(table_id, version) if version >= 0 else SeatsChanged(table_id))
        if self.fanout is not None:
            self.fanout.publish({"k": "seats", "t": table_id, "v": version})

    # ------------------------------------------------------------------ connections (tables.connections)

    def attach(self, table: LiveTable, conn: Conn) -> LiveTable:
        """Add ``conn`` to ``table`` and send it the state; the table it was attached to (the one
        this process holds: ``table`` may have been dropped, or reloaded, since the caller got it)."""
        return self.connections.attach(table, conn)

    def detach(self, conn: Conn) -> None:
        """Take ``conn`` off its table."""
        self.connections.detach(conn)

    def drop_seat_connections(self, table: LiveTable, seat: int) -> None:
        """The seat's token stopped working: tell its connections and turn them into spectators."""
        self.connections.drop_seat(table, seat)

    # ------------------------------------------------------------------ moves (tables.moves)

    async def act(self, conn: Conn, action_id: str, version: int, text: str) -> dict[str, Any]:
        """A player's move: the answer frame (``ack`` or ``error``). State frames go to everyone."""
        return await self.moves.act(conn, action_id, version, text)

    async def commit(
        self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str
    ) -> tuple[str, str] | None:
        """Play ``move`` for ``seat`` (lock held): commit, then apply and broadcast. An error pair or None."""
        return await self.moves.commit(table, seat, move, action_id, actor)

    def heard(self, table: LiveTable) -> bool:
        """Whether a move of ``table`` must go to the other processes (tables.relay)."""
        return self.relay.heard(table)

    # ------------------------------------------------------------------ bots, timers, clocks (tables.turns)

    def schedule(self, table: LiveTable, *, resume: bool = False) -> None:
        """Start whatever moves the game on by itself: a bot's move or a turn timer (the driver only)."""
        self.turns.schedule(table, resume=resume)

    def deadline_for(self, table: LiveTable, game: Game, clock: Clock | None = None) -> float | None:
        """When the turn of ``game``'s seat to move runs out (``None``: no limit, or a bot's turn)."""
        return self.turns.deadline_for(table, game, clock)

    async def start_timer(self, table: LiveTable) -> None:
        """The game starts: start the turn timer or the turn-based clock."""
        await self.turns.start_timer(table)

    def turn_changed(self, table: LiveTable) -> None:
        """A turn-based table's turn passed to someone: a person's is told."""
        self.turns.turn_changed(table)

    async def hint(self, conn: Conn) -> dict[str, Any]:
        """The expert's advice for the connection's seat (a ``hint`` or ``error`` frame)."""
        return await self.turns.hint(conn)

    # ------------------------------------------------------------------ leases (tables.leasing)

    def driving(self) -> int:
        """How many live tables this process drives (holds the lease of)."""
        return self.leasing.driving()

    async def sync_leases(self, *, fresh: bool = False) -> None:
        """Renew this process's leases: start driving the tables gained, stop driving those lost."""
        await self.leasing.sync(fresh=fresh)

    async def drive(self, table: LiveTable, *, catch_up: bool = True) -> None:
        """Start driving ``table`` (its lease is ours now)."""
        await self.leasing.drive(table, catch_up=catch_up)

    async def claim(self, table: LiveTable) -> None:
        """A player connected here to a table another process drives: take or ask for its lease."""
        await self.leasing.claim(table)

    async def hand(self, table: LiveTable, to: str) -> None:
        """Give the lease of ``table`` (driven here, nobody connected here) to process ``to``."""
        await self.leasing.hand(table, to)

    # ------------------------------------------------------------------ housekeeping (tables.housekeeping)

    async def sweep(self, now: float | None = None) -> None:
        """Grace periods, eviction and version gaps across processes."""
        await self.housekeeping.sweep(now)

    async def drive_due_tables(self) -> int:
        """Load the turn-based games whose clock needs driving; how many tables it loaded."""
        return await self.housekeeping.drive_due_tables()

    def evict(self, table: LiveTable) -> None:
        """Let go of ``table`` here (and of its lease, if held)."""
        self.housekeeping.evict(table)

    def forget(self, table: LiveTable) -> None:
        """Drop a table this process neither drives nor has connections for."""
        self.housekeeping.forget(table)
