"""Live tables: the in-memory game of each table, its connections, bots and timers.

One :class:`Hub` per server process holds the tables in play. Every change to
a table happens under that table's :class:`asyncio.Lock`: check the action,
play it on a copy of the game, commit it to the database, and only then make
the copy the table's game and tell the connections. So a slow database write
cannot let two actions interleave, and nothing a client saw can
be lost by a crash.

What leaves the server for a receiver is built in :mod:`catsack.server.live`
from that receiver's view (R23) and public events only; a bot's move is due
after a delay drawn from a fixed distribution, whatever its view, and searching
bots and hints think in processes of their own (:mod:`catsack.server.thinking`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import secrets
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from catsack.bots.base import Bot, make_bot
from catsack.errors import CatsackError
from catsack.game import Game
from catsack.moves import Move
from catsack.server.bus import Bus, GameOver, MoveApplied, SeatAbandoned, SeatsChanged, TablesAdopted, TurnToPerson
from catsack.server.fanout import Fanout
from catsack.server.leases import Heartbeat
from catsack.server.live import (
    MAX_EVENTS,
    PROTOCOL,
    Conn,
    LiveTable,
    Player,
    TableError,
    error_frame,
    event_dict,
    events_since,
    iso_time,
    seat_names,
    setup_from_json,
    setup_to_json,
    state_frame,
    stored_game,
    table_status,
)
from catsack.server.loops import Loops
from catsack.server.metrics import Metrics
from catsack.server.names import skeleton
from catsack.server.retention import prune
from catsack.server.runtime import malloc_trim
from catsack.server.settings import Settings
from catsack.server.store import ActionRow, Append, AppendConflict, SeatHeld, SeatRow, Store, TableRow
from catsack.server.thinking import Pace, Thinkers
from catsack.server.tokens import hash_token
from catsack.server.turnbased import Clock, TurnBased, due_tables, realtime_unfinished_ids
from catsack.server.writer import Writer
from catsack.setup import Setup

# The pieces the hub is made of live in catsack.server.live (tables, connections, frames) and
# catsack.server.writer; they are named here too, where the rest of the server has always found them.
__all__ = [
    "BOT_LEVELS",
    "FORMER_LEVELS",
    "MAX_EVENTS",
    "PROTOCOL",
    "SEATABLE_BOTS",
    "Conn",
    "Hub",
    "LiveTable",
    "Player",
    "TableError",
    "Writer",
    "event_dict",
    "events_since",
    "iso_time",
    "seat_names",
    "setup_from_json",
    "setup_to_json",
    "state_frame",
    "table_status",
    "unknown_bot",
]

log = logging.getLogger("catsack.server")

#: The bot levels a table offers, weakest first (the lobby lists them in this order): Random, Simple,
#: Easy, Normal, Strong, Expert. Easy to Strong are the expert at smaller budgets (docs/bots.md measures
#: the order). External bots run arbitrary commands and are never offered here.
BOT_LEVELS = ("random", "heuristic", "expert:easy", "expert:normal", "expert:strong", "expert")
#: The levels offered before the expert's budgets replaced them; a table still seats them when asked
#: by name (API clients, rematches of old tables), and old records show them.
FORMER_LEVELS = ("ismcts:easy", "ismcts:normal", "ismcts:strong")
#: Every spec a table may seat.
SEATABLE_BOTS = BOT_LEVELS + FORMER_LEVELS


def unknown_bot(spec: str) -> str:
    """The refusal of a bot level this server does not offer: it names the levels to choose from."""
    return f"unknown bot level {spec!r} (choose from {', '.join(BOT_LEVELS)})"


_THREAD_BOTS = ("ismcts", "expert")  # bots that search: they think in the thinking processes
#: How long a seat counts as connected to another process after that process last said so. Processes
#: repeat it for every connected seat every PRESENCE_REFRESH seconds, and say at once when a seat's
#: first connection opens or its last one closes.
PRESENCE_REFRESH = 30.0
PRESENCE_TTL = 3 * PRESENCE_REFRESH
#: The full lease sync runs every this many lease periods (``lease_seconds``).
LEASE_SYNC_LEASES = 5
#: After a process starts driving a table, how long it sends every move out before it relies on the
#: "want" answers of the processes with players there.
ANNOUNCE_SECONDS = 5.0


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
        self.fanout: Any = None  # catsack.server.fanout.Fanout when CATSACK_REDIS_URL is set
        #: What happens at the tables, for whoever listens (catsack.server.bus; wired by the app).
        self.events = Bus()
        self._loading: dict[str, asyncio.Future[LiveTable | None]] = {}
        #: The process's background loops (the app starts its own here too) and fire-and-forget tasks.
        self.loops = Loops()
        self.addresses: dict[str, int] = {}
        self.metrics: Metrics | None = None  # catsack.server.metrics, set by create_app
        self._touch: set[tuple[str, int]] = set()  # seats connected here since the last presence write
        self._touched_all = 0.0  # time.monotonic() of the last write of every connected seat
        self._pruned = 0.0  # time.monotonic() of the last retention pass
        self._stray_leases: set[str] = set()
        self._evicted = 0  # tables evicted since the allocator was last asked to give memory back
        self._trimmed = 0.0
        self.pace = Pace(settings.bot_delay, settings.bot_delay * settings.bot_delay_jitter, settings.think_seconds)
        self.thinkers = Thinkers(settings)
        self._hinting: set[tuple[str, int]] = set()  # seats whose hint is being worked out
        self.heartbeat: Heartbeat | None = None
        self._claiming: set[str] = set()  # tables whose lease this process is asking for
        self._presence_sent = 0.0  # time.monotonic() of the last presence refresh sent to the others
        #: Connections that have not said a good hello yet (bounded per process).
        self.pending = 0
        self.pending_addresses: dict[str, int] = {}  # the same, per client address
        self.sockets_dropped = 0  # connections closed since the allocator was last asked to give memory back

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        s = self.settings
        if s.redis_url:
            # Subscribed before any table loads: a move committed elsewhere meanwhile is either in the
            # loaded log or in a message that follows it.
            self.fanout = Fanout(s.redis_url, self.process_id, self._on_message, s.redis_channel)
            await self.fanout.start()
            # Several processes: the tables of processes that died (or stopped) are adopted; those of
            # live processes stay theirs, and come here when their players do (hand-over, below).
            ids = sorted(await asyncio.to_thread(self.store.adopt, self.process_id, s.lease_seconds))
            await self._missed_turn_mails(ids)
        else:
            # A lone process (several need CATSACK_REDIS_URL, docs/deploy.md): any lease in the
            # database is a dead predecessor's (a crash, kill -9). Take the tables over now instead of
            # leaving bots and turn timers idle until those leases run out.
            await asyncio.to_thread(self.store.release_leases_of_others, self.process_id)
            ids = await asyncio.to_thread(realtime_unfinished_ids, self.store.engine)
            await self._missed_turn_mails(None)
        if s.redis_url:
            # Turn-based games are not loaded: they wait in the database until someone opens one or
            # its clock needs driving (_clock_sweeper); a lease of one adopted here lapses at the sync.
            realtime = set(await asyncio.to_thread(realtime_unfinished_ids, self.store.engine))
            ids = [i for i in ids if i in realtime]
        for table_id in ids:
            await self.get(table_id)
        await self.sync_leases(fresh=True)  # one lease sync for all of them
        log.info("resumed tables", extra={"fields": {"tables": len(ids), "driving": self.driving()}})
        self.heartbeat = Heartbeat(
            self.store,
            self.process_id,
            s.lease_seconds,
            s.lease_seconds / 6.0,
            asyncio.get_running_loop(),
            self._on_dead,
        )
        self.heartbeat.start()
        self.loops.start("tables sweep", self._sweeper())
        self.loops.start("lease keeper", self._lease_keeper())
        self.loops.start("turn-based clocks", self._clock_sweeper())

    async def stop(self) -> None:
        loops = self.loops.cancel()
        for table in self.tables.values():
            if table.task is not None:
                table.task.cancel()
            for c in list(table.conns):
                c.close()
            for b in table.bots.values():
                b.close()
        await asyncio.gather(*loops, return_exceptions=True)
        if self.heartbeat is not None:
            await asyncio.to_thread(self.heartbeat.stop)
        # Hand the tables over at once instead of after the heartbeat runs out: the others see this
        # process retired at their next beat and adopt its leases (those without players too).
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.store.retire, self.process_id)
        if self.fanout is not None:
            await self.fanout.stop()
        await self.writer.stop()
        self.thinkers.stop()

    # ------------------------------------------------------------------ leases (several processes)

    def driving(self) -> int:
        """How many live tables this process drives (holds the lease of)."""
        return sum(1 for t in self.tables.values() if t.driver)

    async def sync_leases(self, *, fresh: bool = False) -> None:
        """Renew this process's heartbeat, take the free (or a dead holder's) leases of its live
        unfinished tables, give up those of finished tables; start driving the tables gained (after
        reading what the last holder appended, unless they were ``fresh``ly loaded) and stop driving
        the ones lost (taken by a process that thought this one dead)."""
        tables = list(self.tables.values())  # tables loaded meanwhile keep what get() gave them
        # A table whose driving changed while the database answered (a hand-over, a claim, an
        # adoption) keeps what that change decided: the answer may predate it.
        before = {t.id: t.driver for t in tables}
        want = [t.id for t in tables if not t.game.is_over]
        done = [t.id for t in tables if t.game.is_over and t.driver]
        # Leases held for tables no longer here at the end of the last sync (an eviction racing with
        # a sync) and still not here: give them up, or no other process could ever take them.
        done += [i for i in self._stray_leases if i not in self.tables]
        held = await asyncio.to_thread(
            self.store.sync_leases, self.process_id, want, self.settings.lease_seconds, release=done
        )
        self._stray_leases = held - self.tables.keys()
        for table in tables:
            if self.tables.get(table.id) is not table or table.driver != before[table.id]:
                continue  # evicted, or its driving changed, meanwhile
            if table.id in held and not table.driver:
                await self._drive(table, catch_up=not fresh)
                if not fresh:
                    log.info("lease taken", extra={"fields": {"table": table.id}})
            elif table.driver and table.id not in held and not table.game.is_over:
                table.driver = False
                if table.task is not None:
                    table.task.cancel()
                    table.task = None
                log.warning("lease lost", extra={"fields": {"table": table.id}})

    async def _drive(self, table: LiveTable, *, catch_up: bool = True) -> None:
        """Start driving ``table`` (its lease is ours now): read what the last holder appended, then
        start its bot or timer."""
        async with table.lock:
            if table.driver:
                return
            table.driver = True
            # Processes with players of this table learn who drives it now, and answer with "want";
            # until they have, every move goes out.
            table.announce_until = time.monotonic() + ANNOUNCE_SECONDS
            if self.fanout is not None:
                self.fanout.publish({"k": "driver", "t": table.id})
            if catch_up:
                await self.catch_up(table)
            self._schedule(table, resume=True)

    async def _lease_keeper(self) -> None:
        """Tell the heartbeat thread the event loop is alive, and sync the leases now and then
        (tables whose lease came free; leases lost to a process that thought this one dead). Dead
        processes are noticed by the heartbeat thread, not here: this can be slow and cheap."""
        s = self.settings
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
                await self.sync_leases()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: keep trying; the heartbeat runs out meanwhile
                log.exception("lease renewal failed")

    def _on_dead(self, dead: list[str]) -> None:
        """The heartbeat thread saw processes whose heartbeat ran out: adopt their tables."""
        for table in self.tables.values():
            for origin in dead:
                table.listeners.pop(origin, None)
                if table.elsewhere_gone(origin):
                    table.players_changed()
        self.loops.spawn(self._adopt(dead))

    async def _adopt(self, dead: list[str]) -> None:
        try:
            taken = await asyncio.to_thread(self.store.adopt, self.process_id, self.settings.lease_seconds, dead)
            await self._missed_turn_mails(sorted(taken))
            for table_id in sorted(taken):
                table = await self.get(table_id)
                if table is not None and not table.game.is_over:
                    await self._drive(table)
            if taken:
                log.info("tables adopted", extra={"fields": {"tables": len(taken), "from": dead}})
        except Exception:
            log.exception("adopting the tables of a dead process failed")

    async def _missed_turn_mails(self, table_ids: list[str] | None) -> None:
        """Tell the listeners that this process took these tables over (``None``: all of them): the
        "your turn" mails a dead process had not queued yet are queued (catsack.server.mail)."""
        await self.events.publish(TablesAdopted(None if table_ids is None else tuple(table_ids)))

    async def _claim(self, table: LiveTable) -> None:
        """A player connected here to a table another process drives: take its lease if it is free
        (or its holder dead), else ask the holder to hand it over once it has no players of its own.
        So a table's bots, timers and moves end up in the process its players are routed to."""
        if table.driver or table.game.is_over or table.id in self._claiming:
            return
        self._claiming.add(table.id)
        try:
            held = await asyncio.to_thread(
                self.store.take_leases, self.process_id, [table.id], self.settings.lease_seconds
            )
            if table.id in held:
                await self._drive(table)
            elif self.fanout is not None:
                self.fanout.publish({"k": "want", "t": table.id})
        except Exception:
            log.exception("lease claim failed", extra={"fields": {"table": table.id}})
        finally:
            self._claiming.discard(table.id)

    async def _hand(self, table: LiveTable, to: str) -> None:
        """Give the lease of ``table`` (driven here, nobody connected here) to process ``to``."""
        try:
            async with table.lock:
                if not table.driver or table.conns or self.tables.get(table.id) is not table:
                    return
                if not await self.writer.run(self.store.hand_lease, self.process_id, to, table.id):
                    return
                table.driver = False
                if self.fanout is not None:  # after every move of ours: the queue keeps the order
                    self.fanout.publish({"k": "handed", "t": table.id, "to": to})
                self._forget(table)
            log.info("lease handed over", extra={"fields": {"table": table.id, "to": to}})
        except Exception:
            log.exception("lease hand-over failed", extra={"fields": {"table": table.id}})

    def _forget(self, table: LiveTable) -> None:
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
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self._evicted += 1

    # ------------------------------------------------------------------ messages from other processes

    def _on_message(self, msg: dict[str, Any]) -> None:
        """One message from another process (catsack.server.fanout). Runs in the subscriber's loop
        without waiting: what needs the database or a busy table's lock goes to a task."""
        kind = msg.get("k")
        if kind == "pa":
            self._on_presence_all(msg)
            return
        table_id = msg.get("t")
        table = self.tables.get(table_id) if isinstance(table_id, str) else None
        handler = _MESSAGES.get(kind) if isinstance(kind, str) else None
        if table is not None and handler is not None:
            handler(self, table, str(msg.get("o")), msg)

    def _msg_move(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if not table.conns and not table.driver:
            self._forget(table)
        elif table.inbox or table.lock.locked() or not self._apply_message(table, msg):
            self._queue(table, msg)

    def _msg_seats(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if not table.conns and not table.driver:
            self._forget(table)
        else:
            self._queue(table, msg)

    def _msg_presence(self, table: LiveTable, origin: str, msg: dict[str, Any]) -> None:
        if table.elsewhere_set(origin, msg.get("s"), bool(msg.get("on")), PRESENCE_TTL):
            table.players_changed()

    def _msg_want(self, table: LiveTable, origin: str, _msg: dict[str, Any]) -> None:
        """Players of this table are connected to ``origin``."""
        if not table.driver:
            return
        table.listeners[origin] = time.monotonic() + PRESENCE_TTL
        if self.fanout is not None:  # where we are: a move it missed meanwhile is read at once
            self.fanout.publish({"k": "at", "t": table.id, "v": table.version})
        if table.conns:
            table.wanted_by = origin  # handed over when the last player here leaves
        else:
            self.loops.spawn(self._hand(table, origin))

    def _msg_unwant(self, table: LiveTable, origin: str, _msg: dict[str, Any]) -> None:
        table.listeners.pop(origin, None)
        if table.wanted_by == origin:
            table.wanted_by = None

    def _msg_at(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        version = msg.get("v")
        if type(version) is int and version > table.version:
            self._queue(table, msg)

    def _msg_driver(self, table: LiveTable, _origin: str, _msg: dict[str, Any]) -> None:
        if not table.driver and table.conns and self.fanout is not None:
            self.fanout.publish({"k": "want", "t": table.id})

    def _msg_handed(self, table: LiveTable, _origin: str, msg: dict[str, Any]) -> None:
        if msg.get("to") == self.process_id and not table.driver:
            self.loops.spawn(self._drive(table))

    def _on_presence_all(self, msg: dict[str, Any]) -> None:
        origin = str(msg.get("o"))
        until = time.monotonic() + PRESENCE_TTL
        for table_id in msg.get("w") or ():  # tables it has players of: it still wants their moves
            table = self.tables.get(table_id) if isinstance(table_id, str) else None
            if table is not None and table.driver:
                table.listeners[origin] = until
        for item in msg.get("seats") or ():
            if isinstance(item, list) and len(item) == 2:
                table = self.tables.get(item[0]) if isinstance(item[0], str) else None
                if table is not None and table.elsewhere_set(origin, item[1], True, PRESENCE_TTL):
                    table.players_changed()

    def _queue(self, table: LiveTable, msg: dict[str, Any]) -> None:
        """Keep ``msg`` for ``table`` in arrival order and let one task apply the queue under its lock."""
        table.inbox.append(msg)
        if table.inbox_task is None or table.inbox_task.done():
            table.inbox_task = asyncio.get_running_loop().create_task(self._drain_inbox(table))

    async def _drain_inbox(self, table: LiveTable) -> None:
        try:
            async with table.lock:
                gap = False
                while table.inbox:
                    msg = table.inbox.popleft()
                    if msg.get("k") != "m" or not self._apply_message(table, msg):
                        gap = True
                if gap:
                    await self.catch_up(table)
        except Exception:  # the database is away: the sweep compares versions again
            log.exception("catch-up failed", extra={"fields": {"table": table.id}})

    def _apply_message(self, table: LiveTable, msg: dict[str, Any]) -> bool:
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
        self._schedule(table)
        return True

    # ------------------------------------------------------------------ loading

    async def get(self, table_id: str, *, lease: bool = False) -> LiveTable | None:
        """The live table ``table_id``, loaded from the database on first use. Different tables load
        at the same time (a process that relays for another loads thousands as clients say hello);
        callers asking for one table while it loads wait for that load. The table's lease is tried
        at once when ``lease`` (the process that made it drives it) or when something is waiting to
        be driven (bots, a turn timer); any other table gets its lease from the next sync, which
        spares a relaying process one write per table it loads."""
        table = self.tables.get(table_id)
        if table is not None:
            if self.fanout is not None and not table.conns and not table.driver and table.status == "playing":
                # Moves go only to the processes with players there; seat changes go everywhere (and
                # drop such a copy), so only a game in play can be behind.
                await self._refresh(table)
            return table
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        pending = self._loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # waiters may be gone
        self._loading[table_id] = fut
        try:
            table = await self._load(table_id, lease)
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        else:
            fut.set_result(table)
        finally:
            del self._loading[table_id]
        return table

    async def _refresh(self, table: LiveTable) -> None:
        """Bring a copy that nothing keeps up to date (no connection here, driven elsewhere: its moves
        are not sent here) to the database's state before it is shown."""
        try:
            async with table.lock:
                await self.catch_up(table)
        except Exception:  # the database is away: show what this process has
            log.exception("refresh failed", extra={"fields": {"table": table.id}})

    async def _load(self, table_id: str, lease: bool) -> LiveTable | None:
        loaded = await asyncio.to_thread(self.store.load, table_id)
        if loaded is None:
            return None
        row, seats, actions = loaded
        if row.status == "abandoned":
            return None
        try:
            table = self._build(row, seats, actions)
        except Exception:  # one damaged table must not keep the others (or the server) down
            log.exception("table cannot be loaded", extra={"fields": {"table": table_id}})
            return None
        self.tables[table_id] = table
        if not table.game.is_over and (
            lease
            or table.options.get("turn_seconds")
            or table.clock is not None
            or any(p.kind == "bot" for p in table.players)
        ):
            held = await asyncio.to_thread(
                self.store.take_leases, self.process_id, [table_id], self.settings.lease_seconds
            )
            table.driver = table_id in held
        self._schedule(table, resume=True)
        return table

    def _build(self, row: TableRow, seats: list[SeatRow], actions: list[ActionRow]) -> LiveTable:
        game = stored_game(row, events=True)
        now = time.monotonic()
        players = [
            Player(s.kind, s.name, s.bot, s.token_hash, s.replaced, now if s.kind == "human" else None, s.user_id)
            for s in seats
        ]
        table = LiveTable(hub=self, row=row, players=players, game=game)
        self._apply_rows(table, actions)
        if self.fanout is not None:  # seats connected to other processes, until those say otherwise
            wall = time.time()
            for s in seats:
                if s.kind == "human" and s.seen is not None and wall - s.seen < 2 * PRESENCE_REFRESH:
                    table.elsewhere_set("", s.seat, True, 2 * PRESENCE_REFRESH - (wall - s.seen))
        return table

    def _apply_rows(self, table: LiveTable, actions: list[ActionRow]) -> None:
        for a in actions:
            if a.version != table.version + 1:
                continue  # already applied
            table.game.play(a.move)
            if a.action_id is not None:
                table.results[(a.seat, a.action_id)] = a.version
            table.turn_began = a.created

    async def catch_up(self, table: LiveTable) -> None:
        """Read what other processes appended (or seat changes) and tell our connections (the
        caller holds the table's lock). One read: the actions after our version, seats, the row."""
        actions, seats, row = await asyncio.to_thread(self.store.changes, table.id, table.version)
        before = table.version
        self._apply_rows(table, actions)
        # A clock changed without a move (a vacation began or ended): its timer and its shown clock follow.
        moved = row is not None and (row.clock, row.deadline) != (table.row.clock, table.row.deadline)
        if row is not None:
            table.row = row
        changed = False
        for s in seats:
            p = table.players[s.seat]
            if (p.kind, p.name, p.bot, p.token_hash, p.replaced) != (s.kind, s.name, s.bot, s.token_hash, s.replaced):
                # A bot took the seat, or its person took it over with a new token (elsewhere): the
                # connections that came with the old token stop being the seat's.
                dropped = s.kind == "bot" or (p.token_hash is not None and p.token_hash != s.token_hash)
                p.kind, p.name, p.bot, p.token_hash, p.replaced = s.kind, s.name, s.bot, s.token_hash, s.replaced
                if s.kind == "human" and p.away_since is None:
                    p.away_since = time.monotonic()
                changed = True
                if dropped:
                    self.drop_seat_connections(table, s.seat)
        if changed:
            table.players_changed()
        if table.version != before or changed or moved:
            table.broadcast_state(force=changed)
            self._schedule(table)

    # ------------------------------------------------------------------ HTTP-side actions

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
        ``turn_based`` makes it a turn-based table (catsack.server.turnbased) instead of a real-time one."""
        if turn_based is not None and turn_seconds:
            raise TableError("bad_request", "a turn-based table has no real-time turn timer (turn_seconds)", 422)
        for seat, spec in bots.items():
            if not 0 <= seat < seats:
                raise TableError("bad_request", f"bot seat {seat} is not a seat of a {seats}-seat table", 422)
            if spec not in SEATABLE_BOTS:
                raise TableError("bad_request", unknown_bot(spec), 422)
        if setup is None:
            setup = Setup.deal(seats, random.Random(secrets.randbits(128)))
        table_id = table_id or secrets.token_urlsafe(6)
        rows = [SeatRow(i, "bot" if i in bots else "open", None, bots.get(i), None, False) for i in range(seats)]
        options = {
            "money_visible": money_visible,
            "turn_seconds": turn_seconds,
            "hints": hints,
            **(extra_options or {}),
        }
        clock = None
        if turn_based is not None:
            options["turn_based"] = turn_based.options()
            clock = turn_based.new_clock(seats).to_json()
        status = "playing" if len(bots) == seats else "open"
        await self.writer.run(
            partial(self.store.create_table, table_id, name, rows, options, setup_to_json(setup), status, clock=clock)
        )
        table = await self.get(table_id, lease=True)
        assert table is not None
        log.info("table created", extra={"fields": {"table": table_id, "seats": seats, "bots": len(bots)}})
        return table

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
        (409 ``name_at_table``: :func:`catsack.server.names.skeleton`)."""
        async with table.lock:
            held = next((i for i, p in enumerate(table.players) if account_id and p.user_id == account_id), None)
            if held is not None:
                raise _one_seat(held)
            if distinct:
                key = skeleton(name)
                taken = (n for p, n in zip(table.players, table.names(), strict=True) if p.kind != "open")
                if any(skeleton(n) == key for n in taken):
                    raise TableError(
                        "name_at_table",
                        f"someone at this table is called {name!r}: choose another name",
                        409,
                        params={"name": name},
                    )
            if table.status != "open":
                raise TableError("table_full", "this table has no open seat", 409)
            if seat is None:
                seat = next(i for i, p in enumerate(table.players) if p.kind == "open")
            if not 0 <= seat < len(table.players):
                raise TableError("bad_request", f"no seat {seat} at a {len(table.players)}-seat table", 422)
            if table.players[seat].kind != "open":
                raise TableError("seat_taken", f"seat {seat} is taken", 409, params={"n": seat + 1})
            token = token or secrets.token_urlsafe(24)
            try:
                ok = await self.writer.run(self.store.claim_seat, table.id, seat, name, hash_token(token), account_id)
            except SeatHeld as exc:
                raise _one_seat(exc.seat) from None
            if not ok:
                await self.catch_up(table)
                raise TableError("seat_taken", f"seat {seat} is taken", 409, params={"n": seat + 1})
            p = table.players[seat]
            p.kind, p.name, p.token_hash, p.away_since = "human", name, hash_token(token), time.monotonic()
            p.user_id = account_id
            await self._seated(table)
        await self.publish_seats(table.id, -1)
        log.info("seat joined", extra={"fields": {"table": table.id, "seat": seat}})
        return seat, token

    async def _seated(self, table: LiveTable) -> None:
        """After seats were taken (under the table's lock): a table that is now full starts (its status
        stored, its clock running), and everyone sees the new seat list."""
        if table.status == "playing":
            await self.writer.run(self.store.set_status, table.id, "playing")
            await self._start_timer(table)
        table.players_changed()
        table.broadcast_state(force=True)
        self._schedule(table)

    async def seat_bots(self, table: LiveTable, spec: str) -> list[int]:
        """Bots of ``spec`` take every open seat of a waiting table, which then starts (the host asks:
        routes/seats.py); the seats they took. A seat someone claimed meanwhile stays theirs."""
        if spec not in SEATABLE_BOTS:
            raise TableError("bad_request", unknown_bot(spec), 422)
        taken: list[int] = []
        async with table.lock:
            if table.status != "open":
                raise TableError("table_full", "this table has no open seat", 409)
            for seat, p in enumerate(table.players):
                if p.kind != "open":
                    continue
                if not await self.writer.run(self.store.seat_bot, table.id, seat, spec):
                    await self.catch_up(table)  # a person (through another process) was first
                    continue
                p.kind, p.bot = "bot", spec
                taken.append(seat)
            await self._seated(table)
        await self.publish_seats(table.id, -1)
        log.info("open seats given to bots", extra={"fields": {"table": table.id, "seats": taken}})
        return taken

    # ------------------------------------------------------------------ connections

    async def find_seat(self, table: LiveTable, token: str) -> int:
        """:meth:`seat_for_token`, checked against the database where another process may have
        changed the seat without this one hearing yet (the database is the truth, the message only
        a wake-up). A miss asks the database: the seat may have been joined through another process;
        only a token the database knows costs more than that one read. With
        several processes a hit asks too: another process may have given the seat to a bot or the
        seat's person a new link (``take_over``), and the old token must not see the seat's hand
        meanwhile. A lone process makes every seat change itself, so its hits are
        answered from memory."""
        h = hash_token(token)
        try:
            seat = self.seat_for_token(table, token)
        except TableError as exc:
            if exc.code != "unauthorized":
                raise
            seats = await asyncio.to_thread(self.store.seats, table.id)
            if any(s.token_hash is not None and secrets.compare_digest(s.token_hash, h) for s in seats):
                async with table.lock:
                    await self.catch_up(table)
            return self.seat_for_token(table, token)
        if self.fanout is None:
            return seat
        try:
            seats = await asyncio.to_thread(self.store.seats, table.id)
        except Exception:  # the database is away: memory answers (the message still tells of a change)
            log.exception("seat check on hello failed", extra={"fields": {"table": table.id}})
            return seat
        held = next((s for s in seats if s.seat == seat), None)
        if (
            held is None
            or held.kind != "human"
            or held.token_hash is None
            or not secrets.compare_digest(held.token_hash, h)
        ):
            async with table.lock:
                await self.catch_up(table)
            return self.seat_for_token(table, token)
        return seat

    def seat_for_token(self, table: LiveTable, token: str) -> int:
        """The seat ``token`` holds; raise ``unauthorized`` or ``replaced``."""
        h = hash_token(token)
        for i, p in enumerate(table.players):
            if p.token_hash is not None and secrets.compare_digest(p.token_hash, h):
                if p.kind == "human":
                    return i
                if p.replaced and table.clock is not None:
                    raise TableError(
                        "replaced",
                        f"Your time for the move and your time bank ran out, so a bot ({p.bot}) now plays "
                        f"seat {i + 1} and this seat's link no longer works. You can watch the table.",
                        403,
                    )
                if p.replaced:
                    raise TableError(
                        "replaced",
                        f"You were away longer than {self.settings.grace_seconds:g} s, so a bot ({p.bot}) "
                        f"now plays seat {i + 1} and this seat's link no longer works. You can watch the table.",
                        403,
                    )
        raise TableError("unauthorized", "this token holds no seat at this table", 403)

    def attach(self, table: LiveTable, conn: Conn) -> LiveTable:
        """Add ``conn`` to ``table`` and send it the state; the table it was attached to (the one
        this process holds: ``table`` may have been dropped, or reloaded, since the caller got it)."""
        held = self.tables.get(table.id)
        behind = False
        if held is None:  # dropped while the hello was checked: hold it again, and read what it missed
            self.tables[table.id] = table
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
            self._touch.add((table.id, conn.seat))
            table.players_changed()
            if first and self.fanout is not None:
                self.fanout.publish({"k": "p", "t": table.id, "s": conn.seat, "on": 1})
        if not table.driver and not table.game.is_over and self.fanout is not None:
            self.loops.spawn(self._claim(table))
        if behind or (conn.since is not None and conn.since > table.version):
            # The client saw a later version, on another process: read it before showing a state,
            # or the client would see the table go back.
            self.loops.spawn(self._attach_behind(table, conn))
        else:
            conn.push(Conn.FULL)
        return table

    async def _attach_behind(self, table: LiveTable, conn: Conn) -> None:
        try:
            async with table.lock:
                await self.catch_up(table)
        except Exception:  # the database is away: show what this process has
            log.exception("catch-up on hello failed", extra={"fields": {"table": table.id}})
        finally:
            conn.push(Conn.FULL)

    def detach(self, conn: Conn) -> None:
        table = conn.table
        if table is None or conn not in table.conns:
            return
        table.conns.discard(conn)
        table.touched = time.monotonic()
        if conn.seat is not None and not any(c.seat == conn.seat for c in table.conns):
            table.players[conn.seat].away_since = time.monotonic()
            table.players_changed()
            if self.fanout is not None:
                self.fanout.publish({"k": "p", "t": table.id, "s": conn.seat, "on": 0})
        if not table.conns and table.driver and table.wanted_by is not None:
            # Another process asked for this table while players were here: they are gone now.
            self.loops.spawn(self._hand(table, table.wanted_by))
            table.wanted_by = None
        elif not table.conns and not table.driver and self.fanout is not None:
            # Nobody here needs this table's moves any more: tell its driver, and let it go.
            self.fanout.publish({"k": "unwant", "t": table.id})
            self._forget(table)

    def drop_seat_connections(self, table: LiveTable, seat: int) -> None:
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

    # ------------------------------------------------------------------ moves

    async def act(self, conn: Conn, action_id: str, version: int, text: str) -> dict[str, Any]:
        """A player's move: the answer frame (``ack`` or ``error``). State frames go to everyone."""
        table = conn.table
        assert table is not None
        seat = conn.seat
        if seat is None:
            return error_frame("unauthorized", "spectators cannot move", action_id=action_id)
        async with table.lock:
            if conn.seat is None:  # replaced, or taken over with a new link, while waiting for the lock
                who = "a bot" if table.players[seat].kind == "bot" else "a new link to it"
                return error_frame(
                    "replaced", f"{who} now plays seat {seat + 1}; you are watching", action_id=action_id
                )
            done = table.results.get((seat, action_id))
            if done is not None:
                return {"type": "ack", "action_id": action_id, "version": done}
            if table.game.is_over:
                return error_frame("game_over", "the game is over", action_id=action_id, version=table.version)
            if version != table.version:
                return error_frame(
                    "stale",
                    f"that move was made against version {version}; the table is at version {table.version}",
                    action_id=action_id,
                    version=table.version,
                )
            if table.status != "playing":
                return error_frame("not_your_turn", "the game starts when every seat is taken", action_id=action_id)
            if table.game.to_move != seat:
                return error_frame(
                    "not_your_turn",
                    f"it is seat {table.game.to_move}'s turn, not yours (seat {seat})",
                    action_id=action_id,
                    version=table.version,
                )
            try:
                move = Move.parse(text)
            except CatsackError as exc:
                return error_frame("illegal", str(exc), action_id=action_id, version=table.version)
            err = await self._commit(table, seat, move, action_id, "human")
            if err is not None:
                return error_frame(err[0], err[1], action_id=action_id, version=table.version)
            return {"type": "ack", "action_id": action_id, "version": table.version}

    async def _commit(
        self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str
    ) -> tuple[str, str] | None:
        """Play ``move`` for ``seat`` (lock held): commit, then apply and broadcast. An error pair or None."""
        # Work out the move's consequences on the game itself and take it back at once (no await in
        # between, so no frame can show it); it is played for good only once it is committed.
        game = table.game
        try:
            game.play(move)
        except CatsackError as exc:
            return ("illegal", str(exc))
        version = len(game.moves)
        over = game.is_over
        status = "over" if over else "playing"
        to_move = game.to_move
        clock = table.clock
        if clock is not None:
            clock = clock.after_move(seat, time.time(), charged=actor == "human")
        deadline = self._deadline_for(table, game, clock)
        game.undo()
        clock_text = None if clock is None else clock.to_json()
        # A person's move is written only while their token still holds the seat in the database:
        # another process may have given it to a bot, or to a new token, and not told us yet.
        token = table.players[seat].token_hash if actor == "human" else None
        try:
            await self.writer.append(
                Append(
                    table.id, version, seat, move.text, action_id, actor, status, deadline, to_move, clock_text, token
                )
            )
        except AppendConflict as exc:
            log.warning("append conflict", extra={"fields": {"table": table.id, "version": version}})
            if self.metrics is not None:
                self.metrics.append_conflicts.inc()
            await self.catch_up(table)
            p = table.players[seat]
            if token is not None and (p.kind != "human" or p.token_hash != token):
                who = f"a bot ({p.bot})" if p.kind == "bot" else "a new link to it"
                return ("replaced", f"the move was not made: {who} now plays seat {seat + 1}; you are watching")
            return ("stale", f"{exc}; the table is at version {table.version}")
        except Exception:
            log.exception("database write failed", extra={"fields": {"table": table.id}})
            return ("unavailable", "the move could not be saved; nothing changed, try again")
        game.play(move)
        nxt = game
        table.row = dataclasses.replace(
            table.row,
            version=version,
            status=status,
            deadline=deadline,
            finished=time.time() if over else None,
            to_move=to_move,
            clock=clock_text,
        )
        if action_id is not None:
            table.results[(seat, action_id)] = version
        table.touched = time.monotonic()
        table.turn_began = time.time()
        table.broadcast_state()
        if self.metrics is not None:
            self.metrics.moves.labels(actor).inc()
        self._schedule(table)
        self.events.emit(MoveApplied(table.id, version))
        # The move itself goes to the other processes that hold the table (queued: nothing here waits
        # for Redis); they play it on their copies without reading the database.
        if self.fanout is not None and self._heard(table):
            self.fanout.publish(
                {
                    "k": "m",
                    "t": table.id,
                    "v": version,
                    "s": seat,
                    "m": move.text,
                    "a": action_id,
                    "st": status,
                    "d": deadline,
                    "c": clock_text,
                    "b": table.turn_began,
                }
            )
        if clock is not None and not nxt.is_over:
            self._turn_changed(table)
        if nxt.is_over:
            log.info("game over", extra={"fields": {"table": table.id, "scores": list(nxt.scores())}})
            self.events.publish_soon(GameOver(table))  # reputation, rating, tournament
        return None

    def _heard(self, table: LiveTable) -> bool:
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

    def service(self, kind: type[_S], make: Callable[[], _S]) -> _S:
        """This hub's one object of ``kind`` (a mailbox, the chat log, ...), made by ``make`` on first use."""
        found = self._services.get(kind)
        if found is None:
            found = self._services[kind] = make()
        assert isinstance(found, kind)
        return found

    async def publish_seats(self, table_id: str, version: int = -1) -> None:
        """Tell the other processes that ``table_id``'s seats changed (they read them). Moves go out
        with their content from :meth:`_commit`; any other ``version`` is a plain wake-up."""
        self.events.emit(MoveApplied(table_id, version) if version >= 0 else SeatsChanged(table_id))
        if self.fanout is not None:
            self.fanout.publish({"k": "seats", "t": table_id, "v": version})

    # ------------------------------------------------------------------ bots and timers

    def _deadline_for(self, table: LiveTable, game: Game, clock: Clock | None = None) -> float | None:
        """When the turn of ``game``'s seat to move runs out: a real-time table's turn timer, or a
        turn-based table's ``clock`` (its time per move and the seat's bank); ``None`` for a bot."""
        seat = game.to_move
        if seat is None or table.players[seat].kind != "human":
            return None
        if clock is not None:
            return clock.deadline(seat)
        seconds = table.options.get("turn_seconds")
        if not seconds:
            return None
        return time.time() + float(seconds)

    async def _start_timer(self, table: LiveTable) -> None:
        """The game starts (the last seat was taken): start the turn timer or the turn-based clock."""
        clock = table.clock
        if clock is not None:
            clock = clock.started(time.time())
        deadline = self._deadline_for(table, table.game, clock)
        clock_text = None if clock is None else clock.to_json()
        await self.writer.run(partial(self.store.set_deadline, table.id, table.version, deadline, clock=clock_text))
        table.row = dataclasses.replace(table.row, deadline=deadline, status=table.status, clock=clock_text)
        if clock is not None:
            self._turn_changed(table)

    def _turn_changed(self, table: LiveTable) -> None:
        """A turn-based table's turn passed to someone: a person's is told (a mail, if they want it)."""
        seat = table.game.to_move
        if seat is not None and table.players[seat].kind == "human":
            self.events.publish_soon(TurnToPerson(table))

    def _schedule(self, table: LiveTable, *, resume: bool = False) -> None:
        """Start whatever moves the game on by itself: a bot's move or a turn timer. Only the process
        holding the table's lease does (otherwise every process holding a table
        computed every bot move, and all but one lost the append race). ``resume``: the table was just
        loaded or taken over, and its turn began before (a bot's delay counts from then)."""
        if table.task is not None and not table.task.done() and table.task is not asyncio.current_task():
            table.task.cancel()
        table.task = None
        seat = table.game.to_move
        if seat is None or table.status != "playing" or not table.driver:
            return
        p = table.players[seat]
        if p.kind == "bot":
            table.task = asyncio.create_task(self._bot_turn(table, seat, table.version, resume))
        elif p.kind == "human" and table.row.deadline is not None:
            table.task = asyncio.create_task(self._timer_turn(table, seat, table.version, table.row.deadline))

    def _bot(self, table: LiveTable, seat: int, spec: str) -> Bot:
        bot = table.bots.get(seat)
        if bot is None or bot.name != spec:
            bot = make_bot(spec, seed=secrets.randbits(32))
            bot.name = spec
            bot.reset(seat, table.row.seats)
            bot.meet(table.kinds)
            table.bots[seat] = bot
        return bot

    async def _decide(self, table: LiveTable, seat: int, spec: str, until: float) -> Move:
        """The bot ``spec``'s move for ``seat``, from the seat's view only (R23). A searching bot thinks in
        a thinking process until ``until`` (the pace's clock), so it never holds the event loop's GIL."""
        view = table.game.view(seat, show_money=bool(table.options.get("money_visible")))
        t0 = time.perf_counter()
        if spec.startswith(_THREAD_BOTS):
            deadline = self.pace.wall(until)
            memory = table.memory_for(seat)  # read at the tables before a rematch, from the people seated now
            text = await self.thinkers.move(spec, seat, table.row.seats, table.kinds, view, deadline, memory)
            move = Move.parse(text)
        else:
            move = self._bot(table, seat, spec).choose(view)
        if self.metrics is not None:
            self.metrics.bot_think.labels(spec).observe(time.perf_counter() - t0)
        return move

    def _standin_move(self, table: LiveTable, seat: int) -> Move:
        """The stand-in bot's move for ``seat``, worked out at once in this process (a fraction of a
        millisecond): what the seat plays if its search has not answered when the move is due."""
        bot = make_bot(self.settings.standin_bot, seed=secrets.randbits(32))
        bot.reset(seat, table.row.seats)
        bot.meet(table.kinds)
        return bot.choose(table.game.view(seat, show_money=bool(table.options.get("money_visible"))))

    async def _bot_turn(self, table: LiveTable, seat: int, version: int, resume: bool = False) -> None:
        # When the move is due is drawn before anything of the view is read, and the move is released
        # then, whatever its search did: the search's answer if it came in time, else the stand-in's move
        # worked out now. A forced move and a move with a choice are released alike by construction (R23,
        # R24; thinking.Pace.release, docs/protocol.md). A process that has just taken the table over
        # (``resume``) counts the delay from when the turn began, as the log or the last message tells:
        # the table does not stand still a whole bot delay more.
        plan = self.pace.plan()
        if resume and table.turn_began is not None:
            plan = plan.resumed(plan.start - max(0.0, time.time() - table.turn_began))
        try:
            spec = table.players[seat].bot or self.settings.standin_bot
            fallback = self._standin_move(table, seat)
            if spec.startswith(_THREAD_BOTS):  # it searches in a thinking process: not waited for
                search: asyncio.Future[Move] = asyncio.ensure_future(self._decide(table, seat, spec, plan.think_until))
            else:  # a bot of this process decides at once, before the wait
                search = asyncio.get_running_loop().create_future()
                try:
                    search.set_result(await self._decide(table, seat, spec, plan.think_until))
                except Exception as exc:
                    search.set_exception(exc)
            try:
                move = await self.pace.release(plan, search, fallback)
            except asyncio.CancelledError:
                search.cancel()
                raise
            except Exception:  # (no delay to keep) a thinking process died: the stand-in's move
                move = fallback
            if search.done() and not search.cancelled() and search.exception() is not None:
                # a thinking process died: the stand-in played this move, the game goes on
                log.error(
                    "bot failed; the stand-in moved",
                    exc_info=search.exception(),
                    extra={"fields": {"table": table.id, "seat": seat}},
                )
            async with table.lock:
                if table.version != version or table.players[seat].kind != "bot":
                    return
                table.task = None
                err = await self._commit(table, seat, move, None, "bot")
                if err is not None:
                    log.error("bot move refused", extra={"fields": {"table": table.id, "seat": seat, "why": err[1]}})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot failed", extra={"fields": {"table": table.id, "seat": seat}})

    async def _timer_turn(self, table: LiveTable, seat: int, version: int, deadline: float) -> None:
        try:
            await asyncio.sleep(max(0.0, deadline - time.time()))
            if table.clock is not None and (table.row.deadline or 0.0) > time.time() + 1.0:
                self._schedule(table)  # the clock was paused meanwhile (a vacation): wait for its new deadline
                return
            if table.clock is not None and not table.clock.settling(time.time()):
                await self._clock_ran_out(table, seat, version)
                return
            # A real-time turn timer, or a turn-based table past its hard stop (a tournament round's
            # deadline): the stand-in bot moves for the person, and the seat stays theirs.
            move = await self._decide(table, seat, self.settings.standin_bot, self.pace.clock())
            async with table.lock:
                if table.version != version:
                    return
                table.task = None
                err = await self._commit(table, seat, move, None, "timer")
            if err is None:
                for c in list(table.conns):
                    if c.seat == seat:
                        c.push(
                            {
                                "type": "notice",
                                "code": "timer",
                                "message": f"Your time ran out: a bot played {move.text} for you.",
                            }
                        )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer move failed", extra={"fields": {"table": table.id, "seat": seat}})

    async def _clock_ran_out(self, table: LiveTable, seat: int, version: int) -> None:
        """A turn-based seat spent its time per move and its bank: a bot plays the seat from now on
        (docs/rules.md, "Playing online"), as after the grace period of a real-time table."""
        if table.version != version or table.players[seat].kind != "human":
            return
        if table.task is asyncio.current_task():
            table.task = None  # replace() reschedules; it must not cancel this task while it runs
        # A move may land while this waits for the table's lock (the instant the clock runs out): then
        # the player made it in time, and replace() leaves the seat alone (it checks the version again).
        if await self.replace(table, seat, version=version):
            log.info("turn-based clock ran out", extra={"fields": {"table": table.id, "seat": seat}})

    async def _clock_sweeper(self) -> None:
        """Load the turn-based games whose clock ran out or whose bot is to move while nobody had them
        open (after a restart too), so that they are driven; the others stay in the database."""
        while True:
            await asyncio.sleep(self.settings.clock_sweep_seconds)
            try:
                await self.drive_due_tables()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("clock sweep failed")

    async def drive_due_tables(self) -> int:
        """One pass of :meth:`_clock_sweeper`; how many tables it loaded."""
        ids = await asyncio.to_thread(due_tables, self.store.engine, self.process_id, list(self.tables))
        for table_id in ids:
            await self.get(table_id, lease=True)
        return len(ids)

    # ------------------------------------------------------------------ housekeeping

    async def _sweeper(self) -> None:
        while True:
            await asyncio.sleep(self.settings.sweep_seconds)
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("sweep failed")

    async def sweep(self, now: float | None = None) -> None:
        """Grace periods, eviction and version gaps across processes."""
        now = time.monotonic() if now is None else now
        await self._write_presence(now)
        for table in list(self.tables.values()):
            # A turn-based seat is never handed to a bot for being away: its clock is the only limit.
            if table.status == "playing" and table.driver and table.clock is None:
                await self._grace(table, now)
            if not table.conns:
                await self._evict_idle(table, now)
        if self.fanout is not None:
            await self._close_gaps()
        await self._retention(now)
        if (self._evicted or self.sockets_dropped) and now - self._trimmed >= 2.0:
            # Memory of evicted tables and of closed connections (silent ones above all)
            # go back to the system instead of staying with the allocator.
            self._evicted, self.sockets_dropped, self._trimmed = 0, 0, now
            await asyncio.to_thread(malloc_trim)

    async def _grace(self, table: LiveTable, now: float) -> None:
        """A bot takes the seats of a real-time table whose people are gone past the grace period."""
        grace = self.settings.grace_seconds
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
        seen = await asyncio.to_thread(self.store.seen, table.id)
        wall = time.time()
        for seat in away:
            last = seen.get(seat)
            since = table.players[seat].away_since
            if last is None and since is not None and now - since < arrival_wait(table, seat):
                continue  # mailed to come and not come yet: the seat waits longer
            if last is None or wall - last >= grace:
                await self.replace(table, seat)

    async def _evict_idle(self, table: LiveTable, now: float) -> None:
        """Let go of a table nobody here looks at, once it has been idle long enough for its state."""
        s = self.settings
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
            await self.writer.run(self.store.set_status, table.id, "abandoned")
            self.evict(table)
        elif table.status == "playing" and idle >= s.evict_idle_seconds and not self._bots_only(table):
            self.evict(table)

    async def _close_gaps(self) -> None:
        """A lost message shows as a version gap: read what is missing (one query for all tables)."""
        watched = [t for t in self.tables.values() if (t.conns or t.driver) and not t.inbox]
        stored = await asyncio.to_thread(self.store.versions, [t.id for t in watched])
        for table in watched:
            if stored.get(table.id, -1) > table.version:
                async with table.lock:
                    await self.catch_up(table)

    async def _write_presence(self, now: float) -> None:
        """Tell the other processes which seats are connected here: the seats that connected since the
        last sweep at once, and every connected seat a few times per grace period."""
        seats = self._touch
        self._touch = set()
        if now - self._touched_all >= min(self.settings.grace_seconds / 4.0, PRESENCE_REFRESH):
            self._touched_all = now
            connected = {(t.id, c.seat) for t in self.tables.values() for c in t.conns if c.seat is not None}
            seats |= connected
            relayed = sorted(t.id for t in self.tables.values() if t.conns and not t.driver)
            if self.fanout is not None and (connected or relayed):
                self.fanout.publish({"k": "pa", "seats": sorted(connected), "w": relayed})
        if seats:
            await asyncio.to_thread(self.store.touch_seats, sorted(seats))

    async def _retention(self, now: float) -> None:
        """Delete (after archiving, if set) finished games older than ``retention_days``, hourly."""
        s = self.settings
        if not s.retention_days or now - self._pruned < 3600.0:
            return
        self._pruned = now
        n = await asyncio.to_thread(prune, self.store, s.retention_days, s.retention_archive_dir)
        if n:
            log.info("finished games deleted", extra={"fields": {"tables": n, "days": s.retention_days}})

    def _bots_only(self, table: LiveTable) -> bool:
        return all(p.kind == "bot" for p in table.players) and not table.game.is_over

    def evict(self, table: LiveTable) -> None:
        if table.task is not None:
            table.task.cancel()
        for b in table.bots.values():
            b.close()
        self.tables.pop(table.id, None)
        self._evicted += 1
        if table.driver:  # another process holding it may drive it at once
            table.driver = False
            self.loops.spawn(self._release(table.id))
        log.info("table evicted", extra={"fields": {"table": table.id, "status": table.status}})

    async def _release(self, table_id: str) -> None:
        try:
            await asyncio.to_thread(self.store.release_leases, self.process_id, [table_id])
        except Exception:  # it runs out by itself
            log.warning("lease release failed", extra={"fields": {"table": table_id}})

    async def replace(self, table: LiveTable, seat: int, *, version: int | None = None) -> bool:
        """A bot takes over an absent player's seat; the old token stops working.

        With ``version``, only while the table is still at that version (checked under the table's lock:
        a turn-based clock ran out at that version, and a move since then keeps the seat its person's).
        Whether the seat was handed over."""
        async with table.lock:
            p = table.players[seat]
            if p.kind != "human" or (version is not None and table.version != version):
                return False
            spec = self.settings.standin_bot
            await self.writer.run(self.store.replace_with_bot, table.id, seat, spec)
            p.kind, p.bot, p.replaced, p.away_since = "bot", spec, True, None
            self.drop_seat_connections(table, seat)
            table.players_changed()
            table.broadcast_state(force=True)
            self._schedule(table)
        await self.publish_seats(table.id, -1)
        log.info("player replaced by bot", extra={"fields": {"table": table.id, "seat": seat}})
        # The seat was abandoned: its account's reputation, a tournament's withdrawal.
        await self.events.publish(SeatAbandoned(table, seat))
        return True

    # ------------------------------------------------------------------ hints

    async def hint(self, conn: Conn) -> dict[str, Any]:
        """The expert's advice for the connection's seat, worked out in a thinking process within
        ``hint_seconds``: one at a time per seat (however many connections it has), and at most
        ``hint_max_running`` in this process."""
        table = conn.table
        assert table is not None
        if not table.options.get("hints"):
            return error_frame("hints_off", "this table does not allow hints")
        seat = conn.seat
        if seat is None:
            return error_frame("unauthorized", "spectators get no hints")
        if table.game.to_move != seat:
            return error_frame("not_your_turn", "hints are given when it is your turn")
        key = (table.id, seat)
        if key in self._hinting:
            return error_frame("rate_limited", "a hint is already being worked out")
        if not self.thinkers.hint_slot():
            return error_frame("busy", "the server is working out other hints: try again in a moment")
        view = table.game.view(seat, show_money=bool(table.options.get("money_visible")))
        version = table.version
        self._hinting.add(key)
        try:
            a = await self.thinkers.hint(view, table.kinds)
        finally:
            self._hinting.discard(key)
            self.thinkers.hint_done()
        return {"type": "hint", "version": version, **a}


#: The handler of each kind of message from another process (catsack.server.fanout) about one table.
_MESSAGES: dict[str, Callable[[Hub, LiveTable, str, dict[str, Any]], None]] = {
    "m": Hub._msg_move,
    "seats": Hub._msg_seats,
    "p": Hub._msg_presence,
    "want": Hub._msg_want,
    "unwant": Hub._msg_unwant,
    "at": Hub._msg_at,
    "driver": Hub._msg_driver,
    "handed": Hub._msg_handed,
}


def arrival_wait(table: LiveTable, seat: int) -> float:
    """How long ``seat`` is kept for a person who has not come to the table yet: a tournament table
    waits ``wait_seconds`` for the players it mailed (``mailed_seats``), any other seat nothing beyond
    the grace period."""
    if seat in (table.options.get("mailed_seats") or ()):
        return float(table.options.get("wait_seconds") or 0.0)
    return 0.0


def _one_seat(seat: int | None) -> TableError:
    where = f"seat {seat + 1}" if seat is not None else "a seat"
    return TableError(
        "one_seat",
        f"your account already holds {where} at this table: one account, one seat",
        409,
        params={"n": seat + 1 if seat is not None else 0},
    )
