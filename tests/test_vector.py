"""The batched engine against the core: every ply of many games, every seat's observation."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack.envs.encoding import (
    NUM_ACTIONS,
    PASS_ACTION,
    REWARD_MODES,
    action_to_move,
    encode_observation,
    game_rewards,
    legal_mask_of,
    move_to_action,
    seat_legal,
)
from catsack.envs.vector import VectorGame
from catsack.game import PHASE_NAMES, Game
from catsack.record import record_from_obj


def _policy(vg: VectorGame, rng: np.random.Generator, pass_rate: float) -> np.ndarray:
    """Random legal actions; a share of auction moves turned into passes (reaches R15's last choice)."""
    a = vg.random_actions(rng)
    mask = vg.legal_action_mask()
    lazy = (rng.random(vg.num_games) < pass_rate) & mask[:, PASS_ACTION]
    return np.where(lazy, PASS_ACTION, a)


def _check(vg: VectorGame, games: list[Game]) -> None:
    n = vg.seats
    mask = vg.legal_action_mask()
    views = [vg.observe(seat) for seat in range(n)]
    to_move = vg.to_move
    for i, g in enumerate(games):
        assert to_move[i] == (-1 if g.is_over else g.to_move)
        assert PHASE_NAMES[vg.phase[i]] == g.phase
        assert vg.round[i] == g.round
        want = legal_mask_of(g.legal_moves()).astype(bool)
        assert (mask[i] == want).all(), (i, vg.record(i))
        for seat in range(n):
            assert (views[seat][i] == encode_observation(g.view(seat))).all(), (i, seat, vg.record(i))
            if not g.is_over:
                assert (legal_mask_of(seat_legal(g, seat)).astype(bool) == (mask[i] & (to_move[i] == seat))).all()
    default = vg.observe()
    for i, g in enumerate(games):
        assert (default[i] == views[0 if g.is_over else g.to_move][i]).all()


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize("pass_rate", [0.0, 0.6])
@pytest.mark.slow
def test_every_ply_matches_the_core(seats: int, pass_rate: float) -> None:
    vg = VectorGame(24, seats, seed=seats * 10 + int(pass_rate * 10))
    games = [Game(vg.setup(i)) for i in range(vg.num_games)]
    rng = np.random.default_rng(seats)
    _check(vg, games)
    last_choice = 0
    while not vg.terminated.all():
        last_choice += int((vg.phase == 2).sum())
        a = _policy(vg, rng, pass_rate)
        was_over = vg.terminated.copy()
        ended = vg.step(a)
        for i, g in enumerate(games):
            if not g.is_over:
                g.play(action_to_move(int(a[i])))
        assert (ended == (vg.terminated & ~was_over)).all()
        _check(vg, games)
    if pass_rate:
        assert last_choice > 0  # R15's last choice was exercised
    for i, g in enumerate(games):
        assert vg.scores()[i].tolist() == list(g.scores())
        assert vg.cat_points()[i].tolist() == list(g.cat_points())
        assert np.flatnonzero(vg.winners()[i]).tolist() == list(g.winners())
        for mode in REWARD_MODES:
            assert vg.rewards(mode)[i].tolist() == pytest.approx(game_rewards(g, mode), abs=1e-12)
        assert vg.to_game(i) == g
        assert record_from_obj(vg.record(i)).to_game() == g


def test_from_setups_and_reset() -> None:
    source = [Game.new(4, seed=k) for k in range(6)]
    vg = VectorGame.from_setups([g.setup for g in source])
    rng = np.random.default_rng(0)
    while not vg.terminated.all():
        vg.step(vg.random_actions(rng))
    assert vg.rewards("margin").sum(axis=1) == pytest.approx(np.zeros(6))
    assert [vg.setup(i) for i in range(6)] == [g.setup for g in source]
    where = np.array([True, False] * 3)
    vg.reset(where)
    assert (vg.terminated == ~where).all()
    assert (vg.ply[where] == 0).all()
    assert (vg.rewards()[where] == 0).all()
    fresh = vg.observe()
    for i in np.flatnonzero(where):
        g = vg.to_game(int(i))
        assert (fresh[i] == encode_observation(g.view(g.to_move))).all()


def test_finished_games_ignore_their_actions() -> None:
    vg = VectorGame(3, 3, seed=5)
    rng = np.random.default_rng(5)
    while not vg.terminated.all():
        a = vg.random_actions(rng)
        a[vg.terminated] = 999  # not even an action: ignored
        vg.step(a)
    before = vg.observe(1).copy()
    assert not vg.step(np.zeros(3, np.int64)).any()
    assert (vg.observe(1) == before).all()
    assert not vg.legal_action_mask().any()


def test_illegal_actions_are_refused_whole() -> None:
    vg = VectorGame(4, 4, seed=2)
    rng = np.random.default_rng(2)
    a = vg.random_actions(rng)
    before = vg.observe(0).copy()
    bad = a.copy()
    bad[2] = PASS_ACTION  # nobody may pass while placing (R10)
    with pytest.raises(ValueError, match=r"game 2: action 10 \('pass'\) is illegal for seat \d in round 1"):
        vg.step(bad)
    bad[2] = NUM_ACTIONS
    with pytest.raises(ValueError, match="game 2: 119 is not an action"):
        vg.step(bad)
    with pytest.raises(ValueError, match="integer array of shape"):
        vg.step(a[:3])
    with pytest.raises(ValueError, match="integer array of shape"):
        vg.step(a.astype(float))
    assert (vg.observe(0) == before).all() and (vg.ply == 0).all()
    vg.step(a)
    assert (vg.ply == 1).all()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_games"):
        VectorGame(0)
    with pytest.raises(ValueError, match="seats must be 3, 4 or 5"):
        VectorGame(2, 6)
    vg = VectorGame(2, 3, seed=1)
    with pytest.raises(ValueError, match=r"seats must lie in 0\.\.2"):
        vg.observe(3)
    with pytest.raises(ValueError, match="reward must be one of"):
        vg.rewards("score")
    with pytest.raises(ValueError, match="boolean array"):
        vg.reset(np.array([1, 0]))
    with pytest.raises(IndexError, match="game index"):
        vg.record(2)


def _replay(games: list[Game]) -> VectorGame:
    """A VectorGame of the same deals and moves (games of equal length)."""
    vg = VectorGame.from_setups([g.setup for g in games])
    for ply in range(games[0].ply):
        vg.step(np.array([move_to_action(g.moves[ply]) for g in games]))
    return vg


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_observations_hide_what_r23_hides(seats: int) -> None:
    """Re-dealing all a seat cannot see (other hands, removed cards, face-down cards) leaves its observation alone."""
    vg = VectorGame(30, seats, seed=seats)
    rng = np.random.default_rng(seats)
    deal = random.Random(seats)
    for _ in range(3 * seats + 2):  # a few rounds in, mid-auction or mid-placement
        vg.step(_policy(vg, rng, 0.3))
        games = [vg.to_game(i) for i in range(vg.num_games)]
        for seat in range(seats):
            others = [g.clone() for g in games]
            for g in others:
                g.redeal(seat, deal)
            assert any(a.setup != b.setup for a, b in zip(games, others, strict=True))  # not vacuous
            assert (_replay(others).observe(seat) == vg.observe(seat)).all()


@pytest.mark.parametrize("module", ["catsack.envs.vector", "catsack.envs.gymnasium_vector"])
def test_module_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


@settings(max_examples=15, deadline=None)
@given(
    seats=st.sampled_from([3, 4, 5]),
    seed=st.integers(0, 2**32 - 1),
    pass_rate=st.floats(0.0, 0.9),
    resets=st.lists(st.integers(0, 200), max_size=4),
)
def test_property_batches_match_the_core(seats: int, seed: int, pass_rate: float, resets: list[int]) -> None:
    """Any mix of policies and mid-game re-deals: each game stays equal to its replay in the core."""
    vg = VectorGame(6, seats, seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(220):
        if step in resets:
            vg.reset(rng.random(6) < 0.5)
        vg.step(_policy(vg, rng, pass_rate), where=rng.random(6) < 0.8)
        if step % 20 == 0 or vg.terminated.all():
            _check(vg, [vg.to_game(i) for i in range(6)])
        if vg.terminated.all():
            break


class _Draws:
    """An rng whose ``random()`` returns given numbers in turn (RandomBot's only use of its rng)."""

    def __init__(self, values: list[float]) -> None:
        self.values = values

    def random(self) -> float:
        return self.values.pop(0)


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.slow
def test_random_bot_actions_are_the_random_bots_moves(seats: int) -> None:
    """With the same draws, ``random_bot_actions`` picks exactly what ``RandomBot.choose`` picks from its view."""
    from catsack.bots.random_bot import RandomBot
    from catsack.moves import BID

    vg = VectorGame(40, seats, seed=seats)
    rng = np.random.default_rng(seats)
    bot = RandomBot(seed=0)
    kinds: set[str] = set()
    while not vg.terminated.all():
        u = rng.random((3, vg.num_games))
        # Now and then force R15's last choice: everybody passes.
        u[:, rng.random(vg.num_games) < 0.25] = 0.0
        u[0] = np.where(u[0] == 0.0, 0.3, u[0])
        actions = vg._random_bot_choice(u)
        for i in np.flatnonzero(~vg.terminated):
            g = vg.to_game(int(i))
            bot.rng = _Draws(u[:, i].tolist())  # type: ignore[assignment]
            want = bot.choose(g.view(g.to_move))
            assert action_to_move(int(actions[i])) == want, (int(i), g.phase, u[:, i], vg.record(int(i)))
            kinds.add(g.phase if want.kind != BID or g.phase != "bidding" else "raise")
        vg.step(actions)
    assert {"placement", "bidding", "raise", "last choice"} <= kinds
    draws = vg.random_bot_actions(np.random.default_rng(1))
    assert draws.shape == (vg.num_games,) and (draws == 0).all()  # all over: 0, as documented
