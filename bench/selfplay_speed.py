"""Self-play throughput: games per CPU-second of the dmc pipeline and of the learned expert's league training.

    PYTHONPATH=src python bench/selfplay_speed.py [--seats 3,4,5] [--games 8192] [--hidden 256,256] [--train]
    PYTHONPATH=src python bench/selfplay_speed.py --league [--seats 4] [--iterations 4] [--ray 1,2]

Every seat of every game is the network (a :class:`catsack.learn.qnet.QNet`,
epsilon-greedy, recording training rows as in training), on the compiled
engine with batched inference (:func:`catsack.learn.fast_selfplay.play`).
CPU time is the process's own (``time.process_time``, all threads; BLAS
and torch limited to one thread). ``--train`` also times whole training
iterations of :mod:`catsack.learn.dmc` (play and fit, needs PyTorch). The
load average is printed beside the figures: on a shared machine, compare
figures of one run only.

``--league`` times whole iterations of :mod:`catsack.learn.league_train` instead (league play on the
compiled engine, personas and the history tracker included, and the PyTorch fit of all four heads), at the
trainer's defaults, with the exploiters' phases and quick evaluations left out: games per CPU-second of
play and fit together (this process's CPU). ``--ray 1,2`` then plays the same iteration's games on that
many Ray actors (one CPU each) and prints the games per second of wall time and the speed-up over the
first count: run it on an otherwise quiet machine, and read the load average printed beside it.
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
    p.add_argument("--league", action="store_true", help="time the learned expert's league training instead")
    p.add_argument("--iterations", type=int, default=4)
    p.add_argument("--ray", default="", help="with --league: actor counts to compare, e.g. 1,2")
    p.add_argument("--result", help="with --league: also write the figures (for bench/results_table.py)")
    args = p.parse_args()
    if args.league:
        league(args)
        return
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


def league(args: argparse.Namespace) -> None:
    from catsack.learn.league_train import TrainConfig, Trainer, export_net

    rows: list[dict[str, str]] = []
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for n in (int(s) for s in args.seats.split(",")):
        config = TrainConfig(seats=(n,), games=10**9, seed=1, eval_every=0, exploit_every=0)
        trainer = Trainer(config)
        trainer.step()  # compile / load the kernels; the first snapshot
        t0 = time.process_time()
        for _ in range(args.iterations):
            trainer.step()
        cpu = time.process_time() - t0
        games = args.iterations * config.batch_games
        print(
            f"{n} seats: league training (play + fit) {games / cpu:,.0f} games per CPU-second "
            f"({games} games, {cpu:.1f} CPU-s, hidden {config.hidden})"
        )
        rows.append({"what": f"league training, play and fit, {n} seats", "figure": f"{games / cpu:,.0f} games/CPU-s"})

        counts = [int(k) for k in args.ray.split(",") if k]
        first = None
        for k in counts:
            timed = Trainer(TrainConfig(seats=(n,), games=10**9, seed=1, actors=k, chunks=k, eval_every=0))
            seat = timed.seats[n]
            learner = export_net(n, seat.net)
            jobs = timed.jobs(n, learner, [], [], config.league(), 512 * k, 0)
            timed.pool().play(jobs)
            t0 = time.perf_counter()
            for _ in range(args.iterations):
                timed.pool().play(jobs)
            wall = time.perf_counter() - t0
            rate = args.iterations * 512 * k / wall
            first = first or rate
            print(f"{n} seats: {k} Ray actor(s): {rate:,.0f} self-play games per wall-second, x{rate / first:.2f}")
            rows.append(
                {"what": f"league self-play on {k} Ray actor(s), {n} seats", "figure": f"×{rate / first:.2f} of one"}
            )
            import ray

            ray.shutdown()  # the next count starts its own local Ray with that many CPUs
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.result:
        import json

        result = {
            "kind": "selfplay",
            "command": "PYTHONPATH=src python bench/selfplay_speed.py " + " ".join(sys.argv[1:]),
            "load": [round(x, 2) for x in os.getloadavg()],
            "rows": rows,
        }
        Path(args.result).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
