"""Reading the players at the table (catsack.learn.reading): which model each other player's bids and passes
fit (R12, R13), from worlds consistent with the seat's view only (R23)."""

from __future__ import annotations

import os
import random
import tempfile

import numpy as np
import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")

from catsack.bots import make_bot
from catsack.bots.personas import Traits
from catsack.envs.encoding import move_to_action
from catsack.envs.vector_numba import NumbaVectorGame
from catsack.game import Game
from catsack.learn.agent import deal_worlds, search
from catsack.learn.fast_features import nearest_abstract
from catsack.learn.reading import HEAD, read_players
from catsack.learn.tablenet import load_table, row_length
from catsack.moves import PLACE, parse_move
from catsack.setup import Setup
from catsack.view import View
from redeal import redealt_views

pytestmark = pytest.mark.slow  # the compiled kernels load once

HOARDER = Traits(thrift=1.0)  # lets rows go early and spends its mice late
EAGER = Traits(over=3.0)  # bids well above what a row is worth


def _game(seats: int, seed: int, specs: list[str], stop: int) -> Game:
    """A game of ``specs`` (one per seat) played on until seat 0 is to move with a choice in round ``stop``."""
    g = Game.new(seats, seed=seed)
    bots = [make_bot(spec, seed=seed + s) for s, spec in enumerate(specs)]
    for seat, b in enumerate(bots):
        b.reset(seat, seats)
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        if s == 0 and g.round >= stop and len(view.legal) > 1:
            return g
        g.play(bots[s].choose(view))
    raise AssertionError("the game ended first")


def _worlds(view: View, count: int, seed: int) -> tuple[list[Setup], list[dict[int, int]]]:
    uniform = np.full((row_length(view.seats), 10), 0.1, np.float32)
    return deal_worlds(view, uniform, np.random.default_rng(seed), count)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_the_abstract_action_of_a_move_is_the_nearest_as_for_one_view(seats: int) -> None:
    """Every legal move of many positions, bids between the raise steps included (R12), maps to the abstract
    action :func:`nearest_abstract` gives it."""
    g = Game.new(seats, seed=seats)
    bots = [make_bot("persona", seed=s) for s in range(seats)]
    for seat, b in enumerate(bots):
        b.reset(seat, seats)
    vg = NumbaVectorGame.from_setups([g.setup])
    assert isinstance(vg, NumbaVectorGame)
    checked = 0
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        for move in view.legal:
            got = vg.nearest_abstract(np.array([move_to_action(move)], np.int64))
            assert int(got[0]) == nearest_abstract(view, move), (view.phase, move.text)
            checked += 1
        move = bots[s].choose(view)
        vg.step(np.array([move_to_action(move)], np.int64))
        g.play(move)
    assert checked > 100


def test_with_no_moves_seen_the_posterior_is_the_prior() -> None:
    g = Game.new(4, seed=3)
    view = g.view(g.to_move)
    setups, hidden = _worlds(view, 4, 1)
    r = read_players(view, load_table("expert-v3").net(4), setups, hidden, np.random.default_rng(0), personas=4)
    assert r.moves == (0, 0, 0, 0)
    assert np.allclose(r.posterior, [[HEAD, *[(1 - HEAD) / 4] * 4]] * 4)


def test_a_player_is_read_as_the_persona_its_bids_fit() -> None:
    """Three hoarders (R12, R13: they let the early rows go): by round 4 each is read as the hoarder rather
    than the eager bidder, and the reading's weights are a distribution per seat; the bot's own row stays the
    prior."""
    g = _game(4, 11, ["heuristic", *[HOARDER.spec()] * 3], stop=4)
    view = g.view(0)
    setups, hidden = _worlds(view, 6, 2)
    traits = np.array([EAGER.values(), HOARDER.values()])
    r = read_players(view, load_table("expert-v3").net(4), setups, hidden, np.random.default_rng(0), traits=traits)
    assert np.allclose(r.posterior.sum(axis=1), 1.0) and (r.posterior >= 0).all()
    assert np.allclose(r.posterior[0], [HEAD, (1 - HEAD) / 2, (1 - HEAD) / 2])
    for seat in (1, 2, 3):
        assert r.moves[seat] >= 3
        assert r.posterior[seat, 2] > 10 * r.posterior[seat, 1], r.posterior[seat]


def test_the_heads_likelihood_is_that_of_each_players_own_view_in_the_true_world() -> None:
    """Replayed in the world that was dealt, a player's log-likelihood under the behaviour head is the sum, over
    its bids and passes with a choice (R12, R13), of the head's chance of that move from that player's own view
    (mixed with a uniform choice as the reading mixes it): the compiled replay reads the table as the view does."""
    from catsack.learn.fast_features import abstract_legal
    from catsack.learn.history import Sitting
    from catsack.learn.reading import SMOOTH
    from catsack.learn.tablenet import table_features

    net = load_table("expert-v3").net(4)
    for seed in (21, 22):
        g = _game(4, seed, ["heuristic", "persona", HOARDER.spec(), "style:bluff"], stop=3)
        view = g.view(0)
        hidden = {rc.owner: int(g.row[p]) for p, rc in enumerate(view.row) if rc.card is None and rc.owner is not None}
        r = read_players(view, net, [g.setup], [hidden], np.random.default_rng(0), personas=1, samples=1)
        want = np.zeros(4)
        replay = Game(g.setup)
        for move in g.moves:
            s = replay.to_move
            assert s is not None
            own = replay.view(s)
            legal = abstract_legal(own)
            if s != 0 and move.kind != PLACE and legal.sum() > 1:
                z = net.heads(table_features(own, Sitting(4))[None, :]).behaviour[0].astype(np.float64)
                p = np.exp(z - z[legal].max()) * legal
                chance = p[nearest_abstract(own, move)] / p.sum()
                want[s] += np.log((1 - SMOOTH) * chance + SMOOTH / legal.sum())
            replay.play(move)
        assert sum(r.moves) > 6
        assert np.allclose(r.loglik[1:, 0], want[1:], atol=1e-3), (r.loglik[:, 0], want)


def test_the_lanes_get_each_seats_model_in_proportion() -> None:
    from catsack.learn.reading import Reading

    traits = np.array([EAGER.values(), HOARDER.values()])
    post = np.array([[0.5, 0.25, 0.25], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.4, 0.4]])
    got, persona = Reading(traits, post, (0, 5, 5, 5), np.zeros_like(post)).assign(np.random.default_rng(0), 4000)
    assert got.shape == (4000, 4, len(traits[0])) and persona.shape == (4000, 4)
    assert not persona[:, 1].any() and persona[:, 2].all()
    assert np.allclose(got[:, 2], traits[1])
    assert abs(persona[:, 3].mean() - 0.8) < 0.03 and abs(persona[:, 0].mean() - 0.5) < 0.03
    assert ((got[persona[:, 3], 3] == traits[0]).all(axis=1).mean() - 0.5) < 0.05


def test_bad_arguments_are_named() -> None:
    g = Game.new(4, seed=3)
    view = g.view(g.to_move)
    net = load_table("expert-v3").net(4)
    setups, hidden = _worlds(view, 2, 1)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="head"):
        read_players(view, net, setups, hidden, rng, head=1.0)
    with pytest.raises(ValueError, match="traits"):
        read_players(view, net, setups, hidden, rng, traits=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="worlds"):
        read_players(view, net, [], [], rng)
    with pytest.raises(ValueError, match="seat"):
        read_players(g.public_view(), net, setups, hidden, rng)


def test_the_reading_search_does_not_depend_on_hidden_cards() -> None:
    """The search with ``opponents=read`` gives the same result from a view and from the same seat's view once
    everything hidden from it is dealt again (R23)."""
    net = load_table("expert-v3").net(4)
    positions = [_game(4, seed, ["heuristic", "persona", "persona", HOARDER.spec()], stop=2) for seed in (5, 6, 7)]
    for view, other in redealt_views(positions, random.Random(1)):
        a = search(view, net, np.random.default_rng(4), worlds=6, opponents="read")
        b = search(other, net, np.random.default_rng(4), worlds=6, opponents="read")
        assert a == b
        assert a.best() in view.legal and any(parse_move(m.text) == m for m in a.moves)
