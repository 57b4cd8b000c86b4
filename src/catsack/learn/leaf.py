"""The classic expert's learned leaf value (``expert:leaf=learned``, :data:`catsack.bots.expert.leaf.LEAVES`)."""

from __future__ import annotations

from catsack.game import Game
from catsack.learn.model import load_value_model

__all__ = ["LearnedValue"]


class LearnedValue:
    """The win head of the value model (:func:`catsack.learn.load_value_model`) on the seat's own view.

    Reads only ``g.view(seat)``, so it is honest whatever the sampled world holds (R23).
    """

    def __init__(self, weights: str | None = None) -> None:
        self.model = load_value_model(weights)

    def __call__(self, g: Game, seat: int) -> float:
        return float(self.model.evaluate_views([g.view(seat)])[0])
