"""Turn-based games cost no memory while nobody looks, and opening one is cheap.

Builds a SQLite database holding ``--games`` turn-based games in progress (4 seats: two people
and two bots, each game some random number of moves in, its clock running), then starts
``catsack serve`` twice, once on an empty database and once on that one, and reports:

* the server's RSS (``/proc/<pid>/status`` VmRSS) a few seconds after it answered ``/health``,
  for each database, and the difference (target: within 20 MB);
* the server's CPU time (``/proc/<pid>/stat``, user + system) to open ``--opens`` of those games
  one after another over HTTP (``GET /api/tables/{id}/state``, which loads the game from its
  stored log), per game, next to the CPU of the same request for a game already in memory, and
  the difference (target: opening one under 50 ms);
* the RSS after those opens and after they were evicted again (``CATSACK_EVICT_TURN_BASED_SECONDS``).

CPU is read from ``/proc`` in clock ticks (10 ms), so each figure is the total over all opens
divided by their number. The load average is printed beside the figures; the machine is shared.

    python bench/turn_based_memory.py                 # 10,000 games, 200 opens
    python bench/turn_based_memory.py --games 1000 --opens 50

Measured (2026-11-25, the project's shared 2-core machine, SQLite, load average 19.0 / 14.7 / 10.5
during the run; the defaults): RSS 82.6 MB with an empty database, 84.1 MB with 10,000 turn-based
games in progress (+1.5 MB; target within 20 MB); opening one of them 3.3 ms of server CPU, against
0.4 ms for the same request on a game in memory (target under 50 ms); 87.6 MB after 200 opens,
87.3 MB once they were evicted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from sqlalchemy import insert

from catsack.game import Game
from catsack.server.storage.store import Store, actions_t, seats_t, tables_t
from catsack.server.tables.live import hash_token, setup_to_json
from catsack.server.tables.turnbased import TurnBased
from catsack.setup import Setup

TICK = os.sysconf("SC_CLK_TCK")


def build(url: str, games: int, seed: int) -> list[str]:
    """``games`` turn-based games in progress, written straight into the database; their ids."""
    store = Store(url)
    rng = random.Random(seed)
    control = TurnBased(24, 72)
    now = time.time()
    ids: list[str] = []
    tables: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    actions: list[dict[str, Any]] = []

    def flush() -> None:
        with store.engine.begin() as conn:
            conn.execute(insert(tables_t), tables)
            conn.execute(insert(seats_t), seats)
            if actions:
                conn.execute(insert(actions_t), actions)
        tables.clear()
        seats.clear()
        actions.clear()

    i = -1
    while len(ids) < games:
        i += 1
        table_id = f"tb{i:06d}"
        setup = Setup.deal(4, random.Random(rng.getrandbits(64)))
        game = Game(setup)
        plies = rng.randrange(1, 60)
        for v in range(1, plies + 1):
            if game.is_over:
                break
            seat = game.to_move
            assert seat is not None
            move = rng.choice(game.legal_moves())
            game.play(move)
            actions.append(
                {
                    "table_id": table_id,
                    "version": v,
                    "seat": seat,
                    "move": move.text,
                    "action_id": None,
                    "actor": "human" if seat < 2 else "bot",
                    "created": now - 3600.0 * (plies - v),
                }
            )
        seat = game.to_move
        if seat is None or seat >= 2:  # keep every game waiting for a person, as most do
            actions = [a for a in actions if a["table_id"] != table_id]
            game = Game(setup)
            seat = game.to_move
            assert seat is not None
            if seat >= 2:
                continue
        clock = control.new_clock(4).started(now - 600.0)
        tables.append(
            {
                "id": table_id,
                "name": f"bench {i}",
                "seats": 4,
                "options": json.dumps(
                    {"money_visible": False, "turn_seconds": None, "hints": False, "turn_based": control.options()}
                ),
                "setup": json.dumps(setup_to_json(setup)),
                "status": "playing",
                "version": len(game.moves),
                "created": now - 86400.0,
                "finished": None,
                "deadline": clock.deadline(seat),
                "to_move": seat,
                "clock": clock.to_json(),
            }
        )
        for s in range(4):
            human = s < 2
            seats.append(
                {
                    "table_id": table_id,
                    "seat": s,
                    "kind": "human" if human else "bot",
                    "name": f"p{s}" if human else None,
                    "bot": None if human else "random",
                    "token_hash": hash_token(secrets.token_urlsafe(8)) if human else None,
                    "replaced": False,
                    "seen": None,
                }
            )
        ids.append(table_id)
        if len(tables) >= 500:
            flush()
    if tables:
        flush()
    store.close()
    return ids


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    def __init__(self, url: str, workdir: Path, evict: float) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "CATSACK_DATABASE_URL": url,
            "CATSACK_EVICT_TURN_BASED_SECONDS": str(evict),
            "CATSACK_SWEEP_SECONDS": "1",
            "CATSACK_LOG_LEVEL": "WARNING",
            "CATSACK_HTTP_RATE_BURST": "100000",
            "CATSACK_HTTP_RATE_PER_SECOND": "100000",
        }
        self.log = (workdir / f"server-{self.port}.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env,
            cwd=workdir,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 120
        while True:
            try:
                self.get("/health")
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.base + path, timeout=30) as answer:
            return json.load(answer)

    def settle(self, seconds: float) -> float:
        """RSS after ``seconds`` of idling (start-up work and the first sweeps done)."""
        time.sleep(seconds)
        return rss_mb(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)
        self.log.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--opens", type=int, default=200)
    ap.add_argument("--settle", type=float, default=5.0, help="seconds of idling before RSS is read")
    ap.add_argument("--evict", type=float, default=5.0, help="CATSACK_EVICT_TURN_BASED_SECONDS of the server")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        t0 = time.perf_counter()
        full_url = f"sqlite:///{work / 'full.db'}"
        ids = build(full_url, args.games, args.seed)
        built = time.perf_counter() - t0
        empty = Server(f"sqlite:///{work / 'empty.db'}", work, args.evict)
        try:
            rss_empty = empty.settle(args.settle)
        finally:
            empty.stop()
        srv = Server(full_url, work, args.evict)
        try:
            rss_full = srv.settle(args.settle)
            rng = random.Random(args.seed)
            picks = rng.sample(ids, min(args.opens, len(ids)))
            pid = srv.proc.pid
            c0 = cpu_seconds(pid)
            for table_id in picks:
                state = srv.get(f"/api/tables/{table_id}/state")
                assert state["type"] == "state" and "clock" in state
            c1 = cpu_seconds(pid)
            for table_id in picks:  # the same request again: the games are in memory now
                srv.get(f"/api/tables/{table_id}/state")
            c2 = cpu_seconds(pid)
            rss_open = rss_mb(pid)
            time.sleep(args.evict + 3.0)  # the sweep evicts them again
            rss_evicted = rss_mb(pid)
        finally:
            srv.stop()
    n = len(picks)
    open_ms = (c1 - c0) / n * 1000
    loaded_ms = (c2 - c1) / n * 1000
    out = {
        "games": len(ids),
        "build_seconds": round(built, 1),
        "rss_empty_mb": round(rss_empty, 1),
        "rss_with_games_mb": round(rss_full, 1),
        "rss_difference_mb": round(rss_full - rss_empty, 1),
        "opens": n,
        "open_cpu_ms": round(open_ms, 2),
        "loaded_request_cpu_ms": round(loaded_ms, 2),
        "open_minus_request_ms": round(open_ms - loaded_ms, 2),
        "rss_after_opens_mb": round(rss_open, 1),
        "rss_after_eviction_mb": round(rss_evicted, 1),
        "load_average": os.getloadavg(),
    }
    if args.json:
        print(json.dumps(out))
        return
    print(f"{out['games']} turn-based games in progress in the database (built in {built:.0f} s)")
    print(
        f"server RSS: empty database {rss_empty:.1f} MB, with the games {rss_full:.1f} MB "
        f"(difference {rss_full - rss_empty:+.1f} MB; target within 20 MB)"
    )
    print(
        f"opening one game (GET /state, loaded from its log): {open_ms:.1f} ms CPU of the server; "
        f"the same request on a game in memory {loaded_ms:.1f} ms (target: opening under 50 ms)"
    )
    print(f"RSS after {n} opens {rss_open:.1f} MB, after their eviction {rss_evicted:.1f} MB")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*out["load_average"]))


if __name__ == "__main__":
    main()
