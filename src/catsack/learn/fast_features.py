"""The ``dmc`` agents' feature vector and abstract actions, computed from one seat's view (R23).

The same numbers come from two places: :func:`view_features` here, from a
:class:`~catsack.view.View` (what a bot gets at play time), and
:meth:`catsack.envs.vector_numba.NumbaVectorGame.learn_features`, compiled,
from the batched engine's arrays (what self-play uses). A test plays games on
both and compares them at every decision; another re-deals everything hidden
from a seat and checks its features do not move.

Layout for ``n`` seats (relative seat 0 is the viewer, 1 the next clockwise):

==========================  ================  =====================================================
block                       size              meaning
==========================  ================  =====================================================
observation                 183 / 203 / 250   :func:`catsack.envs.encoding.encode_observation`, with
                                              the other seats' money hidden until the end (R24)
money                       n                 every seat's money / total money (R24: all public)
cat points                  n                 every seat's won cat points / 40 (R21)
lead                        1                 own score minus the best other score, / 40
unseen                      (n - 1) x 10      per other seat, the cards of its set not seen played
dummy unseen (3 seats)      10                the dummy's cards not seen (R8)
row slots                   4 x row length    per slot: (expected) points / 15, chance of a large
                                              dog, of a small dog, 1 if the viewer knows the card
row points                  1                 the row's summed (expected) points / 30
headroom                    1                 own money above the high bid / total money
==========================  ================  =====================================================

A hidden card's expectation is uniform over the unseen cards of its owner's
set (:func:`catsack.bots.heuristic.unseen_mask`); dogs and the rabbit count 0.
Sizes: 238 (3 seats), 260 (4), 323 (5).

The abstract actions are those of :mod:`catsack.learn.features` (place one
of ten cards, pass, raise by +1, +2, +4, +7, or all in), so
:func:`abstract_legal` and :func:`abstract_to_move` are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.heuristic import seat_money, unseen_mask
from catsack.cards import POINTS, Card
from catsack.envs.encoding import encode_observation, observation_layout, observation_size
from catsack.envs.vector_numba import learn_extras_size, learn_feature_size
from catsack.learn.features import NUM_ABSTRACT, FeatureError, abstract_legal, abstract_to_move, stack_features
from catsack.moves import BID, Move
from catsack.setup import TOTAL_MONEY, check_seats
from catsack.view import View

__all__ = [
    "CARD_SCALE",
    "NUM_ABSTRACT",
    "POINT_SCALE",
    "ROW_SCALE",
    "abstract_legal",
    "abstract_to_move",
    "feature_size",
    "nearest_abstract",
    "view_features",
    "views_features",
]

POINT_SCALE: Final = 40.0  # as the kernels' LEARN_POINT_SCALE
CARD_SCALE: Final = 15.0
ROW_SCALE: Final = 30.0
_NUM_CARDS: Final = 10

F32 = npt.NDArray[np.float32]


def feature_size(seats: int) -> int:
    """Length of :func:`view_features` for ``seats`` players (3: 238, 4: 260, 5: 323)."""
    return learn_feature_size(check_seats(seats))


def _money_slice(seats: int) -> tuple[slice, slice]:
    fields = {f.name: f for f in observation_layout(seats)}
    money, known = fields["money"], fields["money_known"]
    return slice(money.start + 1, money.start + money.size), slice(known.start + 1, known.start + known.size)


def view_features(view: View, out: F32 | None = None) -> F32:
    """The ``float32`` feature vector of a seat's view (see the module docstring)."""
    me = view.seat
    if me is None:
        raise FeatureError("features need a seat's view, not the public view (R23)")
    n = view.seats
    size = feature_size(n)
    if out is None:
        out = np.empty(size, np.float32)
    elif out.shape != (size,):
        raise FeatureError(f"out has shape {out.shape}, expected ({size},) for {n} seats")
    k = observation_size(n)
    encode_observation(view, out[:k])
    if not view.is_over:  # a table that shows everyone's money shows nothing new (R24); self-play hides it
        money_cols, known_cols = _money_slice(n)
        out[money_cols] = 0.0
        out[known_cols] = 0.0
    tm = float(TOTAL_MONEY[n])
    money = seat_money(view)
    points = view.cat_points
    extra: list[float] = [money[(me + r) % n] / tm for r in range(n)]
    extra += [points[(me + r) % n] / POINT_SCALE for r in range(n)]
    scores = [m + p for m, p in zip(money, points, strict=True)]
    extra.append((scores[me] - max(s for i, s in enumerate(scores) if i != me)) / POINT_SCALE)
    owners: list[int | None] = [(me + r) % n for r in range(1, n)]
    if n == 3:
        owners.append(None)
    for owner in owners:
        mask = unseen_mask(view, owner)
        extra += [float(mask >> c & 1) for c in range(_NUM_CARDS)]
    row_len = n + 1 if n == 3 else n
    total = 0.0
    row = () if view.is_over else view.row
    for p in range(row_len):
        value = large = small = known = 0.0
        if p < len(row):
            rc = row[p]
            if rc.card is not None:  # face up, or the viewer's own face-down card
                value = float(POINTS[rc.card])
                large = float(rc.card == Card.LARGE_DOG)
                small = float(rc.card == Card.SMALL_DOG)
                known = 1.0
            else:
                mask = unseen_mask(view, rc.owner)
                cards = [c for c in range(_NUM_CARDS) if mask >> c & 1]
                value = sum(POINTS[c] for c in cards) / len(cards)
                large = sum(c == Card.LARGE_DOG for c in cards) / len(cards)
                small = sum(c == Card.SMALL_DOG for c in cards) / len(cards)
        total += value
        extra += [value / CARD_SCALE, large, small, known]
    extra.append(total / ROW_SCALE)
    extra.append(max(money[me] - view.high_bid, 0) / tm)
    assert len(extra) == learn_extras_size(n)
    out[k:] = extra
    return out


def views_features(views: Sequence[View]) -> F32:
    """``(len(views), feature_size)``: :func:`view_features` of views that all have the same seat count."""
    return stack_features(views, feature_size, view_features, "views_features")


def nearest_abstract(view: View, move: Move) -> int:
    """The legal abstract action whose move is ``move``, or for a bid between the steps the nearest bid (R12).

    For behaviour cloning of players that bid any amount: a ``bid 13`` over a high bid of 10 is the +2
    raise (12) rather than the +4 (14), ties going to the smaller raise.
    """
    legal = abstract_legal(view)
    best = -1
    gap = 1 << 30
    for a in np.flatnonzero(legal):
        m = abstract_to_move(view, int(a))
        if m == move:
            return int(a)
        if move.kind == BID and m.kind == BID and abs(m.arg - move.arg) < gap:
            best, gap = int(a), abs(m.arg - move.arg)
    if best < 0:
        raise FeatureError(f"no abstract action stands for {move.text!r} in {view.phase}")
    return best
