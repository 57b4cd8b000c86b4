"""Moves (R10, R12, R13, R15) as small frozen values with one canonical text form.

``place <token>``, ``bid <total>`` and ``pass``. Under R15's last choice the
buy for 1 mouse is written ``bid 1``. Moves never name a seat: the seat to
move is always fixed by the rules.
"""

from __future__ import annotations

from typing import Final

from catsack.cards import CARDS, TOKENS, Card, parse_card
from catsack.errors import ParseError

__all__ = ["BID", "PASS", "PASS_MOVE", "PLACE", "Move", "bid", "parse_move", "place"]

PLACE: Final = 0
BID: Final = 1
PASS: Final = 2

# Bids above this are never legal (it is the total money of a 5-player game),
# but they still parse: legality is the game's business, not the parser's.
_MAX_INTERNED_BID: Final = 108
_MAX_BID_DIGITS: Final = 9


class Move:
    """A move value: hashable, comparable, with exact ``parse``/``str`` round-trip."""

    __slots__ = ("_text", "arg", "kind")

    kind: int
    arg: int
    _text: str

    def __init__(self, kind: int, arg: int = 0) -> None:
        if kind == PLACE:
            if not 0 <= arg < len(CARDS):
                raise ParseError(f"not a card index: {arg!r}")
            text = "place " + TOKENS[arg]
        elif kind == BID:
            if type(arg) is not int or not 1 <= arg < 10**_MAX_BID_DIGITS:
                raise ParseError(f"a bid must be a whole number from 1 to {10**_MAX_BID_DIGITS - 1}, not {arg!r}")
            text = f"bid {arg}"
        elif kind == PASS:
            arg = 0
            text = "pass"
        else:
            raise ParseError(f"not a move kind: {kind!r}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "arg", arg)
        object.__setattr__(self, "_text", text)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    @property
    def card(self) -> Card:
        """The card of a ``place`` move."""
        if self.kind != PLACE:
            raise AttributeError(f"{self._text!r} is not a place move")
        return CARDS[self.arg]

    @property
    def amount(self) -> int:
        """The total of a ``bid`` move."""
        if self.kind != BID:
            raise AttributeError(f"{self._text!r} is not a bid")
        return self.arg

    @property
    def text(self) -> str:
        return self._text

    @property
    def is_place(self) -> bool:
        return self.kind == PLACE

    @property
    def is_bid(self) -> bool:
        return self.kind == BID

    @property
    def is_pass(self) -> bool:
        return self.kind == PASS

    @classmethod
    def parse(cls, text: str) -> Move:
        return parse_move(text)

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Move.parse({self._text!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is Move:
            return self.kind == other.kind and self.arg == other.arg
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.arg))

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (parse_move, (self._text,))


PLACES: tuple[Move, ...] = tuple(Move(PLACE, c) for c in range(len(CARDS)))
PASS_MOVE: Final = Move(PASS)
# BIDS[b] is ``bid b``; index 0 is never a bid and only pads the table.
BIDS: tuple[Move, ...] = (PASS_MOVE, *(Move(BID, b) for b in range(1, _MAX_INTERNED_BID + 1)))

_BY_TEXT: dict[str, Move] = {m.text: m for m in PLACES + BIDS[1:] + (PASS_MOVE,)}


def place(card: Card | str) -> Move:
    """The move placing ``card`` (a :class:`~catsack.cards.Card` or its token)."""
    if isinstance(card, str):
        card = parse_card(card)
    return PLACES[card]


def bid(total: int) -> Move:
    """The move bidding ``total`` mice in all this round (R12)."""
    if type(total) is int and 1 <= total <= _MAX_INTERNED_BID:
        return BIDS[total]
    return Move(BID, total)


def parse_move(text: object) -> Move:
    """Parse canonical move text; raise :class:`~catsack.errors.ParseError` quoting the text."""
    move = _BY_TEXT.get(text) if isinstance(text, str) else None
    if move is not None:
        return move
    if not isinstance(text, str):
        raise ParseError(f"a move must be text such as 'place +11', 'bid 3' or 'pass', not {text!r}")
    if text.startswith("bid "):
        digits = text[4:]
        if digits.isascii() and digits.isdigit() and digits[0] != "0" and len(digits) <= _MAX_BID_DIGITS:
            return Move(BID, int(digits))
        raise ParseError(f"not a move: {text!r} (a bid is 'bid N' with N a whole number from 1)")
    if text.startswith("place "):
        raise ParseError(f"not a move: {text!r} (unknown card token; expected one of {' '.join(TOKENS)})")
    raise ParseError(f"not a move: {text!r} (expected 'place <token>', 'bid <total>' or 'pass')")
