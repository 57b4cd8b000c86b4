"""The expert's ``dump`` style (``expert:dump=X``, ``players.DUMP_WEIGHTS``): a player seen hiding its worst
cards in finished rounds (R14: every placed card is turned up) is expected to hide bad cards again."""

from __future__ import annotations

import random

import pytest

from catsack.bots import make_bot
from catsack.bots.base import BotSpecError, play_game
from catsack.bots.expert.players import (
    DUMP,
    KIND_STYLES,
    RULE,
    STYLE_KEYS,
    RoundFacts,
    mixed_weights,
    seat_priors,
    styles,
)
from catsack.bots.expert.search import search
from catsack.bots.expert.spec import DUMP1_PRIOR, DUMP_PRIOR, STYLE_PRIORS, parse_spec, with_dump
from catsack.bots.expert.worlds import StyleDraw
from catsack.bots.heuristic import seat_money
from catsack.cards import Card
from catsack.game import Game
from expert_tables import after_rounds

READ = with_dump(STYLE_PRIORS["read"], 0.1)


def test_dump_option_and_its_defaults() -> None:
    assert parse_spec(None).dump == DUMP_PRIOR
    assert parse_spec("dump=0.2").dump == 0.2
    assert parse_spec("strong").dump == 0.0  # the lobby's levels keep their model
    assert parse_spec("strong+dump=0.1").dump == 0.1
    for bad in ("dump=0.9", "dump=-1", "dump=x"):
        with pytest.raises(BotSpecError, match="dump"):
            parse_spec(bad)
    assert parse_spec(None).dump1 == DUMP1_PRIOR and parse_spec("dump1=0.2").dump1 == 0.2
    assert parse_spec("normal").dump1 == 0.0
    with pytest.raises(BotSpecError, match="dump1"):
        parse_spec("dump1=0.6")


def test_the_dump_share_scales_the_other_styles() -> None:
    for prior in STYLE_PRIORS.values():
        assert with_dump(prior, 0.0) == prior
        shares = with_dump(prior, 0.2)
        assert sum(shares) == pytest.approx(1.0) and shares[DUMP] == 0.2
        assert shares[RULE] == pytest.approx(0.8 * prior[RULE])
    # known kinds never dump: the lobby shows them (R23), and their placements were measured
    assert all(st[DUMP] == 0.0 for st in KIND_STYLES.values())
    assert seat_priors(["heuristic", None], STYLE_PRIORS["read"], 0.1) == [KIND_STYLES["heuristic"], READ]
    # nor does the expert's own kind: it searches its placements (as it never bluffs, BLUFF_PRIOR)
    mine = seat_priors(["expert:strong"], STYLE_PRIORS["read"], 0.1)[0]
    assert mine[DUMP] == 0.0 and mine == pytest.approx(STYLE_PRIORS["read"])


def test_dumpers_are_read_as_dumpers_and_honest_players_are_not() -> None:
    dumpers = [
        st for seed in range(3) for st in styles(after_rounds("style:dumper", seed).view(0), priors=[READ] * 4)[1:]
    ]
    rule = [st for seed in range(3) for st in styles(after_rounds("heuristic", seed).view(0), priors=[READ] * 4)[1:]]
    # measured: mean dump share 0.68 for the dog-dumper, 0.04 for the heuristic bot after four rounds
    assert sum(st[DUMP] for st in dumpers) / len(dumpers) > 0.4
    assert sum(st[DUMP] for st in rule) / len(rule) < 0.15
    assert sum(st[RULE] for st in rule) / len(rule) > 0.6
    for st in dumpers + rule:
        assert len(st) == len(STYLE_KEYS) and sum(st) == pytest.approx(1.0) and min(st) > 0.0
    # with no dump share in the prior the style stays out of the reading
    assert all(st[DUMP] == 0.0 for st in styles(after_rounds("style:dumper", 0).view(0)))


def test_a_dumpers_next_face_down_card_is_drawn_from_its_bad_cards() -> None:
    """The issue's lost position in small: a player who dumped in the rounds before hides a card face down
    now; the expert's weights for that card lean to the player's worst cards left (R23: drawn only from the
    cards no one has seen it place)."""
    checked = 0
    for seed in range(6):
        g = after_rounds("style:dumper", seed)
        view = g.view(0)
        facts = RoundFacts(view, [READ] * 4)
        money = seat_money(view)
        for o in (1, 2, 3):
            pool = tuple(c for c in range(10) if facts.unseen[o] >> c & 1)
            bad = [c for c in pool if c in (Card.M8, Card.M5, Card.LARGE_DOG)]
            if not bad or len(pool) < 3:
                continue
            uniform = len(bad) / len(pool)
            w = mixed_weights(facts.style[o], money, o, view.start, pool)
            assert sum(w[c] for c in bad) / sum(w) > uniform + 0.15
            plain = RoundFacts(view)  # the same player without the dump style in the prior
            w0 = mixed_weights(plain.style[o], money, o, view.start, pool)
            assert sum(w[c] for c in bad) / sum(w) > sum(w0[c] for c in bad) / sum(w0)
            checked += 1
    assert checked >= 6


def test_the_search_leaves_dump_out_unless_asked_and_in_round_one() -> None:
    # the expert bot asks for DUMP_PRIOR; search() on its own (the analysis and hints) models no dumpers
    g = after_rounds("style:dumper", 2, rounds=3)
    seat = g.to_move
    assert seat is not None
    view = g.view(seat)
    a = search(view, random.Random(7), iterations=150)
    assert a.rewards == search(view, random.Random(7), iterations=150, dump=0.0).rewards
    assert a.rewards != search(view, random.Random(7), iterations=150, dump=0.3).rewards
    # round 1: no one has placed yet, and the lead model already has every player but its leaders dump
    first = after_rounds("style:dumper", 2, rounds=0)
    seat = first.to_move
    assert seat is not None and first.round == 1
    view = first.view(seat)
    a = search(view, random.Random(7), iterations=150)
    assert a.rewards == search(view, random.Random(7), iterations=150, dump=0.3).rewards


def test_round_one_draws_the_dump_style_per_player_and_one_other_style_for_all() -> None:
    # round 1, kinds unknown: rule, lead or any is drawn once for the group, dump apart for each player
    g = Game.new(4, seed=5)
    view = g.view(g.to_move or 0)
    n = 4
    for share in (0.0, 0.2):
        table = RoundFacts(view, [with_dump(STYLE_PRIORS["read"], share)] * n, None, None)
        draw = StyleDraw(table, view.seat or 0, frozenset(range(n)), (0.0, 1.0, 0.5, 0.0), False, [])
        rng = random.Random(11)
        worlds = [draw.draw(rng.random)[:n] for _ in range(4000)]
        dumpers = [sum(k == DUMP for k in w) for w in worlds]
        assert sum(dumpers) / (n * len(worlds)) == pytest.approx(share, abs=0.02)
        if share == 0.0:
            assert all(len(set(w)) == 1 for w in worlds)  # one style for the table, as before the style
        else:
            assert sum(d == n for d in dumpers) < 0.01 * len(worlds)  # a table of dumpers is rare (0.2**4)
            assert sum(d == 1 for d in dumpers) > 0.3 * len(worlds)
            # the players who do not dump share one style
            assert all(len({k for k in w if k != DUMP}) <= 1 for w in worlds)
    # the search takes round 1's share from dump1, not from dump
    seat = g.to_move
    assert seat is not None
    a = search(view, random.Random(7), iterations=150, dump=0.3)
    assert a.rewards == search(view, random.Random(7), iterations=150).rewards
    assert a.rewards != search(view, random.Random(7), iterations=150, dump1=0.3).rewards


def test_expert_with_the_dump_style_plays_whole_games_from_its_views() -> None:
    # R23: the re-deal test of the expert, with the dump style in its model
    rng = random.Random(3)
    g = after_rounds("style:dumper", 4, rounds=3)
    while g.to_move != 0:
        g.play(g.legal_moves()[-1])
    view = g.view(0)
    other = g.clone()
    other.redeal(0, rng)
    assert other.view(0) == view
    spec = "expert:iters=120+dump=0.3+dump1=0.2"
    assert make_bot(spec, seed=2).choose(view) == make_bot(spec, seed=2).choose(other.view(0))
    done = play_game(
        Game.new(4, seed=8), [make_bot(spec, seed=1)] + [make_bot("style:dumper", seed=s) for s in (2, 3, 4)]
    )
    assert done.is_over
