"""Vacation in the browser: Ann (English) goes on vacation from the account page and comes back;
Bea (German) sees at their turn-based table that Ann is away and until when. Playwright drives
Debian's Chromium against a real `catsack serve` (tests/test_browser.py's fixtures)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from test_browser import Player, browser, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import WAIT_MS, dialogs, person, register, unique  # noqa: F401

pytestmark = pytest.mark.browser


def test_a_vacation_is_started_and_ended_on_the_account_page_and_shown_at_the_table(
    person: Callable[..., Player],  # noqa: F811
) -> None:
    from playwright.sync_api import expect

    ann = person(locale="en-US")
    bea = person(locale="de-DE")
    names = {"ann": unique("ann"), "bea": unique("bea")}
    register(ann, names["ann"])
    register(bea, names["bea"])
    origin = {"Origin": ann.base}
    made = ann.context.request.post(
        ann.base + "/api/tables",
        data={"seats": 3, "bots": {"2": "random"}, "turn_based": {"move_hours": 24}, "player": names["ann"]},
        headers=origin,
    )
    assert made.ok, made.text()
    table = made.json()["table"]
    bea.page.goto(f"{bea.base}/t/{table}")  # Bea takes the open seat on the table page
    bea.page.wait_for_selector("#join-panel:not([hidden])")
    bea.page.locator("#join-seats button").first.click()
    bea.page.wait_for_selector("#game:not([hidden])")

    page = ann.page
    page.goto(ann.base + "/account")
    expect(page.locator("#vacation-hint")).to_contain_text("21 days a year", timeout=WAIT_MS)
    expect(page.locator("#vacation-state")).to_have_attribute("data-state", "home", timeout=WAIT_MS)
    page.fill("#vacation-days", "3")
    page.click("#vacation-start")
    expect(page.locator("#banner")).to_contain_text("Your clocks stand still until", timeout=WAIT_MS)
    expect(page.locator("#vacation-state")).to_have_attribute("data-state", "away", timeout=WAIT_MS)
    expect(page.locator("#vacation-end")).to_be_visible()

    # Bea's table, in German: Ann's clock stands still, and until when.
    bea.page.reload()
    expect(bea.page.locator("#clock-banks")).to_contain_text("im Urlaub bis", timeout=WAIT_MS)
    bea.page.goto(f"{bea.base}/account")
    expect(bea.page.locator("#vacation-start")).to_have_text("Urlaub nehmen", timeout=WAIT_MS)

    page.click("#vacation-end")
    expect(page.locator("#banner")).to_contain_text("Welcome back", timeout=WAIT_MS)
    expect(page.locator("#vacation-state")).to_have_attribute("data-state", "home", timeout=WAIT_MS)
    bea.page.goto(f"{bea.base}/t/{table}")
    expect(bea.page.locator("#clock-box")).to_be_visible(timeout=WAIT_MS)
    expect(bea.page.locator("#clock-banks")).not_to_contain_text("Urlaub", timeout=WAIT_MS)
    assert not ann.errors and not bea.errors, (ann.errors, bea.errors)
