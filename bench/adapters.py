"""Moves per second through each research adapter, against the raw engine.

    .venv/bin/python bench/adapters.py [--games 100] [--seats 4] [--seed 1] [--repeat 3] [--batch 1024]

Every line plays whole games with uniformly random legal moves and counts
player moves (plies; OpenSpiel's chance nodes are not counted) per second of
this process's CPU time. Every pass runs all lines once, so a noisy spell on
the shared machine hits them alike; each line reports its best pass. Lines:

- ``engine``: ``Game.legal_moves`` + ``Game.play``, nothing else (the floor).
- ``engine+view``: the same plus the mover's ``View`` each move.
- ``engine+view+encode``: plus ``encode_observation`` and ``action_mask`` of it.
- ``pettingzoo``: the AEC env's ``agent_iter`` / ``last`` / ``step`` loop; the
  agent picks from ``mask.nonzero()[0]``.
- ``pettingzoo-null``: that loop over an AEC env with no game in it (a fixed
  observation, a step that only passes the turn): PettingZoo's own protocol
  and the agent's choice, the floor under any PettingZoo environment.
- ``gymnasium``: ``FelixEnv`` with ``random`` bots in the other seats (their
  moves count too; the random bot gets the legal moves, phase and high bid of
  its view, not a whole view).
- ``openspiel``: ``python_catsack`` states, ``legal_actions`` + ``apply_action``.
- ``openspiel+infostate``: plus the mover's information-state tensor each move.
- ``vector[B]``: ``catsack.envs.vector.VectorGame`` with ``B`` games a step:
  each step reads every game's observation (the mover's) and legal mask, the
  agent draws uniformly from each mask, and the step plays all the moves;
  finished games are re-dealt. It counts moves like the other lines.
- ``gymnasium-vector[B]``: ``FelixVectorEnv`` (``catsack/Felix-v0`` through
  ``gymnasium.make_vec``), ``B`` games, ``random`` bot opponents; the learner draws
  from ``infos["action_mask"]``. Opponents' moves count too, as in ``gymnasium``.
- ``vector[B] rollout``: the same without observations or masks, actions
  from ``VectorGame.random_actions`` (simulation, as for a search bot's playouts).

The last column is each line's time per move over the raw engine's. The
adapters keep observations current with ``catsack.envs.observer.Observer``
(no view per move). Measured on the project's shared 2-core machine
(``--games 60 --repeat 5``, 4 seats, 2026-11-21; the batched lines move by
about ±0.5x from day to day):

    line                    moves/s   x engine
    engine                  1787807        1.0
    engine+view              126307       14.2
    engine+view+encode        47018       38.0
    pettingzoo               175199       10.2
    pettingzoo-null          512456        3.5
    gymnasium                213460        8.4
    openspiel                185431        9.6
    openspiel+infostate       35853       49.9
    vector[1024]             679470        2.6
    gymnasium-vector[1024]   695531        2.6
    vector[1024] rollout    2472572        0.7

Since the observer reads the game through its public queries only (``Game.move_at``,
``face_up``, ``mouse_card_mice``, ...; 2026-11-28), the ``pettingzoo`` and ``gymnasium``
lines are about 10% slower (``--games 30 --repeat 3``, old and new tree one after the other on
the loaded machine: 175,114 against 156,308 and 205,089 against 189,550 moves/s).

The issue's target, adapter overhead at most 3x the raw engine, is met by
the batched lines (from about 256 games a step) and not by the
one-game-at-a-time adapters, whose own protocols already cost about 3x
(``pettingzoo-null``): see docs/envs.md, "Speed".
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

from catsack.envs.encoding import action_mask, encode_observation
from catsack.game import Game


def engine(games: int, seats: int, seed: int) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        g = Game.new(seats, rng=rng)
        while not g.is_over:
            ms = g.legal_moves()
            g.play(ms[int(rng.random() * len(ms))])
        plies += g.ply
    return plies


def engine_view(games: int, seats: int, seed: int, encode: bool = False) -> int:
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        g = Game.new(seats, rng=rng)
        while not g.is_over:
            view = g.view(g.to_move)
            if encode:
                encode_observation(view)
                action_mask(view)
            ms = view.legal
            g.play(ms[int(rng.random() * len(ms))])
        plies += g.ply
    return plies


def pettingzoo(games: int, seats: int, seed: int) -> int:
    from catsack.envs.pettingzoo import env

    e = env(seats=seats)
    return _aec_games(e, games, seed, lambda: e.game.ply)


def _aec_games(e: Any, games: int, seed: int, ply: Callable[[], int]) -> int:
    """Play ``games`` episodes of the AEC env ``e`` with a random agent; the plies played."""
    rng = random.Random(seed)
    plies = 0
    for k in range(games):
        e.reset(seed=seed * 100_003 + k)
        for _agent in e.agent_iter():
            obs, _reward, terminated, truncated, _info = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = obs["action_mask"].nonzero()[0]
            e.step(int(legal[int(rng.random() * len(legal))]))
        plies += ply()
    return plies


def pettingzoo_null(games: int, seats: int, seed: int) -> int:
    """The same agent loop over an AEC env with no game at all: the floor of any PettingZoo env."""
    import numpy as np
    from pettingzoo import AECEnv  # type: ignore[import-untyped,import-not-found,unused-ignore]

    from catsack.envs.encoding import NUM_ACTIONS, observation_size

    plies_per_game = 22 * seats  # about a random game's length

    class Null(AECEnv):  # type: ignore[misc]
        metadata = {"name": "null_v0"}  # noqa: RUF012

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = [f"player_{i}" for i in range(seats)]
            mask = np.ones(NUM_ACTIONS, np.int8)
            mask.flags.writeable = False
            self._obs = {"observation": np.zeros(observation_size(seats), np.float32), "action_mask": mask}

        def reset(self, seed: int | None = None, options: object = None) -> None:
            self.agents = self.possible_agents[:]
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]
            self.ply = 0

        def observe(self, agent: str) -> dict[str, object]:
            return {"observation": self._obs["observation"].copy(), "action_mask": self._obs["action_mask"]}

        def step(self, action: object) -> None:
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self._cumulative_rewards[agent] = 0.0
            self.infos[agent] = {}
            self.ply += 1
            if self.ply >= plies_per_game:
                for a in self.agents:
                    self.terminations[a] = True
            self.agent_selection = self.possible_agents[self.ply % seats]
            self._deads_step_first()

    e = Null()
    return _aec_games(e, games, seed, lambda: e.ply)


def gymnasium(games: int, seats: int, seed: int) -> int:
    from catsack.envs.gymnasium import FelixEnv

    env = FelixEnv(seats=seats, opponents="random")
    rng = random.Random(seed)
    plies = 0
    for k in range(games):
        _obs, info = env.reset(seed=seed * 100_003 + k)
        terminated = False
        while not terminated:
            legal = info["action_mask"].nonzero()[0]
            _obs, _r, terminated, _t, info = env.step(int(legal[int(rng.random() * len(legal))]))
        plies += env.game.ply
    return plies


def openspiel(games: int, seats: int, seed: int, infostate: bool = False) -> int:
    import pyspiel

    from catsack.envs.openspiel import register

    register()
    game = pyspiel.load_game("python_catsack", {"players": seats})
    rng = random.Random(seed)
    plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        while not state.is_terminal():
            if infostate:
                state.information_state_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])
            plies += 1
    return plies


def _from_masks(rng: Any, mask: Any) -> Any:
    """A uniformly random legal action per row of ``mask`` (the k-th legal one, k uniform)."""
    import numpy as np

    k = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int16)
    return np.argmax(np.cumsum(mask, axis=1, dtype=np.int16) > k[:, None], axis=1)


def vector(games: int, seats: int, seed: int, batch: int = 1024, observe: bool = True) -> int:
    """``VectorGame``: ``batch`` games a step, re-dealt as they end, until ``max(games, batch)`` have ended.

    With ``observe`` every step reads each game's observation and mask and the
    agent draws uniformly from the mask (as the PettingZoo agent does); without
    it, ``random_actions`` draws from the legal sets directly (a rollout).
    """
    import numpy as np

    from catsack.envs.vector import VectorGame

    vg = VectorGame(batch, seats, seed=seed)
    rng = np.random.default_rng(seed)
    plies = finished = 0
    while finished < max(games, batch):
        live = vg.num_games - int(vg.terminated.sum())
        if observe:
            vg.observe()
            actions = _from_masks(rng, vg.legal_action_mask())
        else:
            actions = vg.random_actions(rng)
        ended = vg.step(actions)
        plies += live
        finished += int(ended.sum())
        vg.reset(ended)
    return plies


def gymnasium_vector(games: int, seats: int, seed: int, batch: int = 1024) -> int:
    """``FelixVectorEnv`` (``batch`` games, random opponents) until ``max(games, batch)`` episodes ended."""
    import numpy as np

    from catsack.envs.gymnasium_vector import FelixVectorEnv

    envs = FelixVectorEnv(batch, seats=seats)
    _obs, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finished = 0
    while finished < max(games, batch):
        actions = _from_masks(rng, infos["action_mask"])
        _obs, _r, terminated, _tr, infos = envs.step(actions)
        finished += int(terminated.sum())
    return envs.games.total_moves


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--seats", type=int, default=4, choices=(3, 4, 5))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs per line (shared machines are noisy)")
    ap.add_argument("--batch", type=int, default=1024, help="games per VectorGame step (the vector lines)")
    args = ap.parse_args()
    lines: list[tuple[str, Callable[[int, int, int], int]]] = [
        ("engine", engine),
        ("engine+view", engine_view),
        ("engine+view+encode", lambda g, s, r: engine_view(g, s, r, encode=True)),
        ("pettingzoo", pettingzoo),
        ("pettingzoo-null", pettingzoo_null),
        ("gymnasium", gymnasium),
        ("openspiel", openspiel),
        ("openspiel+infostate", lambda g, s, r: openspiel(g, s, r, infostate=True)),
        (f"vector[{args.batch}]", lambda g, s, r: vector(g, s, r, args.batch)),
        (f"gymnasium-vector[{args.batch}]", lambda g, s, r: gymnasium_vector(g, s, r, args.batch)),
        (f"vector[{args.batch}] rollout", lambda g, s, r: vector(g, s, r, args.batch, observe=False)),
    ]
    print(f"{args.games} games, {args.seats} seats, seed {args.seed}, best of {args.repeat} (lines interleaved)")
    best: dict[str, float] = {}
    skipped: dict[str, str] = {}
    for _ in range(max(1, args.repeat)):  # one run of every line per pass: a noisy spell hits all lines alike
        for name, run in lines:
            if name in skipped:
                continue
            try:
                t0 = time.process_time()  # CPU time: the 2-core machines are shared, wall time is noisy
                plies = run(args.games, args.seats, args.seed)
                rate = plies / (time.process_time() - t0)
            except ImportError as exc:
                skipped[name] = str(exc)
                continue
            best[name] = max(best.get(name, 0.0), rate)
    print(f"{'line':<22}{'moves/s':>9}{'x engine':>11}")
    base = best.get("engine")
    for name, _run in lines:
        if name in skipped:
            print(f"{name:<22}  skipped: {skipped[name]}")
            continue
        rate = best[name]
        print(f"{name:<22}{rate:>9.0f}{(base or rate) / rate:>11.1f}")


if __name__ == "__main__":
    main()
