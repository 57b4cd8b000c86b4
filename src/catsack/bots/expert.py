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
R16). From that honest estimate, plus a per-player noise term standing for
style (:data:`OPPONENT_NOISE`), each one bids as an English-auction bidder up
to its estimate minus the payout for passing (R12, R13, the heuristic's
limit), buys in the last choice (R15) when the visible row is worth more
than 1, and places cards either with intent (the placement model of
:mod:`catsack.bots.ismcts`: buyers favour good cats, sellers dump negative
cats and the large dog) or like any card in hand, in the proportion that
player's own past placements support (:func:`intent_trust`: every placed card
is turned up by the end of its round, R14). So an opening ``bid 1`` on a junk row is not free:
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
down, one who passed at once probably did not (the placement weights are
intent and uniform mixed by the owner's trust). The drawn cards are swapped
in from their owners' hands or removed cards, so the world stays consistent.
Without this inference (``infer=0``) the same test gave 0.15 instead of 0.29.

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

*Budget.* ``expert`` runs :data:`ITERATIONS` iterations per decision: 10,000,
9,000 and 6,500 with 3, 4 and 5 seats (p95 CPU time per decision about 0.4 s on
one core, ``bench/expert.py``; the target is 0.5 s).
Options, joined with ``+`` (tables separate specs with commas):
``expert:iters=N``, ``expert:time=S`` (seconds, not reproducible),
``leaf=hand|learned``, ``depth=D``, ``infer=0|1`` (weight worlds by bids), ``intent=read|fixed``
(each player's placement intent read from its past placements, or always assumed). With a seed the bot and
:func:`search` are deterministic.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from catsack.belief import sample_game
from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import MARGIN, OUTLAST_SHARE, bid_limit, mask_row_value, row_worth, seat_money
from catsack.bots.ismcts import RootStats, _model_place, _tree_bids, _weights_for, ucb_pick, untried_pick
from catsack.cards import POINTS
from catsack.game import _UP_AFTER_PASSES, LAST_CHOICE, Game
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, PLACES, Move
from catsack.setup import START_MONEY
from catsack.view import View

__all__ = ["ITERATIONS", "ExpertBot", "HandValue", "LeafValue", "search"]

#: Iterations per decision of the ``expert`` level, per seat count: the most that keep the p95 CPU
#: time of a decision near 0.4 s on one core of the project's machine (``bench/expert.py``; the
#: target is 0.5 s). Against ``ismcts`` the expert needs about 2.5x its opponents' iterations; beyond
#: that no gain was shown (4,000 vs 9,000 on the same 96 deals: 0.344 and 0.323, docs/bots.md).
ITERATIONS: dict[int, int] = {3: 10000, 4: 9000, 5: 6500}
EXPLORATION = 0.5  # UCB1 constant; rewards are win shares (order 1)
TIE_SCALE = 100.0  # points of margin worth one win: margin only breaks near-ties
OPPONENT_NOISE = 2.5  # std dev (points) of a modelled player's estimate about its honest value
MAX_TRIES = 30  # rejection-sampling draws of the face-down row cards per iteration (then the likeliest)
TREE_DEPTH = 9  # own decisions searched per iteration (9: all of a round's); later ones follow its policy
DEFAULT_LEAF = "hand"  # the leaf value of plain ``expert`` (see LEAVES)
INTENT_CLAMP = 6.0  # log-odds bound of a seat's placement-intent posterior (intent_trust)
MIN_LIKELIHOOD = 0.02  # floor of one observed action's likelihood (players err; keeps every world possible)
_ALL = (1 << 10) - 1
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
    """Public facts of the current round, fixed for one decision (the search stops at the round's end)."""

    __slots__ = ("cache", "n", "owner", "trust", "unseen", "up_after")

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
        # Row position -> owner index (R10: with 3 seats the dummy's card leads).
        if n == 3:
            self.owner = [n] + [(view.start + k) % n for k in range(n)]
        else:
            self.owner = [(view.start + k) % n for k in range(n)]
        self.cache: dict[tuple[int, ...], float] = {}  # (up, seat, *row) -> estimate; likelihoods too
        self.trust = intent_trust(view)

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


def intent_trust(view: View) -> list[float]:
    """Per seat, the probability that it places its cards with intent rather than at random.

    Two placement models compete for every player: *intent* (the heuristic's rule of
    :mod:`catsack.bots.ismcts`: who expects to buy favours good cats, who expects to sell dumps
    negative cats and the large dog) and *uniform* (any card in hand alike). Every card placed in a
    finished round was turned up (R14), so each player's past placements at the positions that are
    face down while the auction runs (all but the first, R11) are public evidence; with the money
    each seat had at that round's start (R24: rebuilt from public payments, R5, R13, R17), the
    likelihood ratio of the two models gives the posterior (even prior odds). Heuristic bots place
    with intent; ``ismcts:strong``'s placements at those positions fit the intent weights no better
    than uniform ones (1,152 placements in 48 self-play games, ``bench/placement_model.py``: log-likelihood
    per placement -1.601 and -1.600; its buyers do favour good cats, its sellers keep the -8 for the
    face-up first position instead of hiding it), so a fixed intent model misreads one or the other.
    """
    n = view.seats
    money = [START_MONEY] * n
    seen = [0] * n
    logodds = [0.0] * n
    log = math.log
    for r in view.rounds:
        for pos, (o, c) in enumerate(zip(r.owners, r.row, strict=True)):
            if o is None or pos == 0:
                continue
            choices = [x for x in range(10) if not seen[o] >> x & 1]  # its hand and removed card (R7)
            if len(choices) > 1:
                w = _weights_for(tuple(money), o)
                logodds[o] += log(w[c] * len(choices) / sum(w[x] for x in choices))
        for o, c in zip(r.owners, r.row, strict=True):
            if o is not None:
                seen[o] |= 1 << c
        for o, mice in r.payouts:
            money[o] += mice
        if r.buyer is not None and r.price is not None:
            money[r.buyer] -= r.price
    return [1.0 / (1.0 + math.exp(-max(-INTENT_CLAMP, min(INTENT_CLAMP, x)))) for x in logodds]


def _place(g: Game, table: _Table, rand: Callable[[], float]) -> Move:
    """A placement for the seat to move: the intent model with its trust, else any card alike."""
    if rand() < table.trust[g._to_move]:
        return _model_place(g, rand)
    legal = g._legal
    return legal[int(rand() * len(legal))]


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
    if legal[0].kind == BID and high + 1 <= limit:
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
    out: list[_Observed] = []
    high = 0
    npass = 0
    for s, text in hist[i:]:
        payout = cards[npass] if filled and npass < len(cards) else 0
        later = cards[min(npass + 1, len(cards) - 1)]
        up = up_after[npass]
        if s != view.seat:
            if text == "pass":
                out.append(_Observed(s, up, -1e9, float(high + 1), payout, later, n - npass - 1))
            else:
                out.append(_Observed(s, up, float(int(text[4:])), None, payout, later, n - npass - 1))
        if text == "pass":
            npass += 1
        else:
            high = int(text[4:])
    return out


def _likelihood(obs: Sequence[_Observed], table: _Table, row: Sequence[int], sigma: float) -> float:
    """How likely the opponents' observed actions are in a world with this row, under the honest model."""
    like = 1.0
    for o in obs:
        est = table.estimate(row, o.up, o.seat)
        limit = _limit(est, o.payout, o.later, o.others)
        if o.high is None:  # bid: its limit was at least the bid
            p = 1.0 - _phi((o.low - limit) / sigma)
        else:  # pass: its limit was below the next raise
            p = _phi((o.high - limit) / sigma)
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
    consider: Iterable[Move] = (),
) -> RootStats:
    """Search from ``view`` (the seat to move) within a budget; return the root's statistics.

    ``leaf`` values round boundaries (default :class:`HandValue`); ``consider`` adds legal moves to the
    root's candidates (analysis of a move actually played), expanded first. ``read_intent=False``
    assumes every player places with intent (trust 1) instead of reading it (:func:`intent_trust`).
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
    if not read_intent:
        table.trust = [1.0] * view.seats
    extra: int | None = None
    if view.phase == "bidding" and view.legal[0].kind == BID:
        extra = math.floor(bid_limit(view, row_worth(view)))
    root_moves = _tree_bids(view.legal, view.high_bid, extra)
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
    hidden = []
    for pos, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            pool = tuple(c for c in range(10) if table.unseen[rc.owner] >> c & 1)
            w = _mixed_weights(_weights_for(money, rc.owner), pool, table.trust[rc.owner])
            hidden.append((pos, rc.owner, pool, w, max(w)))
    observed = _observed_actions(view) if infer else []
    sigma = OPPONENT_NOISE * 1.5  # the model's noise plus the estimate's own spread
    stop_round = view.round + 1
    n = view.seats
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
        g = _deal(base, seat, rng, hidden, observed, table, sigma)
        noise = [gauss(0.0, OPPONENT_NOISE) for _ in range(n)]
        noise[seat] = 0.0
        node = root
        path = [root]
        expanded = False
        mine = 0  # the searcher's decisions taken in the tree this iteration
        while True:
            p = g.to_move
            if p is None or (g._phase == 0 and g.round >= stop_round):
                break
            if p != seat:
                move = _policy(g, table, noise, rand)
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
                g.play(_policy(g, table, noise, rand))
                continue
            mine += 1
            acts = node.acts
            if not acts:
                legal = g.legal_moves()
                acts = node.acts = _tree_bids(legal, g.high_bid, None)
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


def _mixed_weights(intent: Sequence[float], pool: Sequence[int], trust: float) -> tuple[float, ...]:
    """Per card, the chance an owner holding ``pool`` placed it: intent with ``trust``, else uniform."""
    total = sum(intent[c] for c in pool)
    return tuple(trust * intent[c] / total + (1.0 - trust) / len(pool) if c in pool else 0.0 for c in range(10))


def _deal(
    base: Game,
    seat: int,
    rng: random.Random,
    hidden: Sequence[tuple[int, int, tuple[int, ...], tuple[float, ...], float]],
    observed: Sequence[_Observed],
    table: _Table,
    sigma: float,
) -> Game:
    """A hidden world weighted by placement intent and by the likelihood of this round's bids.

    One ``redeal`` deals everything hidden from the seat; then the opponents' face-down row
    cards alone are drawn by rejection (each uniform over its owner's unseen cards, R23, weighted
    as the module docstring says; the most likely draw is kept after :data:`MAX_TRIES`) and
    swapped into the dealt world from the owner's hand or removed card, which keeps the world
    consistent and the other hidden cards uniform.
    """
    g = base.clone()
    g.redeal(seat, rng)
    if not hidden:
        return g
    rand = rng.random
    row = list(g._row)
    best_w = -1.0
    best: list[int] = row
    for _ in range(MAX_TRIES):
        w = 1.0
        for pos, _owner, pool, wt, wmax in hidden:
            c = pool[int(rand() * len(pool))]
            row[pos] = c
            w *= wt[c] / wmax
        if observed:
            key = (-1, -1, *row)  # a likelihood, kept beside the estimates (up and seat -1)
            like = table.cache.get(key)
            if like is None:
                like = table.cache[key] = _likelihood(observed, table, row, sigma)
            w *= like
        if w > best_w:
            best_w = w
            best = row[:]
        if rand() < w:
            best = row
            break
    # Swap the drawn cards in. Game fields are written directly: the engine has no API to fix a
    # hidden card, and the swap only exchanges cards between places all hidden from the seat.
    hands = g._hands
    removed = g._removed
    grow = g._row
    first_ply = g._rply - (1 if g.seats == 3 else 0)
    for pos, owner, _pool, _wt, _wmax in hidden:
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


def parse_spec(arg: str | None) -> Options:
    """``[iters=N|time=S][+leaf=hand|learned][+depth=D][+infer=0|1][+intent=read|fixed]``; empty: the
    defaults.

    Options are joined with ``+``, since tables list their bot specs comma separated.
    """
    opts = Options()
    for part in (arg or "").split("+"):
        text = part.strip()
        if not text or text == "expert":
            continue
        key, sep, value = text.partition("=")
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
            if sep and key == "infer" and value in ("0", "1"):
                opts = replace(opts, infer=value == "1")
                continue
            if sep and key == "intent" and value in ("read", "fixed"):
                opts = replace(opts, read_intent=value == "read")
                continue
        except ValueError:
            pass
        if sep and key == "leaf" and value in LEAVES:
            opts = replace(opts, leaf=value)
            continue
        raise BotSpecError(
            f"bad expert option {text!r} in {arg!r}: use 'iters=N' (N >= 1), 'time=S' (seconds), "
            f"'depth=D' (1-99), 'infer=0|1', 'intent=read|fixed' or 'leaf=' one of {', '.join(LEAVES)}, "
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
        self.read_intent = opts.read_intent
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
        )
        return self.last.best
