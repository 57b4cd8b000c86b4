"""Operator rights belong to accounts, not names: each name in CATSACK_ADMIN_ACCOUNTS is bound to its
account when the server starts (a listed name that no account holds stops the start, with a message
saying what to do), the operator's pages check that account, and a deleted operator's name can never
be registered again (docs/deploy.md, "Settings")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from sqlalchemy import update

from catsack.server.people.accounts import OperatorError, users_t
from web_clients import ORIGIN, browser, register


def app(tmp_path: Path, **settings: Any) -> TestClient:
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    return TestClient(create_app(Settings(database_url=f"sqlite:///{tmp_path}/app.db", **settings)))


def test_a_listed_name_without_an_account_stops_the_start(tmp_path: Path) -> None:
    """Whoever registered the name first would become the operator: the server refuses to start instead."""
    with app(tmp_path) as c:
        assert register(c, "Boss").status_code == 201
    refused = pytest.raises(OperatorError, match=r"CATSACK_ADMIN_ACCOUNTS names 'ghost', which no account holds")
    with refused, app(tmp_path, admin_accounts="boss, ghost"):
        pass
    with app(tmp_path, admin_accounts="boss"):  # every listed name held: it starts
        pass


def test_operator_rights_follow_the_account_bound_at_start(tmp_path: Path) -> None:
    with app(tmp_path) as c:
        assert register(c, "Boss").status_code == 201
        assert register(browser(c), "Ann").status_code == 201
    with app(tmp_path, admin_accounts="BOSS") as c:  # names compare as accounts do
        boss, ann = browser(c), browser(c)
        for who, name in ((boss, "boss"), (ann, "ann")):
            r = who.post("/api/account/login", json={"name": name, "password": "correct horse"}, headers=ORIGIN)
            assert r.status_code == 200
        assert boss.get("/api/admin/fairplay").status_code == 200
        assert ann.get("/api/admin/fairplay").json()["code"] == "not_admin"
        # Another account that comes to hold the name while the server runs is nobody's operator.
        with c.app.state.hub.store.engine.begin() as conn:  # type: ignore[attr-defined]
            conn.execute(update(users_t).where(users_t.c.name == "Boss").values(name="Old", name_key="old"))
        usurper = browser(c)
        assert register(usurper, "Boss").status_code == 201
        r = usurper.get("/api/admin/fairplay")
        assert r.status_code == 403 and r.json()["code"] == "not_admin"


def test_a_deleted_operators_name_is_never_free_again(tmp_path: Path) -> None:
    with app(tmp_path) as c:
        assert register(c, "Boss").status_code == 201
        assert register(browser(c), "Ann").status_code == 201
    with app(tmp_path, admin_accounts="Boss") as c:
        boss = browser(c)
        boss.post("/api/account/login", json={"name": "Boss", "password": "correct horse"}, headers=ORIGIN)
        ann = browser(c)
        ann.post("/api/account/login", json={"name": "Ann", "password": "correct horse"}, headers=ORIGIN)
        for who in (boss, ann):
            assert (
                who.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN).status_code
                == 204
            )
        for name in ("Boss", "boss", "BOSS"):
            r = register(browser(c), name)
            assert r.status_code == 409 and r.json()["code"] == "reserved_name", r.text
        assert register(browser(c), "Ann").status_code == 201  # anyone else's name is free again
    # Listed still, the name has no account: the server does not start (nobody can register it meanwhile).
    with pytest.raises(OperatorError), app(tmp_path, admin_accounts="Boss"):
        pass
