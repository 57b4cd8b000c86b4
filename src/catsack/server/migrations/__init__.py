"""Schema migrations (Alembic): the database schema is versioned, and older databases are upgraded.

Revisions live in ``versions/`` and ship with the package. ``0001`` is the schema that
``catsack serve`` created before migrations existed (tables, seats, actions); later
revisions add to it. A database made by that older code has the tables but no
``alembic_version`` row: it is *stamped* at ``0001`` and then upgraded.

The revisions apply in this order (each file's ``down_revision`` names the one before it):

======== ===================================================================================
revision what it adds
======== ===================================================================================
``0001`` the baseline: tables, seats, actions
``0002`` table leases and seat presence (several processes)
``0003`` accounts, sessions, seats bound to accounts, ratings, chat
``0004`` stored post-game analyses; a finished table's rematch
``0009`` training positions
``0008`` play over days: turn-based clocks, mail, follows, blocks, challenges, last seen
``0007`` fair ratings (history, reverts), reputation, tournaments; one seat per account
``0005`` a heartbeat row per server process
``0011`` counted training answers
``0012`` which process claimed a mail it is sending
``0013`` each account name's look-alike key (guests may not take a name that reads like it)
``0014`` Web Push notifications: devices, the kinds each account wants, the send queue
``0015`` bot accounts: an account a person creates for a program, its API token hashed
``0016`` vacations: the periods in which an account's turn-based clocks stand still
``0017`` turn-based tournaments: each round's deadline, kept with its tables
======== ===================================================================================

The numbers up to ``0011`` do not follow that order: those revisions were written side by
side and chained when they were merged, and their ids are stored in deployed databases
(``alembic_version``), so they never change. A new revision takes the next number after the
highest one (``0018`` after ``0017``), names the current head as its ``down_revision``, and
its file is ``NNNN_what.py``; ``tests/test_migrations.py`` checks the chain and that the
migrated schema is exactly what the models (the ``Table`` definitions on
:data:`catsack.server.storage.store.metadata`) describe, on SQLite and on PostgreSQL.

:func:`prepare` is what the server runs on start: an empty database gets every revision
in turn (the migrations are the one definition of the schema), a database at the
newest revision is used as it is, an older one is upgraded when ``upgrade`` is true and
refused otherwise (run ``catsack db upgrade``), and one *newer* than this code (a
rollback of the code) is always refused. On PostgreSQL an advisory lock serialises
processes that start at the same time; every step runs in one transaction there
(PostgreSQL's DDL is transactional), so a failed upgrade leaves the old schema.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, inspect, text

__all__ = ["BASELINE", "SchemaError", "current", "head", "prepare", "upgrade"]

#: The revision of the schema as it was before migrations (what ``store.py`` created at the time).
BASELINE = "0001"
#: The tables of the baseline schema: when they exist without a version, the database is at BASELINE.
BASELINE_TABLES = frozenset({"tables", "seats", "actions"})
_LOCK_KEY = 7303  # arbitrary: "catsack schema" (the same key the pre-migration code used)


class SchemaError(RuntimeError):
    """The database's schema is not one this code can use as it is."""


@functools.cache
def _scripts() -> Any:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config())


def _config(conn: Connection | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent))
    if conn is not None:
        cfg.attributes["connection"] = conn
    return cfg


def head() -> str:
    """The newest revision this code knows."""
    rev = _scripts().get_current_head()
    assert rev is not None, "no migration revisions shipped"
    return str(rev)


def _known() -> set[str]:
    return {s.revision for s in _scripts().walk_revisions()}


def _current(conn: Connection) -> str | None:
    from alembic.migration import MigrationContext

    rev = MigrationContext.configure(conn).get_current_revision()
    return None if rev is None else str(rev)


def current(engine: Engine) -> str | None:
    """The database's revision: ``None`` for an empty database or one made before migrations
    (tell them apart with :func:`describe`)."""
    with engine.connect() as conn:
        return _current(conn)


def describe(engine: Engine) -> str:
    """One line on the database's schema: its revision and whether it is current."""
    with engine.connect() as conn:
        rev = _current(conn)
        tables = set(inspect(conn).get_table_names())
    newest = head()
    if rev is None:
        if tables & BASELINE_TABLES:
            return f"made before migrations (revision {BASELINE} without a stamp); newest is {newest}"
        return f"empty; newest is {newest}"
    if rev == newest:
        return f"at revision {rev} (the newest)"
    if rev in _known():
        return f"at revision {rev}; newest is {newest}: run 'catsack db upgrade'"
    return f"at revision {rev}, which this version of catsack does not know (newest it knows: {newest})"


def _lock(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _LOCK_KEY})


def _migrate(conn: Connection, *, upgrade: bool) -> str:
    """The work of :func:`prepare` and :func:`upgrade` inside one transaction (lock held)."""
    from alembic import command

    rev = _current(conn)
    newest = head()
    if rev == newest:
        return "current"
    cfg = _config(conn)
    if rev is None:
        tables = set(inspect(conn).get_table_names())
        if not tables & BASELINE_TABLES:
            # Every revision from the start, not create_all: the migrations are the one definition
            # of the schema, whichever modules happen to have registered tables on the metadata.
            command.upgrade(cfg, "head")
            return "created"
        if not upgrade:
            raise SchemaError(
                f"the database was made before schema migrations (revision {BASELINE}); "
                f"run 'catsack db upgrade' to bring it to {newest}"
            )
        command.stamp(cfg, BASELINE)
    elif rev not in _known():
        raise SchemaError(
            f"the database is at revision {rev}, newer than this version of catsack knows ({newest}); "
            "run the newer catsack, or restore a backup made before the upgrade"
        )
    elif not upgrade:
        raise SchemaError(f"the database is at revision {rev}; run 'catsack db upgrade' to bring it to {newest}")
    command.upgrade(cfg, "head")
    return "upgraded"


def prepare(engine: Engine, *, upgrade: bool = True) -> str:
    """Make the database usable by this code: ``"created"``, ``"current"`` or ``"upgraded"``;
    raise :class:`SchemaError` for a database that needs an upgrade when ``upgrade`` is false,
    or that is newer than this code."""
    with engine.begin() as conn:
        _lock(conn)
        return _migrate(conn, upgrade=upgrade)


def upgrade(engine: Engine) -> str:
    """``catsack db upgrade``: bring the database to the newest revision (stamping one made before
    migrations first); what happened, as in :func:`prepare`."""
    return prepare(engine, upgrade=True)
