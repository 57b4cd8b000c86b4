"""Helpers for HTTP tests of the accounts: another browser on the same app, this site's Origin."""

from __future__ import annotations

import time
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


def finished_bot_game(c: TestClient, seats: int = 4) -> str:
    """A table of ``seats`` random bots made through the API and played to the end; its id."""
    r = c.post("/api/tables", json={"seats": seats, "bots": {str(i): "random" for i in range(seats)}})
    assert r.status_code == 201, r.text
    table = str(r.json()["table"])
    deadline = time.monotonic() + 120  # bounds a failure only (a loaded machine is slow): it waits for the condition
    while c.get(f"/api/tables/{table}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.02)
    return table
