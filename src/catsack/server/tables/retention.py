"""Retention of finished games: delete those older than a number of days, optionally archiving
each one's full catsack/1 record first (``CATSACK_RETENTION_DAYS``, ``CATSACK_RETENTION_ARCHIVE_DIR``,
``catsack db prune``). Off by default: every finished game stays browsable and downloadable.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from catsack.record import Record, dumps_record
from catsack.server.storage.store import Store
from catsack.server.tables.live import iso_time, stored_game, stored_record

__all__ = ["archive_record", "full_record", "prune"]

DAY = 86400.0


def full_record(store: Store, table_id: str) -> Record | None:
    """The full catsack/1 record of a stored game, rebuilt from its setup and action log, with the keys
    the public record route gives it (table, event, date, agents); ``None`` if there is no such table.
    Whether anyone may read it is :mod:`catsack.server.people.gameaccess`'s to decide."""
    loaded = store.load(table_id)
    if loaded is None:
        return None
    row, seats, actions = loaded
    game = stored_game(row, actions)
    return stored_record(row, seats, game, event=row.name, date=iso_time(row.created))


def archive_record(store: Store, table_id: str) -> str | None:
    """The full catsack/1 record of a stored game as JSON text (``None`` if there is no such table)."""
    record = full_record(store, table_id)
    return None if record is None else dumps_record(record)


def prune(
    store: Store, days: float, archive_dir: str | os.PathLike[str] | None = None, *, now: float | None = None
) -> int:
    """Delete the games that ended more than ``days`` days ago; with ``archive_dir``, write each
    one's record there first (``<table>.json``, written to a temporary name and renamed, so a file
    that exists is whole). The number of games deleted."""
    if days <= 0:
        raise ValueError(f"retention needs a positive number of days, not {days!r}")
    now = time.time() if now is None else now
    folder = None if archive_dir is None else Path(archive_dir)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    total = 0
    while True:
        ids = store.finished_before(now - days * DAY, limit=200)
        if not ids:
            return total
        if folder is not None:
            for table_id in ids:
                text = archive_record(store, table_id)
                if text is None:
                    continue
                tmp = folder / f".{table_id}.json.tmp"
                tmp.write_text(text, encoding="utf-8")
                tmp.replace(folder / f"{table_id}.json")
        total += store.delete_tables(ids)
