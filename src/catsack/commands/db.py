"""``catsack db``: the server's database: schema version and upgrade, backups, retention, the game database's dumps."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from catsack.server.people.gamedb import Dump
    from catsack.server.storage.store import Store

DB_HELP = "SQLAlchemy URL [env CATSACK_DATABASE_URL, sqlite:///catsack.db]; e.g. postgresql+psycopg://user@host/db."
DbUrl = Annotated[str | None, typer.Option("--database-url", help=DB_HELP)]


def _url(database_url: str | None) -> str:
    if database_url:
        return database_url
    try:
        from catsack.server.settings import Settings
    except ImportError as exc:
        typer.echo(f"the database commands need the 'server' extra: pip install 'catsack[server]' ({exc})", err=True)
        raise typer.Exit(2) from None
    return Settings().database_url


def _engine(url: str) -> Engine:
    from catsack.server.storage.store import make_engine

    return make_engine(url)


def register(app: typer.Typer) -> None:
    """Add the ``db`` command group to ``app``."""
    db = typer.Typer(help="The server's database: schema upgrade, backup, retention, the game database's dumps.")
    app.add_typer(db, name="db")

    @db.command()
    def status(database_url: DbUrl = None) -> None:
        """Show the database's schema revision and whether it is the newest."""
        from catsack.server.migrations import describe
        from catsack.server.web.app import safe_url

        url = _url(database_url)
        engine = _engine(url)
        try:
            typer.echo(f"{safe_url(url)}: {describe(engine)}")
        finally:
            engine.dispose()

    @db.command()
    def upgrade(database_url: DbUrl = None) -> None:
        """Bring the database to the newest schema (one made before migrations is stamped first).

        Back it up first ('catsack db backup' for SQLite, pg_dump for PostgreSQL)."""
        from catsack.server.migrations import SchemaError, head
        from catsack.server.migrations import upgrade as do_upgrade
        from catsack.server.web.app import safe_url

        url = _url(database_url)
        engine = _engine(url)
        try:
            done = do_upgrade(engine)
        except SchemaError as exc:
            typer.echo(f"{safe_url(url)}: {exc}", err=True)
            raise typer.Exit(1) from None
        finally:
            engine.dispose()
        words = {"created": "created the schema at", "current": "already at", "upgraded": "upgraded to"}
        typer.echo(f"{safe_url(url)}: {words[done]} revision {head()}")

    @db.command()
    def backup(
        file: Annotated[Path, typer.Argument(help="Where to write the copy (a SQLite database file).")],
        database_url: DbUrl = None,
        force: Annotated[bool, typer.Option(help="Overwrite FILE if it exists.")] = False,
    ) -> None:
        """Copy a SQLite database while the server runs (SQLite's online backup API).

        For PostgreSQL use pg_dump (see docs/deploy.md): pg_dump -Fc -f catsack.dump DBNAME."""
        from sqlalchemy.engine import make_url

        url = _url(database_url)
        parsed = make_url(url)
        if parsed.get_backend_name() != "sqlite":
            typer.echo(
                f"'catsack db backup' copies SQLite databases; for {parsed.get_backend_name()} use its own tool, "
                "e.g. pg_dump -Fc -f catsack.dump <database> (docs/deploy.md)",
                err=True,
            )
            raise typer.Exit(2)
        source = parsed.database
        if not source or source == ":memory:":
            typer.echo("the database URL names no SQLite file to back up", err=True)
            raise typer.Exit(2)
        if not Path(source).is_file():
            typer.echo(f"no SQLite database at {source}", err=True)
            raise typer.Exit(1)
        if file.exists() and not force:
            typer.echo(f"{file} exists; pass --force to overwrite it", err=True)
            raise typer.Exit(1)
        pages = sqlite_backup(Path(source), file)
        typer.echo(f"backed up {source} to {file} ({pages} pages)")

    @db.command()
    def prune(
        days: Annotated[float, typer.Option(min=0.0, help="Delete finished games that ended more than DAYS ago.")],
        archive: Annotated[
            Path | None, typer.Option(help="Write each game's full catsack/1 record into this folder first.")
        ] = None,
        database_url: DbUrl = None,
    ) -> None:
        """Delete old finished games (retention); the server does this hourly with CATSACK_RETENTION_DAYS."""
        from catsack.server.storage.store import Store
        from catsack.server.tables.retention import prune as do_prune

        if days <= 0:
            typer.echo("--days must be more than 0", err=True)
            raise typer.Exit(2)
        store = Store(_url(database_url), upgrade=False)
        try:
            n = do_prune(store, days, archive)
        finally:
            store.close()
        where = f", records in {archive}" if archive is not None else ""
        typer.echo(f"deleted {n} finished game{'s' if n != 1 else ''} older than {days:g} days{where}")

    @db.command()
    def dump(
        folder: Annotated[
            Path, typer.Argument(help="Where to write the dumps (made if missing); the server's CATSACK_GAMEDB_DIR.")
        ],
        database_url: DbUrl = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    ) -> None:
        """Write the game database: every finished public game, one gzip file of catsack/1 records a month.

        Complete months are written once and kept; the current month (so far) again at each run. SHA256SUMS
        lists the files with their checksums; docs/database.md says what goes in."""
        from catsack.server.storage.store import Store

        if folder.exists() and not folder.is_dir():
            typer.echo(f"{folder} is not a folder", err=True)
            raise typer.Exit(2)
        store = Store(_url(database_url), upgrade=False)
        try:
            dumps = write_game_dumps(store, folder, quiet=quiet)
        finally:
            store.close()
        for d in dumps:
            games = f"{d.games} game{'s' if d.games != 1 else ''}"
            state = "" if d.complete else " (so far)"
            typer.echo(f"{d.name}: {games}, {d.size} bytes{state}, sha256 {d.sha256}")
        typer.echo(f"wrote {len(dumps)} dump{'s' if len(dumps) != 1 else ''} and SHA256SUMS to {folder}")


def write_game_dumps(store: Store, folder: Path, *, quiet: bool = True) -> list[Dump]:
    """What ``catsack db dump`` does: the game database's dumps of ``store`` written to ``folder``, with a
    progress bar of the games read (on stderr) unless ``quiet``."""
    import asyncio

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from catsack.server.people.gamedb import GameDatabase, write_dumps
    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub

    folder.mkdir(parents=True, exist_ok=True)
    # The hub only lends its store and the read-access check (an embargo asks the tournaments): never started.
    hub = Hub(Settings(database_url=store.url), store)
    db = GameDatabase(hub, folder, refresh_seconds=0.0)
    progress = Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
        disable=quiet,
    )
    with progress:
        task = progress.add_task("games", total=0)

        def advance(done: int, more: int) -> None:
            if more:
                progress.update(task, total=(progress.tasks[0].total or 0) + more)
            if done:
                progress.advance(task, done)

        dumps = asyncio.run(write_dumps(db, advance))
    db.folder.write_sums(dumps)
    return dumps


def sqlite_backup(source: Path, target: Path) -> int:
    """Copy the SQLite database ``source`` to ``target`` with the online backup API: a consistent
    copy even while server processes write (WAL), taken in steps so writers are not held up long.
    The number of pages copied."""
    import sqlite3

    tmp = target.with_name(f".{target.name}.tmp")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(tmp)
        try:
            src.backup(dst, pages=1024)
            pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()
    tmp.replace(target)
    return pages
