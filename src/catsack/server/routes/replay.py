"""Replays and post-game analysis: the replay page, its data, record uploads, analyses.

Who may see what (R23), as :mod:`catsack.server.people.gameaccess` decides for every route: a finished game
from every perspective, everything included; an unfinished table only from the seat whose token is
sent, and only that seat's views (what it was shown while playing). Analyses only once the game is
over. A finished private game only to its own players (its seat token, or an account bound to a
seat), and a duplicate tournament round's tables to nobody but each seat's own player until the round
is scored. An uploaded full record shows everything (its sender holds it all anyway); a redacted one
only its seat's views. A finished game's replay is answered from its cache before the game is
rebuilt, and replays are expensive reads (budgeted per address).
"""

from __future__ import annotations

import asyncio
import bisect
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

import orjson
from cachetools import LRUCache
from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select

from catsack.errors import CatsackError
from catsack.game import Game
from catsack.record import Record, loads_record
from catsack.server.limits import scope_address
from catsack.server.people.analysis_jobs import AnalysisJobs
from catsack.server.people.chat import ChatLog
from catsack.server.people.replay import ALL, Perspective, available_perspectives, record_game, replay_payload
from catsack.server.routes.access import expensive_read, must_read, table_access, token_seat
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.storage.store import SeatRow, Store, TableRow, actions_t
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.live import seat_names, stored_game, stored_record

__all__ = ["MAX_UPLOAD_BYTES", "ReplayCache", "router"]

#: Largest record upload accepted. A whole 5-seat game's record is about 6 KiB.
MAX_UPLOAD_BYTES = 64 * 1024
#: Finished games' replays kept encoded (a finished game never changes; one is 0.2-0.4 MB).
CACHED_REPLAYS = 24


class ReplayCache:
    """The encoded replays of finished games, most recently used last."""

    def __init__(self, size: int = CACHED_REPLAYS) -> None:
        self.size = size
        self.items: LRUCache[tuple[str, Perspective], bytes] = LRUCache(maxsize=size)

    def get(self, key: tuple[str, Perspective]) -> bytes | None:
        return self.items.get(key)

    def put(self, key: tuple[str, Perspective], value: bytes) -> None:
        self.items[key] = value


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    jobs = AnalysisJobs(app.state.hub)
    app.state.analysis_jobs = jobs
    app.state.replay_cache = ReplayCache()
    # Building a replay is ~0.1 s of Python in a thread, which shares the GIL with the event loop:
    # one at a time keeps live tables responsive however many replays are asked for.
    app.state.replay_builds = asyncio.Semaphore(1)
    try:
        yield
    finally:
        await jobs.stop()


router = APIRouter(lifespan=_lifespan)


def jobs_of(request: Request) -> AnalysisJobs:
    jobs: AnalysisJobs = request.app.state.analysis_jobs
    return jobs


def _json(obj: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(obj), status_code=status, media_type="application/json")


# ---------------------------------------------------------------------- pages


@router.get("/replay", include_in_schema=False)
async def upload_page() -> Response:
    return page("replay.html")


@router.get("/replay/{table_id}", include_in_schema=False)
async def replay_page(table_id: str) -> Response:
    return page("replay.html")


# ---------------------------------------------------------------------- loading


def _load_game(store: Store, table_id: str) -> tuple[TableRow, list[SeatRow], Game] | None:
    loaded = store.load(table_id)
    if loaded is None or loaded[0].status == "abandoned":
        return None
    row, seats, actions = loaded
    game = stored_game(row, actions)
    return row, seats, game


async def _table_game(request: Request, table_id: str) -> tuple[TableRow, list[SeatRow], Game]:
    """The table's game rebuilt from the database; the caller has asked :func:`table_access` first."""
    if not 1 <= len(table_id) <= 32:
        raise Refused("unknown_table", f"no table {table_id[:40]!r}", 404)
    found = await asyncio.to_thread(_load_game, hub_of(request).store, table_id)
    if found is None:
        raise Refused("unknown_table", f"no table {table_id!r}", 404)
    return found


def _load_rows(store: Store, table_id: str) -> tuple[TableRow, list[SeatRow]] | None:
    row = store.table(table_id)
    if row is None or row.status == "abandoned":
        return None
    return row, store.seats(table_id)


async def _table_rows(request: Request, table_id: str) -> tuple[TableRow, list[SeatRow]]:
    """The table's row and seats without its game (two small reads, no replay)."""
    found = None
    if 1 <= len(table_id) <= 32:
        found = await asyncio.to_thread(_load_rows, hub_of(request).store, table_id)
    if found is None:
        raise Refused("unknown_table", f"no table {table_id[:40]!r}", 404)
    return found


def _bearer(authorization: str | None) -> str:
    return (authorization or "").removeprefix("Bearer ").strip()


def table_chat(store: Store, table_id: str) -> list[dict[str, Any]]:
    """The table's chat (public), each message with ``ply``: the number of moves made when
    it was sent, so the replay shows it at the right moment."""
    messages = ChatLog(store.engine).messages_with_times(table_id, limit=1000)
    with store.engine.connect() as conn:
        times = list(
            conn.execute(
                select(actions_t.c.created).where(actions_t.c.table_id == table_id).order_by(actions_t.c.version)
            ).scalars()
        )
    for m in messages:
        sent = m.pop("created")
        m["ply"] = bisect.bisect_right(times, sent)
    return messages


def _token_seat(seats: list[SeatRow], authorization: str | None) -> int | None:
    """The seat the bearer token holds; ``None`` without a token; 403 for a token that holds none."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    if not token:
        return None
    h = hash_token(token)
    for s in seats:
        if s.kind == "human" and s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
            return s.seat
    raise Refused("unauthorized", "this token holds no seat at this table", 403)


def _perspective(text: str | None, allowed: list[Perspective]) -> Perspective:
    if text is None:
        return allowed[0]
    chosen: Perspective = ALL if text == ALL else -1
    if chosen != ALL:
        try:
            chosen = int(text)
        except ValueError:
            raise Refused(
                "bad_perspective", f"perspective must be 'all' or a seat number, not {text[:20]!r}", 422
            ) from None
    if chosen not in allowed:
        shown = ", ".join(str(p) for p in allowed)
        raise Refused("perspective_closed", f"perspective {text[:20]!r} is not open to you (open: {shown})", 403)
    return chosen


# ---------------------------------------------------------------------- replay data


@router.get("/api/tables/{table_id}/replay", dependencies=[Depends(expensive_read)])
async def table_replay(
    request: Request,
    table_id: str,
    perspective: Annotated[str | None, Query(description="'all' or a seat number (0-based)")] = None,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>; needed before the end")] = None,
) -> Response:
    """Every frame of a table's game from one perspective (see docs/protocol.md, "Replays")."""
    row, seats = await _table_rows(request, table_id)
    over = row.status == "over"
    token = _bearer(authorization)
    holder = token_seat(seats, token) if over else _token_seat(seats, authorization)
    access = await table_access(request, status=row.status, options=row.options, seats=seats, seat=holder)
    refusal = access.whole
    if refusal is None:  # every perspective, for everyone who may read the game (no token needed)
        allowed = available_perspectives(row.seats, full=True)
    elif access.seat is not None:  # a seat's own perspective is always its player's
        allowed = available_perspectives(row.seats, full=False, only=access.seat)
    elif over or access.closed:
        raise refusal
    else:
        raise Refused(
            "replay_not_over",
            "the game is not over: only a seat's own replay is available, with its token (Authorization: Bearer)",
            409,
        )
    chosen = _perspective(perspective, allowed)
    cache: ReplayCache = request.app.state.replay_cache
    whole = over and access.whole is None
    if whole and (hit := cache.get((row.id, chosen))) is not None:  # before any rebuilding
        return Response(hit, media_type="application/json")
    row, seats, game = await _table_game(request, table_id)
    if game.is_over != over:  # it ended meanwhile: ask again
        raise Refused("stale", "the game changed while its replay was asked for: try again", 409)

    def build() -> bytes:
        payload = replay_payload(
            game,
            chosen,
            names=seat_names(seats),
            money_visible=bool(row.options.get("money_visible")) or game.is_over,
            perspectives=allowed,
            table=row.id,
            title=row.name,
        )
        payload["chat"] = table_chat(hub_of(request).store, row.id)
        return orjson.dumps(payload)

    async with request.app.state.replay_builds:
        body = await asyncio.to_thread(build)
    if whole and game.is_over:  # only what everyone who may read the game gets
        cache.put((row.id, chosen), body)
    return Response(body, media_type="application/json")


async def _read_capped(request: Request, cap: int) -> bytes:
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > cap:
        raise Refused(
            "record_too_large", f"a record file may be at most {cap // 1024} KiB", 413, params={"kib": cap // 1024}
        )
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > cap:
            raise Refused(
                "record_too_large", f"a record file may be at most {cap // 1024} KiB", 413, params={"kib": cap // 1024}
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _upload_payload(record: Record, text: str | None) -> dict[str, Any]:
    game, only = record_game(record)
    allowed = available_perspectives(record.seats, full=only is None, only=only)
    chosen = _perspective(text, allowed)
    names = record.players or [f"Seat {i + 1}" for i in range(record.seats)]
    title = str(record.extra.get("event") or record.source or "Uploaded game")[:80]
    return replay_payload(
        game,
        chosen,
        names=list(names),
        money_visible=only is None,
        perspectives=allowed,
        title=title,
        extra={"redacted_for": only},
    )


@router.post("/api/replay")
async def upload_replay(
    request: Request,
    perspective: Annotated[str | None, Query(description="'all' or a seat number (0-based)")] = None,
    name: Annotated[str, Query(max_length=100, description="the file's name, for error messages")] = "your file",
) -> Response:
    """Replay a ``catsack/1`` record sent as the request body (at most 64 KiB). A bad record is
    answered 422 with the record loader's message."""
    body = await _read_capped(request, MAX_UPLOAD_BYTES)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(
            "record_not_text", f"{name}: not UTF-8 text (a catsack/1 record is JSON)", 422, params={"file": name}
        ) from None
    try:
        record = loads_record(text, source=name)
        async with request.app.state.replay_builds:
            payload = await asyncio.to_thread(_upload_payload, record, perspective)
    except CatsackError as exc:
        raise Refused("bad_record", str(exc), 422, params={"file": name}) from None
    return _json(payload)


# ---------------------------------------------------------------------- analysis


class AnalysisRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seat: int = Field(..., ge=0, le=4, description="the seat whose decisions to analyse")


def _check_seat(row: TableRow, seat: int) -> None:
    if row.status != "over":
        raise Refused("not_over", "analyses are available once the game is over", 409)
    if not 0 <= seat < row.seats:
        raise Refused(
            "no_such_seat",
            f"no seat {seat} at a {row.seats}-seat table (seats are 0 to {row.seats - 1})",
            422,
            params={"n": seat + 1, "seats": row.seats},
        )


@router.post("/api/tables/{table_id}/analysis")
async def start_analysis(
    request: Request,
    table_id: str,
    body: AnalysisRequest,
    authorization: Annotated[str | None, Header(description="Bearer <seat token>: a private game's player")] = None,
) -> Response:
    """Start the analysis of one seat of a finished game, or answer its progress or stored result."""
    row, seats = await _table_rows(request, table_id)
    _check_seat(row, body.seat)
    await must_read(request, row, seats, _bearer(authorization))
    row, seats, game = await _table_game(request, table_id)
    record = stored_record(row, seats, game)
    address = scope_address(request.scope, hub_of(request).settings.proxy_networks())
    answer = await jobs_of(request).request(row.id, body.seat, record, address)
    return _json(answer, 202 if answer["status"] == "running" else 200)


@router.get("/api/tables/{table_id}/analysis")
async def get_analysis(
    request: Request,
    table_id: str,
    seat: Annotated[int, Query(ge=0, le=4)],
    authorization: Annotated[str | None, Header(description="Bearer <seat token>: a private game's player")] = None,
) -> Response:
    """An analysis' progress (``running``, ``done``/``total``) or its result; ``none`` if never started."""
    row, seats = await _table_rows(request, table_id)  # no replay: this is polled while an analysis runs
    _check_seat(row, seat)
    await must_read(request, row, seats, _bearer(authorization))
    return _json(await jobs_of(request).status(row.id, seat))
