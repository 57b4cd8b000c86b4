"""A batch of move appends on PostgreSQL in one statement and one round trip.

:meth:`catsack.server.storage.store.Store.append_batch` writes a group commit's moves as a transaction
of two statements executed once per move (SQLAlchemy, psycopg's pipeline): four round trips with
``BEGIN`` and ``COMMIT``, and most of a server's CPU per move went to preparing and sending them. On
PostgreSQL the same change is one statement, run on its own (autocommit, so it is its own
transaction): the moves travel as one array per column, each table moves from ``prev`` to ``version``
only where it is still at ``prev`` (and a person's seat still holds the token the move came with),
and exactly the moves of the tables that moved are inserted into the log. The tables that did not
move come back as conflicts, as the two statements would have found them.

Anything unexpected (an error of the database or of the connection, a connection inside a
transaction) answers ``None`` having written nothing, and the caller writes the batch the general way,
which reports the error as it always did.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catsack.server.storage.store import Append

__all__ = ["APPEND_SQL", "append_moves"]

#: The batch as arrays, one per column (:func:`_columns`, in this order), and the commit time last.
APPEND_SQL = """
WITH b AS (
    SELECT * FROM unnest(
        %s::text[], %s::int[], %s::int[], %s::text[], %s::float8[], %s::float8[], %s::int[], %s::text[],
        %s::int[], %s::text[], %s::text[], %s::text[], %s::text[]
    ) AS b(id, prev, version, status, deadline, finished, to_move, clock, seat, token, move, action_id, actor)
), moved AS (
    UPDATE tables AS t
    SET version = b.version, status = b.status, deadline = b.deadline, finished = b.finished,
        to_move = b.to_move, clock = b.clock
    FROM b
    WHERE t.id = b.id AND t.version = b.prev AND (
        b.token IS NULL OR EXISTS (
            SELECT 1 FROM seats AS s
            WHERE s.table_id = b.id AND s.seat = b.seat AND s.kind = 'human' AND s.token_hash = b.token
        )
    )
    RETURNING t.id
)
INSERT INTO actions (table_id, version, seat, move, action_id, actor, created)
SELECT b.id, b.version, b.seat, b.move, b.action_id, b.actor, %s::float8 FROM b JOIN moved ON moved.id = b.id
RETURNING table_id
"""


def _columns(items: Sequence[Append], now: float) -> list[Any]:
    """The statement's parameters: one list per column of ``b``, then ``now``."""
    rows = [
        (
            it.table_id,
            it.version - 1,
            it.version,
            it.status,
            it.deadline,
            now if it.status == "over" else None,
            it.to_move,
            it.clock,
            it.seat,
            it.token_hash,
            it.move,
            it.action_id,
            it.actor,
        )
        for it in items
    ]
    return [list(col) for col in zip(*rows, strict=True)] + [now]


def append_moves(raw: Any, items: Sequence[Append], now: float) -> set[str] | None:
    """Append ``items`` (each of another table) on ``raw``, an idle psycopg connection: the ids of the
    tables whose move was written, or ``None`` when nothing was (then write the batch another way)."""
    import psycopg
    from psycopg.pq import TransactionStatus

    if raw.closed or raw.info.transaction_status != TransactionStatus.IDLE:
        return None
    try:
        raw.autocommit = True
        try:
            rows = raw.execute(APPEND_SQL, _columns(items, now)).fetchall()
        finally:
            with contextlib.suppress(psycopg.Error):
                raw.autocommit = False
    except psycopg.Error:
        return None
    return {r[0] for r in rows}
