"""A single-agent Gymnasium environment: one learner seat against catsack bots.

>>> from catsack.envs.gymnasium import FelixEnv
>>> env = FelixEnv(seats=4, learner_seat=0, opponents="random")
>>> obs, info = env.reset(seed=1)
>>> obs.shape, info["action_mask"].shape
((203,), (119,))

``register()`` makes the id ``catsack/Felix-v0`` known to ``gymnasium.make``;
importing this module registers nothing.

The learner sees its own seat's view only (R23): observations and the
action mask come from :mod:`catsack.envs.encoding`. Between the learner's
turns the other seats are played by bots made with
:func:`catsack.bots.base.make_bot`, each from its own view (the ``random``
bot is handed only the three things it reads of its view: its legal moves,
the phase and the high bid).

Action masking: ``info["action_mask"]`` after ``reset`` and every ``step``,
and the method :meth:`FelixEnv.action_masks` (the name sb3-contrib's
``MaskablePPO`` looks for). An in-range action that is illegal now is
replaced by the lowest legal action (``place`` of the first card in hand,
``pass`` while bidding) and costs ``illegal_penalty`` in that step's reward;
the info reports ``illegal_action`` and ``played``. A value that is not an
action index at all raises :class:`~catsack.envs.encoding.ActionError`.

Reward: 0 on every step but the last (apart from penalties); the last gives
the learner's terminal reward (``margin``, ``rank`` or ``win``,
:func:`catsack.envs.encoding.final_rewards`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from catsack.bots.base import Bot, make_bot
from catsack.bots.random_bot import RandomBot
from catsack.envs.encoding import (
    NUM_ACTIONS,
    REWARD_MODES,
    ActionError,
    MaskArray,
    ObsArray,
    game_rewards,
    legal_mask_of,
    observation_size,
    render_text,
    resolve_action,
    seat_legal,
)
from catsack.envs.observer import Observer
from catsack.game import Game
from catsack.setup import check_seats
from catsack.view import View

__all__ = ["ENV_ID", "FelixEnv", "register"]

ENV_ID: Final = "catsack/Felix-v0"


def check_options(seats: int, learner_seat: int | None, reward: str, illegal_penalty: float) -> int:
    """Check the options ``FelixEnv`` and the vector env share; return the seat count."""
    n = check_seats(seats)
    if learner_seat is not None and (type(learner_seat) is not int or not 0 <= learner_seat < n):
        raise ValueError(f"learner_seat must be None or a seat from 0 to {n - 1}, not {learner_seat!r}")
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
    if not isinstance(illegal_penalty, (int, float)) or illegal_penalty != illegal_penalty:
        raise ValueError(f"illegal_penalty must be a number, not {illegal_penalty!r}")
    return n


class FelixEnv(gym.Env[ObsArray, np.int64]):
    """Felix for one learner: ``seats`` players, the others played by bots.

    ``learner_seat``: the learner's seat, or ``None`` for a random seat each
    episode. ``opponents``: one bot spec for every other seat, or a sequence
    with one spec (or :class:`~catsack.bots.base.Bot`) per other seat, in
    clockwise order from the learner. Bots made from specs are re-made with
    seeds drawn from the episode's seed, so ``reset(seed=s)`` repeats an
    episode exactly; bot objects passed in are only ``reset``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012 - gymnasium's own form

    def __init__(
        self,
        seats: int = 4,
        learner_seat: int | None = 0,
        opponents: str | Sequence[str | Bot] = "random",
        reward: str = "margin",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        n = check_options(seats, learner_seat, reward, illegal_penalty)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if isinstance(opponents, str):
            specs: list[str | Bot] = [opponents] * (n - 1)
        else:
            specs = list(opponents)
            if len(specs) != n - 1:
                raise ValueError(f"opponents must name {n - 1} bots (one per other seat), got {len(specs)}")
        for spec in specs:
            if not isinstance(spec, (str, Bot)):
                raise ValueError(f"an opponent must be a bot spec such as 'random' or a Bot, not {spec!r}")
            if isinstance(spec, str):
                make_bot(spec, seed=0).close()  # fail now, with the spec's own message, not at reset
        self.seats = n
        self.learner_seat = learner_seat
        self.reward_mode = reward
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self._specs = specs
        self.observation_space = spaces.Box(0.0, 1.0, (observation_size(n),), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._game: Game | None = None
        self._obs: Observer | None = None
        self._seat = 0 if learner_seat is None else learner_seat
        self._bots: dict[int, Bot] = {}
        self._own_bots: list[Bot] = []

    # ------------------------------------------------------------------ gymnasium API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsArray, dict[str, Any]]:
        """Deal a new game (R4–R9) and play the bots up to the learner's first turn."""
        super().reset(seed=seed)
        rng = self.np_random
        n = self.seats
        self._seat = int(rng.integers(n)) if self.learner_seat is None else self.learner_seat
        self._game = Game.new(n, seed=int(rng.integers(2**62)))
        self._obs = Observer(self._game)
        self._close_own_bots()
        self._bots = {}
        for k, spec in enumerate(self._specs, start=1):
            seat = (self._seat + k) % n
            if isinstance(spec, str):
                bot = make_bot(spec, seed=int(rng.integers(2**62)))
                self._own_bots.append(bot)
            else:
                bot = spec
            bot.reset(seat, n)
            self._bots[seat] = bot
        players = [self._bots[s].name if s in self._bots else None for s in range(n)]  # the agent: None
        for bot in self._bots.values():
            bot.meet(players)
        self._play_bots()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[ObsArray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the bots' moves until the learner is to move again or the
        game ends: ``(observation, reward, terminated, truncated, info)``, as Gymnasium's ``Env.step``.

        An in-range action that is not legal now is replaced by the lowest legal one and costs
        ``illegal_penalty`` (``info`` reports ``illegal_action`` and ``played``); a value that is no
        action at all raises :class:`~catsack.envs.encoding.ActionError`.
        """
        g = self._game
        if g is None:
            raise RuntimeError("call reset() before step()")
        if g.is_over:
            raise RuntimeError("the game is over: call reset() to start another")
        # The learner is to move: the game's legal moves are its view's.
        move, extra = resolve_action(g.legal_moves(), action)  # raises ActionError for non-actions
        reward = 0.0
        if extra is not None:  # documented, deterministic: the lowest legal action, and a penalty
            reward -= self.illegal_penalty
        g.play(move)
        self._sync()
        self._play_bots()
        terminated = g.is_over
        if terminated:  # scores, cat points and winners are public now (R20-R22)
            reward += game_rewards(g, self.reward_mode)[self._seat]
        info = self._info()
        info.update(extra or {})
        return self._observe(), reward, terminated, False, info

    def action_masks(self) -> MaskArray:
        """The learner's legal actions now as a 0/1 ``int8`` vector (all 0 once the game is over)."""
        return self._mask().copy()

    def render(self) -> str | None:
        """The learner's view as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            gym.logger.warn("render() was called without a render_mode; make the env with render_mode='ansi'")
            return None
        return render_text(self._view())

    def close(self) -> None:
        self._close_own_bots()

    # ------------------------------------------------------------------ helpers

    @property
    def game(self) -> Game:
        """The running game (for tools and tests; the learner must use observations)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    def _view(self) -> View:
        return self.game.view(self._seat)

    def _mask(self) -> MaskArray:
        g = self.game
        return legal_mask_of(seat_legal(g, self._seat))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask().copy(), "seat": self._seat}  # a new array each call, as gymnasium asks

    def _observe(self) -> ObsArray:
        """The learner's observation: ``encode_observation(game.view(seat))``, kept up to date move by move."""
        assert self._obs is not None
        return self._obs.observe(self._seat)

    def _sync(self) -> None:
        assert self._obs is not None
        self._obs.sync()

    def _play_bots(self) -> None:
        g = self.game
        while (seat := g.to_move) is not None and seat != self._seat:
            bot = self._bots[seat]
            if type(bot) is RandomBot:
                # The random bot reads only its legal moves, the phase and the high bid of its view (R23):
                # hand them over without building the whole view. Same moves, same draws.
                g.play(bot.decide(g.legal_moves(), g.phase, g.high_bid))
                self._sync()
                continue
            view = g.view(seat)
            move = bot.choose(view)
            if move not in view.legal:
                raise ActionError(f"bot {bot.name!r} in seat {seat} chose {move!r}, which is not legal now")
            g.play(move)
            self._sync()

    def _close_own_bots(self) -> None:
        for bot in self._own_bots:
            bot.close()
        self._own_bots = []


def register() -> str:
    """Make ``catsack/Felix-v0`` known to ``gymnasium.make`` and ``gymnasium.make_vec`` (idempotent); return the id.

    ``make_vec(id, num_envs, vectorization_mode="vector_entry_point")`` gives
    :class:`catsack.envs.gymnasium_vector.FelixVectorEnv` (all games in one
    batched engine, random opponents); the ``sync`` and ``async`` modes run
    one :class:`FelixEnv` per sub-environment.
    """
    if ENV_ID not in gym.registry:
        gym.register(
            id=ENV_ID,
            entry_point="catsack.envs.gymnasium:FelixEnv",
            vector_entry_point="catsack.envs.gymnasium_vector:FelixVectorEnv",
        )
    return ENV_ID
