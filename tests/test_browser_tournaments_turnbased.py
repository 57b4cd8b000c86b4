"""Turn-based tournaments in the browser: a person creates one on the tournaments page with a start time
chosen in the form (in the browser's own time zone) and turn-based rounds, and sees it listed with its
pace and start, in English, German and French (nothing left in another language).

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py).
The rounds themselves (the deadline, the notices, withdrawal by timeout, the standings) are checked on
the server in tests/test_tournaments_turnbased.py, where time can be moved on.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from browser_i18n import assert_in_language
from test_browser import Player, Server, artifacts, browser, own_server, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import dialogs, person, register, unique  # noqa: F401  (fixtures)
from test_browser_tournaments import get_json

WAIT_MS = 30_000
ZONE = "Europe/Berlin"


@pytest.mark.parametrize("locale", ["en-US", "de-DE", "fr-FR"])
def test_a_turn_based_tournament_with_a_start_time_is_created_and_listed(
    person: Callable[..., Player],  # noqa: F811
    locale: str,
) -> None:
    from playwright.sync_api import expect

    lang = locale[:2]
    player = person(locale=locale, timezone_id=ZONE)
    name = unique("Tess")
    register(player, name)
    page = player.page
    page.goto(player.base + "/tournaments")
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    title = f"Winter {lang}"
    page.fill("#t-name", title)
    page.select_option("#t-seats", "3")
    page.fill("#t-rounds", "3")
    expect(page.locator("#t-days")).to_be_hidden()
    page.check("input[name=t-pace][value=turnbased]")
    expect(page.locator("#t-days")).to_be_visible()
    expect(page.locator("#t-turn")).to_be_hidden()
    page.select_option("#t-move-hours", "12")
    page.select_option("#t-bank-hours", "24")
    page.select_option("#t-round-days", "5")
    # A start time without one chosen is refused on the page, before anything is sent.
    page.check("input[name=t-start][value=at]")
    page.click("#t-create")
    expect(page.locator("#create-error")).to_be_visible()
    # Two days ahead at 18:00 on the browser's clock (Berlin), whatever the server's time zone.
    local = (datetime.now(ZoneInfo(ZONE)) + timedelta(days=2)).replace(hour=18, minute=0, second=0, microsecond=0)
    page.fill("#t-starts", local.strftime("%Y-%m-%dT%H:%M"))
    page.click("#t-create")
    page.wait_for_url("**/tournaments/*")
    tid = page.url.rsplit("/", 1)[1]
    page.wait_for_function("() => document.body.dataset.status === 'upcoming'", timeout=WAIT_MS)
    details = get_json(player, f"/api/tournaments/{tid}")
    assert details["pace"] == "turnbased" and details["status"] == "upcoming"
    assert (details["move_hours"], details["bank_hours"], details["round_hours"]) == (12, 24, 120)
    assert details["starts"] == local.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    shown_time = local.strftime("%H:%M")  # 24-hour clocks in German and French
    if lang != "en":
        expect(page.locator("#t-status")).to_contain_text(shown_time)
    expect(page.locator("#t-facts")).to_contain_text("12")
    assert_in_language(page, lang, {"tess", "x", "winter", lang}, "turn-based tournament page")
    # Listed among the upcoming ones with its pace and start.
    page.goto(player.base + "/tournaments")
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    item = page.locator("#upcoming li", has_text=title)
    expect(item).to_have_count(1, timeout=WAIT_MS)
    meta = item.locator(".table-meta").inner_text()
    assert "12" in meta and "5" in meta, meta
    if lang != "en":
        assert shown_time in meta, meta
    # Names of tournaments other tests made on this server are names, not language.
    others = {w.lower() for t in get_json(player, "/api/tournaments")["upcoming"] for w in t["name"].split()}
    assert_in_language(page, lang, others | {"tess", "x", "winter", "friday", "swiss"}, "tournament list")
