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
passing); these are the moves :mod:`catsack.bots.analysis` reports. Rollouts
bid in steps of 1–3.

*Rollout policy.* Cards are placed at random. Each player bids as an
English-auction bidder whose private estimate of the row is its true kept
value in the sampled world plus noise (standing in for what it cannot see),
staying in while the raise is below that estimate minus the payout for
passing (R13); in the last choice (R15) it buys for 1 when the estimate
exceeds 1.

*Reward.* Each player's own result: a win share (R22, ties split) plus its
score margin over the table average divided by :data:`MARGIN_SCALE`; the
margin in points is kept apart for analysis.

*Budget.* Levels: ``easy`` (150 iterations), ``normal`` (600), ``strong``
(1500); or ``iters=N``, ``time=S`` (seconds, wall clock; not reproducible).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from catsack.belief import sample_game
from catsack.bots.base import Bot, BotSpecError
from catsack.bots.heuristic import bid_limit, expected_row_value, kept_value, row_distributions
from catsack.game import Game
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, Move
from catsack.view import View

__all__ = ["LEVELS", "ISMCTSBot", "RootStats", "search"]

LEVELS: dict[str, int] = {"easy": 150, "normal": 600, "strong": 1500}
RAISES = (1, 2, 4, 7)  # raises over the high bid the tree considers (plus all-in and pass)
EXPLORATION = 0.7  # UCB1 constant for rewards of order 1
MARGIN_SCALE = 30.0  # points of margin worth one win in the reward
ROLLOUT_NOISE = 4.0  # standard deviation (points) of a rollout bidder's error about the row
HIDDEN = None  # the tree label of an opponent's face-down placement


class _Node:
    __slots__ = ("children", "margin", "n", "player", "reward")

    def __init__(self, player: int) -> None:
        self.player = player  # who made the move leading here
        self.n = 0
        self.reward = 0.0
        self.margin = 0.0
        self.children: dict[Move | None, _Node] = {}


@dataclass(frozen=True)
class RootStats:
    """What one search found at the root: per considered move, visits and mean results."""

    moves: tuple[Move, ...]
    visits: tuple[int, ...]
    rewards: tuple[float, ...]  # mean reward (win share + scaled margin)
    margins: tuple[float, ...]  # mean score margin over the table average, in points
    iterations: int
    seconds: float

    @property
    def best(self) -> Move:
        i = max(range(len(self.moves)), key=lambda k: (self.visits[k], self.rewards[k]))
        return self.moves[i]


def _tree_bids(legal: tuple[Move, ...], high: int, extra: int | None) -> tuple[Move, ...]:
    """The bid abstraction: a few raises, all-in, optionally one extra total, then pass."""
    if legal[0].kind != BID:
        return legal
    money = legal[-2].arg  # legal is bids ascending then pass (R12); the last bid is all-in
    totals = {high + r for r in RAISES if high + r <= money}
    totals.add(money)
    if extra is not None and high < extra <= money:
        totals.add(extra)
    return (*(BIDS[t] for t in sorted(totals)), PASS_MOVE)


def _rollout(g: Game, rng: random.Random) -> None:
    """Finish ``g`` with the fast policy (see the module docstring)."""
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
            ms = g.legal_moves()
            g.play(ms[int(rand() * len(ms))])
            continue
        if g.round != est_round:
            est_round = g.round
            worth = kept_value([int(c) for c in g.row])
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


def _rewards(g: Game) -> tuple[list[float], list[float]]:
    scores = g.scores()
    n = len(scores)
    mean = sum(scores) / n
    winners = g.winners()
    share = 1.0 / len(winners)
    margins = [s - mean for s in scores]
    rewards = [(share if i in winners else 0.0) + margins[i] / MARGIN_SCALE for i in range(n)]
    return rewards, margins


def search(
    view: View,
    rng: random.Random,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
) -> RootStats:
    """Run SO-ISMCTS+POM from ``view`` (the seat to move) within a budget; return the root's statistics."""
    seat = view.seat
    if seat is None or view.to_move != seat or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {seat}, to move {view.to_move})")
    if iterations is None and seconds is None:
        iterations = LEVELS["strong"]
    t0 = time.perf_counter()
    base = sample_game(view, rng)
    extra: int | None = None
    if view.phase == "bidding" and view.legal[0].kind == BID:
        worth = expected_row_value(row_distributions(view, include_unplaced=False), rng)[0]
        extra = math.floor(bid_limit(view, worth))
    root_moves = _tree_bids(view.legal, view.high_bid, extra)
    root = _Node(-1)
    actions: dict[int, tuple[Move, ...]] = {id(root): root_moves}
    log = math.log
    sqrt = math.sqrt
    c = EXPLORATION
    done = 0
    deadline = None if seconds is None else t0 + seconds
    while True:
        if iterations is not None and done >= iterations:
            break
        if deadline is not None and done & 15 == 0 and time.perf_counter() >= deadline:
            break
        done += 1
        g = base.clone()
        g.redeal(seat, rng)
        node = root
        path = [root]
        while True:
            p = g.to_move
            if p is None:
                break
            legal = g.legal_moves()
            if p != seat and legal[0].kind == PLACE:
                # POM: one edge for any face-down card the opponent may place (R10, R23).
                g.play(legal[int(rng.random() * len(legal))])
                child = node.children.get(HIDDEN)
                if child is None:
                    child = node.children[HIDDEN] = _Node(p)
                    path.append(child)
                    break
                node = child
                path.append(child)
                continue
            acts = actions.get(id(node))
            if acts is None:
                acts = actions[id(node)] = _tree_bids(legal, g.high_bid, None)
            children = node.children
            if len(children) < len(acts):
                untried = [a for a in acts if a not in children]
                move = untried[int(rng.random() * len(untried))]
                g.play(move)
                child = children[move] = _Node(p)
                path.append(child)
                break
            logn = log(node.n)
            best = None
            best_score = -1e18
            for move in acts:
                ch = children[move]
                score = ch.reward / ch.n + c * sqrt(logn / ch.n)
                if score > best_score:
                    best_score = score
                    best = move
            assert best is not None
            g.play(best)
            node = children[best]
            path.append(node)
        _rollout(g, rng)
        rewards, margins = _rewards(g)
        root.n += 1
        for nd in path[1:]:
            nd.n += 1
            nd.reward += rewards[nd.player]
            nd.margin += margins[nd.player]
    kids = [(m, root.children[m]) for m in root_moves if m in root.children]
    return RootStats(
        moves=tuple(m for m, _ in kids),
        visits=tuple(ch.n for _, ch in kids),
        rewards=tuple(ch.reward / ch.n for _, ch in kids),
        margins=tuple(ch.margin / ch.n for _, ch in kids),
        iterations=done,
        seconds=time.perf_counter() - t0,
    )


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
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal move in this view (to move: {view.to_move})")
        if len(legal) == 1:
            return legal[0]
        self.last = search(view, self.rng, iterations=self.iterations, seconds=self.seconds)
        return self.last.best
