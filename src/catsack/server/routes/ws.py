"""The ``catsack-ws/1`` WebSocket at ``/ws/{table}``: hello, then moves, resyncs, hints and pings.

See ``docs/protocol.md`` for the contract. The table is in the URL so that a proxy can send every
connection of a table to one process (``hash`` on it in nginx, docs/deploy.md); ``/ws`` without it
still works for clients from before, on whatever process the proxy picks.

Every frame a client sends is parsed defensively: whatever it holds (not JSON, nesting thousands
deep, NUL characters, lone surrogates, wrong types), the answer is a structured ``error`` frame and
the connection stays open. Only oversized frames (1009) and
flooding (1008) close it.

Frames to a client leave through :class:`~catsack.server.tables.live.Conn`. Under uvicorn's
websockets-sansio protocol (what ``catsack serve`` runs), :func:`direct_writer` hands them, already
encoded, to the connection's WebSocket protocol object and writes its bytes to the socket at once:
no ASGI message, no text encoded again, no task per frame. Its socket's flow control is kept: while
the socket's buffer is full, frames wait in the ASGI path. Any other server, and the in-process test
client, use the ASGI ``send``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, MutableMapping
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.responses import Response
from starlette.websockets import WebSocketState

from catsack.server.limits import RateLimit, scope_address
from catsack.server.people.gameaccess import game_access
from catsack.server.people.social import chat, chat_history
from catsack.server.routes.accounts import COOKIE
from catsack.server.routes.deps import ws_hub
from catsack.server.settings import Settings
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import PROTOCOL, Conn, LiveTable, TableError
from catsack.server.tables.pending import HELLO_TIMEOUT, PendingSockets, proves_seat
from catsack.server.validate import TOKEN_MAX, is_action_id, is_table_id, is_token, table_id_problem

__all__ = [
    "HELLO_TIMEOUT",
    "RAW_SEND",
    "RawSend",
    "direct_writer",
    "parse_frame",
    "pending_of",
    "router",
    "serve_socket",
]

log = logging.getLogger("catsack.server")


router = APIRouter()

#: The scope key under which :class:`RawSend` keeps the ASGI server's own ``send`` of a WebSocket.
RAW_SEND = "catsack.raw_send"


class RawSend:
    """ASGI middleware, the outermost: keeps the server's own ``send`` of each WebSocket in its scope
    (:data:`RAW_SEND`) before other middleware wraps it, for :func:`direct_writer`."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            scope[RAW_SEND] = send
        await self.app(scope, receive, send)


def direct_writer(scope: MutableMapping[str, Any]) -> Callable[[list[bytes]], bool] | None:
    """A function writing encoded text frames (UTF-8 JSON) straight to this WebSocket, in order, that
    answers ``False`` when the socket cannot take them now (its buffer is full, it is closing); ``None``
    unless the socket is served by uvicorn's websockets-sansio protocol, whose ``send`` is a method of
    the connection's protocol object (then frames go through the ASGI ``send``)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.exceptions import InvalidState, ProtocolError
    except ImportError:
        return None
    proto = getattr(scope.get(RAW_SEND), "__self__", None)
    if type(proto) is not WebSocketsSansIOProtocol:
        return None
    # What is read below, checked once: a later uvicorn that keeps these differently gets the ASGI path.
    conn = getattr(proto, "conn", None)
    transport = getattr(proto, "transport", None)
    writable = getattr(proto, "writable", None)
    if not (
        isinstance(writable, asyncio.Event)
        and callable(getattr(conn, "send_text", None))
        and callable(getattr(conn, "data_to_send", None))
        and callable(getattr(transport, "write", None))
        and callable(getattr(transport, "is_closing", None))
        and isinstance(getattr(proto, "close_sent", None), bool)
        and isinstance(getattr(proto, "disconnected", None), bool)
    ):
        return None
    assert conn is not None and transport is not None

    def write(frames: list[bytes]) -> bool:
        if proto.close_sent or proto.disconnected or not writable.is_set() or transport.is_closing():
            return False
        try:
            for data in frames:
                conn.send_text(data)
        except (InvalidState, ProtocolError):
            return False
        transport.write(b"".join(conn.data_to_send()))
        return True

    return write


@router.websocket("/ws")
async def websocket(ws: WebSocket) -> None:
    await serve_socket(ws_hub(ws), ws)


@router.websocket("/ws/{table_id}")
async def table_websocket(ws: WebSocket, table_id: str) -> None:
    await serve_socket(ws_hub(ws), ws, table_id)


def _bad(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


def parse_frame(text: str) -> tuple[Any, str | None]:
    """A client frame's JSON value, or ``(None, why)`` when it is not acceptable JSON.

    orjson limits nesting (1024 levels) instead of recursing until ``RecursionError``, refuses
    lone surrogates and non-finite numbers; any error from the parser is a client's mistake.
    """
    try:
        return orjson.loads(text), None
    except (ValueError, RecursionError, TypeError, UnicodeError) as exc:
        reason = str(exc).split(":", 1)[0] if isinstance(exc, orjson.JSONDecodeError) else "unreadable text"
        return None, reason[:80]


def _check_since(value: Any) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 0 <= value < 10**6:
        raise ValueError("'since' must be a version number or null")
    return value


def _shown(value: Any, limit: int = 20) -> str:
    """A short, safe rendering of a client's value inside an error message."""
    return repr(value) if isinstance(value, str) and len(value) <= limit else type(value).__name__


async def _receive_text(ws: WebSocket, settings: Settings) -> str | None:
    """The next text frame; ``None`` when the client left. Oversized frames close with 1009."""
    try:
        message = await ws.receive()
    except RuntimeError:  # the connection closed already (the client left while we were answering)
        return None
    if message["type"] == "websocket.disconnect":
        return None
    data = message.get("text")
    if data is None:
        raw = message.get("bytes") or b""
        if len(raw) > settings.max_frame_bytes:
            await _close(ws, 1009, "frame too large")
            return None
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            return ""
    # surrogatepass: a text frame cannot carry lone surrogates on the wire, but an in-process client
    # can hand one over; it is counted here and refused by the parser, never an encoding crash.
    if len(data) > settings.max_frame_bytes or len(data.encode("utf-8", "surrogatepass")) > settings.max_frame_bytes:
        await _close(ws, 1009, f"frame larger than {settings.max_frame_bytes} bytes")
        return None
    return str(data)


def pending_of(hub: Hub) -> PendingSockets:
    """This process's sockets waiting for their hello (:mod:`catsack.server.tables.pending`)."""
    s = hub.settings
    return hub.service(PendingSockets, lambda: PendingSockets(s.max_pending_connections, s.max_pending_per_address))


def _proves_seat(hub: Hub, ws: WebSocket, path_table: str | None) -> bool:
    """Whether the handshake proves a seat at the table in its path (``?seat=``), by a table this process holds."""
    proof = ws.query_params.get("seat", "")
    table = hub.tables.get(path_table) if path_table is not None and proof else None
    return table is not None and proves_seat(table.players, proof)


async def _refuse_busy(ws: WebSocket, retry: int) -> None:
    """Refuse a handshake: 503 with ``Retry-After`` where the server can answer one with HTTP, else accept
    and close with 1013 (``busy``)."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        body = {"detail": "too many connections waiting for their hello from your address", "code": "busy"}
        await ws.send_denial_response(
            Response(orjson.dumps(body), 503, {"Retry-After": str(retry)}, media_type="application/json")
        )
        return
    await ws.accept()
    await _send_direct(ws, _bad("busy", f"too many connections waiting from your address: try again in {retry} s"))
    await _close(ws, 1013, "busy")


async def serve_socket(hub: Hub, ws: WebSocket, path_table: str | None = None) -> None:
    """One WebSocket, from accept to close. ``path_table``: the table named in the URL (``/ws/{table}``),
    which the hello must name too."""
    settings = hub.settings
    addr = scope_address(ws.scope, settings.proxy_networks())
    pending = pending_of(hub)
    # Sockets that never say hello cost memory until HELLO_TIMEOUT: bounded per address (refused before
    # the upgrade, which costs least) and per process (the oldest is closed to make room), except for a
    # reconnect that proves its seat (catsack.server.tables.pending).
    exempt = _proves_seat(hub, ws, path_table)
    retry = None if exempt else pending.refusal(addr)
    if retry is not None:
        hub.sockets_dropped += 1
        if hub.metrics is not None:
            hub.metrics.error("busy")
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await _refuse_busy(ws, retry)
        return
    await ws.accept()
    if hub.addresses.get(addr, 0) >= settings.max_connections_per_address:
        await _send_direct(ws, _bad("busy", "too many connections from your address"))
        await _close(ws, 1013, "too many connections")
        return
    hub.addresses[addr] = hub.addresses.get(addr, 0) + 1
    waiting: int | None = None
    if not exempt:
        waiting, evicted = pending.admit(addr, lambda: _close(ws, 1013, "busy: a newer connection needed the room"))
        for old in evicted:
            hub.sockets_dropped += 1
            if hub.metrics is not None:
                hub.metrics.error("busy")
            await old.close()
    conn: Conn | None = None
    limit = RateLimit(settings.rate_per_second, settings.rate_burst, window=settings.rate_window_seconds)

    def greeted() -> None:
        if waiting is not None:
            pending.release(waiting)

    try:
        conn = await _hello(hub, ws, limit, path_table)
        greeted()
        if conn is None:
            hub.sockets_dropped += 1
            return
        await _read_loop(hub, ws, conn, limit)
    except WebSocketDisconnect:
        pass
    finally:
        greeted()
        hub.addresses[addr] -= 1
        if hub.addresses[addr] <= 0:
            del hub.addresses[addr]
        if conn is not None:
            hub.detach(conn)
            await conn.flush(1.0)


async def _send_direct(ws: WebSocket, frame: dict[str, Any]) -> None:
    """Send one frame now. A client that is already gone is a ``WebSocketDisconnect``: the server
    (uvicorn) reports a send after the connection closed as a ``RuntimeError``, which must not
    escape as an internal error when a client leaves at the wrong moment."""
    if WebSocketState.DISCONNECTED in (ws.client_state, ws.application_state):
        raise WebSocketDisconnect(1006)
    try:
        await ws.send_text(json.dumps(frame, separators=(",", ":")))
    except RuntimeError as exc:
        raise WebSocketDisconnect(1006) from exc


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    """Close with ``code``; nothing to do if the client left first."""
    if WebSocketState.DISCONNECTED in (ws.client_state, ws.application_state):
        return
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        await ws.close(code, reason)


def _count(hub: Hub, frame: dict[str, Any] | None) -> None:
    m = hub.metrics
    if m is None or frame is None:
        return
    if frame.get("type") == "error":
        m.error(str(frame.get("code")))
    elif frame.get("type") == "ack":
        m.acks.inc()


async def _refuse(hub: Hub, ws: WebSocket, frame: dict[str, Any]) -> None:
    _count(hub, frame)
    await _send_direct(ws, frame)


def _check_hello(frame: Any, path_table: str | None) -> tuple[str, str | None, int | None] | dict[str, Any]:
    """The table, token and ``since`` of a well-formed hello, or the error frame that refuses it."""
    if not isinstance(frame, dict) or frame.get("type") != "hello":
        return _bad("bad_hello", "the first frame must be {'type': 'hello', ...}")
    if frame.get("protocol") != PROTOCOL:
        return _bad("bad_hello", f"unsupported protocol {_shown(frame.get('protocol'))}; use {PROTOCOL}")
    table_id, token = frame.get("table"), frame.get("token")
    try:
        since = _check_since(frame.get("since"))
    except ValueError as exc:
        return _bad("bad_hello", str(exc))
    if not isinstance(table_id, str) or (token is not None and not isinstance(token, str)):
        return _bad("bad_hello", "'table' must be text and 'token' text or null")
    if path_table is not None and table_id != path_table:
        return _bad("bad_hello", f"this socket is for table {_shown(path_table, 32)}; say hello to that table")
    return table_id, token, since


async def _admit(hub: Hub, table: LiveTable, token: str | None) -> tuple[int | None, dict[str, Any] | None]:
    """The seat ``token`` holds at ``table`` (``None``: a spectator), or the error frame that refuses it."""
    if token is not None:
        if not is_token(token):
            return None, _bad("unauthorized", f"a seat token is 1 to {TOKEN_MAX} printable ASCII characters")
        try:
            return await hub.find_seat(table, token), None
        except TableError as exc:
            return None, _bad(exc.code, exc.message)
    # A spectator: not at a duplicate round's table still under embargo.
    access = await game_access(hub, status=table.status, options=table.options, seats=(), seat=None)
    if access.watch is not None:
        return None, _bad(access.watch.code, "this round's deal is still being played: watch it later")
    return None, None


async def _welcome(hub: Hub, ws: WebSocket, table: LiveTable, seat: int | None, since: int | None) -> Conn:
    """Answer ``welcome`` and attach the new connection (with the table's chat, when it can be read)."""
    conn = Conn(ws.send_text, seat, since, record=hub.record_frames, write=direct_writer(ws.scope))
    conn.session = ws.cookies.get(COOKIE)
    name = None if seat is None else table.names()[seat]
    history: dict[str, Any] | None = None
    with contextlib.suppress(Exception):  # chat is a nicety: a failed read never blocks the game
        history = await chat_history(hub, table)
    await _send_direct(ws, {"type": "welcome", "protocol": PROTOCOL, "table": table.id, "seat": seat, "name": name})
    # Nothing awaits between attaching and returning: an attached connection is always detached
    # by serve_socket, even when the client leaves at this very moment.
    hub.attach(table, conn)
    if history is not None:
        conn.push(history)
    return conn


async def _hello(hub: Hub, ws: WebSocket, limit: RateLimit, path_table: str | None) -> Conn | None:
    """Read and check the ``hello``; answer ``welcome`` and attach, or refuse without any view."""
    settings = hub.settings
    deadline = time.monotonic() + HELLO_TIMEOUT  # for a good hello, however many bad ones come first
    while True:
        try:
            text = await asyncio.wait_for(_receive_text(ws, settings), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            await _refuse(hub, ws, _bad("bad_hello", "no hello received"))
            await _close(ws, 1008, "no hello")
            return None
        if text is None:
            return None
        if not limit.allow():  # a hello may read the database: failed ones share the frame budget
            if limit.dropped >= settings.rate_close_after:
                await _close(ws, 1008, "rate limit exceeded")
                return None
            continue
        frame, why = parse_frame(text)
        if why is not None:
            await _refuse(hub, ws, _bad("bad_hello", f"the first frame must be a JSON hello object ({why})"))
            continue
        checked = _check_hello(frame, path_table)
        if isinstance(checked, dict):
            await _refuse(hub, ws, checked)
            continue
        table_id, token, since = checked
        # Checked before the database sees them: PostgreSQL refuses NUL.
        table = await hub.get(table_id) if is_table_id(table_id) else None
        if table is None:
            await _refuse(hub, ws, _bad("unknown_table", table_id_problem(table_id)))
            continue
        seat, refusal = await _admit(hub, table, token)
        if refusal is not None:
            await _refuse(hub, ws, refusal)
            continue
        return await _welcome(hub, ws, table, seat, since)


async def _read_loop(hub: Hub, ws: WebSocket, conn: Conn, limit: RateLimit) -> None:
    settings = hub.settings
    while not conn.closed:
        text = await _receive_text(ws, settings)
        if text is None:
            return
        if not limit.allow():
            if limit.dropped >= settings.rate_close_after:
                await _close(ws, 1008, "rate limit exceeded")
                return
            if limit.dropped == 1 or limit.dropped % 10 == 0:
                frame = _bad("rate_limited", "too many frames: slow down")
                _count(hub, frame)
                conn.push(frame)
            continue
        t0 = time.perf_counter()
        reply = await _handle(hub, conn, text)
        if reply is not None:
            _count(hub, reply)
            if reply.get("type") == "ack" and hub.metrics is not None:
                hub.metrics.latency.observe(time.perf_counter() - t0)
            conn.push(reply)


_background: set[asyncio.Task[None]] = set()


async def _hint(hub: Hub, conn: Conn) -> None:
    try:
        reply = await hub.hint(conn)
    except Exception:
        log.exception("hint failed")
        reply = _bad("hint_failed", "the analysis failed; try again")
    _count(hub, reply)
    conn.push(reply)


async def _handle(hub: Hub, conn: Conn, text: str) -> dict[str, Any] | None:
    """One client frame after the hello: the direct answer, if any."""
    frame, why = parse_frame(text)
    if why is not None:
        return _bad("bad_frame", f"not JSON ({why})")
    if not isinstance(frame, dict):
        return _bad("bad_frame", f"a frame must be a JSON object, not {type(frame).__name__}")
    kind = frame.get("type")
    if kind == "move":
        action_id, version, move = frame.get("action_id"), frame.get("version"), frame.get("move")
        if not is_action_id(action_id):
            return _bad("bad_frame", "'action_id' must be 1 to 64 printable characters")
        assert isinstance(action_id, str)
        if type(version) is not int or not 0 <= version < 10**6:
            return {
                **_bad("bad_frame", "'version' must be the state version the move was made against"),
                "action_id": action_id,
            }
        if not isinstance(move, str) or len(move) > 24 or not move.isprintable():
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
    if kind == "chat":
        return await chat(hub, conn, frame.get("text"))
    if kind == "hello":
        return _bad("bad_frame", "already greeted: open a new connection to change seat")
    return _bad("bad_frame", f"unknown frame type {_shown(kind)} (known: move, resync, hint, chat, ping)")
