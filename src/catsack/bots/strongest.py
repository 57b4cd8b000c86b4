"""The bot kind ``expert``: the learned expert, or the classic expert's levels and options.

``expert`` (and ``expert:`` with the learned expert's options only, :data:`AGENT_OPTIONS`) is the strongest
bot, :class:`catsack.learn.agent.ExpertAgent` (numpy and the compiled engine, the ``fast`` extra), named by
the registry's :data:`~catsack.bots.base.LEARNED_EXPERT` (it lives above the bots). Everything
else after ``expert:`` names the classic expert (:mod:`catsack.bots.expert`): its table levels
(``expert:easy|normal|strong``, the lobby's Easy, Normal and Strong) and its options (``expert:iters=900``),
as tables and records written before the learned expert name them. ``classic`` (with the same options) is
the classic expert under its own name, kept for comparison.
"""

from __future__ import annotations

from typing import Final

from catsack.bots.base import LEARNED_EXPERT, Bot, load_target

__all__ = ["AGENT_OPTIONS", "is_agent", "make_expert"]

AGENT_OPTIONS: Final = ("worlds", "top", "rounds", "search", "opponents", "open", "weights")


def is_agent(arg: str | None) -> bool:
    """Whether ``expert:ARG`` names the learned expert (no options, or only its own)."""
    parts = [p.strip() for p in (arg or "").split("+") if p.strip()]
    return all(p.partition("=")[0] in AGENT_OPTIONS for p in parts)


def make_expert(arg: str | None = None, *, seed: int | None = None) -> Bot:
    """The bot ``expert:ARG`` names (see the module docs)."""
    if is_agent(arg):
        bot: Bot = load_target(LEARNED_EXPERT, "the learned expert")(arg, seed=seed)
        return bot
    from catsack.bots.expert import ExpertBot

    return ExpertBot(arg, seed=seed)
