"""The ``catsack-ws/1`` WebSocket at ``/ws``: hello, then moves, resyncs, hints and pings.

See ``docs/protocol.md`` for the contract.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from catsack.server.hub import PROTOCOL, Conn, Hub, TableError
from catsack.server.limits import RateLimit
from catsack.server.routes.deps import ws_hub
from catsack.server.settings import Settings

__all__ = ["router", "serve_socket"]

log = logging.getLogger("catsack.server")

HELLO_TIMEOUT = 10.0

router = APIRouter()


@router.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    await serve_socket(ws_hub(ws), ws)


def _client_address(ws: WebSocket) -> str:
    return ws.client.host if ws.client is not None else "?"


def _bad(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


def _check_since(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < 10**6:
        raise ValueError("'since' must be a version number or null")
    return value


async def _receive_text(ws: WebSocket, settings: Settings) -> str | None:
    """The next text frame; ``None`` when the client left. Oversized frames close with 1009."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    data = message.get("text")
    if data is None:
        raw = message.get("bytes") or b""
        if len(raw) > settings.max_frame_bytes:
            await ws.close(1009, "frame too large")
            return None
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ""
    if len(data.encode("utf-8")) > settings.max_frame_bytes:
        await ws.close(1009, f"frame larger than {settings.max_frame_bytes} bytes")
        return None
    return str(data)


async def serve_socket(hub: Hub, ws: WebSocket) -> None:
    settings = hub.settings
    addr = _client_address(ws)
    await ws.accept()
    if hub.addresses.get(addr, 0) >= settings.max_connections_per_address:
        await ws.send_text(json.dumps(_bad("busy", "too many connections from your address")))
        await ws.close(1013, "too many connections")
        return
    hub.addresses[addr] = hub.addresses.get(addr, 0) + 1
    conn: Conn | None = None
    try:
        conn = await _hello(hub, ws)
        if conn is None:
            return
        await _read_loop(hub, ws, conn)
    except WebSocketDisconnect:
        pass
    finally:
        hub.addresses[addr] -= 1
        if hub.addresses[addr] <= 0:
            del hub.addresses[addr]
        if conn is not None:
            hub.detach(conn)
            await conn.flush(1.0)


async def _send_direct(ws: WebSocket, frame: dict[str, Any]) -> None:
    await ws.send_text(json.dumps(frame, separators=(",", ":")))


async def _hello(hub: Hub, ws: WebSocket) -> Conn | None:
    """Read and check the ``hello``; answer ``welcome`` and attach, or refuse without any view."""
    settings = hub.settings
    while True:
        try:
            text = await asyncio.wait_for(_receive_text(ws, settings), HELLO_TIMEOUT)
        except TimeoutError:
            await _send_direct(ws, _bad("bad_hello", "no hello received"))
            await ws.close(1008, "no hello")
            return None
        if text is None:
            return None
        try:
            frame = json.loads(text)
        except ValueError:
            await _send_direct(ws, _bad("bad_hello", "the first frame must be a JSON hello object"))
            continue
        if not isinstance(frame, dict) or frame.get("type") != "hello":
            await _send_direct(ws, _bad("bad_hello", "the first frame must be {'type': 'hello', ...}"))
            continue
        if frame.get("protocol") != PROTOCOL:
            await _send_direct(ws, _bad("bad_hello", f"unsupported protocol {frame.get('protocol')!r}; use {PROTOCOL}"))
            continue
        table_id, token = frame.get("table"), frame.get("token")
        try:
            since = _check_since(frame.get("since"))
        except ValueError as exc:
            await _send_direct(ws, _bad("bad_hello", str(exc)))
            continue
        if not isinstance(table_id, str) or (token is not None and not isinstance(token, str)):
            await _send_direct(ws, _bad("bad_hello", "'table' must be text and 'token' text or null"))
            continue
        table = await hub.get(table_id)
        if table is None:
            await _send_direct(ws, _bad("unknown_table", f"no table {table_id[:40]!r}"))
            continue
        seat: int | None = None
        if token is not None:
            try:
                seat = hub.seat_for_token(table, token)
            except TableError as exc:
                await _send_direct(ws, _bad(exc.code, exc.message))
                continue
        conn = Conn(ws.send_text, seat, since, record=hub.record_frames)
        name = None if seat is None else table.names()[seat]
        await _send_direct(ws, {"type": "welcome", "protocol": PROTOCOL, "table": table.id, "seat": seat, "name": name})
        hub.attach(table, conn)
        return conn


async def _read_loop(hub: Hub, ws: WebSocket, conn: Conn) -> None:
    settings = hub.settings
    limit = RateLimit(settings.rate_per_second, settings.rate_burst)
    while not conn.closed:
        text = await _receive_text(ws, settings)
        if text is None:
            return
        if not limit.allow():
            if limit.dropped >= settings.rate_close_after:
                await ws.close(1008, "rate limit exceeded")
                return
            if limit.dropped == 1 or limit.dropped % 10 == 0:
                conn.push(_bad("rate_limited", "too many frames: slow down"))
            continue
        reply = await _handle(hub, conn, text)
        if reply is not None:
            conn.push(reply)


_background: set[asyncio.Task[None]] = set()


async def _hint(hub: Hub, conn: Conn) -> None:
    try:
        conn.push(await hub.hint(conn))
    except Exception:
        log.exception("hint failed")
        conn.push(_bad("hint_failed", "the analysis failed; try again"))


async def _handle(hub: Hub, conn: Conn, text: str) -> dict[str, Any] | None:
    """One client frame after the hello: the direct answer, if any."""
    try:
        frame = json.loads(text)
    except ValueError:
        return _bad("bad_frame", "not JSON")
    if not isinstance(frame, dict):
        return _bad("bad_frame", f"a frame must be a JSON object, not {type(frame).__name__}")
    kind = frame.get("type")
    if kind == "move":
        action_id, version, move = frame.get("action_id"), frame.get("version"), frame.get("move")
        if not isinstance(action_id, str) or not 1 <= len(action_id) <= 64:
            return _bad("bad_frame", "'action_id' must be text of 1 to 64 characters")
        if type(version) is not int or not 0 <= version < 10**6:
            return {
                **_bad("bad_frame", "'version' must be the state version the move was made against"),
                "action_id": action_id,
            }
        if not isinstance(move, str) or len(move) > 24:
            return {**_bad("bad_frame", "'move' must be a move's text, e.g. 'bid 5'"), "action_id": action_id}
        return await hub.act(conn, action_id, version, move)
    if kind == "resync":
        try:
            since = _check_since(frame.get("since"))
        except ValueError as exc:
            return _bad("bad_frame", str(exc))
        conn.since = since
        conn.push(Conn.FULL)
        return None
    if kind == "hint":
        task = asyncio.create_task(_hint(hub, conn))  # the analysis takes a while: keep reading frames
        _background.add(task)
        task.add_done_callback(_background.discard)
        return None
    if kind == "ping":
        return {"type": "pong"}
    if kind == "hello":
        return _bad("bad_frame", "already greeted: open a new connection to change seat")
    shown = kind if isinstance(kind, str) and len(kind) <= 20 else type(kind).__name__
    return _bad("bad_frame", f"unknown frame type {shown!r} (known: move, resync, hint, ping)")
