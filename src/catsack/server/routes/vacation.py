"""Vacations over HTTP: the account's allowance and running vacation, and starting or ending one
(catsack.server.people.vacation). Changes are cookie-authenticated POSTs checked for their origin (CSRF),
as every account change is."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict

from catsack.server.people.accounts import Account
from catsack.server.people.vacation import Vacations, refresh_tables
from catsack.server.routes.accounts import changing, logged_in
from catsack.server.routes.deps import hub_of

__all__ = ["router", "vacations_of"]

router = APIRouter()


def vacations_of(request: Request) -> Vacations:
    found: Vacations | None = getattr(request.app.state, "vacations", None)
    if found is None:
        hub = hub_of(request)
        found = request.app.state.vacations = Vacations(hub.store.engine, hub.settings.vacation_days_per_year)
    return found


class StartBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    days: int


@router.get("/api/vacation")
async def mine(request: Request, account: Annotated[Account, Depends(logged_in)]) -> dict[str, Any]:
    """The account's vacation days a year, used and left this year, and the running vacation (``until``)."""
    return await asyncio.to_thread(vacations_of(request).status, account.id)


@router.post("/api/vacation/start")
async def start(request: Request, body: StartBody, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Go on vacation for ``days`` days from now: the account's turn-based clocks stand still."""
    box = vacations_of(request)
    changed = await asyncio.to_thread(box.start, account.id, body.days)
    await refresh_tables(hub_of(request), changed)
    return await asyncio.to_thread(box.status, account.id)


@router.post("/api/vacation/end")
async def end(request: Request, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Come back now: the clocks run again, and only the days taken count."""
    box = vacations_of(request)
    changed = await asyncio.to_thread(box.end, account.id)
    await refresh_tables(hub_of(request), changed)
    return await asyncio.to_thread(box.status, account.id)
