"""The training page (issue 32): retry the mistakes the analysis found, from your games or the pool.

``GET /training`` is the page. ``GET /api/training?source=own|pool`` lists positions (``own``: the
logged-in account's games, collected from their stored analyses first), with their theme and
difficulty; ``GET /api/training/{id}`` is one position as its seat saw it (R23: that seat's view
only) with the moves to choose from, and no verdict; ``POST /api/training/{id}/answer`` answers a
move with the analysis's verdict and sentences, and counts the attempt.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from catsack.game import Game
from catsack.moves import Move
from catsack.server.hub import setup_from_json
from catsack.server.live import seat_names
from catsack.server.routes.accounts import account_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.store import Store
from catsack.server.training import answer, harvest
from catsack.server.training_store import DIFFICULTIES, SOURCES, THEMES, TrainingStore

__all__ = ["router"]

router = APIRouter()

#: Positions one list shows at most.
LIST_LIMIT = 200
#: Finished games of an account whose analyses are looked through when its list is opened.
HARVEST_GAMES = 50


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
    game = Game(setup_from_json(row.seats, row.setup))
    for a in actions:
        game.play(a.move)
    return game, seat_names(seats), bool(row.options.get("money_visible"))


def _choices(values: dict[str, Any]) -> list[str]:
    """The analysed moves in the game's order: cards as R1 lists them, bids ascending, then pass."""
    return sorted(values, key=lambda text: (Move.parse(text).kind, Move.parse(text).arg))


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
        from catsack.server.routes.accounts import accounts_of

        games = await asyncio.to_thread(accounts_of(request).games, account, finished_only=True, limit=HARVEST_GAMES)
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


@router.post("/api/training/{position_id}/answer")
async def answer_position(request: Request, position_id: str, body: Answer) -> dict[str, Any]:
    """The analysis's verdict on the chosen move, with its sentences; the attempt is counted."""
    p = await _position(request, position_id)
    try:
        verdict = answer(p.decision, body.move.strip())
    except ValueError as exc:
        raise Refused("bad_move", str(exc), 422) from None
    store = TrainingStore(hub_of(request).store.engine)
    await hub_of(request).writer.run(store.attempt, p.id, bool(verdict["solved"]))
    return {**verdict, "id": p.id, "attempts": p.attempts + 1, "solved_count": p.solved + int(verdict["solved"])}
