"""The numba kernels of the league's personas (:mod:`catsack.bots.personas`), imported only when numba is wanted.

:func:`persona_actions` plays :func:`catsack.bots.personas.persona_move` for every game of a batched state
(:mod:`catsack.envs._vector_kernels`' layout), from the mover's information only (R23): the row's face-up
cards and its own, every other face-down card (and, while cards are placed, every card still to come)
uniform over the cards of its owner's set that no one has seen played, valued exactly with R16's dogs
(:func:`row_value`, the closed form of :func:`catsack.bots.heuristic.mask_row_value`), every seat's money
(R24: all public). ``tests/test_personas.py`` replays its games in the core engine and checks every move
against the Python persona fed the same uniform numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numba
import numpy as np

from catsack.bots import personas as P
from catsack.cards import POINTS
from catsack.envs import _vector_kernels as vk
from catsack.game import BIDDING, LAST_CHOICE, OVER, PLACING, ROUNDS

Arr = Any
F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS: Final[dict[str, Any]] = {"cache": True, "nogil": True}
if hasattr(getattr(numba.core.cpu, "CPUTargetOptions", None), "_nrt"):
    _OPTIONS["_nrt"] = False  # as in _vector_kernels: the kernels allocate nothing

_NUM_CARDS: Final = 10
_PASS: Final = 10
_RABBIT: Final = 7
_LARGE: Final = 8
_SMALL: Final = 9
_POINTS: Final = np.array(POINTS, np.float64)
_ALL: Final = (1 << _NUM_CARDS) - 1
# the layout of the constants array ``cf`` (see _vector_kernels): seats first, then R11/R14's face-up
# positions after 0..n passes, then the payout to the 1st..n-th passer (R13)
_UP_AFTER: Final = 5
_DIGITS: Final = 1e9  # values are rounded to 9 decimals, as the heuristic's (VALUE_DIGITS)
STAT_COLS: Final = 19  # per position: mean, P(large dog), P(small dog), F(0..7), G(-1..6)
SCRATCH_ROWS: Final = 8  # up to 6 positions (5 seats' row and one extra card), then the F and G products
MASK_SLOTS: Final = 8

# the traits' columns (catsack.bots.personas.TRAITS)
T_OVER: Final = P.TRAITS.index("over")
T_NOISE: Final = P.TRAITS.index("noise")
T_BLUFF: Final = P.TRAITS.index("bluff")
T_SANDBAG: Final = P.TRAITS.index("sandbag")
T_DUMP: Final = P.TRAITS.index("dump")
T_LEAD: Final = P.TRAITS.index("lead")
T_JUMP: Final = P.TRAITS.index("jump")
T_FOLLOW: Final = P.TRAITS.index("follow")
T_THRIFT: Final = P.TRAITS.index("thrift")
T_MONEY: Final = P.TRAITS.index("money")
T_OPEN: Final = P.TRAITS.index("open")
_GAP: Final = P.GAP
_BLUFF_OVER: Final = P.BLUFF_OVER
_SANDBAG_UNDER: Final = P.SANDBAG_UNDER
_JUMP_REACH: Final = P.JUMP_REACH
_MONEY_POINTS: Final = P.MONEY_POINTS
_MARGIN: Final = 1.0  # the heuristic's MARGIN and OUTLAST_SHARE (bid_limit)
_OUTLAST: Final = 0.5
_BUY_MIN: Final = 6  # the heuristic's BUY_MIN_MONEY and BUY_MONEY_GAP (plans_to_buy)
_BUY_GAP: Final = 2


def _jit(f: F) -> F:
    return cast(F, numba.njit(**_OPTIONS)(f))


def _inline(f: F) -> F:
    return cast(F, numba.njit(inline="always", **_OPTIONS)(f))


@_inline
def mask_stats(mask: int, k: int, st: Arr) -> None:
    """``st[k]``: the summary of a card uniform over ``mask``: mean points, P(large dog), P(small dog), then
    F(0..7) (a rabbit or a cat of index >= k) and G(-1..6) (a rabbit or a cat of index <= k)."""
    count = 0
    for c in range(_NUM_CARDS):
        count += (mask >> c) & 1
    p = 1.0 / count
    mean = 0.0
    for c in range(_NUM_CARDS):
        if (mask >> c) & 1:
            mean += p * _POINTS[c]
    st[k, 0] = mean
    st[k, 1] = p if (mask >> _LARGE) & 1 else 0.0
    st[k, 2] = p if (mask >> _SMALL) & 1 else 0.0
    rabbit = p if (mask >> _RABBIT) & 1 else 0.0
    acc = rabbit
    st[k, 3 + 7] = acc
    for c in range(6, -1, -1):
        if (mask >> c) & 1:
            acc += p
        st[k, 3 + c] = acc
    acc = rabbit
    st[k, 11] = acc
    for c in range(7):
        if (mask >> c) & 1:
            acc += p
        st[k, 12 + c] = acc


@_inline
def expected(size: int, st: Arr) -> float:
    """E[kept points] (R16) of a row of ``size`` independent positions summarised in ``st[:size]``."""
    total = 0.0
    chase = 0.0
    pf = SCRATCH_ROWS - 2
    pg = SCRATCH_ROWS - 1
    for j in range(size):
        total += st[j, 0]
        p_large = st[j, 1]
        p_small = st[j, 2]
        if p_large == 0.0 and p_small == 0.0:
            continue
        for k in range(8):
            st[pf, k] = 1.0
            st[pg, k] = 1.0
        for i in range(size):
            if i != j:
                for k in range(8):
                    st[pf, k] *= st[i, 3 + k]
                    st[pg, k] *= st[i, 11 + k]
        if p_large != 0.0:
            best = 0.0
            for k in range(7):
                best += _POINTS[k] * (st[pf, k] - st[pf, k + 1])
            chase += p_large * best
        if p_small != 0.0:
            worst = 0.0
            for k in range(7):
                worst += _POINTS[k] * (st[pg, k + 1] - st[pg, k])
            chase += p_small * worst
    return total - chase


@_inline
def rounded(x: float) -> float:
    r: float = np.round(x * _DIGITS) / _DIGITS
    return r


@_inline
def row_value(masks: Arr, size: int, st: Arr) -> float:
    """E[kept points] of a row whose cards are uniform over ``masks[:size]`` (a known card: one bit)."""
    for k in range(size):
        mask_stats(masks[k], k, st)
    return rounded(expected(size, st))


@_inline
def row_masks(
    i: int, v: int, n: int, unplaced: bool, masks: Arr, hand: Arr, removed: Arr, dummy: Arr, phase: Arr, rnd: Arr,
    start: Arr, row: Arr, placed: Arr, up: Arr,
) -> int:  # fmt: skip
    """Seat ``v``'s masks of the row (``catsack.bots.heuristic.row_masks``); with ``unplaced``, the cards still to
    be placed by others too. Returns how many."""
    d = 1 if n == 3 else 0
    size = 0
    for p in range(placed[i]):
        owner = n if p < d else (start[i] + p - d) % n
        if p < up[i] or owner == v:
            masks[size] = 1 << row[i, p]
        else:
            masks[size] = vk.unseen_bits(i, owner, v, n, hand, removed, dummy, phase, rnd, start, row, placed, up)
        size += 1
    if unplaced:
        for k in range(placed[i] - d, n):
            owner = (start[i] + k) % n
            if owner != v:
                masks[size] = vk.unseen_bits(i, owner, v, n, hand, removed, dummy, phase, rnd, start, row, placed, up)
                size += 1
    return size


@_inline
def limit_for(i: int, v: int, n: int, worth: float, filled: Arr, passed: Arr, npass: Arr, cf: Arr) -> float:
    """The heuristic's bid limit (``bid_limit``): the estimate less the payout for passing and a mouse of
    margin, plus half the extra payout of outlasting two or more others (R12, R13)."""
    k = npass[i]
    payout = cf[_UP_AFTER + n + 1 + k] if filled[i] else 0
    limit = worth - payout - _MARGIN
    others = 0
    for t in range(n):
        if t != v and not passed[i, t]:
            others += 1
    if payout and others >= 2:
        later = cf[_UP_AFTER + n + 1 + k + 1]
        limit += _OUTLAST * (later - payout)
    return limit


@_inline
def place(i: int, v: int, n: int, tr: Arr, u: float, masks: Arr, st: Arr, hand: Arr, removed: Arr, dummy: Arr,
          money: Arr, phase: Arr, rnd: Arr, start: Arr, row: Arr, placed: Arr, up: Arr) -> int:  # fmt: skip
    """The persona's card (``personas._place``)."""
    size = row_masks(i, v, n, True, masks, hand, removed, dummy, phase, rnd, start, row, placed, up)
    # the value of the row with each card: masks[size] is the tried card
    total = 0.0
    pool = 0
    for c in range(_NUM_CARDS):
        if hand[i, v, c] or removed[i, v] == c:
            masks[size] = 1 << c
            total += row_value(masks, size + 1, st)
            pool += 1
    average = total / pool
    richest = 0
    richest_other = 0
    for t in range(n):
        richest = max(richest, money[i, t])
        if t != v:
            richest_other = max(richest_other, money[i, t])
    best = -1
    worst = -1
    quiet = -1
    kb = 0.0
    kw = 0.0
    kq = 0.0
    for c in range(_NUM_CARDS):  # ascending: ties go to the lower card (the heuristic's tie-break)
        if not hand[i, v, c]:
            continue
        masks[size] = 1 << c
        g = row_value(masks, size + 1, st) - average
        if best < 0 or g > kb:
            best = c
            kb = g
        if worst < 0 or g < kw:
            worst = c
            kw = g
        if quiet < 0 or abs(g) < kq:
            quiet = c
            kq = abs(g)
    s = start[i]
    if n > 3 and s == v:  # R11: its card is shown at once
        if money[i, v] >= richest and u < tr[T_LEAD]:
            return best
        return quiet
    share = tr[T_DUMP]
    if s != v and money[i, s] >= richest:
        share = share + (1.0 - share) * tr[T_FOLLOW]
    buyer = money[i, v] >= _BUY_MIN and money[i, v] >= richest_other - _BUY_GAP
    if u < share or not buyer:
        return worst
    return best


@_inline
def auction(i: int, v: int, n: int, tr: Arr, u0: float, u1: float, u2: float, masks: Arr, st: Arr, hand: Arr,
            removed: Arr, dummy: Arr, money: Arr, filled: Arr, phase: Arr, rnd: Arr, start: Arr, row: Arr,
            placed: Arr, up: Arr, high: Arr, bids: Arr, passed: Arr, npass: Arr, cf: Arr) -> int:  # fmt: skip
    """The persona's bid or pass (``personas._auction``), as an action index (R12-R15)."""
    size = row_masks(i, v, n, False, masks, hand, removed, dummy, phase, rnd, start, row, placed, up)
    worth = row_value(masks, size, st)
    mine = money[i, v]
    if phase[i] == LAST_CHOICE:  # R15
        return _PASS + 1 if worth > 1.0 and mine >= 1 else _PASS
    if mine <= high[i]:
        return _PASS
    left = ROUNDS - (rnd[i] + 1)
    limit = (
        limit_for(i, v, n, worth, filled, passed, npass, cf)
        + tr[T_OVER]
        + tr[T_NOISE] * (2.0 * u0 - 1.0)
        - _MONEY_POINTS * tr[T_MONEY] * left / 8.0
    )
    others = 0
    top = 0
    richest = 0
    for t in range(n):
        richest = max(richest, money[i, t])
        if t != v and not passed[i, t]:
            others += 1
            top = max(top, money[i, t])
    if others >= 2:
        own = -1
        d = 1 if n == 3 else 0
        for p in range(d, placed[i]):
            if (start[i] + p - d) % n == v and p >= up[i]:
                own = p
        if own >= 0:
            public = 1 << removed[i, v]
            for c in range(_NUM_CARDS):
                if hand[i, v, c]:
                    public |= 1 << c
            keep = masks[own]
            masks[own] = public | keep
            seen = row_value(masks, size, st)
            masks[own] = keep
            shown = limit_for(i, v, n, seen, filled, passed, npass, cf)
            if worth < seen - _GAP:
                if u1 < tr[T_BLUFF]:
                    limit = max(limit, shown + _BLUFF_OVER)
            elif worth > seen + _GAP and u1 < tr[T_SANDBAG]:
                limit = min(limit, shown - _SANDBAG_UNDER)
    limit = min(limit, mine * (1.0 - tr[T_THRIFT] * left / 8.0))
    if mine >= richest and high[i] < top <= mine and limit + _JUMP_REACH >= top and u2 < tr[T_JUMP]:
        return int(_PASS + top)
    raise_to = high[i] + 1
    if bids[i, v] == 0:  # its first bid of the round (R12)
        opening = math.floor(tr[T_OPEN] * limit)
        if raise_to < opening <= mine:
            return int(_PASS + opening)
    if raise_to <= limit and raise_to <= mine:
        return int(_PASS + raise_to)
    return _PASS


@_jit
def persona_actions(
    traits: Arr, u: Arr, sel: Arr, out: Arr, masks: Arr, st: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """``out[i]``: the persona ``traits[i, mover]``'s action in game ``i`` where ``sel[i]`` (else left alone),
    from the uniform numbers ``u[i, 0..2]`` (:func:`catsack.bots.personas.persona_move`)."""
    n = cf[0]
    for i in range(out.shape[0]):
        if not sel[i] or phase[i] == OVER:
            continue
        v = to_move[i]
        tr = traits[i, v]
        if phase[i] == PLACING:
            out[i] = place(i, v, n, tr, u[i, 2], masks, st, hand, removed, dummy, money, phase, rnd, start, row,
                           placed, up)  # fmt: skip
        elif phase[i] == BIDDING or phase[i] == LAST_CHOICE:
            out[i] = auction(i, v, n, tr, u[i, 0], u[i, 1], u[i, 2], masks, st, hand, removed, dummy, money,
                             filled, phase, rnd, start, row, placed, up, high, bids, passed, npass, cf)  # fmt: skip
