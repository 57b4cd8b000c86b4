"""OpenSpiel's Python ISMCTS as a catsack bot (spec ``openspiel-ismcts``), so tournaments can seat it.

The bot sees only its view (R23). To search it needs an OpenSpiel state with
the same information state: it deals one with :func:`catsack.belief.sample_game`
and replays it into ``python_catsack`` (:func:`catsack.envs.openspiel.state_from_game`).
ISMCTS then re-deals a fresh world for every simulation through the state's
``resample`` (seeded from the bot's own generator, so a seed repeats a game).

Spec argument: ``openspiel-ismcts`` (100 simulations), ``openspiel-ismcts:400``
(400 simulations) or comma-separated settings
``openspiel-ismcts:sims=400,rollouts=2,uct=20``. ``uct`` is the UCT
exploration constant in points (returns are score margins, R21), default 20.
"""

from __future__ import annotations

import random
from typing import Any, Final

try:
    import numpy as np
    import pyspiel  # type: ignore[import-untyped,import-not-found,unused-ignore]
    from open_spiel.python.algorithms import (  # type: ignore[import-untyped,import-not-found,unused-ignore]
        ismcts,
        mcts,
    )
except ImportError as exc:  # make_bot reports this as "bot kind 'openspiel-ismcts' is not available: ..."
    raise ImportError(f"it needs OpenSpiel: pip install 'catsack[openspiel]' ({exc})", name=exc.name) from exc

from catsack.belief import sample_game
from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.envs.encoding import action_to_move
from catsack.envs.openspiel import CatsackGame, CatsackState, register, state_from_game
from catsack.moves import Move
from catsack.view import View

__all__ = ["OpenSpielISMCTSBot", "parse_settings"]

_DEFAULTS: Final = {"sims": 100, "rollouts": 1, "uct": 20.0}


def parse_settings(arg: str | None) -> dict[str, float]:
    """Read the spec argument (``None``, ``"400"`` or ``"sims=400,rollouts=2,uct=20"``)."""
    out: dict[str, float] = dict(_DEFAULTS)
    if arg is None or not arg.strip():
        return out
    text = arg.strip()
    if text.isdigit():
        text = f"sims={text}"
    for part in text.split(","):
        key, eq, value = part.strip().partition("=")
        if not eq or key not in _DEFAULTS:
            raise BotSpecError(
                f"openspiel-ismcts: bad setting {part.strip()!r} in {arg!r} "
                f"(expected a number of simulations or sims=N,rollouts=N,uct=X)"
            )
        try:
            number = float(value) if key == "uct" else int(value)
        except ValueError:
            raise BotSpecError(f"openspiel-ismcts: {key} must be a number, not {value!r}") from None
        if number <= 0 or (key == "sims" and number > 1_000_000):
            raise BotSpecError(f"openspiel-ismcts: {key}={value} is out of range")
        out[key] = number
    return out


class OpenSpielISMCTSBot(Bot):
    """Information-set MCTS from ``open_spiel.python.algorithms.ismcts`` with random rollouts."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        self.settings = parse_settings(arg)
        self._rng = random.Random(seed)
        self._np = np.random.RandomState(self._rng.randrange(2**32))
        self._games: dict[int, CatsackGame] = {}
        self._bots: dict[int, Any] = {}

    def _search(self, seats: int) -> tuple[CatsackGame, Any]:
        bot = self._bots.get(seats)
        if bot is None:
            register()
            game = pyspiel.load_game("python_catsack", {"players": seats})
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=int(self.settings["rollouts"]), random_state=self._np)
            bot = ismcts.ISMCTSBot(
                game,
                evaluator,
                self.settings["uct"],
                int(self.settings["sims"]),
                random_state=self._np,
                final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            )
            # OpenSpiel's default resampler draws from an unseeded sampler; ours follows the bot's seed.
            bot.set_resampler(lambda state, player: state.resample(player, self._rng))
            self._games[seats] = game
            self._bots[seats] = bot
        return self._games[seats], bot

    def reset(self, seat: int, seats: int) -> None:
        self._search(seats)

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        game, bot = self._search(view.seats)
        state: CatsackState = state_from_game(game, sample_game(view, self._rng))
        move = action_to_move(int(bot.step(state)))
        if move not in view.legal:  # ISMCTS only ever picks a legal action; this guards a broken install
            raise ValueError(f"openspiel-ismcts chose {move.text!r}, not legal for seat {view.seat}")
        return move
