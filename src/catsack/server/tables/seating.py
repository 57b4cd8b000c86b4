"""New tables, seats and their tokens, and a bot taking a person's seat.

A seat is a person's while the hash of its secret token (:func:`catsack.server.storage.tokens.hash_token`)
is the one stored for it; a bot taking the seat over (the grace period, a turn-based clock run out)
or a new link to it makes the old token stop working.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from functools import partial
from typing import Any

from catsack.server.storage.names import skeleton
from catsack.server.storage.store import SeatHeld, SeatRow
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.bus import SeatAbandoned
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import LiveTable, TableError, setup_to_json
from catsack.server.tables.turnbased import TurnBased
from catsack.setup import Setup

log = logging.getLogger("catsack.server")

#: The bot levels a table offers, weakest first (the lobby lists them in this order): Random, Simple,
#: Easy, Normal, Strong, Expert. Easy to Strong are the expert at smaller budgets (docs/results.md measures
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


class Seating:
    """Makes tables and gives their seats to people and bots."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub

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
        """A new table in the database and in memory (see :meth:`catsack.server.tables.hub.Hub.create`)."""
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
        store = self.hub.store
        await self.hub.writer.run(
            partial(store.create_table, table_id, name, rows, options, setup_to_json(setup), status, clock=clock)
        )
        table = await self.hub.get(table_id, lease=True)
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
        """Give a person a seat (see :meth:`catsack.server.tables.hub.Hub.join`): the seat and its token."""
        hub = self.hub
        async with table.lock:
            held = next((i for i, p in enumerate(table.players) if account_id and p.user_id == account_id), None)
            if held is not None:
                raise one_seat(held)
            if distinct:
                refuse_same_name(table, name)
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
                claimed = await hub.writer.run(
                    hub.store.claim_seat, table.id, seat, name, hash_token(token), account_id
                )
            except SeatHeld as exc:
                raise one_seat(exc.seat) from None
            if claimed is None:
                await hub.catch_up(table)
                raise TableError("seat_taken", f"seat {seat} is taken", 409, params={"n": seat + 1})
            p = table.players[seat]
            p.kind, p.name, p.token_hash, p.away_since = "human", name, hash_token(token), time.monotonic()
            p.user_id, p.bot_account = account_id, claimed.bot_account
            await self.seated(table)
        await hub.publish_seats(table.id, -1)
        log.info("seat joined", extra={"fields": {"table": table.id, "seat": seat}})
        return seat, token

    async def seated(self, table: LiveTable) -> None:
        """After seats were taken (under the table's lock): a table that is now full starts (its status
        stored, its clock running), and everyone sees the new seat list."""
        if table.status == "playing":
            await self.hub.writer.run(self.hub.store.set_status, table.id, "playing")
            await self.hub.start_timer(table)
        table.players_changed()
        table.broadcast_state(force=True)
        self.hub.schedule(table)

    async def seat_bots(self, table: LiveTable, spec: str) -> list[int]:
        """Bots of ``spec`` take every open seat of a waiting table, which then starts (the host asks:
        routes/seats.py); the seats they took. A seat someone claimed meanwhile stays theirs."""
        hub = self.hub
        if spec not in SEATABLE_BOTS:
            raise TableError("bad_request", unknown_bot(spec), 422)
        taken: list[int] = []
        async with table.lock:
            if table.status != "open":
                raise TableError("table_full", "this table has no open seat", 409)
            for seat, p in enumerate(table.players):
                if p.kind != "open":
                    continue
                if not await hub.writer.run(hub.store.seat_bot, table.id, seat, spec):
                    await hub.catch_up(table)  # a person (through another process) was first
                    continue
                p.kind, p.bot = "bot", spec
                taken.append(seat)
            await self.seated(table)
        await hub.publish_seats(table.id, -1)
        log.info("open seats given to bots", extra={"fields": {"table": table.id, "seats": taken}})
        return taken

    async def find_seat(self, table: LiveTable, token: str) -> int:
        """:meth:`seat_for_token`, checked against the database where another process may have
        changed the seat without this one hearing yet (see :meth:`catsack.server.tables.hub.Hub.find_seat`)."""
        hub = self.hub
        h = hash_token(token)
        try:
            seat = self.seat_for_token(table, token)
        except TableError as exc:
            if exc.code != "unauthorized":
                raise
            seats = await asyncio.to_thread(hub.store.seats, table.id)
            if any(s.token_hash is not None and secrets.compare_digest(s.token_hash, h) for s in seats):
                async with table.lock:
                    await hub.catch_up(table)
            return self.seat_for_token(table, token)
        if hub.fanout is None:
            return seat
        try:
            seats = await asyncio.to_thread(hub.store.seats, table.id)
        except Exception:  # the database is away: memory answers (the message still tells of a change)
            log.exception("seat check on hello failed", extra={"fields": {"table": table.id}})
            return seat
        held = next((s for s in seats if s.seat == seat), None)
        if held is None or held.kind != "human" or not same_hash(held.token_hash, h):
            async with table.lock:
                await hub.catch_up(table)
            return self.seat_for_token(table, token)
        return seat

    def seat_for_token(self, table: LiveTable, token: str) -> int:
        """The seat ``token`` holds; raise ``unauthorized`` or ``replaced``."""
        h = hash_token(token)
        for i, p in enumerate(table.players):
            if not same_hash(p.token_hash, h):
                continue
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
                    f"You were away longer than {self.hub.settings.grace_seconds:g} s, so a bot ({p.bot}) "
                    f"now plays seat {i + 1} and this seat's link no longer works. You can watch the table.",
                    403,
                )
        raise TableError("unauthorized", "this token holds no seat at this table", 403)

    async def replace(self, table: LiveTable, seat: int, *, version: int | None = None) -> bool:
        """A bot takes over an absent player's seat (see :meth:`catsack.server.tables.hub.Hub.replace`)."""
        hub = self.hub
        async with table.lock:
            p = table.players[seat]
            if p.kind != "human" or (version is not None and table.version != version):
                return False
            spec = hub.settings.standin_bot
            await hub.writer.run(hub.store.replace_with_bot, table.id, seat, spec)
            p.kind, p.bot, p.replaced, p.away_since = "bot", spec, True, None
            hub.drop_seat_connections(table, seat)
            table.players_changed()
            table.broadcast_state(force=True)
            hub.schedule(table)
        await hub.publish_seats(table.id, -1)
        log.info("player replaced by bot", extra={"fields": {"table": table.id, "seat": seat}})
        # The seat was abandoned: its account's reputation, a tournament's withdrawal.
        await hub.events.publish(SeatAbandoned(table, seat))
        return True


def same_hash(stored: str | None, h: str) -> bool:
    """Whether a seat's ``stored`` token hash is ``h`` (compared in constant time)."""
    return stored is not None and secrets.compare_digest(stored, h)


def refuse_same_name(table: LiveTable, name: str) -> None:
    """Refuse a guest's ``name`` that reads like a seated player's or bot's (409 ``name_at_table``:
    :func:`catsack.server.storage.names.skeleton`)."""
    key = skeleton(name)
    taken = (n for p, n in zip(table.players, table.names(), strict=True) if p.kind != "open")
    if any(skeleton(n) == key for n in taken):
        raise TableError(
            "name_at_table",
            f"someone at this table is called {name!r}: choose another name",
            409,
            params={"name": name},
        )


def one_seat(seat: int | None) -> TableError:
    """The refusal of a second seat of one table to one account (409 ``one_seat``)."""
    where = f"seat {seat + 1}" if seat is not None else "a seat"
    return TableError(
        "one_seat",
        f"your account already holds {where} at this table: one account, one seat",
        409,
        params={"n": seat + 1 if seat is not None else 0},
    )
