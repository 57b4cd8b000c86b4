"""The machine-readable summary of a game (``catsack replay --json``; docs/records.md)."""

from __future__ import annotations

from typing import Any

from catsack.game import Game
from catsack.view import round_to_dict

__all__ = ["summarize"]


def summarize(game: Game) -> dict[str, Any]:
    """A JSON-ready dict with the keys documented in ``docs/records.md``."""
    n = game.seats
    return {
        "complete": game.is_over,
        "seats": n,
        "round": game.round,
        "phase": game.phase,
        "to_move": game.to_move,
        "legal": [m.text for m in game.legal_moves()],
        "money": list(game.money),
        "bank": game.bank,
        "mouse_card_mice": list(game.mouse_card_mice),
        "won": [[c.token for c in game.won(s)] for s in range(n)],
        "cat_points": list(game.cat_points()),
        "scores": list(game.scores()),
        "winners": list(game.winners()),
        "rounds": [round_to_dict(r) for r in game.rounds],
    }
