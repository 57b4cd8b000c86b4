"""The expert's search: a tree of the searcher's own decisions over worlds it samples, in which every
other player moves by the honest model of :mod:`catsack.bots.expert.players`."""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence

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
from catsack.bots.expert.spec import LEADERS, OPPONENT_NOISE, STYLE_PRIORS, TREE_DEPTH, with_dump, with_lead
from catsack.bots.expert.worlds import HiddenCard, StyleDraw, deal_world, hidden_card
from catsack.bots.heuristic import bid_limit, row_worth, seat_money
from catsack.bots.ismcts import RootStats, tree_bids, ucb_pick, untried_pick
from catsack.game import Game
from catsack.moves import BID, BIDS, PLACE, Move
from catsack.view import View

#: Iterations per decision of the ``expert`` level, per seat count: the most that keep the p95 CPU
#: time of a decision below 0.5 s (the target) on one core of the project's machine, with a margin:
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
    depth: int = TREE_DEPTH,
    infer: bool = True,
    read_intent: bool = True,
    read_bids: bool = True,
    noise: float = OPPONENT_NOISE,
    lock: bool = True,
    lead: str = "read",
    draw_styles: bool = True,
    consider: Iterable[Move] = (),
    players: Sequence[str | None] | None = None,
    leaders: str = "first",
    bluff: float = 0.0,
    dump: float = 0.0,
    dump1: float = 0.0,
    lead1: float | None = None,
    always: float = 0.0,
    future_read: float = 0.0,
    read_kinds: bool = False,
    floor: int = 0,
    min_iterations: int = 0,
) -> RootStats:
    """Search from ``view`` (the seat to move) within a budget; return the root's statistics.

    ``leaf`` values round boundaries (default :class:`HandValue`); ``consider`` adds legal moves to the
    root's candidates (analysis of a move actually played), expanded first. ``read_intent=False``
    assumes no player places at random and does not read the styles (:func:`styles`);
    ``read_bids=False`` assumes every player bids up to its honest limit with ``noise`` points of spread
    instead of reading its habits (:func:`bid_habits`). ``lock=False`` leaves out the bids no other
    player can top (:func:`lock_bid`), from the players' model and the searcher's candidates. ``lead`` picks
    the styles' prior (:data:`STYLE_PRIORS`): ``read`` reads each player's style, ``all`` gives every player
    round 1's lead model and the lock (the model before styles were read), ``0`` leaves that style out (every player
    still bids what no one can top when ``lock`` is on). ``draw_styles`` draws each player's style per
    sampled world (:class:`StyleDraw`: one for the whole table in round 1, weighted by the lock evidence
    of this round's bids); off, every world mixes the styles by their shares. ``players`` (per seat, the
    bot spec seated there or ``None``, as :meth:`catsack.bots.base.Bot.meet` gives it) sets each player's
    prior style by its kind (:func:`seat_priors`, with ``lead="read"`` and the styles read). ``leaders``
    (:data:`LEADERS`) is round 1's model of who leads: ``first`` (with the styles read and drawn) reads it
    from each world's styles and each player's kind (:func:`seat_awareness`; the default), ``start`` has only
    the start player lead (the levels' model below ``expert``). ``bluff`` is the prior chance that a player
    of unknown kind bluffs where it can (:func:`seat_bluffs`, read from the game by :func:`bluff_chances`;
    the ``expert`` bot's default is :data:`BLUFF_PRIOR`, the search's 0: no bluffs). ``dump`` is the prior share
    of the ``dump`` style (:data:`DUMP_WEIGHTS`) for a player of unknown kind, with the styles read (the
    search's default 0: no such style), from round 2 on; ``dump1`` the same in round 1. ``lead1`` (with ``lead="read"``)
    sets the ``lead`` style's share in round 1's prior for players of unknown kind (:func:`with_lead`; None: the
    prior's own). ``always`` (with ``leaders=first``) is the chance that a player of unknown kind drawn ``lead`` leads
    from the first places after the start player whoever leads before it, at five seats (:func:`.players.seat_always`).
    ``future_read`` > 0 scales a :class:`HandValue` leaf's ``future`` term by the ``dump`` style's
    mean share read for the other seats, full from that share on (:data:`.spec.FUTURE_READ`). ``read_kinds`` reads from
    the finished rounds which players of unknown kind bid by the random bot's or the heuristic's rule
    (:func:`.kinds.read_kinds`; ``expert:kinds=read``, off by default). ``floor`` (the analysis)
    gives every root move at least that many iterations, so that a move the search likes less is still valued
    with its own later decisions searched (a bot leaves it at 0). With ``seconds``, the search stops at that
    wall-clock budget but never before ``min_iterations`` iterations, and ``iterations`` (if given) still
    caps it: the server's bots and hints answer at a human pace on a busy machine with a floor on their
    strength; without ``seconds`` nothing changes, so an iteration budget stays reproducible for a seed.
    """
    seat = view.seat
    if seat is None or view.to_move != seat or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {seat}, to move {view.to_move})")
    if iterations is None and seconds is None:
        iterations = ITERATIONS[view.seats]
    value = leaf if leaf is not None else HandValue()
    t0 = time.perf_counter()
    base = sample_game(view, rng)
    if lead not in STYLE_PRIORS:
        raise ValueError(f"lead must be one of {', '.join(STYLE_PRIORS)}, not {lead!r}")
    if leaders not in LEADERS:
        raise ValueError(f"leaders must be one of {', '.join(LEADERS)}, not {leaders!r}")
    # round 1 has its own share of the dump style (``dump1``, drawn per player: StyleDraw.draw)
    share = dump if view.rounds else dump1
    shares = STYLE_PRIORS[lead]
    if lead1 is not None and lead == "read" and not view.rounds:  # round 1: no style read yet
        shares = with_lead(shares, lead1)
    prior = with_dump(shares, share)
    n = view.seats
    if players is not None and len(players) != n:
        raise ValueError(f"players names {len(players)} seats, but the view's table has {n}")
    if players is not None:
        players = met_as(players)
    bids = past_bids(view)  # the finished rounds' bids and passes (R14), for the kinds, styles and habits read
    rule = None
    if read_kinds:  # kinds read from play: a seat that bids by the random bot's rule is met as one
        kinds = read_kinds_from(view, players, bids)
        players, rule = kinds.players, kinds.rule
    met = players if lead == "read" and read_intent else None  # the table's kinds set the styles' priors
    # leaders=first: who leads round 1 follows from the drawn styles (players.leaders_of), each player's
    # awareness from its kind as met (seat_awareness); a table not met: everyone unsure
    aware = None
    if leaders == "first" and lead == "read" and read_intent and draw_styles:
        aware = seat_awareness(players) if players is not None else [UNKNOWN_AWARE] * n
    table = RoundFacts(
        view,
        [prior] * n if met is None else seat_priors(met, shares, share),
        aware,
        seat_habits(players) if players is not None and read_bids else None,
        bids,
        None if aware is None else seat_always(aware, always),
    )
    if rule is not None and read_bids:  # a seat that bids by the heuristic's rule: that bot's habits, weighed
        table.blend_habits(rule, KIND_HABITS["heuristic"])
    if met is not None:  # with the styles read: a random bot drawn ``any`` bids by its own rule
        table.own_bids = seat_own_bids(met)
    if not read_intent:  # the prior without the ``any`` style, for everyone
        kept = prior[RULE] + prior[LEAD]
        table.style = [(prior[RULE] / kept, prior[LEAD] / kept, 0.0, 0.0)] * view.seats
    elif lead != "read":
        table.style = styles(view, prior, table.bids)
    if future_read > 0.0 and type(value) is HandValue and value.future > 0.0:
        value = value.with_future(value.future * min(1.0, dump_read(table.style, seat) / future_read))
    if not lock:
        table.lockp = [0.0] * view.seats
    elif lead != "read":
        table.lockp = [1.0] * view.seats
    if bluff > 0.0:  # R23: the kinds as met (None for a person, or all with the kinds hidden)
        priors = seat_bluffs(players, n, bluff)
        priors[seat] = 0.0  # (its own moves in the tree are its own)
        table.bluff = bluff_chances(table.bids, priors)
    if not read_bids:
        table.fix_habits(noise)
    observed = observed_actions(view) if infer else []
    worlds: StyleDraw | None = None
    if draw_styles and read_intent:
        lock_by = (
            (0.0, 0.0, 0.0, 0.0) if not lock else (0.0, 1.0, LOCK_ANY, 0.0) if lead == "read" else (1.0, 1.0, 1.0, 1.0)
        )
        group = frozenset(() if view.rounds else (s for s in range(n) if met is None or not known_kind(met[s])))
        worlds = StyleDraw(table, seat, group, lock_by, lock and lead == "read", observed)
        table.sure_lead = lock and lead == "read"
        worlds.see(view, table)
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
    root = _Node()
    root.acts = root_moves
    root.kids = [None] * len(root_moves)
    first = sorted({root_moves.index(m) for m in asked if m in root_moves}, reverse=True)
    # Evidence for weighting worlds: placement intent of face-down cards, and this round's bids.
    money = tuple(seat_money(view))
    hidden: list[HiddenCard] = []
    for pos, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            pool = tuple(c for c in range(10) if table.unseen[rc.owner] >> c & 1)
            wts: tuple[tuple[float, ...], ...]
            if worlds is None:
                w = mixed_weights(table.style[rc.owner], money, rc.owner, view.start, pool)
                wts = (w, w, w)
            else:  # per style, and FOLLOW: a lead player that does not lead (worlds.FOLLOW)
                o = rc.owner
                wts = (
                    *(mixed_weights(ONE_HOT[k], money, o, view.start, pool, 1 << o) for k in STYLE_KEYS),
                    mixed_weights(ONE_HOT[LEAD], money, o, view.start, pool, 0),
                )
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
        if deadline is not None and done >= min_iterations and done & 15 == 0 and time.perf_counter() >= deadline:
            break
        done += 1
        g = deal_world(base, seat, rng, hidden, observed, table, worlds)
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
                g.play(honest_move(g, table, dev, rand))
                continue
            mine += 1
            acts = node.acts
            if not acts:
                legal = g.legal_moves()
                top = lock_bid(g.money, passed_mask(g), seat) if lock else None
                acts = node.acts = tree_bids(legal, g.high_bid, top)
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
            if node is root and floor:  # analysis: every root move gets ``floor`` iterations at least
                low = min(range(len(kids)), key=lambda k: kids[k].n)  # type: ignore[union-attr]
                best = low if kids[low].n < floor else ucb_pick(kids, logn, c)  # type: ignore[union-attr]
            else:
                best = ucb_pick(kids, logn, c)
            g.play(acts[best])
            node = kids[best]  # type: ignore[assignment]
            path.append(node)
        reward, margin = _outcome(g, seat, value)
        root.n += 1
        if len(path) > 1:  # depth 0 takes no decision in the tree
            path[1].square += margin * margin
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
