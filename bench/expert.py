"""Expert bot speed: decision-time percentiles (CPU time, one core) and iterations per second.

    .venv/bin/python bench/expert.py [--level expert] [--games 2] [--seats 4] [--seed 1] [--meet]

Plays whole games in which every seat is the expert bot with the given options (``expert``, or
an ``expert:...`` spec's options, e.g. ``iters=N``, ``time=S`` or ``styles=mix``) and times every
decision with more than one legal move with ``time.process_time`` (CPU time of this process, so
other load on a shared machine counts less than in wall time). Target: p95 <= 0.5 s per
decision on one core (measured with the level's iterations per seat count, ``--games 1 --seed 2
--meet``, one process alone on the 2-core machine: p95 0.428 / 0.477 / 0.396 s with 3 / 4 / 5 seats).
``--meet``: the bot first meets a table of its own kind (``Bot.meet``), as every bot does at a
tournament or server table.
"""

from __future__ import annotations

import argparse
import time

from catsack.bots.base import BotSpecError
from catsack.bots.expert import ExpertBot
from catsack.game import Game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--level", default="expert", help="expert, or an expert spec's options (easy|normal|strong, iters=N, ...)"
    )
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--meet", action="store_true", help="the bot meets a table of its own kind (Bot.meet), as in a tournament"
    )
    args = ap.parse_args()
    try:
        bot = ExpertBot(args.level, seed=args.seed)  # one bot plays every seat: its rng as one search's
    except BotSpecError as e:
        ap.error(str(e))
    cpu: list[float] = []
    wall: list[float] = []
    total_iters = 0
    for i in range(args.games):
        g = Game.new(args.seats, seed=args.seed * 1000 + i)
        if args.meet:
            bot.meet(["expert" if args.level == "expert" else f"expert:{args.level}"] * args.seats)
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            if len(view.legal) == 1:
                g.play(view.legal[0])
                continue
            c0 = time.process_time()
            w0 = time.perf_counter()
            move = bot.choose(view)
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            assert bot.last is not None
            total_iters += bot.last.iterations
            g.play(move)

    def pct(xs: list[float], q: float) -> float:
        s = sorted(xs)
        return s[min(len(s) - 1, int(q * len(s)))]

    met = " (met the table)" if args.meet else ""
    print(f"level {args.level}{met}, {args.seats} seats, {args.games} games, {len(cpu)} decisions")
    print(f"iterations/s (CPU): {total_iters / sum(cpu):,.0f}")
    print(f"decision CPU time: p50 {pct(cpu, 0.5):.3f} s, p95 {pct(cpu, 0.95):.3f} s, max {max(cpu):.3f} s")
    print(f"decision wall time: p50 {pct(wall, 0.5):.3f} s, p95 {pct(wall, 0.95):.3f} s, max {max(wall):.3f} s")


if __name__ == "__main__":
    main()
