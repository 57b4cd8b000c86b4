"""Players: profiles (``/u/{name}``), the leaderboard and quick play.

A profile shows an account's rating and its history (rated games), and over
all its finished games: games played, wins (a shared victory counts 1/k,
R22), average score and margin (score minus the table's average), and the
recent games with links to their replay. Bot levels have a rating too
(``/api/leaderboard`` lists them beside the people).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from catsack.game import Game
from catsack.server.accounts import Account, Accounts
from catsack.server.hub import BOT_LEVELS, SEATABLE_BOTS, TableError, iso_time, seat_names, setup_from_json
from catsack.server.ratings import Ratings
from catsack.server.reputation import reputation
from catsack.server.routes.accounts import account_of, accounts_of, check_origin, join_as, ratings_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.routes.tables import Joined
from catsack.server.store import Store
from catsack.server.validate import NAME_MAX, clean_text

__all__ = ["router"]

router = APIRouter()

#: Finished games a profile's figures are computed from (the newest).
PROFILE_GAMES = 200


def finished_game(store: Store, table_id: str) -> tuple[Game, list[str], float | None, list[bool]] | None:
    """A finished table's game rebuilt from the database (not loaded as a live table), its seat
    names, when it ended and which seats a bot took over; ``None`` if it is not there or not over."""
    loaded = store.load(table_id)
    if loaded is None:
        return None
    row, seats, actions = loaded
    if row.status != "over":
        return None
    game = Game(setup_from_json(row.seats, row.setup))
    for a in actions:
        game.play(a.move)
    return game, seat_names(seats), row.finished, [s.replaced for s in seats]


def _profile(store: Store, accounts: Accounts, ratings: Ratings, account: Account) -> dict[str, Any]:
    key = f"user:{account.id}"
    games = accounts.games(account, finished_only=True, limit=PROFILE_GAMES)
    played = 0
    wins = 0.0
    score_sum = 0.0
    margin_sum = 0.0
    recent: list[dict[str, Any]] = []
    for table_id, seat in games:
        found = finished_game(store, table_id)
        if found is None:
            continue
        game, names, finished, replaced = found
        scores = game.scores()
        # A seat abandoned to a bot earns nothing of what the bot did (issue 30): no win.
        winners = [] if replaced[seat] else game.winners()
        played += 1
        if seat in winners:
            wins += 1.0 / len(winners)
        score_sum += scores[seat]
        margin = scores[seat] - sum(scores) / len(scores)
        margin_sum += margin
        if len(recent) < 20:
            recent.append(
                {
                    "table": table_id,
                    "seat": seat,
                    "seats": game.seats,
                    "players": names,
                    "score": scores[seat],
                    "margin": round(margin, 2),
                    "won": seat in winners,
                    "abandoned": replaced[seat],
                    "finished": iso_time(finished),
                    "replay": f"/replay/{table_id}",
                }
            )
    summary = ratings.summary(key)
    return {
        "name": account.name,
        "joined": iso_time(account.created),
        "rating": summary["rating"],
        "rated_games": summary["games"],
        "games": played,
        "wins": round(wins, 2),
        "average_score": round(score_sum / played, 2) if played else None,
        "average_margin": round(margin_sum / played, 2) if played else None,
        "history": ratings.history(key),
        "recent": recent,
        # Games finished against games abandoned to a bot (issue 30, fair play).
        "reputation": reputation(store.engine, account.id).as_dict(),
    }


@router.get("/api/users/{name}")
async def profile(request: Request, name: str) -> dict[str, Any]:
    """An account's public profile."""
    accounts = accounts_of(request)
    account = await asyncio.to_thread(accounts.by_name, name)
    if account is None:
        raise Refused("unknown_player", f"no player named {name[:40]!r}", 404, params={"name": name[:40]})
    return await asyncio.to_thread(_profile, hub_of(request).store, accounts, ratings_of(request), account)


def _leaderboard(accounts: Accounts, ratings: Ratings, limit: int) -> list[dict[str, Any]]:
    out = []
    for entry in ratings.leaderboard(limit * 2):
        player = entry["player"]
        if player.startswith("user:"):
            account = accounts.by_id(int(player.removeprefix("user:")))
            if account is None:  # deleted
                continue
            entry = {**entry, "name": account.name, "kind": "human", "profile": f"/u/{account.name}"}
        else:
            entry = {**entry, "name": player.removeprefix("bot:"), "kind": "bot", "profile": None}
        del entry["player"]
        out.append(entry)
    return out[:limit]


@router.get("/api/leaderboard")
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


@router.post("/api/quickplay", response_model=Joined)
async def quickplay(
    request: Request, body: QuickPlay, account: Annotated[Account | None, Depends(account_of)]
) -> Joined:
    """Join the open public table with ``seats`` seats that has waited longest, or create one and sit at it
    (rated tables only for accounts)."""
    if account is not None:
        check_origin(request)
    name = account.name if account is not None else (body.name or "Guest")
    hub = hub_of(request)
    if body.bots is not None:  # no waiting: the player's seat and bots everywhere else
        if body.bots not in SEATABLE_BOTS:
            raise TableError("bad_request", f"unknown bot {body.bots!r} (choose from {', '.join(BOT_LEVELS)})", 422)
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
            seat, token = await join_as(request, table, name, None, account)
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
