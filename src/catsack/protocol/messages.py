"""Messages of the external bot protocol ``catsack-bot/1`` (docs/bot-protocol.md).

One JSON object per line, UTF-8, in both directions. The engine speaks first
(``hello``), then for every game sends ``new_game``, one ``move`` request per
decision and ``game_over``; ``quit`` ends the session. The bot answers
``hello`` and each ``move`` request; it may send ``log`` lines at any time.

This module builds and checks messages only; it does no I/O, so the same
code can serve a subprocess (:mod:`catsack.protocol.external`) or, later, a
network table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from catsack.errors import CatsackError
from catsack.moves import PASS, Move, parse_move
from catsack.view import View

__all__ = [
    "MAX_LINE",
    "PROTOCOL",
    "ProtocolError",
    "check_hello",
    "decode",
    "encode",
    "fallback_move",
    "game_over_message",
    "hello_message",
    "move_request",
    "new_game_message",
    "parse_move_answer",
    "quit_message",
]

PROTOCOL: Final = "catsack-bot/1"
#: Longest line the engine accepts from a bot; a real answer is a few dozen bytes.
MAX_LINE: Final = 64 * 1024


class ProtocolError(CatsackError):
    """A bot's line that breaks the protocol (not JSON, wrong type, missing or bad field)."""


def encode(message: dict[str, Any]) -> str:
    """One message as a compact JSON line, newline included."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"


def decode(line: str) -> dict[str, Any]:
    """Parse one line from a bot into a message object; raise :class:`ProtocolError` if it is not one."""
    if len(line) > MAX_LINE:
        raise ProtocolError(f"line of {len(line)} characters is longer than the limit of {MAX_LINE}")
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError(f"not JSON: {_clip(line)!r} ({exc})") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"a message must be a JSON object, not {type(obj).__name__}: {_clip(line)!r}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(f"a message needs a string 'type': {_clip(line)!r}")
    return obj


def _clip(text: str, limit: int = 120) -> str:
    text = text.rstrip("\n")
    return text if len(text) <= limit else text[:limit] + "…"


# ---------------------------------------------------------------- engine -> bot


def hello_message(engine: str) -> dict[str, Any]:
    """The first message of a session: the engine names itself and its protocol version."""
    return {"type": "hello", "protocol": PROTOCOL, "engine": engine}


def new_game_message(
    game: int,
    view: View,
    *,
    players: Sequence[str] | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """Start of a game: the seat's private knowledge at the time the bot joins (R7, R23).

    ``hand`` and ``removed`` come from the seat's view, so a bot never learns
    more than its seat may know.
    """
    if view.seat is None:
        raise ValueError("new_game needs a seat's view, not the public view")
    return {
        "type": "new_game",
        "game": game,
        "seat": view.seat,
        "seats": view.seats,
        "start": view.first_start,
        "hand": [c.token for c in view.hand],
        "removed": None if view.removed is None else view.removed.token,
        "players": None if players is None else list(players),
        "seed": seed,
    }


def move_request(request_id: int, game: int, view: View, time_limit: float) -> dict[str, Any]:
    """A request for one decision: the seat's view and its legal moves, canonical order."""
    return {
        "type": "move",
        "id": request_id,
        "game": game,
        "time_limit": time_limit,
        "legal": [m.text for m in view.legal],
        "view": view.to_dict(),
    }


def game_over_message(game: int, view: View, ranking: Sequence[int]) -> dict[str, Any]:
    """End of a game: scores (R21), winners (R22), 1-based ranks and the seat's final view."""
    return {
        "type": "game_over",
        "game": game,
        "scores": None if view.scores is None else list(view.scores),
        "winners": list(view.winners),
        "ranking": list(ranking),
        "view": view.to_dict(),
    }


def quit_message() -> dict[str, Any]:
    return {"type": "quit"}


# ---------------------------------------------------------------- bot -> engine


def check_hello(message: dict[str, Any]) -> str:
    """Check a bot's ``hello`` answer and return the name it gives."""
    if message.get("type") != "hello":
        raise ProtocolError(f"expected a 'hello' answer, got type {message.get('type')!r}")
    version = message.get("protocol")
    if version != PROTOCOL:
        raise ProtocolError(f"the bot speaks protocol {version!r}, this engine speaks {PROTOCOL!r}")
    name = message.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ProtocolError("the 'hello' answer needs a non-empty string 'name'")
    return name.strip()


def parse_move_answer(message: dict[str, Any], legal: Sequence[Move]) -> Move:
    """The move a ``move`` answer names, checked against ``legal``.

    Raises :class:`ProtocolError` for a malformed answer and for a move that is
    well formed but not legal now; the message says which.
    """
    if message.get("type") != "move":
        raise ProtocolError(f"expected a 'move' answer, got type {message.get('type')!r}")
    text = message.get("move")
    if not isinstance(text, str):
        raise ProtocolError(f"a 'move' answer needs a string 'move', got {text!r}")
    try:
        move = parse_move(text)
    except CatsackError as exc:
        raise ProtocolError(f"malformed move {text!r}: {exc}") from None
    if move not in legal:
        shown = ", ".join(m.text for m in legal[:12]) + (", …" if len(legal) > 12 else "")
        raise ProtocolError(f"illegal move {move.text!r} (legal: {shown})")
    return move


def fallback_move(legal: Sequence[Move]) -> Move:
    """The move played for a bot that failed to answer: ``pass`` if legal, else the last legal move.

    During bidding and the last choice (R12, R15) that is ``pass``, which costs
    nothing; during placement (R10) it is the held card latest in the order
    ``+15 +11 +8 +5 +3 -5 -8 R LD SD``: a dog, the rabbit or the lowest cat.
    """
    if not legal:
        raise ValueError("no legal move to fall back on (the game is over)")
    for m in legal:
        if m.kind == PASS:
            return m
    return legal[-1]
