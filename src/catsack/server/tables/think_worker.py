"""What the server's thinking processes run: one bot move, or one hint.

Kept apart from :mod:`catsack.server.tables.thinking` so that a fresh worker process imports only the rules
core and the bots, not the web server. Each call gets a seat's view (R23: nothing else crosses the
process boundary), a seed, and a wall-clock deadline (epoch seconds, the same clock in every process).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Sequence
from typing import Any

from catsack.view import View

__all__ = ["bot_move", "die_with_parent", "hint", "wall_budget"]


def die_with_parent() -> None:
    """Ask Linux to end this process when the process that started it ends, however it ends (``kill -9``
    included), so that no worker outlives its server. Elsewhere: nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the server's own shutdown still ends the workers
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(0)


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
    memory: dict[str, Any] | None = None,
) -> str:
    """The move (its text) of the bot ``spec`` at ``view``. An ``expert`` without a time option of its own
    searches until ``deadline`` but at least ``min_iterations`` iterations, and at most its level's
    iterations; other bots keep their own budgets. A forced move (one legal option) of a searching bot
    searches exactly as a move with a choice would, its result unused: on a busy machine a search can end
    after the move was due, and a forced move must not come sooner then than a chosen one (R23, R24:
    a forced pass tells that the bot cannot outbid). ``memory`` is what an expert that keeps a table memory
    (``memory=1``) read from the table's earlier games (:meth:`catsack.bots.expert.memory.TableMemory.state`,
    kept with a rematch), and for the learned expert its sitting's public history (``{"sitting": ...}``,
    :meth:`catsack.learn.history.Sitting.state`); one that cannot be read is left out."""
    from catsack.bots import ismcts
    from catsack.bots.base import make_bot
    from catsack.bots.expert import ITERATIONS, ExpertBot
    from catsack.bots.expert.memory import TableMemory
    from catsack.learn.agent import ExpertAgent
    from catsack.learn.history import Sitting

    bot = make_bot(spec, seed=seed)
    bot.reset(seat, seats)
    bot.meet(players)
    try:
        if isinstance(bot, ExpertBot) and memory is not None:
            with contextlib.suppress(ValueError):  # (only this server writes it) then the game goes on without it
                bot.remember(TableMemory.from_state(memory))
        if isinstance(bot, ExpertAgent) and memory is not None:
            with contextlib.suppress(ValueError):  # as above
                bot.remember(Sitting.from_state(memory.get("sitting")))
        if isinstance(bot, ExpertBot) and bot.seconds is None:
            cap = bot.iterations if bot.iterations is not None else ITERATIONS[seats]
            bot.iterations = cap
            bot.seconds = wall_budget(deadline)
            bot.min_iterations = min(min_iterations, cap)
        if len(view.legal) == 1:
            if callable(getattr(bot, "think", None)):  # the experts, classic and learned: as a choice would search
                bot.think(view)  # type: ignore[attr-defined]
            elif isinstance(bot, ismcts.ISMCTSBot):  # the former levels: iteration budgets
                ismcts.search(view, bot.rng, iterations=bot.iterations, seconds=bot.seconds)
        return bot.choose(view).text
    finally:
        bot.close()


def hint(
    view: View, seed: int, players: Sequence[str | None] | None, deadline: float, min_iterations: int
) -> dict[str, Any]:
    """The hint at ``view`` (the seat to move): :func:`catsack.advice.analysis.hint_payload` of the expert's
    analysis, searched until ``deadline`` (at least ``min_iterations``, at most the expert's iterations)."""
    from catsack.advice.analysis import analyse_view, hint_payload

    a = analyse_view(view, seed=seed, players=players, seconds=wall_budget(deadline), min_iterations=min_iterations)
    return hint_payload(a)
