"""The opponent styles (``style:NAME``): views only (R23), legal moves, and each style doing what it says."""

from __future__ import annotations

import random

import pytest

from catsack.bots import make_bot
from catsack.bots.base import BotSpecError
from catsack.bots.heuristic import bid_limit, row_worth
from catsack.bots.styles import BLUFF_CHANCE, STYLES, StyleBot, others_worth
from catsack.cards import Card
from catsack.game import Game
from catsack.moves import BID, PASS, PLACE, bid, place
from redeal import redealt_views

SPECS = tuple(f"style:{name}" for name in STYLES)


def _positions(seats: int, seed: int, count: int) -> list[Game]:
    """Positions of a game of styles and heuristic bots where the seat to move has a choice."""
    rng = random.Random(seed)
    g = Game.new(seats, seed=seed)
    bots = [make_bot(SPECS[(seed + i) % len(SPECS)] if i % 2 else "heuristic", seed=i) for i in range(seats)]
    out = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        if len(g.legal_moves()) > 1 and rng.random() < 0.3:
            out.append(g.clone())
        g.play(bots[s].choose(g.view(s)))
    return out[:count]


@pytest.mark.parametrize("spec", SPECS)
def test_make_bot_gives_a_style(spec: str) -> None:
    bot = make_bot(spec, seed=1)
    assert isinstance(bot, StyleBot)
    assert bot.name == spec


@pytest.mark.parametrize("spec", ["style", "style:", "style:nope", "style:bluff+x"])
def test_bad_style_is_rejected(spec: str) -> None:
    with pytest.raises(BotSpecError, match="style"):
        make_bot(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_move_does_not_depend_on_hidden_cards(spec: str) -> None:
    # R23: re-deal everything the seat cannot see; its view, hence its move and its policy, must not change.
    rng = random.Random(11)
    for seats in (3, 4, 5):
        for view, other in redealt_views(_positions(seats, seed=30 + seats, count=8), rng):
            assert make_bot(spec, seed=3).choose(other) == make_bot(spec, seed=3).choose(view)
            a = make_bot(spec).distribution(view)  # type: ignore[attr-defined]
            assert a == make_bot(spec).distribution(other)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_styles_finish_games_with_legal_moves_and_policies_add_up(seats: int) -> None:
    for seed in range(4):
        g = Game.new(seats, seed=seed)
        bots = [make_bot(SPECS[(seed + i) % len(SPECS)], seed=i) for i in range(seats)]
        for i, b in enumerate(bots):
            b.reset(i, seats)
        while not g.is_over:
            s = g.to_move
            assert s is not None
            view = g.view(s)
            dist = bots[s].distribution(view)  # type: ignore[attr-defined]
            assert abs(sum(p for _, p in dist) - 1.0) < 1e-9
            assert all(m in view.legal and p > 0 for m, p in dist)
            move = bots[s].choose(view)
            assert move in view.legal
            g.play(move)
        assert len(g.rounds) == 9  # R20


def _auction_with_own_card(card: Card, seats: int = 4) -> tuple[Game, int]:
    """A round-1 auction in which the seat after the start player hid ``card``, the others a rabbit or their
    first card, the start player opened with 1, and that seat is to bid (the first deal that allows it)."""
    for seed in range(200):
        g = Game.new(seats, seed=seed)
        seat = (g.start_player + 1) % seats
        if card not in g.hand(seat) or card == Card.RABBIT:
            continue
        while g.phase == "placement":
            s = g.to_move
            assert s is not None
            hand = g.hand(s)
            g.play(place(card if s == seat else Card.RABBIT if Card.RABBIT in hand else hand[0]))
        g.play(bid(1))  # the start player opens (R12)
        return g, seat
    raise AssertionError(f"no deal gives the second seat {card}")


@pytest.mark.parametrize("card", [Card.M8, Card.M5])
def test_bluffer_bids_up_a_row_it_hid_a_bad_card_in(card: Card) -> None:
    g, seat = _auction_with_own_card(card)
    view = g.view(seat)
    honest = bid_limit(view, row_worth(view))
    shown = others_worth(view)
    assert shown is not None and shown > row_worth(view)  # its card lowers the row
    dist = dict(make_bot("style:bluff").distribution(view))  # type: ignore[attr-defined]
    raises = [m for m in dist if m.kind == BID]
    assert raises and raises[0].amount > honest  # it raises past what it thinks the row is worth
    assert dist[raises[0]] == pytest.approx(BLUFF_CHANCE)
    # the honest player and the sandbagger pass or raise only within their limit
    for spec in ("heuristic", "style:sandbag"):
        move = make_bot(spec).choose(view)
        assert move.kind == PASS or move.amount <= honest


def test_bluffer_drops_out_before_it_is_left_alone() -> None:
    g, seat = _auction_with_own_card(Card.M8)
    for _ in range(2):  # the bluffer raises, the next player passes ...
        g.play(bid(g.high_bid + 1) if g.to_move == seat else g.legal_moves()[-1])
    while g.to_move != seat:  # ... and so do the others after it, but the start player, who raises
        g.play(bid(g.high_bid + 1) if g.to_move == g.start_player else g.legal_moves()[-1])
    view = g.view(seat)
    assert sum(not p for p in view.passed) == 2  # only one other player is still in
    honest = bid_limit(view, row_worth(view))
    for move, _ in make_bot("style:bluff").distribution(view):  # type: ignore[attr-defined]
        assert move.kind == PASS or move.amount <= honest


def test_sandbagger_shows_its_best_cat_as_start_player() -> None:
    g = Game.new(4, seed=2)
    s = g.to_move
    assert s is not None and s == g.start_player
    view = g.view(s)
    move = make_bot("style:sandbag").choose(view)
    assert move.kind == PLACE and move.arg == min(c for c in view.hand)  # R11: face up at once, its best card
    assert make_bot("heuristic").choose(view) != move or min(view.hand) == Card.RABBIT


def test_dumper_hides_its_worst_card_even_as_a_likely_buyer() -> None:
    g = Game.new(4, seed=3)
    g.play(place(g.hand(g.start_player)[3]))  # the start player's card is face up at once (R11)
    s = g.to_move
    assert s is not None
    view = g.view(s)
    move = make_bot("style:dumper").choose(view)
    assert move.kind == PLACE and Card(move.arg) in (Card.M8, Card.M5, Card.LARGE_DOG)
