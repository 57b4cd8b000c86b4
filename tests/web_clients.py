"""Helpers for HTTP tests of the accounts: another browser on the same app, this site's Origin."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

#: The Origin header a page of the test server sends (cookie-authenticated changes need it: CSRF).
ORIGIN = {"Origin": "http://testserver"}


def browser(c: TestClient, **kw: Any) -> TestClient:
    """Another browser (its own cookies) on the same running app (the same event loop)."""
    b = TestClient(c.app, **kw)
    b.portal = c.portal
    return b


def register(c: TestClient, name: str = "Ann", password: str = "correct horse") -> Any:
    """Register ``name`` in browser ``c`` (which is then logged in); the response."""
    return c.post("/api/account/register", json={"name": name, "password": password}, headers=ORIGIN)
