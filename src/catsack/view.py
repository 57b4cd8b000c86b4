"""Per-seat views (R23, R24): exactly what one seat, or a spectator, may know.

Every adapter (terminal, server, bots, environments) works from a view and
never from the game itself. A view is a frozen value: two views are equal
exactly when they show the same information, which is what the leak tests
compare after re-dealing everything hidden from the viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catsack.cards import POINTS, Card
from catsack.moves import PLACE, Move

if TYPE_CHECKING:
    from catsack.game import Game, RoundResult

__all__ = ["HIDDEN_PLACE", "RowCard", "View", "make_view"]

HIDDEN_PLACE = "place ?"  # a placement whose card the viewer may not see


@dataclass(frozen=True, slots=True)
class RowCard:
    """One row card as the viewer sees it; ``card`` is ``None`` while hidden from them."""

    owner: int | None  # None: the dummy's card (3 seats)
    card: Card | None
    face_up: bool


@dataclass(frozen=True, slots=True)
class View:
    """Everything R23 lets ``seat`` know (``seat is None``: a spectator).

    ``money`` shows ``None`` for other seats unless the R24 table option
    ``money_visible`` is on. ``history`` lists ``(seat, move text)`` for every
    move, with ``"place ?"`` where the viewer may not see the card.
    """

    seat: int | None
    seats: int
    round: int
    phase: str
    to_move: int | None
    start: int
    first_start: int
    hand: tuple[Card, ...]
    removed: Card | None
    row: tuple[RowCard, ...]
    mouse_cards: tuple[int, ...]
    mouse_card_mice: tuple[int, ...]
    next_payout: int
    bids: tuple[int, ...]
    high_bid: int
    high_bidder: int | None
    passed: tuple[bool, ...]
    hand_sizes: tuple[int, ...]
    won: tuple[tuple[Card, ...], ...]
    cat_points: tuple[int, ...]
    bank: int
    money: tuple[int | None, ...]
    money_visible: bool
    rounds: tuple[RoundResult, ...]
    history: tuple[tuple[int, str], ...]
    legal: tuple[Move, ...]
    scores: tuple[int, ...] | None  # only once the game is over
    winners: tuple[int, ...]

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def my_money(self) -> int | None:
        return None if self.seat is None else self.money[self.seat]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict using the canonical text tokens."""

        def tok(c: Card | None) -> str | None:
            return None if c is None else c.token

        return {
            "seat": self.seat,
            "seats": self.seats,
            "round": self.round,
            "phase": self.phase,
            "to_move": self.to_move,
            "start": self.start,
            "first_start": self.first_start,
            "hand": [c.token for c in self.hand],
            "removed": tok(self.removed),
            "row": [{"owner": r.owner, "card": tok(r.card), "face_up": r.face_up} for r in self.row],
            "mouse_cards": list(self.mouse_cards),
            "mouse_card_mice": list(self.mouse_card_mice),
            "next_payout": self.next_payout,
            "bids": list(self.bids),
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "passed": list(self.passed),
            "hand_sizes": list(self.hand_sizes),
            "won": [[c.token for c in w] for w in self.won],
            "cat_points": list(self.cat_points),
            "bank": self.bank,
            "money": list(self.money),
            "money_visible": self.money_visible,
            "rounds": [round_to_dict(r) for r in self.rounds],
            "history": [[s, t] for s, t in self.history],
            "legal": [m.text for m in self.legal],
            "scores": None if self.scores is None else list(self.scores),
            "winners": list(self.winners),
        }


def round_to_dict(r: RoundResult) -> dict[str, Any]:
    """The JSON form of a finished round (also used by ``catsack replay --json``)."""
    return {
        "number": r.number,
        "start": r.start,
        "row": [c.token for c in r.row],
        "owners": list(r.owners),
        "buyer": r.buyer,
        "price": r.price,
        "chased": [c.token for c in r.chased],
        "won": [c.token for c in r.won],
        "payouts": [[s, a] for s, a in r.payouts],
        "void": r.void,
        "refilled": r.refilled,
    }


def make_view(game: Game, seat: int | None, *, show_money: bool = False) -> View:
    """Build ``seat``'s view of ``game`` (``None``: the public view)."""
    n = game.seats
    if seat is not None and (type(seat) is not int or not 0 <= seat < n):
        raise ValueError(f"no seat {seat!r} in a {n}-seat game")
    over = game.is_over
    up = game.face_up
    owners = game.row_owners
    row_cards = game.row
    row = tuple(
        RowCard(owner, c if (i < up or (seat is not None and owner == seat)) else None, i < up)
        for i, (owner, c) in enumerate(zip(owners, row_cards, strict=True))
    )
    # History: placements of finished rounds were all turned up (R14); in the
    # current round a placement shows only when face up or the viewer's own.
    moves = game._moves
    rply = game._rply
    dummy_off = 1 if n == 3 else 0
    rounds, done_history = game._finished()
    history = list(done_history)
    for ply in range(rply, len(moves)):
        m = moves[ply]
        s = game.seat_of(ply)
        text = m.text
        if m.kind == PLACE and s != seat and not over and ply - rply + dummy_off >= up:
            text = HIDDEN_PLACE
        history.append((s, text))
    hand_sizes = tuple(game._hands[j].bit_count() for j in range(n))
    money = tuple(m if (show_money or j == seat or over) else None for j, m in enumerate(game.money))
    to_move = game.to_move
    won = tuple(game.won(j) for j in range(n))
    return View(
        seat=seat,
        seats=n,
        round=game.round,
        phase=game.phase,
        to_move=to_move,
        start=game.start_player,
        first_start=game._first_start,
        hand=() if seat is None else game.hand(seat),
        removed=None if seat is None else game.removed(seat),
        row=row,
        mouse_cards=game.mouse_cards,
        mouse_card_mice=game.mouse_card_mice,
        next_payout=game.next_payout,
        bids=game.bids,
        high_bid=game.high_bid,
        high_bidder=game.high_bidder,
        passed=game.passed,
        hand_sizes=hand_sizes,
        won=won,
        cat_points=tuple(sum(POINTS[c] for c in w) for w in won),
        bank=game.bank,
        money=money,
        money_visible=show_money or over,
        rounds=rounds,
        history=tuple(history),
        legal=game.legal_moves() if (seat is not None and to_move == seat) else (),
        scores=game.scores() if over else None,
        winners=game.winners(),
    )
