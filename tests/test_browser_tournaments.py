"""Tournaments in the browser: a whole Swiss tournament of four rounds with accounts and bots, the
abandoned-seat rating rule, the one-seat rule and the guest mark, and the tournament pages in German.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of
tests/test_browser.py; bots move at once). The tournament's standings are checked against a table
worked out here from the finished games' records (R21 scores, R22 places, rank points n - place
with ties shared), not from the server's own scoring. Screenshots go to $CATSACK_ARTIFACTS or
pytest's tmp_path, never into the repository.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import assert_all_german
from catsack.record import loads_record
from test_browser import Player, Server, artifacts, browser, own_server, people, server  # noqa: F401  (fixtures)
from test_browser_accounts import create, dialogs, person, register, unique  # noqa: F401  (fixtures)

WAIT_MS = 30_000


def get_json(player: Player, path: str) -> Any:
    answer = player.page.request.get(player.base + path)
    assert answer.ok, answer.text()
    return answer.json()


def play_all(players: list[Player], timeout: float = 180.0) -> None:
    """Play every player's game to its end, each moving when it is its turn (they may share a table)."""
    deadline = time.monotonic() + timeout
    active = list(players)
    while active:
        assert time.monotonic() < deadline, [p.stuck_report("the games did not end") for p in active]
        for p in list(active):
            if p.body("phase") == "over":
                active.remove(p)
            elif p.body("myTurn") == "yes" and p.body("busy") == "no":
                p.act()
        time.sleep(0.02)  # a poll of the pages; every wait above is for a condition


def expected_standings(player: Player, details: dict[str, Any]) -> dict[int, tuple[float, float, int]]:
    """Points, table wins and game score per entry, computed here from each game's record."""
    out: dict[int, tuple[float, float, int]] = {}
    for row in details["standings"]:
        points = wins = 0.0
        score = 0
        for g in row["rounds"]:
            record = loads_record(player.page.request.get(f"{player.base}/api/tables/{g['game']}/record").text())
            game = record.to_game()
            scores, cats = game.scores(), game.cat_points()
            n = len(scores)
            mine = (scores[g["seat"]], cats[g["seat"]])
            better = sum(1 for s, c in zip(scores, cats, strict=True) if (s, c) > mine)
            tied = sum(1 for s, c in zip(scores, cats, strict=True) if (s, c) == mine)
            place = better + 1
            assert g["place"] == place
            if not g["abandoned"]:
                points += sum(n - k for k in range(place, place + tied)) / tied
                wins += 1 / tied if place == 1 else 0
            score += scores[g["seat"]]
        out[row["entry"]] = (points, wins, score)
    return out


def test_swiss_tournament_of_four_rounds(person: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """Ann creates a 4-round tournament at 3-seat tables with three random-bot entries, Ben enters, Ann
    starts it; each round both take their seats from the tournament page and play; the standings on
    the page match the table computed here from the records, in order."""
    from playwright.sync_api import expect

    ann, ben = person(), person()
    names = [unique("Ann"), unique("Ben")]
    register(ann, names[0])
    register(ben, names[1])
    page = ann.page
    page.goto(ann.base + "/tournaments")
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    page.fill("#t-name", "Friday Swiss")
    page.select_option("#t-seats", "3")
    page.fill("#t-rounds", "4")
    page.fill("#t-bots", "3")
    page.select_option("#t-level", "random")
    page.click("#t-create")
    page.wait_for_url("**/tournaments/*")
    url = page.url
    tid = url.rsplit("/", 1)[1]
    expect(page.locator("#leave")).to_be_visible(timeout=WAIT_MS)  # the creator entered
    ben.page.goto(url)
    ben.page.click("#enter")
    expect(ben.page.locator("#leave")).to_be_visible(timeout=WAIT_MS)
    expect(ben.page.locator("#start")).to_be_hidden()
    page.reload()
    expect(page.locator("#entries li")).to_have_count(5, timeout=WAIT_MS)
    page.click("#start")
    for round_no in range(1, 5):
        for p in (ann, ben):
            if not p.page.url.endswith(tid):
                p.page.goto(url)
            p.page.wait_for_function(f"() => document.body.dataset.round === '{round_no}'", timeout=WAIT_MS)
            expect(p.page.locator("#play")).to_be_visible(timeout=WAIT_MS)
            if round_no == 1 and p is ann:
                expect(p.page.locator("#tables li")).to_have_count(2)  # 5 entries at 3 seats: one filler bot
                expect(p.page.locator("#tables .filler")).to_have_count(1)
                p.page.screenshot(path=str(artifacts / "tournament-round1.png"), full_page=True)
            p.page.click("#play")
            p.page.wait_for_url("**/t/*")
            p.page.wait_for_function(
                "() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''"
            )
        play_all([ann, ben])
        expect(ben.page.locator("#tournament-link")).to_have_attribute("href", f"/tournaments/{tid}")
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.status === 'finished'", timeout=WAIT_MS)
    page.screenshot(path=str(artifacts / "tournament-finished.png"), full_page=True)
    details = get_json(ann, f"/api/tournaments/{tid}")
    assert details["round"] == 4 and all(len(r["rounds"]) == 4 for r in details["standings"])
    hand = expected_standings(ann, details)
    order = sorted(hand, key=lambda e: (-round(hand[e][0], 9), -round(hand[e][1], 9), -hand[e][2], e))
    rows = page.locator("#standings tr")
    assert rows.count() == 5
    shown = [
        (
            int(rows.nth(i).get_attribute("data-entry") or 0),
            float(rows.nth(i).locator("td.points").inner_text()),
            int(rows.nth(i).locator("td.score").inner_text()),
        )
        for i in range(5)
    ]
    assert [e for e, _, _ in shown] == order
    for entry, points, score in shown:
        assert abs(points - round(hand[entry][0], 2)) < 1e-9 and score == hand[entry][2], (entry, hand[entry])
    assert sum(p for _, p, _ in shown) <= 4 * 2 * 3  # 4 rounds, 2 tables, 3 points a table (fillers keep theirs)
    # Every game is an ordinary finished table with its replay.
    first = details["standings"][0]["rounds"][0]["game"]
    page.goto(f"{ann.base}/replay/{first}")
    expect(page.locator("body")).to_be_visible()
    # Each player's results by round are on the page (in the row's details).
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    page.locator("#standings tr").first.locator("summary").click()
    expect(page.locator("#standings tr").first.locator("li")).to_have_count(4)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "tournament-390x844.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0


def test_tournament_pages_in_german(person: Callable[..., Player]) -> None:  # noqa: F811
    """The list and a tournament's page speak German, with nothing English left."""
    ann = person(locale="de-DE")
    name = unique("Anna")
    register(ann, name)
    created = ann.page.request.post(
        ann.base + "/api/tournaments",
        data=json.dumps({"name": "Freitag", "seats": 4, "rounds": 2, "bots": ["heuristic"]}),
        headers={"Content-Type": "application/json", "Origin": ann.base},
    )
    assert created.ok, created.text()
    page = ann.page
    page.goto(ann.base + "/tournaments")
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    # Names of tournaments other tests made on this server are names, not language.
    words = {"Anna", "x", "Freitag"}  # the account's name is Anna<digits>x<digits>
    assert_all_german(page, words | {"Friday", "Swiss"}, "tournament list")
    page.goto(ann.base + created.json()["url"])
    page.wait_for_function("() => document.body.dataset.ready === 'yes'")
    assert_all_german(page, words, "tournament page")


def test_abandoned_seat_is_rated_last_on_the_profile(
    people: Callable[..., Player],  # noqa: F811
    own_server: Callable[..., Server],  # noqa: F811
) -> None:
    """Ann starts a rated game against two random bots, places one card and closes the page. After the
    grace period a bot finishes her seat; her profile counts the game rated, last, not won, and
    left to a bot, whatever the bot did."""
    from playwright.sync_api import expect

    srv = own_server(CATSACK_GRACE_SECONDS="1", CATSACK_SWEEP_SECONDS="0.2")
    ann = people(base=srv.base, viewport={"width": 1280, "height": 900}, locale="en-US")
    name = unique("Ann")
    register(ann, name)
    table = create(ann, ["random", "random"], rated=True)
    assert ann.wait_turn_or_end()
    ann.act()
    ann.page.goto(ann.base + "/rules")  # she leaves the table
    deadline = time.monotonic() + 60
    while (p := get_json(ann, f"/api/users/{name}"))["rated_games"] != 1:
        assert time.monotonic() < deadline, srv.log_tail()
        time.sleep(0.1)
    assert p["history"][0]["rank"] == 3 and p["history"][0]["abandoned"] is True and p["wins"] == 0
    page = ann.page
    page.goto(f"{ann.base}/u/{name}")
    expect(page.locator("#p-reputation")).to_have_text("0 finished, 1 left to a bot", timeout=WAIT_MS)
    expect(page.locator("#p-wins")).to_have_text("0")
    expect(page.locator("#recent .abandoned")).to_have_count(1)
    assert get_json(ann, f"/api/tables/{table}")["players"][0]["replaced"] is True


def test_one_account_one_seat_and_guests_marked(person: Callable[..., Player]) -> None:  # noqa: F811
    """From Ann's browser a second seat at her own table is refused (409 one_seat); a guest who sits
    down is shown as a guest at the table and in the lobby; a guest cannot take Ann's name."""
    from playwright.sync_api import expect

    ann, guest = person(), person()
    name = unique("Ann")
    register(ann, name)
    table = create(ann, ["human", "human"])
    answer = ann.page.evaluate(
        """async (table) => {
          const r = await fetch(`/api/tables/${table}/join`, {method: "POST",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify({name: "x"})});
          return {status: r.status, body: await r.json()};
        }""",
        table,
    )
    assert answer["status"] == 409 and answer["body"]["code"] == "one_seat"
    taken = guest.page.request.post(
        f"{guest.base}/api/tables/{table}/join",
        data=json.dumps({"name": name}),
        headers={"Content-Type": "application/json"},
    )
    assert taken.status == 409 and taken.json()["code"] == "name_registered"
    guest.page.goto(f"{guest.base}/t/{table}")
    guest.page.wait_for_selector("#join-panel:not([hidden])")
    guest.page.fill("#join-name", "Gus")
    guest.page.locator("#join-seats button").first.click()
    guest.page.wait_for_selector("#game:not([hidden])")
    expect(ann.page.locator("#seats .tag.guest")).to_have_count(1, timeout=WAIT_MS)
    assert "Gus" in ann.page.locator("#seats .tag.guest").locator("xpath=..").inner_text()
    lobby = guest.page.context.new_page()
    lobby.goto(guest.base + "/")
    # (the lobby lists the table among the open ones and among the guest's own tables)
    expect(lobby.locator(".table-players").filter(has_text="Gus (guest)").first).to_be_visible(timeout=WAIT_MS)


pytestmark = pytest.mark.browser
