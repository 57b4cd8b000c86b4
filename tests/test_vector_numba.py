"""The compiled batched engine against the numpy VectorGame, move by move, and its compiled playouts against the core.

``tests/test_vector.py`` checks the numpy engine against the core at every
ply; here the numba engine must hold the very same arrays as the numpy one
after every step (and so the same masks, observations and rewards).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile

import numpy as np
import pytest

# Compiled kernels are cached outside the repository (tests never write into it).
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
numba = pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")
if not numba.config.CACHE_DIR:  # numba was imported earlier without the variable
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

from catsack.envs._vector_kernels import STATE_FIELDS  # noqa: E402
from catsack.envs.encoding import (  # noqa: E402
    NUM_ACTIONS,
    PASS_ACTION,
    REWARD_MODES,
    game_rewards,
    move_to_action,
    observation_size,
)
from catsack.envs.vector import VectorGame  # noqa: E402
from catsack.envs.vector_numba import NumbaVectorGame, max_plies, play_games, play_random  # noqa: E402
from catsack.game import Game  # noqa: E402

# VectorGame's state arrays, all of which must agree after every step (the move log is compared apart).
STATE = [f"_{name}" for name in STATE_FIELDS if name != "log"]


def _same(ng: NumbaVectorGame, vg: VectorGame) -> None:
    for name in STATE:
        a, b = getattr(ng, name), getattr(vg, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert (a == b).all(), (name, np.flatnonzero((a != b).reshape(len(a), -1).any(axis=1))[:5])
    assert (ng._log[:, : vg._log.shape[1]] == vg._log[:, : ng._log.shape[1]]).all()
    assert ng.total_moves == vg.total_moves
    assert (ng.legal_action_mask() == vg.legal_action_mask()).all()
    assert (ng.observe() == vg.observe()).all()  # each game's seat to move (R23)
    for mode in REWARD_MODES:
        assert (ng.rewards(mode) == vg.rewards(mode)).all()


def _policy(vg: VectorGame, rng: np.random.Generator, pass_rate: float) -> np.ndarray:
    """Random legal actions; a share of auction moves turned into passes (reaches R15's last choice)."""
    a = vg.random_actions(rng)
    lazy = (rng.random(vg.num_games) < pass_rate) & vg.legal_action_mask()[:, PASS_ACTION]
    return np.where(lazy, PASS_ACTION, a)


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize("pass_rate", [0.0, 0.6])
@pytest.mark.slow
def test_every_ply_matches_the_numpy_engine(seats: int, pass_rate: float) -> None:
    """Same deals (same seed), same actions: the same state, masks, observations and rewards at every ply."""
    vg = VectorGame(32, seats, seed=seats)
    ng = NumbaVectorGame(32, seats, seed=seats)
    _same(ng, vg)
    rng = np.random.default_rng(seats + int(10 * pass_rate))
    phases: set[int] = set()
    while not vg.terminated.all():
        phases |= set(vg.phase.tolist())
        state = rng.bit_generator.state
        a = _policy(vg, rng, pass_rate)
        rng.bit_generator.state = state  # the numba engine draws the very same actions from the same rng
        assert (_policy(ng, rng, pass_rate) == a).all()
        ended = ng.step(a)
        assert (ended == vg.step(a)).all()
        _same(ng, vg)
        for seat in range(seats):
            assert (ng.observe(seat) == vg.observe(seat)).all()
        mixed = rng.integers(0, seats, ng.num_games)
        assert (ng.observe(mixed) == vg.observe(mixed)).all()
    assert phases == {0, 1, 2, 3} or pass_rate == 0.0  # R15's last choice was reached
    for i in range(ng.num_games):
        assert ng.record(i) == vg.record(i)
        assert ng.to_game(i).scores() == tuple(ng.scores()[i].tolist())


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.slow
def test_partial_steps_and_resets_match(seats: int) -> None:
    """``where`` masks, re-deals mid-game (same generator: same deals) and auto-resets stay in step."""
    vg = VectorGame(16, seats, seed=100 + seats)
    ng = NumbaVectorGame(16, seats, seed=100 + seats)
    rng = np.random.default_rng(seats)
    for step in range(400):
        a = _policy(vg, rng, 0.3)
        where = rng.random(16) < 0.8
        ended = vg.step(a, where=where)
        assert (ng.step(a, where=where) == ended).all()
        if step % 50 == 25:
            redeal = rng.random(16) < 0.3
            vg.reset(redeal)
            ng.reset(redeal)
        vg.reset(ended)
        ng.reset(ended)
        _same(ng, vg)


def test_from_setups_and_long_games() -> None:
    """Deals from records; games long enough to grow the move log (one-mouse raises, R12)."""
    source = [Game.new(4, seed=k) for k in range(5)]
    ng = NumbaVectorGame.from_setups([g.setup for g in source])
    vg = VectorGame.from_setups([g.setup for g in source])
    _same(ng, vg)
    while not vg.terminated.all():
        # The first legal action: the first card in hand, else the lowest bid, else pass.
        mask = vg.legal_action_mask()
        order = np.r_[np.arange(PASS_ACTION), np.arange(PASS_ACTION + 1, NUM_ACTIONS), PASS_ACTION]
        a = order[mask[:, order].argmax(axis=1)]
        ng.step(a)
        vg.step(a)
        _same(ng, vg)
    assert ng.ply.max() > 64  # the log grew past its first size
    for i in range(5):
        assert ng.to_game(i) == vg.to_game(i)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_random_bot_actions_match(seats: int) -> None:
    """Catsack's random bot, batched: the numba kernel picks what the numpy engine picks from the same draws."""
    ng = NumbaVectorGame(40, seats, seed=seats)
    rng = np.random.default_rng(seats)
    kinds: set[str] = set()
    while not ng.terminated.all():
        u = rng.random((3, ng.num_games))
        u[:, rng.random(ng.num_games) < 0.25] = 0.0  # now and then everybody passes: R15's last choice
        u[0] = np.where(u[0] == 0.0, 0.3, u[0])
        actions = ng._random_bot_choice(u)
        assert (actions == VectorGame._random_bot_choice(ng, u)).all()
        for i in np.flatnonzero(~ng.terminated):
            kinds.add(f"{ng.phase[i]}{actions[i] > PASS_ACTION}")
        ng.step(actions)
    assert {"0False", "1False", "1True", "2False", "2True"} <= kinds
    state = np.random.default_rng(7)
    assert (ng.random_bot_actions(state) == 0).all()  # all over: 0, as documented


def test_illegal_actions_are_refused_whole() -> None:
    ng = NumbaVectorGame(4, 4, seed=2)
    vg = VectorGame(4, 4, seed=2)
    a = ng.random_actions(np.random.default_rng(2))
    refusals = [(PASS_ACTION, r"game 2: action 10 \('pass'\) is illegal"), (NUM_ACTIONS, "not an action")]
    for bad_action, pattern in refusals:
        bad = a.copy()
        bad[2] = bad_action
        with pytest.raises(ValueError, match=pattern) as got:
            ng.step(bad)
        with pytest.raises(ValueError) as want:
            vg.step(bad)
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="integer array of shape"):
        ng.step(a[:3])
    with pytest.raises(ValueError, match="integer array of shape"):
        ng.step(a.astype(float))
    with pytest.raises(ValueError, match="boolean array"):
        ng.step(a, where=np.ones(4))
    _same(ng, vg)  # nothing was played
    ng.step(a)
    assert (ng.ply == 1).all()


def test_finished_games_ignore_their_actions() -> None:
    ng = NumbaVectorGame(3, 3, seed=5)
    rng = np.random.default_rng(5)
    while not ng.terminated.all():
        a = ng.random_actions(rng)
        a[ng.terminated] = 999  # not even an action: ignored
        ng.step(a)
    before = ng.observe(1).copy()
    assert not ng.step(np.zeros(3, np.int64)).any()
    assert (ng.observe(1) == before).all()
    assert ng.play_out(seed=1) == 0


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_observations_and_policies_hide_what_r23_hides(seats: int) -> None:
    """Re-dealing what a seat cannot see changes neither its observation nor the built-in policies' moves for it."""
    ng = NumbaVectorGame(30, seats, seed=seats)
    rng = np.random.default_rng(seats)
    deal = random.Random(seats)
    for _ in range(3 * seats + 2):  # a few rounds in
        ng.step(_policy(ng, rng, 0.3))
        games = [ng.to_game(i) for i in range(ng.num_games)]
        to_move = ng.to_move
        for seat in range(seats):
            others = [g.clone() for g in games]
            for g in others:
                g.redeal(seat, deal)
            assert any(a.setup != b.setup for a, b in zip(games, others, strict=True))  # not vacuous
            twin = NumbaVectorGame.from_setups([g.setup for g in others])
            for ply in range(games[0].ply):  # the re-dealt games' moves (others' face-down cards changed)
                twin.step(np.array([move_to_action(g.moves[ply]) for g in others], np.int64))
            assert (twin.observe(seat) == ng.observe(seat)).all()
            mine = to_move == seat
            u = np.random.default_rng(seat).random((3, ng.num_games))
            assert (twin._random_bot_choice(u)[mine] == ng._random_bot_choice(u)[mine]).all()
            draw = np.random.default_rng(seat)
            assert (twin.random_actions(draw)[mine] == ng.random_actions(np.random.default_rng(seat))[mine]).all()


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_play_out_finishes_games_as_the_numpy_engine_would(seats: int) -> None:
    """In-kernel playouts from mid-game: legal moves only; replayed in numpy and in the core, the same games."""
    ng = NumbaVectorGame(24, seats, seed=seats)
    rng = np.random.default_rng(seats)
    for _ in range(2 * seats + 3):
        ng.step(ng.random_actions(rng))
    where = np.arange(24) % 4 != 3
    played = ng.play_out(seed=seats, policies=["uniform", "random", *["random"] * (seats - 2)], where=where)
    assert played > 0 and (ng.terminated == where).all()
    ng.play_out(seed=seats + 1, policies="random")
    assert ng.terminated.all()
    vg = VectorGame.from_setups([ng.setup(i) for i in range(24)])
    while not vg.terminated.all():
        vg.step(np.array([ng._log[i, vg._ply[i]] if not vg.terminated[i] else 0 for i in range(24)]))
    _same(ng, vg)
    for i in range(0, 24, 5):
        g = ng.to_game(i)
        assert g.scores() == tuple(ng.scores()[i].tolist())
        for mode in REWARD_MODES:
            assert ng.rewards(mode)[i].tolist() == pytest.approx(game_rewards(g, mode), abs=1e-12)
    again = NumbaVectorGame(24, seats, seed=seats)
    rng = np.random.default_rng(seats)
    for _ in range(2 * seats + 3):
        again.step(again.random_actions(rng))
    again.play_out(seed=seats, policies=["uniform", "random", *["random"] * (seats - 2)], where=where)
    again.play_out(seed=seats + 1, policies="random")
    assert (again._log == ng._log).all()  # seeded: the same playouts


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_play_random_games_replay_in_the_core(seats: int) -> None:
    """The fully compiled loop: kept games replay in the core engine to the same scores, cat sums and rewards."""
    result = play_random(300, seats, seed=seats, keep=40, policies=["random", *["uniform"] * (seats - 1)])
    assert result.scores.shape == (300, seats) and (result.plies > 9 * seats).all()
    for g in range(40):
        game = result.to_game(g)
        assert game.is_over and game.ply == result.plies[g]
        assert game.scores() == tuple(result.scores[g].tolist())
        assert game.cat_points() == tuple(result.cat_points[g].tolist())
        assert np.flatnonzero(result.winners()[g]).tolist() == list(game.winners())
        for mode in REWARD_MODES:
            assert result.rewards(mode)[g].tolist() == pytest.approx(game_rewards(game, mode), abs=1e-12)
    same = play_random(300, seats, seed=seats, policies=["random", *["uniform"] * (seats - 1)])
    assert (same.scores == result.scores).all()
    assert (play_random(300, seats, seed=seats + 1).scores != result.scores).any()


def test_play_random_deals_are_uniform() -> None:
    """R7, R9: every removed card and every start seat come up about equally often; R8: the dummy decks differ."""
    result = play_random(2000, 3, seed=11, keep=2000)
    removed = result.kept[:, 1:4].ravel()
    assert np.bincount(removed, minlength=10).min() > 0.75 * len(removed) / 10
    assert np.bincount(result.kept[:, 0], minlength=3).min() > 0.9 * 2000 / 3
    dummies = {tuple(row) for row in result.kept[:, 4:13].tolist()}
    assert len(dummies) > 1990
    assert result.kept.shape[1] == 1 + 3 + 9 + max_plies(3)
    wins = result.rewards("win").sum(axis=0) / 2000
    assert wins.sum() == pytest.approx(1.0) and wins.min() > 0.25  # no seat is favoured much by the random policy


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="policies must be one of uniform, random"):
        play_random(1, 4, policies="greedy")
    with pytest.raises(ValueError, match=r"a list of one per seat \(4\)"):
        play_random(1, 4, policies=["random"] * 3)
    with pytest.raises(ValueError, match="keep must be"):
        play_random(2, 4, keep=3)
    with pytest.raises(ValueError, match="num_games"):
        play_random(-1)
    with pytest.raises(ValueError, match="seats must be 3, 4 or 5"):
        NumbaVectorGame(2, 6)
    with pytest.raises(ValueError, match=r"seats must lie in 0\.\.2"):
        NumbaVectorGame(2, 3, seed=1).observe(3)
    with pytest.raises(ValueError, match="seed must be"):
        NumbaVectorGame(2, 4).play_out(seed=-1)
    with pytest.raises(IndexError, match="only the first 0 games were kept"):
        play_random(1, 4, seed=1).setup(0)
    assert play_random(0, 4, seed=1).scores.shape == (0, 4)


def test_module_example_and_lazy_import() -> None:
    import doctest

    import catsack.envs.vector_numba as module

    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
    code = (
        "import sys; import catsack.envs.vector_numba as m; assert 'numba' not in sys.modules; "
        "sys.modules['numba'] = None\n"
        "try:\n    m.NumbaVectorGame(2)\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'catsack[fast]'" in out


@pytest.mark.parametrize("seats", [3, 5])
def test_play_games_with_python_policies(seats: int) -> None:
    """Callables get only their seat's games, observations and masks; the games replay in the core."""
    calls = []

    def first_legal(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        assert obs.shape == (len(mask), observation_size(seats)) and mask.any(axis=1).all()
        assert (obs[:, observation_size(seats) - 4 - seats] == 1.0).all()  # "to move": relative seat 0, the viewer
        calls.append(len(mask))
        return mask.argmax(axis=1)

    policies = [first_legal, "random", *["uniform"] * (seats - 2)]
    result = play_games(50, seats, policies, batch=16, seed=seats, keep=10)
    assert result.scores.shape == (50, seats) and sum(calls) > 50 * 9
    for g in range(10):
        game = result.to_game(g)
        assert game.is_over and game.scores() == tuple(result.scores[g].tolist())
        assert game.cat_points() == tuple(result.cat_points[g].tolist())
        replay = Game(result.setup(g))
        for move in game.moves:  # seat 0 always took its first legal action
            if replay.to_move == 0:
                assert move_to_action(move) == min(move_to_action(m) for m in replay.legal_moves())
            replay.play(move)
    again = play_games(50, seats, policies, batch=16, seed=seats)
    assert (again.scores == result.scores).all()  # seeded
    with pytest.raises(ValueError, match="illegal for seat 0"):
        play_games(5, seats, [lambda obs, mask: np.full(len(mask), PASS_ACTION), *["uniform"] * (seats - 1)])
    with pytest.raises(ValueError, match="must return"):
        play_games(5, seats, [lambda obs, mask: [0.5] * len(mask), *["uniform"] * (seats - 1)])
    with pytest.raises(ValueError, match="one policy per seat"):
        play_games(5, seats, ["uniform"])


def test_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    """The example of docs/envs.md, "Compiled engine" (fenced ``py`` so the numba-free doc tests leave it alone)."""
    import re

    from repository import repository_file

    text = repository_file("docs/envs.md").read_text(encoding="utf-8")
    section = text.split("### Compiled engine (numba)", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"```py\n(.*?)```", section, flags=re.S)
    assert len(examples) == 1
    exec(compile(examples[0], "docs/envs.md compiled engine example", "exec"), {"__name__": "__docs__"})
    out = capsys.readouterr().out
    assert "win share by seat" in out and "rolled out: True" in out and "wins" in out


@pytest.mark.parametrize("seats", [3, 4])
def test_from_games_loads_core_positions(seats: int) -> None:
    """Core games of different lengths load as they stand (state, observations, R23) and roll out from there."""
    from catsack.belief import sample_game
    from catsack.envs.encoding import encode_observation

    rng = random.Random(seats)
    games = []
    for k in range(12):
        g = Game.new(seats, seed=k)
        for _ in range(rng.randrange(0, 60)):
            g.play(g.legal_moves()[rng.randrange(len(g.legal_moves()))])
        games.append(g)
    ng = NumbaVectorGame.from_games(games)
    for i, g in enumerate(games):
        assert ng.to_game(i) == g
        for seat in range(seats):
            assert (ng.observe(seat)[i] == encode_observation(g.view(seat))).all()
    view = games[-1].view(games[-1].to_move)
    worlds = [sample_game(view, random.Random(k)) for k in range(8)]  # what that seat cannot see, sampled
    rollouts = NumbaVectorGame.from_games(worlds)
    assert (rollouts.observe(view.seat) == encode_observation(view)).all()
    rollouts.play_out(seed=1, policies="random")
    assert rollouts.terminated.all()
    assert all(rollouts.to_game(i).moves[: worlds[i].ply] == worlds[i].moves for i in range(8))
    with pytest.raises(ValueError, match="at least one game"):
        NumbaVectorGame.from_games([])
