"""CPU time per decision of several bot specs on the same positions, to match budgets across bots.

    .venv/bin/python bench/bot_cpu.py expert openspiel-ismcts:sims=200 [--positions 60] [--seats 4]

Positions are decisions with more than one legal move, drawn from games the heuristic bot plays
against itself (deals and picks fixed by ``--seed``). Each spec decides every position from that
seat's view (R23), timed with ``time.process_time`` (CPU time of this process, so other load on a
shared machine counts little). Before the timed decisions each spec decides the first position once
untimed, so one-time costs (loading weights, compiling) do not count as a decision's. Prints, per spec,
the mean, median and p95 CPU seconds per decision and the ratio of its mean to the first spec's. To compare
``expert`` with OpenSpiel's ISMCTS "at equal CPU time per move": choose ``sims`` so the means match, then seat
both in ``bench/expert_strength.py --bots``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from catsack.bots import make_bot
from catsack.bots.heuristic import HeuristicBot
from catsack.game import Game
from catsack.view import View


def positions(count: int, seats: int, seed: int) -> list[View]:
    """``count`` views of the seat to move, spread over heuristic self-play games."""
    rng = random.Random(seed)
    out: list[View] = []
    k = 0
    while len(out) < count:
        g = Game.new(seats, seed=seed * 1000 + k)
        k += 1
        bots = [HeuristicBot(seed=seed * 1000 + k * 10 + s) for s in range(seats)]
        while not g.is_over and len(out) < count:
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            if len(view.legal) > 1 and rng.random() < 0.2:
                out.append(view)
            g.play(bots[seat].choose(view))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="+", help="bot specs, e.g. expert openspiel-ismcts:sims=200")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--result", metavar="FILE", help="also write the figures (for bench/results_table.py)")
    args = ap.parse_args()
    views = positions(args.positions, args.seats, args.seed)
    first: float | None = None
    rows: list[dict[str, object]] = []
    print(f"{len(views)} positions, {args.seats} seats, seed {args.seed}")
    for spec in args.specs:
        bot = make_bot(spec, seed=args.seed)
        bot.reset(0, args.seats)
        bot.choose(views[0])  # one-time costs (weights, compiled code) are no decision's
        cpu: list[float] = []
        for i, view in enumerate(views):
            t0 = time.process_time()
            bot.choose(view)
            cpu.append(time.process_time() - t0)
            print(f"  {spec}: {i + 1}/{len(views)}", end="\r", file=sys.stderr, flush=True)
        mean = statistics.fmean(cpu)
        first = first or mean
        p95 = sorted(cpu)[max(0, round(0.95 * len(cpu)) - 1)]
        print(
            f"{spec:<36} mean {mean:.3f} s  median {statistics.median(cpu):.3f} s  p95 {p95:.3f} s  "
            f"x{mean / first:.2f} of the first"
        )
        rows.append({"spec": spec, "mean": mean, "median": statistics.median(cpu), "p95": p95, "ratio": mean / first})
    if args.result:
        import json
        import os
        from pathlib import Path

        result = {
            "kind": "cpu",
            "command": "python bench/bot_cpu.py " + " ".join(sys.argv[1:]),
            "load": [round(x, 2) for x in os.getloadavg()],
            "positions": len(views),
            "seats": args.seats,
            "rows": rows,
        }
        Path(args.result).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
