"""The ``policy`` bot: plays the learned policy's greedy move, no search (a fast level).

Spec ``policy`` uses the shipped weights; ``policy:NAME`` a shipped name or
an ``.npz`` path. It sees its seat's view only (R23).
"""

from __future__ import annotations

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.learn.model import PolicyModel, WeightsError, load_policy_model
from catsack.moves import Move
from catsack.view import View

__all__ = ["PolicyBot"]


class PolicyBot(Bot):
    """Greedy in the learned ``Q(view, action)`` over the abstract actions."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        try:
            self.model: PolicyModel = load_policy_model(arg)
        except WeightsError as exc:
            raise BotSpecError(f"policy bot: {exc}") from exc
        self.seed = seed  # greedy play needs no randomness; kept for the common signature

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        return only if only is not None else self.model.choose(view)
