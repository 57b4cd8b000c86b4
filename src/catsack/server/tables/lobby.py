"""The lobby's list of open tables, and the retention of open tables nobody joined.

Anyone may create tables, so the list must not be the newest N open rows: a burst of tables
that nobody ever joins would push the real ones out. Tables with a person
waiting come first, and open tables nobody joined are marked ``abandoned`` in the database once
they are older than ``evict_open_seconds``, by whichever process sweeps first.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Exists, and_, exists, select, update

from catsack.server.storage.store import Store, seats_t, tables_t

__all__ = ["abandon_unjoined", "open_table_ids"]


def _has_human() -> Exists:
    return exists().where(and_(seats_t.c.table_id == tables_t.c.id, seats_t.c.kind == "human"))


def open_table_ids(store: Store, limit: int = 100) -> list[str]:
    """Ids of open tables for the lobby: those with somebody waiting first, each group newest first."""
    waiting = _has_human()
    query = (
        select(tables_t.c.id)
        .where(tables_t.c.status == "open")
        .order_by(waiting.desc(), tables_t.c.created.desc())
        .limit(limit)
    )
    with store.engine.connect() as conn:
        return [str(r) for r in conn.execute(query).scalars()]


def abandon_unjoined(store: Store, before: float, limit: int = 1000) -> Sequence[str]:
    """Mark ``abandoned`` the open tables created before ``before`` (epoch seconds) where no person
    ever took a seat; their ids. Tables somebody joined are left to the in-memory sweep, which
    knows whether anyone is still connected."""
    nobody = ~_has_human()
    stale = and_(tables_t.c.status == "open", tables_t.c.created < before, nobody)
    with store.engine.begin() as conn:
        ids = [str(r) for r in conn.execute(select(tables_t.c.id).where(stale).limit(limit)).scalars()]
        if ids:
            conn.execute(update(tables_t).where(tables_t.c.id.in_(ids), stale).values(status="abandoned"))
    return ids
