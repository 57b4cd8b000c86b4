"""An address is verified on one account at a time, so that a password reset by mail names one account:
adding an address verified on another account is refused (``address_taken``), a verification that
another account beat is refused, and an address verified on several accounts before this rule gets one
reset link per account, each mail naming its account (docs/deploy.md, "Security budgets")."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from sqlalchemy import select

from catsack.server.people.accounts import Accounts
from catsack.server.people.mail import Mailbox, emails_t, mail_queue_t
from test_mail_budgets import app, ask_reset, queued, verified_account, wait_for  # noqa: F401  (app: a fixture)
from web_clients import ORIGIN, browser, register


def engine_of(c: TestClient) -> Any:
    return c.app.state.hub.store.engine  # type: ignore[attr-defined]


def test_an_address_verified_on_one_account_cannot_be_added_to_another(app: TestClient) -> None:  # noqa: F811
    ann = verified_account(app, "Ann", "ann@example.org")
    ben = browser(app)
    assert register(ben, "Ben").status_code == 201
    for spelled in ("ann@example.org", "Ann@Example.ORG"):
        r = ben.post("/api/mail/address", json={"address": spelled}, headers=ORIGIN)
        assert r.status_code == 409 and r.json()["code"] == "address_taken", r.text
    assert queued(app, "verify", "ann@example.org") == 1  # Ann's own; none for Ben
    assert ben.get("/api/mail").json()["address"] is None
    # The refusals spent nothing of the address's verification budget (three a day): Ann re-adds it thrice.
    codes = [ann.post("/api/mail/address", json={"address": "ann@example.org"}, headers=ORIGIN) for _ in range(4)]
    assert [r.status_code for r in codes] == [200, 200, 200, 429] and codes[-1].json()["code"] == "too_many_mails"


def test_a_verification_beaten_by_another_account_is_refused(app: TestClient) -> None:  # noqa: F811
    """Two accounts add one address before either confirms it: the first link opened verifies it, the
    second is refused (the account page is told ``address_taken``) and leaves its address unverified."""
    people = {}
    tokens = {}
    for name in ("Ann", "Ben"):
        b = people[name] = browser(app)
        assert register(b, name).status_code == 201
        account = Accounts(engine_of(app)).by_name(name)
        assert account is not None
        tokens[name] = Mailbox(engine_of(app)).set_address(account, "shared@example.org", "en")
    r = people["Ann"].get(f"/mail/verify?t={quote(tokens['Ann'])}", follow_redirects=False)
    assert r.headers["location"] == "/account?mail=verified"
    r = people["Ben"].get(f"/mail/verify?t={quote(tokens['Ben'])}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account?mail=address_taken"
    assert people["Ben"].get("/api/mail").json()["verified"] is False
    assert people["Ann"].get("/api/mail").json()["verified"] is True


def test_an_address_verified_on_two_accounts_before_gets_a_link_for_each(app: TestClient) -> None:  # noqa: F811
    """Such duplicates are left as they are (nothing is taken away from anyone): a reset request for the
    address mails one link per account, and each mail names its account."""
    verified_account(app, "Ann", "old@example.org")
    ben = browser(app)
    assert register(ben, "Ben").status_code == 201
    ben_id = Accounts(engine_of(app)).by_name("Ben").id  # type: ignore[union-attr]
    with engine_of(app).begin() as conn:  # as a database from before the rule may hold it
        row = conn.execute(select(emails_t).where(emails_t.c.address_key == "old@example.org")).first()
        conn.execute(emails_t.insert().values({**row._asdict(), "user_id": ben_id, "unsubscribe": "x" * 32}))
    assert ask_reset(browser(app), "old@example.org").status_code == 202
    wait_for("two links", lambda: queued(app, "reset", "old@example.org") == 2)
    with engine_of(app).connect() as conn:
        names = sorted(
            json.loads(p)["name"]
            for p in conn.execute(select(mail_queue_t.c.payload).where(mail_queue_t.c.kind == "reset")).scalars()
        )
    assert names == ["Ann", "Ben"]
