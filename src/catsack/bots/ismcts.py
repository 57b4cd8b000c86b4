"""Information-set Monte Carlo tree search (Cowling, Powley & Whitehouse 2012), SO-ISMCTS + POM.

One tree is grown for the searching seat's information set. Each iteration
deals a fresh hidden world consistent with the seat's view (R23): the view
is turned into a game once per decision with
:func:`catsack.belief.sample_game`, then every iteration clones it and calls
``redeal(seat, rng)``, which re-deals everything hidden from the seat. The
iteration walks down the tree in that world, expands one node, finishes the
game with a fast rollout policy and backs the result up.

*Partially observable moves.* An opponent's face-down placement (R10) is one
edge, ``place ?``, in the tree: the searcher cannot tell those moves apart, so
the nodes below do not branch on the hidden card and the search never plays
as if it could see it. Which card the opponent places in the sampled world is
chosen by the rollout policy. Bids and passes are public and branch normally.
Opponents' nodes are chosen by UCB on their own reward, so the tree models
them as rational players who, like the searcher, do not see hidden cards.

*Bid abstraction.* A bidder may name any total up to its money (R12), which
is too many branches. The tree considers, besides passing, the raises
``+1, +2, +4, +7`` over the high bid, all-in, and at the root also the
heuristic bot's own limit (its estimate of the row minus the payout for
passing); these are the moves :mod:`catsack.advice.analysis` reports. Rollouts
bid in steps of 1–3.

*Opponent model.* The belief sampler deals face-down cards uniformly, but
players place with intent: a player who expects someone else to buy dumps a
negative cat or the large dog, one who expects to buy favours good cats
(the heuristic bot's rule: about as rich as the richest opponent). Each
sampled world is accepted with probability proportional to the model's
weights for the opponents' face-down cards (rejection sampling, at most
:data:`MAX_TRIES` deals, so worlds stay consistent with the view), and
placements in the tree and in rollouts are drawn from the same weights.
Without this the search buys rows full of dumped negative cats.

*Rollout policy.* Cards are placed by the opponent model. Each player bids
as an English-auction bidder whose private estimate of the row is its true
kept value in the sampled world plus noise (standing in for what it cannot
see), staying in while the raise is below that estimate minus the payout for
passing (R13); in the last choice (R15) it buys for 1 when the estimate
exceeds 1.

*Horizon and reward.* Rollouts stop at the end of the current round
(:data:`HORIZON` rounds later; money and cats are points, R21, so the score
margin then is a low-noise measure of the round's outcome) unless that is the
end of the game. Each player's reward is its score margin over the table
average divided by :data:`MARGIN_SCALE`, plus its win share (R22, ties split)
when rollouts reach the end of the game; the margin in points is kept apart
for analysis.

*Budget.* Levels: ``easy`` (150 iterations), ``normal`` (600), ``strong``
(3500; p95 decision time about 0.38 s on one core, inside the 0.5 s budget; at 2000 iterations it won
0.44 of games against three heuristic bots, at 3500 0.56 on the same 200 deals); or ``iters=N``,
``time=S`` (seconds, wall clock; not reproducible).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from catsack.belief import sample_game
from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import (
    BUY_MIN_MONEY,
    BUY_MONEY_GAP,
    bid_limit,
    kept_value,
    row_worth,
    seat_money,
)
from catsack.game import Game
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, Move
from catsack.view import View

__all__ = ["LEVELS", "ISMCTSBot", "RootStats", "placement_weights", "search", "tree_bids"]

LEVELS: dict[str, int] = {"easy": 150, "normal": 600, "strong": 3500}
RAISES = (1, 2, 4, 7)  # raises over the high bid the tree considers (plus all-in and pass)
EXPLORATION = 0.7  # UCB1 constant for rewards of order 1
MARGIN_SCALE = 30.0  # points of margin worth one win in the reward
ROLLOUT_NOISE = 4.0  # standard deviation (points) of a rollout bidder's error about the row
HORIZON: int | None = 0  # rollouts stop when this many rounds after the current one are done (None: game end)
HIDDEN = None  # the tree label of an opponent's face-down placement
# Opponent model for placements (R10), index order +15 +11 +8 +5 +3 -5 -8 R LD SD: a player who
# expects to buy the row favours good cats and the small dog; one who expects someone else to buy
# dumps negative cats and the large dog. Used to weight hidden worlds and in rollouts.
BUYER_WEIGHTS = (3.5, 3.0, 2.2, 1.5, 1.2, 0.6, 0.5, 1.0, 0.6, 1.8)
SELLER_WEIGHTS = (1.0, 1.0, 1.0, 1.0, 1.2, 3.0, 3.5, 1.3, 2.2, 1.0)
MAX_TRIES = 12  # rejection-sampling attempts per iteration before taking an unweighted world


class _Node:
    """A tree node; children are kept in a list aligned with ``acts`` (no hashing on the hot path)."""

    __slots__ = ("acts", "hidden", "kids", "margin", "n", "player", "reward", "square", "tried")

    def __init__(self, player: int) -> None:
        self.player = player  # who made the move leading here
        self.n = 0
        self.reward = 0.0
        self.margin = 0.0
        self.square = 0.0  # sum of squared margins: kept for the root's children only (their noise)
        self.acts: tuple[Move, ...] = ()  # the moves considered here, fixed at the first visit
        self.kids: list[_Node | None] = []  # kids[i]: the child for acts[i], once tried
        self.tried = 0  # how many of kids are not None
        self.hidden: _Node | None = None  # the child for an opponent's face-down placement (POM)


@dataclass(frozen=True)
class RootStats:
    """What one search found at the root: per considered move, visits and mean results."""

    moves: tuple[Move, ...]
    visits: tuple[int, ...]
    rewards: tuple[float, ...]  # mean reward (win share + scaled margin)
    margins: tuple[float, ...]  # mean score margin over the table average, in points
    iterations: int
    seconds: float
    #: standard deviation of the margin over a move's iterations (points); its mean's standard error
    #: is ``spreads[i] / sqrt(visits[i])``. Empty when the search kept no squares.
    spreads: tuple[float, ...] = ()

    @property
    def best(self) -> Move:
        i = max(range(len(self.moves)), key=lambda k: (self.visits[k], self.rewards[k]))
        return self.moves[i]

    def error(self, i: int) -> float:
        """The standard error of move ``i``'s mean margin (points); needs :attr:`spreads`."""
        return self.spreads[i] / math.sqrt(self.visits[i])

    @classmethod
    def of(cls, moves: Iterable[Move], kids: Iterable[Any], iterations: int, seconds: float) -> RootStats:
        """The stats of a search tree's root: ``kids[i]`` is the node of ``moves[i]`` (``None`` if
        never tried; such moves are left out). Shared with :mod:`catsack.bots.expert`."""
        tried = [(m, ch) for m, ch in zip(moves, kids, strict=True) if ch is not None]
        return cls(
            moves=tuple(m for m, _ in tried),
            visits=tuple(ch.n for _, ch in tried),
            rewards=tuple(ch.reward / ch.n for _, ch in tried),
            margins=tuple(ch.margin / ch.n for _, ch in tried),
            iterations=iterations,
            seconds=seconds,
            spreads=tuple(math.sqrt(max(0.0, ch.square / ch.n - (ch.margin / ch.n) ** 2)) for _, ch in tried),
        )


def tree_bids(legal: tuple[Move, ...], high: int, extra: int | None) -> tuple[Move, ...]:
    """The bid abstraction: a few raises, all-in, optionally one extra total, then pass."""
    if legal[0].kind != BID:
        return legal
    money = legal[-2].arg  # legal is bids ascending then pass (R12); the last bid is all-in
    totals = {high + r for r in RAISES if high + r <= money}
    totals.add(money)
    if extra is not None and high < extra <= money:
        totals.add(extra)
    return (*(BIDS[t] for t in sorted(totals)), PASS_MOVE)


def placement_weights(money: tuple[int, ...], p: int) -> tuple[float, ...]:
    """The placement weights of seat ``p`` under the opponent model (the heuristic's buy rule)."""
    richest = max(m for j, m in enumerate(money) if j != p)
    mine = money[p]
    return BUYER_WEIGHTS if mine >= BUY_MIN_MONEY and mine >= richest - BUY_MONEY_GAP else SELLER_WEIGHTS


def _model_place(g: Game, rand: Callable[[], float]) -> Move:
    """A placement drawn from the opponent model's weights over the mover's hand."""
    ms = g.legal_moves()
    if len(ms) == 1:
        return ms[0]
    s = g.to_move
    assert s is not None
    w = placement_weights(g.money, s)
    total = 0.0
    for m in ms:
        total += w[m.arg]
    x = rand() * total
    for m in ms:
        x -= w[m.arg]
        if x <= 0:
            return m
    return ms[-1]


def _rollout(g: Game, rng: random.Random, stop_round: int) -> None:
    """Play ``g`` with the fast policy until it ends or round ``stop_round`` begins (see the module docstring)."""
    rand = rng.random
    gauss = rng.gauss
    seats = g.seats
    est: list[float] = []
    est_round = -1
    while True:
        ph = g.phase
        if ph == "over":
            return
        if ph == "placement":
            if g.round >= stop_round:
                return
            g.play(_model_place(g, rand))
            continue
        if g.round != est_round:
            est_round = g.round
            worth = kept_value(g.row)  # cards are their indices (IntEnum)
            est = [worth + gauss(0.0, ROLLOUT_NOISE) for _ in range(seats)]
        s = g.to_move
        assert s is not None
        mine = est[s]
        if ph == "last choice":
            ms = g.legal_moves()
            g.play(ms[0] if mine > 1 and ms[0].kind == BID else PASS_MOVE)
            continue
        high = g.high_bid
        limit = min(mine - g.next_payout, g.money[s])
        if high + 1 <= limit:
            step = 1 + int(rand() * 3)
            g.play(BIDS[int(min(high + step, limit))])
        else:
            g.play(PASS_MOVE)


def _rewards(g: Game, to_the_end: bool) -> tuple[list[float], list[float]]:
    scores = g.scores()
    n = len(scores)
    mean = sum(scores) / n
    margins = [s - mean for s in scores]
    if not g.is_over:  # a truncated rollout: the margin alone (R21: money and cats are points)
        return [m / MARGIN_SCALE for m in margins], margins
    winners = g.winners()
    share = 1.0 / len(winners)
    rewards = [(share if i in winners else 0.0) + margins[i] / MARGIN_SCALE for i in range(n)]
    return rewards, margins


def untried_pick(kids: list[Any], rand: Callable[[], float]) -> int:
    """The index of a child not tried yet, drawn uniformly with one call of ``rand``. Shared by this
    search and :mod:`catsack.bots.expert`."""
    untried = [i for i, k in enumerate(kids) if k is None]
    return untried[int(rand() * len(untried))]


def ucb_pick(kids: list[Any], logn: float, c: float) -> int:
    """The index of the child with the highest UCB1 score (mean reward + ``c``·sqrt(ln N / n)); every
    child has been tried. Shared by this search and :mod:`catsack.bots.expert`."""
    best = 0
    best_score = -1e18
    for i, ch in enumerate(kids):
        assert ch is not None
        score = ch.reward / ch.n + c * math.sqrt(logn / ch.n)
        if score > best_score:
            best_score = score
            best = i
    return best


def search(
    view: View,
    rng: random.Random,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    horizon: int | None = HORIZON,
    consider: Iterable[Move] = (),
) -> RootStats:
    """Run SO-ISMCTS+POM from ``view`` (the seat to move) within a budget; return the root's statistics.

    ``consider`` adds legal moves to the root's bid abstraction (analysis of a move actually played);
    they are expanded before the others, so any budget of at least as many iterations values them.
    """
    seat = view.seat
    if seat is None or view.to_move != seat or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {seat}, to move {view.to_move})")
    if iterations is None and seconds is None:
        iterations = LEVELS["strong"]
    t0 = time.perf_counter()
    base = sample_game(view, rng)
    extra: int | None = None
    if view.phase == "bidding" and view.legal[0].kind == BID:
        extra = math.floor(bid_limit(view, row_worth(view)))
    root_moves = tree_bids(view.legal, view.high_bid, extra)
    asked = tuple(consider)
    wanted = [m for m in asked if m in view.legal and m not in root_moves]
    if wanted:  # analysis: also value the move actually played
        root_moves = tuple(m for m in view.legal if m in root_moves or m in wanted)
    root = _Node(-1)
    root.acts = root_moves
    root.kids = [None] * len(root_moves)
    # Analysis: the moves asked about are expanded first, so even a tiny budget values them.
    first = sorted({root_moves.index(m) for m in asked if m in root_moves}, reverse=True)
    log = math.log
    c = EXPLORATION
    done = 0
    deadline = None if seconds is None else t0 + seconds
    stop = 99 if horizon is None else view.round + 1 + horizon
    to_the_end = stop > 9  # R20: nine rounds
    # Face-down cards of opponents in the row: weight each hidden world by the opponent model.
    hidden = []
    money = tuple(seat_money(view))
    for pos, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            w = placement_weights(money, rc.owner)
            hidden.append((pos, w, max(w)))
    rand = rng.random
    while True:
        if iterations is not None and done >= iterations:
            break
        if deadline is not None and done & 15 == 0 and time.perf_counter() >= deadline:
            break
        done += 1
        g = base.clone()
        for _ in range(MAX_TRIES):
            g.redeal(seat, rng)  # a fresh deal each time: redeal reshuffles everything hidden from the seat
            if not hidden:
                break
            row = g.row
            accept = 1.0
            for pos, w, wmax in hidden:
                accept *= w[row[pos]] / wmax
            if rand() < accept:
                break
        node = root
        path = [root]
        while True:
            p = g.to_move
            if p is None:
                break
            legal = g.legal_moves()
            if legal[0].kind == PLACE:
                if g.round >= stop:
                    break
                if p != seat:
                    # POM: one edge for any face-down card the opponent may place (R10, R23).
                    g.play(_model_place(g, rand))
                    child = node.hidden
                    if child is None:
                        child = node.hidden = _Node(p)
                        path.append(child)
                        break
                    node = child
                    path.append(child)
                    continue
            acts = node.acts
            if not acts:
                acts = node.acts = tree_bids(legal, g.high_bid, None)
                node.kids = [None] * len(acts)
            kids = node.kids
            if node.tried < len(acts):
                i = first.pop() if node is root and first else untried_pick(kids, rand)
                g.play(acts[i])
                child = kids[i] = _Node(p)
                node.tried += 1
                path.append(child)
                break
            logn = log(node.n)
            best = ucb_pick(kids, logn, c)
            g.play(acts[best])
            node = kids[best]  # type: ignore[assignment]
            path.append(node)
        _rollout(g, rng, stop)
        rewards, margins = _rewards(g, to_the_end)
        root.n += 1
        if len(path) > 1:
            path[1].square += margins[path[1].player] ** 2
        for nd in path[1:]:
            nd.n += 1
            nd.reward += rewards[nd.player]
            nd.margin += margins[nd.player]
    return RootStats.of(root_moves, root.kids, done, time.perf_counter() - t0)


def parse_budget(arg: str | None) -> tuple[int | None, float | None]:
    """``easy|normal|strong|iters=N|time=S`` -> (iterations, seconds)."""
    text = (arg or "strong").strip()
    if text in LEVELS:
        return LEVELS[text], None
    key, sep, value = text.partition("=")
    try:
        if sep and key == "iters" and int(value) >= 1:
            return int(value), None
        if sep and key == "time" and 0 < float(value) <= 3600:
            return None, float(value)
    except ValueError:
        pass
    raise BotSpecError(
        f"bad ismcts budget {text!r}: use one of {', '.join(LEVELS)}, 'iters=N' (N >= 1) or 'time=S' (seconds)"
    )


class ISMCTSBot(Bot):
    """SO-ISMCTS+POM over sampled hidden worlds; ``ismcts:strong``, ``ismcts:iters=2000``, ``ismcts:time=0.2``."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        self.iterations, self.seconds = parse_budget(arg)
        self.rng = random.Random(seed)
        self.last: RootStats | None = None

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        self.last = search(view, self.rng, iterations=self.iterations, seconds=self.seconds)
        return self.last.best
