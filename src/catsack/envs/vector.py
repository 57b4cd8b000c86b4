"""Many games at once in numpy arrays: a batched engine for simulation and reinforcement learning.

:class:`VectorGame` holds ``num_games`` games of one seat count and plays one
move in **every** unfinished game per :meth:`~VectorGame.step`, with array
operations instead of a Python loop per game (the approach of pgx). Every
game follows the same rules as :class:`catsack.game.Game` (R4–R22), speaks
the same integer actions (:mod:`catsack.envs.encoding`) and gives each seat
the very observation vector ``encode_observation(game.view(seat))`` would:
``tests/test_vector.py`` replays every batched game in the core engine and
compares legal actions, observations, scores and rewards at every ply.

>>> import numpy as np
>>> from catsack.envs.vector import VectorGame
>>> games = VectorGame(256, seats=4, seed=1)
>>> rng = np.random.default_rng(1)
>>> while not games.terminated.all():
...     obs = games.observe()             # (256, 203) float32, each game's seat to move
...     mask = games.legal_action_mask()  # (256, 119) bool
...     ended = games.step(games.random_actions(rng))  # or your policy's choice from obs and mask
>>> games.rewards("win").sum(axis=1).round(6).tolist() == [1.0] * 256
True

A game that has ended ignores the actions given for it until :meth:`reset`
deals it anew (``games.reset(games.terminated)`` is the usual auto-reset).
:meth:`record` exports any game as a ``catsack/1`` record, to replay,
analyse or show it with the rest of catsack.

Hidden information: :meth:`observe` and :meth:`legal_action_mask` give each
game's chosen seat only what R23 lets it know; the arrays on the object hold
the whole truth (hands, removed cards, the dummy deck) and are for the
simulator's owner, like a :class:`~catsack.game.Game`, never for a seat.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from catsack.bots.random_bot import LAST_CHOICE_BUY, MONEY_FRACTION, OVER_FRACTION, PASS_PROBABILITY
from catsack.cards import CARDS, POINTS, Card
from catsack.constants import UP_AFTER_PASSES
from catsack.envs.encoding import (
    MOUSE_CARD_MAX,
    NUM_ACTIONS,
    NUM_CARDS,
    PASS_ACTION,
    REWARD_MODES,
    WON_KINDS,
    ObsArray,
    action_to_move,
    observation_offsets,
)
from catsack.game import BIDDING, LAST_CHOICE, OVER, PLACING, ROUNDS, Game
from catsack.record import record_from_game
from catsack.setup import BANK_START, MOUSE_CARDS, START_MONEY, TOTAL_MONEY, Setup, check_seats

__all__ = ["VectorGame"]

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_LARGE: Final = int(Card.LARGE_DOG)  # card indices (R1): 0..6 cats +15 … -8, 7 rabbit, 8 large dog, 9 small dog
_SMALL: Final = int(Card.SMALL_DOG)
_MAX_BID: Final = NUM_ACTIONS - 1 - PASS_ACTION  # 108
_BIDS: Final = np.arange(1, _MAX_BID + 1)
_CAT_POINTS: Final = np.array(POINTS[:WON_KINDS], np.int64)  # won piles hold cats and rabbits (R16)


class VectorGame:
    """``num_games`` games of ``seats`` players, each stepped by one move per :meth:`step`.

    ``seed`` seeds the deals (R7–R9) of :meth:`reset`; the rules decide the rest.
    Per game, the public state is readable as arrays: :attr:`to_move`
    (``-1`` once over), :attr:`phase` (indices of
    :data:`catsack.game.PHASE_NAMES`), :attr:`round` (1–9), :attr:`terminated`.
    """

    def __init__(self, num_games: int, seats: int = 4, *, seed: int | None = None) -> None:
        if type(num_games) is not int or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, not {num_games!r}")
        n = self.seats = check_seats(seats)
        self.num_games = N = num_games
        self._o = o = observation_offsets(n)
        self._rng = np.random.default_rng(seed)
        self._ar = np.arange(N)
        self._cards = np.array(MOUSE_CARDS[n], np.int64)
        self._m = len(MOUSE_CARDS[n])
        self._cards_total = int(self._cards.sum())
        self._dummy_seat = 1 if n == 3 else 0  # R10: the dummy's card leads a 3-seat row
        self._row_len = o.row_len
        self._up_after = np.array(UP_AFTER_PASSES[n], np.int64)  # face-up positions after k passes (R11, R14)
        # Payout to the k-th passer when the cards are filled (R13), k = 0 .. n-1.
        self._pay = np.array([MOUSE_CARDS[n][k] if k < self._m else 0 for k in range(n)], np.int64)
        self._tm = float(TOTAL_MONEY[n])
        self._sets = o.sets
        # State, one row per game. The whole truth: never hand these to a seat (R23).
        self._hand = np.zeros((N, n, NUM_CARDS), np.bool_)
        self._removed = np.zeros((N, n), np.int64)
        self._dummy = np.zeros((N, ROUNDS), np.int64)
        self._first_start = np.zeros(N, np.int64)
        self._money = np.zeros((N, n), np.int64)
        self._bank = np.zeros(N, np.int64)
        self._filled = np.zeros(N, np.bool_)
        self._start = np.zeros(N, np.int64)
        self._to_move = np.zeros(N, np.int64)
        self._phase = np.zeros(N, np.int64)
        self._round = np.zeros(N, np.int64)  # 0-based; stays 8 once the game is over
        self._row = np.zeros((N, o.row_len), np.int64)
        self._placed = np.zeros(N, np.int64)  # cards in the row, the dummy's included
        self._up = np.zeros(N, np.int64)  # face-up positions: always a prefix of the row (R11, R14)
        self._high = np.zeros(N, np.int64)
        self._hseat = np.zeros(N, np.int64)
        self._bids = np.zeros((N, n), np.int64)
        self._passed = np.zeros((N, n), np.bool_)
        self._npass = np.zeros(N, np.int64)
        self._won = np.zeros((N, n, WON_KINDS), np.int64)
        # The observation's won block in absolute seat order, written twice in a row, so that
        # any viewer's rotation of it is one contiguous window (see observe).
        self._won_obs = np.zeros((N, 2 * n * WON_KINDS), np.float32)
        self._won_windows = np.lib.stride_tricks.sliding_window_view(self._won_obs, n * WON_KINDS, axis=1)
        self._log = np.zeros((N, 64), np.int16)  # each game's actions, for record()
        self._ply = np.zeros(N, np.int64)
        self.total_moves = 0  # moves played in all games since this object was made, re-deals included
        self.reset()

    # ------------------------------------------------------------------ setup

    def reset(self, where: npt.ArrayLike | None = None) -> None:
        """Deal new games (R4–R9): all of them, or those where the boolean array ``where`` is true."""
        if where is None:
            idx = self._ar
        else:
            idx = np.flatnonzero(self._games_where(where))
            if not len(idx):
                return
        k = len(idx)
        n = self.seats
        rng = self._rng
        removed = rng.integers(0, NUM_CARDS, (k, n))
        start = rng.integers(0, n, k)
        dummy = np.zeros((k, ROUNDS), np.int64)
        if n == 3:  # R8: a fourth set, shuffled, one card removed unseen
            dummy = rng.permuted(np.tile(np.arange(NUM_CARDS), (k, 1)), axis=1)[:, :ROUNDS]
        self._deal(idx, start, removed, dummy)

    def _games_where(self, where: npt.ArrayLike) -> BoolArray:
        sel = np.asarray(where)
        if sel.shape != (self.num_games,) or sel.dtype != np.bool_:
            raise ValueError(f"where must be a boolean array of shape ({self.num_games},), not {sel.dtype} {sel.shape}")
        return sel

    def _deal(self, idx: IntArray, start: IntArray, removed: IntArray, dummy: IntArray) -> None:
        n = self.seats
        hand = np.ones((len(idx), n, NUM_CARDS), np.bool_)
        hand[np.arange(len(idx))[:, None], np.arange(n), removed] = False  # R7
        self._hand[idx] = hand
        self._removed[idx] = removed
        self._dummy[idx] = dummy
        self._first_start[idx] = start
        self._money[idx] = START_MONEY  # R5
        self._bank[idx] = BANK_START[n] - self._cards_total  # R6: the mouse cards are filled from the bank
        self._filled[idx] = True
        self._start[idx] = start
        self._to_move[idx] = start
        self._phase[idx] = PLACING
        self._round[idx] = 0
        self._clear_round(idx)
        self._won[idx] = 0
        self._won_obs[idx] = 0.0
        self._ply[idx] = 0

    def _clear_round(self, idx: IntArray) -> None:
        self._row[idx] = -1
        if self.seats == 3:  # R10: the dummy deck's top card leads the row, face down
            self._row[idx, 0] = self._dummy[idx, self._round[idx]]
            self._placed[idx] = 1
        else:
            self._placed[idx] = 0
        self._up[idx] = 0
        self._high[idx] = 0
        self._hseat[idx] = -1
        self._bids[idx] = 0
        self._passed[idx] = False
        self._npass[idx] = 0

    @classmethod
    def from_setups(cls, setups: list[Setup]) -> VectorGame:
        """Games dealt as given (all with the same seat count), e.g. from records."""
        if not setups:
            raise ValueError("from_setups needs at least one setup")
        n = setups[0].seats
        if any(s.seats != n for s in setups):
            raise ValueError("all setups of a VectorGame must have the same number of seats")
        vg = cls(len(setups), n)
        start = np.array([s.start for s in setups], np.int64)
        removed = np.array([[int(c) for c in s.removed] for s in setups], np.int64)
        dummy = np.array([[int(c) for c in s.dummy] if n == 3 else [0] * ROUNDS for s in setups], np.int64)
        vg._deal(vg._ar, start, removed, dummy)
        return vg

    # ------------------------------------------------------------------ reading

    @property
    def to_move(self) -> IntArray:
        """Each game's seat to move, ``-1`` once the game is over."""
        return np.where(self._phase == OVER, -1, self._to_move)

    @property
    def phase(self) -> IntArray:
        """Each game's phase: 0 placement, 1 bidding, 2 last choice (R15), 3 over."""
        return self._phase.copy()

    @property
    def round(self) -> IntArray:
        """Each game's round, 1–9 (9 once over)."""
        return self._round + 1

    @property
    def terminated(self) -> BoolArray:
        """Which games are over (R20)."""
        over: BoolArray = self._phase == OVER
        return over

    @property
    def ply(self) -> IntArray:
        """Moves played in each game since its deal."""
        return self._ply.copy()

    def legal_action_mask(self) -> BoolArray:
        """``(num_games, 119)``: the legal actions of each game's seat to move (none once over)."""
        N = self.num_games
        mask = np.zeros((N, NUM_ACTIONS), np.bool_)
        ph = self._phase
        s = self._to_move
        placing = ph == PLACING
        mask[:, :NUM_CARDS] = self._hand[self._ar, s] & placing[:, None]  # R10
        mask[:, PASS_ACTION] = (ph == BIDDING) | (ph == LAST_CHOICE)
        money = self._money[self._ar, s]
        # R12: any total above the high bid, up to the mover's money; R15: buy for 1.
        high = np.where(ph == BIDDING, self._high, np.where(ph == LAST_CHOICE, 0, _MAX_BID))
        top = np.where(ph == LAST_CHOICE, np.minimum(money, 1), money)
        mask[:, PASS_ACTION + 1 :] = (high[:, None] < _BIDS) & (top[:, None] >= _BIDS)
        return mask

    def random_actions(self, rng: np.random.Generator) -> IntArray:
        """A uniformly random legal action for every game (0 for games that are over).

        Uses the shape of the legal sets (cards in hand; pass or any bid from
        the high bid + 1 up to the mover's money) instead of the whole mask.
        """
        N = self.num_games
        ph = self._phase
        s = self._to_move
        u = rng.random(N)
        place = self._kth_card(u)
        money = self._money[self._ar, s]
        high = np.where(ph == LAST_CHOICE, 0, self._high)
        top = np.where(ph == LAST_CHOICE, np.minimum(money, 1), money)
        nbids = np.maximum(top - high, 0)
        j = np.minimum((u * (nbids + 1)).astype(np.int64), nbids)  # 0: pass, else bid high + j
        auction = np.where(j == 0, PASS_ACTION, PASS_ACTION + high + j)
        return np.where(ph == PLACING, place, np.where(ph == OVER, 0, auction))

    def _kth_card(self, u: npt.NDArray[np.float64]) -> IntArray:
        """Per game, the card of the mover's hand at index ``int(u * hand size)`` (a uniform placement, R10)."""
        hand = self._hand[self._ar, self._to_move]
        count = hand.sum(axis=1)
        k = np.minimum((u * count).astype(np.int64), np.maximum(count - 1, 0))
        card: IntArray = np.argmax(np.cumsum(hand, axis=1) > k[:, None], axis=1)
        return card

    def random_bot_actions(self, rng: np.random.Generator) -> IntArray:
        """Every game's move by catsack's ``random`` bot (:class:`~catsack.bots.random_bot.RandomBot`).

        The same policy as that bot, drawn for all games at once: a uniform
        placement; in an auction a pass with probability 0.45, else a small
        raise, rarely above 60% of the mover's money; in the last choice (R15)
        a purchase half of the time. It uses only what the mover may know
        (its hand and money, the public phase and high bid). 0 for games that
        are over. :meth:`random_actions` is the uniform policy instead.
        """
        return self._random_bot_choice(rng.random((3, self.num_games)))

    def _random_bot_choice(self, u: npt.NDArray[np.float64]) -> IntArray:
        # u[0], u[1], u[2]: RandomBot's first, second and third rng.random() draw of its decision.
        ph = self._phase
        s = self._to_move
        place = self._kth_card(u[0])
        money = self._money[self._ar, s]
        high = self._high
        # R12: a raise of 1..4 (small ones far more often), at most all the mover's money.
        amount = np.minimum(high + 1 + (u[1] ** 2 * 4).astype(np.int64), money)
        cap = np.maximum(1, (money * MONEY_FRACTION).astype(np.int64))
        over_cap = (amount > cap) & (u[2] >= OVER_FRACTION)
        capped = np.where(high + 1 > cap, PASS_ACTION, PASS_ACTION + cap)
        raise_ = np.where(over_cap, capped, PASS_ACTION + amount)
        bidding = np.where((money <= high) | (u[0] < PASS_PROBABILITY), PASS_ACTION, raise_)
        # R15: buy for 1 (if the mover has a mouse), or pass.
        last = np.where((money >= 1) & (u[0] < LAST_CHOICE_BUY), PASS_ACTION + 1, PASS_ACTION)
        out = np.where(ph == PLACING, place, np.where(ph == BIDDING, bidding, np.where(ph == LAST_CHOICE, last, 0)))
        return out.astype(np.int64)

    def observe(self, seats: npt.ArrayLike | None = None) -> ObsArray:
        """``(num_games, size)`` float32: each game's observation for one seat (R23).

        ``seats`` is one seat for every game or an array with a seat per game;
        by default each game's seat to move (seat 0 in games that are over).
        Row ``i`` equals ``encode_observation(game_i.view(seats[i]))``.
        """
        N = self.num_games
        n = self.seats
        o = self._o
        ar = self._ar
        if seats is None:
            v = np.where(self._phase == OVER, 0, self._to_move)
        else:
            v = np.broadcast_to(np.asarray(seats), (N,)).astype(np.int64)
            if ((v < 0) | (v >= n)).any():
                raise ValueError(f"seats must lie in 0..{n - 1}")
        out = np.zeros((N, o.size), np.float32)
        over = self._phase == OVER
        tm = self._tm
        perm = (v[:, None] + np.arange(n)) % n  # relative seat r is absolute seat perm[:, r]
        arc = ar[:, None]
        out[:, o.hand : o.hand + NUM_CARDS] = self._hand[ar, v]
        out[ar, o.removed + self._removed[ar, v]] = 1.0
        # The row (R10, R11, R14): owner, then the card face up, own face down, or hidden.
        L = o.row_len
        pos = np.arange(L)
        d = self._dummy_seat
        present = pos < self._placed[:, None]
        face_up = pos < self._up[:, None]
        owner = (self._start[:, None] + pos - d) % n
        is_dummy = np.zeros(L, np.bool_)
        is_dummy[:d] = True
        owner_col = np.where(is_dummy, n, (owner - v[:, None]) % n)
        base = o.row + pos * o.slot
        card = np.maximum(self._row, 0)
        mine = ~is_dummy & (owner == v[:, None])
        card_col = np.where(face_up, n + 1 + card, np.where(mine, n + 11 + card, n + 21))
        val = present.astype(np.float32)
        out[arc, base + owner_col] = val
        out[arc, base + card_col] = val
        # Mouse cards and the next payout (R13, R18).
        live_filled = self._filled & ~over
        npass = self._npass
        kk = np.arange(self._m)
        out[:, o.mouse : o.mouse + self._m] = np.where(
            live_filled[:, None] & (kk >= npass[:, None]), self._cards / MOUSE_CARD_MAX, 0.0
        )
        paying = (self._phase == BIDDING) & self._filled & (npass < self._m)
        out[:, o.payout] = np.where(paying, self._pay[np.minimum(npass, n - 1)] / MOUSE_CARD_MAX, 0.0)
        # The auction (R12, R13).
        out[:, o.bids : o.bids + n] = self._bids[arc, perm] / tm
        out[:, o.high_bid] = self._high / tm
        hb = self._hseat >= 0
        out[ar[hb], o.high_bidder + (self._hseat[hb] - v[hb]) % n] = 1.0
        out[:, o.passed : o.passed + n] = self._passed[arc, perm]
        # Won piles (R17), bank, money (own only until the end: R24).
        out[:, o.won : o.won + n * WON_KINDS] = self._won_windows[ar, v * WON_KINDS]
        out[:, o.bank] = self._bank / tm
        money = self._money[arc, perm] / tm
        shown = np.zeros((N, n), np.bool_)
        shown[:, 0] = True
        shown |= over[:, None]
        out[:, o.money : o.money + n] = np.where(shown, money, 0.0)
        out[:, o.money_known : o.money_known + n] = shown
        # Round, start player, seat to move, phase.
        out[ar, o.round + self._round] = 1.0
        out[ar, o.start + (self._start - v) % n] = 1.0
        live = ~over
        out[ar[live], o.to_move + (self._to_move[live] - v[live]) % n] = 1.0
        out[ar, o.phase + self._phase] = 1.0
        return out

    def scores(self) -> IntArray:
        """``(num_games, seats)``: cat points plus money (R21), as of now."""
        return self.cat_points() + self._money

    def cat_points(self) -> IntArray:
        """``(num_games, seats)``: the cat sum of each won pile (R21: rabbits 0)."""
        return self._won @ _CAT_POINTS

    def winners(self) -> BoolArray:
        """``(num_games, seats)``: the leaders by score, then cat sum (R22); all false until a game is over."""
        key = self._rank_key()
        won: BoolArray = (key == key.max(axis=1, keepdims=True)) & (self._phase == OVER)[:, None]
        return won

    def _rank_key(self) -> IntArray:
        """Score, then cat sum (R22), as one integer per seat: cat sums lie within ±2047."""
        key: IntArray = self.scores() * 4096 + self.cat_points()
        return key

    def rewards(self, mode: str = "margin") -> npt.NDArray[np.float64]:
        """``(num_games, seats)`` terminal rewards (as :func:`~catsack.envs.encoding.final_rewards`); 0 until over."""
        if mode not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
        n = self.seats
        over = (self._phase == OVER)[:, None]
        scores = self.scores()
        if mode == "margin":
            r = scores - scores.mean(axis=1, keepdims=True)
        elif mode == "rank":
            key = self._rank_key()
            beats = (key[:, :, None] > key[:, None, :]).sum(axis=2)
            beaten = (key[:, :, None] < key[:, None, :]).sum(axis=2)
            r = (beats - beaten) / (n - 1)
        else:
            w = self.winners()
            r = w / np.maximum(w.sum(axis=1, keepdims=True), 1)
        return np.where(over, r, 0.0)

    # ------------------------------------------------------------------ playing

    def step(self, actions: npt.ArrayLike, where: npt.ArrayLike | None = None) -> BoolArray:
        """Play one action in every game that is not over; return which games this step finished.

        ``actions`` holds one integer per game (entries for finished games are
        ignored). ``where``, a boolean array, limits the step to those games.
        If any action to play is illegal, nothing is played and ``ValueError``
        names the first such game, its action and seat.
        """
        N = self.num_games
        a = np.asarray(actions)
        if a.shape != (N,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({N},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64)
        ph = self._phase
        s = self._to_move
        live = ph != OVER
        if where is not None:
            live &= self._games_where(where)
        ok = self._legal(a, ph, s) | ~live
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise ValueError(self._why(i, int(a[i])))
        idx = np.flatnonzero(live)
        self._record(idx, a[idx])
        ap = a[idx]
        phi = ph[idx]
        place = idx[phi == PLACING]
        if len(place):
            self._place(place, a[place])
        bidding = phi == BIDDING
        bid = idx[bidding & (ap > PASS_ACTION)]
        if len(bid):
            self._bid(bid, a[bid] - PASS_ACTION)
        pas = idx[bidding & (ap == PASS_ACTION)]
        if len(pas):
            self._pass(pas)
        last = idx[phi == LAST_CHOICE]
        if len(last):  # R15: buy for 1 ("bid 1") or pass and void the round (R19)
            buys = a[last] != PASS_ACTION
            self._finish(last, np.where(buys, self._to_move[last], -1), np.ones(len(last), np.int64))
        ended = np.zeros(N, np.bool_)
        ended[idx] = self._phase[idx] == OVER  # idx: the games that were still on
        return ended

    def _legal(self, a: IntArray, ph: IntArray, s: IntArray) -> BoolArray:
        money = self._money[self._ar, s]
        card = np.clip(a, 0, NUM_CARDS - 1)
        placing = (ph == PLACING) & (a >= 0) & (a < NUM_CARDS) & self._hand[self._ar, s, card]
        b = a - PASS_ACTION
        bidding = (ph == BIDDING) & ((a == PASS_ACTION) | ((b > self._high) & (b <= money) & (a < NUM_ACTIONS)))
        last = (ph == LAST_CHOICE) & ((a == PASS_ACTION) | ((a == PASS_ACTION + 1) & (money >= 1)))
        legal: BoolArray = placing | bidding | last
        return legal

    def _why(self, i: int, action: int) -> str:
        try:
            text = action_to_move(action).text
        except ValueError:
            return f"game {i}: {action!r} is not an action (expected 0..{NUM_ACTIONS - 1})"
        ok = np.flatnonzero(self.legal_action_mask()[i])
        return (
            f"game {i}: action {action} ({text!r}) is illegal for seat {int(self._to_move[i])} "
            f"in round {int(self._round[i]) + 1}; legal actions: {ok.tolist()}"
        )

    def _record(self, idx: IntArray, a: IntArray) -> None:
        ply = self._ply[idx]
        if len(idx) and ply.max() >= self._log.shape[1]:
            self._log = np.concatenate([self._log, np.zeros_like(self._log)], axis=1)
        self._log[idx, ply] = a
        self._ply[idx] = ply + 1
        self.total_moves += len(idx)

    def _next_in(self, idx: IntArray, s: IntArray) -> IntArray:
        """The next seat clockwise after ``s`` that has not passed (R12)."""
        n = self.seats
        seats = (s[:, None] + np.arange(1, n)) % n
        still = ~self._passed[idx[:, None], seats]
        nxt: IntArray = seats[np.arange(len(idx)), np.argmax(still, axis=1)]
        return nxt

    def _place(self, idx: IntArray, c: IntArray) -> None:
        s = self._to_move[idx]
        self._hand[idx, s, c] = False
        self._row[idx, self._placed[idx]] = c
        self._placed[idx] += 1
        t = (s + 1) % self.seats  # R10: clockwise from the start player
        self._to_move[idx] = t
        full = t == self._start[idx]  # everyone placed: the start player bids first (R12)
        done = idx[full]
        self._phase[done] = BIDDING
        self._up[done] = self._up_after[0]  # R11: the first card is turned up

    def _bid(self, idx: IntArray, b: IntArray) -> None:
        s = self._to_move[idx]
        self._high[idx] = b
        self._hseat[idx] = s
        self._bids[idx, s] = b
        self._to_move[idx] = self._next_in(idx, s)

    def _pass(self, idx: IntArray) -> None:
        n = self.seats
        s = self._to_move[idx]
        k = self._npass[idx]
        pay = np.where(self._filled[idx], self._pay[k], 0)  # R13: the lowest card still holding mice
        self._money[idx, s] += pay
        self._passed[idx, s] = True
        self._bids[idx, s] = 0
        k = k + 1
        self._npass[idx] = k
        self._up[idx] = self._up_after[k]  # R14
        going = k < n - 1
        on = idx[going]
        if len(on):
            self._to_move[on] = self._next_in(on, s[going])
        end = idx[~going]
        if len(end):  # R15: one player left
            hs = self._hseat[end]
            buy = hs >= 0
            if buy.any():
                self._finish(end[buy], hs[buy], self._high[end[buy]])
            lc = end[~buy]
            if len(lc):  # nobody bid: the last player sees the whole row and chooses
                self._phase[lc] = LAST_CHOICE
                self._to_move[lc] = np.argmin(self._passed[lc], axis=1)
                self._up[lc] = self._row_len

    def _finish(self, idx: IntArray, buyer: IntArray, price: IntArray) -> None:
        """End the round (R15–R20): ``buyer`` -1 voids it (R19)."""
        bought = buyer >= 0
        bi = idx[bought]
        if len(bi):
            b = buyer[bought]
            p = price[bought]
            row = self._row[bi]
            counts = np.zeros((len(bi), NUM_CARDS), np.int64)
            np.add.at(counts, (np.arange(len(bi))[:, None], row), 1)
            # R16: exactly one dog chases one cat; two or more dogs chase nothing.
            cats = counts[:, :7] > 0
            has_cat = cats.any(axis=1)
            one_dog = (counts[:, _LARGE] + counts[:, _SMALL]) == 1
            large_prey = np.argmax(cats, axis=1)  # +15 first; without positives -5 before -8
            small_prey = 6 - np.argmax(cats[:, ::-1], axis=1)  # -8 first; without negatives +3 first
            prey = np.where(counts[:, _LARGE] == 1, large_prey, small_prey)
            chase = np.flatnonzero(one_dog & has_cat)
            counts[chase, prey[chase]] -= 1
            self._won[bi, b] += counts[:, :WON_KINDS]
            block = self._won[bi].reshape(len(bi), -1) / self._sets
            self._won_obs[bi] = np.concatenate([block, block], axis=1)
            self._money[bi, b] -= p  # R17
            bank = self._bank[bi] + p
            # R18: refill after rounds 1-8 only if the bank can fill every card.
            filled = (self._round[bi] < ROUNDS - 1) & (bank >= self._cards_total)
            self._bank[bi] = bank - np.where(filled, self._cards_total, 0)
            self._filled[bi] = filled
            self._start[bi] = b  # R17: the buyer starts the next round
        self._filled[idx[~bought]] = False  # R19: no refill after a void round
        last = self._round[idx] >= ROUNDS - 1
        over = idx[last]
        self._phase[over] = OVER  # R20
        on = idx[~last]
        self._round[on] += 1
        self._phase[on] = PLACING
        self._to_move[on] = self._start[on]
        self._clear_round(idx)
        if self.seats == 3 and len(over):
            self._row[over] = -1
            self._placed[over] = 0

    # ------------------------------------------------------------------ export

    def setup(self, i: int) -> Setup:
        """Game ``i``'s deal (R7–R9)."""
        i = self._check_index(i)
        dummy = tuple(CARDS[int(c)] for c in self._dummy[i]) if self.seats == 3 else ()
        return Setup(self.seats, int(self._first_start[i]), tuple(CARDS[int(c)] for c in self._removed[i]), dummy)

    def actions(self, i: int) -> list[int]:
        """The actions played in game ``i`` since its deal."""
        i = self._check_index(i)
        return [int(a) for a in self._log[i, : self._ply[i]]]

    def record(self, i: int) -> dict[str, Any]:
        """Game ``i`` as a ``catsack/1`` record (docs/records.md)."""
        return record_from_game(self.to_game(i)).to_dict()

    def to_game(self, i: int) -> Game:
        """Game ``i`` replayed in the core engine (:class:`catsack.game.Game`)."""
        g = Game(self.setup(i))
        for a in self.actions(i):
            g.play(action_to_move(a))
        return g

    def _check_index(self, i: int) -> int:
        if type(i) is not int or not -self.num_games <= i < self.num_games:
            raise IndexError(f"game index must be an integer in 0..{self.num_games - 1}, not {i!r}")
        return i % self.num_games
