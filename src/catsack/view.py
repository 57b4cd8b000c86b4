"""Per-seat views (R23, R24): exactly what one seat, or a spectator, may know.

Every adapter (terminal, server, bots, environments) works from a view and
never from the game itself. A view is a frozen value: two views are equal
exactly when they show the same information, which is what the leak tests
compare after re-dealing everything hidden from the viewer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from operator import getitem
from typing import TYPE_CHECKING, Any

from catsack.cards import CARDS, POINTS, Card
from catsack.constants import CARD_MICE, PASSED_FLAGS, UP_AFTER_PASSES
from catsack.game import BIDDING, OVER, PHASE_NAMES, PLACING, ROUNDS
from catsack.moves import Move

if TYPE_CHECKING:
    from catsack.game import Game, RoundResult

__all__ = ["HIDDEN_PLACE", "SEAT_FIELDS", "VIEW_KEYS", "RowCard", "View", "make_view", "won_piles"]

HIDDEN_PLACE = "place ?"  # a placement whose card the viewer may not see

#: The fields of a view (and keys of :meth:`View.to_dict`), in that order, that depend on who looks
#: (R23): the seat, its hand and removed card, the row with its own face-down card, its money (R24),
#: the history with its own placement, and its legal moves. Every other field is the same in every
#: view of one game state, a spectator's included: a server encodes those once for all receivers.
SEAT_FIELDS = ("seat", "hand", "removed", "row", "money", "history", "legal")


@dataclass(frozen=True, slots=True)
class RowCard:
    """One row card as the viewer sees it; ``card`` is ``None`` while hidden from them."""

    owner: int | None  # None: the dummy's card (3 seats)
    card: Card | None
    face_up: bool


@dataclass(frozen=True)
class View:
    """Everything R23 lets ``seat`` know (``seat is None``: a spectator).

    ``money`` shows ``None`` for other seats unless the R24 table option
    ``money_visible`` is on. ``history`` lists ``(seat, move text)`` for every
    move, with ``"place ?"`` where the viewer may not see the card.
    """

    seat: int | None
    seats: int
    round: int
    phase: str
    to_move: int | None
    start: int
    first_start: int
    hand: tuple[Card, ...]
    removed: Card | None
    row: tuple[RowCard, ...]
    mouse_cards: tuple[int, ...]
    mouse_card_mice: tuple[int, ...]
    next_payout: int
    bids: tuple[int, ...]
    high_bid: int
    high_bidder: int | None
    passed: tuple[bool, ...]
    hand_sizes: tuple[int, ...]
    won: tuple[tuple[Card, ...], ...]
    cat_points: tuple[int, ...]
    bank: int
    money: tuple[int | None, ...]
    money_visible: bool
    rounds: tuple[RoundResult, ...]
    history: tuple[tuple[int, str], ...]
    legal: tuple[Move, ...]
    scores: tuple[int, ...] | None  # only once the game is over
    winners: tuple[int, ...]

    if not TYPE_CHECKING:  # type checkers see the fields above, not this fallback

        def __getattr__(self, name: str) -> Any:
            # make_view defers a few costly fields (history, won, cat_points) to their first
            # use; they are computed from public facts it kept, then stored like the others.
            if name not in _DEFERRED_FIELDS:
                raise AttributeError(f"'View' object has no attribute {name!r}")
            deferred = self.__dict__.get("_deferred")
            if deferred is None and name == "history":
                raise AttributeError(f"'View' object has no attribute {name!r}")
            _fill_deferred(self, name, deferred)
            return self.__dict__[name]

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def my_money(self) -> int | None:
        return None if self.seat is None else self.money[self.seat]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict using the canonical text tokens, its keys in :data:`VIEW_KEYS` order:
        :meth:`shared_dict` and :meth:`seat_dict` together."""
        shared = self.shared_dict()
        own = self.seat_dict()
        return {key: own[key] if key in own else shared[key] for key in VIEW_KEYS}

    def shared_dict(self, *, rounds: bool = True) -> dict[str, Any]:
        """The entries of :meth:`to_dict` outside :data:`SEAT_FIELDS`, in its order and form: the same
        in every view of one game state. ``rounds=False`` leaves out the finished rounds, which change
        only when a round ends (a server encodes them once per round)."""
        out: dict[str, Any] = {
            "seats": self.seats,
            "round": self.round,
            "phase": self.phase,
            "to_move": self.to_move,
            "start": self.start,
            "first_start": self.first_start,
            "mouse_cards": list(self.mouse_cards),
            "mouse_card_mice": list(self.mouse_card_mice),
            "next_payout": self.next_payout,
            "bids": list(self.bids),
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "passed": list(self.passed),
            "hand_sizes": list(self.hand_sizes),
            "won": [[c.token for c in w] for w in self.won],
            "cat_points": list(self.cat_points),
            "bank": self.bank,
            "money_visible": self.money_visible,
        }
        if rounds:
            out["rounds"] = [round_to_dict(r) for r in self.rounds]
        out["scores"] = None if self.scores is None else list(self.scores)
        out["winners"] = list(self.winners)
        return out

    def seat_dict(self, *, history: bool = True) -> dict[str, Any]:
        """The :data:`SEAT_FIELDS` entries of :meth:`to_dict`, in its order and form: what this view
        holds that another viewer's view of the same game state may not. ``history=False`` leaves out
        the history (see :meth:`history_split`)."""
        out: dict[str, Any] = {
            "seat": self.seat,
            "hand": [c.token for c in self.hand],
            "removed": _token(self.removed),
            "row": [{"owner": r.owner, "card": _token(r.card), "face_up": r.face_up} for r in self.row],
            "money": list(self.money),
        }
        if history:
            out["history"] = [[s, t] for s, t in self.history]
        out["legal"] = [m.text for m in self.legal]
        return out

    def history_split(self) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]:
        """:attr:`history` in two: the finished rounds' moves, and the current round's as this view
        shows them. The first part is public (R14: every card placed in a finished round was turned
        up) and, in views made by :func:`make_view`, the same object in every view of a game until a
        round ends; a view built otherwise has it empty."""
        fields = self.__dict__
        deferred = fields.get("_deferred")
        if deferred is not None:
            done, current = deferred
            return done, _current_history(self.seats, current)
        settled = fields.get("_settled", ())
        return settled, self.history[len(settled) :]


#: The keys of :meth:`View.to_dict`, in order: the view's fields.
VIEW_KEYS = tuple(f.name for f in dataclasses.fields(View))


def _token(card: Card | None) -> str | None:
    return None if card is None else card.token


def round_to_dict(r: RoundResult) -> dict[str, Any]:
    """The JSON form of a finished round (also used by ``catsack replay --json``)."""
    return {
        "number": r.number,
        "start": r.start,
        "row": [c.token for c in r.row],
        "owners": list(r.owners),
        "buyer": r.buyer,
        "price": r.price,
        "chased": [c.token for c in r.chased],
        "won": [c.token for c in r.won],
        "payouts": [[s, a] for s, a in r.payouts],
        "void": r.void,
        "refilled": r.refilled,
    }


# Row cards are small immutable values: one shared instance per (owner, card, face up).
_ROW_CARDS: dict[tuple[int | None, Card | None, bool], RowCard] = {
    (owner, card, up): RowCard(owner, card, up)
    for owner in (None, 0, 1, 2, 3, 4)
    for card in (None, *CARDS)
    for up in (False, True)
}
# Hands in canonical card order, for every bit mask of the ten card kinds.
_HANDS: tuple[tuple[Card, ...], ...] = tuple(tuple(CARDS[c] for c in range(10) if m >> c & 1) for m in range(1 << 10))
# Won piles and cat points depend on the finished rounds alone (R17, R21), which change
# only when a round ends; they are derived once per rounds tuple (public information).
_WON_CACHE: dict[int, tuple[tuple[RoundResult, ...], tuple[tuple[Card, ...], ...], tuple[int, ...]]] = {}
_WON_CACHE_SIZE = 64


def won_piles(rounds: tuple[RoundResult, ...], seats: int) -> tuple[tuple[tuple[Card, ...], ...], tuple[int, ...]]:
    """Every seat's won pile (R17) and cat points (R21), read from the finished rounds."""
    hit = _WON_CACHE.get(id(rounds))
    if hit is not None and hit[0] is rounds and len(hit[1]) == seats:
        return hit[1], hit[2]
    piles: list[tuple[Card, ...]] = [()] * seats
    for r in rounds:
        if r.buyer is not None:
            piles[r.buyer] += r.won
    won = tuple(piles)
    points = tuple(sum(POINTS[c] for c in w) for w in won)
    if len(_WON_CACHE) >= _WON_CACHE_SIZE:
        _WON_CACHE.clear()
    _WON_CACHE[id(rounds)] = (rounds, won, points)  # the entry keeps ``rounds`` alive: its id stays unique
    return won, points


# How the viewer sees each position of the row, which depends on public facts only: the
# seats, the start player, the row's length, how many cards are face up and who looks
# (R10, R11, R14, R23). Per position, a table from the card to the RowCard shown.
_RowPlan = tuple[tuple[RowCard, ...], ...]
_ROW_PLANS: dict[tuple[int, int, int, int, int], _RowPlan] = {}


def _row_plan(n: int, start: int, length: int, up: int, me: int) -> _RowPlan:
    key = (n, start, length, up, me)
    plan = _ROW_PLANS.get(key)
    if plan is None:
        dummy = 1 if n == 3 else 0  # R10: with 3 seats the dummy's card leads the row
        positions = []
        for i in range(length):
            owner = None if i < dummy else (start + i - dummy) % n
            shown = i < up or owner == me
            positions.append(tuple(_ROW_CARDS[owner, c if shown else None, i < up] for c in CARDS))
        plan = _ROW_PLANS[key] = tuple(positions)
    return plan


_DEFERRED_FIELDS = frozenset({"history", "won", "cat_points"})


def _fill_deferred(view: View, name: str, deferred: tuple[Any, ...] | None) -> None:
    """Write the deferred field ``name`` (and its sibling) into ``view``; all public (see make_view)."""
    fields = view.__dict__
    if name == "history":
        assert deferred is not None
        done, current = deferred
        fields["history"] = done + _current_history(view.seats, current) if current else done
        fields["_settled"] = done  # for history_split
        del fields["_deferred"]
    else:  # won piles and cat points: from the finished rounds (R17, R21)
        fields["won"], fields["cat_points"] = won_piles(view.rounds, view.seats)


def _current_history(n: int, current: tuple[Any, ...]) -> tuple[tuple[int, str], ...]:
    """The current round's moves as the viewer sees them, from what make_view kept (``()``: none yet)."""
    if not current:
        return ()
    start, placed, shown, mine, own, bidders, auction = current
    cur: list[tuple[int, str]] = [((start + k) % n, m.text) for k, m in enumerate(shown)]
    for k in range(len(shown), placed):
        cur.append(((start + k) % n, own.text if k == mine else HIDDEN_PLACE))
    cur += zip(bidders, [m.text for m in auction], strict=True)  # R12, R13: bids and passes are public
    return tuple(cur)


_NO_BIDS = {n: (0,) * n for n in (3, 4, 5)}  # before the auction (R10, R12)
_new = object.__new__
_set = object.__setattr__


def make_view(game: Game, seat: int | None, *, show_money: bool = False) -> View:
    """Build ``seat``'s view of ``game`` (``None``: the public view).

    This runs once per decision of every bot and adapter, so it shares what
    it can: the finished rounds and their history are cached by the game,
    won piles per finished-rounds tuple, and row cards and hands are
    precomputed values. It reads the game's fields directly (this module is
    part of the rules core) rather than through its properties, which would
    each rebuild a tuple. Nothing in the view refers back to the game.
    """
    n = game._n
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise ValueError(f"no seat {seat!r} in a {n}-seat game")
    ph = game._phase
    over = ph == OVER
    passed = game._passed
    cards = game._row
    if ph == PLACING:
        up = 0
    elif ph == BIDDING:
        up = UP_AFTER_PASSES[n][passed.bit_count()]  # R11, R14
    else:
        up = len(cards)
    me = -1 if seat is None else seat  # the dummy's card (owner None) is never the viewer's own
    start = game._start
    plan = _ROW_PLANS.get((n, start, len(cards), up, me)) or _row_plan(n, start, len(cards), up, me)
    row = tuple(map(getitem, plan, cards))
    # History: placements of finished rounds were all turned up (R14); in the
    # current round a placement shows only when face up or the viewer's own. The
    # view keeps only those moves (and the public auction with its bidders) and
    # writes the history when it is first read.
    moves = game._moves
    rply = game._rply
    rounds, done = game._finished()
    end = len(moves)
    current: tuple[Any, ...] = ()
    bids = _NO_BIDS[n]
    if rply < end:
        placed = min(end - rply, n)  # R10: a round opens with one placement per seat, clockwise
        shown = max(0, min(up - (1 if n == 3 else 0), placed))  # placements of this round now face up
        mine = (me - start) % n if me >= 0 else n  # the viewer's placement in this round
        own = moves[rply + mine] if shown <= mine < placed else None
        first = rply + n
        if first < end:  # the auction has begun: whose turn each bid or pass was comes from the game (R12)
            if len(game._seats) < end:
                game._fill_seats()
            bidders, auction = game._seats[first:end], moves[first:end]
            standing = [0] * n  # Game.bids, read from the same slices
            for b, m in zip(bidders, auction, strict=True):
                standing[b] = m.arg  # R12: a bid names the total; R13: a pass takes it back
            bids = tuple(standing)
        else:
            bidders, auction = [], []
        current = (start, placed, moves[rply : rply + shown], mine, own, bidders, auction)
    hands = game._hands
    money: tuple[int | None, ...] = tuple(game._money)
    visible = show_money or over
    if not visible:
        hidden: list[int | None] = [None] * n
        if seat is not None:
            hidden[seat] = money[seat]
        money = tuple(hidden)
    to_move = None if over else game._to_move
    hseat = game._hseat
    filled = game._filled
    view = _new(View)
    # A frozen value: its fields are written once, here, all at the same time (as __init__ would).
    _set(
        view,
        "__dict__",
        {
            "seat": seat,
            "seats": n,
            "round": game._round + 1 if game._round < ROUNDS else ROUNDS,
            "phase": PHASE_NAMES[ph],
            "to_move": to_move,
            "start": start,
            "first_start": game._first_start,
            "hand": () if seat is None else _HANDS[hands[seat]],
            "removed": None if seat is None else CARDS[game._removed[seat]],
            "row": row,
            "mouse_cards": game._cards,
            "mouse_card_mice": CARD_MICE[n][filled and not over][passed],  # R13, R18
            "next_payout": game._cards[passed.bit_count()] if filled and ph == BIDDING else 0,
            "bids": bids,
            "high_bid": game._high,
            "high_bidder": None if hseat < 0 else hseat,
            "passed": PASSED_FLAGS[n][passed],
            "hand_sizes": tuple(map(int.bit_count, hands)),
            "bank": game._bank,
            "money": money,
            "money_visible": visible,
            "rounds": rounds,
            "legal": game._legal if (seat is not None and to_move == seat) else (),
            "scores": game.scores() if over else None,
            "winners": game.winners() if over else (),
            "_deferred": (done, current),
        },
    )
    return view
