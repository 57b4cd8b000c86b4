"""Security headers on every HTTP answer: a strict Content-Security-Policy, no framing,
no referrer to other sites, no MIME sniffing.

The browser client is static modules under ``/static`` with no inline script or style attribute, so its
pages run under ``script-src 'self'``. The one inline element the server sends is the stylesheet of the
rules page (:mod:`catsack.rulebook.page` writes a self-contained page); it is allowed by its hash, so a
changed stylesheet is allowed as soon as the server restarts. ``frame-ancestors 'none'`` and
``X-Frame-Options: DENY`` stop a hostile page from framing a table with the victim's live buttons.
FastAPI's API explorer (``/docs``, ``/redoc``; served only with ``CATSACK_API_DOCS=true``) loads its
scripts from a CDN and starts them inline; it gets a policy of its own that allows exactly that, and
still cannot be framed.

HSTS belongs to the TLS site (``deploy/nginx/catsack.conf``): the server itself may run on plain HTTP.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from typing import Any

__all__ = ["API_DOCS_POLICY", "SecurityHeaders", "content_policy"]

#: Paths of FastAPI's API explorer, which needs its CDN and an inline starter script.
_DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc"})

API_DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


@functools.cache
def _rules_style_hashes() -> tuple[str, ...]:
    """CSP hashes of the rules page's inline stylesheet, in every language the rulebook has."""
    from catsack.rulebook import LANGUAGES
    from catsack.rulebook.page import render_page

    found: set[str] = set()
    for lang in LANGUAGES:
        for css in re.findall(r"<style>(.*?)</style>", render_page(lang), flags=re.S):
            digest = hashlib.sha256(css.encode("utf-8")).digest()
            found.add(f"'sha256-{base64.b64encode(digest).decode('ascii')}'")
    return tuple(sorted(found))


@functools.cache
def content_policy() -> str:
    """The Content-Security-Policy of every page but the API explorer."""
    styles = " ".join(("'self'", *_rules_style_hashes()))
    return (
        "default-src 'self'; script-src 'self'; "
        f"style-src {styles}; "
        "img-src 'self' data:; connect-src 'self'; font-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


class SecurityHeaders:
    """ASGI middleware adding the security headers to every HTTP answer that does not set them itself."""

    def __init__(self, app: Any) -> None:
        self.app = app
        common = [
            (b"x-frame-options", b"DENY"),
            (b"referrer-policy", b"same-origin"),  # check_origin may fall back to our own Referer
            (b"x-content-type-options", b"nosniff"),
        ]
        self.page = [(b"content-security-policy", content_policy().encode("ascii")), *common]
        self.docs = [(b"content-security-policy", API_DOCS_POLICY.encode("ascii")), *common]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self.docs if scope.get("path") in _DOCS_PATHS else self.page

        async def with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in extra if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
