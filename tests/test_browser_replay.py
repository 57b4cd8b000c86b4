"""The replay page, post-game analysis and "Play again" in a real browser.

Playwright drives Debian's Chromium against a `catsack serve` subprocess (the
server helper of test_browser.py) with no bot delay and a cheap analysis
level. Games are finished by bots, or by the test itself over the WebSocket
for the seats of people, so the browser is used for what is under test.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from browser_i18n import CATALOGUES, WORD, assert_all_german
from test_browser import launched, served

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from served(tmp_path_factory.mktemp("replay-server"), {"CATSACK_ANALYSIS_LEVEL": "iters=300"})


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    yield from launched()


@pytest.fixture
def pages(browser: Browser) -> Iterator[Callable[..., Page]]:
    """New pages, each in its own browser context; JavaScript errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(init_script: str | None = None, locale: str = "en-US") -> Page:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
        if init_script:
            context.add_init_script(init_script)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == []


def call(base: str, path: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method="GET" if body is None else "POST")
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


def wait_over(base: str, table: str) -> None:
    deadline = time.monotonic() + 30
    while call(base, f"/api/tables/{table}")["status"] != "over":
        assert time.monotonic() < deadline
        time.sleep(0.05)


@pytest.fixture(scope="module")
def finished(server: str) -> str:
    """A finished 4-seat game of bots."""
    table = call(server, "/api/tables", {"seats": 4, "bots": {str(i): "heuristic" for i in range(4)}})["table"]
    wait_over(server, table)
    return str(table)


def body(page: Page, name: str) -> str:
    value: str = page.evaluate(f"document.body.dataset.{name} ?? ''")
    return value


def wait_ply(page: Page, ply: int) -> None:
    page.wait_for_function(f"() => document.body.dataset.ply === '{ply}'")


def test_replay_steps_by_keys_and_slider_switches_perspective_and_follows_links(
    pages: Callable[..., Page], server: str, finished: str, tmp_path: Path
) -> None:
    data = call(server, f"/api/tables/{finished}/replay")
    plies, starts = data["plies"], data["round_starts"]
    page = pages()
    page.goto(f"{server}/replay/{finished}")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    assert body(page, "ply") == "0" and body(page, "perspective") == "all"
    assert page.locator("#timeline li.move").count() == plies + 1  # the start and every move
    assert page.locator("#round-list li").count() == 9
    assert page.locator("#round-table tbody tr").count() == 9
    assert page.locator("#chart svg polyline.series").count() == 4

    # Keys: moves with the arrows, rounds with up/down, both ends with Home/End.
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    wait_ply(page, 3)
    page.keyboard.press("ArrowLeft")
    wait_ply(page, 2)
    page.keyboard.press("ArrowDown")
    wait_ply(page, starts[1])
    assert "Round 2" in page.inner_text("#round-badge")
    page.keyboard.press("ArrowUp")
    wait_ply(page, starts[0])
    page.keyboard.press("End")
    wait_ply(page, plies)
    assert body(page, "phase") == "over"
    page.click("#first-button")
    wait_ply(page, 0)
    assert page.url.endswith("#ply=0")

    # The slider: a click in its middle, then arrow keys while it has the focus.
    slider = page.locator("#ply-slider")
    box = slider.bounding_box()
    assert box is not None
    slider.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    page.wait_for_function("() => document.body.dataset.ply !== '0'")
    middle = int(body(page, "ply"))
    assert abs(middle - plies / 2) <= plies / 10, (middle, plies)
    slider.press("ArrowRight")
    wait_ply(page, middle + 1)
    assert page.url.endswith(f"#ply={middle + 1}")

    # Everything: each seat's hand and removed card; one seat's view: only its own cards (R23).
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    wait_ply(page, 1)
    assert page.locator("#hands .hand-row").count() == 4 and page.is_visible("#hands")
    assert page.locator("#row .card.back").count() == 0  # the placed card shows its face
    first, other = data["moves"][0][0], (data["moves"][0][0] + 1) % 4
    page.select_option("#perspective", str(other))
    page.wait_for_function(f"() => document.body.dataset.perspective === '{other}'")
    wait_ply(page, 1)  # the same moment, seen by another seat than the one that placed
    assert page.is_hidden("#hands")
    assert page.locator("#row .card.back").count() == 1, first  # the first card is face down to it
    assert f"view={other}" in page.url

    # A shared link opens at its move (and view).
    other = pages()
    target = min(57, plies)
    other.goto(f"{server}/replay/{finished}#ply={target}")
    other.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    wait_ply(other, target)
    assert other.locator("#timeline li.current").get_attribute("data-ply") == str(target)
    other.goto(f"{server}/replay/{finished}#ply=5&view=1")  # a new hash on the open page
    other.wait_for_function("() => document.body.dataset.perspective === '1'")
    wait_ply(other, 5)
    other.reload()  # and opened afresh
    other.wait_for_function("() => document.body.dataset.perspective === '1'")
    wait_ply(other, 5)
    other.screenshot(path=str(tmp_path / "replay.png"), full_page=True)


def test_analysis_flags_decisions_on_the_timeline(pages: Callable[..., Page], server: str, finished: str) -> None:
    page = pages()
    page.goto(f"{server}/replay/{finished}")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    page.select_option("#analysis-seat", "1")
    page.click("#analysis-button")
    page.wait_for_function("() => document.body.dataset.analysis === 'done'", timeout=60_000)
    result = call(server, f"/api/tables/{finished}/analysis?seat=1")["result"]
    flagged = [d for d in result["decisions"] if d["class"]]
    assert flagged, "at this level some of the heuristic bot's decisions lose more than the noise"
    assert page.locator("#timeline li.flag").count() == len(flagged)
    assert page.locator("#slider-flags .tick").count() == len(flagged)
    assert page.locator("#timeline li.analysed").count() == len(result["decisions"])
    assert float(page.inner_text("#accuracy")) == pytest.approx(result["summary"]["lost_per_decision"], abs=0.01)
    first = flagged[0]
    page.locator(f'#timeline li.flag[data-ply="{first["ply"] + 1}"] button').click()
    wait_ply(page, first["ply"] + 1)
    panel = page.inner_text("#decision")
    assert first["class"] in panel and "decision at move" in panel.lower()
    assert page.locator("#decision .hint-values li").count() == len(first["values"])
    # One moment: the panel's board is the analysed seat's row before the move, the
    # moment its beliefs and values are of; every value shows its noise, and the sentences are there.
    row = first["facts"]["row"]
    assert page.locator("#decision .decision-row li.slot:not(.empty)").count() == len(row)
    assert page.locator("#decision .decision-row .card.back").count() == sum(
        1 for rc in row if not rc["face_up"] and rc["card"] is None
    )
    assert page.locator("#decision .hint-noise").count() == len(first["noise"])
    assert first["sentences"]["en"][0] in page.inner_text("#decision .hint-sentences")
    assert page.locator("#row-0").count() <= 1  # the main board's ids stay unique

    # Served again from the database: a new page shows it at once.
    again = pages()
    again.goto(f"{server}/replay/{finished}")
    again.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    again.select_option("#analysis-seat", "1")
    again.wait_for_function("() => document.body.dataset.analysis === 'done'")
    assert again.locator("#timeline li.flag").count() == len(flagged)


def test_analysis_command_line_analyses_the_seat_shown(
    pages: Callable[..., Page], server: str, finished: str, tmp_path: Path
) -> None:
    """The command under the analysis summary, run on the table's record, analyses the same seat with
    the same numbers: the page counts seats from 0 as the API does, the command line from 1 (R4)."""
    seat = 2
    answer = analysed(server, finished, seat)
    page = pages()
    page.goto(f"{server}/replay/{finished}")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    page.select_option("#analysis-seat", str(seat))
    page.wait_for_function("() => document.body.dataset.analysis === 'done'")
    words = shlex.split(page.inner_text("#analysis-summary code"))
    assert words[:3] == ["catsack", "analyse", "RECORD"], words
    record = tmp_path / "game.json"
    with urllib.request.urlopen(f"{server}/api/tables/{finished}/record", timeout=10) as got:
        record.write_bytes(got.read())
    out = subprocess.run(
        [sys.executable, "-m", "catsack", "analyse", str(record), *words[3:], "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout
    cli = [json.loads(line) for line in out.splitlines()]

    def numbers(decisions: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(d["ply"], d["best"], d["values"]) for d in decisions]

    assert numbers(cli) == numbers(answer["result"]["decisions"])


def test_upload_a_record_file(pages: Callable[..., Page], server: str, finished: str, tmp_path: Path) -> None:
    good = tmp_path / "game.json"
    with urllib.request.urlopen(f"{server}/api/tables/{finished}/record", timeout=10) as answer:
        good.write_bytes(answer.read())
    bad = tmp_path / "broken.json"
    bad.write_text('{"format": "catsack/1", "seats": 4, "start": 9, "removed": [], "moves": []}')
    page = pages()
    page.goto(f"{server}/replay")
    page.wait_for_selector("#upload-panel:not([hidden])")
    page.set_input_files("#record-file", str(bad))
    page.wait_for_selector("#upload-error:not([hidden])")
    assert "broken.json" in page.inner_text("#upload-error") and "'start'" in page.inner_text("#upload-error")
    page.set_input_files("#record-file", str(good))
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    assert body(page, "perspective") == "all"
    page.keyboard.press("End")
    page.wait_for_function("() => document.body.dataset.phase === 'over'")
    assert page.locator("#analysis-form").is_hidden()


def finish_with_sockets(base: str, table: str, tokens: dict[int, str]) -> None:
    """Play the people's seats over catsack-ws/1 (first legal move, passing when it can) to the end."""
    from websockets.sync.client import connect

    with contextlib.ExitStack() as stack:
        socks = {}
        for seat, token in tokens.items():
            ws = stack.enter_context(connect(base.replace("http", "ws", 1) + "/ws"))
            ws.send(json.dumps({"type": "hello", "protocol": "catsack-ws/1", "table": table, "token": token}))
            socks[seat] = ws
        n = 0
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            st = call(base, f"/api/tables/{table}/state")
            if st["view"]["phase"] == "over":
                return
            seat = st["view"]["to_move"]
            if seat not in socks:
                time.sleep(0.01)
                continue
            mine = call(base, f"/api/tables/{table}/state", token=tokens[seat])
            legal = mine["view"]["legal"]
            n += 1
            move = "pass" if "pass" in legal else legal[0]
            socks[seat].send(
                json.dumps({"type": "move", "action_id": f"m{n}", "version": mine["version"], "move": move})
            )
            while True:
                frame = json.loads(socks[seat].recv(timeout=10))
                if frame.get("action_id") == f"m{n}":
                    break


def test_play_again_in_two_browsers(pages: Callable[..., Page], server: str) -> None:
    """Both people press "Play again" and land at one new table, each at their own seat."""
    table = call(server, "/api/tables", {"seats": 4, "bots": {"2": "heuristic", "3": "random"}})["table"]
    people = {}
    for name in ("Ann", "Bea"):
        joined = call(server, f"/api/tables/{table}/join", {"name": name})
        people[name] = joined
    finish_with_sockets(server, table, {p["seat"]: p["token"] for p in people.values()})

    browsers = {}
    for name, joined in people.items():
        seat = {"seat": joined["seat"], "token": joined["token"], "name": name, "saved": 1}
        script = f"localStorage.setItem('catsack:seat:{table}', JSON.stringify({json.dumps(seat)}))"
        page = pages(init_script=script)
        page.goto(f"{server}/t/{table}")
        page.wait_for_selector("#final:not([hidden]) #play-again")
        assert page.is_visible("#replay-link")
        browsers[name] = page

    ann, bea = browsers["Ann"], browsers["Bea"]
    ann.click("#play-again")
    ann.wait_for_url(lambda url: "/t/" in url and not url.endswith(f"/t/{table}"))
    new = ann.url.rsplit("/", 1)[1]
    assert new != table
    bea.wait_for_selector("#rematch-offer")  # Bea's page was told
    assert "Ann" in bea.inner_text("#rematch-offer")
    bea.click("#play-again")
    bea.wait_for_url(f"{server}/t/{new}")
    for name, page in browsers.items():
        page.wait_for_function("() => document.body.dataset.tableStatus === 'playing'")
        assert body(page, "seat") == str(people[name]["seat"])
    info = call(server, f"/api/tables/{new}")
    assert [p["kind"] for p in info["players"]] == ["human", "human", "bot", "bot"]

    # Someone opening the old table afterwards (no frame for them) is pointed to the new one too.
    watcher = pages()
    watcher.goto(f"{server}/t/{table}")
    watcher.click("#watch-button")
    watcher.wait_for_selector("#rematch-offer a")
    assert watcher.get_attribute("#rematch-offer a", "href") == f"/t/{new}"


def analysed(base: str, table: str, seat: int) -> dict[str, Any]:
    """The analysis of ``seat`` of a finished table, started if need be and waited for."""
    answer: dict[str, Any] = call(base, f"/api/tables/{table}/analysis", {"seat": seat})
    deadline = time.monotonic() + 60
    while answer["status"] == "running":
        assert time.monotonic() < deadline, "the analysis did not finish"
        time.sleep(0.1)
        answer = call(base, f"/api/tables/{table}/analysis?seat={seat}")
    assert answer["status"] == "done", answer
    return answer


def test_replay_in_german_shows_no_english(
    pages: Callable[..., Page], server: str, finished: str, tmp_path: Path
) -> None:
    """A German browser gets the replay in German ('s rules: ?lang=, the remembered choice,
    the browser's language): controls, board, timeline, rounds, chart, the analysis with a flagged
    decision, everything's hands and one seat's view (R23), and the upload page. No word outside
    the German catalogue is visible at any of those moments; the picker switches back to English."""
    result = analysed(server, finished, 1)["result"]
    flagged = next(d for d in result["decisions"] if d["class"])
    names = set(WORD.findall(finished))  # the table's id, in its title; the bots' German names are catalogue words
    de = CATALOGUES["de"]

    page = pages(locale="de-DE")
    page.goto(f"{server}/replay/{finished}")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    assert page.evaluate("document.documentElement.lang") == "de"
    assert page.input_value("#lang-picker") == "de"
    page.click("details.help summary")  # the keyboard shortcuts, opened
    assert page.inner_text("#timeline-title") == de["replay.moves"]
    assert page.inner_text("#status-line") == de["replay.status.start"]
    assert page.get_attribute("#first-button", "title") == de["replay.first.title"]
    assert "Einfacher Bot 1" in page.inner_text("#seats")  # a bot's German name, not "heuristic 1"
    assert_all_german(page, names, "start, everything shown")

    # A placed card, seen by everyone and then by one seat (its hand only: R23).
    page.keyboard.press("ArrowRight")
    wait_ply(page, 1)
    assert page.is_visible("#hands")
    assert page.inner_text("#status-line").startswith("Zug 1 von ")
    assert_all_german(page, names, "first move, everything shown")
    page.select_option("#perspective", "2")
    page.wait_for_function("() => document.body.dataset.perspective === '2'")
    wait_ply(page, 1)
    assert_all_german(page, names, "first move, seat 3's view")

    # The analysis of seat 2 and its flagged decision.
    page.select_option("#analysis-seat", "1")
    page.wait_for_function("() => document.body.dataset.analysis === 'done'")
    page.locator(f'#timeline li.flag[data-ply="{flagged["ply"] + 1}"] button').click()
    wait_ply(page, flagged["ply"] + 1)
    panel = page.inner_text("#decision").lower()  # the heading is upper case on screen
    assert "entscheidung bei zug" in panel and de[f"replay.flag.{flagged['class']}"].lower() in panel
    assert page.is_visible("#analysis-summary code")  # the command line, kept as it is
    assert_all_german(page, names, "a flagged decision")
    page.keyboard.press("End")
    page.wait_for_function("() => document.body.dataset.phase === 'over'")
    assert page.inner_text("#round-badge") == de["badge.over"]
    assert_all_german(page, names, "game over")
    page.screenshot(path=str(tmp_path / "replay-de.png"), full_page=True)

    # The choice is remembered: an English browser then opens the page in German too.
    assert page.evaluate("localStorage.getItem('catsack:lang')") is None  # the browser's language, not a choice
    page.select_option("#lang-picker", "en")
    page.wait_for_function("() => document.documentElement.lang === 'en' && document.body.dataset.loaded === 'yes'")
    assert page.inner_text("#timeline-title") == CATALOGUES["en"]["replay.moves"]

    # ?lang=de in an English browser; the upload page and a record's replay, in German.
    upload = pages()
    upload.goto(f"{server}/replay?lang=de")
    upload.wait_for_selector("#upload-panel:not([hidden])")
    assert upload.evaluate("document.documentElement.lang") == "de"
    assert upload.inner_text("#upload-title") == de["replay.upload.title"]
    assert_all_german(upload, names, "upload page")
    record = tmp_path / "game.json"
    with urllib.request.urlopen(f"{server}/api/tables/{finished}/record", timeout=10) as answer:
        record.write_bytes(answer.read())
    upload.set_input_files("#record-file", str(record))
    upload.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    upload.keyboard.press("End")
    upload.wait_for_function("() => document.body.dataset.phase === 'over'")
    assert upload.is_visible("#analysis-note code")
    assert_all_german(upload, names, "an uploaded record's replay")
    upload.reload()  # remembered from ?lang=
    upload.wait_for_selector("#upload-panel:not([hidden])")
    assert upload.evaluate("document.documentElement.lang") == "de"
