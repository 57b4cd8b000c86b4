"""The bot arena (docs/bot-api.md): bot accounts and their API tokens, the views a remote bot is sent
and rebuilds (R23), the bots' WebSocket's limits, and two bots — one an ``external:`` program, the
repository's example bot — playing a rated game to the end over the network against a real
``catsack serve`` process with ``catsack bot connect``, the result on the bots' leaderboard."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("websockets")

import httpx
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from catsack.commands.bot import ConnectError, bot_socket_url
from catsack.game import Game
from catsack.protocol.messages import PROTOCOL, ProtocolError
from catsack.protocol.views import view_from_dict
from catsack.server.people.accounts import Account, AccountError, Accounts
from catsack.server.people.botaccounts import TOKEN_PREFIX, BotAccounts, bot_accounts_t
from catsack.server.settings import Settings
from catsack.server.storage.store import Store
from catsack.server.storage.tokens import hash_token
from catsack.server.web.app import create_app
from catsack.setup import Setup
from server_procs import ServerProc, spawn, stop_group

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_BOT = ROOT / "examples" / "external_bot.py"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(f"sqlite:///{tmp_path / 'bots.db'}")
    yield s
    s.engine.dispose()


def _person(accounts: Accounts, name: str = "Owner") -> Account:
    return accounts.register(name, "a long enough password")


# ---------------------------------------------------------------------- tokens


def test_a_token_is_shown_once_kept_hashed_and_refused_once_revoked(store: Store) -> None:
    accounts = Accounts(store.engine)
    owner = _person(accounts)
    bots = BotAccounts(store.engine, accounts)
    _, token = bots.create(owner, "Robo")
    assert token.startswith(TOKEN_PREFIX) and len(token) > 40
    with store.engine.connect() as conn:
        stored = conn.execute(select(bot_accounts_t.c.token_hash)).scalar_one()
    assert stored == hash_token(token) and token not in stored  # at rest only its hash
    found = bots.by_token(token)
    assert found is not None and found.name == "Robo" and found.owner_id == owner.id
    listed = bots.of_owner(owner)
    assert [b.name for b in listed] == ["Robo"] and "token" not in repr(listed[0]).lower().replace("revoked", "")
    assert bots.by_token(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
    assert bots.by_token("not-a-bot-token") is None
    # Nobody logs into a bot: its password is random and never shown.
    assert accounts.authenticate("Robo", "") is None
    revoked = bots.revoke(owner, "robo")
    assert revoked.revoked is not None and bots.by_token(token) is None
    with store.engine.connect() as conn:
        assert conn.execute(select(bot_accounts_t.c.token_hash)).scalar_one() is None


def test_bots_belong_to_their_owner_and_are_bounded(store: Store) -> None:
    accounts = Accounts(store.engine)
    owner, other = _person(accounts, "Owner"), _person(accounts, "Other")
    bots = BotAccounts(store.engine, accounts)
    bot, _ = bots.create(owner, "Robo")
    with pytest.raises(AccountError) as refused:
        bots.revoke(other, "Robo")
    assert refused.value.code == "unknown_bot_account"
    with pytest.raises(AccountError) as taken:
        bots.create(other, "robo")  # the name is an account's now
    assert taken.value.code == "name_taken"
    with pytest.raises(AccountError) as nested:
        bots.create(bot.account(), "Robo2")
    assert nested.value.code == "bot_owner"
    for i in range(9):
        bots.create(owner, f"Robo{i}")
    with pytest.raises(AccountError) as many:
        bots.create(owner, "RoboX")
    assert many.value.code == "too_many_bots"
    assert bots.bot_ids([owner.id, bot.id]) == {bot.id}


def test_a_deleted_owners_bots_are_refused(store: Store) -> None:
    accounts = Accounts(store.engine)
    owner = _person(accounts)
    bots = BotAccounts(store.engine, accounts)
    _, token = bots.create(owner, "Robo")
    accounts.delete(owner, "a long enough password")
    assert bots.by_token(token) is None


# ---------------------------------------------------------------------- views (R23)


def test_a_seat_view_survives_the_wire_exactly() -> None:
    """What a remote bot rebuilds is the seat's view, field for field, and nothing more (R23)."""
    for s in range(6):
        seats = 3 + s % 3
        game = Game(Setup.deal(seats, random.Random(s)))
        rng = random.Random(s)
        while not game.is_over:
            for seat in range(seats):
                view = game.view(seat)
                wire = json.loads(json.dumps(view.to_dict()))
                assert view_from_dict(wire).to_dict() == view.to_dict()
            game.play(rng.choice(game.view(game.to_move).legal))


def test_a_bad_view_is_named() -> None:
    game = Game(Setup.deal(3, random.Random(1)))
    wire = game.view(0).to_dict()
    with pytest.raises(ProtocolError, match="'hand'"):
        view_from_dict({**wire, "hand": ["+99"]})
    with pytest.raises(ProtocolError, match="no field 'legal'"):
        view_from_dict({k: v for k, v in wire.items() if k != "legal"})
    with pytest.raises(ProtocolError):
        view_from_dict([1, 2])


def test_server_addresses_become_the_bot_socket() -> None:
    assert bot_socket_url("http://127.0.0.1:8000") == "ws://127.0.0.1:8000/api/bot/ws"
    assert bot_socket_url("https://cats.example/play/") == "wss://cats.example/play/api/bot/ws"
    assert bot_socket_url("ws://h/api/bot/ws") == "ws://h/api/bot/ws"
    with pytest.raises(ConnectError):
        bot_socket_url("ftp://h")


# ---------------------------------------------------------------------- the socket's bounds


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 's.db'}", max_frame_bytes=512)
    with TestClient(create_app(settings), base_url="http://testserver", headers={"Origin": "http://testserver"}) as c:
        yield c


def _bot_token(client: TestClient, owner: str = "Owner", bot: str = "Robo") -> str:
    origin = {"Origin": "http://testserver"}
    r = client.post("/api/account/register", json={"name": owner, "password": "a long enough password"})
    assert r.status_code == 201, r.text
    r = client.post("/api/account/bots", json={"name": bot}, headers=origin)
    assert r.status_code == 201, r.text
    token = r.json()["token"]
    listed = client.get("/api/account/bots").json()
    assert [b["name"] for b in listed] == [bot] and "token" not in listed[0]  # shown once
    return str(token)


def test_a_profile_shows_a_bot_account_as_a_bot_with_its_owner(client: TestClient) -> None:
    _bot_token(client)
    bot = client.get("/api/users/Robo").json()
    assert (bot["kind"], bot["owner"], bot["owner_profile"]) == ("bot", "Owner", "/u/Owner")
    person = client.get("/api/users/Owner").json()
    assert (person["kind"], person["owner"], person["owner_profile"]) == ("human", None, None)
    # The owner deletes their account: the bot stays a bot, with no owner to name or link.
    r = client.request("DELETE", "/api/account", json={"password": "a long enough password"})
    assert r.status_code == 204, r.text
    bot = client.get("/api/users/Robo").json()
    assert (bot["kind"], bot["owner"], bot["owner_profile"]) == ("bot", None, None)


def test_the_socket_refuses_missing_bad_and_revoked_tokens(client: TestClient) -> None:
    token = _bot_token(client)
    for headers in ({}, {"Authorization": "Bearer cbt_nothing"}):
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/api/bot/ws", headers=headers) as ws:
            ws.receive_text()
    with client.websocket_connect("/api/bot/ws", headers={"Authorization": f"Bearer {token}"}) as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL and hello["bot"] == "Robo"
        assert hello["limits"]["games"] == 1
        ws.send_json({"type": "hello", "protocol": PROTOCOL, "name": "test"})
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        assert client.get("/api/bots/online").json()[0]["name"] == "Robo"
        r = client.delete("/api/account/bots/Robo", headers={"Origin": "http://testserver"})
        assert r.status_code == 200 and r.json()["revoked"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1008
    with (
        pytest.raises(WebSocketDisconnect),
        client.websocket_connect("/api/bot/ws", headers={"Authorization": f"Bearer {token}"}) as ws,
    ):
        ws.receive_text()


def test_the_socket_bounds_the_handshake_frames_and_challenges(client: TestClient) -> None:
    token = _bot_token(client)
    auth = {"Authorization": f"Bearer {token}"}
    with client.websocket_connect("/api/bot/ws", headers=auth) as ws:
        ws.receive_json()
        ws.send_json({"type": "hello", "protocol": "catsack-bot/0", "name": "old"})
        assert ws.receive_json()["code"] == "bad_hello"
    with client.websocket_connect("/api/bot/ws", headers=auth) as ws:
        ws.receive_json()
        ws.send_json({"type": "hello", "protocol": PROTOCOL, "name": "test"})
        ws.send_text("not json")
        assert ws.receive_json()["code"] == "bad_frame"
        ws.send_json({"type": "move", "id": 99, "move": "pass"})
        assert ws.receive_json()["code"] == "unknown_request"
        origin = {"Origin": "http://testserver"}
        r = client.post("/api/bots/challenges", json={"bots": ["Robo"], "seats": 3}, headers=origin)
        assert r.status_code == 201, r.text
        offered = ws.receive_json()
        assert offered["type"] == "challenge" and offered["rated"] is True and offered["seat"] == 0
        # One game at a time: a second challenge while the first is open is refused.
        again = client.post("/api/bots/challenges", json={"bots": ["Robo"], "seats": 3}, headers=origin)
        assert again.status_code == 409 and again.json()["code"] == "bot_busy"
        ws.send_text("x" * 600)  # larger than the frame limit: closed
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 1009
    r = client.post("/api/bots/challenges", json={"bots": ["Robo"]}, headers={"Origin": "http://testserver"})
    assert r.status_code == 409 and r.json()["code"] == "bot_offline"


def test_a_bot_plays_its_seat_from_its_view_only(client: TestClient) -> None:
    """A challenged bot is seated and asked for each of its decisions with its seat's view (R23)."""
    token = _bot_token(client)
    with client.websocket_connect("/api/bot/ws", headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.receive_json()
        ws.send_json({"type": "hello", "protocol": PROTOCOL, "name": "test"})
        origin = {"Origin": "http://testserver"}
        r = client.post("/api/bots/challenges", json={"bots": ["Robo"], "seats": 3, "play": True}, headers=origin)
        assert r.status_code == 201, r.text
        person = r.json()
        assert person["seat"] == 1
        offered = ws.receive_json()
        ws.send_json({"type": "accept", "challenge": offered["challenge"]})
        for _ in range(3000):  # the accept is handled as the socket reads it: wait for the seating
            table = client.get(f"/api/tables/{offered['table']}").json()
            if table["status"] != "open":
                break
            time.sleep(0.01)
        assert table["status"] == "playing" and [p["name"] for p in table["players"]][:2] == ["Robo", "Owner"]
        while True:
            m = ws.receive_json()
            if m["type"] == "new_game":
                assert m["seat"] == 0 and len(m["hand"]) == 9 and m["rated"] is True
            if m["type"] == "move":
                break
        view = m["view"]
        assert view["seat"] == 0 and view["to_move"] == 0
        # Only the seat's own cards: every other seat's money and face-down cards are hidden (R23, R24).
        assert view["money"][1:] == [None, None]
        assert all(c["card"] is None for c in view["row"] if c["owner"] not in (0,) and not c["face_up"])
        ws.send_json({"type": "move", "id": m["id"], "move": "place +99"})
        refused = ws.receive_json()
        assert refused["type"] == "error" and refused["id"] == m["id"]
        again = ws.receive_json()  # asked again while the timer runs
        assert again["type"] == "move" and again["id"] > m["id"]
        ws.send_json({"type": "move", "id": again["id"], "move": again["legal"][0]})
        for _ in range(500):  # the move is played as the socket reads it
            if client.get(f"/api/tables/{offered['table']}/state").json()["version"] >= 1:
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the bot's move was not played")


def test_a_bot_accounts_seat_is_shown_as_a_bot(app_server: Callable[..., TestClient]) -> None:
    """The seat a bot account plays says it is a bot's (``kind: "bot"``, ``bot_account: true``) with its
    connection's status, in the table's JSON, in the state frame a spectator gets and in the seats read
    back from the database (another process, a restart); a person's and a server bot's seats are as they
    were. On SQLite and on PostgreSQL."""
    from catsack.server.tables.hub import Hub

    client = app_server()
    client.headers["Origin"] = "http://testserver"  # as the browser's pages send it
    token = _bot_token(client)
    with client.websocket_connect("/api/bot/ws", headers={"Authorization": f"Bearer {token}"}) as ws:
        ws.receive_json()
        ws.send_json({"type": "hello", "protocol": PROTOCOL, "name": "test"})
        r = client.post("/api/bots/challenges", json={"bots": ["Robo"], "seats": 3, "play": True})
        assert r.status_code == 201, r.text
        offered = ws.receive_json()
        ws.send_json({"type": "accept", "challenge": offered["challenge"]})
        while (m := ws.receive_json())["type"] != "new_game":  # seated once its game begins
            assert m["type"] != "error", m
        table_id = offered["table"]
        expected = [
            ("Robo", "bot", "connected", True),
            ("Owner", "human", "away", False),
            ("heuristic 3", "bot", "bot", False),
        ]

        def seats(players: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
            return [(p["name"], p["kind"], p["status"], p["bot_account"]) for p in players]

        table = client.get(f"/api/tables/{table_id}").json()
        assert seats(table["players"]) == expected and not any(p["replaced"] for p in table["players"])
        assert [p["guest"] for p in table["players"]] == [False, False, False]
        with client.websocket_connect(f"/ws/{table_id}") as watcher:
            hello = {"type": "hello", "protocol": "catsack-ws/1", "table": table_id, "token": None, "since": None}
            watcher.send_json(hello)
            while (frame := watcher.receive_json())["type"] != "state":
                pass
        assert seats(frame["players"]) == expected
        hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
        loaded = client.portal.call(asyncio.to_thread, hub.store.load, table_id)
        assert loaded is not None
        bound = [(s.user_id is not None, s.bot_account) for s in loaded[1]]
        assert bound == [(True, True), (True, False), (False, False)]
        rebuilt = hub.loader.build(*loaded).players_public()  # as another process or a restart loads it
        assert [(p["kind"], p["bot_account"]) for p in rebuilt] == [(k, b) for _, k, _, b in expected]


# ---------------------------------------------------------------------- over the network, to the end


def _docs_example() -> str:
    """The complete example bot of docs/bot-api.md, as printed there."""
    blocks = (ROOT / "docs" / "bot-api.md").read_text().split("```python\n")[1:]
    return next(b.split("```", 1)[0] for b in blocks if "first-legal" in b)


def _connect(server: ServerProc, token: str, spec: str, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return spawn(
            [
                sys.executable,
                "-m",
                "catsack",
                "bot",
                "connect",
                server.url,
                "--token",
                token,
                "--bot",
                spec,
                "--games",
                "1",
            ],
            cwd=server.workdir,
            env=server.env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def test_two_bots_play_a_rated_game_over_the_network(tmp_path: Path) -> None:
    server = ServerProc(
        tmp_path, {"CATSACK_DATABASE_URL": f"sqlite:///{tmp_path / 'arena.db'}", "CATSACK_BOT_MOVE_SECONDS": "20"}
    ).start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        web = httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=10)
        r = web.post("/api/account/register", json={"name": "Owner", "password": "a long enough password"})
        assert r.status_code == 201, r.text
        tokens = {}
        for name in ("Extern", "Builtin", "Doc"):
            r = web.post("/api/account/bots", json={"name": name})
            assert r.status_code == 201, r.text
            tokens[name] = r.json()["token"]
        # A bad token is said clearly, and stops the command.
        bad = subprocess.run(
            [sys.executable, "-m", "catsack", "bot", "connect", server.url, "--token", "cbt_wrong"],
            cwd=tmp_path,
            env=server.env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert bad.returncode == 2 and "refused the bot's token" in bad.stderr
        procs.append(_connect(server, tokens["Extern"], f"external:{sys.executable} {EXAMPLE_BOT}", tmp_path / "a.log"))
        procs.append(_connect(server, tokens["Builtin"], "heuristic", tmp_path / "b.log"))
        # The third: the complete example of docs/bot-api.md, as printed there.
        example = tmp_path / "my_arena_bot.py"
        example.write_text(_docs_example())
        with (tmp_path / "c.log").open("wb") as out:
            doc_bot = spawn(
                [sys.executable, str(example), server.url, tokens["Doc"]],
                cwd=tmp_path,
                env=server.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        procs.append(doc_bot)
        deadline = time.monotonic() + 60
        while len(web.get("/api/bots/online").json()) < 3:
            assert time.monotonic() < deadline, (tmp_path / "a.log").read_text() + (tmp_path / "b.log").read_text()
            time.sleep(0.1)
        r = web.post("/api/bots/challenges", json={"bots": ["Extern", "Builtin", "Doc"], "seats": 3, "rated": True})
        assert r.status_code == 201, r.text
        table = r.json()["table"]
        for proc in procs[:2]:  # each stops after its one game
            assert proc.wait(180) == 0
        final = web.get(f"/api/tables/{table}").json()
        assert final["status"] == "over"
        assert [p["name"] for p in final["players"]] == ["Extern", "Builtin", "Doc"]
        board = web.get("/api/bots/leaderboard").json()
        names = {e["name"]: e for e in board}
        assert all(names[n]["games"] == 1 for n in ("Extern", "Builtin", "Doc"))
        assert names["Extern"]["kind"] == "bot" and names["Extern"]["owner"] == "Owner"
        everyone = {e["name"]: e for e in web.get("/api/leaderboard").json()}  # marked as bots there too
        assert everyone["Doc"]["kind"] == "bot" and everyone["Doc"]["owner"] == "Owner"
        assert "game over at table" in (tmp_path / "a.log").read_text()
        for _ in range(500):  # the example prints its game over as it reads it
            if "game over:" in (tmp_path / "c.log").read_text():
                break
            time.sleep(0.02)
        assert "game over:" in (tmp_path / "c.log").read_text()
    finally:
        for proc in procs:
            stop_group(proc)
        server.stop()
