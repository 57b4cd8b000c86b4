"""The incremental Observer must give exactly encode_observation(game.view(seat)), at every ply (R23)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack.envs.encoding import encode_observation, observation_size
from catsack.envs.observer import Observer
from catsack.game import Game


def _assert_same(obs: Observer, game: Game, where: str) -> None:
    for seat in range(game.seats):
        got = obs.observe(seat)
        want = encode_observation(game.view(seat))
        assert got.dtype == np.float32 and got.shape == want.shape
        if not np.array_equal(got, want):
            idx = np.flatnonzero(got != want)
            raise AssertionError(f"{where}, seat {seat}: entries {idx.tolist()} are {got[idx]} not {want[idx]}")


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_every_ply_of_random_games_matches_the_view_encoding(seats: int) -> None:
    for seed in range(25):
        rng = random.Random(seed)
        g = Game.new(seats, rng=rng)
        obs = Observer(g)
        _assert_same(obs, g, f"seed {seed}, start")
        while not g.is_over:
            ms = g.legal_moves()
            g.play(ms[int(rng.random() * len(ms))])
            obs.sync()
            _assert_same(obs, g, f"seed {seed}, ply {g.ply} ({g.phase})")


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_cautious_and_greedy_auctions(seats: int) -> None:
    """Games that reach R15's last choice (nobody bids) and games where everyone bids high."""
    for style in ("pass", "bid"):
        rng = random.Random(seats)
        g = Game.new(seats, rng=rng)
        obs = Observer(g)
        while not g.is_over:
            ms = g.legal_moves()
            if ms[0].kind == ms[-1].kind:  # placements, or only one kind left
                move = ms[int(rng.random() * len(ms))]
            elif style == "pass":
                move = ms[-1] if ms[-1].text == "pass" else ms[0]
            else:
                bids = [m for m in ms if m.text != "pass"]
                move = bids[min(len(bids) - 1, 2)]
            g.play(move)
            obs.sync()
            _assert_same(obs, g, f"{style} style, ply {g.ply}")


@settings(max_examples=30, deadline=None)
@given(seats=st.sampled_from([3, 4, 5]), seed=st.integers(0, 2**32))
def test_skipped_syncs_undo_and_clones_still_match(seats: int, seed: int) -> None:
    """Anything but exactly one move between syncs rebuilds; clones follow their own game."""
    rnd = random.Random(seed)
    g = Game.new(seats, rng=rnd)
    obs = Observer(g)
    copy: tuple[Game, Observer] | None = None
    while not g.is_over:
        ms = g.legal_moves()
        g.play(ms[int(rnd.random() * len(ms))])
        r = rnd.random()
        if r < 0.05 and g.ply > 1:
            g.undo()  # the observer saw a later position: it must notice
        if r < 0.8:
            obs.sync()
            _assert_same(obs, g, f"ply {g.ply}")
        if copy is None and r > 0.97:
            obs.sync()
            clone = g.clone()
            copy = (clone, obs.clone(clone))
    obs.sync()
    _assert_same(obs, g, "end")
    if copy is not None:
        clone, cobs = copy
        _assert_same(cobs, clone, "clone before its own moves")
        while not clone.is_over:
            ms = clone.legal_moves()
            clone.play(ms[0])
            cobs.sync()
            _assert_same(cobs, clone, f"clone ply {clone.ply}")


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_redealing_what_a_seat_cannot_see_leaves_its_vector_alone(seats: int) -> None:
    """The incrementally kept vector equals the one of a game with every hidden card re-dealt."""
    rng = random.Random(100 + seats)
    for _ in range(6):
        g = Game.new(seats, rng=rng)
        obs = Observer(g)
        stop = rng.randrange(1, 60)
        while not g.is_over and g.ply < stop:
            ms = g.legal_moves()
            g.play(ms[int(rng.random() * len(ms))])
            obs.sync()
        for seat in range(seats):
            other = g.clone()
            other.redeal(seat, rng)
            assert np.array_equal(obs.observe(seat), Observer(other).observe(seat))


def test_observe_into_and_fresh_arrays() -> None:
    g = Game.new(4, seed=9)
    obs = Observer(g)
    a = obs.observe(0)
    a[:] = 7.0  # the caller owns the array: the observer must not care
    out = np.zeros(observation_size(4), np.float32)
    obs.observe_into(0, out)
    assert np.array_equal(out, encode_observation(g.view(0)))
