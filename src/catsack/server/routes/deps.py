"""What several routers share: the hub of the running app and the live table behind ``{table_id}``."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import HTTPException, Request, WebSocket
from fastapi.responses import Response

from catsack.server.budgets import Budgets
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import LiveTable, TableError
from catsack.server.validate import TOKEN_MAX, is_table_id, is_token, table_id_problem

__all__ = ["Refused", "bearer_token", "budgets_of", "hub_of", "live_table", "record_response", "ws_hub"]


def hub_of(request: Request) -> Hub:
    h: Hub = request.app.state.hub
    return h


def budgets_of(request: Request) -> Budgets:
    """The app's security budgets (:mod:`catsack.server.budgets`)."""
    b: Budgets = request.app.state.budgets
    return b


def ws_hub(ws: WebSocket) -> Hub:
    h: Hub = ws.app.state.hub
    return h


class Refused(HTTPException):
    """An HTTP refusal with a stable ``code`` (and the message's details as ``params``), answered as
    ``{"detail": message, "code": code, "params": {...}}`` so that browsers word it in their own
    language (``err.<code>`` catalogue keys); counted in the metrics by HTTP status like any other."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        *,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(status, message, dict(headers) if headers else None)
        self.code = code
        self.params = dict(params or {})


async def live_table(request: Request, table_id: str) -> LiveTable:
    """The table behind a ``{table_id}`` path, or 404. An id that the server could not have made
    (NUL, control characters, too long) never reaches the database."""
    table = await hub_of(request).get(table_id) if is_table_id(table_id) else None
    if table is None:
        raise Refused("unknown_table", table_id_problem(table_id), 404)
    return table


def bearer_token(authorization: str | None) -> str:
    """The seat token of an ``Authorization: Bearer <token>`` header ('' when absent); a value that
    cannot be a token is refused with 401 before any lookup."""
    token = (authorization or "").removeprefix("Bearer ").strip()
    if token and not is_token(token):
        raise TableError("unauthorized", f"a seat token is 1 to {TOKEN_MAX} printable ASCII characters", 401)
    return token


def record_response(text: str, filename: str) -> Response:
    return Response(
        text, media_type="application/json", headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )
