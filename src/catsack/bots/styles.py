"""Opponent styles: rule-based players that differ from the heuristic bot, bluffers among them.

Each style is a :class:`StyleBot` (spec ``style:NAME``) that decides from its seat's view only (R23)
with the heuristic bot's exact row estimate (:func:`catsack.bots.heuristic.row_worth`, R16's dogs
included) and its bid limit (:func:`catsack.bots.heuristic.bid_limit`: the estimate minus the payout
for passing, R13). What makes a style is where it departs from that rule:

=========== ==================================================================================
``saver``   a cautious saver: bids only well below its estimate, and early in the game spends
            no more than a share of its purse on one row (money is points at the end, R21)
``early``   an aggressive early buyer: in rounds 1-3 it places as a buyer, bids over its
            estimate and, as rich as anyone, bids at once what no one still in can top (R12)
``dumper``  a dog-dumper: every card it can hide (R10, R11) is the one that hurts the buyer
            most, the large dog beside a likely good cat, else its worst cat
``bluff``   bids up rows in which it hid a dog or a negative cat while two or more others are
            still in, as if its card were an average one, and drops out before it is left alone
``sandbag`` shows a good cat and bids low: as start player (4-5 seats, its card face up at once,
            R11) it leads its best cat; holding a good card in the row it bids as if its card
            were worse while two or more others are in, then up to its limit once one is left
``liar``    both ``bluff`` and ``sandbag``
=========== ==================================================================================

The styles were written before any measurement against them, and are not tuned to the expert.
A style's decision is an explicit distribution over moves (:meth:`StyleBot.distribution`): the
bluffing styles bluff with chance :data:`BLUFF_CHANCE` at each decision where they can, so a
variance-reduction estimator (:mod:`catsack.tournament.aivat`) may use their policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import (
    bid_limit,
    mask_row_value,
    plans_to_buy,
    row_masks,
    row_worth,
    seat_money,
    unseen_cards,
    values_with_each_card,
)
from catsack.moves import BID, PASS_MOVE, PLACE, Move, bid
from catsack.view import View

__all__ = ["BLUFF_CHANCE", "STYLES", "Style", "StyleBot", "others_worth"]

#: The chance that a bluffing style bluffs at a decision where its style says it may (the rest: honest).
BLUFF_CHANCE = 0.85
BLUFF_GAP = 2.0  # points: its card counts as bad (or good) when it moves the row this far from the average
BLUFF_OVER = 2.0  # points over the limit of a player holding an average card, up to which a bluffer raises
SANDBAG_UNDER = 5.0  # points under that limit at which a sandbagger stops while two or more others are in
SAVER_MARGIN = 3.0  # points of extra safety below the estimate (on top of the heuristic's margin)
SAVER_SHARE = 0.4  # ... and the share of its purse it spends on one row in round 1, rising to all in round 9
EARLY_ROUNDS = 3  # the rounds in which the early buyer buys
EARLY_OVER = 3.0  # points over its estimate it bids then
EARLY_LOCK = 9.0  # the least estimate at which it bids what no one can top at once


@dataclass(frozen=True)
class Style:
    """What a style changes in the heuristic rule."""

    place: str = "rule"  # "rule" (the heuristic's), "dump" (always the worst for the buyer), "early", "lead"
    saver: bool = False
    early: bool = False
    bluff: bool = False  # bid up rows it hid a bad card in
    sandbag: bool = False  # bid low with a good card in the row


STYLES: dict[str, Style] = {
    "saver": Style(saver=True),
    "early": Style(place="early", early=True),
    "dumper": Style(place="dump"),
    "bluff": Style(bluff=True),
    "sandbag": Style(place="lead", sandbag=True),
    "liar": Style(place="lead", bluff=True, sandbag=True),
}


def others_worth(view: View) -> float | None:
    """The row's expected kept value (R16) as the other players see it: the viewer's own face-down card
    uniform over the cards of its set that no one has seen it play (R23); ``None`` without such a card."""
    seat = view.seat
    masks = row_masks(view, include_unplaced=False)
    own = -1
    for i, rc in enumerate(view.row):
        if rc.owner == seat and not rc.face_up:
            own = i
    if own < 0 or seat is None:
        return None
    public = 0
    for c in view.hand:
        public |= 1 << c
    if view.removed is not None:
        public |= 1 << view.removed
    card = view.row[own].card
    assert card is not None  # its own card is never hidden from it
    masks[own] = public | 1 << card
    return mask_row_value(masks)


class StyleBot(Bot):
    """A rule-based player of one of :data:`STYLES`; deterministic for a given seed."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        name = (arg or "").strip()
        if name not in STYLES:
            raise BotSpecError(f"unknown style {name!r}: use style:NAME with NAME one of {', '.join(STYLES)}")
        self.style = STYLES[name]
        self.rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        dist = self.distribution(view)
        if len(dist) == 1:
            return dist[0][0]
        x = self.rng.random()
        for move, p in dist:
            x -= p
            if x < 0:
                return move
        return dist[-1][0]

    def distribution(self, view: View) -> list[tuple[Move, float]]:
        """The style's policy at ``view``: (move, chance) pairs, chances adding up to 1."""
        if view.legal[0].kind == PLACE:
            return [(self._place(view), 1.0)]
        return self._auction(view)

    # ------------------------------------------------------------------ placing (R10, R11)

    def _place(self, view: View) -> Move:
        assert view.seat is not None
        style = self.style
        legal = view.legal
        pool = unseen_cards(view, view.seat)  # what the others think the card may be
        with_card = values_with_each_card(row_masks(view))
        average = sum(with_card[c] for c in pool) / len(pool)
        gain = [(with_card[m.arg] - average, m.arg, m) for m in legal]
        face_up_at_once = view.seats > 3 and view.start == view.seat  # R11: the start player's card
        best = max(gain, key=lambda t: (t[0], -t[1]))[2]
        worst = min(gain, key=lambda t: (t[0], t[1]))[2]
        if face_up_at_once:
            if style.place == "lead":
                return min(legal, key=lambda m: m.arg)  # its best cat, shown (cards are indexed best first)
            return min(gain, key=lambda t: (abs(t[0]), t[1]))[2]  # the heuristic: change the row least
        if style.place == "dump":
            return worst
        if style.place == "early" and view.round <= EARLY_ROUNDS:
            return best
        return best if plans_to_buy(view) else worst

    # ------------------------------------------------------------------ bidding (R12-R15)

    def _auction(self, view: View) -> list[tuple[Move, float]]:
        legal = view.legal
        worth = row_worth(view)
        if view.phase == "last choice":  # R15: the whole row is face up; buy for 1 or void the round (R19)
            return [(legal[0] if legal[0].kind == BID and worth > 1 else PASS_MOVE, 1.0)]
        style = self.style
        limit = bid_limit(view, worth)
        money = legal[-2].amount if legal[0].kind == BID else 0  # the highest legal bid: all its money (R12)
        if style.saver:
            share = SAVER_SHARE + (1.0 - SAVER_SHARE) * (view.round - 1) / 8
            limit = min(limit - SAVER_MARGIN, share * money)
        if style.early and view.round <= EARLY_ROUNDS:
            limit += EARLY_OVER
            lock = self._lock(view)
            if lock is not None and worth >= EARLY_LOCK and limit >= lock - EARLY_OVER:
                return [(bid(lock), 1.0)]
        honest = self._raise_or_pass(view, limit)
        others_in = sum(1 for s, p in enumerate(view.passed) if not p and s != view.seat)
        if others_in < 2 or not (style.bluff or style.sandbag):
            return [(honest, 1.0)]
        seen_by_others = others_worth(view)
        if seen_by_others is None:
            return [(honest, 1.0)]
        shown = bid_limit(view, seen_by_others)  # the limit of a player whose card is an average one
        if style.bluff and worth < seen_by_others - BLUFF_GAP:
            alt = self._raise_or_pass(view, max(limit, shown + BLUFF_OVER))
        elif style.sandbag and worth > seen_by_others + BLUFF_GAP:
            alt = self._raise_or_pass(view, min(limit, shown - SANDBAG_UNDER))
        else:
            return [(honest, 1.0)]
        if alt == honest:
            return [(honest, 1.0)]
        return [(alt, BLUFF_CHANCE), (honest, 1.0 - BLUFF_CHANCE)]

    @staticmethod
    def _raise_or_pass(view: View, limit: float) -> Move:
        legal = view.legal
        raise_to = view.high_bid + 1
        if legal[0].kind == BID and raise_to <= limit and raise_to <= legal[-2].amount:
            return bid(raise_to)
        return PASS_MOVE

    @staticmethod
    def _lock(view: View) -> int | None:
        """The bid no other player still in can top (R12), when it is legal and the seat is as rich as anyone."""
        assert view.seat is not None
        money = seat_money(view)
        mine = money[view.seat]
        others: Sequence[int] = [m for s, m in enumerate(money) if s != view.seat and not view.passed[s]]
        top = max(others, default=0)
        if mine < max(money) or not view.high_bid < top <= mine:
            return None
        return top
