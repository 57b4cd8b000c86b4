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

*An abandoned seat earns nothing.* A person whose seat a bot took over before
the end (away past the grace period, handed over by the host, withdrawn from a
tournament) is rated as *last*, below every seat that played to the end, however
the bot did; several such seats share the last place, and none of them counts a
win. The stand-in bot is not rated for the part it played. (Lichess and Board
Game Arena treat leaving a rated game the same way: a loss.)

A game is rated once: ``rated_games`` has the table id as its key, and the
update runs in the same transaction that inserts it, so two processes (or a
restart) cannot rate the same game twice. The operator can take a game's
rating changes back (:meth:`Ratings.revert`, ``catsack admin revert``): each
player's current rating loses what that game gave it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    Row,
    String,
    Table,
    false,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from catsack.server.storage.store import metadata

__all__ = ["Rating", "RatingChange", "Ratings", "display", "ranks_with_abandons", "rate_ranking"]

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
    # Revision 0007: the rating before the game (so the operator can revert it), whether the seat was
    # abandoned to a bot (rated last), and whether the game's changes were reverted.
    Column("mu_before", Float, nullable=True),
    Column("sigma_before", Float, nullable=True),
    Column("abandoned", Boolean, nullable=False, default=False, server_default=false()),
    Column("reverted", Boolean, nullable=False, default=False, server_default=false()),
)

rated_games_t = Table(
    "rated_games",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("reverted", Float, nullable=True),  # revision 0007: when the operator took the changes back
    Column("reason", String(200), nullable=True),
)


class RatingError(ValueError):
    """A rating request that cannot be done (an unknown game, one reverted already)."""


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


def ranks_with_abandons(scores: Sequence[int], cats: Sequence[int], abandoned: Sequence[int]) -> list[int]:
    """Places for rating: the seats played to the end by R22 among themselves, then every abandoned
    seat sharing the last place, whatever the bot that took it over scored."""
    gone = set(abandoned)
    kept = [i for i in range(len(scores)) if i not in gone]
    inner = ranks_of([scores[i] for i in kept], [cats[i] for i in kept])
    ranks = [len(kept) + 1] * len(scores)
    for i, r in zip(kept, inner, strict=True):
        ranks[i] = r
    return ranks


@dataclass(frozen=True)
class _RatedGame:
    """One game being rated: its results and every seat's rating before and after."""

    table_id: str
    scores: Sequence[int]
    ranks: Sequence[int]
    abandoned: Sequence[int]
    winners: Sequence[int]
    before: Sequence[Rating]
    after: Sequence[Rating]
    created: float


def _store_player(conn: Connection, game: _RatedGame, player: str, seats: list[int], row: Row[Any] | None) -> None:
    """Write one player's new rating (the mean over its seats) and a history row per seat."""
    mu = sum(game.after[i].mu for i in seats) / len(seats)
    sigma = sum(game.after[i].sigma for i in seats) / len(seats)
    wins = sum(1.0 / len(game.winners) for i in seats if i in game.winners)
    if row is not None:
        conn.execute(
            update(ratings_t)
            .where(ratings_t.c.player == player)
            .values(mu=mu, sigma=sigma, games=row.games + len(seats), wins=row.wins + wins)
        )
    else:
        conn.execute(insert(ratings_t).values(player=player, mu=mu, sigma=sigma, games=len(seats), wins=wins))
    mean = sum(game.scores) / len(game.scores)
    for i in seats:
        conn.execute(
            insert(rating_history_t).values(
                player=player,
                table_id=game.table_id,
                seat=i,
                seats=len(game.scores),
                rank=game.ranks[i],
                score=game.scores[i],
                margin=game.scores[i] - mean,
                mu=mu,
                sigma=sigma,
                created=game.created,
                mu_before=game.before[i].mu,
                sigma_before=game.before[i].sigma,
                abandoned=i in game.abandoned,
                reverted=False,
            )
        )


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
        self,
        table_id: str,
        players: Sequence[str],
        scores: Sequence[int],
        cats: Sequence[int],
        abandoned: Sequence[int] = (),
    ) -> list[RatingChange] | None:
        """Rate one finished game (``players[i]`` is seat i's rating key; ``abandoned``: seats a bot
        took over, rated last with no win); ``None`` if it was rated already."""
        ranks = ranks_with_abandons(scores, cats, abandoned)
        n = len(players)
        winners = [i for i in range(n) if ranks[i] == 1 and i not in abandoned]
        try:
            with self.engine.begin() as conn:
                now = time.time()
                conn.execute(insert(rated_games_t).values(table_id=table_id, created=now))
                rows = conn.execute(select(ratings_t).where(ratings_t.c.player.in_(list(set(players))))).all()
                stored = {r.player: r for r in rows}
                before = [Rating(stored[p].mu, stored[p].sigma) if p in stored else Rating() for p in players]
                game = _RatedGame(table_id, scores, ranks, abandoned, winners, before, rate_ranking(before, ranks), now)
                merged: dict[str, list[int]] = {}
                for i, p in enumerate(players):
                    merged.setdefault(p, []).append(i)
                for p, seats in merged.items():
                    _store_player(conn, game, p, seats, stored.get(p))
        except IntegrityError:
            return None
        return [RatingChange(p, i, before[i], game.after[i], ranks[i]) for i, p in enumerate(players)]

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
                "abandoned": bool(r.abandoned),
                "reverted": bool(r.reverted),
            }
            for r in reversed(rows)
        ]

    def revert(self, table_id: str, reason: str = "") -> list[dict[str, Any]]:
        """Take a rated game's changes back: each player's current rating loses the game's change of
        ``mu`` and gets back the uncertainty it took (exactly the rating before the game when it was
        the player's last rated game), its games and wins go down by the game's, and the game's
        history rows are marked reverted. One transaction; :class:`RatingError` if the game was
        never rated (or rated before revision 0007 kept the rating before it) or is reverted already."""
        now = time.time()
        with self.engine.begin() as conn:
            game = conn.execute(select(rated_games_t).where(rated_games_t.c.table_id == table_id)).first()
            if game is None:
                raise RatingError(f"game {table_id!r} was not rated")
            if game.reverted is not None:
                raise RatingError(f"the rating changes of game {table_id!r} were reverted already")
            rows = conn.execute(select(rating_history_t).where(rating_history_t.c.table_id == table_id)).all()
            if any(r.mu_before is None for r in rows):
                raise RatingError(f"game {table_id!r} was rated before ratings kept their earlier value")
            winners = {r.seat for r in rows if r.rank == 1 and not r.abandoned}
            by_player: dict[str, list[Any]] = {}
            for r in rows:
                by_player.setdefault(r.player, []).append(r)
            out = []
            for player, seats in by_player.items():
                cur = conn.execute(select(ratings_t).where(ratings_t.c.player == player)).first()
                if cur is None:
                    continue
                d_mu = sum(r.mu - r.mu_before for r in seats) / len(seats)
                d_sigma = sum(r.sigma - r.sigma_before for r in seats) / len(seats)
                mu, sigma = cur.mu - d_mu, max(1e-6, cur.sigma - d_sigma)
                wins = sum(1.0 / len(winners) for r in seats if r.seat in winners)
                conn.execute(
                    update(ratings_t)
                    .where(ratings_t.c.player == player)
                    .values(mu=mu, sigma=sigma, games=max(0, cur.games - len(seats)), wins=max(0.0, cur.wins - wins))
                )
                out.append(
                    {
                        "player": player,
                        "before": display(Rating(cur.mu, cur.sigma)),
                        "after": display(Rating(mu, sigma)),
                    }
                )
            conn.execute(update(rating_history_t).where(rating_history_t.c.table_id == table_id).values(reverted=True))
            conn.execute(
                update(rated_games_t)
                .where(rated_games_t.c.table_id == table_id)
                .values(reverted=now, reason=reason[:200] or None)
            )
        return out

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
