"""My games: every game of the logged-in account with whose turn it is and the time left (yours
first), its challenges, and the small summary behind the badge on every page; the badge and the page
hear of changes at once through ``GET /api/mygames/events`` (:mod:`catsack.server.people.gamesfeed`).

Games are read from the database (``tables.to_move``, ``tables.deadline``), never loaded: a
player with thirty turn-based games does not bring thirty games into memory by looking at the
list. A game a process has in memory is shown from there (it is the newer). Only public facts are
shown (whose turn, names, times): nothing R23 hides.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response, StreamingResponse
from sqlalchemy import Engine, Row, or_, select
from starlette.background import BackgroundTask

from catsack.server.limits import scope_address
from catsack.server.people.accounts import Account, seat_users_t
from catsack.server.people.friends import Friends
from catsack.server.people.gamesfeed import GamesFeed
from catsack.server.routes.accounts import account_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.storage.store import SeatRow, seats_t, tables_t
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import finished_by_bot, iso_time, seat_names
from catsack.server.tables.turnbased import clock_of

__all__ = ["GameLine", "feed_of", "friends_of", "games_of", "router"]

router = APIRouter()

#: Finished games stay on the list this long.
RECENT_DAYS = 3.0
#: Most games listed.
MAX_GAMES = 200

#: A row of the account's tables query (its columns, with the account's seat).
TableRow = Row[*tuple[Any, ...]]


def friends_of(request: Request) -> Friends:
    found: Friends | None = getattr(request.app.state, "friends", None)
    if found is None:
        found = request.app.state.friends = Friends(hub_of(request).store.engine)
    return found


def feed_of(request: Request) -> GamesFeed:
    found: GamesFeed = request.app.state.games_feed
    return found


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game on an account's list."""

    table: str
    name: str
    status: str  # open | playing | over
    seat: int
    to_move: int | None
    deadline: float | None
    turn_based: dict[str, int] | None
    players: list[str]
    kinds: list[str]
    created: float
    finished: float | None
    #: The seats a bot finished for their person (the names stay the people's).
    left: list[int] = field(default_factory=list)
    #: Until when the player to move is on vacation (their clock stands still), if they are.
    away_until: float | None = None

    @property
    def your_turn(self) -> bool:
        return self.status == "playing" and self.to_move == self.seat and self.kinds[self.seat] == "human"

    def public(self, now: float) -> dict[str, Any]:
        mover = self.to_move if self.status == "playing" else None
        return {
            "table": self.table,
            "name": self.name,
            "status": self.status,
            "seat": self.seat,
            "your_turn": self.your_turn,
            "replaced": self.kinds[self.seat] == "bot",
            "to_move": mover,
            "to_move_name": None if mover is None else self.players[mover],
            "deadline": iso_time(self.deadline) if mover is not None else None,
            "seconds_left": None if mover is None or self.deadline is None else max(0, round(self.deadline - now)),
            "turn_based": self.turn_based,
            "players": self.players,
            "finished_by_bot": self.left,
            "finished": iso_time(self.finished),
            "away_until": iso_time(self.away_until) if mover is not None else None,
        }


def _sort_key(g: GameLine) -> tuple[int, float, float]:
    rank = 0 if g.your_turn else 1 if g.status == "playing" else 2 if g.status == "open" else 3
    return (rank, g.deadline if g.deadline is not None else float("inf"), -g.created)


def games_of(hub: Hub, user_id: int, now: float | None = None) -> list[GameLine]:
    """The account's games in play, waiting and recently finished, yours-to-move first (soonest
    deadline first), then the others. Synchronous (reads the database; run it in a thread)."""
    now = time.time() if now is None else now
    rows, seats = _my_rows(hub.store.engine, user_id, now)
    out = [line for r in rows if (line := _line(hub, r, seats[r.id], now)) is not None]
    out.sort(key=_sort_key)
    return out


def _my_rows(engine: Engine, user_id: int, now: float) -> tuple[Sequence[TableRow], dict[str, list[SeatRow]]]:
    """The account's tables (with its seat), newest first, and every seat of each."""
    mine = (
        select(
            tables_t.c.id,
            tables_t.c.name,
            tables_t.c.status,
            tables_t.c.version,
            tables_t.c.to_move,
            tables_t.c.deadline,
            tables_t.c.options,
            tables_t.c.setup,
            tables_t.c.created,
            tables_t.c.finished,
            tables_t.c.clock,
            seat_users_t.c.seat,
        )
        .select_from(seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id))
        .where(
            seat_users_t.c.user_id == user_id,
            or_(
                tables_t.c.status.in_(("open", "playing")),
                (tables_t.c.status == "over") & (tables_t.c.finished > now - RECENT_DAYS * 86400),
            ),
        )
        .order_by(tables_t.c.created.desc())
        .limit(MAX_GAMES)
    )
    with engine.connect() as conn:
        rows = list(conn.execute(mine).all())
        ids = [r.id for r in rows]
        seats: dict[str, list[SeatRow]] = {i: [] for i in ids}
        for i in range(0, len(ids), 500):
            for s in conn.execute(
                select(seats_t).where(seats_t.c.table_id.in_(ids[i : i + 500])).order_by(seats_t.c.seat)
            ):
                seats[s.table_id].append(SeatRow(s.seat, s.kind, s.name, s.bot, s.token_hash, bool(s.replaced)))
    return rows, seats


def _line(hub: Hub, r: TableRow, seats: list[SeatRow], now: float) -> GameLine | None:
    """One table's line, from this process's memory if it holds the table, else from its row and seats;
    ``None`` if the account's seat is not among the table's seats."""
    live = hub.tables.get(r.id)
    options = json.loads(r.options)
    if live is not None:  # in memory here: newer than the database may be on another process's table
        status, to_move, deadline, clock = live.status, live.game.to_move, live.row.deadline, live.clock
        players, kinds, left = live.names(), [p.kind for p in live.players], finished_by_bot(live.players)
    else:
        status, to_move, deadline, clock = r.status, r.to_move, r.deadline, clock_of(r.clock)
        if to_move is None and r.version == 0:
            to_move = int(json.loads(r.setup)["start"])  # R7: who starts is public
        players, kinds = seat_names(seats), [s.kind for s in seats]
        left = finished_by_bot(seats)
    if len(kinds) <= r.seat:
        return None
    return GameLine(
        r.id,
        r.name,
        status,
        int(r.seat),
        to_move,
        deadline,
        options.get("turn_based"),
        players,
        kinds,
        r.created,
        r.finished,
        left,
        None if clock is None or to_move is None else clock.on_vacation(to_move, now),
    )


async def _account(request: Request) -> Account | None:
    account = await account_of(request)
    if account is not None:
        await asyncio.to_thread(friends_of(request).saw, account.id)
    return account


@router.get("/api/mygames")
async def my_games(request: Request) -> dict[str, Any]:
    """The logged-in account's games (yours to move first) and challenges; a guest gets
    ``{"account": null}`` (no error, so a guest's page logs nothing)."""
    account = await _account(request)
    if account is None:
        return {"account": None, "games": [], "challenges": [], "your_turn": 0, "invitations": 0}
    hub = hub_of(request)
    games = await asyncio.to_thread(games_of, hub, account.id)
    challenges = await asyncio.to_thread(friends_of(request).open_challenges, account.id)
    now = time.time()
    listed = [c.public(account.id) for c in challenges]
    return {
        "account": account.name,
        "games": [g.public(now) for g in games],
        "challenges": listed,
        "your_turn": sum(1 for g in games if g.your_turn),
        "invitations": sum(1 for c in listed if c["status"] == "pending" and not c["mine"] and c["answer"] is None),
    }


@router.get("/api/mygames/summary")
async def summary(request: Request) -> dict[str, Any]:
    """What the badge on every page shows: how many games wait for your move, how many challenges for
    your answer, and which turn-based games wait for you (a tab notifies when one is added)."""
    account = await _account(request)
    if account is None:
        return {"account": None, "your_turn": 0, "invitations": 0, "turn_based": []}
    hub = hub_of(request)
    games = await asyncio.to_thread(games_of, hub, account.id)
    invitations = await asyncio.to_thread(friends_of(request).waiting_for, account.id)
    waiting = [g for g in games if g.your_turn]
    return {
        "account": account.name,
        "your_turn": len(waiting),
        "invitations": invitations,
        "turn_based": [{"table": g.table, "name": g.name} for g in waiting if g.turn_based],
    }


@router.get(
    "/api/mygames/events",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}, 204: {"description": "a guest: nothing to follow"}},
)
async def events(request: Request) -> Response:
    """Server-sent events for the logged-in account: ``ready`` at once, then ``changed`` whenever one
    of its games or challenges changed (no data: ask ``/api/mygames`` again). A guest gets 204, which
    tells a browser's ``EventSource`` not to try again; too many open streams get 429 (the page then
    polls)."""
    account = await account_of(request)
    if account is None:
        return Response(status_code=204)
    feed = feed_of(request)
    if feed.closing:
        raise Refused("unavailable", "the server is stopping; try again in a moment", 503)
    stream = feed.open(account.id, scope_address(request.scope, hub_of(request).settings.proxy_networks()))
    if stream is None:
        raise Refused(
            "rate_limited",
            "too many live My games streams for this account or address; the page asks now and then instead",
            429,
            params={"seconds": 60},
            headers={"Retry-After": "60"},
        )
    return StreamingResponse(
        feed.events(stream),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},  # nginx: pass each event on at once
        background=BackgroundTask(feed.close, stream),
    )


@router.get("/games", include_in_schema=False)
async def games_page() -> Response:
    return page("mygames.html")
