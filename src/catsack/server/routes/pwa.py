"""The installable web app: its manifest, the service worker (at the site's root, so it serves every
page) and the page shown offline. The service worker keeps the rules in both languages, the offline
page and the site's styles, so the rules stay readable without a connection."""

from __future__ import annotations

import json
import re

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from catsack.rulebook import LANGUAGES, source
from catsack.server.routes.pages import STATIC, page

__all__ = ["MANIFEST", "router"]

router = APIRouter(include_in_schema=False)

MANIFEST = {
    "name": "catsack: Felix, the Cat in the Sack",
    "short_name": "catsack",
    "description": "Play Felix: The Cat in the Sack online, live or over days.",
    "id": "/",
    "start_url": "/games",
    "scope": "/",
    "display": "standalone",
    "background_color": "#f6f1e7",
    "theme_color": "#1f5c3a",
    "icons": [
        {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png"},
        {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png"},
        {"src": "/static/icon-maskable-512.png", "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        {"src": "/static/favicon.svg", "sizes": "any", "type": "image/svg+xml"},
    ],
}


@router.get("/manifest.webmanifest")
async def manifest() -> Response:
    return JSONResponse(MANIFEST, media_type="application/manifest+json", headers={"Cache-Control": "no-cache"})


@router.get("/sw.js")
async def service_worker() -> Response:
    """The service worker, with the card pictures of the rules listed for its cache."""
    path = STATIC / "sw.js"
    if not path.is_file():
        return JSONResponse({"detail": "the browser client is not installed", "code": "not_found"}, status_code=404)
    pictures = [
        f"/rules/img/{lang}/{name}"
        for lang in LANGUAGES
        for name in sorted(set(re.findall(r"card-[A-Za-z0-9]+\.svg", source(lang))))
    ]
    text = path.read_text(encoding="utf-8").replace("/*RULES_PICTURES*/[]", json.dumps(pictures))
    text = text.replace('/*RULES_LANGUAGES*/["en"]', json.dumps(list(LANGUAGES)))
    return Response(
        text,
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


@router.get("/offline")
async def offline() -> Response:
    return page("offline.html")
