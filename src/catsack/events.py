"""What a move caused, as public facts (R11–R20).

Events only ever carry public information (R23): a placement names the seat
and row position, never the card; a card's token appears only once it is
face up. Interfaces and logs narrate events instead of re-deriving the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from catsack.cards import Card

__all__ = [
    "BidMade",
    "Bought",
    "DogChase",
    "DogsCancel",
    "Event",
    "GameOver",
    "LastChoice",
    "Passed",
    "Placed",
    "Refill",
    "Revealed",
    "RoundStarted",
    "RoundVoid",
]


@dataclass(frozen=True, slots=True)
class Placed:
    """``seat`` put a card face down at row ``position`` (R10)."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class Revealed:
    """The card at row ``position`` was turned face up (R11, R14); owner ``None`` is the dummy."""

    position: int
    owner: int | None
    card: Card


@dataclass(frozen=True, slots=True)
class BidMade:
    """``seat`` raised the high bid to ``total`` (R12)."""

    seat: int
    total: int


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` passed and took ``payout`` mice from mouse card ``mouse_card`` (R13).

    ``mouse_card`` is the card's face value, or ``None`` when the cards were
    empty this round. A pass under R15's last choice is no auction pass: it
    voids the round and is reported as :class:`RoundVoid` instead.
    """

    seat: int
    payout: int
    mouse_card: int | None


@dataclass(frozen=True, slots=True)
class LastChoice:
    """Nobody bid: ``seat``, the last one in, may buy the row for 1 mouse or pass (R15)."""

    seat: int


@dataclass(frozen=True, slots=True)
class DogChase:
    """A lone ``dog`` chased ``cat`` (``None`` when the row had no cat) back to the box (R16)."""

    dog: Card
    cat: Card | None


@dataclass(frozen=True, slots=True)
class DogsCancel:
    """Two or more dogs went back to the box and chased no cat (R16)."""

    dogs: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Bought:
    """``seat`` bought the row for ``price`` and took ``cards`` into their won pile (R17)."""

    seat: int
    price: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RoundVoid:
    """``seat``, the last player in, passed under R15: the row went back to the box (R19)."""

    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class Refill:
    """After a round, the mouse cards were refilled (``filled``) or left empty (R18, R19)."""

    filled: bool
    bank: int


@dataclass(frozen=True, slots=True)
class RoundStarted:
    """Round ``round`` (1–9) began with ``start`` as start player (R10)."""

    round: int
    start: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The 9th round ended (R20); final ``scores`` and ``winners`` (R21, R22)."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    Placed
    | Revealed
    | BidMade
    | Passed
    | LastChoice
    | DogChase
    | DogsCancel
    | Bought
    | RoundVoid
    | Refill
    | RoundStarted
    | GameOver
)
