"""Setup of a game (R4–R9): seats, start player, removed cards, dummy deck.

All chance in a game happens here; after the setup the game is deterministic,
so a setup plus the list of moves is the whole game (a ``catsack/1`` record).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from catsack.cards import CARDS, Card
from catsack.constants import BANK_START, MOUSE_CARDS, SEAT_COUNTS, START_MONEY, TOTAL_MONEY
from catsack.errors import SetupError

__all__ = [
    "BANK_START",
    "MOUSE_CARDS",
    "SEAT_COUNTS",
    "START_MONEY",
    "TOTAL_MONEY",
    "Setup",
    "check_seats",
    "deal_ints",
]

# The rules' numbers live in catsack.constants; listed in __all__ so ``from catsack.setup import`` keeps working.


def check_seats(seats: object) -> int:
    """Return ``seats`` if it is 3, 4 or 5 (R4); raise :class:`~catsack.errors.SetupError` otherwise."""
    if type(seats) is not int or seats not in SEAT_COUNTS:
        raise SetupError(f"seats must be 3, 4 or 5 (R4), not {seats!r}")
    return seats


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything chance decides before the first move.

    ``removed[i]`` is the card removed from seat i's set (R7). With 3 seats,
    ``dummy`` is the dummy deck's 9 cards, top first (R8); its removed card is
    the one card of the set missing from it.
    """

    seats: int
    start: int
    removed: tuple[Card, ...]
    dummy: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        n = check_seats(self.seats)
        if type(self.start) is not int or not 0 <= self.start < n:
            raise SetupError(f"start must be a seat from 0 to {n - 1} (R9), not {self.start!r}")
        if not isinstance(self.removed, tuple) or len(self.removed) != n:
            raise SetupError(f"removed must list one card per seat ({n}), got {self.removed!r}")
        for i, card in enumerate(self.removed):
            if not isinstance(card, Card):
                raise SetupError(f"removed[{i}] is not a card: {card!r}")
        if n == 3:
            if not isinstance(self.dummy, tuple) or len(self.dummy) != 9:
                raise SetupError(f"with 3 seats the dummy deck must hold 9 cards (R8), got {len(self.dummy)}")
            if any(not isinstance(c, Card) for c in self.dummy) or len(set(self.dummy)) != 9:
                raise SetupError(
                    "the dummy deck must be 9 different cards of one set (R8), got "
                    + " ".join(str(c) for c in self.dummy)
                )
        elif self.dummy:
            raise SetupError(f"only a 3-seat game has a dummy deck (R8), but {n} seats were given one")

    @property
    def dummy_removed(self) -> Card | None:
        """The card removed from the dummy's set (3 seats), else ``None``."""
        if self.seats != 3:
            return None
        return next(c for c in CARDS if c not in self.dummy)

    @classmethod
    def deal(cls, seats: int = 4, rng: random.Random | int | None = None, *, start: int | None = None) -> Setup:
        """Deal a setup at random (R7–R9) from ``rng`` (a ``random.Random`` or a seed).

        ``start`` fixes the start player when the table chooses one (R9).
        """
        n = check_seats(seats)
        r = rng if isinstance(rng, random.Random) else random.Random(rng)
        first, removed, dummy = deal_ints(n, r, start)
        return cls(n, first, tuple(CARDS[c] for c in removed), tuple(CARDS[c] for c in dummy))


def deal_ints(n: int, r: random.Random, start: int | None = None) -> tuple[int, list[int], list[int]]:
    """Deal start player, removed cards and dummy deck as card indices (R7–R9).

    Shared by :meth:`Setup.deal` and ``Game.new`` so one seed gives one deal.
    """
    if start is None:
        first = int(r.random() * n)
    elif type(start) is int and 0 <= start < n:
        first = start
    else:
        raise SetupError(f"start must be a seat from 0 to {n - 1} (R9), not {start!r}")
    rand = r.random
    removed = [int(rand() * 10) for _ in range(n)]  # R7: uniform over the 10 cards
    dummy: list[int] = []
    if n == 3:  # R8: shuffle a fourth set, its last card is the unseen removed one
        deck = list(range(10))
        r.shuffle(deck)
        dummy = deck[:9]
    return first, removed, dummy
