"""WebSockets that never say hello are bounded per address and per process without locking newcomers out
(catsack.server.tables.pending).

A real ``catsack serve`` process with small limits (3 silent sockets per address, 5 per process) behind
a trusted proxy address, so that the test can speak for many client addresses with ``X-Forwarded-For``.
A fourth silent socket from one address is refused at the handshake with 503 and ``Retry-After``; a
process full of silent sockets from many addresses closes the oldest (1013) to let a newcomer in, who
then plays; a reconnect that proves its seat is let in even from an address at its limit.
``bench/silent_sockets.py`` measures the memory (RSS after 1,500 silent sockets).
"""

from __future__ import annotations

import asyncio
import hashlib
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


async def refusal(p: ServerProc, address: str, path: str = "/ws") -> Any:
    """The handshake's refusal (its HTTP response), or ``None`` when the socket was accepted (then closed)."""
    try:
        ws = await silent(p, address, path)
    except websockets.exceptions.InvalidStatus as exc:
        return exc.response
    await ws.close()
    return None


async def closed_code(ws: Any) -> int | None:
    """The close code the server sent, once it closes (bounded only by a generous deadline)."""
    try:
        await asyncio.wait_for(ws.recv(), 10)
    except websockets.exceptions.ConnectionClosed:
        pass
    except TimeoutError:
        return None
    return ws.close_code  # type: ignore[no-any-return]


async def hello(ws: Any, table: str, token: str | None) -> dict[str, Any]:
    await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL, "table": table, "token": token}))
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if frame["type"] in ("welcome", "error"):
            return frame  # type: ignore[no-any-return]


async def scenario(p: ServerProc, figures: dict[str, Any]) -> None:
    table = p.create_table(seats=3, bots={"1": "random", "2": "random"}, name="t")["table"]
    token = p.join(table, "Ann", 0)["token"]
    # Per address: three wait, the fourth is refused at the handshake with 503 and Retry-After.
    held: list[Any] = [await silent(p, "10.0.0.1") for _ in range(3)]
    refused = await refusal(p, "10.0.0.1")
    assert refused is not None and refused.status_code == 503, refused
    assert 1 <= int(refused.headers["Retry-After"]) <= 10
    # A reconnect that proves its seat is not counted, even from that address.
    proof = hashlib.sha256(token.encode()).hexdigest()
    back = await silent(p, "10.0.0.1", f"/ws/{table}?seat={proof}")
    assert (await hello(back, table, token))["seat"] == 0
    await back.close()
    assert (await refusal(p, "10.0.0.1", f"/ws/{table}?seat={'0' * 64}")) is not None  # a wrong proof counts
    # Per process (5): silent sockets from many addresses never lock a newcomer out: the oldest goes.
    held += [await silent(p, f"10.0.1.{i}") for i in range(12)]
    codes = await asyncio.gather(*(closed_code(ws) for ws in held[:-5]))
    assert codes == [1013] * len(codes), codes  # each closed as "busy" to make room
    newcomer = await silent(p, "10.0.2.1", f"/ws/{table}")
    welcome = await hello(newcomer, table, token)
    assert welcome["type"] == "welcome" and welcome["seat"] == 0
    await newcomer.send(json.dumps({"type": "ping"}))
    while json.loads(await asyncio.wait_for(newcomer.recv(), 10))["type"] != "pong":
        pass
    await newcomer.close()
    for ws in held[-5:]:
        await ws.close()
    figures["ok"] = True


def test_silent_sockets_never_lock_a_newcomer_out(tmp_path: Path) -> None:
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
        asyncio.run(scenario(p, figures))
    except BaseException:
        print(p.tail(30))
        raise
    finally:
        p.stop()
    assert figures.get("ok")


def test_the_oldest_waiting_socket_makes_room() -> None:
    """The bookkeeping on an injected clock: the per-address refusal names when the address's oldest
    waiting socket times out; a full process gives up its oldest sockets, whatever their address."""
    from catsack.server.tables.pending import HELLO_TIMEOUT, PendingSockets

    now = [100.0]
    pending = PendingSockets(per_process=3, per_address=2, clock=lambda: now[0])

    async def close() -> None:
        return None

    a1, gone = pending.admit("a", close)
    now[0] += 4.0
    a2, gone2 = pending.admit("a", close)
    assert gone == gone2 == [] and pending.refusal("b") is None
    assert pending.refusal("a") == HELLO_TIMEOUT - 4.0
    pending.admit("b", close)
    _, gone = pending.admit("c", close)  # the process is full: a's oldest goes
    assert [w.address for w in gone] == ["a"] and pending.evicted == 1
    assert pending.refusal("a") is None and len(pending) == 3
    pending.release(a1)  # released already by the eviction: nothing happens
    pending.release(a2)
    pending.release(a2)
    assert len(pending) == 2 and set(pending.by_address) == {"b", "c"}
