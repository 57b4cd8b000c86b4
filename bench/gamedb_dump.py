"""The game database's cost (docs/database.md, *Figures*): building the dumps of many finished games, and a
refresh once they are written.

A temporary SQLite database is filled with ``--games`` finished public games of random bots (4 seats,
seeded), their end times spread evenly over ``--days`` days that end yesterday; then, on a fixed clock:

* **first build**: every month's dump built from nothing (each game's record rebuilt from its setup and
  action log, written as a line, tallied for the explorer; closed days and complete months written to a
  temporary folder): CPU seconds, games a CPU second, bytes a game compressed;
* **refresh**: ``--today`` more games end today and the listing is asked again after the refresh interval:
  the CPU one refresh costs (only the open day is built again; the written days and months are read);
* **explorer**: the tally of every dump added up and summarised (what a refresh adds to the listing).

CPU is ``time.process_time`` of this process (the database is in process: SQLite), compared as ratios
within one run; the load average is printed beside the figures.

    .venv/bin/python bench/gamedb_dump.py                     # 5,000 games over 60 days
    .venv/bin/python bench/gamedb_dump.py --games 20000 --days 90 --today 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from catsack.game import Game
from catsack.server.people.gamedb import REFRESH_SECONDS, GameDatabase
from catsack.server.settings import Settings
from catsack.server.storage.store import Append, SeatRow, Store, tables_t
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import setup_to_json
from catsack.setup import Setup


def store_games(store: Store, first: int, count: int, start: float, end: float, seed: int) -> None:
    """``count`` finished 4-seat games of random moves, ids ``g<first>`` on, ending evenly in ``[start, end)``."""
    from sqlalchemy import update

    rng = random.Random(seed)
    rows = [SeatRow(i, "bot", None, "random", None, False) for i in range(4)]
    for n in range(first, first + count):
        setup = Setup.deal(4, rng)
        game = Game(setup)
        items = []
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            move = rng.choice(game.legal_moves())
            game.play(move)
            status = "over" if game.is_over else "playing"
            items.append(Append(f"g{n}", len(items) + 1, seat, move.text, None, "bot", status, None))
        store.create_table(f"g{n}", f"game {n}", rows, {}, setup_to_json(setup), "playing")
        assert store.append_batch(items) == [None] * len(items)
        ended = start + (end - start) * (n - first) / max(1, count)
        with store.engine.begin() as conn:
            conn.execute(update(tables_t).where(tables_t.c.id == f"g{n}").values(finished=ended))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="finished games before the first build")
    parser.add_argument("--days", type=int, default=60, help="the days they ended over, up to yesterday")
    parser.add_argument("--today", type=int, default=100, help="games that end today before the refresh")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    now_day = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0).timestamp()
    clock = [now_day]
    with tempfile.TemporaryDirectory(prefix="gamedb-bench-") as tmp:
        folder = Path(tmp) / "dumps"
        store = Store(f"sqlite:///{tmp}/bench.db")
        made = time.process_time()
        store_games(store, 0, args.games, now_day - 86400 * (args.days + 0.5), now_day - 86400 * 0.5, args.seed)
        print(f"stored {args.games} games in {time.process_time() - made:.1f} s CPU")
        hub = Hub(Settings(database_url=store.url), store)
        db = GameDatabase(hub, folder, clock=lambda: clock[0])

        async def build() -> None:
            t0 = time.process_time()
            listing = await db.listing()
            first = time.process_time() - t0
            size = sum(d.size for d in listing.dumps)
            print(
                f"first build: {listing.games} games in {len(listing.dumps)} dumps, {first:.2f} s CPU "
                f"({listing.games / first:.0f} games a CPU second), {size / max(1, listing.games):.0f} bytes a game"
            )
            store_games(store, args.games, args.today, now_day - 3600, now_day - 60, args.seed + 1)
            clock[0] += REFRESH_SECONDS
            t0 = time.process_time()
            listing = await db.listing()
            again = time.process_time() - t0
            listed = f"{listing.games} games listed"
            print(f"refresh with {args.today} new games today: {again * 1000:.0f} ms CPU ({listed})")
            t0 = time.process_time()
            listing.tally.summary()
            print(f"explorer summary of {listing.tally.games} games: {(time.process_time() - t0) * 1000:.1f} ms CPU")

        asyncio.run(build())
        store.close()
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
