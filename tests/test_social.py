"""At the table and around it: rated tables and ratings after the game, profiles and the
leaderboard, private tables, quick play, chat, the host handing an idle seat to a bot, and an
account taking its seat over from another device."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient

from catsack.server.people.chat import MAX_CHARS
from test_migrations import play_to_end
from web_clients import ORIGIN, browser, register

PROTO = "catsack-ws/1"


@pytest.fixture
def server(app_server: Callable[..., TestClient]) -> Callable[..., TestClient]:
    return app_server


def account(c: TestClient, name: str) -> TestClient:
    """A browser of its own (cookies), logged in as a new account ``name``."""
    b = browser(c)
    r = register(b, name)
    assert r.status_code == 201, r.text
    return b


def hello(ws: Any, table: str, token: str | None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "protocol": PROTO, "table": table, "token": token})
    return until(ws, lambda f: f["type"] in ("welcome", "error"))


def until(ws: Any, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(500):
        f: dict[str, Any] = ws.receive_json()
        if pred(f):
            return f
    raise AssertionError("no such frame")


def play_out(c: TestClient, table: str, seat: int, token: str) -> None:
    """Play ``seat`` (first placement, then pass) until the game is over; bots play the rest."""
    with c.websocket_connect("/ws") as ws:
        hello(ws, table, token)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            state = until(ws, lambda f: f["type"] == "state")
            view = state["view"]
            if state["table_status"] == "over":
                return
            if view["to_move"] == seat and view["legal"]:
                move = view["legal"][0] if view["phase"] == "placement" else view["legal"][-1]
                ws.send_json(
                    {"type": "move", "action_id": f"m{state['version']}", "version": state["version"], "move": move}
                )
    raise AssertionError("the game did not end")


def finished_game_with_chat(c: TestClient, text: str) -> tuple[TestClient, dict[str, Any]]:
    """Account Ann says ``text`` at a 3-seat table with two random bots and plays it to the end:
    her browser and the table as created."""
    ann = account(c, "Ann")
    t = ann.post(
        "/api/tables", json={"seats": 3, "player": "x", "bots": {"1": "random", "2": "random"}}, headers=ORIGIN
    ).json()
    with c.websocket_connect("/ws") as ws:
        hello(ws, t["table"], t["token"])
        ws.send_json({"type": "chat", "text": text})
        until(ws, lambda f: f["type"] == "chat" and not f.get("history"))
    play_out(ann, t["table"], t["seat"], t["token"])
    return ann, t


@pytest.mark.slow
def test_rated_table_seats_accounts_only_and_rates_the_game(server: Callable[..., TestClient]) -> None:
    c = server()
    ann = account(c, "Ann")
    body = {"seats": 3, "bots": {"1": "random", "2": "heuristic"}, "rated": True, "player": "x"}
    assert c.post("/api/tables", json=body).status_code == 403  # a guest cannot create a rated table
    t = ann.post("/api/tables", json=body, headers=ORIGIN).json()
    assert t["rated"] is True and t["players"][t["seat"]]["name"] == "Ann"
    play_out(ann, t["table"], t["seat"], t["token"])
    deadline = time.monotonic() + 30  # bounds a failure only
    while time.monotonic() < deadline:
        profile = c.get("/api/users/ann").json()
        if profile["rated_games"] == 1:
            break
        time.sleep(0.05)
    assert profile["rated_games"] == 1 and profile["games"] == 1 and len(profile["history"]) == 1
    assert profile["rating"] != 1000 and profile["recent"][0]["replay"] == f"/replay/{t['table']}"
    board = c.get("/api/leaderboard").json()
    assert {e["name"] for e in board} == {"Ann", "random", "heuristic"}  # bots are rated players
    assert [e["rating"] for e in board] == sorted((e["rating"] for e in board), reverse=True)
    # "Play again" keeps the table rated and the seat the account's.
    r = ann.post(f"/api/tables/{t['table']}/rematch", headers={"Authorization": f"Bearer {t['token']}"}).json()
    again = c.get(f"/api/tables/{r['table']}").json()
    assert again["rated"] is True and again["host_seat"] == t["seat"]
    assert again["players"][r["seat"]]["name"] == "Ann"
    # A rated table with an open seat refuses guests.
    t2 = ann.post("/api/tables", json={**body, "bots": {"1": "random"}}, headers=ORIGIN).json()
    r = c.post(f"/api/tables/{t2['table']}/join", json={"name": "Guest"})
    assert r.status_code == 403 and r.json()["code"] == "account_required"
    ben = account(c, "Ben")
    assert ben.post(f"/api/tables/{t2['table']}/join", json={"name": "x"}, headers=ORIGIN).status_code == 200
    lobby = c.get("/api/tables").json()
    assert all(tb["table"] != t2["table"] for tb in lobby)  # full now


def test_lobby_shows_ratings_and_hides_private_tables(server: Callable[..., TestClient]) -> None:
    c = server()
    ann = account(c, "Ann")
    public = ann.post("/api/tables", json={"seats": 3, "player": "x"}, headers=ORIGIN).json()
    private = c.post("/api/tables", json={"seats": 3, "player": "Guest", "private": True}).json()
    lobby = c.get("/api/tables").json()
    ids = [tb["table"] for tb in lobby]
    assert public["table"] in ids and private["table"] not in ids
    entry = next(tb for tb in lobby if tb["table"] == public["table"])
    assert entry["ratings"] == [1000, None, None]
    # Private, but joinable by its link.
    assert c.get(f"/api/tables/{private['table']}").json()["private"] is True
    assert c.post(f"/api/tables/{private['table']}/join", json={"name": "Friend"}).status_code == 200


def test_quick_play_joins_the_oldest_open_table_or_creates_one(server: Callable[..., TestClient]) -> None:
    c = server()
    first = c.post("/api/quickplay", json={"seats": 3, "name": "Ann"}).json()
    second = c.post("/api/quickplay", json={"seats": 3, "name": "Ben"}).json()
    other = c.post("/api/quickplay", json={"seats": 4, "name": "Cat"}).json()
    assert second["table"] == first["table"] and second["seat"] != first["seat"]
    assert other["table"] != first["table"]
    hidden = c.post("/api/tables", json={"seats": 5, "player": "Dan", "private": True}).json()
    assert c.post("/api/quickplay", json={"seats": 5, "name": "Eve"}).json()["table"] != hidden["table"]
    assert c.post("/api/quickplay", json={"seats": 3, "name": "x" * 100}).status_code == 422
    # Guests who type no name meet at one table all the same, each under a name of their own.
    first = c.post("/api/quickplay", json={"seats": 4}).json()
    second = c.post("/api/quickplay", json={"seats": 4}).json()
    assert second["table"] == first["table"]
    names = [p["name"] for p in c.get(f"/api/tables/{first['table']}").json()["players"]]
    assert {"Guest", "Guest 2"} <= set(names)


def test_a_block_keeps_the_blocked_account_off_the_blockers_tables(server: Callable[..., TestClient]) -> None:
    """Bea blocks Ann: Ann cannot join a table where Bea sits, quick play seats her elsewhere, "Play
    again" of a game they shared gives her no seat beside Bea; anyone else sits down as before. The
    refusal does not say who blocks her."""
    c = server()
    ann, bea, cid = account(c, "Ann"), account(c, "Bea"), account(c, "Cid")
    hub = c.app.state.hub  # type: ignore[attr-defined]
    shared = bea.post("/api/tables", json={"seats": 3, "player": "x"}, headers=ORIGIN).json()
    seated = [shared] + [
        b.post(f"/api/tables/{shared['table']}/join", json={"name": "x"}, headers=ORIGIN).json() for b in (ann, cid)
    ]
    tokens = [s["token"] for s in sorted(seated, key=lambda s: s["seat"])]
    c.portal.call(play_to_end, hub, shared["table"], tokens)
    waiting = bea.post("/api/tables", json={"seats": 4, "player": "x"}, headers=ORIGIN).json()["table"]
    assert bea.post("/api/friends/block", json={"name": "Ann"}, headers=ORIGIN).status_code == 204

    refused = ann.post(f"/api/tables/{waiting}/join", json={"name": "x"}, headers=ORIGIN)
    assert refused.status_code == 403 and refused.json()["code"] == "blocked"
    assert "Bea" not in refused.text
    assert [p["name"] for p in c.get(f"/api/tables/{waiting}").json()["players"] if p["kind"] == "human"] == ["Bea"]
    quick = ann.post("/api/quickplay", json={"seats": 4}, headers=ORIGIN)
    assert quick.status_code == 200 and quick.json()["table"] != waiting
    assert cid.post(f"/api/tables/{waiting}/join", json={"name": "x"}, headers=ORIGIN).status_code == 200

    again = bea.post(f"/api/tables/{shared['table']}/rematch", headers={"Authorization": f"Bearer {shared['token']}"})
    assert again.status_code == 200 and again.json()["seat"] is not None
    anns = seated[1]["token"]
    refused = ann.post(f"/api/tables/{shared['table']}/rematch", headers={"Authorization": f"Bearer {anns}"})
    assert refused.status_code == 403 and refused.json()["code"] == "blocked"
    assert bea.post("/api/friends/unblock", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    assert ann.post(f"/api/tables/{waiting}/join", json={"name": "x"}, headers=ORIGIN).status_code == 200


def test_a_blocked_account_cannot_chat_from_a_guests_seat(server: Callable[..., TestClient]) -> None:
    """Ann sits down as a guest, then logs in on the same browser; Bea, at the table under her account,
    blocks Ann: Ann's guest seat may not chat (her login cookie says who she is), a real guest may."""
    c = server()
    bea = account(c, "Bea")
    table = bea.post("/api/tables", json={"seats": 3, "player": "x"}, headers=ORIGIN).json()["table"]
    ann, guest = browser(c), browser(c)
    annie = ann.post(f"/api/tables/{table}/join", json={"name": "Annie"}).json()
    gus = guest.post(f"/api/tables/{table}/join", json={"name": "Gus"}).json()
    assert register(ann, "Ann").status_code == 201
    assert bea.post("/api/friends/block", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    with ann.websocket_connect("/ws") as ws:
        hello(ws, table, annie["token"])
        ws.send_json({"type": "chat", "text": "hello"})
        refused = until(ws, lambda f: f["type"] == "error" or (f["type"] == "chat" and not f.get("history")))
    assert refused["type"] == "error" and refused["code"] == "blocked", refused
    with guest.websocket_connect("/ws") as ws:
        hello(ws, table, gus["token"])
        ws.send_json({"type": "chat", "text": "hello"})
        said = until(ws, lambda f: f["type"] == "error" or (f["type"] == "chat" and not f.get("history")))
    assert said["type"] == "chat" and said["messages"][0]["name"] == "Gus", said


def test_chat_is_stored_broadcast_bounded_and_text(server: Callable[..., TestClient]) -> None:
    c = server()
    t = c.post("/api/tables", json={"seats": 3, "player": "Ann", "bots": {"2": "random"}}).json()
    b = c.post(f"/api/tables/{t['table']}/join", json={"name": "Ben"}).json()
    evil = "<img src=x onerror=alert(1)>"
    with c.websocket_connect("/ws") as wa, c.websocket_connect("/ws") as wb, c.websocket_connect("/ws") as spec:
        hello(wa, t["table"], t["token"])
        hello(wb, t["table"], b["token"])
        hello(spec, t["table"], None)
        wa.send_json({"type": "chat", "text": f"  hi   {evil} "})
        got = until(wb, lambda f: f["type"] == "chat" and not f.get("history"))
        assert got["messages"][0]["text"] == f"hi {evil}" and got["messages"][0]["name"] == "Ann"
        assert until(spec, lambda f: f["type"] == "chat" and not f.get("history"))["messages"][0]["seat"] == 0
        spec.send_json({"type": "chat", "text": "hello"})
        assert until(spec, lambda f: f["type"] == "error")["code"] == "unauthorized"  # spectators read only
        for bad in ["", "x" * (MAX_CHARS + 1), "a\x00b", 5]:
            wb.send_json({"type": "chat", "text": bad})
            assert until(wb, lambda f: f["type"] == "error")["code"] == "bad_chat"
        codes = []
        for i in range(8):
            wb.send_json({"type": "chat", "text": f"spam {i}"})
        for _ in range(8):
            f = until(wb, lambda f: f["type"] == "error" or (f["type"] == "chat" and f["messages"][0]["seat"] == 1))
            codes.append(f.get("code", "ok"))
        assert "rate_limited" in codes and codes[0] == "ok"
    # History for a new connection, and in the table's chat log.
    with c.websocket_connect("/ws") as again:
        hello(again, t["table"], None)
        hist = until(again, lambda f: f["type"] == "chat" and f.get("history"))
        assert hist["messages"][0]["text"] == f"hi {evil}" and len(hist["messages"]) >= 2


def test_chat_marks_guests_and_a_deleted_accounts_lines(server: Callable[..., TestClient]) -> None:
    """A guest's chat lines say so, live and in the history (as the seat list does:); a deleted
    account's lines stay, under "deleted player"."""
    c = server()
    ann = account(c, "Ann")
    t = ann.post("/api/tables", json={"seats": 3, "player": "x", "bots": {"2": "random"}}, headers=ORIGIN).json()
    b = c.post(f"/api/tables/{t['table']}/join", json={"name": "Ben"}).json()  # a guest
    with c.websocket_connect("/ws") as wa, c.websocket_connect("/ws") as wb:
        hello(wa, t["table"], t["token"])
        hello(wb, t["table"], b["token"])
        wa.send_json({"type": "chat", "text": "hello from an account"})
        got = until(wb, lambda f: f["type"] == "chat" and not f.get("history"))["messages"][0]
        assert (got["name"], got["guest"]) == ("Ann", False)
        wb.send_json({"type": "chat", "text": "hello from a guest"})
        got = until(wa, lambda f: f["type"] == "chat" and not f.get("history") and f["messages"][0]["seat"] == 1)
        assert (got["messages"][0]["name"], got["messages"][0]["guest"]) == ("Ben", True)

    def history() -> list[tuple[str, bool]]:
        with c.websocket_connect("/ws") as again:
            hello(again, t["table"], None)
            hist = until(again, lambda f: f["type"] == "chat" and f.get("history"))
        return [(m["name"], m["guest"]) for m in hist["messages"]]

    assert history() == [("Ann", False), ("Ben", True)]
    r = ann.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 204
    assert history() == [("deleted player", False), ("Ben", True)]


def test_host_hands_an_idle_seat_to_a_bot(server: Callable[..., TestClient]) -> None:
    c = server()
    t = c.post("/api/tables", json={"seats": 3, "player": "Host", "bots": {"2": "random"}}).json()
    b = c.post(f"/api/tables/{t['table']}/join", json={"name": "Away"}).json()
    url = f"/api/tables/{t['table']}/seats/{b['seat']}/bot"
    assert c.post(url, headers={"Authorization": f"Bearer {b['token']}"}).status_code == 403  # not the host
    with c.websocket_connect("/ws") as ws:
        hello(ws, t["table"], b["token"])
        r = c.post(url, headers={"Authorization": f"Bearer {t['token']}"})
        assert r.status_code == 409 and r.json()["code"] == "seat_connected"  # only idle seats
    deadline = time.monotonic() + 30
    while c.get(f"/api/tables/{t['table']}").json()["players"][b["seat"]]["status"] != "away":
        assert time.monotonic() < deadline, c.get(f"/api/tables/{t['table']}").json()["players"]
        time.sleep(0.02)
    assert c.post(url, headers={"Authorization": f"Bearer {t['token']}"}).status_code == 204
    seat = c.get(f"/api/tables/{t['table']}").json()["players"][b["seat"]]
    assert seat["kind"] == "bot" and seat["replaced"] is True
    with c.websocket_connect("/ws") as ws:  # the old token no longer holds the seat
        assert hello(ws, t["table"], b["token"])["code"] == "replaced"


@pytest.mark.slow
def test_account_takes_its_seat_over_on_another_device(server: Callable[..., TestClient]) -> None:
    c = server()
    phone = account(c, "Ann")
    t = phone.post(
        "/api/tables", json={"seats": 3, "player": "x", "bots": {"1": "random", "2": "random"}}, headers=ORIGIN
    ).json()
    laptop = browser(c)
    r = laptop.post("/api/account/login", json={"name": "Ann", "password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 200
    stranger = account(c, "Eve")
    assert stranger.post(f"/api/tables/{t['table']}/takeover", headers=ORIGIN).status_code == 404
    assert laptop.post(f"/api/tables/{t['table']}/takeover").status_code == 403  # CSRF: no Origin
    with c.websocket_connect("/ws") as old:
        assert hello(old, t["table"], t["token"])["seat"] == t["seat"]
        new = laptop.post(f"/api/tables/{t['table']}/takeover", headers=ORIGIN).json()
        assert new["seat"] == t["seat"] and new["token"] != t["token"]
        assert until(old, lambda f: f["type"] == "error")["code"] == "replaced"
    with c.websocket_connect("/ws") as ws:
        assert hello(ws, t["table"], new["token"])["seat"] == t["seat"]
    with c.websocket_connect("/ws") as ws:
        assert hello(ws, t["table"], t["token"])["type"] == "error"


def test_profile_and_pages(server: Callable[..., TestClient]) -> None:
    c = server()
    account(c, "Ann")
    p = c.get("/api/users/ANN").json()
    assert p["name"] == "Ann" and p["games"] == 0 and p["rating"] == 1000 and p["average_score"] is None
    assert c.get("/api/users/nobody").status_code == 404
    for path in ("/u/Ann", "/leaderboard", "/account"):
        r = c.get(path)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")


def test_retention_deletes_a_game_with_its_chat_and_account_seats(server: Callable[..., TestClient]) -> None:
    """Rows that belong to a game in other modules' tables (chat, seats bound to accounts) are deleted
    with it; the foreign keys would refuse the game's deletion otherwise."""
    from catsack.server.tables.retention import prune

    c = server()
    ann, t = finished_game_with_chat(c, "good luck")
    store = c.app.state.hub.store  # type: ignore[attr-defined]
    assert prune(store, 1.0, now=time.time() + 3 * 86400) == 1
    assert store.load(t["table"]) is None
    assert ann.get("/api/users/Ann").json()["games"] == 0


def test_chat_is_shown_in_the_replay_at_its_moment(server: Callable[..., TestClient]) -> None:
    c = server()
    _ann, t = finished_game_with_chat(c, "<b>good luck</b>")
    replay = c.get(f"/api/tables/{t['table']}/replay").json()
    assert [(m["name"], m["text"]) for m in replay["chat"]] == [("Ann", "<b>good luck</b>")]
    assert 0 <= replay["chat"][0]["ply"] <= replay["plies"] and "created" not in replay["chat"][0]
