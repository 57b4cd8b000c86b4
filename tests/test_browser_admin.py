"""The operator's fair-play page in the browser: refused to others, the flagged pair with its evidence
for an operator (CATSACK_ADMIN_ACCOUNTS), in German with no English word, and a game's rating changes
reverted from it.

Playwright drives Debian's Chromium against a real `catsack serve` (tests/test_browser.py's fixtures);
the rated games are written into its database as the server stores them (tests/test_fairplay.py).
Screenshots go to $CATSACK_ARTIFACTS or pytest's tmp_path, never into the repository.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import CATALOGUES, assert_all_german
from test_browser import Player, Server, artifacts, browser, own_server, server  # noqa: F401  (fixtures)
from test_browser_accounts import WAIT_MS
from test_fairplay import NAMES, seed_rated_games

pytestmark = pytest.mark.browser


def log_in(player: Player, name: str) -> None:
    """Log in through the API with the browser's own cookies (the seeded accounts' password)."""
    r = player.context.request.post(
        f"{player.base}/api/account/login",
        data={"name": name, "password": "correct horse"},
        headers={"Origin": player.base},
    )
    assert r.status == 200, r.text()


def test_the_operator_reviews_a_pair_and_reverts_a_game(
    browser: Any,  # noqa: F811
    own_server: Callable[..., Server],  # noqa: F811
    artifacts: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    pytest.importorskip("openskill")
    from playwright.sync_api import expect

    from catsack.server.storage.store import Store

    # The operators are bound to their accounts when the server starts: the accounts exist first.
    url = f"sqlite:///{tmp_path / 'admin.db'}"
    store = Store(url)
    try:
        seed_rated_games(store)
    finally:
        store.close()
    srv = own_server(CATSACK_ADMIN_ACCOUNTS="cat", CATSACK_DATABASE_URL=url)

    ann = Player(browser, srv.base, viewport={"width": 1280, "height": 900}, locale="en-US")
    cat = Player(browser, srv.base, viewport={"width": 390, "height": 844}, locale="de-DE", is_mobile=True)
    try:
        # Another account is refused, in its language.
        log_in(ann, "ann")
        ann.page.goto(srv.base + "/admin/fairplay")
        ann.page.wait_for_function("() => document.body.dataset.loaded === 'denied'")
        expect(ann.page.locator("#denied")).to_have_text(CATALOGUES["en"]["err.not_admin"])
        assert ann.page.locator(".pair-item").count() == 0

        # The operator, on a phone in German: the pair, its evidence, its games.
        log_in(cat, "cat")
        page = cat.page
        page.goto(srv.base + "/admin/fairplay")
        page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
        pair = page.locator(".pair-item.stands-out")
        expect(pair).to_have_count(1)
        assert {pair.get_attribute("data-a"), pair.get_attribute("data-b")} == {"ann", "ben"}
        expect(pair).to_contain_text(CATALOGUES["de"]["admin.standsOut"])
        expect(pair.locator(".table-meta")).to_contain_text("100 %")
        assert pair.locator(".revert-button").count() >= 1
        assert_all_german(page, {*NAMES, "g", "z"}, "the fair-play page")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide on a 390px phone"
        page.screenshot(path=str(artifacts / "admin-fairplay-de.png"), full_page=True)

        # A game's rating changes taken back, with the reason typed.
        page.fill("#reason", "Schonspiel")
        first = pair.locator(".revert-button").first
        game = first.get_attribute("data-table")
        first.click()
        done = page.locator(f'.reverted[data-table="{game}"]')
        expect(done).to_be_visible(timeout=WAIT_MS)
        prefix = CATALOGUES["de"]["admin.reverted"].split("{")[0].strip()
        expect(done).to_contain_text(prefix)
        expect(done).to_contain_text("ann")
        page.check("#show-all")
        page.wait_for_function("() => document.querySelectorAll('.pair-item').length === 15")
        assert [e for e in ann.errors if "403" not in e] == [] and not cat.errors  # Ann's refusal was expected
    finally:
        ann.close()
        cat.close()
