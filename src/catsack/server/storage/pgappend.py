"""A batch of move appends on PostgreSQL in one statement and one round trip.

:meth:`catsack.server.storage.store.Store.append_batch` writes a group commit's moves as a transaction
of two statements executed once per move (SQLAlchemy, psycopg's pipeline): four round trips with
``BEGIN`` and ``COMMIT``, and most of a server's CPU per move went to preparing and sending them. On
PostgreSQL the same change is one statement, run on its own (autocommit, so it is its own
transaction): the moves travel as one JSON array (one parameter: adapting a list per column cost more
than the statement), each table moves from ``prev`` to ``version`` only where it is still at ``prev``
(and a person's seat still holds the token the move came with), and exactly the moves of the tables
that moved are inserted into the log. The tables that did not move come back as conflicts, as the two
statements would have found them.

:class:`AsyncAppender` runs the statement on a connection of its own on the event loop, so that a
move's write needs no thread (the server's writer, :mod:`catsack.server.tables.writer`);
:func:`append_moves` runs it on a connection of the pool. Anything unexpected (an error of the database
or of the connection, a connection inside a transaction) answers ``None`` having written nothing, and
the caller writes the batch the general way, which reports the error as it always did.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from catsack.server.storage.store import Append

__all__ = ["APPEND_SQL", "AsyncAppender", "append_moves", "table_params"]

#: The batch as a JSON array of objects (:func:`_params`), and the commit time.
APPEND_SQL = """
WITH b AS (
    SELECT * FROM json_to_recordset(%s::json) AS b(
        id text, prev int, version int, status text, deadline float8, finished float8, to_move int,
        clock text, seat int, token text, move text, action_id text, actor text
    )
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


def table_params(it: Append, now: float) -> dict[str, Any]:
    """What the move ``it`` writes in its table's row, and ``prev``: the version the row must still have."""
    return {
        "id": it.table_id,
        "prev": it.version - 1,
        "version": it.version,
        "status": it.status,
        "deadline": it.deadline,
        "finished": now if it.status == "over" else None,
        "to_move": it.to_move,
        "clock": it.clock,
        "seat": it.seat,
        "token": it.token_hash,
    }


def _params(items: Sequence[Append], now: float) -> tuple[str, float]:
    """The statement's parameters: the moves as JSON, and ``now``."""
    rows = [{**table_params(it, now), "move": it.move, "action_id": it.action_id, "actor": it.actor} for it in items]
    return orjson.dumps(rows).decode(), now


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
            rows = raw.execute(APPEND_SQL, _params(items, now)).fetchall()
        finally:
            with contextlib.suppress(psycopg.Error):
                raw.autocommit = False
    except psycopg.Error:
        return None
    return {r[0] for r in rows}


class AsyncAppender:
    """:func:`append_moves` on the event loop, on a connection of its own (opened when first needed,
    with ``connect``'s keyword arguments; after a failure not tried again for :attr:`PAUSE` seconds)."""

    PAUSE = 1.0

    def __init__(self, connect: dict[str, Any], *, delay: float = 0.0) -> None:
        self.connect = connect
        self.delay = delay  # the store's test hook: a slow write
        self.conn: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None  # the event loop ``conn`` was made on
        self.paused_until = 0.0
        self.failures = 0

    async def append(self, items: Sequence[Append]) -> set[str] | None:
        """The ids of the tables whose move was written, or ``None`` when nothing was."""
        import psycopg

        conn = await self._connection()
        if conn is None:
            return None
        if self.delay:
            await asyncio.sleep(self.delay)
        try:
            cur = await conn.execute(APPEND_SQL, _params(items, time.time()))
            rows = await cur.fetchall()
        except (psycopg.Error, OSError, RuntimeError):
            await self._failed()
            return None
        return {r[0] for r in rows}

    async def _connection(self) -> Any:
        loop = asyncio.get_running_loop()
        if self.conn is not None and not self.conn.closed and self.loop is loop:
            return self.conn
        if self.conn is not None:  # broken, or made on an event loop that is gone: close it without that loop
            with contextlib.suppress(Exception):
                self.conn.pgconn.finish()
            self.conn = None
        if time.monotonic() < self.paused_until:
            return None
        import psycopg

        try:
            self.conn = await psycopg.AsyncConnection.connect(autocommit=True, **self.connect)
        except (psycopg.Error, OSError):
            await self._failed()
            return None
        self.loop = loop
        return self.conn

    async def _failed(self) -> None:
        self.failures += 1
        self.paused_until = time.monotonic() + self.PAUSE
        await self.close()

    async def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()
