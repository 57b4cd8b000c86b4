"""Fit the value of money over the rest of the game for the expert's leaf (``leaf.MONEY_GAIN``).

    .venv/bin/python bench/money_fit.py [--games 1200] [--seed 1] [--bots heuristic] [--seats 4] [--rows FILE]

The hand-made leaf (``catsack.bots.expert.leaf.HandValue``) turns scores into win chances, and a mouse
counts there as one point (R21). A mouse is also the power to buy a later row (R12: a bid may not be
more than the mice one holds), so a seat with an empty purse at the start of round 2 can only pass
until it is paid for passing (R13). This script measures what the purse is worth beyond its points.

It plays self-play games of ``--bots`` and records, at the start of every round, each seat's score
(R21), its mice and the game's winners (R22, a shared win counting for each winner). Per rounds left,
it then fits the extra value of a purse of ``m`` mice, ``a * sqrt(m) + b * m`` points, added to the
score before the leaf's softmax at its own temperature (``leaf.TEMPERATURE``), by maximum likelihood of
the actual winners, on the even-numbered games; the odd-numbered ones give the held-out log-loss of
the winners with and without the term. Per round that fit has too little data and does not predict
held-out winners better, so the table printed is the pooled fit: one scale ``c`` for every round,
a purse adding ``c * left / 8 * sqrt(m)`` points with ``left`` rounds left. (Adding the same amount
to every seat changes nothing, so only the differences between purses are fitted.) Prints the table
as a Python literal to paste into the module. ``--rows FILE`` keeps the positions, so that a refit
does not replay the games. Needs numpy (``catsack[train]``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from catsack.bots.expert.leaf import TEMPERATURE
from catsack.game import Game

sys.path.insert(0, str(Path(__file__).resolve().parent))
from expert_fit import print_literal, self_play, winner_log_loss  # a sibling script: the leaf's fits share these

A_GRID = np.round(np.arange(-2.0, 8.01, 0.2), 2)
B_GRID = np.round(np.arange(-1.0, 1.001, 0.1), 2)
C_GRID = np.round(np.arange(-3.0, 6.001, 0.05), 2)
T_GRID = np.round(np.exp(np.linspace(np.log(0.5), np.log(2.0), 11)), 3)  # factors on the leaf's temperature

Row = tuple[int, int, list[int], list[int], list[float]]  # game, rounds left, scores, mice, win shares


def collect(seats: int, games: int, seed: int, spec: str) -> list[Row]:
    """Per round start (rounds 2-9) of every game: (game, rounds left, scores, mice, final win shares).
    Round 1 starts alike for everyone (R5): nothing to learn there."""

    def snap(g: Game) -> tuple[int, list[int], list[int]]:
        return 10 - g.round, list(g.scores()), list(g.money)

    rows: list[Row] = []
    for i, snaps, _, share in self_play(seats, games, seed, spec, snap, first_round=2):
        rows.extend((i, left, scores, mice, share) for left, scores, mice in snaps)
    return rows


def log_loss(score: np.ndarray, mice: np.ndarray, share: np.ndarray, t: float, a: float, b: float) -> float:
    """Mean log-loss of the winners (per position) with the purse term ``a * sqrt(m) + b * m``."""
    return winner_log_loss(score + a * np.sqrt(mice) + b * mice, share, t)


def fit(seats: int, rows: list[Row]) -> list[tuple[float, float, float, float, float, float, float, int]]:
    """Per rounds left 1-8: (a, b, the temperature factor fitted without the term, with it, held-out
    log-loss without the term, with it, extra value of 15 mice over 0 in points, positions). The
    temperature is fitted too (a factor on the leaf's), so that the term is not credited with a
    sharper softmax."""
    out = []
    for left in range(1, 9):
        sel = [r for r in rows if r[1] == left]
        parts = []
        for parity in (0, 1):
            part = [r for r in sel if r[0] % 2 == parity]
            parts.append(
                (
                    np.array([r[2] for r in part], dtype=float),
                    np.array([r[3] for r in part], dtype=float),
                    np.array([r[4] for r in part], dtype=float),
                )
            )
        t = TEMPERATURE[seats][left]
        train, test = parts
        f0 = min(T_GRID, key=lambda f: log_loss(*train, t * f, 0.0, 0.0))
        _, f1, a, b = min(
            ((log_loss(*train, t * f, a, b), f, a, b) for f in T_GRID for a in A_GRID for b in B_GRID),
            key=lambda x: x[0],
        )
        base = log_loss(*test, t * f0, 0.0, 0.0)
        held = log_loss(*test, t * f1, a, b)
        v15 = float(a * np.sqrt(15) + b * 15)
        out.append((float(a), float(b), float(f0), float(f1), base, held, v15, len(sel)))
    return out


def fit_pooled(seats: int, rows: list[Row]) -> tuple[float, float, float, float]:
    """One scale ``c`` for every round: a purse of m mice with ``left`` rounds left adds
    ``c * left / 8 * sqrt(m)`` points (grows with the rounds left to spend it in, worth most for the first
    mice). Returns (c, held-out log-loss without the term, with it, the extra value of 15 mice over 0
    with 8 rounds left), the log-loss a mean over the positions of every round."""
    arrays = []
    for parity in (0, 1):
        part = [r for r in rows if r[0] % 2 == parity and 1 <= r[1] <= 8]
        arrays.append(
            (
                np.array([r[2] for r in part], dtype=float),
                np.array([r[1] / 8.0 * np.sqrt(r[3]) for r in part], dtype=float),
                np.array([r[4] for r in part], dtype=float),
                np.array([[TEMPERATURE[seats][r[1]]] for r in part], dtype=float),
            )
        )

    def loss(part: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], c: float) -> float:
        score, purse, share, t = part
        return winner_log_loss(score + c * purse, share, t)

    train, test = arrays
    c = float(min(C_GRID, key=lambda x: loss(train, float(x))))
    return c, loss(test, 0.0), loss(test, c), c * float(np.sqrt(15))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=1200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="heuristic", help="bot spec playing every seat")
    ap.add_argument("--seats", default="4")
    ap.add_argument("--rows", help="keep the positions in this JSON file, or read them from it if it exists")
    args = ap.parse_args()
    table = {}
    for n in (int(x) for x in args.seats.split(",")):
        t0 = time.perf_counter()
        path = Path(f"{args.rows}.{n}") if args.rows else None
        if path is not None and path.exists():
            rows = [tuple(r) for r in json.loads(path.read_text())]
        else:
            rows = collect(n, args.games, args.seed, args.bots)
            if path is not None:
                path.write_text(json.dumps(rows))
        fitted = fit(n, rows)
        print(f"# {n} seats: {args.games} games of {args.bots}, {time.perf_counter() - t0:.0f} s")
        print("# left  a  b  T factor: none, fitted  held-out log-loss: none -> fitted  15 mice over 0  positions")
        for left, (a, b, f0, f1, base, held, v15, k) in enumerate(fitted, start=1):
            print(f"# {left:4d} {a:6.2f} {b:6.2f}   {f0:.2f} {f1:.2f}   {base:.4f} -> {held:.4f}   {v15:+6.2f}   {k}")
        c, base, held, v15 = fit_pooled(n, rows)
        print(f"# pooled, c * left / 8 * sqrt(m): c = {c:.2f}, held-out log-loss {base:.4f} -> {held:.4f}, ")
        print(f"#   15 mice over 0 with 8 rounds left {v15:+.2f} points")
        table[n] = [(round(c * left / 8, 3), 0.0) for left in range(10)]
        table[n][9] = table[n][8]  # round 1's start is never a leaf (left 9): as round 2's
    print_literal("MONEY_GAIN", table, "(a, b) per rounds left, pooled fit")


if __name__ == "__main__":
    main()
