"""The game database over HTTP (docs/database.md): the dumps' page and their listing, each month's dump, and
the explorer's page and figures.

Every dump holds only what :mod:`catsack.server.people.gamedb` lets in (finished public games, a duplicate round's
once it is scored), so these routes answer everyone alike and need no token. A dump is named by its month in
its address (``/api/database/catsack-2026-11.jsonl.gz``); its ``ETag`` is its SHA-256 (as is ``Repr-Digest``),
a complete month's file is answered with ranges and a day's caching, the current month streamed from its days.
Each request spends a token of the expensive reads' budget (:func:`~catsack.server.routes.access.expensive_read`).
"""

from __future__ import annotations

import base64
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Depends, FastAPI, Header, Request
from fastapi.responses import FileResponse, Response, StreamingResponse

from catsack.server.people import explorer
from catsack.server.people.gamedb import FORMAT, Dump, GameDatabase, MonthError, chunks, parse_month
from catsack.server.routes.access import expensive_read
from catsack.server.routes.deps import Refused, hub_of
from catsack.server.routes.pages import page
from catsack.server.tables.live import iso_time

__all__ = ["database_of", "router"]

#: How long a browser or proxy may keep a complete month's dump without asking again (it never changes).
COMPLETE_MAX_AGE = 86400


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    try:
        yield
    finally:
        made: str | None = getattr(app.state, "gamedb_tmp", None)
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)


router = APIRouter(lifespan=_lifespan)


def database_of(request: Request) -> GameDatabase:
    """The app's game database, made on first use in ``CATSACK_GAMEDB_DIR`` (else a temporary folder of this
    process, removed when it stops)."""
    found: GameDatabase | None = getattr(request.app.state, "gamedb", None)
    if found is None:
        hub = hub_of(request)
        folder = hub.settings.gamedb_dir
        if not folder:
            folder = request.app.state.gamedb_tmp = tempfile.mkdtemp(prefix="catsack-gamedb-")
        found = request.app.state.gamedb = GameDatabase(hub, Path(folder))
    return found


# ---------------------------------------------------------------------- pages


@router.get("/database", include_in_schema=False)
async def database_page() -> Response:
    return page("database.html")


@router.get("/database/explorer", include_in_schema=False)
async def explorer_page() -> Response:
    return page("explorer.html")


# ---------------------------------------------------------------------- data


@router.get("/api/database", dependencies=[Depends(expensive_read)])
async def listing(request: Request) -> Response:
    """The dumps, newest first: each month's file, address, games, size in bytes, SHA-256 and whether it is
    complete (the current month grows until it ends)."""
    found = await database_of(request).listing()
    body = {
        "format": FORMAT,
        "updated": iso_time(found.at),
        "games": found.games,
        "dumps": [d.public() for d in reversed(found.dumps)],
    }
    return _json(body)


@router.get("/api/database/explorer", dependencies=[Depends(expensive_read)])
async def figures(request: Request) -> Response:
    """The explorer's figures over every dumped game: per table size and card shown first in round 1 (R11),
    the games, the void rounds and, per kind of buyer, the price, the kept points and the net
    (:mod:`catsack.server.people.explorer`)."""
    found = await database_of(request).listing()
    body = {
        "format": explorer.FORMAT,
        "updated": iso_time(found.at),
        "games": found.tally.games,
        "groups": found.tally.summary(),
    }
    return _json(body)


@router.get(
    "/api/database/catsack-{month}.jsonl.gz",
    responses={
        200: {"content": {"application/gzip": {}}, "description": "the month's games, one catsack/1 record a line"},
        304: {"description": "the dump has not changed (If-None-Match)"},
        404: {"description": "no dump for that month"},
        422: {"description": "not a month (YYYY-MM)"},
    },
    dependencies=[Depends(expensive_read)],
)
async def download(
    request: Request,
    month: str,
    if_none_match: Annotated[str | None, Header(description="an ETag from an earlier answer")] = None,
) -> Response:
    """A month's dump: gzip-compressed JSON lines of ``catsack/1`` records (docs/database.md)."""
    try:
        parse_month(month)
    except MonthError as exc:
        raise Refused("bad_month", str(exc), 422, params={"month": month[:20]}) from None
    db = database_of(request)
    dump = await db.dump(month)
    if dump is None:
        held = (await db.listing()).dumps
        first, last = held[0].month, held[-1].month
        raise Refused(
            "no_dump",
            f"no dump for {month}: the database holds {first} to {last} (months without games left out)",
            404,
            params={"month": month, "first": first, "last": last},
        )
    headers = _headers(dump)
    if if_none_match is not None and _matches(if_none_match, headers["ETag"]):
        return Response(status_code=304, headers=headers)
    try:
        return _file(dump, headers)
    except FileNotFoundError:  # another process wrote the month whole meanwhile (or a file was removed)
        dump = await db.dump(month, again=True)
        if dump is None:
            raise Refused("no_dump", f"no dump for {month}", 404, params={"month": month}) from None
        return _file(dump, _headers(dump))


def _file(dump: Dump, headers: dict[str, str]) -> Response:
    """The dump's bytes: a complete month's file as it is (ranges, a day's caching), else streamed from its
    days, each file opened before the answer starts (:class:`FileNotFoundError` if one went)."""
    if dump.complete and dump.path is not None:
        if not dump.path.is_file():
            raise FileNotFoundError(dump.path)
        return FileResponse(dump.path, media_type="application/gzip", filename=dump.name, headers=headers)
    parts = dump.open()
    headers = {**headers, "Content-Length": str(dump.size)}
    headers["Content-Disposition"] = f'attachment; filename="{dump.name}"'
    return StreamingResponse(chunks(parts), media_type="application/gzip", headers=headers)


def _headers(dump: Dump) -> dict[str, str]:
    digest = base64.b64encode(bytes.fromhex(dump.sha256)).decode("ascii")
    cache = f"public, max-age={COMPLETE_MAX_AGE}" if dump.complete else "no-cache"
    return {"ETag": f'"{dump.sha256}"', "Repr-Digest": f"sha-256=:{digest}:", "Cache-Control": cache}


def _matches(if_none_match: str, etag: str) -> bool:
    asked = [t.strip().removeprefix("W/") for t in if_none_match[:2000].split(",")]
    return "*" in asked or etag in asked


def _json(body: Any) -> Response:
    return Response(orjson.dumps(body), media_type="application/json", headers={"Cache-Control": "no-cache"})
