"""Accounts over HTTP: register, log in and out, change password, delete, export, claim guest games.

Authentication is a session cookie (HttpOnly, SameSite=Lax, Secure over HTTPS).
Every state change authenticated by that cookie must come from this site:
its ``Origin`` (or, lacking one, ``Referer``) must name the host the request
was sent to, else 403 ``csrf`` — a form on another site cannot act for a
logged-in player. Every request that tests a password (login, password
change, account deletion) is throttled by :class:`~catsack.server.budgets.LoginThrottle`:
per address, and wrong passwords per (name, address) and per name, in a way
that never refuses the owner's right password from an address nobody guessed
from; registrations spend a budget per address. With Redis configured every
process spends from the same budgets. An unknown name and a wrong password get
the same 401 answer.
"""

from __future__ import annotations

import asyncio
import io
import ipaddress
import math
import zipfile
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from catsack.record import dumps_record
from catsack.server.budgets import REGISTRATIONS_PER_CLIENT, LoginThrottle
from catsack.server.limits import scope_address
from catsack.server.people.accounts import DELETED_NAME, PASSWORD_MAX, Account, AccountError, Accounts, name_key
from catsack.server.people.friends import Friends
from catsack.server.people.gameaccess import game_access
from catsack.server.people.push import Pushbox
from catsack.server.people.ratings import Ratings, display
from catsack.server.people.social import check_guest_name, check_reputation
from catsack.server.routes.deps import Refused, budgets_of, hub_of
from catsack.server.settings import Network
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import LiveTable

__all__ = [
    "COOKIE",
    "account_of",
    "accounts_of",
    "check_not_blocked",
    "check_origin",
    "join_as",
    "retry_later",
    "router",
    "seat_ratings",
    "set_session",
]

router = APIRouter()

COOKIE = "catsack_session"


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., max_length=64)
    password: str = Field(..., max_length=PASSWORD_MAX)


class NewPassword(BaseModel):
    model_config = ConfigDict(extra="forbid")

    old: str = Field(..., max_length=PASSWORD_MAX)
    new: str = Field(..., max_length=PASSWORD_MAX)


class Password(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: str = Field(..., max_length=PASSWORD_MAX)


class SeatClaim(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str = Field(..., max_length=32)
    token: str = Field(..., max_length=128)


class Claims(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seats: list[SeatClaim] = Field(..., max_length=500)


class AccountOut(BaseModel):
    name: str
    rating: int
    games: int
    wins: float


class _State:
    """Per-app account services, made on first use from the hub's database engine."""

    def __init__(self, hub: Hub, logins: LoginThrottle) -> None:
        self.accounts = Accounts(hub.store.engine)
        self.ratings = Ratings(hub.store.engine)
        self.logins = logins


def _state(request: Request) -> _State:
    st: _State | None = getattr(request.app.state, "accounts", None)
    if st is None:
        st = request.app.state.accounts = _State(hub_of(request), LoginThrottle(budgets_of(request)))
    return st


def accounts_of(request: Request) -> Accounts:
    return _state(request).accounts


def ratings_of(request: Request) -> Ratings:
    return _state(request).ratings


async def account_of(request: Request) -> Account | None:
    """The logged-in account of this request, or ``None`` (a guest)."""
    token = request.cookies.get(COOKIE)
    if not token:
        return None
    return await asyncio.to_thread(accounts_of(request).session, token)


def check_origin(request: Request) -> None:
    """Refuse a cookie-authenticated change sent from another site (CSRF)."""
    source = request.headers.get("origin") or request.headers.get("referer")
    host = request.headers.get("host", "")
    if not source or source == "null" or urlsplit(source).netloc.lower() != host.lower():
        raise AccountError("csrf", "this request must come from a page of this site (Origin header)", 403)


async def logged_in(request: Request) -> Account:
    account = await account_of(request)
    if account is None:
        raise AccountError("not_logged_in", "log in first", 401)
    return account


async def changing(request: Request) -> Account:
    """The account of a cookie-authenticated state change, after the CSRF check."""
    check_origin(request)
    return await logged_in(request)


def _secure(request: Request) -> bool:
    """Whether the browser reached us over HTTPS: directly, or through a trusted proxy that says so."""
    if request.url.scheme == "https":
        return True
    peer = request.client.host if request.client else None
    proxies = hub_of(request).settings.proxy_networks()
    trusted = _peer_trusted(peer, proxies)
    return trusted and request.headers.get("x-forwarded-proto", "").split(",")[0].strip() == "https"


def _peer_trusted(peer: str | None, proxies: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(peer or "")
    except ValueError:
        return False
    return any(ip in net for net in proxies)


def _set_session(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        COOKIE, token, max_age=30 * 24 * 3600, httponly=True, samesite="lax", secure=_secure(request), path="/"
    )


def set_session(request: Request, response: Response, token: str) -> None:
    """Log this browser in with session ``token`` (the cookie; other routers log in through this too)."""
    _set_session(request, response, token)


async def _out(request: Request, account: Account) -> AccountOut:
    s = await asyncio.to_thread(ratings_of(request).summary, f"user:{account.id}")
    return AccountOut(name=account.name, rating=s["rating"], games=s["games"], wins=s["wins"])


def _address(request: Request) -> str:
    return scope_address(request.scope, hub_of(request).settings.proxy_networks())


def retry_later(message: str, wait: float) -> dict[str, Any]:
    """The rest of a 429 :class:`Refused` for a spent budget (``Refused(code, **retry_later(...))``):
    ``message``, and the ``wait`` in whole seconds as ``Retry-After`` and ``params``."""
    seconds = max(1, math.ceil(wait))
    return {
        "message": f"{message}; try again in {seconds} s",
        "status": 429,
        "params": {"seconds": seconds},
        "headers": {"Retry-After": str(seconds)},
    }


async def _throttle(request: Request, name: str) -> str:
    """Spend one password attempt at ``name`` from this request's address, or 429; the throttle's key
    for :func:`_failed`."""
    key = name_key(name)[:64]
    wait = await _state(request).logins.attempt(key, _address(request))
    if wait > 0:
        raise Refused("too_many_logins", **retry_later("too many login attempts", wait))
    return key


async def _failed(request: Request, key: str) -> None:
    await _state(request).logins.failed(key, _address(request))


@router.post("/api/account/register", status_code=201, response_model=AccountOut)
async def register(request: Request, response: Response, body: Credentials) -> AccountOut:
    """Create an account and log in. Names: 3-24 letters, digits, ``-_.``; bot levels are reserved."""
    check_origin(request)
    await _throttle(request, body.name)
    wait = await budgets_of(request).spend(REGISTRATIONS_PER_CLIENT, _address(request))
    if wait > 0:
        raise Refused("rate_limited", **retry_later("too many new accounts from your address", wait))
    accounts = accounts_of(request)
    account = await asyncio.to_thread(accounts.register, body.name, body.password)
    token = await asyncio.to_thread(accounts.new_session, account)
    _set_session(request, response, token)
    return await _out(request, account)


@router.post("/api/account/login", response_model=AccountOut)
async def login(request: Request, response: Response, body: Credentials) -> AccountOut:
    """Log in; the answer to an unknown name and to a wrong password is the same."""
    check_origin(request)
    key = await _throttle(request, body.name)
    accounts = accounts_of(request)
    account = await asyncio.to_thread(accounts.authenticate, body.name, body.password)
    if account is None:
        await _failed(request, key)
        raise AccountError("login_failed", "wrong name or password", 401)
    token = await asyncio.to_thread(accounts.new_session, account)
    _set_session(request, response, token)
    return await _out(request, account)


@router.post("/api/account/logout", status_code=204)
async def logout(request: Request) -> Response:
    check_origin(request)
    await asyncio.to_thread(accounts_of(request).end_session, request.cookies.get(COOKIE))
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/api/account", response_model=AccountOut)
async def me(request: Request, account: Annotated[Account, Depends(logged_in)]) -> AccountOut:
    """The logged-in account (401 for a guest)."""
    return await _out(request, account)


class SessionOut(BaseModel):
    account: AccountOut | None


@router.get("/api/account/session", response_model=SessionOut)
async def session(request: Request) -> SessionOut:
    """Who is logged in: ``{"account": {...}}``, or ``{"account": null}`` for a guest. Unlike
    ``GET /api/account`` a guest is no error here, so the account page asks without a 401 (which
    browsers log as a console error)."""
    account = await account_of(request)
    return SessionOut(account=None if account is None else await _out(request, account))


@router.post("/api/account/password", status_code=204)
async def change_password(
    request: Request, body: NewPassword, account: Annotated[Account, Depends(changing)]
) -> Response:
    """Change the password; every session of the account ends, and this one gets a new cookie."""
    accounts = accounts_of(request)
    key = await _throttle(request, account.name)
    try:
        await asyncio.to_thread(accounts.change_password, account, body.old, body.new)
    except AccountError as exc:
        if exc.code == "wrong_password":
            await _failed(request, key)
        raise
    token = await asyncio.to_thread(accounts.new_session, account)
    response = Response(status_code=204)
    _set_session(request, response, token)
    return response


@router.delete("/api/account", status_code=204)
async def delete_account(request: Request, body: Password, account: Annotated[Account, Depends(changing)]) -> Response:
    """Delete the account (password required). Its games stay, under "deleted player"; an operator's name
    is never free again."""
    accounts = accounts_of(request)
    key = await _throttle(request, account.name)
    games = await asyncio.to_thread(accounts.games, account)
    operator = account.id in getattr(request.app.state, "operators", frozenset())
    try:
        await asyncio.to_thread(accounts.delete, account, body.password, retire_name=operator)
    except AccountError as exc:
        if exc.code == "wrong_password":
            await _failed(request, key)
        raise
    hub = hub_of(request)
    await asyncio.to_thread(Pushbox(hub.store.engine).remove_all, account.id)  # its devices' addresses go
    for table_id, seat in games:  # tables in memory show the new name at once; other processes reload it
        table = hub.tables.get(table_id)
        if table is not None and table.players[seat].kind == "human":
            table.players[seat].name = DELETED_NAME
            table.players_changed()
        await hub.publish_seats(table_id, -1)
    response = Response(status_code=204)
    response.delete_cookie(COOKIE, path="/")
    return response


@router.get("/api/account/games.zip", responses={200: {"content": {"application/zip": {}}}})
async def export_games(request: Request, account: Annotated[Account, Depends(logged_in)]) -> Response:
    """Every finished game of the account as ``catsack/1`` records, one JSON file each, in a zip: the
    whole record of each game the account may read whole, else its own seat's redacted record (a
    duplicate tournament round still played at other tables: :mod:`catsack.server.people.gameaccess`)."""
    hub = hub_of(request)
    games = await asyncio.to_thread(accounts_of(request).games, account, finished_only=True)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for table_id, seat in games:
            table = await hub.get(table_id)
            if table is None or not table.game.is_over:
                continue
            access = await game_access(hub, status=table.status, options=table.options, seats=table.players, seat=seat)
            if access.whole is None:
                zf.writestr(f"catsack-{table_id}.json", dumps_record(table.record()))
            elif access.seat is not None:
                zf.writestr(f"catsack-{table_id}-seat{access.seat}.json", dumps_record(table.record(access.seat)))
    return Response(
        buf.getvalue(),
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="catsack-{account.name}.zip"'},
    )


@router.post("/api/account/claim")
async def claim(request: Request, body: Claims, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Bind the guest seats this browser holds (their tokens prove it) to the account."""
    hub = hub_of(request)
    accounts = accounts_of(request)
    claimed: list[dict[str, Any]] = []
    refused = 0
    for c in body.seats:
        table = await hub.get(c.table)
        seat = None
        if table is not None:
            h = hash_token(c.token)
            seat = next((i for i, p in enumerate(table.players) if p.token_hash == h), None)
        if seat is None or table is None or not await asyncio.to_thread(accounts.bind_seat, account, table.id, seat):
            refused += 1
            continue
        claimed.append({"table": table.id, "seat": seat})
        if table.players[seat].kind == "human" and table.players[seat].user_id is None:  # no longer a guest
            table.players[seat].user_id = account.id
            table.players_changed()
    return {"claimed": claimed, "refused": refused}


async def join_as(
    request: Request, table: LiveTable, name: str, seat: int | None, account: Account | None
) -> tuple[int, str]:
    """Seat a person at ``table``: a guest under the typed name (not a bot's, a deleted player's or an
    account's: :func:`~catsack.server.people.social.check_guest_name`; nor one that reads like a name at the
    table), an account under its own name, its seat bound to it (one seat per account). Rated tables
    seat accounts (and bots) only."""
    if table.options.get("rated") and account is None:
        raise AccountError("account_required", "rated tables are for accounts and bots: log in to sit here", 403)
    hub = hub_of(request)
    if table.options.get("min_finished"):
        await check_reputation(hub, account, table.options["min_finished"])
    if account is not None:
        check_origin(request)
        name = account.name
        await check_not_blocked(request, table.id, account)
    else:
        await asyncio.to_thread(check_guest_name, accounts_of(request), name)
    account_id = None if account is None else account.id
    return await hub.join(table, name, seat, account_id=account_id, distinct=account is None)


async def check_not_blocked(request: Request, table_id: str, account: Account) -> None:
    """Refuse ``account`` a seat at a table where an account that blocks it sits (403 ``blocked``; it
    learns only that it cannot, not who blocks it)."""
    if await asyncio.to_thread(Friends(hub_of(request).store.engine).blocked_from_table, table_id, account.id):
        raise AccountError("blocked", "a player at this table does not accept you at their tables", 403)


async def seat_ratings(request: Request, table_id: str, seats: int) -> list[int | None]:
    """The displayed rating of each seat's account (``None`` for guests, open seats and bots)."""
    accounts = await asyncio.to_thread(accounts_of(request).seat_accounts, table_id)
    if not accounts:
        return [None] * seats
    keys = {seat: f"user:{a.id}" for seat, a in accounts.items()}
    found = await asyncio.to_thread(ratings_of(request).get, list(keys.values()))
    return [display(found[keys[s]]) if s in keys else None for s in range(seats)]
