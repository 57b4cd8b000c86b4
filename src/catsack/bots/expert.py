"""The ``expert`` bot: information-set search in which every player decides from its own view.

It searches from one seat's view (R23) like :mod:`catsack.bots.ismcts`, and
fixes the three reasons that bot misjudges strong play (issue 17):

**1. An honest opponent model.** Each iteration deals a hidden world
consistent with the searcher's view. Opponents are not tree nodes that learn,
over many worlds, what the searcher's fixed face-down card is; they are
players whose policy reads *their own view of the sampled world*: the row's
face-up cards, their own face-down card, and for every other face-down card
(the searcher's included) the uniform belief over the cards its owner has not
been seen to play (exactly :func:`catsack.belief.card_beliefs`, valued in
closed form by :func:`catsack.bots.heuristic.mask_row_value`, dogs included,
R16). From that honest estimate each one bids as an English-auction bidder up
to its estimate minus the payout for passing (R12, R13, the heuristic's
limit), shifted and spread per player by its bidding habits as read from its
bids in finished rounds (:func:`bid_habits`: every card is turned up by then,
R14, so the honest limit it had at each bid is public; heuristic bots read as
the rule itself, ``ismcts:strong`` as the rule with a spread near 6 points,
random bots as anything). It buys in the last choice (R15) when the
visible row is worth more than 1. How it places and whether it bids what no
one can top depend on its *style*, read per player from the finished rounds
(:func:`styles`: every placed card is turned up by the end of its round,
R14): ``rule`` places like the heuristic (buyers favour good cats, sellers
dump negative cats and the large dog) and raises a step at a time; ``lead``
bids at once the most money any other player still in holds once its limit
reaches it, since no one can top that (:func:`_lock`, R12), and in round 1,
where everyone holds 15 mice (R5), has the start player lead its best cats
and the others dump, since the start player who wants the row wins it
outright (``ismcts:strong`` does; a step-at-a-time model made the expert
give away its +15 in most round-1 rows it did not lead); ``any`` places any
card in hand alike. So an opening ``bid 1`` on a junk row is not free:
opponents pass when their own information says the row is bad, and the
opener pays for the row. The tree branches only on what the searcher
observes: its own decisions (UCB1) and the opponents' public bids and passes;
an opponent's face-down placement is one ``place ?`` edge. The searcher's
own decisions beyond :data:`TREE_DEPTH` per iteration (``depth=D``) follow
the same honest policy with its own information; searching all of them (the
default) measured best (48 duplicate games against 3 ``ismcts:iters=250``,
expert at 400 iterations: win share 0.35 at depth 9, 0.29 at depth 2, 0.27
at depth 1; see ``docs/bots.md``).

*Inference from bids.* The face-down row cards of a sampled world are drawn
by rejection (:data:`MAX_TRIES` draws, the likeliest kept if none is
accepted), weighted by the placement model and by the likelihood of every
bid and pass already made this round under the same honest bidder model in
that world: an opponent who kept raising probably placed a good card face
down, one who passed at once probably did not. The players' styles are
drawn with the cards (:class:`_StyleDraw`, ``styles=draw``): each player's
from its shares, and in round 1, before anyone has shown a style, one for the
whole table. A bid that could have been a jump to the bid no one could top
weighs the drawn style too (:data:`LOCK_JUMP`), so a start player who shows
its +15 and opens with 1 makes a step-raising table likelier, and in that
world the others keep raising a step at a time. Cards of this round already
face up weigh the draw as well (a start player who led its small dog is no
``lead`` player). (``styles=mix``, session 9's model, mixes the styles by
their shares in every world instead; with session 9's prior, on the same
deals, 5 players against 4 heuristic bots: 0.900 drawn, 0.550 mixed.) The
drawn cards are swapped in from their owners' hands or removed cards, so the
world stays consistent. Without this inference (``infer=0``) the same test
gave 0.15 instead of 0.29.

**2. A whole-game horizon.** Iterations play to the end of the current round
(every later round starts with fresh placements), then a leaf value gives the
searcher's probability of winning the game from there. ``leaf=hand`` (the
default, :class:`HandValue`): the seats' scores (R21) turned into win
probabilities by a softmax whose temperature grows with the rounds left,
fitted on self-play games by ``bench/expert_fit.py``. ``leaf=learned``
(:class:`LearnedValue`): the win head of :mod:`catsack.learn`'s value model
on the searcher's own view. In round 9 the leaf is the real end of the game.

**3. Reward that reflects winning.** The searcher's reward is its win share
(R22: ties split; at a leaf, the win probability) plus its score margin over
the table average divided by :data:`TIE_SCALE`, so margin only breaks
near-ties between moves.

*Budget.* ``expert`` runs :data:`ITERATIONS` iterations per decision: 8,000,
6,000 and 6,500 with 3, 4 and 5 seats (p95 CPU time per decision 0.32 to 0.49 s on
one core of the project's machine, ``bench/expert.py``; the target is 0.5 s).
The levels below it, ``expert:easy``, ``expert:normal`` and ``expert:strong``,
run :data:`LEVELS`' iterations; Easy and Normal also make mistakes of a set size
(``mistake=X`` points, :func:`pick_with_mistakes`).
Options, joined with ``+`` (tables separate specs with commas):
``expert:iters=N``, ``expert:time=S`` (seconds, not reproducible),
``leaf=hand|learned``, ``depth=D``, ``infer=0|1`` (weight worlds by bids), ``intent=read|fixed``
(each player's placement intent read from its past placements, or always assumed), ``bids=read|fixed``
(each player's bidding habits read, or the honest rule with :data:`OPPONENT_NOISE` points of noise for
everyone; ``noise=X`` sets that noise), ``lock=0|1`` (the bid no one can top, modelled and considered),
``lead=read|all|0`` (the styles' prior, :data:`STYLE_PRIORS`: each player's style read, the lead style
for everyone, or none), ``styles=draw|mix`` (the styles drawn per world, or mixed in every world).
With a seed the bot
and :func:`search` are deterministic.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

from catsack.belief import sample_game
from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import (
    MARGIN,
    OUTLAST_SHARE,
    _public_tables,
    apply_round,
    bid_limit,
    mask_row_value,
    row_worth,
    seat_money,
)
from catsack.bots.ismcts import (
    SELLER_WEIGHTS,
    RootStats,
    _tree_bids,
    _weights_for,
    ucb_pick,
    untried_pick,
)
from catsack.cards import POINTS
from catsack.game import _UP_AFTER_PASSES, LAST_CHOICE, Game, RoundResult
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, PLACES, Move
from catsack.setup import START_MONEY
from catsack.view import View

__all__ = ["ITERATIONS", "LEVELS", "ExpertBot", "HandValue", "LeafValue", "Level", "pick_with_mistakes", "search"]

#: Iterations per decision of the ``expert`` level, per seat count: the most that keep the p95 CPU
#: time of a decision below 0.5 s (the target) on one core of the project's machine, with a margin
#: (``bench/expert.py``, session 8's machine, about a quarter slower than session 7's: 4 seats at
#: 7,000 measured p95 0.52 s once the bid habits made modelled auctions longer). Against ``ismcts``
#: the expert needed about 2.5x its opponents' iterations; beyond that no gain was shown (4,000 vs
#: 9,000 on the same 96 deals: 0.344 and 0.323, docs/bots.md). Session 10: with the styles drawn per world
#: 3 seats at 10,000 measured p95 0.55-0.61 s (more rejected draws: the lock evidence), hence 8,000 (0.40-0.44 s).
ITERATIONS: dict[int, int] = {3: 8000, 4: 6000, 5: 6500}


class Level(NamedTuple):
    """A level below ``expert``: the same search and opponent model at a smaller budget, and its mistakes."""

    iterations: int  # per decision
    mistake: float  # points: the spread of its deliberate mistakes (:func:`pick_with_mistakes`; 0: none)


#: The levels below ``expert`` (``expert:easy``, ``expert:normal``, ``expert:strong``), the ones people pick
#: at a table (the lobby's Easy, Normal and Strong). A budget alone does not order them: in one table of
#: expert, 2,000, 400 and 50 iterations (96 duplicate games, seed 11) the win shares were 0.25, 0.32, 0.21
#: and 0.22, since the model of the other players, not the budget, makes the expert's strength. So each
#: level below Strong also makes mistakes of a set size (the search's own estimate of their cost: about
#: 0.14, 0.36, 0.77 and 1.4 points per decision at spreads 0.5, 1, 2 and 4). Strong makes none: at full
#: size (200 duplicate games, seed 1) a spread of 0.6 put it below the heuristic bot in the mixed table
#: (0.230 vs 0.320), and without mistakes it is above it (0.320 vs 0.265, expert 0.395), though no longer
#: below ``expert`` in the table of levels (0.338 vs 0.333). ``bench/expert_strength.py levels`` and
#: ``mixed`` measure the order (docs/bots.md). The ``ismcts`` levels they replaced stay as benchmark
#: opponents.
LEVELS: dict[str, Level] = {"easy": Level(150, 4.0), "normal": Level(600, 1.5), "strong": Level(2000, 0.0)}
#: Moves the search tried less than this share of its iterations are never picked as a mistake.
MISTAKE_VISITS = 0.02
EXPLORATION = 0.5  # UCB1 constant; rewards are win shares (order 1)
TIE_SCALE = 100.0  # points of margin worth one win: margin only breaks near-ties
OPPONENT_NOISE = 2.5  # bids=fixed: std dev (points) of a modelled player's estimate about its honest value
MAX_TRIES = 30  # rejection-sampling draws of the face-down row cards per iteration (then the likeliest)
TREE_DEPTH = 9  # own decisions searched per iteration (9: all of a round's); later ones follow its policy
DEFAULT_LEAF = "hand"  # the leaf value of plain ``expert`` (see LEAVES)
INTENT_CLAMP = 6.0  # how far (log-likelihood) a style may trail the best one in a seat's posterior (styles)
MIN_LIKELIHOOD = 0.02  # floor of one observed action's likelihood (players err; keeps every world possible)
# bid_habits: the grid of (offset, spread) of a player's bid limit about the honest one, and the prior
HABIT_OFFSETS = (-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0)  # points; prior normal about 0 ...
HABIT_PRIOR_SD = 3.0  # ... with this spread
HABIT_SPREADS = (0.5, 1.5, 3.0, 5.0, 8.0, 13.0)  # points; prior uniform
#: The ``lead`` style's placement weights (index order +15 +11 +8 +5 +3 -5 -8 R LD SD) of a start player
#: who can win the row outright (:func:`_intent_weights`): search bots lead round 1 with their +15, else the +11
#: (72 round-1 leads of ``ismcts:iters=900`` start players, ``--games 96 --seed 101``: +15 65 times, +11 7).
LEAD_WEIGHTS = (90.0, 9.0, 0.3, 0.2, 0.15, 0.05, 0.05, 0.1, 0.05, 0.1)
#: The styles a player is read as (:func:`styles`), by index: ``rule`` places like the heuristic (a likely
#: buyer favours good cats, a likely seller dumps) and raises a step at a time; ``lead`` is round 1's
#: model (a start player as rich as anyone leads its best cats, the others dump) and bids what no one
#: still in can top once its limit reaches it (:func:`_lock`); ``any`` places any card in hand alike.
RULE, LEAD, ANY = 0, 1, 2
#: Prior shares of the styles per ``lead=`` option: ``read`` reads every player, ``all`` assumes the lead
#: style for everyone who is not random (session 8's model), ``0`` leaves the lead style out.
STYLE_PRIORS: dict[str, tuple[float, float, float]] = {
    "read": (0.25, 0.6, 0.15),
    "all": (0.0, 0.5, 0.5),
    "0": (0.5, 0.0, 0.5),
}
#: Per style, the chance of a jump to the bid no one still in can top, when that bid was more than two
#: above the high bid and the player's honest limit reached it (else it bid less); evidence in styles().
LOCK_JUMP = (0.05, 0.8, 0.3)
SURE_LOCK = 0.95  # the chance that a lead start player whose honest estimate reaches 15 in round 1 bids it
LOCK_ANY = 0.5  # the chance that a player of style ``any`` bids what no one can top once its limit reaches it
_ONE_HOT = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))  # a style's shares when it is drawn (_StyleDraw)
LIK_FLOOR = 1.0  # the least spread the bid likelihood allows (a read spread of 0.5 is still an estimate)
_ALL = (1 << 10) - 1
_NO_STYLES = {n: (0,) * n for n in (3, 4, 5)}  # _deal without drawn styles: every hidden card's one weights
_SQRT2 = math.sqrt(2.0)

#: A leaf evaluator: (the sampled game at a round's start, a seat) -> that seat's win probability.
#: It may read only what the seat could know there (``g.view(seat)``) or, for the searcher's
#: expectation over its sampled worlds, the whole sampled game.
LeafValue = Callable[[Game, int], float]


# --------------------------------------------------------------------------- leaf value


# Per seat count, the expected future gain in points of each card still in hand (index order +15 +11
# +8 +5 +3 -5 -8 R LD SD). bench/expert_fit.py fits it on self-play games, but the fits disagree
# in sign between opponent pools (heuristic self-play: holding the +15 helps; ismcts:easy: it
# hurts), so the hand-made value leaves it at zero: a learned value (catsack.learn) is the place
# for what a hand is worth.
HAND_GAIN: dict[int, tuple[float, ...]] = {n: (0.0,) * 10 for n in (3, 4, 5)}
# Softmax temperature (points) per rounds left (index 0: the game is over). Fitted by
# bench/expert_fit.py on ismcts:easy self-play, 4 seats (heuristic self-play, being nearly
# deterministic, fits 2.6-4.1: too sure of the leader against other opponents), smoothed.
_T = (1.0, 4.5, 5.0, 5.8, 6.6, 7.3, 8.5, 10.0, 11.5, 13.0)
TEMPERATURE: dict[int, tuple[float, ...]] = {n: _T for n in (3, 4, 5)}


class HandValue:
    """The hand-made leaf value: score plus the hand's expected gain, as win probabilities (softmax)."""

    def __call__(self, g: Game, seat: int) -> float:
        return self.all_seats(g)[seat]

    def all_seats(self, g: Game) -> list[float]:
        """Every seat's win probability (they add up to 1)."""
        if g.is_over:
            winners = g.winners()
            return [(1.0 / len(winners)) if s in winners else 0.0 for s in range(g.seats)]
        return softmax_win(self.estimates(g, _scores(g)), TEMPERATURE[g.seats][min(10 - g.round, 9)])

    def estimates(self, g: Game, scores: Sequence[int]) -> list[float]:
        """Each seat's expected final score: its score now plus its hand's expected gain (called at a
        round's start, so that round is still to play)."""
        n = g.seats
        gain = HAND_GAIN[n]
        if not any(gain):
            return [float(x) for x in scores]
        left = 10 - g.round
        est = []
        for s in range(n):
            hand = g._hands[s]
            extra = 0.0
            for c in range(10):
                if hand >> c & 1:
                    extra += gain[c]
            est.append(scores[s] + extra * left / 9.0)
        return est

    def win_from(self, g: Game, scores: Sequence[int], seat: int) -> float:
        """``seat``'s win probability at a round's start, given the seats' scores (the search's fast path)."""
        est = self.estimates(g, scores)
        temperature = TEMPERATURE[g.seats][min(10 - g.round, 9)]
        mine = est[seat]
        exp = math.exp
        return 1.0 / sum(exp((e - mine) / temperature) for e in est)


def _scores(g: Game) -> list[int]:
    """Each seat's score (R21), as :meth:`Game.scores` computes it, without the intermediate tuples."""
    return [sum([POINTS[c] for c in w]) + m for w, m in zip(g._won, g._money, strict=True)]


def softmax_win(est: Sequence[float], temperature: float) -> list[float]:
    """Win probabilities from expected final scores: a softmax at ``temperature`` points."""
    top = max(est)
    ws = [math.exp((e - top) / temperature) for e in est]
    total = sum(ws)
    return [w / total for w in ws]


# --------------------------------------------------------------------------- honest players


class _Table:
    """Public facts of the current round, fixed for one decision (the search stops at the round's end);
    with ``styles=draw`` each iteration sets ``style`` and ``lockp`` to its world's drawn styles."""

    __slots__ = (
        "bids",
        "cache",
        "lik",
        "lockp",
        "n",
        "offset",
        "owner",
        "spread",
        "style",
        "sure_lead",
        "unseen",
        "up_after",
    )

    def __init__(self, view: View) -> None:
        n = view.seats
        self.n = n
        self.up_after = _UP_AFTER_PASSES[n]  # cards face up after k passes (R11, R14)
        # Cards each owner (index n: the dummy) was seen placing in finished rounds: all were turned
        # up (R14). A face-down card of this round is uniform over its owner's other cards (R23).
        seen = [0] * (n + 1)
        for r in view.rounds:
            for o, c in zip(r.owners, r.row, strict=True):
                seen[n if o is None else o] |= 1 << c
        self.unseen = [_ALL & ~m for m in seen]
        self.owner = _row_owners(n, view.start)
        self.cache: dict[tuple[int, ...], float] = {}  # (up, seat, *row) -> estimate; likelihoods too
        self.bids = _past_bids(view)  # read by styles() and bid_habits() (one walk of the finished rounds)
        self.style = styles(view, bids=self.bids)  # per seat, the shares of the styles (RULE, LEAD, ANY)
        # Each seat's bid limit about the honest one: (offset, spread) in points (bid_habits), and the
        # spread the bid likelihood uses.
        self.offset, self.spread = bid_habits(view, self.bids)
        self.lik = [max(x, LIK_FLOOR) for x in self.spread]
        # Per seat, the chance that it bids what no one still in can top once its limit reaches it (_lock).
        self.lockp = [st[LEAD] + LOCK_ANY * st[ANY] for st in self.style]
        # A start player of the lead style who led its cats as rich as anyone (round 1) bids what no one
        # can top once its honest estimate of the row reaches that bid, whatever its bid habits (_policy;
        # styles=draw): search bots that led their +15 or +11 bid 15 at once (72 of 72 games, LEAD_WEIGHTS).
        self.sure_lead = False

    def fix_habits(self, noise: float) -> None:
        """Assume every player's limit is the honest one with ``noise`` (the model before bid_habits;
        the bid likelihood then allows 1.5 x ``noise``)."""
        self.offset = [0.0] * self.n
        self.spread = [noise] * self.n
        self.lik = [noise * 1.5] * self.n

    def estimate(self, row: Sequence[int], up: int, s: int) -> float:
        """Seat ``s``'s honest expected kept value of ``row`` with ``up`` cards face up (R16, R23)."""
        key = (up, s, *row)
        hit = self.cache.get(key)
        if hit is None:
            owner = self.owner
            unseen = self.unseen
            masks = [1 << c if p < up or owner[p] == s else unseen[owner[p]] for p, c in enumerate(row)]
            hit = self.cache[key] = mask_row_value(masks)
        return hit


@dataclass(frozen=True)
class _PastRound:
    """One finished round as every seat saw it at the end (all its cards turned up, R14)."""

    result: RoundResult
    money: tuple[int, ...]  # each seat's money at the round's start (R24: public payments)
    seen: tuple[int, ...]  # per owner (index n: the dummy), cards seen placed in earlier rounds
    auction: tuple[tuple[int, str], ...]  # the round's bids and passes, R15's last choice included


def _past_rounds(view: View) -> Iterator[_PastRound]:
    """The finished rounds of ``view`` with the public facts at each one's start."""
    n = view.seats
    money = [START_MONEY] * n
    seen = [0] * (n + 1)
    hist = view.history
    i = 0
    for r in view.rounds:
        while i < len(hist) and hist[i][1].startswith("place"):
            i += 1
        j = i
        while j < len(hist) and not hist[j][1].startswith("place"):
            j += 1
        yield _PastRound(r, tuple(money), tuple(seen), hist[i:j])
        i = j
        apply_round(seen, money, r)


def styles(
    view: View, prior: Sequence[float] = STYLE_PRIORS["read"], bids: list[list[_PastBid]] | None = None
) -> list[tuple[float, float, float]]:
    """Per seat, the posterior shares of the styles ``rule``, ``lead`` and ``any`` (:data:`RULE`).

    Every card placed in a finished round was turned up (R14), so each player's past placements at
    the positions that are face down while the auction runs (all but the first, R11) are public
    evidence; with the money each seat had at that round's start (R24: rebuilt from public payments,
    R5, R13, R17), each style gives them a likelihood (:func:`_intent_weights`; ``any``: uniform over
    the cards the player still held). The styles ``rule`` and ``lead`` place alike except where a start
    player is as rich as everyone (round 1, R5); they also differ in bidding: every past bid that could
    have been a jump to the bid no one still in could top (:func:`_past_bids`) counts with
    :data:`LOCK_JUMP`. A style with prior share 0 stays out. Log-likelihoods trail the best style by at
    most :data:`INTENT_CLAMP`, so no style is ruled out for good.

    Heuristic bots place by the rule; ``ismcts:strong``'s placements at those positions fit the rule's
    weights no better than uniform ones (1,152 placements in 48 self-play games,
    ``bench/placement_model.py``: log-likelihood per placement -1.601 and -1.600) but it leads round 1 with
    its best cats and bids 15 at once; random bots place anything.
    """
    log = math.log
    active = [k for k in (RULE, LEAD, ANY) if prior[k] > 0]
    logs = [[log(prior[k]) if prior[k] > 0 else 0.0 for k in (RULE, LEAD, ANY)] for _ in range(view.seats)]
    for past in _past_rounds(view):
        r = past.result
        for pos, (o, c) in enumerate(zip(r.owners, r.row, strict=True)):
            if o is None or pos == 0:
                continue
            choices = [x for x in range(10) if not past.seen[o] >> x & 1]  # its hand and removed card (R7)
            if len(choices) > 1:
                for k in active:
                    if k == ANY:
                        logs[o][k] -= log(len(choices))
                    else:
                        w = _intent_weights(past.money, o, r.start, k == LEAD)
                        logs[o][k] += log(w[c] / sum(w[x] for x in choices))
    if prior[LEAD] > 0:
        for s, acts in enumerate(_past_bids(view) if bids is None else bids):
            for act in acts:
                if act.jump is not None:
                    for k in active:
                        logs[s][k] += log(LOCK_JUMP[k] if act.jump else 1.0 - LOCK_JUMP[k])
    out: list[tuple[float, float, float]] = []
    for ls in logs:
        top = max(ls[k] for k in active)
        ws = [math.exp(max(ls[k] - top, -INTENT_CLAMP)) if k in active else 0.0 for k in (RULE, LEAD, ANY)]
        total = sum(ws)
        out.append((ws[RULE] / total, ws[LEAD] / total, ws[ANY] / total))
    return out


def _row_owners(n: int, start: int) -> list[int]:
    """Row position -> owner index (index n: the dummy; R10: with 3 seats the dummy's card leads)."""
    if n == 3:
        return [n] + [(start + k) % n for k in range(n)]
    return [(start + k) % n for k in range(n)]


class _PastBid(NamedTuple):
    """One bid or pass of a finished round (:func:`_past_bids`)."""

    limit: float  # the honest limit the player had (public once the round ended, R14)
    low: float  # its real limit was at least this (a bid) ...
    high: float  # ... or below this (a pass over a high bid of high - 1)
    jump: bool | None  # a jump to the bid no one still in could top (True), a smaller bid when its honest
    # limit reached that bid (False), or no such choice (None): the lock evidence of styles()


def _past_bids(view: View) -> list[list[_PastBid]]:
    """Per seat, its bids and passes of the finished rounds (:class:`_PastBid`).

    The honest limit is :func:`_limit` of the seat's expected kept value of the row from what it knew
    when it acted (R23: the face-up cards, its own card, every other card uniform over its owner's cards
    not yet seen); once a round ends every card of its row was turned up (R14), so this is public.
    Only decisions with a choice count (the seat could afford a raise, R12); R15's last choice is left out.
    """
    n = view.seats
    up_after = _UP_AFTER_PASSES[n]
    out: list[list[_PastBid]] = [[] for _ in range(n)]
    for past in _past_rounds(view):
        r = past.result
        owner = _row_owners(n, r.start)
        unseen = [_ALL & ~m for m in past.seen]
        pays = [mice for _, mice in r.payouts]
        high = 0
        npass = 0
        passed = 0
        for s, text in past.auction:
            if npass >= n - 1:
                break  # R15: the last choice, or the round is over
            is_pass = text == "pass"
            if past.money[s] > high:
                up = up_after[npass]
                masks = [1 << c if p < up or owner[p] == s else unseen[owner[p]] for p, c in enumerate(r.row)]
                payout = pays[npass] if npass < len(pays) else 0
                later = pays[npass + 1] if npass + 1 < len(pays) else payout
                limit = _limit(mask_row_value(masks), payout, later, n - npass - 1)
                if is_pass:
                    out[s].append(_PastBid(limit, -math.inf, high + 1.0, None))
                else:
                    bid = int(text[4:])
                    top = _lock(past.money, passed, s)
                    chance = high + 2 < top <= past.money[s] and (bid >= top or limit >= top)
                    out[s].append(_PastBid(limit, float(bid), math.inf, bid >= top if chance else None))
            if is_pass:
                npass += 1
                passed |= 1 << s
            else:
                high = int(text[4:])
    return out


def censored(mu: float, sd: float, low: float, high: float) -> float:
    """The chance that a normal limit (mean ``mu``, spread ``sd``) lies in [``low``, ``high``)."""
    return (_phi((high - mu) / sd) if high < math.inf else 1.0) - (_phi((low - mu) / sd) if low > -math.inf else 0.0)


def bid_habits(view: View, bids: list[list[_PastBid]] | None = None) -> tuple[list[float], list[float]]:
    """Per seat, (offset, spread) in points of its bid limit about the honest limit, read from its past
    bids and passes (:func:`_past_bids`): the posterior means over :data:`HABIT_OFFSETS` x
    :data:`HABIT_SPREADS` under a normal model of the real limit, each action censored (a bid says the
    limit reached it, a pass that it fell short of the next raise).

    ``bench/bid_model.py`` measured the spread: heuristic bots follow the honest rule (spread 0.5),
    ``ismcts:strong`` bids about it with a spread near 6, ``ismcts:normal`` among heuristic bots about
    7 points above it, random bots anywhere (spread 20). With no evidence every seat gets the prior's
    means.
    """
    offsets: list[float] = []
    spreads: list[float] = []
    grid = [(o, sd, -0.5 * (o / HABIT_PRIOR_SD) ** 2) for o in HABIT_OFFSETS for sd in HABIT_SPREADS]
    for acts in _past_bids(view) if bids is None else bids:
        logs = []
        for o, sd, prior in grid:
            ll = prior
            for act in acts:
                ll += math.log(max(censored(act.limit + o, sd, act.low, act.high), MIN_LIKELIHOOD))
            logs.append(ll)
        top = max(logs)
        ws = [math.exp(x - top) for x in logs]
        total = sum(ws)
        offsets.append(sum(w * o for w, (o, _, _) in zip(ws, grid, strict=True)) / total)
        spreads.append(sum(w * sd for w, (_, sd, _) in zip(ws, grid, strict=True)) / total)
    return offsets, spreads


def _place(g: Game, table: _Table, rand: Callable[[], float]) -> Move:
    """A placement for the seat to move, in a style drawn from its shares (:func:`styles`)."""
    legal = g._legal
    s = g._to_move
    style = table.style[s]
    u = rand()
    if u >= style[ANY]:
        w = _intent_weights(g._money, s, g._start, u < style[ANY] + style[LEAD])
        x = rand() * sum(w[m.arg] for m in legal)
        for m in legal:
            x -= w[m.arg]
            if x <= 0:
                return m
        return legal[-1]
    return legal[int(rand() * len(legal))]


def _intent_weights(money: Sequence[int], p: int, start: int, lead: bool) -> tuple[float, ...]:
    """Seat ``p``'s placement weights under the intent model (:func:`ismcts._weights_for`: a likely
    buyer favours good cats, a likely seller dumps), and with ``lead`` the round-1 case: a start player
    as rich as anyone can win the row outright by bidding first (:func:`_lock`, R12), so it leads with
    its best cats (:data:`LEAD_WEIGHTS`) and everyone else places as a seller."""
    if lead and money[start] >= max(m for o, m in enumerate(money) if o != start):
        return LEAD_WEIGHTS if p == start else SELLER_WEIGHTS
    return _weights_for(tuple(money), p)


def _lock(money: Sequence[int], passed: int, s: int) -> int:
    """The bid of seat ``s`` that no other player still in the auction can top: the most money any of
    them holds (R12: a bid must not exceed the bidder's money; ``passed``: a bit per seat that passed).

    In round 1 every seat holds the same money (R5), so the start player, who bids first, wins the row
    by bidding all of it at once: ``ismcts:strong`` does, and a model whose players only raise a
    step at a time lets the searcher believe it can outbid them.
    """
    top = 0
    for o, m in enumerate(money):
        if o != s and not passed >> o & 1 and m > top:
            top = m
    return top


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / _SQRT2))


def _limit(est: float, payout: int, later: int, others_in: int) -> float:
    """The highest total an honest bidder pays (the heuristic's rule, :func:`heuristic.bid_limit`)."""
    limit = est - payout - MARGIN
    if payout and others_in >= 2:
        limit += OUTLAST_SHARE * (later - payout)
    return limit


def _policy(g: Game, table: _Table, noise: Sequence[float], rand: Callable[[], float]) -> Move:
    """The honest move of the seat to move in ``g`` (see the module docstring).

    Reads the engine's fields directly (this runs a few hundred thousand times a second); the
    values are those of ``g.legal_moves()``, ``g.face_up``, ``g.next_payout`` and ``g.high_bid``.
    """
    legal = g._legal
    if len(legal) == 1:
        return legal[0]
    if legal[0].kind == PLACE:
        return _place(g, table, rand)
    s = g._to_move
    row = g._row
    if g._phase == LAST_CHOICE:  # R15: the whole row is face up
        est = table.estimate(row, len(row), s) + noise[s]
        return legal[0] if est > 1 else PASS_MOVE
    npass = g._passed.bit_count()
    cards = g._cards
    est = table.estimate(row, table.up_after[npass], s) + noise[s]
    payout = cards[npass] if g._filled else 0  # R13, R18
    limit = _limit(est, payout, cards[min(npass + 1, len(cards) - 1)], g._n - npass - 1)
    high = g._high
    if (
        table.sure_lead
        and s == g._start
        and table.lockp[s] >= 1.0
        and high == 0
        and legal[0].kind == BID
        and g._money[s] >= max(g._money)
    ):
        top = _lock(g._money, g._passed, s)
        if est - noise[s] >= top and 0 < top <= legal[-2].arg:
            return BIDS[top]  # R5, R12: it led its best cats to buy the row, and no one can top this
    if legal[0].kind == BID and high + 1 <= limit:
        lockp = table.lockp[s]
        top = _lock(g._money, g._passed, s) if lockp >= 1.0 or (lockp > 0.0 and rand() < lockp) else 0
        if high < top <= limit and top <= legal[-2].arg:
            return BIDS[top]  # R12: no one still in can top this bid, so it wins the row
        step = 1 if rand() < 0.75 else 2
        return BIDS[int(min(high + step, max(high + 1, min(limit, legal[-2].arg))))]
    return PASS_MOVE


# --------------------------------------------------------------------------- the search


class _Node:
    """A node of the searcher's tree: the public history since the root, as the searcher saw it."""

    __slots__ = ("acts", "kids", "margin", "n", "next", "reward", "tried")

    def __init__(self) -> None:
        self.n = 0
        self.reward = 0.0
        self.margin = 0.0
        self.acts: tuple[Move, ...] = ()  # the searcher's moves considered here (its decisions only)
        self.kids: list[_Node | None] = []
        self.tried = 0
        self.next: dict[Move | None, _Node] | None = None  # opponents' moves (None: a face-down placement)


@dataclass(frozen=True)
class _Observed:
    """One opponent action of the current auction, for the bid likelihood."""

    seat: int
    up: int  # cards face up when it acted
    low: float  # the bidder's limit had to be >= this (a bid) ...
    high: float | None  # ... or below this (a pass); None for a bid
    payout: int
    later: int
    others: int
    top: float  # a bid that could have been a jump to the bid no one still in could top: that bid; else inf
    opening: bool = False  # the start player's first bid, as rich as anyone (the lead situation, _Table.sure_lead)


def _observed_actions(view: View) -> list[_Observed]:
    """Opponents' bids and passes of this round's auction, with the public facts when each was made."""
    n = view.seats
    if view.phase == "placement":
        return []
    hist = view.history
    i = len(hist)
    while i > 0 and not hist[i - 1][1].startswith("place"):
        i -= 1  # the auction (bids and passes, R12-R15) follows this round's placements
    cards = view.mouse_cards
    filled = view.rounds[-1].refilled if view.rounds else True  # R18, R19
    up_after = _UP_AFTER_PASSES[n]
    money = _public_tables(view)[1]  # at the round's start; a seat's money changes only once it passed (R13)
    out: list[_Observed] = []
    high = 0
    npass = 0
    passed = 0
    for s, text in hist[i:]:
        payout = cards[npass] if filled and npass < len(cards) else 0
        later = cards[min(npass + 1, len(cards) - 1)]
        up = up_after[npass]
        if s != view.seat:
            if text == "pass":
                out.append(_Observed(s, up, -math.inf, float(high + 1), payout, later, n - npass - 1, math.inf))
            else:
                top = _lock(money, passed, s)
                chance = high + 2 < top <= money[s]  # as in _past_bids: a jump was possible
                # the start player's first bid as rich as anyone (R5 in round 1, R12: it bids first)
                opening = high == 0 and s == view.start and money[s] >= max(money)
                bid_ = float(int(text[4:]))
                out.append(
                    _Observed(s, up, bid_, None, payout, later, n - npass - 1, top if chance else math.inf, opening)
                )
        if text == "pass":
            npass += 1
            passed |= 1 << s
        else:
            high = int(text[4:])
    return out


def _likelihood(
    obs: Sequence[_Observed], table: _Table, row: Sequence[int], drawn: Sequence[int] | None = None
) -> float:
    """How likely the opponents' observed actions are in a world with this row, under the honest model
    shifted and spread by each player's bid habits.

    With ``drawn`` (each seat's style drawn for the world), a bid that could have been a jump to the bid
    no one still in can top counts too, with the style's chance of that jump once the limit reaches it
    (:data:`LOCK_JUMP`): a jump says the limit reached it, a smaller bid that the limit fell short of it
    or the player did not jump. A ``lead`` start player's opening follows its model (``sure_lead``): it
    jumps when its honest estimate reaches the bid (with chance :data:`SURE_LOCK`), else it bids as usual.
    """
    like = 1.0
    for o in obs:
        est = table.estimate(row, o.up, o.seat)
        limit = _limit(est, o.payout, o.later, o.others) + table.offset[o.seat]
        sd = table.lik[o.seat]
        if drawn is not None and o.top < math.inf:
            k = drawn[o.seat]
            q = LOCK_JUMP[k]
            if o.opening and k == LEAD and table.sure_lead and est >= o.top:
                p = SURE_LOCK if o.low >= o.top else 1.0 - SURE_LOCK
            elif o.low >= o.top:
                p = censored(limit, sd, o.low, math.inf) * q
            else:
                p = censored(limit, sd, o.low, o.top) + censored(limit, sd, o.top, math.inf) * (1.0 - q)
        else:  # a bid: its limit was at least the bid; a pass: below the next raise
            p = censored(limit, sd, o.low, math.inf if o.high is None else o.high)
        like *= max(p, MIN_LIKELIHOOD)
    return like


def _outcome(g: Game, seat: int, leaf: LeafValue) -> tuple[float, float]:
    """(reward, margin in points) of ``seat`` at a round boundary or the end of the game."""
    scores = _scores(g)
    margin = scores[seat] - sum(scores) / len(scores)
    if g.is_over:
        winners = g.winners()
        win = 1.0 / len(winners) if seat in winners else 0.0
    elif type(leaf) is HandValue:
        win = leaf.win_from(g, scores, seat)
    else:
        win = leaf(g, seat)
    return win + margin / TIE_SCALE, margin


def search(
    view: View,
    rng: random.Random,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    leaf: LeafValue | None = None,
    depth: int = TREE_DEPTH,
    infer: bool = True,
    read_intent: bool = True,
    read_bids: bool = True,
    noise: float = OPPONENT_NOISE,
    lock: bool = True,
    lead: str = "read",
    draw_styles: bool = True,
    consider: Iterable[Move] = (),
) -> RootStats:
    """Search from ``view`` (the seat to move) within a budget; return the root's statistics.

    ``leaf`` values round boundaries (default :class:`HandValue`); ``consider`` adds legal moves to the
    root's candidates (analysis of a move actually played), expanded first. ``read_intent=False``
    assumes no player places at random and does not read the styles (:func:`styles`);
    ``read_bids=False`` assumes every player bids up to its honest limit with ``noise`` points of spread
    instead of reading its habits (:func:`bid_habits`). ``lock=False`` leaves out the bids no other
    player can top (:func:`_lock`), from the players' model and the searcher's candidates. ``lead`` picks
    the styles' prior (:data:`STYLE_PRIORS`): ``read`` reads each player's style, ``all`` gives every player
    round 1's lead model and the lock (session 8's model), ``0`` leaves that style out (every player
    still bids what no one can top when ``lock`` is on). ``draw_styles`` draws each player's style per
    sampled world (:class:`_StyleDraw`: one for the whole table in round 1, weighted by the lock evidence
    of this round's bids); off, every world mixes the styles by their shares.
    """
    seat = view.seat
    if seat is None or view.to_move != seat or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {seat}, to move {view.to_move})")
    if iterations is None and seconds is None:
        iterations = ITERATIONS[view.seats]
    value = leaf if leaf is not None else HandValue()
    t0 = time.perf_counter()
    base = sample_game(view, rng)
    table = _Table(view)
    if lead not in STYLE_PRIORS:
        raise ValueError(f"lead must be one of {', '.join(STYLE_PRIORS)}, not {lead!r}")
    prior = STYLE_PRIORS[lead]
    if not read_intent:  # the prior without the ``any`` style, for everyone
        kept = prior[RULE] + prior[LEAD]
        table.style = [(prior[RULE] / kept, prior[LEAD] / kept, 0.0)] * view.seats
    elif lead != "read":
        table.style = styles(view, prior, table.bids)
    if not lock:
        table.lockp = [0.0] * view.seats
    elif lead != "read":
        table.lockp = [1.0] * view.seats
    if not read_bids:
        table.fix_habits(noise)
    observed = _observed_actions(view) if infer else []
    worlds: _StyleDraw | None = None
    if draw_styles and read_intent:
        lock_by = (0.0, 0.0, 0.0) if not lock else (0.0, 1.0, LOCK_ANY) if lead == "read" else (1.0, 1.0, 1.0)
        worlds = _StyleDraw(table, seat, not view.rounds, lock_by, lock and lead == "read", observed)
        table.sure_lead = lock and lead == "read"
        worlds.see(view, table)
    extra: int | None = None
    if view.phase == "bidding" and view.legal[0].kind == BID:
        extra = math.floor(bid_limit(view, row_worth(view)))
    root_moves = _tree_bids(view.legal, view.high_bid, extra)
    if lock and view.phase == "bidding" and view.legal[0].kind == BID:
        passed = sum(1 << o for o, p in enumerate(view.passed) if p)
        root_moves = _with_total(root_moves, view.high_bid, _lock(seat_money(view), passed, seat))
    asked = tuple(consider)
    wanted = [m for m in asked if m in view.legal and m not in root_moves]
    if wanted:
        root_moves = tuple(m for m in view.legal if m in root_moves or m in wanted)
    root = _Node()
    root.acts = root_moves
    root.kids = [None] * len(root_moves)
    first = sorted({root_moves.index(m) for m in asked if m in root_moves}, reverse=True)
    # Evidence for weighting worlds: placement intent of face-down cards, and this round's bids.
    money = tuple(seat_money(view))
    hidden: list[_Hidden] = []
    for pos, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            pool = tuple(c for c in range(10) if table.unseen[rc.owner] >> c & 1)
            wts: tuple[tuple[float, ...], ...]
            if worlds is None:
                w = _mixed_weights(table.style[rc.owner], money, rc.owner, view.start, pool)
                wts = (w, w, w)
            else:
                wts = tuple(_mixed_weights(_ONE_HOT[k], money, rc.owner, view.start, pool) for k in (RULE, LEAD, ANY))
            hidden.append(hidden_card(pos, rc.owner, wts))
    stop_round = view.round + 1
    rand = rng.random
    gauss = rng.gauss
    log = math.log
    c = EXPLORATION
    done = 0
    deadline = None if seconds is None else t0 + seconds
    while True:
        if iterations is not None and done >= iterations:
            break
        if deadline is not None and done & 15 == 0 and time.perf_counter() >= deadline:
            break
        done += 1
        g = _deal(base, seat, rng, hidden, observed, table, worlds)
        dev = [off + gauss(0.0, sd) for off, sd in zip(table.offset, table.spread, strict=True)]
        dev[seat] = 0.0
        node = root
        path = [root]
        expanded = False
        mine = 0  # the searcher's decisions taken in the tree this iteration
        while True:
            p = g.to_move
            if p is None or (g._phase == 0 and g.round >= stop_round):
                break
            if p != seat:
                move = _policy(g, table, dev, rand)
                key: Move | None = None if move.kind == PLACE else move
                g.play(move)
                if expanded:
                    continue
                nxt = node.next
                if nxt is None:
                    nxt = node.next = {}
                child = nxt.get(key)
                if child is None:
                    child = nxt[key] = _Node()
                node = child
                path.append(child)
                continue
            if expanded or mine >= depth:
                expanded = True
                g.play(_policy(g, table, dev, rand))
                continue
            mine += 1
            acts = node.acts
            if not acts:
                legal = g.legal_moves()
                acts = node.acts = _tree_bids(legal, g.high_bid, _lock(g._money, g._passed, seat) if lock else None)
                node.kids = [None] * len(acts)
            kids = node.kids
            if node.tried < len(acts):
                i = first.pop() if node is root and first else untried_pick(kids, rand)
                g.play(acts[i])
                child = kids[i] = _Node()
                node.tried += 1
                path.append(child)
                node = child
                expanded = True
                continue
            logn = log(node.n) if node.n > 0 else 0.0
            best = ucb_pick(kids, logn, c)
            g.play(acts[best])
            node = kids[best]  # type: ignore[assignment]
            path.append(node)
        reward, margin = _outcome(g, seat, value)
        root.n += 1
        for nd in path[1:]:
            nd.n += 1
            nd.reward += reward
            nd.margin += margin
    return RootStats.of(root_moves, root.kids, done, time.perf_counter() - t0)


def _with_total(moves: tuple[Move, ...], high: int, total: int) -> tuple[Move, ...]:
    """``moves`` (bids ascending, then pass) with the bid ``total`` added where it is legal and missing."""
    if moves[0].kind != BID or not high < total <= moves[-2].arg or BIDS[total] in moves:
        return moves
    return (*sorted((*moves[:-1], BIDS[total]), key=lambda m: m.arg), moves[-1])


def _mixed_weights(
    style: Sequence[float], money: Sequence[int], p: int, start: int, pool: Sequence[int]
) -> tuple[float, ...]:
    """Per card, the chance that seat ``p``, holding ``pool``, placed it: its styles mixed by their shares."""
    rule = _intent_weights(money, p, start, False)
    lead = _intent_weights(money, p, start, True)
    r = style[RULE] / sum(rule[c] for c in pool)
    q = style[LEAD] / sum(lead[c] for c in pool)
    u = style[ANY] / len(pool)
    return tuple(r * rule[c] + q * lead[c] + u if c in pool else 0.0 for c in range(10))


class _StyleDraw:
    """The players' styles drawn per sampled world (``styles=draw``), instead of mixed in every world.

    Each seat's style is drawn from its shares (:func:`styles`); in round 1, when no player has shown
    anything yet, one style is drawn for the whole table, since tables are often of one kind (all
    search bots or all heuristic bots). The draw is part of the world: its placement weights and the
    bid likelihood with the lock evidence (:data:`LOCK_JUMP`) weight it, so a start player who opens
    with 1 where the lead style would have bid what no one can top makes the ``rule`` worlds likelier,
    and the modelled players then move in the drawn style (:meth:`apply`).
    """

    __slots__ = ("cum", "jump", "lock_by", "seat", "shown", "together", "watched")

    def __init__(
        self,
        table: _Table,
        seat: int,
        together: bool,
        lock_by: Sequence[float],
        jump: bool,
        observed: Sequence[_Observed],
    ) -> None:
        self.cum = [(st[RULE], st[RULE] + st[LEAD]) for st in table.style]
        self.seat = seat
        self.together = together
        self.lock_by = tuple(lock_by)  # per style, the chance its player locks (_policy)
        self.jump = jump  # weight bids by the lock evidence
        # the seats whose observed bids carry lock evidence: their styles key the likelihood cache (the
        # others' styles do not change the likelihood)
        self.watched = tuple(sorted({o.seat for o in observed if o.top < math.inf})) if jump else ()
        # this round's opponents' cards already face up (R11, R14): (owner, per style the chance it placed
        # that card, over the largest of the three); the draw weighs them like the hidden cards
        self.shown: list[tuple[int, tuple[float, ...]]] = []

    def see(self, view: View, table: _Table) -> None:
        """Weigh the draw by this round's opponents' cards already face up (R11, R14) in ``view``."""
        money = _public_tables(view)[1]  # at the round's start, when they placed (R24)
        for rc in view.row:
            if rc.card is not None and rc.owner is not None and rc.owner != self.seat:
                pool = tuple(c for c in range(10) if table.unseen[rc.owner] >> c & 1)  # it held the card then
                ps = [_mixed_weights(st, money, rc.owner, view.start, pool)[rc.card] for st in _ONE_HOT]
                self.shown.append((rc.owner, tuple(x / max(ps) for x in ps)))

    def draw(self, rand: Callable[[], float]) -> tuple[int, ...]:
        """One style per seat (the searcher's too; its moves in the tree do not read it)."""
        if self.together:
            n = len(self.cum)
            a, b = self.cum[(self.seat + 1) % n]
            u = rand()
            return (RULE if u < a else LEAD if u < b else ANY,) * n
        out = []
        for a, b in self.cum:
            u = rand()
            out.append(RULE if u < a else LEAD if u < b else ANY)
        return tuple(out)

    def apply(self, table: _Table, styles: Sequence[int]) -> None:
        """Make the drawn styles the ones the modelled players move in for this iteration."""
        table.style = [_ONE_HOT[k] for k in styles]
        table.lockp = [self.lock_by[k] for k in styles]


class _Hidden(NamedTuple):
    """An opponent's face-down card of this round, as :func:`_deal` draws it."""

    pos: int
    owner: int
    by_style: tuple[tuple[tuple[int, ...], tuple[float, ...]], ...]  # per style: cards, cumulative weights


def hidden_card(pos: int, owner: int, weights: Sequence[Sequence[float]]) -> _Hidden:
    """The card at ``pos``, placed by ``owner``, drawn per style (index :data:`RULE`...) by ``weights``
    (per card index; cards with weight 0 are never drawn)."""
    by_style = []
    for w in weights:
        cards = tuple(c for c in range(10) if w[c] > 0)
        by_style.append((cards, tuple(itertools.accumulate(w[c] for c in cards))))
    return _Hidden(pos, owner, tuple(by_style))


def _deal(
    base: Game,
    seat: int,
    rng: random.Random,
    hidden: Sequence[_Hidden],
    observed: Sequence[_Observed],
    table: _Table,
    worlds: _StyleDraw | None = None,
) -> Game:
    """A hidden world weighted by placement intent and by the likelihood of this round's bids.

    One ``redeal`` deals everything hidden from the seat; then the opponents' face-down row
    cards alone are drawn (each from its owner's unseen cards, R23, by the placement weights the
    module docstring describes: :func:`hidden_card`) and accepted by rejection with the likelihood of
    this round's bids (the most likely draw is kept after :data:`MAX_TRIES`), then swapped into the
    dealt world from the owner's hand or removed card, which keeps the world consistent and the other
    hidden cards uniform. With ``worlds`` the players' styles are drawn with the cards (each hidden
    card's weights are those of its owner's style) and applied to ``table``; the opponents' cards of
    this round already face up weigh the acceptance too.
    """
    g = base.clone()
    g.redeal(seat, rng)
    if not hidden and worlds is None:
        return g
    rand = rng.random
    row = list(g._row)
    best_w = -1.0
    best: list[int] = row
    drawn = best_drawn = _NO_STYLES[g.seats]
    for _ in range(MAX_TRIES):
        w = 1.0
        if worlds is not None:
            drawn = worlds.draw(rand)
            for owner, fs in worlds.shown:
                w *= fs[drawn[owner]]
        for pos, owner, by_style in hidden:
            cards, cum = by_style[drawn[owner]]
            row[pos] = cards[min(bisect_right(cum, rand() * cum[-1]), len(cards) - 1)]
        if observed:
            # a likelihood, kept beside the estimates: (up, seat) = (-1, -1), or -2 and the styles it reads
            if worlds is None or not worlds.watched:
                key: tuple[int, ...] = (-1, -1, *row)
            else:
                key = (-2, *[drawn[s] for s in worlds.watched], *row)
            like = table.cache.get(key)
            if like is None:
                styles_ = drawn if worlds is not None and worlds.jump else None
                like = table.cache[key] = _likelihood(observed, table, row, styles_)
            w *= like
        if w > best_w:
            best_w = w
            best = row[:]
            best_drawn = drawn
        if rand() < w:
            best = row
            best_drawn = drawn
            break
    if worlds is not None:
        worlds.apply(table, best_drawn)
    # Swap the drawn cards in. Game fields are written directly: the engine has no API to fix a
    # hidden card, and the swap only exchanges cards between places all hidden from the seat.
    hands = g._hands
    removed = g._removed
    grow = g._row
    first_ply = g._rply - (1 if g.seats == 3 else 0)
    for pos, owner, _by_style in hidden:
        c = best[pos]
        old = grow[pos]
        if c == old:
            continue
        if removed[owner] == c:
            removed[owner] = old
        else:
            hands[owner] ^= (1 << c) | (1 << old)
        grow[pos] = c
        g._moves[first_ply + pos] = PLACES[c]
    g._legal = g._find_legal()
    return g


# --------------------------------------------------------------------------- the bot


@dataclass(frozen=True)
class Options:
    """What an ``expert:...`` spec sets: the budget, the leaf value's name and the tree depth."""

    iterations: int | None = None  # None (and no seconds): ITERATIONS for the table's seat count
    seconds: float | None = None
    leaf: str = DEFAULT_LEAF
    depth: int = TREE_DEPTH
    infer: bool = True  # weight worlds by the likelihood of this round's bids
    read_intent: bool = True  # read each player's placement intent from its past placements
    read_bids: bool = True  # read each player's bid habits from its past bids (else honest, ``noise``)
    noise: float = OPPONENT_NOISE  # with read_bids off: the spread of every player's bid limit
    lock: bool = True  # model (and consider) the bid that no other player still in can top
    lead: str = "read"  # the styles' prior (STYLE_PRIORS): read each player's, all lead, or no lead style
    draw_styles: bool = True  # draw each player's style per sampled world (else mix them in every world)
    mistake: float = 0.0  # points: the spread of deliberate mistakes (the levels below expert; 0: none)


#: On/off options of a spec: key -> (the Options field, the value that turns it on, the one that turns it off).
SWITCHES: dict[str, tuple[str, str, str]] = {
    "infer": ("infer", "1", "0"),
    "intent": ("read_intent", "read", "fixed"),
    "bids": ("read_bids", "read", "fixed"),
    "lock": ("lock", "1", "0"),
    "styles": ("draw_styles", "draw", "mix"),
}


def parse_spec(arg: str | None) -> Options:
    """``[easy|normal|strong|iters=N|time=S][+leaf=hand|learned][+depth=D][+infer=0|1][+intent=read|fixed][+bids=read|fixed]
    [+noise=X][+mistake=X][+lock=0|1][+lead=read|all|0][+styles=draw|mix]``; empty: the defaults.

    Options are joined with ``+``, since tables list their bot specs comma separated.
    """
    opts = Options()
    for part in (arg or "").split("+"):
        text = part.strip()
        if not text or text == "expert":
            continue
        key, sep, value = text.partition("=")
        if not sep and key in LEVELS:
            opts = replace(opts, iterations=LEVELS[key].iterations, seconds=None, mistake=LEVELS[key].mistake)
            continue
        try:
            if sep and key == "iters" and int(value) >= 1:
                opts = replace(opts, iterations=int(value), seconds=None)
                continue
            if sep and key == "time" and 0 < float(value) <= 3600:
                opts = replace(opts, iterations=None, seconds=float(value))
                continue
            if sep and key == "depth" and 1 <= int(value) <= 99:
                opts = replace(opts, depth=int(value))
                continue
            switch = SWITCHES.get(key)
            if sep and switch is not None and value in switch[1:]:
                opts = replace(opts, **{switch[0]: value == switch[1]})  # type: ignore[arg-type]  # every switch is a bool field
                continue
            if sep and key == "lead" and value in STYLE_PRIORS:
                opts = replace(opts, lead=value)
                continue
            if sep and key == "mistake" and 0 <= float(value) <= 30:
                opts = replace(opts, mistake=float(value))
                continue
            if sep and key == "noise" and 0 < float(value) <= 30:
                opts = replace(opts, noise=float(value), read_bids=False)
                continue
        except ValueError:
            pass
        if sep and key == "leaf" and value in LEAVES:
            opts = replace(opts, leaf=value)
            continue
        raise BotSpecError(
            f"bad expert option {text!r} in {arg!r}: use a level ({', '.join(LEVELS)}), 'iters=N' (N >= 1), "
            "'time=S' (seconds), "
            f"'depth=D' (1-99), 'infer=0|1', 'intent=read|fixed', 'bids=read|fixed', 'noise=X' (0-30 points, "
            "fixes the bid habits), 'mistake=X' (0-30 points), 'lock=0|1', 'lead=read|all|0', 'styles=draw|mix' "
            f"or 'leaf=' one of {', '.join(LEAVES)}, "
            "joined with '+' (e.g. 'expert:iters=800+leaf=learned')"
        )
    return opts


def parse_budget(arg: str | None) -> tuple[int | None, float | None]:
    """The budget part of :func:`parse_spec`: (iterations, seconds)."""
    opts = parse_spec(arg)
    return opts.iterations, opts.seconds


class LearnedValue:
    """The learned leaf value (:mod:`catsack.learn`): the win head of the value model on the seat's own view.

    Reads only ``g.view(seat)``, so it is honest whatever the sampled world holds (R23).
    """

    def __init__(self, weights: str | None = None) -> None:
        from catsack.learn import load_value_model

        self.model = load_value_model(weights)

    def __call__(self, g: Game, seat: int) -> float:
        return float(self.model.evaluate_views([g.view(seat)])[0])


LEAVES: dict[str, Callable[[], LeafValue]] = {"hand": HandValue, "learned": LearnedValue}


class ExpertBot(Bot):
    """Search with honest opponents, a whole-game leaf value and a win-share reward; ``expert``."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None, leaf: LeafValue | None = None) -> None:
        opts = parse_spec(arg)
        self.iterations, self.seconds, self.depth, self.infer = opts.iterations, opts.seconds, opts.depth, opts.infer
        self.read_intent, self.read_bids, self.noise = opts.read_intent, opts.read_bids, opts.noise
        self.lock, self.lead, self.draw_styles = opts.lock, opts.lead, opts.draw_styles
        self.mistake = opts.mistake
        self.rng = random.Random(seed)
        self.leaf = leaf if leaf is not None else LEAVES[opts.leaf]()
        self.last: RootStats | None = None

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        self.last = search(
            view,
            self.rng,
            iterations=self.iterations,
            seconds=self.seconds,
            leaf=self.leaf,
            depth=self.depth,
            infer=self.infer,
            read_intent=self.read_intent,
            read_bids=self.read_bids,
            noise=self.noise,
            lock=self.lock,
            lead=self.lead,
            draw_styles=self.draw_styles,
        )
        return pick_with_mistakes(self.last, self.rng, self.mistake)


def pick_with_mistakes(stats: RootStats, rng: random.Random, spread: float) -> Move:
    """The search's move, or with ``spread`` > 0 a deliberate mistake: a move drawn among those tried in at
    least :data:`MISTAKE_VISITS` of the iterations, weighted ``exp(-loss / spread)``, the loss being its
    mean margin's shortfall in points from the best of them. ``expert:easy`` and ``expert:normal`` play so."""
    if spread <= 0:
        return stats.best
    least = max(2, MISTAKE_VISITS * sum(stats.visits))
    pool = [i for i, n in enumerate(stats.visits) if n >= least]
    if len(pool) < 2:
        return stats.best
    top = max(stats.margins[i] for i in pool)
    weights = [math.exp((stats.margins[i] - top) / spread) for i in pool]
    return stats.moves[rng.choices(pool, weights)[0]]
