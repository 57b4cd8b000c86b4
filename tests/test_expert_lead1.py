"""``expert:lead1=X``: the ``lead`` style's share in round 1's prior for players of unknown kind (R5, R12:
in round 1 everyone holds 15 mice, so a player who bids 15 at its first turn buys the row)."""

from __future__ import annotations

import random

import pytest

from catsack.bots import make_bot
from catsack.bots.base import BotSpecError
from catsack.bots.expert import search
from catsack.bots.expert.spec import LEAD1_SHARE, STYLE_PRIORS, parse_spec, with_lead
from catsack.cards import Card
from catsack.game import Game
from catsack.moves import PLACE

GOOD_CATS = {Card.P15, Card.P11, Card.P8, Card.P5, Card.P3}  # R1
BAD_CARDS = {Card.M5, Card.M8, Card.LARGE_DOG, Card.SMALL_DOG}


def test_lead1_option_and_its_default() -> None:
    assert parse_spec(None).lead1 is None and LEAD1_SHARE is None
    assert parse_spec("lead1=0.75").lead1 == 0.75
    assert parse_spec("strong").lead1 is None  # the levels keep their model
    for bad in ("lead1=0", "lead1=1", "lead1=x"):
        with pytest.raises(BotSpecError, match="lead1"):
            parse_spec(bad)


def test_the_lead_share_scales_rule_and_any_alike() -> None:
    read = STYLE_PRIORS["read"]
    shares = with_lead(read, 0.8)
    assert shares[1] == 0.8 and sum(shares) == pytest.approx(1.0)
    assert shares[0] / shares[2] == pytest.approx(read[0] / read[2])
    assert with_lead(read, read[1]) == pytest.approx(read)


def _place_one(spec: str, deal: int) -> int:
    """The card ``spec`` places right behind the start player in round 1 (R10), kinds hidden."""
    g = Game.new(4, seed=5000 + deal)
    start = g.start_player
    g.play(make_bot("heuristic", seed=1).choose(g.view(start)))  # face down: nothing shown yet (R11)
    seat = (start + 1) % 4
    bot = make_bot(spec, seed=5000 + deal * 10 + seat)
    bot.reset(seat, 4)
    bot.meet([None] * 4)  # every seat presented as a person
    move = bot.choose(g.view(seat))
    assert move.kind == PLACE
    return move.arg


def test_behind_a_start_player_who_likely_leads_the_expert_dumps() -> None:
    """Right behind the start player in round 1, with the kinds hidden, ``lead=read``'s prior (0.6 lead) makes
    the expert hide a good cat on most deals (it expects to buy a row of the others' good cats for 15 if the
    start player does not lead); with the lead style's share at 0.85 it dumps a dog or a negative cat, as it
    does behind a start player the table shows as a search bot."""
    today = [_place_one("expert:iters=1500", k) for k in range(6)]
    leads = [_place_one("expert:iters=1500+lead1=0.85", k) for k in range(6)]
    assert sum(c in GOOD_CATS for c in today) >= 3
    assert all(c in BAD_CARDS for c in leads)


def test_lead1_changes_round_one_only() -> None:
    """From round 2 on every player's style is read from its placements (R14), from ``lead=read``'s prior."""
    g = Game.new(4, seed=3)
    bots = [make_bot("heuristic", seed=s) for s in range(4)]
    while g.round < 2:
        s = g.to_move
        assert s is not None
        g.play(bots[s].choose(g.view(s)))
    assert g.to_move is not None
    view = g.view(g.to_move)
    hidden: list[str | None] = [None] * 4
    plain = search(view, random.Random(7), iterations=300, players=hidden)
    lead1 = search(view, random.Random(7), iterations=300, players=hidden, lead1=0.85)
    assert (plain.moves, plain.visits, plain.rewards) == (lead1.moves, lead1.visits, lead1.rewards)
    # ... and round 1 is where it differs
    first = Game.new(4, seed=3)
    view = first.view(first.start_player)
    plain = search(view, random.Random(7), iterations=300, players=hidden)
    lead1 = search(view, random.Random(7), iterations=300, players=hidden, lead1=0.85)
    assert plain.rewards != lead1.rewards
