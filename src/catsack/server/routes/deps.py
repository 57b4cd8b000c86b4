"""What several routers share: the hub of the running app and the live table behind ``{table_id}``."""

from __future__ import annotations

from fastapi import HTTPException, Request, WebSocket
from fastapi.responses import Response

from catsack.server.hub import Hub, LiveTable

__all__ = ["hub_of", "live_table", "record_response", "ws_hub"]


def hub_of(request: Request) -> Hub:
    h: Hub = request.app.state.hub
    return h


def ws_hub(ws: WebSocket) -> Hub:
    h: Hub = ws.app.state.hub
    return h


async def live_table(request: Request, table_id: str) -> LiveTable:
    table = await hub_of(request).get(table_id)
    if table is None:
        raise HTTPException(404, f"no table {table_id!r}")
    return table


def record_response(text: str, filename: str) -> Response:
    return Response(
        text, media_type="application/json", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
