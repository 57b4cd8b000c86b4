"""Who may read a finished game, and how often anyone may ask for expensive reads.

What a request may read of a table's game is :mod:`catsack.server.people.gameaccess`'s decision; here it is
asked for an HTTP request: the seat its token holds, else the seat bound to its logged-in account. A
private table is reachable by its invite link while it is played (its players share the link), but once
it is over its game (replay, record, analysis, a profile's list of games) is shown to its own players
only; everyone else is answered 403 ``private_game``. A duplicate tournament round's tables answer 403
``embargoed`` to everyone but each seat's own player until the round is scored.

Reads that cost the server real work (a profile, a replay, a record, the export, the leaderboard) spend a
token of a per-address bucket (``CATSACK_EXPENSIVE_GETS_PER_SECOND`` and ``..._BURST``): a few clients
asking for them in a loop can no longer multiply every table's latency.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import Request

from catsack.server.limits import AddressBuckets, scope_address
from catsack.server.people.accounts import Account
from catsack.server.people.gameaccess import Access, game_access
from catsack.server.routes.accounts import account_of
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.storage.store import SeatRow, TableRow
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.live import Player

__all__ = ["expensive_read", "is_private", "must_read", "table_access", "token_seat"]


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


async def table_access(
    request: Request, *, status: str, options: Mapping[str, Any], seats: Seats, token: str = "", seat: int | None = None
) -> Access:
    """What this request may read of a table's game (:func:`catsack.server.people.gameaccess.game_access`): its
    reader holds ``seat`` (checked by the caller) or the seat whose ``token`` it sent, or the seat bound to
    its logged-in account (looked up only where it matters: a private game or an embargoed round)."""
    if seat is None:
        seat = token_seat(seats, token)
    account_id = None
    if seat is None and (options.get("private") or options.get("embargo")):
        account: Account | None = await account_of(request)
        account_id = None if account is None else account.id
    return await game_access(
        hub_of(request), status=status, options=options, seats=seats, seat=seat, account_id=account_id
    )


async def must_read(request: Request, row: TableRow, seats: Seats, token: str = "") -> None:
    """Refuse (``private_game``, ``embargoed``, ``not_over``) unless this request may read the whole game of
    ``row``."""
    access = await table_access(request, status=row.status, options=row.options, seats=seats, token=token)
    access.need_whole()


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
