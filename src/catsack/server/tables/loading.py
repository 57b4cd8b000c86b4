"""Tables loaded from the database on first use, and caught up with it.

The database is the truth: a table's game is rebuilt from its stored setup and action log
(:func:`catsack.server.tables.live.stored_game`), and a table another process changed reads what it missed
(the actions after its version, its seats, its row) in one query.
"""

from __future__ import annotations

import asyncio
import logging
import time

from catsack.server.storage.store import ActionRow, SeatRow, TableRow
from catsack.server.tables.connections import PRESENCE_REFRESH
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import LiveTable, Player, stored_game

log = logging.getLogger("catsack.server")


class Loader:
    """Loads the tables of one process and catches them up with the database."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub
        self.loading: dict[str, asyncio.Future[LiveTable | None]] = {}

    async def get(self, table_id: str, *, lease: bool = False) -> LiveTable | None:
        """The live table ``table_id``, loaded from the database on first use. Different tables load
        at the same time (a process that relays for another loads thousands as clients say hello);
        callers asking for one table while it loads wait for that load. The table's lease is tried
        at once when ``lease`` (the process that made it drives it) or when something is waiting to
        be driven (bots, a turn timer); any other table gets its lease from the next sync, which
        spares a relaying process one write per table it loads."""
        table = self.hub.tables.get(table_id)
        if table is not None:
            if self.hub.fanout is not None and not table.conns and not table.driver and table.status == "playing":
                # Moves go only to the processes with players there; seat changes go everywhere (and
                # drop such a copy), so only a game in play can be behind.
                await self.refresh(table)
            return table
        if not isinstance(table_id, str) or not 1 <= len(table_id) <= 32:
            return None
        pending = self.loading.get(table_id)
        if pending is not None:
            return await asyncio.shield(pending)
        fut: asyncio.Future[LiveTable | None] = asyncio.get_running_loop().create_future()
        fut.add_done_callback(lambda f: f.cancelled() or f.exception())  # waiters may be gone
        self.loading[table_id] = fut
        try:
            table = await self.load(table_id, lease)
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        else:
            fut.set_result(table)
        finally:
            del self.loading[table_id]
        return table

    async def refresh(self, table: LiveTable) -> None:
        """Bring a copy that nothing keeps up to date (no connection here, driven elsewhere: its moves
        are not sent here) to the database's state before it is shown."""
        try:
            async with table.lock:
                await self.catch_up(table)
        except Exception:  # the database is away: show what this process has
            log.exception("refresh failed", extra={"fields": {"table": table.id}})

    async def load(self, table_id: str, lease: bool) -> LiveTable | None:
        """Read ``table_id`` from the database and hold it here (``None``: no such table, abandoned,
        or damaged); take its lease when asked or when something waits to be driven."""
        hub = self.hub
        loaded = await asyncio.to_thread(hub.store.load, table_id)
        if loaded is None:
            return None
        row, seats, actions = loaded
        if row.status == "abandoned":
            return None
        try:
            table = self.build(row, seats, actions)
        except Exception:  # one damaged table must not keep the others (or the server) down
            log.exception("table cannot be loaded", extra={"fields": {"table": table_id}})
            return None
        hub.tables[table_id] = table
        if not table.game.is_over and (
            lease
            or table.options.get("turn_seconds")
            or table.clock is not None
            or any(p.kind == "bot" for p in table.players)
        ):
            seconds = hub.settings.lease_seconds
            held = await asyncio.to_thread(hub.store.leases.take_leases, hub.process_id, [table_id], seconds)
            table.driver = table_id in held
        hub.schedule(table, resume=True)
        return table

    def build(self, row: TableRow, seats: list[SeatRow], actions: list[ActionRow]) -> LiveTable:
        """The live table of a stored row, its seats and its action log."""
        game = stored_game(row, events=True)
        now = time.monotonic()
        players = [
            Player(
                s.kind,
                s.name,
                s.bot,
                s.token_hash,
                s.replaced,
                now if s.kind == "human" else None,
                s.user_id,
                s.bot_account,
            )
            for s in seats
        ]
        table = LiveTable(hub=self.hub, row=row, players=players, game=game)
        apply_rows(table, actions)
        if self.hub.fanout is not None:  # seats connected to other processes, until those say otherwise
            wall = time.time()
            for s in seats:
                if s.kind == "human" and s.seen is not None and wall - s.seen < 2 * PRESENCE_REFRESH:
                    table.elsewhere_set("", s.seat, True, 2 * PRESENCE_REFRESH - (wall - s.seen))
        return table

    async def catch_up(self, table: LiveTable) -> None:
        """Read what other processes appended (or seat changes) and tell our connections (the
        caller holds the table's lock). One read: the actions after our version, seats, the row."""
        actions, seats, row = await asyncio.to_thread(self.hub.store.changes, table.id, table.version)
        before = table.version
        apply_rows(table, actions)
        # A clock changed without a move (a vacation began or ended): its timer and its shown clock follow.
        moved = row is not None and (row.clock, row.deadline) != (table.row.clock, table.row.deadline)
        if row is not None:
            table.row = row
        changed = self.seats_changed(table, seats)
        if changed:
            table.players_changed()
        if table.version != before or changed or moved:
            table.broadcast_state(force=changed)
            self.hub.schedule(table)

    def seats_changed(self, table: LiveTable, seats: list[SeatRow]) -> bool:
        """Take the stored ``seats`` into ``table``'s players; whether any changed."""
        changed = False
        for s in seats:
            p = table.players[s.seat]
            held = (p.kind, p.name, p.bot, p.token_hash, p.replaced, p.user_id, p.bot_account)
            if held == (s.kind, s.name, s.bot, s.token_hash, s.replaced, s.user_id, s.bot_account):
                continue
            # A bot took the seat, or its person took it over with a new token (elsewhere): the
            # connections that came with the old token stop being the seat's.
            dropped = s.kind == "bot" or (p.token_hash is not None and p.token_hash != s.token_hash)
            p.kind, p.name, p.bot, p.token_hash, p.replaced = s.kind, s.name, s.bot, s.token_hash, s.replaced
            # The account seated (joined through another process): whether it is a guest, or a bot account.
            p.user_id, p.bot_account = s.user_id, s.bot_account
            if s.kind == "human" and p.away_since is None:
                p.away_since = time.monotonic()
            changed = True
            if dropped:
                self.hub.drop_seat_connections(table, s.seat)
        return changed


def apply_rows(table: LiveTable, actions: list[ActionRow]) -> None:
    """Play the stored ``actions`` that follow ``table``'s version on its game."""
    for a in actions:
        if a.version != table.version + 1:
            continue  # already applied
        table.game.play(a.move)
        if a.action_id is not None:
            table.results[(a.seat, a.action_id)] = a.version
        table.turn_began = a.created
