"""Pet cards (R1) and their canonical text tokens."""

from __future__ import annotations

from enum import IntEnum

from catsack.errors import ParseError

__all__ = ["CARDS", "CATS", "DOGS", "POINTS", "TOKENS", "Card", "parse_card"]


class Card(IntEnum):
    """One pet card; its text form is the R1 token (``+15`` … ``-8``, ``R``, ``LD``, ``SD``).

    The integer value is an index (0–9) in canonical order, not the card's
    points: use :attr:`points` for scoring.
    """

    P15 = 0
    P11 = 1
    P8 = 2
    P5 = 3
    P3 = 4
    M5 = 5
    M8 = 6
    RABBIT = 7
    LARGE_DOG = 8
    SMALL_DOG = 9

    @property
    def token(self) -> str:
        """The canonical text token (R1)."""
        return TOKENS[self]

    @property
    def points(self) -> int:
        """Points in a won pile (R21): the cat's value, 0 for rabbit and dogs."""
        return POINTS[self]

    @property
    def is_cat(self) -> bool:
        return self <= Card.M8

    @property
    def is_dog(self) -> bool:
        return self >= Card.LARGE_DOG

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse a token exactly as written in docs/rules.md (``+15``, ``-8``, ``R``, ``LD``…)."""
        return parse_card(text)

    def __str__(self) -> str:
        return TOKENS[self]

    def __repr__(self) -> str:
        return f"Card.parse({TOKENS[self]!r})"

    def __format__(self, spec: str) -> str:
        return format(TOKENS[self], spec)


TOKENS: tuple[str, ...] = ("+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD")
POINTS: tuple[int, ...] = (15, 11, 8, 5, 3, -5, -8, 0, 0, 0)
CARDS: tuple[Card, ...] = tuple(Card)
CATS: tuple[Card, ...] = CARDS[:7]
DOGS: tuple[Card, ...] = (Card.LARGE_DOG, Card.SMALL_DOG)

_BY_TOKEN: dict[str, Card] = {t: Card(i) for i, t in enumerate(TOKENS)}


def parse_card(text: object) -> Card:
    """Return the card for a canonical token; raise :class:`~catsack.errors.ParseError` quoting the text."""
    card = _BY_TOKEN.get(text) if isinstance(text, str) else None
    if card is None:
        raise ParseError(f"not a card token: {text!r} (expected one of {' '.join(TOKENS)})")
    return card
