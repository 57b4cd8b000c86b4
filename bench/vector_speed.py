"""Random games per second of the batched engines, numpy and compiled, measured in one run.

    NUMBA_NUM_THREADS=1 taskset -c 0 nice .venv/bin/python bench/vector_speed.py [--seats 3 4 5] [--repeats 5]

Every line plays whole games with **uniformly random legal actions** (the
issue's "random games"), deals included, and reports games per second of this
process's CPU time (the machines are shared; wall time is noisy). The stepped
lines count moves and divide by the mean length of the games that ended (about
89 moves with 4 seats), since a batch's games start together and end in waves.
Each line runs ``--repeats`` times, interleaved with the others so a noisy
spell hits them alike, and reports the median (and, in brackets, the lowest
and highest run). Lines:

- ``numpy[B]``: :class:`~catsack.envs.vector.VectorGame` with ``B`` games a
  step: ``random_actions`` + ``step`` + ``reset(ended)`` (the figures the
  issue quotes: about 37,000 games/s at 1,024, 52,000 at 4,096).
- ``numba[B] stepped``: :class:`~catsack.envs.vector_numba.NumbaVectorGame`,
  the same Python loop (actions drawn in Python from the same kind of
  generator), each call compiled.
- ``... +obs``: the stepped loop plus every game's observation (its seat to
  move) and legal mask each step, what a learner's policy would read (the
  policy itself is left out: the actions stay random).
- ``numba[B] play_out``: ``reset()`` then ``play_out()``: all ``B`` games
  played to the end inside one kernel call, moves logged.
- ``numba play_random``: :func:`~catsack.envs.vector_numba.play_random`,
  deals and games inside one compiled loop, nothing kept but the scores.

The ratio columns are against ``numpy[1024]`` and against the issue's goal
(within 2x of a compiled implementation: about 220,000 random 4-player games
per second on one core, so 110,000). The first call of the compiled lines
(loading or compiling the kernels) is reported apart and not timed.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("NUMBA_NUM_THREADS", "1")  # one core, as the figure

import numpy as np

from catsack.envs.vector import VectorGame

COMPILED_REFERENCE = 220_000  # the compiled implementation, random 4-player games per second on one core
GOAL = COMPILED_REFERENCE / 2


def numpy_games(batch: int, seats: int, seconds: float, seed: int, observe: bool = False) -> float:
    """``VectorGame``: random actions, step, re-deal the finished games, for about ``seconds`` of CPU."""
    return _stepped(VectorGame(batch, seats, seed=seed), seconds, seed, observe)


def numba_stepped(batch: int, seats: int, seconds: float, seed: int, observe: bool = False) -> float:
    """``NumbaVectorGame`` stepped from Python like the numpy line."""
    from catsack.envs.vector_numba import NumbaVectorGame

    return _stepped(NumbaVectorGame(batch, seats, seed=seed), seconds, seed, observe)


def _stepped(vg: VectorGame, seconds: float, seed: int, observe: bool) -> float:
    """Moves per CPU second over the mean length of the games that ended meanwhile.

    Counting moves rather than ended games keeps the figure fair for large
    batches: all games start together, so ended games come in waves.
    """
    rng = np.random.default_rng(seed)
    finished = plies = 0
    moves0 = vg.total_moves
    t0 = time.process_time()
    while True:
        for _ in range(50):
            if observe:  # what a learner's policy reads each step (its choice is left out: random actions)
                vg.observe()
                vg.legal_action_mask()
            ended = vg.step(vg.random_actions(rng))
            finished += int(ended.sum())
            plies += int(vg.ply[ended].sum())
            vg.reset(ended)
        spent = time.process_time() - t0
        if spent >= seconds and finished:
            return (vg.total_moves - moves0) / spent / (plies / finished)


def numba_play_out(batch: int, seats: int, seconds: float, seed: int) -> float:
    """``NumbaVectorGame``: deal ``batch`` games, play them all out in one kernel call, again."""
    from catsack.envs.vector_numba import NumbaVectorGame

    vg = NumbaVectorGame(batch, seats, seed=seed)
    finished = 0
    t0 = time.process_time()
    while True:
        vg.reset()
        vg.play_out(seed=seed + finished)
        finished += batch
        spent = time.process_time() - t0
        if spent >= seconds:
            return finished / spent


def numba_play_random(seats: int, seconds: float, seed: int) -> float:
    """``play_random``: chunks of 20,000 whole games, each chunk one kernel call."""
    from catsack.envs.vector_numba import play_random

    finished = 0
    t0 = time.process_time()
    while True:
        play_random(20_000, seats, seed=seed + finished)
        finished += 20_000
        spent = time.process_time() - t0
        if spent >= seconds:
            return finished / spent


def _load_time(seats: int) -> float | None:
    """Seconds to load (or compile) the kernels and run each once; None without numba."""
    try:
        from catsack.envs.vector_numba import NumbaVectorGame, play_random
    except ImportError:
        return None
    t0 = time.perf_counter()
    try:
        vg = NumbaVectorGame(8, seats, seed=0)
    except ImportError:
        return None
    vg.observe()
    vg.legal_action_mask()
    vg.step(vg.random_actions(np.random.default_rng(0)))
    vg.play_out(seed=0)
    vg.reset(vg.terminated)
    play_random(10, seats, seed=0)
    return time.perf_counter() - t0


def measure(seats: int, args: argparse.Namespace) -> None:
    """Run every line for one seat count, interleaved, and print its table."""
    loaded = _load_time(seats)
    sec = args.seconds
    lines: list[tuple[str, Callable[[int], float]]] = [
        ("numpy[1024]", lambda r: numpy_games(1024, seats, sec, args.seed + r)),
        ("numpy[4096]", lambda r: numpy_games(4096, seats, sec, args.seed + r)),
        ("numpy[1024] +obs", lambda r: numpy_games(1024, seats, sec, args.seed + r, observe=True)),
    ]
    if loaded is not None:
        lines += [
            ("numba[1024] stepped", lambda r: numba_stepped(1024, seats, sec, args.seed + r)),
            ("numba[4096] stepped", lambda r: numba_stepped(4096, seats, sec, args.seed + r)),
            ("numba[1024] +obs", lambda r: numba_stepped(1024, seats, sec, args.seed + r, observe=True)),
            ("numba[4096] play_out", lambda r: numba_play_out(4096, seats, sec, args.seed + r)),
            ("numba play_random", lambda r: numba_play_random(seats, sec, args.seed + r)),
        ]
    runs: dict[str, list[float]] = {name: [] for name, _ in lines}
    for r in range(max(1, args.repeats)):  # one run of every line per pass: a noisy spell hits all alike
        for name, run in lines:
            runs[name].append(run(r))
    print()
    if loaded is None:
        print(f"{seats} seats (numba not installed: compiled lines skipped; pip install 'catsack[fast]')")
    else:
        print(f"{seats} seats (kernels loaded or compiled in {loaded:.1f} s, not timed)")
    print(f"{'line':<22}{'games/s':>10}{'(low-high)':>20}{'x numpy[1024]':>15}{'x goal':>8}")
    base = statistics.median(runs["numpy[1024]"])
    for name, _ in lines:
        rates = runs[name]
        med = statistics.median(rates)
        spread = f"({min(rates):,.0f}-{max(rates):,.0f})"
        print(f"{name:<22}{med:>10,.0f}{spread:>20}{med / base:>15.1f}{med / GOAL:>8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", type=int, nargs="+", default=[4], choices=(3, 4, 5))
    ap.add_argument("--repeats", type=int, default=5, help="runs per line; the median is reported")
    ap.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per run")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    load = f", load average {os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else ""
    print(
        f"{platform.python_implementation()} {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} CPUs{load}, {time.strftime('%Y-%m-%d %H:%M')}, "
        f"median of {args.repeats} runs of {args.seconds:g} CPU s per line"
    )
    for seats in args.seats:
        measure(seats, args)
    print()
    print(f"goal: within 2x of {COMPILED_REFERENCE:,} random 4-player games/s on one core: {GOAL:,.0f} ('x goal' 1.0)")


if __name__ == "__main__":
    main()
