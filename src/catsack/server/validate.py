"""Checks on identifiers and text from clients, made before anything reaches the database.

PostgreSQL refuses NUL characters and lone surrogates cannot be encoded at all, so a text
field that carries one must be refused as bad input (a 4xx answer or a protocol error),
never discovered as a database exception.
"""

from __future__ import annotations

import re

__all__ = [
    "ACTION_ID_MAX",
    "NAME_MAX",
    "TABLE_ID_MAX",
    "TABLE_NAME_MAX",
    "TOKEN_MAX",
    "InputProblem",
    "TextError",
    "clean_text",
    "is_action_id",
    "is_table_id",
    "is_token",
    "table_id_problem",
]

#: A player's name: what the lobby's input allows (``maxlength``) and the seat column holds.
NAME_MAX = 24
#: A table's name in the lobby.
TABLE_NAME_MAX = 40
#: Table ids are made by the server (``secrets.token_urlsafe``): URL-safe base64 letters only.
TABLE_ID_MAX = 32
#: Seat tokens are ``secrets.token_urlsafe(24)`` (32 characters); anything much longer is not one.
TOKEN_MAX = 64
ACTION_ID_MAX = 64

_TABLE_ID = re.compile(rf"[A-Za-z0-9_-]{{1,{TABLE_ID_MAX}}}\Z")
_TOKEN = re.compile(rf"[\x21-\x7e]{{1,{TOKEN_MAX}}}\Z")


class InputProblem(ValueError):
    """A field's value that cannot be accepted: an English message for API clients, and a ``reason`` with
    ``params`` that pages word in their own language (``err.why.<reason>``; server/web/problems.py)."""

    def __init__(self, message: str, reason: str, **params: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


class TextError(InputProblem):
    """A text field that cannot be accepted; the message names the field and the reason."""


def is_table_id(value: object) -> bool:
    """Whether ``value`` has the form of a table id the server hands out."""
    return isinstance(value, str) and _TABLE_ID.match(value) is not None


def table_id_problem(value: str) -> str:
    """Why ``value`` is no table (for a 404 or an ``unknown_table`` error), without echoing bad characters."""
    if is_table_id(value):
        return f"no table {value!r}"
    return f"no table with that id (a table id is 1 to {TABLE_ID_MAX} letters, digits, '-' or '_')"


def is_token(value: object) -> bool:
    """Whether ``value`` could be a seat token (printable ASCII, not too long)."""
    return isinstance(value, str) and _TOKEN.match(value) is not None


def is_action_id(value: object) -> bool:
    """A client's action id: 1 to 64 printable characters (no NUL, control characters or surrogates)."""
    return isinstance(value, str) and 1 <= len(value) <= ACTION_ID_MAX and value.isprintable()


def clean_text(value: str, *, field: str, max_chars: int, min_chars: int = 0) -> str:
    """``value`` with runs of white space made single spaces and the ends trimmed; raise
    :class:`TextError` if it is too long or short, or holds a character that is not printable
    (NUL, control and format characters, lone surrogates, unassigned code points)."""
    text = " ".join(value.split())
    bad = next((ch for ch in text if not ch.isprintable()), None)
    if bad is not None:
        raise TextError(f"{field} must be printable text (found U+{ord(bad):04X})", "not_printable")
    if len(text) > max_chars:
        raise TextError(
            f"{field} is {len(text)} characters long; at most {max_chars} are allowed", "too_long", max=max_chars
        )
    if len(text) < min_chars:
        if min_chars == 1:
            raise TextError(f"{field} must not be empty", "empty")
        raise TextError(f"{field} needs {min_chars} characters", "too_short", min=min_chars)
    return text
