"""Cards (R1) and moves (R10, R12, R13, R15): exact text forms both ways, and parser fuzzing.

The parsers are the first thing user input meets: whatever they are given,
they return a value whose text is exactly the input, or raise ParseError
(a ValueError) — never anything else.
"""

from __future__ import annotations

import pickle
import random
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack import Card, Game, Move, ParseError
from catsack.cards import CARDS, CATS, DOGS, POINTS, TOKENS, parse_card
from catsack.errors import CatsackError
from catsack.moves import BID, PASS, PASS_MOVE, PLACE, bid, parse_move, place

CANONICAL_MOVES = [*(f"place {t}" for t in TOKENS), *(f"bid {b}" for b in range(1, 250)), "pass"]


# ---------------------------------------------------------------- cards


def test_r1_card_tokens_round_trip() -> None:
    assert len(CARDS) == 10
    for i, tok in enumerate(TOKENS):
        card = Card.parse(tok)
        assert card == CARDS[i] == Card(i) and int(card) == i
        assert card.token == str(card) == f"{card}" == tok
        assert f"{card:>4}" == f"{tok:>4}"
        assert eval(repr(card), {"Card": Card}) is card
        assert parse_card(tok) is card


def test_r1_card_points_and_kinds() -> None:
    assert dict(zip(TOKENS, POINTS, strict=True)) == {
        "+15": 15, "+11": 11, "+8": 8, "+5": 5, "+3": 3, "-5": -5, "-8": -8, "R": 0, "LD": 0, "SD": 0,
    }  # fmt: skip
    assert [c.token for c in CATS] == ["+15", "+11", "+8", "+5", "+3", "-5", "-8"]
    assert DOGS == (Card.LARGE_DOG, Card.SMALL_DOG)
    assert not Card.RABBIT.is_cat and not Card.RABBIT.is_dog and Card.RABBIT.points == 0


@pytest.mark.parametrize("text", ["15", "+15 ", " +15", "ld", "Ld", "r", "rabbit", "", "+0", "-3", "-15", "LD SD", "?"])
def test_card_parse_rejects_non_tokens(text: str) -> None:
    with pytest.raises(ParseError) as err:
        Card.parse(text)
    assert repr(text) in str(err.value)  # the message quotes the input


@pytest.mark.parametrize("value", [None, 15, 0, b"+15", ["+15"], 1.5, Card.P15])
def test_card_parse_rejects_non_text(value: object) -> None:
    with pytest.raises(ParseError):
        parse_card(value)


# ---------------------------------------------------------------- moves


@pytest.mark.parametrize("text", CANONICAL_MOVES)
def test_move_text_round_trip(text: str) -> None:
    m = Move.parse(text)
    assert str(m) == m.text == text
    assert parse_move(text) == m and hash(parse_move(text)) == hash(m)
    assert eval(repr(m), {"Move": Move}) == m
    assert pickle.loads(pickle.dumps(m)) == m


def test_move_fields_and_constructors() -> None:
    m = Move.parse("place LD")
    assert (m.kind, m.arg, m.card, m.is_place) == (PLACE, int(Card.LARGE_DOG), Card.LARGE_DOG, True)
    assert place(Card.LARGE_DOG) is place("LD") and place("LD") == m
    b = Move.parse("bid 42")
    assert (b.kind, b.arg, b.amount, b.is_bid) == (BID, 42, 42, True)
    assert bid(42) == b and bid(10**6) == Move.parse("bid 1000000")
    p = Move.parse("pass")
    assert p is PASS_MOVE and (p.kind, p.arg, p.is_pass) == (PASS, 0, True)
    with pytest.raises(AttributeError):
        _ = p.card
    with pytest.raises(AttributeError):
        _ = m.amount
    with pytest.raises(AttributeError):
        b.arg = 3
    assert len({Move.parse(t) for t in CANONICAL_MOVES}) == len(CANONICAL_MOVES)
    assert Move.parse("bid 3") != "bid 3"  # a move is not its text


@pytest.mark.parametrize(
    "text",
    [
        "", "bid", "bid ", "bid 0", "bid 01", "bid -1", "bid +3", "bid 1.0", "bid 1e3", "bid  1", "Bid 1",
        "BID 1", " pass", "pass ", "Pass", "PASS", "passe", "place", "place ", "place ?", "place 15",
        "place +15 ", "place  +15", "place r", "bid \u0661", "bid \uff11", "bid 1234567890", "bid 1_000",
        "pass\n", "\tpass", "place\t+15", "bid\t3", "buy", "bid 1 2",
    ],
)  # fmt: skip
def test_parse_move_rejects_non_canonical_text(text: str) -> None:
    with pytest.raises(ParseError) as err:
        parse_move(text)
    assert repr(text) in str(err.value)


@pytest.mark.parametrize("value", [None, 3, b"pass", bytearray(b"pass"), ["pass"], {"pass": 1}, Move.parse("pass")])
def test_parse_move_rejects_non_text(value: object) -> None:
    with pytest.raises(ParseError):
        parse_move(value)


@pytest.mark.parametrize(("kind", "arg"), [(PLACE, -1), (PLACE, 10), (BID, 0), (BID, -5), (BID, True), (7, 0)])
def test_move_constructor_rejects_bad_values(kind: int, arg: int) -> None:
    with pytest.raises(ParseError):
        Move(kind, arg)


def test_bid_helper_rejects_non_whole_amounts() -> None:
    for bad in (0, -1, True, 1.0, "3"):
        with pytest.raises(ParseError):
            bid(bad)  # type: ignore[arg-type]


# ---------------------------------------------------------------- fuzzing


def _check_move_text(text: object) -> None:
    try:
        m = parse_move(text)
    except CatsackError:
        return
    assert isinstance(text, str) and str(m) == text  # only canonical text parses, and it round-trips


def _check_card_text(text: object) -> None:
    try:
        c = Card.parse(text)  # type: ignore[arg-type]
    except CatsackError:
        assert text not in TOKENS
        return
    assert text in TOKENS and c.token == text


# Mostly the characters moves are made of, so that near-misses are common.
NEAR = st.text(alphabet="bidplacesBIDP +-0123456789RLSD?.\t\n\u0661", max_size=14)
PREFIXED = st.tuples(st.sampled_from(["bid ", "place ", "pass", ""]), st.text(max_size=12)).map("".join)
ANYTHING = st.one_of(
    st.none(),
    st.integers(),
    st.floats(allow_nan=True),
    st.binary(max_size=20),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@settings(max_examples=400)
@given(st.one_of(st.text(), NEAR, PREFIXED, st.sampled_from(CANONICAL_MOVES)))
def test_fuzz_parse_move_text(text: str) -> None:
    _check_move_text(text)


@settings(max_examples=150)
@given(ANYTHING)
def test_fuzz_parse_move_non_text(value: object) -> None:
    with pytest.raises(ParseError):
        parse_move(value)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=6), NEAR, st.sampled_from(TOKENS), ANYTHING))
def test_fuzz_card_parse(value: object) -> None:
    _check_card_text(value)


@settings(max_examples=300)
@given(
    st.one_of(st.integers(), st.sampled_from([PLACE, BID, PASS])),
    st.one_of(st.integers(), st.integers(min_value=-2, max_value=12), st.integers(min_value=1, max_value=10**9 - 1)),
)
def test_fuzz_move_constructor(kind: int, arg: int) -> None:
    try:
        m = Move(kind, arg)
    except CatsackError:
        return
    assert parse_move(str(m)) == m


def test_any_constructible_bid_round_trips() -> None:
    """Bids that cannot be written back as text (over 9 digits) are refused at construction."""
    m = bid(10**9 - 1)
    assert parse_move(str(m)) == m
    assert pickle.loads(pickle.dumps(m)) == m
    with pytest.raises(CatsackError):
        bid(10**9)


@settings(max_examples=200)
@given(
    st.integers(min_value=0, max_value=2**32 - 1),
    st.integers(min_value=0, max_value=120),
    NEAR | PREFIXED | st.sampled_from(CANONICAL_MOVES),
)
def test_fuzz_game_play_text(seed: int, cut: int, text: str) -> None:
    """Any text played at any point of a game is a legal move or a CatsackError (R10-R15)."""
    rng = random.Random(seed)
    g = Game.new(3 + seed % 3, rng=rng)
    while not g.is_over and g.ply < cut:
        g.play(rng.choice(g.legal_moves()))
    legal = {m.text for m in g.legal_moves()}
    try:
        g.play(text)
    except CatsackError as exc:
        assert text not in legal
        assert isinstance(exc, ValueError)
        return
    assert text in legal


@settings(max_examples=100)
@given(st.integers(min_value=1, max_value=10**9 - 1))
def test_fuzz_bid_text_round_trip(amount: int) -> None:
    assert parse_move(f"bid {amount}") == bid(amount)
    assert str(bid(amount)) == f"bid {amount}"


def test_every_printable_single_word_is_handled() -> None:
    for ch in string.printable:
        for text in (ch, f"bid {ch}", f"place {ch}"):
            _check_move_text(text)
            _check_card_text(text)
