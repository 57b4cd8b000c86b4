"""The web application: HTTP API, the ``catsack-ws/1`` WebSocket and the browser client.

See ``docs/protocol.md`` for the contract. Build it with :func:`create_app`; the routes live in
:mod:`catsack.server.routes` (one router per concern, each included here with one line).
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

import catsack
from catsack.server.hub import Hub, TableError
from catsack.server.routes import health, pages, tables, ws
from catsack.server.runtime import GcLog, collect_young, safe_url, setup_logging
from catsack.server.settings import Settings

__all__ = ["create_app", "safe_url", "setup_logging"]

log = logging.getLogger("catsack.server")


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
            young = asyncio.create_task(collect_young(settings.gc_young_interval, settings.gc_full_seconds))
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

    app.include_router(health.router)
    app.include_router(tables.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    if pages.STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    return app
