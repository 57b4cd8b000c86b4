"""The expert's leaf value: a seat's chance to win the game from a round's start (hand-made or learned)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence

from catsack.cards import POINTS
from catsack.game import Game
from catsack.setup import TOTAL_MONEY

DEFAULT_LEAF = "hand"  # the leaf value of plain ``expert`` (see LEAVES)

#: A leaf evaluator: (the sampled game at a round's start, a seat) -> that seat's win probability.
#: It may read only what the seat could know there (``g.view(seat)``) or, for the searcher's
#: expectation over its sampled worlds, the whole sampled game.
LeafValue = Callable[[Game, int], float]


# Per seat count, the expected future gain in points of each card still in hand (index order +15 +11
# +8 +5 +3 -5 -8 R LD SD). bench/expert_fit.py fits it on self-play games, but the fits disagree
# in sign between opponent pools (heuristic self-play: holding the +15 helps; ismcts:easy: it
# hurts), so the hand-made value leaves it at zero: a learned value (catsack.learn) is the place
# for what a hand is worth.
HAND_GAIN: dict[int, tuple[float, ...]] = {n: (0.0,) * 10 for n in (3, 4, 5)}
# Softmax temperature (points) per rounds left (index 0: the game is over). Fitted by
# bench/expert_fit.py on ismcts:easy self-play, 4 seats (heuristic self-play, being nearly
# deterministic, fits 2.6-4.1: too sure of the leader against other opponents), smoothed.
_T = (1.0, 4.5, 5.0, 5.8, 6.6, 7.3, 8.5, 10.0, 11.5, 13.0)
TEMPERATURE: dict[int, tuple[float, ...]] = {n: _T for n in (3, 4, 5)}
#: The purse's value beyond its points (``expert:money=S``, off by default): a mouse scores one point
#: (R21) but is also the power to bid for a later row (R12: no bid above the mice one holds), so a
#: seat that starts a round with an empty purse can only pass. Per seat count and rounds left (index
#: 0: the game is over), a purse of m mice adds ``a * sqrt(m) + b * m`` points to the seat's expected
#: final score before the softmax; only the differences between the seats' purses matter. Fitted by
#: bench/money_fit.py (maximum likelihood of the winners) on 240 games of ismcts:easy self-play with 4
#: seats (``--games 240 --seed 2 --bots ismcts:easy``), pooled over the rounds as ``c * left / 8 *
#: sqrt(m)``: c = 1.85, so 15 mice are worth 7.2 points more than an empty purse with 8 rounds left.
#: The fit is weak: on the held-out half its log-loss of the winners is 0.864 against 0.861 without
#: the term (fits per round overfit). The 3- and 5-seat tables reuse the 4-seat fit.
_M: tuple[tuple[float, float], ...] = tuple((round(1.85 * min(left, 8) / 8, 3), 0.0) for left in range(10))
MONEY_GAIN: dict[int, tuple[tuple[float, float], ...]] = {n: _M for n in (3, 4, 5)}


def purse_values(seats: int, scale: float) -> tuple[tuple[float, ...], ...]:
    """Per rounds left (0-9), the purse's extra value in points for every purse of 0 to all the game's
    mice (R5): ``scale`` times :data:`MONEY_GAIN`'s ``a * sqrt(m) + b * m``."""
    return tuple(
        tuple(scale * (a * math.sqrt(m) + b * m) for m in range(TOTAL_MONEY[seats] + 1)) for a, b in MONEY_GAIN[seats]
    )


#: Per hand (a bit per card, index order as :data:`catsack.cards.POINTS`), the cat points it holds.
HAND_POINTS: tuple[int, ...] = tuple(sum(POINTS[c] for c in range(10) if h >> c & 1) for h in range(1 << 10))


def future_shares(g: Game, scale: float) -> list[float]:
    """``expert:future=K``: each seat's share of the cat points still in the players' hands, ``scale`` times
    that total (when above 0) split by the seats' money. Every card in a hand is placed in a later row and
    bought by someone (R10, R15), and the rich buy them: no bid may exceed the bidder's mice (R12), and
    the richest can bid what no one else can top. So where good cats are still to come (a table that has
    dumped its worst cards first), a mouse is worth more than its point (R21). The dummy's cards (3 seats)
    are left out."""
    money = g.money
    hand = g.hand_mask
    total = sum([HAND_POINTS[hand(s)] for s in range(len(money))])
    purse = sum(money)
    if total <= 0 or purse <= 0:
        return [0.0] * len(money)
    k = scale * total / purse
    return [k * m for m in money]


class HandValue:
    """The hand-made leaf value: score plus the hand's expected gain, as win probabilities (softmax).

    ``money`` > 0 adds that multiple of the purse's fitted value beyond its points (:data:`MONEY_GAIN`);
    ``future`` > 0 that multiple of each seat's money share of the cat points still to come
    (:func:`future_shares`).
    """

    def __init__(self, money: float = 0.0, future: float = 0.0) -> None:
        self.money = money
        self.future = future
        self._purse = {n: purse_values(n, money) for n in (3, 4, 5)} if money else {}

    def __call__(self, g: Game, seat: int) -> float:
        return self.all_seats(g)[seat]

    def with_future(self, future: float) -> HandValue:
        """The same leaf with ``future`` as its scale of :func:`future_shares` (the purse values shared)."""
        other = copy.copy(self)
        other.future = future
        return other

    def all_seats(self, g: Game) -> list[float]:
        """Every seat's win probability (they add up to 1)."""
        if g.is_over:
            winners = g.winners()
            return [(1.0 / len(winners)) if s in winners else 0.0 for s in range(g.seats)]
        return softmax_win(self.estimates(g, seat_scores(g)), TEMPERATURE[g.seats][min(10 - g.round, 9)])

    def estimates(self, g: Game, scores: Sequence[int]) -> list[float]:
        """Each seat's expected final score: its score now plus its hand's expected gain (called at a
        round's start, so that round is still to play)."""
        n = g.seats
        gain = HAND_GAIN[n]
        left = 10 - g.round
        if self.money:
            purse = self._purse[n][min(left, 9)]
            base = [x + purse[m] for x, m in zip(scores, g.money, strict=True)]
        else:
            base = [float(x) for x in scores]
        if self.future:
            base = [x + f for x, f in zip(base, future_shares(g, self.future), strict=True)]
        if not any(gain):
            return base
        est = []
        for s in range(n):
            hand = g.hand_mask(s)
            extra = 0.0
            for c in range(10):
                if hand >> c & 1:
                    extra += gain[c]
            est.append(base[s] + extra * left / 9.0)
        return est

    def win_from(self, g: Game, scores: Sequence[int], seat: int) -> float:
        """``seat``'s win probability at a round's start, given the seats' scores (the search's fast path)."""
        est = self.estimates(g, scores)
        temperature = TEMPERATURE[g.seats][min(10 - g.round, 9)]
        mine = est[seat]
        exp = math.exp
        return 1.0 / sum(exp((e - mine) / temperature) for e in est)


def seat_scores(g: Game) -> list[int]:
    """Each seat's score (R21, :meth:`Game.scores`), as a list."""
    return list(g.scores())


def softmax_win(est: Sequence[float], temperature: float) -> list[float]:
    """Win probabilities from expected final scores: a softmax at ``temperature`` points."""
    top = max(est)
    ws = [math.exp((e - top) / temperature) for e in est]
    total = sum(ws)
    return [w / total for w in ws]


#: The leaf values by name (``expert:leaf=NAME``), as registry entries ``"module:Name"`` of a class made with
#: no argument (like :data:`catsack.bots.base.BOT_KINDS`'s): the learned one,
#: :class:`catsack.learn.leaf.LearnedValue`, lives above the bots and is imported only when it is made.
LEAVES: dict[str, str] = {"hand": "catsack.bots.expert.leaf:HandValue", "learned": "catsack.learn.leaf:LearnedValue"}
