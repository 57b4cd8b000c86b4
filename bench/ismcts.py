"""ISMCTS speed: iterations per second and decision-time percentiles on one core.

    .venv/bin/python bench/ismcts.py [--level strong] [--games 3] [--seats 4] [--seed 1]

Plays whole games in which every seat is the ISMCTS bot at the given level and
times every decision with more than one legal move (trivial ones are free).
Target: >= 10,000 iterations/s at ``strong`` and p95 decision time <= 0.5 s
(measured: ``--games 2`` at strong = 3,500 iterations: 16,737 iterations/s, p95 0.369 s,
max 0.396 s, shared 2-core machine; at 2,000 iterations 18,113/s, p95 0.217 s; 9,100/s
before this session's speed work).
"""

from __future__ import annotations

import argparse
import random
import time

from catsack.bots.ismcts import parse_budget, search
from catsack.game import Game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--level", default="strong", help="easy, normal, strong, iters=N or time=S")
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    iterations, seconds = parse_budget(args.level)
    rng = random.Random(args.seed)
    times: list[float] = []
    total_iters = 0
    total_time = 0.0
    for i in range(args.games):
        g = Game.new(args.seats, seed=args.seed * 1000 + i)
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            if len(view.legal) == 1:
                g.play(view.legal[0])
                continue
            t0 = time.perf_counter()
            stats = search(view, rng, iterations=iterations, seconds=seconds)
            times.append(time.perf_counter() - t0)
            total_iters += stats.iterations
            total_time += stats.seconds
            g.play(stats.best)
    times.sort()

    def pct(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))]

    print(f"level {args.level}, {args.seats} seats, {args.games} games, {len(times)} decisions")
    print(f"iterations/s: {total_iters / total_time:,.0f}")
    print(f"decision time: p50 {pct(0.5):.3f} s, p95 {pct(0.95):.3f} s, max {times[-1]:.3f} s")


if __name__ == "__main__":
    main()
