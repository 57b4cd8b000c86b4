"""What the sealed styles read off the public table: scores, standings, this round's moves, who bought what.

Every function reads a seat's view only (R23): money and cat points are public (R24), bids and passes too.
"""

from __future__ import annotations

from catsack.bots.heuristic import seat_money
from catsack.moves import parse_move
from catsack.view import View

__all__ = ["grudges", "jumped", "jumpers", "last_placed", "leader", "round_moves", "scores", "standing", "this_round"]


def scores(view: View) -> list[int]:
    """Each seat's score as R21 counts it: its mice and its cat points (both public, R24)."""
    money = seat_money(view)
    return [m + p for m, p in zip(money, view.cat_points, strict=True)]


def leader(view: View) -> int | None:
    """The other seat with the best score (R21; the lowest seat number on ties), ``None`` if the viewer leads."""
    assert view.seat is not None
    points = scores(view)
    best = max(range(view.seats), key=lambda s: (points[s], -s))
    return None if best == view.seat else best


def standing(view: View) -> int:
    """The viewer's score minus the best other score (R21's count)."""
    assert view.seat is not None
    points = scores(view)
    return points[view.seat] - max(s for k, s in enumerate(points) if k != view.seat)


def round_moves(view: View) -> list[list[tuple[int, str]]]:
    """The game's moves so far, round by round: each round begins with its players' placements (R10: every player
    places one card before the auction; the dummy's card is no move), then its bids and passes (R12-R15)."""
    rounds: list[list[tuple[int, str]]] = []
    placed = 0
    for s, text in view.history:
        if text.startswith("place"):
            if placed % view.seats == 0:
                rounds.append([])
            placed += 1
        if rounds:
            rounds[-1].append((s, text))
    return rounds


def this_round(view: View) -> list[tuple[int, str]]:
    """This round's moves so far (its placements, then its bids and passes; none before its first placement)."""
    rounds = round_moves(view)
    return rounds[-1] if len(rounds) == view.round else []


def jumpers(moves: list[tuple[int, str]], seat: int | None) -> set[int]:
    """The other players who have raised the high bid by two mice or more in this round's ``moves`` (R12)."""
    high = 0
    out: set[int] = set()
    for s, text in moves:
        if text.startswith("bid "):  # placements may be hidden ones (R23), which are no move to parse
            amount = parse_move(text).amount
            if s != seat and amount - high >= 2:
                out.add(s)
            high = amount
    return out


def jumped(moves: list[tuple[int, str]], seat: int | None) -> bool:
    """Whether another player has raised the high bid by two mice or more in this round's ``moves`` (R12)."""
    return bool(jumpers(moves, seat))


def grudges(view: View) -> set[int]:
    """The players who bought a row (R17) in an earlier round of this game in whose auction the viewer had bid
    (R12; every bid is public, R23)."""
    return {
        r.buyer
        for r, moves in zip(view.rounds, round_moves(view), strict=False)
        if r.buyer not in (None, view.seat) and any(s == view.seat and t.startswith("bid") for s, t in moves)
    }


def last_placed(view: View) -> int:
    """The other seat with the lowest score (R21's count: mice and cat points; the highest seat number on ties)."""
    assert view.seat is not None
    points = scores(view)
    others = [s for s in range(view.seats) if s != view.seat]
    return min(others, key=lambda s: (points[s], -s))
