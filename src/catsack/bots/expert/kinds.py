"""Reading a player's kind from play (``expert:kinds=read``): a seat whose kind the table does not show
that bids exactly by one of the fixed rules the expert knows is modelled as bidding so.

A person, an unknown bot, or anyone at a table whose kinds are hidden starts as a *person* in the
expert's model (:mod:`catsack.bots.expert.players`): a style read from its placements, bid habits read
from its bids, a chance of bluffing. Some players bid by a fixed rule, and the finished rounds show
it: every card of a finished row was turned up (R14), so each bid and pass can be set beside the
honest limit the player had when it made it, and the size of each raise is public (R12). Two rules
are read so:

``heuristic``  raises the high bid by exactly one while its honest limit reaches the raise and passes
               otherwise (:class:`catsack.bots.heuristic.HeuristicBot`);
``random``     passes or raises by the random bot's own chances whatever the row holds
               (:func:`catsack.bots.random_bot.auction_chances`).

Per seat, the likelihood of its bids and passes under each rule is weighed against their likelihood as
a person's (the bid habits' prior grid summed over, and a raise of one step :data:`PERSON_STEP1` of the
time), with the prior :data:`KIND_PRIOR` for each rule. A seat whose posterior for the random bot's
rule reaches :data:`KIND_SURE` is modelled as that bot (its style shares, bid habits and own bid rule:
:data:`.players.KIND_STYLES`, :data:`.players.KIND_HABITS`, :data:`.players.OWN_BIDS_KINDS`); the chance
of the heuristic's rule weighs that bot's bid habits into the seat's
(:meth:`.players.RoundFacts.blend_habits`), and its placements and bluffs are still read as a person's.
The reading is made anew at every decision from the whole record, so a move against the rule (a raise
by more than one, a bid well over the limit) undoes it. Everything read is public; a seat whose kind
the table shows keeps that kind.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from catsack.bots.expert.players import (
    HABIT_GRID,
    HONEST_KINDS,
    PastBid,
    censored,
    habit_logs,
    kind_of,
    past_bids,
)
from catsack.bots.random_bot import auction_chances
from catsack.view import View

KIND_PRIOR = 0.05  # the prior chance of each rule for a seat of unknown kind (a person the rest)
KIND_SURE = 0.9  # the posterior of the random bot's rule at which a seat is met as that bot
#: points: the spread of the heuristic's limit about the one the expert recomputes from the finished round
#: (:func:`.players.past_bids`). The two agree: in 1,646 bids and passes of heuristic bots (30 games, seat 0's
#: view) each had a chance of at least 0.5 under a spread of 1 point (the bid exactly at the limit).
RULE_SD = 0.5
RULE_MISS = 1e-4  # the least chance of a bid or pass under the heuristic's limit
STEP_MISS = 1e-6  # the chance that the heuristic raises by more than one (its rule never does)
PERSON_STEP1 = 0.6  # the chance that a person raises by one; other raises are spread over what it could bid
RANDOM_MISS = 0.001  # the least chance of a move under the random bot's rule (a bid it cannot make)


def _logsumexp(xs: Sequence[float]) -> float:
    top = max(xs)
    return top + math.log(sum(math.exp(x - top) for x in xs))


def _person_bids(acts: Sequence[PastBid]) -> float:
    """The log-likelihood of a seat's bids and passes as a person's: the bid habits' prior grid
    (:func:`.players.bid_habits`) summed over, and the size of each raise."""
    norm = _logsumexp([p for _, _, p in HABIT_GRID])
    logs = habit_logs(acts, HABIT_GRID)
    steps = 0.0
    for act in acts:
        if act.step == 1:
            steps += math.log(PERSON_STEP1)
        elif act.step > 1:
            steps += math.log((1.0 - PERSON_STEP1) / max(1, act.room - 1))
    return _logsumexp(logs) - norm + steps


def _rule_bids(acts: Sequence[PastBid]) -> float:
    """The log-likelihood of a seat's bids and passes under the heuristic's rule."""
    ll = 0.0
    for act in acts:
        if act.step > 1:
            ll += math.log(STEP_MISS)
        else:
            ll += math.log(max(censored(act.limit, RULE_SD, act.low, act.high), RULE_MISS))
    return ll


def _coin_bids(acts: Sequence[PastBid]) -> float:
    """The log-likelihood of a seat's bids and passes under the random bot's rule (its chances at the high
    bid and the money the seat had then: a pass's ``high`` is the high bid plus one, a bid's ``low`` the
    bid and ``step`` its raise, ``room`` the money less the high bid)."""
    ll = 0.0
    for act in acts:
        high = int(act.high) - 1 if act.step == 0 else int(act.low) - act.step
        chances = auction_chances(high, high + act.room)
        ll += math.log(max(chances.get(0 if act.step == 0 else int(act.low), 0.0), RANDOM_MISS))
    return ll


def kind_odds(bids: Sequence[Sequence[PastBid]]) -> list[tuple[float, float]]:
    """Per seat, the posterior chances that it bids by the heuristic's rule and by the random bot's, from its
    bids and passes in the finished rounds (:func:`.players.past_bids`, R14), against a person's bids; with no
    such bid, the prior (:data:`KIND_PRIOR` each)."""
    base = math.log(KIND_PRIOR)
    person_prior = math.log(1.0 - 2 * KIND_PRIOR)
    out = []
    for acts in bids:
        person = person_prior + _person_bids(acts)
        rule = base + _rule_bids(acts)
        coin = base + _coin_bids(acts)
        total = _logsumexp([person, rule, coin])
        out.append((math.exp(rule - total), math.exp(coin - total)))
    return out


class KindsRead(NamedTuple):
    """What :func:`read_kinds` read: the table with the seats that bid by the random bot's rule named
    ``random``, and per seat the chance that it bids by the heuristic's rule (0 for a seat not read)."""

    players: tuple[str | None, ...] | None
    rule: tuple[float, ...]


def read_kinds(
    view: View, players: Sequence[str | None] | None, bids: Sequence[Sequence[PastBid]] | None = None
) -> KindsRead:
    """The rules read from play (:func:`kind_odds`) for the seats other than the view's whose kind the table
    does not show (``players``, the table as met; ``None``: not met).

    A seat that bids by the random bot's rule (posterior at least :data:`KIND_SURE`) is named ``random`` in
    the table returned (its styles, bid habits and own bid rule follow, :mod:`.players`). For the others the
    chance that they bid by the heuristic's rule is returned where the evidence favours it (above its prior
    :data:`KIND_PRIOR`; else 0, so a table that never bids so plays as it did without the reading), and
    :meth:`.players.RoundFacts.blend_habits` weighs it into their bid habits; the rest of a person's model
    stays, its placements read as a person's (a dog-dumper bids by that rule too) and its chance of bluffing
    (a bluff shows only once made). Nothing is read in round 1."""
    n = view.seats
    table = None if players is None else tuple(players)
    if not view.rounds:
        return KindsRead(table, (0.0,) * n)
    met: list[str | None] = [None] * n if table is None else list(table)
    coin = False
    rule = [0.0] * n
    for s, (p_rule, p_coin) in enumerate(kind_odds(past_bids(view) if bids is None else bids)):
        if s == view.seat or kind_of(met[s]) in HONEST_KINDS:
            continue
        if p_coin >= KIND_SURE:
            met[s] = "random"
            coin = True
        elif p_rule > KIND_PRIOR:  # the evidence favours the rule (a player who jumps or bluffs: ~0, left out)
            rule[s] = p_rule
    return KindsRead(tuple(met) if coin else table, tuple(rule))
