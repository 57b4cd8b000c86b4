"""The honest players of the expert's model: styles and bid habits read from finished rounds, each
modelled player's move from its own view of a sampled world, and the likelihood of this round's bids."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from catsack.bots.base import BotSpecError
from catsack.bots.expert.spec import BLUFF_PRIOR, STYLE_PRIORS, parse_spec, with_dump
from catsack.bots.heuristic import MARGIN, OUTLAST_SHARE, apply_round, mask_row_value, public_tables
from catsack.bots.ismcts import SELLER_WEIGHTS, placement_weights
from catsack.bots.random_bot import auction_move
from catsack.constants import UP_AFTER_PASSES
from catsack.game import Game, RoundResult
from catsack.moves import BID, BIDS, PASS_MOVE, PLACE, Move
from catsack.setup import START_MONEY
from catsack.view import View

INTENT_CLAMP = 6.0  # how far (log-likelihood) a style may trail the best one in a seat's posterior (styles)
MIN_LIKELIHOOD = 0.02  # floor of one observed action's likelihood (players err; keeps every world possible)
# bid_habits: the grid of (offset, spread) of a player's bid limit about the honest one, and the prior
HABIT_OFFSETS = (-4.0, -2.0, 0.0, 2.0, 4.0, 6.0, 8.0)  # points; prior normal about 0 ...
HABIT_PRIOR_SD = 3.0  # ... with this spread
HABIT_SPREADS = (0.5, 1.5, 3.0, 5.0, 8.0, 13.0)  # points; prior uniform
#: The grid of :func:`bid_habits`: (offset, spread, log prior weight) for a player of unknown kind.
HABIT_GRID = tuple((o, sd, -0.5 * (o / HABIT_PRIOR_SD) ** 2) for o in HABIT_OFFSETS for sd in HABIT_SPREADS)
#: A player's bid habits (offset, spread in points) by the kind of bot seated there (:func:`seat_habits`), the
#: prior of :func:`bid_habits` for it: a normal prior of spread :data:`KIND_HABIT_SD` about the offset, and of
#: spread :data:`KIND_HABIT_LOG_SD` about the spread's logarithm. Measured by ``bench/bid_model.py`` (docs/bots.md):
#: heuristic bots bid by the honest rule (+0.2, 0.5), random bots anyhow (-1.4, 20: the grid's widest spread).
#: Other kinds and people get the prior above. Both bots are fixed rules (the heuristic takes no options), so the
#: prior is narrow: a whole game of bids moves it little.
KIND_HABITS: dict[str, tuple[float, float]] = {"heuristic": (0.0, 0.5), "random": (-1.4, 13.0)}
KIND_HABIT_SD = 1.0
KIND_HABIT_LOG_SD = 0.35
#: The kinds whose auction moves the model draws from the bot's own rule when the seat's style is drawn
#: ``any``: the random bot's bids are not a limit about the row's value but a coin and a small raise
#: (:func:`catsack.bots.random_bot.auction_move`; :func:`seat_own_bids`).
OWN_BIDS_KINDS = frozenset({"random"})
#: The ``lead`` style's placement weights (index order +15 +11 +8 +5 +3 -5 -8 R LD SD) of a start player
#: who can win the row outright (:func:`_intent_weights`): search bots lead round 1 with their +15, else the +11
#: (72 round-1 leads of ``ismcts:iters=900`` start players, ``--games 96 --seed 101``: +15 65 times, +11 7).
LEAD_WEIGHTS = (90.0, 9.0, 0.3, 0.2, 0.15, 0.05, 0.05, 0.1, 0.05, 0.1)
#: The styles a player is read as (:func:`styles`), by index: ``rule`` places like the heuristic (a likely
#: buyer favours good cats, a likely seller dumps) and raises a step at a time; ``lead`` is round 1's
#: model (a start player as rich as anyone leads its best cats, the others dump) and bids what no one
#: still in can top once its limit reaches it (:func:`lock_bid`); ``any`` places any card in hand alike;
#: ``dump`` hides the card that hurts the buyer most whatever its money (:data:`DUMP_WEIGHTS`) and bids
#: like ``rule``. The ``dump`` style is in the model only where its prior share is above 0
#: (``expert:dump=X``, :data:`.spec.DUMP_PRIOR`).
RULE, LEAD, ANY, DUMP = 0, 1, 2, 3
STYLE_KEYS = (RULE, LEAD, ANY, DUMP)
#: The ``dump`` style's placement weights (index order +15 +11 +8 +5 +3 -5 -8 R LD SD): its large dog and
#: its worst cats first (R16: the large dog chases the best cat of the row), its good cats almost never.
#: Set by hand from the rules, not fitted to any player.
DUMP_WEIGHTS = (0.02, 0.03, 0.05, 0.1, 0.2, 2.0, 4.0, 0.5, 4.0, 0.3)
#: A player's prior style shares by the kind of bot seated there, which everyone at the table sees
#: (:meth:`catsack.bots.base.Bot.meet`; :func:`seat_priors`): heuristic bots place and raise by the rule
#: and random bots anyhow; ``ismcts`` bots lead round 1 with their best cats and bid 15 at once (72 of 72
#: round-1 leads, :data:`LEAD_WEIGHTS`), and their other placements look uniform; so do ``dmc`` agents
#: (as start player they led their +15 or +11 in 134 of 144 deals at 3, 4 and 5 seats and bid 15 at once in
#: 125, ``bench/round1_places.py --start dmc --others dmc --seats N --deals 48``; read from their
#: placements with the kinds hidden they are never ``dump``, ``bench/style_read.py --others dmc``). Not
#: certainties: the evidence of the game still moves them. Other kinds, ``expert`` among them, and people get
#: the default prior: a ``lead`` prior (0.1, 0.8, 0.1) for the expert's own kind did worse in the mixed table (200
#: duplicate games, seed 2: expert 0.435 against 0.475, docs/bots.md). Meeting the table raised the expert
#: there from 0.412 to 0.507 (400 games), mostly in round 1.
KIND_STYLES: dict[str, tuple[float, float, float, float]] = {
    "heuristic": (0.9, 0.05, 0.05, 0.0),
    "random": (0.05, 0.05, 0.9, 0.0),
    "ismcts": (0.05, 0.85, 0.1, 0.0),
    "dmc": (0.05, 0.85, 0.1, 0.0),
}


#: The ``dmc`` specs that seat the shipped self-play network (:data:`catsack.learn.dmc_bot.DEFAULT_DMC`),
#: whose play the ``dmc`` kind's priors were measured on; other weights (the exploiter ``dmc:exploit-v1``,
#: which opens round 1 with its +8 and bids 7, or a file) are other players, met as unknown ones.
MEASURED_DMC = frozenset({"", "dmc-v1"})


#: The kinds whose priors were measured at some numbers of seats only; at the others they are met as
#: unknown players (:func:`met_as`). As start player ``dmc`` bid 15 at once on 48 of 48 deals at four and
#: at five seats but on 29 of 48 at three, and meeting it as a kind that leads at three seats did not help
#: the expert there (0.426 of 54 games against two ``dmc``, 0.463 met as unknown players, docs/bots.md).
KIND_SEATS: dict[str, frozenset[int]] = {"dmc": frozenset({4, 5})}


def met_as(players: Sequence[str | None]) -> list[str | None]:
    """The table as the model meets it (:meth:`catsack.bots.base.Bot.meet`): each seat's spec, or ``None``
    (an unknown player) for a kind whose priors were not measured at this number of seats
    (:data:`KIND_SEATS`)."""
    n = len(players)
    out: list[str | None] = []
    for p in players:
        seats = KIND_SEATS.get(kind_of(p))
        out.append(None if seats is not None and n not in seats else p)
    return out


def kind_of(player: str | None) -> str:
    """The bot kind of a seat as met (``ismcts`` for ``ismcts:strong``); ``""`` for a person. A ``dmc``
    spec with weights other than :data:`MEASURED_DMC` is its own kind (the whole spec)."""
    kind, _, arg = (player or "").partition(":")
    kind = kind.strip()
    if kind == "dmc" and arg.strip() not in MEASURED_DMC:
        return (player or "").strip()
    if kind == "classic":  # the classic expert under its own name is the expert's own kind
        return "expert"
    if kind == "expert":
        from catsack.bots.strongest import is_agent

        if is_agent(arg):  # the learned expert: a kind this model holds no prior for
            return "expert-learned"
    return kind


def seat_priors(players: Sequence[str | None], default: Sequence[float], dump: float = 0.0) -> list[tuple[float, ...]]:
    """Per seat, the prior style shares of the kind seated there (:data:`KIND_STYLES`, by the spec's kind),
    or ``default`` for a person or a player of another or unknown kind, with the ``dump`` style's share set
    to ``dump`` (:func:`.spec.with_dump`); the expert's own kind, which searches its placements, gets
    ``default`` as it is."""
    unknown = with_dump(default, dump)
    out: list[tuple[float, ...]] = []
    for p in players:
        kind = kind_of(p)
        out.append(KIND_STYLES[kind] if kind in KIND_STYLES else tuple(default) if kind == "expert" else unknown)
    return out


def known_kind(player: str | None) -> bool:
    """Whether :data:`KIND_STYLES` holds a prior for the player seated as ``player``."""
    return kind_of(player) in KIND_STYLES


UNKNOWN_AWARE = 0.5  # a person's or an unknown bot's chance of seeing that another lead player speaks first
#: The awareness (:func:`seat_awareness`) of a kind that leads round 1 only as the start player. Behind
#: any start player, ``ismcts:strong`` never placed its +15 in round 1: 0 of 288 placements in 96 deals,
#: with a heuristic, random, ``ismcts:strong`` or ``expert`` start player and three ``ismcts:strong`` bots
#: behind it (``bench/round1_places.py --others ismcts:strong --start S``); it dumped, or
#: placed a good cat and raised in the auction.
START_ONLY = -1.0
#: The kinds that lead only as the start player (measured for ``ismcts``, above).
START_ONLY_KINDS = frozenset({"ismcts"})
#: The awareness of a kind that leads round 1 from the places :data:`ALWAYS_PLACES` after the start player
#: whoever leads before it, and never from the others. At five seats ``dmc`` placed its +15 from the
#: first place after a ``dmc`` start player in 38 of 48 deals and from the second in 45 (from the third in
#: 21, the fourth in 5: a rabbit, mostly), the same behind a heuristic start player, and from the first place
#: bid 15 at its first turn whenever the start player had not (``bench/round1_places.py --others dmc --seats
#: 5 --start dmc|heuristic``). A model in which every follower dumps behind a start player who leads let the
#: expert, as start player, open low on a row of their +15s, which the next ``dmc`` bought for 15.
ALWAYS = 2.0
ALWAYS_PLACES = frozenset({1, 2})  # places after the start player (R12's order) from which ALWAYS leads
#: The kinds (at a number of seats) of :data:`ALWAYS` awareness (measured for ``dmc`` at five, above).
ALWAYS_KINDS = frozenset({("dmc", 5)})


def seat_awareness(players: Sequence[str | None]) -> list[float]:
    """Per seat, the chance that the player there, if of the ``lead`` style, sees that a ``lead`` player
    who speaks before it will lead (:func:`leaders_of`): 1 for an expert spec on ``leaders=first`` (``expert``
    itself), 0 for one on the ``start`` model (the levels below it) and the other kinds :data:`KIND_STYLES` knows,
    :data:`START_ONLY` for the kinds that never lead but as start player (:data:`START_ONLY_KINDS`),
    :data:`ALWAYS` for those that lead from some places whoever leads before them (:data:`ALWAYS_KINDS`,
    at the table's number of seats), :data:`UNKNOWN_AWARE` for a person or an unknown bot. What each seat
    holds is public (R23: the lobby shows it)."""
    out = []
    for p in players:
        kind = kind_of(p)
        if (kind, len(players)) in ALWAYS_KINDS:
            out.append(ALWAYS)
        elif kind == "expert":
            try:
                out.append(1.0 if parse_spec((p or "").partition(":")[2]).leaders == "first" else 0.0)
            except BotSpecError:  # no such expert could sit there; read it as an unknown player
                out.append(UNKNOWN_AWARE)
        elif kind in START_ONLY_KINDS:
            out.append(START_ONLY)
        else:
            out.append(0.0 if kind in KIND_STYLES else UNKNOWN_AWARE)
    return out


#: The numbers of seats at which a player of unknown kind may be of :data:`ALWAYS` awareness, with the chance
#: ``expert:always=X`` (:func:`seat_always`): where ``dmc`` was measured leading so (:data:`ALWAYS_KINDS`).
PERSON_ALWAYS_SEATS = frozenset({5})


def seat_always(aware: Sequence[float], share: float) -> list[float]:
    """Per seat, the chance that the player there, if of the ``lead`` style, is of :data:`ALWAYS` awareness
    (drawn per world, :class:`.worlds.StyleDraw`): ``share`` for a person or an unknown bot (awareness
    :data:`UNKNOWN_AWARE`, :func:`seat_awareness`) at a number of seats in :data:`PERSON_ALWAYS_SEATS`, else 0."""
    if len(aware) not in PERSON_ALWAYS_SEATS:
        return [0.0] * len(aware)
    return [share if a == UNKNOWN_AWARE else 0.0 for a in aware]


def leaders_of(drawn: Sequence[int], aware: Sequence[float], money: Sequence[int], start: int) -> int:
    """The seats (a bit each) that lead a round whose players' styles are ``drawn``, on the ``first``
    model (:data:`.spec.LEADERS`): when the start player is as rich as anyone (round 1, R5) and of the ``lead``
    style, it alone; else, from the start player on (R12's order), each ``lead`` player as rich as anyone
    leads unless it is aware (``aware`` above 0) and another such player speaks before it, or leads only
    as start player (:data:`START_ONLY`); a player of :data:`ALWAYS` awareness leads from the places
    :data:`ALWAYS_PLACES` whoever leads before it, the start player too, and from no other. A leader
    leads its best cats and bids what no one still in can top at its first turn (:func:`honest_move`); the
    ``lead`` players who do not lead dump."""
    n = len(drawn)
    top = max(money)
    if money[start] < top:
        return 0
    lead_start = drawn[start] == LEAD
    mask = 1 << start if lead_start else 0
    seen = lead_start
    for k in range(1, n):
        s = (start + k) % n
        if drawn[s] != LEAD or money[s] < top or aware[s] < 0:
            continue
        if aware[s] >= ALWAYS:
            leads = k in ALWAYS_PLACES
        else:  # behind a lead start player no one else leads
            leads = not lead_start and (not seen or not aware[s])
        if leads:
            mask |= 1 << s
        seen = True
    return mask


def _lead_chance(
    priors: Sequence[Sequence[float]],
    aware: Sequence[float],
    money: Sequence[int],
    start: int,
    p: int,
    always: float = 0.0,
) -> float:
    """The chance that seat ``p``, of the ``lead`` style, leads (:func:`leaders_of`), from the others'
    prior shares of that style, ``p``'s chance of being aware and its chance ``always`` of :data:`ALWAYS`
    awareness (:func:`seat_always`): the evidence of :func:`styles`."""
    top = max(money)
    if p == start:
        return 1.0
    if money[p] < top or aware[p] < 0:
        return 0.0
    placed = 1.0 if (p - start) % len(priors) in ALWAYS_PLACES else 0.0
    if aware[p] >= ALWAYS:  # it leads from those places whoever leads before it, and from no other
        return placed
    naive = 1.0 - priors[start][LEAD]
    first = naive
    k = (start + 1) % len(priors)
    while k != p:
        if money[k] >= top and aware[k] >= 0:  # (a START_ONLY player never leads there)
            first *= 1.0 - priors[k][LEAD]
        k = (k + 1) % len(priors)
    unsure = aware[p] * first + (1.0 - aware[p]) * naive
    return always * placed + (1.0 - always) * unsure


#: Per style, the chance of a jump to the bid no one still in can top, when that bid was more than two
#: above the high bid and the player's honest limit reached it (else it bid less); evidence in styles().
LOCK_JUMP = (0.05, 0.8, 0.3, 0.05)
SURE_LOCK = 0.95  # the chance that a lead start player whose honest estimate reaches 15 in round 1 bids it
LOCK_ANY = 0.5  # the chance that a player of style ``any`` bids what no one can top once its limit reaches it
# a style's shares when it is drawn (StyleDraw)
ONE_HOT = ((1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 1.0, 0.0), (0.0, 0.0, 0.0, 1.0))
LIK_FLOOR = 1.0  # the least spread the bid likelihood allows (a read spread of 0.5 is still an estimate)
#: Bluffing: a player may bid against its own information (``bench/expert_strength.py --bots
#: expert,style:bluff,... --paired heuristic`` measures it). A *bluff* is a bid made as if the player's own
#: face-down card were an average one of its set (the row as the others value it, R23) when the card lowers
#: the row by more than :data:`BLUFF_GAP` points and two or more others are still in, so that one of them is
#: left holding the row. Each player of unknown kind (a person, an unknown bot, or anyone at a table whose
#: kinds are hidden) starts with the chance :data:`BLUFF_PRIOR` (``expert:bluff=X``) of bluffing where it
#: can; the finished rounds move it (:func:`bluff_chances`); the kinds :data:`KIND_STYLES` knows and the
#: expert's own never bluff.
BLUFF_GAP = 2.0  # points: how far a card must lower the row for its owner to bluff with it
BLUFF_SD = 3.0  # points: the spread of a limit in the likelihood of past bids under bluffing and honesty alike
BLUFF_RANGE = (0.02, 0.95)  # the least and most chance of bluffing read from the game, for a player who may
HONEST_KINDS = frozenset({*KIND_STYLES, "expert"})
_ALL = (1 << 10) - 1
_SQRT2 = math.sqrt(2.0)


class RoundFacts:
    """Public facts of the current round, fixed for one decision (the search stops at the round's end);
    with ``styles=draw`` each iteration sets ``style`` and ``lockp`` to its world's drawn styles."""

    __slots__ = (
        "always",
        "aware",
        "bids",
        "bluff",
        "cache",
        "leaders",
        "lik",
        "lockp",
        "n",
        "offset",
        "own_bids",
        "owner",
        "spread",
        "style",
        "sure_lead",
        "unseen",
        "up_after",
    )

    def __init__(
        self,
        view: View,
        priors: Sequence[Sequence[float]] | None = None,
        aware: Sequence[float] | None = None,
        habits: Sequence[tuple[float, float] | None] | None = None,
        bids: list[list[PastBid]] | None = None,
        always: Sequence[float] | None = None,
    ) -> None:
        n = view.seats
        self.n = n
        self.up_after = UP_AFTER_PASSES[n]  # cards face up after k passes (R11, R14)
        # Cards each owner (index n: the dummy) was seen placing in finished rounds: all were turned
        # up (R14). A face-down card of this round is uniform over its owner's other cards (R23).
        seen = [0] * (n + 1)
        for r in view.rounds:
            for o, c in zip(r.owners, r.row, strict=True):
                seen[n if o is None else o] |= 1 << c
        self.unseen = [_ALL & ~m for m in seen]
        self.owner = _row_owners(n, view.start)
        # The ``leaders=first`` model (:data:`.spec.LEADERS`): per seat, the chance that it is aware; None: ``start``.
        self.aware = None if aware is None else tuple(aware)
        # Per seat, the chance that a ``lead`` player of unsure awareness is of ALWAYS awareness (seat_always).
        self.always = (0.0,) * n if always is None else tuple(always)
        # The seats that lead (a bit each; :func:`leaders_of`); drawn styles set them per world (StyleDraw).
        self.leaders = 1 << view.start
        self.cache: dict[tuple[int, ...], float] = {}  # (up, seat, *row) -> estimate; likelihoods too
        # read by styles() and bid_habits() (one walk of the finished rounds; ``bids``: that walk, made already)
        self.bids = past_bids(view) if bids is None else bids
        # per seat, the shares of the styles (RULE, LEAD, ANY, DUMP)
        self.style = styles(view, bids=self.bids, priors=priors, aware=aware, always=self.always)
        # Each seat's bid limit about the honest one: (offset, spread) in points (bid_habits), and the
        # spread the bid likelihood uses.
        self.offset, self.spread = bid_habits(view, self.bids, habits)
        self.lik = [max(x, LIK_FLOOR) for x in self.spread]
        # Per seat, the chance that it bids what no one still in can top once its limit reaches it (lock_bid).
        self.lockp = [st[LEAD] + LOCK_ANY * st[ANY] for st in self.style]
        # A start player of the lead style who led its cats as rich as anyone (round 1) bids what no one
        # can top once its honest estimate of the row reaches that bid, whatever its bid habits (honest_move;
        # styles=draw): search bots that led their +15 or +11 bid 15 at once (72 of 72 games, LEAD_WEIGHTS).
        self.sure_lead = False
        # The seats known to hold the random bot (seat_own_bids): drawn ``any``, they bid by its rule (honest_move).
        self.own_bids = 0
        # Per seat, the chance that it bluffs where it can (bluff_chances; the search sets it, default none).
        self.bluff = [0.0] * n

    def blend_habits(self, shares: Sequence[float], habits: tuple[float, float]) -> None:
        """Weigh ``habits`` (offset, spread) into each seat's bid habits with that seat's share in ``shares``
        (the chance that it bids by a rule whose habits these are: :func:`.kinds.read_kinds`)."""
        ko, ksd = habits
        for s, share in enumerate(shares):
            if share > 0.0:
                self.offset[s] = share * ko + (1.0 - share) * self.offset[s]
                self.spread[s] = share * ksd + (1.0 - share) * self.spread[s]
                self.lik[s] = max(self.spread[s], LIK_FLOOR)

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

    def public_estimate(self, row: Sequence[int], up: int) -> float:
        """The expected kept value of ``row`` with ``up`` cards face up for someone who holds none of its
        face-down cards: how the others value a player's card (R16, R23), the value a bluff bids on."""
        key = (up, -3, *row)
        hit = self.cache.get(key)
        if hit is None:
            owner = self.owner
            unseen = self.unseen
            masks = [1 << c if p < up else unseen[owner[p]] for p, c in enumerate(row)]
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
    view: View,
    prior: Sequence[float] = STYLE_PRIORS["read"],
    bids: list[list[PastBid]] | None = None,
    priors: Sequence[Sequence[float]] | None = None,
    aware: Sequence[float] | None = None,
    always: Sequence[float] | None = None,
) -> list[tuple[float, float, float, float]]:
    """Per seat, the posterior shares of the styles ``rule``, ``lead``, ``any`` and ``dump`` (:data:`RULE`).

    Every card placed in a finished round was turned up (R14), so each player's past placements at
    the positions that are face down while the auction runs (all but the first, R11) are public
    evidence; with the money each seat had at that round's start (R24: rebuilt from public payments,
    R5, R13, R17), each style gives them a likelihood (:func:`_intent_weights`; ``any``: uniform over
    the cards the player still held). The styles ``rule`` and ``lead`` place alike except where a start
    player is as rich as everyone (round 1, R5); they also differ in bidding: every past bid that could
    have been a jump to the bid no one still in could top (:func:`past_bids`) counts with
    :data:`LOCK_JUMP`. A style with prior share 0 (for that seat) stays out. Log-likelihoods trail the best
    style by at most :data:`INTENT_CLAMP`, so no style is ruled out for good. ``dump`` places by
    :data:`DUMP_WEIGHTS` in every round, so a player seen hiding its worst cards where the rule expects a
    buyer's good cat is read as ``dump``, and its face-down cards of later rounds are drawn as bad ones.

    Heuristic bots place by the rule; ``ismcts:strong``'s placements at those positions fit the rule's
    weights no better than uniform ones (1,152 placements in 48 self-play games,
    ``bench/placement_model.py``: log-likelihood per placement -1.601 and -1.600) but it leads round 1 with
    its best cats and bids 15 at once; random bots place anything. ``priors`` (per seat, all shares above
    0: :func:`seat_priors`) replaces ``prior`` seat by seat. With ``aware`` (the ``leaders=first`` model,
    :func:`seat_awareness`) a ``lead`` player who was not the start player may have led too, with the chance
    :func:`_lead_chance` gives it (with ``always``, per seat, its chance of :data:`ALWAYS` awareness:
    :func:`seat_always`); on the ``start`` model only the start player leads.
    """
    log = math.log
    seat_prior = priors if priors is not None else [prior] * view.seats
    actives = [[k for k in STYLE_KEYS if x[k] > 0] for x in seat_prior]
    logs = [[log(x[k]) if k in act else 0.0 for k in STYLE_KEYS] for x, act in zip(seat_prior, actives, strict=True)]
    for past in _past_rounds(view):
        r = past.result
        for pos, (o, c) in enumerate(zip(r.owners, r.row, strict=True)):
            if o is None or pos == 0:
                continue
            choices = [x for x in range(10) if not past.seen[o] >> x & 1]  # its hand and removed card (R7)
            if len(choices) > 1:
                for k in actives[o]:
                    if k == ANY:
                        logs[o][k] -= log(len(choices))
                    elif k == DUMP:
                        logs[o][k] += log(DUMP_WEIGHTS[c] / sum(DUMP_WEIGHTS[x] for x in choices))
                    elif k == RULE or aware is None or o == r.start:
                        w = _intent_weights(past.money, o, r.start, k == LEAD)
                        logs[o][k] += log(w[c] / sum(w[x] for x in choices))
                    else:  # it led, or dumped behind a leader (leaders=first)
                        q = _lead_chance(seat_prior, aware, past.money, r.start, o, always[o] if always else 0.0)
                        lw = _intent_weights(past.money, o, r.start, True, 1 << o)
                        fw = _intent_weights(past.money, o, r.start, True, 0)
                        like = q * lw[c] / sum(lw[x] for x in choices)
                        logs[o][k] += log(like + (1.0 - q) * fw[c] / sum(fw[x] for x in choices))
    if prior[LEAD] > 0:
        for s, acts in enumerate(past_bids(view) if bids is None else bids):
            for act in acts:
                if act.jump is not None:
                    for k in actives[s]:
                        logs[s][k] += log(LOCK_JUMP[k] if act.jump else 1.0 - LOCK_JUMP[k])
    out: list[tuple[float, float, float, float]] = []
    for ls, active in zip(logs, actives, strict=True):
        top = max(ls[k] for k in active)
        ws = [math.exp(max(ls[k] - top, -INTENT_CLAMP)) if k in active else 0.0 for k in STYLE_KEYS]
        total = sum(ws)
        out.append((ws[RULE] / total, ws[LEAD] / total, ws[ANY] / total, ws[DUMP] / total))
    return out


def dump_read(style: Sequence[Sequence[float]], seat: int) -> float:
    """The mean share of the ``dump`` style (:func:`styles`) over the seats other than ``seat``: how much the
    table is read as one that hides its worst cards first and so keeps its good ones for later (``fread``)."""
    others = [st[DUMP] for s, st in enumerate(style) if s != seat]
    return sum(others) / len(others) if others else 0.0


def _row_owners(n: int, start: int) -> list[int]:
    """Row position -> owner index (index n: the dummy; R10: with 3 seats the dummy's card leads)."""
    if n == 3:
        return [n] + [(start + k) % n for k in range(n)]
    return [(start + k) % n for k in range(n)]


class PastBid(NamedTuple):
    """One bid or pass of a finished round (:func:`past_bids`)."""

    limit: float  # the honest limit the player had (public once the round ended, R14)
    low: float  # its real limit was at least this (a bid) ...
    high: float  # ... or below this (a pass over a high bid of high - 1)
    jump: bool | None  # a jump to the bid no one still in could top (True), a smaller bid when its honest
    # limit reached that bid (False), or no such choice (None): the lock evidence of styles()
    bluff: float | None = None  # the limit of a bluff (BLUFF_PRIOR) where it could have bluffed, else None
    step: int = 0  # a bid: how far it raised the high bid (a pass: 0)
    room: int = 0  # the raises it could afford: its money less the high bid (R12)


def past_bids(view: View) -> list[list[PastBid]]:
    """Per seat, its bids and passes of the finished rounds (:class:`PastBid`).

    The honest limit is :func:`honest_limit` of the seat's expected kept value of the row from what it knew
    when it acted (R23: the face-up cards, its own card, every other card uniform over its owner's cards
    not yet seen); once a round ends every card of its row was turned up (R14), so this is public.
    Only decisions with a choice count (the seat could afford a raise, R12); R15's last choice is left out.
    """
    n = view.seats
    up_after = UP_AFTER_PASSES[n]
    out: list[list[PastBid]] = [[] for _ in range(n)]
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
                est = mask_row_value(masks)
                limit = honest_limit(est, payout, later, n - npass - 1)
                bluff = None
                if n - npass - 1 >= 2:  # a bluff leaves another player holding the row
                    public = mask_row_value([1 << c if p < up else unseen[owner[p]] for p, c in enumerate(r.row)])
                    if est < public - BLUFF_GAP:
                        bluff = honest_limit(public, payout, later, n - npass - 1)
                room = past.money[s] - high
                if is_pass:
                    out[s].append(PastBid(limit, -math.inf, high + 1.0, None, bluff, 0, room))
                else:
                    bid = int(text[4:])
                    top = lock_bid(past.money, passed, s)
                    chance = high + 2 < top <= past.money[s] and (bid >= top or limit >= top)
                    jump = bid >= top if chance else None
                    out[s].append(PastBid(limit, float(bid), math.inf, jump, bluff, bid - high, room))
            if is_pass:
                npass += 1
                passed |= 1 << s
            else:
                high = int(text[4:])
    return out


def censored(mu: float, sd: float, low: float, high: float) -> float:
    """The chance that a normal limit (mean ``mu``, spread ``sd``) lies in [``low``, ``high``)."""
    return (_phi((high - mu) / sd) if high < math.inf else 1.0) - (_phi((low - mu) / sd) if low > -math.inf else 0.0)


def seat_bluffs(players: Sequence[str | None] | None, n: int, prior: float = BLUFF_PRIOR) -> list[float]:
    """Per seat, the prior chance of bluffing (:data:`BLUFF_PRIOR`): ``prior`` for a person or a player of
    unknown kind (everyone when ``players`` is ``None``: a table not met, or its kinds hidden), 0 for the kinds
    :data:`HONEST_KINDS` (public at the table, R23)."""
    if players is None:
        return [prior] * n
    return [0.0 if kind_of(p) in HONEST_KINDS else prior for p in players]


def bluff_chances(bids: Sequence[Sequence[PastBid]], priors: Sequence[float]) -> list[float]:
    """Per seat, the chance that it bluffs where it can, read from its bids and passes in finished rounds
    (every card was turned up by then, R14, so where it could have bluffed is public): the posterior of
    "bluffs there" against "bids its honest limit", each limit with a spread of :data:`BLUFF_SD` points,
    within :data:`BLUFF_RANGE` (0 for a seat whose prior is 0)."""
    out = []
    log = math.log
    for acts, prior in zip(bids, priors, strict=True):
        if prior <= 0.0:
            out.append(0.0)
            continue
        ll = log(prior) - log(1.0 - prior)
        for act in acts:
            if act.bluff is not None:
                yes = censored(act.bluff, BLUFF_SD, act.low, act.high)
                no = censored(act.limit, BLUFF_SD, act.low, act.high)
                ll += log(max(yes, MIN_LIKELIHOOD)) - log(max(no, MIN_LIKELIHOOD))
        ll = max(-30.0, min(30.0, ll))
        out.append(min(max(1.0 / (1.0 + math.exp(-ll)), BLUFF_RANGE[0]), BLUFF_RANGE[1]))
    return out


def seat_habits(players: Sequence[str | None]) -> list[tuple[float, float] | None]:
    """Per seat, the bid habits :data:`KIND_HABITS` holds for the kind seated there (public, R23), or ``None``."""
    return [KIND_HABITS.get(kind_of(p)) for p in players]


def seat_own_bids(players: Sequence[str | None]) -> int:
    """The seats (a bit each) that hold a kind of :data:`OWN_BIDS_KINDS` (public, R23)."""
    return sum(1 << s for s, p in enumerate(players) if kind_of(p) in OWN_BIDS_KINDS)


def bid_habits(
    view: View,
    bids: list[list[PastBid]] | None = None,
    habits: Sequence[tuple[float, float] | None] | None = None,
) -> tuple[list[float], list[float]]:
    """Per seat, (offset, spread) in points of its bid limit about the honest limit, read from its past
    bids and passes (:func:`past_bids`): the posterior means over :data:`HABIT_OFFSETS` x
    :data:`HABIT_SPREADS` under a normal model of the real limit, each action censored (a bid says the
    limit reached it, a pass that it fell short of the next raise).

    ``bench/bid_model.py`` measured the spread: heuristic bots follow the honest rule (spread 0.5),
    ``ismcts:strong`` bids about it with a spread near 6, ``ismcts:normal`` among heuristic bots about
    7 points above it, random bots anywhere (spread 20). With no evidence every seat gets the prior's
    means. ``habits`` (per seat, :func:`seat_habits`) centres a seat's prior on its kind's measured habits.
    """
    offsets: list[float] = []
    spreads: list[float] = []
    for s, acts in enumerate(past_bids(view) if bids is None else bids):
        centre = habits[s] if habits is not None else None
        grid_s: Sequence[tuple[float, float, float]] = HABIT_GRID
        if centre is not None:
            ko, ksd = centre
            grid_s = [
                (o, sd, -0.5 * ((o - ko) / KIND_HABIT_SD) ** 2 - 0.5 * (math.log(sd / ksd) / KIND_HABIT_LOG_SD) ** 2)
                for o, sd, _ in HABIT_GRID
            ]
        logs = habit_logs(acts, grid_s)
        top = max(logs)
        ws = [math.exp(x - top) for x in logs]
        total = sum(ws)
        offsets.append(sum(w * o for w, (o, _, _) in zip(ws, grid_s, strict=True)) / total)
        spreads.append(sum(w * sd for w, (_, sd, _) in zip(ws, grid_s, strict=True)) / total)
    return offsets, spreads


def habit_logs(acts: Sequence[PastBid], grid: Sequence[tuple[float, float, float]]) -> list[float]:
    """Per grid point (offset, spread, log prior weight), the log prior weight plus the log-likelihood of
    ``acts`` (a seat's bids and passes, :func:`past_bids`) with its limit that far from the honest one."""
    logs = []
    for o, sd, prior in grid:
        ll = prior
        for act in acts:
            ll += math.log(max(censored(act.limit + o, sd, act.low, act.high), MIN_LIKELIHOOD))
        logs.append(ll)
    return logs


def _place(g: Game, table: RoundFacts, rand: Callable[[], float]) -> Move:
    """A placement for the seat to move, in a style drawn from its shares (:func:`styles`)."""
    legal = g.legal_moves()
    s = g.to_move
    assert s is not None
    style = table.style[s]
    u = rand()
    w: Sequence[float]
    if u >= 1.0 - style[DUMP]:
        w = DUMP_WEIGHTS
    elif u >= style[ANY]:
        w = _intent_weights(g.money, s, g.start_player, u < style[ANY] + style[LEAD], table.leaders)
    else:
        return legal[int(rand() * len(legal))]
    x = rand() * sum(w[m.arg] for m in legal)
    for m in legal:
        x -= w[m.arg]
        if x <= 0:
            return m
    return legal[-1]


def _intent_weights(
    money: Sequence[int], p: int, start: int, lead: bool, leaders: int | None = None
) -> tuple[float, ...]:
    """Seat ``p``'s placement weights under the intent model (:func:`ismcts.placement_weights`: a likely
    buyer favours good cats, a likely seller dumps), and with ``lead`` the round-1 case: when the start
    player is as rich as anyone, a leader can win the row outright by bidding first (:func:`lock_bid`, R12),
    so the ``leaders`` (a bit per seat, :func:`leaders_of`; default: the start player) lead with their
    best cats (:data:`LEAD_WEIGHTS`) and everyone else places as a seller."""
    if lead and money[start] >= max(m for o, m in enumerate(money) if o != start):
        return LEAD_WEIGHTS if (1 << start if leaders is None else leaders) >> p & 1 else SELLER_WEIGHTS
    return placement_weights(tuple(money), p)


def passed_mask(g: Game | View) -> int:
    """The seats that passed this round (R13, public: R23), a bit per seat, as :func:`lock_bid` takes them."""
    return sum(1 << s for s, out in enumerate(g.passed) if out)


def lock_bid(money: Sequence[int], passed: int, s: int) -> int:
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


def honest_limit(est: float, payout: int, later: int, others_in: int) -> float:
    """The highest total an honest bidder pays (the heuristic's rule, :func:`heuristic.bid_limit`)."""
    limit = est - payout - MARGIN
    if payout and others_in >= 2:
        limit += OUTLAST_SHARE * (later - payout)
    return limit


def honest_move(g: Game, table: RoundFacts, noise: Sequence[float], rand: Callable[[], float]) -> Move:
    """The honest move of the seat to move in ``g`` (see the module docstring).

    The game is read through its public queries (:meth:`Game.legal_moves`, :attr:`Game.to_move`,
    :attr:`Game.phase`, :attr:`Game.row_indexes`, :attr:`Game.passed`, :attr:`Game.next_payout`, ...).
    """
    legal = g.legal_moves()
    if len(legal) == 1:
        return legal[0]
    if legal[0].kind == PLACE:
        return _place(g, table, rand)
    s = g.to_move
    assert s is not None
    last_choice = g.phase == "last choice"
    if table.own_bids >> s & 1 and (table.style[s][ANY] >= 1.0 or rand() < table.style[s][ANY]):
        return auction_move(legal, last_choice, g.high_bid, rand)  # the random bot's own rule
    row = g.row_indexes
    if last_choice:  # R15: the whole row is face up
        est = table.estimate(row, len(row), s) + noise[s]
        return legal[0] if est > 1 else PASS_MOVE
    passed = g.passed
    npass = sum(passed)
    cards = g.mouse_cards
    n = len(passed)
    up = table.up_after[npass]
    est = table.estimate(row, up, s) + noise[s]
    chance = table.bluff[s]
    if chance > 0.0 and n - npass >= 3:  # two or more others still in: it may bid as if its card were average
        public = table.public_estimate(row, up)
        if est - noise[s] < public - BLUFF_GAP and rand() < chance:
            est = public + noise[s]
    payout = g.next_payout  # R13, R18
    limit = honest_limit(est, payout, cards[min(npass + 1, len(cards) - 1)], n - npass - 1)
    high = g.high_bid
    start = g.start_player
    if (
        table.sure_lead
        and table.leaders >> s & 1
        and table.lockp[s] >= 1.0
        and legal[0].kind == BID
        and (s != start or (high == 0 and g.money[s] >= max(g.money)))
    ):
        top = lock_bid(g.money, passed_mask(g), s)
        if est - noise[s] >= top and high < top <= legal[-2].arg:
            return BIDS[top]  # R5, R12: it led its best cats to buy the row, and no one can top this
    if legal[0].kind == BID and high + 1 <= limit:
        lockp = table.lockp[s]
        top = lock_bid(g.money, passed_mask(g), s) if lockp >= 1.0 or (lockp > 0.0 and rand() < lockp) else 0
        if high < top <= limit and top <= legal[-2].arg:
            return BIDS[top]  # R12: no one still in can top this bid, so it wins the row
        step = 1 if rand() < 0.75 else 2
        return BIDS[int(min(high + step, max(high + 1, min(limit, legal[-2].arg))))]
    return PASS_MOVE


@dataclass(frozen=True)
class Observed:
    """One opponent action of the current auction, for the bid likelihood."""

    seat: int
    up: int  # cards face up when it acted
    low: float  # the bidder's limit had to be >= this (a bid) ...
    high: float | None  # ... or below this (a pass); None for a bid
    payout: int
    later: int
    others: int
    top: float  # a bid that could have been a jump to the bid no one still in could top: that bid; else inf
    opening: bool = False  # its first bid of a round whose start player is as rich as anyone (a leader's lock,
    # RoundFacts.sure_lead: round 1, R5)


def observed_actions(view: View) -> list[Observed]:
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
    up_after = UP_AFTER_PASSES[n]
    money = public_tables(view)[1]  # at the round's start; a seat's money changes only once it passed (R13)
    out: list[Observed] = []
    high = 0
    npass = 0
    passed = 0
    acted = 0  # a bit per seat that has bid or passed this round
    rich = money[view.start] >= max(money)  # R5, R12: the start player as rich as anyone (a leader may lock)
    for s, text in hist[i:]:
        payout = cards[npass] if filled and npass < len(cards) else 0
        later = cards[min(npass + 1, len(cards) - 1)]
        up = up_after[npass]
        if s != view.seat:
            if text == "pass":
                out.append(Observed(s, up, -math.inf, float(high + 1), payout, later, n - npass - 1, math.inf))
            else:
                top = lock_bid(money, passed, s)
                chance = high + 2 < top <= money[s]  # as in past_bids: a jump was possible
                # its first bid as rich as anyone, the start player too (R5 in round 1, R12)
                opening = rich and not acted >> s & 1 and money[s] >= max(money)
                bid_ = float(int(text[4:]))
                out.append(
                    Observed(s, up, bid_, None, payout, later, n - npass - 1, top if chance else math.inf, opening)
                )
        acted |= 1 << s
        if text == "pass":
            npass += 1
            passed |= 1 << s
        else:
            high = int(text[4:])
    return out


def likelihood(
    obs: Sequence[Observed],
    table: RoundFacts,
    row: Sequence[int],
    drawn: Sequence[int] | None = None,
    leaders: int | None = None,
) -> float:
    """How likely the opponents' observed actions are in a world with this row, under the honest model
    shifted and spread by each player's bid habits.

    With ``drawn`` (each seat's style drawn for the world), a bid that could have been a jump to the bid
    no one still in can top counts too, with the style's chance of that jump once the limit reaches it
    (:data:`LOCK_JUMP`): a jump says the limit reached it, a smaller bid that the limit fell short of it
    or the player did not jump. A leader's opening (``leaders``: a bit per seat, default the start player;
    :func:`leaders_of`) follows its model (``sure_lead``): it jumps when its honest estimate reaches the bid
    (with chance :data:`SURE_LOCK`), else it bids as usual.
    """
    lead_by = table.leaders if leaders is None else leaders
    like = 1.0
    for o in obs:
        est = table.estimate(row, o.up, o.seat)
        limit = honest_limit(est, o.payout, o.later, o.others) + table.offset[o.seat]
        sd = table.lik[o.seat]
        if drawn is not None and o.top < math.inf:
            k = drawn[o.seat]
            q = LOCK_JUMP[k]
            if o.opening and k == LEAD and table.sure_lead and lead_by >> o.seat & 1 and est >= o.top:
                p = SURE_LOCK if o.low >= o.top else 1.0 - SURE_LOCK
            elif o.low >= o.top:
                p = censored(limit, sd, o.low, math.inf) * q
            else:
                p = censored(limit, sd, o.low, o.top) + censored(limit, sd, o.top, math.inf) * (1.0 - q)
        else:  # a bid: its limit was at least the bid; a pass: below the next raise
            p = censored(limit, sd, o.low, math.inf if o.high is None else o.high)
        chance = table.bluff[o.seat]
        if chance > 0.0 and o.others >= 2:  # it may have bid as if its card were an average one (BLUFF_PRIOR)
            public = table.public_estimate(row, o.up)
            if est < public - BLUFF_GAP:
                bluff = honest_limit(public, o.payout, o.later, o.others) + table.offset[o.seat]
                p = (1.0 - chance) * p + chance * censored(bluff, sd, o.low, math.inf if o.high is None else o.high)
        like *= max(p, MIN_LIKELIHOOD)
    return like


def mixed_weights(
    style: Sequence[float], money: Sequence[int], p: int, start: int, pool: Sequence[int], leaders: int | None = None
) -> tuple[float, ...]:
    """Per card, the chance that seat ``p``, holding ``pool``, placed it: its styles mixed by their shares
    (``leaders``: as :func:`_intent_weights`)."""
    rule = _intent_weights(money, p, start, False)
    lead = _intent_weights(money, p, start, True, leaders)
    r = style[RULE] / sum(rule[c] for c in pool)
    q = style[LEAD] / sum(lead[c] for c in pool)
    u = style[ANY] / len(pool)
    d = style[DUMP] / sum(DUMP_WEIGHTS[c] for c in pool)
    return tuple(r * rule[c] + q * lead[c] + u + d * DUMP_WEIGHTS[c] if c in pool else 0.0 for c in range(10))
