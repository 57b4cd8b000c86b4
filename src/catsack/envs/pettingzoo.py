"""PettingZoo environments: ``env()`` (AEC, turn by turn) and ``parallel_env()``.

>>> from catsack.envs.pettingzoo import env
>>> e = env(seats=4, reward="margin")
>>> e.reset(seed=1)
>>> obs, reward, terminated, truncated, info = e.last()
>>> sorted(obs)
['action_mask', 'observation']

Agents are ``player_0`` … ``player_{n-1}`` (seat numbers, R4). Each agent
observes ``{"observation": float32 vector, "action_mask": int8 vector}``
built from its own view only (R23; layouts in ``docs/envs.md``). Rewards are
0 until the game ends (R20), then the terminal reward of ``reward``
(:func:`catsack.envs.encoding.final_rewards`).

An in-range action that is illegal now is replaced by the lowest legal
action and costs ``illegal_penalty`` at once (reported in the agent's info as
``illegal_action`` and ``played``); anything that is not an action index
raises :class:`~catsack.envs.encoding.ActionError`.

``max_cycles`` (default ``None``: play to the end, at most 9 rounds) limits
each agent to that many moves. In the AEC env an agent is truncated after its
``max_cycles``-th move; while any agent is still live, the turns of truncated
agents are played by the fallback policy (the lowest legal action). In the
parallel env every agent is truncated after ``max_cycles`` parallel steps.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped,import-not-found,unused-ignore]

from catsack.envs.encoding import (
    ACTION_MOVES,
    NUM_ACTIONS,
    REWARD_MODES,
    ActionError,
    game_rewards,
    legal_entry,
    legal_mask_of,
    observation_size,
    render_text,
    resolve_action,
    seat_legal,
)
from catsack.envs.observer import Observer
from catsack.game import Game
from catsack.moves import Move
from catsack.setup import check_seats

__all__ = ["CatsackAEC", "CatsackParallel", "env", "parallel_env", "raw_env"]

Obs = dict[str, np.ndarray[Any, Any]]
_NAME = "catsack_v0"


def _check_options(reward: str, render_mode: str | None, max_cycles: int | None, illegal_penalty: float) -> None:
    if reward not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {reward!r}")
    if render_mode not in (None, "ansi"):
        raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
    if max_cycles is not None and (type(max_cycles) is not int or max_cycles < 1):
        raise ValueError(f"max_cycles must be None or a whole number from 1, not {max_cycles!r}")
    if not isinstance(illegal_penalty, (int, float)) or illegal_penalty != illegal_penalty:
        raise ValueError(f"illegal_penalty must be a number, not {illegal_penalty!r}")


class _Table:
    """State shared by both environments: the game, the spaces and the move checks."""

    def __init__(self, seats: int, reward: str, render_mode: str | None, max_cycles: int | None, penalty: float):
        self.n = check_seats(seats)
        _check_options(reward, render_mode, max_cycles, penalty)
        self.reward_mode = reward
        self.max_cycles = max_cycles
        self.penalty = float(penalty)
        self.names = [f"player_{i}" for i in range(self.n)]
        self.seat_of = {a: i for i, a in enumerate(self.names)}
        size = observation_size(self.n)
        self.obs_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.names
        }
        self.act_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.names}
        self.rng = random.Random()
        self.game = Game.new(self.n, rng=self.rng)
        self.obs = Observer(self.game)

    def deal(self, seed: int | None) -> None:
        # A seed restarts the deal sequence; without one the next deal follows on.
        if seed is not None:
            self.rng = random.Random(seed)
        self.game = Game.new(self.n, rng=self.rng)
        self.obs = Observer(self.game)

    def observe(self, seat: int) -> Obs:
        # The Observer's vector equals encode_observation(game.view(seat)); the mask is the seat's legal moves.
        return {"observation": self.obs.observe(seat), "action_mask": legal_mask_of(seat_legal(self.game, seat))}

    def play(self, move: Move) -> None:
        self.game.play(move)
        self.obs.sync()

    def resolve(self, action: Any) -> tuple[Move, dict[str, Any] | None]:
        """The move to play for ``action`` and, if it was illegal and replaced, the info to report."""
        return resolve_action(self.game.legal_moves(), action)

    def fallback_move(self) -> Move:
        return ACTION_MOVES[legal_entry(self.game.legal_moves())[1][0]]

    def final(self) -> tuple[float, ...]:
        return game_rewards(self.game, self.reward_mode)

    def render(self, render_mode: str | None) -> str | None:
        if render_mode is None:
            warn("render() was called without a render_mode; make the env with render_mode='ansi'")
            return None
        return render_text(self.game.public_view())


class _Spaces:
    """What both environments answer the same way, from their :class:`_Table`."""

    _t: _Table
    render_mode: str | None

    @property
    def game(self) -> Game:
        """The running game (for tools and tests; agents must use their observations)."""
        return self._t.game

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._t.obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._t.act_spaces[agent]

    def render(self) -> str | None:
        """The public view as text (``render_mode="ansi"``); hidden cards stay hidden (R23)."""
        return self._t.render(self.render_mode)

    def close(self) -> None:
        """Nothing to release."""


class CatsackAEC(_Spaces, AECEnv):  # type: ignore[misc]
    """The AEC environment: one agent acts at a time, the seat the rules put to move (R10, R12)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": _NAME, "is_parallelizable": False}  # noqa: RUF012

    def __init__(
        self,
        seats: int = 4,
        reward: str = "margin",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_penalty: float = 1.0,
    ) -> None:
        super().__init__()
        self._t = _Table(seats, reward, render_mode, max_cycles, illegal_penalty)
        self.render_mode = render_mode
        self.possible_agents = self._t.names[:]
        self._moves_made = [0] * self._t.n
        self._reset_dicts()

    def _reset_dicts(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._moves_made = [0] * self._t.n
        to_move = self._t.game.to_move
        self.agent_selection = self.possible_agents[0 if to_move is None else to_move]
        self._skip_agent_selection = None
        # True while step may take its short path (see step): no max_cycles, nothing to clear.
        self._quiet = self._t.max_cycles is None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (R4–R9); ``seed`` fixes the deal. ``options`` are accepted and ignored."""
        self._t.deal(seed)
        self._reset_dicts()

    def observe(self, agent: str) -> Obs:
        return self._t.observe(self._t.seat_of[agent])

    def last(self, observe: bool = True) -> tuple[Obs | None, float, bool, bool, dict[str, Any]]:
        """Observation, cumulative reward, terminated, truncated and info of the agent to act."""
        agent = self.agent_selection
        return (
            self._t.observe(self._t.seat_of[agent]) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def action_masks(self) -> np.ndarray[Any, Any]:
        """The legal-action mask of the agent to act (all 0 for a dead agent)."""
        return self._t.observe(self._t.seat_of[self.agent_selection])["action_mask"].copy()

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        t = self._t
        g = t.game
        if self._quiet:
            # The usual step: a legal move mid-game, no rewards pending, no agent dead or truncated.
            move, info = t.resolve(action)
            if info is None:
                self._cumulative_rewards[agent] = 0.0
                self.infos[agent] = {}
                t.play(move)
                if (mover := g.to_move) is not None:
                    self.agent_selection = t.names[mover]
                    return
                self._finish_step(agent)
                return
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = t.seat_of[agent]
        move, info = t.resolve(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.infos[agent] = info or {}
        if info:
            self.rewards[agent] -= t.penalty
        t.play(move)
        self._moves_made[seat] += 1
        if t.max_cycles is not None:
            if self._moves_made[seat] >= t.max_cycles:
                self.truncations[agent] = True
            # While an agent is still live, the game goes on: truncated seats play the fallback.
            live = [a for a in self.agents if not self.truncations[a]]
            while live and not g.is_over and t.names[g.to_move] not in live:  # type: ignore[index]
                t.play(t.fallback_move())
        self._finish_step(agent)

    def _finish_step(self, agent: str) -> None:
        t = self._t
        g = t.game
        if g.is_over:
            final = t.final()
            for a in self.agents:
                self.rewards[a] += final[t.seat_of[a]]
                if not self.truncations[a]:
                    self.terminations[a] = True
        else:
            mover = t.names[g.to_move]  # type: ignore[index]
            if mover in self.terminations:
                self.agent_selection = mover
        self._accumulate_rewards()
        self._deads_step_first()
        # Quiet again only if this step left no rewards to clear and nobody dead or truncated.
        self._quiet = (
            t.max_cycles is None
            and not any(self.rewards.values())
            and not any(self.terminations.values())
            and not any(self.truncations.values())
        )


class CatsackParallel(_Spaces, ParallelEnv):  # type: ignore[misc]
    """All live agents submit an action each step; they are played in turn order, each at most once.

    A step plays the seat to move, then the next seat to move, and so on,
    until the seat to move has already acted in this step (or the game is
    over). An agent's action is used only if its turn comes; an action made
    illegal by the moves before it in the same step is replaced as in the
    AEC env. For learning, prefer the AEC env: it shows each move's result.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "name": _NAME}  # noqa: RUF012

    def __init__(
        self,
        seats: int = 4,
        reward: str = "margin",
        render_mode: str | None = None,
        max_cycles: int | None = None,
        illegal_penalty: float = 1.0,
    ) -> None:
        self._t = _Table(seats, reward, render_mode, max_cycles, illegal_penalty)
        self.render_mode = render_mode
        self.possible_agents = self._t.names[:]
        self.agents: list[str] = []
        self._cycles = 0

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Obs], dict[str, dict[str, Any]]]:
        self._t.deal(seed)
        self.agents = self.possible_agents[:]
        self._cycles = 0
        return {a: self._t.observe(i) for i, a in enumerate(self.agents)}, {a: {} for a in self.agents}

    def step(
        self, actions: dict[str, Any]
    ) -> tuple[dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]:
        t = self._t
        if not self.agents:
            raise ValueError("the episode is over: call reset() before step()")
        g = t.game
        rewards = dict.fromkeys(self.agents, 0.0)
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        acted: set[str] = set()
        while not g.is_over:
            agent = t.names[g.to_move]  # type: ignore[index]
            if agent in acted:
                break
            if agent not in actions:
                raise ActionError(f"{agent} is to move but has no action in {sorted(actions)}")
            move, info = t.resolve(actions[agent])
            if info:
                rewards[agent] -= t.penalty
                infos[agent] = info
            t.play(move)
            acted.add(agent)
        self._cycles += 1
        over = g.is_over
        if over:
            for a, r in zip(self.agents, t.final(), strict=True):
                rewards[a] += r
        truncated = not over and t.max_cycles is not None and self._cycles >= t.max_cycles
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncated)
        observations = {a: t.observe(t.seat_of[a]) for a in self.agents}
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos


def raw_env(
    seats: int = 4,
    reward: str = "margin",
    render_mode: str | None = None,
    max_cycles: int | None = None,
    illegal_penalty: float = 1.0,
) -> CatsackAEC:
    """The AEC environment without wrappers (the same as :func:`env`: it checks its own actions)."""
    return CatsackAEC(seats, reward, render_mode, max_cycles, illegal_penalty)


env = raw_env


def parallel_env(
    seats: int = 4,
    reward: str = "margin",
    render_mode: str | None = None,
    max_cycles: int | None = None,
    illegal_penalty: float = 1.0,
) -> CatsackParallel:
    """The parallel environment (see :class:`CatsackParallel` for how turns are played)."""
    return CatsackParallel(seats, reward, render_mode, max_cycles, illegal_penalty)
