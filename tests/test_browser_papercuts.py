"""A new player's papercuts of issue 34 in the browser (the terminal's are in test_papercuts.py).

Playwright drives Debian's Chromium against a real ``catsack serve`` (the fixtures of
tests/test_browser.py; bots move at once). Each test failed before its fix; the papercut's number
in issue 34 is in its docstring. Screenshots go to $CATSACK_ARTIFACTS or pytest's tmp_path.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)


def state(base: str, table: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/tables/{table}/state", timeout=30) as answer:
        found: dict[str, Any] = json.load(answer)
        return found


# ---------------------------------------------------------------------- 1: keyboard bidding


def test_keyboard_bid_b_plus_enter_bids_one_more(people: Callable[..., Player], server: str) -> None:  # noqa: F811
    """Papercut 1: B, then +, then Enter emptied the box ("+" typed into it) and answered "Bid a whole
    number from 4 to 15"; as the help says, + steps the bid in the box too, and Enter bids it (R12)."""
    ann = people(viewport={"width": 1280, "height": 900})
    table = ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    page = ann.page
    for _ in range(80):
        assert ann.wait_turn_or_end(), "the game ended before a bidding turn with a bid to make"
        if ann.body("phase") == "bidding" and page.is_enabled("#bid-amount"):
            break
        ann.act()
    else:
        pytest.fail("no bidding turn with a bid to make")
    low = int(page.get_attribute("#bid-amount", "min") or 0)
    high = int(page.get_attribute("#bid-amount", "max") or 0)
    if low == high:
        pytest.skip("only one legal bid on this turn: nothing to step")  # (a heuristic table in round 1 never)
    before = ann.body("version")
    page.locator("body").press("b")
    assert page.evaluate("document.activeElement.id") == "bid-amount"
    page.keyboard.press("+")
    assert page.input_value("#bid-amount") == str(low + 1)
    page.keyboard.press("-")
    page.keyboard.press("+")
    assert page.input_value("#bid-amount") == str(low + 1)
    page.keyboard.press("Enter")
    page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
    history = state(server, table)["view"]["history"]
    mine = [move for seat, move in history if seat == 0]
    assert mine[-1] == f"bid {low + 1}", history
    assert "whole number" not in page.inner_text("#banner")
    assert ann.errors == []


# ---------------------------------------------------------------------- 7: refusals in the page's language


def test_a_refused_form_reads_german_on_a_german_page(people: Callable[..., Player], server: str) -> None:  # noqa: F811
    """Papercut 7: a refusal's details came in the server's English inside German pages."""
    pierre = people(viewport={"width": 1280, "height": 900}, locale="de-DE")
    page = pierre.page
    page.goto(server + "/")
    page.wait_for_selector("#seat-setup select")
    text = page.evaluate(
        """async () => {
          const api = await import("/static/api.js");
          const i18n = await import("/static/i18n.js");
          try {
            await api.api("/api/tables", { method: "POST", body: { seats: 9, name: "x".repeat(41) } });
          } catch (err) {
            return i18n.errorText(err);
          }
          return "not refused";
        }"""
    )
    assert text.startswith("Eine Eingabe ist ungültig:"), text
    assert "Zahl der Plätze: höchstens 5" in text and "Name: höchstens 40 Zeichen" in text, text
    assert "Server" not in text and "characters" not in text, text


# ---------------------------------------------------------------------- 2: quick play on a quiet server


def test_quick_play_waits_visibly_and_the_host_starts_with_bots(
    people: Callable[..., Player],  # noqa: F811
    artifacts: Path,  # noqa: F811
) -> None:
    """Papercut 2: the quick play table looked started (round 1/9, a dealt hand, "to move") while it
    waited for people forever, and its open seats could not be given to bots afterwards."""
    ann = people(viewport={"width": 1280, "height": 900})
    page = ann.page
    page.goto(ann.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.fill("#your-name", "Ann")
    page.check('input[name="seats"][value="3"]')
    page.click("#quick-play")
    page.wait_for_url("**/t/*")
    page.wait_for_function("document.body.dataset.tableStatus === 'open'")
    assert page.is_visible("#waiting") and page.is_visible("#fill-button")
    for started in ("#round-badge", "#board", "#hand", "#bid-form"):
        assert not page.is_visible(started), started
    page.screenshot(path=str(artifacts / "quick-play-waiting.png"))
    page.select_option("#fill-level", "random")
    page.click("#fill-button")
    page.wait_for_function("document.body.dataset.tableStatus === 'playing'")
    assert not page.is_visible("#waiting") and page.is_visible("#board") and page.is_visible("#round-badge")
    assert ann.wait_turn_or_end()
    assert ann.errors == []


def test_quick_play_with_bots_starts_at_once(people: Callable[..., Player]) -> None:  # noqa: F811
    """Papercut 2: the player may choose bots at once instead of waiting."""
    ann = people(viewport={"width": 1280, "height": 900})
    page = ann.page
    page.goto(ann.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.fill("#your-name", "Ann")
    page.click("#quick-bots")
    page.wait_for_url("**/t/*")
    page.wait_for_function("document.body.dataset.tableStatus === 'playing'")
    assert not page.is_visible("#waiting")
    assert ann.wait_turn_or_end()
    assert ann.errors == []
