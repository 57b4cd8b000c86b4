"""The HTTP API under ``/api/tables``: create, list, join, state snapshots and records."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from catsack.record import dumps_record
from catsack.server.people.gameaccess import game_access
from catsack.server.routes.access import expensive_read, table_access
from catsack.server.routes.accounts import account_of, join_as, seat_ratings
from catsack.server.routes.deps import Refused, bearer_token, hub_of, live_table, record_response
from catsack.server.tables.live import LiveTable, TableError, iso_time, seat_names, shown_kind
from catsack.server.tables.lobby import open_table_ids
from catsack.server.tables.seating import BOT_LEVELS, SEATABLE_BOTS, unknown_bot
from catsack.server.tables.turnbased import BANK_HOURS, DEFAULT_BANK_HOURS, MOVE_HOURS, TurnBased
from catsack.server.validate import NAME_MAX, TABLE_NAME_MAX, InputProblem, clean_text

__all__ = ["CreateTable", "CreatedTable", "JoinTable", "Joined", "PlayerOut", "TableOut", "router"]

router = APIRouter()


class TurnBasedOption(BaseModel):
    """A turn-based time control: hours per move and a time bank per player (docs/rules.md, "Playing online")."""

    model_config = ConfigDict(extra="forbid")

    move_hours: int = Field(..., description=f"hours per move: one of {', '.join(map(str, MOVE_HOURS))}")
    bank_hours: int = Field(
        DEFAULT_BANK_HOURS, description=f"each player's time bank in hours: one of {', '.join(map(str, BANK_HOURS))}"
    )

    def control(self) -> TurnBased:
        return TurnBased(self.move_hours, self.bank_hours)

    @model_validator(mode="after")
    def _choices(self) -> TurnBasedOption:
        self.control()  # ClockError is a ValueError: answered 422 naming the field
        return self


class CreateTable(BaseModel):
    """A new table: seat count, which seats bots fill (seat number -> level), options."""

    model_config = ConfigDict(extra="forbid")

    seats: int = Field(4, ge=3, le=5, description="3 to 5 seats")
    bots: dict[int, str] = Field(default_factory=dict, description=f"seat -> bot level: {', '.join(BOT_LEVELS)}")
    money_visible: bool = Field(False, description="R24 option: everybody's money is public")
    turn_seconds: int | None = Field(None, ge=10, le=3600, description="turn timer; a bot moves when it runs out")
    turn_based: TurnBasedOption | None = Field(
        None, description="a turn-based table (hours per move and a time bank) instead of a real-time one"
    )
    hints: bool = Field(False, description="players may ask for the strong bot's suggestion")
    name: str = Field("", description=f"table name shown in the lobby (at most {TABLE_NAME_MAX} characters)")
    rated: bool = Field(False, description="a rated game: only accounts and bots may sit; ratings change at the end")
    private: bool = Field(False, description="not listed in the lobby: reachable by its invite link only")
    min_finished: float | None = Field(
        None, ge=0.0, le=1.0, description="seat only accounts that finished at least this share of their games"
    )
    player: str | None = Field(
        None,
        description=f"the creator's name (at most {NAME_MAX} characters): the creator takes the first open seat, "
        "and the answer carries its token; a refused name creates nothing",
    )

    @field_validator("name")
    @classmethod
    def _table_name(cls, v: str) -> str:
        return clean_text(v, field="the table name", max_chars=TABLE_NAME_MAX)

    @field_validator("player")
    @classmethod
    def _player(cls, v: str | None) -> str | None:
        return None if v is None else clean_text(v, field="a name", max_chars=NAME_MAX, min_chars=1)

    @field_validator("bots")
    @classmethod
    def _levels(cls, v: dict[int, str]) -> dict[int, str]:
        for seat, level in v.items():
            if level not in SEATABLE_BOTS:
                raise InputProblem(
                    f"seat {seat}: {unknown_bot(level)}",
                    "unknown_bot",
                    n=seat + 1,
                )
        return v


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., description=f"the name others see (1 to {NAME_MAX} printable characters)")
    seat: int | None = Field(None, ge=0, le=4, description="a particular open seat; the first open one if omitted")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        # The lobby's input has the same maxlength; NUL and other control
        # characters never reach the database.
        return clean_text(v, field="a name", max_chars=NAME_MAX, min_chars=1)


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
    #: A person without an account (pages mark guests as such).
    guest: bool = False
    #: A bot account's seat (a program playing over the bot API; its kind is ``bot``).
    bot_account: bool = False


class TableOut(BaseModel):
    table: str
    name: str
    seats: int
    status: str
    version: int
    money_visible: bool
    turn_seconds: int | None
    hints: bool
    #: A turn-based table's time control (``move_hours``, ``bank_hours``); ``None`` for a real-time table.
    turn_based: dict[str, int] | None = None
    created: str | None
    finished: str | None
    players: list[PlayerOut]
    invite: str
    rated: bool = False
    private: bool = False
    #: The seat of the person who created the table (its host), if one sat down on creating it.
    host_seat: int | None = None
    #: The tournament this table's game belongs to (its page: ``/tournaments/{id}``).
    tournament: str | None = None
    #: Each seat's displayed rating (accounts only; in the lobby's list of open tables).
    ratings: list[int | None] | None = None


class CreatedTable(TableOut):
    """A new table; with ``player`` given, also the creator's seat and its secret token."""

    seat: int | None = None
    token: str | None = None


def _table_out(t: dict[str, Any]) -> TableOut:
    return TableOut(invite=f"/t/{t['table']}", **t)


@router.post("/api/tables", status_code=201, response_model=CreatedTable)
async def create_table(request: Request, body: CreateTable) -> CreatedTable:
    """Create a table; seats not given a bot wait for people to join. With ``player``, the creator
    sits down at once (one request, so a refused name or a failed join leaves no table behind)."""
    hub = hub_of(request)
    if body.player is not None and len(body.bots) >= body.seats:
        raise TableError("bad_request", "every seat has a bot: there is no seat for 'player'", 422)
    account = await account_of(request)
    if body.rated and body.player is not None and account is None:
        raise TableError("account_required", "rated tables are for accounts and bots: log in to create one", 403)
    extra: dict[str, Any] = {"rated": body.rated, "private": body.private}
    if body.min_finished:
        extra["min_finished"] = body.min_finished
    if body.player is not None:
        extra["host_seat"] = next(i for i in range(body.seats) if i not in body.bots)
    table = await hub.create(
        body.seats,
        body.bots,
        name=body.name or "Table",
        money_visible=body.money_visible,
        turn_seconds=body.turn_seconds,
        hints=body.hints,
        extra_options=extra,
        turn_based=None if body.turn_based is None else body.turn_based.control(),
    )
    seat = token = None
    if body.player is not None:
        try:
            seat, token = await join_as(request, table, body.player, None, account)
        except Exception:  # nobody can sit at it: it must not stay in the lobby
            await asyncio.to_thread(hub.store.set_status, table.id, "abandoned")
            hub.evict(table)
            raise
    out = table.public()
    return CreatedTable(invite=f"/t/{out['table']}", seat=seat, token=token, **out)


@router.get("/api/tables", response_model=list[TableOut])
async def open_tables(request: Request) -> list[TableOut]:
    """Tables with an empty seat: those with somebody waiting first, newest first within each group."""
    h = hub_of(request)
    ids = await asyncio.to_thread(open_table_ids, h.store, 100)
    out = []
    for table_id in ids:
        table = await h.get(table_id)
        if table is not None and table.status == "open" and not table.options.get("private"):
            ratings = await seat_ratings(request, table.id, table.row.seats)
            out.append(_table_out({**table.public(), "ratings": ratings}))
    return out


@router.get("/api/tables/finished", response_model=list[TableOut])
async def finished_tables(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[TableOut]:
    """Finished games, newest first; their records can be downloaded."""
    h = hub_of(request)
    rows = await asyncio.to_thread(h.store.list_tables, "over", limit)
    out = []
    for row, seats in rows:
        if row.options.get("private"):
            continue
        if (await game_access(h, status=row.status, options=row.options, seats=seats)).watch is not None:
            continue  # a duplicate round still played elsewhere
        names = seat_names(seats)
        players = [
            PlayerOut(
                seat=s.seat,
                name=None if s.kind == "open" else names[s.seat],
                kind=shown_kind(s),
                status="bot" if s.kind == "bot" else "away",
                replaced=s.replaced,
                guest=s.kind == "human" and s.user_id is None,
                bot_account=s.bot_account,
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
                turn_based=row.options.get("turn_based"),
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
    """The table as its page shows it (not a duplicate round's table still under embargo, but to its players)."""
    table = await live_table(request, table_id)
    await _watchable(request, table, None)
    return _table_out(table.public())


@router.post("/api/tables/{table_id}/join", response_model=Joined)
async def join_table(request: Request, table_id: str, body: JoinTable) -> Joined:
    """Take a seat. The answer's token is the seat's secret: keep it."""
    table = await live_table(request, table_id)
    seat, token = await join_as(request, table, body.name, body.seat, await account_of(request))
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
    token = bearer_token(authorization)
    seat = await hub_of(request).find_seat(table, token) if token else None
    if seat is None:
        await _watchable(request, table, None)
    return Response(table.state_text(seat, None), media_type="application/json")


async def _watchable(request: Request, table: LiveTable, seat: int | None) -> None:
    """Refuse a look at what a spectator sees where the game is closed to this request (an embargoed round)."""
    access = await table_access(request, status=table.status, options=table.options, seats=table.players, seat=seat)
    access.need_watch()


@router.get(
    "/api/tables/{table_id}/record",
    responses={200: {"content": {"application/json": {}}}},
    dependencies=[Depends(expensive_read)],
)
async def full_record(
    request: Request,
    table_id: str,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>: a private game's player")] = None,
) -> Response:
    """The full catsack/1 record, once the game is over (a private game's only to its players)."""
    table = await live_table(request, table_id)
    if not table.game.is_over:
        raise Refused("not_over", "the game is not over: only a seat's redacted record can be downloaded", 409)
    access = await table_access(
        request, status=table.status, options=table.options, seats=table.players, token=bearer_token(authorization)
    )
    access.need_whole()
    return record_response(dumps_record(table.record()), f"catsack-{table.id}.json")


@router.get(
    "/api/tables/{table_id}/record/{seat}",
    responses={200: {"content": {"application/json": {}}}},
    dependencies=[Depends(expensive_read)],
)
async def seat_record(
    request: Request,
    table_id: str,
    seat: int,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>")] = None,
) -> Response:
    """That seat's record with everything R23 hides from it removed; needs the seat's token."""
    table = await live_table(request, table_id)
    token = bearer_token(authorization)
    if not token:
        raise Refused("token_required", "send the seat token as 'Authorization: Bearer <token>'", 401)
    held = await hub_of(request).find_seat(table, token)
    if held != seat:
        raise Refused("unauthorized", f"this token does not hold seat {seat}", 403)
    return record_response(dumps_record(table.record(seat)), f"catsack-{table.id}-seat{seat}.json")
