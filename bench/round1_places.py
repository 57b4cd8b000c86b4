"""What a bot places and bids in round 1, by its place after the start player.

    .venv/bin/python bench/round1_places.py --start heuristic --others ismcts:strong [--deals 24] [--seats 4]
        [--hide-kinds]

Plays only round 1 of ``--deals`` deals (deal k from seed ``S * 1000 + k``): the start player is the
``--start`` spec, every other seat the ``--others`` spec, each bot seeded from the deal and its seat
and introduced to the table (:meth:`catsack.bots.base.Bot.meet`; with ``--hide-kinds`` every seat
is presented as a person, as at a server table of people). For each place after the start
player (0: the start player, R12's order) it prints how often each card was placed (R10) and the
first thing each said in the auction. The expert's model of who leads round 1
(``catsack.bots.expert.players.START_ONLY``) rests on these counts: a bot that never places its +15
but as start player leads only there.
"""

from __future__ import annotations

import argparse
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from catsack.bots import make_bot
from catsack.game import Game
from catsack.moves import PLACE

CARDS = ["+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD"]
Round1 = tuple[dict[int, str], dict[int, str]]  # per place after the start player: card placed, first say


def play(start_spec: str, others: str, seats: int, seed: int, k: int, hide_kinds: bool = False) -> Round1:
    """Round 1 of deal ``k``: each place's card and first say in the auction."""
    g = Game.new(seats, seed=seed * 1000 + k)
    st = g.start_player
    specs: list[str | None] = [start_spec if s == st else others for s in range(seats)]
    bots = [make_bot(str(spec), seed=seed * 1000 + k * 10 + s) for s, spec in enumerate(specs)]
    for s, bot in enumerate(bots):
        bot.reset(s, seats)
        bot.meet([None] * seats if hide_kinds else specs)
    placed: dict[int, str] = {}
    said: dict[int, str] = {}
    while g.round == 1 and not g.is_over:
        seat = g.to_move
        assert seat is not None
        move = bots[seat].choose(g.view(seat))
        place = (seat - st) % seats
        if move.kind == PLACE:
            placed.setdefault(place, CARDS[move.arg])
        else:
            said.setdefault(place, str(move))
        g.play(move)
    return placed, said


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--start", default="heuristic", help="the start player's bot spec")
    ap.add_argument("--others", default="ismcts:strong", help="every other seat's bot spec")
    ap.add_argument("--deals", type=int, default=24)
    ap.add_argument("--seats", type=int, default=4, choices=(3, 4, 5))
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--hide-kinds", action="store_true", help="present every seat to the bots as a person")
    args = ap.parse_args()
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    make_bot(args.start)  # a bad spec fails here, with the bot's own message
    make_bot(args.others)
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [
            pool.submit(play, args.start, args.others, args.seats, args.seed, k, args.hide_kinds)
            for k in range(args.deals)
        ]
        games = [f.result() for f in futures]
    hidden = ", kinds hidden" if args.hide_kinds else ""
    print(f"round 1 of {args.deals} deals, {args.seats} seats: start {args.start}, others {args.others}{hidden}")
    for place in range(args.seats):
        cards = Counter(placed.get(place, "-") for placed, _ in games)
        says = Counter(said.get(place, "-") for _, said in games)
        who = args.start if place == 0 else args.others
        print(f"place {place} ({who}):")
        print("  placed: " + ", ".join(f"{c} {n}" for c, n in cards.most_common()))
        print("  first say: " + ", ".join(f"{c} {n}" for c, n in says.most_common()))


if __name__ == "__main__":
    main()
