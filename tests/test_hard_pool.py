"""The league's hard pool: the value bidder's share at a table, and the two ways of ranking tables."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")

from catsack.bots.personas import NUM_TRAITS, TRAITS
from catsack.learn.hard_pool import SEEN_GAMES, HardPool, value_shares

pytestmark = pytest.mark.slow  # the persona kernels compile once (cached)


def _traits(**named: float) -> np.ndarray:
    t = np.zeros(NUM_TRAITS)
    for name, value in named.items():
        t[TRAITS.index(name)] = value
    return t


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_a_value_bidder_among_value_bidders_wins_its_fair_share(seats: int) -> None:
    share = value_shares(_traits()[None, :], seats, 600, seed=1)
    assert abs(share[0] - 1 / seats) < 0.06  # every seat plays the same rule, each in turn (R22: ties shared)


def test_a_value_bidder_beats_players_who_hoard_their_mice_and_the_figures_repeat() -> None:
    tables = np.stack([_traits(), _traits(thrift=1.0), _traits(over=3.0)])
    share = value_shares(tables, 4, 200, seed=2)
    assert share[1] > 0.8 > share[0]  # hoarders leave it the rows; R21 counts their mice, not enough
    assert np.array_equal(share, value_shares(tables, 4, 200, seed=2))


def test_bad_tables_and_ranks_are_named() -> None:
    with pytest.raises(ValueError, match="shape"):
        value_shares(np.zeros((2, 3)), 4, 8, seed=0)
    with pytest.raises(ValueError, match="games"):
        value_shares(np.zeros((2, NUM_TRAITS)), 4, 0, seed=0)
    with pytest.raises(ValueError, match="rank must be one of win, value"):
        HardPool(np.random.default_rng(0), 4, 4, "margin")


def test_the_value_rank_brings_back_the_tables_the_learner_trails_the_rule_at() -> None:
    pool = HardPool(np.random.default_rng(1), 3, 4, "value", seed=3)
    pool.base[:] = [0.9, 0.3, 0.3]  # a table every player does well at, and two harder ones
    pool.share[:] = pool.base
    played = np.repeat([0, 1, 2, -1], 8)
    win = np.repeat([0.7, 0.3, 0.6, 1.0], 8)  # behind the rule at 0 (although it wins 0.7), level at 1, ahead at 2
    pool.update(played, win, np.random.default_rng(2), 0)
    w = pool.weights()
    assert w[0] > w[1] > w[2] and abs(w.sum() - 1) < 1e-9
    before = pool.traits.copy()
    pool.update(played, win, np.random.default_rng(2), 1)  # the entry it leads the rule by most is drawn anew
    assert np.array_equal(pool.traits[:2], before[:2]) and not np.array_equal(pool.traits[2], before[2])
    assert pool.games[2] == 0 and pool.share[2] == pool.base[2]
    again = HardPool(np.random.default_rng(9), 3, 4, "value", seed=3)
    again.restore(pool.state(), "here")
    assert np.array_equal(again.state(), pool.state())


def test_an_entry_seen_too_seldom_is_not_replaced() -> None:
    pool = HardPool(np.random.default_rng(1), 2, 4, "value", seed=3)
    before = pool.traits.copy()
    pool.update(np.array([0]), np.array([1.0]), np.random.default_rng(2), 2)
    assert pool.games.max() < SEEN_GAMES and np.array_equal(pool.traits, before)
