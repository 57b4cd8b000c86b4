"""The web application: HTTP API, the ``catsack-ws/1`` WebSocket and the browser client.

See ``docs/protocol.md`` for the contract. Build it with :func:`create_app`.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, field_validator

import catsack
from catsack.record import dumps_record
from catsack.server.hub import BOT_LEVELS, PROTOCOL, Conn, Hub, LiveTable, TableError, iso_time, seat_names
from catsack.server.settings import Settings

__all__ = ["create_app", "safe_url", "setup_logging"]

log = logging.getLogger("catsack.server")

STATIC = Path(str(resources.files("catsack.server"))) / "static"
HELLO_TIMEOUT = 10.0


# ---------------------------------------------------------------------- logging


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class GcLog:
    """Times every garbage-collector pause through ``gc.callbacks`` and logs it."""

    def __init__(self) -> None:
        self.t0 = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.t0 = time.perf_counter()
            return
        ms = (time.perf_counter() - self.t0) * 1000.0
        log.info("gc", extra={"fields": {"gen": info.get("generation"), "ms": round(ms, 3)}})


async def _collect_young(interval: float, full_seconds: float) -> None:
    """Short, frequent young-generation collections instead of rare long ones; the middle generation
    every 10th time, everything every ``full_seconds`` (timed collections never trigger the older
    generations by themselves)."""
    ticks = 0
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(interval)
        ticks += 1
        if time.monotonic() - last_full >= full_seconds:
            gc.collect(2)
            last_full = time.monotonic()
        else:
            gc.collect(1 if ticks % 10 == 0 else 0)


def setup_logging(settings: Settings) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if settings.log_json else logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    )
    logger = logging.getLogger("catsack.server")
    logger.handlers[:] = [handler]
    logger.setLevel(settings.log_level.upper())
    logger.propagate = False


# ---------------------------------------------------------------------- HTTP models


class CreateTable(BaseModel):
    """A new table: seat count, which seats bots fill (seat number -> level), options."""

    model_config = ConfigDict(extra="forbid")

    seats: int = Field(4, ge=3, le=5, description="3 to 5 seats")
    bots: dict[int, str] = Field(default_factory=dict, description=f"seat -> bot level: {', '.join(BOT_LEVELS)}")
    money_visible: bool = Field(False, description="R24 option: everybody's money is public")
    turn_seconds: int | None = Field(None, ge=10, le=3600, description="turn timer; a bot moves when it runs out")
    hints: bool = Field(False, description="players may ask for the strong bot's suggestion")
    name: str = Field("", max_length=40, description="table name shown in the lobby")

    @field_validator("bots")
    @classmethod
    def _levels(cls, v: dict[int, str]) -> dict[int, str]:
        for seat, level in v.items():
            if level not in BOT_LEVELS:
                raise ValueError(f"seat {seat}: unknown bot level {level!r} (choose from {', '.join(BOT_LEVELS)})")
        return v


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., min_length=1, max_length=24, description="the name others see")
    seat: int | None = Field(None, ge=0, le=4, description="a particular open seat; the first open one if omitted")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v or any(not ch.isprintable() for ch in v):
            raise ValueError("a name must be printable text")
        return v


class Joined(BaseModel):
    table: str
    seat: int
    token: str = Field(description="secret seat token: keep it; it is the only way back to this seat")


class PlayerOut(BaseModel):
    seat: int
    name: str | None
    kind: str
    status: str
    replaced: bool


class TableOut(BaseModel):
    table: str
    name: str
    seats: int
    status: str
    version: int
    money_visible: bool
    turn_seconds: int | None
    hints: bool
    created: str | None
    finished: str | None
    players: list[PlayerOut]
    invite: str


def _table_out(t: dict[str, Any]) -> TableOut:
    return TableOut(invite=f"/t/{t['table']}", **t)


# ---------------------------------------------------------------------- app


def create_app(settings: Settings | None = None, *, hub: Hub | None = None) -> FastAPI:
    """The ASGI application. ``settings`` default to the ``CATSACK_*`` environment."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        h = hub or Hub(settings)
        app.state.hub = h
        gc_log = GcLog() if settings.gc_log else None
        if gc_log is not None:
            gc.callbacks.append(gc_log)
        await h.start()
        old_threshold = gc.get_threshold()
        gc.set_threshold(settings.gc_threshold, old_threshold[1], old_threshold[2])
        if settings.gc_freeze:  # start-up objects (FastAPI, SQLAlchemy, pydantic) never become garbage
            gc.collect()
            gc.freeze()
        young = None
        if settings.gc_young_interval:
            young = asyncio.create_task(_collect_young(settings.gc_young_interval, settings.gc_full_seconds))
        log.info("server ready", extra={"fields": {"database": safe_url(settings.database_url)}})
        try:
            yield
        finally:
            if young is not None:
                young.cancel()
            await h.stop()
            gc.set_threshold(*old_threshold)
            if settings.gc_freeze:
                gc.unfreeze()
            if gc_log is not None:
                gc.callbacks.remove(gc_log)

    app = FastAPI(
        title="catsack",
        version=catsack.__version__,
        summary="Online tables for Felix: The Cat in the Sack",
        description="HTTP API of `catsack serve`. The game itself runs over the `catsack-ws/1` WebSocket at `/ws` "
        "(see docs/protocol.md).",
        lifespan=lifespan,
    )

    def the_hub(request: Request) -> Hub:
        h: Hub = request.app.state.hub
        return h

    async def live(request: Request, table_id: str) -> LiveTable:
        table = await the_hub(request).get(table_id)
        if table is None:
            raise HTTPException(404, f"no table {table_id!r}")
        return table

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse({"detail": exc.message, "code": exc.code}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: {e.get('msg')}"
            for e in exc.errors()
        )
        return JSONResponse({"detail": problems or "bad request"}, status_code=422)

    @app.get("/health")
    async def health(request: Request) -> dict[str, Any]:
        """Liveness: the process answers and reaches its database."""
        h = the_hub(request)
        await asyncio.to_thread(h.store.unfinished_ids)
        return {"status": "ok", "tables": len(h.tables), "version": catsack.__version__}

    @app.post("/api/tables", status_code=201, response_model=TableOut)
    async def create_table(request: Request, body: CreateTable) -> TableOut:
        """Create a table; seats not given a bot wait for people to join."""
        table = await the_hub(request).create(
            body.seats,
            body.bots,
            name=body.name.strip() or "Table",
            money_visible=body.money_visible,
            turn_seconds=body.turn_seconds,
            hints=body.hints,
        )
        return _table_out(table.public())

    @app.get("/api/tables", response_model=list[TableOut])
    async def open_tables(request: Request) -> list[TableOut]:
        """Tables with an empty seat, newest first."""
        h = the_hub(request)
        rows = await asyncio.to_thread(h.store.list_tables, "open", 100)
        out = []
        for row, _seats in rows:
            table = await h.get(row.id)
            if table is not None and table.status == "open":
                out.append(_table_out(table.public()))
        return out

    @app.get("/api/tables/finished", response_model=list[TableOut])
    async def finished_tables(request: Request, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[TableOut]:
        """Finished games, newest first; their records can be downloaded."""
        h = the_hub(request)
        rows = await asyncio.to_thread(h.store.list_tables, "over", limit)
        out = []
        for row, seats in rows:
            names = seat_names(seats)
            players = [
                PlayerOut(
                    seat=s.seat,
                    name=None if s.kind == "open" else names[s.seat],
                    kind=s.kind,
                    status="bot" if s.kind == "bot" else "away",
                    replaced=s.replaced,
                )
                for s in seats
            ]
            out.append(
                TableOut(
                    table=row.id,
                    name=row.name,
                    seats=row.seats,
                    status=row.status,
                    version=row.version,
                    money_visible=bool(row.options.get("money_visible")),
                    turn_seconds=row.options.get("turn_seconds"),
                    hints=bool(row.options.get("hints")),
                    created=iso_time(row.created),
                    finished=iso_time(row.finished),
                    players=players,
                    invite=f"/t/{row.id}",
                )
            )
        return out

    @app.get("/api/tables/{table_id}", response_model=TableOut)
    async def get_table(request: Request, table_id: str) -> TableOut:
        return _table_out((await live(request, table_id)).public())

    @app.post("/api/tables/{table_id}/join", response_model=Joined)
    async def join_table(request: Request, table_id: str, body: JoinTable) -> Joined:
        """Take a seat. The answer's token is the seat's secret: keep it."""
        table = await live(request, table_id)
        seat, token = await the_hub(request).join(table, body.name, body.seat)
        return Joined(table=table.id, seat=seat, token=token)

    @app.get("/api/tables/{table_id}/state")
    async def table_state(
        request: Request,
        table_id: str,
        authorization: Annotated[str | None, Header(description="Bearer <seat token>; omit to spectate")] = None,
    ) -> Response:
        """A snapshot ``state`` frame, as the WebSocket sends it: the seat's view with its token,
        the public (spectator) view without one."""
        table = await live(request, table_id)
        token = (authorization or "").removeprefix("Bearer ").strip()
        seat = the_hub(request).seat_for_token(table, token) if token else None
        return Response(table.state_text(seat, None), media_type="application/json")

    @app.get("/api/tables/{table_id}/record", responses={200: {"content": {"application/json": {}}}})
    async def full_record(request: Request, table_id: str) -> Response:
        """The full catsack/1 record, once the game is over."""
        table = await live(request, table_id)
        if not table.game.is_over:
            raise HTTPException(409, "the game is not over: only a seat's redacted record can be downloaded")
        return _record_response(dumps_record(table.record()), f"catsack-{table.id}.json")

    @app.get("/api/tables/{table_id}/record/{seat}", responses={200: {"content": {"application/json": {}}}})
    async def seat_record(
        request: Request,
        table_id: str,
        seat: int,
        authorization: Annotated[str | None, Header(description="Bearer <seat token>")] = None,
    ) -> Response:
        """That seat's record with everything R23 hides from it removed; needs the seat's token."""
        table = await live(request, table_id)
        token = (authorization or "").removeprefix("Bearer ").strip()
        if not token:
            raise HTTPException(401, "send the seat token as 'Authorization: Bearer <token>'")
        held = the_hub(request).seat_for_token(table, token)
        if held != seat:
            raise HTTPException(403, f"this token does not hold seat {seat}")
        return _record_response(dumps_record(table.record(seat)), f"catsack-{table.id}-seat{seat}.json")

    @app.websocket("/ws")
    async def websocket(ws: WebSocket) -> None:
        await serve_socket(the_hub_ws(ws), ws)

    def the_hub_ws(ws: WebSocket) -> Hub:
        h: Hub = ws.app.state.hub
        return h

    if STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def lobby() -> Response:
        return _page("index.html")

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> Response:
        return _page("table.html")

    return app


def _page(name: str) -> Response:
    path = STATIC / name
    if not path.is_file():
        return JSONResponse({"detail": "the browser client is not installed"}, status_code=404)
    return FileResponse(path, media_type="text/html")


def _record_response(text: str, filename: str) -> Response:
    return Response(
        text, media_type="application/json", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


def safe_url(url: str) -> str:
    """The database URL without a password, for logs."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


# ---------------------------------------------------------------------- WebSocket


class RateLimit:
    """A token bucket per connection (checklist 14)."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.rate = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.t = time.monotonic()
        self.dropped = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.dropped += 1
        return False


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
