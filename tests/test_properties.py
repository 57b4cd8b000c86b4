"""Properties of whole random games: money (R5), rounds (R10, R20), legality, undo, clone, records.

Each example deals a game from a Hypothesis-drawn seed and plays it with a
seeded random policy; ``pass_bias`` makes the policy pass more often, which
gives longer auctions, void rounds (R19) and empty mouse cards (R18). The
examples are derandomized under the ``ci`` profile (tests/conftest.py).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack import Game, Move
from catsack.cards import CARDS
from catsack.moves import PASS_MOVE, bid, place
from catsack.record import dumps_record, loads_record, record_from_game
from catsack.setup import TOTAL_MONEY

SEATS = st.sampled_from([3, 4, 5])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
BIAS = st.sampled_from([0.0, 0.5, 0.85])


def choose(game: Game, rng: random.Random, pass_bias: float) -> Move:
    moves = game.legal_moves()
    if moves[-1] == PASS_MOVE and len(moves) > 1 and rng.random() < pass_bias:
        return PASS_MOVE
    if pass_bias and moves[0].is_bid:  # bid low: a uniform bid usually ends the auction at once
        return moves[min(int(rng.random() * 3), len(moves) - 1)]
    return moves[int(rng.random() * len(moves))]


def random_game(seats: int, seed: int, pass_bias: float = 0.0, *, events: bool = False) -> Game:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng, events=events)
    while not g.is_over:
        g.play(choose(g, rng, pass_bias))
    return g


def candidate_moves(game: Game) -> list[Move]:
    """Every move that could be legal now, plus near misses (R10, R12, R15)."""
    top = max(game.money) + 2
    return [*(place(c) for c in CARDS), *(bid(b) for b in range(1, top + 1)), PASS_MOVE]


@settings(max_examples=1000)
@given(SEATS, SEEDS, BIAS)
@pytest.mark.slow
def test_invariants_along_random_games(seats: int, seed: int, pass_bias: float) -> None:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    total = TOTAL_MONEY[seats]
    assert g.total_money() == total
    plies = 0
    while not g.is_over:
        legal = g.legal_moves()
        assert legal, "a legal move exists until the end"
        assert g.to_move is not None and g.phase in ("placement", "bidding", "last choice")
        assert len(set(legal)) == len(legal)
        m = choose(g, rng, pass_bias)
        assert g.is_legal(m)
        g.play(m)
        plies += 1
        assert g.total_money() == total  # R5: money only moves between seats, bank and cards
        assert min(g.money) >= 0 and g.bank >= 0
    assert g.to_move is None and g.legal_moves() == () and g.phase == "over"
    assert len(g.rounds) == 9 and [r.number for r in g.rounds] == list(range(1, 10))  # R20
    assert all(g.hand(s) == () for s in range(seats))
    for r in g.rounds:
        # Each round each seat places exactly one card; with 3 seats the dummy adds one (R10).
        expected = Counter(range(seats)) + (Counter([None]) if seats == 3 else Counter())
        assert Counter(r.owners) == expected and len(r.row) == sum(expected.values())
        assert r.void == (r.buyer is None)
        assert len(r.payouts) == seats - 1  # a void round's last pass pays nothing and is not listed
    placed = Counter((owner, card) for r in g.rounds for owner, card in zip(r.owners, r.row, strict=True))
    for s in range(seats):  # every seat placed its 9 cards: the set minus the removed one
        assert sorted(c for (o, c), k in placed.items() if o == s for _ in range(k)) == sorted(
            c for c in CARDS if c != g.removed(s)
        )
    assert g.scores() == tuple(p + m for p, m in zip(g.cat_points(), g.money, strict=True))  # R21
    assert plies == len(g.moves)


@settings(max_examples=150)
@given(SEATS, SEEDS, BIAS)
def test_is_legal_agrees_with_legal_moves(seats: int, seed: int, pass_bias: float) -> None:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    while True:
        legal = set(g.legal_moves())
        for m in candidate_moves(g):
            assert g.is_legal(m) == (m in legal), (m, g)
        if g.is_over:
            break
        g.play(choose(g, rng, pass_bias))


@settings(max_examples=400)
@given(SEATS, SEEDS, BIAS, st.lists(st.integers(min_value=0, max_value=150), min_size=1, max_size=8))
@pytest.mark.slow
def test_undo_restores_the_exact_state(seats: int, seed: int, pass_bias: float, points: list[int]) -> None:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng, events=bool(seed & 1))
    checkpoints = set(points)
    while not g.is_over:
        m = choose(g, rng, pass_bias)
        if g.ply in checkpoints:
            before = g.clone()
            assert before == g
            g.play(m)
            assert g.undo() == m
            assert g == before
            assert g.legal_moves() == before.legal_moves() and g.rounds == before.rounds
            if g.keeps_events:
                assert g.event_log() == before.event_log()
        g.play(m)
    final = g.clone()
    played = list(g.moves)
    for expected in reversed(played):
        assert g.undo() == expected
    assert g == Game(g.setup, events=g.keeps_events)
    for m in played:  # and forward again to the same end
        g.play(m)
    assert g == final


@settings(max_examples=200)
@given(SEATS, SEEDS, BIAS, st.integers(min_value=0, max_value=300))
def test_clone_is_independent(seats: int, seed: int, pass_bias: float, cut: int) -> None:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    while not g.is_over and g.ply < cut:
        g.play(choose(g, rng, pass_bias))
    c = g.clone()
    snapshot = (g.money, g.bank, g.moves, g.rounds, [g.hand(s) for s in range(seats)], g.row)
    while not c.is_over:
        c.play(choose(c, rng, pass_bias))
    while c.ply > g.ply // 2:
        c.undo()
    assert (g.money, g.bank, g.moves, g.rounds, [g.hand(s) for s in range(seats)], g.row) == snapshot


@settings(max_examples=300)
@given(SEATS, SEEDS, BIAS, st.integers(min_value=0, max_value=300))
def test_record_round_trip(seats: int, seed: int, pass_bias: float, cut: int) -> None:
    full = random_game(seats, seed, pass_bias)
    g = Game(full.setup)
    for m in full.moves[:cut]:
        g.play(m)
    text = dumps_record(record_from_game(g, [f"P{i}" for i in range(seats)], note="x"))
    record = loads_record(text)
    assert record.players == [f"P{i}" for i in range(seats)] and record.extra == {"note": "x"}
    assert record.to_game() == g
    assert loads_record(text.encode("utf-8")).to_game() == g  # bytes input too
    assert dumps_record(loads_record(text)) == text


@settings(max_examples=200)
@given(SEATS, SEEDS, BIAS)
def test_event_log_replayed_equals_kept_log(seats: int, seed: int, pass_bias: float) -> None:
    kept = random_game(seats, seed, pass_bias, events=True)
    plain = random_game(seats, seed, pass_bias)
    assert kept == plain
    assert kept.event_log() == plain.event_log()
    assert [kept.events(i) for i in range(kept.ply)] == [tuple(e) for e in plain.event_log()]


def test_thousands_of_random_games_keep_money_and_rounds() -> None:
    """A plain loop over 3000 games (1000 per seat count) for the cheapest invariants."""
    voids = dogs2 = unfilled = 0
    for i in range(3000):
        seats = 3 + i % 3
        g = random_game(seats, i, (0.0, 0.5, 0.85)[i % 3])
        assert g.total_money() == TOTAL_MONEY[seats]
        assert len(g.rounds) == 9 and g.is_over and len(g.moves) == g.ply
        assert g.winners() and set(g.winners()) <= set(range(seats))
        voids += sum(r.void for r in g.rounds)
        dogs2 += sum(len(r.chased) >= 2 and r.chased[1].is_dog for r in g.rounds)
        unfilled += sum(not r.refilled for r in g.rounds[:-1] if not r.void)
    # The policies reach the rare branches often enough for the properties above to mean something.
    assert voids > 100 and dogs2 > 100 and unfilled > 100
