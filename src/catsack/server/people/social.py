"""What people do at a table besides moving: chat, a host handing an idle seat to a bot, an
account taking its seat over from another device, the names a guest may take, and what happens
when a game ends (reputation, rating, the tournament it belongs to).

These live beside the hub rather than in it: each is a short piece that uses the
hub's tables, locks and database writer, and the hub itself stays about moves.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import unicodedata
import weakref
from functools import partial
from typing import Any

from catsack.server.limits import RateLimit
from catsack.server.people.accounts import DELETED_NAME, RESERVED_NAMES, AccountError, Accounts, change_seat_token
from catsack.server.people.chat import BURST, RATE, ChatError, ChatLog, clean_message
from catsack.server.people.friends import Friends
from catsack.server.people.ratings import Ratings, display
from catsack.server.people.reputation import mark_abandoned, mark_finished, meets, reputation
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import Conn, LiveTable, TableError
from catsack.server.tournaments import runner

__all__ = [
    "chat",
    "chat_history",
    "check_guest_name",
    "check_reputation",
    "game_over",
    "hand_seat_to_bot",
    "rate_finished",
    "seat_abandoned",
    "take_over",
]

log = logging.getLogger("catsack.server")

_chat_limits: weakref.WeakKeyDictionary[Conn, RateLimit] = weakref.WeakKeyDictionary()

#: Words a guest's name may not start with: a guest called "heuristic 2" or "admin" would pass for a
#: bot or the operator ("guest" itself stays: it is what a guest is called when they type no name).
GUEST_RESERVED = frozenset(RESERVED_NAMES - {"guest"}) | {"external", "deleted player"}


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


def check_guest_name(accounts: Accounts, name: str) -> None:
    """Refuse a guest's name that would pass for someone else: a bot level ("expert", "expert:easy
    3"), "deleted player", an operator's word (409 ``name_reserved``), or a registered account's name,
    also written with look-alike letters ("Аnn" with a Cyrillic A: :mod:`catsack.server.storage.names`; 409
    ``name_registered``)."""
    key = _key(name)
    first = re.split(r"[\s:()]+", key)[0] if key else ""
    if key in GUEST_RESERVED or first in GUEST_RESERVED or key == _key(DELETED_NAME):
        raise AccountError(
            "name_reserved",
            f"the name {name!r} is kept for bots and the site: choose another",
            409,
            params={"name": name},
        )
    if accounts.by_name(name.strip()) is not None or accounts.looking_like(name) is not None:
        raise AccountError(
            "name_registered",
            f"{name!r} is a registered player's name: log in to use it, or choose another",
            409,
            params={"name": name},
        )


def _chat_log(hub: Hub) -> ChatLog:
    return hub.service(ChatLog, lambda: ChatLog(hub.store.engine))


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
    if await asyncio.to_thread(_chat_blocked, hub, table.id, seat, conn.session):
        return {"type": "error", "code": "blocked", "message": "a player at this table has blocked you: no chat here"}
    name = table.names()[seat]
    guest = table.players[seat].user_id is None  # marked as the seat list marks it
    try:
        stored = await hub.writer.run(partial(_chat_log(hub).add, table.id, seat, name, message, guest=guest))
    except ChatError as exc:
        return {"type": "error", "code": "unavailable", "message": str(exc)}
    table.broadcast({"type": "chat", "messages": [stored]})
    await _publish_chat(hub, table)
    return None


def _chat_blocked(hub: Hub, table_id: str, seat: int, session: str | None) -> bool:
    """Whether an account seated at the table blocks the speaker: the account bound to the seat, or
    the account logged in on the speaker's browser (a guest's seat taken before logging in)."""
    friends = Friends(hub.store.engine)
    if friends.blocked_at_table(table_id, seat):
        return True
    account = Accounts(hub.store.engine).session(session) if session else None
    return account is not None and friends.blocked_from_table(table_id, account.id)


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
    period runs out. Never a turn-based seat: its clock decides (409 ``clock_running``)."""
    if not 0 <= seat < len(table.players) or table.players[seat].kind != "human":
        raise TableError("bad_request", f"seat {seat} is not a person's seat", 409)
    if table.status != "playing":
        raise TableError("bad_request", "seats are handed to bots only while the game is on", 409)
    if table.clock is not None:  # docs/rules.md, "Playing online": the clock is a turn-based seat's only limit
        raise TableError(
            "clock_running",
            f"seat {seat + 1} is turn-based: its clock runs, and only its running out hands it to a bot",
            409,
            params={"n": seat + 1},
        )
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
        hub.drop_seat_connections(table, seat)
    await hub.publish_seats(table.id, -1)
    return token


async def check_reputation(hub: Hub, account: Any, minimum: float) -> None:
    """Refuse a seat at a table that asks for a least share of finished games: guests have no record
    (403 ``account_required``), an account below it is told its share (403 ``reputation``)."""
    if account is None:
        raise AccountError("account_required", "this table seats accounts with a record of finished games", 403)
    rep = await asyncio.to_thread(reputation, hub.store.engine, account.id)
    if not meets(rep, minimum):
        want, share = round(minimum * 100), round(rep.share * 100)
        raise AccountError(
            "reputation",
            f"this table asks for at least {want}% of games finished (yours: {share}%)",
            403,
            params={"min": want, "share": share},
        )


async def seat_abandoned(hub: Hub, table: LiveTable, seat: int) -> None:
    """A bot took ``seat`` over before the end: its account's reputation counts an abandoned game,
    and a tournament withdraws the player (never fails the caller: logged instead)."""
    try:
        await hub.writer.run(mark_abandoned, hub.store.engine, table.id, seat)
    except Exception:
        log.exception("abandon mark failed", extra={"fields": {"table": table.id, "seat": seat}})
    if table.options.get("tournament"):
        await runner.seat_abandoned(hub, table, seat)


async def game_over(hub: Hub, table: LiveTable) -> None:
    """Everything a finished game sets off, once per table: the finished seats' reputation, the rating
    of a rated game, and the next step of the tournament it belongs to."""
    kept = [i for i, p in enumerate(table.players) if p.kind == "human"]
    try:
        await hub.writer.run(mark_finished, hub.store.engine, table.id, kept)
    except Exception:
        log.exception("finish marks failed", extra={"fields": {"table": table.id}})
    if table.options.get("rated"):
        await rate_finished(hub, table)
    if table.options.get("tournament"):
        await runner.table_finished(hub, table)


def rating_players(table: LiveTable, accounts: dict[int, Any]) -> tuple[list[str], list[int]]:
    """Seat by seat, who a rated game rates, and the seats abandoned to a bot: an account's seat is
    rated as the account's even when a bot finished it (then it is abandoned: rated last, see
    :mod:`catsack.server.people.ratings`); a bot seated from the start as its level."""
    players: list[str] = []
    abandoned: list[int] = []
    for seat, p in enumerate(table.players):
        if seat in accounts:
            players.append(f"user:{accounts[seat].id}")
        elif p.kind == "bot" and not p.replaced:
            players.append(f"bot:{p.bot}")
        else:  # an account deleted since (or a guest a bot replaced): rated as a one-off player
            players.append(f"guest:{table.id}:{seat}")
        if p.replaced:
            abandoned.append(seat)
    return players, abandoned


async def rate_finished(hub: Hub, table: LiveTable) -> None:
    """Update ratings once a rated table's game is over (at most once per table, whichever process)."""
    if not table.options.get("rated") or not table.game.is_over:
        return
    try:
        accounts = await asyncio.to_thread(Accounts(hub.store.engine).seat_accounts, table.id)
        players, abandoned = rating_players(table, accounts)
        scores = list(table.game.scores())
        cats = list(table.game.cat_points())
        changes = await hub.writer.run(
            Ratings(hub.store.engine).record_game, table.id, players, scores, cats, abandoned
        )
    except Exception:
        log.exception("rating failed", extra={"fields": {"table": table.id}})
        return
    if changes is not None:
        table.broadcast(
            {
                "type": "ratings",
                "changes": [
                    {
                        "seat": c.seat,
                        "before": display(c.before),
                        "after": display(c.after),
                        "rank": c.rank,
                        "abandoned": c.seat in abandoned,
                    }
                    for c in changes
                ],
            }
        )
        log.info("game rated", extra={"fields": {"table": table.id, "abandoned": abandoned}})
