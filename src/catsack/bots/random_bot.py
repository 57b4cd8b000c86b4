"""A random player with a sensible bidding distribution, the baseline for every other bot.

Placement is uniform over the hand (R10). Bidding (R12) is random but not
degenerate: the bot passes with a fixed probability, otherwise raises the
high bid by a small random step, and rarely goes above a fraction of its
money, so games between random bots see real auctions instead of everybody
passing or everybody going all-in. In the last choice (R15, nobody bid) it
buys for 1 mouse half of the time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from catsack.bots.base import Bot, BotSpecError
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, Move
from catsack.view import View

__all__ = ["RandomBot", "auction_chances", "auction_move"]

PASS_PROBABILITY = 0.45  # a random bidder stays in a little over half the time
MONEY_FRACTION = 0.6  # raises above this fraction of the bot's money are rare
OVER_FRACTION = 0.1  # ... they happen this often
LAST_CHOICE_BUY = 0.5  # R15: the chance to buy for 1 mouse when nobody bid


class RandomBot(Bot):
    """Uniform placements, random small raises; deterministic for a given seed."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        if arg:
            raise BotSpecError(f"the random bot takes no argument, got {arg!r}")
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal move in this view (to move: {view.to_move})")
        return self.decide(legal, view.phase, view.high_bid)

    def decide(self, legal: tuple[Move, ...], phase: str, high_bid: int) -> Move:
        """The move for a seat to move whose view has these ``legal`` moves, ``phase`` and ``high_bid``.

        All the bot ever reads of its view; callers that have these three
        without a whole view (``FelixEnv``'s opponents) save building one.
        """
        rng = self.rng
        if legal[0].kind == PLACE:
            return legal[int(rng.random() * len(legal))]
        return auction_move(legal, phase == "last choice", high_bid, rng.random)


def auction_move(legal: tuple[Move, ...], last: bool, high_bid: int, rand: Callable[[], float]) -> Move:
    """The random bot's auction move (R12-R15) among ``legal`` (in canonical order: the legal bids ascending,
    then pass; ``last``: R15's last choice), drawing from ``rand``. The expert models a seat it knows to hold
    the random bot with this too (:mod:`catsack.bots.expert.players`)."""
    lowest = legal[0]
    if lowest.kind != BID:
        return PASS_MOVE
    if last:  # R15: buy for 1 or void the round
        return lowest if rand() < LAST_CHOICE_BUY else PASS_MOVE
    if rand() < PASS_PROBABILITY:
        return PASS_MOVE
    money = legal[-2].amount  # the highest legal bid (just before pass) is all the bot's money (R12)
    step = 1 + int(rand() ** 2 * 4)  # 1..4, small raises far more often
    amount = min(high_bid + step, money)
    cap = max(1, int(money * MONEY_FRACTION))
    if amount > cap and rand() >= OVER_FRACTION:
        return PASS_MOVE if high_bid + 1 > cap else BIDS[cap]
    return BIDS[amount]


#: The chance of each raise step of :func:`auction_move` (1 + int(4 u²) for a uniform u): 1 half of the time.
STEP_CHANCES = tuple(math.sqrt(k / 4) - math.sqrt((k - 1) / 4) for k in range(1, 5))


def auction_chances(high_bid: int, money: int) -> dict[int, float]:
    """The chance of each move :func:`auction_move` makes at an auction turn (R12, not R15's last choice)
    where the bot holds ``money`` mice, more than ``high_bid``: per total bid, and under the key 0 a pass.
    What the expert weighs when it reads from a player's bids whether it plays like this bot
    (:mod:`catsack.bots.expert.kinds`)."""
    if money <= high_bid:
        return {0: 1.0}
    out: dict[int, float] = {0: PASS_PROBABILITY}
    stay = 1.0 - PASS_PROBABILITY
    cap = max(1, int(money * MONEY_FRACTION))
    for step, chance in enumerate(STEP_CHANCES, start=1):
        amount = min(high_bid + step, money)
        p = stay * chance
        if amount > cap:
            out[amount] = out.get(amount, 0.0) + p * OVER_FRACTION
            back = 0 if high_bid + 1 > cap else cap
            out[back] = out.get(back, 0.0) + p * (1.0 - OVER_FRACTION)
        else:
            out[amount] = out.get(amount, 0.0) + p
    return out
