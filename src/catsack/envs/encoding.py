"""Integer actions, observation tensors, rewards and text, all built from one seat's view (R23).

Every environment adapter (PettingZoo, Gymnasium, OpenSpiel) shares this
module, so one agent sees the same numbers through any of them. The tables
in ``docs/envs.md`` document :data:`NUM_ACTIONS` and :func:`observation_layout`;
a test keeps the two in step.

Actions (119 for every seat count):

======= ===========================================
index   move
======= ===========================================
0..9    ``place <card>``, cards in canonical order (``+15 +11 +8 +5 +3 -5 -8 R LD SD``)
10      ``pass``
11..118 ``bid 1`` .. ``bid 108`` (action ``10 + total``; R15's buy is ``bid 1`` = 11)
======= ===========================================

Seats in the observation are relative to the viewer: relative seat 0 is the
viewer, 1 the next seat clockwise, and so on (R4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from catsack.cards import POINTS, TOKENS
from catsack.game import PHASE_NAMES, ROUNDS, Game, RoundResult
from catsack.moves import BID, BIDS, PASS, PASS_MOVE, PLACE, PLACES, Move
from catsack.setup import MOUSE_CARDS, TOTAL_MONEY, check_seats
from catsack.view import View

__all__ = [
    "ACTION_MOVES",
    "MOUSE_CARD_MAX",
    "NUM_ACTIONS",
    "PASS_ACTION",
    "PHASE_INDEX",
    "REWARD_MODES",
    "WON_KINDS",
    "ActionError",
    "Field",
    "LegalEntry",
    "ObsOffsets",
    "action_index",
    "action_mask",
    "action_to_move",
    "encode_observation",
    "encode_rounds",
    "encode_rounds_of",
    "final_rewards",
    "game_rewards",
    "legal_actions",
    "legal_entry",
    "move_to_action",
    "observation_layout",
    "observation_offsets",
    "observation_size",
    "render_text",
    "resolve_action",
    "rewards_of",
    "rounds_layout",
    "rounds_size",
    "seat_legal",
    "shared_rounds_vector",
]

NUM_CARDS: Final = 10
PASS_ACTION: Final = 10
BID_OFFSET: Final = 10  # action = BID_OFFSET + total
MAX_BID: Final = max(TOTAL_MONEY.values())  # 108: nobody can hold more mice (R5)
NUM_ACTIONS: Final = BID_OFFSET + MAX_BID + 1  # 119
REWARD_MODES: Final = ("margin", "rank", "win")
PHASE_INDEX: Final = {name: i for i, name in enumerate(PHASE_NAMES)}  # a phase name -> its entry in the phase block
MOUSE_CARD_MAX: Final = max(max(v) for v in MOUSE_CARDS.values())  # 6 mice (R3)
WON_KINDS: Final = 8  # seven cats and the rabbit can sit in a won pile; dogs never do (R16)

ObsArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]


class ActionError(ValueError):
    """An integer that is not one of the :data:`NUM_ACTIONS` actions."""


# ---------------------------------------------------------------------- actions


def action_to_move(action: int) -> Move:
    """The move an action index stands for; raise :class:`ActionError` for anything else."""
    a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else -1
    if 0 <= a < PASS_ACTION:
        return PLACES[a]
    if a == PASS_ACTION:
        return PASS_MOVE
    if PASS_ACTION < a < NUM_ACTIONS:
        return BIDS[a - BID_OFFSET]
    raise ActionError(f"not an action: {action!r} (expected an integer from 0 to {NUM_ACTIONS - 1})")


def move_to_action(move: Move) -> int:
    """The action index of a move (``place``: card index, ``pass``: 10, ``bid N``: 10 + N)."""
    if move.kind == PLACE:
        return move.arg
    if move.kind == PASS:
        return PASS_ACTION
    if move.kind == BID and move.arg <= MAX_BID:
        return BID_OFFSET + move.arg
    raise ActionError(f"move {move.text!r} has no action index (bids above {MAX_BID} are never legal, R12)")


# The move of every action index, for the adapters' hot paths.
ACTION_MOVES: Final[tuple[Move, ...]] = (*PLACES[:NUM_CARDS], PASS_MOVE, *BIDS[1 : MAX_BID + 1])


def action_index(action: Any) -> int:
    """``action`` as a plain ``int`` action index; raise :class:`ActionError` for anything else."""
    if type(action) is int and 0 <= action < NUM_ACTIONS:
        return action
    return move_to_action(action_to_move(action))  # numpy integers pass; the rest raise


# The legal-move tuples the core returns are shared, long-lived values, so the
# sorted action list of each is computed once. The tuple itself is kept in the
# cache entry: while it lives, no other object can take its id.
LegalEntry = tuple[tuple[Move, ...], list[int], MaskArray, bytes]
_LEGAL_CACHE: dict[int, LegalEntry] = {}


def legal_entry(moves: tuple[Move, ...]) -> LegalEntry:
    """(the moves, their sorted action indices, the read-only action mask, the mask's bytes), cached per tuple."""
    hit = _LEGAL_CACHE.get(id(moves))
    if hit is not None and hit[0] is moves:
        return hit
    actions = sorted(move_to_action(m) for m in moves)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[actions] = 1
    mask.flags.writeable = False
    entry = (moves, actions, mask, mask.tobytes())
    if len(_LEGAL_CACHE) < 100_000:  # bounded: hand-made tuples must not grow it forever
        _LEGAL_CACHE[id(moves)] = entry
    return entry


def legal_actions_of(moves: tuple[Move, ...]) -> list[int]:
    """The action indices of a tuple of legal moves, ascending (a fresh list)."""
    return legal_entry(moves)[1][:]


def legal_mask_of(moves: tuple[Move, ...]) -> MaskArray:
    """The 0/1 mask of a tuple of legal moves: a shared, read-only array (copy it to write)."""
    return legal_entry(moves)[2]


def resolve_action(moves: tuple[Move, ...], action: Any) -> tuple[Move, dict[str, Any] | None]:
    """The move to play for ``action`` among the legal ``moves``, and the info to report if it was replaced.

    An in-range action that is not legal is replaced by the lowest legal action
    (docs/envs.md, "Illegal actions"); anything else raises :class:`ActionError`.
    """
    a = action_index(action)
    entry = legal_entry(moves)
    if entry[3][a]:
        return ACTION_MOVES[a], None
    fallback = ACTION_MOVES[entry[1][0]]
    return fallback, {"illegal_action": a, "played": fallback.text}


def seat_legal(game: Game, seat: int) -> tuple[Move, ...]:
    """``seat``'s legal moves: the game's while it is that seat's turn, else none (as in its view, R23)."""
    return game.legal_moves() if game.to_move == seat else ()


def game_rewards(game: Game, mode: str = "margin") -> tuple[float, ...]:
    """:func:`final_rewards` of a finished game, read from its scores, cat sums and winners (public, R20-R22)."""
    return rewards_of(game.scores(), game.cat_points(), game.winners(), mode)


def legal_actions(view: View) -> list[int]:
    """The viewer's legal actions, ascending; empty when it is not the viewer's turn."""
    return legal_entry(view.legal)[1][:]


def action_mask(view: View) -> MaskArray:
    """A 0/1 ``int8`` vector of length :data:`NUM_ACTIONS` marking the viewer's legal actions."""
    return legal_entry(view.legal)[2].copy()


def lowest_legal_action(view: View) -> int:
    """The smallest legal action index: the deterministic stand-in for an illegal action."""
    actions = legal_entry(view.legal)[1]
    if not actions:
        raise ActionError(f"seat {view.seat} has no legal action now (to move: {view.to_move})")
    return actions[0]


# ---------------------------------------------------------------------- observation


@dataclass(frozen=True, slots=True)
class Field:
    """One named block of the observation vector: ``vector[start : start + size]``."""

    name: str
    start: int
    size: int
    meaning: str


@dataclass(frozen=True, slots=True)
class ObsOffsets:
    """Where each block of the observation vector starts (:func:`observation_layout` names them)."""

    n: int
    row_len: int
    slot: int
    hand: int
    removed: int
    row: int
    mouse: int
    payout: int
    bids: int
    high_bid: int
    high_bidder: int
    passed: int
    won: int
    bank: int
    money: int
    money_known: int
    round: int
    start: int
    to_move: int
    phase: int
    size: int
    total_money: float
    sets: float


@cache
def observation_offsets(seats: int) -> ObsOffsets:
    """The observation vector's block offsets for ``seats`` players (shared, cached)."""
    n = check_seats(seats)
    row_len = n + 1 if n == 3 else n  # R10: with 3 seats the dummy adds a card
    slot = (n + 1) + NUM_CARDS + NUM_CARDS + 1
    m = len(MOUSE_CARDS[n])
    pos = 0

    def take(size: int) -> int:
        nonlocal pos
        start = pos
        pos += size
        return start

    hand = take(NUM_CARDS)
    removed = take(NUM_CARDS)
    row = take(row_len * slot)
    mouse = take(m)
    payout = take(1)
    bids = take(n)
    high_bid = take(1)
    high_bidder = take(n)
    passed = take(n)
    won = take(n * WON_KINDS)
    bank = take(1)
    money = take(n)
    money_known = take(n)
    rnd = take(ROUNDS)
    start = take(n)
    to_move = take(n)
    phase = take(len(PHASE_NAMES))
    return ObsOffsets(
        n,
        row_len,
        slot,
        hand,
        removed,
        row,
        mouse,
        payout,
        bids,
        high_bid,
        high_bidder,
        passed,
        won,
        bank,
        money,
        money_known,
        rnd,
        start,
        to_move,
        phase,
        pos,
        float(TOTAL_MONEY[n]),
        float(n + 1 if n == 3 else n),  # sets in play: one per seat, plus the dummy's (R8)
    )


def observation_size(seats: int) -> int:
    """Length of the observation vector for ``seats`` players (3: 183, 4: 203, 5: 250)."""
    return observation_offsets(seats).size


def observation_layout(seats: int) -> list[Field]:
    """The observation vector's blocks in order, with what each entry means (docs/envs.md)."""
    o = observation_offsets(seats)
    n = o.n
    money = f"/ {TOTAL_MONEY[n]} (total mice in play, R5)"
    sets = f"/ {int(o.sets)} (sets in play)"
    fields = [
        Field("hand", o.hand, NUM_CARDS, "1 if the card (canonical order) is in the viewer's hand"),
        Field("removed", o.removed, NUM_CARDS, "one-hot: the card removed from the viewer's set (R7)"),
    ]
    for p in range(o.row_len):
        base = o.row + p * o.slot
        fields += [
            Field(
                f"row[{p}].owner",
                base,
                n + 1,
                "one-hot owner: relative seat 0..n-1, last entry = the dummy (R8); all 0 = empty slot",
            ),
            Field(f"row[{p}].face_up", base + n + 1, NUM_CARDS, "one-hot card if the slot is face up (R11, R14)"),
            Field(f"row[{p}].own_face_down", base + n + 11, NUM_CARDS, "one-hot card if it is the viewer's, face down"),
            Field(f"row[{p}].hidden", base + n + 21, 1, "1 if the slot holds a card the viewer cannot see"),
        ]
    fields += [
        Field("mouse_card_mice", o.mouse, o.payout - o.mouse, "mice on each mouse card (R6 order) / 6"),
        Field("next_payout", o.payout, 1, "what the next passer receives / 6 (R13)"),
        Field("bids", o.bids, n, f"standing bid per relative seat {money}"),
        Field("high_bid", o.high_bid, 1, f"high bid {money}"),
        Field("high_bidder", o.high_bidder, n, "one-hot relative seat of the high bidder (all 0: none)"),
        Field("passed", o.passed, n, "1 per relative seat that passed this round"),
        Field("won", o.won, n * WON_KINDS, f"won-pile count per relative seat x (+15 +11 +8 +5 +3 -5 -8 R) {sets}"),
        Field("bank", o.bank, 1, f"bank {money}"),
        Field("money", o.money, n, f"money per relative seat {money}; 0 where hidden (R24)"),
        Field("money_known", o.money_known, n, "1 where that seat's money is visible (own always; R24)"),
        Field("round", o.round, ROUNDS, "one-hot round 1..9"),
        Field("start", o.start, n, "one-hot relative seat of this round's start player"),
        Field("to_move", o.to_move, n, "one-hot relative seat to move (all 0 once the game is over)"),
        Field("phase", o.phase, len(PHASE_NAMES), "one-hot phase: placement, bidding, last choice, over"),
    ]
    return fields


def _won_block(view: View) -> ObsArray:
    """The ``won`` block for the viewer: the same for every view of the same finished rounds (R17)."""
    me = view.seat
    assert me is not None
    n = view.seats
    key = (id(view.won), me, n)
    hit = _WON_BLOCKS.get(key)
    if hit is not None and hit[0] is view.won:
        return hit[1]
    counts = [0] * (n * WON_KINDS)
    for s, pile in enumerate(view.won):
        base = ((s - me) % n) * WON_KINDS
        for c in pile:
            counts[base + c] += 1
    sets = observation_offsets(n).sets
    block = np.array([k / sets for k in counts], np.float32)  # one rounding per entry (as the Observer)
    if len(_WON_BLOCKS) >= 256:
        _WON_BLOCKS.clear()
    _WON_BLOCKS[key] = (view.won, block)  # the entry keeps the piles alive: their id stays unique
    return block


_WON_BLOCKS: dict[tuple[int, int, int], tuple[object, ObsArray]] = {}


def encode_observation(view: View, out: ObsArray | None = None) -> ObsArray:
    """The ``float32`` observation vector of a seat's view; every entry lies in [0, 1].

    ``out`` (length :func:`observation_size`) is overwritten and returned when given.
    """
    me = view.seat
    if me is None:
        raise ValueError("an observation needs a seat's view, not the public view (R23)")
    o = observation_offsets(view.seats)
    n = o.n
    if out is None:
        out = np.zeros(o.size, np.float32)
    else:
        if out.shape != (o.size,):
            raise ValueError(f"out has shape {out.shape}, expected ({o.size},) for {n} seats")
        out.fill(0.0)
    # numpy pays per call, not per element: gather indices and values, then write them at once.
    hand = o.hand
    ones = [hand + c for c in view.hand]
    if view.removed is not None:
        ones.append(o.removed + view.removed)
    slot = o.slot
    base = o.row
    for rc in view.row:
        owner = rc.owner
        ones.append(base + (n if owner is None else (owner - me) % n))
        card = rc.card
        if card is None:
            ones.append(base + n + 21)
        elif rc.face_up:
            ones.append(base + n + 1 + card)
        else:
            ones.append(base + n + 11 + card)
        base += slot
    tm = o.total_money
    at = [o.payout, o.high_bid, o.bank]
    vals = [view.next_payout / MOUSE_CARD_MAX, view.high_bid / tm, view.bank / tm]
    for i, mice in enumerate(view.mouse_card_mice):
        at.append(o.mouse + i)
        vals.append(mice / MOUSE_CARD_MAX)
    if view.high_bidder is not None:
        ones.append(o.high_bidder + (view.high_bidder - me) % n)
    bids = view.bids
    passed = view.passed
    money = view.money
    for s in range(n):
        r = (s - me) % n
        if bids[s]:
            at.append(o.bids + r)
            vals.append(bids[s] / tm)
        if passed[s]:
            ones.append(o.passed + r)
        m = money[s]
        if m is not None:
            at.append(o.money + r)
            vals.append(m / tm)
            ones.append(o.money_known + r)
    if view.won != _NO_WON[n]:
        out[o.won : o.won + n * WON_KINDS] = _won_block(view)
    ones.append(o.round + view.round - 1)
    ones.append(o.start + (view.start - me) % n)
    if view.to_move is not None:
        ones.append(o.to_move + (view.to_move - me) % n)
    ones.append(o.phase + PHASE_INDEX[view.phase])
    out[ones] = 1.0
    out[at] = vals
    return out


_NO_WON: Final = {n: ((),) * n for n in MOUSE_CARDS}


# ---------------------------------------------------------------------- finished rounds


@cache
def _round_block(seats: int) -> tuple[int, int, int]:
    """(slot size, row length, block size) of one finished round in :func:`encode_rounds`."""
    n = check_seats(seats)
    row_len = n + 1 if n == 3 else n
    slot = (n + 1) + NUM_CARDS
    return slot, row_len, row_len * slot + (n + 1) + 1 + n


def rounds_size(seats: int) -> int:
    """Length of :func:`encode_rounds`' vector: one block per round (9)."""
    return ROUNDS * _round_block(seats)[2]


def rounds_layout(seats: int) -> list[Field]:
    """The blocks of one finished round (repeated for rounds 1..9, unplayed rounds all 0)."""
    n = check_seats(seats)
    slot, row_len, _ = _round_block(n)
    fields = []
    for p in range(row_len):
        fields += [
            Field(f"row[{p}].owner", p * slot, n + 1, "one-hot owner: relative seat, last entry = the dummy"),
            Field(f"row[{p}].card", p * slot + n + 1, NUM_CARDS, "one-hot card (every card is shown by the end, R14)"),
        ]
    b = row_len * slot
    fields += [
        Field("buyer", b, n + 1, "one-hot relative seat of the buyer; last entry = void round (R19)"),
        Field("price", b + n + 1, 1, f"price / {TOTAL_MONEY[n]}"),
        Field("pass_order", b + n + 2, n, "per relative seat: k / n if it was the k-th to pass (R13), else 0"),
    ]
    return fields


def encode_rounds(view: View) -> ObsArray:
    """Public summary of every finished round, relative to the viewer (``float32``, in [0, 1]).

    Together with :func:`encode_observation` this is the OpenSpiel
    information-state tensor. It keeps each finished round's row, owners,
    buyer, price and pass order; it drops the order of bids within a round.
    The result is a fresh array (callers may write into it).
    """
    me = view.seat
    if me is None:
        raise ValueError("a round summary needs a seat's view, not the public view (R23)")
    return encode_rounds_of(view.rounds, me, view.seats)


def encode_rounds_of(rounds: tuple[RoundResult, ...], me: int, n: int) -> ObsArray:
    """:func:`encode_rounds` from the finished rounds (public, R14, R17) for viewer ``me`` of ``n`` seats."""
    return shared_rounds_vector(rounds, me, n).copy()


def shared_rounds_vector(rounds: tuple[RoundResult, ...], me: int, n: int) -> ObsArray:
    """The cached (shared, not to be written) vector of :func:`encode_rounds_of`."""
    # Finished rounds change once a round, not once a move: encode each (rounds, viewer) once,
    # and a round that extends the previous rounds of this viewer by one adds one block.
    key = (id(rounds), me, n)
    hit = _ROUND_BLOCKS.get(key)
    if hit is not None and hit[0] is rounds:
        return hit[1]
    prev = _LATEST_ROUNDS.get((me, n))
    k = len(rounds) - 1
    if prev is not None and len(prev[0]) == k and all(a is b for a, b in zip(prev[0], rounds[:k], strict=True)):
        out = prev[1].copy()
        _write_rounds(out, rounds[k:], me, n)
    else:
        out = np.zeros(rounds_size(n), np.float32)
        _write_rounds(out, rounds, me, n)
    if len(_ROUND_BLOCKS) >= 256:
        _ROUND_BLOCKS.clear()
    _ROUND_BLOCKS[key] = (rounds, out)  # the entry keeps ``rounds`` alive: its id stays unique
    _LATEST_ROUNDS[me, n] = (rounds, out)
    return out


def _write_rounds(out: ObsArray, rounds: tuple[RoundResult, ...], me: int, n: int) -> None:
    slot, row_len, block = _round_block(n)
    ones: list[int] = []
    tm = float(TOTAL_MONEY[n])
    for r in rounds:
        base = (r.number - 1) * block
        for p, (owner, card) in enumerate(zip(r.owners, r.row, strict=True)):
            ones.append(base + p * slot + (n if owner is None else (owner - me) % n))
            ones.append(base + p * slot + n + 1 + card)
        b = base + row_len * slot
        ones.append(b + (n if r.buyer is None else (r.buyer - me) % n))
        if r.price is not None:
            out[b + n + 1] = r.price / tm
        for k, (seat, _mice) in enumerate(r.payouts, start=1):
            out[b + n + 2 + (seat - me) % n] = k / n
    out[ones] = 1.0


_LATEST_ROUNDS: dict[tuple[int, int], tuple[tuple[RoundResult, ...], ObsArray]] = {}
_ROUND_BLOCKS: dict[tuple[int, int, int], tuple[object, ObsArray]] = {}


# ---------------------------------------------------------------------- rewards


def final_rewards(view: View, mode: str = "margin") -> tuple[float, ...]:
    """Each seat's terminal reward from a finished game's view (any seat's, or the public one).

    - ``margin``: score minus the table's average score (R21); sums to 0.
    - ``rank``: (seats beaten − seats that beat it) / (seats − 1), comparing
      score then cat sum (R22); in [−1, 1], sums to 0.
    - ``win``: 1 / (number of winners) for each winner (R22: shared wins are
      split), 0 for the others.
    """
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
    if view.scores is None:
        raise ValueError(f"rewards need a finished game; this one is in round {view.round}, {view.phase}")
    return rewards_of(view.scores, view.cat_points, view.winners, mode)


def rewards_of(
    scores: tuple[int, ...], cat_points: tuple[int, ...], winners: tuple[int, ...], mode: str = "margin"
) -> tuple[float, ...]:
    """:func:`final_rewards` from the final scores, cat points and winners (all public at the end, R21, R22)."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
    n = len(scores)
    if mode == "margin":
        mean = sum(scores) / n
        return tuple(float(s - mean) for s in scores)
    if mode == "rank":
        keys = list(zip(scores, cat_points, strict=True))
        return tuple((sum(k > o for o in keys) - sum(k < o for o in keys)) / (n - 1) for k in keys)
    share = 1.0 / len(winners)
    return tuple(share if s in winners else 0.0 for s in range(n))


def reward_range(seats: int, mode: str) -> tuple[float, float]:
    """Bounds no terminal reward of ``mode`` can leave (loose for ``margin``)."""
    n = check_seats(seats)
    if mode == "rank":
        return -1.0, 1.0
    if mode == "win":
        return 0.0, 1.0
    if mode != "margin":
        raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
    sets = n + 1 if n == 3 else n
    best = TOTAL_MONEY[n] + sets * sum(p for p in POINTS if p > 0)  # all mice and every positive cat
    worst = sets * sum(p for p in POINTS if p < 0)  # no mice, every negative cat
    spread = float(best - worst)
    return -spread, spread


# ---------------------------------------------------------------------- text


def render_text(view: View) -> str:
    """A plain-text picture of a view (the ``ansi`` render mode of the environments)."""
    n = view.seats
    who = "spectator" if view.seat is None else f"seat {view.seat}"
    mover = "game over" if view.to_move is None else f"seat {view.to_move} to move"
    lines = [f"Felix, {n} seats, as {who}: round {view.round}/9, {view.phase}, {mover}, start seat {view.start}"]
    slots = []
    for rc in view.row:
        owner = "D" if rc.owner is None else str(rc.owner)
        card = "??" if rc.card is None else TOKENS[rc.card]
        slots.append(f"[{owner}:{card}{'' if rc.face_up or rc.card is None else '*'}]")
    lines.append("Row: " + (" ".join(slots) if slots else "(empty)") + "   (* = face down, known only to you)")
    cards = " ".join(f"{v}:{m}" for v, m in zip(view.mouse_cards, view.mouse_card_mice, strict=True))
    lines.append(f"Mouse cards {cards}; next payout {view.next_payout}; bank {view.bank}")
    if view.phase in ("bidding", "last choice"):
        bids = " ".join("-" if p else str(b) for b, p in zip(view.bids, view.passed, strict=True))
        high = "none" if view.high_bidder is None else f"{view.high_bid} by seat {view.high_bidder}"
        lines.append(f"Bids (- passed): {bids}; high bid {high}")
    for s in range(n):
        money = "?" if view.money[s] is None else str(view.money[s])
        won = " ".join(TOKENS[c] for c in view.won[s]) or "-"
        line = f"  seat {s}: money {money}, won {won} ({view.cat_points[s]} pts)"
        if s == view.seat:
            hand = " ".join(TOKENS[c] for c in view.hand) or "-"
            removed = "?" if view.removed is None else TOKENS[view.removed]
            line += f", hand {hand}, removed {removed}"
        lines.append(line)
    if view.scores is not None:
        lines.append("Scores: " + " ".join(str(s) for s in view.scores) + f"; winners {list(view.winners)}")
    return "\n".join(lines)
