"""Reputation: per account, the games it finished and the games it abandoned to a bot.

A seat is *abandoned* when a bot took it over before the end of the game (the
player was away past the grace period, the host handed the idle seat over, or a
tournament withdrew the player); it is *finished* when the account still held
it when the game ended. Each seat counts once (``(table_id, seat)`` is the key),
whichever process notices, and the counts outlive the games themselves (retention
deletes old tables, not these rows). Guests have no reputation.

Tables and tournaments may ask for a minimum: :func:`meets` says whether an
account's record satisfies one (see docs/tournaments.md, "Fair play").

Revision ``0007`` creates the table. The functions are synchronous (the server
calls them in a worker thread).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Column, Engine, Float, Index, Integer, String, Table, func, insert, select
from sqlalchemy.exc import IntegrityError

from catsack.server.people.accounts import seat_users_t
from catsack.server.storage.store import metadata

__all__ = ["Reputation", "mark_abandoned", "mark_finished", "meets", "reputation", "reputations"]

seat_outcomes_t = Table(
    "seat_outcomes",
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, nullable=False, index=True),
    Column("outcome", String(12), nullable=False),  # finished | abandoned
    Column("created", Float, nullable=False),
)

# One account, one seat per table: the database refuses a second seat even when two
# processes seat the same account at once (revision 0007 adds it to older databases).
Index("seat_users_one_seat", seat_users_t.c.table_id, seat_users_t.c.user_id, unique=True)


@dataclass(frozen=True, slots=True)
class Reputation:
    """An account's finished and abandoned games."""

    finished: int = 0
    abandoned: int = 0

    @property
    def games(self) -> int:
        return self.finished + self.abandoned

    @property
    def share(self) -> float:
        """The share of games finished (1.0 without any game: a newcomer is not suspect)."""
        return self.finished / self.games if self.games else 1.0

    def as_dict(self) -> dict[str, float | int]:
        return {"finished": self.finished, "abandoned": self.abandoned, "share": round(self.share, 3)}


def meets(rep: Reputation, minimum: float | None) -> bool:
    """Whether ``rep`` satisfies a table's or tournament's minimum share of finished games. The rule
    applies from the fifth game on: four early abandons (a lost connection, a closed tab) do not
    lock a newcomer out."""
    if not minimum or rep.games < 5:
        return True
    return rep.share >= minimum


def _seat_account(engine: Engine, table_id: str, seats: Iterable[int]) -> dict[int, int]:
    with engine.connect() as conn:
        rows = conn.execute(
            select(seat_users_t.c.seat, seat_users_t.c.user_id).where(
                seat_users_t.c.table_id == table_id, seat_users_t.c.seat.in_(list(seats))
            )
        ).all()
    return {int(r.seat): int(r.user_id) for r in rows}


def _mark(engine: Engine, table_id: str, seats: Iterable[int], outcome: str) -> int:
    accounts = _seat_account(engine, table_id, seats)
    now = time.time()
    n = 0
    for seat, user_id in accounts.items():
        try:
            with engine.begin() as conn:
                conn.execute(
                    insert(seat_outcomes_t).values(
                        table_id=table_id, seat=seat, user_id=user_id, outcome=outcome, created=now
                    )
                )
            n += 1
        except IntegrityError:  # counted already (another process, a second notice)
            pass
    return n


def mark_abandoned(engine: Engine, table_id: str, seat: int) -> int:
    """Count ``seat`` as abandoned by its account (nothing for a guest); how many rows were new."""
    return _mark(engine, table_id, [seat], "abandoned")


def mark_finished(engine: Engine, table_id: str, seats: Iterable[int]) -> int:
    """Count ``seats`` (the people's seats no bot took over) as finished by their accounts."""
    return _mark(engine, table_id, seats, "finished")


def reputations(engine: Engine, user_ids: Iterable[int]) -> dict[int, Reputation]:
    """The reputation of each of ``user_ids`` (a fresh one for accounts without games)."""
    ids = sorted(set(user_ids))
    counts: dict[int, dict[str, int]] = {i: {} for i in ids}
    with engine.connect() as conn:
        for i in range(0, len(ids), 500):
            rows = conn.execute(
                select(seat_outcomes_t.c.user_id, seat_outcomes_t.c.outcome, func.count())
                .where(seat_outcomes_t.c.user_id.in_(ids[i : i + 500]))
                .group_by(seat_outcomes_t.c.user_id, seat_outcomes_t.c.outcome)
            ).all()
            for user_id, outcome, n in rows:
                counts[int(user_id)][outcome] = int(n)
    return {i: Reputation(c.get("finished", 0), c.get("abandoned", 0)) for i, c in counts.items()}


def reputation(engine: Engine, user_id: int) -> Reputation:
    return reputations(engine, [user_id])[user_id]
