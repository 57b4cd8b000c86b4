"""Kinds read from play (catsack.bots.expert.kinds): which players of unknown kind bid by the heuristic's
or the random bot's rule, read from the finished rounds (R14)."""

from __future__ import annotations

import random

import pytest

from catsack.bots.expert import search
from catsack.bots.expert.kinds import KIND_PRIOR, KIND_SURE, kind_odds, read_kinds
from catsack.bots.expert.players import KIND_HABITS, PastBid, RoundFacts, past_bids
from catsack.bots.expert.spec import parse_spec
from catsack.bots.random_bot import auction_chances, auction_move
from catsack.game import Game
from catsack.moves import BIDS, PASS_MOVE
from expert_tables import after_rounds


@pytest.mark.parametrize(("high", "money"), [(0, 15), (3, 15), (8, 15), (9, 15), (12, 13), (0, 1), (2, 4)])
def test_auction_chances_are_the_random_bots_own(high: int, money: int) -> None:
    """The chances the expert weighs a random bidder with are the ones its rule draws from (R12)."""
    chances = auction_chances(high, money)
    assert sum(chances.values()) == pytest.approx(1.0)
    assert all(k == 0 or high < k <= money for k in chances)
    legal = (*(BIDS[a] for a in range(high + 1, money + 1)), PASS_MOVE)
    rng = random.Random(high * 100 + money)
    draws = 40_000
    counts: dict[int, int] = {}
    for _ in range(draws):
        move = auction_move(legal, False, high, rng.random)
        key = 0 if move == PASS_MOVE else move.amount
        counts[key] = counts.get(key, 0) + 1
    for key in set(counts) | set(chances):
        assert counts.get(key, 0) / draws == pytest.approx(chances.get(key, 0.0), abs=0.01)
    assert auction_chances(5, 5) == {0: 1.0}  # it cannot raise: it passes


def test_option_and_levels() -> None:
    assert parse_spec("kinds=read").read_kinds is True
    assert parse_spec("kinds=met").read_kinds is False
    assert parse_spec("strong").read_kinds is False  # the lobby's levels play as before
    assert parse_spec("strong+kinds=read").read_kinds is True


def test_nothing_is_read_before_a_round_ends() -> None:
    view = Game.new(4, seed=1).view(0)
    for rule, coin in kind_odds(past_bids(view)):
        assert rule == pytest.approx(KIND_PRIOR) and coin == pytest.approx(KIND_PRIOR)
    assert read_kinds(view, None) == (None, (0.0,) * 4)
    assert read_kinds(view, [None, "heuristic", None, None]) == ((None, "heuristic", None, None), (0.0,) * 4)


def _odds(spec: str, seed: int, rounds: int) -> list[tuple[float, float]]:
    g = after_rounds(spec, seed, rounds)
    return kind_odds(past_bids(g.view(0)))[1:]


def test_rule_bidders_and_coin_bidders_are_told_apart() -> None:
    """By the end of the game heuristic bots read as bidding by their rule and random bots by theirs; bots
    that bid well below their estimate (``style:saver``) read as neither."""
    heuristic = [x for seed in range(3) for x in _odds("heuristic", seed, 8)]
    coin = [x for seed in range(3) for x in _odds("random", seed, 8)]
    saver = [x for seed in range(3) for x in _odds("style:saver", seed, 8)]
    assert min(rule for rule, _ in heuristic) > 0.5 and max(c for _, c in heuristic) < 0.01
    assert sum(rule >= KIND_SURE for rule, _ in heuristic) >= 6  # measured: 9 of 9
    assert sum(c >= KIND_SURE for _, c in coin) >= 6 and max(rule for rule, _ in coin) < 0.01
    assert max(max(x) for x in saver) < 0.05


def test_one_move_against_the_rule_undoes_its_reading() -> None:
    """A raise by more than one, or a bid well over the honest limit, is one the heuristic never makes."""
    honest = [PastBid(10.0, float(k % 8 + 1), float("inf"), None, None, 1, 15 - k % 8) for k in range(12)]
    rule, _ = kind_odds([honest])[0]
    assert rule > KIND_SURE
    assert kind_odds([[*honest, honest[0]._replace(step=3)]])[0][0] < 0.2
    assert kind_odds([[*honest, honest[0]._replace(low=15.0)]])[0][0] < 0.2


def test_read_kinds_names_coin_bidders_and_weighs_rule_habits_in() -> None:
    """A seat read as bidding by the random bot's rule is met as one (its own bid rule, R23-public
    evidence only); a rule bidder's habits move towards the heuristic's; seats whose kind the table shows,
    and the view's own seat, are never read."""
    g = after_rounds("random", 1, 8)
    view = g.view(0)
    odds = kind_odds(past_bids(view))
    kinds = read_kinds(view, None)
    assert kinds.players is not None
    for s in (1, 2, 3):
        assert (kinds.players[s] == "random") == (odds[s][1] >= KIND_SURE)
    shown = read_kinds(view, [None, "ismcts:strong", "classic", "heuristic"])
    assert shown.players == (None, "ismcts:strong", "classic", "heuristic") and shown.rule == (0.0,) * 4
    g = after_rounds("heuristic", 1, 8)
    view = g.view(0)
    kinds = read_kinds(view, None)
    assert kinds.players is None and kinds.rule[0] == 0.0 and min(kinds.rule[1:]) > 0.5
    table = RoundFacts(view)
    before = list(table.spread)
    table.blend_habits(kinds.rule, KIND_HABITS["heuristic"])
    for s in (1, 2, 3):
        assert table.spread[s] < before[s]


def test_the_reading_uses_only_what_the_seat_may_see() -> None:
    """A re-deal of what seat 0 cannot see (R23) changes nothing read, and a search reading kinds picks
    the same move."""
    g = after_rounds("random", 2, 5)
    view = g.view(0)
    before = kind_odds(past_bids(view))
    g.redeal(0, random.Random(3))
    assert kind_odds(past_bids(g.view(0))) == before
    seat = g.to_move
    assert seat is not None
    moves = {search(g.view(seat), random.Random(4), iterations=30, read_kinds=True).best for _ in range(2)}
    assert len(moves) == 1
