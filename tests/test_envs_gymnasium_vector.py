"""FelixVectorEnv: the batched Gymnasium env, checked game by game against the core engine."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from catsack.envs.encoding import (
    NUM_ACTIONS,
    PASS_ACTION,
    ActionError,
    action_to_move,
    encode_observation,
    game_rewards,
)
from catsack.envs.gymnasium import register
from catsack.envs.gymnasium_vector import FelixVectorEnv


def _random_masked(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    k = (rng.random(len(mask)) * mask.sum(axis=1)).astype(np.int64)
    return np.argmax(np.cumsum(mask, axis=1) > k[:, None], axis=1)


@pytest.mark.parametrize(("seats", "learner", "reward"), [(3, 2, "rank"), (4, 0, "margin"), (5, None, "win")])
@pytest.mark.slow
def test_matches_the_core_game_by_game(seats: int, learner: int | None, reward: str) -> None:
    envs = FelixVectorEnv(12, seats=seats, learner_seat=learner, reward=reward)
    obs, infos = envs.reset(seed=seats)
    rng = np.random.default_rng(seats)
    assert envs.observation_space.contains(obs)
    episodes = 0
    for _ in range(160):
        vg = envs.games
        for i in range(envs.num_envs):
            g = vg.to_game(i)
            seat = int(infos["seat"][i])
            assert (obs[i] == encode_observation(g.view(seat))).all()
            if g.is_over:
                assert not infos["action_mask"][i].any()
            else:
                assert g.to_move == seat  # the opponents have moved up to the learner's turn
                assert sorted(np.flatnonzero(infos["action_mask"][i]).tolist()) == sorted(
                    a for a in range(NUM_ACTIONS) if g.is_legal(_text(a))
                )
        ended_before = vg.terminated.copy()
        actions = _random_masked(rng, infos["action_mask"].astype(bool))
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert not truncated.any()
        vg = envs.games
        for i in np.flatnonzero(terminated):
            g = vg.to_game(int(i))
            assert rewards[i] == pytest.approx(game_rewards(g, reward)[int(infos["seat"][i])])
            episodes += 1
        assert (rewards[~terminated] == 0).all()
        # NEXT_STEP autoreset: games that had ended are new ones now, not over, a few moves in at most.
        assert not terminated[ended_before].any()
        assert (vg.round[ended_before] == 1).all()
    assert episodes >= envs.num_envs


def _text(action: int) -> str:
    return action_to_move(action).text


def test_seeded_runs_repeat() -> None:
    def run() -> list[np.ndarray]:
        envs = FelixVectorEnv(8, seats=4, learner_seat=None)
        obs, infos = envs.reset(seed=11)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(60):
            obs, r, _t, _tr, infos = envs.step(_random_masked(rng, infos["action_mask"].astype(bool)))
            out += [obs, r, infos["seat"]]
        return out

    a, b = run(), run()
    assert all((x == y).all() for x, y in zip(a, b, strict=True))


def test_illegal_actions_and_non_actions() -> None:
    envs = FelixVectorEnv(4, seats=4, illegal_penalty=2.5)
    _obs, infos = envs.reset(seed=1)
    mask = infos["action_mask"].astype(bool)
    actions = np.argmax(mask, axis=1)
    actions[1] = PASS_ACTION  # not legal while placing (R10)
    before = envs.games.to_game(1)
    lowest = int(np.argmax(mask[1]))
    _obs, rewards, _t, _tr, infos = envs.step(actions)
    assert infos["_illegal_action"].tolist() == [False, True, False, False]
    assert infos["illegal_action"][1] == PASS_ACTION
    assert rewards[1] == -2.5 and rewards[0] == 0.0
    after = envs.games.to_game(1)
    assert after.moves[before.ply].text == _text(lowest)
    with pytest.raises(ActionError, match="not an action: 119 for game 2"):
        envs.step(np.array([0, 0, NUM_ACTIONS, 0]))
    with pytest.raises(ActionError, match="4 integers"):
        envs.step(np.zeros(3, np.int64))


def test_make_vec_and_bad_arguments() -> None:
    envs = gym.make_vec(register(), num_envs=5, vectorization_mode="vector_entry_point", seats=3, reward="win")
    assert isinstance(envs.unwrapped, FelixVectorEnv)
    obs, _infos = envs.reset(seed=0)
    assert obs.shape == (5, envs.single_observation_space.shape[0])
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    envs.close()
    for kwargs, message in [
        ({"num_envs": 0}, "num_envs"),
        ({"seats": 6}, "seats must be 3, 4 or 5"),
        ({"learner_seat": 4}, "learner_seat"),
        ({"opponents": "greedy"}, "random' opponents only"),
        ({"reward": "score"}, "reward must be one of"),
        ({"render_mode": "ansi"}, "no render modes"),
        ({"illegal_penalty": float("nan")}, "illegal_penalty"),
    ]:
        with pytest.raises(ValueError, match=message):
            FelixVectorEnv(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="reset"):
        FelixVectorEnv(2).step(np.zeros(2, np.int64))
