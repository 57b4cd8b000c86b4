"""Observation vectors kept up to date move by move, instead of re-encoded from a fresh view.

:func:`catsack.envs.encoding.encode_observation` builds a seat's vector from
its :class:`~catsack.view.View`: about 5 µs for the view and as much again
for the encoding, against about 0.5 µs for the engine to play a move. An
environment that observes after every move spends nearly all its time there,
although a move changes only a handful of entries.

:class:`Observer` keeps the same vectors current by applying each move's
effect. It is split the way R23 splits the game:

- one **public** vector ``P`` in absolute seat order, holding what every
  seat may know (the face-up row, owners, bids, passes, mouse cards, won
  piles, bank, round, start player, seat to move, phase), updated once per
  move whoever observes;
- per seat, a **private** vector ``Q[s]`` in that seat's relative order for
  the entries that differ between seats: its hand, its removed card, its
  own money (R24), and for each row position whether the card is hidden
  from it or is its own face-down card.

Seat ``s`` observes one gather (``numpy.take``) from ``P`` and ``Q[s]``,
with an index that rotates the seat blocks into ``s``'s order. The result
is the very vector :func:`encode_observation` gives for ``game.view(s)``,
entry for entry (``tests/test_observer.py`` checks every
ply of many games for 3, 4 and 5 seats, and that re-dealing what a seat
cannot see never changes its vector).

The observer reads the game through its public queries (``move_at``,
``row_indexes``, ``face_up``, ``mouse_card_mice``, ...), and reads a seat's
hidden cards (``hand_mask``, ``removed``, the card it placed) only into that
seat's ``Q``.
Call :meth:`Observer.sync` after every move; if the game moved by anything
other than one move (several moves, an undo, a different game), ``sync``
rebuilds the vectors from views instead.
"""

from __future__ import annotations

from array import array
from functools import cache

import numpy as np
import numpy.typing as npt

from catsack.constants import CARD_MICE
from catsack.envs.encoding import (
    MOUSE_CARD_MAX,
    NUM_CARDS,
    PHASE_INDEX,
    WON_KINDS,
    ObsArray,
    ObsOffsets,
    encode_observation,
    observation_offsets,
)
from catsack.game import BIDDING, LAST_CHOICE, OVER, PLACING, Game
from catsack.moves import BID, PLACE, Move
from catsack.setup import BANK_START, MOUSE_CARDS

__all__ = ["Observer"]


@cache
def _index(n: int, me: int) -> npt.NDArray[np.intp]:
    """Where each entry of ``me``'s vector comes from in the buffer ``P + Q[0] + … + Q[n-1]``."""
    o = observation_offsets(n)
    size = o.size
    index = list(range(o.size))

    def rotate(start: int, width: int = 1) -> None:
        # relative seat r's entries come from absolute seat (me + r) % n
        for r in range(n):
            a = (me + r) % n
            for k in range(width):
                index[start + r * width + k] = start + a * width + k

    for p in range(o.row_len):
        rotate(o.row + p * o.slot)  # owner one-hot; the dummy's entry (index n) stays
    for start in (o.bids, o.high_bidder, o.passed, o.money, o.money_known, o.start, o.to_move):
        rotate(start)
    rotate(o.won, WON_KINDS)
    q = (1 + me) * size  # the entries that differ between viewers come from Q[me]
    private = [*range(o.hand, o.hand + NUM_CARDS), *range(o.removed, o.removed + NUM_CARDS), o.money, o.money_known]
    for p in range(o.row_len):
        base = o.row + p * o.slot
        private += range(base + n + 11, base + n + 22)  # own face-down card (10) and hidden (1)
    for i in private:
        index[i] = q + i
    return np.array(index, np.intp)


class Observer:
    """Every seat's observation vector of one game, updated by :meth:`sync` after each move.

    >>> from catsack.game import Game
    >>> from catsack.envs.encoding import encode_observation
    >>> g = Game.new(4, seed=3)
    >>> obs = Observer(g)
    >>> g.play(g.legal_moves()[0]); obs.sync()
    >>> bool((obs.observe(1) == encode_observation(g.view(1))).all())
    True
    """

    __slots__ = ("_b", "_bv", "_counts", "_game", "_idx", "_last", "_o", "_others", "_own", "_s")

    _b: array[float]
    _bv: ObsArray
    _counts: list[int]
    _idx: tuple[npt.NDArray[np.intp], ...]
    _last: Move | None  # the last move synced (None before the first)
    _o: ObsOffsets
    _others: tuple[tuple[int, ...], ...]  # per seat: where the other seats' private vectors start
    _own: list[int]  # per seat: where its face-down row card's block starts, -1 if none
    _s: list[int]

    def __init__(self, game: Game) -> None:
        self._game = game
        self._rebuild()

    # ------------------------------------------------------------------ reading

    def observe(self, seat: int) -> ObsArray:
        """A fresh ``float32`` vector: ``encode_observation(game.view(seat))`` as of the last sync."""
        return self._bv.take(self._idx[seat])

    def observe_into(self, seat: int, out: ObsArray) -> None:
        """Write :meth:`observe`'s vector into ``out`` (a ``float32`` array of the observation's length)."""
        self._bv.take(self._idx[seat], out=out)

    @property
    def game(self) -> Game:
        return self._game

    def clone(self, game: Game) -> Observer:
        """A copy for ``game``, a clone of this observer's game at the same position."""
        c = Observer.__new__(Observer)
        c._game = game
        c._o = self._o
        c._idx = self._idx
        c._others = self._others
        c._b = array("f", self._b)
        c._bv = np.frombuffer(c._b, np.float32)
        c._s = self._s[:]
        c._own = self._own[:]
        c._counts = self._counts[:]
        c._last = self._last
        return c

    # ------------------------------------------------------------------ updating

    def sync(self) -> None:
        """Bring the vectors up to the game's current position (call after each move)."""
        g = self._game
        ply = g.ply
        s = self._s
        if ply != s[0] + 1 or (ply > 1 and g.move_at(-2) is not self._last):  # not exactly one move on
            if ply != s[0] or (ply and g.move_at(-1) is not self._last):  # ... nor no move at all
                self._rebuild()
            return
        move = self._last = g.move_at(-1)
        # s: [ply, phase, to_move, high bidder, face-up cards, start, round index]
        B = self._b
        o = self._o
        n = o.n
        mover = s[2]
        ph = PHASE_INDEX[g.phase]
        kind = move.kind
        if ph == OVER or (ph == PLACING and kind != PLACE):  # the move ended the round
            self._round_end(g, o, ph)
            return
        if kind == PLACE:
            c = move.arg
            size = o.size
            base = o.row + (len(g.row_indexes) - 1) * o.slot
            B[base + mover] = 1.0  # the owner, for everyone (R10)
            q = (1 + mover) * size  # the card: face down, known to its owner only
            B[q + o.hand + c] = 0.0
            B[q + base + n + 11 + c] = 1.0
            hidden = base + n + 21
            for q in self._others[mover]:
                B[q + hidden] = 1.0
            self._own[mover] = base
            if ph == BIDDING:  # R11: the last placement turns the first card up
                up = g.face_up
                self._reveal(g, o, 0, up)
                s[4] = up
                B[o.phase + PLACING] = 0.0
                B[o.phase + BIDDING] = 1.0
                B[o.payout] = g.next_payout / MOUSE_CARD_MAX
        elif kind == BID:  # R12 (a bid under R15's last choice ends the round: handled above)
            b = move.arg / o.total_money
            if s[3] >= 0:
                B[o.high_bidder + s[3]] = 0.0
            B[o.high_bidder + mover] = 1.0
            B[o.high_bid] = b
            B[o.bids + mover] = b
            s[3] = mover
        else:  # a pass in the auction that did not end the round (R13, R14, R15)
            k = g.passed.count(True)
            B[o.passed + mover] = 1.0
            B[o.bids + mover] = 0.0
            B[o.mouse + k - 1] = g.mouse_card_mice[k - 1] / MOUSE_CARD_MAX  # emptied if it was filled
            self._set_money(g, o, mover)  # the payout (R13), if any
            if ph == BIDDING:
                B[o.payout] = g.next_payout / MOUSE_CARD_MAX
            else:  # R15: last choice; the whole row is face up
                B[o.payout] = 0.0
                B[o.phase + BIDDING] = 0.0
                B[o.phase + LAST_CHOICE] = 1.0
            up = g.face_up
            if up > s[4]:
                self._reveal(g, o, s[4], up)
                s[4] = up
        t = g.to_move
        assert t is not None  # only a round's end can end the game (R20)
        B[o.to_move + mover] = 0.0
        B[o.to_move + t] = 1.0
        s[0] = ply
        s[1] = ph
        s[2] = t

    def _reveal(self, g: Game, o: ObsOffsets, first: int, stop: int) -> None:
        """Turn row positions ``first .. stop-1`` face up for everyone (R11, R14)."""
        B = self._b
        n = o.n
        size = o.size
        row = g.row_indexes
        owners = g.row_owners
        for pos in range(first, stop):
            card = row[pos]
            base = o.row + pos * o.slot
            B[base + n + 1 + card] = 1.0
            for v in range(n):
                B[(1 + v) * size + base + n + 21] = 0.0
            owner = owners[pos]
            if owner is not None:  # not the dummy's card (R10)
                B[(1 + owner) * size + base + n + 11 + card] = 0.0
                self._own[owner] = -1

    def _set_money(self, g: Game, o: ObsOffsets, seat: int) -> None:
        self._b[(1 + seat) * o.size + o.money] = g.money[seat] / o.total_money

    def _round_end(self, g: Game, o: ObsOffsets, ph: int) -> None:
        """The move ended a round (R15–R20): clear the row and the auction, add the won cards."""
        s = self._s
        B = self._b
        n = o.n
        size = o.size
        # The row: every position goes, for everyone.
        used = o.row_len * o.slot
        zeros = _zeros(used)
        for b in range(o.row, (n + 1) * size, size):
            B[b : b + used] = zeros
        own = self._own
        for seat in range(n):
            if own[seat] >= 0:  # a card never turned up: its owner's private entries go with it
                base = (1 + seat) * size + own[seat]
                B[base + n + 11 : base + n + 21] = _zeros(NUM_CARDS)
                own[seat] = -1
        over = ph == OVER
        if n == 3 and not over:  # R10: the dummy's next card leads the new row, face down
            self._dummy_card(o)
        # The auction: bids, high bid, high bidder and passes are contiguous.
        B[o.bids : o.passed + n] = _zeros(o.passed + n - o.bids)
        # Won piles (R16, R17): count the buyer's new cards (the one pile that grew, if any).
        counts = self._counts
        for buyer in range(n):
            first = buyer * (WON_KINDS + 1)
            pile = g.won(buyer)
            if len(pile) == counts[first + WON_KINDS]:
                continue
            sets = o.sets
            for c in pile[counts[first + WON_KINDS] :]:
                counts[first + c] += 1
                B[o.won + buyer * WON_KINDS + c] = counts[first + c] / sets
            counts[first + WON_KINDS] = len(pile)
            break
        money = g.money  # the price (R17) and the last passer's payout (R13), each in its seat's Q
        for seat in range(n):
            B[(1 + seat) * size + o.money] = money[seat] / o.total_money
        B[o.bank] = g.bank / o.total_money
        for i, v in enumerate(g.mouse_card_mice):  # R18 refill, or empty
            B[o.mouse + i] = v / MOUSE_CARD_MAX
        B[o.payout] = 0.0
        rnd = g.round - 1
        start = g.start_player
        B[o.round + s[6]] = 0.0
        B[o.round + rnd] = 1.0
        B[o.start + s[5]] = 0.0
        B[o.start + start] = 1.0
        B[o.phase + s[1]] = 0.0
        B[o.phase + ph] = 1.0
        B[o.to_move + s[2]] = 0.0
        t = g.to_move
        if t is None:  # R20, R24: every seat's money is shown at the end
            t = -1
            for seat in range(n):
                B[o.money + seat] = money[seat] / o.total_money
                B[o.money_known + seat] = 1.0
        else:
            B[o.to_move + t] = 1.0
        s[:] = [g.ply, ph, t, -1, 0, start, rnd]

    def _dummy_card(self, o: ObsOffsets) -> None:
        """R10 (3 seats): the dummy's card at the head of the row, face down for everyone."""
        n = o.n
        self._b[o.row + n] = 1.0
        for v in range(n):
            self._b[(1 + v) * o.size + o.row + n + 21] = 1.0

    def _rebuild(self) -> None:
        """Build every vector (a new game, or anything but a single move since the last sync)."""
        g = self._game
        n = g.seats
        o = self._o = observation_offsets(n)
        self._idx = tuple(_index(n, seat) for seat in range(n))
        self._others = tuple(tuple((1 + v) * o.size for v in range(n) if v != seat) for seat in range(n))
        if not g.ply:
            self._fresh(g, o)
            return
        ph = PHASE_INDEX[g.phase]
        views = [encode_observation(g.view(seat)) for seat in range(n)]
        # Seat 0's vector is in absolute order. The entries that differ between viewers are
        # read from each viewer's own vector; of the rest only seat 0's money is not public.
        pub = views[0].copy()
        if ph != OVER:
            pub[o.money] = 0.0
            pub[o.money_known] = 0.0
        self._b = array("f", np.concatenate([pub, *views]).tobytes())
        self._bv = np.frombuffer(self._b, np.float32)
        own = [-1] * n
        for seat in range(n):
            for pos in range(o.row_len):
                base = o.row + pos * o.slot
                if views[seat][base + n + 11 : base + n + 21].any():
                    own[seat] = base
        self._own = own
        counts = [0] * (n * (WON_KINDS + 1))
        for seat in range(n):
            pile = g.won(seat)
            for c in pile:
                counts[seat * (WON_KINDS + 1) + c] += 1
            counts[seat * (WON_KINDS + 1) + WON_KINDS] = len(pile)
        self._counts = counts
        t = g.to_move
        hb = g.high_bidder
        self._s = [g.ply, ph, -1 if t is None else t, -1 if hb is None else hb, g.face_up, g.start_player, g.round - 1]
        self._last = g.move_at(-1)

    def _fresh(self, g: Game, o: ObsOffsets) -> None:
        """The vectors of a game before its first move (R4–R9), written directly."""
        n = o.n
        size = o.size
        tm = o.total_money
        start = g.start_player
        money = g.money
        B = self._b = array("f", _fresh_public(n, start))
        for seat in range(n):
            B.frombytes(_hand_vector(g.hand_mask(seat), size))
            q = (1 + seat) * size
            B[q + o.removed + g.removed(seat)] = 1.0
            B[q + o.money] = money[seat] / tm
            B[q + o.money_known] = 1.0
        if n == 3:
            self._dummy_card(o)
        self._bv = np.frombuffer(B, np.float32)
        self._own = [-1] * n
        self._counts = [0] * (n * (WON_KINDS + 1))
        self._s = [0, PLACING, start, -1, 0, start, 0]
        self._last = None


@cache
def _fresh_public(n: int, start: int) -> bytes:
    """The public vector before the first move (the same for every deal with this start player)."""
    o = observation_offsets(n)
    P = array("f", bytes(4 * o.size))
    for i, v in enumerate(CARD_MICE[n][True][0]):
        P[o.mouse + i] = v / MOUSE_CARD_MAX
    P[o.bank] = (BANK_START[n] - sum(MOUSE_CARDS[n])) / o.total_money  # R6: the cards are filled at setup
    P[o.round] = 1.0
    P[o.start + start] = 1.0
    P[o.to_move + start] = 1.0
    P[o.phase + PLACING] = 1.0
    return P.tobytes()


_HANDS: dict[tuple[int, int], bytes] = {}


def _hand_vector(mask: int, size: int) -> bytes:
    """A private vector of ``size`` entries with only the hand block (which comes first) filled in."""
    key = (mask, size)
    b = _HANDS.get(key)
    if b is None:
        v = array("f", bytes(4 * size))
        for c in range(NUM_CARDS):
            if mask >> c & 1:
                v[c] = 1.0
        b = _HANDS[key] = v.tobytes()
    return b


_ZEROS: dict[int, array[float]] = {}


def _zeros(size: int) -> array[float]:
    z = _ZEROS.get(size)
    if z is None:
        z = _ZEROS[size] = array("f", bytes(4 * size))
    return z
