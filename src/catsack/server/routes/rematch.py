"""Rematch: ``POST /api/tables/{id}/rematch`` ("Play again") and where a table's rematch is."""

from __future__ import annotations

import asyncio
import base64
import hashlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

from fastapi import APIRouter, FastAPI, Header, Request
from pydantic import BaseModel, Field

from catsack.server.people.rematch import Rematches
from catsack.server.routes.accounts import accounts_of, check_not_blocked
from catsack.server.routes.deps import Refused, hub_of, live_table
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.live import TableError

__all__ = ["Rematched", "router"]


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    app.state.rematches = Rematches(app.state.hub)
    yield


router = APIRouter(lifespan=_lifespan)


def rematches_of(request: Request) -> Rematches:
    r: Rematches = request.app.state.rematches
    return r


class Rematched(BaseModel):
    table: str = Field(description="the new table")
    seat: int | None = Field(description="the seat taken there (the old one if it was free); null: none was free")
    token: str | None = Field(description="the new seat's secret token")
    created: bool = Field(description="whether this request created the new table")


class NextTable(BaseModel):
    table: str | None = Field(description="the rematch table, or null if nobody asked for one yet")


def _rematch_token(old_token: str, new_table: str) -> str:
    """The new seat's token, derived from the old one: only its holder can compute it, and pressing
    "Play again" twice finds the seat taken the first time instead of taking a second one."""
    digest = hashlib.sha256(f"catsack-rematch:{new_table}:{old_token}".encode()).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode().rstrip("=")


@router.post("/api/tables/{table_id}/rematch", response_model=Rematched)
async def rematch(
    request: Request,
    table_id: str,
    authorization: Annotated[str | None, Header(description="Bearer <seat token> of the finished table")] = None,
) -> Rematched:
    """ "Play again": the finished table's rematch (made now if it is the first request), and the
    requester's seat there: the same seat if it is still open, else the first open one."""
    hub = hub_of(request)
    old = await live_table(request, table_id)
    token = (authorization or "").removeprefix("Bearer ").strip()
    if not token:
        raise Refused(
            "token_required", "send your seat token as 'Authorization: Bearer <token>' (spectators cannot)", 401
        )
    try:
        seat = await hub.find_seat(old, token)
    except TableError:
        raise Refused("unauthorized", "this token holds no seat at this table", 403) from None
    name = old.players[seat].name or old.names()[seat]
    table, created = await rematches_of(request).rematch(old, name)
    new_token = _rematch_token(token, table.id)
    mine = hash_token(new_token)
    for i, p in enumerate(table.players):
        if p.token_hash == mine and p.kind == "human":
            return Rematched(table=table.id, seat=i, token=new_token, created=created)
    free = [i for i, p in enumerate(table.players) if p.kind == "open"]
    if not free:
        return Rematched(table=table.id, seat=None, token=None, created=created)
    want = seat if seat in free else free[0]
    # An account's seat stays the account's (a rated rematch seats accounts only), one seat per account.
    owner = (await asyncio.to_thread(accounts_of(request).seat_accounts, old.id)).get(seat)
    if owner is not None:
        await check_not_blocked(request, table.id, owner)
    try:
        got, new_token = await hub.join(
            table, name, want, token=new_token, account_id=None if owner is None else owner.id
        )
    except TableError as exc:
        if exc.code not in ("seat_taken", "table_full", "one_seat"):
            raise
        return Rematched(table=table.id, seat=None, token=None, created=created)
    return Rematched(table=table.id, seat=got, token=new_token, created=created)


@router.get("/api/tables/{table_id}/rematch", response_model=NextTable)
async def next_table(request: Request, table_id: str) -> NextTable:
    """The table that "Play again" made for this one, if any."""
    await live_table(request, table_id)
    return NextTable(table=await rematches_of(request).next_of(table_id))
