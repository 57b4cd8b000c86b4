"""The web application: HTTP API, the ``catsack-ws/1`` WebSocket and the browser client.

See ``docs/protocol.md`` for the contract. Build it with :func:`create_app`; the routes live in
:mod:`catsack.server.routes` (one router per concern, each included here with one line).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

import catsack
from catsack.server.budgets import Budgets
from catsack.server.limits import AddressBuckets, HttpGuard
from catsack.server.metrics import Metrics
from catsack.server.people import mail as mailing
from catsack.server.people import push as web_push
from catsack.server.people import reminders, social, vacation
from catsack.server.people.gamesfeed import GamesFeed
from catsack.server.people.push import PushSender
from catsack.server.routes import (
    accounts,
    admin,
    botapi,
    database,
    friends,
    health,
    learn,
    mail,
    mygames,
    pages,
    players,
    push,
    pwa,
    rematch,
    replay,
    rules,
    seats,
    tables,
    tournaments,
    training,
    ws,
)
from catsack.server.routes import vacation as vacation_routes
from catsack.server.settings import Settings
from catsack.server.tables.bus import GameOver, MoveApplied, SeatAbandoned, SeatsChanged, TablesAdopted, TurnToPerson
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import TableError
from catsack.server.tables.lobby import abandon_unjoined
from catsack.server.tables.runtime import GcLog, collect_young, safe_url, setup_logging
from catsack.server.tournaments.runner import sweeper as tournament_sweeper
from catsack.server.web.headers import SecurityHeaders
from catsack.server.web.problems import field_problems

__all__ = ["create_app", "safe_url", "setup_logging"]

log = logging.getLogger("catsack.server")

#: The code answered with a refusal that names none itself (the framework's 404 for an unknown
#: path, 405 for a wrong method…); browsers show ``err.<code>`` from their catalogue.
HTTP_ERROR_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    422: "invalid",
    429: "rate_limited",
    500: "server_error",
    503: "unavailable",
}


#: The routers, one per concern, in the order the app includes them.
ROUTERS = (
    health,
    tables,
    ws,
    pages,
    learn,
    accounts,
    players,
    seats,
    replay,
    rematch,
    rules,
    training,
    mygames,
    friends,
    mail,
    push,
    pwa,
    tournaments,
    admin,
    database,
    vacation_routes,
    botapi,
)


def create_app(
    settings: Settings | None = None, *, hub: Hub | None = None, clock: Callable[[], float] | None = None
) -> FastAPI:
    """The ASGI application. ``settings`` default to the ``CATSACK_*`` environment; ``clock`` (epoch
    seconds) is the security budgets' (:mod:`catsack.server.budgets`; tests pass a fake one)."""
    settings = settings or Settings()
    metrics = Metrics() if settings.metrics else None
    budgets = Budgets.for_settings(settings, clock=clock or time.time)
    app = FastAPI(
        title="catsack",
        version=catsack.__version__,
        summary="Online tables for Felix: The Cat in the Sack",
        description="HTTP API of `catsack serve`. The game itself runs over the `catsack-ws/1` WebSocket at `/ws` "
        "(see docs/protocol.md).",
        lifespan=partial(_lifespan, settings, metrics, hub),
        # The explorer's pages run a CDN's scripts on this origin: only where the operator asks for them.
        docs_url="/docs" if settings.api_docs else None,
        redoc_url="/redoc" if settings.api_docs else None,
    )
    app.state.budgets = budgets
    _error_handlers(app, metrics)
    # Abuse limits before any routing or body parsing.
    buckets = AddressBuckets(settings.http_rate_per_second, settings.http_rate_burst)
    app.add_middleware(
        HttpGuard,
        max_body_bytes=settings.max_body_bytes,
        buckets=buckets,
        proxies=settings.proxy_networks(),
        metrics=metrics,
    )
    # Outside the guard, so that the guard's refusals carry the headers too.
    app.add_middleware(SecurityHeaders)
    # Outermost: a WebSocket's own send, before any middleware wraps it (the direct frame path).
    app.add_middleware(ws.RawSend)
    for module in ROUTERS:
        app.include_router(module.router)
    if pages.STATIC.is_dir():
        app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    return app


@asynccontextmanager
async def _lifespan(settings: Settings, metrics: Metrics | None, hub: Hub | None, app: FastAPI) -> AsyncIterator[None]:
    """The process's life: the hub and its listeners, the senders, the feed and the loops, then their stop."""
    h = hub or Hub(settings)
    app.state.hub = h
    app.state.metrics = metrics
    if metrics is not None:
        h.metrics = metrics
        metrics.bind(h)
    gc_log = GcLog() if settings.gc_log else None
    if gc_log is not None:
        gc.callbacks.append(gc_log)
    # Stale open tables first, so that start-up does not load thousands nobody will ever join.
    await _abandon_stale(h)
    feed = app.state.games_feed = GamesFeed(h)
    subscribe(h, feed)
    pusher = app.state.push_sender = PushSender(h)  # a VAPID key that cannot be used stops here
    await h.start()
    sender = app.state.mail_sender = mailing.MailSender(h)
    sender.start()
    pusher.start()
    await feed.start(settings.redis_url, settings.redis_channel)
    feed.end_on_exit()
    h.loops.start("stale open tables", _lobby_sweeper(h))
    h.loops.start("tournaments", tournament_sweeper(h))
    old_threshold = _tune_gc(settings, metrics, h)
    log.info("server ready", extra={"fields": {"database": safe_url(settings.database_url)}})
    try:
        yield
    finally:
        await h.loops.stop()  # every loop the process runs, the hub's and the app's
        await feed.stop()
        await sender.stop()
        await pusher.stop()
        await h.stop()
        unsubscribe(h)
        gc.set_threshold(*old_threshold)
        if settings.gc_freeze:
            gc.unfreeze()
        if gc_log is not None:
            gc.callbacks.remove(gc_log)


def _tune_gc(settings: Settings, metrics: Metrics | None, hub: Hub) -> tuple[int, int, int]:
    """Set the garbage collector as the settings say (threshold, freeze, timed young collections);
    the threshold it had."""
    old_threshold = gc.get_threshold()
    gc.set_threshold(settings.gc_threshold, old_threshold[1], old_threshold[2])
    if settings.gc_freeze:  # start-up objects (FastAPI, SQLAlchemy, pydantic) never become garbage
        gc.collect()
        gc.freeze()
    if settings.gc_young_interval:
        paused = metrics.gc_paused if metrics is not None else None
        hub.loops.start(
            "garbage collection", collect_young(settings.gc_young_interval, settings.gc_full_seconds, paused)
        )
    return old_threshold


def _error_handlers(app: FastAPI, metrics: Metrics | None) -> None:
    """Every refusal answered alike: ``detail``, ``code`` and its details as ``params``."""

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        if metrics is not None:
            metrics.error(exc.code)
        body: dict[str, object] = {"detail": exc.message, "code": exc.code}
        if exc.params:  # the message's details, for clients that word it in their own language
            body["params"] = exc.params
        return JSONResponse(body, status_code=exc.status, headers=exc.headers or None)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if metrics is not None and exc.status_code >= 400:
            metrics.error(f"http_{exc.status_code}")
        if exc.status_code < 400:
            return await http_exception_handler(request, exc)
        # The framework's own refusals (no such route, wrong method…) carry a code like every other.
        # Refused (routes/deps.py) and the body limit's signal name their code; the rest by status.
        code = getattr(exc, "code", None) or HTTP_ERROR_CODES.get(exc.status_code, "http_error")
        body: dict[str, object] = {"detail": exc.detail, "code": code}
        if params := getattr(exc, "params", None):
            body["params"] = params
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        if metrics is not None:
            metrics.error("bad_request")
        where = [".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body" for e in exc.errors()]
        problems = "; ".join(f"{w}: {e.get('msg')}" for w, e in zip(where, exc.errors(), strict=True))
        body = {
            "detail": problems or "bad request",
            "code": "invalid",
            # Each field's problem as a reason and its numbers, which pages word in their language.
            "params": {"fields": ", ".join(dict.fromkeys(where)), "problems": field_problems(exc.errors())},
        }
        return JSONResponse(body, status_code=422)


def subscribe(hub: Hub, feed: GamesFeed) -> None:
    """Wire what the people side does when something happens at the tables (catsack.server.tables.bus):
    the only place where the tables' events meet their listeners."""
    ev = hub.events
    ev.subscribe(TablesAdopted, partial(mailing.missed_turns, hub))
    ev.subscribe(TurnToPerson, partial(_turn_mail, hub))
    ev.subscribe(GameOver, partial(_game_over, hub))
    ev.subscribe(SeatAbandoned, partial(_seat_abandoned, hub))
    ev.subscribe(TablesAdopted, partial(web_push.missed_turns, hub))  # the pushes a crash lost
    ev.subscribe(SeatAbandoned, partial(web_push.seat_taken, hub))
    ev.subscribe(SeatAbandoned, partial(mailing.seat_taken, hub))
    # A vacation's windows go into the clock before its reminder is queued (catsack.server.people.vacation).
    ev.subscribe(TurnToPerson, partial(vacation.on_turn, hub))
    ev.subscribe(TurnToPerson, partial(reminders.on_turn, hub))
    ev.subscribe(TablesAdopted, partial(vacation.on_adopted, hub))  # the clocks a crash left without them
    ev.subscribe(TablesAdopted, partial(reminders.on_adopted, hub))  # the reminders a crash lost
    ev.subscribe(MoveApplied, feed.moved)
    ev.subscribe(SeatsChanged, feed.seats_changed)


async def _turn_mail(hub: Hub, event: TurnToPerson) -> None:
    await mailing.notify_turn(hub, event.table)


async def _game_over(hub: Hub, event: GameOver) -> None:
    await social.game_over(hub, event.table)  # reputation, rating, tournament: in this order


async def _seat_abandoned(hub: Hub, event: SeatAbandoned) -> None:
    await social.seat_abandoned(hub, event.table, event.seat)


def unsubscribe(hub: Hub) -> None:
    """Undo :func:`subscribe` (a hub may be handed to another app, as tests do)."""
    hub.events.clear()


async def _abandon_stale(hub: Hub) -> None:
    """Mark abandoned the open tables nobody joined within ``evict_open_seconds``,
    and let go of those this process holds with nobody watching."""
    before = time.time() - hub.settings.evict_open_seconds
    try:
        ids = await asyncio.to_thread(abandon_unjoined, hub.store, before)
    except Exception:  # the database is away: the next sweep tries again
        log.exception("lobby sweep failed")
        return
    for table_id in ids:
        table = hub.tables.get(table_id)
        if table is not None and not table.conns:
            hub.evict(table)
    if ids:
        log.info("open tables abandoned", extra={"fields": {"tables": len(ids)}})


async def _lobby_sweeper(hub: Hub) -> None:
    # Often enough that a table outlives evict_open_seconds by at most half of it, at most once a minute.
    interval = max(0.05, min(60.0, hub.settings.evict_open_seconds / 2))
    while True:
        await asyncio.sleep(interval)
        await _abandon_stale(hub)
