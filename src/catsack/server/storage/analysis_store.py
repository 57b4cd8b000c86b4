"""Stored post-game analyses: one row per table, seat and analysis level.

The table lives on the server's :data:`catsack.server.storage.store.metadata`; migration
0004 (``migrations/versions/0004_review.py``) creates it. The methods are
synchronous; the server runs them in a worker thread.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Engine, Float, Integer, String, Table, Text, insert, select, update
from sqlalchemy.exc import IntegrityError

from catsack.server.storage.store import metadata

__all__ = ["AnalysisRow", "AnalysisStore", "analyses_t"]

analyses_t = Table(
    "analyses",
    metadata,
    Column("table_id", String(32), primary_key=True),  # no foreign key: retention deletes tables
    Column("seat", Integer, primary_key=True),
    Column("level", String(40), primary_key=True),  # the analysis level asked for; "default": the library's default
    Column("seed", Integer, nullable=False),  # `catsack analyse --seed` with this gives the same numbers
    Column("status", String(12), nullable=False),  # running | done | failed
    Column("done", Integer, nullable=False),  # decisions analysed so far
    Column("total", Integer, nullable=False),  # decisions of the seat
    Column("result", Text, nullable=True),  # JSON, once done
    Column("created", Float, nullable=False),
    Column("updated", Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class AnalysisRow:
    table_id: str
    seat: int
    level: str
    seed: int
    status: str
    done: int
    total: int
    result: dict[str, Any] | None
    updated: float


def _row(r: Any) -> AnalysisRow:
    return AnalysisRow(
        r.table_id,
        r.seat,
        r.level,
        r.seed,
        r.status,
        r.done,
        r.total,
        None if r.result is None else json.loads(r.result),
        r.updated,
    )


class AnalysisStore:
    """Reads and writes of the ``analyses`` table on the server's engine."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, table_id: str, seat: int, level: str) -> AnalysisRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(
                select(analyses_t).where(
                    analyses_t.c.table_id == table_id, analyses_t.c.seat == seat, analyses_t.c.level == level
                )
            ).first()
            return None if r is None else _row(r)

    def claim(self, table_id: str, seat: int, level: str, seed: int, total: int, *, stale_after: float) -> bool:
        """Mark an analysis as running; ``False`` if it is done or another process runs it (it updated
        its row less than ``stale_after`` seconds ago). A failed or abandoned one is taken over."""
        now = time.time()
        key = (analyses_t.c.table_id == table_id, analyses_t.c.seat == seat, analyses_t.c.level == level)
        with self.engine.begin() as conn:
            try:
                conn.execute(
                    insert(analyses_t).values(
                        table_id=table_id,
                        seat=seat,
                        level=level,
                        seed=seed,
                        status="running",
                        done=0,
                        total=total,
                        result=None,
                        created=now,
                        updated=now,
                    )
                )
                return True
            except IntegrityError:
                pass
        with self.engine.begin() as conn:
            res = conn.execute(
                update(analyses_t)
                .where(*key, analyses_t.c.status != "done")
                .where((analyses_t.c.status == "failed") | (analyses_t.c.updated < now - stale_after))
                .values(status="running", seed=seed, done=0, total=total, result=None, updated=now)
            )
            return res.rowcount == 1

    def progress(self, table_id: str, seat: int, level: str, done: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(analyses_t)
                .where(analyses_t.c.table_id == table_id, analyses_t.c.seat == seat, analyses_t.c.level == level)
                .values(done=done, updated=time.time())
            )

    def finish(self, table_id: str, seat: int, level: str, status: str, result: dict[str, Any] | None) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(analyses_t)
                .where(analyses_t.c.table_id == table_id, analyses_t.c.seat == seat, analyses_t.c.level == level)
                .values(
                    status=status,
                    result=None if result is None else json.dumps(result, separators=(",", ":")),
                    updated=time.time(),
                    **({"done": len(result["decisions"])} if result is not None else {}),
                )
            )
