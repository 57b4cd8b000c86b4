"""How a bot places its cards, against the placement models the search bots assume.

    .venv/bin/python bench/placement_model.py [--spec ismcts:strong] [--games 8] [--seed 1] [--jobs 2]

Plays ``--games`` 4-seat self-play games of ``--spec`` (game k of seed S is dealt from
``S * 100 + k``; seat s's bot is seeded ``S * 100 + k * 10 + s``) and records every placement at a
position that stays face down while the auction starts (all but the first, R10, R11), with the
placer's role under the intent model of :mod:`catsack.bots.ismcts` (buyer: as rich as the richest
opponent, else seller) and the cards it could have placed. Per role it prints how often each card
was placed, the per-card weights of a choice model fitted to those placements, and the held-out
log-likelihood per placement (fitted on even-numbered placements, scored on odd ones) of three
models: every card alike (*uniform*), the intent weights (*intent*) and the fitted weights. The
expert bot reads the same evidence during a game (``catsack.bots.expert.players.styles``).
"""

from __future__ import annotations

import argparse
import math
from concurrent.futures import ProcessPoolExecutor

from catsack.bots import make_bot
from catsack.bots.heuristic import seat_money
from catsack.bots.ismcts import BUYER_WEIGHTS, SELLER_WEIGHTS, placement_weights
from catsack.game import Game
from catsack.moves import PLACE

CARDS = ["+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD"]
Placement = tuple[str, tuple[int, ...], int]  # role, the cards it could place, the card placed


def play(spec: str, seed: int, k: int) -> list[Placement]:
    """The face-down placements of one self-play game."""
    g = Game.new(4, seed=seed * 100 + k)
    bots = [make_bot(spec, seed=seed * 100 + k * 10 + s) for s in range(4)]
    for s, bot in enumerate(bots):
        bot.reset(s, 4)
    out: list[Placement] = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        move = bots[s].choose(view)
        if move.kind == PLACE and len(g.row) >= 1 and len(view.legal) > 1:
            role = "buyer" if placement_weights(tuple(seat_money(view)), s) == BUYER_WEIGHTS else "seller"
            out.append((role, tuple(m.arg for m in view.legal), move.arg))
        g.play(move)
    return out


def fit(data: list[tuple[tuple[int, ...], int]]) -> list[float]:
    """Choice weights (Luce's model, minorise-maximise, one pseudo-placement per card) for the data."""
    count = [0] * 10
    for _, c in data:
        count[c] += 1
    w = [1.0] * 10
    for _ in range(300):
        den = [0.0] * 10
        for hand, _ in data:
            total = sum(w[x] for x in hand)
            for x in hand:
                den[x] += 1.0 / total
        w = [(count[i] + 1) / (den[i] + 1) for i in range(10)]
        mean = sum(w) / 10
        w = [x / mean for x in w]
    return w


def loglik(data: list[tuple[tuple[int, ...], int]], w: tuple[float, ...] | list[float]) -> float:
    return sum(math.log(w[c] / sum(w[x] for x in hand)) for hand, c in data) / max(1, len(data))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--spec", default="ismcts:strong")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    with ProcessPoolExecutor(args.jobs) as pool:
        games = list(pool.map(play, [args.spec] * args.games, [args.seed] * args.games, range(args.games)))
    placements = [p for g in games for p in g]
    print(f"{args.spec}: {args.games} games, seed {args.seed}: {len(placements)} face-down placements")
    for role in ("all", "buyer", "seller"):
        data = [(r, hand, c) for r, hand, c in placements if role in ("all", r)]
        if len(data) < 2:
            continue
        held = data[1::2]
        trained = fit([(h, c) for _, h, c in data[::2]])
        scores = {
            "uniform": loglik([(h, c) for _, h, c in held], [1.0] * 10),
            "intent": sum(loglik([(h, c)], BUYER_WEIGHTS if r == "buyer" else SELLER_WEIGHTS) for r, h, c in held)
            / len(held),
            "fitted": loglik([(h, c) for _, h, c in held], trained),
        }
        count = [sum(1 for _, _, c in data if c == i) for i in range(10)]
        weights = fit([(h, c) for _, h, c in data])
        print(
            f"{role}: {len(data)} placements; held-out log-likelihood per placement "
            + ", ".join(f"{k} {v:.3f}" for k, v in scores.items())
        )
        print("  card    " + " ".join(f"{n:>5}" for n in CARDS))
        print("  placed  " + " ".join(f"{x:5d}" for x in count))
        print("  fitted  " + " ".join(f"{x:5.2f}" for x in weights))


if __name__ == "__main__":
    main()
