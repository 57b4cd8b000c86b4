"""The numba kernels behind :mod:`catsack.envs.vector_numba` (imported only when numba is wanted).

Every rule function works on **one game** ``i`` of the batched state that
:class:`~catsack.envs.vector.VectorGame` keeps in arrays (same names, same
meaning, same dtypes; ``rnd`` is ``_round``), with the seat count's constants
in the int64 array ``cf``. The batched kernels loop over games and take the
whole state as arguments in :data:`STATE_FIELDS` order; the playout kernel
runs whole games in one lane of such a state. The numpy engine is the
reference: ``tests/test_vector_numba.py`` compares the two array by array at
every ply.

The arrays are passed one by one rather than in a tuple: numba counts
references to arrays taken out of a tuple, and those atomic counts cost
about 100 ns per function call, more than a whole move.

Rule numbers (R10–R22) are those of ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import numba
import numba.core.cpu
import numpy as np

from catsack.bots.random_bot import LAST_CHOICE_BUY, MONEY_FRACTION, OVER_FRACTION, PASS_PROBABILITY
from catsack.cards import POINTS
from catsack.game import BIDDING, LAST_CHOICE, OVER, PLACING, ROUNDS

F = TypeVar("F", bound=Callable[..., Any])
Arr = Any  # numpy arrays as numba sees them

# The order of the state arrays the batched kernels take (VectorGame's attribute names without the underscore).
STATE_FIELDS: Final = (
    "hand",
    "removed",
    "dummy",
    "first_start",
    "money",
    "bank",
    "filled",
    "start",
    "to_move",
    "phase",
    "round",
    "row",
    "placed",
    "up",
    "high",
    "hseat",
    "bids",
    "passed",
    "npass",
    "won",
    "won_obs",
    "log",
    "ply",
)
# The constants of a seat count in ``cf``, an int64 array: these five, then the face-up positions after
# 0..n passes (R11, R14), then the payout to the 1st..n-th passer when the cards are filled (R13).
_SEATS: Final = 0
_ROW_LEN: Final = 1
_CARDS_TOTAL: Final = 2
_BANK_START: Final = 3
_SETS: Final = 4  # sets in play, as the observation's won block counts them (R8)
_UP_AFTER: Final = 5

UNIFORM: Final = 0  # policy codes of the compiled playouts
RANDOM_BOT: Final = 1

_NUM_CARDS: Final = 10
_PASS: Final = 10
_NUM_ACTIONS: Final = 119
_LARGE: Final = 8  # card indices (R1): 0..6 cats +15 … -8, 7 rabbit, 8 large dog, 9 small dog
_RABBIT: Final = 7
_WON_KINDS: Final = 8
_LAST_ROUND: Final = ROUNDS - 1
_START_MONEY: Final = 15  # R5
_CAT_POINTS: Final = np.array(POINTS[:_RABBIT], np.int64)  # R21: the cats' points (rabbits score 0)

# splitmix64 (Steele, Lea, Flood 2014): one 64-bit word of state, fast, passes BigCrush.
_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)
_S30: Final = np.uint64(30)
_S27: Final = np.uint64(27)
_S31: Final = np.uint64(31)
_S11: Final = np.uint64(11)
_TO_UNIT: Final = 1.0 / 9007199254740992.0  # 2**-53


# Numba counts references to the arrays handed from one compiled function to another (atomic
# operations, 40-100 ns per call in these kernels, ten times the cost of the move itself). The
# kernels never allocate an array (the callers hand in every buffer, scratch space included), so
# they are compiled without numba's reference-counting runtime (``_nrt=False``, an option numba's
# own tests use). A numba without the option compiles them with it: correct, about 10x slower.
_OPTIONS: Final[dict[str, Any]] = {"cache": True, "nogil": True}
if hasattr(getattr(numba.core.cpu, "CPUTargetOptions", None), "_nrt"):
    _OPTIONS["_nrt"] = False


def _jit(f: F) -> F:
    """``numba.njit`` for a kernel called from Python, typed for mypy (numba's decorators are untyped).

    ``cache=True`` keeps compiled code between processes: under ``NUMBA_CACHE_DIR``
    if set (the tests use a temporary one), else in ``__pycache__`` beside this file.
    """
    return cast(F, numba.njit(**_OPTIONS)(f))


def _inline(f: F) -> F:
    """``numba.njit`` for a helper of the kernels, inlined into each of them by numba.

    Inlined, ``play_random`` runs about 2.5x as fast as with calls between the
    helpers (which hand over some 20 arrays each), for about 30% more compile time.
    """
    return cast(F, numba.njit(inline="always", **_OPTIONS)(f))


# ---------------------------------------------------------------------- random numbers


@_inline
def next_u64(rs: Any) -> Any:
    """The next 64 random bits of the splitmix64 generator whose state is ``rs[0]``."""
    z = rs[0] + _GOLDEN
    rs[0] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@_inline
def uniform(rs: Any) -> float:
    """A float in [0, 1) with 53 random bits."""
    return float(next_u64(rs) >> _S11) * _TO_UNIT


# ---------------------------------------------------------------------- rules, one game


@_inline
def clear_round(
    i: int, n: int, dummy: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr,
) -> None:  # fmt: skip
    """An empty row and a fresh auction for game ``i``'s current round (R10; 3 seats: the dummy's card leads)."""
    for p in range(row.shape[1]):
        row[i, p] = -1
    if n == 3:
        row[i, 0] = dummy[i, rnd[i]]
        placed[i] = 1
    else:
        placed[i] = 0
    up[i] = 0
    high[i] = 0
    hseat[i] = -1
    for s in range(n):
        bids[i, s] = 0
        passed[i, s] = False
    npass[i] = 0


@_inline
def deal(
    i: int, start_seat: int, removed_row: Arr, dummy_row: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """Deal game ``i`` (R4–R9): the removed cards, the start player, the dummy deck (3 seats)."""
    n = cf[_SEATS]
    for s in range(n):
        for c in range(_NUM_CARDS):
            hand[i, s, c] = True
        hand[i, s, removed_row[s]] = False  # R7
        removed[i, s] = removed_row[s]
        money[i, s] = _START_MONEY  # R5
        for k in range(_WON_KINDS):
            won[i, s, k] = 0
    for r in range(ROUNDS):
        dummy[i, r] = dummy_row[r]
    for k in range(won_obs.shape[1]):
        won_obs[i, k] = 0.0
    first_start[i] = start_seat
    bank[i] = cf[_BANK_START] - cf[_CARDS_TOTAL]  # R6: the mouse cards are filled from the bank
    filled[i] = True
    start[i] = start_seat
    to_move[i] = start_seat
    phase[i] = PLACING
    rnd[i] = 0
    ply[i] = 0
    clear_round(i, n, dummy, rnd, row, placed, up, high, hseat, bids, passed, npass)


@_inline
def next_in(passed: Arr, i: int, s: int, n: int) -> int:
    """The next seat clockwise after ``s`` that has not passed (R12)."""
    for k in range(1, n):
        t = (s + k) % n
        if not passed[i, t]:
            return t
    return (s + 1) % n


@_inline
def apply(
    i: int, a: int, hand: Arr, dummy: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr, to_move: Arr, phase: Arr,
    rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr, passed: Arr, npass: Arr, won: Arr,
    won_obs: Arr, cf: Arr,
) -> None:  # fmt: skip
    """Play the legal action ``a`` in game ``i`` (R10–R20); nothing is checked here."""
    n = cf[_SEATS]
    ph = phase[i]
    s = to_move[i]
    if ph == PLACING:  # R10
        hand[i, s, a] = False
        row[i, placed[i]] = a
        placed[i] += 1
        t = (s + 1) % n
        to_move[i] = t
        if t == start[i]:  # everyone placed: the start player bids first (R12)
            phase[i] = BIDDING
            up[i] = cf[_UP_AFTER]  # R11
        return
    if ph == BIDDING:
        if a > _PASS:  # R12
            b = a - _PASS
            high[i] = b
            hseat[i] = s
            bids[i, s] = b
            to_move[i] = next_in(passed, i, s, n)
            return
        k = npass[i]  # R13: the lowest mouse card still holding mice, if they were filled
        if filled[i]:
            money[i, s] += cf[_UP_AFTER + n + 1 + k]
        passed[i, s] = True
        bids[i, s] = 0
        k += 1
        npass[i] = k
        up[i] = cf[_UP_AFTER + k]  # R14
        if k < n - 1:
            to_move[i] = next_in(passed, i, s, n)
            return
        if hseat[i] < 0:  # R15: nobody bid; the last player sees the whole row and chooses
            phase[i] = LAST_CHOICE
            for t in range(n):
                if not passed[i, t]:
                    to_move[i] = t
                    break
            up[i] = cf[_ROW_LEN]
            return
        buyer = hseat[i]  # R15: the high bidder buys
        price = high[i]
    else:  # R15's last choice: buy for 1 or void the round (R19)
        buyer = s if a != _PASS else -1
        price = 1
    # The round ends (R16–R20).
    row_len = cf[_ROW_LEN]
    if buyer >= 0:
        # R16: exactly one dog chases one cat; two or more dogs chase nothing.
        dogs = 0
        large = False
        best = 99  # the lowest cat index in the row: +15 first, without positives -5 before -8
        worst = -1  # the highest: -8 first, without negatives +3 first
        for p in range(row_len):
            c = row[i, p]
            if c >= _LARGE:
                dogs += 1
                large = c == _LARGE
            elif c < _RABBIT:
                best = min(best, c)
                worst = max(worst, c)
        prey = -1
        if dogs == 1 and worst >= 0:
            prey = best if large else worst
        for p in range(row_len):
            c = row[i, p]
            if c < _WON_KINDS:
                if c == prey:
                    prey = -1  # one cat of that kind goes back to the box
                else:
                    won[i, buyer, c] += 1  # R17
        sets = float(cf[_SETS])
        half = n * _WON_KINDS
        for t in range(n):  # the observation's won block, twice in a row (see VectorGame.observe)
            for k in range(_WON_KINDS):
                v = won[i, t, k] / sets
                won_obs[i, t * _WON_KINDS + k] = v
                won_obs[i, half + t * _WON_KINDS + k] = v
        money[i, buyer] -= price  # R17
        b = bank[i] + price
        refill = rnd[i] < _LAST_ROUND and b >= cf[_CARDS_TOTAL]  # R18: all the mouse cards or none
        bank[i] = b - cf[_CARDS_TOTAL] if refill else b
        filled[i] = refill
        start[i] = buyer  # R17: the buyer starts the next round
    else:
        filled[i] = False  # R19: no refill after a void round
    over = rnd[i] >= _LAST_ROUND
    if over:
        phase[i] = OVER  # R20
    else:
        rnd[i] += 1
        phase[i] = PLACING
        to_move[i] = start[i]
    clear_round(i, n, dummy, rnd, row, placed, up, high, hseat, bids, passed, npass)
    if over and n == 3:  # no dummy card leads a tenth round
        for p in range(row_len):
            row[i, p] = -1
        placed[i] = 0


@_inline
def legal(i: int, a: int, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> bool:
    """Whether ``a`` is legal in game ``i`` (R10, R12, R15); false once the game is over."""
    ph = phase[i]
    s = to_move[i]
    if ph == PLACING:
        return 0 <= a < _NUM_CARDS and hand[i, s, a]
    if ph == BIDDING:
        b = a - _PASS
        return a == _PASS or (_PASS < a < _NUM_ACTIONS and high[i] < b <= money[i, s])
    if ph == LAST_CHOICE:
        return a == _PASS or (a == _PASS + 1 and money[i, s] >= 1)
    return False


# ---------------------------------------------------------------------- policies, one game


@_inline
def kth_card(i: int, u: float, hand: Arr, s: int) -> int:
    """The card of seat ``s``'s hand at index ``int(u * hand size)`` (a uniform placement, R10)."""
    count = 0
    for c in range(_NUM_CARDS):
        count += hand[i, s, c]
    k = min(int(u * count), max(count - 1, 0))
    for c in range(_NUM_CARDS):
        if hand[i, s, c]:
            if k == 0:
                return c
            k -= 1
    return 0


@_inline
def uniform_action(i: int, u: float, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> int:
    """A uniformly random legal action from one draw ``u`` (as ``VectorGame.random_actions``); 0 once over."""
    ph = phase[i]
    s = to_move[i]
    if ph == PLACING:
        return kth_card(i, u, hand, s)
    if ph == OVER:
        return 0
    m = money[i, s]
    h = 0 if ph == LAST_CHOICE else high[i]
    top = min(m, 1) if ph == LAST_CHOICE else m
    nbids = max(top - h, 0)
    j = min(int(u * (nbids + 1)), nbids)  # 0: pass, else bid h + j
    return _PASS if j == 0 else _PASS + h + j


@_inline
def random_bot_action(
    i: int, u0: float, u1: float, u2: float, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr
) -> int:
    """Catsack's ``random`` bot from its three draws (as ``VectorGame._random_bot_choice``); 0 once over."""
    ph = phase[i]
    s = to_move[i]
    if ph == PLACING:
        return kth_card(i, u0, hand, s)
    m = money[i, s]
    if ph == BIDDING:
        h = high[i]
        if m <= h or u0 < PASS_PROBABILITY:
            return _PASS
        amount = min(h + 1 + int(u1 * u1 * 4), m)  # R12: a raise of 1..4, at most all the money
        cap = max(1, int(m * MONEY_FRACTION))
        if amount > cap and u2 >= OVER_FRACTION:
            return _PASS if h + 1 > cap else _PASS + cap
        return _PASS + int(amount)
    if ph == LAST_CHOICE:  # R15
        return _PASS + 1 if m >= 1 and u0 < LAST_CHOICE_BUY else _PASS
    return 0


@_inline
def policy_action(i: int, code: int, rs: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> int:
    """The move of policy ``code`` (:data:`UNIFORM` or :data:`RANDOM_BOT`) in game ``i``, drawn from ``rs``."""
    if code == RANDOM_BOT:
        u0 = uniform(rs)
        if phase[i] != BIDDING:  # RandomBot draws once to place or to choose under R15
            return random_bot_action(i, u0, 0.0, 0.0, hand, money, to_move, phase, high)
        u1 = uniform(rs)
        u2 = uniform(rs)
        return random_bot_action(i, u0, u1, u2, hand, money, to_move, phase, high)
    return uniform_action(i, uniform(rs), hand, money, to_move, phase, high)


# ---------------------------------------------------------------------- batched kernels (whole state)


@_jit
def step(
    actions: Arr, where: Arr, ended: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> tuple[int, int]:  # fmt: skip
    """Check, then play, one action in every game that is on and selected by ``where``.

    Returns ``(bad, played)``: ``bad`` the first game whose action is illegal
    (then nothing was played) or -1, ``played`` the number of moves played.
    ``ended[i]``: whether this step finished game ``i``.
    """
    num = actions.shape[0]
    for i in range(num):
        if phase[i] != OVER and where[i] and not legal(i, actions[i], hand, money, to_move, phase, high):
            return i, 0
    played = 0
    for i in range(num):
        ended[i] = False
        if phase[i] != OVER and where[i]:
            a = actions[i]
            log[i, ply[i]] = a
            ply[i] += 1
            apply(
                i, a, hand, dummy, money, bank, filled, start, to_move, phase, rnd, row, placed, up, high, hseat,
                bids, passed, npass, won, won_obs, cf,
            )  # fmt: skip
            ended[i] = phase[i] == OVER
            played += 1
    return -1, played


@_jit
def deal_many(
    idx: Arr, starts: Arr, removed_rows: Arr, dummy_rows: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """Deal the games ``idx`` as given (row ``k`` of the other arguments for game ``idx[k]``)."""
    for k in range(idx.shape[0]):
        deal(
            idx[k], starts[k], removed_rows[k], dummy_rows[k],
            hand, removed, dummy, first_start, money, bank, filled, start, to_move, phase, rnd, row, placed, up,
            high, hseat, bids, passed, npass, won, won_obs, log, ply, cf,
        )  # fmt: skip


@_jit
def uniform_actions(u: Arr, out: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> None:
    """``out[i]``: game ``i``'s uniformly random legal action for the draw ``u[i]``."""
    for i in range(u.shape[0]):
        out[i] = uniform_action(i, u[i], hand, money, to_move, phase, high)


@_jit
def random_bot_actions(u: Arr, out: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> None:
    """``out[i]``: game ``i``'s random-bot move for the draws ``u[:, i]``."""
    for i in range(u.shape[1]):
        out[i] = random_bot_action(i, u[0, i], u[1, i], u[2, i], hand, money, to_move, phase, high)


@_jit
def play_out(
    where: Arr, policies: Arr, rs: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> tuple[int, int]:  # fmt: skip
    """Play every unfinished game selected by ``where`` to its end, seat ``s`` by policy ``policies[s]``.

    The moves are logged. Returns ``(played, full)``: the moves played, and
    -1, or the game whose log is full (the caller grows the log and calls
    again: the games before it are over, it and the rest go on from where
    they stand).
    """
    width = log.shape[1]
    played = 0
    for i in range(phase.shape[0]):
        if not where[i]:
            continue
        while phase[i] != OVER:
            if ply[i] >= width:
                return played, i
            a = policy_action(i, policies[to_move[i]], rs, hand, money, to_move, phase, high)
            log[i, ply[i]] = a
            ply[i] += 1
            apply(
                i, a, hand, dummy, money, bank, filled, start, to_move, phase, rnd, row, placed, up, high, hseat,
                bids, passed, npass, won, won_obs, cf,
            )  # fmt: skip
            played += 1
    return played, -1


@_jit
def play_random(
    num_games: int, policies: Arr, rs: Arr, keep: int, scores: Arr, cats: Arr, plies: Arr, kept: Arr, scratch: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """Deal and play ``num_games`` games in game 0 of the state, seat ``s`` by policy ``policies[s]``.

    Deals are uniform (R7–R9) from the generator ``rs``. Game ``g``'s final
    scores (R21), cat sums and length go to ``scores[g]``, ``cats[g]``,
    ``plies[g]``. The first ``keep`` games also leave their deal and moves in
    ``kept`` (row ``g``: start, removed cards, dummy deck, then the actions),
    so that they can be replayed in the core engine. ``scratch``: 20 int64s.
    """
    n = cf[_SEATS]
    head = 1 + n + ROUNDS
    deck = scratch[_NUM_CARDS:]
    for g in range(num_games):
        for s in range(n):  # R7: one card of each set out, uniformly
            scratch[s] = int(uniform(rs) * _NUM_CARDS)
        start_seat = int(uniform(rs) * n)  # R9
        for c in range(_NUM_CARDS):
            deck[c] = c if n == 3 else 0
        if n == 3:  # R8: a shuffled set, its last card out unseen
            for c in range(_NUM_CARDS - 1, 0, -1):
                j = int(uniform(rs) * (c + 1))
                t = deck[c]
                deck[c] = deck[j]
                deck[j] = t
        deal(
            0, start_seat, scratch, deck,
            hand, removed, dummy, first_start, money, bank, filled, start, to_move, phase, rnd, row, placed, up,
            high, hseat, bids, passed, npass, won, won_obs, log, ply, cf,
        )  # fmt: skip
        count = 0
        while phase[0] != OVER:
            a = policy_action(0, policies[to_move[0]], rs, hand, money, to_move, phase, high)
            if g < keep:
                kept[g, head + count] = a
            apply(
                0, a, hand, dummy, money, bank, filled, start, to_move, phase, rnd, row, placed, up, high, hseat,
                bids, passed, npass, won, won_obs, cf,
            )  # fmt: skip
            count += 1
        if g < keep:
            kept[g, 0] = start_seat
            for s in range(n):
                kept[g, 1 + s] = removed[0, s]
            for r in range(ROUNDS):
                kept[g, 1 + n + r] = dummy[0, r]
        plies[g] = count
        for s in range(n):
            cat = 0
            for k in range(_RABBIT):
                cat += won[0, s, k] * _CAT_POINTS[k]
            cats[g, s] = cat
            scores[g, s] = cat + money[0, s]  # R21


# ---------------------------------------------------------------------- what a seat sees (R23)

# The observation's offsets in ``oc`` (an int64 array), in encoding.ObsOffsets' order, then the mouse
# cards' count, the dummy's row positions (R10) and the mouse card values (R6).
OBS_FIELDS: Final = (
    "hand", "removed", "row", "slot", "mouse", "payout", "bids", "high_bid", "high_bidder", "passed", "won", "bank",
    "money", "money_known", "round", "start", "to_move", "phase",
)  # fmt: skip
_O_HAND, _O_REMOVED, _O_ROW, _O_SLOT, _O_MOUSE, _O_PAYOUT, _O_BIDS, _O_HIGH_BID, _O_HIGH_BIDDER = range(9)
_O_PASSED, _O_WON, _O_BANK, _O_MONEY, _O_MONEY_KNOWN, _O_ROUND, _O_START, _O_TO_MOVE, _O_PHASE = range(9, 18)
_O_M, _O_DUMMY_SEAT, _O_CARDS = 18, 19, 20
_MOUSE_CARD_MAX: Final = 6.0  # the largest mouse card (R3) scales the mouse features


@_jit
def observe(
    viewers: Arr, out: Arr, oc: Arr, total_money: float,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """``out[i]``: game ``i``'s observation for seat ``viewers[i]``, as ``VectorGame.observe`` (R23, R24)."""
    n = cf[_SEATS]
    tm = total_money
    nw = n * _WON_KINDS
    m = oc[_O_M]
    d = oc[_O_DUMMY_SEAT]
    slot = oc[_O_SLOT]
    for i in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[i, k] = 0.0
        v = viewers[i]
        ph = phase[i]
        over = ph == OVER
        for c in range(_NUM_CARDS):  # own hand and own removed card (R7)
            out[i, oc[_O_HAND] + c] = hand[i, v, c]
        out[i, oc[_O_REMOVED] + removed[i, v]] = 1.0
        for p in range(placed[i]):  # the row (R10, R11, R14): owner, then the card face up, own face down, or hidden
            base = oc[_O_ROW] + p * slot
            if p < d:
                out[i, base + n] = 1.0  # the dummy's card
                mine = False
            else:
                owner = (start[i] + p - d) % n
                out[i, base + (owner - v) % n] = 1.0
                mine = owner == v
            card = max(row[i, p], 0)
            if p < up[i]:
                out[i, base + n + 1 + card] = 1.0
            elif mine:
                out[i, base + n + 11 + card] = 1.0
            else:
                out[i, base + n + 21] = 1.0
        k0 = npass[i]  # mouse cards still holding mice and the next payout (R13, R18)
        if filled[i] and not over:
            for k in range(k0, m):
                out[i, oc[_O_MOUSE] + k] = oc[_O_CARDS + k] / _MOUSE_CARD_MAX
            if ph == BIDDING and k0 < m:
                out[i, oc[_O_PAYOUT]] = cf[_UP_AFTER + n + 1 + min(k0, n - 1)] / _MOUSE_CARD_MAX
        for r in range(n):  # the auction (R12, R13), relative seats
            t = (v + r) % n
            out[i, oc[_O_BIDS] + r] = bids[i, t] / tm
            out[i, oc[_O_PASSED] + r] = passed[i, t]
            if r == 0 or over:  # R24: own money only until the end
                out[i, oc[_O_MONEY] + r] = money[i, t] / tm
                out[i, oc[_O_MONEY_KNOWN] + r] = 1.0
        out[i, oc[_O_HIGH_BID]] = high[i] / tm
        if hseat[i] >= 0:
            out[i, oc[_O_HIGH_BIDDER] + (hseat[i] - v) % n] = 1.0
        for k in range(nw):  # won piles (R17), rotated to the viewer
            out[i, oc[_O_WON] + k] = won_obs[i, v * _WON_KINDS + k]
        out[i, oc[_O_BANK]] = bank[i] / tm
        out[i, oc[_O_ROUND] + rnd[i]] = 1.0
        out[i, oc[_O_START] + (start[i] - v) % n] = 1.0
        if not over:
            out[i, oc[_O_TO_MOVE] + (to_move[i] - v) % n] = 1.0
        out[i, oc[_O_PHASE] + ph] = 1.0


@_jit
def legal_masks(mask: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> None:
    """``mask[i]``: the legal actions of game ``i``'s seat to move (R10, R12, R15); none once over."""
    for i in range(mask.shape[0]):
        for k in range(mask.shape[1]):
            mask[i, k] = False
        ph = phase[i]
        s = to_move[i]
        if ph == PLACING:
            for c in range(_NUM_CARDS):
                mask[i, c] = hand[i, s, c]
        elif ph == BIDDING:
            mask[i, _PASS] = True
            for b in range(high[i] + 1, min(money[i, s], _NUM_ACTIONS - 1 - _PASS) + 1):
                mask[i, _PASS + b] = True
        elif ph == LAST_CHOICE:
            mask[i, _PASS] = True
            mask[i, _PASS + 1] = money[i, s] >= 1


# ---------------------------------------------------------------------- learning inputs (R23)

# The learned agents' abstract actions (catsack.learn.fast_features): place one of the ten cards, pass,
# raise the high bid by one of RAISES, or go all in when that is none of the raises (R10, R12, R13, R15).
NUM_ABSTRACT: Final = 16
RAISES: Final = (1, 2, 4, 7)
_ALL_IN: Final = 15
_RAISE_STEPS: Final = np.array(RAISES, np.int64)
_CARD_POINTS: Final = np.array(POINTS, np.int64)  # every card's points, dogs and the rabbit 0 (R21)
LEARN_POINT_SCALE: Final = 40.0  # cat points, scores and leads
LEARN_CARD_SCALE: Final = 15.0  # one card's (expected) points
LEARN_ROW_SCALE: Final = 30.0  # the row's expected points


@_inline
def abstract_mask_one(i: int, out: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> int:
    """``out[i]``: which abstract actions stand for a legal move of game ``i``'s mover; returns how many."""
    for a in range(NUM_ABSTRACT):
        out[i, a] = False
    ph = phase[i]
    s = to_move[i]
    count = 0
    if ph == PLACING:
        for c in range(_NUM_CARDS):
            if hand[i, s, c]:
                out[i, c] = True
                count += 1
    elif ph == BIDDING:
        out[i, _PASS] = True
        count = 1
        h = high[i]
        m = money[i, s]
        for k in range(_RAISE_STEPS.shape[0]):
            if h + _RAISE_STEPS[k] <= m:
                out[i, _PASS + 1 + k] = True
                count += 1
        step = m - h
        if step > 0:
            distinct = True
            for k in range(_RAISE_STEPS.shape[0]):
                if _RAISE_STEPS[k] == step:
                    distinct = False
            if distinct:
                out[i, _ALL_IN] = True
                count += 1
    elif ph == LAST_CHOICE:
        out[i, _PASS] = True
        count = 1
        if money[i, to_move[i]] >= 1:
            out[i, _PASS + 1] = True
            count += 1
    return count


@_jit
def abstract_masks(out: Arr, counts: Arr, hand: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> None:
    """``out[i]`` (16 bools): game ``i``'s legal abstract actions; ``counts[i]`` how many (0 once over)."""
    for i in range(out.shape[0]):
        counts[i] = abstract_mask_one(i, out, hand, money, to_move, phase, high)


@_jit
def abstract_actions(abstract: Arr, out: Arr, money: Arr, to_move: Arr, phase: Arr, high: Arr) -> None:
    """``out[i]``: the action index that abstract action ``abstract[i]`` stands for in game ``i`` (legal assumed)."""
    for i in range(out.shape[0]):
        a = abstract[i]
        ph = phase[i]
        if a < _PASS or ph == OVER:
            out[i] = a if ph != OVER else 0
        elif a == _PASS:
            out[i] = _PASS
        elif ph == LAST_CHOICE:
            out[i] = _PASS + 1  # R15: buy for 1
        elif a == _ALL_IN:
            out[i] = _PASS + money[i, to_move[i]]
        else:
            out[i] = _PASS + high[i] + _RAISE_STEPS[a - _PASS - 1]


@_inline
def unseen_bits(i: int, o: int, v: int, n: int, hand: Arr, removed: Arr, dummy: Arr, phase: Arr, rnd: Arr,
                start: Arr, row: Arr, placed: Arr, up: Arr) -> int:  # fmt: skip
    """Bits of the cards of ``o``'s set (``o == n``: the dummy's) that seat ``v`` has not seen played (R7, R23).

    For ``v`` itself: its hand and removed card. For another seat: its hand, its removed card and its
    cards face down in the row (every card of a finished round was turned up, R14). For the dummy: its
    cards of this and later rounds not yet face up, and its removed card (R8).
    """
    bits = 0
    d = 1 if n == 3 else 0
    if o == n:
        bits = (1 << _NUM_CARDS) - 1
        last = rnd[i] + 1 if phase[i] == OVER or up[i] > 0 else rnd[i]
        for r in range(last):
            bits &= ~(1 << dummy[i, r])
        return bits
    for c in range(_NUM_CARDS):
        if hand[i, o, c]:
            bits |= 1 << c
    bits |= 1 << removed[i, o]
    if o != v:
        for p in range(d, placed[i]):
            if (start[i] + p - d) % n == o and p >= up[i]:
                bits |= 1 << row[i, p]
    return int(bits)


@_jit
def learn_extras(
    viewers: Arr, out: Arr, col: int, total_money: float,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """``out[i, col:]``: the learned agents' facts beyond the observation, for seat ``viewers[i]`` of game ``i``.

    All public or the viewer's own (R23, R24: every change of money is public): each seat's money and cat
    points, the viewer's lead, the unseen cards of every other set, per row slot the (expected) points and
    dog chances of its card for the viewer, the row's expected points and the viewer's headroom over the
    high bid. ``catsack.learn.fast_features`` documents the layout and computes it from a view.
    """
    n = cf[_SEATS]
    row_len = cf[_ROW_LEN]
    d = 1 if n == 3 else 0
    for i in range(out.shape[0]):
        v = viewers[i]
        k = col
        best_other = -(1 << 30)
        mine = 0
        for r in range(n):
            t = (v + r) % n
            out[i, k + r] = money[i, t] / total_money
            cat = 0
            for c in range(_RABBIT):
                cat += won[i, t, c] * _CAT_POINTS[c]
            out[i, k + n + r] = cat / LEARN_POINT_SCALE
            score = cat + money[i, t]
            if r == 0:
                mine = score
            elif score > best_other:
                best_other = score
        k += 2 * n
        out[i, k] = (mine - best_other) / LEARN_POINT_SCALE
        k += 1
        owners = n if n == 3 else n - 1  # the other seats, then the dummy (3 seats)
        for j in range(owners):
            o = (v + 1 + j) % n if j < n - 1 else n
            bits = unseen_bits(i, o, v, n, hand, removed, dummy, phase, rnd, start, row, placed, up)
            for c in range(_NUM_CARDS):
                out[i, k + c] = float((bits >> c) & 1)
            k += _NUM_CARDS
        total = 0.0
        over = phase[i] == OVER
        for p in range(row_len):
            value = 0.0
            large = 0.0
            small = 0.0
            known = 0.0
            if p < placed[i] and not over:
                card = row[i, p]
                owner = n if p < d else (start[i] + p - d) % n
                if p < up[i] or owner == v:
                    value = float(_CARD_POINTS[card])
                    large = 1.0 if card == _LARGE else 0.0
                    small = 1.0 if card == _LARGE + 1 else 0.0
                    known = 1.0
                else:
                    bits = unseen_bits(i, owner, v, n, hand, removed, dummy, phase, rnd, start, row, placed, up)
                    count = 0
                    for c in range(_NUM_CARDS):
                        if (bits >> c) & 1:
                            count += 1
                            value += _CARD_POINTS[c]
                            if c == _LARGE:
                                large += 1.0
                            elif c == _LARGE + 1:
                                small += 1.0
                    value /= count
                    large /= count
                    small /= count
            total += value
            out[i, k] = value / LEARN_CARD_SCALE
            out[i, k + 1] = large
            out[i, k + 2] = small
            out[i, k + 3] = known
            k += 4
        out[i, k] = total / LEARN_ROW_SCALE
        out[i, k + 1] = max(money[i, v] - high[i], 0) / total_money


# ---------------------------------------------------------------------- a compiled value bidder (a league anchor)

VALUE_SAMPLES: Final = 24  # sampled rows per estimate of the row's worth
_VALUE_MARGIN: Final = 1.0  # as the heuristic's MARGIN, OUTLAST_SHARE, BUY_MONEY_GAP and BUY_MIN_MONEY
_VALUE_OUTLAST: Final = 0.5
_BUY_GAP: Final = 2
_BUY_MIN: Final = 6
# The worth of a card to whoever buys a row (placement order), dogs by their usual effect (R16).
_PLACE_VALUE: Final = np.array([15.0, 11.0, 8.0, 5.0, 3.0, -5.0, -8.0, 0.0, -10.0, 4.0])


@_inline
def kept_points(cards: Arr, count: int) -> int:
    """Points the buyer keeps of ``cards[:count]`` (R16: one dog chases a cat, two or more chase none)."""
    total = 0
    dogs = 0
    large = False
    best = -99
    worst = 99
    cats = 0
    for k in range(count):
        c = cards[k]
        if c >= _LARGE:
            dogs += 1
            large = c == _LARGE
        elif c < _RABBIT:
            p = _CAT_POINTS[c]
            total += p
            best = max(best, p)
            worst = min(worst, p)
            cats += 1
    if dogs == 1 and cats:
        total -= best if large else worst
    return total


@_inline
def value_worth(i: int, v: int, n: int, rs: Arr, scratch: Arr, hand: Arr, removed: Arr, dummy: Arr, phase: Arr,
                rnd: Arr, start: Arr, row: Arr, placed: Arr, up: Arr) -> float:  # fmt: skip
    """Seat ``v``'s estimate of the row's kept points: hidden cards drawn from their owners' unseen cards (R23)."""
    d = 1 if n == 3 else 0
    total = 0.0
    for _ in range(VALUE_SAMPLES):
        for p in range(placed[i]):
            owner = n if p < d else (start[i] + p - d) % n
            if p < up[i] or owner == v:
                scratch[p] = row[i, p]
            else:
                bits = unseen_bits(i, owner, v, n, hand, removed, dummy, phase, rnd, start, row, placed, up)
                count = 0
                for c in range(_NUM_CARDS):
                    count += (bits >> c) & 1
                k = min(int(uniform(rs) * count), count - 1)
                for c in range(_NUM_CARDS):
                    if (bits >> c) & 1:
                        if k == 0:
                            scratch[p] = c
                            break
                        k -= 1
        total += kept_points(scratch, placed[i])
    return total / VALUE_SAMPLES


@_jit
def value_bot_actions(
    rs: Arr, out: Arr, scratch: Arr,
    hand: Arr, removed: Arr, dummy: Arr, first_start: Arr, money: Arr, bank: Arr, filled: Arr, start: Arr,
    to_move: Arr, phase: Arr, rnd: Arr, row: Arr, placed: Arr, up: Arr, high: Arr, hseat: Arr, bids: Arr,
    passed: Arr, npass: Arr, won: Arr, won_obs: Arr, log: Arr, ply: Arr, cf: Arr,
) -> None:  # fmt: skip
    """``out[i]``: the move of a simple value bidder in game ``i`` (0 once over), from the mover's information only.

    Like the heuristic bot, in a simpler form: it bids one mouse over the high bid while that stays within its
    estimate of the row (sampled) less the payout for passing and a mouse of margin, plus half the extra payout of
    outlasting two or more others (R12, R13); buys in the last choice when the row is worth more than 1 (R15); and
    places its best card when it expects to buy (about as rich as the richest other, 6 mice or more), its worst when
    not, and its least telling card when it is placed face up at once (R10, R11).
    """
    n = cf[_SEATS]
    for i in range(out.shape[0]):
        ph = phase[i]
        v = to_move[i]
        if ph == OVER:
            out[i] = 0
            continue
        if ph == PLACING:
            richest = 0
            for t in range(n):
                if t != v and money[i, t] > richest:
                    richest = money[i, t]
            face_up = n > 3 and start[i] == v
            buy = money[i, v] >= _BUY_MIN and money[i, v] >= richest - _BUY_GAP
            pick = -1
            key = 0.0
            for c in range(_NUM_CARDS):
                if not hand[i, v, c]:
                    continue
                value = _PLACE_VALUE[c]
                k = abs(value) if face_up else (-value if buy else value)
                if pick < 0 or k < key:
                    pick = c
                    key = k
            out[i] = pick
            continue
        worth = value_worth(i, v, n, rs, scratch, hand, removed, dummy, phase, rnd, start, row, placed, up)
        if ph == LAST_CHOICE:
            out[i] = _PASS + 1 if worth > 1.0 and money[i, v] >= 1 else _PASS
            continue
        k = npass[i]
        payout = cf[_UP_AFTER + n + 1 + min(k, n - 1)] if filled[i] else 0
        limit = worth - payout - _VALUE_MARGIN
        others = 0
        for t in range(n):
            if t != v and not passed[i, t]:
                others += 1
        if payout and others >= 2:
            later = max(cf[_UP_AFTER + n + 1 + min(k + 1, n - 1)], payout)  # the last mouse card pays on
            limit += _VALUE_OUTLAST * (later - payout)
        raise_to = high[i] + 1
        out[i] = _PASS + raise_to if raise_to <= money[i, v] and raise_to <= limit else _PASS
