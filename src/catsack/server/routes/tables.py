"""The HTTP API under ``/api/tables``: create, list, join, state snapshots and records."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from catsack.record import dumps_record
from catsack.server.hub import BOT_LEVELS, iso_time, seat_names
from catsack.server.routes.deps import hub_of, live_table, record_response

__all__ = ["CreateTable", "JoinTable", "Joined", "PlayerOut", "TableOut", "router"]

router = APIRouter()


class CreateTable(BaseModel):
    """A new table: seat count, which seats bots fill (seat number -> level), options."""

    model_config = ConfigDict(extra="forbid")

    seats: int = Field(4, ge=3, le=5, description="3 to 5 seats")
    bots: dict[int, str] = Field(default_factory=dict, description=f"seat -> bot level: {', '.join(BOT_LEVELS)}")
    money_visible: bool = Field(False, description="R24 option: everybody's money is public")
    turn_seconds: int | None = Field(None, ge=10, le=3600, description="turn timer; a bot moves when it runs out")
    hints: bool = Field(False, description="players may ask for the strong bot's suggestion")
    name: str = Field("", max_length=40, description="table name shown in the lobby")

    @field_validator("bots")
    @classmethod
    def _levels(cls, v: dict[int, str]) -> dict[int, str]:
        for seat, level in v.items():
            if level not in BOT_LEVELS:
                raise ValueError(f"seat {seat}: unknown bot level {level!r} (choose from {', '.join(BOT_LEVELS)})")
        return v


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=24, description="the name others see")
    seat: int | None = Field(None, ge=0, le=4, description="a particular open seat; the first open one if omitted")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v or any(not ch.isprintable() for ch in v):
            raise ValueError("a name must be printable text")
        return v


class Joined(BaseModel):
    table: str
    seat: int
    token: str = Field(description="secret seat token: keep it; it is the only way back to this seat")


class PlayerOut(BaseModel):
    seat: int
    name: str | None
    kind: str
    status: str
    replaced: bool


class TableOut(BaseModel):
    table: str
    name: str
    seats: int
    status: str
    version: int
    money_visible: bool
    turn_seconds: int | None
    hints: bool
    created: str | None
    finished: str | None
    players: list[PlayerOut]
    invite: str


def _table_out(t: dict[str, Any]) -> TableOut:
    return TableOut(invite=f"/t/{t['table']}", **t)


@router.post("/api/tables", status_code=201, response_model=TableOut)
async def create_table(request: Request, body: CreateTable) -> TableOut:
    """Create a table; seats not given a bot wait for people to join."""
    table = await hub_of(request).create(
        body.seats,
        body.bots,
        name=body.name.strip() or "Table",
        money_visible=body.money_visible,
        turn_seconds=body.turn_seconds,
        hints=body.hints,
    )
    return _table_out(table.public())


@router.get("/api/tables", response_model=list[TableOut])
async def open_tables(request: Request) -> list[TableOut]:
    """Tables with an empty seat, newest first."""
    h = hub_of(request)
    rows = await asyncio.to_thread(h.store.list_tables, "open", 100)
    out = []
    for row, _seats in rows:
        table = await h.get(row.id)
        if table is not None and table.status == "open":
            out.append(_table_out(table.public()))
    return out


@router.get("/api/tables/finished", response_model=list[TableOut])
async def finished_tables(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[TableOut]:
    """Finished games, newest first; their records can be downloaded."""
    h = hub_of(request)
    rows = await asyncio.to_thread(h.store.list_tables, "over", limit)
    out = []
    for row, seats in rows:
        names = seat_names(seats)
        players = [
            PlayerOut(
                seat=s.seat,
                name=None if s.kind == "open" else names[s.seat],
                kind=s.kind,
                status="bot" if s.kind == "bot" else "away",
                replaced=s.replaced,
            )
            for s in seats
        ]
        out.append(
            TableOut(
                table=row.id,
                name=row.name,
                seats=row.seats,
                status=row.status,
                version=row.version,
                money_visible=bool(row.options.get("money_visible")),
                turn_seconds=row.options.get("turn_seconds"),
                hints=bool(row.options.get("hints")),
                created=iso_time(row.created),
                finished=iso_time(row.finished),
                players=players,
                invite=f"/t/{row.id}",
            )
        )
    return out


@router.get("/api/tables/{table_id}", response_model=TableOut)
async def get_table(request: Request, table_id: str) -> TableOut:
    return _table_out((await live_table(request, table_id)).public())


@router.post("/api/tables/{table_id}/join", response_model=Joined)
async def join_table(request: Request, table_id: str, body: JoinTable) -> Joined:
    """Take a seat. The answer's token is the seat's secret: keep it."""
    table = await live_table(request, table_id)
    seat, token = await hub_of(request).join(table, body.name, body.seat)
    return Joined(table=table.id, seat=seat, token=token)


@router.get("/api/tables/{table_id}/state")
async def table_state(
    request: Request,
    table_id: str,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>; omit to spectate")] = None,
) -> Response:
    """A snapshot ``state`` frame, as the WebSocket sends it: the seat's view with its token,
    the public (spectator) view without one."""
    table = await live_table(request, table_id)
    token = (authorization or "").removeprefix("Bearer ").strip()
    seat = hub_of(request).seat_for_token(table, token) if token else None
    return Response(table.state_text(seat, None), media_type="application/json")


@router.get("/api/tables/{table_id}/record", responses={200: {"content": {"application/json": {}}}})
async def full_record(request: Request, table_id: str) -> Response:
    """The full catsack/1 record, once the game is over."""
    table = await live_table(request, table_id)
    if not table.game.is_over:
        raise HTTPException(409, "the game is not over: only a seat's redacted record can be downloaded")
    return record_response(dumps_record(table.record()), f"catsack-{table.id}.json")


@router.get("/api/tables/{table_id}/record/{seat}", responses={200: {"content": {"application/json": {}}}})
async def seat_record(
    request: Request,
    table_id: str,
    seat: int,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>")] = None,
) -> Response:
    """That seat's record with everything R23 hides from it removed; needs the seat's token."""
    table = await live_table(request, table_id)
    token = (authorization or "").removeprefix("Bearer ").strip()
    if not token:
        raise HTTPException(401, "send the seat token as 'Authorization: Bearer <token>'")
    held = hub_of(request).seat_for_token(table, token)
    if held != seat:
        raise HTTPException(403, f"this token does not hold seat {seat}")
    return record_response(dumps_record(table.record(seat)), f"catsack-{table.id}-seat{seat}.json")
