"""What an attack run found in ``catsack serve`` (issue 29, defects 1, 2, 3, 5, 6, 7, 8, 9): each case as
the attacker tried it. SQLite and PostgreSQL where a database is involved."""

from __future__ import annotations

from collections.abc import Callable

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient

from web_clients import ORIGIN, browser, register


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------------- defect 1: login lock-out


def _login(c: TestClient, name: str, password: str) -> int:
    return c.post("/api/account/login", json={"name": name, "password": password}, headers=ORIGIN).status_code


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out(app_server: Callable[..., TestClient]) -> None:
    """Five wrong passwords (and more) for a name from one address, then the owner's right password from
    another address: logged in. The guessing address itself waits."""
    c = app_server()
    register(c, "Owner")
    attacker = browser(c, client=("203.0.113.7", 4000))
    codes = [_login(attacker, "Owner", f"guess {i}") for i in range(8)]
    assert codes[:5] == [401] * 5 and codes[-1] == 429, codes
    owner = browser(c, client=("198.51.100.2", 5000))
    assert _login(owner, "owner", "correct horse") == 200


@pytest.mark.parametrize("how", ["password", "delete"])
def test_password_change_and_deletion_are_throttled(app_server: Callable[..., TestClient], how: str) -> None:
    """``POST /api/account/password`` and ``DELETE /api/account`` test the password: 429 after a few wrong ones."""
    c = app_server()
    register(c, "Victim")
    codes = []
    for i in range(12):
        if how == "password":
            r = c.post("/api/account/password", json={"old": f"guess {i}", "new": "new password"}, headers=ORIGIN)
        else:
            r = c.request("DELETE", "/api/account", json={"password": f"guess {i}"}, headers=ORIGIN)
        codes.append(r.status_code)
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    assert c.get("/api/account").json()["name"] == "Victim"  # still there, still logged in


def test_login_throttle_budgets() -> None:
    """Per (name, address): five failures, then one per 10 s. Per name over all addresses: once spent,
    each address gets one failure per 5 minutes, and a fresh address (the owner's) may still try."""
    from catsack.server.limits import LoginThrottle

    clock = FakeClock()
    t = LoginThrottle(clock=clock)
    for _ in range(5):
        assert t.attempt("ann", "a") == 0
        t.failed("ann", "a")
    assert t.attempt("ann", "a") > 0
    assert t.attempt("bob", "a") == 0  # another name from the same address
    assert t.attempt("ann", "b") == 0  # the same name from another address
    clock.now += 10.0
    assert t.attempt("ann", "a") == 0
    # A distributed attack: the name's budget (30 failures) spent from many addresses.
    for i in range(30):
        t.failed("cleo", f"bot{i}")
    assert t.attempt("cleo", "owner's new address") == 0  # the owner still gets in
    t.failed("cleo", "bot99")  # a fresh attacking address: one guess, then minutes
    assert t.attempt("cleo", "bot99") > 60
    clock.now += 300.0
    assert t.attempt("cleo", "bot99") == 0


def test_login_throttle_counts_attempts_per_address() -> None:
    from catsack.server.limits import LoginThrottle

    clock = FakeClock()
    t = LoginThrottle(clock=clock)
    waits = [t.attempt(f"name{i}", "sprayer") for i in range(25)]
    assert waits[:20] == [0.0] * 20 and all(w > 0 for w in waits[20:])
