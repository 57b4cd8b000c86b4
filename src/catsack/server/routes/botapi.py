"""The bot API (docs/bot-api.md): bot accounts of a person, the bots' WebSocket, challenges and the
bots' leaderboard.

| route | who | what |
| --- | --- | --- |
| ``POST /api/account/bots`` | a logged-in person | a new bot account and its API token (shown once) |
| ``GET /api/account/bots`` | a logged-in person | their bots (never a token) |
| ``DELETE /api/account/bots/{name}`` | its owner | revoke the bot's token (its connection is closed) |
| ``GET /api/bots/online`` | anyone | the bots connected (to any process) |
| ``POST /api/bots/challenges`` | a logged-in person | a table for connected bots (and the person, ``play``) |
| ``GET /api/bots/leaderboard`` | anyone | rated bots: bot accounts and the server's bot levels |
| ``WS /api/bot/ws`` | a bot, ``Authorization: Bearer <token>`` | ``catsack-bot/1`` messages |
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.websockets import WebSocketState

from catsack.protocol.messages import ProtocolError
from catsack.server.limits import RateLimit, scope_address
from catsack.server.people.accounts import Account
from catsack.server.people.botaccounts import BotAccount, BotAccounts
from catsack.server.people.botarena import Arena, BotSession, arena_of, read_hello
from catsack.server.people.ratings import Ratings
from catsack.server.routes.access import expensive_read
from catsack.server.routes.accounts import accounts_of, changing, join_as, logged_in, ratings_of
from catsack.server.routes.deps import hub_of, ws_hub
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import TableError, iso_time
from catsack.server.tables.seating import BOT_LEVELS, SEATABLE_BOTS, unknown_bot

__all__ = ["BotChallenge", "NewBot", "router"]

router = APIRouter()


def _bots(request: Request) -> BotAccounts:
    return BotAccounts(hub_of(request).store.engine, accounts_of(request))


def _arena(request: Request) -> Arena:
    return arena_of(hub_of(request))


class NewBot(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., max_length=64, description="the bot's account name (3 to 24 characters, as any account's)")


def _bot_out(bot: BotAccount, online: bool) -> dict[str, Any]:
    return {
        "name": bot.name,
        "created": iso_time(bot.created),
        "revoked": iso_time(bot.revoked),
        "online": online,
        "profile": f"/u/{bot.name}",
    }


@router.post("/api/account/bots", status_code=201)
async def create_bot(request: Request, body: NewBot, owner: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """A new bot account of the logged-in person, with its API token: shown this once, stored hashed."""
    bot, token = await asyncio.to_thread(_bots(request).create, owner, body.name)
    return {**_bot_out(bot, False), "token": token}


@router.get("/api/account/bots")
async def my_bots(request: Request, owner: Annotated[Account, Depends(logged_in)]) -> list[dict[str, Any]]:
    arena = _arena(request)
    return [
        _bot_out(b, b.active and await arena.presence(b.id) is not None)
        for b in await asyncio.to_thread(_bots(request).of_owner, owner)
    ]


@router.delete("/api/account/bots/{name}")
async def revoke_bot(request: Request, name: str, owner: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Revoke the bot's token: refused from now on, and its connection closed."""
    bot = await asyncio.to_thread(_bots(request).revoke, owner, name)
    await _arena(request).kick(bot.id, "token revoked")
    return _bot_out(bot, False)


@router.get("/api/bots/online")
async def online(request: Request) -> list[dict[str, Any]]:
    """The bots connected (to any server process), and how many games each plays now."""
    return await _arena(request).online_everywhere()


class BotChallenge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bots: list[str] = Field(..., min_length=1, max_length=5, description="bot accounts to challenge, seated in order")
    seats: int = Field(3, ge=3, le=5)
    rated: bool = Field(True, description="a rated game (the bots' leaderboard)")
    fill: str = Field("heuristic", description=f"the server's bot level for the other seats: {', '.join(BOT_LEVELS)}")
    play: bool = Field(False, description="the challenger sits too, after the bots")

    @field_validator("fill")
    @classmethod
    def _fill(cls, v: str) -> str:
        if v not in SEATABLE_BOTS:
            raise ValueError(unknown_bot(v))
        return v


@router.post("/api/bots/challenges", status_code=201)
async def challenge(
    request: Request, body: BotChallenge, person: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """A table for connected bots: each is sent a challenge for its seat; the seats nobody takes go to the
    ``fill`` level once every challenge is answered. With ``play`` the challenger takes the seat after the
    bots' (people choose to play bots: a bot never sits at a person's table unasked)."""
    hub = hub_of(request)
    arena = _arena(request)
    books = _bots(request)
    if len({b.casefold() for b in body.bots}) != len(body.bots):
        raise TableError("bad_request", "a bot can take one seat of a table", 422)
    if len(body.bots) + body.play > body.seats:
        raise TableError("bad_request", f"{len(body.bots) + body.play} players for {body.seats} seats", 422)
    bots: list[BotAccount] = []
    for name in body.bots:
        bot = await asyncio.to_thread(books.by_name, name)
        if bot is None or not bot.active:
            raise TableError(
                "unknown_bot_account", f"no bot account named {name[:40]!r}", 404, params={"name": name[:40]}
            )
        at = await arena.presence(bot.id)
        if at is None:
            raise TableError("bot_offline", f"the bot {bot.name!r} is not connected", 409, params={"name": bot.name})
        if at["games"] >= at["max_games"]:
            raise TableError("bot_busy", f"the bot {bot.name!r} is playing already", 409, params={"name": bot.name})
        bots.append(bot)
    players = len(bots) + body.play
    fill = {seat: body.fill for seat in range(players, body.seats)}
    table = await hub.create(
        body.seats,
        fill,
        name="Bot arena",
        money_visible=False,
        turn_seconds=arena.settings.move_seconds,
        hints=False,
        extra_options={"rated": body.rated, "bot_arena": True},
    )
    seat: int | None = None
    if body.play:
        seat, token = await join_as(request, table, person.name, len(bots), person)
    offered = []
    await arena.expect(table.id, len(bots))
    for i, bot in enumerate(bots):
        cid = await arena.offer(bot, table, i, fill=body.fill, by=person.name)
        offered.append({"bot": bot.name, "seat": i, "challenge": cid})
    out: dict[str, Any] = {"table": table.id, "watch": f"/t/{table.id}", "challenges": offered, "rated": body.rated}
    if seat is not None:
        out.update(seat=seat, token=token)
    return out


def _leaderboard(books: BotAccounts, ratings: Ratings, limit: int) -> list[dict[str, Any]]:
    entries = ratings.leaderboard(100_000)
    ids = [int(e["player"].removeprefix("user:")) for e in entries if e["player"].startswith("user:")]
    bot_ids = books.bot_ids(ids)
    owners = books.owner_names(sorted(bot_ids))
    out: list[dict[str, Any]] = []
    for e in entries:
        player = e["player"]
        if player.startswith("bot:"):
            level = player.removeprefix("bot:")
            out.append({**_figures(e), "name": level, "kind": "bot", "level": level, "owner": None, "profile": None})
        elif player.startswith("user:") and int(player.removeprefix("user:")) in bot_ids:
            uid = int(player.removeprefix("user:"))
            account = books.accounts.by_id(uid)
            if account is None:
                continue
            out.append(
                {
                    **_figures(e),
                    "name": account.name,
                    "kind": "bot",
                    "level": None,
                    "owner": owners.get(uid),
                    "profile": f"/u/{account.name}",
                }
            )
        if len(out) >= limit:
            break
    return out


def _figures(e: dict[str, Any]) -> dict[str, Any]:
    return {"rating": e["rating"], "games": e["games"], "wins": e["wins"]}


@router.get("/api/bots/leaderboard", dependencies=[Depends(expensive_read)])
async def bots_leaderboard(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[dict[str, Any]]:
    """Rated bots, best first: bot accounts (with their owner) and the server's own bot levels."""
    return await asyncio.to_thread(_leaderboard, _bots(request), ratings_of(request), limit)


# ---------------------------------------------------------------------- the bots' WebSocket


async def _deny(ws: WebSocket, status: int, code: str, detail: str) -> None:
    """Refuse the handshake: the HTTP status where the server can answer one, else accept and close 1008."""
    body = {"detail": detail, "code": code}
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(Response(orjson.dumps(body), status, media_type="application/json"))
        return
    await ws.accept()
    await ws.send_text(json.dumps({"type": "error", **body}))
    await ws.close(1008, code)


async def _admit(ws: WebSocket, hub: Hub) -> tuple[BotAccount, str] | None:
    """The bot whose token the handshake carries and its address; ``None`` once the handshake is refused
    (no token, an unknown or revoked one, too many connections from the address)."""
    settings = hub.settings
    header = ws.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else ""
    if not token:
        await _deny(ws, 401, "unauthorized", "send the bot's API token: 'Authorization: Bearer <token>'")
        return None
    books = BotAccounts(hub.store.engine)
    bot = await asyncio.to_thread(books.by_token, token)
    if bot is None:
        await _deny(ws, 401, "unauthorized", "unknown or revoked bot token")
        return None
    addr = scope_address(ws.scope, settings.proxy_networks())
    if hub.addresses.get(addr, 0) >= settings.max_connections_per_address:
        await _deny(ws, 503, "busy", "too many connections from your address")
        return None
    return bot, addr


class _BotSocket:
    """A bot's accepted WebSocket as its session uses it: sending and closing never raise once the bot is
    gone, and reading stops at the frame limit."""

    def __init__(self, ws: WebSocket, max_frame_bytes: int) -> None:
        self.ws = ws
        self.max_frame_bytes = max_frame_bytes

    async def close(self, code: int, reason: str) -> None:
        ws = self.ws
        if WebSocketState.DISCONNECTED not in (ws.client_state, ws.application_state):
            with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
                await ws.close(code, reason)

    async def send_text(self, text: str) -> None:
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await self.ws.send_text(text)

    async def receive(self) -> str | None:
        """The next text frame within the size limit; ``None`` when the bot left or sent too much."""
        try:
            message = await self.ws.receive()
        except RuntimeError:
            return None
        if message["type"] == "websocket.disconnect":
            return None
        data = message.get("text")
        if data is None:
            data = (message.get("bytes") or b"").decode("utf-8", "replace")
        if len(data.encode("utf-8", "surrogatepass")) > self.max_frame_bytes:
            await self.close(1009, f"frame larger than {self.max_frame_bytes} bytes")
            return None
        return str(data)


@router.websocket("/api/bot/ws")
async def bot_socket(ws: WebSocket) -> None:
    hub = ws_hub(ws)
    admitted = await _admit(ws, hub)
    if admitted is None:
        return
    bot, addr = admitted
    settings = hub.settings
    await ws.accept()
    hub.addresses[addr] = hub.addresses.get(addr, 0) + 1
    arena = arena_of(hub)
    limit = RateLimit(settings.rate_per_second, settings.rate_burst, window=settings.rate_window_seconds)
    sock = _BotSocket(ws, settings.max_frame_bytes)
    session = BotSession(bot, sock.send_text, sock.close)
    writer = asyncio.get_running_loop().create_task(session.writer())
    try:
        session.send(arena.hello(bot))
        try:
            await read_hello(session, sock.receive, arena.settings.hello_seconds)
        except ProtocolError as exc:
            session.send({"type": "error", "code": "bad_hello", "message": str(exc)})
            session.queue.put_nowait(None)
            await asyncio.wait_for(writer, 2.0)
            await sock.close(1008, "bad hello")
            return
        await arena.open(session)
        await _serve(arena, session, sock.receive, sock.close, limit)
    except WebSocketDisconnect:
        pass
    finally:
        await arena.end(session)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        hub.addresses[addr] -= 1
        if hub.addresses[addr] <= 0:
            del hub.addresses[addr]


async def _serve(
    arena: Arena,
    session: BotSession,
    receive: Callable[[], Awaitable[str | None]],
    close: Callable[[int, str], Awaitable[None]],
    limit: RateLimit,
) -> None:
    """Read the bot's messages until it leaves; flooding is dropped, then closed (1008)."""
    settings = arena.hub.settings
    while not session.closed:
        text = await receive()
        if text is None:
            return
        if not limit.allow():
            if limit.dropped >= settings.rate_close_after:
                await close(1008, "rate limit exceeded")
                return
            if limit.dropped == 1 or limit.dropped % 10 == 0:
                session.send({"type": "error", "code": "rate_limited", "message": "too many messages: slow down"})
            continue
        await _handle(arena, session, text)


async def _handle(arena: Arena, session: BotSession, text: str) -> None:
    try:
        message = orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        session.send({"type": "error", "code": "bad_frame", "message": "not JSON"})
        return
    if not isinstance(message, dict):
        session.send({"type": "error", "code": "bad_frame", "message": "a message must be a JSON object"})
        return
    kind = message.get("type")
    if kind == "move":
        await arena.answer(session, message)
    elif kind in ("accept", "decline"):
        cid = message.get("challenge")
        c = arena.challenges.get(cid) if isinstance(cid, str) else None
        if c is None or c.bot_id != session.bot.id:
            session.send({"type": "error", "code": "unknown_challenge", "message": f"no open challenge {cid!r}"})
            return
        problem = await arena.resolve(c.id, accepted=kind == "accept")
        if problem is not None:
            session.send({"type": "error", "code": "challenge_failed", "message": problem, "challenge": c.id})
    elif kind == "ping":
        session.send({"type": "pong"})
    elif kind in ("log", "hello"):
        return  # informational (a log line is not kept: the bot's owner has its own logs)
    else:
        session.send({"type": "error", "code": "bad_frame", "message": "unknown message type"})
