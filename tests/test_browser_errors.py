"""The server's refusals in a German browser: every page words them from the catalogue.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py).
A German page shows a refused login, a wrong password's rate limit with its wait, a seat taken meanwhile,
an unknown table and player, and an oversized request, each in German with no English word visible (the
shared check of tests/browser_i18n.py); a guest opens the account page without any console error.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from browser_i18n import CATALOGUES, assert_all_german
from test_browser import Player, browser, people, server  # noqa: F401  (fixtures)

DE = CATALOGUES["de"]
WAIT_MS = 20_000
PASSWORD = "correct horse 15"


def german(**context: Any) -> dict[str, Any]:
    return {"viewport": {"width": 1280, "height": 900}, "locale": "de-DE", **context}


def fill(key: str, **params: Any) -> str:
    """The German catalogue's text for ``key`` with its {placeholders} filled (plural forms by ``n``)."""
    value = DE[key]
    if isinstance(value, dict):
        value = value["one"] if params.get("n") == 1 else value["other"]
    return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), value)


def post(player: Player, path: str, body: dict[str, Any]) -> Any:
    """A JSON request from outside the page (another person), with this site's Origin."""
    answer = player.context.request.post(player.base + path, data=body, headers={"Origin": player.base})
    assert answer.ok, (path, answer.status, answer.text())
    return answer.json()


def test_guest_account_page_has_no_console_error(people: Callable[..., Player]) -> None:  # noqa: F811
    """A guest sees the sign-in form, in German, and the browser logs no error (no 401 asked for)."""
    guest = people(**german())
    page = guest.page
    page.goto(guest.base + "/account", wait_until="networkidle")
    page.wait_for_selector("#guest:not([hidden])")
    assert page.locator("#member").is_hidden()
    assert guest.errors == []
    assert_all_german(page, set(), "account page, guest")


def test_login_refusals_in_german(people: Callable[..., Player]) -> None:  # noqa: F811
    """A wrong password, then the sign-in limit with its wait in seconds (Retry-After), in German."""
    other = people()
    post(other, "/api/account/register", {"name": "Gerda", "password": PASSWORD})
    guest = people(**german())
    page = guest.page
    page.goto(guest.base + "/account")
    page.wait_for_selector("#guest:not([hidden])")

    def attempt() -> str:
        page.fill("#login-name", "Gerda")
        page.fill("#login-password", "falsches Passwort")
        with page.expect_response("**/api/account/login"):
            page.click("#login-form button[type=submit]")
        page.wait_for_selector("#banner:not([hidden])")
        return page.inner_text("#banner")

    assert attempt() == DE["err.login_failed"]
    assert_all_german(page, {"Gerda"}, "wrong password")
    for _ in range(8):  # five wrong tries per name and address, then a wait (limits.py LoginThrottle)
        text = attempt()
        if text != DE["err.login_failed"]:
            break
    seconds = int(re.findall(r"\d+", text)[-1])
    assert text == f"{DE['err.too_many_logins']} {fill('err.retryIn', n=seconds)}", text
    assert_all_german(page, {"Gerda"}, "too many sign-in attempts")
    # Refused requests are logged by the browser as failed loads; nothing else went wrong.
    assert [e for e in guest.errors if "status of 401" not in e and "status of 429" not in e] == []


def test_table_refusals_in_german(people: Callable[..., Player]) -> None:  # noqa: F811
    """A seat taken while the join panel showed it open; an unknown table; an unknown player."""
    ann = people()
    table = post(ann, "/api/tables", {"player": "Ann", "seats": 3, "name": "Stammtisch"})["table"]
    bea = people(**german())
    page = bea.page
    page.goto(f"{bea.base}/t/{table}")
    page.wait_for_selector('#join-panel:not([hidden]) button[data-seat="1"]')
    # The panel refreshes every few seconds while visible: keep it still so that it shows seat 2 as open
    # when another person takes it (as a slower refresh would).
    page.evaluate("Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' })")
    post(ann, f"/api/tables/{table}/join", {"name": "Cara", "seat": 1})
    page.fill("#join-name", "Bea")
    with page.expect_response(f"**/api/tables/{table}/join"):
        page.click('button[data-seat="1"]')
    error = page.locator("#join-error")
    error.wait_for(state="visible")
    assert error.inner_text() == fill("join.failed", n=2, detail=fill("err.seat_taken", n=2))
    assert_all_german(page, {"Ann", "Bea", "Cara", "Stammtisch"}, "seat taken")

    page.goto(f"{bea.base}/t/KeinSolcherTisch")
    page.wait_for_selector("#banner:not([hidden])")
    assert page.inner_text("#banner-text") == DE["err.unknown_table"]
    assert_all_german(page, {"KeinSolcherTisch"}, "unknown table")

    page.goto(f"{bea.base}/u/Niemand")
    page.wait_for_selector("#banner:not([hidden])")
    assert page.inner_text("#banner") == fill("err.unknown_player", name="Niemand")
    assert_all_german(page, {"Niemand"}, "unknown player")
    refused = ("status of 404", "status of 409")
    assert [e for e in bea.errors if not any(r in e for r in refused)] == [], bea.errors


def test_oversized_request_in_german(people: Callable[..., Player]) -> None:  # noqa: F811
    """A request over the server's body limit (a table name far past the input's maxlength) is refused
    with the limit, in German, on the lobby's form."""
    ida = people(**german())
    page = ida.page
    page.goto(ida.base + "/")
    page.wait_for_selector("#seat-setup select")  # the lobby's script ran (its catalogue loads first)
    page.fill("#your-name", "Ida")
    page.evaluate("document.getElementById('table-name').value = 'x'.repeat(70000)")
    with page.expect_response(lambda r: r.url.endswith("/api/tables") and r.request.method == "POST"):
        page.click("#create-button")
    error = page.locator("#create-error")
    error.wait_for(state="visible")
    # The number as German writes it (Intl.NumberFormat groups from five digits on).
    assert error.inner_text() == fill("lobby.createFailed", detail=fill("err.too_large", bytes="65.536"))
    page.fill("#table-name", "")  # the 70,000 x's are no language
    assert_all_german(
        page, {"Ida", "Ann", "Cara", "Stammtisch"}, "oversized request"
    )  # the lobby lists the table above
    assert [e for e in ida.errors if "status of 413" not in e] == [], ida.errors


def test_error_text_falls_back_only_for_unknown_codes(people: Callable[..., Player]) -> None:  # noqa: F811
    """errorText (static/i18n.js): params fill the catalogue's text, a missing detail picks the plain
    wording, a wait is added, a code whose details only the server words keeps them in a marked part, and
    only an unknown code shows the server's own message."""
    one = people(**german())
    one.page.goto(one.base + "/leaderboard")
    texts = one.page.evaluate(
        """async () => {
          const { errorText } = await import("/static/i18n.js");
          return [
            errorText({ code: "seat_taken", message: "seat 1 is taken", params: { n: 2 } }),
            errorText({ code: "too_large", message: "the request body is larger than 9 bytes" }),
            errorText({ code: "rate_limited", message: "slow down", params: { seconds: 1 } }),
            errorText({ code: "bad_request", message: "unknown bot 'x'" }),
            errorText({ code: "a_new_code", message: "the server's own words" }),
          ];
        }"""
    )
    assert texts == [
        fill("err.seat_taken", n=2),
        DE["err.too_large.plain"],
        f"{DE['err.rate_limited']} {fill('err.retryIn', n=1)}",
        fill("err.bad_request", detail="unknown bot 'x'"),
        "the server's own words",
    ]
    assert one.errors == []
