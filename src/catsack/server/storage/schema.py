"""The store's tables: games, their seats and action logs, the leases and process heartbeats, chat.

One :class:`~sqlalchemy.MetaData` holds them and every other module's tables (accounts, ratings, …), so
that the migrations (``catsack.server.migrations``) see the whole schema. :mod:`catsack.server.storage.store`
reads and writes the games' tables, :mod:`catsack.server.storage.leases` the leases'.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, Text

__all__ = ["actions_t", "chat_t", "leases_t", "metadata", "processes_t", "seats_t", "tables_t"]

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
    # Revision 0008: the seat to move after the last stored move (lists of games read it without
    # loading the game), and a turn-based table's clock (JSON: each seat's time bank and when the
    # turn began; catsack.server.tables.turnbased), NULL for a real-time table.
    Column("to_move", Integer, nullable=True),
    Column("clock", Text, nullable=True),
    Index("ix_tables_status_deadline", "status", "deadline"),
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
    # Epoch seconds a process last saw a connection of this (human) seat: a seat connected to another
    # process is not "away" (revision 0002).
    Column("seen", Float, nullable=True),
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

leases_t = Table(
    "table_leases",  # revision 0002: which process drives a table's bots and timers
    metadata,
    Column("table_id", String(32), primary_key=True),
    Column("holder", String(32), nullable=False),  # the holding process's id (Hub.process_id)
    # Epoch seconds: the holder's heartbeat when the lease was taken. Since revision 0005 a lease is
    # valid while its holder's row in server_processes has not run out; this column is kept for
    # databases that older processes still use.
    Column("expires", Float, nullable=False),
)

processes_t = Table(
    "server_processes",  # revision 0005: each server process's heartbeat
    metadata,
    Column("holder", String(32), primary_key=True),  # Hub.process_id
    Column("expires", Float, nullable=False),  # epoch seconds; past it the process counts as dead
)

chat_t = Table(
    "chat",  # a table's chat lines (catsack.server.people.chat)
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("n", Integer, primary_key=True),  # 1, 2, … per table
    Column("seat", Integer, nullable=False),
    Column("name", String(40), nullable=False),
    Column("text", String(400), nullable=False),
    Column("created", Float, nullable=False),
)
