"""Players: profiles (``/u/{name}``), the leaderboard and quick play.

A profile shows an account's rating and its history (rated games), and over
all its finished games: games played, wins (a shared victory counts 1/k,
R22), average score and margin (score minus the table's average), and the
recent games with links to their replay. Bot levels have a rating too
(``/api/leaderboard`` lists them beside the people).

A private game is listed (and its table named in the rating history) only to
its own players: the account itself, or a logged-in viewer who sat at it; it
still counts in the figures, which name no game. A game of a duplicate
tournament round that is still played at other tables is neither listed nor
counted until the round is scored (:mod:`catsack.server.people.gameaccess`).
A finished game's scores never change, so they are computed once per game and
kept (:class:`FinishedScores`); a profile costs a few reads, not one replay per
game, and profiles and the leaderboard are expensive reads, budgeted per
address.
"""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from typing import Annotated, Any

from cachetools import LRUCache
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select

from catsack.game import Game
from catsack.server.people.accounts import Account, Accounts, seat_users_t
from catsack.server.people.botaccounts import BotAccounts
from catsack.server.people.gameaccess import decide, embargo_open
from catsack.server.people.ratings import Ratings
from catsack.server.people.reputation import reputation
from catsack.server.routes.access import expensive_read
from catsack.server.routes.accounts import account_of, accounts_of, check_origin, join_as, ratings_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.routes.tables import Joined
from catsack.server.storage.names import skeleton
from catsack.server.storage.store import SeatRow, Store, seats_t, tables_t
from catsack.server.tables.live import TableError, finished_by_bot, iso_time, seat_names, stored_game
from catsack.server.tables.seating import BOT_LEVELS, SEATABLE_BOTS, unknown_bot
from catsack.server.validate import NAME_MAX, clean_text

__all__ = ["FinishedScores", "router"]

router = APIRouter()

#: Finished games a profile's figures are computed from (the newest).
PROFILE_GAMES = 200
#: Recent games a profile lists.
RECENT_GAMES = 20
#: Finished games whose scores are kept (a few dozen bytes each).
CACHED_SCORES = 20_000


def finished_game(store: Store, table_id: str) -> tuple[Game, list[str], float | None, list[bool]] | None:
    """A finished table's game rebuilt from the database (not loaded as a live table), its seat
    names, when it ended and which seats a bot took over; ``None`` if it is not there or not over."""
    loaded = store.load(table_id)
    if loaded is None:
        return None
    row, seats, actions = loaded
    if row.status != "over":
        return None
    game = stored_game(row, actions)
    return game, seat_names(seats), row.finished, [s.replaced for s in seats]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a profile needs of a finished game: each seat's score (R21) and the winners (R22)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


class FinishedScores:
    """The outcomes of finished games, computed once each (a finished game never changes), newest kept."""

    def __init__(self, size: int = CACHED_SCORES) -> None:
        self.size = size
        self.items: LRUCache[str, Outcome] = LRUCache(maxsize=size)
        self.lock = threading.Lock()  # filled from worker threads
        self.rebuilt = 0  # games replayed to fill it (tests, metrics)

    def get(self, store: Store, table_id: str) -> Outcome | None:
        with self.lock:
            found = self.items.get(table_id)
            if found is not None:
                return found
        game = finished_game(store, table_id)
        if game is None:
            return None
        outcome = Outcome(tuple(game[0].scores()), tuple(game[0].winners()))
        with self.lock:
            self.rebuilt += 1
            self.items[table_id] = outcome
        return outcome


def _scores_of(request: Request) -> FinishedScores:
    found: FinishedScores | None = getattr(request.app.state, "finished_scores", None)
    if found is None:
        found = request.app.state.finished_scores = FinishedScores()
    return found


@dataclass(frozen=True, slots=True)
class _Played:
    table_id: str
    seat: int
    private: bool
    finished: float | None
    replaced: bool  # a bot took the seat over before the end
    options: dict[str, Any]


def _played(store: Store, account: Account) -> list[_Played]:
    """The account's finished games, newest first (one query)."""
    seat_row = (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
    q = (
        select(
            seat_users_t.c.table_id, seat_users_t.c.seat, tables_t.c.options, tables_t.c.finished, seats_t.c.replaced
        )
        .select_from(seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id).join(seats_t, seat_row))
        .where(seat_users_t.c.user_id == account.id, tables_t.c.status == "over")
        .order_by(tables_t.c.created.desc())
        .limit(PROFILE_GAMES)
    )
    with store.engine.connect() as conn:
        rows = conn.execute(q).all()
    out = []
    for r in rows:
        options = json.loads(r.options)
        private = bool(options.get("private"))
        out.append(_Played(r.table_id, int(r.seat), private, r.finished, bool(r.replaced), options))
    return out


def _sat_at(store: Store, viewer: Account, table_ids: list[str]) -> set[str]:
    """Which of ``table_ids`` the ``viewer`` account played at."""
    if not table_ids:
        return set()
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(seat_users_t.c.table_id).where(
                seat_users_t.c.user_id == viewer.id, seat_users_t.c.table_id.in_(table_ids)
            )
        ).scalars()
        return set(rows)


def _private_tables(store: Store, table_ids: list[str]) -> set[str]:
    if not table_ids:
        return set()
    with store.engine.connect() as conn:
        rows = conn.execute(select(tables_t.c.id, tables_t.c.options).where(tables_t.c.id.in_(table_ids))).all()
    return {r.id for r in rows if json.loads(r.options).get("private")}


def _names(store: Store, table_ids: list[str]) -> dict[str, tuple[list[str], list[int]]]:
    """Each table's seat names and the seats a bot finished (one query for all of them)."""
    if not table_ids:
        return {}
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(seats_t).where(seats_t.c.table_id.in_(table_ids)).order_by(seats_t.c.table_id, seats_t.c.seat)
        ).all()
    by_table: dict[str, list[SeatRow]] = {}
    for r in rows:
        seat = SeatRow(r.seat, r.kind, r.name, r.bot, r.token_hash, bool(r.replaced))
        by_table.setdefault(r.table_id, []).append(seat)
    return {t: (seat_names(seats), finished_by_bot(seats)) for t, seats in by_table.items()}


@dataclass
class _Figures:
    """A profile's figures over the games played to the end (a bot-finished game counts only as such)."""

    played: int = 0
    left: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    margin_sum: float = 0.0

    def count(self, g: _Played, outcome: Outcome) -> None:
        if g.replaced:  # a bot finished the seat: what it scored is not the person's (no win, no average)
            self.left += 1
            return
        scores = outcome.scores
        self.played += 1
        if g.seat in outcome.winners:
            self.wins += 1.0 / len(outcome.winners)
        self.score_sum += scores[g.seat]
        self.margin_sum += scores[g.seat] - sum(scores) / len(scores)

    def public(self) -> dict[str, Any]:
        played = self.played
        return {
            # Games played to the end (the averages' games), and games a bot finished for the player.
            "games": played,
            "finished_by_bot": self.left,
            "wins": round(self.wins, 2),
            "average_score": round(self.score_sum / played, 2) if played else None,
            "average_margin": round(self.margin_sum / played, 2) if played else None,
        }


def _sat_private(
    store: Store, account: Account, viewer: Account | None, games: list[_Played], history: list[dict[str, Any]]
) -> tuple[set[str], set[str]]:
    """The private games of the account (listed or in its rating history), and those of them the viewer may
    see listed: all of them for the account itself, else those it sat at."""
    private = [g.table_id for g in games if g.private]
    private += sorted(_private_tables(store, [h["table"] for h in history]) - set(private))
    if viewer is not None and viewer.id == account.id:
        sat = set(private)
    else:
        sat = _sat_at(store, viewer, private) if viewer is not None else set()
    return set(private), sat


def _recent_out(store: Store, recent: list[tuple[_Played, Outcome]]) -> list[dict[str, Any]]:
    """The recent games as a profile lists them, with each table's players."""
    names = _names(store, [g.table_id for g, _ in recent])
    return [
        {
            "table": g.table_id,
            "seat": g.seat,
            "seats": len(o.scores),
            "players": names.get(g.table_id, ([], []))[0],
            "finished_by_bot": names.get(g.table_id, ([], []))[1],
            "score": o.scores[g.seat],
            "margin": round(o.scores[g.seat] - sum(o.scores) / len(o.scores), 2),
            "won": not g.replaced and g.seat in o.winners,
            "abandoned": g.replaced,
            "finished": iso_time(g.finished),
            "replay": f"/replay/{g.table_id}",
        }
        for g, o in recent
    ]


def _profile(
    store: Store,
    scores_cache: FinishedScores,
    ratings: Ratings,
    account: Account,
    viewer: Account | None,
    games: list[_Played],
    closed: set[str],
) -> dict[str, Any]:
    """The profile of ``account`` as ``viewer`` sees it; ``games``: the account's finished games, ``closed``:
    those of a duplicate round still played elsewhere (:mod:`catsack.server.people.gameaccess`: neither listed
    nor counted until the round is scored)."""
    key = f"user:{account.id}"
    summary = ratings.summary(key)  # before the history: a game rated meanwhile shows in both or only there
    history = ratings.history(key)
    private, sat = _sat_private(store, account, viewer, games, history)
    hidden = (private - sat) | closed
    figures = _Figures()
    recent: list[tuple[_Played, Outcome]] = []
    for g in games:
        access = decide(
            over=True, private=g.private, embargoed=g.table_id in closed, seat=g.seat if g.table_id in sat else None
        )
        if access.closed:
            continue
        outcome = scores_cache.get(store, g.table_id)
        if outcome is None:
            continue
        if len(recent) < RECENT_GAMES and access.whole is None:
            recent.append((g, outcome))
        figures.count(g, outcome)
    return {
        "name": account.name,
        "joined": iso_time(account.created),
        "rating": summary["rating"],
        "rated_games": summary["games"],
        **figures.public(),
        "history": [{**h, "table": None} if h["table"] in hidden else h for h in history],
        "recent": _recent_out(store, recent),
        # Games finished against games abandoned to a bot (fair play).
        "reputation": reputation(store.engine, account.id).as_dict(),
    }


@router.get("/api/users/{name}", dependencies=[Depends(expensive_read)])
async def profile(request: Request, name: str) -> dict[str, Any]:
    """An account's public profile (a private game listed only to its players)."""
    accounts = accounts_of(request)
    account = await asyncio.to_thread(accounts.by_name, name)
    if account is None:
        raise Refused("unknown_player", f"no player named {name[:40]!r}", 404, params={"name": name[:40]})
    viewer = await account_of(request)
    hub = hub_of(request)
    games = await asyncio.to_thread(_played, hub.store, account)
    closed = {g.table_id for g in games if await embargo_open(hub, g.options)}
    out = await asyncio.to_thread(
        _profile, hub.store, _scores_of(request), ratings_of(request), account, viewer, games, closed
    )
    return {**out, **await asyncio.to_thread(_kind, accounts, account)}


def _kind(accounts: Accounts, account: Account) -> dict[str, Any]:
    """Whether ``account`` is a bot account (docs/bot-api.md), and its owner's name and profile (``None``
    for a person, or a bot whose owner deleted their account)."""
    books = BotAccounts(accounts.engine, accounts)
    if account.id not in books.bot_ids([account.id]):
        return {"kind": "human", "owner": None, "owner_profile": None}
    owner = books.owner_names([account.id]).get(account.id)
    if owner is not None and accounts.by_name(owner) is None:  # deleted: "deleted player", no profile
        owner = None
    return {"kind": "bot", "owner": owner, "owner_profile": f"/u/{owner}" if owner else None}


def _leaderboard(accounts: Accounts, ratings: Ratings, limit: int) -> list[dict[str, Any]]:
    out = []
    entries = ratings.leaderboard(limit * 2)
    # Bot accounts (docs/bot-api.md) are marked as bots, with their owner; the bots' own leaderboard is
    # /api/bots/leaderboard.
    books = BotAccounts(accounts.engine, accounts)
    users = [int(e["player"].removeprefix("user:")) for e in entries if e["player"].startswith("user:")]
    owners = books.owner_names(sorted(books.bot_ids(users)))
    for entry in entries:
        player = entry["player"]
        if player.startswith("user:"):
            uid = int(player.removeprefix("user:"))
            account = accounts.by_id(uid)
            if account is None:  # deleted
                continue
            kind = "bot" if uid in owners else "human"
            entry = {**entry, "name": account.name, "kind": kind, "profile": f"/u/{account.name}"}
            if uid in owners:
                entry["owner"] = owners[uid]
        else:
            entry = {**entry, "name": player.removeprefix("bot:"), "kind": "bot", "profile": None}
        del entry["player"]
        out.append(entry)
    return out[:limit]


@router.get("/api/leaderboard", dependencies=[Depends(expensive_read)])
async def leaderboard(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 100) -> list[dict[str, Any]]:
    """Rated players, people and bot levels, best first."""
    return await asyncio.to_thread(_leaderboard, accounts_of(request), ratings_of(request), limit)


class QuickPlay(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seats: int = Field(4, ge=3, le=5)
    name: str | None = Field(
        None, description=f"a guest's name (at most {NAME_MAX} characters); accounts play under theirs"
    )
    bots: str | None = Field(
        None,
        description="start at once: a new table whose other seats this bot level takes "
        f"({', '.join(BOT_LEVELS)}); without it, the first open public table or a new one that waits for people",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str | None) -> str | None:
        return None if v is None else clean_text(v, field="a name", max_chars=NAME_MAX, min_chars=1)


def unused_guest_name(names: list[str]) -> str:
    """A guest who typed no name: "Guest", or "Guest 2", "Guest 3"… where a "Guest" sits already (two
    guests never share a name at a table)."""
    taken = {skeleton(n) for n in names}
    return next(n for n in ("Guest", *(f"Guest {i}" for i in range(2, 7))) if skeleton(n) not in taken)


@router.post("/api/quickplay", response_model=Joined)
async def quickplay(
    request: Request, body: QuickPlay, account: Annotated[Account | None, Depends(account_of)]
) -> Joined:
    """Join the open public table with ``seats`` seats that has waited longest, or create one and sit at it
    (rated tables only for accounts)."""
    if account is not None:
        check_origin(request)
    typed = account.name if account is not None else body.name
    name = typed or "Guest"
    hub = hub_of(request)
    if body.bots is not None:  # no waiting: the player's seat and bots everywhere else
        if body.bots not in SEATABLE_BOTS:
            raise TableError("bad_request", unknown_bot(body.bots), 422)
        started = await hub.create(
            body.seats,
            {seat: body.bots for seat in range(1, body.seats)},
            name="Quick play",
            money_visible=False,
            turn_seconds=None,
            hints=False,
            extra_options={"host_seat": 0, "private": True},  # nobody else can sit: not in the lobby's list
        )
        seat, token = await join_as(request, started, name, None, account)
        return Joined(table=started.id, seat=seat, token=token)
    rows = await asyncio.to_thread(hub.store.list_tables, "open", 200)
    for row, _seats in reversed(rows):  # oldest first: they have waited longest
        if row.seats != body.seats or row.options.get("private") or (row.options.get("rated") and account is None):
            continue
        table = await hub.get(row.id)
        if table is None or table.status != "open":
            continue
        try:
            seat, token = await join_as(request, table, typed or unused_guest_name(table.names()), None, account)
        except TableError:  # taken meanwhile
            continue
        return Joined(table=table.id, seat=seat, token=token)
    table = await hub.create(
        body.seats,
        {},
        name="Quick play",
        money_visible=False,
        turn_seconds=None,
        hints=False,
        extra_options={"host_seat": 0},
    )
    seat, token = await join_as(request, table, name, None, account)
    return Joined(table=table.id, seat=seat, token=token)


@router.get("/u/{name}", include_in_schema=False)
async def profile_page(name: str) -> Response:
    return page("profile.html")


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page() -> Response:
    return page("leaderboard.html")


@router.get("/account", include_in_schema=False)
async def account_page() -> Response:
    return page("account.html")
