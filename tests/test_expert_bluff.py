"""The expert's model of bluffing players (catsack.bots.expert.players: BLUFF_GAP, bluff_chances)."""

from __future__ import annotations

import random

import pytest

from catsack.bots import make_bot
from catsack.bots.base import BotSpecError
from catsack.bots.expert import ExpertBot
from catsack.bots.expert.players import RoundFacts, bluff_chances, likelihood, observed_actions, seat_bluffs
from catsack.bots.expert.spec import BLUFF_PRIOR, parse_spec
from catsack.cards import Card
from catsack.game import Game
from catsack.moves import bid, place


def test_bluff_option_and_its_defaults() -> None:
    assert parse_spec(None).bluff == BLUFF_PRIOR
    assert parse_spec("bluff=0").bluff == 0.0
    assert parse_spec("strong").bluff == 0.0  # the lobby's levels model no bluffs: they play as before
    assert parse_spec("strong+bluff=0.3").bluff == 0.3
    with pytest.raises(BotSpecError, match="bluff"):
        parse_spec("bluff=2")


def test_only_players_of_unknown_kind_may_bluff() -> None:
    # R23: the lobby shows each seat's kind; a person (None) or an unknown bot may bluff, known bots do not
    assert seat_bluffs(["classic", "heuristic", None, "style:liar"], 4, 0.3) == [0.0, 0.0, 0.3, 0.3]
    assert seat_bluffs(None, 3, 0.3) == [0.3, 0.3, 0.3]  # a table whose kinds are hidden


def test_bluffs_are_read_from_finished_rounds() -> None:
    bluffers = []
    honest = []
    for seed in range(6):
        g = Game.new(4, seed=seed)
        bots = [make_bot(spec, seed=i) for i, spec in enumerate(["heuristic", "style:bluff"] * 2)]
        while g.round <= 6 or g.to_move != 0:  # six finished rounds, then seat 0 to move
            s = g.to_move
            assert s is not None
            g.play(bots[s].choose(g.view(s)))
        facts = RoundFacts(g.view(0))
        chances = bluff_chances(facts.bids, [0.25] * 4)
        bluffers += chances[1::2]
        honest += chances[0::2]
    assert sum(bluffers) / len(bluffers) > 0.5 > 0.25 > sum(honest) / len(honest)


def _raised_row() -> tuple[Game, int]:
    """Round 1 of a 4-seat game: the seat after the start player hid the -8 and raised to 12 after an opening of 1."""
    for seed in range(200):
        g = Game.new(4, seed=seed)
        liar = (g.start_player + 1) % 4
        if Card.M8 not in g.hand(liar):
            continue
        while g.phase == "placement":
            s = g.to_move
            assert s is not None
            g.play(place(Card.M8 if s == liar else g.hand(s)[0]))
        g.play(bid(1))
        g.play(bid(12))
        return g, (liar + 1) % 4
    raise AssertionError("no deal gives the second seat the -8")


def test_a_raise_says_less_about_the_row_when_its_bidder_may_bluff() -> None:
    g, me = _raised_row()
    while g.to_move != me:
        g.play(g.legal_moves()[-1])
    view = g.view(me)
    obs = observed_actions(view)
    facts = RoundFacts(view)
    liar = (g.start_player + 1) % 4
    pos = 1  # the liar's card follows the start player's (R10)
    row = list(g.row)
    assert row[pos] == Card.M8
    good = list(row)
    good[pos] = Card.P15
    honest_ratio = likelihood(obs, facts, row) / likelihood(obs, facts, good)
    facts.bluff = [0.0] * 4
    facts.bluff[liar] = 0.5
    facts.cache.clear()
    bluff_ratio = likelihood(obs, facts, row) / likelihood(obs, facts, good)
    assert bluff_ratio > 1.5 * honest_ratio  # the -8 under the raise is likelier than the honest model says


def test_expert_with_bluffs_sees_only_its_view() -> None:
    # R23: re-dealing everything hidden from the seat changes neither its view nor its choice
    rng = random.Random(5)
    g, me = _raised_row()
    while g.to_move != me:
        g.play(g.legal_moves()[-1])
    view = g.view(me)
    other = g.clone()
    other.redeal(me, rng)
    assert other.view(me) == view
    assert ExpertBot("iters=200", seed=2).choose(view) == ExpertBot("iters=200", seed=2).choose(other.view(me))
