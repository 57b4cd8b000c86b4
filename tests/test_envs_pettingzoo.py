"""The PettingZoo adapter: the official conformance tests, rewards, illegal actions, rendering."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is in the catsack[rl] extra")

import numpy as np
from pettingzoo.test import api_test, max_cycles_test, parallel_api_test, seed_test

from catsack.envs import pettingzoo as pz
from catsack.envs.encoding import NUM_ACTIONS, ActionError, final_rewards


@pytest.fixture(autouse=True)
def _quiet_dict_observation_warnings() -> None:
    # api_test warns that dict observations are not arrays; PettingZoo's own classic games do the same.
    warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
    warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")


@pytest.mark.parametrize(("seats", "reward"), [(3, "win"), (4, "margin"), (5, "rank")])
def test_api_test(seats: int, reward: str) -> None:
    api_test(pz.env(seats=seats, reward=reward, render_mode="ansi"), num_cycles=300)


def test_seed_test() -> None:
    seed_test(lambda: pz.env(seats=4), num_cycles=200)


def test_max_cycles_test() -> None:
    # The test samples unmasked actions; run it several times since the turn order varies (R12).
    for _ in range(5):
        max_cycles_test(pz)


def test_parallel_api_test() -> None:
    parallel_api_test(pz.parallel_env(seats=4), num_cycles=300)


def _play(e: pz.CatsackAEC, seed: int) -> dict[str, float]:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        totals[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    return totals


@pytest.mark.parametrize("reward", ["margin", "rank", "win"])
def test_terminal_rewards_are_the_final_rewards(reward: str) -> None:
    e = pz.env(seats=4, reward=reward)
    totals = _play(e, seed=5)
    expected = final_rewards(e.game.public_view(), reward)
    assert [totals[a] for a in e.possible_agents] == pytest.approx(list(expected))
    assert e.agents == []


def test_same_seed_same_game() -> None:
    a, b = pz.env(), pz.env()
    _play(a, 11)
    _play(b, 11)
    assert a.game.moves == b.game.moves and a.game.setup == b.game.setup


def test_observation_is_the_agents_view_and_mask_only_for_the_mover() -> None:
    e = pz.env(seats=4)
    e.reset(seed=3)
    mover = e.agent_selection
    for agent in e.possible_agents:
        obs = e.observe(agent)
        assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
        assert (obs["action_mask"].sum() > 0) == (agent == mover)
    assert e.action_masks().sum() == 9  # R7: nine cards to choose from


def test_illegal_action_is_replaced_by_the_lowest_legal_one_with_a_penalty() -> None:
    e = pz.env(seats=4, illegal_penalty=2.5)
    e.reset(seed=4)
    agent = e.agent_selection
    seat = int(agent.split("_")[1])
    hand = e.game.hand(seat)
    e.step(NUM_ACTIONS - 1)  # bid 108 while placing: illegal (R10)
    assert e.game.moves[-1].text == f"place {hand[0].token}"
    assert e.rewards[agent] == -2.5
    assert e.infos[agent] == {"illegal_action": 118, "played": f"place {hand[0].token}"}


@pytest.mark.parametrize("bad", [-1, 119, "pass", 2.5])
def test_non_actions_raise(bad: object) -> None:
    e = pz.env()
    e.reset(seed=1)
    with pytest.raises(ActionError, match="not an action"):
        e.step(bad)


def test_bad_options_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="R4"):
        pz.env(seats=6)
    with pytest.raises(ValueError, match="reward must be"):
        pz.env(reward="score")
    with pytest.raises(ValueError, match="render_mode"):
        pz.env(render_mode="human")
    with pytest.raises(ValueError, match="max_cycles"):
        pz.env(max_cycles=0)


def test_max_cycles_caps_every_agents_moves() -> None:
    e = pz.env(seats=4, max_cycles=6)
    e.reset(seed=8)
    moves = dict.fromkeys(e.possible_agents, 0)
    for agent in e.agent_iter():
        obs, _r, terminated, truncated, _i = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        moves[agent] += 1
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))  # highest legal action: bid all-in
    assert set(moves.values()) == {6}
    assert not e.game.is_over


def test_render_ansi_shows_the_public_view_only() -> None:
    e = pz.env(seats=4, render_mode="ansi")
    e.reset(seed=2)
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    text = e.render()
    assert isinstance(text, str) and "as spectator" in text
    assert "hand" not in text and "*" not in text.split("Row:")[1].split("(")[0]
    with pytest.warns(UserWarning, match="render_mode"):
        assert pz.env().render() is None  # no render_mode: a warning, nothing drawn
