"""Table chat: short messages from seated players, read by everyone at the table, kept with the game.

A message is at most :data:`MAX_CHARS` characters of printable text (control
characters and unpaired surrogates are refused, white space is folded) and a
connection may send :data:`RATE` messages a second after a burst of
:data:`BURST`. Clients always show a message as text, never as markup; muting
another player is the client's choice and is kept in the browser.
Messages are public information (they are not part of R23's hidden state), so
spectators read them and the replay shows them. Each message says whether its
seat is a guest's (no account bound to it), as the seat list does, so a guest
cannot pass for a registered player in the chat either.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Engine, func, insert, select
from sqlalchemy.exc import IntegrityError

from catsack.server.people.accounts import seat_users_t
from catsack.server.storage.store import chat_t
from catsack.server.tables.live import iso_time

__all__ = ["BURST", "MAX_CHARS", "RATE", "ChatError", "ChatLog", "clean_message"]

MAX_CHARS = 200
RATE = 0.5  # messages per second, after the burst
BURST = 4
#: Most messages kept per table (older ones are still in the database but not sent).
HISTORY = 100


class ChatError(ValueError):
    """A message that cannot be sent, with the reason for the sender."""


def clean_message(text: object) -> str:
    """The message as it will be stored and shown, or :class:`ChatError`."""
    if not isinstance(text, str):
        raise ChatError("a chat message must be text")
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        raise ChatError("a chat message may not hold unpaired surrogate characters")
    text = " ".join(text.split())
    if not text:
        raise ChatError("a chat message may not be empty")
    if len(text) > MAX_CHARS:
        raise ChatError(f"a chat message has at most {MAX_CHARS} characters (this one has {len(text)})")
    if any(not ch.isprintable() for ch in text):
        raise ChatError("a chat message must be printable text")
    return text


def message_dict(seat: int, name: str, text: str, created: float, n: int, guest: bool = False) -> dict[str, Any]:
    return {"n": n, "seat": seat, "name": name, "guest": guest, "text": text, "time": iso_time(created)}


def _with_seat_accounts(table_id: str, limit: int) -> Any:
    """The table's newest messages, each with the account bound to its seat (``None``: a guest's)."""
    joined = chat_t.outerjoin(
        seat_users_t, (seat_users_t.c.table_id == chat_t.c.table_id) & (seat_users_t.c.seat == chat_t.c.seat)
    )
    return (
        select(chat_t, seat_users_t.c.user_id)
        .select_from(joined)
        .where(chat_t.c.table_id == table_id)
        .order_by(chat_t.c.n.desc())
        .limit(limit)
    )


class ChatLog:
    """Chat messages in the server's database."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def add(self, table_id: str, seat: int, name: str, text: str, *, guest: bool = False) -> dict[str, Any]:
        now = time.time()
        for _ in range(5):  # two processes may number a message at once: the key decides, retry
            try:
                with self.engine.begin() as conn:
                    n = conn.execute(
                        select(func.coalesce(func.max(chat_t.c.n), 0)).where(chat_t.c.table_id == table_id)
                    ).scalar_one()
                    conn.execute(
                        insert(chat_t).values(
                            table_id=table_id, n=int(n) + 1, seat=seat, name=name, text=text, created=now
                        )
                    )
            except IntegrityError:
                continue
            return message_dict(seat, name, text, now, int(n) + 1, guest)
        raise ChatError("the message could not be saved; try again")

    def messages(self, table_id: str, limit: int = HISTORY) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(_with_seat_accounts(table_id, limit)).all()
        return [message_dict(r.seat, r.name, r.text, r.created, r.n, r.user_id is None) for r in reversed(rows)]

    def messages_with_times(self, table_id: str, limit: int = HISTORY) -> list[dict[str, Any]]:
        """As :meth:`messages`, each with ``created`` (epoch seconds) too."""
        with self.engine.connect() as conn:
            rows = conn.execute(_with_seat_accounts(table_id, limit)).all()
        return [
            {**message_dict(r.seat, r.name, r.text, r.created, r.n, r.user_id is None), "created": r.created}
            for r in reversed(rows)
        ]
