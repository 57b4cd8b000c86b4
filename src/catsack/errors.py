"""Exception types raised by the rules core and the record reader.

Every error a user can cause is a ``ValueError`` subclass, so callers that
only care about "bad input" can catch ``ValueError``; callers that want to
tell parse errors from illegal moves or broken records catch the subclasses.
"""

from __future__ import annotations

from typing import Any


class CatsackError(ValueError):
    """Base class of every input error raised by catsack.

    Errors pickle with their fields (a worker process of a tournament or an analysis pool sends
    them back whole), although the subclasses take their fields as keyword-only arguments.
    """

    def __reduce__(self) -> tuple[Any, ...]:
        return (_restore, (type(self), self.args), self.__dict__)


def _restore(cls: type[CatsackError], args: tuple[Any, ...]) -> CatsackError:
    """An error of ``cls`` with ``args``, its fields set afterwards from the pickled state."""
    return cls.__new__(cls, *args)


class ParseError(CatsackError):
    """Text that is not a card token, a move or a valid setup value."""


class IllegalMoveError(CatsackError):
    """A well-formed move that the rules forbid in the current position."""

    def __init__(self, message: str, *, move: str, seat: int | None, phase: str, reason: str) -> None:
        super().__init__(message)
        self.move = move
        self.seat = seat
        self.phase = phase
        self.reason = reason


class SetupError(CatsackError):
    """An explicit setup that contradicts R4–R9 (seat count, removed cards, dummy)."""


class RecordError(CatsackError):
    """A ``catsack/1`` record that is malformed or contains an illegal move."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        move_number: int | None = None,
        seat: int | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(message)
        self.source = source
        self.move_number = move_number
        self.seat = seat
        self.reason = reason if reason is not None else message
