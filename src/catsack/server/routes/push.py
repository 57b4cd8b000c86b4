"""Web Push over HTTP: the server's public key for the pages, an account's devices and the kinds of
push it wants, and a test push to one device.

Every change is a cookie-authenticated POST or DELETE checked for its origin (CSRF) like the other
account changes, within the body size and the per-address request budget every mutating request
spends (``max_body_bytes``, ``http_rate_per_second``); an account keeps at most
:data:`catsack.server.people.push.DEVICES_MAX` devices. A server without a VAPID key answers ``push_off``
(409) and says which setting turns push on.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from catsack.locales import LANGUAGES
from catsack.server.people.accounts import Account
from catsack.server.people.push import (
    DEVICES_MAX,
    ENDPOINT_MAX,
    KEY_SETTING,
    KINDS,
    Pushbox,
    check_subscription,
    endpoint_hash,
    push_enabled,
    vapid_keys,
)
from catsack.server.routes.accounts import changing, logged_in
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import LANG_COOKIE
from catsack.server.routes.prefs import KindPrefs

__all__ = ["router"]

router = APIRouter()


def pushbox_of(request: Request) -> Pushbox:
    found: Pushbox | None = getattr(request.app.state, "pushbox", None)
    if found is None:
        found = request.app.state.pushbox = Pushbox(hub_of(request).store.engine)
    return found


def _status(request: Request) -> dict[str, Any]:
    settings = hub_of(request).settings
    keys = vapid_keys(settings) if push_enabled(settings) else None
    return {"enabled": keys is not None, "public_key": keys.public if keys else None, "setting": KEY_SETTING}


def _need_push(request: Request) -> None:
    if not push_enabled(hub_of(request).settings):
        raise Refused("push_off", f"this server sends no push notifications (no {KEY_SETTING})", 409)


class Keys(BaseModel):
    model_config = ConfigDict(extra="forbid")

    p256dh: str = Field(..., max_length=100)
    auth: str = Field(..., max_length=32)


class SubscribeBody(BaseModel):
    """A browser's ``PushSubscription.toJSON()``, and the language its notifications are to speak."""

    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(..., max_length=ENDPOINT_MAX)
    keys: Keys
    expirationTime: float | None = None  # the browser's name for it
    lang: str | None = Field(None, max_length=8)


class EndpointBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    endpoint: str = Field(..., max_length=ENDPOINT_MAX)


async def _out(request: Request, account: Account) -> dict[str, Any]:
    box = pushbox_of(request)
    devices = await asyncio.to_thread(box.devices, account.id)
    prefs = await asyncio.to_thread(box.prefs, account.id)
    return {
        **_status(request),
        "kinds": list(KINDS),
        "prefs": prefs,
        "devices": [d.public() for d in devices],
        "devices_max": DEVICES_MAX,
    }


@router.get("/api/push/status")
async def status(request: Request) -> dict[str, Any]:
    """Whether this server sends push notifications, its public key (the ``applicationServerKey`` a page
    subscribes with), and the setting that turns push on."""
    return _status(request)


@router.get("/api/push")
async def mine(request: Request, account: Annotated[Account, Depends(logged_in)]) -> dict[str, Any]:
    """The account's devices (each with ``key``, its endpoint's SHA-256, by which a page finds its own) and
    which kinds of push it wants."""
    return await _out(request, account)


@router.post("/api/push/subscribe")
async def subscribe(
    request: Request, body: SubscribeBody, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Keep this browser's subscription: its device gets the account's pushes, in ``lang`` (else the page's)."""
    _need_push(request)
    sub = check_subscription(body.endpoint, body.keys.p256dh, body.keys.auth, hub_of(request).settings)
    lang = body.lang if body.lang in LANGUAGES else request.cookies.get(LANG_COOKIE, "")
    device = await asyncio.to_thread(pushbox_of(request).subscribe, account.id, sub, lang or "")
    return {**await _out(request, account), "device": device.public()}


@router.post("/api/push/unsubscribe")
async def unsubscribe(
    request: Request, body: EndpointBody, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Forget this browser's subscription (the page unsubscribes the browser too)."""
    await asyncio.to_thread(pushbox_of(request).unsubscribe, account.id, body.endpoint)
    return await _out(request, account)


@router.delete("/api/push/devices/{device_id}")
async def remove(request: Request, device_id: int, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Forget one of the account's devices (another browser, a lost phone)."""
    if not await asyncio.to_thread(pushbox_of(request).remove, account.id, device_id):
        raise Refused("no_device", "this account has no such device", 404)
    return await _out(request, account)


@router.post("/api/push/prefs")
async def set_prefs(
    request: Request, body: KindPrefs, account: Annotated[Account, Depends(changing)]
) -> dict[str, Any]:
    """Which kinds of push the account wants (what is left out stays as it is)."""
    await asyncio.to_thread(pushbox_of(request).set_prefs, account.id, body.chosen())
    return await _out(request, account)


@router.post("/api/push/test")
async def test(request: Request, body: EndpointBody, account: Annotated[Account, Depends(changing)]) -> dict[str, Any]:
    """Send a test push to this browser's device (one waiting at a time)."""
    _need_push(request)
    box = pushbox_of(request)
    key = endpoint_hash(body.endpoint)
    device = next((d for d in await asyncio.to_thread(box.devices, account.id) if d.key == key), None)
    if device is None or not await asyncio.to_thread(box.queue_test, account.id, device.id):
        raise Refused("no_device", "this account has no such device", 404)
    return await _out(request, account)
