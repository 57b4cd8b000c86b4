"""How bots bid, against the honest bidder model the expert assumes for its opponents.

    .venv/bin/python bench/bid_model.py [--bots ismcts:strong,ismcts:strong,ismcts:strong,ismcts:strong]
        [--games 8] [--seed 1] [--jobs 2]

Plays ``--games`` games of the table ``--bots`` (game k of seed S is dealt from ``S * 100 + k``;
seat s's bot is seeded ``S * 100 + k * 10 + s``) and records every bid and pass made while the
auction runs (R12, R13), with the bidder's *honest limit* at that moment: its expected kept value of
the row from its own view (face-up cards, its own face-down card, every other face-down card uniform
over its owner's unseen cards, R23), minus the payout for passing (the rule of
``catsack.bots.expert.players.honest_limit``). A bid of b says the bidder's limit was at least b; a pass over a
high bid h says it was below h + 1. Per spec it prints the maximum-likelihood offset and spread of
the real limit about the honest one (censored normal model), overall and by how many players had
passed, and how often the bot bid past its honest limit. The expert reads the same evidence per
player during a game (``catsack.bots.expert.players.bid_habits``).
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

from catsack.bots import make_bot
from catsack.bots.expert.players import RoundFacts, censored, honest_limit
from catsack.game import _UP_AFTER_PASSES, Game
from catsack.moves import BID, PASS

# (spec, passes before the action, honest limit, low, high): the real limit was >= low and < high
Action = tuple[str, int, float, float, float]


def play(bots_arg: str, seed: int, k: int) -> list[Action]:
    specs = bots_arg.split(",")
    n = len(specs)
    g = Game.new(n, seed=seed * 100 + k)
    bots = [make_bot(spec, seed=seed * 100 + k * 10 + s) for s, spec in enumerate(specs)]
    for s, bot in enumerate(bots):
        bot.reset(s, n)
    out: list[Action] = []
    while not g.is_over:
        to_move = g.to_move
        assert to_move is not None
        view = g.view(to_move)
        move = bots[to_move].choose(view)
        if view.phase == "bidding" and len(view.legal) > 1 and view.legal[0].kind == BID:
            npass = sum(view.passed)
            table = RoundFacts(view)
            est = table.estimate(g._row, _UP_AFTER_PASSES[n][npass], to_move)
            cards = view.mouse_cards
            payout = view.next_payout
            later = cards[min(npass + 1, len(cards) - 1)] if cards else 0
            limit = honest_limit(est, payout, later, n - npass - 1)
            if move.kind == PASS:
                out.append((specs[to_move], npass, limit, -math.inf, view.high_bid + 1.0))
            else:
                out.append((specs[to_move], npass, limit, float(move.arg), math.inf))
        g.play(move)
    return out


def loglik(data: list[Action], offset: float, sigma: float) -> float:
    total = 0.0
    for _, _, limit, low, high in data:
        total += math.log(max(censored(limit + offset, sigma, low, high), 1e-9))
    return total


def fit(data: list[Action]) -> tuple[float, float, float]:
    """(offset, sigma, log-likelihood per action) by grid search."""
    best = (0.0, 1.0, -math.inf)
    for o10 in range(-80, 81, 2):
        for s10 in (5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 130, 160, 200):
            ll = loglik(data, o10 / 10, s10 / 10)
            if ll > best[2]:
                best = (o10 / 10, s10 / 10, ll)
    return best[0], best[1], best[2] / max(1, len(data))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", default="ismcts:strong,ismcts:strong,ismcts:strong,ismcts:strong")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    with ProcessPoolExecutor(args.jobs) as pool:
        games = list(pool.map(play, [args.bots] * args.games, [args.seed] * args.games, range(args.games)))
    by_spec: dict[str, list[Action]] = defaultdict(list)
    for acts in games:
        for a in acts:
            by_spec[a[0]].append(a)
    print(f"{args.bots}: {args.games} games, seed {args.seed}")
    for spec, data in by_spec.items():
        o, s, ll = fit(data)
        bids = [a for a in data if a[3] > -math.inf]
        over = sum(1 for _, _, limit, low, _ in bids if low > limit) / max(1, len(bids))
        print(
            f"{spec}: {len(data)} actions; limit = honest {o:+.1f} (sigma {s:.1f}), log-lik/action {ll:.3f} "
            f"(offset 0 at that sigma: {loglik(data, 0.0, s) / len(data):.3f}); bids past the honest limit {over:.2f}"
        )
        for k in sorted({a[1] for a in data}):
            part = [a for a in data if a[1] == k]
            if len(part) >= 20:
                o, s, ll = fit(part)
                print(f"  after {k} passes: {len(part)} actions, offset {o:+.1f}, sigma {s:.1f}")


if __name__ == "__main__":
    main()
