"""A transparent rule-based player: estimate the row, bid up to the estimate, place cards with intent.

How it thinks (every number below is a named constant in this module):

**Worth of a row.** A row is worth the points of the cats the buyer keeps
after the dogs act (R16: one large dog chases the best cat, one small dog the
worst, two dogs cancel). Face-up cards and the bot's own card are known. Every
face-down card is uncertain: its owner may have placed any card of their set
that nobody has seen yet (R23), which is exactly
:func:`catsack.belief.card_beliefs`. Cards not placed yet (during placement)
get the same belief. The bot averages the row's worth over all combinations
of the hidden cards (exactly when there are few, on a fixed sample otherwise),
so a possible dog lowers or raises the estimate by the cat it would chase.

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

import itertools
import random
from collections.abc import Sequence

from catsack.belief import card_beliefs
from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.cards import POINTS, TOKENS, Card
from catsack.moves import BID, PASS_MOVE, PLACE, Move, bid
from catsack.view import HIDDEN_PLACE as _HIDDEN
from catsack.view import View

__all__ = [
    "HeuristicBot",
    "expected_row_value",
    "kept_value",
    "row_distributions",
    "seat_money",
    "unseen_cards",
]

_LD = int(Card.LARGE_DOG)
_SD = int(Card.SMALL_DOG)
_TOKEN_INDEX = {t: i for i, t in enumerate(TOKENS)}

MARGIN = 1.0  # mice of safety below the estimate (the estimate is uncertain)
OUTLAST_SHARE = 0.5  # share of the higher payout a bidder may collect by outlasting others
BUY_MONEY_GAP = 2  # plan to buy when at most this much poorer than the richest opponent
BUY_MIN_MONEY = 6  # ... and holding at least this much
EXACT_LIMIT = 1200  # enumerate hidden combinations up to this many, else sample
SAMPLES = 300  # samples when enumeration is too large

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


def unseen_cards(view: View, owner: int | None) -> list[int]:
    """Cards of ``owner``'s set (``None``: the dummy) that the viewer has not seen played (R23)."""
    if owner is None:
        seen = {int(r.row[0]) for r in view.rounds}
        if not view.is_over and view.row and view.row[0].card is not None:
            seen.add(int(view.row[0].card))
        return [c for c in range(10) if c not in seen]
    if owner == view.seat:
        return sorted({int(c) for c in view.hand} | ({int(view.removed)} if view.removed is not None else set()))
    seen = set()
    for s, text in view.history:
        if s == owner and text.startswith("place ") and text != _HIDDEN:
            seen.add(_TOKEN_INDEX[text[6:]])
    return [c for c in range(10) if c not in seen]


def _uniform(cards: Sequence[int]) -> Dist:
    p = 1.0 / len(cards)
    return [(c, p) for c in cards]


def row_distributions(view: View, *, include_unplaced: bool = True) -> list[Dist]:
    """One distribution per row card, current and (during placement) still to be placed by others.

    Known cards get probability 1; face-down cards follow
    :func:`catsack.belief.card_beliefs`; a card an opponent has yet to place
    is uniform over their unseen cards. The viewer's own unplaced card is
    left out (the caller tries each candidate).
    """
    dists: list[Dist] = []
    beliefs = card_beliefs(view)
    for rc, belief in zip(view.row, beliefs, strict=True):
        if belief is None:
            assert rc.card is not None
            dists.append([(int(rc.card), 1.0)])
        else:
            dists.append([(_TOKEN_INDEX[t], p) for t, p in belief.items()])
    if include_unplaced and view.phase == "placement" and view.seat is not None:
        n = view.seats
        placed = len(view.row) - (1 if n == 3 else 0)
        for k in range(placed, n):
            owner = (view.start + k) % n
            if owner != view.seat:
                dists.append(_uniform(unseen_cards(view, owner)))
    return dists


def _combos(dists: list[Dist], rng: random.Random) -> list[tuple[list[int], float]]:
    """Weighted combinations of the uncertain cards: all of them, or a fixed-size sample."""
    fixed = [d[0][0] for d in dists if len(d) == 1]
    loose = [d for d in dists if len(d) > 1]
    size = 1
    for d in loose:
        size *= len(d)
    if size <= EXACT_LIMIT:
        out = []
        for combo in itertools.product(*loose):
            w = 1.0
            cards = fixed[:]
            for c, p in combo:
                cards.append(c)
                w *= p
            out.append((cards, w))
        return out
    w = 1.0 / SAMPLES
    out = []
    for _ in range(SAMPLES):
        cards = fixed[:]
        for d in loose:
            cards.append(rng.choices([c for c, _ in d], weights=[p for _, p in d])[0])
        out.append((cards, w))
    return out


def expected_row_value(dists: list[Dist], rng: random.Random, extra: Sequence[int | None] = (None,)) -> list[float]:
    """Expected :func:`kept_value` of the row, once per ``extra`` card added to it (``None``: none)."""
    totals = [0.0] * len(extra)
    for cards, w in _combos(dists, rng):
        for i, e in enumerate(extra):
            totals[i] += w * kept_value(cards if e is None else [*cards, e])
    return totals


def seat_money(view: View) -> list[int]:
    """Every seat's money, rebuilt from the public history (R24: every change of money is public)."""
    from catsack.setup import START_MONEY

    n = view.seats
    money = [START_MONEY] * n
    for r in view.rounds:
        for s, amount in r.payouts:
            money[s] += amount
        if r.buyer is not None and r.price is not None:
            money[r.buyer] -= r.price
    if not view.is_over and any(view.passed):
        filled = view.rounds[-1].refilled if view.rounds else True
        k = sum(view.passed)
        passers = [s for s, text in view.history if text == "pass"][-k:]
        if filled:
            for i, s in enumerate(passers):
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
        return expected_row_value(row_distributions(view, include_unplaced=False), self.rng)[0]

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
        dists = row_distributions(view)
        values = expected_row_value(dists, self.rng, pool)
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
