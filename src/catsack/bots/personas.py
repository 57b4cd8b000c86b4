"""Personas: the league's parametric opponents, each behaviour a continuous trait drawn fresh per game.

A persona plays the heuristic bot's rule (its exact row estimate, dogs included, R16, and its bid limit:
the estimate minus the payout for passing, R12, R13; :mod:`catsack.bots.heuristic`) bent by eleven traits:

============ ============ ==========================================================================
trait        range        what it does
============ ============ ==========================================================================
``over``     -3 .. 3      points added to its bid limit: a risk taker above 0, a careful bidder below
``noise``    0 .. 3       its limit moves by up to this many points either way at every decision
``bluff``    0 .. 1       the chance, where its own face-down card lowers the row by more than
                          :data:`GAP` points and two or more others are still in, to bid as if its card
                          were an average one of its set, :data:`BLUFF_OVER` points over that limit
``sandbag``  0 .. 1       the same with a good card: it stops :data:`SANDBAG_UNDER` points below the
                          average-card limit while two or more others are in
``dump``     0 .. 1       the chance to hide its worst card whatever its money (a dog-dumper)
``lead``     0 .. 1       as start player with 4-5 seats (its card shown at once, R11) and as rich as
                          anyone: the chance to lead its best card instead of its least telling one
``jump``     0 .. 1       the chance, as rich as anyone, to bid at once what no other player still in
                          can top (R12) once its limit comes within :data:`JUMP_REACH` points of it
``follow``   0 .. 1       the chance to dump behind a start player as rich as anyone (who may lead)
``thrift``   0 .. 1       saves its mice: it spends at most ``1 - thrift * rounds_left / 8`` of its
                          purse on one row, all of it in the last round
``money``    0 .. 1       values a mouse above a point early: its limit drops by
                          ``MONEY_POINTS * money * rounds_left / 8``
``open``     0 .. 1       opens big: its first bid of a round is this share of its limit (rounded down)
                          when that tops the lowest raise (R12)
============ ============ ==========================================================================

All zero is the heuristic bot's rule. A decision draws three uniform numbers (:data:`NUM_UNIFORMS`: the
noise, the bluff or sandbag coin, the placement or jump coin); :func:`persona_move` takes them
explicitly, so the compiled self-play engine (:meth:`catsack.envs.vector_numba.NumbaVectorGame.persona_actions`)
plays the very same moves from the same numbers (``tests/test_personas.py``).

:func:`draw_traits` draws a persona: each trait is off (its neutral value) with chance :data:`OFF_SHARE`,
else uniform over its range. The bot (spec ``persona``) draws fresh traits at every game, so one bot
object kept over a sitting changes style from game to game; ``persona:draw=S`` plays draw number ``S``
in every game; ``persona:draw=S+after=T`` draw ``S`` in a sitting's first game and ``T`` from the second
on; ``persona:bluff=0.8+dump=0.5`` names its traits (the others neutral); ``persona:draw=S+open=0`` pins
traits of a draw (``open`` came last, so a draw's other traits are those it had before ``open`` existed).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields, replace

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import (
    bid_limit,
    plans_to_buy,
    row_masks,
    row_worth,
    seat_money,
    unseen_cards,
    values_with_each_card,
)
from catsack.bots.styles import others_worth
from catsack.game import ROUNDS
from catsack.moves import BID, PASS_MOVE, PLACE, Move, bid
from catsack.view import View

__all__ = [
    "BLUFF_OVER",
    "GAP",
    "JUMP_REACH",
    "MONEY_POINTS",
    "NUM_TRAITS",
    "NUM_UNIFORMS",
    "OFF_SHARE",
    "RANGES",
    "SANDBAG_UNDER",
    "TRAITS",
    "PersonaBot",
    "Traits",
    "draw_traits",
    "persona_move",
]

GAP = 2.0  # points: its card counts as bad (good) when it lowers (raises) the row this much below the average
BLUFF_OVER = 2.0  # points over the average-card limit up to which a bluffing persona raises
SANDBAG_UNDER = 5.0  # points under that limit at which a sandbagging persona stops
JUMP_REACH = 4.0  # points: it jumps to the bid no one can top once its limit is this close to it
MONEY_POINTS = 6.0  # points its limit drops with ``money=1`` and eight rounds left
NUM_UNIFORMS = 3  # uniform numbers per decision: noise, bluff or sandbag coin, placement or jump coin
OFF_SHARE = 0.5  # the chance that a drawn trait is off (its neutral value)


@dataclass(frozen=True)
class Traits:
    """One persona: a value per trait (see the module's table)."""

    over: float = 0.0
    noise: float = 0.0
    bluff: float = 0.0
    sandbag: float = 0.0
    dump: float = 0.0
    lead: float = 0.0
    jump: float = 0.0
    follow: float = 0.0
    thrift: float = 0.0
    money: float = 0.0
    open: float = 0.0

    def __post_init__(self) -> None:
        for name, value in zip(TRAITS, astuple(self), strict=True):
            lo, hi = RANGES[name]
            if not lo <= value <= hi:
                raise ValueError(f"persona trait {name}={value!r} is outside {lo:g}..{hi:g}")

    def values(self) -> tuple[float, ...]:
        """The traits in :data:`TRAITS` order (the compiled engine's layout)."""
        return astuple(self)

    def spec(self) -> str:
        """The bot spec that plays these traits (``persona:over=1.2+bluff=0.4``)."""
        named = [f"{n}={v:.4g}" for n, v in zip(TRAITS, astuple(self), strict=True) if v != 0.0]
        return "persona:" + "+".join(named) if named else "heuristic"


TRAITS: tuple[str, ...] = tuple(f.name for f in fields(Traits))
NUM_TRAITS = len(TRAITS)
RANGES: dict[str, tuple[float, float]] = {name: (0.0, 1.0) for name in TRAITS} | {
    "over": (-3.0, 3.0),
    "noise": (0.0, 3.0),
}


def draw_traits(rng: random.Random) -> Traits:
    """A persona: each trait off with chance :data:`OFF_SHARE`, else uniform over its range."""
    out = []
    for name in TRAITS:
        lo, hi = RANGES[name]
        on = rng.random() >= OFF_SHARE
        value = lo + (hi - lo) * rng.random()
        out.append(value if on else 0.0)
    return Traits(*out)


def drawn(number: int) -> Traits:
    """Draw number ``number`` (the same traits everywhere, for specs and tables)."""
    return draw_traits(random.Random(f"persona-{number}"))


def persona_move(view: View, traits: Traits, u: Sequence[float]) -> Move:
    """The persona's move at ``view`` (the seat to move, more than one legal move) from three uniform numbers."""
    if view.legal[0].kind == PLACE:
        return _place(view, traits, u[2])
    return _auction(view, traits, u)


def _place(view: View, t: Traits, u: float) -> Move:
    seat = view.seat
    assert seat is not None
    pool = unseen_cards(view, seat)  # what the others think its card may be
    with_card = values_with_each_card(row_masks(view))
    average = sum(with_card[c] for c in pool) / len(pool)
    gain = [(with_card[m.arg] - average, m.arg, m) for m in view.legal]
    money = seat_money(view)
    if view.seats > 3 and view.start == seat:  # R11: its card is shown at once
        if money[seat] >= max(money) and u < t.lead:
            return max(gain, key=lambda g: (g[0], -g[1]))[2]
        return min(gain, key=lambda g: (abs(g[0]), g[1]))[2]
    worst_share = t.dump
    if view.start != seat and money[view.start] >= max(money):
        worst_share = worst_share + (1.0 - worst_share) * t.follow
    if u < worst_share or not plans_to_buy(view):
        return min(gain, key=lambda g: (g[0], g[1]))[2]
    return max(gain, key=lambda g: (g[0], -g[1]))[2]


def _auction(view: View, t: Traits, u: Sequence[float]) -> Move:
    seat = view.seat
    assert seat is not None
    legal = view.legal
    worth = row_worth(view)
    if view.phase == "last choice":  # R15: the row is face up; buy for 1 or void the round (R19)
        return legal[0] if legal[0].kind == BID and worth > 1 else PASS_MOVE
    if legal[0].kind != BID:
        return PASS_MOVE
    left = ROUNDS - view.round
    limit = bid_limit(view, worth) + t.over + t.noise * (2.0 * u[0] - 1.0) - MONEY_POINTS * t.money * left / 8.0
    others_in = [s for s, p in enumerate(view.passed) if not p and s != seat]
    if len(others_in) >= 2:
        seen = others_worth(view)
        if seen is not None:
            shown = bid_limit(view, seen)
            if worth < seen - GAP:
                if u[1] < t.bluff:
                    limit = max(limit, shown + BLUFF_OVER)
            elif worth > seen + GAP and u[1] < t.sandbag:
                limit = min(limit, shown - SANDBAG_UNDER)
    money = seat_money(view)
    mine = money[seat]
    limit = min(limit, mine * (1.0 - t.thrift * left / 8.0))
    top = max((money[s] for s in others_in), default=0)
    if mine >= max(money) and view.high_bid < top <= mine and limit + JUMP_REACH >= top and u[2] < t.jump:
        return bid(top)
    raise_to = view.high_bid + 1
    if view.bids[seat] == 0:  # its first bid of the round (R12: a standing bid is never 0)
        opening = math.floor(t.open * limit)
        if raise_to < opening <= mine:
            return bid(opening)
    if raise_to <= limit and raise_to <= mine:
        return bid(raise_to)
    return PASS_MOVE


def parse_persona(arg: str | None) -> tuple[Traits | None, Traits | None]:
    """``persona[:draw=S[+after=T]][+NAME=X...]`` -> (traits of a sitting's first game, of the later ones);
    ``(None, None)`` draws fresh traits every game. Traits named beside a draw pin those traits of it."""
    text = (arg or "").strip()
    if not text:
        return None, None
    first: Traits | None = None
    later: Traits | None = None
    named: dict[str, float] = {}
    for part in text.split("+"):
        key, sep, value = part.strip().partition("=")
        try:
            if sep and key in ("draw", "after") and int(value) >= 0:
                if key == "draw":
                    first = drawn(int(value))
                else:
                    later = drawn(int(value))
                continue
            if sep and key in RANGES:
                named[key] = float(value)
                continue
        except ValueError:
            pass
        ranges = ", ".join(f"{n} {RANGES[n][0]:g}..{RANGES[n][1]:g}" for n in TRAITS)
        raise BotSpecError(
            f"bad persona option {part!r} in {arg!r}: use 'draw=S' (S >= 0), 'draw=S+after=T', traits "
            f"NAME=X joined with '+' ({ranges}), or a draw with some traits pinned ('draw=S+open=0')"
        )
    if first is None and later is not None:
        raise BotSpecError(f"'after=T' needs 'draw=S' before it: {arg!r}")
    try:
        if first is None:
            first = Traits(**named)
        elif named:  # a draw with some traits pinned
            first = replace(first, **named)
            later = replace(later, **named) if later is not None else None
    except ValueError as exc:
        raise BotSpecError(str(exc)) from None
    return first, later if later is not None else first


class PersonaBot(Bot):
    """A persona of the league (spec ``persona``, ``persona:draw=S``, ``persona:bluff=0.8+...``)."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        self.first, self.later = parse_persona(arg)
        self.rng = random.Random(seed)
        self.games = 0
        self.traits = self.first if self.first is not None else Traits()

    def reset(self, seat: int, seats: int) -> None:
        self.games += 1
        if self.first is None:
            self.traits = draw_traits(self.rng)
        else:
            assert self.later is not None
            self.traits = self.first if self.games <= 1 else self.later

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        rand = self.rng.random
        return persona_move(view, self.traits, (rand(), rand(), rand()))
