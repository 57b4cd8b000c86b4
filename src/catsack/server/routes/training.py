"""The training page: retry the mistakes the analysis found, from your games or the pool.

``GET /training`` is the page. ``GET /api/training?source=own|pool`` lists positions (``own``: the
logged-in account's games, collected from their stored analyses first), with their theme and
difficulty; ``GET /api/training/{id}`` is one position as its seat saw it (R23: that seat's view
only) with the moves to choose from, and no verdict; ``POST /api/training/{id}/answer`` answers a
move with the analysis's verdict and sentences, and counts the attempt: the first answer of each
account (or guest, told apart by address) to a position only, so nobody can skew how hard it is rated.
Answers are rate-limited per account and per address.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from catsack.game import Game
from catsack.moves import Move
from catsack.server.limits import AddressBuckets, scope_address
from catsack.server.people.gameaccess import game_access
from catsack.server.people.training import answer, harvest
from catsack.server.routes.accounts import account_of, accounts_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.storage.store import Store, tables_t
from catsack.server.storage.training_store import DIFFICULTIES, SOURCES, THEMES, TrainingStore
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import seat_names, stored_game

__all__ = ["router"]

router = APIRouter()

#: Positions one list shows at most.
LIST_LIMIT = 200
#: Finished games of an account whose analyses are looked through when its list is opened.
HARVEST_GAMES = 50
#: Answers per account: a burst, then one every 10 s; per address (all its accounts and guests
#: together): a larger burst, then one every 4 s. Both are tighter than the server's budget for any
#: change (``CATSACK_HTTP_RATE_*``): a person reads each verdict before the next position.
ANSWER_RATE = (1 / 10, 20)
ANSWER_PER_ADDRESS = (1 / 4, 40)


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    move: str = Field(..., min_length=1, max_length=24, description="the move chosen, e.g. 'bid 7' or 'place +11'")


def _load(store: Store, table_id: str) -> tuple[Game, list[str], bool] | None:
    loaded = store.load(table_id)
    if loaded is None:
        return None
    row, seats, actions = loaded
    if row.status != "over":
        return None
    game = stored_game(row, actions)
    return game, seat_names(seats), bool(row.options.get("money_visible"))


def _choices(values: dict[str, Any]) -> list[str]:
    """The analysed moves in the game's order: cards as R1 lists them, bids ascending, then pass."""
    return sorted(values, key=lambda text: (Move.parse(text).kind, Move.parse(text).arg))


def _options(store: Store, table_ids: list[str]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Each table's status and options (one query)."""
    if not table_ids:
        return {}
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(tables_t.c.id, tables_t.c.status, tables_t.c.options).where(tables_t.c.id.in_(table_ids))
        ).all()
    return {r.id: (r.status, json.loads(r.options)) for r in rows}


async def _readable(hub: Hub, games: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The account's games (table, seat) whose whole game it may read now (:mod:`catsack.server.people.gameaccess`):
    a duplicate round still played elsewhere gives no training position until it is scored."""
    found = await asyncio.to_thread(_options, hub.store, [t for t, _ in games])
    out = []
    for table_id, seat in games:
        if table_id not in found:
            continue
        status, options = found[table_id]
        access = await game_access(hub, status=status, options=options, seats=(), seat=seat)
        if access.whole is None:
            out.append((table_id, seat))
    return out


def _own_positions(store: Store, user_id: int, games: list[tuple[str, int]]) -> None:
    harvest(store.engine, games, user_id, lambda table_id: _load(store, table_id))


@router.get("/training", include_in_schema=False)
async def training_page() -> Response:
    return page("training.html")


@router.get("/api/training")
async def list_positions(
    request: Request,
    source: Annotated[str, Query(description="own (your games; log in) or pool (bot games)")] = "pool",
    theme: Annotated[str | None, Query(description=f"one of {', '.join(THEMES)}")] = None,
    difficulty: Annotated[str | None, Query(description=f"one of {', '.join(DIFFICULTIES)}")] = None,
) -> dict[str, Any]:
    """Positions to retry, newest first, with their theme, class and difficulty (no move, no verdict)."""
    if source not in SOURCES:
        raise Refused("bad_request", f"source must be one of {', '.join(SOURCES)}", 422)
    if theme is not None and theme not in THEMES:
        raise Refused("bad_request", f"theme must be one of {', '.join(THEMES)}", 422)
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise Refused("bad_request", f"difficulty must be one of {', '.join(DIFFICULTIES)}", 422)
    store = hub_of(request).store
    training = TrainingStore(store.engine)
    user_id = None
    if source == "own":
        account = await account_of(request)
        if account is None:
            raise Refused("not_logged_in", "log in to retry the mistakes of your own games", 401)
        user_id = account.id
        games = await asyncio.to_thread(accounts_of(request).games, account, finished_only=True, limit=HARVEST_GAMES)
        games = await _readable(hub_of(request), games)
        await hub_of(request).writer.run(_own_positions, store, account.id, games)
    found = await asyncio.to_thread(training.listing, source=source, user_id=user_id, theme=theme, limit=LIST_LIMIT)
    items = [p.summary() for p in found if difficulty is None or p.difficulty == difficulty]
    return {"source": source, "positions": items, "themes": list(THEMES), "difficulties": list(DIFFICULTIES)}


async def _position(request: Request, position_id: str) -> Any:
    if not 1 <= len(position_id) <= 16 or not position_id.replace("-", "").replace("_", "").isalnum():
        raise Refused("unknown_position", f"no training position {position_id[:20]!r}", 404)
    found = await asyncio.to_thread(TrainingStore(hub_of(request).store.engine).get, position_id)
    if found is None:
        raise Refused("unknown_position", f"no training position {position_id!r}", 404)
    return found


@router.get("/api/training/{position_id}")
async def get_position(request: Request, position_id: str) -> dict[str, Any]:
    """One position as its seat saw it (R23) and the moves to choose from; no verdict."""
    p = await _position(request, position_id)
    return {
        **p.summary(),
        "seat": p.seat,
        "names": p.names,
        "view": p.view,
        "choices": _choices(p.decision["values"]),
    }


def _buckets(request: Request) -> tuple[AddressBuckets, AddressBuckets]:
    found: tuple[AddressBuckets, AddressBuckets] | None = getattr(request.app.state, "training_buckets", None)
    if found is None:
        found = request.app.state.training_buckets = (AddressBuckets(*ANSWER_RATE), AddressBuckets(*ANSWER_PER_ADDRESS))
    return found


def _answerer(position_id: str, user_id: int | None, address: str) -> str:
    """Who answers, as the attempts table keeps it: the account, or a guest's address hashed with the
    position (one mark per guest and position, no address stored)."""
    if user_id is not None:
        return f"u{user_id}"
    return "g" + hashlib.sha256(f"{position_id}|{address}".encode()).hexdigest()[:32]


@router.post("/api/training/{position_id}/answer")
async def answer_position(request: Request, position_id: str, body: Answer) -> dict[str, Any]:
    """The analysis's verdict on the chosen move, with its sentences; the first answer of each account
    or guest is counted (``counted``), later ones are answered but not counted."""
    address = scope_address(request.scope, hub_of(request).settings.proxy_networks())
    account = await account_of(request)
    per_answerer, per_address = _buckets(request)
    wait = per_address.take(address)
    if account is not None:
        wait = max(wait, per_answerer.take(f"u{account.id}"))
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise Refused(
            "rate_limited",
            f"too many answers; try again in {seconds} s",
            429,
            params={"seconds": seconds},
            headers={"Retry-After": str(seconds)},
        )
    p = await _position(request, position_id)
    try:
        verdict = answer(p.decision, body.move.strip())
    except ValueError as exc:
        raise Refused("bad_move", str(exc), 422) from None
    store = TrainingStore(hub_of(request).store.engine)
    who = _answerer(p.id, None if account is None else account.id, address)
    counted = await hub_of(request).writer.run(store.attempt, p.id, bool(verdict["solved"]), who)
    solved = int(counted and verdict["solved"])
    return {
        **verdict,
        "id": p.id,
        "counted": counted,
        "attempts": p.attempts + int(counted),
        "solved_count": p.solved + solved,
    }
