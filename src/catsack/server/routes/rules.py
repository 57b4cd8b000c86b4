"""The "How to play" page (``GET /rules``) and its card pictures, from the package's rules texts.

The language is ``?lang=`` if given, else the ``catsack_lang`` cookie the
browser client sets, else the best of Accept-Language, else English. The page
is complete HTML that needs no script (:mod:`catsack.rulebook.page`).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from catsack.rulebook import choose_language, image
from catsack.rulebook.page import render_page

__all__ = ["LANG_COOKIE", "router"]

LANG_COOKIE = "catsack_lang"

router = APIRouter(include_in_schema=False)


@router.get("/rules")
async def rules_page(request: Request, lang: str | None = None) -> HTMLResponse:
    chosen = choose_language(lang, request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
    return HTMLResponse(
        render_page(chosen),
        headers={
            "Content-Language": chosen,
            # The answer depends on these request headers; caches must not mix languages.
            "Vary": "Accept-Language, Cookie",
            "Cache-Control": "no-cache",
        },
    )


@router.get("/rules/img/{lang}/{name}")
async def rules_image(lang: str, name: str) -> Response:
    data = image(lang, name)
    if data is None:
        return JSONResponse({"detail": f"no card picture {lang}/{name}", "code": "not_found"}, status_code=404)
    return Response(data, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})
