"""Stored training positions: the decisions an analysis marked as a mistake or a blunder.

Each position keeps what retrying it needs, copied when it is stored: the deciding seat's own view
at that moment (R23: nothing it could not see), the analysis of that decision (values, noise, the
best move, the sentences), its theme and how often players solved it. Positions of a player's own
games carry the account (``user_id``); the pool mined from bot games has none. Migration 0009
(``migrations/versions/0009_training.py``) creates the table. Only the first answer of each account
or guest to a position is counted (``training_attempts``, migration 0011), so nobody can skew a
position's difficulty by answering it again and again. The methods are synchronous; the server runs
them in a worker thread.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    insert,
    select,
)
from sqlalchemy import update as sql_update
from sqlalchemy.exc import IntegrityError

from catsack.server.storage.store import metadata

__all__ = [
    "DIFFICULTIES",
    "SOURCES",
    "THEMES",
    "Position",
    "TrainingStore",
    "attempts_t",
    "difficulty",
    "training_t",
]

#: The themes a position is filed under (:func:`catsack.server.routes.training.theme_of`).
THEMES = ("placing", "opening", "passing", "last", "dogs")
SOURCES = ("own", "pool")
DIFFICULTIES = ("easy", "medium", "hard")

training_t = Table(
    "training_positions",
    metadata,
    Column("id", String(16), primary_key=True),  # the id in the page's address
    Column("source", String(8), nullable=False),  # own | pool
    Column("game", String(40), nullable=False),  # the table id (own) or the pool game's name
    Column("seat", Integer, nullable=False),
    Column("ply", Integer, nullable=False),
    Column("user_id", Integer, nullable=True),  # the account whose mistake it was (own games)
    Column("theme", String(12), nullable=False),
    Column("class", String(12), nullable=False),  # mistake | blunder
    Column("seats", Integer, nullable=False),
    Column("round", Integer, nullable=False),
    Column("phase", String(12), nullable=False),
    Column("view", Text, nullable=False),  # JSON: the seat's view at the decision (R23)
    Column("names", Text, nullable=False),  # JSON: the seats' names as the replay shows them
    Column("decision", Text, nullable=False),  # JSON: the analysis of the decision
    Column("attempts", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("created", Float, nullable=False),
    UniqueConstraint("game", "seat", "ply", name="uq_training_game_seat_ply"),
    Index("ix_training_user", "user_id"),
)

#: Who has had an answer counted for which position: ``u<account id>`` for an account, or ``g`` and a
#: hash of the position and the guest's address (no address is stored as it is).
attempts_t = Table(
    "training_attempts",
    metadata,
    Column("position_id", String(16), nullable=False),
    Column("who", String(40), nullable=False),
    Column("created", Float, nullable=False),
    PrimaryKeyConstraint("position_id", "who", name="pk_training_attempts"),
)


def difficulty(attempts: int, solved: int) -> str:
    """How hard players find a position, from how often they solve it (one solve and one miss assumed
    before any attempt, so a new position is ``medium``)."""
    rate = (solved + 1) / (attempts + 2)
    return "easy" if rate >= 0.65 else "hard" if rate < 0.35 else "medium"


@dataclass(frozen=True, slots=True)
class Position:
    id: str
    source: str
    game: str
    seat: int
    ply: int
    user_id: int | None
    theme: str
    cls: str
    seats: int
    round: int
    phase: str
    view: dict[str, Any]
    names: list[str]
    decision: dict[str, Any]
    attempts: int
    solved: int

    @property
    def difficulty(self) -> str:
        return difficulty(self.attempts, self.solved)

    def summary(self) -> dict[str, Any]:
        """What a list of positions shows: no move, no verdict."""
        return {
            "id": self.id,
            "source": self.source,
            "theme": self.theme,
            "class": self.cls,
            "difficulty": self.difficulty,
            "seats": self.seats,
            "round": self.round,
            "phase": self.phase,
            "attempts": self.attempts,
            "solved": self.solved,
            "table": self.game if self.source == "own" else None,
            "ply": self.ply,
        }


def _position(r: Any) -> Position:
    return Position(
        r.id,
        r.source,
        r.game,
        r.seat,
        r.ply,
        r.user_id,
        r.theme,
        r._mapping["class"],
        r.seats,
        r.round,
        r.phase,
        json.loads(r.view),
        json.loads(r.names),
        json.loads(r.decision),
        r.attempts,
        r.solved,
    )


class TrainingStore:
    """Reads and writes of the ``training_positions`` table on the server's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(
        self,
        *,
        source: str,
        game: str,
        seat: int,
        ply: int,
        user_id: int | None,
        theme: str,
        cls: str,
        view: dict[str, Any],
        names: list[str],
        decision: dict[str, Any],
    ) -> bool:
        """Store a position; ``False`` if that decision is stored already (the first one stays)."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(training_t).values(
                        id=secrets.token_urlsafe(9)[:12],
                        source=source,
                        game=game,
                        seat=seat,
                        ply=ply,
                        user_id=user_id,
                        theme=theme,
                        **{"class": cls},
                        seats=int(view["seats"]),
                        round=int(view["round"]),
                        phase=str(view["phase"]),
                        view=json.dumps(view, separators=(",", ":")),
                        names=json.dumps(names, separators=(",", ":")),
                        decision=json.dumps(decision, separators=(",", ":")),
                        attempts=0,
                        solved=0,
                        created=time.time(),
                    )
                )
            return True
        except IntegrityError:
            return False

    def has(self, game: str, seat: int) -> set[int]:
        """The plies of ``game``'s ``seat`` stored already."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(training_t.c.ply).where(training_t.c.game == game, training_t.c.seat == seat))
            return {int(p) for p in rows.scalars()}

    def get(self, position_id: str) -> Position | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(training_t).where(training_t.c.id == position_id)).first()
            return None if r is None else _position(r)

    def listing(
        self, *, source: str, user_id: int | None = None, theme: str | None = None, limit: int = 200
    ) -> list[Position]:
        """Positions of one source (``own``: the account's), newest first; ``theme`` filters."""
        q = select(training_t).where(training_t.c.source == source)
        if source == "own":
            q = q.where(training_t.c.user_id == user_id)
        if theme is not None:
            q = q.where(training_t.c.theme == theme)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(training_t.c.created.desc(), training_t.c.ply).limit(limit)).all()
        return [_position(r) for r in rows]

    def attempt(self, position_id: str, solved: bool, who: str) -> bool:
        """Count ``who``'s answer (the difficulty follows from these counts) unless an earlier answer of
        theirs to this position was counted; ``True`` when this one was."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(attempts_t).values(position_id=position_id, who=who, created=time.time()))
                conn.execute(
                    sql_update(training_t)
                    .where(training_t.c.id == position_id)
                    .values(attempts=training_t.c.attempts + 1, solved=training_t.c.solved + int(solved))
                )
            return True
        except IntegrityError:
            return False
