"""Bot strength on duplicate deals: one hero bot against copies of another, rotated through the seats.

    .venv/bin/python bench/bot_strength.py HERO OPPONENT [--deals 50] [--seats 4] [--seed 1] [--jobs 1]

Every deal is played once with the hero in each seat (the same setup, so luck
of the deal cancels out). Prints the hero's win rate (ties share the win,
R22) with a 95% Wilson interval and a 95% bootstrap interval over deals.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor

from catsack.bots.base import make_bot, play_game
from catsack.game import Game


def play(specs: list[str], seats: int, seed: int) -> Game:
    return play_game(Game.new(seats, seed=seed), [make_bot(s, seed=seed * 31 + i) for i, s in enumerate(specs)])


def deal_score(task: tuple[str, str, int, int]) -> float:
    """The hero's mean win share over one deal played with the hero in each seat."""
    hero_spec, opponent, seats, seed = task
    total = 0.0
    for hero in range(seats):
        specs = [opponent] * seats
        specs[hero] = hero_spec
        winners = play(specs, seats, seed).winners()
        total += (hero in winners) / len(winners)
    return total / seats


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hero")
    ap.add_argument("opponent")
    ap.add_argument("--deals", type=int, default=50)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    args = ap.parse_args()
    t0 = time.perf_counter()
    tasks = [(args.hero, args.opponent, args.seats, args.seed * 100_000 + d) for d in range(args.deals)]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        per_deal = list(pool.map(deal_score, tasks))
    games = args.deals * args.seats
    rate = sum(per_deal) / len(per_deal)
    lo, hi = wilson(rate, games)
    rng = random.Random(0)
    boots = sorted(sum(rng.choices(per_deal, k=len(per_deal))) / len(per_deal) for _ in range(2000))
    print(f"{args.hero} vs {args.seats - 1}x {args.opponent}: {games} games ({args.deals} deals x {args.seats} seats)")
    print(f"win rate {rate:.3f}  Wilson 95% [{lo:.3f}, {hi:.3f}]  bootstrap 95% [{boots[50]:.3f}, {boots[1949]:.3f}]")
    print(f"{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
