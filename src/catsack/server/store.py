"""Persistence: each table is its setup plus an append-only action log (SQLAlchemy Core).

SQLite (WAL) by default, PostgreSQL by URL. The action log's primary key
``(table_id, version)`` is what stops two server processes from both
appending move ``v`` to one table: the second insert fails and that process
catches up from the log instead. Every write is one short transaction, and a
move is committed before anyone is told about it.

The methods are synchronous (the server calls them in a worker thread).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

__all__ = ["ActionRow", "Append", "AppendConflict", "SeatRow", "Store", "TableRow"]

metadata = MetaData()

tables_t = Table(
    "tables",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("seats", Integer, nullable=False),
    Column("options", Text, nullable=False),  # JSON: money_visible, turn_seconds, hints
    Column("setup", Text, nullable=False),  # JSON: start, removed, dummy (never sent to clients)
    Column("status", String(16), nullable=False),  # open | playing | over
    Column("version", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Float, nullable=True),
    Column("deadline", Float, nullable=True),  # turn timer: epoch seconds, stored so it survives restarts
)

seats_t = Table(
    "seats",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),  # open | human | bot
    Column("name", String(40), nullable=True),
    Column("bot", String(40), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("replaced", Boolean, nullable=False, default=False),
)

actions_t = Table(
    "actions",
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("version", Integer, primary_key=True),  # 1 for the first move; unique per table
    Column("seat", Integer, nullable=False),
    Column("move", String(24), nullable=False),
    Column("action_id", String(64), nullable=True),  # the client's id; NULL for bot and timer moves
    Column("actor", String(8), nullable=False),  # human | bot | timer
    Column("created", Float, nullable=False),
)


class AppendConflict(Exception):
    """Another writer appended this version first (or the table is not where the writer thought)."""


@dataclass(frozen=True, slots=True)
class Append:
    """One move to append: the table, its new version, who played what, and the table's new state."""

    table_id: str
    version: int
    seat: int
    move: str
    action_id: str | None
    actor: str
    status: str
    deadline: float | None


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    kind: str
    name: str | None
    bot: str | None
    token_hash: str | None
    replaced: bool


@dataclass(frozen=True, slots=True)
class ActionRow:
    version: int
    seat: int
    move: str
    action_id: str | None
    actor: str


@dataclass(frozen=True, slots=True)
class TableRow:
    id: str
    name: str
    seats: int
    options: dict[str, Any]
    setup: dict[str, Any]
    status: str
    version: int
    created: float
    finished: float | None
    deadline: float | None


def _table_row(r: Any) -> TableRow:
    return TableRow(
        id=r.id,
        name=r.name,
        seats=r.seats,
        options=json.loads(r.options),
        setup=json.loads(r.setup),
        status=r.status,
        version=r.version,
        created=r.created,
        finished=r.finished,
        deadline=r.deadline,
    )


def _seat_row(r: Any) -> SeatRow:
    return SeatRow(r.seat, r.kind, r.name, r.bot, r.token_hash, bool(r.replaced))


def make_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and foreign keys."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(conn: Any, _record: Any) -> None:
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: committed data survives a process kill
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


class Store:
    """All reads and writes of tables, seats and actions."""

    def __init__(self, url: str, *, write_delay: float = 0.0) -> None:
        self.url = url
        self.engine = make_engine(url)
        #: Test hook (checklist case 5): sleep inside every write transaction.
        self.write_delay = write_delay
        self._create_schema()

    def _create_schema(self) -> None:
        """Create the tables if missing. Two processes starting at once on an empty PostgreSQL
        database can race inside CREATE TABLE; an advisory lock serialises them."""
        if self.engine.dialect.name == "postgresql":
            with self.engine.begin() as conn:
                conn.execute(text("SELECT pg_advisory_xact_lock(7303)"))  # arbitrary key: "catsack schema"
                metadata.create_all(conn)
        else:
            metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    def _delay(self) -> None:
        if self.write_delay:
            time.sleep(self.write_delay)

    # ------------------------------------------------------------------ writes

    def create_table(
        self,
        table_id: str,
        name: str,
        seats: Sequence[SeatRow],
        options: dict[str, Any],
        setup: dict[str, Any],
        status: str,
    ) -> None:
        with self.engine.begin() as conn:
            self._delay()
            conn.execute(
                insert(tables_t).values(
                    id=table_id,
                    name=name,
                    seats=len(seats),
                    options=json.dumps(options),
                    setup=json.dumps(setup),
                    status=status,
                    version=0,
                    created=time.time(),
                    finished=None,
                    deadline=None,
                )
            )
            conn.execute(
                insert(seats_t),
                [
                    {
                        "table_id": table_id,
                        "seat": s.seat,
                        "kind": s.kind,
                        "name": s.name,
                        "bot": s.bot,
                        "token_hash": s.token_hash,
                        "replaced": s.replaced,
                    }
                    for s in seats
                ],
            )

    def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> bool:
        """Give an open seat to a person; ``False`` if someone took it first (atomic)."""
        return self._change_seat(table_id, seat, "open", kind="human", name=name, token_hash=token_hash)

    def set_status(self, table_id: str, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(status=status))

    def replace_with_bot(self, table_id: str, seat: int, bot: str) -> bool:
        """A bot takes a human's seat; the seat's token stops working (checklist 8).

        The token's hash stays, marked ``replaced``, so its holder can be told what happened."""
        return self._change_seat(table_id, seat, "human", kind="bot", bot=bot, replaced=True)

    def _change_seat(self, table_id: str, seat: int, was: str, **values: Any) -> bool:
        """Update a seat only while it is of kind ``was``; ``False`` if it is not (atomic)."""
        with self.engine.begin() as conn:
            self._delay()
            res = conn.execute(
                update(seats_t)
                .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat, seats_t.c.kind == was)
                .values(**values)
            )
            return res.rowcount == 1

    def append(
        self,
        table_id: str,
        version: int,
        seat: int,
        move: str,
        action_id: str | None,
        actor: str,
        *,
        status: str,
        deadline: float | None,
    ) -> None:
        """Append move number ``version`` (1-based) in one transaction; raise :class:`AppendConflict`
        if that version exists already or the table moved on."""
        error = self.append_batch([Append(table_id, version, seat, move, action_id, actor, status, deadline)])[0]
        if error is not None:
            raise error

    def append_batch(self, items: Sequence[Append]) -> list[AppendConflict | None]:
        """Append moves of different tables in one transaction (a group commit); per item ``None``
        or the :class:`AppendConflict` that refused it. A table's version moves from ``v - 1`` to
        ``v`` only where it is still ``v - 1`` (the row lock serialises writers); the action log's
        primary key is the backstop."""
        now = time.time()
        results: list[AppendConflict | None] = []
        try:
            with self.engine.begin() as conn:
                self._delay()
                rows = []
                for it in items:
                    res = conn.execute(
                        update(tables_t)
                        .where(tables_t.c.id == it.table_id, tables_t.c.version == it.version - 1)
                        .values(
                            version=it.version,
                            status=it.status,
                            deadline=it.deadline,
                            finished=now if it.status == "over" else None,
                        )
                    )
                    if res.rowcount != 1:
                        results.append(AppendConflict(f"table {it.table_id} is no longer at version {it.version - 1}"))
                        continue
                    results.append(None)
                    rows.append(
                        {
                            "table_id": it.table_id,
                            "version": it.version,
                            "seat": it.seat,
                            "move": it.move,
                            "action_id": it.action_id,
                            "actor": it.actor,
                            "created": now,
                        }
                    )
                if rows:
                    conn.execute(insert(actions_t), rows)
        except IntegrityError:
            if len(items) == 1:
                it = items[0]
                return [AppendConflict(f"version {it.version} of table {it.table_id} was written by another process")]
            return [r for it in items for r in self.append_batch([it])]  # find the one that clashed
        return results

    def set_deadline(self, table_id: str, version: int, deadline: float | None) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(tables_t)
                .where(tables_t.c.id == table_id, tables_t.c.version == version)
                .values(deadline=deadline)
            )

    # ------------------------------------------------------------------ reads

    def load(self, table_id: str) -> tuple[TableRow, list[SeatRow], list[ActionRow]] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None:
                return None
            seats = conn.execute(select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat))
            actions = conn.execute(
                select(actions_t).where(actions_t.c.table_id == table_id).order_by(actions_t.c.version)
            )
            return (
                _table_row(row),
                [_seat_row(s) for s in seats],
                [ActionRow(a.version, a.seat, a.move, a.action_id, a.actor) for a in actions],
            )

    def actions_since(self, table_id: str, version: int) -> list[ActionRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(actions_t)
                .where(actions_t.c.table_id == table_id, actions_t.c.version > version)
                .order_by(actions_t.c.version)
            )
            return [ActionRow(a.version, a.seat, a.move, a.action_id, a.actor) for a in rows]

    def seats(self, table_id: str) -> list[SeatRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat))
            return [_seat_row(s) for s in rows]

    def table(self, table_id: str) -> TableRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            return None if row is None else _table_row(row)

    def list_tables(self, status: str, limit: int = 100) -> list[tuple[TableRow, list[SeatRow]]]:
        order = tables_t.c.finished.desc() if status == "over" else tables_t.c.created.desc()
        with self.engine.connect() as conn:
            rows = [
                _table_row(r)
                for r in conn.execute(select(tables_t).where(tables_t.c.status == status).order_by(order).limit(limit))
            ]
            out = []
            for t in rows:
                seats = conn.execute(select(seats_t).where(seats_t.c.table_id == t.id).order_by(seats_t.c.seat))
                out.append((t, [_seat_row(s) for s in seats]))
            return out

    def unfinished_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(select(tables_t.c.id).where(tables_t.c.status != "over"))]
