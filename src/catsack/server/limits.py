"""Abuse limits: frame budgets per connection, request budgets per address, body sizes, and the client
address behind trusted proxies. The security budgets (password guesses, resets,
verification mails, registrations) are :mod:`catsack.server.budgets`'s, shared between processes."""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import orjson
from starlette.exceptions import HTTPException

from catsack.server.settings import Network
from catsack.server.validate import is_table_id, table_id_problem

if TYPE_CHECKING:
    from catsack.server.metrics import Metrics

__all__ = ["AddressBuckets", "HttpGuard", "RateLimit", "client_address", "scope_address"]

Clock = Callable[[], float]
_MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class RateLimit:
    """A token bucket per connection, counting the frames it drops.

    Drops are counted over a window of ``window`` seconds: a window that passes with no drop
    starts the count again, so only sustained flooding reaches the closing threshold, never
    occasional bursts spread over a long session.
    """

    def __init__(self, per_second: float, burst: int, *, window: float = 10.0, clock: Clock = time.monotonic) -> None:
        self.rate = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.t = clock()
        self.window = window
        self.dropped = 0  # frames dropped in the current window
        self.last_drop = -math.inf

    def allow(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        if now - self.last_drop > self.window:
            self.dropped = 0
        self.last_drop = now
        self.dropped += 1
        return False


class AddressBuckets:
    """One token bucket per client address, for mutating HTTP requests.

    Full buckets are forgotten now and then, so the table holds only recently busy addresses.
    """

    def __init__(self, per_second: float, burst: int, *, clock: Clock = time.monotonic) -> None:
        self.rate = per_second
        self.burst = float(burst)
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}  # address -> (tokens, time)
        self._next_prune = clock() + 60.0

    def take(self, address: str) -> float:
        """Spend one request of ``address``: 0.0 if allowed, else the seconds until one is."""
        now = self.clock()
        tokens, t = self.buckets.get(address, (self.burst, now))
        tokens = min(self.burst, tokens + (now - t) * self.rate)
        if now >= self._next_prune:
            self._prune(now)
        if tokens >= 1.0:
            self.buckets[address] = (tokens - 1.0, now)
            return 0.0
        self.buckets[address] = (tokens, now)
        return (1.0 - tokens) / self.rate

    def wait(self, address: str) -> float:
        """Seconds until ``address`` may spend one request (0.0: now), spending nothing."""
        found = self.buckets.get(address)
        if found is None:
            return 0.0
        tokens, t = found
        tokens = min(self.burst, tokens + (self.clock() - t) * self.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self.rate

    def _prune(self, now: float) -> None:
        full = [a for a, (tokens, t) in self.buckets.items() if tokens + (now - t) * self.rate >= self.burst]
        for a in full:
            del self.buckets[a]
        self._next_prune = now + 60.0


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def _trusted(address: str, proxies: Iterable[Network]) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in net for net in proxies)


def client_address(peer: str | None, headers: Mapping[str, str], proxies: tuple[Network, ...]) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy.

    Behind trusted proxies, ``X-Forwarded-For`` is read from the right (each proxy appends the
    address it saw), skipping trusted hops; the first untrusted entry is the client. A header
    that only trusted hops wrote, or none, falls back to ``X-Real-IP`` and then the peer. Headers
    from an untrusted peer are ignored: anyone could write them.
    """
    peer = peer or "?"
    if not proxies or not _trusted(peer, proxies):
        return peer
    forwarded = headers.get("x-forwarded-for")
    if forwarded:
        for hop in reversed(forwarded.split(",")):
            ip = _ip(hop)
            if ip is None:
                break  # a malformed hop: believe nothing further left
            if not any(ip in net for net in proxies):
                return str(ip)
    real = _ip(headers.get("x-real-ip") or "")
    if real is not None:
        return str(real)
    return peer


def _headers(scope: Mapping[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in scope.get("headers", ()):
        key = k.decode("latin-1").lower()
        value = v.decode("latin-1")
        out[key] = f"{out[key]},{value}" if key in out else value  # repeated headers join as one list
    return out


def scope_address(scope: Mapping[str, Any], proxies: tuple[Network, ...]) -> str:
    """:func:`client_address` for an ASGI scope (HTTP or WebSocket)."""
    client = scope.get("client")
    peer = str(client[0]) if client else None
    return client_address(peer, _headers(scope), proxies)


_TABLE_WORDS = frozenset({"", "finished"})  # /api/tables/<word> routes that are not a table id


def _path_problem(path: str) -> str | None:
    """Why a request path is refused outright, or ``None``: NUL, control characters or lone surrogates
    anywhere in it, or an ``/api/tables/{id}`` whose id the server cannot have made
    (whatever route handles it, PostgreSQL never sees such text)."""
    if not path.isprintable():
        return "no such path (it holds characters that are not printable)"
    parts = path.split("/", 4)
    table_path = len(parts) > 3 and parts[1] == "api" and parts[2] == "tables"
    if table_path and parts[3] not in _TABLE_WORDS and not is_table_id(parts[3]):
        return table_id_problem(parts[3])
    return None


class _BodyTooLarge(HTTPException):
    """Raised from ``receive`` once a body without a (truthful) length runs past the limit; an
    ``HTTPException``, so the framework's body reader passes it on as a 413 answer."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes")
        # Answered by the app's handler when the framework's body reader meets it first.
        self.code = "too_large"
        self.params = {"bytes": limit}


class HttpGuard:
    """ASGI middleware for HTTP requests: per-address budgets on mutating requests (429 with
    ``Retry-After``) and a body size limit checked before the body is read or parsed (413)."""

    def __init__(
        self,
        app: Any,
        *,
        max_body_bytes: int,
        buckets: AddressBuckets,
        proxies: tuple[Network, ...],
        metrics: Metrics | None = None,
    ) -> None:
        self.app = app
        self.max_body = max_body_bytes
        self.buckets = buckets
        self.proxies = proxies
        self.metrics = metrics

    async def _too_large(self, send: Any) -> None:
        detail = f"the request body is larger than {self.max_body} bytes"
        await _answer(send, 413, detail, "too_large", params={"bytes": self.max_body})

    def _refused(self, reason: str) -> None:
        if self.metrics is not None:
            self.metrics.http_refused.labels(reason).inc()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not await self._refused_early(scope, send):
            await self._limited(scope, receive, send)

    async def _refused_early(self, scope: dict[str, Any], send: Any) -> bool:
        """Answer a request refused before the app sees it (its path, its address's budget, its
        declared length); whether it was."""
        headers = _headers(scope)
        refused = _path_problem(str(scope.get("path", "")))
        if refused is not None:  # before any route (every router's) or the database sees it
            self._refused("path")
            await _answer(send, 404, refused, "not_found")
            return True
        if scope["method"] in _MUTATING:
            client = scope.get("client")
            address = client_address(str(client[0]) if client else None, headers, self.proxies)
            wait = self.buckets.take(address)
            if wait > 0:
                self._refused("rate")
                retry = max(1, math.ceil(wait))
                slow = "too many requests from your address: slow down"
                await _answer(send, 429, slow, "rate_limited", {"retry-after": str(retry)}, {"seconds": retry})
                return True
        length = (headers.get("content-length") or "").strip()
        if length and not (length.isascii() and length.isdigit()):  # "²".isdigit() is true, int("²") fails
            await _answer(send, 400, "Content-Length must be a number of bytes", "bad_request")
            return True
        if length and int(length) > self.max_body:
            self._refused("size")
            await self._too_large(send)
            return True
        return False

    async def _limited(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Run the app on a body read no further than the limit (413 once it is passed, if no answer began)."""
        seen = 0
        started = False

        async def limited_receive() -> dict[str, Any]:
            nonlocal seen
            message: dict[str, Any] = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise _BodyTooLarge(self.max_body)
            return message

        async def tracked_send(message: dict[str, Any]) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracked_send)
        except _BodyTooLarge:
            if not started:
                await self._too_large(send)
        except BaseExceptionGroup as group:  # raised through a task group: unwrap our own signal only
            rest = group.split(_BodyTooLarge)[1]
            if rest is not None:
                raise
            if not started:
                await self._too_large(send)


async def _answer(
    send: Any,
    status: int,
    detail: str,
    code: str,
    extra: Mapping[str, str] | None = None,
    params: Mapping[str, str | int] | None = None,
) -> None:
    """A refusal as every refused request is answered: ``detail``, ``code`` and the details as ``params``."""
    answer: dict[str, Any] = {"detail": detail, "code": code}
    if params:
        answer["params"] = dict(params)
    body = orjson.dumps(answer)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode("latin-1"), v.encode("latin-1")) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
