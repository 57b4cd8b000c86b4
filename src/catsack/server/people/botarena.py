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

With several processes (``CATSACK_REDIS_URL``) a bot's connection lives in the one process it reached, and a
challenge made through any process gets there: each process keeps a presence key per connected bot
(``<CATSACK_REDIS_CHANNEL>:bots:at:<id>``, naming the process, refreshed every :data:`PRESENCE_REFRESH`
seconds and gone :data:`PRESENCE_TTL` seconds after its process), and the challenger's process sends the
offer on the arena's channel (``<CATSACK_REDIS_CHANNEL>:bots``) to the process named there, which
challenges its bot and answers with the challenge's id or the refusal. The bot's seat is then a
connection of that process, so the table's lease follows it there as for any player
(:meth:`~catsack.server.tables.hub.Hub.claim`). How many challenges of a table are still unanswered is a
counter in Redis, so the open seats go to the ``fill`` level once, after the last answer, wherever it
came. Revoking a bot closes its connection in every process.
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

__all__ = [
    "PRESENCE_REFRESH",
    "PRESENCE_TTL",
    "Arena",
    "ArenaSettings",
    "BotSession",
    "Challenge",
    "SeatPlay",
    "arena_of",
]

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
        #: Challenges of a table still to be answered, where the challenger said how many (one process).
        self._expected: dict[str, int] = {}
        #: Offers sent to other processes, waiting for their answer.
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._redis: Any = None  # redis.asyncio client with several processes (CATSACK_REDIS_URL)
        self._starting = asyncio.Lock()
        base = hub.settings.redis_channel
        self.channel = f"{base}:bots"
        self._at = f"{base}:bots:at:"
        self._pending = f"{base}:bots:pending:"

    # ------------------------------------------------------------------ several processes (Redis)

    async def ready(self) -> None:
        """With ``CATSACK_REDIS_URL``: subscribe to the arena's channel and keep this process's bots'
        presence keys, from the first use on (a bot connecting, a challenge, a list of bots)."""
        url = self.hub.settings.redis_url
        if not url or self._redis is not None:
            return
        async with self._starting:
            if self._redis is not None:
                return
            import redis.asyncio as aioredis

            client = aioredis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
            sub = aioredis.from_url(url, socket_connect_timeout=2.0)
            pubsub = sub.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
            except Exception:  # Redis is away: this process's bots play here, and the next use tries again
                log.warning("bot arena: redis unreachable; bots connected here are seen here only")
                for closing in (pubsub, sub, client):
                    with contextlib.suppress(Exception):
                        await closing.aclose()
                return
            self._redis = client
            self.hub.loops.start("bot arena", self._listen(pubsub, sub))

    async def _listen(self, pubsub: Any, sub: Any) -> None:
        """The arena's messages for this process, and the refresh of its presence keys."""
        refresh = asyncio.get_running_loop().create_task(self._refresh())
        try:
            while True:
                try:
                    async for m in pubsub.listen():
                        if m.get("type") != "message":
                            continue
                        with contextlib.suppress(orjson.JSONDecodeError, TypeError):
                            data = orjson.loads(m["data"])
                            mine = isinstance(data, dict) and data.get("o") != self.hub.process_id
                            if mine and data.get("to") in (self.hub.process_id, "*"):
                                self.hub.loops.spawn(self._on_message(data))
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("bot arena: redis subscription lost; retrying")
                    await asyncio.sleep(1.0)
                    with contextlib.suppress(Exception):
                        await pubsub.subscribe(self.channel)
        finally:
            refresh.cancel()
            client, self._redis = self._redis, None
            with contextlib.suppress(Exception):
                if self.sessions:  # this process stops: its bots are not here any more
                    await asyncio.wait_for(client.delete(*[self._at + str(b) for b in self.sessions]), 1.0)
            for closing in (pubsub, sub, client):
                with contextlib.suppress(Exception):
                    await closing.aclose()

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_REFRESH)
            with contextlib.suppress(Exception):
                for session in list(self.sessions.values()):
                    await self._present(session)

    def _presence(self, bot_id: int, name: str) -> dict[str, Any]:
        return {
            "p": self.hub.process_id,
            "name": name,
            "games": len(self.busy_with(bot_id)),
            "max_games": self.settings.max_games,
        }

    async def _present(self, session: BotSession) -> None:
        if self._redis is not None and self.sessions.get(session.bot.id) is session:
            value = orjson.dumps(self._presence(session.bot.id, session.bot.name))
            await self._redis.set(self._at + str(session.bot.id), value, ex=PRESENCE_TTL)

    async def _absent(self, bot_id: int) -> None:
        """Drop the bot's presence key when it still names this process."""
        if self._redis is None:
            return
        key = self._at + str(bot_id)
        with contextlib.suppress(Exception):
            raw = await self._redis.get(key)
            if raw is not None and orjson.loads(raw).get("p") == self.hub.process_id:
                await self._redis.delete(key)

    async def presence(self, bot_id: int) -> dict[str, Any] | None:
        """Where the bot is connected: ``p`` (the process), ``games`` and ``max_games``; ``None`` offline."""
        session = self.sessions.get(bot_id)
        if session is not None:
            return self._presence(bot_id, session.bot.name)
        await self.ready()
        if self._redis is None:
            return None
        try:
            raw = await self._redis.get(self._at + str(bot_id))
        except Exception:
            log.warning("bot arena: redis unreachable", extra={"fields": {"bot": bot_id}})
            return None
        found = orjson.loads(raw) if raw is not None else None
        return found if isinstance(found, dict) else None

    async def online_everywhere(self) -> list[dict[str, Any]]:
        """:meth:`online` over every process (their presence keys), by name."""
        here = self.online()
        await self.ready()
        if self._redis is None:
            return here
        names = {b["name"] for b in here}
        try:
            keys = [k async for k in self._redis.scan_iter(match=self._at + "*", count=500)]
            values = await self._redis.mget(keys) if keys else []
        except Exception:
            return here
        for raw in values:
            if raw is None:
                continue
            found = orjson.loads(raw)
            if isinstance(found, dict) and found.get("name") not in names:
                names.add(found["name"])
                here.append({"name": found["name"], "games": found["games"], "max_games": found["max_games"]})
        return sorted(here, key=lambda b: str(b["name"]).casefold())

    async def _publish(self, message: dict[str, Any]) -> None:
        await self._redis.publish(self.channel, orjson.dumps({**message, "o": self.hub.process_id}))

    async def _on_message(self, data: dict[str, Any]) -> None:
        kind = data.get("k")
        if kind == "offer":
            await self._offered_here(data)
        elif kind == "answer":
            waiting = self._waiting.pop(str(data.get("r")), None)
            if waiting is not None and not waiting.done():
                waiting.set_result(data)
        elif kind == "kick" and isinstance(data.get("bot"), int):
            code = 4000 if data.get("code") == 4000 else 1008
            await self.kick(data["bot"], str(data.get("reason") or ""), code=code, everywhere=False)

    async def _offered_here(self, data: dict[str, Any]) -> None:
        """Another process's offer of a seat to a bot connected here: challenge it, answer either way."""
        answer: dict[str, Any] = {"k": "answer", "to": data.get("o"), "r": data.get("r")}
        try:
            bot = data.get("bot")
            session = self.sessions.get(bot) if isinstance(bot, int) else None
            if session is None:
                raise TableError("bot_offline", "the bot is not connected", 409)
            table = await self.hub.get(str(data.get("table")))
            if table is None:
                raise TableError("not_found", "the table is gone", 404)
            c = await self.challenge(
                session.bot, table, int(data.get("seat", -1)), fill=str(data.get("fill")), by=str(data.get("by"))
            )
            answer["challenge"] = c.id
        except TableError as exc:
            answer["error"] = {"code": exc.code, "message": exc.message, "status": exc.status, "params": exc.params}
        with contextlib.suppress(Exception):
            await self._publish(answer)

    async def expect(self, table_id: str, count: int) -> None:
        """``count`` challenges of ``table_id`` are about to go out: its open seats get the fill level after
        the last one is answered (or could not be delivered), in whichever process."""
        await self.ready()
        if self._redis is not None:
            ttl = int(self.settings.challenge_seconds + 2 * OFFER_SECONDS) + 60
            try:
                await self._redis.set(self._pending + table_id, count, ex=ttl)
            except Exception:  # the challenges then go to bots connected here only (the others fail)
                log.warning("bot arena: redis unreachable", extra={"fields": {"table": table_id}})
        else:
            self._expected[table_id] = count

    async def _last_answer(self, table_id: str) -> bool:
        """One challenge of ``table_id`` is answered: whether it was the last."""
        if self._redis is not None:
            try:
                left = int(await self._redis.decr(self._pending + table_id))
                if left <= 0:
                    await self._redis.delete(self._pending + table_id)
            except Exception:  # Redis is away: the fill waits for the host (the table stays open)
                return False
            return left <= 0
        expected = self._expected.get(table_id)
        if expected is None:
            return not any(o.table_id == table_id for o in self.challenges.values())
        if expected <= 1:
            del self._expected[table_id]
            return True
        self._expected[table_id] = expected - 1
        return False

    async def offer(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> str:
        """Challenge ``bot`` for ``seat`` of ``table`` wherever it is connected; the challenge's id. Raise
        409 ``bot_offline`` or ``bot_busy`` (the challenge then counts as answered)."""
        try:
            where = await self.presence(bot.id)
            if where is None or where["p"] == self.hub.process_id or self._redis is None:
                return (await self.challenge(bot, table, seat, fill=fill, by=by)).id
            rid = secrets.token_hex(8)
            waiting = self._waiting[rid] = asyncio.get_running_loop().create_future()
            try:
                await self._publish(
                    {"k": "offer", "to": where["p"], "r": rid, "bot": bot.id}
                    | {"table": table.id, "seat": seat, "fill": fill, "by": by}
                )
                reply = await asyncio.wait_for(waiting, OFFER_SECONDS)
            except Exception:
                raise TableError(
                    "bot_offline", f"the bot {bot.name!r} is not connected", 409, params={"name": bot.name}
                ) from None
            finally:
                self._waiting.pop(rid, None)
            problem = reply.get("error")
            if isinstance(problem, dict):
                params = problem.get("params") or {}
                if problem.get("code") in ("bot_offline", "bot_busy"):
                    params = {"name": bot.name}
                raise TableError(
                    str(problem.get("code")),
                    str(problem.get("message")),
                    int(problem.get("status", 409)),
                    params=params,
                )
            return str(reply["challenge"])
        except TableError:
            await self._settle(table.id, fill)
            raise

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
        await self.ready()
        old = self.sessions.get(session.bot.id)
        self.sessions[session.bot.id] = session
        with contextlib.suppress(Exception):
            await self._present(session)
        if old is None:  # an older connection of this bot to another process is replaced too
            await self.kick(session.bot.id, "replaced by a newer connection of this bot", code=4000, here=False)
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
            await self._absent(session.bot.id)
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

    async def kick(
        self, bot_id: int, reason: str, *, code: int = 1008, here: bool = True, everywhere: bool = True
    ) -> None:
        """Close the bot's connection (``here``: in this process; ``everywhere``: in the others too)."""
        session = self.sessions.get(bot_id)
        if session is not None and here:
            await self.end(session, code, reason)
        if everywhere and self._redis is not None:
            with contextlib.suppress(Exception):
                await self._publish({"k": "kick", "to": "*", "bot": bot_id, "reason": reason, "code": code})

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
        await self._settle(c.table_id, c.fill)
        return problem

    async def _settle(self, table_id: str, fill: str) -> None:
        """One challenge of the table is answered: after the last, a seat still open (declined) gets the
        fill level, unless nobody took a seat at all."""
        if not await self._last_answer(table_id):
            return
        table = await self.hub.get(table_id)
        if table is None:
            return
        if self.hub.fanout is not None:  # seats taken through other processes are read first
            async with table.lock:
                await self.hub.catch_up(table)
        if table.status == "open" and any(p.kind == "human" for p in table.players):
            with contextlib.suppress(TableError):
                await self.hub.seat_bots(table, fill)

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
