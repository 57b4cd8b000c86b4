"""The bot arena's coordinator: the bots connected to this process, their seats and their open
challenges, with the parts that do the work (:mod:`.relay`, :mod:`.challenges`, :mod:`.seats`)."""

from __future__ import annotations

import contextlib
from typing import Any

import catsack
from catsack.protocol.messages import PROTOCOL
from catsack.server.people.botaccounts import BotAccount
from catsack.server.people.botarena.challenges import Challenges
from catsack.server.people.botarena.model import ArenaSettings, BotSession, Challenge, SeatPlay
from catsack.server.people.botarena.relay import Relay
from catsack.server.people.botarena.seats import Seats
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import LiveTable, TableError

__all__ = ["Arena", "arena_of"]


def arena_of(hub: Hub) -> Arena:
    """This process's arena."""
    return hub.service(Arena, lambda: Arena(hub))


class Arena:
    """The bots connected to this process, their seats and their open challenges.

    A coordinator of parts: the relay between processes (:class:`.relay.Relay`), the challenges
    (:class:`.challenges.Challenges`) and the seats the bots play (:class:`.seats.Seats`); the parts see the
    arena as :class:`.coordinator.ArenaCoordinator`. The connections (a bot's session opening, ending,
    being replaced or kicked) are the arena's own."""

    def __init__(self, hub: Hub, settings: ArenaSettings | None = None) -> None:
        self.hub = hub
        self.settings = settings or ArenaSettings()
        self.sessions: dict[int, BotSession] = {}
        self.plays: dict[int, dict[str, SeatPlay]] = {}
        self.challenges: dict[str, Challenge] = {}
        self.relay = Relay(self)
        self.offers = Challenges(self)
        self.seats = Seats(self)

    # ------------------------------------------------------------------ who is here

    def online(self) -> list[dict[str, Any]]:
        return [
            {"name": s.bot.name, "games": len(self.busy_with(s.bot.id)), "max_games": self.settings.max_games}
            for s in sorted(self.sessions.values(), key=lambda s: s.bot.name.casefold())
        ]

    async def online_everywhere(self) -> list[dict[str, Any]]:
        """:meth:`online` over every process (their presence keys), by name."""
        return await self.relay.everywhere(self.online())

    async def presence(self, bot_id: int) -> dict[str, Any] | None:
        """Where the bot is connected: ``p`` (the process), ``games`` and ``max_games``; ``None`` offline."""
        session = self.sessions.get(bot_id)
        if session is not None:
            return self.relay.presence_here(bot_id, session.bot.name)
        return await self.relay.presence(bot_id)

    def busy_with(self, bot_id: int) -> list[str]:
        """The tables the bot plays or is challenged to now."""
        tables = [t for t, p in self.plays.get(bot_id, {}).items() if not p.over]
        tables += [c.table_id for c in self.challenges.values() if c.bot_id == bot_id]
        return tables

    def hello(self, bot: BotAccount) -> dict[str, Any]:
        return {
            "type": "hello",
            "protocol": PROTOCOL,
            "engine": f"catsack {catsack.__version__}",
            "bot": bot.name,
            "limits": {
                "games": self.settings.max_games,
                "time_limit": self.settings.move_seconds,
                "challenge_seconds": self.settings.challenge_seconds,
                "max_frame_bytes": self.hub.settings.max_frame_bytes,
                "rate_per_second": self.hub.settings.rate_per_second,
            },
        }

    # ------------------------------------------------------------------ sessions

    async def open(self, session: BotSession) -> None:
        """A bot said a good hello: it replaces any older connection of the same bot, and goes back to
        the seats it holds."""
        await self.relay.ready()
        old = self.sessions.get(session.bot.id)
        self.sessions[session.bot.id] = session
        with contextlib.suppress(Exception):
            await self.relay.present(session)
        if old is None:  # an older connection of this bot to another process is replaced too
            await self.kick(session.bot.id, "replaced by a newer connection of this bot", code=4000, here=False)
        if old is not None:
            await self.end(old, 4000, "replaced by a newer connection of this bot")
        for play in list(self.plays.get(session.bot.id, {}).values()):
            if not play.over:
                await self.seats.sit(play, session)

    async def end(self, session: BotSession, code: int = 1000, reason: str = "") -> None:
        """The session is over (the bot left, was replaced or revoked): its seats lose their connection
        (the grace period starts, as for a person who left)."""
        if self.sessions.get(session.bot.id) is session:
            del self.sessions[session.bot.id]
            await self.relay.absent(session.bot.id)
        if not session.closed:
            session.closed = True
            session.queue.put_nowait(None)
        for play in self.plays.get(session.bot.id, {}).values():
            if play.session is session:
                self.seats.leave(play)
        for cid in [c.id for c in self.challenges.values() if c.bot_id == session.bot.id]:
            await self.resolve(cid, accepted=False)
        if code != 1000:
            with contextlib.suppress(Exception):
                await session.close(code, reason)

    async def kick(
        self, bot_id: int, reason: str, *, code: int = 1008, here: bool = True, everywhere: bool = True
    ) -> None:
        """Close the bot's connection (``here``: in this process; ``everywhere``: in the others too)."""
        session = self.sessions.get(bot_id)
        if session is not None and here:
            await self.end(session, code, reason)
        if everywhere:
            await self.relay.kick(bot_id, reason, code)

    # ------------------------------------------------------------------ challenges

    async def expect(self, table_id: str, count: int) -> None:
        """``count`` challenges of ``table_id`` are about to go out: its open seats get the fill level after
        the last one is answered (or could not be delivered), in whichever process."""
        if not await self.relay.expect(table_id, count):
            self.offers.expect(table_id, count)

    async def offer(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> str:
        """Challenge ``bot`` for ``seat`` of ``table`` wherever it is connected; the challenge's id. Raise
        409 ``bot_offline`` or ``bot_busy`` (the challenge then counts as answered)."""
        try:
            where = await self.presence(bot.id)
            if where is None or where["p"] == self.hub.process_id or not self.relay.connected:
                return (await self.challenge(bot, table, seat, fill=fill, by=by)).id
            return await self.relay.offer(where["p"], bot, table, seat, fill=fill, by=by)
        except TableError:
            await self.offers.settle(table.id, fill)
            raise

    async def challenge(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> Challenge:
        """Offer ``seat`` of ``table`` to the connected ``bot``; raise 409 ``bot_offline`` or ``bot_busy``."""
        return await self.offers.challenge(bot, table, seat, fill=fill, by=by)

    async def resolve(self, cid: str, *, accepted: bool) -> str | None:
        """Answer a challenge: seat the bot when ``accepted``; a problem's message, or ``None``."""
        return await self.offers.resolve(cid, accepted=accepted)

    async def last_answer(self, table_id: str) -> bool:
        """One challenge of ``table_id`` is answered: whether it was the last (counted in Redis with several
        processes, else here)."""
        answered = await self.relay.answered(table_id)
        return self.offers.last_here(table_id) if answered is None else answered

    # ------------------------------------------------------------------ playing a seat

    async def sit(self, play: SeatPlay, session: BotSession) -> None:
        """Give ``play`` a connection of its table that reports to ``session``."""
        await self.seats.sit(play, session)

    async def answer(self, session: BotSession, message: dict[str, Any]) -> None:
        """A ``move`` answer of the bot: played at its table (:meth:`.seats.Seats.answer`)."""
        await self.seats.answer(session, message)
