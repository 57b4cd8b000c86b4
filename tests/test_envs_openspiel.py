"""The OpenSpiel game python_catsack, its resampler, and OpenSpiel's ISMCTS playing it."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is in the catsack[openspiel] extra")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from catsack.bots.base import BotSpecError, make_bot  # noqa: E402
from catsack.envs.encoding import observation_size, rounds_size  # noqa: E402
from catsack.envs.openspiel import GAME_NAME, register, state_from_game  # noqa: E402
from catsack.envs.openspiel_bot import OpenSpielISMCTSBot, parse_settings  # noqa: E402
from catsack.game import Game  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _registered() -> None:
    assert register() == GAME_NAME == "python_catsack"
    assert register() == GAME_NAME  # idempotent


def _load(players: int) -> object:
    return pyspiel.load_game(GAME_NAME, {"players": players})


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_sim_test_with_serialization(players: int) -> None:
    pyspiel.random_sim_test(_load(players), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_game_facts_come_from_the_parameter(players: int) -> None:
    game = _load(players)
    assert game.num_players() == players
    assert game.num_distinct_actions() == 119
    assert game.observation_tensor_shape() == [observation_size(players)]
    assert game.information_state_tensor_shape() == [observation_size(players) + rounds_size(players)]


def test_default_and_bad_players() -> None:
    assert pyspiel.load_game(GAME_NAME).num_players() == 4
    with pytest.raises(Exception, match="players must be 3, 4 or 5"):
        pyspiel.load_game(GAME_NAME, {"players": 6})


def test_chance_nodes_deal_the_setup_r7_r9() -> None:
    game = _load(3)
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == [0, 1, 2]  # R9: start player
    state.apply_action(1)
    for card in (4, 8, 0):  # R7: one removed card per seat
        assert len(state.chance_outcomes()) == 10
        state.apply_action(card)
    for k in range(9):  # R8: the dummy deck, drawn without replacement
        assert len(state.chance_outcomes()) == 10 - k
        assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
        state.apply_action(state.chance_outcomes()[-1][0])
    assert not state.is_chance_node()
    g = state.game
    assert g is not None and g.start_player == 1
    assert [int(g.removed(s)) for s in range(3)] == [4, 8, 0]
    assert [int(c) for c in g.setup.dummy] == [9, 8, 7, 6, 5, 4, 3, 2, 1]
    assert state.current_player() == 1


def _random_states(players: int, seed: int) -> list[object]:
    """States along one random game, chance nodes included."""
    game = _load(players)
    rng = random.Random(seed)
    state = game.new_initial_state()
    out = []
    while not state.is_terminal():
        out.append(state.clone())
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            actions = state.legal_actions()
        state.apply_action(rng.choice(actions))
    return out


@pytest.mark.parametrize("players", [3, 4, 5])
def test_resample_keeps_the_information_state_and_player(players: int) -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    states = _random_states(players, seed=players)
    for state in states[:: max(1, len(states) // 25)]:
        for p in range(players):
            other = state.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_string(p) == state.observation_string(p)
            assert np.array_equal(other.information_state_tensor(p), state.information_state_tensor(p))
            assert other.current_player() == state.current_player()
            assert len(other.history()) == len(state.history())
            changed += str(other) != str(state)
    assert changed > 0  # the hidden cards really are dealt afresh


def test_information_state_strings_hide_other_seats_cards() -> None:
    """R23: two worlds that differ only in what seat 0 cannot see give seat 0 the same strings."""
    g = Game.from_setup(4, 0, ["+3", "LD", "-8", "R"])
    h = Game.from_setup(4, 0, ["+3", "+15", "+11", "SD"])
    for game in (g, h):
        game.play("place +11")
        game.play("place -5")
    game_os = _load(4)
    a, b = state_from_game(game_os, g), state_from_game(game_os, h)
    assert a.information_state_string(0) == b.information_state_string(0)
    assert a.observation_string(0) == b.observation_string(0)
    assert a.information_state_string(1) != b.information_state_string(1)


def test_returns_are_score_margins_r21() -> None:
    states = _random_states(4, seed=7)
    last = states[-1]
    actions = last.legal_actions()
    last.apply_action(actions[0])
    while not last.is_terminal():
        last.apply_action(last.legal_actions()[0])
    g = last.game
    mean = sum(g.scores()) / 4
    assert last.returns() == pytest.approx([s - mean for s in g.scores()])


def test_openspiel_ismcts_plays_complete_games() -> None:
    game = _load(3)
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 20.0, 4, random_state=rs)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(actions, p=probs)))
        else:
            action = int(bot.step(state))  # every seat: ISMCTS, with OpenSpiel's own resampler
            assert action in state.legal_actions()
            searched += 1
            state.apply_action(action)
    assert searched >= 27 and sum(state.returns()) == pytest.approx(0.0)


def test_openspiel_ismcts_bot_seats_in_a_catsack_game() -> None:
    bots = [make_bot("openspiel-ismcts:6", seed=1), make_bot("random", seed=2), make_bot("random", seed=3)]
    assert isinstance(bots[0], OpenSpielISMCTSBot) and bots[0].name == "openspiel-ismcts:6"
    g = Game.new(3, seed=4)
    for seat, b in enumerate(bots):
        b.reset(seat, 3)
    while not g.is_over:
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        move = bots[seat].choose(view)
        assert move in view.legal
        g.play(move)
    assert g.is_over


def test_openspiel_ismcts_bot_is_repeatable_with_a_seed() -> None:
    g = Game.new(4, seed=12)
    for _ in range(4):
        g.play(g.legal_moves()[0])
    view = g.view(g.to_move)  # type: ignore[arg-type]
    picks = {OpenSpielISMCTSBot("8", seed=5).choose(view) for _ in range(2)}
    assert len(picks) == 1


def test_bot_spec_arguments() -> None:
    assert parse_settings(None) == {"sims": 100, "rollouts": 1, "uct": 20.0}
    assert parse_settings("400")["sims"] == 400
    assert parse_settings("sims=50,rollouts=2,uct=5.5") == {"sims": 50, "rollouts": 2, "uct": 5.5}
    for bad in ("fast", "sims=0", "sims=x", "depth=3"):
        with pytest.raises(BotSpecError, match="openspiel-ismcts"):
            make_bot(f"openspiel-ismcts:{bad}")
