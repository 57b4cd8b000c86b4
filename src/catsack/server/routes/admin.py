"""The operator's pages, for the accounts named in ``CATSACK_ADMIN_ACCOUNTS``: the soft-play report
(:mod:`catsack.server.people.fairplay`, as ``catsack admin fairplay`` prints it) with its evidence, and a
button that takes a game's rating changes back (as ``catsack admin revert``).

The operators are accounts, bound when the server starts: each name in ``CATSACK_ADMIN_ACCOUNTS`` must
belong to an account then, or the server does not start; a deleted operator's name is never free again.

``GET /admin/fairplay`` is the page; ``GET /api/admin/fairplay`` the report (``?all=true``: every pair,
not only those that stand out); ``POST /api/admin/games/{id}/revert`` reverts one rated game. Anyone
else gets 403 ``not_admin`` (401 when not logged in); with the setting empty, nobody is an operator.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from catsack.server.people.accounts import Account, AccountError, Accounts, OperatorError, operator_ids
from catsack.server.people.fairplay import MIN_GAP, MIN_TURNS, MIN_Z, report
from catsack.server.people.ratings import RatingError, Ratings
from catsack.server.routes.accounts import account_of, check_origin
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.validate import is_table_id

__all__ = ["REPORT_GAMES", "operator", "operators_of", "router"]

log = logging.getLogger("catsack.server")

#: The newest rated games the page's report reads (as the command's default ``--limit``).
REPORT_GAMES = 5000


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Bind the operators named in ``CATSACK_ADMIN_ACCOUNTS`` to their accounts as the server starts; a
    listed name that no account holds stops the start (:func:`~catsack.server.people.accounts.operator_ids`)."""
    hub = app.state.hub
    try:
        app.state.operators = await asyncio.to_thread(
            operator_ids, Accounts(hub.store.engine), hub.settings.admin_names()
        )
    except OperatorError as exc:
        log.error("operators not bound", extra={"fields": {"why": str(exc)}})
        raise
    yield


router = APIRouter(lifespan=_lifespan)


def operators_of(request: Request) -> frozenset[int]:
    """The operators' account ids, bound when the server started."""
    found: frozenset[int] = request.app.state.operators
    return found


async def operator(request: Request) -> Account:
    """The logged-in account, if it is one that ``CATSACK_ADMIN_ACCOUNTS`` named when the server started
    (401 for a guest, 403 otherwise). The account, not the name: a name freed or taken later is nobody's
    operator."""
    account = await account_of(request)
    if account is None:
        raise AccountError("not_logged_in", "log in first", 401)
    if account.id not in operators_of(request):
        raise Refused("not_admin", "this page is for the server's operators (CATSACK_ADMIN_ACCOUNTS)", 403)
    return account


class RevertBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: str = Field("", max_length=200, description="why (kept with the game)")


def _report_lock(request: Request) -> asyncio.Lock:
    found: asyncio.Lock | None = getattr(request.app.state, "fairplay_lock", None)
    if found is None:
        found = request.app.state.fairplay_lock = asyncio.Lock()
    return found


@router.get("/admin/fairplay", include_in_schema=False)
async def fairplay_page() -> Response:
    return page("admin.html")


@router.get("/api/admin/fairplay")
async def fairplay(
    request: Request,
    _operator: Annotated[Account, Depends(operator)],
    everyone: Annotated[bool, Query(alias="all", description="every pair, not only those that stand out")] = False,
) -> dict[str, Any]:
    """Pairs of accounts whose bidding against each other stands out, with the evidence and their games."""
    engine = hub_of(request).store.engine
    async with _report_lock(request):  # one report at a time: it replays up to REPORT_GAMES games
        found = await asyncio.to_thread(report, engine, limit=REPORT_GAMES, everyone=everyone)
    return {
        "pairs": found.pairs,
        "thresholds": {"min_gap": MIN_GAP, "min_z": MIN_Z, "min_turns": MIN_TURNS},
        "games_read": found.games_read,
    }


def _revert(engine: Any, table_id: str, reason: str) -> list[dict[str, Any]]:
    changes = Ratings(engine).revert(table_id, reason)
    accounts = Accounts(engine)
    out = []
    for c in changes:
        player = str(c["player"])
        account = accounts.by_id(int(player[5:])) if player.startswith("user:") and player[5:].isdigit() else None
        out.append({**c, "name": account.name if account is not None else player})
    return out


@router.post("/api/admin/games/{table_id}/revert")
async def revert(
    request: Request, table_id: str, body: RevertBody, account: Annotated[Account, Depends(operator)]
) -> dict[str, Any]:
    """Take a rated game's rating changes back (an abandoned or collusive game); each player's rating
    before and after."""
    check_origin(request)
    if not is_table_id(table_id):
        raise Refused("unknown_table", "no such game", 404)
    try:
        changes = await asyncio.to_thread(_revert, hub_of(request).store.engine, table_id, body.reason.strip())
    except RatingError as exc:
        raise Refused("not_revertable", str(exc), 409) from None
    log.info("rating changes reverted", extra={"fields": {"table": table_id, "by": account.name}})
    return {"table": table_id, "changes": changes}
