"""The game database's pages in Chromium: the dumps' list (sizes and checksums that are the downloaded file's)
and round 1's chart, at a phone's size, in English and in German.

Playwright drives Debian's Chromium against a real `catsack serve` (tests/test_browser.py's fixtures) on which
three games of bots have been played to the end. Screenshots go to $CATSACK_ARTIFACTS or pytest's tmp_path.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import assert_all_german
from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def games(server: str, browser: Any) -> list[str]:  # noqa: F811
    """Three public games of random bots (4, 4 and 3 seats) played to the end on the server."""
    context = browser.new_context()
    made = []
    for seats in (4, 4, 3):
        r = context.request.post(
            f"{server}/api/tables", data={"seats": seats, "bots": {str(i): "random" for i in range(seats)}}
        )
        assert r.ok, r.text()
        made.append(str(r.json()["table"]))
    deadline = time.monotonic() + 120  # bounds a failure only: the loop waits for the games to end
    while not all(context.request.get(f"{server}/api/tables/{t}").json()["status"] == "over" for t in made):
        assert time.monotonic() < deadline, "the bots' games did not end"
        time.sleep(0.1)
    context.close()
    return made


def test_database_page_lists_each_dump_with_the_files_size_and_checksum(
    people: Callable[..., Player],  # noqa: F811
    games: list[str],
    artifacts: Path,  # noqa: F811
) -> None:
    """At a phone's size, from the lobby's footer: the current month is listed with the three games; the size
    and SHA-256 shown are those of the file the link downloads, which holds the three games' records; the
    link to the explorer leads to a chart of ten cards whose numbers of games are the server's figures."""
    ann = people(viewport=PHONE, accept_downloads=True)
    page = ann.page
    page.goto(f"{ann.base}/")
    page.click("footer a[href='/database']")  # the lobby's way in
    page.wait_for_url("**/database")
    page.wait_for_selector("body[data-ready='yes']")
    row = page.locator("#dumps tr").first
    assert row.get_attribute("data-complete") == "no"
    assert row.locator("td.db-games").inner_text() == "3"
    shown_sha = row.locator("code.db-sha").inner_text()
    shown_bytes = int(row.locator("td.db-size").get_attribute("data-bytes") or -1)
    with page.expect_download() as download:
        row.locator("a.db-file").click()
    path = download.value.path()
    data = Path(path).read_bytes()
    assert hashlib.sha256(data).hexdigest() == shown_sha and len(data) == shown_bytes
    assert download.value.suggested_filename == row.locator("a.db-file").inner_text()
    import gzip

    tables = [json.loads(line)["table"] for line in gzip.decompress(data).splitlines()]
    assert sorted(tables) == sorted(games)
    page.screenshot(path=str(artifacts / "database-phone.png"), full_page=True)
    assert ann.errors == []

    page.click("a[href='/database/explorer'] >> nth=-1")
    page.wait_for_url("**/database/explorer**")
    page.wait_for_selector("body[data-ready='yes']")
    assert page.locator("#ex-chart g.ex-row").count() == 10
    figures = page.request.get(f"{ann.base}/api/database/explorer").json()
    assert figures["games"] == 3 and sum(g["games"] for g in figures["groups"]) == 3
    for seats in ("4", "3"):
        page.check(f"input[name='seats'][value='{seats}']")
        page.wait_for_function("s => document.body.dataset.seats === s", arg=seats)
        expected = {g["card"]: g["buyers"]["all"]["games"] for g in figures["groups"] if g["seats"] == int(seats)}
        drawn = {
            el.get_attribute("data-card"): int(el.get_attribute("data-n") or -1)
            for el in page.locator("#ex-chart g.ex-row").element_handles()
        }
        assert drawn == expected
        assert page.locator("#ex-chart g.ex-box").count() == 2 * sum(1 for n in drawn.values() if n)
    page.select_option("#ex-buyer", "person")  # bots bought every row: nothing is drawn for people
    page.wait_for_function("() => document.body.dataset.buyer === 'person'")
    assert page.locator("#ex-chart g.ex-box").count() == 0
    assert page.locator("#ex-chart .ex-none").count() == 10
    page.click("#ex-form input[value='4']")
    page.locator(".ex-details summary").click()
    assert page.locator("#ex-rows tr").count() == 10
    page.screenshot(path=str(artifacts / "explorer-phone.png"), full_page=True)
    assert ann.errors == []


def test_database_pages_in_german(people: Callable[..., Player], games: list[str], artifacts: Path) -> None:  # noqa: F811
    """Both pages read in German show no English word (the chart's labels and legend included), and axe-core
    finds no serious or critical violation on them."""
    from test_browser_axe import violations

    bea = people(viewport={"width": 1280, "height": 900}, locale="de-DE")
    page = bea.page
    for path in ("/database?lang=de", "/database/explorer?lang=de"):
        page.goto(bea.base + path)
        page.wait_for_selector("body[data-ready='yes']")
        page.wait_for_function("() => document.documentElement.lang === 'de'")
        assert_all_german(page, set(), path)
        assert violations(page) == [], path
    assert page.locator("#ex-chart g.ex-row").count() == 10
    page.screenshot(path=str(artifacts / "explorer-de.png"), full_page=True)
    assert bea.errors == []
