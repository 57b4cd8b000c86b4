"""What people do at a table besides moving: chat, a host handing an idle seat to a bot, an
account taking its seat over from another device, and rating a finished rated game.

These live beside the hub rather than in it: each is a short piece that uses the
hub's tables, locks and database writer, and the hub itself stays about moves.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import weakref
from typing import Any

from catsack.server.accounts import change_seat_token
from catsack.server.chat import BURST, RATE, ChatError, ChatLog, clean_message
from catsack.server.hub import Conn, Hub, LiveTable, TableError, hash_token
from catsack.server.limits import RateLimit

__all__ = ["chat", "chat_history", "hand_seat_to_bot", "rate_finished", "take_over"]

log = logging.getLogger("catsack.server")

_chat_limits: weakref.WeakKeyDictionary[Conn, RateLimit] = weakref.WeakKeyDictionary()


def _chat_log(hub: Hub) -> ChatLog:
    found: ChatLog | None = getattr(hub, "_chat_log", None)
    if found is None:
        found = ChatLog(hub.store.engine)
        hub._chat_log = found  # type: ignore[attr-defined]
    return found


async def chat(hub: Hub, conn: Conn, text: Any) -> dict[str, Any] | None:
    """A seated player's message: stored, then sent to everyone at the table (players and spectators).
    The answer is an ``error`` frame when it is refused, else ``None``."""
    table = conn.table
    if table is None or conn.seat is None:
        return {"type": "error", "code": "unauthorized", "message": "only seated players can chat"}
    try:
        message = clean_message(text)
    except ChatError as exc:
        return {"type": "error", "code": "bad_chat", "message": str(exc)}
    limit = _chat_limits.get(conn)
    if limit is None:
        limit = _chat_limits[conn] = RateLimit(RATE, BURST)
    if not limit.allow():
        return {"type": "error", "code": "rate_limited", "message": "you are sending messages too fast; wait a moment"}
    seat = conn.seat
    from catsack.server.friends import Friends

    if await asyncio.to_thread(Friends(hub.store.engine).blocked_at_table, table.id, seat):
        return {"type": "error", "code": "blocked", "message": "a player at this table has blocked you: no chat here"}
    name = table.names()[seat]
    try:
        stored = await hub.writer.run(_chat_log(hub).add, table.id, seat, name, message)
    except ChatError as exc:
        return {"type": "error", "code": "unavailable", "message": str(exc)}
    table.broadcast({"type": "chat", "messages": [stored]})
    await _publish_chat(hub, table)
    return None


async def _publish_chat(hub: Hub, table: LiveTable) -> None:
    """Tell other processes (their connections read the new message from the database)."""
    fanout = hub.fanout
    if fanout is not None and hasattr(fanout, "publish_chat"):
        await fanout.publish_chat(table.id)


async def chat_history(hub: Hub, table: LiveTable) -> dict[str, Any]:
    """The ``chat`` frame a new connection gets: the table's recent messages."""
    messages = await asyncio.to_thread(_chat_log(hub).messages, table.id)
    return {"type": "chat", "messages": messages, "history": True}


async def hand_seat_to_bot(hub: Hub, table: LiveTable, seat: int) -> None:
    """Give an idle (disconnected) player's seat to the stand-in bot before the grace period ends
    (the route checks that the host asks); the player's token stops working, as when the grace
    period runs out."""
    if not 0 <= seat < len(table.players) or table.players[seat].kind != "human":
        raise TableError("bad_request", f"seat {seat} is not a person's seat", 409)
    if table.status != "playing":
        raise TableError("bad_request", "seats are handed to bots only while the game is on", 409)
    if table.seat_status(seat) != "away":
        raise TableError(
            "seat_connected",
            f"seat {seat + 1} is connected; only an idle seat can be handed over",
            409,
            params={"n": seat + 1},
        )
    await hub.replace(table, seat)


async def take_over(hub: Hub, table: LiveTable, seat: int) -> str:
    """A new token for ``seat`` (bound to the caller's account, checked by the route); the old
    token stops working and its connections become spectators, as in checklist case 8."""
    token = secrets.token_urlsafe(24)
    async with table.lock:
        p = table.players[seat]
        if p.kind != "human":
            raise TableError("replaced", "a bot plays this seat now", 409)
        ok = await hub.writer.run(change_seat_token, hub.store.engine, table.id, seat, hash_token(token))
        if not ok:
            raise TableError("replaced", "the seat changed hands", 409)
        p.token_hash = hash_token(token)
        hub._drop_seat_conns(table, seat)
    await hub._publish(table.id, -1)
    return token


async def rate_finished(hub: Hub, table: LiveTable) -> None:
    """Update ratings once a rated table's game is over (at most once per table, whichever process)."""
    if not table.options.get("rated") or not table.game.is_over:
        return
    from catsack.server.accounts import Accounts
    from catsack.server.ratings import Ratings

    try:
        accounts = await asyncio.to_thread(Accounts(hub.store.engine).seat_accounts, table.id)
        players = []
        for seat, p in enumerate(table.players):
            if seat in accounts:  # a player a bot replaced keeps the result of the seat it left
                players.append(f"user:{accounts[seat].id}")
            elif p.kind == "bot":
                players.append(f"bot:{p.bot}")
            else:  # an account deleted since: rated as a one-off player
                players.append(f"guest:{table.id}:{seat}")
        scores = list(table.game.scores())
        cats = list(table.game.cat_points())
        changes = await hub.writer.run(Ratings(hub.store.engine).record_game, table.id, players, scores, cats)
    except Exception:
        log.exception("rating failed", extra={"fields": {"table": table.id}})
        return
    if changes is not None:
        from catsack.server.ratings import display

        table.broadcast(
            {
                "type": "ratings",
                "changes": [
                    {"seat": c.seat, "before": display(c.before), "after": display(c.after), "rank": c.rank}
                    for c in changes
                ],
            }
        )
        log.info("game rated", extra={"fields": {"table": table.id}})
