"""A seat's :class:`~catsack.view.View` rebuilt from its JSON form (``View.to_dict()``).

A bot playing over the network (``catsack bot connect``, docs/bot-api.md) is sent its seat's view as
JSON in each ``move`` request of ``catsack-bot/1``; :func:`view_from_dict` turns it back into the
``View`` the project's bots decide from, so any of them (and an ``external:`` program, which is sent
the view again as JSON) plays remotely exactly as it would at a local table. It holds what the JSON
holds and nothing more: the view is already only what the seat may know (R23).

Bad input raises :class:`~catsack.protocol.messages.ProtocolError` naming the field.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from catsack.cards import Card, parse_card
from catsack.errors import CatsackError
from catsack.game import RoundResult
from catsack.moves import Move, parse_move
from catsack.protocol.messages import ProtocolError
from catsack.view import RowCard, View

__all__ = ["view_from_dict"]

_T = TypeVar("_T")


def _field(d: dict[str, Any], key: str) -> Any:
    if key not in d:
        raise ProtocolError(f"the view has no field {key!r}")
    return d[key]


def _convert(key: str, value: Any, make: Callable[[Any], _T]) -> _T:
    try:
        return make(value)
    except (CatsackError, TypeError, ValueError, KeyError) as exc:
        raise ProtocolError(f"the view's field {key!r} is not valid: {exc}") from None


def _int(v: Any) -> int:
    if type(v) is not int:
        raise TypeError(f"expected an integer, got {v!r}")
    return v


def _opt_int(v: Any) -> int | None:
    return None if v is None else _int(v)


def _cards(v: Any) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in v)


def _round(d: dict[str, Any]) -> RoundResult:
    return RoundResult(
        number=_int(d["number"]),
        start=_int(d["start"]),
        row=_cards(d["row"]),
        owners=tuple(_opt_int(o) for o in d["owners"]),
        buyer=_opt_int(d["buyer"]),
        price=_opt_int(d["price"]),
        chased=_cards(d["chased"]),
        won=_cards(d["won"]),
        payouts=tuple((_int(s), _int(a)) for s, a in d["payouts"]),
        refilled=bool(d["refilled"]),
    )


def _row(d: dict[str, Any]) -> RowCard:
    card = d["card"]
    return RowCard(_opt_int(d["owner"]), None if card is None else parse_card(card), bool(d["face_up"]))


def _moves(v: Any) -> tuple[Move, ...]:
    return tuple(parse_move(t) for t in v)


def view_from_dict(d: Any) -> View:
    """The :class:`View` whose ``to_dict()`` is ``d``."""
    if not isinstance(d, dict):
        raise ProtocolError(f"a view must be a JSON object, not {type(d).__name__}")
    g = _field
    removed = g(d, "removed")
    scores = g(d, "scores")
    return View(
        seat=_convert("seat", g(d, "seat"), _opt_int),
        seats=_convert("seats", g(d, "seats"), _int),
        round=_convert("round", g(d, "round"), _int),
        phase=str(g(d, "phase")),
        to_move=_convert("to_move", g(d, "to_move"), _opt_int),
        start=_convert("start", g(d, "start"), _int),
        first_start=_convert("first_start", g(d, "first_start"), _int),
        hand=_convert("hand", g(d, "hand"), _cards),
        removed=None if removed is None else _convert("removed", removed, parse_card),
        row=_convert("row", g(d, "row"), lambda v: tuple(_row(r) for r in v)),
        mouse_cards=_convert("mouse_cards", g(d, "mouse_cards"), lambda v: tuple(_int(x) for x in v)),
        mouse_card_mice=_convert("mouse_card_mice", g(d, "mouse_card_mice"), lambda v: tuple(_int(x) for x in v)),
        next_payout=_convert("next_payout", g(d, "next_payout"), _int),
        bids=_convert("bids", g(d, "bids"), lambda v: tuple(_int(x) for x in v)),
        high_bid=_convert("high_bid", g(d, "high_bid"), _int),
        high_bidder=_convert("high_bidder", g(d, "high_bidder"), _opt_int),
        passed=_convert("passed", g(d, "passed"), lambda v: tuple(bool(x) for x in v)),
        hand_sizes=_convert("hand_sizes", g(d, "hand_sizes"), lambda v: tuple(_int(x) for x in v)),
        won=_convert("won", g(d, "won"), lambda v: tuple(_cards(w) for w in v)),
        cat_points=_convert("cat_points", g(d, "cat_points"), lambda v: tuple(_int(x) for x in v)),
        bank=_convert("bank", g(d, "bank"), _int),
        money=_convert("money", g(d, "money"), lambda v: tuple(_opt_int(x) for x in v)),
        money_visible=bool(g(d, "money_visible")),
        rounds=_convert("rounds", g(d, "rounds"), lambda v: tuple(_round(r) for r in v)),
        history=_convert("history", g(d, "history"), lambda v: tuple((_int(s), str(t)) for s, t in v)),
        legal=_convert("legal", g(d, "legal"), _moves),
        scores=None if scores is None else _convert("scores", scores, lambda v: tuple(_int(x) for x in v)),
        winners=_convert("winners", g(d, "winners"), lambda v: tuple(_int(x) for x in v)),
    )
