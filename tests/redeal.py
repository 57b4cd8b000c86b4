"""The re-deal check of R23 shared by the bots' tests: a seat's view before and after everything hidden
from it is dealt again."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator

from catsack.game import Game
from catsack.view import View


def redealt_views(positions: Iterable[Game], rng: random.Random) -> Iterator[tuple[View, View]]:
    """For each position, the view of the seat to move and the same seat's view once everything it
    cannot see is re-dealt (``Game.redeal``); the two are checked equal, as R23 says they must be."""
    for g in positions:
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        c = g.clone()
        c.redeal(seat, rng)
        other = c.view(seat)
        assert other == view
        yield view, other
