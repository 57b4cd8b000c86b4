"""One test (or a few) per rule of docs/rules.md, R1–R24, on hand-built positions.

Every scenario starts from an explicit setup (``Game.from_setup``) and plays an
explicit move list, so each expected number below was worked out by hand from
the rules. Seats are 0..n-1; with 4 seats the bank keeps 15 mice after filling
the mouse cards 2, 4 and 6 (R6).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from catsack import Card, Game, IllegalMoveError, ParseError, RoundResult, Setup, SetupError
from catsack.cards import CARDS, TOKENS
from catsack.events import (
    BidMade,
    Bought,
    DogChase,
    DogsCancel,
    GameOver,
    LastChoice,
    Passed,
    Placed,
    Refill,
    Revealed,
    RoundStarted,
    RoundVoid,
)
from catsack.record import loads_record
from catsack.view import RowCard

DATA = Path(__file__).parent / "data"
C = Card.parse  # short alias: C("+15") is the +15 cat


def places(*tokens: str) -> list[str]:
    return [f"place {t}" for t in tokens]


def game(seats: int, start: int, removed: Sequence[str], moves: Iterable[str] = (), dummy: Sequence[str] = ()) -> Game:
    g = Game.from_setup(seats, start, removed, dummy, events=True)
    for m in moves:
        g.play(m)
    return g


def spare(token: str) -> str:
    """A card to remove from a seat's set so that ``token`` stays in its hand."""
    return "R" if token != "R" else "+3"


def bought_4p(row: Sequence[str], bidding: Sequence[str] = ("bid 1", "pass", "pass", "pass")) -> Game:
    """4 seats, start 0: seat i places ``row[i]``; by default seat 0 bids 1 and the others pass."""
    return game(4, 0, [spare(t) for t in row], [*places(*row), *bidding])


def tokens(cards: Iterable[Card]) -> list[str]:
    return [c.token for c in cards]


def load(name: str) -> Game:
    return loads_record((DATA / name).read_text(encoding="utf-8"), source=name).to_game()


# Hands with the rabbit removed: +15 +11 +8 +5 +3 -5 -8 LD SD.
NO_RABBIT = ["R", "R", "R", "R"]


# ---------------------------------------------------------------- components (R1–R3)


def test_r1_pet_cards_seven_cats_rabbit_large_and_small_dog() -> None:
    assert TOKENS == ("+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD")
    assert [c.points for c in CARDS] == [15, 11, 8, 5, 3, -5, -8, 0, 0, 0]
    assert [c.token for c in CARDS if c.is_cat] == ["+15", "+11", "+8", "+5", "+3", "-5", "-8"]
    assert [c.token for c in CARDS if c.is_dog] == ["LD", "SD"]
    g = Game.new(5, seed=1)
    for seat in range(5):  # every seat owns a full set: its hand plus its removed card
        assert sorted([*g.hand(seat), g.removed(seat)]) == list(CARDS)


def test_r2_money_is_whole_mice() -> None:
    g = Game.new(4, seed=2)
    assert all(type(m) is int for m in (*g.money, g.bank))
    with pytest.raises(ParseError):
        g.play("bid 1.5")


def test_r3_mouse_cards_in_ascending_order() -> None:
    for n, cards in ((3, (3, 6)), (4, (2, 4, 6)), (5, (2, 3, 4, 6))):
        assert Game.new(n, seed=0).mouse_cards == cards
        assert list(cards) == sorted(cards)


# ---------------------------------------------------------------- setup (R4–R9)


def test_r4_three_to_five_seats_numbered_clockwise() -> None:
    for n in (3, 4, 5):
        assert Game.new(n, seed=0).seats == n
    for bad in (0, 1, 2, 6, "4", 4.0, None, True):
        with pytest.raises(SetupError):
            Game.new(bad, seed=0)  # type: ignore[arg-type]
        with pytest.raises(SetupError):
            Game.from_setup(bad, 0, ["R"] * 4)  # type: ignore[arg-type]
    # "Next player" is seat + 1 modulo n: placement from start 3 goes 3, 4, 0, 1, 2.
    g = game(5, 3, ["R"] * 5)
    order = []
    while g.phase == "placement":
        assert g.to_move is not None
        order.append(g.to_move)
        g.play(g.legal_moves()[0])
    assert order == [3, 4, 0, 1, 2]


def test_r5_start_money_and_bank_total_constant() -> None:
    for n, bank, total in ((3, 21, 66), (4, 27, 87), (5, 33, 108)):
        g = Game.new(n, seed=5)
        assert g.money == (15,) * n
        assert g.bank + sum(g.mouse_card_mice) == bank
        assert g.total_money() == total


def test_r6_mouse_cards_filled_from_the_bank_at_setup() -> None:
    for n, cards, keeps in ((3, (3, 6), 12), (4, (2, 4, 6), 15), (5, (2, 3, 4, 6), 18)):
        g = Game.new(n, seed=6)
        assert g.mouse_card_mice == cards
        assert g.bank == keeps
        assert g.next_payout == 0  # nobody can pass during placement


def test_r7_one_card_removed_per_seat_nine_in_hand() -> None:
    g = game(4, 0, ["+3", "LD", "-8", "R"])
    for seat, gone in enumerate(["+3", "LD", "-8", "R"]):
        assert len(g.hand(seat)) == 9
        assert C(gone) not in g.hand(seat)
        assert g.removed(seat) == C(gone)
    # Dealt at random: every card is sometimes removed, and hands never lose anything else.
    seen = Counter(Setup.deal(4, seed).removed[1] for seed in range(400))
    assert set(seen) == set(CARDS)


def test_r8_three_seats_dummy_deck_of_nine() -> None:
    dummy = ["LD", "+15", "-8", "R", "+3", "SD", "+11", "+8", "+5"]
    g = game(3, 0, ["R", "+15", "SD"], dummy=dummy)
    assert g.setup.dummy_removed == C("-5")
    assert g.row == (C("LD"),)  # the dummy's top card lies in the row before anyone places
    assert g.row_owners == (None,)
    for n in (3,):
        st = Setup.deal(n, 9)
        assert len(st.dummy) == 9 and len(set(st.dummy)) == 9
    with pytest.raises(SetupError):
        game(3, 0, ["R"] * 3, dummy=dummy[:8])
    with pytest.raises(SetupError):
        game(3, 0, ["R"] * 3, dummy=[*dummy[:8], "LD"])  # a card twice
    with pytest.raises(SetupError):
        game(4, 0, ["R"] * 4, dummy=dummy)  # only 3 seats have a dummy
    assert Setup.deal(4, 1).dummy == () and Setup.deal(4, 1).dummy_removed is None


def test_r9_start_player_chosen_or_random() -> None:
    assert game(4, 2, NO_RABBIT).start_player == 2
    assert game(4, 2, NO_RABBIT).to_move == 2
    assert Game.new(5, seed=1, start=4).start_player == 4
    assert {Game.new(4, seed=s).start_player for s in range(100)} == {0, 1, 2, 3}
    # One seed gives one deal, whether dealt as a Setup or straight into a Game.
    assert all(Game.new(n, seed=s).setup == Setup.deal(n, s) for n in (3, 4, 5) for s in range(30))
    with pytest.raises(SetupError):
        game(4, 4, NO_RABBIT)
    with pytest.raises(SetupError):
        Game.new(3, seed=1, start=-1)


# ---------------------------------------------------------------- a round (R10–R19)


def test_r10_placement_clockwise_from_start_row_order_4p() -> None:
    g = game(4, 2, NO_RABBIT, places("+15", "-8"))
    assert g.phase == "placement" and g.to_move == 0
    assert g.row == (C("+15"), C("-8")) and g.row_owners == (2, 3)
    assert g.face_up == 0
    with pytest.raises(IllegalMoveError) as err:
        g.play("bid 1")
    assert err.value.reason == "every seat must place a card before the bidding starts (R10)"
    assert err.value.seat == 0 and err.value.phase == "placement"
    with pytest.raises(IllegalMoveError, match=r"R is not in seat 0's hand"):
        g.play("place R")
    g.play("place +11")
    # A seat sees the cards placed before its own only face down.
    v = g.view(1)
    assert [(r.owner, r.card, r.face_up) for r in v.row] == [(2, None, False), (3, None, False), (0, None, False)]
    g.play("place SD")
    assert tuple(g.row_owners) == (2, 3, 0, 1) and g.phase == "bidding" and g.to_move == 2
    with pytest.raises(IllegalMoveError, match=r"already placed \(R10\)"):
        g.play("place +5")


def test_r10_three_seats_row_is_dummy_then_start_then_clockwise() -> None:
    dummy = ["LD", "+15", "-8", "R", "+3", "SD", "+11", "+8", "+5"]
    g = game(3, 1, ["R", "R", "R"], places("+15", "+11", "+8"), dummy=dummy)
    assert g.row == (C("LD"), C("+15"), C("+11"), C("+8"))
    assert g.row_owners == (None, 1, 2, 0)


def test_r11_first_reveal_4p_start_players_card() -> None:
    g = game(4, 1, NO_RABBIT, places("+15", "-8", "SD"))
    g.play("place +3")
    assert g.face_up == 1
    assert g.last_events() == (Placed(0, 3), Revealed(0, 1, C("+15")))
    v = g.view(3)
    assert v.row[0] == RowCard(1, C("+15"), True)
    assert v.row[1] == RowCard(2, None, False)


def test_r11_first_reveal_3p_dummy_card_start_card_stays_down() -> None:
    dummy = ["LD", "+15", "-8", "R", "+3", "SD", "+11", "+8", "+5"]
    g = game(3, 1, ["R", "R", "R"], places("+15", "+11", "+8"), dummy=dummy)
    assert g.face_up == 1
    assert g.last_events() == (Placed(0, 3), Revealed(0, None, C("LD")))
    v = g.view(2)
    assert v.row == (
        RowCard(None, C("LD"), True),
        RowCard(1, None, False),  # the start player's card stays down (R11)
        RowCard(2, C("+11"), False),  # seat 2's own card: it knows it, but it is face down
        RowCard(0, None, False),
    )


def test_r12_bidding_limits_and_order() -> None:
    g = game(4, 0, NO_RABBIT, places("+15", "+11", "+8", "+5"))
    assert g.to_move == 0  # the start player bids first
    assert [m.text for m in g.legal_moves()] == [f"bid {b}" for b in range(1, 16)] + ["pass"]
    g.play("bid 3")
    assert g.money == (15, 15, 15, 15)  # bid money is only set aside
    assert g.bids == (3, 0, 0, 0) and g.high_bid == 3 and g.high_bidder == 0
    assert g.last_events() == (BidMade(0, 3),)
    assert g.to_move == 1
    assert [m.text for m in g.legal_moves()] == [f"bid {b}" for b in range(4, 16)] + ["pass"]
    for bad, reason in (("bid 3", "higher than the high bid 3 (R12)"), ("bid 16", "seat 1 has only 15 mice (R12)")):
        assert not g.is_legal(bad)
        with pytest.raises(IllegalMoveError) as err:
            g.play(bad)
        assert reason in err.value.reason and err.value.seat == 1 and err.value.phase == "bidding"
    g.play("bid 15")
    # A seat whose money does not exceed the high bid can only pass; there is no other limit.
    assert [m.text for m in g.legal_moves()] == ["pass"]
    g.play("pass")
    g.play("pass")
    assert g.to_move == 0 and [m.text for m in g.legal_moves()] == ["pass"]
    g.play("pass")
    r = g.rounds[0]
    assert (r.buyer, r.price, r.payouts) == (1, 15, ((2, 2), (3, 4), (0, 6)))
    assert g.money == (21, 0, 17, 19)


def test_r12_bidding_skips_players_who_passed() -> None:
    g = game(5, 0, ["R"] * 5, places("+15", "+11", "+8", "+5", "+3"))
    seen = []
    for move in ("bid 1", "bid 2", "pass", "pass", "bid 5", "pass"):
        seen.append(g.to_move)
        g.play(move)
    assert seen == [0, 1, 2, 3, 4, 0]
    assert g.to_move == 1  # seats 2, 3 and 0 have passed; seat 1 answers seat 4's bid
    g.play("bid 6")
    assert g.to_move == 4


def test_r13_payouts_lowest_mouse_card_first_and_bid_taken_back() -> None:
    g = game(5, 0, ["R"] * 5, places("+15", "+11", "+8", "+5", "+3"))
    for move in ("bid 1", "bid 2", "pass", "pass", "bid 5"):
        g.play(move)
    assert g.next_payout == 4 and g.mouse_card_mice == (0, 0, 4, 6)
    g.play("pass")  # seat 0 takes back its bid of 1 (nothing paid) and the 4 mice
    assert g.last_events()[0] == Passed(0, 4, 4)
    assert g.money[0] == 19 and g.bids[0] == 0
    g.play("pass")  # seat 1: 6 mice; seat 4 is the last one in and buys at 5
    r = g.rounds[0]
    assert r.payouts == ((2, 2), (3, 3), (0, 4), (1, 6))
    assert (r.buyer, r.price) == (4, 5)
    assert g.money == (19, 21, 17, 18, 10)
    assert g.bank == 8  # 18 + 5, then 15 back onto the cards (R18)
    assert g.total_money() == 108


def test_r14_reveals_on_passing_4p_left_most_face_down() -> None:
    g = game(4, 0, NO_RABBIT, places("+15", "-8", "LD", "+3"))
    assert g.face_up == 1
    g.play("pass")
    assert g.face_up == 2 and g.last_events() == (Passed(0, 2, 2), Revealed(1, 1, C("-8")))
    g.play("pass")
    assert g.face_up == 3 and g.last_events() == (Passed(1, 4, 4), Revealed(2, 2, C("LD")))
    g.play("pass")
    assert g.face_up == 4
    assert g.last_events() == (Passed(2, 6, 6), Revealed(3, 3, C("+3")), LastChoice(3))


def test_r14_reveals_on_passing_5p() -> None:
    g = game(5, 3, ["R"] * 5, places("+15", "+11", "+8", "+5", "+3"))
    ups = [g.face_up]
    for move in ("bid 1", "pass", "pass", "pass"):
        g.play(move)
        ups.append(g.face_up)
    assert ups == [1, 1, 2, 3, 4]
    g.play("pass")  # the 4th pass shows the last card; seat 3 buys
    assert g.last_events()[:2] == (Passed(2, 6, 6), Revealed(4, 2, C("+3")))
    assert g.rounds[0].owners == (3, 4, 0, 1, 2)


def test_r14_three_player_reveal_order_dummy_then_start_then_both() -> None:
    dummy = ["-8", "+15", "+11", "+8", "+5", "+3", "-5", "R", "LD"]
    g = game(3, 1, ["R", "R", "R"], places("+15", "+11", "+8"), dummy=dummy)
    assert g.face_up == 1
    g.play("pass")  # seat 1 (start): 3 mice; the start player's card turns up
    assert g.face_up == 2
    assert g.last_events() == (Passed(1, 3, 3), Revealed(1, 1, C("+15")))
    assert g.view(0).row[1] == RowCard(1, C("+15"), True)
    assert g.view(0).row[2] == RowCard(2, None, False)
    g.play("pass")  # seat 2: 6 mice; both remaining cards turn up; seat 0 has the last choice
    assert g.face_up == 4
    assert g.last_events() == (
        Passed(2, 6, 6),
        Revealed(2, 2, C("+11")),
        Revealed(3, 0, C("+8")),
        LastChoice(0),
    )
    g.play("bid 1")
    r = g.rounds[0]
    assert r == RoundResult(
        number=1,
        start=1,
        row=(C("-8"), C("+15"), C("+11"), C("+8")),
        owners=(None, 1, 2, 0),
        buyer=0,
        price=1,
        chased=(),
        won=(C("-8"), C("+15"), C("+11"), C("+8")),
        payouts=((1, 3), (2, 6)),
        refilled=True,
    )
    assert g.money == (14, 18, 21) and g.bank == 4  # 12 + 1 - 9
    assert g.start_player == 0 and g.row == (C("+15"),)  # the dummy's next card leads round 2


def test_r15_high_bidder_buys_when_all_others_passed() -> None:
    g = game(4, 0, NO_RABBIT, places("+15", "+11", "+8", "+5"))
    for move in ("pass", "bid 2", "pass"):
        g.play(move)
    assert g.phase == "bidding" and not g.rounds
    g.play("pass")
    assert g.rounds[0].buyer == 1 and g.rounds[0].price == 2 and g.phase == "placement"


def test_r15_last_choice_bid_1_buys_the_row() -> None:
    g = game(4, 0, NO_RABBIT, places("+15", "+11", "LD", "-8"))
    for move in ("pass", "pass", "pass"):
        g.play(move)
    assert g.phase == "last choice" and g.to_move == 3 and g.face_up == 4
    assert [m.text for m in g.legal_moves()] == ["bid 1", "pass"]
    with pytest.raises(IllegalMoveError, match=r"only buy for 1 mouse \('bid 1'\) or pass \(R15\)"):
        g.play("bid 2")
    g.play("bid 1")
    assert g.last_events()[:2] == (DogChase(C("LD"), C("+15")), Bought(3, 1, (C("+11"), C("-8"))))
    r = g.rounds[0]
    assert (r.buyer, r.price, r.payouts, r.void) == (3, 1, ((0, 2), (1, 4), (2, 6)), False)
    assert g.money == (17, 19, 21, 14) and g.start_player == 3


def test_r15_last_choice_with_no_mice_can_only_pass() -> None:
    # Seat 0 spends all 15 mice on rounds 1-3 (1 + 8 + 6) while the bank ends too low to
    # refill (R18); seat 1 buys round 4, so seat 0 is last in round 5 with nobody bidding.
    moves = [
        *places("+15", "+15", "+15", "+15"), "bid 1", "pass", "pass", "pass",  # bank 16 -> refill -> 4
        *places("+11", "+11", "+11", "+11"), "bid 8", "pass", "pass", "pass",  # bank 12 -> refill -> 0
        *places("+8", "+8", "+8", "+8"), "bid 6", "pass", "pass", "pass",  # bank 6: no refill
    ]  # fmt: skip
    g = game(4, 0, NO_RABBIT, moves)
    assert g.money == (0, 21, 27, 33) and g.bank == 6 and g.mouse_card_mice == (0, 0, 0)
    for m in places("+5", "+5", "+5", "+5"):
        g.play(m)
    assert [m.text for m in g.legal_moves()] == ["pass"]  # R12: 0 mice cannot exceed a high bid of 0
    for m in ("pass", "bid 1", "pass", "pass", *places("+3", "+3", "+3", "+3"), "pass", "pass", "pass"):
        g.play(m)
    assert g.phase == "last choice" and g.to_move == 0 and g.money[0] == 0
    assert [m.text for m in g.legal_moves()] == ["pass"]
    assert not g.is_legal("bid 1")
    with pytest.raises(IllegalMoveError) as err:
        g.play("bid 1")
    assert err.value.reason == "seat 0 has no mouse to pay 1 (R15)"
    g.play("pass")
    assert g.rounds[-1].void and g.rounds[-1].number == 5
    assert g.total_money() == 87


def _dog_round(row: Sequence[str]) -> RoundResult:
    g = bought_4p(row)
    assert g.total_money() == 87
    return g.rounds[0]


def test_r16_large_dog_chases_highest_positive_cat_plus_fifteen() -> None:
    g = bought_4p(["+15", "+11", "LD", "R"])
    r = g.rounds[0]
    assert r.chased == (C("LD"), C("+15"))
    assert r.won == (C("+11"), C("R"))
    assert g.won(0) == (C("+11"), C("R")) and g.cat_points() == (11, 0, 0, 0)
    assert g.last_events() == (
        Passed(3, 6, 6),
        Revealed(3, 3, C("R")),
        DogChase(C("LD"), C("+15")),
        Bought(0, 1, (C("+11"), C("R"))),
        Refill(True, 4),
        RoundStarted(2, 0),
    )
    assert g.money == (14, 17, 19, 21) and g.bank == 4


def test_r16_small_dog_chases_most_negative_cat_minus_eight() -> None:
    r = _dog_round(["-5", "-8", "SD", "+15"])
    assert r.chased == (C("SD"), C("-8"))
    assert r.won == (C("-5"), C("+15"))


def test_r16_large_dog_without_positive_cat_chases_minus_five() -> None:
    g = bought_4p(["-8", "-5", "LD", "R"])
    assert g.rounds[0].chased == (C("LD"), C("-5"))  # -5 before -8
    assert sorted(g.won(0)) == [C("-8"), C("R")] and g.cat_points()[0] == -8
    assert DogChase(C("LD"), C("-5")) in g.last_events()


def test_r16_small_dog_without_negative_cat_chases_plus_three() -> None:
    r = _dog_round(["+5", "+3", "SD", "+15"])
    assert r.chased == (C("SD"), C("+3"))  # the lowest positive cat
    assert r.won == (C("+5"), C("+15"))


def test_r16_two_dogs_cancel_no_cat_chased() -> None:
    g = bought_4p(["+15", "LD", "-8", "SD"])
    r = g.rounds[0]
    assert r.chased == (C("LD"), C("SD"))
    assert r.won == (C("+15"), C("-8"))
    assert DogsCancel((C("LD"), C("SD"))) in g.last_events()
    assert not any(isinstance(e, DogChase) for e in g.last_events())


def test_r16_two_dogs_of_the_same_kind_cancel() -> None:
    r = _dog_round(["LD", "+15", "LD", "+11"])
    assert r.chased == (C("LD"), C("LD")) and r.won == (C("+15"), C("+11"))
    r = _dog_round(["SD", "-8", "SD", "LD"])  # three dogs: all go, the -8 stays
    assert r.chased == (C("SD"), C("SD"), C("LD")) and r.won == (C("-8"),)


def test_r16_lone_dog_without_cat_just_goes_back() -> None:
    g = bought_4p(["R", "LD", "R", "R"])
    r = g.rounds[0]
    assert r.chased == (C("LD"),) and r.won == (C("R"),) * 3
    assert DogChase(C("LD"), None) in g.last_events()
    r = _dog_round(["SD", "R", "R", "R"])
    assert r.chased == (C("SD"),) and r.won == (C("R"),) * 3


def test_r16_rabbits_never_chased() -> None:
    r = _dog_round(["R", "SD", "+3", "R"])  # no negative cat: the +3 goes, not a rabbit
    assert r.chased == (C("SD"), C("+3")) and r.won == (C("R"), C("R"))
    r = _dog_round(["R", "LD", "-8", "R"])
    assert r.chased == (C("LD"), C("-8")) and r.won == (C("R"), C("R"))


def test_r16_one_of_two_equal_cats_goes() -> None:
    r = _dog_round(["+15", "LD", "+15", "+3"])
    assert r.chased == (C("LD"), C("+15")) and sorted(r.won) == [C("+15"), C("+3")]
    r = _dog_round(["-8", "-8", "SD", "R"])
    assert r.chased == (C("SD"), C("-8")) and sorted(r.won) == [C("-8"), C("R")]


def test_r16_no_dog_buyer_takes_the_whole_row() -> None:
    r = _dog_round(["+15", "-8", "R", "+3"])
    assert r.chased == () and r.won == (C("+15"), C("-8"), C("R"), C("+3"))


def test_r17_buyer_pays_bank_takes_row_and_starts_next_round() -> None:
    g = game(4, 0, NO_RABBIT, [*places("+15", "+11", "-8", "+3"), "pass", "pass", "bid 5"])
    g.play("pass")
    assert g.money == (17, 19, 10, 21)
    assert g.bank == 8  # 15 + 5 = 20, then 12 back onto the cards
    assert g.won(2) == (C("+15"), C("+11"), C("-8"), C("+3"))
    assert g.start_player == 2 and g.to_move == 2 and g.round == 2
    assert g.last_events()[-3:] == (Bought(2, 5, g.won(2)), Refill(True, 8), RoundStarted(2, 2))
    g.play("place +5")
    assert g.row_owners == (2,)
    assert g.view(None).won[2] == g.won(2)  # the won pile is public


def test_r17_bought_event_and_round_result_list_the_won_cards_alike() -> None:
    g = bought_4p(["R", "-8", "LD", "-5"])
    bought = next(e for e in g.last_events() if isinstance(e, Bought))
    assert bought.cards == g.rounds[0].won == g.won(0)


def test_r18_refill_only_if_the_bank_can_fill_every_card() -> None:
    # Bank 15 after setup. Round 1 bought for 1: 16 >= 12, refill, bank 4.
    # Round 2 bought for 1: 5 < 12, nothing refilled; round 3's passers get nothing.
    one_round = ["bid 1", "pass", "pass", "pass"]
    g = game(4, 0, NO_RABBIT, [*places("+15", "+15", "+15", "+15"), *one_round])
    assert g.bank == 4 and g.mouse_card_mice == (2, 4, 6) and g.rounds[0].refilled
    for m in (*places("+11", "+11", "+11", "+11"), *one_round):
        g.play(m)
    assert g.bank == 5 and g.mouse_card_mice == (0, 0, 0) and not g.rounds[1].refilled
    assert g.last_events()[-2:] == (Refill(False, 5), RoundStarted(3, 0))
    before = g.money
    for m in (*places("+8", "+8", "+8", "+8"), *one_round):
        g.play(m)
    assert g.rounds[2].payouts == ((1, 0), (2, 0), (3, 0))
    assert g.money == (before[0] - 1, *before[1:])
    assert g.bank == 6 and g.total_money() == 87


def test_r18_buyers_payment_reaches_the_bank_before_the_refill() -> None:
    # Round 1 for 1 leaves the bank at 4; round 2 for 8 brings it to exactly 12: refill, bank 0.
    moves = [*places("+15", "+15", "+15", "+15"), "bid 1", "pass", "pass", "pass"]
    g = game(4, 0, NO_RABBIT, [*moves, *places("+11", "+11", "+11", "+11"), "bid 8", "pass", "pass"])
    g.play("pass")
    assert g.rounds[1].refilled and g.bank == 0 and g.mouse_card_mice == (2, 4, 6)


def test_r19_void_round_and_unfilled_mouse_cards_after_it() -> None:
    g = game(4, 0, NO_RABBIT, [*places("+15", "-8", "LD", "+3"), "pass", "pass", "pass"])
    g.play("pass")  # the last player passes too under R15
    assert g.last_events() == (RoundVoid(1, 3), Refill(False, 15), RoundStarted(2, 0))
    r = g.rounds[0]
    assert r.void and r.buyer is None and r.price is None
    assert r.chased == () and r.won == () and not r.refilled
    assert r.payouts == ((0, 2), (1, 4), (2, 6))  # the void pass itself pays nothing
    assert r.row == (C("+15"), C("-8"), C("LD"), C("+3"))
    assert g.won(0) == g.won(1) == g.won(2) == g.won(3) == ()  # the row went back to the box
    assert g.money == (17, 19, 21, 15) and g.bank == 15
    assert g.start_player == 0 and g.round == 2  # the start player stays; the round counted
    assert g.mouse_card_mice == (0, 0, 0) and [len(g.hand(s)) for s in range(4)] == [8, 8, 8, 8]
    # Round 2: passers get nothing (R19); the purchase refills the cards (16 >= 12).
    for m in places("+11", "+11", "+11", "+11"):
        g.play(m)
    assert g.next_payout == 0
    g.play("pass")
    assert g.last_events()[0] == Passed(0, 0, None)
    for m in ("bid 1", "pass", "pass"):
        g.play(m)
    r2 = g.rounds[1]
    assert r2.payouts == ((0, 0), (2, 0), (3, 0)) and r2.buyer == 1 and r2.refilled
    assert g.money == (17, 18, 21, 15) and g.bank == 4 and g.mouse_card_mice == (2, 4, 6)


def test_r19_void_round_in_three_seats_returns_dummy_card_too() -> None:
    dummy = ["-8", "+15", "+11", "+8", "+5", "+3", "-5", "R", "LD"]
    g = game(3, 0, ["R", "R", "R"], [*places("+15", "+11", "+8"), "pass", "pass", "pass"], dummy=dummy)
    r = g.rounds[0]
    assert r.void and r.row == (C("-8"), C("+15"), C("+11"), C("+8")) and r.payouts == ((0, 3), (1, 6))
    assert g.money == (18, 21, 15) and g.bank == 12 and g.row == (C("+15"),)


# ---------------------------------------------------------------- end and scoring (R20–R22)


def test_r20_exactly_nine_rounds_then_over() -> None:
    g = load("4p_void_round.json")
    assert g.is_over and g.phase == "over" and g.to_move is None and g.round == 9
    assert [r.number for r in g.rounds] == list(range(1, 10))
    assert all(g.hand(s) == () for s in range(4))
    assert g.legal_moves() == ()
    with pytest.raises(IllegalMoveError) as err:
        g.play("pass")
    assert err.value.reason == "the game is over (R20)" and err.value.seat is None
    # No refill after the 9th round: the last price stays in the bank.
    assert not g.rounds[-1].refilled and g.mouse_card_mice == (0, 0, 0)
    assert isinstance(g.last_events()[-1], GameOver)
    for seed in range(20):
        rng = random.Random(seed)
        h = Game.new(3 + seed % 3, rng=rng)
        while not h.is_over:
            h.play(rng.choice(h.legal_moves()))
        assert len(h.rounds) == 9


def test_r21_score_is_cat_sum_plus_money_rabbits_and_dogs_zero() -> None:
    g = load("3p_dogs.json")
    # Won piles (hand-built record, see tests/data/README.md): dogs never reach a pile.
    assert sorted(tokens(g.won(0))) == sorted(["-8", "R", "+15", "+3", "+5", "+5", "+5", "+5"])
    assert g.cat_points() == (30, 46, 17)
    assert g.money == (24, 15, 24)
    assert g.scores() == (54, 61, 41)
    assert not any(c.is_dog for s in range(3) for c in g.won(s))


def test_r22_tie_on_score_broken_by_higher_cat_sum() -> None:
    g = load("4p_tiebreak.json")
    assert g.scores() == (39, 80, 22, 80)
    assert g.cat_points() == (0, 58, 4, 78)
    assert g.winners() == (3,)
    assert g.ranking() == (3, 2, 4, 1)


def test_r22_tie_on_score_and_cat_sum_shares_the_victory() -> None:
    g = load("4p_shared_victory.json")
    assert g.scores() == (79, 3, 79, 9)
    assert g.cat_points() == (49, -5, 49, -3)
    assert g.winners() == (0, 2)
    assert g.ranking() == (1, 4, 1, 3)
    assert g.last_events()[-1] == GameOver((79, 3, 79, 9), (0, 2))


def test_r22_no_winner_before_the_end() -> None:
    g = load("5p_random.json")
    h = Game(g.setup)
    for m in g.moves[:-1]:
        h.play(m)
    assert h.winners() == () and g.winners() == (4,)


# ---------------------------------------------------------------- information (R23, R24)


def test_r23_seat_sees_own_hand_removed_and_face_down_card_never_others() -> None:
    g = game(4, 0, ["+3", "LD", "-8", "R"], places("+15", "-8"))
    v0, v1, pub = g.view(0), g.view(1), g.view(None)
    assert v0.hand == g.hand(0) and v0.removed == C("+3")
    assert v1.hand == g.hand(1) and v1.removed == C("LD")
    assert v0.row == (RowCard(0, C("+15"), False), RowCard(1, None, False))
    assert v1.row == (RowCard(0, None, False), RowCard(1, C("-8"), False))
    assert v0.history == ((0, "place +15"), (1, "place ?"))
    assert v1.history == ((0, "place ?"), (1, "place -8"))
    assert pub.hand == () and pub.removed is None and pub.legal == ()
    assert all(r.card is None for r in pub.row)
    assert v0.hand_sizes == (8, 8, 9, 9)  # public: how many cards each seat holds
    assert v0.legal == () and g.view(2).legal == g.legal_moves()  # only the seat to move gets moves
    # A view's JSON form carries the same facts: one hand and one removed card, the viewer's.
    d0 = v0.to_dict()
    assert d0["hand"] == tokens(g.hand(0)) and d0["removed"] == "+3"
    assert d0["row"] == [{"owner": 0, "card": "+15", "face_up": False}, {"owner": 1, "card": None, "face_up": False}]
    json.dumps(d0)
    # Once the round is bought, every row card has been shown and the history names them.
    for m in (*places("+11", "SD"), "bid 1", "pass", "pass", "pass"):
        g.play(m)
    assert g.view(3).history[:4] == ((0, "place +15"), (1, "place -8"), (2, "place +11"), (3, "place SD"))


def test_r23_three_seats_dummy_face_down_card_and_order_hidden() -> None:
    dummy = ["-8", "+15", "+11", "+8", "+5", "+3", "-5", "R", "LD"]
    g = game(3, 0, ["R", "R", "R"], dummy=dummy)
    for seat in (0, 1, 2, None):
        v = g.view(seat)
        assert v.row == (RowCard(None, None, False),)  # nobody sees the dummy's card before placing
    for m in places("+15", "+11", "+8"):
        g.play(m)
    assert g.view(1).row[0] == RowCard(None, C("-8"), True)
    assert g.view(1).row[1] == RowCard(0, None, False)


def test_r24_money_hidden_by_default_shown_with_table_option() -> None:
    g = game(4, 0, NO_RABBIT, [*places("+15", "+11", "+8", "+5"), "pass", "bid 3", "pass", "pass"])
    assert g.money == (17, 12, 19, 21)
    v = g.view(2)
    assert v.money == (None, None, 19, None) and not v.money_visible and v.my_money == 19
    assert g.view(None).money == (None, None, None, None)
    shown = g.view(2, show_money=True)
    assert shown.money == (17, 12, 19, 21) and shown.money_visible
    assert g.public_view(show_money=True).money == (17, 12, 19, 21)
    # Every change of money is public (R24): the bank and the payouts are in every view.
    assert v.bank == g.bank and v.rounds[0].payouts == ((0, 2), (2, 4), (3, 6)) and v.rounds[0].price == 3


def test_r24_money_public_once_the_game_is_over() -> None:
    g = load("4p_void_round.json")
    v = g.view(0)
    assert v.money == (21, 19, 19, 17) and v.scores == (25, 40, 35, 37) and v.winners == (1,)
