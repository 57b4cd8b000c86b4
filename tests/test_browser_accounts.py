"""Accounts in the browser: a rated game and its rating on the profile, chat, private
tables, quick play, taking a seat over on another device and the host handing an idle seat to a bot.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of
tests/test_browser.py; bots move at once). Every page fails the test if a dialog ever opens:
names and chat messages holding markup must be shown as text, never run. Screenshots go to
$CATSACK_ARTIFACTS or pytest's tmp_path, never into the repository.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)
from test_browser_learn import assert_all_german

if TYPE_CHECKING:
    from playwright.sync_api import Dialog

XSS = "<img src=x onerror=alert(1)>"
# Player names hold at most 24 characters: a shorter markup name (the table's name carries XSS).
XSS_NAME = "<svg onload=alert(1)>"
PASSWORD = "correct horse 15"
WAIT_MS = 20_000

_numbers = itertools.count(1)


def unique(prefix: str) -> str:
    """An account name no other test (or earlier run against the same server) has taken."""
    return f"{prefix}{os.getpid() % 10_000}x{next(_numbers)}"


@pytest.fixture
def dialogs() -> Iterator[list[str]]:
    """Every dialog any page opened (alert, confirm…): must stay empty."""
    seen: list[str] = []
    yield seen
    assert seen == [], f"a dialog opened: {seen}"


@pytest.fixture
def person(people: Callable[..., Player], dialogs: list[str]) -> Callable[..., Player]:  # noqa: F811
    """A browser context whose pages dismiss and record every dialog."""

    def make(**context: Any) -> Player:
        context.setdefault("viewport", {"width": 1280, "height": 900})
        context.setdefault("locale", "en-US")
        player = people(**context)

        def on_dialog(dialog: Dialog) -> None:
            dialogs.append(dialog.message)
            dialog.dismiss()

        player.page.on("dialog", on_dialog)
        return player

    return make


def register(player: Player, name: str) -> None:
    """Create an account on the account page (and stay logged in)."""
    from playwright.sync_api import expect

    page = player.page
    page.goto(player.base + "/account")
    page.fill("#register-name", name)
    page.fill("#register-password", PASSWORD)
    page.click("#register-form button[type=submit]")
    expect(page.locator("#me-link")).to_have_text(name, timeout=WAIT_MS)
    # A guest's account page asks GET /api/account/session, which is no error: nothing to forgive here.


def log_in(player: Player, name: str) -> None:
    from playwright.sync_api import expect

    page = player.page
    page.goto(player.base + "/account")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("#me-link")).to_have_text(name, timeout=WAIT_MS)


def create(player: Player, levels: list[str], *, rated: bool = False, private: bool = False, name: str = "") -> str:
    """The lobby's form: seat 1 is ours, `levels` the other seats; returns the table id."""
    page = player.page
    page.goto(player.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.wait_for_function("() => document.body.dataset.account !== undefined")  # a signed-in name is read-only
    if not page.input_value("#your-name"):
        page.fill("#your-name", "Guest")
    if name:
        page.fill("#table-name", name)
    page.check(f'input[name="seats"][value="{len(levels) + 1}"]')
    for seat, level in enumerate(levels, start=1):
        page.select_option(f"#seat-{seat}", level)
    if rated:
        page.check("#rated")
    if private:
        page.check("#private")
    page.click("#create-button")
    page.wait_for_url("**/t/*")
    page.wait_for_function("() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''")
    return page.url.rsplit("/", 1)[1]


def sit(player: Player, table: str, name: str | None = None) -> None:
    """Open the invite link and take the first open seat."""
    page = player.page
    page.goto(f"{player.base}/t/{table}")
    page.wait_for_selector("#join-panel:not([hidden])")
    if name is not None:
        page.fill("#join-name", name)
    page.locator("#join-seats button").first.click()
    page.wait_for_selector("#game:not([hidden])")
    page.wait_for_function("() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''")


def play_to_the_end(player: Player) -> int:
    """Place the first card of the hand, pass whenever bidding (the fewest moves): returns the moves made."""
    page = player.page
    moves = 0
    while player.wait_turn_or_end():
        before = player.body("version")
        if player.body("phase") == "placement":
            page.locator(".hand-card:not([disabled])").first.click()
        else:
            page.click("#pass-button")  # R12, R15: a player may always pass
        page.wait_for_function(
            "v => document.body.dataset.version !== v && document.body.dataset.busy === 'no'", arg=before
        )
        moves += 1
        assert moves < 60, "the game does not end"
    return moves


def say(player: Player, text: str) -> None:
    from playwright.sync_api import expect

    page = player.page
    expect(page.locator("#chat-form")).to_be_visible(timeout=WAIT_MS)
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")
    expect(page.locator("#chat-input")).to_have_value("", timeout=WAIT_MS)


# ---------------------------------------------------------------------- tests


def test_rated_game_changes_the_rating_on_the_profile(person: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """Register, play a rated 3-seat game against two random bots, see "Rating: 1000 → x" at the
    table and x on the profile, with a chart of two points; the leaderboard lists the player."""
    from playwright.sync_api import expect

    guest = person()
    guest.page.goto(guest.base + "/")
    guest.page.wait_for_selector("#seat-setup select")
    expect(guest.page.locator("#account-link")).to_have_text("Log in")
    assert guest.page.is_disabled("#rated") and guest.page.is_visible("#rated-hint")

    ann = person()
    name = unique("ann")
    register(ann, name)
    page = ann.page
    page.goto(ann.base + "/")
    expect(page.locator("#account-link")).to_have_text(name, timeout=WAIT_MS)
    assert page.is_enabled("#rated") and page.is_hidden("#rated-hint")
    assert page.input_value("#your-name") == name
    table = create(ann, ["random", "random"], rated=True)
    guest.page.goto(f"{guest.base}/t/{table}")  # rated tables seat accounts: a guest is told to log in
    expect(guest.page.locator("#join-rated")).to_be_visible(timeout=WAIT_MS)
    assert play_to_the_end(ann) >= 9  # one placement per round (R10)
    banner = page.locator("#banner")
    expect(banner).to_contain_text("Rating: 1000 → ", timeout=WAIT_MS)
    after = re.search(r"1000 → (\d+)", banner.inner_text())
    assert after is not None
    assert "rating 1000 →" in page.inner_text("#log")
    page.screenshot(path=str(artifacts / "rated-game-over.png"), full_page=True)

    page.click("#banner-close")
    page.goto(f"{ann.base}/u/{name}")
    expect(page.locator("#p-rating")).to_have_text(after.group(1), timeout=WAIT_MS)
    expect(page.locator("#p-games")).to_have_text("1")
    assert page.locator("#chart svg.rating-chart circle").count() == 2
    assert page.locator("#recent li a[href^='/replay/']").count() == 1
    page.screenshot(path=str(artifacts / "profile-desktop.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "profile-390x844.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0

    page.goto(ann.base + "/leaderboard")
    expect(page.locator("#board")).to_contain_text(name, timeout=WAIT_MS)
    page.screenshot(path=str(artifacts / "leaderboard-390x844.png"), full_page=True)
    assert ann.errors == [] and guest.errors == []


def test_two_accounts_chat_and_markup_stays_text(person: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """Two accounts and a guest whose name is markup chat at a table named with markup: every
    message and name is shown as text (no element made from it, no dialog); the lobby shows the
    account's rating beside its name; muting hides a player's messages; history comes back on reload."""
    from playwright.sync_api import expect

    ann, bea = person(), person()
    ann_name, bea_name = unique("ann"), unique("bea")
    register(ann, ann_name)
    register(bea, bea_name)
    table = create(ann, ["human", "human"], name=XSS)
    assert ann.page.inner_text("#table-title") == XSS

    page = bea.page
    page.goto(bea.base + "/")
    item = page.locator("#open-tables li", has=page.locator(f"a[href='/t/{table}']"))
    expect(item).to_contain_text(f"{ann_name} (1000)", timeout=WAIT_MS)
    expect(item.locator(".table-link")).to_have_text(XSS)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "lobby-390x844.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.screenshot(path=str(artifacts / "lobby-desktop.png"))

    sit(bea, table)
    assert page.input_value("#join-name") == bea_name or page.is_hidden("#join-panel")
    guest = person()
    sit(guest, table, XSS_NAME)

    say(ann, "hello bea")
    expect(page.locator("#chat-log")).to_contain_text(f"{ann_name} hello bea", timeout=WAIT_MS)
    say(bea, XSS)
    say(guest, f"hi, {XSS}")
    log = ann.page.locator("#chat-log")
    expect(log.locator(".chat-text").filter(has_text=f"hi, {XSS}")).to_have_count(1, timeout=WAIT_MS)
    texts = log.locator(".chat-text").all_inner_texts()
    assert texts == ["hello bea", XSS, f"hi, {XSS}"]
    assert log.locator(".chat-name").all_inner_texts() == [ann_name, bea_name, XSS_NAME]
    # The guest's line is marked as a guest's, as the seat list marks the seat; the accounts' are not.
    assert log.locator("li .tag.guest").count() == 1
    expect(log.locator("li", has_text=f"hi, {XSS}").locator(".tag.guest")).to_have_text("guest")
    assert ann.page.locator("img:not(.brand-mark), #chat-log svg, #seats svg").count() == 0
    expect(ann.page.locator("#seats")).to_contain_text(XSS_NAME)
    ann.page.screenshot(path=str(artifacts / "chat-desktop.png"), full_page=True)
    ann.page.uncheck("#turn-sound")  # the turn sound can be switched off, and stays off
    assert ann.page.evaluate("localStorage.getItem('catsack:turnSound')") == "false"

    # Muting is this browser's choice: the guest's lines go, a note offers to show them again. The
    # choice is kept in the browser (localStorage, per table: the muted seats) and survives a reload.
    log.locator("li", has_text=f"hi, {XSS}").locator(".mute").click()
    expect(log.locator(".chat-text")).to_have_text(["hello bea", XSS])
    expect(log).to_contain_text("1 player muted.")
    ann.page.reload()
    expect(log).to_contain_text("1 player muted.", timeout=WAIT_MS)
    expect(log.locator(".chat-text")).to_have_text(["hello bea", XSS])

    page.reload()
    expect(page.locator("#chat-log .chat-text")).to_have_count(3, timeout=WAIT_MS)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(artifacts / "chat-390x844.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    assert ann.errors == [] and bea.errors == [] and guest.errors == []


def test_private_table_is_not_listed_and_quick_play_skips_it(person: Callable[..., Player], server: str) -> None:  # noqa: F811
    """A private table is absent from the lobby (and its API list) but its link seats a person;
    quick play never sends anyone there and puts two guests at one new table."""
    from playwright.sync_api import expect

    ann = person()
    table = create(ann, ["human", "random"], private=True)
    assert ann.page.request.get(f"{server}/api/tables").json() is not None
    assert table not in {t["table"] for t in ann.page.request.get(f"{server}/api/tables").json()}

    bea = person()
    page = bea.page
    page.goto(bea.base + "/")
    expect(page.locator("#open-updated")).not_to_be_empty(timeout=WAIT_MS)
    assert page.locator(f"#open-tables a[href='/t/{table}']").count() == 0

    cal = person()
    cal.page.goto(cal.base + "/")
    cal.page.wait_for_selector("#seat-setup select")  # the lobby's script ran: quick play has its handler
    cal.page.fill("#your-name", "Cal")
    cal.page.check('input[name="seats"][value="3"]')
    cal.page.click("#quick-play")
    cal.page.wait_for_url("**/t/*")
    quick = cal.page.url.rsplit("/", 1)[1]
    assert quick != table
    page.fill("#your-name", "Dee")
    page.check('input[name="seats"][value="3"]')
    page.click("#quick-play")
    page.wait_for_url(f"**/t/{quick}")
    page.wait_for_selector("#game:not([hidden])")

    eve = person()
    sit(eve, table, "Eve")
    expect(eve.page.locator("#seats")).to_contain_text("Eve")
    assert ann.errors == [] and bea.errors == [] and cal.errors == [] and eve.errors == []


def test_takeover_and_host_hands_an_idle_seat_to_a_bot(person: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """The account's seat opened on a second device is offered to take over; the first device is
    told and can take it back. The host (seat 1) hands a player who went away to a bot."""
    from playwright.sync_api import expect

    ann = person()
    name = unique("ann")
    register(ann, name)
    table = create(ann, ["human", "random"], name="Abendrunde")
    bea = person()
    sit(bea, table, "Bea")
    expect(ann.page.locator("#seat-1")).to_contain_text("online", timeout=WAIT_MS)
    assert ann.page.locator(".hand-to-bot").count() == 0  # Bea is connected

    # The second device is a phone in German.
    phone = person(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="de-DE")
    log_in(phone, name)
    page = phone.page
    page.goto(f"{phone.base}/t/{table}")
    expect(page.locator("#takeover")).to_be_visible(timeout=WAIT_MS)
    expect(page.locator("#takeover-text")).to_contain_text("Platz 1")
    names = {"ann", "x", "bea", "abendrunde"}
    assert_all_german(page, names, "take over")
    page.click("#takeover-button")
    page.wait_for_function("() => document.body.dataset.seat === '0'")
    expect(ann.page.locator("#banner")).to_contain_text("Take it over here", timeout=WAIT_MS)

    bea.page.close()  # Bea goes away: her seat shows as away, the host may hand it to a bot
    button = page.locator("#seat-1 .hand-to-bot")
    expect(button).to_be_visible(timeout=WAIT_MS)
    assert_all_german(page, names, "host")
    page.screenshot(path=str(artifacts / "host-390x844.png"), full_page=True)
    button.click()
    expect(page.locator("#seat-1 .tag.status")).to_have_text("Bot", timeout=WAIT_MS)
    expect(page.locator(".hand-to-bot")).to_have_count(0)
    assert phone.errors == []


def test_a_seat_a_bot_finished_is_listed_under_its_persons_name(person: Callable[..., Player], server: str) -> None:  # noqa: F811
    """Ann sits down and goes away; the host hands her seat, then his own, to bots, which finish the
    game. The lobby's finished games, My games and her profile list her (and the host) by name,
    marked as finished by a bot, in the page's language; My games names the table's bot by its
    level, as the profile does."""
    from playwright.sync_api import expect

    ann = person()
    name = unique("ann")
    register(ann, name)
    request = ann.page.request  # with Ann's login cookie
    guest = ann.page.context.browser.new_context()  # type: ignore[union-attr]  # the host: no account
    try:
        made = guest.request.post(f"{server}/api/tables", data={"seats": 3, "player": "Host", "bots": {"2": "random"}})
        assert made.ok, made.text()
        host = made.json()
        table = host["table"]
        joined = request.post(f"{server}/api/tables/{table}/join", data={"name": "x"}, headers={"Origin": server})
        assert joined.ok, joined.text()
        for seat in (joined.json()["seat"], host["seat"]):  # nobody connected: both seats are idle
            url = f"{server}/api/tables/{table}/seats/{seat}/bot"
            handed = guest.request.post(url, headers={"Authorization": f"Bearer {host['token']}"})
            assert handed.ok, handed.text()
    finally:
        guest.close()
    end = time.monotonic() + 60  # bounds a failure only
    while request.get(f"{server}/api/tables/{table}").json()["status"] != "over":
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.05)

    page = ann.page
    page.goto(server + "/")
    item = page.locator("#finished-tables li", has=page.locator(f"a[href='/t/{table}']"))
    expect(item).to_contain_text(f"{name} (finished by a bot)", timeout=WAIT_MS)
    expect(item).to_contain_text("Host (finished by a bot)")
    page.goto(server + "/games")
    game = page.locator(f'.game-item[data-table="{table}"]')
    expect(game.locator(".table-players")).to_have_text(
        f"Host (finished by a bot), {name} (finished by a bot), Random bot 3", timeout=WAIT_MS
    )
    page.goto(f"{server}/u/{name}")
    expect(page.locator("#recent")).to_contain_text(f"{name} (finished by a bot)", timeout=WAIT_MS)

    german = person(locale="de-DE")
    german.page.goto(f"{server}/u/{name}")
    expect(german.page.locator("#recent")).to_contain_text(f"{name} (von einem Bot zu Ende gespielt)", timeout=WAIT_MS)
    assert ann.errors == [] and german.errors == []
