"""``catsack/Felix-v0`` as a Gymnasium vector environment, stepped by the batched engine.

>>> import gymnasium as gym
>>> from catsack.envs.gymnasium import register
>>> envs = gym.make_vec(register(), num_envs=64, vectorization_mode="vector_entry_point", seats=4)
>>> obs, infos = envs.reset(seed=1)
>>> obs.shape, infos["action_mask"].shape
((64, 203), (64, 119))

:class:`FelixVectorEnv` is the vector counterpart of
:class:`catsack.envs.gymnasium.FelixEnv`: ``num_envs`` games, the learner in
one seat of each, the same observations, action masks, rewards and illegal
action rule. All games advance together in
:class:`catsack.envs.vector.VectorGame`, instead of one Python game per
sub-environment as ``SyncVectorEnv`` would run them.

- **Opponents:** ``"random"`` only: every other seat plays catsack's
  ``random`` bot (the policy of :class:`~catsack.bots.random_bot.RandomBot`,
  as in ``FelixEnv(opponents="random")``), drawn for all games at once by
  :meth:`~catsack.envs.vector.VectorGame.random_bot_actions`. For catsack's
  thinking bots as opponents use :class:`~catsack.envs.gymnasium.FelixEnv`
  (their decisions are Python, one game at a time).
- **Autoreset:** Gymnasium's default ``NEXT_STEP`` mode: the step after a
  game ends re-deals it, ignores that game's action and returns the new
  game's first observation with reward 0.
- **Illegal actions:** an in-range action that is not legal is replaced by
  the lowest legal one and costs ``illegal_penalty``; ``infos`` then holds
  ``illegal_action`` (with the mask ``_illegal_action``). A value outside
  0..118 raises :class:`~catsack.envs.encoding.ActionError`.
- **Infos** (arrays with a row per game): ``action_mask`` (``int8``, the
  learner's legal actions) and ``seat`` (the learner's seat).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from catsack.envs.encoding import NUM_ACTIONS, ActionError, ObsArray, observation_size
from catsack.envs.gymnasium import check_options
from catsack.envs.vector import VectorGame

__all__ = ["FelixVectorEnv"]


class FelixVectorEnv(VectorEnv[ObsArray, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` games of Felix for one learner seat each, random opponents, stepped as a batch."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 - gymnasium's own form

    def __init__(
        self,
        num_envs: int = 16,
        seats: int = 4,
        learner_seat: int | None = 0,
        opponents: str = "random",
        reward: str = "margin",
        illegal_penalty: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        n = check_options(seats, learner_seat, reward, illegal_penalty)
        if type(num_envs) is not int or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if opponents != "random":
            raise ValueError(
                f"the vector env plays 'random' opponents only, not {opponents!r}; "
                "use catsack.envs.gymnasium.FelixEnv for catsack's bots"
            )
        if render_mode is not None:
            raise ValueError(f"the vector env has no render modes, not {render_mode!r}; render a FelixEnv instead")
        self.num_envs = num_envs
        self.seats = n
        self.learner_seat = learner_seat
        self.reward_mode = reward
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = None
        self.single_observation_space = spaces.Box(0.0, 1.0, (observation_size(n),), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._games: VectorGame | None = None
        self._rng = np.random.default_rng()
        self._seat = np.zeros(num_envs, np.int64)
        self._done = np.zeros(num_envs, np.bool_)  # ended on the last step: re-dealt on this one

    @property
    def games(self) -> VectorGame:
        """The batch of running games (for tools and tests; the learner must use observations)."""
        if self._games is None:
            raise RuntimeError("call reset() first")
        return self._games

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsArray, dict[str, Any]]:
        """Deal every game anew (R4–R9) and play the opponents up to each learner's first turn."""
        if isinstance(seed, list):
            seed = seed[0] if seed else None  # one generator deals the whole batch
        self._rng = np.random.default_rng(seed)
        self._games = VectorGame(self.num_envs, self.seats, seed=int(self._rng.integers(2**62)))
        self._new_seats(np.ones(self.num_envs, np.bool_))
        self._done[:] = False
        self._play_opponents()
        return self._observe(), self._infos()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[ObsArray, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        vg = self.games
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ActionError(f"actions must be {self.num_envs} integers (one per game), got {a.dtype} {a.shape}")
        a = a.astype(np.int64)
        bad = (a < 0) | (a >= NUM_ACTIONS)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ActionError(
                f"not an action: {int(a[i])} for game {i} (expected an integer from 0 to {NUM_ACTIONS - 1})"
            )
        rewards = np.zeros(self.num_envs)
        redeal = self._done.copy()
        playing = ~redeal
        mask = vg.legal_action_mask()
        illegal = playing & ~mask[np.arange(self.num_envs), a]
        infos: dict[str, Any] = {}
        if illegal.any():  # documented, deterministic: the lowest legal action, and a penalty
            infos["illegal_action"] = np.where(illegal, a, -1)
            infos["_illegal_action"] = illegal
            a = np.where(illegal, np.argmax(mask, axis=1), a)
            rewards -= illegal * self.illegal_penalty
        vg.step(a, where=playing)
        if redeal.any():  # NEXT_STEP autoreset
            vg.reset(redeal)
            self._new_seats(redeal)
        self._play_opponents()
        terminated = vg.terminated & playing
        if terminated.any():  # scores, cat points and winners are public now (R20-R22)
            rewards += vg.rewards(self.reward_mode)[np.arange(self.num_envs), self._seat] * terminated
        self._done = terminated
        infos.update(self._infos())
        return self._observe(), rewards, terminated, np.zeros(self.num_envs, np.bool_), infos

    def action_masks(self) -> npt.NDArray[np.int8]:
        """``(num_envs, 119)``: each learner's legal actions as 0/1 ``int8`` (all 0 in ended games)."""
        vg = self.games
        mine = vg.to_move == self._seat
        masks: npt.NDArray[np.int8] = (vg.legal_action_mask() & mine[:, None]).astype(np.int8)
        return masks

    # ------------------------------------------------------------------ helpers

    def _new_seats(self, where: npt.NDArray[np.bool_]) -> None:
        if self.learner_seat is None:
            self._seat[where] = self._rng.integers(0, self.seats, int(where.sum()))
        else:
            self._seat[where] = self.learner_seat

    def _play_opponents(self) -> None:
        vg = self.games
        while True:
            theirs = ~vg.terminated & (vg.to_move != self._seat)
            if not theirs.any():
                return
            vg.step(vg.random_bot_actions(self._rng), where=theirs)

    def _observe(self) -> ObsArray:
        return self.games.observe(self._seat)

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "seat": self._seat.copy()}
