"""Every page works under the server's Content-Security-Policy, in Debian's Chromium.

A person plays a whole game with hints on (the table page, hint bars), opens its replay and analysis
(timeline ticks), the rules in both languages, the learning page, the account page (registers), the
profile and the leaderboard. Chromium reports every blocked script, style or connection as a
``securitypolicyviolation`` event and a console error; there must be none, and no script error.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from catsack.rulebook import LANGUAGES as RULES_LANGUAGES
from test_browser import Player, launched, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: Reports every CSP violation as a console error the Player collects (and as a page global to read).
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + e.blockedURI);
  console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from served(tmp_path_factory.mktemp("csp-server"), {"CATSACK_ANALYSIS_LEVEL": "iters=4"})


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    yield from launched()


def _violations(player: Player) -> list[str]:
    found: list[str] = player.page.evaluate("window.__csp ?? []")
    return found


def test_every_page_works_under_the_csp(browser: Browser, server: str) -> None:
    with urllib.request.urlopen(server + "/") as answer:
        policy = answer.headers["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy and "unsafe-inline" not in policy

    ann = Player(browser, server, viewport={"width": 1280, "height": 900})
    ann.context.add_init_script(WATCH)
    page = ann.page
    try:
        table = ann.create_table("Ann", ["heuristic", "heuristic"], hints=True)  # the lobby
        assert ann.wait_turn_or_end()
        page.click("#hint-button")  # hint bars are sized by a style property
        page.wait_for_selector("#hint-panel:not([hidden]) .hint-values li")
        assert page.eval_on_selector(".hint-bar", "e => e.style.getPropertyValue('--w')").endswith("%")
        while ann.wait_turn_or_end():  # the table page over the WebSocket, to the end
            ann.act()
            assert len(ann.moves) < 200
        page.wait_for_selector("#final:not([hidden])")
        assert _violations(ann) == []

        page.goto(f"{server}/replay/{table}")
        page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
        page.select_option("#analysis-seat", "0")
        page.click("#analysis-button")  # timeline ticks are placed by a style property
        page.wait_for_function("() => document.body.dataset.analysis === 'done'", timeout=60_000)
        assert _violations(ann) == []

        for lang in RULES_LANGUAGES:
            page.goto(f"{server}/rules?lang={lang}")  # its one inline stylesheet is allowed by its hash
            assert page.evaluate("getComputedStyle(document.body).fontFamily") != ""
            assert page.evaluate("document.styleSheets.length") >= 1
            assert _violations(ann) == []

        page.goto(f"{server}/learn")
        page.wait_for_selector("#lang-picker")
        page.goto(f"{server}/account")
        page.fill("#register-name", "Cspuser")
        page.fill("#register-password", "correct horse")
        page.click("#register-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('me-link')?.textContent === 'Cspuser'")
        page.goto(f"{server}/u/Cspuser")
        page.wait_for_function("() => document.getElementById('p-games')?.textContent !== ''")
        page.goto(f"{server}/leaderboard")
        page.wait_for_function(  # the page's script ran and asked for the board
            "() => performance.getEntriesByType('resource').some(e => e.name.endsWith('/api/leaderboard'))"
        )
        assert _violations(ann) == []
        assert not [e for e in ann.errors if "Content Security Policy" in e or "CSP" in e], ann.errors
        assert ann.errors == [], ann.errors
    finally:
        ann.close()
    # The API answers carry the headers too.
    with urllib.request.urlopen(f"{server}/api/tables/{table}") as answer:
        assert answer.headers["X-Frame-Options"] == "DENY"
        assert json.load(answer)["status"] == "over"
