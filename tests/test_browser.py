"""The browser client (issue 5), driven by Playwright in Debian's Chromium against a real `catsack serve`.

The server runs in a subprocess on a free port with its own SQLite file and
no bot delay. The tests click through the pages as people would: the lobby's
form, hand cards, bid buttons, pass, the invite link, the join panel. They
read the page's state from the `data-*` attributes the client keeps on
<body> (version, phase, my-turn, busy) and from what is visible.

Screenshots go to $CATSACK_ARTIFACTS (default: pytest's tmp_path), never into
the repository. Without Chromium or Playwright the tests skip, unless
CATSACK_REQUIRE_SERVICES=1 asks for them to fail instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TURN_TIMEOUT_MS = 15_000


def _unavailable() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install playwright)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def _skip_or_fail(reason: str) -> None:
    if os.environ.get("CATSACK_REQUIRE_SERVICES") == "1":
        pytest.fail(f"browser tests required (CATSACK_REQUIRE_SERVICES=1) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `catsack serve` on a free port; yields its base URL."""
    reason = _unavailable()
    if reason:
        _skip_or_fail(reason)
    workdir = tmp_path_factory.mktemp("server")
    port = _free_port()
    env = {
        **os.environ,
        "CATSACK_DATABASE_URL": f"sqlite:///{workdir / 't.db'}",
        "CATSACK_BOT_DELAY": "0",
    }
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            if proc.poll() is not None:
                pytest.fail(f"catsack serve exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=1) as answer:
                    if json.load(answer).get("status") == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"catsack serve did not answer /health within 20 s:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    """Where screenshots go: $CATSACK_ARTIFACTS or the test's tmp_path."""
    root = os.environ.get("CATSACK_ARTIFACTS")
    path = Path(root) if root else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


class Player:
    """One person in one browser context, with the page's JavaScript errors collected."""

    def __init__(self, browser: Browser, base: str, **context: Any) -> None:
        self.base = base
        self.context = browser.new_context(**context)
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(TURN_TIMEOUT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        self.moves: list[str] = []

    def close(self) -> None:
        self.context.close()

    def body(self, name: str) -> str:
        value: str = self.page.evaluate(f"document.body.dataset.{name} ?? ''")
        return value

    def create_table(self, name: str, levels: list[str], **options: Any) -> str:
        """Fill the lobby's form (seat 1 is ours, `levels` are the other seats) and sit down."""
        page = self.page
        page.goto(self.base + "/")
        page.fill("#your-name", name)
        page.check(f'input[name="seats"][value="{len(levels) + 1}"]')
        for seat, level in enumerate(levels, start=1):
            page.select_option(f"#seat-{seat}", level)
        if options.get("hints"):
            page.click(".options summary")
            page.check("#hints")
        page.click("#create-button")
        page.wait_for_url("**/t/*")
        page.wait_for_function("document.body.dataset.version !== undefined && document.body.dataset.version !== ''")
        return page.url.rsplit("/", 1)[1]

    def wait_turn_or_end(self) -> bool:
        """Wait until it is our turn (True) or the game is over (False)."""
        self.page.wait_for_function(
            "document.body.dataset.myTurn === 'yes' || document.body.dataset.phase === 'over'",
            timeout=TURN_TIMEOUT_MS,
        )
        return self.body("phase") != "over"

    def act(self, *, use_keys: bool = False) -> str:
        """Make one move by clicking (or with the documented shortcuts): place, bid low, or pass."""
        page = self.page
        phase = self.body("phase")
        before = self.body("version")
        if phase == "placement":
            if use_keys:
                page.keyboard.press("1")
                move = "key 1"
            else:
                card = page.locator(".hand-card:not([disabled])").first
                move = str(card.get_attribute("data-move"))
                card.click()
        elif phase == "last choice":
            # Buy the row for 1 mouse when we can, otherwise the round is void (R15).
            if page.is_enabled("#bid-button"):
                page.click("#bid-button")
                move = "bid 1"
            else:
                page.click("#pass-button")
                move = "pass"
        else:
            quick = page.locator(".quick-bid")
            lowest = int(quick.first.get_attribute("data-bid") or 0) if quick.count() else 0
            if 0 < lowest <= 2:
                quick.first.click()
                move = f"bid {lowest}"
            elif use_keys:
                page.keyboard.press("p")
                move = "key p"
            else:
                page.click("#pass-button")
                move = "pass"
        self.moves.append(move)
        # Bots at zero delay may answer before the page is polled again: wait for the version, not the turn.
        page.wait_for_function(
            "v => document.body.dataset.version !== v && document.body.dataset.busy === 'no'", arg=before
        )
        return move


@pytest.fixture
def people(browser: Browser, server: str) -> Iterator[Callable[..., Player]]:
    made: list[Player] = []

    def make(**context: Any) -> Player:
        player = Player(browser, server, **context)
        made.append(player)
        return player

    yield make
    for player in made:
        player.close()


def test_full_game_against_three_bots(people: Callable[..., Player], server: str, artifacts: Path) -> None:
    """Issue 5: a person plays a whole 4-seat game (R10-R22) by clicking, and sees the final scores."""
    ann = people(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    table = ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    page = ann.page
    page.screenshot(path=str(artifacts / "full-game-start.png"), full_page=True)

    first = True
    while ann.wait_turn_or_end():
        ann.act(use_keys=first)  # the first placement uses the keyboard shortcut "1"
        first = False
        assert len(ann.moves) < 200, "the game does not end"

    assert sum(m.startswith("place") or m == "key 1" for m in ann.moves) == 9  # one placement per round (R10)
    page.wait_for_selector("#final:not([hidden])")
    page.screenshot(path=str(artifacts / "full-game-end.png"), full_page=True)
    assert page.locator("#scores tbody tr").count() == 4
    assert "win" in page.inner_text("#final .winners").lower() or "victory" in page.inner_text("#final .winners")
    assert page.inner_text("#round-badge") == "Game over"
    assert "Ann" in page.inner_text("#scores")
    log = page.inner_text("#log")
    assert "Round 9" in log and "Ann places a card face down" in log

    record = page.request.get(f"{server}/api/tables/{table}/record")
    assert record.ok
    data = record.json()
    assert data["format"] == "catsack/1" and data["seats"] == 4
    assert len(data["moves"]) >= 36  # at least 9 rounds of 4 placements

    with page.expect_download() as download:
        page.click("text=Download your record")
    mine = json.loads(Path(download.value.path()).read_text())
    assert mine["format"] == "catsack/1"
    assert ann.errors == []


def test_two_people_at_one_table(people: Callable[..., Player], artifacts: Path) -> None:
    """Two people, two bots: the second joins through the invite link and each sees the other's moves."""
    ann = people(viewport={"width": 1100, "height": 850})
    table = ann.create_table("Ann", ["human", "heuristic", "heuristic"])
    assert ann.body("tableStatus") == "open"
    assert "Waiting for players" in ann.page.inner_text("#status-line")

    ann.page.click("#invite-button")  # headless Chromium may refuse the clipboard: the link is shown instead
    link = ann.page.input_value("#invite-link")
    assert link.endswith(f"/t/{table}")

    bea = people(viewport={"width": 1100, "height": 850})
    bea.page.goto(link)
    bea.page.wait_for_selector("#join-panel:not([hidden])")
    assert "Take this seat" in bea.page.inner_text("#join-seats")
    bea.page.fill("#join-name", "Bea")
    bea.page.click('button[data-seat="1"]')
    for person in (ann, bea):
        person.page.wait_for_function("document.body.dataset.tableStatus === 'playing'")

    deadline = time.monotonic() + 25
    while min(len(ann.moves), len(bea.moves)) < 3:
        assert time.monotonic() < deadline, f"too slow: Ann {ann.moves}, Bea {bea.moves}"
        moved = False
        for person in (ann, bea):
            if person.body("myTurn") == "yes":
                person.act()
                moved = True
        if ann.body("phase") == "over":
            break
        if not moved:
            time.sleep(0.05)

    # Both end on the same version, and each log narrates the other's moves.
    ann.page.wait_for_function(f"document.body.dataset.version === '{bea.body('version')}'")
    assert "Bea" in ann.page.inner_text("#log")
    assert "Ann" in bea.page.inner_text("#log")
    assert "online" in ann.page.inner_text("#seat-1").lower()
    assert "online" in bea.page.inner_text("#seat-0").lower()
    # R23 in the page: another seat's face-down row card is drawn as a card back.
    for slot in ann.page.locator("#row .slot.down:not(.own)").all():
        assert slot.locator(".card.back").count() == 1
    ann.page.screenshot(path=str(artifacts / "two-people-ann.png"), full_page=True)
    bea.page.screenshot(path=str(artifacts / "two-people-bea.png"), full_page=True)
    assert ann.errors == [] and bea.errors == []


def test_phone_viewport(people: Callable[..., Player], artifacts: Path) -> None:
    """A 375-px-wide phone: no sideways scrolling in the lobby or at the table, and a card can be tapped."""
    phone = people(viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = phone.page
    page.goto(phone.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.screenshot(path=str(artifacts / "phone-lobby.png"), full_page=True)
    overflow = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    assert page.evaluate(overflow) <= 0

    phone.create_table("Pip", ["heuristic", "heuristic"])
    phone.wait_turn_or_end()
    assert page.locator(".hand-card").count() == 9
    page.screenshot(path=str(artifacts / "phone-table.png"), full_page=True)
    assert page.evaluate(overflow) <= 0
    card = page.locator(".hand-card:not([disabled])").first
    card.scroll_into_view_if_needed()
    card.tap()
    page.wait_for_selector("#row .slot.own")
    assert page.evaluate(overflow) <= 0
    assert phone.errors == []
