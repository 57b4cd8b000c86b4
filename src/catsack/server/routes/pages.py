"""The browser client's pages: the lobby and a table's page (static files under ``static/``), and the
list of languages every page reads before it loads its catalogue (:mod:`catsack.locales`)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from catsack.locales import DEFAULT_LANGUAGE, LANGUAGES, negotiate

__all__ = ["LANG_COOKIE", "STATIC", "catalogue_path", "page", "router"]

STATIC = Path(str(resources.files("catsack.server"))) / "static"

router = APIRouter(include_in_schema=False)
#: The cookie in which pages keep the reader's chosen language (i18n.js sets it).
LANG_COOKIE = "catsack_lang"


def catalogue_path(lang: str) -> Path:
    """The browser's catalogue of ``lang`` (one of :data:`catsack.locales.LANGUAGES`)."""
    return STATIC / "i18n" / f"{lang}.json"


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


@router.get("/i18n/languages.json")
async def languages(request: Request) -> Response:
    """Every language a page can be read in, with its name, the default, and the one this reader's
    cookie or Accept-Language picks (a page's ``?lang=`` and remembered choice come first)."""
    chosen = negotiate(None, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
    body = {
        "languages": [{"code": code, "name": name} for code, name in LANGUAGES.items()],
        "default": DEFAULT_LANGUAGE,
        "chosen": chosen,
    }
    # The answer depends on these request headers: caches must not hand one reader's choice to another.
    return JSONResponse(body, headers={"Cache-Control": "no-cache", "Vary": "Cookie, Accept-Language"})
