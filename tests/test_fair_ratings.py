"""Ratings that cannot be gamed: a seat abandoned to a bot is rated last, one account holds
one seat per table, guests cannot take bots' or accounts' names and are marked as guests, reputation
counts finished and abandoned games, and the operator can revert a game's rating changes."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient

from catsack.server.people.ratings import RatingError, Ratings, ranks_with_abandons
from catsack.server.storage.store import SeatHeld
from test_social import account, play_out
from web_clients import ORIGIN


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Poll ``probe`` until it returns something true (the deadline only bounds a failure)."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_abandoned_seats_share_the_last_place_whatever_the_bot_scored() -> None:
    """R22 ranks among the seats played to the end; abandoned seats below them all."""
    scores, cats = [30, 10, 20, 10], [5, 3, 2, 4]
    assert ranks_with_abandons(scores, cats, []) == [1, 4, 2, 3]
    assert ranks_with_abandons(scores, cats, [0]) == [4, 3, 1, 2]  # the winning seat was a stand-in's
    assert ranks_with_abandons(scores, cats, [0, 2]) == [3, 2, 3, 1]


def test_a_seat_abandoned_to_a_bot_is_rated_last_and_wins_nothing(server: Callable[..., TestClient]) -> None:
    """Ann sits at a rated table with two bots and never connects; after the grace
    period a bot takes her seat and finishes the game. She is rated last (her mu goes down), no
    win is counted anywhere, the profile shows the game as abandoned, reputation counts it."""
    c = server(grace_seconds=0.2)
    ann = account(c, "Ann")
    body = {"seats": 3, "bots": {"1": "random", "2": "random"}, "rated": True, "player": "x"}
    t = ann.post("/api/tables", json=body, headers=ORIGIN).json()
    profile = wait_for("the rating", lambda: (p := c.get("/api/users/ann").json())["rated_games"] == 1 and p)
    game = profile["history"][0]
    assert game["rank"] == 3 and game["abandoned"] is True and game["mu"] < 25.0
    assert profile["recent"][0]["won"] is False and profile["recent"][0]["abandoned"] is True
    assert profile["wins"] == 0
    assert profile["reputation"] == {"finished": 0, "abandoned": 1, "share": 0.0}
    board = {e["name"]: e for e in c.get("/api/leaderboard").json()}
    assert board["Ann"]["wins"] == 0 and board["Ann"]["games"] == 1
    # The stand-in bot (heuristic) is not rated for the part it played: the table's own bots are.
    assert board["random"]["games"] == 2 and "heuristic" not in board
    seat = c.get(f"/api/tables/{t['table']}").json()["players"][t["seat"]]
    assert seat["kind"] == "bot" and seat["replaced"] is True


def test_a_seat_a_bot_finished_keeps_the_persons_name_and_leaves_the_averages(
    server: Callable[..., TestClient],
) -> None:
    """Ann plays one game to the end and walks away from another, which a stand-in bot finishes. That
    game's record, the lobby's finished list, My games and her profile name her (not the bot) and mark
    the seat as finished by a bot; her averages are those of the game she finished."""
    c = server()
    ann = account(c, "Ann")
    hub = c.app.state.hub  # type: ignore[attr-defined]
    body = {"seats": 3, "bots": {"1": "random", "2": "random"}, "player": "x"}
    mine = ann.post("/api/tables", json=body, headers=ORIGIN).json()
    play_out(ann, mine["table"], mine["seat"], mine["token"])
    left = ann.post("/api/tables", json=body, headers=ORIGIN).json()
    table, seat = left["table"], left["seat"]
    c.portal.call(hub.replace, hub.tables[table], seat)
    wait_for("the bot to finish", lambda: c.get(f"/api/tables/{table}").json()["status"] == "over")

    record = c.get(f"/api/tables/{table}/record").json()
    assert record["players"][seat] == "Ann" and record["finished_by_bot"] == [seat]
    assert record["agents"][seat] != "human"  # the bot that finished it
    assert "finished_by_bot" not in c.get(f"/api/tables/{mine['table']}/record").json()
    listed = next(t for t in c.get("/api/tables/finished").json() if t["table"] == table)
    assert listed["players"][seat]["name"] == "Ann" and listed["players"][seat]["replaced"] is True
    game = next(g for g in ann.get("/api/mygames").json()["games"] if g["table"] == table)
    assert game["players"][seat] == "Ann" and game["finished_by_bot"] == [seat]

    profile = c.get("/api/users/ann").json()
    recent = {g["table"]: g for g in profile["recent"]}
    assert recent[table]["players"][seat] == "Ann" and recent[table]["finished_by_bot"] == [seat]
    assert recent[table]["abandoned"] is True and recent[mine["table"]]["finished_by_bot"] == []
    assert profile["games"] == 1 and profile["finished_by_bot"] == 1
    assert profile["average_score"] == recent[mine["table"]]["score"]
    assert profile["average_margin"] == recent[mine["table"]]["margin"]


def test_a_finished_game_counts_for_reputation_and_can_be_reverted(
    server: Callable[..., TestClient],
) -> None:
    c = server()
    ann = account(c, "Ann")
    body = {"seats": 3, "bots": {"1": "random", "2": "random"}, "rated": True, "player": "x"}
    t = ann.post("/api/tables", json=body, headers=ORIGIN).json()
    play_out(ann, t["table"], t["seat"], t["token"])
    profile = wait_for("the rating", lambda: (p := c.get("/api/users/ann").json())["rated_games"] == 1 and p)
    assert profile["reputation"] == {"finished": 1, "abandoned": 0, "share": 1.0}
    assert profile["history"][0]["abandoned"] is False
    hub = c.app.state.hub  # type: ignore[attr-defined]
    ratings = Ratings(hub.store.engine)
    user = next(k for k in ("user:1", "user:2") if ratings.summary(k)["games"])
    changed = ratings.revert(t["table"], "test")
    assert {ch["player"] for ch in changed} == {user, "bot:random"}
    back = ratings.summary(user)
    assert back["games"] == 0 and back["wins"] == 0 and back["rating"] == 1000
    assert abs(back["mu"] - 25.0) < 1e-9 and abs(back["sigma"] - 25.0 / 3.0) < 1e-9
    assert ratings.history(user)[0]["reverted"] is True
    with pytest.raises(RatingError, match="reverted already"):
        ratings.revert(t["table"])
    with pytest.raises(RatingError, match="not rated"):
        ratings.revert("nosuchgame")


def test_one_account_holds_one_seat_per_table(server: Callable[..., TestClient]) -> None:
    """The same cookie joining again is refused with 409 ``one_seat``; the
    database refuses it too (two processes seating one account at once)."""
    c = server()
    ann = account(c, "Ann")
    t = ann.post("/api/tables", json={"seats": 4, "player": "x", "rated": True}, headers=ORIGIN).json()
    r = ann.post(f"/api/tables/{t['table']}/join", json={"name": "x"}, headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "one_seat" and r.json()["params"] == {"n": t["seat"] + 1}
    r = ann.post(f"/api/tables/{t['table']}/join", json={"name": "x", "seat": 3}, headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "one_seat"
    players = c.get(f"/api/tables/{t['table']}").json()["players"]
    assert [p["kind"] for p in players] == ["human", "open", "open", "open"]
    ben = account(c, "Ben")
    assert ben.post(f"/api/tables/{t['table']}/join", json={"name": "x"}, headers=ORIGIN).status_code == 200
    # The store itself: a second seat for the same account is refused and nothing changes.
    store = c.app.state.hub.store  # type: ignore[attr-defined]
    with pytest.raises(SeatHeld) as held:
        store.claim_seat(t["table"], 3, "Ann", "0" * 64, user_id=1)
    assert held.value.seat == t["seat"]
    assert [s.kind for s in store.seats(t["table"])] == ["human", "human", "open", "open"]


@pytest.mark.parametrize(
    "name", ["expert", "Expert:easy 2", "heuristic 3", "random", "deleted player", "Deleted  Player", "admin"]
)
def test_guests_cannot_take_the_names_of_bots_or_the_site(server: Callable[..., TestClient], name: str) -> None:
    c = server()
    t = c.post("/api/tables", json={"seats": 3, "player": "Host"}).json()
    r = c.post(f"/api/tables/{t['table']}/join", json={"name": name})
    assert r.status_code == 409 and r.json()["code"] == "name_reserved", r.text
    r = c.post("/api/tables", json={"seats": 3, "player": name})
    assert r.status_code == 409 and r.json()["code"] == "name_reserved"


def test_guests_cannot_take_registered_names_and_are_marked(server: Callable[..., TestClient]) -> None:
    c = server()
    ann = account(c, "Ann")
    t = ann.post("/api/tables", json={"seats": 3, "player": "x"}, headers=ORIGIN).json()
    for name in ("Ann", "ann", " ANN "):
        r = c.post(f"/api/tables/{t['table']}/join", json={"name": name})
        assert r.status_code == 409 and r.json()["code"] == "name_registered", name
    assert c.post(f"/api/tables/{t['table']}/join", json={"name": "Guest"}).status_code == 200
    players = c.get(f"/api/tables/{t['table']}").json()["players"]
    assert [(p["name"], p["guest"]) for p in players] == [("Ann", False), ("Guest", True), (None, False)]
    q = c.post("/api/quickplay", json={"seats": 5, "name": "heuristic"})
    assert q.status_code == 409 and q.json()["code"] == "name_reserved"


def test_look_alike_names_share_a_skeleton() -> None:
    """Cyrillic and Greek letters that look Latin, a digit that looks like a letter, case and width:
    one skeleton; names that only share letters do not."""
    from catsack.server.storage.names import skeleton

    same = ["Ann", "ann", "\u0410nn", "\u0391NN", "\uff21nn", " Ann "]  # Cyrillic А, Greek Α, full-width Ａ
    assert {skeleton(n) for n in same} == {"ann"}
    assert skeleton("B\u0435\u0430") == skeleton("Bea")  # Cyrillic е and а
    assert skeleton("\u0392\u0395\u0391") == skeleton("bea")  # Greek capitals Β Ε Α
    assert skeleton("Ann1") == skeleton("Annl") != skeleton("Anna")
    assert skeleton("Zoë") != skeleton("Zoe") and skeleton("Jürgen") == "jürgen"


@pytest.mark.parametrize("name", ["\u0410nn", "\u0430nn", "\u0391NN"])  # Cyrillic А and а, Greek Α
def test_guests_cannot_take_an_accounts_name_in_look_alike_letters(
    server: Callable[..., TestClient], name: str
) -> None:
    """A guest name that reads like an account's ("Ann" with a Cyrillic or Greek A) is refused as the
    name itself is; the account's look-alike key is stored when it registers."""
    c = server()
    account(c, "Ann")
    t = c.post("/api/tables", json={"seats": 3, "player": "Host"}).json()
    r = c.post(f"/api/tables/{t['table']}/join", json={"name": name})
    assert r.status_code == 409 and r.json()["code"] == "name_registered", (name, r.text)
    assert c.post(f"/api/tables/{t['table']}/join", json={"name": "Anna"}).status_code == 200


def test_two_guests_cannot_take_one_name_at_a_table(server: Callable[..., TestClient]) -> None:
    """A second guest called like someone at the table (the same name in other case, or in look-alike
    Cyrillic or Greek letters) is refused, so no seat needs telling apart by its number."""
    c = server()
    t = c.post("/api/tables", json={"seats": 4, "player": "Gus", "bots": {"3": "random"}}).json()
    for name in ("Gus", "gus", "GUS", "Gu\u0455"):  # the last with a Cyrillic dze ѕ
        r = c.post(f"/api/tables/{t['table']}/join", json={"name": name})
        assert r.status_code == 409 and r.json()["code"] == "name_at_table", (name, r.text)
        assert r.json()["params"] == {"name": name}
    assert c.post(f"/api/tables/{t['table']}/join", json={"name": "Gustav"}).status_code == 200
    players = c.get(f"/api/tables/{t['table']}").json()["players"]
    assert [p["name"] for p in players][:2] == ["Gus", "Gustav"]


def test_seats_of_one_name_are_told_apart_in_no_language() -> None:
    """Two seats of one name (from before guests were refused one, or an account named like a guest)
    get their seat numbers, not an English "(seat 2)" that a German page would show as it is."""
    from catsack.server.storage.store import SeatRow
    from catsack.server.tables.live import seat_names

    seats = [SeatRow(0, "human", "Ann", None, None, False), SeatRow(1, "human", "Ann", None, None, False)]
    assert seat_names([*seats, SeatRow(2, "bot", None, "random", None, False)]) == ["Ann (1)", "Ann (2)", "random 3"]


def test_a_table_may_ask_for_a_record_of_finished_games(server: Callable[..., TestClient]) -> None:
    """Reputation counts from the fifth game on: four abandons are forgiven, the fifth shuts the door."""
    from sqlalchemy import insert

    from catsack.server.people.reputation import seat_outcomes_t

    c = server()
    ann, ben = account(c, "Ann"), account(c, "Ben")
    t = ann.post("/api/tables", json={"seats": 3, "player": "x", "min_finished": 0.8}, headers=ORIGIN).json()
    assert c.post(f"/api/tables/{t['table']}/join", json={"name": "Gus"}).json()["code"] == "account_required"
    engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
    ben_id = 2
    with engine.begin() as conn:
        for i in range(4):
            conn.execute(
                insert(seat_outcomes_t).values(
                    table_id=f"old{i}", seat=0, user_id=ben_id, outcome="abandoned", created=0
                )
            )
    assert ben.post(f"/api/tables/{t['table']}/join", json={"name": "x"}, headers=ORIGIN).status_code == 200
    t2 = ann.post("/api/tables", json={"seats": 3, "player": "x", "min_finished": 0.8}, headers=ORIGIN).json()
    with engine.begin() as conn:
        conn.execute(
            insert(seat_outcomes_t).values(table_id="old9", seat=0, user_id=ben_id, outcome="abandoned", created=0)
        )
    r = ben.post(f"/api/tables/{t2['table']}/join", json={"name": "x"}, headers=ORIGIN)
    assert r.status_code == 403 and r.json()["code"] == "reputation" and r.json()["params"] == {"min": 80, "share": 0}
    assert c.get("/api/users/ben").json()["reputation"] == {"finished": 0, "abandoned": 5, "share": 0.0}


@pytest.fixture
def server(app_server: Callable[..., TestClient]) -> Callable[..., TestClient]:
    return app_server


def test_upgrade_keeps_one_seat_per_account(tmp_path: Any) -> None:
    """Revision 0007 on a database where the defect left one account in two seats of a table: the lowest
    seat keeps the binding, the other becomes a guest's seat, and the one-seat key holds from then on."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    import catsack.server.migrations as migrations
    from catsack.server.storage.store import make_engine

    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    cfg = Config()
    cfg.set_main_option("script_location", str(migrations.__path__[0]))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0004")
        conn.execute(text("INSERT INTO tables VALUES ('t1', 'x', 3, '{}', '{}', 'over', 0, 0, 0, NULL)"))
        conn.execute(text("INSERT INTO users VALUES (1, 'ann', 'ann', '', 0, 0)"))
        for seat in (0, 1, 2):
            conn.execute(text(f"INSERT INTO seats VALUES ('t1', {seat}, 'human', 'ann', NULL, NULL, 0, NULL)"))
        conn.execute(text("INSERT INTO seat_users VALUES ('t1', 2, 1), ('t1', 1, 1)"))
    assert migrations.upgrade(engine) == "upgraded"
    with engine.begin() as conn:
        assert conn.execute(text("SELECT seat FROM seat_users")).scalars().all() == [1]
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text("INSERT INTO seat_users VALUES ('t1', 0, 1)"))
    engine.dispose()
