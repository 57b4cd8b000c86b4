"""Self-play throughput of the dmc pipeline: games per CPU-second with the network deciding every move.

    PYTHONPATH=src python bench/selfplay_speed.py [--seats 3,4,5] [--games 8192] [--hidden 256,256] [--train]

Every seat of every game is the network (a :class:`catsack.learn.qnet.QNet`,
epsilon-greedy, recording training rows as in training), on the compiled
engine with batched inference (:func:`catsack.learn.fast_selfplay.play`).
CPU time is the process's own (``time.process_time``, all threads; BLAS
and torch limited to one thread). ``--train`` also times whole training
iterations of :mod:`catsack.learn.dmc` (play and fit, needs PyTorch). The
load average is printed beside the figures: on a shared machine, compare
figures of one run only.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import itertools

from catsack.learn.blas import single_thread_blas
from catsack.learn.fast_features import NUM_ABSTRACT, feature_size
from catsack.learn.fast_selfplay import play
from catsack.learn.qnet import QNet


def _net(seats: int, hidden: list[int], seed: int) -> QNet:
    rng = np.random.default_rng(seed)
    dims = [feature_size(seats), *hidden, NUM_ABSTRACT]
    ws = [rng.normal(0, (2 / a) ** 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(dims)]
    return QNet(ws, [np.zeros(b, np.float32) for b in dims[1:]])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seats", default="3,4,5")
    p.add_argument("--games", type=int, default=8192)
    p.add_argument("--lanes", type=int, default=1024)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--train", action="store_true", help="also time training iterations (needs PyTorch)")
    args = p.parse_args()
    single_thread_blas()
    hidden = [int(h) for h in args.hidden.split(",")]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; hidden {hidden}, lanes {args.lanes}")
    for n in (int(s) for s in args.seats.split(",")):
        net = _net(n, hidden, n)
        rng = np.random.default_rng(n)
        play(n, np.zeros((64, n), np.int64), [net], rng=rng, seed=0, lanes=64)  # compile / load the kernels
        roles = np.zeros((args.games, n), np.int64)
        t0 = time.process_time()
        rows, results = play(n, roles, [net], rng=rng, seed=1, lanes=args.lanes)
        cpu = time.process_time() - t0
        print(
            f"{n} seats: {args.games} self-play games in {cpu:.2f} CPU-s = "
            f"{args.games / cpu:,.0f} games per CPU-second "
            f"({results.plies.mean():.0f} plies a game, {len(rows) / args.games:.0f} learner rows a game, "
            f"{len(rows) / cpu:,.0f} network decisions per CPU-second)"
        )
    if args.train:
        from catsack.learn.dmc import DMCConfig, DMCTrainer

        for n in (int(s) for s in args.seats.split(",")):
            trainer = DMCTrainer(DMCConfig(seats=(n,), games=10**9, batch_games=512, hidden=tuple(hidden), seed=1))
            trainer.step()  # warm up
            t0 = time.process_time()
            for _ in range(4):
                trainer.step()
            cpu = time.process_time() - t0
            print(f"{n} seats: training (play + fit) {4 * 512 / cpu:,.0f} games per CPU-second")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
