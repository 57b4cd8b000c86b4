"""Arena tournaments in the browser: a person creates an arena on the tournaments page (its window and
when bots complete a table), two more enter, the creator starts it; all three are seated at once, play
their game from the page, and the live standings follow (English, with the points checked by hand);
the pages read in German with nothing left in English.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py).
The queue's rules, the window's end and bots filling a table are checked on the server in
tests/test_arena.py, where the arena's clock can be moved on.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from browser_i18n import assert_in_language
from test_browser import Player, Server, artifacts, browser, own_server, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import dialogs, person, register, unique  # noqa: F401  (fixtures)
from test_browser_tournaments import get_json, play_all

WAIT_MS = 30_000


def create_arena(player: Player, title: str) -> str:
    """Create a 3-seat arena of 30 minutes with bots after 60 s from the form; its page's address."""
    from playwright.sync_api import expect

    page = player.page
    page.goto(player.base + "/tournaments")
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    expect(page.locator("#t-arena")).to_be_hidden()
    page.check("input[name=t-format][value=arena]")
    expect(page.locator("#t-arena")).to_be_visible()
    expect(page.locator("#t-rounds")).to_be_hidden()  # Swiss-only choices go
    expect(page.locator("#t-duplicate")).to_be_hidden()
    page.fill("#t-name", title)
    page.select_option("#t-seats", "3")
    page.fill("#t-minutes", "30")
    page.select_option("#t-bots-after", "60")
    page.click("#t-create")
    page.wait_for_url("**/tournaments/*")
    return page.url


@pytest.mark.parametrize("locale", ["en-US", "de-DE"])
def test_an_arena_is_created_seated_and_its_standings_follow_the_games(
    person: Callable[..., Player],  # noqa: F811
    locale: str,
) -> None:
    from playwright.sync_api import expect

    lang = locale[:2]
    players = [person(locale=locale) for _ in range(3)]
    names = [unique(n) for n in ("Ann", "Ben", "Cid")]
    for p, name in zip(players, names, strict=True):
        register(p, name)
    ann = players[0]
    url = create_arena(ann, f"Blitz {lang}")
    tid = url.rsplit("/", 1)[1]
    details = get_json(ann, f"/api/tournaments/{tid}")
    assert (details["format"], details["minutes"], details["bots_after"], details["seats"]) == ("arena", 30, 60, 3)
    for p in players[1:]:
        p.page.goto(url)
        p.page.click("#enter")
        expect(p.page.locator("#leave")).to_be_visible(timeout=WAIT_MS)
    ann.page.reload()
    expect(ann.page.locator("#entries li")).to_have_count(3, timeout=WAIT_MS)
    ann.page.click("#start")
    for p in players:
        if not p.page.url.endswith(tid):
            p.page.goto(url)
        p.page.wait_for_function("() => document.body.dataset.status === 'running'", timeout=WAIT_MS)
        expect(p.page.locator("#play")).to_be_visible(timeout=WAIT_MS)  # three wait: a table at once
    page = ann.page
    expect(page.locator("#tables li")).to_have_count(1)
    expect(page.locator("#standings tr")).to_have_count(3)
    if lang != "en":
        words = {"ann", "ben", "cid", "blitz", lang, "x"}
        assert_in_language(page, lang, words, "running arena page")
        page.goto(ann.base + "/tournaments")
        page.wait_for_function("() => document.body.dataset.ready === 'yes'")
        page.check("input[name=t-format][value=arena]")
        others = {w.lower() for t in get_json(ann, "/api/tournaments")["running"] for w in t["name"].split()}
        assert_in_language(page, lang, words | others | {"friday", "swiss", "quick"}, "tournament list, arena form")
        return
    first = get_json(ann, f"/api/tournaments/{tid}")["tables"][0]["game"]
    for p in players:
        p.page.click("#play")
        p.page.wait_for_url("**/t/*")
        p.page.wait_for_function(
            "() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''"
        )
    play_all(players)
    # Live: the finished game counts at once, and the three are seated again (nobody else waits).
    page.goto(url)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#standings td.points')].some((td) => td.textContent !== '0')",
        timeout=WAIT_MS,
    )
    details = get_json(ann, f"/api/tournaments/{tid}")
    rows = details["standings"]
    assert all(len(r["rounds"]) == 1 and r["rounds"][0]["game"] == first for r in rows)
    places = [r["rounds"][0]["place"] for r in rows]
    for r in rows:  # place k of 3 earns 3 - k, tied places share (R22); one game: no streak yet
        p, tied = r["rounds"][0]["place"], places.count(r["rounds"][0]["place"])
        assert r["points"] == sum(3 - k for k in range(p, p + tied)) / tied
    expect(page.locator("#tables li")).to_have_count(1, timeout=WAIT_MS)
    assert get_json(ann, f"/api/tournaments/{tid}")["tables"][0]["game"] != first
