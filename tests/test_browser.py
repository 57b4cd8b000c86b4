"""The browser client, driven by Playwright in Debian's Chromium against a real `catsack serve`.

The server runs in a subprocess on a free port with its own SQLite file and
no bot delay. The tests click through the pages as people would: the lobby's
form, hand cards, bid buttons, pass, the invite link, the join panel. They
read the page's state from the `data-*` attributes the client keeps on
<body> (version, phase, my-turn, busy) and from what is visible. Tests that
kill the server (reconnect) or need other settings (a 1-s grace period) get a
server of their own from `own_server`.

Screenshots go to $CATSACK_ARTIFACTS (default: pytest's tmp_path), never into
the repository. Without Chromium or Playwright the tests skip, unless
CATSACK_REQUIRE_SERVICES=1 asks for them to fail instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from server_procs import START_BOUND, kill_group, spawn, stop_group

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
TURN_TIMEOUT_MS = 30_000  # bounds a failure only: a loaded machine can take many seconds per page step


def unavailable() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install playwright)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip for ``reason``, or fail where the browser tests are required (CATSACK_REQUIRE_SERVICES=1)."""
    if os.environ.get("CATSACK_REQUIRE_SERVICES") == "1":
        pytest.fail(f"browser tests required (CATSACK_REQUIRE_SERVICES=1) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: Every server started by this module, by base URL, so a failed wait can show the server's log.
_SERVERS: dict[str, Server] = {}


class Server:
    """One `catsack serve` subprocess on a fixed port and SQLite file; it can be killed and started again."""

    def __init__(self, workdir: Path, env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "CATSACK_DATABASE_URL": f"sqlite:///{workdir / 't.db'}",
            "CATSACK_BOT_DELAY": "0",
            # Every page and player of the browser tests comes from one address, and some tests read a
            # record per game played; the read budget itself is tested in tests/test_server_attacks.py.
            "CATSACK_EXPENSIVE_GETS_BURST": "10000",
            **(env or {}),
        }
        self.log_path = workdir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = START_BOUND) -> None:
        """Start the server and wait until ``/health`` answers; a start that fails (the process exits, or
        ``timeout`` passes: a bound on a failure only) stops the process before the test fails."""
        _SERVERS[self.base] = self
        with self.log_path.open("ab") as log:
            self.proc = spawn(  # a process group of its own, stopped at the end of the session at the latest
                [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                env=self.env,
                cwd=self.workdir,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                pytest.fail(f"catsack serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.base}/health", timeout=1) as answer:
                    if json.load(answer).get("status") == "ok":
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                kill_group(self.proc)
                pytest.fail(f"catsack serve did not answer /health within {timeout:g} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as after a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """SIGTERM to the server (it ends its workers), then SIGKILL to whatever of its group is left."""
        if self.proc is not None:
            stop_group(self.proc)

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-3000:]


def served(folder: Path, env: dict[str, str] | None = None) -> Iterator[str]:
    """For a fixture to ``yield from``: a real `catsack serve` with ``env`` in ``folder``, its base URL,
    stopped afterwards (skipped, or failed where required, without a browser)."""
    reason = unavailable()
    if reason:
        skip_or_fail(reason)
    own = Server(folder, env or {})
    try:
        own.start()
        yield own.base
    finally:
        own.stop()


def launched() -> Iterator[Browser]:
    """For a fixture to ``yield from``: Debian's Chromium under Playwright, closed afterwards."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real `catsack serve` on a free port; yields its base URL."""
    yield from served(tmp_path_factory.mktemp("server"))


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[..., Server]]:
    """A separate server for one test (one that kills it or needs its own settings)."""
    made: list[Server] = []

    def make(**env: str) -> Server:
        workdir = tmp_path / f"server-{len(made)}"
        workdir.mkdir()
        one = Server(workdir, env)
        made.append(one)
        one.start()
        return one

    yield make
    for one in made:
        one.stop()


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Browser]:
    yield from launched()


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

    def stuck_report(self, what: str) -> str:
        """What a failed wait needs to be understood: the page, its error line, its console, the server's log."""
        page = self.page
        shown = page.evaluate(
            "[...document.querySelectorAll('.error:not([hidden]), [id$=\\'-error\\']:not([hidden])')]"
            ".map(e => e.id + ': ' + e.textContent.trim())"
        )
        button = page.evaluate("document.getElementById('create-button')?.textContent ?? ''")
        server = _SERVERS.get(self.base)
        log = server.log_tail() if server is not None else "(no log: not a server of this module)"
        return (
            f"{what}\npage: {page.url}\ncreate button: {button!r}\nerrors shown: {shown}\n"
            f"console errors: {self.errors}\nserver log (tail):\n{log}"
        )

    def body(self, name: str) -> str:
        value: str = self.page.evaluate(f"document.body.dataset.{name} ?? ''")
        return value

    def create_table(self, name: str, levels: list[str], **options: Any) -> str:
        """Fill the lobby's form (seat 1 is ours, `levels` are the other seats) and sit down."""
        page = self.page
        page.goto(self.base + "/")
        page.wait_for_selector("#seat-setup select")  # the lobby's script ran (its catalogue loads first)
        page.fill("#your-name", name)
        page.check(f'input[name="seats"][value="{len(levels) + 1}"]')
        for seat, level in enumerate(levels, start=1):
            page.select_option(f"#seat-{seat}", level)
        if options.get("hints"):
            page.click(".options summary")
            page.check("#hints")
        page.click("#create-button")
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            page.wait_for_url("**/t/*")
        except PlaywrightTimeout:
            pytest.fail(self.stuck_report("the lobby did not move to the new table"))
        page.wait_for_function(
            "() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''"
        )
        return page.url.rsplit("/", 1)[1]

    def wait_turn_or_end(self) -> bool:
        """Wait until it is our turn (True) or the game is over (False)."""
        self.page.wait_for_function(
            "() => document.body.dataset.myTurn === 'yes' || document.body.dataset.phase === 'over'",
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

    def make(base: str | None = None, **context: Any) -> Player:
        player = Player(browser, base or server, **context)
        made.append(player)
        return player

    yield make
    for player in made:
        player.close()


def test_full_game_against_three_bots(people: Callable[..., Player], server: str, artifacts: Path) -> None:
    """A person plays a whole 4-seat game (R10-R22) by clicking, and sees the final scores."""
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
        person.page.wait_for_function("() => document.body.dataset.tableStatus === 'playing'")

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

    # Both end on the same version (once the bots wait for a person), and each log narrates the other's moves.
    # A version read from one page may be skipped by the other while bots still move, so compare both pages.
    deadline = time.monotonic() + TURN_TIMEOUT_MS / 1000
    while ann.body("version") != bea.body("version"):
        assert time.monotonic() < deadline, f"the pages disagree: Ann {ann.body('version')}, Bea {bea.body('version')}"
        time.sleep(0.1)
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


def _hand(player: Player) -> list[str]:
    return [str(card.get_attribute("data-move")) for card in player.page.locator(".hand-card").all()]


def _table(player: Player, table: str) -> dict[str, Any]:
    answer = player.page.request.get(f"{player.base}/api/tables/{table}")
    assert answer.ok, answer.text()
    data: dict[str, Any] = answer.json()
    return data


def test_hints(people: Callable[..., Player], artifacts: Path) -> None:
    """A table with hints on: the Hint button and the H key show the best move and its estimated value."""
    ann = people(viewport={"width": 1280, "height": 900})
    table = ann.create_table("Ann", ["heuristic", "heuristic"], hints=True)
    assert _table(ann, table)["hints"] is True
    page = ann.page
    assert ann.wait_turn_or_end()
    assert page.is_visible("#hint-button") and page.is_enabled("#hint-button")
    assert page.is_hidden("#hint-panel")

    page.click("#hint-button")
    page.wait_for_selector("#hint-panel:not([hidden]) .hint-values li")
    best = str(page.get_attribute("#hint-panel .hint-best strong", "data-move"))
    assert best in _hand(ann)  # placement (R10): the best move places a card of our hand
    values = page.locator("#hint-panel .hint-values li")
    assert values.count() >= 1
    # Every value is a number of points; the best move's row is marked.
    shown = [float(v) for v in page.locator("#hint-panel .hint-value").all_inner_texts()]
    assert len(shown) == values.count()
    assert page.locator("#hint-panel .hint-values li.best .hint-move").get_attribute("data-move") == best
    page.screenshot(path=str(artifacts / "hints.png"), full_page=True)

    # The hint belongs to its version: a move hides it; the H key asks again on the next turn.
    ann.act()
    assert ann.wait_turn_or_end()  # the game cannot be over after one move
    page.wait_for_selector("#hint-panel", state="hidden")
    page.locator("body").press("h")
    page.wait_for_selector("#hint-panel:not([hidden]) .hint-best strong")
    again = str(page.get_attribute("#hint-panel .hint-best strong", "data-move"))
    legal: list[str] = page.evaluate(
        "[...document.querySelectorAll('.hand-card:not([disabled]), .quick-bid, #pass-button:not([disabled])')]"
        ".map(b => b.dataset.move ?? (b.dataset.bid ? 'bid ' + b.dataset.bid : 'pass'))"
    )
    assert again.startswith(("place ", "bid ", "pass")), again
    assert not again.startswith(("place ", "pass")) or again in legal, (again, legal)

    # Hints off (the default): no button, and the H key does nothing.
    bea = people(viewport={"width": 1280, "height": 900})
    bea.create_table("Bea", ["heuristic", "heuristic"])
    assert bea.wait_turn_or_end()
    assert bea.page.is_hidden("#hint-button")
    bea.page.locator("body").press("h")
    bea.page.wait_for_timeout(300)
    assert bea.page.is_hidden("#hint-panel")
    assert ann.errors == [] and bea.errors == []


def test_hints_speak_the_players_language(people: Callable[..., Player]) -> None:
    """A French player's hint panel says the analysis's sentences in French (the server renders them from
    the Python side's catalogues), moves in French words, and nothing in English."""
    from browser_i18n import WORD, assert_in_language, python_words

    cyd = people(viewport={"width": 1280, "height": 900}, locale="fr-FR")
    cyd.create_table("Cyd", ["heuristic", "heuristic"], hints=True)
    page = cyd.page
    said = ""
    while not said and cyd.wait_turn_or_end():  # a hint has sentences when the position gives a reason
        page.locator("body").press("h")
        page.wait_for_selector("#hint-panel:not([hidden]) .hint-values li")
        if page.locator("#hint-panel .hint-sentences").count():
            said = page.inner_text("#hint-panel .hint-sentences")
        else:
            cyd.act()
    assert said, "no hint with sentences in a whole game"
    words = {w.lower() for w in WORD.findall(said) if len(w) > 1}
    assert words and words <= python_words("fr") | {"cyd"}, said
    assert words - python_words("en"), said  # French, not English that happens to share its words
    assert_in_language(page, "fr", {"Cyd", "Ann", "Ben", "Cat", "Dan"}, "the hint panel")
    assert cyd.errors == []


def test_reconnect_after_server_restart(
    people: Callable[..., Player], own_server: Callable[..., Server], artifacts: Path
) -> None:
    """kill -9 and a restart on the same port and database: the page reconnects by itself and play goes on."""
    srv = own_server()
    ann = people(base=srv.base, viewport={"width": 1100, "height": 850})
    sockets: list[str] = []
    ann.page.on("websocket", lambda ws: sockets.append(ws.url))
    table = ann.create_table("Ann", ["heuristic", "heuristic"])
    assert ann.wait_turn_or_end()
    ann.act()  # one acknowledged move must survive the crash
    assert ann.wait_turn_or_end()
    page = ann.page
    version = int(ann.body("version"))
    hand = _hand(ann)
    assert version >= 1 and hand

    srv.kill()
    page.wait_for_function("() => document.getElementById('connection').dataset.state !== 'open'")
    assert ann.body("myTurn") == "no"  # no moves while disconnected
    # After a few failed tries the page says so plainly.
    page.wait_for_selector('#banner[data-kind="connection"]:not([hidden])')
    assert "Connection lost" in page.inner_text("#banner-text")
    assert "reconnecting" in page.inner_text("#connection")
    page.screenshot(path=str(artifacts / "reconnect-lost.png"), full_page=True)

    srv.start()
    # No reload: the same page object reconnects with backoff (at most about 5 s here).
    page.wait_for_function("() => document.getElementById('connection').dataset.state === 'open'", timeout=20_000)
    assert ann.wait_turn_or_end()
    assert int(ann.body("version")) >= version
    assert _hand(ann) == hand
    assert page.is_hidden("#banner")
    assert _table(ann, table)["version"] == int(ann.body("version"))
    # Each socket of a seat holder proves its seat in the URL (the SHA-256 of its token, which the server
    # keeps): a reconnect is never counted among the sockets waiting for their hello.
    token = json.loads(page.evaluate(f"localStorage.getItem('catsack:seat:{table}')"))["token"]
    proof = hashlib.sha256(token.encode()).hexdigest()
    assert len(sockets) >= 2 and all(url.endswith(f"/ws/{table}?seat={proof}") for url in sockets), sockets
    ann.act()
    assert int(ann.body("version")) > version
    page.screenshot(path=str(artifacts / "reconnect-resumed.png"), full_page=True)
    # The browser itself logs the refused WebSocket attempts; the page raised nothing.
    assert all("WebSocket" in e for e in ann.errors), ann.errors


def test_replaced_after_grace_period(
    people: Callable[..., Player], own_server: Callable[..., Server], artifacts: Path
) -> None:
    """A player away longer than the grace period is replaced by a bot and told so on return (R23 tokens)."""
    srv = own_server(CATSACK_GRACE_SECONDS="1", CATSACK_SWEEP_SECONDS="0.2")
    ann = people(base=srv.base, viewport={"width": 1100, "height": 850})
    table = ann.create_table("Ann", ["human", "heuristic"])
    bea = people(base=srv.base, viewport={"width": 1100, "height": 850})
    bea.page.goto(f"{srv.base}/t/{table}")
    bea.page.wait_for_selector("#join-panel:not([hidden])")
    bea.page.fill("#join-name", "Bea")
    bea.page.click('button[data-seat="1"]')
    for person in (ann, bea):
        person.page.wait_for_function("() => document.body.dataset.tableStatus === 'playing'")
    assert _table(ann, table)["players"][1]["kind"] == "human"

    bea.page.close()  # the token stays in the context's localStorage
    deadline = time.monotonic() + 30  # bounds a failure only
    while _table(ann, table)["players"][1]["kind"] != "bot":
        assert time.monotonic() < deadline, "Bea was not replaced by a bot after the 1-s grace period"
        time.sleep(0.1)
    assert _table(ann, table)["players"][1]["replaced"] is True
    # Ann's page learns it too (players frame) and the game goes on around her.
    ann.page.wait_for_function("() => !document.getElementById('seat-1').innerText.toLowerCase().includes('online')")

    bea.page = bea.context.new_page()
    bea.page.set_default_timeout(TURN_TIMEOUT_MS)
    bea.page.on("pageerror", lambda exc: bea.errors.append(str(exc)))
    bea.page.goto(f"{srv.base}/t/{table}")
    bea.page.wait_for_selector('#banner[data-kind="replaced"]:not([hidden])')
    text = bea.page.inner_text("#banner-text")
    assert "bot" in text.lower() and "away" in text.lower()
    assert bea.page.locator("#banner-actions").get_by_text("Watch the game").is_visible()
    bea.page.screenshot(path=str(artifacts / "replaced.png"), full_page=True)

    bea.page.locator("#banner-actions").get_by_text("Watch the game").click()
    bea.page.wait_for_function("() => document.body.dataset.seat === 'spectator'")
    assert "You are watching" in bea.page.inner_text("#status-line") or bea.body("phase") == "over"
    assert bea.page.is_hidden("#banner")
    assert bea.page.evaluate(f"localStorage.getItem('catsack:seat:{table}')") is None  # the dead token is forgotten
    assert ann.errors == [] and bea.errors == [], (ann.errors, bea.errors)
