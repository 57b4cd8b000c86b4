"""Operational endpoints: liveness (``/health``), readiness (``/ready``) and metrics (``/metrics``)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

import catsack
from catsack.server.metrics import Metrics
from catsack.server.routes.deps import hub_of

__all__ = ["router"]

router = APIRouter()

READY_TIMEOUT = 3.0


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    """Liveness: the process answers (it does not wait on the database or Redis). ``tables``: the
    tables it holds; ``driving``: those whose bots and timers it runs (the rest it relays)."""
    h = hub_of(request)
    return {"status": "ok", "tables": len(h.tables), "driving": h.driving(), "version": catsack.__version__}


@router.get("/ready", responses={503: {"description": "the database (or Redis) cannot be reached"}})
async def ready(request: Request) -> Response:
    """Readiness: the database answers, and Redis too when it is configured; 503 otherwise."""
    h = hub_of(request)
    checks: dict[str, str] = {}
    try:
        await asyncio.wait_for(asyncio.to_thread(h.store.unfinished_ids), READY_TIMEOUT)
        checks["database"] = "ok"
    except Exception as exc:  # any failure means "not ready"; the reason helps the operator
        checks["database"] = f"failed: {type(exc).__name__}"
    if h.settings.redis_url:
        checks["redis"] = await _redis_check(h.settings.redis_url)
    ok = all(v == "ok" for v in checks.values())
    return JSONResponse({"status": "ready" if ok else "not ready", **checks}, status_code=200 if ok else 503)


async def _redis_check(url: str) -> str:
    try:
        import redis.asyncio as aioredis

        client = aioredis.from_url(url, socket_connect_timeout=READY_TIMEOUT, socket_timeout=READY_TIMEOUT)
        try:
            await asyncio.wait_for(client.ping(), READY_TIMEOUT)
        finally:
            await client.aclose()
        return "ok"
    except Exception as exc:
        return f"failed: {type(exc).__name__}"


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    """Prometheus text format (names prefixed ``catsack_``)."""
    m: Metrics | None = getattr(request.app.state, "metrics", None)
    if m is None:
        return JSONResponse(
            {"detail": "metrics are turned off (CATSACK_METRICS=false)", "code": "not_found"}, status_code=404
        )
    body, content_type = m.render()
    return Response(body, media_type=content_type)
