"""The expert's value of money over the rest of the game (``expert:money=S``, ``leaf.MONEY_GAIN``;
``expert:future=K``, ``leaf.future_shares``; and ``expert:fread=X``, ``future`` scaled by the ``dump`` read)."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from catsack.bots.base import BotSpecError, make_bot
from catsack.bots.expert import HandValue
from catsack.bots.expert.leaf import HAND_POINTS, MONEY_GAIN, TEMPERATURE, future_shares, purse_values
from catsack.bots.expert.players import UNKNOWN_AWARE, RoundFacts, dump_read
from catsack.bots.expert.search import search
from catsack.bots.expert.spec import (
    DUMP_PRIOR,
    FUTURE_READ,
    FUTURE_SCALE,
    MONEY_SCALE,
    STYLE_PRIORS,
    parse_spec,
    with_dump,
)
from catsack.cards import POINTS
from catsack.game import Game
from expert_tables import after_rounds


def test_money_option_round_trips_through_the_spec() -> None:
    assert parse_spec(None).money == MONEY_SCALE
    assert parse_spec("money=1").money == 1.0
    assert parse_spec("money=0").money == 0.0
    assert parse_spec("strong+money=0.5").money == 0.5  # a level leaves the option to what follows it
    assert parse_spec("iters=30+money=2").iterations == 30
    assert make_bot("expert:iters=30+money=1.5").leaf.money == 1.5  # type: ignore[attr-defined]
    assert make_bot("expert:iters=30+money=0").leaf.money == 0.0  # type: ignore[attr-defined]
    for bad in ("money=4", "money=-1", "money=x", "leaf=learned+money=1"):
        with pytest.raises(BotSpecError):
            parse_spec(bad)


def test_purse_is_worth_more_with_more_rounds_left() -> None:
    """The purse's value beyond its points (R12: no bid above one's mice) grows with the rounds left to buy
    in, and is nothing once the game is over (R20, R21: a mouse is then one point and no more)."""
    for seats in (3, 4, 5):
        table = purse_values(seats, 1.0)
        assert all(v == 0.0 for v in table[0])  # the game is over
        full = [table[left][15] - table[left][0] for left in range(1, 9)]  # 15 mice (R5) against none
        assert full[0] >= 0.0
        assert all(b >= a for a, b in itertools.pairwise(full)), full  # more rounds left, more worth
        assert full[-1] > 0.0
        half = purse_values(seats, 0.5)
        assert half[8][15] == pytest.approx(0.5 * table[8][15])


def _after_all_in_round_1() -> Game:
    """4 seats, round 2 starts: seat 0 bought round 1's row with all its 15 mice (R12, R17)."""
    g = Game.from_setup(4, 0, ["-8", "+11", "+8", "+3"])
    for text in ("place +15", "place -5", "place +3", "place R", "bid 15", "pass", "pass", "pass"):
        g.play(text)
    assert g.round == 2 and g.money[0] == 0 and g.start_player == 0
    return g


def test_an_empty_purse_lowers_the_leaf_with_the_money_option_only() -> None:
    g = _after_all_in_round_1()
    plain = HandValue().all_seats(g)
    assert HandValue(0.0).all_seats(g) == plain  # money=0 is the leaf as it was
    rich = HandValue(1.0).all_seats(g)
    assert sum(rich) == pytest.approx(1.0)
    assert rich[0] < plain[0]  # the buyer starts round 2 with no mice: it cannot bid (R12)
    scores = list(g.scores())
    assert HandValue(1.0).win_from(g, scores, 0) == pytest.approx(rich[0])  # the search's fast path agrees
    # exactly the softmax of score plus the purse's value at 8 rounds left
    a, b = MONEY_GAIN[4][8]
    est = [x + a * math.sqrt(m) + b * m for x, m in zip(scores, g.money, strict=True)]
    t = TEMPERATURE[4][8]
    want = [math.exp(e / t) / sum(math.exp(f / t) for f in est) for e in est]
    assert rich == pytest.approx(want)


def test_future_option_round_trips_through_the_spec() -> None:
    assert parse_spec(None).future == FUTURE_SCALE
    assert parse_spec("future=0.5").future == 0.5
    assert make_bot("expert:iters=30+future=1").leaf.future == 1.0  # type: ignore[attr-defined]
    for bad in ("future=3", "future=-0.1", "future=x", "leaf=learned+future=1"):
        with pytest.raises(BotSpecError):
            parse_spec(bad)


def test_the_learned_leaf_takes_the_hand_leafs_defaults_silently() -> None:
    """``future`` (and ``fread``, ``money``) are the hand leaf's: naming one with another leaf is an error,
    but their defaults are no reason to refuse a plain ``leaf=learned``, with or without a budget."""
    assert parse_spec("leaf=learned").leaf == "learned"
    bot = make_bot("expert:iters=30+leaf=learned")
    assert type(bot.leaf).__name__ == "LearnedValue"  # type: ignore[attr-defined]
    with pytest.raises(BotSpecError, match="future"):
        parse_spec("leaf=learned+future=0.6")


def test_the_cats_still_in_hand_go_to_the_seats_by_their_money() -> None:
    """``future=K``: K times the cat points left in the hands (R10: each is placed in a later row), split
    by the seats' mice (R12: the rich buy); nothing where the cards to come are worth nothing or less."""
    g = _after_all_in_round_1()
    left = sum(HAND_POINTS[h] for h in g._hands)
    assert left == sum(POINTS[c] for hand in g._hands for c in range(10) if hand >> c & 1)
    shares = future_shares(g, 0.5)
    assert sum(shares) == pytest.approx(0.5 * left)
    assert shares[0] == 0.0  # the seat that spent all 15 mice in round 1 (R12: it cannot bid)
    assert shares[1] / g.money[1] == pytest.approx(shares[2] / g.money[2])
    plain = HandValue().all_seats(g)
    assert HandValue(0.0, 0.0).all_seats(g) == plain  # future=0 is the leaf as it was
    ahead = HandValue(0.0, 0.5).all_seats(g)
    assert sum(ahead) == pytest.approx(1.0) and ahead[0] < plain[0]
    assert HandValue(0.0, 0.5).win_from(g, list(g.scores()), 0) == pytest.approx(ahead[0])
    g._hands = [h & ~0b11111 for h in g._hands]  # only negative cats, the rabbit and dogs left
    assert future_shares(g, 0.5) == [0.0] * 4
    assert HandValue(0.0, 0.5).all_seats(g) == pytest.approx(plain)


def test_fread_option_round_trips_through_the_spec() -> None:
    assert parse_spec(None).fread == FUTURE_READ
    assert parse_spec("fread=0.4").fread == 0.4
    assert make_bot("expert:iters=30+fread=0.4").options.fread == 0.4  # type: ignore[attr-defined]
    for bad in ("fread=2", "fread=-0.1", "fread=x", "leaf=learned+fread=0.3"):
        with pytest.raises(BotSpecError, match="fread"):
            parse_spec(bad)
    leaf = HandValue(0.0, 0.6)
    half = leaf.with_future(0.3)
    assert half.future == 0.3 and leaf.future == 0.6 and half.money == leaf.money


def test_dump_read_is_the_other_seats_mean_dump_share() -> None:
    table = [(0.5, 0.2, 0.1, 0.2), (0.1, 0.1, 0.1, 0.7), (0.9, 0.0, 0.1, 0.0)]
    assert dump_read(table, 0) == pytest.approx(0.35)
    assert dump_read(table, 1) == pytest.approx(0.1)
    assert dump_read(table[:1], 0) == 0.0


def test_fread_scales_future_by_the_dump_style_read_from_finished_rounds() -> None:
    """``fread=X``: the search's ``future`` scale is ``future * min(1, D / X)``, D the ``dump`` share it reads
    for the other seats from their placements in finished rounds (R14); in round 1 nothing has been read,
    so the term is off there."""
    read = with_dump(STYLE_PRIORS["read"], DUMP_PRIOR)
    for spec in ("style:dumper", "heuristic"):
        g = after_rounds(spec, 3, rounds=4)
        seat = g.to_move
        assert seat is not None and g.round == 5
        view = g.view(seat)
        d = dump_read(RoundFacts(view, [read] * 4, [UNKNOWN_AWARE] * 4).style, seat)
        scale = 0.6 * min(1.0, d / 0.4)
        asked = search(
            view, random.Random(5), iterations=120, leaf=HandValue(0.0, 0.6), dump=DUMP_PRIOR, future_read=0.4
        )
        fixed = search(view, random.Random(5), iterations=120, leaf=HandValue(0.0, scale), dump=DUMP_PRIOR)
        assert asked.rewards == fixed.rewards
        if spec == "style:dumper":
            assert scale == 0.6  # measured: the dumpers read 0.45 here, above X = 0.4
        else:
            assert scale < 0.3  # and heuristic bots 0.14: about a third of the scale
    first = after_rounds("style:dumper", 3, rounds=0)
    seat = first.to_move
    assert seat is not None and first.round == 1
    view = first.view(seat)
    asked = search(view, random.Random(5), iterations=120, leaf=HandValue(0.0, 0.6), dump=DUMP_PRIOR, future_read=0.4)
    assert asked.rewards == search(view, random.Random(5), iterations=120, leaf=HandValue(0.0, 0.0)).rewards
    assert asked.rewards != search(view, random.Random(5), iterations=120, leaf=HandValue(0.0, 0.6)).rewards
