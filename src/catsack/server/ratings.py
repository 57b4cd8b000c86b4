"""Ratings: OpenSkill (Plackett–Luce) ratings of accounts and bot levels from rated games.

*One rating, not one per player count.* Plackett–Luce rates a ranking of any
number of players, so 3-, 4- and 5-player results update the same skill; a
group that plays at several sizes would otherwise split its few games into
three thin ratings, each slow to settle. The profile page shows the player
count of every game beside its rating change.

*Bots are rated players.* Each bot level (``bot:heuristic``, ``bot:expert`` …)
has one rating, updated by every rated game it sits in, so a newcomer's first
games against bots place them on the same scale as the people. Several seats
of the same level in one game are rated as separate players from the same
prior, and the level's new rating is the mean of theirs.

*What is shown.* ``mu`` (estimated skill) and ``sigma`` (its uncertainty) are
stored; the number people see is the conservative ordinal ``mu − 3·sigma``,
scaled by 40 and offset by 1000 so that a new player starts near 1000 and
differences look like the ratings people know (the scale changes nothing).

A game is rated once: ``rated_games`` has the table id as its key, and the
update runs in the same transaction that inserts it, so two processes (or a
restart) cannot rate the same game twice.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Engine, Float, Integer, String, Table, insert, select, update
from sqlalchemy.exc import IntegrityError

from catsack.server.store import metadata

__all__ = ["Rating", "RatingChange", "Ratings", "display", "rate_ranking"]

MU = 25.0
SIGMA = 25.0 / 3.0

ratings_t = Table(
    "ratings",
    metadata,
    Column("player", String(64), primary_key=True),  # "user:<id>" or "bot:<level>"
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Float, nullable=False),  # shared victories count as 1/k (R22)
)

rating_history_t = Table(
    "rating_history",
    metadata,
    Column("player", String(64), primary_key=True),
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("seats", Integer, nullable=False),
    Column("rank", Integer, nullable=False),  # 1 = winner (shared ranks for ties, R22)
    Column("score", Integer, nullable=False),
    Column("margin", Float, nullable=False),  # score minus the table's average score
    Column("mu", Float, nullable=False),  # after the game
    Column("sigma", Float, nullable=False),
    Column("created", Float, nullable=False),
)

rated_games_t = Table(
    "rated_games",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        return self.mu - 3.0 * self.sigma


def display(r: Rating) -> int:
    """The number shown to people: 1000 + 40·(mu − 3·sigma); a new player shows 1000."""
    return round(1000 + 40 * r.ordinal)


@dataclass(frozen=True, slots=True)
class RatingChange:
    player: str
    seat: int
    before: Rating
    after: Rating
    rank: int


def rate_ranking(ratings: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """New ratings after one game: ``ranks[i]`` is seat i's place (1 = first, equal for ties)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=MU, sigma=SIGMA)
    teams = [[model.create_rating([r.mu, r.sigma])] for r in ratings]
    out = model.rate(teams, ranks=[float(x) for x in ranks])
    return [Rating(t[0].mu, t[0].sigma) for t in out]


def ranks_of(scores: Sequence[int], cats: Sequence[int]) -> list[int]:
    """Places by R22: higher score first, then higher cat sum; players still tied share a place."""
    keys = [(s, c) for s, c in zip(scores, cats, strict=True)]
    return [1 + sum(1 for other in keys if other > k) for k in keys]


class Ratings:
    """Ratings in the server's database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, players: Sequence[str]) -> dict[str, Rating]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(ratings_t).where(ratings_t.c.player.in_(list(players)))).all()
        found = {r.player: Rating(r.mu, r.sigma) for r in rows}
        return {p: found.get(p, Rating()) for p in players}

    def record_game(
        self, table_id: str, players: Sequence[str], scores: Sequence[int], cats: Sequence[int]
    ) -> list[RatingChange] | None:
        """Rate one finished game (``players[i]`` is seat i's rating key); ``None`` if it was rated already."""
        ranks = ranks_of(scores, cats)
        n = len(players)
        mean = sum(scores) / n
        winners = [i for i in range(n) if ranks[i] == 1]
        now = time.time()
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(rated_games_t).values(table_id=table_id, created=now))
                rows = conn.execute(select(ratings_t).where(ratings_t.c.player.in_(list(set(players))))).all()
                stored = {r.player: r for r in rows}
                before = [Rating(stored[p].mu, stored[p].sigma) if p in stored else Rating() for p in players]
                after = rate_ranking(before, ranks)
                merged: dict[str, list[int]] = {}
                for i, p in enumerate(players):
                    merged.setdefault(p, []).append(i)
                for p, seats in merged.items():
                    mu = sum(after[i].mu for i in seats) / len(seats)
                    sigma = sum(after[i].sigma for i in seats) / len(seats)
                    wins = sum(1.0 / len(winners) for i in seats if i in winners)
                    if p in stored:
                        r = stored[p]
                        conn.execute(
                            update(ratings_t)
                            .where(ratings_t.c.player == p)
                            .values(mu=mu, sigma=sigma, games=r.games + len(seats), wins=r.wins + wins)
                        )
                    else:
                        conn.execute(
                            insert(ratings_t).values(player=p, mu=mu, sigma=sigma, games=len(seats), wins=wins)
                        )
                    for i in seats:
                        conn.execute(
                            insert(rating_history_t).values(
                                player=p,
                                table_id=table_id,
                                seat=i,
                                seats=n,
                                rank=ranks[i],
                                score=scores[i],
                                margin=scores[i] - mean,
                                mu=mu,
                                sigma=sigma,
                                created=now,
                            )
                        )
        except IntegrityError:
            return None
        return [RatingChange(p, i, before[i], after[i], ranks[i]) for i, p in enumerate(players)]

    def history(self, player: str, limit: int = 200) -> list[dict[str, Any]]:
        """The player's rated games, oldest first, with the rating after each."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(rating_history_t)
                .where(rating_history_t.c.player == player)
                .order_by(rating_history_t.c.created.desc())
                .limit(limit)
            ).all()
        return [
            {
                "table": r.table_id,
                "seat": r.seat,
                "seats": r.seats,
                "rank": r.rank,
                "score": r.score,
                "margin": r.margin,
                "rating": display(Rating(r.mu, r.sigma)),
                "mu": r.mu,
                "sigma": r.sigma,
                "time": r.created,
            }
            for r in reversed(rows)
        ]

    def summary(self, player: str) -> dict[str, Any]:
        with self.engine.connect() as conn:
            r = conn.execute(select(ratings_t).where(ratings_t.c.player == player)).first()
        rating = Rating(r.mu, r.sigma) if r is not None else Rating()
        return {
            "rating": display(rating),
            "mu": rating.mu,
            "sigma": rating.sigma,
            "games": int(r.games) if r is not None else 0,
            "wins": float(r.wins) if r is not None else 0.0,
        }

    def leaderboard(self, limit: int = 100) -> list[dict[str, Any]]:
        """Players by displayed rating, best first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(ratings_t)).all()
        out = [
            {"player": r.player, "rating": display(Rating(r.mu, r.sigma)), "games": r.games, "wins": r.wins}
            for r in rows
        ]
        out.sort(key=lambda d: (-d["rating"], d["player"]))
        return out[:limit]
