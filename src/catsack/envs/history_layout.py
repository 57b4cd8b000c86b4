"""The layout of the players' public history: the sums kept per player and the figures made from them.

Shared by the compiled tracker (``catsack.envs._history_kernels``) and the same sums computed from a view
(:mod:`catsack.learn.history`); stdlib only. Everything counted is public once a round ends: every card of
the row is face up (R14), every bid and pass was made in the open, every payment too (R24).
"""

from __future__ import annotations

from typing import Final

from catsack.setup import check_seats

__all__ = [
    "BAD_CARDS",
    "BUY_GAP",
    "BUY_MIN",
    "GOOD_LEADS",
    "JUMP",
    "NUM_STATS",
    "NUM_SUMS",
    "PLACE_VALUE",
    "SITTING_GAMES",
    "SITTING_ROUNDS",
    "STATS",
    "history_size",
]

# The sums kept per player (indices into a player's row of sums).
S_ROUNDS: Final = 0  # finished rounds
S_HIDDEN: Final = 1  # its face-down placements (every card but the first shown, R11)
S_HIDDEN_VALUE: Final = 2  # their worth to a buyer (PLACE_VALUE)
S_RICH: Final = 3  # face-down placements made with a likely buyer's money (BUY_MIN, BUY_GAP)
S_RICH_BAD: Final = 4  # ... of them a bad card (BAD_CARDS)
S_POOR: Final = 5  # face-down placements made with less
S_POOR_BAD: Final = 6  # ... of them a bad card
S_BID_SUM: Final = 7  # its highest bid per round, summed (0 where it never bid)
S_BID_ROUNDS: Final = 8  # rounds in which it bid
S_OVER: Final = 9  # its highest bid less the row's kept points (R16), summed over those rounds
S_BAD_ROUNDS: Final = 10  # rounds in which its own face-down card was bad
S_BAD_BID: Final = 11  # its highest bids in those rounds, summed
S_SHOWN: Final = 12  # rounds in which its card was shown at once (the start player at 4-5 seats, R11)
S_LED: Final = 13  # ... and it was a good cat (GOOD_LEADS)
S_FIRST_BIDS: Final = 14  # rounds in which its first move of the auction was a bid
S_JUMPS: Final = 15  # ... a bid JUMP or more over the high bid
S_BOUGHT: Final = 16  # rows bought (R17; the last choice's buy for 1 included, R15)
S_PAID: Final = 17  # mice paid for them
NUM_SUMS: Final = 18

#: The figures made from the sums (each in about -1..1), in order.
STATS: Final = (
    "hidden placements / 9",
    "mean worth of its face-down cards / 15",
    "share of bad face-down cards placed with a buyer's money",
    "share of bad face-down cards placed with less",
    "mean highest bid a round / 15",
    "share of rounds it bid in",
    "mean highest bid less the row's kept points / 15",
    "mean highest bid with its own bad card in the row / 15",
    "share of its shown cards that were good cats",
    "share of its opening bids that jumped",
    "rows bought / 9",
    "mean price of a row bought / 15",
)
NUM_STATS: Final = len(STATS)

PLACE_VALUE: Final = (15.0, 11.0, 8.0, 5.0, 3.0, -5.0, -8.0, 0.0, -10.0, 4.0)  # a card's worth to a buyer (R16)
BAD_CARDS: Final = frozenset({5, 6, 8})  # -5, -8, the large dog
GOOD_LEADS: Final = frozenset({0, 1, 2})  # +15, +11, +8
BUY_MIN: Final = 6  # a likely buyer: this much money or more ...
BUY_GAP: Final = 2  # ... and at most this much poorer than the richest other player
JUMP: Final = 4  # an opening bid this much over the high bid or more is a jump
SITTING_ROUNDS: Final = 8  # a table's memory keeps a game's first rounds (the last is often unseen)
SITTING_GAMES: Final = 5.0  # the sitting's games count up to this many


def history_size(seats: int) -> int:
    """Length of the history block: every seat's figures, those of each hidden row card's owner, every seat's
    figures over the sitting's earlier games, and their number (3: 121, 4: 145, 5: 181)."""
    n = check_seats(seats)
    row_len = n + 1 if n == 3 else n
    return NUM_STATS * (2 * n + row_len) + 1
