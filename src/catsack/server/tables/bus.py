"""What the live tables tell the rest of the server: typed events and the registry that hands them out.

The live tables (:mod:`catsack.server.tables.hub`) publish what happened at a table; the people side
(mail, ratings, reputation, tournaments, the My games feed) subscribes, once, when the application
starts (:func:`catsack.server.web.app.create_app`). So the tables never import the people code: a table
says "game over" and does not know who listens.

Handlers run as the direct calls they replace did: :meth:`Bus.publish` awaits them in the order they
subscribed, :meth:`Bus.publish_soon` runs them in a task of their own (the caller goes on at once),
:meth:`Bus.emit` calls plain functions at once (the per-move hooks). A handler's error is logged and
never reaches the table that published.

Durability is the handlers' own, as before: a game-over handler that a dying process never ran is
made good by the handlers' repeatable steps (a rated game is rated once, whichever process; a
tournament's sweep advances it from what the database says).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from catsack.server.tables.live import LiveTable

__all__ = [
    "Bus",
    "Event",
    "GameOver",
    "MoveApplied",
    "SeatAbandoned",
    "SeatsChanged",
    "TablesAdopted",
    "TurnToPerson",
]

log = logging.getLogger("catsack.server")


@dataclass(frozen=True, slots=True)
class MoveApplied:
    """A move of ``table_id`` was committed here: the table is at ``version`` now."""

    table_id: str
    version: int


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """Who sits at ``table_id`` changed (a seat joined, a bot took one, a new link)."""

    table_id: str


@dataclass(frozen=True, slots=True)
class TurnToPerson:
    """A turn-based table's turn passed on (to a person, as the handler checks again)."""

    table: LiveTable


@dataclass(frozen=True, slots=True)
class SeatAbandoned:
    """A bot took ``seat`` over before the end (grace period, clock, host, withdrawal)."""

    table: LiveTable
    seat: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game of ``table`` ended with a move committed here."""

    table: LiveTable


@dataclass(frozen=True, slots=True)
class TablesAdopted:
    """This process took over tables (``None``: every table, a lone process starting)."""

    table_ids: tuple[str, ...] | None


Event = MoveApplied | SeatsChanged | TurnToPerson | SeatAbandoned | GameOver | TablesAdopted
_E = TypeVar("_E")
Handler = Callable[[_E], Awaitable[None] | None]


class Bus:
    """Subscribers by event type, called in the order they subscribed."""

    def __init__(self) -> None:
        self._handlers: dict[type, list[Callable[[Any], Awaitable[None] | None]]] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # publish_soon's tasks, referenced until done

    def subscribe(self, kind: type[_E], handler: Callable[[_E], Awaitable[None] | None]) -> None:
        """Call ``handler`` with every event of ``kind`` (a coroutine function is awaited)."""
        self._handlers.setdefault(kind, []).append(handler)

    def unsubscribe(self, kind: type[_E], handler: Callable[[_E], Awaitable[None] | None]) -> None:
        """Stop calling ``handler`` (nothing happens if it was not subscribed)."""
        found = self._handlers.get(kind, [])
        if handler in found:
            found.remove(handler)

    def clear(self) -> None:
        """Forget every handler."""
        self._handlers.clear()

    def subscribed(self, kind: type) -> int:
        """How many handlers ``kind`` has."""
        return len(self._handlers.get(kind, ()))

    def emit(self, event: object) -> None:
        """Call the plain handlers of ``event`` now; coroutine handlers are scheduled in one task."""
        waiting: list[Awaitable[None]] = []
        for handler in list(self._handlers.get(type(event), ())):
            try:
                result = handler(event)
            except Exception:  # a listener never stops a table
                log.exception("event handler failed", extra={"fields": {"event": type(event).__name__}})
                continue
            if inspect.isawaitable(result):
                waiting.append(result)
        if waiting:
            self._start(self._await_all(event, waiting))

    async def publish(self, event: object) -> None:
        """Run every handler of ``event`` in turn, awaiting each."""
        for handler in list(self._handlers.get(type(event), ())):
            try:
                result = handler(event)
                if inspect.isawaitable(result):
                    await result
            except asyncio.CancelledError:
                raise
            except Exception:  # a listener never stops a table
                log.exception("event handler failed", extra={"fields": {"event": type(event).__name__}})

    def publish_soon(self, event: object) -> None:
        """:meth:`publish` in a task of its own: the caller does not wait for the handlers."""
        if self._handlers.get(type(event)):
            self._start(self.publish(event))

    async def _await_all(self, event: object, waiting: list[Awaitable[None]]) -> None:
        for w in waiting:
            try:
                await w
            except Exception:
                log.exception("event handler failed", extra={"fields": {"event": type(event).__name__}})

    def _start(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
