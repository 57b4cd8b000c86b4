"""Budgets of the mails a stranger can cause (catsack.server.budgets): password-reset requests that cannot
lock the owner out and are never accepted without a mail, a reset answer given before any lookup (the
same work for a known and an unknown address), verification mails capped per mailbox over every account
and address changes per client address. SQLite, one process and two processes sharing Redis."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from sqlalchemy import event, func, select

from catsack.server.people.mail import Mailbox, mail_queue_t
from web_clients import ORIGIN, browser, register

#: Mail switched on, sent to a port where nothing listens and looked at once an hour: the tests read the
#: queue, which is what a request decides.
MAIL = {"smtp_host": "127.0.0.1", "smtp_port": 9, "smtp_from": "catsack <games@test>", "mail_poll_seconds": 3600}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def make_app(tmp_path: Path, **settings: Any) -> TestClient:
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    base: dict[str, Any] = {
        "database_url": f"sqlite:///{tmp_path}/app.db",
        "bot_delay": 0.0,
        "http_rate_burst": 10_000,
        **MAIL,
    }
    return TestClient(create_app(Settings(**{**base, **settings}), clock=FakeClock()))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[TestClient]:
    with make_app(tmp_path) as c:
        yield c


def verified_account(c: TestClient, name: str, address: str) -> TestClient:
    """A browser logged in as a new account ``name`` whose verified mail address is ``address``."""
    from catsack.server.people.accounts import Accounts

    b = browser(c)
    assert register(b, name).status_code == 201
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
    account = Accounts(engine).by_name(name)
    assert account is not None
    box = Mailbox(engine)
    assert box.verify(box.set_address(account, address, "en")) == account.id
    return b


def queued(c: TestClient, kind: str, address: str | None = None) -> int:
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
    q = select(func.count()).select_from(mail_queue_t).where(mail_queue_t.c.kind == kind)
    if address is not None:
        q = q.where(func.lower(mail_queue_t.c.address) == address.lower())
    with engine.connect() as conn:
        return int(conn.execute(q).scalar_one())


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout  # bounds a failure only: the loop waits for the condition
    while not (got := probe()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)
    return got


def ask_reset(c: TestClient, address: str) -> Any:
    return c.post("/api/account/reset", json={"address": address}, headers=ORIGIN)


def from_address(c: TestClient, ip: str) -> TestClient:
    return browser(c, client=(ip, 5000))


# ---------------------------------------------------------------------- the password reset


def strangers_then_owner(apps: list[TestClient]) -> None:
    """Strangers at six addresses ask, over and over and through every app in turn, for the owner's reset
    link; then the owner asks from an address of their own. Every request accepted queued a mail, every
    refusal said no mail is sent, and the owner's request was accepted."""
    first = apps[0]
    verified_account(first, "Owner", "owner@example.org")
    accepted = 0
    refused: list[str] = []
    for i in range(6):
        for k in range(4):
            c = from_address(apps[(i + k) % len(apps)], f"203.0.113.{i + 1}")
            r = ask_reset(c, "owner@example.org")
            if r.status_code == 202:
                accepted += 1
            else:
                assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text
                assert int(r.headers["retry-after"]) >= 1
                refused.append(r.json()["detail"])
    assert refused, "the strangers were never refused"
    assert accepted < 6 + 3  # the mailbox's budget held: three, then one per stranger's address
    owner = from_address(apps[-1], "198.51.100.7")
    r = ask_reset(owner, "owner@example.org")
    assert r.status_code == 202, r.text
    accepted += 1
    assert all("no mail is sent" in why for why in refused), refused
    # Never accepted and silently dropped: one mail for every accepted request.
    wait_for("every accepted request's mail", lambda: queued(first, "reset", "owner@example.org") == accepted)


def test_a_strangers_reset_requests_do_not_stop_the_owners(app: TestClient) -> None:
    strangers_then_owner([app])


def test_one_address_spelled_otherwise_spends_the_same_reset_budget(app: TestClient) -> None:
    """Case and Unicode compatibility forms (a fullwidth letter) name the same mailbox, and its budget."""
    verified_account(app, "Owner", "owner@example.org")
    stranger = from_address(app, "203.0.113.1")
    spellings = ["owner@example.org", "OWNER@example.org", "\uff4fwner@example.org", "Owner@Example.Org"]
    codes = [ask_reset(stranger, s).status_code for s in spellings]
    assert codes == [202, 202, 202, 429], codes
    wait_for("three mails", lambda: queued(app, "reset", "owner@example.org") == 3)


def test_two_processes_keep_one_reset_budget(redis_url: str, tmp_path: Path) -> None:
    """The same with two server processes' apps on one database and one Redis: the budgets are the
    deployment's, not each process's (before, six requests were accepted and five mailed)."""
    settings = {"redis_url": redis_url, "redis_channel": f"test-{uuid.uuid4().hex}"}
    with make_app(tmp_path, **settings) as a, make_app(tmp_path, **settings) as b:
        b.app.state.budgets.clock = a.app.state.budgets.clock  # type: ignore[attr-defined]
        strangers_then_owner([a, b])


class BlockedMailbox(Mailbox):
    """A mailbox whose reset lookup waits until the test lets it go, noting the addresses it was asked for."""

    def __init__(self, engine: Any) -> None:
        super().__init__(engine)
        self.go = threading.Event()
        self.asked: list[str] = []

    def request_reset(self, address: str, now: float | None = None) -> int:
        self.asked.append(address)
        assert self.go.wait(60)
        return super().request_reset(address, now)


def test_the_reset_answer_comes_before_the_lookup(app: TestClient) -> None:
    """The answer to a reset request does not wait for the address to be looked up, so its time cannot
    tell a verified address from an unknown one: with every lookup held back, both are answered, alike,
    having read no address or account; let go, the lookups mail the verified address only.
    (bench/reset_timing.py prints the medians.)"""
    verified_account(app, "Ann", "ann@example.org")
    engine = app.app.state.hub.store.engine  # type: ignore[attr-defined]
    box = app.app.state.mailbox = BlockedMailbox(engine)  # type: ignore[attr-defined]
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "emails" in statement or "users" in statement:  # a lookup of addresses or accounts (not a sweep's)
            statements.append(statement)

    stranger = browser(app)
    answers = []
    event.listen(engine, "before_cursor_execute", count)
    try:
        for address in ("ann@example.org", "nobody@example.org"):
            statements.clear()
            r = ask_reset(stranger, address)
            answers.append((r.status_code, r.content, sorted(k for k in r.headers if k != "date"), len(statements)))
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert answers[0] == answers[1] and answers[0][0] == 202 and answers[0][3] == 0, answers
    assert queued(app, "reset") == 0  # both answered while no lookup has run
    box.go.set()
    wait_for("the lookups", lambda: len(box.asked) == 2)
    wait_for("the verified address's mail", lambda: queued(app, "reset", "ann@example.org") == 1)
    assert queued(app, "reset") == 1


# ---------------------------------------------------------------------- the verification mail


def test_verification_mails_to_one_address_are_capped_over_every_account(app: TestClient) -> None:
    """Twelve new accounts at one client address each add the same stranger's address: three
    verification mails reach it in a day, then ``too_many_mails``; after ten address changes the client
    address itself is refused (``rate_limited``), while another client is not."""
    codes = []
    for i in range(12):
        b = browser(app)
        assert register(b, f"Spammer{i}").status_code == 201
        r = b.post("/api/mail/address", json={"address": "victim@example.org"}, headers=ORIGIN)
        codes.append((r.status_code, r.json().get("code")))
    assert codes[:3] == [(200, None)] * 3
    assert codes[3:10] == [(429, "too_many_mails")] * 7
    assert codes[10:] == [(429, "rate_limited")] * 2
    assert queued(app, "verify", "victim@example.org") == 3
    other = from_address(app, "198.51.100.7")
    assert register(other, "Someone").status_code == 201
    r = other.post("/api/mail/address", json={"address": "someone@example.org"}, headers=ORIGIN)
    assert r.status_code == 200, r.text
    # A refused change spends nothing of the address's budget.
    app.app.state.budgets.clock.now += 2 * 86400  # type: ignore[attr-defined]
    assert other.post("/api/mail/address", json={"address": "not an address"}, headers=ORIGIN).status_code == 422
    r = other.post("/api/mail/address", json={"address": "victim@example.org"}, headers=ORIGIN)
    assert r.status_code == 200 and queued(app, "verify", "victim@example.org") == 4
