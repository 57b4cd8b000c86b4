"""Operational endpoints: liveness."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

import catsack
from catsack.server.routes.deps import hub_of

__all__ = ["router"]

router = APIRouter()


@router.get("/health")
async def health(request: Request) -> dict[str, Any]:
    """Liveness: the process answers and reaches its database."""
    h = hub_of(request)
    await asyncio.to_thread(h.store.unfinished_ids)
    return {"status": "ok", "tables": len(h.tables), "version": catsack.__version__}
