"""Accounts over HTTP: registration, login, sessions, CSRF, throttling, deletion, export,
claiming guest seats; ratings checked against OpenSkill computed directly. SQLite and PostgreSQL."""

from __future__ import annotations

import io
import json
import statistics
import time
import zipfile
from collections.abc import Callable

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient

from catsack.server.people.ratings import MU, SIGMA, Rating, Ratings, display, ranks_of, rate_ranking
from web_clients import ORIGIN, browser, register


@pytest.mark.slow
def test_register_login_logout_and_cookie_flags(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    r = register(c)
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "Ann" and r.json()["rating"] == 1000 - 0  # a new player shows 1000
    cookie = r.headers["set-cookie"]
    assert "catsack_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert "Secure" not in cookie  # plain HTTP in the test; HTTPS below
    assert c.get("/api/account").json()["name"] == "Ann"
    assert c.post("/api/account/logout", headers=ORIGIN).status_code == 204
    assert c.get("/api/account").status_code == 401
    r = c.post("/api/account/login", json={"name": "ann", "password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 200 and r.json()["name"] == "Ann"  # names compare case-insensitively
    assert c.get("/api/account").json()["name"] == "Ann"


def test_secure_cookie_over_https(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    https = browser(c, base_url="https://testserver")
    r = https.post(
        "/api/account/register",
        json={"name": "Sec", "password": "correct horse"},
        headers={"Origin": "https://testserver"},
    )
    assert r.status_code == 201 and "Secure" in r.headers["set-cookie"]


def test_names_are_validated(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    for name, code in [
        ("ab", "bad_name"),
        ("x" * 25, "bad_name"),
        ("has space", "bad_name"),
        ("<img src=x>", "bad_name"),
        ("nul\x00", "bad_name"),
        ("heuristic", "reserved_name"),
        ("Expert", "reserved_name"),
        ("admin", "reserved_name"),
    ]:
        r = register(c, name)
        assert r.status_code == 400 and r.json()["code"] == code, (name, r.text)
    assert register(c, "Ann", "short").json()["code"] == "bad_password"
    assert register(c, "Ann").status_code == 201
    r = register(c, "ANN")
    assert r.status_code == 409 and r.json()["code"] == "name_taken"


@pytest.mark.slow
def test_no_user_enumeration(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    register(c, "Ben")
    c.post("/api/account/logout", headers=ORIGIN)

    def attempt(name: str) -> tuple[int, str, float]:
        t0 = time.perf_counter()
        r = c.post("/api/account/login", json={"name": name, "password": "wrong password"}, headers=ORIGIN)
        return r.status_code, r.text, time.perf_counter() - t0

    wrong = [attempt("Ben") for _ in range(4)]
    unknown = [attempt(f"Nobody{i}") for i in range(4)]
    assert (
        {(s, t) for s, t, _ in wrong}
        == {(s, t) for s, t, _ in unknown}
        == {(401, json.dumps({"detail": "wrong name or password", "code": "login_failed"}, separators=(",", ":")))}
    )
    # Both verify one argon2 hash: similar timing (medians within a factor of 2; noisy machines).
    a, b = statistics.median(x for *_, x in wrong), statistics.median(x for *_, x in unknown)
    assert 0.5 < a / b < 2.0, (a, b)


@pytest.mark.slow
def test_login_is_rate_limited_per_account(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    c.app.state.budgets.clock = lambda: 1_000_000.0  # type: ignore[attr-defined]  # stands still: no refill
    register(c, "Cleo")
    codes = [
        c.post("/api/account/login", json={"name": "Cleo", "password": f"guess {i}"}, headers=ORIGIN).status_code
        for i in range(8)
    ]
    assert codes[:4] == [401] * 4 and codes[-1] == 429
    r = c.post("/api/account/login", json={"name": "Cleo", "password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1  # even the right password waits


@pytest.mark.slow
def test_csrf_refused_without_this_sites_origin(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    register(c, "Dora")
    body = {"old": "correct horse", "new": "battery staple"}
    for headers in ({}, {"Origin": "http://evil.example"}, {"Origin": "null"}, {"Referer": "http://evil.example/x"}):
        r = c.post("/api/account/password", json=body, headers=headers)
        assert r.status_code == 403 and r.json()["code"] == "csrf", headers
    r = c.post("/api/account/login", json={"name": "Dora", "password": "correct horse"}, headers={"Origin": "http://x"})
    assert r.status_code == 403  # login CSRF too
    assert (
        c.post("/api/account/password", json=body, headers={"Referer": "http://testserver/u/Dora"}).status_code == 204
    )


@pytest.mark.slow
def test_password_change_ends_other_sessions(app_server: Callable[..., TestClient]) -> None:
    a = app_server()
    register(a, "Emil")
    b = browser(a)
    assert b.post("/api/account/login", json={"name": "Emil", "password": "correct horse"}, headers=ORIGIN).is_success
    r = a.post("/api/account/password", json={"old": "wrong one!", "new": "battery staple"}, headers=ORIGIN)
    assert r.status_code == 403 and r.json()["code"] == "wrong_password"
    assert a.post(
        "/api/account/password", json={"old": "correct horse", "new": "battery staple"}, headers=ORIGIN
    ).is_success
    assert a.get("/api/account").status_code == 200  # this browser got a fresh session
    assert b.get("/api/account").status_code == 401  # the other one is logged out
    r = b.post("/api/account/login", json={"name": "Emil", "password": "battery staple"}, headers=ORIGIN)
    assert r.status_code == 200


def _play_to_end(c: TestClient, table: str, seat: int, token: str) -> None:
    """Play the given seat's moves (first legal move) until the game is over; bots do the rest."""
    auth = {"Authorization": f"Bearer {token}"}
    with c.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "protocol": "catsack-ws/1", "table": table, "token": token})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = c.get(f"/api/tables/{table}/state", headers=auth).json()
            view = state["view"]
            if state["table_status"] == "over":
                return
            if view["to_move"] == seat and view["legal"]:
                move = view["legal"][-1] if view["phase"] != "placement" else view["legal"][0]
                ws.send_json(
                    {"type": "move", "action_id": f"a{state['version']}", "version": state["version"], "move": move}
                )
                while True:
                    f = ws.receive_json()
                    if f["type"] in ("ack", "error"):
                        break
            else:
                time.sleep(0.02)
    raise AssertionError("the game did not end")


@pytest.mark.slow
def test_join_as_account_export_and_delete(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    register(c, "Fay")
    t = c.post("/api/tables", json={"seats": 3, "bots": {"1": "random", "2": "random"}}, headers=ORIGIN).json()
    j = c.post(f"/api/tables/{t['table']}/join", json={"name": "typed"}, headers=ORIGIN).json()
    assert c.get(f"/api/tables/{t['table']}").json()["players"][j["seat"]]["name"] == "Fay"  # the account's name
    _play_to_end(c, t["table"], j["seat"], j["token"])
    z = c.get("/api/account/games.zip")
    assert z.status_code == 200
    with zipfile.ZipFile(io.BytesIO(z.content)) as zf:
        names = zf.namelist()
        assert names == [f"catsack-{t['table']}.json"]
        rec = json.loads(zf.read(names[0]))
    assert rec["format"] == "catsack/1" and rec["players"][j["seat"]] == "Fay"
    assert c.request("DELETE", "/api/account", json={"password": "nope nope"}, headers=ORIGIN).status_code == 403
    assert c.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN).status_code == 204
    assert c.get("/api/account").status_code == 401
    assert (
        c.post("/api/account/login", json={"name": "Fay", "password": "correct horse"}, headers=ORIGIN).status_code
        == 401
    )
    rec = c.get(f"/api/tables/{t['table']}/record").json()
    assert rec["players"][j["seat"]] == "deleted player"  # the game stays
    assert register(c, "Fay").status_code == 201  # the name is free again


def test_guest_claims_games_by_seat_token(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    t = c.post("/api/tables", json={"seats": 3, "bots": {"1": "random", "2": "random"}}, headers=ORIGIN).json()
    j = c.post(f"/api/tables/{t['table']}/join", json={"name": "Guest"}).json()
    register(c, "Gus")
    r = c.post(
        "/api/account/claim",
        json={"seats": [{"table": t["table"], "token": j["token"]}, {"table": t["table"], "token": "forged"}]},
        headers=ORIGIN,
    )
    assert r.status_code == 200 and r.json() == {"claimed": [{"table": t["table"], "seat": j["seat"]}], "refused": 1}
    other = browser(c)
    register(other, "Hal")
    r = other.post("/api/account/claim", json={"seats": [{"table": t["table"], "token": j["token"]}]}, headers=ORIGIN)
    assert r.json()["refused"] == 1  # a seat belongs to one account


# ---------------------------------------------------------------------- ratings


def test_ranks_follow_r22() -> None:
    assert ranks_of([30, 30, 20, 40], [10, 5, 0, 0]) == [2, 3, 4, 1]
    assert ranks_of([30, 30, 20], [10, 10, 0]) == [1, 1, 3]  # shared victory


@pytest.mark.parametrize(
    ("scores", "cats"),
    [([40, 30, 20, 10], [0, 0, 0, 0]), ([30, 30, 20], [5, 5, 0]), ([25, 25, 25, 25, 10], [1, 1, 1, 1, 0])],
)
def test_ratings_match_openskill_directly(db_url: str, scores: list[int], cats: list[int]) -> None:
    from openskill.models import PlackettLuce

    from catsack.server.storage.store import Store

    store = Store(db_url)
    try:
        ratings = Ratings(store.engine)
        players = [f"user:{i}" for i in range(len(scores))]
        changes = ratings.record_game("t1", players, scores, cats)
        assert changes is not None
        assert ratings.record_game("t1", players, scores, cats) is None  # a game is rated once
        model = PlackettLuce()
        ranks = ranks_of(scores, cats)
        expect = model.rate([[model.rating()] for _ in players], ranks=[float(r) for r in ranks])
        got = ratings.get(players)
        for p, e in zip(players, expect, strict=True):
            assert got[p].mu == pytest.approx(e[0].mu) and got[p].sigma == pytest.approx(e[0].sigma)
        if ranks[0] == ranks[1]:
            assert got[players[0]] == got[players[1]]  # a tie moves both the same
    finally:
        store.close()


def test_same_bot_level_twice_is_one_rating(db_url: str) -> None:
    from catsack.server.storage.store import Store

    store = Store(db_url)
    try:
        ratings = Ratings(store.engine)
        changes = ratings.record_game("t2", ["user:1", "bot:heuristic", "bot:heuristic"], [50, 30, 20], [0, 0, 0])
        assert changes is not None
        after = rate_ranking([Rating(), Rating(), Rating()], [1, 2, 3])
        got = ratings.get(["bot:heuristic"])["bot:heuristic"]
        assert got.mu == pytest.approx((after[1].mu + after[2].mu) / 2)
        assert ratings.summary("bot:heuristic")["games"] == 2
        assert display(Rating(MU, SIGMA)) == 1000
    finally:
        store.close()
