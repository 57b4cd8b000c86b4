"""Which process drives each table: the leases (``table_leases``) and the processes' heartbeats
(``server_processes``).

With several processes, one of them drives each table's bots and timers: the holder of the table's row
in ``table_leases``. A lease is valid while its holder lives, which each process shows by renewing its
own row in ``server_processes`` (one write however many tables it holds); a holder whose row has run out
is dead, and another process adopts its leases (:meth:`Leases.heartbeat`, :meth:`Leases.adopt`).

A :class:`~catsack.server.storage.store.Store` holds one :class:`Leases` on its engine, ``store.leases``.
The methods are synchronous (the server calls them in a worker thread).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Engine, Table, bindparam, case, delete, or_, select, update

from catsack.server.storage.schema import leases_t, processes_t

__all__ = ["Leases", "alive_holders", "lease_free"]

#: One beat (:meth:`Leases.heartbeat`), built once: renew ``b_holder``'s row and return it with the rows
#: that ran out (their holders are dead). It runs a few times a second in every process; building the
#: statement at each beat cost about twice the CPU of the beat itself (0.59 against 0.26 ms a beat,
#: PostgreSQL).
_MINE = processes_t.c.holder == bindparam("b_holder")
_HEARTBEAT = (
    update(processes_t)
    .where(_MINE | (processes_t.c.expires < bindparam("b_now")))
    .values(expires=case((_MINE, bindparam("b_until")), else_=processes_t.c.expires))
    .returning(processes_t.c.holder)
)


def _upsert(dialect: str, table: Table = leases_t) -> Any:
    """``INSERT … ON CONFLICT`` for ``table``, in the dialect's own form (both have it)."""
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)


def alive_holders(now: float) -> Any:
    """The holders whose heartbeat has not run out at ``now`` (a subquery)."""
    return select(processes_t.c.holder).where(processes_t.c.expires >= now)


def lease_free(now: float, holder: str) -> Any:
    """A condition on ``table_leases`` (outer-joined to a query's tables): the table has no lease, or
    ``holder`` holds it, or its holder is dead (its heartbeat ran out before ``now``)."""
    return or_(leases_t.c.table_id.is_(None), leases_t.c.holder == holder, leases_t.c.holder.not_in(alive_holders(now)))


class Leases:
    """The leases of tables and the heartbeats of the processes that hold them, on ``engine``."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _beat(self, conn: Connection, holder: str, until: float) -> None:
        stmt = _upsert(self.engine.dialect.name, processes_t).values(holder=holder, expires=until)
        conn.execute(stmt.on_conflict_do_update(index_elements=[processes_t.c.holder], set_={"expires": until}))

    def heartbeat(
        self, holder: str, seconds: float, now: float | None = None, *, conn: Connection | None = None
    ) -> list[str]:
        """Show that ``holder`` lives until ``now + seconds`` (one row, however many leases it holds);
        the other holders whose heartbeat has run out (dead: their leases are free to adopt).
        ``conn``: a connection kept for the beats, in autocommit mode (required): a beat is then one
        statement and one round trip, a few times a second."""
        now = time.time() if now is None else now
        if conn is None:
            with self.engine.connect() as own:
                return self.heartbeat(holder, seconds, now, conn=own.execution_options(isolation_level="AUTOCOMMIT"))
        rows = conn.execute(_HEARTBEAT, {"b_holder": holder, "b_until": now + seconds, "b_now": now}).all()
        if not any(r.holder == holder for r in rows):  # the first beat
            self._beat(conn, holder, now + seconds)
        return sorted(r.holder for r in rows if r.holder != holder)

    def retire(self, holder: str) -> None:
        """``holder`` stops: its heartbeat ends now, so the other processes adopt its leases at once."""
        with self.engine.begin() as conn:
            conn.execute(update(processes_t).where(processes_t.c.holder == holder).values(expires=0.0))

    def adopt(
        self, holder: str, seconds: float, dead: Sequence[str] | None = None, now: float | None = None
    ) -> set[str]:
        """Take over the leases of dead holders: those named in ``dead`` (from :meth:`heartbeat`), or
        with ``dead=None`` every holder that is not alive (a process starting). Returns the tables
        taken. Two processes adopting at once are serialised by the rows: a lease moves once."""
        now = time.time() if now is None else now
        until = now + seconds
        with self.engine.begin() as conn:
            self._beat(conn, holder, until)
            stmt = update(leases_t).values(holder=holder, expires=until)
            if dead is None:
                stmt = stmt.where(leases_t.c.holder != holder, leases_t.c.holder.not_in(alive_holders(now)))
            else:
                stmt = stmt.where(leases_t.c.holder.in_(list(dead)), leases_t.c.holder.not_in(alive_holders(now)))
            taken = {r.table_id for r in conn.execute(stmt.returning(leases_t.c.table_id))}
            gone = delete(processes_t).where(processes_t.c.expires < now, processes_t.c.holder != holder)
            conn.execute(gone if dead is None else gone.where(processes_t.c.holder.in_(list(dead))))
            return taken

    def sync_leases(
        self, holder: str, want: Sequence[str], seconds: float, now: float | None = None, *, release: Sequence[str] = ()
    ) -> set[str]:
        """Renew ``holder``'s heartbeat until ``now + seconds``, take the leases of ``want`` that are
        free or held by a dead process, give up those in ``release``. Returns every table this holder
        now holds a lease of. One transaction; two processes taking one lease at once are serialised
        by the row (an upsert whose update applies only to its own lease or a dead holder's). Leases
        are given up only when named: a table leased by another task while this runs keeps its lease."""
        now = time.time() if now is None else now
        until = now + seconds
        wanted = set(want) - set(release)
        with self.engine.begin() as conn:
            self._beat(conn, holder, until)
            if release:
                self._delete_leases(conn, holder, set(release))
            mine = {r.table_id for r in conn.execute(select(leases_t.c.table_id).where(leases_t.c.holder == holder))}
            free = sorted(wanted - mine)
            if free:
                mine |= self._take_leases(conn, holder, free, now, until)
            return mine

    def release_leases_of_others(self, holder: str) -> int:
        """Delete every lease not held by ``holder`` (a lone process starting after a crash); how many."""
        with self.engine.begin() as conn:
            conn.execute(delete(processes_t).where(processes_t.c.holder != holder))
            return int(conn.execute(delete(leases_t).where(leases_t.c.holder != holder)).rowcount)

    def take_leases(self, holder: str, table_ids: Sequence[str], seconds: float, now: float | None = None) -> set[str]:
        """Take the leases of ``table_ids`` that are free, a dead holder's or ours already; the ones held."""
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            self._beat(conn, holder, now + seconds)
            return self._take_leases(conn, holder, sorted(set(table_ids)), now, now + seconds)

    def _take_leases(self, conn: Connection, holder: str, ids: list[str], now: float, until: float) -> set[str]:
        ins = _upsert(self.engine.dialect.name)
        stmt = ins.values(table_id=bindparam("t"), holder=holder, expires=until).on_conflict_do_update(
            index_elements=[leases_t.c.table_id],
            set_={"holder": holder, "expires": until},
            where=(leases_t.c.holder == holder) | leases_t.c.holder.not_in(alive_holders(now)),
        )
        conn.execute(stmt, [{"t": t} for t in ids])
        got: set[str] = set()
        for i in range(0, len(ids), 500):
            got.update(
                r.table_id
                for r in conn.execute(
                    select(leases_t.c.table_id).where(
                        leases_t.c.holder == holder, leases_t.c.table_id.in_(ids[i : i + 500])
                    )
                )
            )
        return got

    def hand_lease(self, holder: str, to: str, table_id: str) -> bool:
        """Give the lease of ``table_id`` from ``holder`` to ``to`` (the process its players are
        connected to); ``False`` if ``holder`` no longer held it."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(leases_t).where(leases_t.c.table_id == table_id, leases_t.c.holder == holder).values(holder=to)
            )
            return res.rowcount == 1

    def release_leases(self, holder: str, table_ids: Sequence[str]) -> None:
        """Give up leases (a table evicted or finished): another process may take them at once."""
        if table_ids:
            with self.engine.begin() as conn:
                self._delete_leases(conn, holder, set(table_ids))

    @staticmethod
    def _delete_leases(conn: Connection, holder: str, ids: set[str]) -> None:
        listed = sorted(ids)
        for i in range(0, len(listed), 500):
            conn.execute(
                delete(leases_t).where(leases_t.c.holder == holder, leases_t.c.table_id.in_(listed[i : i + 500]))
            )

    def all(self) -> dict[str, tuple[str, float]]:
        """Every lease: table -> (holder, until when the holder's heartbeat keeps it)."""
        q = select(leases_t.c.table_id, leases_t.c.holder, leases_t.c.expires, processes_t.c.expires.label("beat"))
        q = q.select_from(leases_t.outerjoin(processes_t, processes_t.c.holder == leases_t.c.holder))
        with self.engine.connect() as conn:
            return {r.table_id: (r.holder, r.expires if r.beat is None else r.beat) for r in conn.execute(q)}
