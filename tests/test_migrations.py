"""Schema migrations, backups and retention of the server's database (issue 16).

- A database made by the code from before migrations (its DDL is copied below, as ``OLD``) holding
  games in play and a finished one is refused by a server that may not upgrade, then brought to the
  newest revision by ``catsack db upgrade``; its games load move for move, play on to the end through
  the hub, and the finished game's record still downloads. On SQLite and on PostgreSQL (a schema of
  its own there).
- The migrations build the same tables, columns and keys as the store's metadata.
- ``catsack db backup`` copies a SQLite database that is being written to; the copy opens and is whole.
- Retention deletes (and archives) only finished games past the limit.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("alembic")
pytest.importorskip("fastapi")

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
    insert,
    inspect,
    select,
)
from typer.testing import CliRunner

from catsack.cli import app as cli_app
from catsack.game import Game
from catsack.record import dumps_record, loads_record
from catsack.server.hub import Conn, Hub, hash_token, setup_to_json
from catsack.server.migrations import SchemaError, head, prepare
from catsack.server.retention import prune
from catsack.server.settings import Settings
from catsack.server.store import Store, make_engine, metadata
from catsack.setup import Setup
from server_procs import postgres_schema

# ---------------------------------------------------------------------- the schema before migrations

OLD = MetaData()  # exactly what store.py created before revision 0001 existed (commit b3f356f)
Table(
    "tables",
    OLD,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("seats", Integer, nullable=False),
    Column("options", Text, nullable=False),
    Column("setup", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Float, nullable=True),
    Column("deadline", Float, nullable=True),
)
Table(
    "seats",
    OLD,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("kind", String(8), nullable=False),
    Column("name", String(40), nullable=True),
    Column("bot", String(40), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("replaced", Boolean, nullable=False, default=False),
)
Table(
    "actions",
    OLD,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("seat", Integer, nullable=False),
    Column("move", String(24), nullable=False),
    Column("action_id", String(64), nullable=True),
    Column("actor", String(8), nullable=False),
    Column("created", Float, nullable=False),
)


def old_game(engine: Engine, table_id: str, seats: int, seed: int, plies: int | None) -> tuple[Game, list[str]]:
    """Write a game the way the old server did: its setup, human seats with token hashes, and
    ``plies`` random moves (all of them, to the end, when ``None``). The game and the seat tokens."""
    rng = random.Random(seed)
    setup = Setup.deal(seats, rng)
    game = Game(setup)
    movers: list[int] = []
    while not game.is_over and (plies is None or len(game.moves) < plies):
        assert game.to_move is not None
        movers.append(game.to_move)
        game.play(rng.choice(game.legal_moves()))
    tokens = [f"token-{table_id}-{s}" for s in range(seats)]
    now = time.time()
    over = game.is_over
    with engine.begin() as conn:
        conn.execute(
            insert(OLD.tables["tables"]).values(
                id=table_id,
                name=f"old {table_id}",
                seats=seats,
                options=json.dumps({"money_visible": False, "turn_seconds": None, "hints": False}),
                setup=json.dumps(setup_to_json(setup)),
                status="over" if over else "playing",
                version=len(game.moves),
                created=now - 100,
                finished=now - 10 if over else None,
                deadline=None,
            )
        )
        conn.execute(
            insert(OLD.tables["seats"]),
            [
                {
                    "table_id": table_id,
                    "seat": s,
                    "kind": "human",
                    "name": f"P{s}",
                    "bot": None,
                    "token_hash": hash_token(tokens[s]),
                    "replaced": False,
                }
                for s in range(seats)
            ],
        )
        conn.execute(
            insert(OLD.tables["actions"]),
            [
                {
                    "table_id": table_id,
                    "version": v + 1,
                    "seat": m_seat,
                    "move": str(m),
                    "action_id": f"a{v}",
                    "actor": "human",
                    "created": now,
                }
                for v, (m_seat, m) in enumerate(zip(movers, game.moves, strict=True))
            ],
        )
    return game, tokens


def revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        if "alembic_version" not in inspect(conn).get_table_names():
            return None
        return str(conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar())


@pytest.fixture(params=["sqlite", "postgresql"])
def old_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL holding the pre-migration schema (SQLite file, or a PostgreSQL schema of its own)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
    else:
        with postgres_schema() as (url, _schema):
            yield url


async def play_to_end(hub: Hub, table_id: str, tokens: list[str]) -> int:
    """Play random legal moves through the hub (as WebSocket players do) until the game ends."""
    table = await hub.get(table_id)
    assert table is not None
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    conns = [Conn(send, hub.seat_for_token(table, t), None) for t in tokens]
    for c in conns:
        hub.attach(table, c)
    rng = random.Random(5)
    n = 0
    while not table.game.is_over:
        seat = table.game.to_move
        assert seat is not None
        move = rng.choice(table.game.legal_moves())
        answer = await hub.act(conns[seat], f"new{n}", table.version, str(move))
        assert answer["type"] == "ack", answer
        n += 1
    return n


def test_upgrade_of_a_database_made_before_migrations(old_db: str) -> None:
    """Today's schema with games in it: refused without an upgrade, upgraded by ``catsack db upgrade``,
    then every game loads move for move, plays on to the end, and the finished one's record downloads."""
    engine = make_engine(old_db)
    OLD.create_all(engine)
    playing = [old_game(engine, f"t{i}", 3 + i % 3, seed=i, plies=11 + 7 * i) for i in range(3)]
    finished, _ = old_game(engine, "done", 4, seed=99, plies=None)
    engine.dispose()

    with pytest.raises(SchemaError, match="catsack db upgrade"):
        Store(old_db, upgrade=False)

    runner = CliRunner()
    result = runner.invoke(cli_app, ["db", "status", "--database-url", old_db])
    assert result.exit_code == 0 and "made before migrations" in result.output, result.output
    result = runner.invoke(cli_app, ["db", "upgrade", "--database-url", old_db])
    assert result.exit_code == 0, result.output
    assert f"upgraded to revision {head()}" in result.output
    result = runner.invoke(cli_app, ["db", "upgrade", "--database-url", old_db])
    assert result.exit_code == 0 and "already at" in result.output, result.output

    store = Store(old_db, upgrade=False)  # now current: no upgrade needed
    assert store.schema == "current"
    assert revision(store.engine) == head()
    assert {"table_leases", "tables", "seats", "actions"} <= set(inspect(store.engine).get_table_names())

    async def go() -> None:
        hub = Hub(Settings(database_url=old_db, bot_delay=0.0, log_json=False), store=store)
        await hub.start()
        try:
            for i, (game, tokens) in enumerate(playing):
                table = await hub.get(f"t{i}")
                assert table is not None and table.driver
                assert table.game.moves == game.moves, f"t{i} does not load move for move"
                added = await play_to_end(hub, f"t{i}", tokens)
                assert added > 0 and table.game.is_over
                stored = store.load(f"t{i}")
                assert stored is not None
                assert [a.version for a in stored[2]] == list(range(1, table.version + 1))
                assert stored[0].status == "over"
            done = await hub.get("done")
            assert done is not None and done.game.is_over
            assert loads_record(dumps_record(done.record())).to_game().moves == finished.moves
        finally:
            await hub.stop()

    try:
        asyncio.run(go())
    finally:
        store.close()


def test_migrations_build_the_store_schema(tmp_path: Path) -> None:
    """The revisions, run from an empty database, give the tables, columns, keys that the store's
    metadata describes (what the code reads and writes)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'm.db'}")
    assert prepare(engine) == "created"
    assert prepare(engine) == "current"
    migrated = inspect(engine)
    names = set(migrated.get_table_names())
    assert {"tables", "seats", "actions", "table_leases", "alembic_version"} <= names
    for name, table in metadata.tables.items():
        if name not in names:
            continue  # a table another module registers, from a revision it ships
        cols = {c["name"]: c for c in migrated.get_columns(name)}
        assert set(cols) == {c.name for c in table.columns}, name
        for c in table.columns:
            assert cols[c.name]["nullable"] == c.nullable, (name, c.name)
            assert type(cols[c.name]["type"]).__name__.upper() in str(c.type).upper() or str(
                cols[c.name]["type"]
            ).upper().startswith(str(c.type).upper().split("(")[0]), (name, c.name, cols[c.name]["type"], c.type)
        pk = migrated.get_pk_constraint(name)["constrained_columns"]
        assert sorted(pk) == sorted(c.name for c in table.primary_key.columns), name
        fks = {(tuple(f["constrained_columns"]), f["referred_table"]) for f in migrated.get_foreign_keys(name)}
        assert fks == {((fk.parent.name,), fk.column.table.name) for fk in table.foreign_keys}, name
    engine.dispose()


def test_a_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Store(url).close()
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(SchemaError, match="newer than this version"):
        prepare(engine)
    engine.dispose()
    result = CliRunner().invoke(cli_app, ["db", "upgrade", "--database-url", url])
    assert result.exit_code == 1 and "9999" in result.output


def test_backup_of_a_sqlite_database_in_use(tmp_path: Path) -> None:
    """``catsack db backup``: SQLite's online backup while the server's store is open (WAL); the
    copy passes an integrity check and holds every table's rows."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    store = Store(url)
    old_game(store.engine, "g1", 4, seed=3, plies=20)
    target = tmp_path / "copy.db"
    runner = CliRunner()
    result = runner.invoke(cli_app, ["db", "backup", str(target), "--database-url", url])
    assert result.exit_code == 0, result.output
    store.set_deadline("g1", 20, 123.0)  # written after the copy: the copy does not have it
    with sqlite3.connect(target) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM actions WHERE table_id = 'g1'").fetchone()[0] == 20
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == head()
        assert conn.execute("SELECT deadline FROM tables WHERE id = 'g1'").fetchone()[0] is None
    copy = Store(f"sqlite:///{target}", upgrade=False)
    loaded = copy.load("g1")
    assert loaded is not None and len(loaded[2]) == 20
    copy.close()
    result = runner.invoke(cli_app, ["db", "backup", str(target), "--database-url", url])
    assert result.exit_code == 1 and "--force" in result.output
    result = runner.invoke(cli_app, ["db", "backup", str(target), "--database-url", "postgresql+psycopg://x@h/db"])
    assert result.exit_code == 2 and "pg_dump" in result.output
    store.close()


def test_retention_deletes_and_archives_old_finished_games_only(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'r.db'}"
    store = Store(url)
    old, _ = old_game(store.engine, "old", 3, seed=1, plies=None)
    old_game(store.engine, "recent", 3, seed=2, plies=None)
    old_game(store.engine, "playing", 3, seed=3, plies=5)
    day = 86400.0
    with store.engine.begin() as conn:
        conn.exec_driver_sql(f"UPDATE tables SET finished = {time.time() - 40 * day} WHERE id = 'old'")
    store.sync_leases("p1", ["old"], 10.0)
    archive = tmp_path / "archive"
    assert prune(store, 30, archive) == 1
    assert store.table("old") is None and store.load("old") is None
    assert store.table("recent") is not None and store.table("playing") is not None
    assert "old" not in store.leases()
    rec = loads_record((archive / "old.json").read_text())
    assert rec.to_game().moves == old.moves
    assert prune(store, 30, archive) == 0
    result = CliRunner().invoke(cli_app, ["db", "prune", "--days", "1", "--database-url", url])
    assert result.exit_code == 0 and "deleted 0 finished games" in result.output, result.output
    with store.engine.connect() as conn:
        assert len(conn.execute(select(metadata.tables["tables"].c.id)).scalars().all()) == 2
    store.close()
