"""The sealed parameter draws: personas of the league's own space, drawn from a seed no training or tuning uses.

:data:`SEALED_SEED` picks the draw numbers (``persona:draw=N``, :func:`catsack.bots.personas.drawn`); the
league's trainer draws its personas from its own numpy generator and never by number.
"""

from __future__ import annotations

import random

__all__ = ["HELD_OUT", "SEALED_SEED", "SITTING", "draw_specs"]

SEALED_SEED = 8_141_927


def draw_specs(count: int = 4) -> list[str]:
    """The first ``count`` sealed draws as bot specs."""
    rng = random.Random(SEALED_SEED)
    return [f"persona:draw={rng.randrange(10**9, 2 * 10**9)}" for _ in range(count)]


#: Every held-out opponent of the benchmark: the hand-written styles, then the sealed draws.
HELD_OUT: tuple[str, ...] = ("sealed:grudge", "sealed:jumper", "sealed:tilt", "sealed:counter", *draw_specs())
#: The held-out opponent for sittings (several games in a row with the same bot objects).
SITTING = "sealed:turncoat"
