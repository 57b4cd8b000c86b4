"""Who may read a game, and how much of it: the one check that every route and writer serialising a
table's game goes through.

Three things can be read of a table's game:

* **a seat's own view** (its state frames, its perspective of the replay, its redacted record): always
  to that seat's player, the holder of its token or the account bound to it (R23 decides what it holds);
* **what a spectator sees** (the public view, the table's page, its place in lists of games and on
  profiles);
* **the whole game** (the full ``catsack/1`` record, every perspective of the replay, an analysis, an
  export): once it is over.

Two things close a game beyond that:

* **a duplicate tournament round still being played** (the embargo): the round's tables share one deal,
  so a table that is ahead would tell the others what is coming. Until the round is scored nobody reads
  any of its tables but their own seat's view: no spectator, no list, no profile, no whole record, not
  even for the table's own players (docs/tournaments.md);
* **a private game, once over**, is read whole by its own players only (an invite link lets anyone watch
  it while it is played).

:func:`decide` is the rule; :func:`game_access` gathers what it needs (the reader's seat, whether the
round is still embargoed). Routes answer a refusal with its code (``embargoed``, ``private_game``,
``not_over``); writers leave the game out (the export writes the seat's redacted record instead, the
profile, the finished list and the training harvest skip the game). Left out of this check, because
they show nothing but what a seat's own player may always see: My games (the reader's own seats: whose
turn, names, times), the mails (whose turn it is at which table, to the seat's own account) and the My
games feed (a bare "changed"). ``tests/test_embargo.py`` walks every route of the app during an embargo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from catsack.server.tables.live import TableError
from catsack.server.tournaments.runner import embargoed

if TYPE_CHECKING:
    from catsack.server.tables.hub import Hub

__all__ = ["EMBARGOED", "Access", "SeatLike", "decide", "embargo_open", "game_access", "seat_of_account"]


class SeatLike(Protocol):
    """A seat as the database (``SeatRow``) or a live table (``Player``) holds it."""

    @property
    def user_id(self) -> int | None: ...


#: The code of the embargo's refusal (answered 403 over HTTP, as an error frame over the WebSocket).
EMBARGOED = "embargoed"


def _embargoed() -> TableError:
    return TableError("embargoed", "this round's deal is still being played at other tables: look later", 403)


def _private() -> TableError:
    return TableError(
        "private_game",
        "this game was private: only its players can open it (log in, or use the browser you played in)",
        403,
    )


def _not_over() -> TableError:
    return TableError("not_over", "the game is not over: only a seat's own view can be read", 409)


@dataclass(frozen=True, slots=True)
class Access:
    """What one reader may read of one table's game.

    ``seat``: the reader's own seat (its view is always readable); ``watch``: why the reader may not see
    what a spectator sees (``None``: it may); ``whole``: why it may not read the whole game (``None``: it
    may). A refusal is a :class:`TableError` to raise or to answer with.
    """

    seat: int | None
    watch: TableError | None
    whole: TableError | None

    @property
    def closed(self) -> bool:
        """Whether the game is under an embargo (nobody but its seats' players reads anything of it)."""
        return self.watch is not None and self.watch.code == EMBARGOED

    def need_watch(self) -> None:
        """Raise the refusal unless the reader may see what a spectator sees, or holds a seat."""
        if self.watch is not None and self.seat is None:
            raise self.watch

    def need_whole(self) -> None:
        """Raise the refusal unless the reader may read the whole game."""
        if self.whole is not None:
            raise self.whole


def decide(*, over: bool, private: bool, embargoed: bool, seat: int | None) -> Access:
    """The rule (see the module's docstring): ``over``: the game ended; ``private``: a private table;
    ``embargoed``: its duplicate round is still played; ``seat``: the reader's seat, if any."""
    watch = _embargoed() if embargoed else None
    if embargoed:
        whole: TableError | None = _embargoed()
    elif private and seat is None and over:
        whole = _private()
    elif not over:
        whole = _not_over()
    else:
        whole = None
    return Access(seat, watch, whole)


async def embargo_open(hub: Hub, options: Mapping[str, Any]) -> bool:
    """Whether the table with these options belongs to a duplicate round that is not scored yet."""
    if not options.get("embargo"):
        return False
    return await embargoed(hub, dict(options))


def seat_of_account(seats: Sequence[SeatLike], account_id: int | None) -> int | None:
    """The seat bound to the account ``account_id`` (a seat a bot took over counts: its person played there)."""
    if account_id is None:
        return None
    return next((i for i, s in enumerate(seats) if s.user_id == account_id), None)


async def game_access(
    hub: Hub,
    *,
    status: str,
    options: Mapping[str, Any],
    seats: Sequence[SeatLike],
    seat: int | None = None,
    account_id: int | None = None,
) -> Access:
    """:func:`decide` for a reader of the table with ``status``, ``options`` and ``seats``: ``seat`` is the
    seat its token holds (the caller checked the token), ``account_id`` its logged-in account."""
    if seat is None:
        seat = seat_of_account(seats, account_id)
    return decide(
        over=status == "over",
        private=bool(options.get("private")),
        embargoed=await embargo_open(hub, options),
        seat=seat,
    )
