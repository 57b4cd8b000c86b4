"""E-mail over HTTP: an account's address and preferences, the verification and unsubscribe links,
and the password reset by a verified address.

A reset request gets the same answer whether or not the address belongs to an account, given before
the address is looked up; it spends budgets per client address and per address asked for
(:mod:`catsack.server.budgets`, shared by every process through Redis), and a refused one says that no
mail is sent. Verification mails spend budgets per address over every account and per client address.
Unsubscribing is one click: the mail program's button posts to the link (RFC 8058), and the link in the
text opens a page with one button.
"""

from __future__ import annotations

import asyncio
import html
import logging
import unicodedata
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from catsack.i18n import translations
from catsack.locales import LANGUAGES, negotiate
from catsack.server.budgets import (
    ADDRESS_CHANGES_PER_CLIENT,
    RESET_ALARMED,
    RESET_PER_CLIENT,
    RESET_PER_RECIPIENT,
    RESET_PER_RECIPIENT_AND_CLIENT,
    VERIFY_PER_RECIPIENT,
)
from catsack.server.limits import scope_address
from catsack.server.people.accounts import PASSWORD_MAX, Account, AccountError
from catsack.server.people.mail import ADDRESS_MAX, KINDS, Mailbox, address_key, check_address, mail_enabled
from catsack.server.routes.accounts import accounts_of, changing, check_origin, logged_in, retry_later, set_session
from catsack.server.routes.deps import Refused, budgets_of, hub_of
from catsack.server.routes.pages import LANG_COOKIE, page
from catsack.server.routes.prefs import KindPrefs

__all__ = ["reset_lookups", "router"]

router = APIRouter()

log = logging.getLogger("catsack.server")


def mailbox_of(request: Request) -> Mailbox:
    found: Mailbox | None = getattr(request.app.state, "mailbox", None)
    if found is None:
        found = request.app.state.mailbox = Mailbox(hub_of(request).store.engine)
    return found


def _enabled(request: Request) -> bool:
    return mail_enabled(hub_of(request).settings)


def _need_mail(request: Request) -> None:
    if not _enabled(request):
        raise Refused("mail_off", "this server does not send e-mail (no SMTP settings)", 409)


def _client(request: Request) -> str:
    return scope_address(request.scope, hub_of(request).settings.proxy_networks())


def _lang(request: Request, asked: str | None = None) -> str:
    """The reader's language: ``asked`` (a link's ``lang``), else the page's (the ``catsack_lang`` cookie), else
    Accept-Language (:func:`catsack.locales.negotiate`)."""
    return negotiate(asked, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))


class AddressBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: str = Field(..., max_length=ADDRESS_MAX)


class Prefs(KindPrefs):
    """The kinds of mail the account wants, and the mails' language."""

    lang: str | None = Field(None, max_length=8, description="the mails' language: a code of /i18n/languages.json")

    @field_validator("lang")
    @classmethod
    def _known_language(cls, value: str | None) -> str | None:
        if value is not None and value not in LANGUAGES:
            raise ValueError(f"a language of {', '.join(LANGUAGES)}, not {value!r}")
        return value


class ResetRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    address: str = Field(..., max_length=ADDRESS_MAX)


class ResetConfirm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: str = Field(..., max_length=128)
    password: str = Field(..., max_length=PASSWORD_MAX)


async def _out(request: Request, account: Account) -> dict[str, Any]:
    found = await asyncio.to_thread(mailbox_of(request).address, account.id)
    return {
        "enabled": _enabled(request),
        "address": None if found is None else found.address,
        "verified": bool(found and found.verified),
        "prefs": {k: bool(found.prefs.get(k, True)) if found else True for k in KINDS},
        "kinds": list(KINDS),
        "lang": found.lang if found else None,
    }


@router.get("/api/mail/status")
async def status(request: Request) -> dict[str, bool]:
    """Whether this server sends e-mail (the pages say so when it does not)."""
    return {"enabled": _enabled(request)}


@router.get("/api/mail")
async def mine(request: Request, account: Annotated[Account, Depends(logged_in)]) -> dict[str, Any]:
    """The account's address, whether it is verified, and which kinds of mail it wants."""
    return await _out(request, account)


@router.post("/api/mail/address")
async def set_address(
    request: Request, body: AddressBody, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Add or change the address: a verification link is mailed to it (at most 5 a day per account, 3 a day
    per address over every account, 10 address changes a day per client address)."""
    _need_mail(request)
    address = check_address(body.address)
    budgets = budgets_of(request)
    wait = await budgets.spend(ADDRESS_CHANGES_PER_CLIENT, _client(request))
    if wait > 0:
        raise Refused("rate_limited", **retry_later("too many address changes from your address", wait))
    mailbox = address_key(address)
    wait = await budgets.spend(VERIFY_PER_RECIPIENT, mailbox)
    if wait > 0:
        why = f"this address was sent {VERIFY_PER_RECIPIENT.amount} verification mails today: no more"
        raise Refused("too_many_mails", **retry_later(why, wait))
    try:
        await asyncio.to_thread(mailbox_of(request).set_address, account, address, _lang(request))
    except AccountError:
        await budgets.refund(VERIFY_PER_RECIPIENT, mailbox)  # no mail went
        raise
    return await _out(request, account)


@router.delete("/api/mail/address")
async def remove_address(request: Request, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    await asyncio.to_thread(mailbox_of(request).remove, account.id)
    return await _out(request, account)


@router.post("/api/mail/prefs")
async def set_prefs(request: Request, body: Prefs, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Which kinds of mail the account wants, and in which language (what is left out stays as it is; the
    language is first the page's when the address is added)."""
    await asyncio.to_thread(mailbox_of(request).set_prefs, account.id, body.chosen())
    return await _out(request, account)


@router.get("/mail/verify", include_in_schema=False)
async def verify(request: Request, t: Annotated[str, Query(max_length=128)] = "") -> Response:
    """The link in a verification mail: mark the address verified, then show the account page."""
    try:
        user = await asyncio.to_thread(mailbox_of(request).verify, t)
    except AccountError as exc:  # verified on another account since this link was sent
        return RedirectResponse(f"/account?mail={exc.code}", status_code=303)
    return RedirectResponse(f"/account?mail={'verified' if user is not None else 'bad_link'}", status_code=303)


def _small_page(lang: str, title: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{html.escape(title)}</title>'
        f'<link rel="stylesheet" href="/static/catsack.css"></head><body class="lobby"><main class="panel small-page">'
        f'<h1>{html.escape(title)}</h1>{body}<p><a href="/account">catsack</a></p></main></body></html>'
    )


@router.get("/mail/unsubscribe", include_in_schema=False)
async def unsubscribe_page(
    request: Request,
    u: Annotated[int, Query(ge=1)],
    t: Annotated[str, Query(max_length=128)],
    k: Annotated[str, Query(max_length=16)],
    lang: Annotated[str | None, Query(max_length=8)] = None,
) -> Response:
    """The link in a mail's text: one button (a link checker that opens links changes nothing), in the
    mail's language."""
    chosen = _lang(request, lang)
    tr = translations(chosen)
    title, button = tr.gettext("Unsubscribe"), tr.gettext("Stop these mails")
    action = html.escape(f"/mail/unsubscribe?{urlencode({'u': u, 't': t, 'k': k, 'lang': chosen})}")
    form = (
        f'<form method="post" action="{action}"><button class="button primary" type="submit">'
        f"{html.escape(button)}</button></form>"
    )
    return _small_page(chosen, title, form)


@router.post("/mail/unsubscribe", include_in_schema=False)
async def unsubscribe(
    request: Request,
    u: Annotated[int, Query(ge=1)],
    t: Annotated[str, Query(max_length=128)],
    k: Annotated[str, Query(max_length=16)],
    lang: Annotated[str | None, Query(max_length=8)] = None,
) -> Response:
    """One click (RFC 8058 ``List-Unsubscribe=One-Click``, or the page's button): that kind of mail off."""
    ok = await asyncio.to_thread(mailbox_of(request).unsubscribe, u, t, k)
    chosen = _lang(request, lang)
    tr = translations(chosen)
    said = tr.gettext("Done: no more mails of this kind.") if ok else tr.gettext("This link is not valid.")
    return _small_page(chosen, tr.gettext("Unsubscribe"), f"<p>{html.escape(said)}</p>")


# ---------------------------------------------------------------------- password reset

#: Reset lookups queued and not done yet (kept so that they are not collected half-way).
reset_lookups: set[asyncio.Task[None]] = set()


async def _look_up_and_mail(mailbox: Mailbox, address: str) -> None:
    try:
        await asyncio.to_thread(mailbox.request_reset, address)
    except Exception:  # the database is away: the person asks again (their answer could not tell)
        log.exception("password reset lookup failed")


async def _reset_budgets(request: Request, mailbox_key: str) -> None:
    """Spend this request's budgets, or refuse it (429, ``Retry-After``) saying that no mail is sent. The
    budgets are kept by the address asked for, whether an account has it or not, so a refusal tells
    nothing of which addresses are known; a stranger spending a mailbox's budget from addresses of their
    own cannot stop its owner's request from another address (docs/deploy.md, "Security budgets")."""
    budgets = budgets_of(request)
    client = _client(request)
    wait = await budgets.spend(RESET_PER_CLIENT, client)
    if wait > 0:
        raise Refused("rate_limited", **retry_later("too many reset requests from your address: no mail is sent", wait))
    pair = f"{mailbox_key}\x00{client}"
    wait = await budgets.spend(RESET_PER_RECIPIENT_AND_CLIENT, pair)
    if wait > 0:
        why = "too many reset requests for this address from yours: no mail is sent (look for the last one)"
        raise Refused("rate_limited", **retry_later(why, wait))
    if await budgets.spend(RESET_PER_RECIPIENT, mailbox_key) > 0:  # asked for from many addresses: one each
        wait = await budgets.spend(RESET_ALARMED, pair)
        if wait > 0:
            why = "this address was sent many reset links lately: no mail is sent (look for the last one)"
            raise Refused("rate_limited", **retry_later(why, wait))


@router.post("/api/account/reset", status_code=202)
async def request_reset(request: Request, body: ResetRequest) -> dict[str, str]:
    """Mail a single-use link (valid one hour) for a new password to the account whose verified address
    this is. The answer is the same whether or not the address is known, and comes before anything is
    looked up: the lookup and the mail are queued, so the time of the answer tells nothing either. A
    request that its budgets refuse is answered 429 saying that no mail is sent."""
    check_origin(request)
    _need_mail(request)
    address = body.address.strip()
    # The budget's key is the address as the lookup compares it (NFKC, case-folded): spelling one address
    # in other Unicode forms spends the same budget.
    await _reset_budgets(request, address_key(unicodedata.normalize("NFKC", address))[:ADDRESS_MAX])
    task = asyncio.create_task(_look_up_and_mail(mailbox_of(request), address))
    reset_lookups.add(task)
    task.add_done_callback(reset_lookups.discard)
    return {"detail": "if that address belongs to an account and is verified, a link is on its way"}


@router.post("/api/account/reset/confirm", status_code=204)
async def confirm_reset(request: Request, body: ResetConfirm) -> Response:
    """Set the new password with the mailed token (once); every session of the account ends and this
    browser is logged in."""
    check_origin(request)
    accounts = accounts_of(request)
    user_id = await asyncio.to_thread(mailbox_of(request).reset_password, body.token, body.password, accounts.hasher)
    account = await asyncio.to_thread(accounts.by_id, user_id)
    if account is None:
        raise AccountError("bad_token", "this reset link is not valid (used, expired or mistyped)", 400)
    token = await asyncio.to_thread(accounts.new_session, account)
    response = Response(status_code=204)
    set_session(request, response, token)
    return response


@router.get("/reset", include_in_schema=False)
async def reset_page() -> Response:
    return page("reset.html")
