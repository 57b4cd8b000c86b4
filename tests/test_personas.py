"""The league's personas: legal play from the view alone (R23), their specs, and the compiled engine's moves
against the Python persona's, move by move on the same uniform numbers."""

from __future__ import annotations

import os
import random
import tempfile
from dataclasses import replace

import numpy as np
import pytest

from catsack.bots import make_bot
from catsack.bots.base import BotSpecError, play_game
from catsack.bots.personas import NUM_UNIFORMS, TRAITS, PersonaBot, Traits, draw_traits, persona_move
from catsack.envs.encoding import action_to_move, move_to_action
from catsack.game import Game
from catsack.moves import BID
from redeal import redealt_views


def _positions(seats: int, seed: int, count: int) -> list[Game]:
    rng = random.Random(seed)
    bots = [make_bot("persona", seed=seed + s) for s in range(seats)]
    g = Game.new(seats, seed=seed)
    for s, b in enumerate(bots):
        b.reset(s, seats)
    out: list[Game] = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        if len(view.legal) > 1 and rng.random() < 0.15 and len(out) < count:
            out.append(g.clone())
        g.play(bots[s].choose(view))
    return out


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_personas_finish_games_with_legal_moves(seats: int) -> None:
    for seed in range(4):
        bots = [
            make_bot(spec, seed=seed * 10 + s)
            for s, spec in enumerate(
                ["persona", "persona:draw=3", "persona:bluff=1+dump=0.5", "persona", "persona:draw=4"][:seats]
            )
        ]
        g = play_game(Game.new(seats, seed=seed), bots)  # play_game checks legality through Game.play
        assert g.is_over and len(g.rounds) == 9  # R20


def test_persona_move_does_not_depend_on_hidden_cards() -> None:
    # R23: re-deal everything the seat cannot see; its view, hence its move, must not change.
    rng = random.Random(4)
    traits = Traits(
        over=1.5, noise=2.0, bluff=0.9, sandbag=0.5, dump=0.3, lead=1.0, jump=0.7, follow=0.6, thrift=0.4, money=0.5,
        open=0.6,
    )  # fmt: skip
    for seats in (3, 4, 5):
        for view, other in redealt_views(_positions(seats, seed=30 + seats, count=6), rng):
            for u in ((0.1, 0.2, 0.3), (0.9, 0.05, 0.6)):
                assert persona_move(view, traits, u) == persona_move(other, traits, u)


def test_all_neutral_traits_play_the_heuristic_rule() -> None:
    heuristic = make_bot("heuristic")
    for seats in (3, 4, 5):
        for g in _positions(seats, seed=40 + seats, count=8):
            view = g.view(g.to_move)  # type: ignore[arg-type]
            assert persona_move(view, Traits(), (0.5, 0.5, 0.5)) == heuristic.choose(view)


def test_specs() -> None:
    drawn = make_bot("persona:draw=7")
    again = make_bot("persona:draw=7")
    assert isinstance(drawn, PersonaBot) and isinstance(again, PersonaBot)
    assert drawn.traits == again.traits != Traits()
    named = make_bot("persona:bluff=0.8+over=-1")
    assert isinstance(named, PersonaBot) and named.traits == Traits(bluff=0.8, over=-1.0)
    switch = make_bot("persona:draw=1+after=2")
    assert isinstance(switch, PersonaBot)
    switch.reset(0, 4)
    first = switch.traits
    switch.reset(0, 4)
    assert switch.traits != first and switch.traits == make_bot("persona:draw=2").traits  # type: ignore[attr-defined]
    fresh = make_bot("persona", seed=1)
    assert isinstance(fresh, PersonaBot)
    fresh.reset(0, 4)
    one = fresh.traits
    fresh.reset(0, 4)
    assert fresh.traits != one  # drawn anew every game
    assert Traits(bluff=0.5).spec() == "persona:bluff=0.5" and Traits().spec() == "heuristic"
    pinned = make_bot("persona:draw=7+open=0+bluff=0.25")
    assert isinstance(pinned, PersonaBot)
    assert pinned.traits == replace(drawn.traits, open=0.0, bluff=0.25)  # the draw, those traits pinned
    turning = make_bot("persona:draw=1+after=2+open=0")
    assert isinstance(turning, PersonaBot)
    turning.reset(0, 4)
    turning.reset(0, 4)
    assert turning.traits == replace(make_bot("persona:draw=2").traits, open=0.0)  # type: ignore[attr-defined]


def test_an_opener_enters_an_auction_with_its_share_of_its_limit() -> None:
    # ``open``: its first bid of a round (R12) is that share of its limit when it tops the lowest raise;
    # later bids are a mouse at a time, as the heuristic's.
    opener = Traits(open=0.8)
    seen = opened = 0
    for seats in (3, 4, 5):
        for g in _positions(seats, seed=60 + seats, count=30):
            view = g.view(g.to_move)  # type: ignore[arg-type]
            if view.phase != "bidding" or view.seat is None:
                continue
            plain = persona_move(view, Traits(), (0.5, 0.5, 0.5))
            move = persona_move(view, opener, (0.5, 0.5, 0.5))
            if view.bids[view.seat] != 0:
                assert move == plain
                continue
            seen += 1
            if move != plain:
                opened += 1
                assert move.kind == BID and move.amount > view.high_bid + 1
    assert seen > 10 and opened > 0


@pytest.mark.parametrize(
    "spec",
    [
        "persona:bluff=2",
        "persona:nerve=1",
        "persona:after=3",
        "persona:draw=-1",
        "persona:draw=1+bluff=1.2",
        "persona:open=0.5+after=2",
        "persona:over=x",
    ],
)
def test_bad_specs_are_rejected(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make_bot(spec)


def test_draws_cover_every_trait() -> None:
    rng = random.Random(0)
    draws = [draw_traits(rng) for _ in range(400)]
    for k, name in enumerate(TRAITS):
        values = [d.values()[k] for d in draws]
        off = sum(v == 0.0 for v in values) / len(values)
        assert 0.4 < off < 0.6, name  # half of the draws leave a trait off
        assert len({round(v, 3) for v in values}) > 100, name


@pytest.mark.slow
@pytest.mark.parametrize("seats", [3, 4, 5])
def test_compiled_personas_play_the_python_personas_moves(seats: int) -> None:
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
    pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")
    from catsack.envs.vector_numba import NumbaVectorGame

    games = 12
    rng = np.random.default_rng(seats)
    vg = NumbaVectorGame(games, seats, seed=seats)
    pr = random.Random(seats)
    traits = [[draw_traits(pr) for _ in range(seats)] for _ in range(games)]
    table = np.array([[t.values() for t in row] for row in traits])
    draws: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    while not vg.terminated.all():
        u = rng.random((games, NUM_UNIFORMS))
        a = vg.persona_actions(table, u)
        draws.append(u)
        actions.append(a)
        vg.step(a, where=~vg.terminated)
    checked = 0
    for k in range(games):
        g = Game(vg.setup(k))
        for u, a in zip(draws, actions, strict=False):
            if g.is_over:
                break
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            if len(view.legal) > 1:
                assert move_to_action(persona_move(view, traits[k][seat], tuple(u[k]))) == a[k]
                checked += 1
            g.play(action_to_move(int(a[k])))
        assert g.is_over
    assert checked > 60 * games
