"""The bot arena: bot accounts connected over a WebSocket play seats with the ``catsack-bot/1`` messages.

docs/bot-api.md is the contract. A bot program (or ``catsack bot connect``) opens ``/api/bot/ws`` with
its API token (:mod:`catsack.server.people.botaccounts`) in an ``Authorization: Bearer`` header; the server
says ``hello``, the bot answers ``hello`` as in docs/bot-protocol.md, and then:

- a person's account challenges connected bots to a table (``POST /api/bots/challenges``); each bot is
  sent a ``challenge`` and answers ``accept`` or ``decline``;
- an accepted challenge seats the bot through the hub's public seating path
  (:meth:`~catsack.server.tables.hub.Hub.join`, as a person's join, its seat bound to the bot's account), and
  the bot's seat is then a connection of the table like a browser's: it is sent that seat's state
  frames only, so the bot sees exactly its seat's view (R23). From them it is sent ``new_game``, one
  ``move`` request per decision of its seat, and ``game_over``, the messages of ``catsack-bot/1``;
- its ``move`` answers are played with :meth:`~catsack.server.tables.hub.Hub.act`, the path of a browser's move.

Bounds, as for everything a stranger sends: at most :attr:`ArenaSettings.max_games` games per bot at a
time (challenges past it are refused ``bot_busy``); each decision has the table's turn timer
(:attr:`ArenaSettings.move_seconds`): when it runs out the server's stand-in bot makes that one move,
as for a person at a timed table, and a bot away longer than the grace period has its seat taken over
for the rest of the game (rated last, :mod:`catsack.server.people.ratings`); frames are bounded in size and
rate by the WebSocket's own settings (``CATSACK_MAX_FRAME_BYTES``, ``CATSACK_RATE_*``); one connection
per bot (a newer one replaces the older).

A bot's connection and its challenges live in one server process: with several processes behind a
proxy, the challenge must reach the process the bot is connected to (docs/bot-api.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

import catsack
from catsack.protocol.messages import PROTOCOL, ProtocolError, check_hello
from catsack.server.people.botaccounts import BotAccount
from catsack.server.people.ratings import ranks_with_abandons
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import Conn, LiveTable, TableError

__all__ = ["Arena", "ArenaSettings", "BotSession", "Challenge", "SeatPlay", "arena_of"]

log = logging.getLogger("catsack.server.people.botarena")


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


def arena_of(hub: Hub) -> Arena:
    """This process's arena."""
    return hub.service(Arena, lambda: Arena(hub))


class Arena:
    """The bots connected to this process, their seats and their open challenges."""

    def __init__(self, hub: Hub, settings: ArenaSettings | None = None) -> None:
        self.hub = hub
        self.settings = settings or ArenaSettings()
        self.sessions: dict[int, BotSession] = {}
        self.plays: dict[int, dict[str, SeatPlay]] = {}
        self.challenges: dict[str, Challenge] = {}
        self._ids = itertools.count(1)

    # ------------------------------------------------------------------ who is here

    def online(self) -> list[dict[str, Any]]:
        return [
            {"name": s.bot.name, "games": len(self.busy_with(s.bot.id)), "max_games": self.settings.max_games}
            for s in sorted(self.sessions.values(), key=lambda s: s.bot.name.casefold())
        ]

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
        old = self.sessions.get(session.bot.id)
        self.sessions[session.bot.id] = session
        if old is not None:
            await self.end(old, 4000, "replaced by a newer connection of this bot")
        for play in list(self.plays.get(session.bot.id, {}).values()):
            if not play.over:
                await self._sit(play, session)

    async def end(self, session: BotSession, code: int = 1000, reason: str = "") -> None:
        """The session is over (the bot left, was replaced or revoked): its seats lose their connection
        (the grace period starts, as for a person who left)."""
        if self.sessions.get(session.bot.id) is session:
            del self.sessions[session.bot.id]
        if not session.closed:
            session.closed = True
            session.queue.put_nowait(None)
        for play in self.plays.get(session.bot.id, {}).values():
            if play.session is session:
                self._leave(play)
        for cid in [c.id for c in self.challenges.values() if c.bot_id == session.bot.id]:
            await self.resolve(cid, accepted=False)
        if code != 1000:
            with contextlib.suppress(Exception):
                await session.close(code, reason)

    def _leave(self, play: SeatPlay) -> None:
        if play.conn is not None:
            self.hub.detach(play.conn)
            play.conn.close()
        play.conn = None
        play.session = None

    async def kick(self, bot_id: int, reason: str) -> None:
        session = self.sessions.get(bot_id)
        if session is not None:
            await self.end(session, 1008, reason)

    # ------------------------------------------------------------------ challenges

    async def challenge(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> Challenge:
        """Offer ``seat`` of ``table`` to the connected ``bot``; raise 409 ``bot_offline`` or ``bot_busy``."""
        session = self.sessions.get(bot.id)
        if session is None:
            raise TableError("bot_offline", f"the bot {bot.name!r} is not connected", 409, params={"name": bot.name})
        if len(self.busy_with(bot.id)) >= self.settings.max_games:
            raise TableError(
                "bot_busy",
                f"the bot {bot.name!r} plays {self.settings.max_games} game(s) already",
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
            time.monotonic() + self.settings.challenge_seconds,
        )
        self.challenges[c.id] = c
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
                "time_limit": self.settings.move_seconds,
                "expires_in": self.settings.challenge_seconds,
            }
        )
        return c

    async def _expire(self, c: Challenge) -> None:
        await asyncio.sleep(max(0.0, c.expires - time.monotonic()))
        c.task = None
        await self.resolve(c.id, accepted=False)

    async def resolve(self, cid: str, *, accepted: bool) -> str | None:
        """Answer a challenge: seat the bot when ``accepted``; a problem's message, or ``None``."""
        c = self.challenges.pop(cid, None)
        if c is None:
            return "no such challenge (answered already, or expired)"
        if c.task is not None:
            c.task.cancel()
        problem: str | None = None
        table = await self.hub.get(c.table_id)
        session = self.sessions.get(c.bot_id)
        if accepted and table is not None and session is not None:
            try:
                _, token = await self.hub.join(table, session.bot.name, c.seat, account_id=c.bot_id)
            except TableError as exc:
                problem = exc.message
            else:
                play = SeatPlay(session.bot, table.id, c.seat, token, c.rated)
                self.plays.setdefault(c.bot_id, {})[table.id] = play
                await self._sit(play, session)
        elif accepted:
            problem = "the table is gone"
        # Every challenge of the table answered: a seat still open (declined) gets the fill level, unless
        # nobody took a seat at all.
        if (
            table is not None
            and table.status == "open"
            and not any(o.table_id == c.table_id for o in self.challenges.values())
            and any(p.kind == "human" for p in table.players)
        ):
            with contextlib.suppress(TableError):
                await self.hub.seat_bots(table, c.fill)
        return problem

    # ------------------------------------------------------------------ playing a seat

    async def _sit(self, play: SeatPlay, session: BotSession) -> None:
        """Give ``play`` a connection of its table that reports to ``session``."""
        table = await self.hub.get(play.table_id)
        if table is None:
            play.over = True
            return
        try:
            seat = self.hub.seat_for_token(table, play.token)
        except TableError as exc:  # replaced by the stand-in meanwhile
            session.send({"type": "error", "code": exc.code, "message": exc.message, "table": play.table_id})
            play.over = True
            return
        session.games += 1
        play.game = session.games
        play.session = session
        play.started = False
        play.asked = None
        play.players = table.names()

        async def frame(text: str) -> None:
            await self._frame(play, session, text)

        conn = Conn(frame, seat, None)
        play.conn = conn
        self.hub.attach(table, conn)

    async def _frame(self, play: SeatPlay, session: BotSession, text: str) -> None:
        """A frame the table sent to the bot's seat connection: turned into ``catsack-bot/1`` messages."""
        if play.session is not session or session.closed:
            return
        frame = orjson.loads(text)
        kind = frame.get("type")
        if kind == "error" and frame.get("code") == "replaced":
            session.send({"type": "error", "code": "replaced", "message": frame.get("message"), "table": play.table_id})
            play.over = True
            self._leave(play)
            return
        if kind != "state":
            return
        view = frame["view"]
        play.view = view
        if frame.get("players"):
            play.players = [p.get("name") or "" for p in frame["players"]]
        version = int(frame["version"])
        if view.get("phase") == "over":
            await self._game_over(play, session, view)
            return
        if view.get("to_move") == play.seat and view.get("legal") and play.asked != version:
            self.ask(play, session, view, version)

    def ask(self, play: SeatPlay, session: BotSession, view: dict[str, Any], version: int) -> None:
        if not play.started:
            session.send(
                {
                    "type": "new_game",
                    "game": play.game,
                    "seat": play.seat,
                    "seats": view["seats"],
                    "start": view["first_start"],
                    "hand": view["hand"],
                    "removed": view["removed"],
                    "players": play.players,
                    "seed": None,
                    "table": play.table_id,
                    "rated": play.rated,
                }
            )
            play.started = True
        session.next_id += 1
        rid = session.next_id
        session.requests = {k: v for k, v in session.requests.items() if v[0] is not play}  # one open per seat
        session.requests[rid] = (play, version, play.table_id)
        play.asked = version
        session.send(
            {
                "type": "move",
                "id": rid,
                "game": play.game,
                "table": play.table_id,
                "time_limit": self.settings.move_seconds,
                "legal": view["legal"],
                "view": view,
            }
        )

    async def _game_over(self, play: SeatPlay, session: BotSession, view: dict[str, Any]) -> None:
        if play.over:
            return
        play.over = True
        scores = view.get("scores") or []
        ranking = ranks_with_abandons(scores, view.get("cat_points") or [0] * len(scores), []) if scores else []
        if play.started:
            session.send(
                {
                    "type": "game_over",
                    "game": play.game,
                    "table": play.table_id,
                    "scores": scores,
                    "winners": view.get("winners", []),
                    "ranking": ranking,
                    "view": view,
                }
            )
        session.requests = {k: v for k, v in session.requests.items() if v[0] is not play}
        self._leave(play)
        self.plays.get(play.bot.id, {}).pop(play.table_id, None)

    async def answer(self, session: BotSession, message: dict[str, Any]) -> None:
        """A ``move`` answer: played at the table; a refusal is told to the bot (and, when the move was
        illegal, the request is made again while the timer runs)."""
        rid = message.get("id")
        held = session.requests.get(rid) if isinstance(rid, int) else None
        if held is None or not isinstance(rid, int):
            session.send({"type": "error", "code": "unknown_request", "message": f"no open request {rid!r}"})
            return
        play, version, _ = held
        text = message.get("move")
        if not isinstance(text, str) or len(text) > 24 or not text.isprintable():
            session.send({"type": "error", "code": "bad_frame", "message": "'move' must be a move's text", "id": rid})
            return
        del session.requests[rid]
        conn = play.conn
        if conn is None:
            return
        reply = await self.hub.act(conn, f"bot-{rid}", version, text)
        if reply.get("type") == "error":
            play.faults += 1
            session.send({**reply, "id": rid, "table": play.table_id})
            if reply.get("code") == "illegal" and play.view is not None and play.asked == version:
                play.asked = None
                self.ask(play, session, play.view, version)


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
