"""Which leaf value predicts the winner better: the expert's hand-made one or the learned one?

    .venv/bin/python bench/expert_leaf.py [--bots heuristic,heuristic,random,heuristic] [--games 150]

Plays games (the specs rotate through the seats game by game), and at the start of every round
from round 2 on asks both leaf values for every seat's win probability: ``HandValue`` (softmax of
the scores, ``catsack.bots.expert``) and the learned value model's win head on each seat's view
(``catsack.learn``, normalised to add up to 1). Prints the mean log-loss against the actual win
shares (R22: ties split) per round, beside the uniform guess (log n). Lower is better.
"""

from __future__ import annotations

import argparse
import math

from catsack.bots.base import make_bot
from catsack.bots.expert import HandValue
from catsack.game import Game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", default="heuristic,heuristic,random,heuristic", help="one spec per seat")
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from catsack.learn import load_value_model

    model = load_value_model()
    hand = HandValue()
    specs = args.bots.split(",")
    n = len(specs)
    losses: dict[tuple[int, str], list[float]] = {}
    for i in range(args.games):
        g = Game.new(n, seed=args.seed * 100_000 + i)
        bots = [make_bot(specs[(s + i) % n], seed=args.seed * 1000 + i * n + s) for s in range(n)]
        snaps = []
        last = 0
        while not g.is_over:
            if g.phase == "placement" and g.round != last:
                last = g.round
                if g.round > 1:
                    learned = [float(x) for x in model.evaluate_views([g.view(s) for s in range(n)])]
                    total = sum(learned) or 1.0
                    snaps.append((g.round, hand.all_seats(g), [x / total for x in learned]))
            s = g.to_move
            assert s is not None
            g.play(bots[s].choose(g.view(s)))
        winners = g.winners()
        share = [1 / len(winners) if s in winners else 0.0 for s in range(n)]
        for rnd, h, learned in snaps:
            for name, p in (("hand", h), ("learned", learned), ("uniform", [1 / n] * n)):
                loss = -sum(share[s] * math.log(max(p[s], 1e-6)) for s in range(n))
                losses.setdefault((rnd, name), []).append(loss)
    print(f"{args.games} games of {args.bots}: mean log-loss of the winner (lower is better)")
    for rnd in range(2, 10):
        row = {name: sum(v) / len(v) for (r, name), v in losses.items() if r == rnd}
        print(f"  round {rnd}: " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()))


if __name__ == "__main__":
    main()
