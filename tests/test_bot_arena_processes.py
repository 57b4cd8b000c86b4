"""The bot arena with several server processes (docs/bot-api.md, docs/deploy.md): two hubs on one database
and one Redis server. A bot connected to one process is seen online by the other, is challenged through
the other, plays the table that process made to the end (the table's lease follows the bot's seat), is
refused ``bot_busy`` meanwhile, a declined challenge fills the open seat after the last answer, and
revoking through the other process closes the bot's connection and its presence. Then the same behind
the repository's nginx file with two real processes."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("redis")

from catsack.server.people.accounts import Accounts
from catsack.server.people.botaccounts import BotAccounts
from catsack.server.people.botarena import BotSession, arena_of
from catsack.server.settings import Settings
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import TableError
from server_procs import need_redis

pytestmark = pytest.mark.services


async def _next(session: BotSession, kind: str) -> dict[str, Any]:
    """The bot's next message of ``kind`` (others skipped); a bound on waiting, not a timing check."""
    while True:
        text = await asyncio.wait_for(session.queue.get(), 30.0)
        assert text is not None, "the session ended"
        message: dict[str, Any] = orjson.loads(text)
        if message["type"] == kind:
            return message


async def _until(check: Any) -> None:
    for _ in range(600):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("never happened")


def test_a_bot_on_one_process_is_challenged_through_another(tmp_path: Path) -> None:
    redis_url = need_redis()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'arena.db'}",
        redis_url=redis_url,
        redis_channel=f"test-arena-{uuid.uuid4().hex[:8]}",
        bot_delay=0.0,
        lease_seconds=30.0,
        log_json=False,
    )

    async def go() -> None:
        a, b = Hub(settings), Hub(settings)
        await a.start()
        await b.start()
        try:
            accounts = Accounts(a.store.engine)
            owner = accounts.register("Owner", "a long enough password")
            bot, _ = BotAccounts(a.store.engine, accounts).create(owner, "Robo")
            here, there = arena_of(a), arena_of(b)
            closed: list[int] = []

            async def send_text(_text: str) -> None:
                return None

            async def close(code: int, _reason: str) -> None:
                closed.append(code)

            session = BotSession(bot, send_text, close)
            await there.open(session)  # the bot reached process b

            where = await here.presence(bot.id)
            assert where is not None and where["p"] == b.process_id and where["games"] == 0
            assert [o["name"] for o in await here.online_everywhere()] == ["Robo"]

            # A challenge made on a reaches the bot on b; it accepts and plays its seat there.
            table = await a.create(
                3,
                {1: "random", 2: "random"},
                name="Bot arena",
                money_visible=False,
                turn_seconds=10,
                hints=False,
                extra_options={"rated": False, "bot_arena": True},
            )
            await here.expect(table.id, 1)
            cid = await here.offer(bot, table, 0, fill="random", by="Owner")
            offered = await _next(session, "challenge")
            assert offered["challenge"] == cid and offered["table"] == table.id and offered["seat"] == 0
            assert await there.resolve(cid, accepted=True) is None
            # Seated through b: a, catching up from the database, shows the seat as a bot account's too.
            async with table.lock:
                await a.catch_up(table)
            robo = table.players_public()[0]
            assert (robo["kind"], robo["bot_account"]) == ("bot", True)
            assert table.players[0].user_id == bot.id

            # The bot's seat is a connection of b: the table's lease follows it there.
            await _until(lambda: b.tables.get(table.id) is not None and b.tables[table.id].driver)

            # One game at a time, wherever the challenge comes from.
            other = await a.create(
                3, {1: "random", 2: "random"}, name="Bot arena", money_visible=False, turn_seconds=10, hints=False
            )
            await here.expect(other.id, 1)
            with pytest.raises(TableError) as busy:
                await here.offer(bot, other, 0, fill="random", by="Owner")
            assert busy.value.code == "bot_busy" and busy.value.params == {"name": "Robo"}

            moves = 0
            while True:
                text = await asyncio.wait_for(session.queue.get(), 30.0)
                assert text is not None
                m = orjson.loads(text)
                if m["type"] == "move":
                    assert m["view"]["seat"] == 0 and m["view"]["money"][1:] == [None, None]  # R23
                    await there.answer(session, {"type": "move", "id": m["id"], "move": m["legal"][0]})
                    moves += 1
                elif m["type"] == "game_over":
                    assert len(m["scores"]) == 3 and m["table"] == table.id
                    break
            assert moves > 0

            # A declined challenge: after the last answer (given on b) the open seat gets the fill level.
            third = await a.create(
                3, {2: "random"}, name="Bot arena", money_visible=False, turn_seconds=10, hints=False
            )
            await a.join(third, "Owner", 1, account_id=owner.id)
            await here.expect(third.id, 1)
            cid = await here.offer(bot, third, 0, fill="random", by="Owner")
            await _next(session, "challenge")
            await there.resolve(cid, accepted=False)
            filled = await b.get(third.id)
            assert filled is not None and filled.status == "playing"
            assert [p.kind for p in filled.players] == ["bot", "human", "bot"]

            # Revoked through a: the connection on b is closed, and the bot is nowhere online.
            await here.kick(bot.id, "token revoked")
            await _until(lambda: bot.id not in there.sessions)
            assert closed == [1008]
            assert await here.presence(bot.id) is None
            with pytest.raises(TableError) as offline:
                await here.offer(bot, other, 0, fill="random", by="Owner")
            assert offline.value.code == "bot_offline"
        finally:
            await a.stop()
            await b.stop()

    asyncio.run(go())


def test_a_bot_behind_nginx_is_challenged_through_the_other_process(tmp_path: Path) -> None:
    """The repository's nginx file in front of two real processes (tests/test_deploy.py's deployment): the
    bot's socket lands on one process, again on the same one when it reconnects (routed by its token), and
    a challenge made directly on the other process is played there to the end."""
    import httpx
    from websockets.sync.client import connect

    from catsack.protocol.messages import PROTOCOL
    from test_deploy import deployed, tls_client

    with deployed(tmp_path) as d:
        names = {f"127.0.0.1:{d.a.port}": d.a, f"127.0.0.1:{d.b.port}": d.b}
        with httpx.Client(base_url=d.a.url, headers={"Origin": d.a.url}, timeout=10) as person:
            r = person.post("/api/account/register", json={"name": "Owner", "password": "a long enough password"})
            assert r.status_code == 201, r.text
            r = person.post("/api/account/bots", json={"name": "Robo"})
            assert r.status_code == 201, r.text
            headers = {"Authorization": f"Bearer {r.json()['token']}"}
            url = f"wss://127.0.0.1:{d.nginx.port}/api/bot/ws"
            landed = []
            for _ in range(3):
                with connect(url, additional_headers=headers, ssl=tls_client()) as ws:
                    assert orjson.loads(ws.recv(10))["type"] == "hello"
                    assert ws.response is not None
                    landed.append(ws.response.headers["X-Catsack-Upstream"])
            assert len(set(landed)) == 1, landed  # one bot, one process
            other = next(p for n, p in names.items() if n != landed[0])
            with connect(url, additional_headers=headers, ssl=tls_client()) as ws:
                ws.recv(10)
                ws.send(orjson.dumps({"type": "hello", "protocol": PROTOCOL, "name": "test"}).decode())
                online: list[dict[str, Any]] = []
                for _ in range(200):  # the bot's hello is read: then it is online, seen from the other process
                    online = httpx.get(other.url + "/api/bots/online", timeout=10).json()
                    if online:
                        break
                    time.sleep(0.05)
                assert [o["name"] for o in online] == ["Robo"]
                r = person.post(
                    other.url + "/api/bots/challenges",
                    json={"bots": ["Robo"], "seats": 3, "rated": False, "fill": "random"},
                    headers={"Origin": other.url},
                )
                assert r.status_code == 201, r.text
                table = r.json()["table"]
                moves = 0
                while True:
                    m = orjson.loads(ws.recv(30))
                    if m["type"] == "challenge":
                        assert m["table"] == table
                        ws.send(orjson.dumps({"type": "accept", "challenge": m["challenge"]}).decode())
                    elif m["type"] == "move":
                        ws.send(orjson.dumps({"type": "move", "id": m["id"], "move": m["legal"][0]}).decode())
                        moves += 1
                    elif m["type"] == "game_over":
                        assert m["table"] == table and len(m["scores"]) == 3
                        break
                    else:
                        assert m["type"] in ("new_game", "pong"), m
                assert moves > 0
