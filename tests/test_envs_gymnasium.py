"""The Gymnasium adapter: env_checker, explicit registration, masking, illegal actions, seeding."""

from __future__ import annotations

import warnings

import pytest

gym = pytest.importorskip("gymnasium", reason="gymnasium is in the catsack[rl] extra")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from catsack.bots.base import Bot, BotSpecError  # noqa: E402
from catsack.bots.random_bot import RandomBot  # noqa: E402
from catsack.envs.encoding import ActionError, final_rewards, observation_size  # noqa: E402
from catsack.envs.gymnasium import ENV_ID, FelixEnv, register  # noqa: E402
from catsack.moves import Move  # noqa: E402
from catsack.view import View  # noqa: E402


def _check(env: FelixEnv) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # A class made without gymnasium.make has no spec to try other render modes with.
        warnings.filterwarnings("ignore", message=".*Not able to test alternative render modes")
        check_env(env)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"seats": 3, "learner_seat": None, "reward": "win", "render_mode": "ansi"},
        {"seats": 5, "learner_seat": 4, "opponents": ["random", "heuristic", "random", "heuristic"], "reward": "rank"},
    ],
)
def test_check_env(kwargs: dict[str, object]) -> None:
    _check(FelixEnv(**kwargs))  # type: ignore[arg-type]


def test_register_is_explicit_and_idempotent() -> None:
    assert register() == ENV_ID == "catsack/Felix-v0"
    assert register() == ENV_ID
    env = gym.make(ENV_ID, seats=4, render_mode="ansi")
    obs, _info = env.reset(seed=1)
    assert obs.shape == (observation_size(4),)
    assert isinstance(env.render(), str)
    env.close()


def _play(env: FelixEnv, seed: int) -> tuple[float, dict[str, object]]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = 0.0
    while True:
        mask = info["action_mask"]
        assert isinstance(mask, np.ndarray)
        assert np.array_equal(mask, env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs) and not truncated
        total += reward
        if terminated:
            return total, info


@pytest.mark.parametrize("reward", ["margin", "rank", "win"])
def test_episode_reward_is_the_learners_final_reward(reward: str) -> None:
    env = FelixEnv(seats=4, learner_seat=2, reward=reward)
    total, info = _play(env, seed=3)
    assert env.game.is_over and info["seat"] == 2
    assert total == pytest.approx(final_rewards(env.game.view(2), reward)[2])
    assert not info["action_mask"].any()  # type: ignore[union-attr]
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_same_seed_same_episode_including_bots() -> None:
    a, b = FelixEnv(learner_seat=None), FelixEnv(learner_seat=None)
    _play(a, 21)
    _play(b, 21)
    assert a.seat == b.seat
    assert a.game.moves == b.game.moves and a.game.setup == b.game.setup


def test_illegal_action_plays_the_lowest_legal_one_and_costs_the_penalty() -> None:
    env = FelixEnv(seats=4, learner_seat=0, illegal_penalty=3.0)
    env.reset(seed=5)
    hand = env.game.hand(0)
    plies = env.game.ply
    _obs, reward, _t, _tr, info = env.step(10)  # pass while placing: illegal (R10)
    assert env.game.moves[plies].text == f"place {hand[0].token}"
    assert reward == -3.0
    assert info["illegal_action"] == 10 and info["played"] == f"place {hand[0].token}"


@pytest.mark.parametrize("bad", [-1, 119, "bid 3", None])
def test_non_actions_raise(bad: object) -> None:
    env = FelixEnv()
    env.reset(seed=1)
    with pytest.raises(ActionError, match="not an action"):
        env.step(bad)


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="learner_seat"):
        FelixEnv(seats=3, learner_seat=3)
    with pytest.raises(ValueError, match="3 bots"):
        FelixEnv(seats=4, opponents=["random"])
    with pytest.raises(BotSpecError, match="unknown bot kind"):
        FelixEnv(opponents="nobody")
    with pytest.raises(ValueError, match="reward must be"):
        FelixEnv(reward="points")


class _Recorder(Bot):
    """A bot that checks it is handed its own seat's view (R23) and passes whenever it may."""

    def __init__(self) -> None:
        self.seat = -1
        self.seen = 0

    def reset(self, seat: int, seats: int) -> None:
        self.seat = seat

    def choose(self, view: View) -> Move:
        assert view.seat == self.seat == view.to_move
        self.seen += 1
        return min(view.legal, key=lambda m: (m.kind != 2, m.arg))  # pass if legal, else the first card


def test_bot_objects_are_seated_clockwise_from_the_learner() -> None:
    bots = [_Recorder(), _Recorder(), _Recorder()]
    env = FelixEnv(seats=4, learner_seat=1, opponents=bots)
    _play(env, seed=9)
    assert [b.seat for b in bots] == [2, 3, 0]
    assert all(b.seen >= 9 for b in bots)  # at least one placement per round (R10)


class _ViewRandom(RandomBot):
    """The random bot through ``choose(view)`` (a subclass, so FelixEnv builds its views)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        self.views = 0

    def choose(self, view: View) -> Move:
        self.views += 1
        return super().choose(view)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_random_opponents_without_views_play_as_with_them(seats: int) -> None:
    """FelixEnv hands the random bot its legal moves, phase and high bid only; the games are the same."""
    from catsack.bots.random_bot import RandomBot

    for seed in range(4):
        fast = FelixEnv(seats=seats, opponents=[RandomBot(seed=seed * 10 + k) for k in range(seats - 1)])
        viewing = [_ViewRandom(seed * 10 + k) for k in range(seats - 1)]
        slow = FelixEnv(seats=seats, opponents=viewing)
        for env in (fast, slow):
            env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            legal = np.flatnonzero(fast.action_masks())
            action = int(rng.choice(legal))
            a = fast.step(action)
            b = slow.step(action)
            assert (a[0] == b[0]).all() and a[1:4] == b[1:4]
            done = a[2]
        assert fast.game == slow.game
        assert all(bot.views > 0 for bot in viewing)
