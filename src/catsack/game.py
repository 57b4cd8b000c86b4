"""The rules engine: a mutable game with checked and unchecked moves, undo and clone.

Everything follows ``docs/rules.md``; rule numbers are cited where a rule is
implemented. The representation is chosen for speed (search bots and
simulations play millions of moves): hands are bit masks over the ten card
kinds, the seat order is a precomputed table, and legal move lists are shared
precomputed tuples. Nothing here prints, logs or touches global random state.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Final

from catsack.cards import CARDS, POINTS, Card
from catsack.constants import CARD_MICE, PASSED_FLAGS, ROUNDS, UP_AFTER_PASSES
from catsack.errors import IllegalMoveError
from catsack.events import (
    BidMade,
    Bought,
    DogChase,
    DogsCancel,
    Event,
    GameOver,
    LastChoice,
    Passed,
    Placed,
    Refill,
    Revealed,
    RoundStarted,
    RoundVoid,
)
from catsack.moves import BID, BIDS, PASS, PASS_MOVE, PLACE, PLACES, Move, parse_move
from catsack.setup import BANK_START, MOUSE_CARDS, START_MONEY, TOTAL_MONEY, Setup, check_seats, deal_ints

if TYPE_CHECKING:
    from catsack.view import View

__all__ = ["ROUNDS", "Game", "Phase", "RoundResult"]

# Phases. Plain ints on the hot path; PHASE_NAMES gives their text.
PLACING: Final = 0
BIDDING: Final = 1
LAST_CHOICE: Final = 2  # R15: nobody bid, the last player may buy for 1 or pass
OVER: Final = 3


class Phase:
    """Names of the phases as reported by :attr:`Game.phase`."""

    PLACING: Final = "placement"
    BIDDING: Final = "bidding"
    LAST_CHOICE: Final = "last choice"
    OVER: Final = "over"


PHASE_NAMES: Final = (Phase.PLACING, Phase.BIDDING, Phase.LAST_CHOICE, Phase.OVER)

_LARGE: Final = int(Card.LARGE_DOG)
_SMALL: Final = int(Card.SMALL_DOG)
# R16: the cat each lone dog chases, in order of preference.
_LARGE_DOG_PREY: Final = (0, 1, 2, 3, 4, 5, 6)  # +15 first; no positive cat: -5 before -8
_SMALL_DOG_PREY: Final = (6, 5, 4, 3, 2, 1, 0)  # -8 first; no negative cat: +3 first

_ONLY_PASS: Final = (PASS_MOVE,)
_LAST_CHOICE_MOVES: Final = (BIDS[1], PASS_MOVE)
_MAX_MONEY: Final = max(TOTAL_MONEY.values())

# Legal placements for every hand mask (R10), in canonical card order.
_PLACE_SETS: Final = tuple(tuple(PLACES[c] for c in range(10) if mask >> c & 1) for mask in range(1 << 10))
# _DROP[mask][card]: the hand left after placing ``card`` from hand ``mask``, -1 if it is not there.
# A table lookup is cheaper than the shifts and masks, which CPython does not specialise.
_MASKS: Final = tuple(range(1 << 10))  # one int object per mask, shared by the table
_DROP: Final = tuple(tuple(_MASKS[mask ^ 1 << c] if mask >> c & 1 else -1 for c in range(10)) for mask in _MASKS)

# _BID_TABLE[money][lowest allowed bid]: the bids from there up to money, then pass (R12).
_BID_TABLE: list[tuple[tuple[Move, ...], ...] | None] = [None] * (_MAX_MONEY + 1)


def _bid_row(money: int) -> tuple[tuple[Move, ...], ...]:
    row = tuple(BIDS[max(lo, 1) : money + 1] + _ONLY_PASS for lo in range(money + 1))
    row += (_ONLY_PASS,) * (_MAX_MONEY + 2 - money)
    _BID_TABLE[money] = row
    return row


def _next_table(n: int) -> tuple[tuple[int, ...], ...]:
    """For each mask of passed seats: the next seat still in after each seat (R12).

    Where only one seat is still in, every entry is ``~last`` (negative), so
    the pass path learns "the auction is over" (R15) from the same lookup.
    """
    nxt = []
    for passed in range(1 << n):
        ins = [s for s in range(n) if not passed >> s & 1]
        if len(ins) <= 1:
            nxt.append((~ins[0] if ins else -1,) * n)
            continue
        row = []
        for s in range(n):
            t = (s + 1) % n
            while passed >> t & 1:
                t = (t + 1) % n
            row.append(t)
        nxt.append(tuple(row))
    return tuple(nxt)


def _pay_table(cards: tuple[int, ...], n: int) -> tuple[int, ...]:
    """Mice paid to the next passer for each mask of passed seats (R13: lowest card first)."""
    return tuple(cards[mask.bit_count()] if mask.bit_count() < len(cards) else 0 for mask in range(1 << n))


_NEXT: Final = {n: _next_table(n) for n in (3, 4, 5)}
# _AFTER_PASS[n][passed][s]: the passed mask once seat s passes too, and the next seat's
# entry of _NEXT for that mask (negative when the auction is over). One lookup for the pass path.
_AFTER_PASS: Final = {
    n: tuple(tuple((p | 1 << s, _NEXT[n][p | 1 << s][s]) for s in range(n)) for p in range(1 << n)) for n in (3, 4, 5)
}
# _PAYS[n][filled]: the pass payouts by passed mask, with the mouse cards filled or empty (R13, R18).
_PAYS: Final = {n: (tuple([0] * (1 << n)), _pay_table(MOUSE_CARDS[n], n)) for n in (3, 4, 5)}
_FULL_HAND: Final = (1 << 10) - 1
_HAND_WITHOUT: Final = tuple(_FULL_HAND ^ 1 << c for c in range(10))  # R7: 9 cards each


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The public outcome of one finished round (R15–R19)."""

    number: int  # 1..9
    start: int
    row: tuple[Card, ...]
    owners: tuple[int | None, ...]
    buyer: int | None
    price: int | None
    chased: tuple[Card, ...]  # the dogs, then the cat they chased, if any (R16)
    won: tuple[Card, ...]  # what the buyer took into the won pile (R17)
    payouts: tuple[tuple[int, int], ...]  # (seat, mice) in pass order (R13)
    refilled: bool  # whether the mouse cards hold mice for the next round (R18)

    @property
    def void(self) -> bool:
        return self.buyer is None


# Rows with a dog -> the cards the buyer keeps (R16), memoised: a few thousand rows
# occur with 3-4 seats; the cap bounds the memory (about 1.5 MB) with 5 seats.
_KEPT: dict[tuple[int, ...], tuple[int, ...]] = {}
_KEPT_MAX: Final = 8192


def _kept_after_dogs(row: list[int]) -> tuple[int, ...]:
    """The cards of a row with a dog that stay after R16, in row order (hot path of resolve_dogs).

    Card indices put the large dog's prey first (+15 … +3, then -5 before -8) and
    the small dog's last (-8, -5, then +3 … +15); rabbits (7) are never chased.
    """
    kept = row[:]
    if _LARGE in kept:
        kept.remove(_LARGE)
        if _LARGE in kept or _SMALL in kept:  # two or more dogs cancel out
            kept = [c for c in row if c < _LARGE]
        else:
            prey = min(kept)  # the row keeps at least two other cards (R10: 3+ seats)
            if prey < 7:
                kept.remove(prey)
    else:
        kept.remove(_SMALL)
        if _SMALL in kept:  # two small dogs cancel out
            kept = [c for c in row if c < _LARGE]
        else:
            prey = -1
            for c in kept:
                if prey < c < 7:
                    prey = c
            if prey >= 0:
                kept.remove(prey)
    out = tuple(kept)
    if len(_KEPT) < _KEPT_MAX:
        _KEPT[tuple(row)] = out
    return out


@cache
def _row_owners(n: int, start: int, length: int) -> tuple[int | None, ...]:
    """Who placed each of a row's first ``length`` cards (R10); ``None`` for the dummy's card."""
    if n == 3:
        if not length:
            return ()
        return (None, *((start + i) % n for i in range(length - 1)))
    return tuple((start + i) % n for i in range(length))


def resolve_dogs(row: Sequence[int]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Apply R16 to a bought row: return (dogs and chased cat, cards kept by the buyer)."""
    dogs = [c for c in row if c >= _LARGE]
    if not dogs:
        return (), tuple(CARDS[c] for c in row)
    kept = [c for c in row if c < _LARGE]
    if len(dogs) >= 2:
        return tuple(CARDS[d] for d in dogs), tuple(CARDS[c] for c in kept)
    dog = dogs[0]
    for prey in _LARGE_DOG_PREY if dog == _LARGE else _SMALL_DOG_PREY:
        if prey in kept:
            kept.remove(prey)
            return (CARDS[dog], CARDS[prey]), tuple(CARDS[c] for c in kept)
    return (CARDS[dog],), tuple(CARDS[c] for c in kept)


# The hot path records only the moves. Each round-ending move pushes on _ends a
# snapshot of the state it replaced (after the move's own pass, if any):
#   (row, passed, high, hseat, filled, bank, start, phase, mover, round, rply,
#    buyer, price, nwon, refilled)
# The finished rounds (RoundResult) are read back from these tuples on demand,
# so the hot path builds no objects at a round's end. Who made each move and the
# standing bids are read back from the moves too (the seat order is fixed by the
# rules), into the _seats cache that undo trims.
_S_ROW: Final = 0
_S_FILLED: Final = 4
_S_START: Final = 6
_S_PHASE: Final = 7
_S_MOVER: Final = 8
_S_ROUND: Final = 9
_S_RPLY: Final = 10
_S_BUYER: Final = 11
_S_PRICE: Final = 12
_S_REFILLED: Final = 14


class Game:
    """A game of Felix: The Cat in the Sack for 3–5 seats, from setup to scoring.

    >>> g = Game.new(seats=4, seed=7)
    >>> g.to_move in range(4)
    True
    >>> g.play(g.legal_moves()[0])

    ``play`` checks the move and raises :class:`~catsack.errors.IllegalMoveError`; ``push``
    skips the checks for code that picked its move from :meth:`legal_moves`.
    """

    __slots__ = (
        "_after",
        "_bank",
        "_bids",
        "_cards",
        "_cards_total",
        "_done",
        "_dummy",
        "_ends",
        "_filled",
        "_first_start",
        "_hands",
        "_high",
        "_hseat",
        "_legal",
        "_log",
        "_money",
        "_moves",
        "_n",
        "_next",
        "_passed",
        "_pay",
        "_phase",
        "_removed",
        "_resume",
        "_round",
        "_row",
        "_rply",
        "_seats",
        "_start",
        "_to_move",
        "_won",
    )

    _n: int
    _first_start: int
    _removed: list[int]
    _dummy: list[int]
    _hands: list[int]
    _money: list[int]
    _bank: int
    _cards: tuple[int, ...]
    _cards_total: int
    _filled: bool
    _passed: int
    _pay: tuple[int, ...]
    _high: int
    _hseat: int
    _legal: tuple[Move, ...]  # legal_moves(), kept up to date by every change of position
    # (ply count, bids): the bids property's cache; undo drops it, so a shorter one is a prefix of the moves.
    _bids: tuple[int, tuple[int, ...]] | None
    _row: list[int]
    _phase: int
    _to_move: int
    _start: int
    _round: int
    _rply: int
    _won: list[list[int]]
    _moves: list[Move]
    _ends: list[tuple[Any, ...]]  # one snapshot per finished round, see above
    _seats: list[int]  # the seat of each move, a prefix of the moves filled on demand
    # (first ply of a round, ply, passed mask, seat to move): where _replay_seats stopped. Valid
    # while ply <= len(_seats): undo trims _seats below a changed move, and only replays regrow it.
    _resume: tuple[int, int, int, int] | None
    _next: tuple[tuple[int, ...], ...]
    _after: tuple[tuple[tuple[int, int], ...], ...]
    # Finished rounds and their (all public) history, built on demand for views
    # and dropped when a round end is undone; immutable, so clones share it.
    _done: tuple[tuple[RoundResult, ...], tuple[tuple[int, str], ...]] | None
    _log: list[list[Event]] | None

    def __init__(self, setup: Setup, *, events: bool = False) -> None:
        if not isinstance(setup, Setup):
            raise TypeError(f"Game() takes a Setup, not {type(setup).__name__}; see Game.new and Game.from_setup")
        self._init(setup.seats, setup.start, [int(c) for c in setup.removed], [int(c) for c in setup.dummy], events)

    def _init(self, n: int, start: int, removed: list[int], dummy: list[int], events: bool) -> None:
        self._n = n
        self._first_start = start
        self._removed = removed
        self._dummy = dummy
        self._hands = hands = list(map(_HAND_WITHOUT.__getitem__, removed))  # R7: 9 cards each
        self._money = [START_MONEY] * n  # R5
        self._cards = cards = MOUSE_CARDS[n]
        self._cards_total = total = sum(cards)
        self._bank = BANK_START[n] - total  # R6: the cards are filled at setup
        self._filled = True
        self._pay = _PAYS[n][True]
        self._passed = 0
        self._high = 0
        self._hseat = -1
        self._row = [dummy[0]] if n == 3 else []  # R10: the dummy's top card leads
        self._phase = PLACING
        self._to_move = start
        self._start = start
        self._round = 0
        self._rply = 0
        won: list[list[int]] = [[], [], [], [], []]  # cheaper than a comprehension (R4: 5 seats at most)
        self._won = won[:n]
        self._moves = []
        self._ends = []
        self._seats = []
        self._resume = None
        self._next = _NEXT[n]
        self._after = _AFTER_PASS[n]
        self._done = None
        self._bids = None
        self._log = [] if events else None
        self._legal = _PLACE_SETS[hands[start]]

    # ------------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        seats: int = 4,
        seed: int | None = None,
        *,
        rng: random.Random | None = None,
        start: int | None = None,
        events: bool = False,
    ) -> Game:
        """Deal a new game from ``seed`` or ``rng`` (R4–R9).

        With neither, the deal uses fresh operating-system randomness.
        ``events=True`` keeps each move's events so :meth:`last_events` is free.
        """
        n = check_seats(seats)
        r = rng if rng is not None else random.Random(seed)
        first, removed, dummy = deal_ints(n, r, start)
        g = cls.__new__(cls)
        g._init(n, first, removed, dummy, events)
        return g

    @classmethod
    def from_setup(
        cls,
        seats: int,
        start: int,
        removed: Iterable[Card | str],
        dummy: Iterable[Card | str] = (),
        *,
        events: bool = False,
    ) -> Game:
        """Build a game from an explicit setup (as in a record); tokens or cards."""
        from catsack.cards import parse_card

        rem = tuple(c if isinstance(c, Card) else parse_card(c) for c in removed)
        dum = tuple(c if isinstance(c, Card) else parse_card(c) for c in dummy)
        return cls(Setup(check_seats(seats), start, rem, dum), events=events)

    @property
    def setup(self) -> Setup:
        """The setup this game was dealt from."""
        return Setup(
            self._n,
            self._first_start,
            tuple(CARDS[c] for c in self._removed),
            tuple(CARDS[c] for c in self._dummy),
        )

    def clone(self) -> Game:
        """An independent copy (history, undo stack and event log included)."""
        g = Game.__new__(Game)
        g._n = self._n
        g._first_start = self._first_start
        g._removed = self._removed[:]
        g._dummy = self._dummy[:]
        g._hands = self._hands[:]
        g._money = self._money[:]
        g._bank = self._bank
        g._cards = self._cards
        g._cards_total = self._cards_total
        g._filled = self._filled
        g._pay = self._pay
        g._passed = self._passed
        g._high = self._high
        g._hseat = self._hseat
        g._legal = self._legal
        g._row = self._row[:]
        g._phase = self._phase
        g._to_move = self._to_move
        g._start = self._start
        g._round = self._round
        g._rply = self._rply
        g._won = list(map(list.copy, self._won))  # cheaper than a comprehension
        g._moves = self._moves[:]
        g._ends = self._ends[:]
        g._seats = self._seats[:]
        g._resume = self._resume
        g._next = self._next
        g._after = self._after
        g._done = self._done
        g._bids = self._bids
        g._log = None if self._log is None else [e[:] for e in self._log]
        return g

    __copy__ = clone

    # ------------------------------------------------------------------ queries

    @property
    def seats(self) -> int:
        return self._n

    @property
    def to_move(self) -> int | None:
        """The seat to move, or ``None`` once the game is over."""
        return None if self._phase == OVER else self._to_move

    @property
    def is_over(self) -> bool:
        return self._phase == OVER

    @property
    def phase(self) -> str:
        """``placement``, ``bidding``, ``last choice`` (R15) or ``over``."""
        return PHASE_NAMES[self._phase]

    @property
    def round(self) -> int:
        """The current round, 1–9; 9 once the game is over."""
        return min(self._round + 1, ROUNDS)

    @property
    def start_player(self) -> int:
        return self._start

    @property
    def money(self) -> tuple[int, ...]:
        """Each seat's mice, bids not deducted (bids are only set aside, R12)."""
        return tuple(self._money)

    @property
    def bank(self) -> int:
        return self._bank

    @property
    def mouse_cards(self) -> tuple[int, ...]:
        """The face values of the mouse cards in use (R6)."""
        return self._cards

    @property
    def mouse_card_mice(self) -> tuple[int, ...]:
        """Mice lying on each mouse card now (R13, R18)."""
        return CARD_MICE[self._n][self._filled and self._phase != OVER][self._passed]

    @property
    def next_payout(self) -> int:
        """What the next player to pass would receive (R13); 0 when the cards are empty."""
        if self._filled and self._phase == BIDDING:
            return self._cards[self._passed.bit_count()]
        return 0

    @property
    def high_bid(self) -> int:
        return self._high

    @property
    def high_bidder(self) -> int | None:
        return None if self._hseat < 0 else self._hseat

    @property
    def bids(self) -> tuple[int, ...]:
        """Each seat's standing bid this round (0 for none or after passing)."""
        moves = self._moves
        end = len(moves)
        cached = self._bids
        rply = self._rply
        first = rply + self._n  # the auction follows n placements (R10)
        if cached is not None:
            at = cached[0]
            if at == end:
                return cached[1]
            # Only plies were added since (undo drops the cache): go on from it within this round.
            if rply <= at < end:
                bids = list(cached[1])
                first = max(first, at)
            else:
                bids = [0] * self._n
        else:
            bids = [0] * self._n
        if first < end:
            if len(self._seats) < end:
                self._fill_seats()
            seats = self._seats
            for ply in range(first, end):
                bids[seats[ply]] = moves[ply].arg  # R12: a bid names the total; R13: a pass takes it back
        out = tuple(bids)
        self._bids = (end, out)
        return out

    @property
    def passed(self) -> tuple[bool, ...]:
        return PASSED_FLAGS[self._n][self._passed]

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards in ``seat``'s hand, in canonical order (hidden information, R23)."""
        h = self._hands[seat]
        return tuple(CARDS[c] for c in range(10) if h >> c & 1)

    def removed(self, seat: int) -> Card:
        """The card removed from ``seat``'s set at setup (R7; hidden from others)."""
        return CARDS[self._removed[seat]]

    @property
    def row(self) -> tuple[Card, ...]:
        """The row's cards in row order, face-down ones included (full information)."""
        return tuple(CARDS[c] for c in self._row)

    @property
    def row_indexes(self) -> tuple[int, ...]:
        """:attr:`row` as :class:`~catsack.cards.Card` indexes (0-9): the compact form for search code."""
        return tuple(self._row)

    @property
    def row_owners(self) -> tuple[int | None, ...]:
        """Who placed each row card (R10); ``None`` for the dummy's card."""
        return _row_owners(self._n, self._start, len(self._row))

    @property
    def face_up(self) -> int:
        """How many row cards, from the left, are face up (R11, R14)."""
        ph = self._phase
        if ph == PLACING:
            return 0
        if ph == BIDDING:
            return UP_AFTER_PASSES[self._n][self._passed.bit_count()]
        return len(self._row)

    def won(self, seat: int) -> tuple[Card, ...]:
        """``seat``'s won pile (public, R17)."""
        return tuple(CARDS[c] for c in self._won[seat])

    def cat_points(self) -> tuple[int, ...]:
        """Each seat's cat sum (R21: rabbits 0)."""
        return tuple([sum([POINTS[c] for c in w]) for w in self._won])

    def scores(self) -> tuple[int, ...]:
        """Each seat's score: cat points plus money (R21)."""
        return tuple([p + m for p, m in zip(self.cat_points(), self._money, strict=True)])

    def winners(self) -> tuple[int, ...]:
        """The winning seats (R22), ranked by score then cat sum; empty until the end."""
        if self._phase != OVER:
            return ()
        return self.leaders()

    def leaders(self) -> tuple[int, ...]:
        """The seats that would win if the game ended now (R22 tie-break)."""
        keys = [(s, c) for s, c in zip(self.scores(), self.cat_points(), strict=True)]
        best = max(keys)
        return tuple(i for i, k in enumerate(keys) if k == best)

    def ranking(self) -> tuple[int, ...]:
        """1-based rank per seat under R22 (tied seats share a rank)."""
        keys = [(s, c) for s, c in zip(self.scores(), self.cat_points(), strict=True)]
        return tuple(1 + sum(1 for k in keys if k > mine) for mine in keys)

    @property
    def moves(self) -> tuple[Move, ...]:
        """Every move played so far, in order."""
        return tuple(self._moves)

    @property
    def ply(self) -> int:
        return len(self._moves)

    @property
    def rounds(self) -> tuple[RoundResult, ...]:
        """Finished rounds, in order."""
        return self._finished()[0]

    def _finished(self) -> tuple[tuple[RoundResult, ...], tuple[tuple[int, str], ...]]:
        """Finished rounds and the (seat, move text) history up to the current round.

        Built incrementally: the cache always describes a prefix of the finished
        rounds (undoing a round end trims it in :meth:`_restore`), so a round's
        end only adds that round and its moves. Everything in it is public
        (R23: every placement of a finished round was turned up, R14), so
        :meth:`redeal`, which changes only the current round, leaves it valid.
        """
        done = self._done
        nround = self._round
        if done is not None and len(done[0]) == nround:
            return done
        rounds, history = done if done is not None and len(done[0]) < nround else ((), ())
        ends = self._ends
        last = len(ends) - 1
        new_rounds = []
        for i in range(len(rounds), nround):
            snap = ends[i]
            end = ends[i + 1][_S_RPLY] if i < last else self._rply  # the ply after the round's last move
            new_rounds.append(self._round_result(end - 1, snap))
        rply = self._rply
        first = len(history)
        if first < rply:
            if len(self._seats) < rply:
                self._fill_seats()
            seats = self._seats
            moves = self._moves
            history += tuple([(seats[p], moves[p].text) for p in range(first, rply)])
        done = self._done = (rounds + tuple(new_rounds), history)
        return done

    def _payouts(self, first: int, end: int, filled: bool) -> tuple[tuple[int, int], ...]:
        """(seat, mice) for the auction passes among plies first..end-1 (R13)."""
        cards = self._cards
        moves = self._moves
        out: list[tuple[int, int]] = []
        for ply in range(first, end):
            if moves[ply].kind == PASS:
                out.append((self.seat_of(ply), cards[len(out)] if filled else 0))
        return tuple(out)

    def _round_result(self, ply: int, snap: tuple[Any, ...]) -> RoundResult:
        row = snap[_S_ROW]
        start = snap[_S_START]
        buyer = snap[_S_BUYER]
        chased, kept = resolve_dogs(row) if buyer >= 0 else ((), ())
        return RoundResult(
            snap[_S_ROUND] + 1,
            start,
            tuple(CARDS[c] for c in row),
            _row_owners(self._n, start, len(row)),
            buyer if buyer >= 0 else None,
            snap[_S_PRICE] if buyer >= 0 else None,
            chased,
            kept,
            # A pass in the last choice (R15) voids the round and pays nothing: not listed.
            self._payouts(snap[_S_RPLY], ply if snap[_S_PHASE] == LAST_CHOICE else ply + 1, snap[_S_FILLED]),
            snap[_S_REFILLED],
        )

    def current_payouts(self) -> tuple[tuple[int, int], ...]:
        """``(seat, mice)`` for each pass so far in the current round."""
        return self._payouts(self._rply, len(self._moves), self._filled)

    def move_at(self, ply: int) -> Move:
        """Move number ``ply`` (0-based; negative counts from the end), without copying :attr:`moves`.

        The same object each time it is asked, so code that follows a game move by move can tell
        whether the game moved on by exactly one move since it last looked.
        """
        moves = self._moves
        if not -len(moves) <= ply < len(moves):
            raise IndexError(f"no move number {ply}")
        return moves[ply]

    def seat_of(self, ply: int) -> int:
        """The seat that made move number ``ply`` (0-based; negative counts from the end)."""
        seats = self._seats
        if ply >= len(seats) or ply < 0:
            if not -len(self._moves) <= ply < len(self._moves):
                raise IndexError(f"no move number {ply}")
            self._fill_seats()
        return seats[ply]

    def _fill_seats(self) -> None:
        """Extend the ``_seats`` cache to every move, replaying the turn order (R10, R12, R15)."""
        seats = self._seats
        end = len(self._moves)
        while len(seats) < end:
            p = len(seats)
            if p >= self._rply:  # the current round (the usual case: views after each move)
                self._replay_seats(self._rply, self._start, end)
                continue
            ends = self._ends
            i = len(ends) - 1
            while ends[i][_S_RPLY] > p:
                i -= 1
            stop = ends[i + 1][_S_RPLY] if i + 1 < len(ends) else self._rply
            self._replay_seats(ends[i][_S_RPLY], ends[i][_S_START], stop)

    def _replay_seats(self, first: int, start: int, stop: int) -> None:
        """Append the seats of plies len(_seats)..stop-1 of the round that begins at ply ``first``."""
        seats = self._seats
        n = self._n
        p = len(seats)
        for k in range(p - first, min(n, stop - first)):  # R10: placements clockwise from the start player
            seats.append((start + k) % n)
        moves = self._moves
        nxt = self._next
        at = first + n
        passed = 0
        t = start  # after the placements, the start player bids first (R12)
        resume = self._resume
        # Views ask after every move: go on from where the last replay of this round stopped,
        # if the seats it filled are still there (undo trims them; then the replay starts over).
        if resume is not None and resume[0] == first and at <= resume[1] <= p:
            _, at, passed, t = resume
        for ply in range(at, stop):
            if ply >= p:
                seats.append(t)
            s = t
            if moves[ply].kind == PASS:
                passed |= 1 << s
            t = nxt[passed][s]
            if t < 0:  # R15: one player left, who may have the last choice
                t = ~t
        if stop > at:
            self._resume = (first, stop, passed, t)

    def legal_moves(self) -> tuple[Move, ...]:
        """The legal moves of the seat to move, in canonical order (empty at the end)."""
        return self._legal

    def _find_legal(self) -> tuple[Move, ...]:
        """Derive :meth:`legal_moves` from the position (play keeps it up to date faster)."""
        ph = self._phase
        if ph == BIDDING:
            m = self._money[self._to_move]
            return (_BID_TABLE[m] or _bid_row(m))[self._high + 1]
        if ph == PLACING:
            return _PLACE_SETS[self._hands[self._to_move]]
        if ph == LAST_CHOICE:
            return _LAST_CHOICE_MOVES if self._money[self._to_move] >= 1 else _ONLY_PASS
        return ()

    def is_legal(self, move: Move | str) -> bool:
        try:
            m = move if move.__class__ is Move else parse_move(move)
        except ValueError:
            return False
        return self._why_illegal(m) is None

    # ------------------------------------------------------------------ moves

    def play(self, move: Move | str) -> None:
        """Play ``move`` (a :class:`~catsack.moves.Move` or its text) for the seat to move, checking it.

        Raises :class:`~catsack.errors.ParseError` for bad text and
        :class:`~catsack.errors.IllegalMoveError` naming the move, seat, phase and reason.
        The checks cost a few comparisons, so search code uses this too
        (``push`` is the same method under python-chess's name).
        """
        if move.__class__ is not Move:
            move = parse_move(move)
        # One short branch per move kind: the hot paths stay small, so CPython's
        # specialised integer compares apply (rare work lives in helper methods).
        k = move.kind
        ph = self._phase
        s = self._to_move
        if k == PLACE:
            c = move.arg
            hands = self._hands
            hand = _DROP[hands[s]][c]
            if ph == PLACING and hand >= 0:
                hands[s] = hand
                self._row.append(c)
                self._moves.append(move)
                # R10: placement goes clockwise from the start player; after the last
                # placement the turn is back at the start player, who bids first (R12).
                self._to_move = t = self._next[0][s]
                if t == self._start:
                    self._phase = BIDDING
                    m = self._money[t]
                    self._legal = (_BID_TABLE[m] or _bid_row(m))[1]
                else:
                    self._legal = _PLACE_SETS[hands[t]]
                if self._log is not None:
                    self._log_place(s)
                return
        elif k == BID:
            b = move.arg
            if ph == BIDDING and self._high < b <= self._money[s]:  # R12
                self._moves.append(move)
                self._high = b
                self._hseat = s
                self._to_move = t = self._next[self._passed][s]
                m = self._money[t]
                self._legal = (_BID_TABLE[m] or _bid_row(m))[b + 1]
                if self._log is not None:
                    self._log.append([BidMade(s, b)])
                return
            if ph == LAST_CHOICE and b == 1 and self._money[s] >= 1:
                self._last_choice(move, s, s)  # R15: buy the row for 1 mouse
                return
        elif ph == BIDDING:
            # R13: the passer takes back the bid (bids are read back from the moves, so
            # there is nothing to clear) and the mice of the lowest filled mouse card.
            passed = self._passed
            money = self._money
            money[s] += self._pay[passed]
            self._passed, t = self._after[passed][s]
            self._moves.append(move)
            if self._log is not None:
                self._log_pass(s)
            if t >= 0:
                self._to_move = t
                m = money[t]
                self._legal = (_BID_TABLE[m] or _bid_row(m))[self._high + 1]
            elif self._hseat >= 0:  # R15: one player is left, the high bidder: they buy
                self._finish_round(self._hseat, self._high, s)
            else:
                self._to_last_choice(~t)
            return
        elif ph == LAST_CHOICE:
            self._last_choice(move, -1, s)  # R15, R19: pass and void the round
            return
        raise self._illegal(move)

    push = play

    def _why_illegal(self, move: Move) -> str | None:
        ph = self._phase
        s = self._to_move
        k = move.kind
        if ph == OVER:
            return "the game is over (R20)"
        if ph == PLACING:
            if k != PLACE:
                return "every seat must place a card before the bidding starts (R10)"
            if not self._hands[s] >> move.arg & 1:
                return f"{CARDS[move.arg]} is not in seat {s}'s hand"
            return None
        if k == PLACE:
            return "all cards of this round are already placed (R10)"
        if k == PASS:
            return None
        b = move.arg
        if ph == LAST_CHOICE:
            if b != 1:
                return "nobody bid, so the last player may only buy for 1 mouse ('bid 1') or pass (R15)"
            if self._money[s] < 1:
                return f"seat {s} has no mouse to pay 1 (R15)"
            return None
        if b <= self._high:
            return f"a bid must be higher than the high bid {self._high} (R12)"
        if b > self._money[s]:
            return f"seat {s} has only {self._money[s]} mice (R12)"
        return None

    def _illegal(self, move: Move) -> IllegalMoveError:
        reason = self._why_illegal(move) or "not legal now"
        seat = None if self._phase == OVER else self._to_move
        phase = PHASE_NAMES[self._phase]
        where = f"round {self.round}, {phase}"
        who = "no seat" if seat is None else f"seat {seat}"
        return IllegalMoveError(
            f"illegal move {move.text!r} by {who} ({where}): {reason}",
            move=move.text,
            seat=seat,
            phase=phase,
            reason=reason,
        )

    def _to_last_choice(self, last: int) -> None:
        """R15: nobody bid and only ``last`` is still in: they may buy for 1 or pass."""
        self._phase = LAST_CHOICE
        self._to_move = last
        self._legal = _LAST_CHOICE_MOVES if self._money[last] >= 1 else _ONLY_PASS
        if self._log is not None:
            self._log[-1].append(LastChoice(last))

    def _last_choice(self, move: Move, buyer: int, s: int) -> None:
        self._moves.append(move)
        if self._log is not None:
            self._log.append([])
        self._finish_round(buyer, 1, s)

    def _log_place(self, s: int) -> None:
        assert self._log is not None
        row = self._row
        events: list[Event] = [Placed(s, len(row) - 1)]
        if self._phase == BIDDING:  # R11: the first card is turned up
            events.append(Revealed(0, None if self._n == 3 else self._start, CARDS[row[0]]))
        self._log.append(events)

    def _log_pass(self, s: int) -> None:
        # R14: each pass turns more of the row face up.
        assert self._log is not None
        npass = self._passed.bit_count()
        card = self._cards[npass - 1] if self._filled else None
        events: list[Event] = [Passed(s, card or 0, card)]
        up = UP_AFTER_PASSES[self._n]
        owners = self.row_owners
        for pos in range(up[npass - 1], up[npass]):
            events.append(Revealed(pos, owners[pos], CARDS[self._row[pos]]))
        self._log.append(events)

    def _finish_round(self, buyer: int, price: int, mover: int) -> None:
        """End the round (R15-R20) and push the snapshot that undoes it (``buyer`` -1: void, R19)."""
        row = self._row
        rnd = self._round
        bank = self._bank
        if buyer >= 0:
            won = self._won[buyer]
            if _LARGE in row or _SMALL in row:
                kept = _KEPT.get(tuple(row)) or _kept_after_dogs(row)  # R16
                won += kept
                nwon = len(kept)
            else:
                won += row
                nwon = len(row)
            self._money[buyer] -= price  # R17
            bank += price
            # R18: refill all mouse cards after a bought round 1-8, if the bank can fill them all.
            filled = rnd < ROUNDS - 1 and bank >= self._cards_total
            if filled:
                bank -= self._cards_total
        else:
            nwon = 0
            filled = False  # R19: no refill after a void round
        self._ends.append(
            (
                row,
                self._passed,
                self._high,
                self._hseat,
                self._filled,
                self._bank,
                self._start,
                self._phase,
                mover,
                rnd,
                self._rply,
                buyer,
                price,
                nwon,
                filled,
            )
        )
        self._bank = bank
        if filled is not self._filled:
            self._filled = filled
            self._pay = _PAYS[self._n][filled]
        if buyer >= 0:
            self._start = start = buyer  # R17: the buyer starts the next round
        else:
            start = self._start
        self._passed = 0
        self._high = 0
        self._hseat = -1
        self._rply = len(self._moves)
        if rnd < ROUNDS - 1:
            self._round = rnd + 1
            self._row = [self._dummy[rnd + 1]] if self._n == 3 else []
            self._phase = PLACING
            self._to_move = start
            self._legal = _PLACE_SETS[self._hands[start]]
        else:  # R20: the game ends after the 9th auction
            self._round = ROUNDS
            self._row = []
            self._phase = OVER
            self._to_move = -1
            self._legal = ()
        if self._log is not None:
            self._log_round_end(row, buyer, price, mover, nwon)

    def _log_round_end(self, row: list[int], buyer: int, price: int, mover: int, nwon: int) -> None:
        assert self._log is not None
        ev = self._log[-1]
        if buyer >= 0:
            chased, _ = resolve_dogs(row)
            if len(chased) == 1 or (len(chased) == 2 and chased[1] < _LARGE):
                ev.append(DogChase(chased[0], chased[1] if len(chased) == 2 else None))
            elif chased:
                ev.append(DogsCancel(chased))
            won = self._won[buyer]
            ev.append(Bought(buyer, price, tuple(CARDS[c] for c in won[len(won) - nwon :])))
        else:
            ev.append(RoundVoid(self._round, mover))  # the round just ended: 1-based, as _round is now
        if self._phase == OVER:
            ev.append(GameOver(self.scores(), self.winners()))
        else:
            ev.append(Refill(self._filled, self._bank))
            ev.append(RoundStarted(self._round + 1, self._start))

    def undo(self) -> Move:
        """Take back the last move and return it; the state is restored exactly."""
        if not self._moves:
            raise IndexError("undo: no move to take back")
        move = self._take_back()
        self._legal = self._find_legal()
        return move

    def _take_back(self) -> Move:
        ply = len(self._moves) - 1
        s = self.seat_of(ply)
        move = self._moves.pop()
        del self._seats[ply:]
        self._bids = None
        if self._log is not None:
            self._log.pop()
        k = move.kind
        if ply < self._rply:  # the move ended a round
            self._restore(self._ends.pop())
            if k != PASS or self._phase != BIDDING:
                return move  # R15's last choice: the snapshot is the whole state before it
            # a pass that ended the auction: take the pass back below
        self._to_move = s
        if k == PLACE:
            self._row.pop()
            self._hands[s] |= 1 << move.arg
            self._phase = PLACING
        elif k == PASS:
            self._phase = BIDDING
            self._passed = passed = self._passed & ~(1 << s)
            self._money[s] -= self._pay[passed]
        else:  # the high bid falls back to the round's previous bid, if any
            moves = self._moves
            high = 0
            hseat = -1
            for ply in range(len(moves) - 1, self._rply - 1, -1):
                if moves[ply].kind == BID:
                    high = moves[ply].arg
                    hseat = self.seat_of(ply)
                    break
            self._high = high
            self._hseat = hseat
        return move

    def _restore(self, snap: tuple[Any, ...]) -> None:
        # Lists in a snapshot may be shared by clones: restore copies.
        (
            row,
            self._passed,
            self._high,
            self._hseat,
            filled,
            self._bank,
            self._start,
            self._phase,
            self._to_move,
            self._round,
            self._rply,
            buyer,
            price,
            nwon,
            _refilled,
        ) = snap
        self._filled = filled
        self._pay = _PAYS[self._n][filled]
        if buyer >= 0:
            self._money[buyer] += price
            if nwon:
                del self._won[buyer][-nwon:]
        self._row = row[:]
        done = self._done
        if done is not None and len(done[0]) > self._round:
            # The round just reopened is no longer finished: keep the cache of the earlier ones.
            self._done = (done[0][: self._round], done[1][: self._rply])

    # ------------------------------------------------------------------ events

    @property
    def keeps_events(self) -> bool:
        return self._log is not None

    def last_events(self) -> tuple[Event, ...]:
        """The public events the last move caused (empty before the first move)."""
        if not self._moves:
            return ()
        return self.events(len(self._moves) - 1)

    def events(self, ply: int) -> tuple[Event, ...]:
        """The public events caused by move number ``ply`` (0-based)."""
        if not 0 <= ply < len(self._moves):
            raise IndexError(f"no move number {ply}")
        if self._log is not None:
            return tuple(self._log[ply])
        return tuple(self.event_log()[ply])

    def event_log(self) -> list[list[Event]]:
        """The events of every move so far, one list per move."""
        if self._log is not None:
            return [e[:] for e in self._log]
        g = Game(self.setup, events=True)
        for m in self._moves:
            g.push(m)
        assert g._log is not None
        return g._log

    # ------------------------------------------------------------------ views

    def view(self, seat: int | None, *, show_money: bool = False) -> View:
        """What ``seat`` may know (R23); ``None`` gives the public (spectator) view.

        ``show_money`` is the R24 table option showing every seat's money.
        """
        from catsack.view import make_view

        return make_view(self, seat, show_money=show_money)

    def public_view(self, *, show_money: bool = False) -> View:
        return self.view(None, show_money=show_money)

    def redeal(self, seat: int | None, rng: random.Random) -> None:
        """Re-deal, in place, everything R23 hides from ``seat``, consistently with its view.

        Other seats' hands, removed cards and face-down row cards are shuffled
        among themselves per owner; with 3 seats the dummy's unseen cards too.
        ``seat=None`` re-deals what the public view hides. The seat's view is
        unchanged afterwards; the rest of the game follows the new deal.
        """
        n = self._n
        up = self.face_up
        row = self._row
        dummy_off = 1 if n == 3 else 0
        current = len(self._moves) - self._rply  # moves made this round
        for j in range(n):
            if j == seat:
                continue
            pool = [c for c in range(10) if self._hands[j] >> c & 1]
            pool.append(self._removed[j])
            pos = -1
            for p in range(dummy_off, len(row)):
                if p >= up and (self._start + p - dummy_off) % n == j:
                    pos = p
                    pool.append(row[p])
            rng.shuffle(pool)
            if pos >= 0:
                card = pool.pop()
                row[pos] = card
                ply = self._rply + pos - dummy_off
                assert ply < len(self._moves) and current > pos - dummy_off
                self._moves[ply] = PLACES[card]  # the event log never names a face-down card
            self._removed[j] = pool.pop()
            mask = 0
            for c in pool:
                mask |= 1 << c
            self._hands[j] = mask
        if n == 3:
            r = self._round
            if r >= ROUNDS:
                hidden_from = ROUNDS
            else:
                hidden_from = r if up == 0 else r + 1
            seen = set(self._dummy[:hidden_from])
            pool = [c for c in range(10) if c not in seen]
            rng.shuffle(pool)
            self._dummy[hidden_from:] = pool[: ROUNDS - hidden_from]
            if up == 0 and r < ROUNDS:
                row[0] = self._dummy[r]
        self._legal = self._find_legal()

    def hand_mask(self, seat: int) -> int:
        """``seat``'s hand as a bit per card (bit ``i`` for :class:`~catsack.cards.Card` index ``i``; hidden, R23): the
        compact form of :meth:`hand` for search code."""
        return self._hands[seat]

    def swap_face_down(self, pos: int, card: Card | int) -> None:
        """Put ``card`` face down at row position ``pos`` in place of the card there, which goes where
        ``card`` was: its owner's hand or removed card (R7, R10).

        A step for search code that fixes one hidden card of a sampled world (after :meth:`redeal`):
        only cards the owner alone has seen change places, so no other seat's view changes (R23).
        ``pos`` must hold a card of this round that is still face down and not the dummy's (R11), and
        ``card`` must be in its owner's hand or be its removed card; otherwise :class:`ValueError`.
        """
        row = self._row
        if not self.face_up <= pos < len(row) or (self._n == 3 and pos == 0):
            raise ValueError(f"row position {pos} does not hold a face-down card of a player")
        owner = (self._start + pos - (1 if self._n == 3 else 0)) % self._n
        old = row[pos]
        c = int(card)
        if not 0 <= c < len(CARDS):
            raise ValueError(f"not a card index: {c} (expected 0-{len(CARDS) - 1})")
        if c == old:
            return
        if self._removed[owner] == c:
            self._removed[owner] = old
        elif self._hands[owner] >> c & 1:
            self._hands[owner] ^= (1 << c) | (1 << old)
        else:
            raise ValueError(f"seat {owner} holds no {CARDS[c]} to place at row position {pos}")
        row[pos] = c
        self._moves[self._rply + pos - (1 if self._n == 3 else 0)] = PLACES[c]  # R10: the placing move
        self._legal = self._find_legal()

    # ------------------------------------------------------------------ comparison

    def _key(self) -> tuple[object, ...]:
        return (
            self._n,
            self._first_start,
            tuple(self._removed),
            tuple(self._dummy),
            tuple(self._hands),
            tuple(self._money),
            self._bank,
            self._filled,
            self._passed,
            self.bids,
            self._high,
            self._hseat,
            tuple(self._row),
            self._phase,
            self._to_move,
            self._start,
            self._round,
            self._rply,
            tuple(tuple(w) for w in self._won),
            tuple(self._moves),
            self.rounds,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game seats={self._n} round={self.round}/{ROUNDS} phase={self.phase!r} "
            f"to_move={self.to_move} ply={len(self._moves)}>"
        )

    def total_money(self) -> int:
        """Money of all seats, the bank and the mouse cards: constant (R5)."""
        on_cards = sum(self.mouse_card_mice)
        return sum(self._money) + self._bank + on_cards
