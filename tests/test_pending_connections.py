"""WebSockets that never say hello are bounded per process and per address (issue 29, defect 10).

A real ``catsack serve`` process with small limits (3 silent sockets per address, 5 per process)
behind a trusted proxy address, so that the test can speak for several client addresses with
``X-Forwarded-For``. Silent sockets over either limit are refused at the handshake (HTTP 403, before
any WebSocket state is kept); a socket that says hello frees its place; greeted connections never
count. ``bench/silent_sockets.py`` measures the memory this saves (RSS after 1,500 silent sockets).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from server_procs import PROTOCOL, ServerProc

pytest.importorskip("fastapi", reason="the server extra (fastapi, uvicorn, sqlalchemy) is not installed")
websockets = pytest.importorskip("websockets", reason="websockets is not installed")


async def silent(p: ServerProc, address: str, path: str = "/ws") -> Any:
    """A WebSocket from ``address`` (as the trusted proxy says) that sends nothing."""
    return await websockets.connect(
        f"ws://127.0.0.1:{p.port}{path}", additional_headers={"X-Forwarded-For": address}, open_timeout=10
    )


async def refused(p: ServerProc, address: str) -> bool:
    try:
        ws = await silent(p, address)
    except websockets.exceptions.InvalidStatus as exc:
        assert exc.response.status_code == 403, exc
        return True
    await ws.close()
    return False


async def limits(p: ServerProc, figures: dict[str, Any]) -> None:
    table = p.create_table(seats=3, bots={"1": "random", "2": "random"}, name="t")["table"]
    token = p.join(table, "Ann", 0)["token"]
    held: list[Any] = [await silent(p, "10.0.0.1") for _ in range(3)]
    assert await refused(p, "10.0.0.1"), "a fourth silent socket from one address was accepted"
    held += [await silent(p, "10.0.0.2"), await silent(p, "10.0.0.3")]  # five in this process
    assert await refused(p, "10.0.0.4"), "a sixth silent socket in the process was accepted"
    # One of them says hello: it is a player now and frees its place for someone else.
    first = held.pop(0)
    await first.send(json.dumps({"type": "hello", "protocol": PROTOCOL, "table": table, "token": token}))
    welcome = json.loads(await asyncio.wait_for(first.recv(), 10))
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    newcomer = await silent(p, "10.0.0.4", f"/ws/{table}")
    held.append(newcomer)
    assert await refused(p, "10.0.0.5")
    # Closed silent sockets free their places too.
    for ws in held:
        await ws.close()
    for _ in range(200):
        if not await refused(p, "10.0.0.6"):
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("closed silent sockets still count")
    # The player's connection works throughout.
    await first.send(json.dumps({"type": "ping"}))
    for _ in range(10):
        if json.loads(await asyncio.wait_for(first.recv(), 10))["type"] == "pong":
            break
    await first.close()
    figures["ok"] = True


def test_silent_sockets_are_bounded_per_process_and_per_address(tmp_path: Path) -> None:
    env = {
        "CATSACK_DATABASE_URL": f"sqlite:///{tmp_path / 'p.db'}",
        "CATSACK_TRUSTED_PROXIES": "127.0.0.1",
        "CATSACK_MAX_PENDING_CONNECTIONS": "5",
        "CATSACK_MAX_PENDING_PER_ADDRESS": "3",
    }
    p = ServerProc(tmp_path, env, name="pending")
    figures: dict[str, Any] = {}
    try:
        p.start()
        asyncio.run(limits(p, figures))
    except BaseException:
        print(p.tail(30))
        raise
    finally:
        p.stop()
    assert figures.get("ok")
