"""Tournament throughput: games per second of ``catsack tournament`` (play only, then statistics).

    .venv/bin/python bench/tournament.py [--bots heuristic,heuristic,heuristic,heuristic]
                                         [--games 10000] [--jobs 2] [--seed 1] [--profile]

The issue's target: 10,000 heuristic-only 4-player games in under 10 s on a
2-core machine. ``--profile`` plays a short in-process run under cProfile and
prints where the time goes (bot, views, engine, runner).

Issue 6 took one process from ~19 to ~650 heuristic-only games per CPU second
(~1.5 ms a game: about 55% building the 128 views of a game, a fifth of which
is the game rebuilding its finished rounds at each round's end, 35% the
heuristic bot, the rest engine and runner).
Two free cores therefore play 10,000 games in about 8 s; on the shared
machine, wall time depends on what else runs (14.9 s and 24.4 s measured
with other agents using ~1.8 cores).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import time

from catsack.tournament import TournamentConfig, parse_bots
from catsack.tournament.runner import check_bots, run_games
from catsack.tournament.stats import summarize


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
    started = time.perf_counter()
    games = run_games(config, jobs=args.jobs)
    played = time.perf_counter() - started
    started = time.perf_counter()
    summarize(config.bots, games, seed=config.seed)
    stats = time.perf_counter() - started
    print(
        f"{len(games)} games, jobs {args.jobs}: play {played:.2f} s ({len(games) / played:.0f} games/s), "
        f"statistics {stats:.2f} s; total {played + stats:.2f} s (target: 10,000 games < 10 s)"
    )


if __name__ == "__main__":
    main()
