"""Views (R23, R24) leak nothing, and belief sampling agrees with them.

The leak test: re-deal everything R23 hides from a viewer (``Game.redeal``)
and the viewer's view must not change. The belief test: a game sampled from
a view (``catsack.belief.sample_game``) shows the viewer exactly that view.
Both run over random positions of random games, for 3, 4 and 5 seats and for
the public (spectator) view.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack import Game
from catsack.belief import BeliefError, card_beliefs, sample_game
from catsack.cards import CARDS, TOKENS
from catsack.errors import CatsackError
from catsack.setup import TOTAL_MONEY
from catsack.view import SEAT_FIELDS, VIEW_KEYS

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def play_to(seats: int, seed: int, cut: int, pass_bias: float = 0.6) -> tuple[Game, random.Random]:
    """Deal from ``seed`` and play up to ``cut`` moves (or the end) with a seeded policy."""
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    while not g.is_over and g.ply < cut:
        moves = g.legal_moves()
        if len(moves) > 1 and moves[-1].is_pass and rng.random() < pass_bias:
            g.play(moves[-1])
        else:
            g.play(moves[min(int(rng.random() * 3), len(moves) - 1)])
    return g, rng


def viewers(seats: int) -> list[int | None]:
    return [None, *range(seats)]


def hidden_state(g: Game) -> tuple[object, ...]:
    return (tuple(g.hand(s) for s in range(g.seats)), g.setup.removed, g.setup.dummy, g.row)


@pytest.mark.parametrize("seats", [3, 4, 5])
@settings(max_examples=120)
@given(seed=SEEDS, cut=st.integers(min_value=0, max_value=160))
@pytest.mark.slow
def test_r23_view_unchanged_when_hidden_cards_are_redealt(seats: int, seed: int, cut: int) -> None:
    g, rng = play_to(seats, seed, cut)
    for seat in viewers(seats):
        v = g.view(seat)
        shown = g.view(seat, show_money=True)
        for _ in range(2):
            h = g.clone()
            h.redeal(seat, rng)
            assert h.view(seat) == v
            assert h.view(seat, show_money=True) == shown
            # The re-dealt game is a real game: its setup and moves replay to it.
            replayed = Game(h.setup)
            for m in h.moves:
                replayed.play(m)
            assert replayed == h
            assert h.total_money() == TOTAL_MONEY[seats]
        assert g.view(seat) == v  # redeal works on the clone only


@pytest.mark.parametrize("seats", [3, 4, 5])
@settings(max_examples=120)
@given(seed=SEEDS, cut=st.integers(min_value=0, max_value=160), show_money=st.booleans())
@pytest.mark.slow
def test_sample_game_shows_the_viewer_the_same_view(seats: int, seed: int, cut: int, show_money: bool) -> None:
    g, rng = play_to(seats, seed, cut)
    for seat in viewers(seats):
        v = g.view(seat, show_money=show_money)
        s = sample_game(v, rng)
        assert s.view(seat, show_money=show_money) == v
        assert s.view(seat) == g.view(seat)
        # The sample continues like any game.
        while not s.is_over:
            s.play(rng.choice(s.legal_moves()))
        assert s.total_money() == TOTAL_MONEY[seats]


def test_redeal_and_sampling_do_change_hidden_cards() -> None:
    """Guard against vacuous leak tests: the hidden part really varies."""
    for seats in (3, 4, 5):
        g, rng = play_to(seats, 99, 2 * seats + 1)  # mid-round: hands and face-down cards exist
        for seat in viewers(seats):
            redealt = set()
            sampled = set()
            for _ in range(30):
                h = g.clone()
                h.redeal(seat, rng)
                redealt.add(hidden_state(h))
                sampled.add(hidden_state(sample_game(g.view(seat), rng)))
            assert len(redealt) > 5 and len(sampled) > 5


@pytest.mark.parametrize("seats", [3, 4, 5])
@settings(max_examples=60)
@given(seed=SEEDS, cut=st.integers(min_value=0, max_value=160))
def test_card_beliefs_are_distributions_over_unseen_cards(seats: int, seed: int, cut: int) -> None:
    g, _ = play_to(seats, seed, cut)
    for seat in viewers(seats):
        v = g.view(seat)
        beliefs = card_beliefs(v)
        assert len(beliefs) == len(v.row)
        for rc, belief, true_card in zip(v.row, beliefs, g.row, strict=True):
            if rc.card is not None:
                assert belief is None and rc.card == true_card
                continue
            assert belief is not None and set(belief) <= set(TOKENS)
            assert abs(sum(belief.values()) - 1.0) < 1e-9
            assert belief.get(true_card.token, 0.0) > 0.0
            assert len(set(belief.values())) == 1  # uniform over the cards the viewer has not seen


def test_card_beliefs_match_sampled_frequencies() -> None:
    for seats in (3, 4):
        g, rng = play_to(seats, 5, 9 * (seats + 1) + seats)  # round 2, all placed, none passed
        v = g.view(0)
        beliefs = card_beliefs(v)
        hidden = [i for i, b in enumerate(beliefs) if b is not None]
        assert hidden
        counts = [Counter[str]() for _ in v.row]
        n = 3000
        for _ in range(n):
            s = sample_game(v, rng)
            for i in hidden:
                counts[i][s.row[i].token] += 1
        for i in hidden:
            b = beliefs[i]
            assert b is not None and set(counts[i]) == set(b)
            for tok, p in b.items():
                assert abs(counts[i][tok] / n - p) < 0.04, (seats, i, tok)


# ---------------------------------------------------------------- views in detail


def test_view_history_hides_only_face_down_cards_of_others() -> None:
    g = Game.from_setup(4, 1, ["R", "R", "R", "R"])
    for m in ("place +15", "place -8", "place LD", "place +3"):
        g.play(m)
    assert g.view(2).history == ((1, "place +15"), (2, "place -8"), (3, "place ?"), (0, "place ?"))
    assert g.view(None).history == ((1, "place +15"), (2, "place ?"), (3, "place ?"), (0, "place ?"))
    g.play("pass")  # R14: the second card turns up
    assert g.view(None).history[1] == (2, "place -8")
    assert g.view(None).history[4] == (1, "pass")


def test_view_to_dict_is_json_ready_and_complete() -> None:
    g, _ = play_to(3, 7, 30)
    for seat in viewers(3):
        v = g.view(seat)
        d = v.to_dict()
        assert set(d) == {f.name for f in dataclasses.fields(v)}
        assert json.loads(json.dumps(d)) == d
        assert d["legal"] == [m.text for m in v.legal]
        assert d["history"] == [[s, t] for s, t in v.history]
    assert hash(g.view(0)) == hash(g.clone().view(0))  # frozen: usable as a key


def test_view_only_the_seat_to_move_gets_legal_moves() -> None:
    g, _ = play_to(5, 8, 12)
    for seat in viewers(5):
        v = g.view(seat)
        assert v.legal == (g.legal_moves() if seat == g.to_move else ())
        assert v.to_move == g.to_move and v.phase == g.phase and v.round == g.round


@pytest.mark.parametrize("bad", [5, -1, "0", 1.0, True])
def test_view_of_a_missing_seat_is_an_error(bad: object) -> None:
    g = Game.new(5, seed=1)
    with pytest.raises(ValueError, match="no seat"):
        g.view(bad)  # type: ignore[arg-type]


def test_sample_game_rejects_a_view_no_deal_explains() -> None:
    g, rng = play_to(4, 3, 20)
    v = g.view(0)
    twice = ((1, "place +15"), (1, "place +15"))
    with pytest.raises(BeliefError):
        sample_game(dataclasses.replace(v, history=twice), rng)
    with pytest.raises(BeliefError):
        sample_game(dataclasses.replace(v, removed=None), rng)
    impossible = ((v.start, "bid 1"),)  # a bid before any card is placed
    with pytest.raises(CatsackError):
        sample_game(dataclasses.replace(v, history=impossible), rng)


def test_sample_game_of_the_full_deal_is_a_permutation_of_the_sets() -> None:
    g, rng = play_to(3, 4, 0)
    s = sample_game(g.view(None), rng)
    for seat in range(3):
        assert sorted([*s.hand(seat), s.removed(seat)]) == list(CARDS)
    assert len(set(s.setup.dummy)) == 9


# ---------------------------------------------------------------- the fast view against a plain reference


def reference_view(g: Game, seat: int | None, show_money: bool, round_ply: int) -> dict[str, object]:
    """R23/R24 spelled out the slow, obvious way from the game's public API (what make_view must equal).

    ``round_ply`` is the number of moves made before the current round began.
    """
    n = g.seats
    over = g.is_over
    up = g.face_up
    row = [
        {"owner": o, "card": c.token if (i < up or (seat is not None and o == seat)) else None, "face_up": i < up}
        for i, (o, c) in enumerate(zip(g.row_owners, g.row, strict=True))
    ]
    dummy = 1 if n == 3 else 0
    history: list[list[object]] = []
    for ply, m in enumerate(g.moves):
        s = g.seat_of(ply)
        # finished rounds were turned up entirely (R14); now, a face-down card is its owner's alone
        hidden = not over and ply >= round_ply and m.is_place and s != seat and ply - round_ply + dummy >= up
        history.append([s, "place ?" if hidden else m.text])
    legal = g.legal_moves() if seat is not None and g.to_move == seat else ()
    return {
        "seat": seat,
        "seats": n,
        "round": g.round,
        "phase": g.phase,
        "to_move": g.to_move,
        "start": g.start_player,
        "first_start": g.setup.start,
        "hand": [] if seat is None else [c.token for c in g.hand(seat)],
        "removed": None if seat is None else g.removed(seat).token,
        "row": row,
        "mouse_cards": list(g.mouse_cards),
        "mouse_card_mice": list(g.mouse_card_mice),
        "next_payout": g.next_payout,
        "bids": list(g.bids),
        "high_bid": g.high_bid,
        "high_bidder": g.high_bidder,
        "passed": list(g.passed),
        "hand_sizes": [len(g.hand(j)) for j in range(n)],
        "won": [[c.token for c in g.won(j)] for j in range(n)],
        "cat_points": list(g.cat_points()),
        "bank": g.bank,
        "money": [m if (show_money or over or j == seat) else None for j, m in enumerate(g.money)],
        "money_visible": show_money or over,
        "history": history,
        "legal": [m.text for m in legal],
        "scores": list(g.scores()) if over else None,
        "winners": list(g.winners()),
    }


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_view_equals_the_plain_reference_everywhere(seats: int) -> None:
    # make_view shares caches and precomputed values for speed; its content must be exactly R23/R24.
    for seed in range(3):
        g, _ = play_to(seats, 100 + seed, 200)
        replay = Game(g.setup)
        round_ply = 0
        for ply, m in enumerate([*g.moves, None]):
            if ply % 3 == 0 or m is None:
                for seat in viewers(seats):
                    for show in (False, True):
                        d = replay.view(seat, show_money=show).to_dict()
                        del d["rounds"]  # RoundResult values: the rules tests check them
                        assert d == reference_view(replay, seat, show, round_ply), (seats, seed, ply, seat, show)
            if m is not None:
                done = len(replay.rounds)
                replay.play(m)
                if len(replay.rounds) > done:
                    round_ply = ply + 1


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_only_the_seat_fields_differ_between_viewers(seats: int) -> None:
    # A server encodes everything but SEAT_FIELDS once for every receiver of a state (R23, R24): each other
    # key of to_dict must be the same for every seat and a spectator, and seat_dict gives the rest.
    differed: set[str] = set()
    for seed in range(3):
        g, _ = play_to(seats, 300 + seed, 200)
        replay = Game(g.setup)
        for m in [*g.moves, None]:
            for show in (False, True):
                views = [replay.view(seat, show_money=show) for seat in viewers(seats)]
                dicts = [v.to_dict() for v in views]
                assert [k for k in dicts[0] if k in SEAT_FIELDS] == list(SEAT_FIELDS)
                shared = {k: v for k, v in dicts[0].items() if k not in SEAT_FIELDS}
                settled = views[0].history_split()[0]
                for v, d in zip(views, dicts, strict=True):
                    assert list(d) == list(VIEW_KEYS)
                    assert {k: x for k, x in d.items() if k not in SEAT_FIELDS} == shared
                    assert list(v.shared_dict().items()) == list(shared.items())
                    assert list(v.seat_dict().items()) == [(k, d[k]) for k in SEAT_FIELDS]
                    differed.update(k for k in SEAT_FIELDS if d[k] != dicts[0][k])
                    # The finished rounds' history is public and shared; only the current round's is the viewer's.
                    again = replay.view(v.seat, show_money=show)
                    done, current = again.history_split()
                    assert done is settled and done + current == v.history
                    assert again.history == v.history  # read now: the split stays known
                    assert again.history_split() == (done, current) and again.history_split()[0] is done
            if m is not None:
                replay.play(m)
    assert differed == set(SEAT_FIELDS)  # none of them is the same for everyone


def test_view_is_a_frozen_value() -> None:
    g, _ = play_to(4, 5, 40)
    v = g.view(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.round = 3  # type: ignore[misc]
    assert dataclasses.replace(v, round=v.round) == v
    assert dataclasses.replace(v, round=v.round + 1) != v
    w = g.clone().view(1)
    assert w == v and w is not v and hash(w) == hash(v)
    assert repr(v).startswith("View(seat=1,")


def test_view_history_is_right_when_games_interleave() -> None:
    # make_view remembers the last auction it read (public moves only); views of other games,
    # clones and undone positions in between must not confuse it (R12: whose turn each bid was).
    games = [Game.from_setup(4, 1, ["R", "R", "R", "R"]) for _ in range(2)]
    for g in games:
        for m in ("place +15", "place -8", "place LD", "place +3"):
            g.play(m)
    scripts = (["bid 1", "bid 2", "pass", "bid 3", "pass"], ["pass", "bid 1", "bid 4", "pass"])
    for step in range(5):
        for g, script in zip(games, scripts, strict=True):
            if step < len(script):
                g.play(script[step])
            for seat in (None, 0, 2):
                hist = g.view(seat).history
                assert [s for s, _ in hist] == [g.seat_of(p) for p in range(g.ply)]
                assert [t for _, t in hist[4:]] == [m.text for m in g.moves[4:]]
    g = games[0].clone()
    g.undo()
    g.undo()
    assert [s for s, _ in g.view(1).history] == [g.seat_of(p) for p in range(g.ply)]
    g.play("pass")
    assert [s for s, _ in g.view(1).history] == [g.seat_of(p) for p in range(g.ply)]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_a_fresh_view_holds_nothing_hidden(seats: int) -> None:
    # A view defers a few fields (history, won, cat_points) to their first use. Everything it
    # keeps for them, like every field, must be the same after re-dealing what the seat cannot
    # see (R23); and the deferred fields must read as if computed at once.
    import copy
    import pickle

    for seed in range(4):
        for cut in (3, 7, 18, 40, 90):
            g, rng = play_to(seats, 300 + seed, cut)
            for seat in viewers(seats):
                v = g.view(seat)
                stash = dict(vars(v))
                h = g.clone()
                h.redeal(seat, rng)
                assert dict(vars(h.view(seat))) == stash
                w = pickle.loads(pickle.dumps(g.view(seat)))
                c = copy.copy(g.view(seat))
                assert w == v == c and w.history == v.history == c.history
                assert dataclasses.replace(g.view(seat)) == v
                assert v.to_dict() == g.view(seat).to_dict()


@pytest.mark.parametrize("seats", [3, 4, 5])
@settings(max_examples=80)
@given(seed=SEEDS, cut=st.integers(min_value=0, max_value=160))
def test_swap_face_down_changes_only_what_the_owner_alone_has_seen(seats: int, seed: int, cut: int) -> None:
    """``Game.swap_face_down`` fixes one hidden card of a sampled world: the owner's face-down card (R10)
    trades places with a card of its hand or its removed card (R7); every other seat's view (R23) and the
    public view stay the same, the owner's set of cards stays the same, and the game replays from its setup
    and moves like any game."""
    g, rng = play_to(seats, seed, cut)
    owners = g.row_owners
    for pos in range(g.face_up, len(g.row)):
        owner = owners[pos]
        if owner is None:
            with pytest.raises(ValueError, match="face-down card of a player"):
                g.swap_face_down(pos, g.row[pos])
            continue
        candidates = [*g.hand(owner), g.removed(owner)]
        card = rng.choice(candidates)
        h = g.clone()
        h.swap_face_down(pos, card)
        assert h.row[pos] == card
        assert sorted([*h.hand(owner), h.removed(owner), h.row[pos]]) == sorted([*candidates, g.row[pos]])
        assert h.hand_mask(owner) == sum(1 << c for c in h.hand(owner))
        for seat in viewers(seats):
            if seat != owner:
                assert h.view(seat) == g.view(seat)
        assert h.legal_moves() == g.legal_moves()
        replayed = Game(h.setup)
        for m in h.moves:
            replayed.play(m)
        assert replayed == h
        assert h.total_money() == TOTAL_MONEY[seats]


def test_swap_face_down_names_what_was_wrong() -> None:
    """A face-up position, a position past the row and a card its owner does not hold are refused, each with
    its reason, and the game is left as it was."""
    g = Game.new(4, rng=random.Random(5))
    while g.round < 2 or g.phase != "bidding":  # round 2's auction: the cards placed in round 1 are gone
        moves = g.legal_moves()
        g.play(moves[0] if g.phase == "placement" else moves[-1])
    assert g.face_up == 1
    before = g.clone()
    with pytest.raises(ValueError, match="row position 0 does not hold a face-down card"):
        g.swap_face_down(0, g.hand(g.start_player)[0])
    with pytest.raises(ValueError, match="row position 4 does not hold"):
        g.swap_face_down(4, CARDS[0])
    owner = g.row_owners[1]
    assert owner is not None
    held = {*g.hand(owner), g.removed(owner), g.row[1]}
    other = next(c for c in CARDS if c not in held)
    with pytest.raises(
        ValueError, match=re.escape(f"seat {owner} holds no {TOKENS[other]} to place at row position 1")
    ):
        g.swap_face_down(1, other)
    with pytest.raises(ValueError, match="not a card index: 10"):
        g.swap_face_down(1, 10)
    assert g == before
