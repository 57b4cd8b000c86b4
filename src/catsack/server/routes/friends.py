"""Friends over HTTP: follow and block accounts, search players by name, see followed players online
and their games, and challenge friends to a new table (accept or decline from My games).

Every change needs a logged-in account (cookie, same-site ``Origin``); follows and challenges are
limited per account. What a follower sees of a game is public: its table, who plays, whose turn.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select

from catsack.server.limits import AddressBuckets
from catsack.server.people.accounts import Account, AccountError, Accounts, seat_users_t
from catsack.server.people.friends import MAX_INVITEES, ONLINE_SECONDS, Challenge, Friends, any_blocked
from catsack.server.people.mail import notify_challenge, notify_follow
from catsack.server.routes.accounts import accounts_of, changing, logged_in
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.mygames import friends_of, games_of
from catsack.server.routes.pages import page
from catsack.server.routes.tables import TurnBasedOption
from catsack.server.storage.store import tables_t
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import TableError
from catsack.server.tables.seating import BOT_LEVELS, SEATABLE_BOTS, unknown_bot
from catsack.server.tables.turnbased import TurnBased
from catsack.server.validate import TABLE_NAME_MAX, clean_text

__all__ = ["router", "start_challenge"]

log = logging.getLogger("catsack.server")

router = APIRouter()

#: Per account: follows (a burst, then one a minute) and challenges (a burst, then one every 3 minutes).
FOLLOW_RATE = (1 / 60, 30)
CHALLENGE_RATE = (1 / 180, 10)


def _buckets(request: Request, name: str, rate: tuple[float, int]) -> AddressBuckets:
    key = f"days_{name}"
    found: AddressBuckets | None = getattr(request.app.state, key, None)
    if found is None:
        found = AddressBuckets(*rate)
        setattr(request.app.state, key, found)
    return found


def _tell(request: Request, found: Challenge | None) -> None:
    """The challenger's and the invitees' My games pages hear that the challenge changed."""
    feed = getattr(request.app.state, "games_feed", None)
    if feed is not None and found is not None:
        feed.changed([found.from_id, *(i for i, _n, _a in found.invitees)])


def _limit(request: Request, name: str, rate: tuple[float, int], account: Account) -> None:
    wait = _buckets(request, name, rate).take(f"u{account.id}")
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise Refused(
            "rate_limited",
            f"too many {name} requests; try again in {seconds} s",
            429,
            params={"seconds": seconds},
            headers={"Retry-After": str(seconds)},
        )


class NameBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=64)


class NewChallenge(BaseModel):
    """A challenge to a new table: the invitees take seats 2, 3… in order, bots the seats after them."""

    model_config = ConfigDict(extra="forbid")

    invitees: list[str] = Field(..., min_length=1, max_length=MAX_INVITEES, description="account names")
    seats: int = Field(4, ge=3, le=5)
    bot: str = Field("expert:normal", description=f"the level of the bots in the other seats: {', '.join(BOT_LEVELS)}")
    turn_based: TurnBasedOption | None = Field(None, description="a turn-based table; omitted: a real-time one")
    rated: bool = False
    name: str = Field("", description=f"the table's name (at most {TABLE_NAME_MAX} characters)")

    @field_validator("bot")
    @classmethod
    def _bot(cls, v: str) -> str:
        if v not in SEATABLE_BOTS:
            raise ValueError(unknown_bot(v))
        return v

    @field_validator("name")
    @classmethod
    def _table_name(cls, v: str) -> str:
        return clean_text(v, field="the table name", max_chars=TABLE_NAME_MAX)

    @field_validator("invitees")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        if any(not isinstance(n, str) or not 1 <= len(n.strip()) <= 64 for n in v):
            raise ValueError("each invitee is an account name of 1 to 64 characters")
        return [n.strip() for n in v]


# ---------------------------------------------------------------------- pages


@router.get("/friends", include_in_schema=False)
async def friends_page() -> Response:
    return page("friends.html")


# ---------------------------------------------------------------------- search, follows, blocks


@router.get("/api/players/search")
async def search(
    request: Request, q: Annotated[str, Query(min_length=1, max_length=24)], _: Annotated[Account, Depends(logged_in)]
) -> dict[str, Any]:
    """Accounts whose name holds ``q`` (names starting with it first), at most 20."""
    found = await asyncio.to_thread(friends_of(request).search, q)
    return {"players": [{"name": a.name} for a in found]}


@router.get("/api/friends")
async def friends(request: Request, account: Annotated[Account, Depends(logged_in)]) -> dict[str, Any]:
    """The players this account follows: online or not, their games in play (public facts only, and
    never a private table), and the accounts it blocks."""
    fr = friends_of(request)
    hub = hub_of(request)
    followed = await asyncio.to_thread(fr.following, account.id)
    seen = await asyncio.to_thread(fr.last_seen, [a.id for a in followed])
    blocked = await asyncio.to_thread(fr.blocked, account.id)
    now = time.time()
    people = []
    for a in followed[:100]:
        games = await asyncio.to_thread(games_of, hub, a.id, now)
        public = await asyncio.to_thread(_listed, hub, [g.table for g in games if g.status == "playing"])
        people.append(
            {
                "name": a.name,
                "online": now - seen.get(a.id, 0.0) <= ONLINE_SECONDS,
                "games": [
                    {
                        "table": g.table,
                        "name": g.name,
                        "turn_based": g.turn_based,
                        "to_move_name": None if g.to_move is None else g.players[g.to_move],
                        "players": g.players,
                    }
                    for g in games
                    if g.status == "playing" and g.table in public
                ],
            }
        )
    people.sort(key=lambda p: (not p["online"], str(p["name"]).casefold()))
    return {"following": people, "blocked": [a.name for a in blocked]}


def _listed(hub: Hub, ids: list[str]) -> set[str]:
    """Of ``ids``, the tables that are not private (a private table's link is its only way in)."""
    if not ids:
        return set()
    import json

    with hub.store.engine.connect() as conn:
        rows = conn.execute(select(tables_t.c.id, tables_t.c.options).where(tables_t.c.id.in_(ids))).all()
    return {r.id for r in rows if not json.loads(r.options).get("private")}


@router.post("/api/friends/follow", status_code=204)
async def follow(request: Request, body: NameBody, account: Annotated[Account, Depends(changing)]) -> None:
    """Follow a player (one-way). A player who blocked you cannot be followed."""
    _limit(request, "follow", FOLLOW_RATE, account)
    other, new = await asyncio.to_thread(friends_of(request).follow, account, body.name)
    if new:
        await notify_follow(hub_of(request), other, account)


@router.post("/api/friends/unfollow", status_code=204)
async def unfollow(request: Request, body: NameBody, account: Annotated[Account, Depends(changing)]) -> None:
    await asyncio.to_thread(friends_of(request).unfollow, account, body.name)


@router.post("/api/friends/block", status_code=204)
async def block(request: Request, body: NameBody, account: Annotated[Account, Depends(changing)]) -> None:
    """Block a player: it no longer follows you, cannot challenge you or chat at a table where you sit."""
    await asyncio.to_thread(friends_of(request).block, account, body.name)


@router.post("/api/friends/unblock", status_code=204)
async def unblock(request: Request, body: NameBody, account: Annotated[Account, Depends(changing)]) -> None:
    await asyncio.to_thread(friends_of(request).unblock, account, body.name)


# ---------------------------------------------------------------------- challenges


@router.post("/api/challenges", status_code=201)
async def challenge(
    request: Request, body: NewChallenge, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Challenge accounts to a new table: the challenger takes seat 1, the invitees the next seats,
    bots of level ``bot`` the rest. The table is made once every invitee has accepted."""
    if len(body.invitees) + 1 > body.seats:
        raise TableError("bad_request", f"{len(body.invitees)} invitees and you do not fit {body.seats} seats", 422)
    _limit(request, "challenge", CHALLENGE_RATE, account)
    fr = friends_of(request)
    options: dict[str, Any] = {
        "seats": body.seats,
        "bots": {str(s): body.bot for s in range(len(body.invitees) + 1, body.seats)},
        "turn_based": None if body.turn_based is None else body.turn_based.control().options(),
        "rated": body.rated,
        # The players' names (no words in one language) unless the challenger names the table.
        "name": body.name or " · ".join([account.name, *body.invitees])[:TABLE_NAME_MAX],
    }
    made = await asyncio.to_thread(fr.challenge, account, body.invitees, options)
    await notify_challenge(hub_of(request), made)
    _tell(request, made)
    return made.public(account.id)


@router.post("/api/challenges/{challenge_id}/accept")
async def accept(request: Request, challenge_id: str, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Accept an invitation; the last acceptance makes the table (the answer then names it)."""
    if not 1 <= len(challenge_id) <= 16:
        raise AccountError("not_invited", "you have no open invitation to this challenge", 404)
    fr = friends_of(request)
    found, complete = await asyncio.to_thread(fr.answer, challenge_id, account, True)
    if complete:
        table_id = await start_challenge(hub_of(request), accounts_of(request), fr, found)
        again = await asyncio.to_thread(fr.get, challenge_id)
        found = again if again is not None else found
        _tell(request, found)
        if table_id is None:
            raise TableError("unavailable", "the table could not be made; the challenge is closed", 503)
    else:
        _tell(request, found)
    return found.public(account.id)


@router.post("/api/challenges/{challenge_id}/decline")
async def decline(
    request: Request, challenge_id: str, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    if not 1 <= len(challenge_id) <= 16:
        raise AccountError("not_invited", "you have no open invitation to this challenge", 404)
    found, _ = await asyncio.to_thread(friends_of(request).answer, challenge_id, account, False)
    _tell(request, found)
    return found.public(account.id)


@router.post("/api/challenges/{challenge_id}/cancel", status_code=204)
async def cancel(request: Request, challenge_id: str, account: Annotated[Account, Depends(changing)]) -> None:
    if not 1 <= len(challenge_id) <= 16:
        raise AccountError("challenge_closed", "this challenge is no longer open", 409)
    await asyncio.to_thread(friends_of(request).cancel, challenge_id, account)
    _tell(request, await asyncio.to_thread(friends_of(request).get, challenge_id))


async def start_challenge(hub: Hub, accounts: Accounts, fr: Friends, found: Challenge) -> str | None:
    """Make the table of a challenge every invitee accepted: the challenger and the invitees seated
    under their accounts (each takes the seat over on their device from My games), bots in the rest.
    The table's id, or ``None`` when it could not be made (the challenge is then marked failed)."""
    opts = found.options
    people = [(found.from_id, found.from_name)] + [(i, n) for i, n, _a in found.invitees]
    table_id = None
    try:
        if await asyncio.to_thread(any_blocked, hub.store.engine, [i for i, _n in people]):
            raise TableError("blocked", "a player of this challenge blocks another", 409)
        tb = opts.get("turn_based")
        table = await hub.create(
            int(opts["seats"]),
            {int(k): v for k, v in opts.get("bots", {}).items()},
            name=str(opts.get("name") or "Challenge"),
            money_visible=False,
            turn_seconds=None,
            hints=False,
            turn_based=None if not tb else TurnBased(int(tb["move_hours"]), int(tb["bank_hours"])),
            extra_options={"rated": bool(opts.get("rated")), "private": True, "host_seat": 0, "challenge": found.id},
        )
        for seat, (user_id, name) in enumerate(people):
            account = Account(user_id, name, 0.0)
            await asyncio.to_thread(accounts.bind_seat, account, table.id, seat)
            await hub.join(table, name, seat)
        table_id = table.id
    except Exception:
        log.exception("challenge table not made", extra={"fields": {"challenge": found.id}})
    await asyncio.to_thread(fr.started, found.id, table_id)
    return table_id


def seat_account(hub: Hub, table_id: str, seat: int) -> int | None:
    """The account id at ``seat`` of ``table_id`` (``None``: a guest, a bot, an open seat)."""
    with hub.store.engine.connect() as conn:
        found = conn.execute(
            select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat)
        ).scalar()
    return None if found is None else int(found)
