"""The browser client's pages: the lobby and a table's page (static files under ``static/``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

__all__ = ["STATIC", "page", "router"]

STATIC = Path(str(resources.files("catsack.server"))) / "static"

router = APIRouter(include_in_schema=False)


def page(name: str) -> Response:
    """A static HTML page, or a JSON 404 when the browser client is not installed."""
    path = STATIC / name
    if not path.is_file():
        return JSONResponse({"detail": "the browser client is not installed", "code": "not_found"}, status_code=404)
    return FileResponse(path, media_type="text/html")


@router.get("/")
async def lobby() -> Response:
    return page("index.html")


@router.get("/t/{table_id}")
async def table_page(table_id: str) -> Response:
    return page("table.html")
