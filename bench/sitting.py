"""Sittings: several games in a row at one table, the same bot objects from game to game.

    .venv/bin/python bench/sitting.py --bots expert:memory=1,dmc,dmc,dmc,dmc --against expert \\
        --sittings 8 --games 5 --seed 1 [--hide-kinds] [--jobs 2] [--save FILE]

A sitting is ``--games`` games on fresh deals, played by the same bots in the same seats with
:func:`catsack.bots.base.play_game`, so a bot that keeps what a table's earlier games showed
(``expert:memory=1``, :mod:`catsack.bots.expert.memory`) can use it in the later ones. Each of the
``--sittings`` is played once per rotation of the seats (the first bot in every seat), and, with
``--against SPEC``, again with ``SPEC`` in the first bot's place on the same deals, bots and seeds: the
two arms are paired sitting by sitting. It prints the first bot's win share (R22: ties split) and its
margin over the table's mean score (R21) by the game's number in the sitting, and for the games after
the first (where a memory can act) the paired differences with 95% bootstrap intervals over the
sittings (each sitting's rotations resampled together).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from catsack.bots import make_bot
from catsack.bots.base import play_game
from catsack.game import Game
from catsack.setup import Setup
from catsack.tournament.schedule import derive_seed

Game_ = tuple[float, float]  # the first bot's (win share, margin) in one game


def play_sitting(bots: list[str], seed: int, sitting: int, rotation: int, games: int, hide: bool) -> list[Game_]:
    """One sitting: the bots of ``bots`` (the first at seat ``rotation``) play ``games`` deals in a row."""
    n = len(bots)
    seats = [bots[(s - rotation) % n] for s in range(n)]
    made = [make_bot(spec, seed=derive_seed(seed, "bot", sitting, rotation, s)) for s, spec in enumerate(seats)]
    out: list[Game_] = []
    try:
        for g in range(games):
            setup = Setup.deal(n, random.Random(derive_seed(seed, "deal", sitting, g)))
            game = play_game(Game(setup), made, hide_kinds=hide)
            scores = game.scores()
            winners = game.winners()
            win = 1.0 / len(winners) if rotation in winners else 0.0
            out.append((win, scores[rotation] - sum(scores) / n))
    finally:
        for bot in made:
            bot.close()
    return out


def cpu_since(t0: os.times_result) -> float:
    """CPU seconds of this process and its finished workers since ``t0``."""
    t = os.times()
    return sum(t[:4]) - sum(t0[:4])


def bootstrap(diffs: list[float], rng: random.Random, reps: int = 4000) -> tuple[float, float]:
    """95% percentile interval of the mean of ``diffs`` (one value per sitting)."""
    k = len(diffs)
    means = sorted(sum(diffs[rng.randrange(k)] for _ in range(k)) / k for _ in range(reps))
    return means[int(0.025 * reps)], means[int(0.975 * reps) - 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", required=True, help="comma-separated specs, one per seat; the first is measured")
    ap.add_argument("--against", help="the spec played in the first bot's place on the same sittings (paired)")
    ap.add_argument("--sittings", type=int, default=8, help="sittings, each played once per rotation of the seats")
    ap.add_argument("--games", type=int, default=5, help="games per sitting")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hide-kinds", action="store_true", help="present every seat to the bots as a person")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--save", type=Path, help="write every game's result (JSON)")
    args = ap.parse_args()
    bots = [b.strip() for b in args.bots.split(",")]
    if not 3 <= len(bots) <= 5:
        sys.exit(f"--bots names {len(bots)} seats; a table has 3 to 5 (R4)")
    if args.sittings < 1 or args.games < 1:
        sys.exit("--sittings and --games must be at least 1")
    for spec in {*bots, *([args.against] if args.against else [])}:
        make_bot(spec).close()  # a bad spec fails here, with its message
    n = len(bots)
    arms = {"first": bots} | ({"against": [args.against, *bots[1:]]} if args.against else {})
    jobs = [(arm, i, r) for arm in arms for i in range(args.sittings) for r in range(n)]
    t0 = os.times()
    results: dict[tuple[str, int, int], list[Game_]] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {
            job: pool.submit(play_sitting, arms[job[0]], args.seed, job[1], job[2], args.games, args.hide_kinds)
            for job in jobs
        }
        for done, (job, fut) in enumerate(futures.items(), 1):
            results[job] = fut.result()
            print(f"\r  {done}/{len(jobs)} sittings", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    table = ", ".join(bots)
    print(
        f"{table}: {args.sittings} sittings x {n} rotations x {args.games} games, seed {args.seed}"
        f"{', kinds hidden' if args.hide_kinds else ''} ({cpu_since(t0):.0f} s CPU)"
    )
    for arm, specs in arms.items():
        print(f"\n{specs[0]}: win share and margin by game of the sitting")
        for g in range(args.games):
            wins = [results[arm, i, r][g][0] for i in range(args.sittings) for r in range(n)]
            margins = [results[arm, i, r][g][1] for i in range(args.sittings) for r in range(n)]
            print(f"  game {g + 1}: {sum(wins) / len(wins):.3f}  {sum(margins) / len(margins):+.2f}")
        later = [results[arm, i, r][g] for i in range(args.sittings) for r in range(n) for g in range(1, args.games)]
        if later:
            print(
                f"  games 2-{args.games}: {sum(w for w, _ in later) / len(later):.3f}  "
                f"{sum(m for _, m in later) / len(later):+.2f}  ({len(later)} games)"
            )
    if args.against:
        same = sum(
            results["first", i, r][0] == results["against", i, r][0] for i in range(args.sittings) for r in range(n)
        )
        print(f"\ngame 1 (nothing to recall yet) the same in both arms in {same} of {args.sittings * n} sittings")
    if args.against and args.games > 1:
        rng = random.Random(args.seed)
        print(f"\n{bots[0]} over {args.against}, games 2-{args.games}, paired by sitting [95% CI]:")
        for label, idx in (("win share", 0), ("margin", 1)):
            diffs = [
                sum(
                    results["first", i, r][g][idx] - results["against", i, r][g][idx]
                    for r in range(n)
                    for g in range(1, args.games)
                )
                / (n * (args.games - 1))
                for i in range(args.sittings)
            ]
            lo, hi = bootstrap(diffs, rng)
            print(f"  {label}: {sum(diffs) / len(diffs):+.3f} [{lo:+.3f}, {hi:+.3f}]")
    if args.save:
        args.save.write_text(
            json.dumps(
                {
                    "bots": bots,
                    "against": args.against,
                    "seed": args.seed,
                    "games": args.games,
                    "sittings": args.sittings,
                    "hide_kinds": args.hide_kinds,
                    "results": [{"arm": a, "sitting": i, "rotation": r, "games": results[a, i, r]} for a, i, r in jobs],
                }
            )
        )


if __name__ == "__main__":
    main()
