"""Feature vectors of information states and the abstract action set, both read from one seat's view (R23).

A feature vector is the environments' observation
(:func:`catsack.envs.encoding.encode_observation`, documented in
``docs/envs.md``) followed by a few facts a strong player keeps in mind and
a small network would have to rediscover (all public or the seat's own, so
still a function of the view alone):

- every seat's money, rebuilt from the public history (R24: every change of
  money is public, so hiding balances hides nothing from a perfect memory);
- every seat's cat points and the viewer's lead over the best other score;
- per opponent (and the dummy, 3 seats) the cards of its set not yet seen
  played: what its face-down and future cards can be (R7, R23);
- the heuristic's expected kept value of the row (R16), and how many mice
  the viewer has above the high bid.

Actions are abstracted to :data:`NUM_ABSTRACT` = 16: place one of the ten
cards (R10), pass (R13), or raise the high bid by +1, +2, +4 or +7, or go
all in (R12). R15's buy for one mouse is the +1 raise from nothing. Bids
between these steps are never chosen by the learned policy; search bots may
still consider them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.heuristic import row_worth, seat_money, unseen_mask
from catsack.cards import CARDS
from catsack.envs.encoding import encode_observation, observation_size
from catsack.moves import PASS_MOVE, Move, bid, place
from catsack.setup import TOTAL_MONEY, check_seats
from catsack.view import View

__all__ = [
    "ACTION_NAMES",
    "NUM_ABSTRACT",
    "PASS_INDEX",
    "RAISES",
    "FeatureError",
    "abstract_legal",
    "abstract_to_move",
    "encode_features",
    "encode_views",
    "feature_names",
    "feature_size",
    "move_to_abstract",
    "stack_features",
]

NUM_CARDS: Final = 10
PASS_INDEX: Final = 10
RAISES: Final = (1, 2, 4, 7)  # raise steps over the high bid; index 15 is all in
ALL_IN: Final = PASS_INDEX + len(RAISES) + 1  # 15
NUM_ABSTRACT: Final = ALL_IN + 1  # 16
ACTION_NAMES: Final = (
    *(f"place {c.token}" for c in CARDS),
    "pass",
    *(f"raise +{k}" for k in RAISES),
    "all in",
)
POINT_SCALE: Final = 40.0  # cat points and score leads are divided by this (a strong pile is ~30-50 points)
WORTH_SCALE: Final = 30.0  # the expected row value is divided by this

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


class FeatureError(ValueError):
    """A view the features cannot describe (the public view, or a mismatched seat count)."""


def _extra_size(n: int) -> int:
    # money n, cat points n, lead 1, unseen cards (n - 1) * 10 (+10 for the dummy), row worth 1, headroom 1
    return n + n + 1 + (n - 1) * NUM_CARDS + (NUM_CARDS if n == 3 else 0) + 2


def feature_size(seats: int) -> int:
    """Length of :func:`encode_features` for ``seats`` players (3: 222, 4: 244, 5: 303)."""
    n = check_seats(seats)
    return observation_size(n) + _extra_size(n)


def feature_names(seats: int) -> list[str]:
    """One short name per feature (the observation's entries are ``obs[i]``; see docs/envs.md)."""
    n = check_seats(seats)
    names = [f"obs[{i}]" for i in range(observation_size(n))]
    names += [f"money[rel {r}]" for r in range(n)]
    names += [f"cat_points[rel {r}]" for r in range(n)]
    names.append("lead")
    for r in range(1, n):
        names += [f"unseen[rel {r}][{c.token}]" for c in CARDS]
    if n == 3:
        names += [f"unseen[dummy][{c.token}]" for c in CARDS]
    names += ["row_worth", "headroom"]
    return names


def encode_features(view: View, out: FloatArray | None = None) -> FloatArray:
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
    tm = float(TOTAL_MONEY[n])
    money = seat_money(view)
    points = view.cat_points
    extra: list[float] = [money[(me + r) % n] / tm for r in range(n)]
    extra += [points[(me + r) % n] / POINT_SCALE for r in range(n)]
    scores = [m + p for m, p in zip(money, points, strict=True)]
    best_other = max(s for i, s in enumerate(scores) if i != me)
    extra.append((scores[me] - best_other) / POINT_SCALE)
    owners: list[int | None] = [(me + r) % n for r in range(1, n)]
    if n == 3:
        owners.append(None)
    for owner in owners:
        mask = unseen_mask(view, owner)
        extra += [float(mask >> c & 1) for c in range(NUM_CARDS)]
    worth = row_worth(view) if view.row and not view.is_over else 0.0
    extra.append(worth / WORTH_SCALE)
    extra.append(max(money[me] - view.high_bid, 0) / tm)
    out[k:] = extra
    return out


def stack_features(
    views: Sequence[View],
    size: Callable[[int], int],
    encode: Callable[[View, FloatArray], FloatArray],
    what: str = "encode_views",
) -> FloatArray:
    """``(len(views), size(seats))``: ``encode(view, row)`` of views that all have the same seat count, one
    row each (both feature sets batch this way); ``what`` names the caller in the error of an empty list."""
    if not views:
        raise FeatureError(f"{what} needs at least one view")
    n = views[0].seats
    out = np.empty((len(views), size(n)), np.float32)
    for i, v in enumerate(views):
        if v.seats != n:
            raise FeatureError(f"view {i} has {v.seats} seats, the first has {n}: encode them separately")
        encode(v, out[i])
    return out


def encode_views(views: Sequence[View]) -> FloatArray:
    """``(len(views), feature_size)``: :func:`encode_features` of views that all have the same seat count."""
    return stack_features(views, feature_size, encode_features)


# ---------------------------------------------------------------------- abstract actions


def _raise_amount(action: int, high: int, money: int) -> int | None:
    """The total bid of an abstract raise, or ``None`` if it is not a distinct legal bid (R12)."""
    if action == ALL_IN:
        step = money - high
        return money if step > 0 and step not in RAISES else None
    total = high + RAISES[action - PASS_INDEX - 1]
    return total if total <= money else None


def abstract_legal(view: View) -> BoolArray:
    """``(16,)`` bool: which abstract actions stand for a legal move of ``view`` (all false off turn)."""
    mask = np.zeros(NUM_ABSTRACT, np.bool_)
    legal = view.legal
    if not legal or view.seat is None:
        return mask
    if view.phase == "placement":
        for c in view.hand:
            mask[int(c)] = True
        return mask
    mask[PASS_INDEX] = PASS_MOVE in legal
    if view.phase == "last choice":  # R15: buy for 1 or pass
        mask[PASS_INDEX + 1] = any(m != PASS_MOVE for m in legal)
        return mask
    money = view.money[view.seat]
    assert money is not None  # a seat always sees its own money (R24)
    for a in range(PASS_INDEX + 1, NUM_ABSTRACT):
        mask[a] = _raise_amount(a, view.high_bid, money) is not None
    return mask


def abstract_to_move(view: View, action: int) -> Move:
    """The legal move an abstract action stands for in ``view``; ``ValueError`` if it stands for none."""
    if not 0 <= action < NUM_ABSTRACT or not abstract_legal(view)[action]:
        name = ACTION_NAMES[action] if 0 <= action < NUM_ABSTRACT else repr(action)
        raise FeatureError(f"abstract action {name!r} is not legal for seat {view.seat} in {view.phase}")
    if action < NUM_CARDS:
        return place(CARDS[action])
    if action == PASS_INDEX:
        return PASS_MOVE
    if view.phase == "last choice":
        return bid(1)
    money = view.money[view.seat] if view.seat is not None else None
    assert money is not None
    amount = _raise_amount(action, view.high_bid, money)
    assert amount is not None
    return bid(amount)


def move_to_abstract(view: View, move: Move) -> int | None:
    """The abstract action that stands for ``move`` in ``view``, ``None`` for a bid between the steps."""
    mask = abstract_legal(view)
    for a in np.flatnonzero(mask):
        if abstract_to_move(view, int(a)) == move:
            return int(a)
    return None
