"""The numba kernels of the players' public history (:mod:`catsack.envs.history_layout`), imported with numba.

:func:`track` watches every move before it is played and, when a round ends, adds what the round showed of
each player to its sums (``hist``, :mod:`catsack.envs.history_layout` names them): its face-down placements
(every card is turned up by the round's end, R14) and whether it held the money of a likely buyer when it
placed, its bids against what the row turned out to hold (R16), its first bids, what it bought and paid
(R17). :func:`history_features` turns the sums into each player's figures. Everything here is public (R23,
R24); ``tests/test_history.py`` checks both against :func:`catsack.learn.history.history_sums` of core views.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numba
import numpy as np

from catsack.envs import _vector_kernels as vk
from catsack.envs import history_layout as H
from catsack.game import BIDDING, LAST_CHOICE, OVER, PLACING

Arr = Any
F = TypeVar("F", bound=Callable[..., Any])

_OPTIONS: Final[dict[str, Any]] = {"cache": True, "nogil": True}
if hasattr(getattr(numba.core.cpu, "CPUTargetOptions", None), "_nrt"):
    _OPTIONS["_nrt"] = False  # as in _vector_kernels: the kernels allocate nothing

_PASS: Final = 10
_UP_AFTER: Final = 5  # _vector_kernels' constants layout: R11's face-up positions start here
_ROW_LEN: Final = 1
_BUY_MIN: Final = H.BUY_MIN
_BUY_GAP: Final = H.BUY_GAP
_JUMP: Final = H.JUMP
_LAST_TRACKED: Final = H.SITTING_ROUNDS - 1  # 0-based round after which the sitting's copy is taken
_PLACE_VALUE: Final = np.array(H.PLACE_VALUE, np.float64)
_BAD: Final = np.array([c in H.BAD_CARDS for c in range(10)], np.bool_)
_GOOD_LEAD: Final = np.array([c in H.GOOD_LEADS for c in range(10)], np.bool_)
NUM_SUMS: Final = H.NUM_SUMS
NUM_STATS: Final = H.NUM_STATS
RB: Final = 5  # per seat in the round: highest bid, moved in the auction, opened with a bid, jumped, buyer's money


def _jit(f: F) -> F:
    return cast(F, numba.njit(**_OPTIONS)(f))


def _inline(f: F) -> F:
    return cast(F, numba.njit(inline="always", **_OPTIONS)(f))


@_inline
def close_round(i: int, n: int, buyer: int, price: int, rb: Arr, hist: Arr, start: Arr, row: Arr, cf: Arr) -> None:
    """Add the round that ends now (its whole row in ``row[i]``) to every seat's sums."""
    row_len = cf[_ROW_LEN]
    d = 1 if n == 3 else 0
    up0 = cf[_UP_AFTER]
    kept = vk.kept_points(row[i], row_len)
    for t in range(n):
        h = hist[i, t]
        h[H.S_ROUNDS] += 1.0
        mb = rb[i, t, 0]
        h[H.S_BID_SUM] += mb
        if mb > 0:
            h[H.S_BID_ROUNDS] += 1.0
            h[H.S_OVER] += mb - kept
        own = -1
        for p in range(d, row_len):
            if (start[i] + p - d) % n == t:
                own = p
        if own >= up0:
            c = row[i, own]
            bad = _BAD[c]
            h[H.S_HIDDEN] += 1.0
            h[H.S_HIDDEN_VALUE] += _PLACE_VALUE[c]
            if rb[i, t, 4]:
                h[H.S_RICH] += 1.0
                if bad:
                    h[H.S_RICH_BAD] += 1.0
            else:
                h[H.S_POOR] += 1.0
                if bad:
                    h[H.S_POOR_BAD] += 1.0
            if bad:
                h[H.S_BAD_ROUNDS] += 1.0
                h[H.S_BAD_BID] += mb
        elif own >= 0:
            h[H.S_SHOWN] += 1.0
            if _GOOD_LEAD[row[i, own]]:
                h[H.S_LED] += 1.0
        h[H.S_FIRST_BIDS] += rb[i, t, 2]
        h[H.S_JUMPS] += rb[i, t, 3]
        if t == buyer:
            h[H.S_BOUGHT] += 1.0
            h[H.S_PAID] += price


@_jit
def track(
    actions: Arr, sel: Arr, rb: Arr, hist: Arr, kept: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """Before ``actions`` are played where ``sel``: note each move in the round's notes ``rb``; at a round's
    end add the round to ``hist``, and once the round numbered :data:`H.SITTING_ROUNDS` ends copy ``hist`` to
    ``kept`` (what a table's memory keeps of the game)."""
    n = cf[0]
    for i in range(actions.shape[0]):
        if not sel[i]:
            continue
        ph = phase[i]
        if ph == OVER:
            continue
        v = to_move[i]
        a = actions[i]
        if ph == PLACING:
            richest = 0
            for t in range(n):
                if t != v and money[i, t] > richest:
                    richest = money[i, t]
            rb[i, v, 0] = 0
            rb[i, v, 1] = 0
            rb[i, v, 2] = 0
            rb[i, v, 3] = 0
            rb[i, v, 4] = 1 if money[i, v] >= _BUY_MIN and money[i, v] >= richest - _BUY_GAP else 0
            continue
        end = False
        buyer = -1
        price = 0
        if ph == BIDDING:
            if a > _PASS:
                b = a - _PASS
                if rb[i, v, 1] == 0:
                    rb[i, v, 2] = 1
                    if b >= high[i] + _JUMP:
                        rb[i, v, 3] = 1
                rb[i, v, 1] = 1
                if b > rb[i, v, 0]:
                    rb[i, v, 0] = b
            else:
                rb[i, v, 1] = 1
                if npass[i] + 1 == n - 1 and hseat[i] >= 0:
                    end = True
                    buyer = hseat[i]
                    price = high[i]
        elif ph == LAST_CHOICE:
            end = True
            if a != _PASS:
                buyer = v
                price = 1
        if end:
            close_round(i, n, buyer, price, rb, hist, start, row, cf)
            if rnd[i] == _LAST_TRACKED:
                for t in range(n):
                    for k in range(hist.shape[2]):
                        kept[i, t, k] = hist[i, t, k]


@_inline
def stats(h: Arr, out: Arr, k: int) -> None:
    """``out[k : k + NUM_STATS]``: one player's figures from its sums ``h`` (``catsack.learn.history.stats``)."""
    rounds = max(h[H.S_ROUNDS], 1.0)
    out[k + 0] = h[H.S_HIDDEN] / 9.0
    out[k + 1] = h[H.S_HIDDEN_VALUE] / max(h[H.S_HIDDEN], 1.0) / 15.0
    out[k + 2] = h[H.S_RICH_BAD] / max(h[H.S_RICH], 1.0)
    out[k + 3] = h[H.S_POOR_BAD] / max(h[H.S_POOR], 1.0)
    out[k + 4] = h[H.S_BID_SUM] / rounds / 15.0
    out[k + 5] = h[H.S_BID_ROUNDS] / rounds
    out[k + 6] = h[H.S_OVER] / max(h[H.S_BID_ROUNDS], 1.0) / 15.0
    out[k + 7] = h[H.S_BAD_BID] / max(h[H.S_BAD_ROUNDS], 1.0) / 15.0
    out[k + 8] = h[H.S_LED] / max(h[H.S_SHOWN], 1.0)
    out[k + 9] = h[H.S_JUMPS] / max(h[H.S_FIRST_BIDS], 1.0)
    out[k + 10] = h[H.S_BOUGHT] / 9.0
    out[k + 11] = h[H.S_PAID] / max(h[H.S_BOUGHT], 1.0) / 15.0


@_jit
def history_features(
    viewers: Arr, out: Arr, col: int, hist: Arr, sitting: Arr, games: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """``out[i, col:]``: the history block of :mod:`catsack.learn.history` for seat ``viewers[i]`` of game ``i``:
    every seat's figures of this game (the viewer first, then clockwise), the owner's figures for each row card
    hidden from the viewer, every seat's figures over the sitting's earlier games and their number."""
    n = cf[0]
    row_len = cf[_ROW_LEN]
    d = 1 if n == 3 else 0
    for i in range(out.shape[0]):
        v = viewers[i]
        k = col
        for r in range(n):
            stats(hist[i, (v + r) % n], out[i], k)
            k += NUM_STATS
        over = phase[i] == OVER
        for p in range(row_len):
            hidden = False
            owner = -1
            if not over and p < placed[i] and p >= d:
                owner = (start[i] + p - d) % n
                hidden = p >= up[i] and owner != v
            if hidden:
                stats(hist[i, owner], out[i], k)
            else:
                for j in range(NUM_STATS):
                    out[i, k + j] = 0.0
            k += NUM_STATS
        for r in range(n):
            stats(sitting[i, (v + r) % n], out[i], k)
            k += NUM_STATS
        out[i, k] = min(games[i], H.SITTING_GAMES) / H.SITTING_GAMES
