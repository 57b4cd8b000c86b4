"""Fit the expert bot's hand-made leaf value (``catsack.bots.expert.leaf.HAND_GAIN`` and ``TEMPERATURE``).

    .venv/bin/python bench/expert_fit.py [--games 1500] [--seed 1] [--bots heuristic]

Plays self-play games (default: heuristic bots in every seat, fast) and records, at the start of
every round, each seat's score (R21), money and hand. Then per seat count:

- ``HAND_GAIN``: least squares of each seat's future gain (final score minus score now), taken
  relative to the table's mean, on the cards in its hand (index order +15 +11 +8 +5 +3 -5 -8 R LD SD),
  also relative to the table's mean;
- ``TEMPERATURE``: per rounds left, the softmax temperature (points) that maximises the likelihood
  of the actual winners (R22: a shared win counts for each winner) given score plus hand gain.

Prints both tables as Python literals to paste into the module. Needs numpy (``catsack[train]``).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

import numpy as np

from catsack.bots.base import make_bot
from catsack.game import Game

T = TypeVar("T")


def self_play(
    seats: int, games: int, seed: int, spec: str, snap: Callable[[Game], T], first_round: int = 1
) -> Iterator[tuple[int, list[T], list[int], list[float]]]:
    """Self-play games of ``spec`` in every seat, each bot meeting the table. Per game: its number,
    ``snap(g)`` at the start of every round from ``first_round`` on (its placement phase), the final
    scores (R21) and the win shares (R22: a shared win counts for each winner)."""
    for i in range(games):
        g = Game.new(seats, seed=seed * 1_000_003 + i)
        bots = [make_bot(spec, seed=seed * 7919 + i * 7 + s) for s in range(seats)]
        for s, b in enumerate(bots):
            b.reset(s, seats)
            b.meet([spec] * seats)
        snaps: list[T] = []
        last_round = first_round - 1
        while not g.is_over:
            if g.round != last_round and g.phase == "placement":
                last_round = g.round
                snaps.append(snap(g))
            s = g.to_move
            assert s is not None
            g.play(bots[s].choose(g.view(s)))
        winners = g.winners()
        yield i, snaps, list(g.scores()), [1.0 / len(winners) if s in winners else 0.0 for s in range(seats)]


def winner_log_loss(est: np.ndarray, share: np.ndarray, t: float | np.ndarray) -> float:
    """Mean log-loss of the actual winners (``share`` per position and seat) when the seats' estimated
    final scores ``est`` become win chances by a softmax at temperature ``t`` (points; a number or a
    column of one per position), as the expert's leaf does."""
    z = est / t
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-(share * logp).sum() / len(est))


def print_literal(name: str, table: dict[int, Sequence[object]], note: str = "") -> None:
    """``table`` (per seat count) as a Python literal to paste into the module."""
    print(f"{name} = {{" + (f"  # {note}" if note else ""))
    for n, row in table.items():
        print(f"    {n}: {tuple(row)},")
    print("}")


def collect(
    seats: int, games: int, seed: int, spec: str
) -> list[tuple[int, list[int], list[int], list[int], list[float]]]:
    """Per round start of every game: (rounds left, scores, hand masks, final scores, final win shares)."""

    def snap(g: Game) -> tuple[int, list[int], list[int]]:
        return 10 - g.round, list(g.scores()), list(g._hands)

    rows = []
    for _, snaps, final, share in self_play(seats, games, seed, spec, snap):
        for left, scores, hands in snaps:
            rows.append((left, scores, hands, final, share))
    return rows


def fit(seats: int, rows: list) -> tuple[list[float], list[float]]:  # type: ignore[type-arg]
    xs = []
    ys = []
    for _left, scores, hands, final, _share in rows:
        h = np.array([[hands[s] >> c & 1 for c in range(10)] for s in range(seats)], dtype=float)
        gain = np.array(final, dtype=float) - np.array(scores, dtype=float)
        xs.append(h - h.mean(axis=0))
        ys.append(gain - gain.mean())
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    coef = coef - coef.mean()  # only differences between cards matter (every hand holds `left` cards)
    temps = [1.0]
    grid = np.exp(np.linspace(np.log(0.5), np.log(60.0), 200))
    for left in range(1, 10):
        sel = [r for r in rows if r[0] == left]
        if not sel:
            temps.append(temps[-1])
            continue
        est = np.array(
            [[r[1][s] + sum(coef[c] for c in range(10) if r[2][s] >> c & 1) for s in range(seats)] for r in sel]
        )
        share = np.array([r[4] for r in sel])
        temps.append(float(min(grid, key=lambda t: winner_log_loss(est, share, float(t)))))
    return [round(float(c), 2) for c in coef], [round(t, 1) for t in temps]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="heuristic", help="bot spec playing every seat")
    ap.add_argument("--seats", default="3,4,5")
    args = ap.parse_args()
    random.seed(args.seed)
    gains = {}
    temps = {}
    for n in (int(x) for x in args.seats.split(",")):
        t0 = time.perf_counter()
        rows = collect(n, args.games, args.seed, args.bots)
        gains[n], temps[n] = fit(n, rows)
        print(f"# {n} seats: {args.games} games of {args.bots}, {time.perf_counter() - t0:.0f} s")
    print_literal("HAND_GAIN", gains)
    print_literal("TEMPERATURE", temps)


if __name__ == "__main__":
    main()
