"""The bot arena's challenges: a seat offered to a connected bot, its answer or its expiry, and the fill
level for the seats still open after a table's last answer."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time

from catsack.server.people.botaccounts import BotAccount
from catsack.server.people.botarena.coordinator import ArenaCoordinator
from catsack.server.people.botarena.model import Challenge, SeatPlay
from catsack.server.tables.live import LiveTable, TableError

__all__ = ["Challenges"]


class Challenges:
    """The challenges of the bots connected to this process (kept in the arena's ``challenges``)."""

    def __init__(self, arena: ArenaCoordinator) -> None:
        self.arena = arena
        #: Challenges of a table still to be answered, where the challenger said how many (one process).
        self._expected: dict[str, int] = {}

    def expect(self, table_id: str, count: int) -> None:
        """``count`` challenges of ``table_id`` are about to go out from this process (no Redis)."""
        self._expected[table_id] = count

    def last_here(self, table_id: str) -> bool:
        """One challenge of ``table_id`` is answered: whether it was the last, by this process's count (or,
        where nobody said how many, by the challenges still open)."""
        expected = self._expected.get(table_id)
        if expected is None:
            return not any(o.table_id == table_id for o in self.arena.challenges.values())
        if expected <= 1:
            del self._expected[table_id]
            return True
        self._expected[table_id] = expected - 1
        return False

    async def challenge(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> Challenge:
        """Offer ``seat`` of ``table`` to the connected ``bot``; raise 409 ``bot_offline`` or ``bot_busy``."""
        arena = self.arena
        settings = arena.settings
        session = arena.sessions.get(bot.id)
        if session is None:
            raise TableError("bot_offline", f"the bot {bot.name!r} is not connected", 409, params={"name": bot.name})
        if len(arena.busy_with(bot.id)) >= settings.max_games:
            raise TableError(
                "bot_busy",
                f"the bot {bot.name!r} plays {settings.max_games} game(s) already",
                409,
                params={"name": bot.name},
            )
        c = Challenge(
            secrets.token_urlsafe(8),
            bot.id,
            table.id,
            seat,
            fill,
            by,
            bool(table.options.get("rated")),
            time.monotonic() + settings.challenge_seconds,
        )
        arena.challenges[c.id] = c
        c.task = asyncio.get_running_loop().create_task(self._expire(c))
        session.send(
            {
                "type": "challenge",
                "challenge": c.id,
                "table": table.id,
                "seat": seat,
                "seats": len(table.players),
                "rated": c.rated,
                "by": by,
                "time_limit": settings.move_seconds,
                "expires_in": settings.challenge_seconds,
            }
        )
        return c

    async def _expire(self, c: Challenge) -> None:
        await asyncio.sleep(max(0.0, c.expires - time.monotonic()))
        c.task = None
        await self.resolve(c.id, accepted=False)

    async def resolve(self, cid: str, *, accepted: bool) -> str | None:
        """Answer a challenge: seat the bot when ``accepted``; a problem's message, or ``None``."""
        arena = self.arena
        c = arena.challenges.pop(cid, None)
        if c is None:
            return "no such challenge (answered already, or expired)"
        if c.task is not None:
            c.task.cancel()
        problem: str | None = None
        table = await arena.hub.get(c.table_id)
        session = arena.sessions.get(c.bot_id)
        if accepted and table is not None and session is not None:
            try:
                _, token = await arena.hub.join(table, session.bot.name, c.seat, account_id=c.bot_id)
            except TableError as exc:
                problem = exc.message
            else:
                play = SeatPlay(session.bot, table.id, c.seat, token, c.rated)
                arena.plays.setdefault(c.bot_id, {})[table.id] = play
                await arena.sit(play, session)
        elif accepted:
            problem = "the table is gone"
        await self.settle(c.table_id, c.fill)
        return problem

    async def settle(self, table_id: str, fill: str) -> None:
        """One challenge of the table is answered: after the last, a seat still open (declined) gets the
        fill level, unless nobody took a seat at all."""
        hub = self.arena.hub
        if not await self.arena.last_answer(table_id):
            return
        table = await hub.get(table_id)
        if table is None:
            return
        if hub.fanout is not None:  # seats taken through other processes are read first
            async with table.lock:
                await hub.catch_up(table)
        if table.status == "open" and any(p.kind == "human" for p in table.players):
            with contextlib.suppress(TableError):
                await hub.seat_bots(table, fill)
