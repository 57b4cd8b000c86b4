"""Search the deal and scripted moves of the guided first game (``GET /learn``).

With 4 seats a deal is only the card removed from each set (R7) and the start
player (R9); the heuristic bots decide deterministically from their views, so a
deal plus the learner's moves fixes the whole game. This script tries deals and
random learner policies and keeps the game in which every moment the coach
explains happens earliest:

- a first reveal (R11) and a reveal after each pass (R14) — every round has them;
- the learner passes and is paid from the lowest mouse card (R13);
- a lone dog chases a cat, and two dogs cancel (R16);
- the learner buys a row worth more than its price, and the bank refills the mouse cards (R17, R18);
- nobody bids, so the learner, last in, may buy the row for 1 mouse or void it (R15, R19); the learner
  buys only a row worth at least 2 points, as the coach would advise.

Run: ``.venv/bin/python scripts/find_learn_deal.py --deals 400 --tries 6``; paste the printed
constants into ``src/catsack/server/routes/learn.py``.
"""

from __future__ import annotations

import argparse
import itertools
import random

from catsack import Card, Game, Setup
from catsack.bots.heuristic import HeuristicBot
from catsack.events import Bought, DogChase, DogsCancel, LastChoice, Passed, Refill
from catsack.game import resolve_dogs
from catsack.moves import PASS_MOVE, Move

SEATS = 4
LEARNER = 0
MOMENTS = ("learner_paid", "dog_chase", "dogs_cancel", "learner_bought", "refill", "last_choice")


def play(
    setup: Setup, rng: random.Random, bid_chance: float, cap: int, advice: float
) -> tuple[dict[str, int], list[str], Game]:
    """One game: heuristic bots in seats 1-3, a random learner bidding at most ``cap``; first round of each
    moment, learner moves."""
    game = Game(setup, events=True)
    bots = {s: HeuristicBot(seed=0) for s in range(1, SEATS)}
    for s, b in bots.items():
        b.reset(s, SEATS)
    adviser = HeuristicBot(seed=0)
    adviser.reset(LEARNER, SEATS)
    seen: dict[str, int] = {}
    script: list[str] = []
    while (seat := game.to_move) is not None:
        view = game.view(seat)
        rnd = game.round
        if seat == LEARNER:
            legal = view.legal
            if rng.random() < advice and view.phase != "last choice":
                move: Move = adviser.choose(view)  # mostly sensible moves: they are the coach's advice
            elif legal[0].text.startswith("place"):
                move = rng.choice(legal)
            elif view.phase == "last choice":  # what the coach would advise: buy only a row worth it
                kept = resolve_dogs([rc.card for rc in view.row if rc.card is not None])[1]
                move = legal[0] if sum(c.points for c in kept) >= 2 else PASS_MOVE
            else:
                bids = [m for m in legal if m.text.startswith("bid")]
                move = bids[0] if bids and bids[0].amount <= cap and rng.random() < bid_chance else PASS_MOVE
            script.append(move.text)
        else:
            move = bots[seat].choose(view)
        game.play(move)
        for ev in game.last_events():
            key = None
            if isinstance(ev, Passed) and ev.seat == LEARNER and ev.payout > 0:
                key = "learner_paid"
            elif isinstance(ev, DogChase) and ev.cat is not None:
                key = "dog_chase"
            elif isinstance(ev, DogsCancel):
                key = "dogs_cancel"
            elif isinstance(ev, Bought) and ev.seat == LEARNER and sum(c.points for c in ev.cards) > ev.price:
                key = "learner_bought"
            elif isinstance(ev, Refill) and ev.filled:
                key = "refill"
            elif isinstance(ev, LastChoice) and ev.seat == LEARNER:  # the learner sees what 1 mouse buys
                key = "last_choice"
            if key is not None:
                seen.setdefault(key, rnd)
    return seen, script, game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--tries", type=int, default=6, help="learner policies per deal")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    best: tuple[int, int, int] | None = None
    cards = list(Card)
    for deal in range(args.deals):
        removed = tuple(rng.choice(cards) for _ in range(SEATS))
        start = LEARNER  # the learner starts: the first reveal is their own card
        setup = Setup(SEATS, start, removed)
        for t in itertools.count():
            if t >= args.tries:
                break
            policy_seed = rng.getrandbits(32)
            seen, script, game = play(
                setup,
                random.Random(policy_seed),
                bid_chance=rng.choice((0.2, 0.35, 0.5)),
                cap=rng.randint(3, 7),
                advice=rng.choice((0.5, 0.7, 0.9)),
            )
            if any(m not in seen for m in MOMENTS):
                continue
            scores = game.scores()
            rank = sorted(scores, reverse=True).index(scores[LEARNER])  # 0: the learner wins
            score = (max(seen.values()), rank, sum(seen.values()))
            if best is None or score < best:
                best = score
                print(f"# deal {deal} try {t}: all moments by round {score[0]}, learner's place {score[1] + 1}: {seen}")
                print(f"REMOVED = {tuple(c.token for c in removed)!r}")
                print(f"START = {start}")
                print(f"SCRIPT = {script!r}")
                print(f"# scores {game.scores()}", flush=True)


if __name__ == "__main__":
    main()
