"""Who may read a finished game, and how often anyone may ask for expensive reads (issue 29, defects 3 and 9).

A private table is reachable by its invite link while it is played (its players share the link), but once
it is over its game (replay, record, analysis, a profile's list of games) is shown to its own players only:
a browser that holds one of its seat tokens, or an account bound to one of its seats. Everyone else is
answered 403 ``private_game``.

Reads that cost the server real work (a profile, a replay, a record, the export, the leaderboard) spend a
token of a per-address bucket (``CATSACK_EXPENSIVE_GETS_PER_SECOND`` and ``..._BURST``): a few clients
asking for them in a loop can no longer multiply every table's latency.
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections.abc import Sequence

from fastapi import Request

from catsack.server.accounts import Account
from catsack.server.hub import Player, hash_token
from catsack.server.limits import AddressBuckets, scope_address
from catsack.server.routes.accounts import account_of, accounts_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.store import SeatRow, TableRow

__all__ = ["expensive_read", "is_private", "may_read", "must_read", "token_seat"]


def is_private(row: TableRow) -> bool:
    return bool(row.options.get("private"))


Seats = Sequence[SeatRow | Player]


def token_seat(seats: Seats, token: str) -> int | None:
    """The seat (``seats`` in seat order) whose token ``token`` is; a seat a bot took over counts, since
    its player played there."""
    if not token:
        return None
    h = hash_token(token)
    for seat, s in enumerate(seats):
        if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
            return seat
    return None


async def may_read(request: Request, row: TableRow, seats: Seats, token: str = "") -> bool:
    """Whether this request may read the game of ``row``: always for a public table; for a private one,
    only a player's (its seat ``token``, or the logged-in account bound to one of its seats)."""
    if not is_private(row) or token_seat(seats, token) is not None:
        return True
    account: Account | None = await account_of(request)
    if account is None:
        return False
    seat = await asyncio.to_thread(accounts_of(request).seat_of, account, row.id)
    return seat is not None


async def must_read(request: Request, row: TableRow, seats: Seats, token: str = "") -> None:
    """:func:`may_read`, or 403 ``private_game``."""
    if not await may_read(request, row, seats, token):
        raise Refused(
            "private_game",
            "this game was private: only its players can open it (log in, or use the browser you played in)",
            403,
        )


def _buckets(request: Request) -> AddressBuckets:
    found: AddressBuckets | None = getattr(request.app.state, "expensive_reads", None)
    if found is None:
        s = hub_of(request).settings
        found = request.app.state.expensive_reads = AddressBuckets(s.expensive_gets_per_second, s.expensive_gets_burst)
    return found


async def expensive_read(request: Request) -> None:
    """Dependency of the expensive GET routes: spend one of the address's tokens, or 429 with Retry-After."""
    address = scope_address(request.scope, hub_of(request).settings.proxy_networks())
    wait = _buckets(request).take(address)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise Refused(
            "rate_limited",
            "too many requests from your address: slow down",
            429,
            params={"seconds": seconds},
            headers={"Retry-After": str(seconds)},
        )
