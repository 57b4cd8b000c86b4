"""Tournaments over HTTP: the list, one tournament (live standings, the current round's tables, each
player's results), creating one, entering, leaving and starting it; and their pages.

Any account may create a tournament (at most :data:`CREATE_PER_HOUR` an hour); the
server's operator creates them with ``catsack admin tournament create``. The rules
(seating, scoring, tie-breaks, withdrawals) are :mod:`catsack.server.tournaments.swiss`'s
and docs/tournaments.md's.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Annotated, Any, Self

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from catsack.server.people.accounts import DELETED_NAME, Account, users_t
from catsack.server.people.social import check_reputation
from catsack.server.routes.accounts import account_of, changing
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.tables.live import iso_time
from catsack.server.tables.seating import BOT_LEVELS, unknown_bot
from catsack.server.tables.turnbased import BANK_HOURS, DEFAULT_BANK_HOURS, MOVE_HOURS
from catsack.server.tournaments.arena import arena_standings
from catsack.server.tournaments.model import PACES, Entry, TableSlot, Tournament, TournamentError
from catsack.server.tournaments.runner import (
    advance,
    arena_clock,
    arena_ends,
    is_arena,
    start_now,
    table_results,
    tournaments_of,
    withdraw_entry,
)
from catsack.server.tournaments.swiss import RoundScore, score_round, standings
from catsack.server.validate import TABLE_ID_MAX, clean_text, is_table_id

__all__ = ["CREATE_PER_HOUR", "MAX_ENTRIES", "router"]

router = APIRouter()

#: Tournaments one account may create in an hour.
CREATE_PER_HOUR = 3
#: Entries (people and bots) one tournament takes.
MAX_ENTRIES = 200
NAME_MAX = 60
#: How far ahead a tournament's start may be set, in days.
START_DAYS_MAX = 30
#: A turn-based round's length, in hours (from its time per move to two weeks).
ROUND_HOURS_MAX = 14 * 24
#: The formats: Swiss rounds, or an arena (a time window of back-to-back games).
FORMATS = ("swiss", "arena")
#: An arena's window, in minutes.
ARENA_MINUTES = (10, 24 * 60)
#: How long someone waits in an arena's queue before bots fill their table (when the creator allows it), in seconds.
ARENA_BOTS_AFTER = (10, 600)


class CreateTournament(BaseModel):
    """A new Swiss tournament or arena (docs/tournaments.md)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., description=f"shown in the list (1 to {NAME_MAX} characters)")
    format: str = Field("swiss", description=f"{' or '.join(FORMATS)}")
    minutes: int = Field(
        60, ge=ARENA_MINUTES[0], le=ARENA_MINUTES[1], description="arena: how long its window is open, in minutes"
    )
    bots_after: int | None = Field(
        None,
        ge=ARENA_BOTS_AFTER[0],
        le=ARENA_BOTS_AFTER[1],
        description="arena: seconds someone waits before filler bots complete their table (none: never)",
    )
    seats: int = Field(4, ge=3, le=5, description="seats per table")
    rounds: int = Field(4, ge=1, le=12)
    pace: str = Field("realtime", description=f"how fast games go: {', '.join(PACES)}")
    turn_seconds: int = Field(60, ge=10, le=600, description="real-time: seconds per move before a bot moves")
    move_hours: int = Field(24, description=f"turn-based: hours per move ({', '.join(map(str, MOVE_HOURS))})")
    bank_hours: int = Field(
        DEFAULT_BANK_HOURS, description=f"turn-based: each player's time bank ({', '.join(map(str, BANK_HOURS))} h)"
    )
    round_hours: int = Field(
        72, ge=12, le=ROUND_HOURS_MAX, description="turn-based: how long a round lasts (its deadline), in hours"
    )
    rated: bool = Field(False, description="its games change ratings")
    duplicate: bool = Field(False, description="every table of a round plays the same deal")
    bots: list[str] = Field(default_factory=list, max_length=20, description="bot entries, by level")
    filler: str = Field("heuristic", description="the level of the bots that fill short tables")
    min_finished: float | None = Field(None, ge=0.0, le=1.0, description="least share of games finished to enter")
    starts_in_minutes: int | None = Field(None, ge=1, le=7 * 24 * 60, description="start by itself after this")
    starts_at: datetime | None = Field(
        None, description=f"start by itself at this time (ISO 8601 with its offset; within {START_DAYS_MAX} days)"
    )
    enter: bool = Field(True, description="the creator enters it")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return clean_text(v, field="the tournament's name", max_chars=NAME_MAX, min_chars=1)

    @field_validator("bots")
    @classmethod
    def _bots(cls, v: list[str]) -> list[str]:
        for level in v:
            if level not in BOT_LEVELS:
                raise ValueError(unknown_bot(level))
        return v

    @field_validator("filler")
    @classmethod
    def _filler(cls, v: str) -> str:
        if v not in BOT_LEVELS:
            raise ValueError(unknown_bot(v))
        return v

    @field_validator("format")
    @classmethod
    def _format(cls, v: str) -> str:
        if v not in FORMATS:
            raise ValueError(f"unknown format {v!r} (this server offers: {', '.join(FORMATS)})")
        return v

    @field_validator("pace")
    @classmethod
    def _pace(cls, v: str) -> str:
        if v not in PACES:
            raise ValueError(f"unknown pace {v!r} (this server offers: {', '.join(PACES)})")
        return v

    @field_validator("move_hours")
    @classmethod
    def _move_hours(cls, v: int) -> int:
        if v not in MOVE_HOURS:
            raise ValueError(f"a move takes {', '.join(map(str, MOVE_HOURS))} hours, not {v}")
        return v

    @field_validator("bank_hours")
    @classmethod
    def _bank_hours(cls, v: int) -> int:
        if v not in BANK_HOURS:
            raise ValueError(f"a time bank has {', '.join(map(str, BANK_HOURS))} hours, not {v}")
        return v

    @field_validator("starts_at")
    @classmethod
    def _starts_at(cls, v: datetime | None) -> datetime | None:
        if v is None:
            return v
        if v.tzinfo is None:
            raise ValueError("the start time needs its UTC offset (for example 2030-05-01T18:00:00+02:00)")
        ahead = v.timestamp() - time.time()
        if ahead <= 0:
            raise ValueError("the start time has passed")
        if ahead > START_DAYS_MAX * 86400:
            raise ValueError(f"the start is at most {START_DAYS_MAX} days ahead")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if self.starts_at is not None and self.starts_in_minutes is not None:
            raise ValueError("give the start as starts_at or as starts_in_minutes, not both")
        if self.pace == "turnbased" and self.round_hours < self.move_hours:
            raise ValueError("a round lasts at least one move's time")
        if self.format == "arena" and (self.pace != "realtime" or self.duplicate or self.bots):
            raise ValueError("an arena is played in real time, without duplicate deals or bot entries")
        return self


def _refuse(exc: TournamentError) -> Refused:
    return Refused(exc.code, exc.message, exc.status, params=exc.params)


def _table_line(hub: Any, number: int, table_id: str, players: list[Any], mine: bool) -> dict[str, Any]:
    """One table of a tournament page, its status read from the database (it may live in another process)."""
    row = hub.store.table(table_id)
    status = row.status if row is not None else "open"
    line = {"table": number, "game": table_id, "status": status, "watch": f"/t/{table_id}"}
    return {**line, "players": players, "mine": mine}


def _summary(t: Tournament, entries: int) -> dict[str, Any]:
    return {
        "id": t.id,
        "name": t.name,
        "status": t.status,
        "seats": t.seats,
        "rounds": t.rounds,
        "round": t.current_round,
        "entries": entries,
        "rated": bool(t.options.get("rated")),
        "duplicate": t.duplicate,
        "pace": t.options.get("pace", "realtime"),
        "format": t.options.get("format", "swiss"),
        "minutes": t.options.get("minutes"),
        "bots_after": t.options.get("bots_after"),
        "ends": iso_time(arena_ends(t)) if is_arena(t) else None,
        "turn_seconds": t.options.get("turn_seconds"),
        "move_hours": t.options.get("move_hours"),
        "bank_hours": t.options.get("bank_hours"),
        "round_hours": t.options.get("round_hours"),
        "filler": t.options.get("filler"),
        "min_finished": t.options.get("min_finished"),
        "operator": t.creator is None,
        "created": iso_time(t.created),
        "starts": iso_time(t.starts),
        "started": iso_time(t.started),
        "finished": iso_time(t.finished),
        "url": f"/tournaments/{t.id}",
    }


async def _tournament(request: Request, tid: str) -> Tournament:
    t = await asyncio.to_thread(tournaments_of(hub_of(request)).get, tid) if is_table_id(tid) else None
    if t is None:
        raise Refused("unknown_tournament", f"no tournament {tid[:TABLE_ID_MAX]!r}", 404)
    return t


@router.get("/api/tournaments")
async def list_tournaments(request: Request) -> dict[str, list[dict[str, Any]]]:
    """Upcoming, running and (the newest) finished tournaments."""
    store = tournaments_of(hub_of(request))

    def build() -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {"upcoming": [], "running": [], "finished": []}
        for t in store.listing():
            group = "finished" if t.status in ("finished", "cancelled") else t.status
            out[group].append(_summary(t, len(store.entries(t.id))))
        return out

    return await asyncio.to_thread(build)


@router.post("/api/tournaments", status_code=201)
async def create_tournament(
    request: Request, body: CreateTournament, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Create a tournament (logged-in accounts, a few an hour); the creator enters it unless ``enter`` is false."""
    store = tournaments_of(hub_of(request))
    made = await asyncio.to_thread(store.created_since, account.id, time.time() - 3600)
    if made >= CREATE_PER_HOUR:
        raise Refused(
            "too_many_tournaments",
            f"an account creates at most {CREATE_PER_HOUR} tournaments an hour",
            429,
            params={"n": CREATE_PER_HOUR},
            headers={"Retry-After": "600"},
        )
    options: dict[str, Any] = {
        "pace": body.pace,
        "turn_seconds": body.turn_seconds if body.pace == "realtime" else None,
        "rated": body.rated,
        "duplicate": body.duplicate,
        "filler": body.filler,
        "min_finished": body.min_finished,
    }
    if body.format == "arena":
        options.update(format="arena", minutes=body.minutes, bots_after=body.bots_after)
    if body.pace == "turnbased":
        options.update(move_hours=body.move_hours, bank_hours=body.bank_hours, round_hours=body.round_hours)
    starts = time.time() + 60 * body.starts_in_minutes if body.starts_in_minutes else None
    if body.starts_at is not None:
        starts = body.starts_at.timestamp()
    t = await asyncio.to_thread(
        store.create,
        body.name,
        body.seats,
        0 if body.format == "arena" else body.rounds,
        options,
        creator=account.id,
        starts=starts,
        bots=body.bots,
    )
    if body.enter:
        await _enter(request, t, account)
    return _summary(t, len(await asyncio.to_thread(store.entries, t.id)))


async def _enter(request: Request, t: Tournament, account: Account) -> int:
    hub = hub_of(request)
    minimum = t.options.get("min_finished")
    if minimum:
        await check_reputation(hub, account, float(minimum))
    try:
        now = arena_clock(hub).now() if is_arena(t) else None
        return await asyncio.to_thread(tournaments_of(hub).enter, t.id, account.id, account.name, MAX_ENTRIES, now)
    except TournamentError as exc:
        raise _refuse(exc) from None


@router.post("/api/tournaments/{tid}/enter")
async def enter(request: Request, tid: str, account: Annotated[Account, Depends(changing)]) -> dict[str, int]:
    """Enter an upcoming tournament, or an arena while its window is open (one entry per account; the
    tournament's reputation minimum applies)."""
    t = await _tournament(request, tid)
    entry = await _enter(request, t, account)
    if is_arena(t) and t.status == "running":  # a running arena seats its queue now
        await advance(hub_of(request), t.id)
    return {"entry": entry}


@router.post("/api/tournaments/{tid}/leave", status_code=204)
async def leave(request: Request, tid: str, account: Annotated[Account, Depends(changing)]) -> Response:
    """Leave: before the start the entry goes; afterwards the player is withdrawn and a bot plays
    their current seat out (it earns nothing)."""
    hub = hub_of(request)
    t = await _tournament(request, tid)
    store = tournaments_of(hub)
    entry = await asyncio.to_thread(store.entry_of, t.id, account.id)
    if entry is None:
        raise Refused("not_entered", "you have not entered this tournament", 404)
    if t.status == "upcoming":
        await asyncio.to_thread(store.leave, t.id, account.id)
    elif t.status == "running":
        await withdraw_entry(hub, t, entry)
    else:
        raise Refused("tournament_over", "the tournament is over", 409)
    return Response(status_code=204)


@router.post("/api/tournaments/{tid}/start", status_code=204)
async def start_tournament(request: Request, tid: str, account: Annotated[Account, Depends(changing)]) -> Response:
    """Start an upcoming tournament now (its creator only); fewer than two entries cancel it."""
    hub = hub_of(request)
    t = await _tournament(request, tid)
    if t.creator != account.id:
        raise Refused("not_creator", "only the tournament's creator can start it", 403)
    if t.status != "upcoming":
        raise Refused("not_upcoming", "the tournament has started already", 409)
    if not await start_now(hub, t):
        raise Refused("too_few_entries", "a tournament needs at least two entries: it was cancelled", 409)
    return Response(status_code=204)


def _account_names(engine: Any, ids: list[int]) -> dict[int, str]:
    """The current names of accounts that were not deleted."""
    from sqlalchemy import select

    if not ids:
        return {}
    with engine.connect() as conn:
        rows = conn.execute(
            select(users_t.c.id, users_t.c.name).where(users_t.c.id.in_(ids), users_t.c.deleted.is_(False))
        ).all()
    return {int(r.id): str(r.name) for r in rows}


@dataclasses.dataclass(frozen=True)
class _Entrants:
    """A tournament's entries as its page shows them, and the viewer's own entry (if any)."""

    t: Tournament
    entries: list[Entry]
    by_entry: dict[int, Entry]
    names: dict[int, str]
    mine: int | None

    def who(self, entry: int | None) -> dict[str, Any]:
        """The player of an entry: a person (by their account's current name), a bot entry or a filler bot."""
        if entry is None:
            return {"entry": None, "name": None, "kind": "filler", "bot": self.t.options.get("filler")}
        e = self.by_entry[entry]
        if e.bot:
            return {"entry": entry, "name": e.name, "kind": "bot", "bot": e.bot, "profile": None}
        # A deleted account's entry stays, under "deleted player" (as its games do).
        name = self.names.get(e.user_id) if e.user_id is not None else None
        return {
            "entry": entry,
            "name": name or DELETED_NAME,
            "kind": "human",
            "bot": None,
            "profile": f"/u/{name}" if name else None,
        }

    def mine_at(self, seating: list[int | None]) -> bool:
        """Whether the viewer sits at a table seated so."""
        return self.mine is not None and self.mine in seating


def _entrants(hub: Any, t: Tournament, viewer: Account | None) -> _Entrants:
    entries = tournaments_of(hub).entries(t.id)
    mine = None if viewer is None else next((e.entry for e in entries if e.user_id == viewer.id), None)
    names = _account_names(hub.store.engine, [e.user_id for e in entries if e.user_id is not None])
    return _Entrants(t, entries, {e.entry: e for e in entries}, names, mine)


def _ranked(table: Sequence[Any], width: int) -> Iterator[tuple[int, Any]]:
    """Each standing with its rank: standings equal on the first ``width`` parts of their key share one."""
    rank = 0
    for i, st in enumerate(table, start=1):
        if i == 1 or table[i - 2].key()[:width] != st.key()[:width]:
            rank = i
        yield rank, st


def _details_out(
    ent: _Entrants,
    viewer: Account | None,
    standing_rows: list[dict[str, Any]],
    tables: list[dict[str, Any]],
    *,
    provisional: bool,
    deadline: str | None,
) -> dict[str, Any]:
    """A tournament's details as both formats give them: its summary, entries, standings and tables."""
    t = ent.t
    return {
        **_summary(t, len(ent.entries)),
        "entries_list": [{**ent.who(e.entry), "withdrawn": e.withdrawn_round} for e in ent.entries],
        "standings": standing_rows,
        "provisional": provisional,
        "tables": tables,
        "deadline": deadline,
        "me": {"entry": ent.mine, "creator": viewer is not None and viewer.id == t.creator} if viewer else None,
    }


def _arena_details(request: Request, t: Tournament, viewer: Account | None) -> dict[str, Any]:
    """An arena: its settings, entries, live standings (every finished game counts at once, with its
    points and whether the streak doubled them), and the tables being played (watch links)."""
    hub = hub_of(request)
    store = tournaments_of(hub)
    ent = _entrants(hub, t, viewer)
    results = store.results(t.id)
    slots = {s.round: s for s in store.tables(t.id)}
    games = [g for scores in results.values() for g in scores]
    withdrawn = {e.entry for e in ent.entries if e.withdrawn is not None}
    table = arena_standings([e.entry for e in ent.entries], games, withdrawn)
    rows = [
        {
            **ent.who(st.entry),
            "rank": rank,
            "points": round(st.points, 4),
            "wins": round(st.wins, 4),
            "streak": st.streak,
            "score": sum(g.score for g, _ in st.games if not g.abandoned),
            "withdrawn": ent.by_entry[st.entry].withdrawn_round,
            "rounds": [
                {
                    "round": g.round,
                    "table": g.round,
                    "seat": g.seat,
                    "place": g.place,
                    "points": round(g.points, 4),
                    "doubled": doubled,
                    "score": g.score,
                    "abandoned": g.abandoned,
                    "game": slots[g.round].table_id if g.round in slots else None,
                }
                for g, doubled in st.games
            ],
        }
        for rank, st in _ranked(table, 2)
    ]
    playing = []
    for n, s in sorted(slots.items()):
        if n in results:
            continue
        line = _table_line(hub, n, s.table_id, [ent.who(e) for e in s.seating], ent.mine_at(s.seating))
        if line["status"] != "over":
            playing.append(line)
    return _details_out(ent, viewer, rows, playing, provisional=False, deadline=None)


def _swiss_rounds(hub: Any, t: Tournament, slots: list[TableSlot]) -> tuple[list[list[RoundScore]], bool]:
    """The scored rounds, and the current round's finished tables scored for now while it is played
    (``True``: provisional standings)."""
    results = tournaments_of(hub).results(t.id)
    rounds = [results[r] for r in sorted(results)]
    current = [s for s in slots if s.round == t.current_round and t.current_round not in results]
    if t.status == "running" and current and not t.duplicate:
        # Live: the current round's tables that are over already count (rank points; a duplicate round
        # is scored when all its tables are over).
        done = [(s.table_no, found) for s in current if (found := table_results(hub.store, s)) is not None]
        if done:
            partial = score_round([r for _, r in done], round_no=t.current_round)
            rounds.append([dataclasses.replace(x, table=done[x.table - 1][0]) for x in partial])
            return rounds, True
    return rounds, False


def _details(request: Request, t: Tournament, viewer: Account | None) -> dict[str, Any]:
    if is_arena(t):
        return _arena_details(request, t, viewer)
    hub = hub_of(request)
    ent = _entrants(hub, t, viewer)
    slots = tournaments_of(hub).tables(t.id)
    table_of = {(s.round, s.table_no): s for s in slots}
    rounds, provisional = _swiss_rounds(hub, t, slots)
    table = standings([e.entry for e in ent.entries], rounds, {e.entry for e in ent.entries if e.withdrawn is not None})
    standing_rows = [
        {
            **ent.who(st.entry),
            "rank": rank,
            "points": round(st.points, 4),
            "wins": round(st.wins, 4),
            "score": st.score,
            "withdrawn": ent.by_entry[st.entry].withdrawn_round,
            "rounds": [
                {
                    "round": s.round,
                    "table": s.table,
                    "seat": s.seat,
                    "place": s.place,
                    "points": round(s.points, 4),
                    "score": s.score,
                    "abandoned": s.abandoned,
                    "game": table_of[(s.round, s.table)].table_id if (s.round, s.table) in table_of else None,
                }
                for s in st.rounds
            ],
        }
        for rank, st in _ranked(table, 4)
    ]
    current = [s for s in slots if s.round == t.current_round]
    deadline = next((s.deadline for s in current if s.deadline is not None), None)
    round_tables = [
        _table_line(hub, s.table_no, s.table_id, [ent.who(e) for e in s.seating], ent.mine_at(s.seating))
        for s in current
    ]
    return _details_out(
        ent,
        viewer,
        standing_rows,
        round_tables,
        provisional=provisional,
        deadline=iso_time(deadline) if t.status == "running" else None,
    )


@router.get("/api/tournaments/{tid}")
async def tournament(request: Request, tid: str) -> dict[str, Any]:
    """One tournament: its settings, entries, live standings with each player's results by round, and
    the current round's tables (watch links)."""
    t = await _tournament(request, tid)
    viewer = await account_of(request)
    return await asyncio.to_thread(_details, request, t, viewer)


@router.get("/tournaments", include_in_schema=False)
async def tournaments_page() -> Response:
    return page("tournaments.html")


@router.get("/tournaments/{tid}", include_in_schema=False)
async def tournament_page(tid: str) -> Response:
    return page("tournament.html")
