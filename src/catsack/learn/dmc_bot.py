"""The ``dmc`` bot: the greedy move of a Deep Monte Carlo Q-network, from its seat's view only (R23).

Spec ``dmc`` plays the shipped self-play agent (``dmc-v1``); ``dmc:NAME``
another shipped weights file (``dmc:exploit-v1``, the exploiter trained
against ``expert`` tables) or a path to an ``.npz`` file written by
``python -m catsack.learn.dmc --export``. No search: one forward pass of a
small numpy network per decision. See ``docs/learning.md``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.learn.blas import single_thread_blas
from catsack.learn.fast_features import abstract_legal, abstract_to_move, view_features
from catsack.learn.qnet import DMCWeights, greedy, load_dmc
from catsack.moves import Move
from catsack.view import View

__all__ = ["DEFAULT_DMC", "DMCBot"]

DEFAULT_DMC = "dmc-v1"


@cache
def _weights(name: str) -> DMCWeights:
    single_thread_blas()
    return load_dmc(name)


class DMCBot(Bot):
    """Greedy in the learned ``Q(features of the view, abstract action)``."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        try:
            self.weights = _weights(arg or DEFAULT_DMC)
        except ValueError as exc:
            raise BotSpecError(f"dmc bot: {exc}") from exc
        self.seed = seed  # greedy play needs no randomness; kept for the common signature

    def reset(self, seat: int, seats: int) -> None:
        try:
            self.weights.net(seats)
        except ValueError as exc:
            raise BotSpecError(f"dmc bot: {exc}") from exc

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        net = self.weights.net(view.seats)
        legal = abstract_legal(view)
        q = net.forward(view_features(view)[None, :])
        return abstract_to_move(view, int(greedy(q, legal[None, :])[0]))

    def q_values(self, view: View) -> dict[str, float]:
        """Q of every legal abstract action, by the move it stands for (for analysis and tests)."""
        legal = abstract_legal(view)
        q = self.weights.net(view.seats).forward(view_features(view)[None, :])[0]
        return {abstract_to_move(view, int(a)).text: float(q[a]) for a in np.flatnonzero(legal)}
