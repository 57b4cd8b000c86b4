"""Seat changes a person asks for: an account taking its seat over on another device, the table's
host handing an idle player's seat to a bot before the grace period ends, and the host filling a
waiting table's open seats with bots."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from catsack.server.people.accounts import Account
from catsack.server.people.social import hand_seat_to_bot, take_over
from catsack.server.routes.accounts import accounts_of, changing
from catsack.server.routes.deps import bearer_token, hub_of, live_table
from catsack.server.routes.tables import Joined
from catsack.server.tables.live import TableError
from catsack.server.tables.seating import BOT_LEVELS

__all__ = ["router"]

router = APIRouter()


@router.post("/api/tables/{table_id}/takeover", response_model=Joined)
async def takeover(request: Request, table_id: str, account: Annotated[Account, Depends(changing)]) -> Joined:
    """The logged-in account's seat at this table, with a new token for this device; the token the
    other device holds stops working (its connection turns into a spectator's)."""
    table = await live_table(request, table_id)
    seat = await asyncio.to_thread(accounts_of(request).seat_of, account, table.id)
    if seat is None:
        raise TableError("no_seat", "your account holds no seat at this table", 404)
    token = await take_over(hub_of(request), table, seat)
    return Joined(table=table.id, seat=seat, token=token)


@router.post("/api/tables/{table_id}/seats/{seat}/bot", status_code=204)
async def seat_to_bot(
    request: Request,
    table_id: str,
    seat: int,
    authorization: Annotated[str | None, Header(description="Bearer <the host's seat token>")] = None,
) -> None:
    """The host (the player who created the table) hands an idle (disconnected) player's seat to a
    bot now, instead of waiting for the grace period."""
    table = await live_table(request, table_id)
    hub = hub_of(request)
    token = bearer_token(authorization)
    host = table.options.get("host_seat")
    if not token or host is None or await hub.find_seat(table, token) != host:
        raise TableError("not_host", "only the table's host can hand a seat to a bot", 403)
    await hand_seat_to_bot(hub, table, seat)


class FillSeats(BaseModel):
    """Which bots take the open seats."""

    model_config = ConfigDict(extra="forbid")

    level: str = Field("expert:normal", description=f"bot level for every open seat: {', '.join(BOT_LEVELS)}")


class Filled(BaseModel):
    seats: list[int] = Field(description="the seats the bots took (0-based, as in the API)")


@router.post("/api/tables/{table_id}/bots", response_model=Filled)
async def fill_with_bots(
    request: Request,
    table_id: str,
    body: FillSeats,
    authorization: Annotated[str | None, Header(description="Bearer <the host's seat token>")] = None,
) -> Filled:
    """The host gives every open seat of its waiting table to bots, and the game starts: nobody has to
    wait for people who may never come."""
    table = await live_table(request, table_id)
    hub = hub_of(request)
    token = bearer_token(authorization)
    host = table.options.get("host_seat")
    if not token or host is None or await hub.find_seat(table, token) != host:
        raise TableError("not_host", "only the table's host can give its open seats to bots", 403)
    return Filled(seats=await hub.seat_bots(table, body.level))
