"""The expert's search: a tree of the searcher's own decisions over worlds it samples, in which every
other player moves by the honest model of :mod:`catsack.bots.expert.players`."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from catsack.belief import sample_game
from catsack.bots.expert.kinds import read_kinds as read_kinds_from
from catsack.bots.expert.leaf import HandValue, LeafValue, seat_scores
from catsack.bots.expert.players import (
    KIND_HABITS,
    LEAD,
    LOCK_ANY,
    ONE_HOT,
    RULE,
    STYLE_KEYS,
    UNKNOWN_AWARE,
    RoundFacts,
    bluff_chances,
    dump_read,
    honest_move,
    known_kind,
    lock_bid,
    met_as,
    mixed_weights,
    observed_actions,
    passed_mask,
    past_bids,
    seat_always,
    seat_awareness,
    seat_bluffs,
    seat_habits,
    seat_own_bids,
    seat_priors,
    styles,
)
from catsack.bots.expert.spec import LEADERS, STYLE_PRIORS, Model, with_dump, with_lead
from catsack.bots.expert.worlds import HiddenCard, StyleDraw, deal_world, hidden_card
from catsack.bots.heuristic import bid_limit, row_worth, seat_money
from catsack.bots.ismcts import RootStats, tree_bids, ucb_pick, untried_pick
from catsack.game import Game
from catsack.moves import BID, BIDS, PLACE, Move
from catsack.view import View

#: Iterations per decision of the ``expert`` level, per seat count: the most that keep the p95 CPU
#: time of a decision below 0.5 s (the target) on one core of the reference machine (docs/benchmarks.md), with a margin:
#: p95 0.428 / 0.477 / 0.396 s with 3 / 4 / 5 seats (``bench/expert.py --meet``). Drawing the styles per
#: world costs rejected draws (the lock evidence): 3 seats at 10,000 measured p95 0.55-0.61 s. Against
#: ``ismcts`` the expert needed about 2.5x its opponents' iterations; beyond that no gain was shown
#: (4,000 vs 9,000 on the same 96 deals: 0.344 and 0.323, ``bench/expert_strength.py``, docs/bots.md).
ITERATIONS: dict[int, int] = {3: 7000, 4: 6000, 5: 5000}
EXPLORATION = 0.5  # UCB1 constant; rewards are win shares (order 1)
TIE_SCALE = 100.0  # points of margin worth one win: margin only breaks near-ties


class _Node:
    """A node of the searcher's tree: the public history since the root, as the searcher saw it."""

    __slots__ = ("acts", "kids", "margin", "n", "next", "reward", "square", "tried")

    def __init__(self) -> None:
        self.n = 0
        self.reward = 0.0
        self.margin = 0.0
        self.square = 0.0  # sum of squared margins: kept for the root's children only (their noise)
        self.acts: tuple[Move, ...] = ()  # the searcher's moves considered here (its decisions only)
        self.kids: list[_Node | None] = []
        self.tried = 0
        self.next: dict[Move | None, _Node] | None = None  # opponents' moves (None: a face-down placement)


def _outcome(g: Game, seat: int, leaf: LeafValue) -> tuple[float, float]:
    """(reward, margin in points) of ``seat`` at a round boundary or the end of the game."""
    scores = seat_scores(g)
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
    consider: Iterable[Move] = (),
    players: Sequence[str | None] | None = None,
    floor: int = 0,
    min_iterations: int = 0,
    model: Model | None = None,
    **changes: Any,
) -> RootStats:
    """Search from ``view`` (the seat to move) within a budget; return the root's statistics.

    ``model`` (:class:`~catsack.bots.expert.spec.Model`, changed by any of its fields given as keywords, e.g.
    ``read_intent=False``) is what the search assumes of the table. ``read_intent=False`` assumes no player
    places at random and does not read the styles (:func:`styles`); ``read_bids=False`` assumes every player
    bids up to its honest limit with ``noise`` points of spread instead of reading its habits (:func:`bid_habits`).
    ``lock=False`` leaves out the bids no other player can top (:func:`lock_bid`), from the players' model and the
    searcher's candidates. ``lead`` picks the styles' prior (:data:`STYLE_PRIORS`): ``read`` reads each player's
    style, ``all`` gives every player round 1's lead model and the lock, ``0`` leaves that style out.
    ``draw_styles`` draws each player's style per sampled world (:class:`StyleDraw`: one for the whole table in
    round 1, weighted by the lock evidence of this round's bids); off, every world mixes the styles by their
    shares. ``leaders`` (:data:`LEADERS`) is round 1's model of who leads: ``first`` reads it from each world's
    styles and each player's kind (:func:`seat_awareness`), ``start`` has only the start player lead. ``bluff`` is
    the prior chance that a player of unknown kind bluffs where it can (:func:`seat_bluffs`, read by
    :func:`bluff_chances`); ``dump`` the prior share of the ``dump`` style (:data:`DUMP_WEIGHTS`) for a player of
    unknown kind from round 2 on, ``dump1`` the same in round 1; ``lead1`` the ``lead`` style's share in round 1's
    prior (:func:`with_lead`); ``always`` the chance that a player of unknown kind drawn ``lead`` leads from the
    first places after the start player at five seats (:func:`.players.seat_always`); ``future_read`` > 0 scales a
    :class:`HandValue` leaf's ``future`` term by the ``dump`` style's mean share read for the other seats
    (:data:`.spec.FUTURE_READ`); ``read_kinds`` reads which players of unknown kind bid by a known bot's rule
    (:func:`.kinds.read_kinds`). ``depth`` is the searcher's decisions searched per iteration, ``infer`` weighs
    the worlds by this round's bids.

    ``leaf`` values round boundaries (default :class:`HandValue`); ``consider`` adds legal moves to the root's
    candidates (analysis of a move actually played), expanded first. ``players`` (per seat, the bot spec seated
    there or ``None``, as :meth:`catsack.bots.base.Bot.meet` gives it) sets each player's prior style by its kind
    (:func:`seat_priors`). ``floor`` (the analysis) gives every root move at least that many iterations. With
    ``seconds``, the search stops at that wall-clock budget but never before ``min_iterations`` iterations, and
    ``iterations`` (if given) still caps it; without ``seconds`` an iteration budget stays reproducible for a seed.
    """
    m = replace(model or Model(), **changes)
    seat = view.seat
    if seat is None or view.to_move != seat or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {seat}, to move {view.to_move})")
    if iterations is None and seconds is None:
        iterations = ITERATIONS[view.seats]
    t0 = time.perf_counter()
    base = sample_game(view, rng)
    table, worlds, players = _table(view, m, players)
    value = leaf if leaf is not None else HandValue()
    if m.future_read > 0.0 and type(value) is HandValue and value.future > 0.0:
        value = value.with_future(value.future * min(1.0, dump_read(table.style, seat) / m.future_read))
    root_moves, first = _root_moves(view, m.lock, consider)
    root = _Node()
    root.acts = root_moves
    root.kids = [None] * len(root_moves)
    walk = _Walk(seat, rng, table, worlds, _hidden_cards(view, table, worlds), m, first, floor)
    observed = observed_actions(view) if m.infer else []
    done = 0
    deadline = None if seconds is None else t0 + seconds
    while True:
        if iterations is not None and done >= iterations:
            break
        if deadline is not None and done >= min_iterations and done & 15 == 0 and time.perf_counter() >= deadline:
            break
        done += 1
        g = deal_world(base, seat, rng, walk.hidden, observed, table, worlds)
        walk.iterate(g, root, value, view.round + 1)
    return RootStats.of(root_moves, root.kids, done, time.perf_counter() - t0)


def _table(
    view: View, m: Model, players: Sequence[str | None] | None
) -> tuple[RoundFacts, StyleDraw | None, Sequence[str | None] | None]:
    """The facts of the table the search's players act on, the style draw of its worlds, and the kinds as met."""
    if m.lead not in STYLE_PRIORS:
        raise ValueError(f"lead must be one of {', '.join(STYLE_PRIORS)}, not {m.lead!r}")
    if m.leaders not in LEADERS:
        raise ValueError(f"leaders must be one of {', '.join(LEADERS)}, not {m.leaders!r}")
    seat = view.seat
    assert seat is not None
    n = view.seats
    share = m.dump if view.rounds else m.dump1  # round 1 has its own share of the dump style, drawn per player
    shares = STYLE_PRIORS[m.lead]
    if m.lead1 is not None and m.lead == "read" and not view.rounds:  # round 1: no style read yet
        shares = with_lead(shares, m.lead1)
    prior = with_dump(shares, share)
    if players is not None and len(players) != n:
        raise ValueError(f"players names {len(players)} seats, but the view's table has {n}")
    if players is not None:
        players = met_as(players)
    bids = past_bids(view)  # the finished rounds' bids and passes (R14), for the kinds, styles and habits read
    rule = None
    if m.read_kinds:  # kinds read from play: a seat that bids by the random bot's rule is met as one
        kinds = read_kinds_from(view, players, bids)
        players, rule = kinds.players, kinds.rule
    met = players if m.lead == "read" and m.read_intent else None  # the table's kinds set the styles' priors
    aware = None  # leaders=first: who leads round 1 follows from the drawn styles and each player's awareness
    if m.leaders == "first" and m.lead == "read" and m.read_intent and m.draw_styles:
        aware = seat_awareness(players) if players is not None else [UNKNOWN_AWARE] * n
    table = RoundFacts(
        view,
        [prior] * n if met is None else seat_priors(met, shares, share),
        aware,
        seat_habits(players) if players is not None and m.read_bids else None,
        bids,
        None if aware is None else seat_always(aware, m.always),
    )
    _adjust(table, view, m, prior, met, rule, players)
    worlds: StyleDraw | None = None
    if m.draw_styles and m.read_intent:
        lock_by = (
            (0.0, 0.0, 0.0, 0.0)
            if not m.lock
            else (0.0, 1.0, LOCK_ANY, 0.0)
            if m.lead == "read"
            else (1.0, 1.0, 1.0, 1.0)
        )
        group = frozenset(() if view.rounds else (s for s in range(n) if met is None or not known_kind(met[s])))
        observed = observed_actions(view) if m.infer else []
        worlds = StyleDraw(table, seat, group, lock_by, m.lock and m.lead == "read", observed)
        table.sure_lead = m.lock and m.lead == "read"
        worlds.see(view, table)
    return table, worlds, players


def _adjust(
    table: RoundFacts,
    view: View,
    m: Model,
    prior: tuple[float, float, float, float],
    met: Sequence[str | None] | None,
    rule: Any,
    players: Sequence[str | None] | None,
) -> None:
    """The model's options applied to the table's facts: habits, styles, locks and bluffs."""
    seat = view.seat
    assert seat is not None
    if rule is not None and m.read_bids:  # a seat that bids by the heuristic's rule: that bot's habits, weighed
        table.blend_habits(rule, KIND_HABITS["heuristic"])
    if met is not None:  # with the styles read: a random bot drawn ``any`` bids by its own rule
        table.own_bids = seat_own_bids(met)
    if not m.read_intent:  # the prior without the ``any`` style, for everyone
        kept = prior[RULE] + prior[LEAD]
        table.style = [(prior[RULE] / kept, prior[LEAD] / kept, 0.0, 0.0)] * view.seats
    elif m.lead != "read":
        table.style = styles(view, prior, table.bids)
    if not m.lock:
        table.lockp = [0.0] * view.seats
    elif m.lead != "read":
        table.lockp = [1.0] * view.seats
    if m.bluff > 0.0:  # R23: the kinds as met (None for a person, or all with the kinds hidden)
        priors = seat_bluffs(players, view.seats, m.bluff)
        priors[seat] = 0.0  # (its own moves in the tree are its own)
        table.bluff = bluff_chances(table.bids, priors)
    if not m.read_bids:
        table.fix_habits(m.noise)


def _root_moves(view: View, lock: bool, consider: Iterable[Move]) -> tuple[tuple[Move, ...], list[int]]:
    """The root's candidate moves (the bid abstraction, the honest limit, the lock bid, the moves asked for) and
    the indices of the asked ones, to be expanded first."""
    seat = view.seat
    assert seat is not None
    extra: int | None = None
    if view.phase == "bidding" and view.legal[0].kind == BID:
        extra = math.floor(bid_limit(view, row_worth(view)))
    root_moves = tree_bids(view.legal, view.high_bid, extra)
    if lock and view.phase == "bidding" and view.legal[0].kind == BID:
        root_moves = _with_total(root_moves, view.high_bid, lock_bid(seat_money(view), passed_mask(view), seat))
    asked = tuple(consider)
    wanted = [m for m in asked if m in view.legal and m not in root_moves]
    if wanted:
        root_moves = tuple(m for m in view.legal if m in root_moves or m in wanted)
    first = sorted({root_moves.index(m) for m in asked if m in root_moves}, reverse=True)
    return root_moves, first


def _hidden_cards(view: View, table: RoundFacts, worlds: StyleDraw | None) -> list[HiddenCard]:
    """Evidence for weighting worlds: the placement weights of each face-down card, per style."""
    money = tuple(seat_money(view))
    hidden: list[HiddenCard] = []
    for pos, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            o = rc.owner
            pool = tuple(c for c in range(10) if table.unseen[o] >> c & 1)
            wts: tuple[tuple[float, ...], ...]
            if worlds is None:
                w = mixed_weights(table.style[o], money, o, view.start, pool)
                wts = (w, w, w)
            else:  # per style, and FOLLOW: a lead player that does not lead (worlds.FOLLOW)
                wts = (
                    *(mixed_weights(ONE_HOT[k], money, o, view.start, pool, 1 << o) for k in STYLE_KEYS),
                    mixed_weights(ONE_HOT[LEAD], money, o, view.start, pool, 0),
                )
            hidden.append(hidden_card(pos, o, wts))
    return hidden


class _Walk:
    """One iteration's walk: down the searcher's tree through a dealt world to the round's end, and back up."""

    def __init__(
        self,
        seat: int,
        rng: random.Random,
        table: RoundFacts,
        worlds: StyleDraw | None,
        hidden: list[HiddenCard],
        m: Model,
        first: list[int],
        floor: int,
    ) -> None:
        self.seat, self.rng, self.table, self.worlds, self.hidden = seat, rng, table, worlds, hidden
        self.depth, self.lock, self.first, self.floor = m.depth, m.lock, first, floor

    def iterate(self, g: Game, root: _Node, value: LeafValue, stop_round: int) -> None:
        """Play world ``g`` down the tree from ``root`` to the end of the round (or game); back the outcome up."""
        seat, table, rand = self.seat, self.table, self.rng.random
        gauss = self.rng.gauss
        dev = [off + gauss(0.0, sd) for off, sd in zip(table.offset, table.spread, strict=True)]
        dev[seat] = 0.0
        node = root
        path = [root]
        expanded = False
        mine = 0  # the searcher's decisions taken in the tree this iteration
        while True:
            p = g.to_move
            if p is None or (g.phase == "placement" and g.round >= stop_round):
                break
            if p != seat:
                move = honest_move(g, table, dev, rand)
                g.play(move)
                if not expanded:
                    node = self._observed(node, None if move.kind == PLACE else move)
                    path.append(node)
                continue
            if expanded or mine >= self.depth:
                expanded = True
                g.play(honest_move(g, table, dev, rand))
                continue
            mine += 1
            node, expanded = self._choose(g, node, root is node)
            path.append(node)
        reward, margin = _outcome(g, seat, value)
        root.n += 1
        if len(path) > 1:  # depth 0 takes no decision in the tree
            path[1].square += margin * margin
        for nd in path[1:]:
            nd.n += 1
            nd.reward += reward
            nd.margin += margin

    @staticmethod
    def _observed(node: _Node, key: Move | None) -> _Node:
        """The child for an opponent's public move (``None``: a face-down placement)."""
        nxt = node.next
        if nxt is None:
            nxt = node.next = {}
        child = nxt.get(key)
        if child is None:
            child = nxt[key] = _Node()
        return child

    def _choose(self, g: Game, node: _Node, at_root: bool) -> tuple[_Node, bool]:
        """The searcher's move at ``node`` (an untried one first, then UCB1), played in ``g``; whether it expanded."""
        acts = node.acts
        if not acts:
            legal = g.legal_moves()
            top = lock_bid(g.money, passed_mask(g), self.seat) if self.lock else None
            acts = node.acts = tree_bids(legal, g.high_bid, top)
            node.kids = [None] * len(acts)
        kids = node.kids
        if node.tried < len(acts):
            i = self.first.pop() if at_root and self.first else untried_pick(kids, self.rng.random)
            g.play(acts[i])
            child = kids[i] = _Node()
            node.tried += 1
            return child, True
        logn = math.log(node.n) if node.n > 0 else 0.0
        if at_root and self.floor:  # analysis: every root move gets ``floor`` iterations at least
            low = min(range(len(kids)), key=lambda k: kids[k].n)  # type: ignore[union-attr]
            best = low if kids[low].n < self.floor else ucb_pick(kids, logn, EXPLORATION)  # type: ignore[union-attr]
        else:
            best = ucb_pick(kids, logn, EXPLORATION)
        g.play(acts[best])
        chosen = kids[best]
        assert chosen is not None
        return chosen, False


def _with_total(moves: tuple[Move, ...], high: int, total: int) -> tuple[Move, ...]:
    """``moves`` (bids ascending, then pass) with the bid ``total`` added where it is legal and missing."""
    if moves[0].kind != BID or not high < total <= moves[-2].arg or BIDS[total] in moves:
        return moves
    return (*sorted((*moves[:-1], BIDS[total]), key=lambda m: m.arg), moves[-1])
