"""Tournament throughput: games per second of ``catsack tournament`` (play only, then statistics).

    .venv/bin/python bench/tournament.py [--bots heuristic,heuristic,heuristic,heuristic]
                                         [--games 10000] [--jobs 2] [--seed 1] [--profile]

The target: 10,000 heuristic-only 4-player games in under 10 s on a
2-core machine. ``--profile`` plays a short in-process run under cProfile and
prints where the time goes (bot, views, engine, runner).

One process plays about 650 heuristic-only games per CPU second
(~1.5 ms a game: about 55% building the 128 views of a game, a fifth of which
is the game rebuilding its finished rounds at each round's end, 35% the
heuristic bot, the rest engine and runner).
Two free cores therefore play 10,000 games in about 8 s; on the shared
machine, wall time depends on what else runs (14.9 s and 24.4 s measured
with other agents using ~1.8 cores).
Incremental finished rounds, cheaper views and view-free forced moves took
it, on the same machine in the same session, from 405 to 613 games per CPU
second, and 10,000 games with --jobs 2 in 8.7 s instead of 12.9 s (two free
cores, load average ~1 before each run).

Besides wall time the bench prints the CPU time the workers used (Linux: read
from /proc, where the forkserver collects its finished workers' times), the
games per CPU second that gives, how busy the workers kept their cores, and
the load average before and after: on a shared machine, low utilisation with
a high load means the workers waited for cores, not that the code got slower.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import time
from pathlib import Path

from catsack.tournament import TournamentConfig, parse_bots
from catsack.tournament.runner import check_bots, run_games
from catsack.tournament.stats import summarize


def _children_cpu() -> float | None:
    """CPU seconds of this process's children and their finished children (Linux /proc), else None.

    Worker processes are children of the multiprocessing forkserver, which reaps
    them, so their time shows in the forkserver's cutime/cstime, not in os.times().
    """
    try:
        tick = os.sysconf("SC_CLK_TCK")
        pids: list[str] = []
        for task in Path("/proc/self/task").iterdir():
            pids += (task / "children").read_text().split()
        total = 0
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
    except (OSError, ValueError):
        return None
    times = os.times()
    return total / tick + times.children_user + times.children_system


def _load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bots", default="heuristic,heuristic,heuristic,heuristic")
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true", help="profile a short in-process run instead")
    args = ap.parse_args()
    config = TournamentConfig(parse_bots(args.bots), games=args.games, seed=args.seed)
    check_bots(config)
    print(f"python {platform.python_version()}, {os.cpu_count()} cores; bots {','.join(config.bots)}")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run_games, config, jobs=1)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return
    load_before = _load()
    cpu_before = _children_cpu()
    own_before = time.process_time()
    started = time.perf_counter()
    games = run_games(config, jobs=args.jobs)
    played = time.perf_counter() - started
    own = time.process_time() - own_before
    cpu_after = _children_cpu()
    load_after = _load()
    started = time.perf_counter()
    summarize(config.bots, games, seed=config.seed)
    stats = time.perf_counter() - started
    print(
        f"{len(games)} games, jobs {args.jobs}: play {played:.2f} s ({len(games) / played:.0f} games/s), "
        f"statistics {stats:.2f} s; total {played + stats:.2f} s (target: 10,000 games < 10 s)"
    )
    if cpu_before is not None and cpu_after is not None:
        cpu = cpu_after - cpu_before + own  # the workers' time, plus this process's (all of it with --jobs 1)
        busy = cpu / (played * max(1, args.jobs))
        print(
            f"CPU {cpu:.2f} s: {len(games) / cpu:.0f} games per CPU second (each worker's rate); "
            f"cores kept busy {busy:.0%} of {args.jobs} x wall time"
        )
    print(f"load average (1, 5, 15 min): {load_before} before, {load_after} after")


if __name__ == "__main__":
    main()
