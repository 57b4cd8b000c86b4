"""Engine benchmark: random games per second, clone() time, rollouts from mid-game.

"Random" means: at every step pick uniformly among ``legal_moves()`` and pass
the move to the checked ``play()``. Run on one core:

    python bench/engine.py [--seconds 2] [--repeats 5]

Prints medians over repeats and, in brackets, their spread (lowest-highest);
these machines are noisy: compare ratios measured in one run.
Reference figures on the reference machine (docs/benchmarks.md): a plain Python
implementation ~5,500 games/s; target >= 15,000 4-player games/s.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Callable

from catsack.game import Game


def play_out(g: Game, bits: Callable[[int], int]) -> None:
    """Play ``g`` to the end, each move uniform among ``legal_moves()``, through ``play()``."""
    legal = g.legal_moves
    play = g.play
    ms = legal()
    while ms:
        # Uniform pick: multiply-shift on 32 random bits (Lemire); bias < 1e-7.
        play(ms[(bits(32) * len(ms)) >> 32])
        ms = legal()


def random_games(seats: int, seconds: float, rng: random.Random) -> float:
    """Games per second played by the uniform random policy, dealing included."""
    bits = rng.getrandbits
    new = Game.new
    games = 0
    deadline = time.perf_counter() + seconds
    t0 = time.perf_counter()
    while True:
        for _ in range(50):
            play_out(new(seats, rng=rng), bits)
        games += 50
        if time.perf_counter() >= deadline:
            break
    return games / (time.perf_counter() - t0)


def mid_game(seats: int, rng: random.Random) -> Game:
    """A game played randomly to the start of round 5's bidding."""
    g = Game.new(seats, rng=rng)
    while not (g.round == 5 and g.phase == "bidding"):
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return g


def clone_time(seats: int, rng: random.Random, n: int = 20000) -> float:
    g = mid_game(seats, rng)
    t0 = time.perf_counter()
    for _ in range(n):
        g.clone()
    return (time.perf_counter() - t0) / n


def rollouts(seats: int, seconds: float, rng: random.Random) -> float:
    """Rollouts per second: clone a mid-game position and play it out randomly."""
    base = mid_game(seats, rng)
    bits = rng.getrandbits
    count = 0
    deadline = time.perf_counter() + seconds
    t0 = time.perf_counter()
    while time.perf_counter() < deadline:
        for _ in range(50):
            play_out(base.clone(), bits)
        count += 50
    return count / (time.perf_counter() - t0)


def _spread(values: list[float], fmt: str) -> str:
    """The median, then the lowest and highest value in brackets."""
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}-{max(values):{fmt}}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one measurement")
    ap.add_argument("--repeats", type=int, default=5, help="measurements per figure (median printed)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seats", type=int, nargs="+", default=[3, 4, 5], choices=(3, 4, 5), help="seat counts to measure")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rng = random.Random(args.seed)
    print(f"python {platform.python_version()} on {platform.machine()}, one core, medians of {args.repeats}")
    print(f"{'seats':>5}  {'games/s [spread]':>26}  {'clone us [spread]':>21}  {'rollouts/s [spread]':>26}")
    for seats in args.seats:
        gps = [random_games(seats, args.seconds, rng) for _ in range(args.repeats)]
        ct = [clone_time(seats, rng) * 1e6 for _ in range(args.repeats)]
        ro = [rollouts(seats, args.seconds, rng) for _ in range(args.repeats)]
        print(
            f"{seats:>5}  {_spread(gps, ',.0f'):>26}  {_spread(ct, '.2f'):>21}  {_spread(ro, ',.0f'):>26}", flush=True
        )
    print("target: >= 15,000 random 4-player games/s (plain Python reference ~5,500/s)")


if __name__ == "__main__":
    main()
