"""The expert's leaf value: a seat's chance to win the game from a round's start (hand-made or learned)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from catsack.cards import POINTS
from catsack.game import Game

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


class HandValue:
    """The hand-made leaf value: score plus the hand's expected gain, as win probabilities (softmax)."""

    def __call__(self, g: Game, seat: int) -> float:
        return self.all_seats(g)[seat]

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
        if not any(gain):
            return [float(x) for x in scores]
        left = 10 - g.round
        est = []
        for s in range(n):
            hand = g._hands[s]
            extra = 0.0
            for c in range(10):
                if hand >> c & 1:
                    extra += gain[c]
            est.append(scores[s] + extra * left / 9.0)
        return est

    def win_from(self, g: Game, scores: Sequence[int], seat: int) -> float:
        """``seat``'s win probability at a round's start, given the seats' scores (the search's fast path)."""
        est = self.estimates(g, scores)
        temperature = TEMPERATURE[g.seats][min(10 - g.round, 9)]
        mine = est[seat]
        exp = math.exp
        return 1.0 / sum(exp((e - mine) / temperature) for e in est)


def seat_scores(g: Game) -> list[int]:
    """Each seat's score (R21), as :meth:`Game.scores` computes it, without the intermediate tuples."""
    return [sum([POINTS[c] for c in w]) + m for w, m in zip(g._won, g._money, strict=True)]


def softmax_win(est: Sequence[float], temperature: float) -> list[float]:
    """Win probabilities from expected final scores: a softmax at ``temperature`` points."""
    top = max(est)
    ws = [math.exp((e - top) / temperature) for e in est]
    total = sum(ws)
    return [w / total for w in ws]


class LearnedValue:
    """The learned leaf value (:mod:`catsack.learn`): the win head of the value model on the seat's own view.

    Reads only ``g.view(seat)``, so it is honest whatever the sampled world holds (R23).
    """

    def __init__(self, weights: str | None = None) -> None:
        from catsack.learn import load_value_model

        self.model = load_value_model(weights)

    def __call__(self, g: Game, seat: int) -> float:
        return float(self.model.evaluate_views([g.view(seat)])[0])


LEAVES: dict[str, Callable[[], LeafValue]] = {"hand": HandValue, "learned": LearnedValue}
