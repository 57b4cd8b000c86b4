"""Schema migrations, backups and retention of the server's database.

- A database made by the code from before migrations (its DDL is copied below, as ``OLD``) holding
  games in play and a finished one is refused by a server that may not upgrade, then brought to the
  newest revision by ``catsack db upgrade``; its games load move for move, play on to the end through
  the hub, and the finished game's record still downloads. On SQLite and on PostgreSQL (a schema of
  its own there).
- The migrations build exactly the schema the models describe (Alembic's own comparison, the one its
  autogenerate uses), on SQLite and on PostgreSQL; the revisions keep their deployed ids and order,
  and a new one is numbered after the last.
- ``catsack db backup`` copies a SQLite database that is being written to; the copy opens and is whole.
- Retention deletes (and archives) only finished games past the limit.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import pkgutil
import pprint
import random
import re
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
from catsack.server import migrations
from catsack.server.migrations import BASELINE, SchemaError, head, prepare
from catsack.server.settings import Settings
from catsack.server.storage.store import Store, make_engine, metadata
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import Conn, setup_to_json
from catsack.server.tables.retention import prune
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


def test_accounts_made_before_look_alike_keys_get_theirs(tmp_path: Path) -> None:
    """Revision 0013 gives every existing account its name's look-alike key, so that a guest cannot
    take an old account's name in Cyrillic letters either."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    from catsack.server.storage.names import skeleton

    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    try:
        with engine.begin() as conn:
            cfg = Config()
            cfg.set_main_option("script_location", str(MIGRATIONS))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "0012")
            conn.execute(
                text(
                    "INSERT INTO users (name, name_key, password_hash, created, deleted) "
                    "VALUES ('Ann', 'ann', 'x', 0, false), ('Bob1', 'bob1', 'x', 0, false)"
                )
            )
        migrations.upgrade(engine)
        assert migrations.current(engine) == head()
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT name, name_skeleton FROM users ORDER BY id")).all()
        assert [tuple(r) for r in rows] == [("Ann", skeleton("\u0410nn")), ("Bob1", "bobl")]
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- the revisions and the models

#: The revisions as deployed databases have them, in the order they apply (their ids never change;
#: ``catsack.server.migrations`` says why the numbers are out of order).
DEPLOYED = ("0001", "0002", "0003", "0004", "0009", "0008", "0007", "0005", "0011", "0012")
MIGRATIONS = Path(migrations.__file__).parent


def _apply_order() -> list[tuple[str, str | None, str]]:
    """``(revision, down_revision, file name)`` from the base to the head, read from ``versions/``."""
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory(str(MIGRATIONS))
    assert len(scripts.get_bases()) == 1 and len(scripts.get_heads()) == 1, "the revisions must form one chain"
    chain = [(str(s.revision), s.down_revision, Path(s.path).name) for s in scripts.walk_revisions()]
    return chain[::-1]


def test_revisions_keep_their_ids_and_new_ones_are_numbered_after_the_last() -> None:
    """The deployed revisions apply in their order under their ids; every revision after them takes a
    number above every number before it, and each file is named ``NNNN_what.py`` after its revision."""
    chain = _apply_order()
    assert chain[0][0] == BASELINE and chain[0][1] is None
    assert tuple(rev for rev, _, _ in chain[: len(DEPLOYED)]) == DEPLOYED
    highest = 0
    for i, (rev, down, name) in enumerate(chain):
        assert re.fullmatch(r"\d{4}", rev), f"{name}: revision ids are four digits, not {rev!r}"
        assert re.fullmatch(rf"{rev}_[a-z0-9_]+\.py", name), f"{name}: the file of revision {rev} is {rev}_what.py"
        assert down == (chain[i - 1][0] if i else None), f"{name}: down_revision {down!r} is not the revision before it"
        if i >= len(DEPLOYED):
            assert int(rev) > highest, (
                f"{name}: a new revision takes the next number after the highest so far ({highest:04d})"
            )
        highest = max(highest, int(rev))
    assert chain[-1][0] == head()
    shipped = sorted(p.name for p in (MIGRATIONS / "versions").glob("[0-9]*.py"))
    assert shipped == sorted(name for _, _, name in chain), "a file in versions/ is not in the chain"


def _models() -> MetaData:
    """The models' metadata with every table registered: each server module that defines tables adds
    them to :data:`catsack.server.storage.store.metadata` when it is imported, so import them all."""
    import catsack.server

    for module in pkgutil.walk_packages(catsack.server.__path__, "catsack.server."):
        if not module.name.startswith("catsack.server.migrations"):  # env.py runs Alembic on import
            importlib.import_module(module.name)
    return metadata


def _schema_differences(engine: Engine) -> list[object]:
    """What Alembic's autogenerate would change to make the database's schema the models': tables,
    columns, types, nullability, server defaults, keys, indexes and unique constraints."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    models = _models()
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        return list(compare_metadata(context, models))


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database URL (SQLite file, or a PostgreSQL schema of its own)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'm.db'}"
    else:
        with postgres_schema() as (url, _schema):
            yield url


def test_migrations_give_exactly_the_schema_of_the_models(empty_db: str) -> None:
    """The revisions, run from an empty database, give the schema the models describe, with no
    difference at all: a table, column, key or index the models have and no revision makes (or the
    other way round) fails here."""
    engine = make_engine(empty_db)
    try:
        assert prepare(engine) == "created"
        assert prepare(engine) == "current"
        assert {"tables", "seats", "actions", "alembic_version"} <= set(inspect(engine).get_table_names())
        differences = _schema_differences(engine)
        assert not differences, "the migrated schema differs from the models:\n" + pprint.pformat(differences)
    finally:
        engine.dispose()


def test_the_comparison_sees_a_difference(tmp_path: Path) -> None:
    """The comparison above is not empty by construction: a column and an index the models lack, and a
    table they have that is missing, are all reported."""
    engine = make_engine(f"sqlite:///{tmp_path / 'd.db'}")
    prepare(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE actions ADD COLUMN stray INTEGER")
        conn.exec_driver_sql("CREATE INDEX stray_index ON seats (name)")
        conn.exec_driver_sql("DROP TABLE chat")
    found = _schema_differences(engine)
    engine.dispose()
    kinds = {(d[0], getattr(d[-1], "name", None)) for d in found if isinstance(d, tuple)}
    assert ("remove_column", "stray") in kinds and ("remove_index", "stray_index") in kinds, found
    assert ("add_table", "chat") in kinds, found


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
    store.leases.sync_leases("p1", ["old"], 10.0)
    archive = tmp_path / "archive"
    assert prune(store, 30, archive) == 1
    assert store.table("old") is None and store.load("old") is None
    assert store.table("recent") is not None and store.table("playing") is not None
    assert "old" not in store.leases.all()
    rec = loads_record((archive / "old.json").read_text())
    assert rec.to_game().moves == old.moves
    assert prune(store, 30, archive) == 0
    result = CliRunner().invoke(cli_app, ["db", "prune", "--days", "1", "--database-url", url])
    assert result.exit_code == 0 and "deleted 0 finished games" in result.output, result.output
    with store.engine.connect() as conn:
        assert len(conn.execute(select(metadata.tables["tables"].c.id)).scalars().all()) == 2
    store.close()
