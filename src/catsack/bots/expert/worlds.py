"""The expert's sampled worlds: face-down cards and players' styles drawn, weighted by what was seen."""

from __future__ import annotations

import itertools
import math
import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from typing import NamedTuple

from catsack.bots.expert.players import (
    ALWAYS,
    ANY,
    DUMP,
    LEAD,
    ONE_HOT,
    RULE,
    Observed,
    RoundFacts,
    leaders_of,
    likelihood,
    mixed_weights,
)
from catsack.bots.heuristic import public_tables
from catsack.game import Game
from catsack.view import View

#: The index of a ``lead`` player's placement weights when it does not lead (:func:`leaders_of`: it dumps);
#: index :data:`LEAD` holds its weights as a leader.
FOLLOW = 4
MAX_TRIES = 30  # rejection-sampling draws of the face-down row cards per iteration (then the likeliest)
# deal_world without drawn styles: every hidden card's one weights (and, last, no leaders: see StyleDraw.draw)
_NO_STYLES = {n: (0,) * (n + 1) for n in (3, 4, 5)}


class StyleDraw:
    """The players' styles drawn per sampled world (``styles=draw``), instead of mixed in every world.

    Each seat's style is drawn from its shares (:func:`styles`). In round 1, when no player has shown
    anything yet, one style is drawn for all the players whose kind the table does not show
    (:meth:`catsack.bots.base.Bot.meet`; everyone, unless the bot has met the table), since tables are
    often of one kind (all search bots or all heuristic bots). The draw is part of the world: its
    placement weights and the bid likelihood with the lock evidence (:data:`LOCK_JUMP`) weight it, so a
    start player who opens with 1 where the lead style would have bid what no one can top makes the
    ``rule`` worlds likelier, and the modelled players then move in the drawn style (:meth:`apply`).
    With the ``leaders=first`` model (``table.aware`` set) the world's leaders follow from its styles
    (:func:`leaders_of`), each player of unsure awareness drawn aware with its chance (or, at five seats,
    of :data:`ALWAYS` awareness with its chance of it: :func:`.players.seat_always`).
    """

    __slots__ = (
        "always",
        "aware",
        "cum",
        "group",
        "jump",
        "lead_round",
        "lock_by",
        "money",
        "seat",
        "shown",
        "start",
        "watched",
    )

    def __init__(
        self,
        table: RoundFacts,
        seat: int,
        group: frozenset[int],
        lock_by: Sequence[float],
        jump: bool,
        observed: Sequence[Observed],
    ) -> None:
        # per seat, the upper ends of ``rule``, ``lead`` and ``any`` on [0, 1); ``dump`` takes the rest
        self.cum = [(st[RULE], st[RULE] + st[LEAD], 1.0 - st[DUMP]) for st in table.style]
        self.seat = seat
        self.group = group  # seats whose styles are drawn as one (round 1, players of unknown kind)
        self.lock_by = tuple(lock_by)  # per style, the chance its player locks (honest_move)
        self.jump = jump  # weight bids by the lock evidence
        # the seats whose observed bids carry lock evidence: their styles key the likelihood cache (the
        # others' styles do not change the likelihood)
        self.watched = tuple(sorted({o.seat for o in observed if o.top < math.inf})) if jump else ()
        # this round's opponents' cards already face up (R11, R14): (owner, per style the chance it placed
        # that card, over the largest of the three); the draw weighs them like the hidden cards
        self.shown: list[tuple[int, tuple[float, ...]]] = []
        self.aware = table.aware
        self.always = table.always
        self.money: tuple[int, ...] = ()  # each seat's money at the round's start (R24), set by see()
        self.start = 0
        self.lead_round = False  # the start player as rich as anyone (round 1, R5): leaders matter

    def see(self, view: View, table: RoundFacts) -> None:
        """Weigh the draw by this round's opponents' cards already face up (R11, R14) in ``view``."""
        money = public_tables(view)[1]  # at the round's start, when they placed (R24)
        self.money = tuple(money)
        self.start = view.start
        self.lead_round = money[view.start] >= max(money)
        for rc in view.row:
            if rc.card is not None and rc.owner is not None and rc.owner != self.seat:
                o = rc.owner
                pool = tuple(c for c in range(10) if table.unseen[o] >> c & 1)  # it held the card then
                ps = [mixed_weights(st, money, o, view.start, pool, 1 << o)[rc.card] for st in ONE_HOT]
                ps.append(mixed_weights(ONE_HOT[LEAD], money, o, view.start, pool, 0)[rc.card])  # FOLLOW
                # over the largest of the cases that can occur (on the ``start`` model only the start player
                # leads; ``dump`` only where the player's share of it is above 0)
                if self.aware is not None:
                    can = [ps[RULE], ps[LEAD], ps[ANY], ps[FOLLOW]]
                elif o == view.start:
                    can = [ps[RULE], ps[LEAD], ps[ANY]]
                else:
                    can = [ps[RULE], ps[ANY], ps[FOLLOW]]
                if table.style[o][DUMP] > 0.0:
                    can.append(ps[DUMP])
                self.shown.append((o, tuple(x / max(can) for x in ps)))

    def draw(self, rand: Callable[[], float]) -> tuple[int, ...]:
        """One style per seat (the searcher's too; its moves in the tree do not read it), the seats of
        ``group`` sharing one but each drawn ``dump`` by its own share, and last the world's leaders (a bit
        per seat, :func:`leaders_of`; on the ``start`` model the start player)."""
        group = self.group
        out = []
        shared = -1
        for s, (a, b, c) in enumerate(self.cum):
            if s in group:
                # the ``dump`` style apart for each player of the group (one dumper does not make a table of
                # them), the other styles one for all
                if c < 1.0 and rand() >= c:
                    out.append(DUMP)
                    continue
                if shared < 0:
                    u = rand() * c
                    shared = RULE if u < a else LEAD if u < b else ANY
                out.append(shared)
                continue
            u = rand()
            out.append(RULE if u < a else LEAD if u < b else ANY if u < c else DUMP)
        aware = self.aware
        if aware is None or not self.lead_round:  # (outside a lead round the mask changes nothing)
            out.append(1 << self.start)
        else:
            # an unsure ``lead`` player is drawn of ALWAYS awareness with its chance of it (seat_always), else
            # aware (1) or not (0); the others keep their value, START_ONLY too
            sure = list(aware)
            for s, a in enumerate(aware):
                if 0.0 < a < 1.0 and out[s] == LEAD:
                    chance = self.always[s]
                    sure[s] = ALWAYS if chance > 0.0 and rand() < chance else float(rand() < a)
            out.append(leaders_of(out, sure, self.money, self.start))
        return tuple(out)

    def apply(self, table: RoundFacts, styles: Sequence[int]) -> None:
        """Make the drawn styles the ones the modelled players move in for this iteration."""
        table.style = [ONE_HOT[k] for k in styles[:-1]]
        table.lockp = [self.lock_by[k] for k in styles[:-1]]
        table.leaders = styles[-1]


class HiddenCard(NamedTuple):
    """An opponent's face-down card of this round, as :func:`deal_world` draws it."""

    pos: int
    owner: int
    by_style: tuple[tuple[tuple[int, ...], tuple[float, ...]], ...]  # per style: cards, cumulative weights
    # (index FOLLOW, where given: a lead player who does not lead; else its LEAD weights serve)


def hidden_card(pos: int, owner: int, weights: Sequence[Sequence[float]]) -> HiddenCard:
    """The card at ``pos``, placed by ``owner``, drawn per style (index :data:`RULE`..., and optionally
    :data:`FOLLOW`) by ``weights`` (per card index; cards with weight 0 are never drawn)."""
    by_style = []
    for w in weights:
        cards = tuple(c for c in range(10) if w[c] > 0)
        by_style.append((cards, tuple(itertools.accumulate(w[c] for c in cards))))
    return HiddenCard(pos, owner, tuple(by_style))


def deal_world(
    base: Game,
    seat: int,
    rng: random.Random,
    hidden: Sequence[HiddenCard],
    observed: Sequence[Observed],
    table: RoundFacts,
    worlds: StyleDraw | None = None,
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
    row = list(g.row_indexes)
    best_w = -1.0
    best: list[int] = row
    drawn = best_drawn = _NO_STYLES[g.seats]
    for _ in range(MAX_TRIES):
        w = 1.0
        leaders = 0
        if worlds is not None:
            drawn = worlds.draw(rand)
            leaders = drawn[-1]
            for owner, fs in worlds.shown:
                k = drawn[owner]
                w *= fs[FOLLOW if k == LEAD and not leaders >> owner & 1 else k]
        for pos, owner, by_style in hidden:
            k = drawn[owner]
            if k == LEAD and not leaders >> owner & 1 and len(by_style) > FOLLOW:
                k = FOLLOW
            cards, cum = by_style[k]
            row[pos] = cards[min(bisect_right(cum, rand() * cum[-1]), len(cards) - 1)]
        if observed:
            # a likelihood, kept beside the estimates: (up, seat) = (-1, -1), or -2 and the styles it reads
            if worlds is None or not worlds.watched:
                key: tuple[int, ...] = (-1, -1, *row)
            else:
                key = (-2, leaders, *[drawn[s] for s in worlds.watched], *row)
            like = table.cache.get(key)
            if like is None:
                styles_ = drawn[:-1] if worlds is not None and worlds.jump else None
                like = table.cache[key] = likelihood(observed, table, row, styles_, leaders)
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
    for pos, _owner, _by_style in hidden:
        g.swap_face_down(pos, best[pos])  # the owner's hand or removed card takes the card there
    return g
