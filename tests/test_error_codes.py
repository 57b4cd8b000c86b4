"""Every refusal the server can send is worded in the page's language.

The server refuses with a stable code and an English message (HTTP: ``{"detail", "code", "params"}``;
WebSocket: ``{"type": "error", "code", "message"}``); the browser shows the catalogue's ``err.<code>``
(static/i18n.js ``errorText``). The first test reads the server's sources for every code it can send and
fails on one that lacks an ``err.`` key in either catalogue, so a new refusal cannot reach a German page
in English. The others check the answers' codes and params on a running app (no browser).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from browser_i18n import CATALOGUES

SERVER = Path(__file__).resolve().parents[1] / "src" / "catsack" / "server"

# Where a code is written in the server's sources: the refusal classes (code first), the WebSocket's error
# frames, the HTTP guard's answers, the hub's (code, message) pairs from a move's commit, and JSON bodies.
_PATTERNS = [
    r'\b(?:TableError|AccountError|Refused)\(\s*"(\w+)"',
    r'\berror_frame\(\s*"(\w+)"',
    r'\b_bad\(\s*"(\w+)"',
    r'"type":\s*"error",\s*"code":\s*"(\w+)"',
    r'\b_answer\(\s*send,\s*\d+,\s*[^,]+,\s*"(\w+)"',
    r'\breturn \(\s*"(\w+)",',
    r'"detail":[^\n]*?"code":\s*"(\w+)"',
    r'\bself\.code = "(\w+)"',
]


def server_codes() -> dict[str, set[str]]:
    """Every error code written in src/catsack/server/, with the files that send it."""
    found: dict[str, set[str]] = {}
    for path in SERVER.rglob("*.py"):
        text = path.read_text("utf-8")
        for pattern in _PATTERNS:
            for code in re.findall(pattern, text):
                found.setdefault(code, set()).add(str(path.relative_to(SERVER)))
    from catsack.server.web.app import HTTP_ERROR_CODES  # the framework's own refusals, by status

    for code in HTTP_ERROR_CODES.values():
        found.setdefault(code, set()).add("app.py (HTTP_ERROR_CODES)")
    found.setdefault("http_error", set()).add("app.py (any other status)")
    return found


def test_the_scan_finds_the_codes() -> None:
    """The scan is not vacuous: it finds codes of every kind of source (HTTP, WebSocket, guard, hub)."""
    codes = server_codes()
    expected = {"seat_taken", "table_full", "login_failed", "too_many_logins", "rate_limited", "too_large"}
    expected |= {"unknown_table", "not_your_turn", "stale", "bad_frame", "invalid", "not_found", "bad_record"}
    assert expected <= codes.keys(), sorted(expected - codes.keys())


def test_every_server_code_has_a_catalogue_entry() -> None:
    """An ``err.<code>`` in English and German for every code the server can send."""
    missing = [
        f"err.{code} ({lang}; sent by {', '.join(sorted(where))})"
        for code, where in sorted(server_codes().items())
        for lang in ("en", "de")
        if f"err.{code}" not in CATALOGUES[lang]
    ]
    assert missing == []


def test_every_refusal_names_its_code() -> None:
    """No bare ``HTTPException(status, …)`` in the server: each refusal is raised with its code."""
    bare = [
        f"{path.relative_to(SERVER)}:{text[: m.start()].count(chr(10)) + 1}"
        for path in SERVER.rglob("*.py")
        for text in [path.read_text("utf-8")]
        for m in re.finditer(r"\bHTTPException\(\s*\d", text)
    ]
    assert bare == []


# ---------------------------------------------------------------------- answers on a running app

pytest.importorskip("fastapi")


@pytest.mark.slow
def test_answers_carry_code_and_params(app_server: Callable[..., object]) -> None:
    """Codes and the params the catalogue's texts fill in, with unchanged statuses and messages."""
    from fastapi.testclient import TestClient

    from web_clients import ORIGIN, register

    c = app_server(max_body_bytes=2048)
    assert isinstance(c, TestClient)
    r = c.get("/api/no/such/route")
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = c.get("/api/tables/nope")
    assert (r.status_code, r.json()["code"], r.json()["detail"]) == (404, "unknown_table", "no table 'nope'")
    r = c.post("/api/tables", json={"player": "Ann", "seats": 3, "name": "x" * 3000})
    assert r.status_code == 413 and r.json() == {
        "detail": "the request body is larger than 2048 bytes",
        "code": "too_large",
        "params": {"bytes": 2048},
    }
    r = c.post("/api/tables", json={"player": "Ann", "seats": 9})
    assert (
        r.status_code == 422
        and r.json()["code"] == "invalid"
        and r.json()["params"]
        == {
            "fields": "seats",
            "problems": [{"field": "seats", "reason": "too_big", "params": {"max": 5}}],  # worded by the page
        }
    )
    r = c.get("/api/users/Nobody")
    assert r.status_code == 404 and r.json()["code"] == "unknown_player" and r.json()["params"] == {"name": "Nobody"}

    made = c.post("/api/tables", json={"player": "Ann", "seats": 3}).json()
    joined = c.post(f"/api/tables/{made['table']}/join", json={"name": "Bea", "seat": 1})
    assert joined.status_code == 200, joined.text
    r = c.post(f"/api/tables/{made['table']}/join", json={"name": "Cy", "seat": 1})
    assert r.status_code == 409 and r.json() == {"detail": "seat 1 is taken", "code": "seat_taken", "params": {"n": 2}}

    assert register(c, "ab").json()["params"] == {"min": 3, "max": 24}
    assert register(c, "Ann").status_code == 201
    r = register(c, "ann")
    assert r.status_code == 409 and r.json()["params"] == {"name": "ann"}
    c.post("/api/account/logout", headers=ORIGIN)
    c.app.state.budgets.clock = lambda: 1_000_000.0  # type: ignore[attr-defined]  # the budgets' clock stands still
    answers = [
        c.post("/api/account/login", json={"name": "Ann", "password": "wrong horse"}, headers=ORIGIN) for _ in range(8)
    ]
    assert answers[0].status_code == 401 and answers[0].json()["code"] == "login_failed"
    limited = answers[-1]
    assert limited.status_code == 429 and limited.json()["code"] == "too_many_logins"
    assert limited.json()["params"]["seconds"] == int(limited.headers["retry-after"]) >= 1


def test_guest_session_is_no_error(app_server: Callable[..., object]) -> None:
    """``GET /api/account/session`` answers a guest 200 ``{"account": null}`` (the account page asks it,
    so a guest's browser logs no 401); ``GET /api/account`` still answers a guest 401."""
    from fastapi.testclient import TestClient

    from web_clients import register

    c = app_server()
    assert isinstance(c, TestClient)
    assert c.get("/api/account/session").json() == {"account": None}
    assert c.get("/api/account").status_code == 401
    register(c, "Dee")
    assert c.get("/api/account/session").json()["account"]["name"] == "Dee"


def test_errors_pickle_whole_for_worker_processes() -> None:
    """A tournament's or an analysis pool's worker sends its error back pickled: the type, the message
    and the fields arrive whole (the fields are keyword-only arguments, which plain pickling loses)."""
    import pickle

    from catsack import Game, IllegalMoveError
    from catsack.errors import ParseError, RecordError

    g = Game.new(4, seed=1)
    with pytest.raises(IllegalMoveError) as info:
        g.play("bid 3")  # R10: the round begins with placements
    err = info.value
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is IllegalMoveError and str(back) == str(err)
    assert (back.move, back.seat, back.phase, back.reason) == (err.move, err.seat, err.phase, err.reason)
    rec = pickle.loads(pickle.dumps(RecordError("bad", source="x.json", move_number=3, seat=1, reason="r")))
    assert (str(rec), rec.source, rec.move_number, rec.seat, rec.reason) == ("bad", "x.json", 3, 1, "r")
    assert str(pickle.loads(pickle.dumps(ParseError("no card")))) == "no card"
