"""What the server's thinking processes run: one bot move, or one hint (issue 29, defect 5; issue 32, item 4).

Kept apart from :mod:`catsack.server.thinking` so that a fresh worker process imports only the rules
core and the bots, not the web server. Each call gets a seat's view (R23: nothing else crosses the
process boundary), a seed, and a wall-clock deadline (epoch seconds, the same clock in every process).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from catsack.view import View

__all__ = ["bot_move", "hint", "wall_budget"]


def wall_budget(deadline: float) -> float:
    """Seconds left until ``deadline`` (epoch seconds), never negative."""
    return max(0.0, deadline - time.time())


def bot_move(
    spec: str,
    seed: int,
    seat: int,
    seats: int,
    players: Sequence[str | None],
    view: View,
    deadline: float,
    min_iterations: int,
) -> str:
    """The move (its text) of the bot ``spec`` at ``view``. An ``expert`` without a time option of its own
    searches until ``deadline`` but at least ``min_iterations`` iterations, and at most its level's
    iterations; other bots use their own budgets."""
    from catsack.bots.base import make_bot
    from catsack.bots.expert import ITERATIONS, ExpertBot

    bot = make_bot(spec, seed=seed)
    bot.reset(seat, seats)
    bot.meet(players)
    if isinstance(bot, ExpertBot) and bot.seconds is None:
        cap = bot.iterations if bot.iterations is not None else ITERATIONS[seats]
        bot.iterations = cap
        bot.seconds = wall_budget(deadline)
        bot.min_iterations = min(min_iterations, cap)
    try:
        return bot.choose(view).text
    finally:
        bot.close()


def hint(
    view: View, seed: int, players: Sequence[str | None] | None, deadline: float, min_iterations: int
) -> dict[str, Any]:
    """The expert's advice at ``view`` (the seat to move): the preferred move, each considered move's value
    in points, and the beliefs over face-down cards, as :func:`catsack.bots.analysis.analyse_view` reports
    them, but searched until ``deadline`` (at least ``min_iterations``, at most the expert's iterations)."""
    from catsack.belief import card_beliefs
    from catsack.bots import expert

    beliefs = [None if b is None else dict(b) for b in card_beliefs(view)]
    if len(view.legal) == 1:
        only = view.legal[0].text
        return {"best": only, "values": {only: 0.0}, "beliefs": beliefs, "iterations": 0}
    cap = expert.ITERATIONS[view.seats]
    stats = expert.search(
        view,
        random.Random(seed),
        iterations=cap,
        seconds=wall_budget(deadline),
        min_iterations=min(min_iterations, cap),
        players=players,
    )
    values = {m.text: round(v, 3) for m, v in zip(stats.moves, stats.margins, strict=True)}
    return {"best": stats.best.text, "values": values, "beliefs": beliefs, "iterations": stats.iterations}
