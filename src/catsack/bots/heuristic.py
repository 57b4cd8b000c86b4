"""A transparent rule-based player: estimate the row, bid up to the estimate, place cards with intent.

How it thinks (every number below is a named constant in this module):

**Worth of a row.** A row is worth the points of the cats the buyer keeps
after the dogs act (R16: one large dog chases the best cat, one small dog the
worst, two dogs cancel). Face-up cards and the bot's own card are known. Every
face-down card is uncertain: its owner may have placed any card of their set
that nobody has seen yet (R23), which is exactly
:func:`catsack.belief.card_beliefs`. Cards not placed yet (during placement)
get the same belief. The bot takes the exact average of the row's worth over
all combinations of the hidden cards (in closed form, see
:func:`mask_row_value`), so a possible dog lowers or raises the estimate by
the cat it would chase.

**Bidding (R12–R15).** Money is points (R21), so buying at ``b`` gains
``worth - b``, while passing now gains ``view.next_payout`` (R13). The bot
stays in (raising by the minimum) while ``high bid + 1 <= worth - payout now
- margin``. Passing later pays more (the mouse cards rise), so while two or
more other players are still in, the bot adds a share of the extra payout it
could collect by outlasting them. When the mouse cards are empty (R18: the
bank could not refill; R19: after a void round) passing pays nothing and the
limit rises accordingly. In the last choice (R15) it buys for 1 when the
fully visible row is worth more than 1.

**Placing (R10).** The bot first decides whether it expects to buy this
round: it must be about as rich as the richest opponent (everyone's money is
computed from the public history, R24) and have enough to compete. A hidden
card is an information edge: opponents value it at the average of the cards
the bot may still hold (its hand and its removed card), while the bot knows
its true effect on the row (dogs included). So when it plans to buy it places
the card that raises the row most above that average (a good cat, or a small
dog when the row likely holds a negative cat); when it expects someone else
to buy it places the card that lowers the row most (a negative cat, or a
large dog when the row likely holds a good cat), so the buyer overpays. A
card placed face up at once (the start player's with 4–5 seats, R11) gives
no edge, so then it spends the card that changes the row least and keeps its
extreme cards for rounds where they stay hidden.

It does not model opponents' styles or infer their cards from their bids.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.cards import POINTS, Card
from catsack.moves import BID, PASS_MOVE, PLACE, Move, bid
from catsack.view import View

if TYPE_CHECKING:
    from catsack.game import RoundResult

__all__ = [
    "HeuristicBot",
    "expected_row_value",
    "kept_value",
    "mask_row_value",
    "public_tables",
    "row_distributions",
    "row_masks",
    "row_worth",
    "seat_money",
    "unseen_cards",
    "unseen_mask",
    "values_with_each_card",
]

_LD = int(Card.LARGE_DOG)
_SD = int(Card.SMALL_DOG)
_RABBIT = int(Card.RABBIT)
_ALL = (1 << 10) - 1

MARGIN = 1.0  # mice of safety below the estimate (the estimate is uncertain)
OUTLAST_SHARE = 0.5  # share of the higher payout a bidder may collect by outlasting others
BUY_MONEY_GAP = 2  # plan to buy when at most this much poorer than the richest opponent
BUY_MIN_MONEY = 6  # ... and holding at least this much
VALUE_DIGITS = 9  # estimates are rounded here, so ties between cards do not hang on float noise

Dist = list[tuple[int, float]]  # (card index, probability)


def kept_value(cards: Sequence[int]) -> int:
    """Points the buyer keeps from a row of card indices after R16's dogs."""
    total = 0
    dogs = 0
    has_large = False
    lo = 10  # lowest cat index (the best cat: +15 is 0)
    hi = -1  # highest cat index (the worst cat: -8 is 6)
    for c in cards:
        if c < 7:
            total += POINTS[c]
            if c < lo:
                lo = c
            if c > hi:
                hi = c
        elif c >= _LD:
            dogs += 1
            has_large = has_large or c == _LD
    if dogs != 1 or hi < 0:
        return total  # no dog, two dogs cancel, or no cat to chase
    return total - POINTS[lo if has_large else hi]  # R16: LD chases +15 first, SD chases -8 first


# ---------------------------------------------------------------- exact expected kept value
#
# The cards of a row are independent under the bot's beliefs (one card per
# position), so E[kept value] needs no enumeration. kept = total - chased
# (R16), the total is linear, and a cat is chased only when exactly one
# position holds a dog. With the large dog at position j and no dog
# elsewhere, the chased cat is the best cat (lowest index) of the others:
#   P(no dog elsewhere, best cat index = k) = prod_i F_i(k) - prod_i F_i(k+1),
# where F_i(k) is the probability that card i is a rabbit or a cat of index
# >= k. The small dog mirrors this with G_i(k), the probability that card i
# is a rabbit or a cat of index <= k, and the worst cat.

# Per-position summary: (mean points, P(large dog), P(small dog), F(0..7), G(-1..6)).
_Stats = tuple[float, float, float, tuple[float, ...], tuple[float, ...]]


def _stats(dist: Dist) -> _Stats:
    mean = 0.0
    p_large = 0.0
    p_small = 0.0
    mass = [0.0] * 8  # probability of each rabbit or cat index 0..7
    for c, p in dist:
        mean += p * POINTS[c]
        if c == _LD:
            p_large += p
        elif c == _SD:
            p_small += p
        else:
            mass[c] += p
    rabbit = mass[_RABBIT]
    f = [0.0] * 8
    acc = rabbit
    f[7] = acc
    for k in range(6, -1, -1):
        acc += mass[k]
        f[k] = acc
    g = [rabbit]  # g[k + 1] = G(k)
    acc = rabbit
    for k in range(7):
        acc += mass[k]
        g.append(acc)
    return mean, p_large, p_small, tuple(f), tuple(g)


def _uniform_stats(mask: int) -> _Stats:
    hit = _MASK_STATS[mask]
    if hit is None:
        cards = [c for c in range(10) if mask >> c & 1]
        hit = _MASK_STATS[mask] = _stats(_uniform(cards))
    return hit


_MASK_STATS: list[_Stats | None] = [None] * (1 << 10)


def _expected(stats: Sequence[_Stats]) -> float:
    """E[kept value] of a row whose positions are independent with these summaries."""
    total = 0.0
    chase = 0.0
    size = len(stats)
    for j in range(size):
        sj = stats[j]
        total += sj[0]
        p_large = sj[1]
        p_small = sj[2]
        if not (p_large or p_small):
            continue
        # products over the other positions, k = 0..7 (F) and k = -1..6 (G)
        pf = [1.0] * 8
        pg = [1.0] * 8
        for i in range(size):
            if i != j:
                fi = stats[i][3]
                gi = stats[i][4]
                for k in range(8):
                    pf[k] *= fi[k]
                    pg[k] *= gi[k]
        if p_large:
            best = 0.0
            for k in range(7):
                best += POINTS[k] * (pf[k] - pf[k + 1])
            chase += p_large * best
        if p_small:
            worst = 0.0
            for k in range(7):
                worst += POINTS[k] * (pg[k + 1] - pg[k])
            chase += p_small * worst
    return total - chase


# Rows of uniform masks: the known cards (one-bit masks) form a block described by five
# numbers (points, dogs, whether a lone dog is large, best and worst cat), and the uncertain
# cards are summarised once per multiset of their masks as tables over the block's best or
# worst cat, so a row's value costs a few lookups, whatever the known cards.


def _table_best(prod: Sequence[float]) -> tuple[float, ...]:
    """E[points of the best cat chased] for each best known cat ``lo`` (0..6, 7: none).

    ``prod[k]``: probability that the uncertain cards hold no dog and no cat better than index k.
    """
    return tuple(
        sum(POINTS[k] * ((prod[k] if lo >= k else 0.0) - (prod[k + 1] if lo >= k + 1 else 0.0)) for k in range(7))
        for lo in range(8)
    )


def _table_worst(prod: Sequence[float]) -> tuple[float, ...]:
    """E[points of the worst cat chased] for each worst known cat ``hi`` (-1: none, 0..6); ``prod`` as G."""
    return tuple(
        sum(POINTS[k] * ((prod[k + 1] if hi <= k else 0.0) - (prod[k] if hi <= k - 1 else 0.0)) for k in range(7))
        for hi in range(-1, 7)
    )


# (mean points of the uncertain cards; chase by one of their dogs, per lo and per hi, with no
#  known dog; chase by one known large dog per lo, by one known small dog per hi)
_Summary = tuple[float, tuple[float, ...], tuple[float, ...], tuple[float, ...], tuple[float, ...]]
_SUMMARIES: dict[tuple[int, ...], _Summary] = {}
_SUMMARIES_SIZE = 1 << 15


def _summary(loose: tuple[int, ...]) -> _Summary:
    hit = _SUMMARIES.get(loose)
    if hit is not None:
        return hit
    stats = [_uniform_stats(m) for m in loose]
    mean = sum(st[0] for st in stats)
    by_large = [0.0] * 8
    by_small = [0.0] * 8
    for j, sj in enumerate(stats):
        if not (sj[1] or sj[2]):
            continue
        pf = [1.0] * 8
        pg = [1.0] * 8
        for i, si in enumerate(stats):
            if i != j:
                pf = [a * b for a, b in zip(pf, si[3], strict=True)]
                pg = [a * b for a, b in zip(pg, si[4], strict=True)]
        if sj[1]:
            by_large = [a + sj[1] * b for a, b in zip(by_large, _table_best(pf), strict=True)]
        if sj[2]:
            by_small = [a + sj[2] * b for a, b in zip(by_small, _table_worst(pg), strict=True)]
    all_f = [1.0] * 8
    all_g = [1.0] * 8
    for st in stats:
        all_f = [a * b for a, b in zip(all_f, st[3], strict=True)]
        all_g = [a * b for a, b in zip(all_g, st[4], strict=True)]
    hit = (mean, tuple(by_large), tuple(by_small), _table_best(all_f), _table_worst(all_g))
    if len(_SUMMARIES) >= _SUMMARIES_SIZE:
        _SUMMARIES.clear()
    _SUMMARIES[loose] = hit
    return hit


def _value(summary: _Summary, known: int, dogs: int, large: bool, lo: int, hi: int) -> float:
    """E[kept value] of a row: known cards (points, dogs, best and worst cat) plus uncertain ones (R16)."""
    if dogs >= 2:  # two dogs cancel, whatever the uncertain cards are
        return known + summary[0]
    if dogs == 1:  # the known dog chases only if no uncertain card is a dog
        return known + summary[0] - (summary[3][lo] if large else summary[4][hi + 1])
    return known + summary[0] - summary[1][lo] - summary[2][hi + 1]


def _split(masks: Sequence[int]) -> tuple[tuple[int, ...], int, int, bool, int, int]:
    """For sorted ``masks``: (uncertain masks, known points, known dogs, lone dog is large, best cat, worst cat)."""
    known = 0
    dogs = 0
    large = False
    lo = 7
    hi = -1
    loose = []
    for m in masks:
        if m & (m - 1):
            loose.append(m)
            continue
        c = m.bit_length() - 1
        known += POINTS[c]
        if c >= _LD:
            dogs += 1
            large = c == _LD
        elif c < 7:
            if c < lo:
                lo = c
            if c > hi:
                hi = c
    return tuple(loose), known, dogs, large, lo, hi


# Decisions meet the same rows again and again (the same known cards, the same unseen sets):
# the values are kept, keyed by the sorted masks.
_ROW_CACHE: dict[tuple[int, ...], float] = {}
_WITH_CARD_CACHE: dict[tuple[int, ...], tuple[float, ...]] = {}
_CACHE_SIZE = 1 << 16


def mask_row_value(masks: Sequence[int]) -> float:
    """Expected kept value of a row where each card is uniform over one bit mask of card kinds.

    A known card is a one-bit mask. Exact: see the comment above :func:`_stats`.
    """
    key = tuple(sorted(masks))
    hit = _ROW_CACHE.get(key)
    if hit is None:
        loose, known, dogs, large, lo, hi = _split(key)
        hit = round(_value(_summary(loose), known, dogs, large, lo, hi), VALUE_DIGITS)
        if len(_ROW_CACHE) >= _CACHE_SIZE:
            _ROW_CACHE.clear()
        _ROW_CACHE[key] = hit
    return hit


def values_with_each_card(masks: Sequence[int]) -> tuple[float, ...]:
    """:func:`mask_row_value` of the row plus one known card, for each of the ten cards in turn.

    A placement weighs every card it might play against the same row, so the
    ten values are computed, and kept, together.
    """
    key = tuple(sorted(masks))
    hit = _WITH_CARD_CACHE.get(key)
    if hit is not None:
        return hit
    loose, known, dogs, large, lo, hi = _split(key)
    summary = _summary(loose)
    out = []
    for c in range(10):
        if c >= _LD:
            v = _value(summary, known, dogs + 1, c == _LD if dogs == 0 else large, lo, hi)
        elif c < 7:
            v = _value(summary, known + POINTS[c], dogs, large, min(lo, c), max(hi, c))
        else:
            v = _value(summary, known, dogs, large, lo, hi)  # a rabbit changes nothing
        out.append(round(v, VALUE_DIGITS))
    hit = tuple(out)
    if len(_WITH_CARD_CACHE) >= _CACHE_SIZE:
        _WITH_CARD_CACHE.clear()
    _WITH_CARD_CACHE[key] = hit
    return hit


# ---------------------------------------------------------------- what the view shows

# Per finished-rounds tuple: the cards each seat (and, last, the dummy) was seen placing, as masks.
_SEEN_CACHE: dict[int, tuple[tuple[RoundResult, ...], tuple[int, ...], tuple[int, ...]]] = {}
_SEEN_CACHE_SIZE = 64


def apply_round(seen: list[int], money: list[int], r: RoundResult) -> None:
    """Add one finished round's public facts: its cards, turned up by R14, to the cards seen placed per
    owner (index ``len(money)``: the dummy), and its payouts (R13) and price (R17) to each seat's money."""
    n = len(money)
    for owner, c in zip(r.owners, r.row, strict=True):
        seen[n if owner is None else owner] |= 1 << c
    for s, amount in r.payouts:
        money[s] += amount
    if r.buyer is not None and r.price is not None:
        money[r.buyer] -= r.price


def public_tables(view: View) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(cards seen placed per seat, then the dummy; money per seat after the finished rounds).

    Every placement of a finished round was turned up (R14), so both follow
    from ``view.rounds`` and are shared by all views of the same rounds.
    """
    rounds = view.rounds
    n = view.seats
    hit = _SEEN_CACHE.get(id(rounds))
    if hit is not None and hit[0] is rounds and len(hit[2]) == n:
        return hit[1], hit[2]
    from catsack.setup import START_MONEY

    seen = [0] * (n + 1)
    money = [START_MONEY] * n
    for r in rounds:
        apply_round(seen, money, r)
    out = (tuple(seen), tuple(money))
    if len(_SEEN_CACHE) >= _SEEN_CACHE_SIZE:
        _SEEN_CACHE.clear()
    _SEEN_CACHE[id(rounds)] = (rounds, *out)  # the entry keeps ``rounds`` alive: its id stays unique
    return out


def unseen_mask(view: View, owner: int | None) -> int:
    """Bit mask of :func:`unseen_cards`."""
    if owner == view.seat and owner is not None:
        mask = 0
        for c in view.hand:
            mask |= 1 << c
        return mask if view.removed is None else mask | 1 << view.removed
    seen = public_tables(view)[0][view.seats if owner is None else owner]
    if not view.is_over:
        for rc in view.row:
            if rc.owner == owner and rc.face_up and rc.card is not None:
                seen |= 1 << rc.card
    return _ALL & ~seen


def unseen_cards(view: View, owner: int | None) -> list[int]:
    """Cards of ``owner``'s set (``None``: the dummy) that the viewer has not seen played (R23).

    For the viewer's own seat: its hand and removed card.
    """
    mask = unseen_mask(view, owner)
    return [c for c in range(10) if mask >> c & 1]


def _uniform(cards: Sequence[int]) -> Dist:
    p = 1.0 / len(cards)
    return [(c, p) for c in cards]


def row_masks(view: View, *, include_unplaced: bool = True) -> list[int]:
    """Per row card, current and (during placement) still to be placed by others: the cards it may be.

    A known card is a one-bit mask; a face-down card is uniform over its
    owner's unseen cards (exactly :func:`catsack.belief.card_beliefs`); a card
    an opponent has yet to place likewise. The viewer's own unplaced card is
    left out (the caller tries each candidate).
    """
    n = view.seats
    seen = public_tables(view)[0]
    # An owner has one card per round (R10): if it is face down, or not placed yet, none of the
    # owner's cards of this round was seen, so its unseen cards are those of the finished rounds.
    masks = [
        1 << rc.card if rc.card is not None else _ALL & ~seen[n if rc.owner is None else rc.owner] for rc in view.row
    ]
    if include_unplaced and view.phase == "placement" and view.seat is not None:
        placed = len(view.row) - (1 if n == 3 else 0)
        for k in range(placed, n):
            owner = (view.start + k) % n
            if owner != view.seat:
                masks.append(_ALL & ~seen[owner])
    return masks


def row_distributions(view: View, *, include_unplaced: bool = True) -> list[Dist]:
    """:func:`row_masks` as explicit distributions: (card index, probability) per possible card."""
    return [_uniform([c for c in range(10) if m >> c & 1]) for m in row_masks(view, include_unplaced=include_unplaced)]


def row_worth(view: View) -> float:
    """The expected kept value (R16) of the current row for the viewer."""
    return mask_row_value(row_masks(view, include_unplaced=False))


def expected_row_value(
    dists: list[Dist], rng: random.Random | None = None, extra: Sequence[int | None] = (None,)
) -> list[float]:
    """Expected :func:`kept_value` of the row, once per ``extra`` card added to it (``None``: none).

    Exact for any independent distributions; ``rng`` is accepted for
    compatibility and not used.
    """
    base = [_stats(d) for d in dists]
    return [round(_expected(base if e is None else [*base, _uniform_stats(1 << e)]), VALUE_DIGITS) for e in extra]


def seat_money(view: View) -> list[int]:
    """Every seat's money, rebuilt from the public history (R24: every change of money is public)."""
    money = list(public_tables(view)[1])
    if not view.is_over:
        k = sum(view.passed)
        filled = view.rounds[-1].refilled if view.rounds else True
        if k and filled:
            # This round's passers are the last k passes of the history (R13: in pass order).
            passers: list[int] = []
            for s, text in reversed(view.history):
                if text == "pass":
                    passers.append(s)
                    if len(passers) == k:
                        break
            for i, s in enumerate(reversed(passers)):
                money[s] += view.mouse_cards[i]
    for s, m in enumerate(view.money):
        if m is not None:
            money[s] = m  # what the view shows is authoritative
    return money


def bid_limit(view: View, worth: float) -> float:
    """The highest total bid worth making for a row estimated at ``worth`` (see the module docstring)."""
    payout = view.next_payout
    limit = worth - payout - MARGIN
    others_in = sum(1 for s, p in enumerate(view.passed) if not p and s != view.seat)
    if payout and others_in >= 2:
        npass = sum(view.passed)
        later = view.mouse_cards[min(npass + 1, len(view.mouse_cards) - 1)]
        limit += OUTLAST_SHARE * (later - payout)
    return limit


def plans_to_buy(view: View) -> bool:
    """Whether the seat expects to be this round's buyer (rich enough to compete)."""
    assert view.seat is not None
    money = seat_money(view)
    mine = money[view.seat]
    richest = max(m for s, m in enumerate(money) if s != view.seat)
    return mine >= BUY_MIN_MONEY and mine >= richest - BUY_MONEY_GAP


class HeuristicBot(Bot):
    """Rule-based: bids up to its belief-weighted estimate of the row, places with intent."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        if arg:
            raise BotSpecError(f"the heuristic bot takes no argument, got {arg!r}")
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        if view.legal[0].kind == PLACE:
            return self._place(view)
        return self._bid(view)

    def worth(self, view: View) -> float:
        """The expected kept value of the current row for this seat."""
        return row_worth(view)

    def _bid(self, view: View) -> Move:
        legal = view.legal
        worth = self.worth(view)
        if view.phase == "last choice":  # R15: the row is face up, buy for 1 or void it (R19)
            return legal[0] if legal[0].kind == BID and worth > 1 else PASS_MOVE
        raise_to = view.high_bid + 1
        if legal[0].kind == BID and raise_to <= bid_limit(view, worth):
            return bid(raise_to)
        return PASS_MOVE

    def _place(self, view: View) -> Move:
        assert view.seat is not None
        legal = view.legal
        pool = unseen_cards(view, view.seat)  # what opponents think this card may be
        with_card = values_with_each_card(row_masks(view))
        values = [with_card[c] for c in pool]
        by_card = dict(zip(pool, values, strict=True))
        average = sum(values) / len(values)
        n = view.seats
        face_up_at_once = n > 3 and view.start == view.seat  # R11: the start player's card
        candidates = [(by_card[m.arg] - average, m.arg, m) for m in legal]
        if face_up_at_once:
            return min(candidates, key=lambda t: (abs(t[0]), t[1]))[2]
        if plans_to_buy(view):
            return max(candidates, key=lambda t: (t[0], -t[1]))[2]
        return min(candidates, key=lambda t: (t[0], t[1]))[2]
