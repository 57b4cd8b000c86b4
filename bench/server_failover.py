"""Fail-over benchmark (issue 29): how long a table stands still after ``kill -9`` of the process driving it.

Two ``catsack serve`` processes share PostgreSQL (a fresh schema, dropped afterwards) and Redis. For each
round, process A makes a table of four random bots and keeps a spectator (so it keeps the table's
lease), B has a spectator too; once the game is under way A is killed with SIGKILL, and B's spectator
measures the silence: from the kill to the next move, and the longest time between two moves in a row.
A is started again on the same port for the next round. The bots wait ``--bot-delay`` seconds per
move (part of every figure: it is how fast the table moves anyway).

    PYTHONPATH=src .venv/bin/python bench/server_failover.py --rounds 5
    PYTHONPATH=src .venv/bin/python bench/server_failover.py --rounds 5 --lease 15   # the old lease

Needs PostgreSQL (``--database-url``, default the tests' ``CATSACK_TEST_POSTGRES_URL``) and Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_procs import POSTGRES_URL, REDIS_URL, ServerProc, WsClient, postgres_schema


async def one_round(a: ServerProc, b: ServerProc) -> dict[str, float]:
    table = a.create_table(seats=4, bots={str(s): "random" for s in range(4)})["table"]
    watch_a = WsClient(a.ws_url, table, None, label="watch@A")
    await watch_a.connect()
    watch = WsClient(b.ws_url, table, None, label="watch@B")
    await watch.connect()
    await watch.wait_version(6, timeout=30)
    await asyncio.to_thread(a.kill9)
    killed_at, t_kill = watch.version, time.monotonic()
    await watch.wait_version(killed_at + 1, timeout=60)
    silence = time.monotonic() - t_kill
    await watch.wait_version(killed_at + 3, timeout=30)
    times = [t for t, _ in watch.arrivals]
    gaps = [y - x for x, y in itertools.pairwise(times)]
    await watch.close()
    await watch_a.close()
    return {"silence_s": round(silence, 3), "longest_gap_s": round(max(gaps), 3)}


async def run(args: argparse.Namespace, db_url: str, folder: Path) -> list[dict[str, float]]:
    env = {
        "CATSACK_DATABASE_URL": db_url,
        "CATSACK_REDIS_URL": args.redis_url,
        "CATSACK_REDIS_CHANNEL": f"catsack:failover:{os.getpid()}",
        "CATSACK_BOT_DELAY": str(args.bot_delay),
        "CATSACK_LEASE_SECONDS": str(args.lease),
    }
    a = ServerProc(folder, env, name="A")
    b = ServerProc(folder, env, name="B")
    out = []
    try:
        await asyncio.to_thread(a.start)
        await asyncio.to_thread(b.start)
        for i in range(args.rounds):
            if i:
                await asyncio.to_thread(a.start)
            out.append(await one_round(a, b))
            print(f"round {i + 1}: {out[-1]}", file=sys.stderr, flush=True)
    finally:
        a.stop()
        b.stop()
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--lease", type=float, default=2.0, help="CATSACK_LEASE_SECONDS (default 2, the default)")
    p.add_argument("--bot-delay", type=float, default=0.1, help="CATSACK_BOT_DELAY (default 0.1)")
    p.add_argument("--database-url", default=POSTGRES_URL)
    p.add_argument("--redis-url", default=REDIS_URL)
    args = p.parse_args()
    os.environ["CATSACK_TEST_POSTGRES_URL"] = args.database_url
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="catsack-failover-") as tmp, postgres_schema() as (db_url, _schema):
        rounds = asyncio.run(run(args, db_url, Path(tmp)))
    silences = [r["silence_s"] for r in rounds]
    gaps = [r["longest_gap_s"] for r in rounds]
    summary: dict[str, Any] = {
        "rounds": rounds,
        "lease_s": args.lease,
        "bot_delay_s": args.bot_delay,
        "silence_median_s": round(statistics.median(silences), 2),
        "silence_max_s": max(silences),
        "longest_gap_median_s": round(statistics.median(gaps), 2),
        "longest_gap_max_s": max(gaps),
        "load_average_before_after": [round(load0[0], 2), round(os.getloadavg()[0], 2)],
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
