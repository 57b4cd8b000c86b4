"""Persistence: each table is its setup plus an append-only action log (SQLAlchemy Core).

SQLite (WAL) by default, PostgreSQL by URL. The action log's primary key
``(table_id, version)`` is what stops two server processes from both
appending move ``v`` to one table: the second insert fails and that process
catches up from the log instead. Every write is one short transaction, and a
move is committed before anyone is told about it.

With several processes, one of them drives each table's bots and timers: the
holder of the table's lease. The leases and the processes' heartbeats are
:mod:`catsack.server.storage.leases`, reached as ``store.leases``; the tables
themselves are :mod:`catsack.server.storage.schema`.

The schema is versioned with Alembic (``catsack.server.migrations``): a new
database is created at the newest revision, an older one is upgraded (or
refused, see :func:`catsack.server.migrations.prepare`).

The methods are synchronous (the server calls them in a worker thread).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    String,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy import column as sql_column
from sqlalchemy import table as sql_table
from sqlalchemy.exc import IntegrityError

from catsack.server.migrations import prepare
from catsack.server.storage.leases import Leases, alive_holders, lease_free
from catsack.server.storage.pgappend import AsyncAppender, append_moves, table_params
from catsack.server.storage.schema import actions_t, chat_t, leases_t, metadata, processes_t, seats_t, tables_t

# The tables (schema) and the lease conditions (leases) are named here too, where the other rooms have
# always imported them from.
__all__ = [
    "ActionRow",
    "Append",
    "AppendConflict",
    "SeatHeld",
    "SeatRow",
    "Store",
    "TableRow",
    "actions_t",
    "alive_holders",
    "append_results",
    "chat_t",
    "lease_free",
    "leases_t",
    "make_engine",
    "metadata",
    "processes_t",
    "seats_t",
    "tables_t",
]

#: A person's move is written only while the seat is still that person's: ``b_token`` (the hash of
#: the token the move came with) still holds the seat in the same statement. ``None`` for a bot's or a
#: timer's move. Another process may have given the seat to a bot or to a new token a moment ago,
#: before this process heard of it.
_TOKEN = bindparam("b_token", type_=String)
_SEAT_STILL_HELD = exists().where(
    seats_t.c.table_id == bindparam("b_id"),
    seats_t.c.seat == bindparam("b_seat"),
    seats_t.c.kind == "human",
    seats_t.c.token_hash == _TOKEN,
)

#: A move's change to its table (:meth:`Store.append_batch`), built once: a table moves from version
#: ``b_prev`` to ``b_version`` only where it is still at ``b_prev`` (and a person's seat still theirs,
#: above). Executed with one parameter set per move of a batch, so that a group commit costs two
#: statements however many moves it holds.
_APPEND_TABLE = (
    update(tables_t)
    .where(
        tables_t.c.id == bindparam("b_id"),
        tables_t.c.version == bindparam("b_prev"),
        or_(_TOKEN.is_(None), _SEAT_STILL_HELD),
    )
    .values(
        version=bindparam("b_version"),
        status=bindparam("b_status"),
        deadline=bindparam("b_deadline"),
        finished=bindparam("b_finished"),
        to_move=bindparam("b_to_move"),
        clock=bindparam("b_clock"),
    )
)


def _refused(it: Append) -> str:
    if it.token_hash is None:
        return f"table {it.table_id} is no longer at version {it.version - 1}"
    return f"table {it.table_id} is no longer at version {it.version - 1}, or seat {it.seat} is no longer this token's"


def append_results(items: Sequence[Append], moved: set[str]) -> list[AppendConflict | None]:
    """Per item of a batch of moves of different tables, ``None`` where its table moved (``moved``: their
    ids), else the :class:`AppendConflict` that refused it."""
    return [None if it.table_id in moved else AppendConflict(_refused(it)) for it in items]


class _ShortBatch(Exception):
    """A group commit found a table that is no longer where its move expected (rolled back)."""


class AppendConflict(Exception):
    """Another writer appended this version first (or the table is not where the writer thought)."""


class SeatHeld(Exception):
    """The account already holds a seat at this table (one account, one seat: revision 0007's key)."""

    def __init__(self, seat: int | None) -> None:
        super().__init__(f"the account already holds seat {seat} at this table")
        self.seat = seat


# The account bound to a seat (accounts.py defines the table, revision 0003): named here, not imported,
# so the store stays the bottom layer.
_seat_users = sql_table("seat_users", sql_column("table_id"), sql_column("seat"), sql_column("user_id"))
# The accounts that are bots (botaccounts.py defines the table, revision 0015), named here likewise: a
# seat bound to one is shown as a bot's.
_bot_accounts = sql_table("bot_accounts", sql_column("user_id"))


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
    #: The seat to move after this move (``None`` once the game is over).
    to_move: int | None = None
    #: A turn-based table's clock after this move (JSON), ``None`` for a real-time table.
    clock: str | None = None
    #: A person's move: the hash of the token it came with, which must still hold the seat when the
    #: move is written (``None``: not checked, for bots' and timers' moves).
    token_hash: str | None = None


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    kind: str
    name: str | None
    bot: str | None
    token_hash: str | None
    replaced: bool
    #: The account bound to the seat (``None``: a guest, a bot, an open seat).
    user_id: int | None = None
    #: Epoch seconds a process last saw a connection of this seat (presence across processes).
    seen: float | None = None
    #: Whether the account bound to the seat is a bot account (a program playing over the bot API).
    bot_account: bool = False


@dataclass(frozen=True, slots=True)
class ActionRow:
    version: int
    seat: int
    move: str
    action_id: str | None
    actor: str
    #: Epoch seconds the move was committed (when the next seat's turn began).
    created: float | None = None


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
    to_move: int | None = None
    clock: str | None = None


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
        to_move=r.to_move,
        clock=r.clock,
    )


def _seat_row(r: Any) -> SeatRow:
    return SeatRow(
        r.seat,
        r.kind,
        r.name,
        r.bot,
        r.token_hash,
        bool(r.replaced),
        getattr(r, "user_id", None),
        r.seen,
        bool(getattr(r, "bot_account", False)),
    )


def _seats_query(table_id: str, seat: int | None = None) -> Any:
    """A table's seats in order (or its one ``seat``), each with the account bound to it (if any) and
    whether that account is a bot account."""
    query = (
        select(seats_t, _seat_users.c.user_id, _bot_accounts.c.user_id.is_not(None).label("bot_account"))
        .select_from(
            seats_t.outerjoin(
                _seat_users, (_seat_users.c.table_id == seats_t.c.table_id) & (_seat_users.c.seat == seats_t.c.seat)
            ).outerjoin(_bot_accounts, _bot_accounts.c.user_id == _seat_users.c.user_id)
        )
        .where(seats_t.c.table_id == table_id)
        .order_by(seats_t.c.seat)
    )
    return query if seat is None else query.where(seats_t.c.seat == seat)


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

    def __init__(self, url: str, *, write_delay: float = 0.0, upgrade: bool = True) -> None:
        """Open the database at ``url``: create the schema in an empty one; bring an older one to the
        newest revision when ``upgrade``, else refuse it (:class:`~catsack.server.migrations.SchemaError`)."""
        self.url = url
        self.engine = make_engine(url)
        #: Test hook (checklist case 5): sleep inside every write transaction.
        self.write_delay = write_delay
        #: Moves are appended in one statement (PostgreSQL with psycopg), else in two per batch.
        self.one_statement = self.engine.dialect.name == "postgresql" and self.engine.dialect.driver == "psycopg"
        #: The tables' leases and the processes' heartbeats (which process drives which table).
        self.leases = Leases(self.engine)
        try:
            self.schema = prepare(self.engine, upgrade=upgrade)
        except Exception:
            self.engine.dispose()
            raise

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
        *,
        clock: str | None = None,
    ) -> None:
        """A new table with its seats; ``clock`` makes it a turn-based table (catsack.server.tables.turnbased)."""
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
                    to_move=int(setup["start"]),
                    clock=clock,
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

    def claim_seat(
        self, table_id: str, seat: int, name: str, token_hash: str, user_id: int | None = None
    ) -> SeatRow | None:
        """Give an open seat to a person: the seat as it is stored now (with whether its account is a bot
        account), or ``None`` if someone took it first (atomic). With ``user_id`` the seat is bound to
        that account in the same transaction; :class:`SeatHeld` if the account holds another seat of the
        table already (nothing changes then)."""
        try:
            with self.engine.begin() as conn:
                self._delay()
                res = conn.execute(
                    update(seats_t)
                    .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat, seats_t.c.kind == "open")
                    .values(kind="human", name=name, token_hash=token_hash)
                )
                if res.rowcount != 1:
                    return None
                if user_id is not None:
                    conn.execute(insert(_seat_users).values(table_id=table_id, seat=seat, user_id=user_id))
                return _seat_row(conn.execute(_seats_query(table_id, seat)).one())
        except IntegrityError:
            with self.engine.connect() as conn:
                held = conn.execute(
                    select(_seat_users.c.seat).where(
                        _seat_users.c.table_id == table_id, _seat_users.c.user_id == user_id
                    )
                ).scalar()
            raise SeatHeld(None if held is None else int(held)) from None

    def set_status(self, table_id: str, status: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(status=status))

    def seat_bot(self, table_id: str, seat: int, bot: str) -> bool:
        """A bot takes an open seat (the host fills a waiting table); ``False`` if someone took it first."""
        return self._change_seat(table_id, seat, "open", kind="bot", bot=bot)

    def replace_with_bot(self, table_id: str, seat: int, bot: str) -> bool:
        """A bot takes a human's seat; the seat's token stops working.

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
        token_hash: str | None = None,
    ) -> None:
        """Append move number ``version`` (1-based) in one transaction; raise :class:`AppendConflict`
        if that version exists already or the table moved on, or (with ``token_hash``) if that token
        no longer holds the seat."""
        item = Append(table_id, version, seat, move, action_id, actor, status, deadline, token_hash=token_hash)
        error = self.append_batch([item])[0]
        if error is not None:
            raise error

    def append_batch(self, items: Sequence[Append], conn: Connection | None = None) -> list[AppendConflict | None]:
        """Append moves of different tables in one transaction (a group commit); per item ``None``
        or the :class:`AppendConflict` that refused it. A table's version moves from ``v - 1`` to
        ``v`` only where it is still ``v - 1`` (the row lock serialises writers); the action log's
        primary key is the backstop. ``conn``: a connection of the caller's to write on (the server's
        writer keeps one while it is busy, which saves a pool check-out and its ping per batch)."""
        now = time.time()
        if self.one_statement and len({it.table_id for it in items}) == len(items):
            moved = self._append_one_statement(items, conn, now)
            if moved is not None:
                return append_results(items, moved)
        params = [{f"b_{k}": v for k, v in table_params(it, now).items()} for it in items]
        rows = [
            {
                "table_id": it.table_id,
                "version": it.version,
                "seat": it.seat,
                "move": it.move,
                "action_id": it.action_id,
                "actor": it.actor,
                "created": now,
            }
            for it in items
        ]
        try:
            if len({it.table_id for it in items}) == len(items):
                # The usual case: one statement moves every table of the batch; a table that moved
                # elsewhere meanwhile shows as a short row count, and the batch is rolled back and done
                # again item by item below to find it.
                with contextlib.suppress(_ShortBatch), self._transaction(conn) as tx:
                    self._delay()
                    if tx.execute(_APPEND_TABLE, params).rowcount != len(items):
                        raise _ShortBatch
                    tx.execute(insert(actions_t), rows)
                    return [None] * len(items)
            results: list[AppendConflict | None] = []
            with self._transaction(conn) as tx:
                self._delay()
                kept = []
                for it, par, row in zip(items, params, rows, strict=True):
                    if tx.execute(_APPEND_TABLE, par).rowcount != 1:
                        results.append(AppendConflict(_refused(it)))
                        continue
                    results.append(None)
                    kept.append(row)
                if kept:
                    tx.execute(insert(actions_t), kept)
        except IntegrityError:
            if len(items) == 1:
                it = items[0]
                return [AppendConflict(f"version {it.version} of table {it.table_id} was written by another process")]
            return [r for it in items for r in self.append_batch([it], conn)]  # find the one that clashed
        return results

    def _append_one_statement(self, items: Sequence[Append], conn: Connection | None, now: float) -> set[str] | None:
        """PostgreSQL: the batch in one statement (:mod:`catsack.server.storage.pgappend`); the tables that
        moved, or ``None`` when nothing was written."""
        if conn is None:
            with self.engine.connect() as pooled:
                return self._append_one_statement(items, pooled, now)
        self._delay()
        return append_moves(conn.connection.driver_connection, items, now)

    def async_appender(self) -> AsyncAppender | None:
        """Appends on the event loop, on a connection of their own (PostgreSQL with psycopg), else ``None``."""
        if not self.one_statement:
            return None
        _args, kwargs = self.engine.dialect.create_connect_args(self.engine.url)
        kwargs.pop("context", None)  # SQLAlchemy's adapters: the appender's statement needs none
        return AsyncAppender(dict(kwargs), delay=self.write_delay)

    @contextlib.contextmanager
    def _transaction(self, conn: Connection | None) -> Iterator[Connection]:
        """A transaction on ``conn``, or on a connection from the pool when ``None``."""
        if conn is None:
            with self.engine.begin() as pooled:
                yield pooled
        else:
            with conn.begin():
                yield conn

    def set_deadline(self, table_id: str, version: int, deadline: float | None, *, clock: str | None = None) -> None:
        """Store the running turn's deadline (and a turn-based table's ``clock``) while at ``version``."""
        values: dict[str, Any] = {"deadline": deadline}
        if clock is not None:
            values["clock"] = clock
        with self.engine.begin() as conn:
            conn.execute(
                update(tables_t).where(tables_t.c.id == table_id, tables_t.c.version == version).values(**values)
            )

    def touch_seats(self, seats: Sequence[tuple[str, int]], now: float | None = None) -> None:
        """Mark ``(table, seat)`` pairs as connected right now, for the other processes' grace periods."""
        if not seats:
            return
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            conn.execute(
                update(seats_t)
                .where(seats_t.c.table_id == bindparam("t"), seats_t.c.seat == bindparam("s"))
                .values(seen=bindparam("now")),
                [{"t": t, "s": s, "now": now} for t, s in seats],
            )

    # ------------------------------------------------------------------ retention

    def finished_before(self, before: float, limit: int = 500) -> list[str]:
        """Finished games whose game ended before ``before`` (epoch seconds), oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tables_t.c.id)
                .where(tables_t.c.status == "over", tables_t.c.finished < before)
                .order_by(tables_t.c.finished)
                .limit(limit)
            )
            return [r.id for r in rows]

    def delete_tables(self, table_ids: Sequence[str]) -> int:
        """Delete tables with their seats, action logs and leases; the number of tables deleted."""
        ids = list(table_ids)
        if not ids:
            return 0
        with self.engine.begin() as conn:
            # Rows of other modules' tables that belong to a game (chat, account seats, analyses,
            # rematch links; revisions 0003 and 0004) go with it: named here, not imported, so the
            # store stays the bottom layer. Ratings history stays: ratings do not change back.
            for name in ("chat", "seat_users", "analyses", "rematches"):
                owned = sql_table(name, sql_column("table_id"))
                conn.execute(delete(owned).where(owned.c.table_id.in_(ids)))
            conn.execute(delete(actions_t).where(actions_t.c.table_id.in_(ids)))
            conn.execute(delete(seats_t).where(seats_t.c.table_id.in_(ids)))
            conn.execute(delete(leases_t).where(leases_t.c.table_id.in_(ids)))
            return int(conn.execute(delete(tables_t).where(tables_t.c.id.in_(ids))).rowcount)

    # ------------------------------------------------------------------ reads

    def load(self, table_id: str) -> tuple[TableRow, list[SeatRow], list[ActionRow]] | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None:
                return None
            seats = conn.execute(_seats_query(table_id))
            actions = conn.execute(
                select(actions_t).where(actions_t.c.table_id == table_id).order_by(actions_t.c.version)
            )
            return (
                _table_row(row),
                [_seat_row(s) for s in seats],
                [ActionRow(a.version, a.seat, a.move, a.action_id, a.actor, a.created) for a in actions],
            )

    def actions_since(self, table_id: str, version: int) -> list[ActionRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(actions_t)
                .where(actions_t.c.table_id == table_id, actions_t.c.version > version)
                .order_by(actions_t.c.version)
            )
            return [ActionRow(a.version, a.seat, a.move, a.action_id, a.actor, a.created) for a in rows]

    def changes(self, table_id: str, version: int) -> tuple[list[ActionRow], list[SeatRow], TableRow | None]:
        """What a process catching up on a table reads: the actions after ``version``, the seats and
        the table's row, in one connection."""
        with self.engine.connect() as conn:
            actions = conn.execute(
                select(actions_t)
                .where(actions_t.c.table_id == table_id, actions_t.c.version > version)
                .order_by(actions_t.c.version)
            )
            found = [ActionRow(a.version, a.seat, a.move, a.action_id, a.actor, a.created) for a in actions]
            seat_rows = [_seat_row(r) for r in conn.execute(_seats_query(table_id))]
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            return found, seat_rows, None if row is None else _table_row(row)

    def seats(self, table_id: str) -> list[SeatRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(_seats_query(table_id))
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
                seats = conn.execute(_seats_query(t.id))
                out.append((t, [_seat_row(s) for s in seats]))
            return out

    def versions(self, table_ids: Sequence[str]) -> dict[str, int]:
        """The stored version of each of ``table_ids`` that exists (one query: the version-gap sweep)."""
        out: dict[str, int] = {}
        ids = list(table_ids)
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                rows = conn.execute(
                    select(tables_t.c.id, tables_t.c.version).where(tables_t.c.id.in_(ids[i : i + 500]))
                )
                out.update((r.id, r.version) for r in rows)
        return out

    def seen(self, table_id: str) -> dict[int, float | None]:
        """Per seat, when a process last saw it connected (epoch seconds; ``None``: never)."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(seats_t.c.seat, seats_t.c.seen).where(seats_t.c.table_id == table_id))
            return {r.seat: r.seen for r in rows}

    def unfinished_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return [r.id for r in conn.execute(select(tables_t.c.id).where(tables_t.c.status != "over"))]
