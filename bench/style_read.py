"""How the expert reads a kind of player's style, round by round, with the kinds hidden.

    .venv/bin/python bench/style_read.py --others ismcts:strong [--games 6] [--seed 900] [--dump 0.1]

Plays ``--games`` 4-seat games (game k from seed ``S + k``): seat 0 a heuristic bot (the observer; it
searches nothing, so the games are cheap), seats 1-3 the ``--others`` spec. At the start of every
round from 2 on it reads each other seat's style from seat 0's view as the expert does at a table
whose kinds are hidden (``expert.players.RoundFacts`` with the prior ``STYLE_PRIORS["read"]``, the
``dump`` style's share ``--dump`` and every player's awareness unknown), and prints per round the mean
shares of the styles ``rule``, ``lead``, ``any`` and ``dump`` and how often the ``dump`` share was
above 0.3; then the kinds read from their bids (``expert:kinds=read``, :func:`catsack.bots.expert.kinds.kind_odds`):
the mean chance that a seat bids by the heuristic's rule and by the random bot's, and how often each
reached ``KIND_SURE``. The evidence is public: every card placed in a finished round was turned up (R14).
"""

from __future__ import annotations

import argparse
import statistics
from concurrent.futures import ProcessPoolExecutor

from catsack.bots import make_bot
from catsack.bots.expert.kinds import KIND_SURE, kind_odds
from catsack.bots.expert.players import DUMP, STYLE_KEYS, UNKNOWN_AWARE, RoundFacts
from catsack.bots.expert.spec import STYLE_PRIORS, with_dump
from catsack.game import Game

SEATS = 4
NAMES = ("rule", "lead", "any", "dump")


Reading = dict[int, list[tuple[float, ...]]]


def play(others: str, seed: int, dump: float) -> tuple[Reading, Reading]:
    """One game: per round from 2 on, the styles and the kinds' chances (:func:`kind_odds`) seat 0 reads
    for seats 1-3 at the round's start."""
    g = Game.new(SEATS, seed=seed)
    specs = ["heuristic"] + [others] * (SEATS - 1)
    bots = [make_bot(spec, seed=seed * 10 + s) for s, spec in enumerate(specs)]
    for s, bot in enumerate(bots):
        bot.reset(s, SEATS)
        bot.meet([None] * SEATS)  # the kinds hidden, as at a table of people
    prior = with_dump(STYLE_PRIORS["read"], dump)
    read: Reading = {}
    kinds: Reading = {}
    last = 1
    while (seat := g.to_move) is not None:
        if g.round != last:
            last = g.round
            view = g.view(0)
            facts = RoundFacts(view, [prior] * SEATS, [UNKNOWN_AWARE] * SEATS)
            read[g.round] = [tuple(st) for st in facts.style[1:]]
            kinds[g.round] = [tuple(x) for x in kind_odds(facts.bids)[1:]]
        g.play(bots[seat].choose(g.view(seat)))
    return read, kinds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--others", default="ismcts:strong", help="the bot spec at seats 1-3")
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--dump", type=float, default=0.1, help="the dump style's prior share (expert:dump=X)")
    ap.add_argument("--jobs", type=int, default=1)
    args = ap.parse_args()
    if args.games < 1:
        ap.error("--games must be at least 1")
    if not 0.0 < args.dump <= 0.5:
        ap.error("--dump must be above 0 and at most 0.5 (the expert's dump=X range)")
    make_bot(args.others)  # a bad spec fails here, with the bot's own message
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(play, args.others, args.seed + k, args.dump) for k in range(args.games)]
        games = [f.result() for f in futures]
    print(f"{args.games} games, seats 1-3 {args.others}, read from seat 0 with the kinds hidden, dump={args.dump}")
    print("round  readings  " + "  ".join(f"{n:>5}" for n in NAMES) + "  dump>0.3")
    for rnd in sorted({r for game, _ in games for r in game}):
        rows = [st for game, _ in games for st in game.get(rnd, [])]
        means = [statistics.mean(st[k] for st in rows) for k in STYLE_KEYS]
        high = sum(st[DUMP] > 0.3 for st in rows) / len(rows)
        print(f"{rnd:>5}  {len(rows):>8}  " + "  ".join(f"{m:5.3f}" for m in means) + f"  {high:8.2f}")
    print(f"kinds read from the bids (chance of each rule; share of readings at {KIND_SURE} or more)")
    print("round  readings  heuristic  sure  random  sure")
    for rnd in sorted({r for _, kinds in games for r in kinds}):
        rows = [odds for _, kinds in games for odds in kinds.get(rnd, [])]
        cells = []
        for k in (0, 1):
            mean = statistics.mean(x[k] for x in rows)
            cells.append(f"{mean:9.3f}  {sum(x[k] >= KIND_SURE for x in rows) / len(rows):4.2f}")
        print(f"{rnd:>5}  {len(rows):>8}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
