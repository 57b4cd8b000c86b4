"""The bot arena's settings and values: a bot's live session, its seats and its challenges, and the
check of a bot's ``hello`` (docs/bot-api.md)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from catsack.protocol.messages import ProtocolError, check_hello
from catsack.server.people.botaccounts import BotAccount
from catsack.server.tables.live import Conn

__all__ = [
    "MAX_QUEUED",
    "OFFER_SECONDS",
    "PRESENCE_REFRESH",
    "PRESENCE_TTL",
    "ArenaSettings",
    "BotSession",
    "Challenge",
    "SeatPlay",
    "read_hello",
]


class ArenaSettings(BaseSettings):
    """The arena's knobs, ``CATSACK_BOT_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="CATSACK_BOT_", extra="ignore")

    #: Games one bot plays at a time; a challenge past it is refused (409 ``bot_busy``).
    max_games: int = Field(default=1, ge=1, le=16)
    #: Seconds a bot has for each decision: the turn timer of its tables (the stand-in moves after it).
    move_seconds: int = Field(default=10, ge=2, le=3600)
    #: Seconds a bot has to answer a challenge; no answer is a decline.
    challenge_seconds: float = Field(default=30.0, gt=0, le=600)
    #: Seconds a connected bot has to answer the server's ``hello``.
    hello_seconds: float = Field(default=10.0, gt=0, le=60)


#: Messages a session holds for a bot that does not read them; more closes the connection.
MAX_QUEUED = 256
#: Seconds a bot's presence key outlives the last refresh of its process.
PRESENCE_TTL = 30
#: Seconds between two refreshes of this process's presence keys.
PRESENCE_REFRESH = 10.0
#: Seconds the challenger's process waits for the bot's process to answer an offer.
OFFER_SECONDS = 5.0


@dataclass
class SeatPlay:
    """One bot's seat at one table: the connection that carries the seat's state frames to the bot."""

    bot: BotAccount
    table_id: str
    seat: int
    token: str
    rated: bool
    game: int = 0  # the game number in the bot's current session (catsack-bot/1 ``game``)
    conn: Conn | None = None
    session: BotSession | None = None
    asked: int | None = None  # the version the last move request was made for
    started: bool = False  # new_game sent in the current session
    over: bool = False
    view: dict[str, Any] | None = None
    players: list[str] | None = None
    faults: int = 0


@dataclass
class Challenge:
    id: str
    bot_id: int
    table_id: str
    seat: int
    fill: str
    by: str
    rated: bool
    expires: float
    task: asyncio.Task[None] | None = None


@dataclass
class BotSession:
    """One bot's live connection: its outgoing messages and its open move requests."""

    bot: BotAccount
    send_text: Callable[[str], Awaitable[None]]
    close: Callable[[int, str], Awaitable[None]]
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    requests: dict[int, tuple[SeatPlay, int, str]] = field(default_factory=dict)
    next_id: int = 0
    games: int = 0
    closed: bool = False

    def send(self, message: dict[str, Any]) -> None:
        if self.closed:
            return
        if self.queue.qsize() >= MAX_QUEUED:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(orjson.dumps(message).decode())

    async def writer(self) -> None:
        """Send the queued messages in order until the session ends."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            await self.send_text(text)


async def read_hello(session: BotSession, receive: Callable[[], Awaitable[str | None]], seconds: float) -> str:
    """The bot's ``hello`` answer, checked (docs/bot-protocol.md); raise :class:`ProtocolError`."""
    try:
        text = await asyncio.wait_for(receive(), seconds)
    except TimeoutError:
        raise ProtocolError(f"no 'hello' answer within {seconds:g} s") from None
    if text is None:
        raise ProtocolError("the bot left during the handshake")
    try:
        message = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise ProtocolError("the 'hello' answer is not JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError("the 'hello' answer must be a JSON object")
    return check_hello(message)
