"""The players' public history, read from a view: what each has shown of how it places and bids.

Every finished round is public in full (R14: its whole row is face up by the end; every bid, pass and
payment was made in the open, R24). :func:`history_sums` adds up, per player, the sums of
:mod:`catsack.envs.history_layout` (its face-down cards and whether it placed them with a likely buyer's
money, its highest bids against what the rows turned out to hold, its opening bids, its purchases);
:func:`stats` turns one player's sums into its figures, and :func:`history_block` lays out the block the
learned ``expert`` reads after :func:`catsack.learn.fast_features.view_features`: every seat's figures of this
game (the viewer first, then clockwise), the owner's figures for each row card hidden from the viewer, every
seat's figures over the sitting's earlier games, and how many there were (:class:`Sitting`).

The compiled tracker (:meth:`catsack.envs.vector_numba.NumbaVectorGame.track_history`) keeps the same sums
move by move in self-play; ``tests/test_history.py`` checks that both give the same block at every decision.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from catsack.bots.heuristic import kept_value
from catsack.constants import SEAT_COUNTS, UP_AFTER_PASSES
from catsack.envs import history_layout as H
from catsack.setup import START_MONEY
from catsack.view import View

__all__ = ["Sitting", "history_block", "history_sums", "round_notes", "stats"]

F32 = npt.NDArray[np.float32]
Sums = list[list[float]]


def _round_moves(history: Sequence[tuple[int, str]], k: int, n: int) -> tuple[list[tuple[int, str]], int]:
    """The auction moves of the round whose placements start at ``history[k]`` (R12-R15), and where the next
    round starts."""
    k += n  # every player places once (R10); the dummy's card is no move
    moves: list[tuple[int, str]] = []
    passes = 0
    high = 0
    while passes < n - 1:
        s, text = history[k]
        k += 1
        moves.append((s, text))
        if text == "pass":
            passes += 1
        else:
            high = int(text.split()[1])
    if high == 0:  # R15: nobody bid; the last player's choice ends the round
        k += 1
    return moves, k


def history_sums(view: View, rounds: int | None = None) -> Sums:
    """Per seat, the sums of :mod:`catsack.envs.history_layout` over the finished rounds (the first ``rounds``)."""
    n = view.seats
    d = 1 if n == 3 else 0
    up0 = UP_AFTER_PASSES[n][0]
    sums = [[0.0] * H.NUM_SUMS for _ in range(n)]
    money = [START_MONEY] * n
    k = 0
    for r in view.rounds[:rounds]:
        rich = [
            money[t] >= H.BUY_MIN and money[t] >= max(money[u] for u in range(n) if u != t) - H.BUY_GAP
            for t in range(n)
        ]
        auction, k = _round_moves(view.history, k, n)
        top = [0] * n
        moved = [False] * n
        opened = [0] * n
        jumped = [0] * n
        high = 0
        for s, text in auction:
            if text != "pass":
                b = int(text.split()[1])
                if not moved[s]:
                    opened[s] = 1
                    jumped[s] = 1 if b >= high + H.JUMP else 0
                top[s] = max(top[s], b)
                high = b
            moved[s] = True
        row = [int(c) for c in r.row]
        kept = kept_value(row)
        for t in range(n):
            h = sums[t]
            h[H.S_ROUNDS] += 1.0
            h[H.S_BID_SUM] += top[t]
            if top[t] > 0:
                h[H.S_BID_ROUNDS] += 1.0
                h[H.S_OVER] += top[t] - kept
            own = next((p for p in range(d, len(row)) if r.owners[p] == t), -1)
            if own >= up0:
                c = row[own]
                bad = c in H.BAD_CARDS
                h[H.S_HIDDEN] += 1.0
                h[H.S_HIDDEN_VALUE] += H.PLACE_VALUE[c]
                if rich[t]:
                    h[H.S_RICH] += 1.0
                    h[H.S_RICH_BAD] += 1.0 if bad else 0.0
                else:
                    h[H.S_POOR] += 1.0
                    h[H.S_POOR_BAD] += 1.0 if bad else 0.0
                if bad:
                    h[H.S_BAD_ROUNDS] += 1.0
                    h[H.S_BAD_BID] += top[t]
            elif own >= 0:
                h[H.S_SHOWN] += 1.0
                h[H.S_LED] += 1.0 if row[own] in H.GOOD_LEADS else 0.0
            h[H.S_FIRST_BIDS] += opened[t]
            h[H.S_JUMPS] += jumped[t]
            if r.buyer == t and r.price is not None:
                h[H.S_BOUGHT] += 1.0
                h[H.S_PAID] += r.price
        for s, amount in r.payouts:  # R13, R17: the money each had when the next round's cards were placed
            money[s] += amount
        if r.buyer is not None and r.price is not None:
            money[r.buyer] -= r.price
    return sums


def round_notes(view: View) -> list[list[int]]:
    """Per seat, what the current round has shown so far, as the compiled tracker notes it: highest bid, whether
    it has moved in the auction, opened with a bid, jumped, placed with a likely buyer's money (R10-R12)."""
    n = view.seats
    money = [START_MONEY] * n
    k = 0
    for r in view.rounds:
        k = _round_moves(view.history, k, n)[1]
        for s, amount in r.payouts:
            money[s] += amount
        if r.buyer is not None and r.price is not None:
            money[r.buyer] -= r.price
    notes = [[0, 0, 0, 0, 0] for _ in range(n)]
    high = 0
    for s, text in view.history[k:]:
        if text.startswith("place"):
            rich = money[s] >= H.BUY_MIN and money[s] >= max(money[u] for u in range(n) if u != s) - H.BUY_GAP
            notes[s][4] = 1 if rich else 0
        else:
            note = notes[s]
            if text != "pass":
                b = int(text.split()[1])
                if not note[1]:
                    note[2] = 1
                    note[3] = 1 if b >= high + H.JUMP else 0
                note[0] = max(note[0], b)
                high = b
            note[1] = 1
    return notes


def stats(h: Sequence[float]) -> list[float]:
    """One player's figures (:data:`catsack.envs.history_layout.STATS`) from its sums."""
    rounds = max(h[H.S_ROUNDS], 1.0)
    return [
        h[H.S_HIDDEN] / 9.0,
        h[H.S_HIDDEN_VALUE] / max(h[H.S_HIDDEN], 1.0) / 15.0,
        h[H.S_RICH_BAD] / max(h[H.S_RICH], 1.0),
        h[H.S_POOR_BAD] / max(h[H.S_POOR], 1.0),
        h[H.S_BID_SUM] / rounds / 15.0,
        h[H.S_BID_ROUNDS] / rounds,
        h[H.S_OVER] / max(h[H.S_BID_ROUNDS], 1.0) / 15.0,
        h[H.S_BAD_BID] / max(h[H.S_BAD_ROUNDS], 1.0) / 15.0,
        h[H.S_LED] / max(h[H.S_SHOWN], 1.0),
        h[H.S_JUMPS] / max(h[H.S_FIRST_BIDS], 1.0),
        h[H.S_BOUGHT] / 9.0,
        h[H.S_PAID] / max(h[H.S_BOUGHT], 1.0) / 15.0,
    ]


@dataclass
class Sitting:
    """What a table's earlier games showed of each seat: the sums of their first rounds, and how many games."""

    seats: int
    sums: Sums = field(default_factory=list)
    games: int = 0

    def __post_init__(self) -> None:
        if not self.sums:
            self.sums = [[0.0] * H.NUM_SUMS for _ in range(self.seats)]

    def add(self, view: View) -> None:
        """Add a game of this table as ``view`` (any seat's, its last) saw it: its first rounds
        (:data:`~catsack.envs.history_layout.SITTING_ROUNDS`)."""
        if view.seats != self.seats:
            raise ValueError(f"a sitting of {self.seats} seats cannot keep a game of {view.seats}")
        game = history_sums(view, H.SITTING_ROUNDS)
        for mine, more in zip(self.sums, game, strict=True):
            for k, x in enumerate(more):
                mine[k] += x
        self.games += 1

    def state(self) -> dict[str, Any]:
        """This sitting as plain JSON data (a server keeps it with a rematch); :meth:`from_state` reads it back."""
        return {"seats": self.seats, "games": self.games, "sums": [list(s) for s in self.sums]}

    @classmethod
    def from_state(cls, state: object) -> Sitting:
        """The sitting :meth:`state` wrote; raise :class:`ValueError` naming what is wrong with anything else."""
        if not isinstance(state, dict):
            raise ValueError(f"a sitting's state is a mapping, not {type(state).__name__}")
        seats, games, sums = state.get("seats"), state.get("games"), state.get("sums")
        if type(seats) is not int or seats not in SEAT_COUNTS:
            raise ValueError(f"a sitting's seats must be one of {SEAT_COUNTS} (R4), not {seats!r}")
        if type(games) is not int or games < 0:
            raise ValueError(f"a sitting's games must be a count, not {games!r}")
        if not isinstance(sums, list) or len(sums) != seats:
            raise ValueError(f"a sitting's sums must be one list per seat ({seats})")
        rows: Sums = []
        for row in sums:
            if not isinstance(row, list) or len(row) != H.NUM_SUMS:
                raise ValueError(f"each seat's sums must be {H.NUM_SUMS} numbers")
            if not all(isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in row):
                raise ValueError("a sitting's sums must be finite numbers")
            rows.append([float(x) for x in row])
        return cls(seats, rows, games)


def history_block(view: View, sitting: Sitting | None = None, sums: Sums | None = None) -> F32:
    """The history block (:func:`catsack.envs.history_layout.history_size` numbers) of ``view``'s seat;
    ``sums`` are :func:`history_sums` of the view when already computed."""
    n = view.seats
    v = view.seat
    if v is None:
        raise ValueError("the history block is a seat's (its view's seat is None)")
    h = history_sums(view) if sums is None else sums
    out: list[float] = []
    for r in range(n):
        out += stats(h[(v + r) % n])
    d = 1 if n == 3 else 0
    row_len = n + 1 if n == 3 else n
    zero = [0.0] * H.NUM_STATS
    for p in range(row_len):
        rc = view.row[p] if p < len(view.row) and not view.is_over else None
        if rc is not None and p >= d and rc.card is None and rc.owner is not None:
            out += stats(h[rc.owner])
        else:
            out += zero
    s = sitting.sums if sitting is not None else [[0.0] * H.NUM_SUMS for _ in range(n)]
    for r in range(n):
        out += stats(s[(v + r) % n])
    games = sitting.games if sitting is not None else 0
    out.append(min(games, H.SITTING_GAMES) / H.SITTING_GAMES)
    return np.asarray(out, np.float32)
