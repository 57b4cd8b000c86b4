"""The game's constants and the tables derived from them, cited by rule (docs/rules.md).

Stdlib-only and free of I/O like the rest of the core: the engine (:mod:`catsack.game`), the views
(:mod:`catsack.view`), the environments and the bots read the rules' numbers from here.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "BANK_START",
    "CARD_MICE",
    "MOUSE_CARDS",
    "PASSED_FLAGS",
    "ROUNDS",
    "SEAT_COUNTS",
    "START_MONEY",
    "TOTAL_MONEY",
    "UP_AFTER_PASSES",
]

SEAT_COUNTS: Final = (3, 4, 5)  # R4
START_MONEY: Final = 15  # R5
BANK_START: Final = {3: 21, 4: 27, 5: 33}  # R5
MOUSE_CARDS: Final = {3: (3, 6), 4: (2, 4, 6), 5: (2, 3, 4, 6)}  # R6
TOTAL_MONEY: Final = {n: n * START_MONEY + BANK_START[n] for n in SEAT_COUNTS}  # 66 / 87 / 108
ROUNDS: Final = 9  # R20: one round per card in hand

#: Per seat count, the cards of the row face up after k passes (R11, R14). With 3 seats the row has the
#: dummy's card first, then the start player's; the 2nd pass shows the rest.
UP_AFTER_PASSES: Final = {3: (1, 2, 4, 4), 4: (1, 2, 3, 4, 4), 5: (1, 2, 3, 4, 5, 5)}
#: ``PASSED_FLAGS[n][passed]``: per seat, whether it passed (R13), for each bit mask of passed seats.
PASSED_FLAGS: Final = {n: tuple(tuple(bool(p >> s & 1) for s in range(n)) for p in range(1 << n)) for n in SEAT_COUNTS}
#: ``CARD_MICE[n][filled][passed]``: the mice on each mouse card (R6) for each bit mask of passed seats;
#: every pass empties the lowest card left (R13), and when the bank could not refill them all, all stay
#: empty (``filled`` 0, R18).
CARD_MICE: Final = {
    n: tuple(
        tuple(
            tuple(0 if not filled or i < p.bit_count() else v for i, v in enumerate(MOUSE_CARDS[n]))
            for p in range(1 << n)
        )
        for filled in (False, True)
    )
    for n in SEAT_COUNTS
}
