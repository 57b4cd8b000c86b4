"""The sealed held-out opponents (``bench/sealed``): they play legally from their view alone (R23), and no
training or tuning code imports them."""

from __future__ import annotations

import ast
import random
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

import catsack
from catsack.bots import make_bot
from catsack.bots.base import BOT_KINDS, play_game
from catsack.bots.heuristic import row_masks, row_worth, seat_money, values_with_each_card
from catsack.cards import Card
from catsack.game import Game
from catsack.moves import BID, PASS_MOVE, PLACE, Move
from catsack.view import View
from redeal import redealt_views

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import sealed  # noqa: E402
from sealed.draws import (  # noqa: E402
    CURRENT,
    EIGHTH_SEED,
    ELEVENTH_SEED,
    FIFTH_SEED,
    FIRST_SEED,
    FOURTH_SEED,
    NINTH_SEED,
    SECOND_SEED,
    SETS,
    SEVENTH_SEED,
    SIXTH_SEED,
    TENTH_SEED,
    THIRD_SEED,
    THIRTEENTH_SEED,
    TWELFTH_SEED,
    draw_specs,
)
from sealed.styles import (  # noqa: E402
    EIGHTH,
    ELEVENTH,
    FIFTH,
    FIRST,
    FOURTH,
    NINTH,
    SECOND,
    SEVENTH,
    SIXTH,
    STYLES,
    TENTH,
    THIRD,
    THIRTEENTH,
    TWELFTH,
)

#: The scripts that measure against the sealed set (and read it); nothing else may import it.
MEASURING = {"held_out.py"}


@pytest.fixture(autouse=True)
def _sealed_kind() -> object:
    sealed.register()
    yield
    BOT_KINDS.pop("sealed", None)


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_no_training_or_tuning_code_imports_the_sealed_set() -> None:
    package = Path(catsack.__file__).resolve().parent
    sources = [*package.rglob("*.py"), *(p for p in (ROOT / "bench").glob("*.py") if p.name not in MEASURING)]
    assert len(sources) > 50
    for path in sources:
        found = {m for m in _imports(path) if m == "sealed" or m.startswith("sealed.")}
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}"
        assert "sealed:" not in path.read_text(encoding="utf-8"), f"{path.relative_to(ROOT)} names a sealed style"


def test_each_set_holds_styles_and_draws() -> None:
    assert CURRENT == 2 and SETS[2][1] == "sealed:drifter" and SETS[1][1] == "sealed:turncoat"
    assert SETS[3][1] == "sealed:echo" and SETS[4][1] == "sealed:relay" and SETS[5][1] == "sealed:turn"
    assert SETS[6][1] == "sealed:swing" and SETS[7][1] == "sealed:pivot" and SETS[8][1] == "sealed:cycle"
    assert SETS[9][1] == "sealed:tide" and SETS[10][1] == "sealed:spring" and SETS[11][1] == "sealed:shift"
    assert SETS[12][1] == "sealed:swerve" and SETS[13][1] == "sealed:flip"
    numbered = (
        (1, FIRST, FIRST_SEED),
        (2, SECOND, SECOND_SEED),
        (3, THIRD, THIRD_SEED),
        (4, FOURTH, FOURTH_SEED),
        (5, FIFTH, FIFTH_SEED),
        (6, SIXTH, SIXTH_SEED),
        (7, SEVENTH, SEVENTH_SEED),
        (8, EIGHTH, EIGHTH_SEED),
        (9, NINTH, NINTH_SEED),
        (10, TENTH, TENTH_SEED),
        (11, ELEVENTH, ELEVENTH_SEED),
        (12, TWELFTH, TWELFTH_SEED),
        (13, THIRTEENTH, THIRTEENTH_SEED),
    )
    for number, names, seed in numbered:
        opponents, sitting = SETS[number]
        styles = [o.removeprefix("sealed:") for o in opponents if o.startswith("sealed:")]
        assert len(styles) >= 3 and set(styles) | {sitting.removeprefix("sealed:")} == set(names)
        draws = [o for o in opponents if o.startswith("persona:")]
        assert [d.removesuffix("+open=0") for d in draws] == draw_specs(seed=seed)
    assert len(set(STYLES)) == sum(len(names) for _, names, _ in numbered)  # no style in two sets
    assert len({seed for _, _, seed in numbered}) == len(numbered)


def test_the_first_sets_draws_are_the_players_they_were() -> None:
    # The first set was drawn from the ten traits before ``open`` existed; pinned to open=0, each draw plays
    # those ten traits as drawn (``open`` is drawn last, so the others come from the same numbers).
    for spec in SETS[1][0]:
        if not spec.startswith("persona:"):
            continue
        bot = make_bot(spec)
        full = make_bot(spec.removesuffix("+open=0"))
        assert bot.traits.open == 0.0  # type: ignore[attr-defined]
        assert bot.traits.values()[:-1] == full.traits.values()[:-1]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_styles_finish_games_with_legal_moves(seats: int) -> None:
    for k, style in enumerate(STYLES):
        bots = [make_bot(f"sealed:{style}" if s == 0 else "heuristic", seed=s) for s in range(seats)]
        for game in range(2):  # the turncoat turns in the second game
            g = play_game(Game.new(seats, seed=10 * k + game), bots)
            assert g.is_over and len(g.rounds) == 9  # R20


def test_styles_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(2)
    for seats in (3, 4, 5):
        positions = []
        g = Game.new(seats, seed=seats)
        bots = [make_bot("sealed:grudge" if s % 2 else "persona:draw=5", seed=s) for s in range(seats)]
        for s, b in enumerate(bots):
            b.reset(s, seats)
        while not g.is_over:
            s = g.to_move
            assert s is not None
            if rng.random() < 0.2 and len(g.view(s).legal) > 1:
                positions.append(g.clone())
            g.play(bots[s].choose(g.view(s)))
        for view, other in redealt_views(positions, rng):
            for style in STYLES:
                bot = make_bot(f"sealed:{style}")
                bot.reset(view.seat or 0, seats)
                assert bot.choose(view) == bot.choose(other)


@pytest.mark.parametrize(
    "style",
    [
        "turncoat",
        "drifter",
        "echo",
        "relay",
        "turn",
        "swing",
        "pivot",
        "cycle",
        "tide",
        "spring",
        "shift",
        "swerve",
        "flip",
    ],
)
def test_the_sitting_styles_turn_in_a_sittings_second_game(style: str) -> None:
    bot = make_bot(f"sealed:{style}")
    heuristic = make_bot("heuristic")
    g = Game.new(4, seed=3)
    bot.reset(0, 4)
    moves = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        if s == 0:
            assert bot.choose(view) == heuristic.choose(view)  # the first game: the heuristic's rule
            moves.append(view)
        g.play(heuristic.choose(view))
    bot.reset(0, 4)
    assert any(bot.choose(v) != heuristic.choose(v) for v in moves if len(v.legal) > 1)


def _decision_views(
    games: int, keep: Callable[[View], bool], specs: Sequence[str] = ("heuristic",) * 4, seed: int = 100
) -> list[View]:
    """The views with a choice that ``keep`` keeps, of every seat in ``games`` games of ``specs`` (one a seat)."""
    out: list[View] = []
    seats = len(specs)
    bots = [make_bot(spec, seed=s) for s, spec in enumerate(specs)]
    for k in range(games):
        g = Game.new(seats, seed=seed + k)
        for s, b in enumerate(bots):
            b.reset(s, seats)
        while not g.is_over:
            s = g.to_move
            assert s is not None
            view = g.view(s)
            if len(view.legal) > 1 and keep(view):
                out.append(view)
            g.play(bots[s].choose(view))
    return out


def _auction_views(seats: int, games: int) -> list[View]:
    """The views of every auction decision with a choice in ``games`` games of heuristic bots (R12-R15)."""
    return _decision_views(games, lambda v: v.legal[0].kind != PLACE, ("heuristic",) * seats)


def _others_in(view: View) -> int:
    return sum(1 for s, p in enumerate(view.passed) if not p and s != view.seat)


def _choices(style: str, views: list[View]) -> list[tuple[View, Move, Move]]:
    bot, heuristic = make_bot(f"sealed:{style}"), make_bot("heuristic")
    out = []
    for v in views:
        bot.reset(v.seat or 0, v.seats)
        out.append((v, bot.choose(v), heuristic.choose(v)))
    return out


def test_spoiler_pays_over_its_limit_only_against_the_last_rival() -> None:
    chosen = _choices("spoiler", _auction_views(4, 12))
    heads_up = [(v, m, h) for v, m, h in chosen if _others_in(v) == 1 and v.high_bidder not in (None, v.seat)]
    crowded = [(v, m, h) for v, m, h in chosen if _others_in(v) >= 2]
    assert heads_up and crowded
    assert all(m == h for _, m, h in crowded)  # the heuristic's rule while two or more others are in
    assert any(m.kind == BID and h == PASS_MOVE for _, m, h in heads_up)  # it raises where the heuristic stops
    assert all(m.kind != BID or m.amount == v.high_bid + 1 for v, m, _ in heads_up)  # a mouse at a time


def test_endow_departs_from_the_heuristic_only_for_a_cat_of_its_own() -> None:
    chosen = _choices("endow", _auction_views(4, 12))

    def own_cat(v: View) -> bool:
        return any(rc.owner == v.seat and rc.card is not None and rc.card.is_cat for rc in v.row)

    assert all(m == h for v, m, h in chosen if not own_cat(v))
    assert any(m != h for v, m, h in chosen if own_cat(v))


def test_headcount_passes_a_row_whose_count_is_not_above_zero() -> None:
    def count(v: View) -> int:
        seen = [rc.card for rc in v.row if rc.card is not None and rc.card != Card.RABBIT]
        return sum(4 if c.is_cat and c.points > 0 else -4 for c in seen)

    chosen = _choices("headcount", _auction_views(4, 12))
    low = [(v, m) for v, m, _ in chosen if count(v) <= 0]
    assert low and all(m == PASS_MOVE for _, m in low)
    assert any(m != h for _, m, h in chosen)


def test_copycat_follows_the_player_before_it_and_skeptic_distrusts_hidden_cards() -> None:
    views = _auction_views(4, 12)
    for style in ("copycat", "rich"):
        chosen = _choices(style, views)
        assert any(m.kind == BID and h == PASS_MOVE for _, m, h in chosen)  # it bids on where the heuristic stops
        assert all(m.kind != BID or h == PASS_MOVE or m.amount == h.amount for _, m, h in chosen)
    followed = _choices("copycat", views)
    assert all(m == h for v, m, h in followed if v.passed[((v.seat or 0) - 1) % v.seats])

    def richest(v: View) -> bool:
        money = seat_money(v)
        return all(money[v.seat or 0] > x for s, x in enumerate(money) if s != v.seat)

    poorer = [(m, h) for v, m, h in _choices("rich", views) if not richest(v)]
    assert poorer and all(m == h for m, h in poorer)

    skeptic = _choices("skeptic", views)

    def hidden(v: View) -> int:
        return sum(1 for rc in v.row if rc.card is None and rc.owner not in (None, v.seat))

    assert all(m == h for v, m, h in skeptic if hidden(v) == 0)
    assert any(m != h for v, m, h in skeptic if hidden(v) > 0)
    assert all(not (m.kind == BID and h == PASS_MOVE) for _, m, h in skeptic)  # it never bids where the heuristic stops


def _auction_so_far(view: View) -> list[tuple[int, str]]:
    """This round's bids and passes so far, in order (R12-R14): the history after the round's placements."""
    moves: list[tuple[int, str]] = []
    placements = 0
    for s, text in reversed(view.history):
        if text.startswith("place"):
            placements += 1
            if placements == view.seats:
                break
        else:
            moves.append((s, text))
    return moves[::-1]


def _own_bids(view: View) -> int:
    """The viewer's bids in this round so far (R12)."""
    return sum(1 for s, text in _auction_so_far(view) if s == view.seat and text.startswith("bid"))


def test_escalate_raises_its_limit_only_after_bids_of_its_own() -> None:
    chosen = _choices("escalate", _auction_views(4, 12))
    fresh = [(m, h) for v, m, h in chosen if _own_bids(v) == 0]
    again = [(v, m, h) for v, m, h in chosen if _own_bids(v) > 0]
    assert fresh and again and all(m == h for m, h in fresh)  # no bid of its own yet: the heuristic's rule
    assert any(m.kind == BID and h == PASS_MOVE for _, m, h in again)  # it goes on where the heuristic stops
    assert all(not (h.kind == BID and m == PASS_MOVE) for _, m, h in again)  # it never stops sooner


def test_hot_bids_over_after_buying_and_under_after_a_dry_spell() -> None:
    chosen = _choices("hot", _auction_views(4, 12))

    def streak(v: View) -> int:
        bought = [r.buyer == v.seat for r in v.rounds]
        if bought and bought[-1]:
            return 1
        return -1 if len(bought) >= 2 and not any(bought[-2:]) else 0

    assert all(m == h for v, m, h in chosen if streak(v) == 0)
    hot = [(m, h) for v, m, h in chosen if streak(v) == 1]
    cold = [(m, h) for v, m, h in chosen if streak(v) == -1]
    assert hot and cold
    assert any(m.kind == BID and h == PASS_MOVE for m, h in hot)
    assert all(m.kind == BID or h == PASS_MOVE for m, h in hot)  # it never stops sooner after buying
    assert any(m == PASS_MOVE and h.kind == BID for m, h in cold)
    assert all(m.kind != BID or h.kind == BID for m, h in cold)


def test_spite_bids_on_only_against_the_last_buyer() -> None:
    chosen = _choices("spite", _auction_views(4, 12))

    def chasing(v: View) -> bool:
        last = v.rounds[-1].buyer if v.rounds else None
        return last is not None and last != v.seat and v.high_bidder == last

    assert all(m == h for v, m, h in chosen if not chasing(v))
    against = [(v, m, h) for v, m, h in chosen if chasing(v)]
    assert any(m.kind == BID and h == PASS_MOVE for _, m, h in against)
    assert all(m.kind != BID or m.amount == v.high_bid + 1 or m == h for v, m, h in against)  # a mouse at a time


def test_quota_and_cashout_sit_out_only_once_full_or_late() -> None:
    views = _decision_views(16, lambda v: v.phase != "last choice", seed=300)  # placing and bidding

    def bought(v: View) -> int:
        return sum(1 for r in v.rounds if r.buyer == v.seat)

    for style, aside in (("quota", lambda v: bought(v) >= 3), ("cashout", lambda v: v.round >= 7)):
        chosen = _choices(style, views)
        assert all(m == h for v, m, h in chosen if not aside(v))  # the heuristic's rule until then
        out = [(v, m, h) for v, m, h in chosen if aside(v)]
        assert out and any(m != h for _, m, h in out)
        assert all(m == PASS_MOVE for v, m, _ in out if v.legal[0].kind != PLACE)  # passes at once
        placed = [(v, m) for v, m, _ in out if v.legal[0].kind == PLACE and v.start != v.seat]
        assert placed
        for v, m in placed:  # its worst card: none of its others leaves the row worse for a buyer (R16)
            with_card = values_with_each_card(row_masks(v))
            assert with_card[m.arg] == min(with_card[x.arg] for x in v.legal)


def _jumpers(view: View) -> set[int]:
    """The other players who raised the high bid by two mice or more in this round's auction so far (R12)."""
    high, out = 0, set()
    for s, text in _auction_so_far(view):
        if text.startswith("bid"):
            amount = int(text.split()[1])
            if s != view.seat and amount - high >= 2:
                out.add(s)
            high = amount
    return out


def test_nerve_passes_after_a_jump_of_another_player() -> None:
    players = ("heuristic", "persona:open=1") * 2  # the personas open high: jumps
    views = _decision_views(12, lambda v: v.legal[0].kind != PLACE and v.phase != "last choice", players, seed=500)
    chosen = _choices("nerve", views)
    frightened = [(m, h) for v, m, h in chosen if _jumpers(v)]
    assert frightened and all(m == PASS_MOVE for m, _ in frightened)
    assert any(h.kind == BID for _, h in frightened)  # where the heuristic would have bid on
    assert all(m == h for v, m, h in chosen if not _jumpers(v))


def _lost_to(view: View) -> set[int]:
    """The players who bought a row in an earlier round whose auction the viewer bid in (R12, R17)."""
    out: set[int] = set()
    history = list(view.history)
    starts = [k for k, (_, text) in enumerate(history) if text.startswith("place")
              and (k == 0 or not history[k - 1][1].startswith("place"))]  # fmt: skip
    for number, result in enumerate(view.rounds):
        end = starts[number + 1] if number + 1 < len(starts) else len(history)
        bid_in = any(s == view.seat and text.startswith("bid") for s, text in history[starts[number] : end])
        if bid_in and result.buyer not in (None, view.seat):
            out.add(result.buyer)
    return out


def test_revenge_bids_on_only_against_a_player_who_took_a_row_from_it() -> None:
    chosen = _choices("revenge", _auction_views(4, 16))
    against = [(v, m, h) for v, m, h in chosen if v.high_bidder in _lost_to(v)]
    assert against and all(m == h for v, m, h in chosen if v.high_bidder not in _lost_to(v))
    assert any(m.kind == BID and h == PASS_MOVE for _, m, h in against)  # it raises where the heuristic stops
    assert all(m.kind != BID or m.amount == v.high_bid + 1 for v, m, _ in against)  # a mouse at a time


def test_collector_overrates_only_cats_of_a_value_it_holds() -> None:
    chosen = _choices("collector", _auction_views(4, 16))

    def matched(v: View) -> bool:
        held = {c.points for c in v.won[v.seat or 0] if c.is_cat}
        return any(rc.card is not None and rc.card.is_cat and rc.card.points in held for rc in v.row)

    assert all(m == h for v, m, h in chosen if not matched(v))
    pairs = [(m, h) for v, m, h in chosen if matched(v)]
    assert any(m.kind == BID and h == PASS_MOVE for m, h in pairs)
    assert all(not (m == PASS_MOVE and h.kind == BID) for m, h in pairs)  # it only ever values such a row more


def test_kind_passes_only_while_the_last_placed_player_holds_the_high_bid() -> None:
    chosen = _choices("kind", _auction_views(4, 16))

    def bottom(v: View) -> int:
        money = seat_money(v)
        scores = [m + p for m, p in zip(money, v.cat_points, strict=True)]
        return min((s for s in range(v.seats) if s != v.seat), key=lambda s: (scores[s], -s))

    spared = [(m, h) for v, m, h in chosen if v.high_bidder is not None and v.high_bidder == bottom(v)]
    assert spared and all(m == PASS_MOVE for m, _ in spared)
    assert any(h.kind == BID for _, h in spared)  # where the heuristic would have bid on
    assert all(m == h for v, m, h in chosen if v.high_bidder is None or v.high_bidder != bottom(v))


def _tell(view: View) -> int:
    """The others' face-down cards in the row (R10) whose owners are still in having bid, minus those whose owners
    have passed (R12, R13), read from this round's moves."""
    moves = _auction_so_far(view)
    passed = {s for s, text in moves if text == "pass"}
    bid_on = {s for s, text in moves if text.startswith("bid")} - passed
    total = 0
    for rc in view.row:
        if rc.card is None and rc.owner not in (None, view.seat):
            total += 1 if rc.owner in bid_on else -1 if rc.owner in passed else 0
    return total


def test_tells_reads_the_others_bids_only_where_they_own_a_hidden_card() -> None:
    chosen = _choices("tells", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if _tell(v) == 0)
    up = [(m, h) for v, m, h in chosen if _tell(v) > 0]
    down = [(m, h) for v, m, h in chosen if _tell(v) < 0]
    assert up and down
    assert any(m.kind == BID and h == PASS_MOVE for m, h in up)  # it bids on where the heuristic stops
    assert all(not (m == PASS_MOVE and h.kind == BID) for m, h in up)
    assert any(m == PASS_MOVE and h.kind == BID for m, h in down)  # and stops where the heuristic bids on
    assert all(not (m.kind == BID and h == PASS_MOVE) for m, h in down)


def test_patient_never_opens_an_auction() -> None:
    views = _decision_views(16, lambda v: v.legal[0].kind != PLACE and v.phase != "last choice", seed=700)
    chosen = _choices("patient", views)

    def opened(v: View) -> bool:
        return any(s != v.seat and text.startswith("bid") for s, text in _auction_so_far(v))

    unopened = [(m, h) for v, m, h in chosen if not opened(v)]
    assert unopened and all(m == PASS_MOVE for m, _ in unopened)
    assert any(h.kind == BID for _, h in unopened)  # where the heuristic would have opened
    assert all(m == h for v, m, h in chosen if opened(v))


def test_front_places_its_best_card_early_and_its_worst_late() -> None:
    views = _decision_views(12, lambda v: v.legal[0].kind == PLACE, seed=900)
    chosen = _choices("front", views)
    assert any(m != h for _, m, h in chosen)
    early = [(v, m) for v, m, _ in chosen if v.round <= 4]
    late = [(v, m) for v, m, _ in chosen if v.round > 4]
    assert early and late
    for group, pick in ((early, max), (late, min)):
        for v, m in group:  # none of its other cards leaves the row better (early) or worse (late) for a buyer
            with_card = values_with_each_card(row_masks(v))
            assert with_card[m.arg] == pick(with_card[x.arg] for x in v.legal)


def test_priceout_bids_what_no_rival_still_in_can_beat() -> None:
    chosen = _choices("priceout", _auction_views(4, 16))
    shut = []
    for v, m, h in chosen:
        if m == h:
            continue
        money = seat_money(v)  # R24: every payment is public
        rivals = [money[s] for s, p in enumerate(v.passed) if not p and s != v.seat]
        shut.append((v, m, h))
        assert m.kind == BID and m.amount == max(rivals) + 1  # R12: none of them holds enough to bid over it
        assert h == PASS_MOVE or h.amount < m.amount  # it never bids less than the heuristic would
    assert shut


def test_callout_bids_on_only_against_a_player_who_jumped() -> None:
    players = ("heuristic", "persona:open=1") * 2  # the personas open high: jumps
    views = _decision_views(12, lambda v: v.legal[0].kind != PLACE and v.phase != "last choice", players, seed=500)
    chosen = _choices("callout", views)
    called = [(m, h) for v, m, h in chosen if v.high_bidder in _jumpers(v)]
    assert called and any(m.kind == BID and h == PASS_MOVE for m, h in called)  # it bids on where the heuristic stops
    assert all(not (m == PASS_MOVE and h.kind == BID) for m, h in called)
    assert all(m == h for v, m, h in chosen if v.high_bidder not in _jumpers(v))


def _dogs_seen(view: View) -> int:
    """The dogs the viewer can see in the row: face up (R11, R14) or its own (R23)."""
    return sum(1 for rc in view.row if rc.card is not None and rc.card.is_dog)


def test_dogfear_departs_from_the_heuristic_only_where_it_sees_a_dog() -> None:
    chosen = _choices("dogfear", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if _dogs_seen(v) == 0)
    feared = [(m, h) for v, m, h in chosen if _dogs_seen(v)]
    assert any(m == PASS_MOVE and h.kind == BID for m, h in feared)  # it stops where the heuristic bids on
    assert all(not (m.kind == BID and h == PASS_MOVE) for m, h in feared)


def test_payout_bids_less_only_where_passing_pays() -> None:
    chosen = _choices("payout", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if v.next_payout == 0)
    paid = [(m, h) for v, m, h in chosen if v.next_payout > 0]
    assert any(m == PASS_MOVE and h.kind == BID for m, h in paid)  # R13: it takes the payout where the heuristic bids
    assert all(not (m.kind == BID and h == PASS_MOVE) for m, h in paid)


def test_picky_passes_small_rows_and_bids_on_big_ones() -> None:
    chosen = [c for c in _choices("picky", _auction_views(4, 16)) if c[0].phase != "last choice"]  # R15 as ever
    small = [(m, h) for v, m, h in chosen if row_worth(v) < 8]
    big = [(m, h) for v, m, h in chosen if row_worth(v) >= 8]
    assert small and big
    assert all(m == PASS_MOVE for m, _ in small) and any(h.kind == BID for _, h in small)
    assert all(not (m == PASS_MOVE and h.kind == BID) for m, h in big)
    assert any(m.kind == BID and h == PASS_MOVE for m, h in big)  # up to 2 over the heuristic's limit


def test_ally_never_bids_against_the_next_player() -> None:
    chosen = _choices("ally", _auction_views(4, 16))
    spared = [(m, h) for v, m, h in chosen if v.high_bidder == ((v.seat or 0) + 1) % v.seats]
    assert spared and all(m == PASS_MOVE for m, _ in spared) and any(h.kind == BID for _, h in spared)
    assert all(m == h for v, m, h in chosen if v.high_bidder != ((v.seat or 0) + 1) % v.seats)


def test_the_public_history_splits_into_rounds() -> None:
    from sealed.table import round_moves, this_round

    for seats in (3, 4, 5):
        for view in _decision_views(2, lambda v: True, ("heuristic",) * seats, seed=40 + seats):
            rounds = round_moves(view)
            assert sum(len(m) for m in rounds) == len(view.history)
            for moves in rounds:  # R10: a round begins with its placements, one a player
                placed = [t for _, t in moves if t.startswith("place")]
                assert placed == [t for _, t in moves[: len(placed)]] and len(placed) <= seats
            if len(rounds) < view.round:  # the round's first placement is still to come
                assert view.legal[0].kind == PLACE and len(rounds) == view.round - 1 and this_round(view) == []
            else:
                assert len(rounds) == view.round and this_round(view) == rounds[-1]
            if view.legal[0].kind == PLACE:  # placing: this round's placements so far, nothing of the last round
                assert all(t.startswith("place") for _, t in this_round(view))


def test_swapdog_departs_from_the_heuristic_only_where_a_dog_may_be_in_the_row() -> None:
    chosen = _choices("swapdog", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if _dogs_seen(v) == 0 and all(rc.card is not None for rc in v.row))
    seen = [(v, m, h) for v, m, h in chosen if _dogs_seen(v)]
    assert any(m != h for _, m, h in seen)
    for v, m, h in seen:  # R16 read backwards: a row whose only dog is the large one looks better to it
        dogs = [rc.card for rc in v.row if rc.card is not None and rc.card.is_dog]
        if dogs == [Card.LARGE_DOG] and all(rc.card is not None for rc in v.row):
            assert not (m == PASS_MOVE and h.kind == BID)


def test_nocount_departs_from_the_heuristic_only_for_the_others_face_down_cards() -> None:
    chosen = _choices("nocount", _auction_views(4, 16))

    def hidden(v: View) -> int:
        return sum(1 for rc in v.row if rc.card is None)

    assert all(m == h for v, m, h in chosen if hidden(v) == 0 or v.round == 1)  # round 1: nothing played to count
    assert any(m != h for v, m, h in chosen if hidden(v) and v.round > 1)


def test_sprint_bids_over_its_limit_only_in_the_first_three_rounds() -> None:
    chosen = [c for c in _choices("sprint", _auction_views(4, 16)) if c[0].phase != "last choice"]
    early = [(m, h) for v, m, h in chosen if v.round <= 3]
    assert early and all(m == h for v, m, h in chosen if v.round > 3)
    assert any(m.kind == BID and h == PASS_MOVE for m, h in early)  # it bids on where the heuristic stops
    assert all(not (m == PASS_MOVE and h.kind == BID) for m, h in early)


def _is_dog(move: Move) -> bool:
    return move.kind == PLACE and Card(move.arg).is_dog


def test_kennel_places_a_dog_only_when_its_hand_holds_nothing_else() -> None:
    chosen = _choices("kennel", _decision_views(16, lambda v: True, seed=1300))  # placing and bidding
    assert all(m == h for _, m, h in chosen if not _is_dog(h))  # the heuristic's rule wherever it places no dog
    placed = [(v, m, h) for v, m, h in chosen if v.legal[0].kind == PLACE]
    kept = [(v, m) for v, m, h in placed if _is_dog(h)]
    assert kept and any(not _is_dog(m) for _, m in kept)  # where the heuristic would place a dog
    for v, m, _ in placed:  # R10: any card of its hand; a dog only when nothing else is left in it
        assert not _is_dog(m) or all(_is_dog(x) for x in v.legal)


def _bought_at_a_loss(view: View) -> bool:
    """Whether the viewer bought a row this game whose kept cats were worth less than its price (R16, R17)."""
    return any(
        r.buyer == view.seat and r.price is not None and sum(c.points for c in r.won if c.is_cat) < r.price
        for r in view.rounds
    )


def test_burnt_bids_less_only_after_a_row_bought_at_a_loss() -> None:
    chosen = _choices("burnt", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if not _bought_at_a_loss(v))
    burnt = [(m, h) for v, m, h in chosen if _bought_at_a_loss(v)]
    assert any(m == PASS_MOVE and h.kind == BID for m, h in burnt)  # it stops where the heuristic bids on
    assert all(not (m.kind == BID and h == PASS_MOVE) for m, h in burnt)  # and never bids on where it stops
    assert all(m.kind != BID or h.kind != BID or m.amount == h.amount for m, h in burnt)  # a mouse at a time


def _turned_up(view: View) -> bool:
    """Whether a pass has turned up a card of another player, or of the dummy, since the row's first card was
    shown (R11, R14)."""
    return any(k > 0 and rc.face_up and rc.owner != view.seat for k, rc in enumerate(view.row))


def test_glance_departs_from_the_heuristic_only_once_a_pass_has_turned_up_a_card() -> None:
    chosen = _choices("glance", _auction_views(4, 16))
    assert all(m == h for v, m, h in chosen if not _turned_up(v))  # the row as first shown: the heuristic's rule
    later = [(m, h) for v, m, h in chosen if _turned_up(v)]
    assert any(m.kind == BID and h == PASS_MOVE for m, h in later)  # a row turned out worse: it bids on
    assert any(m == PASS_MOVE and h.kind == BID for m, h in later)  # a row turned out better: it stops
