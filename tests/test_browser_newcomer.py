"""A new player's first hour in the browser (the terminal's side is in test_terminal_newcomer.py).

Playwright drives Debian's Chromium against a real ``catsack serve`` (the fixtures of
tests/test_browser.py; bots move at once). Each test failed before its fix.
Screenshots go to $CATSACK_ARTIFACTS or pytest's tmp_path.
"""

from __future__ import annotations

import json
import time
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
    """B, then +, then Enter emptied the box ("+" typed into it) and answered "Bid a whole
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
    """A refusal's details came in the server's English inside German pages."""
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
    """The quick play table looked started (round 1/9, a dealt hand, "to move") while it
    waited for people forever, and its open seats could not be given to bots afterwards."""
    ann = people(viewport={"width": 1280, "height": 900})
    page = ann.page
    page.goto(ann.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.fill("#your-name", "Ann")
    page.check('input[name="seats"][value="3"]')
    page.click("#quick-play")
    page.wait_for_url("**/t/*")
    page.wait_for_function("() => document.body.dataset.tableStatus === 'open'")
    assert page.is_visible("#waiting") and page.is_visible("#fill-button")
    for started in ("#round-badge", "#board", "#hand", "#bid-form"):
        assert not page.is_visible(started), started
    # Nor do the seats: nobody is "to move", no hand is counted, nobody starts before every seat is taken.
    assert page.locator("#seats .seat").count() == 3
    assert page.locator("#seats .fact, #seats .tag.start").count() == 0
    page.screenshot(path=str(artifacts / "quick-play-waiting.png"))
    page.select_option("#fill-level", "random")
    page.click("#fill-button")
    page.wait_for_function("() => document.body.dataset.tableStatus === 'playing'")
    assert not page.is_visible("#waiting") and page.is_visible("#board") and page.is_visible("#round-badge")
    assert ann.wait_turn_or_end()
    assert ann.errors == []


def test_quick_play_with_bots_starts_at_once(people: Callable[..., Player]) -> None:  # noqa: F811
    """The player may choose bots at once instead of waiting."""
    ann = people(viewport={"width": 1280, "height": 900})
    page = ann.page
    page.goto(ann.base + "/")
    page.wait_for_selector("#seat-setup select")
    page.fill("#your-name", "Ann")
    page.click("#quick-bots")
    page.wait_for_url("**/t/*")
    page.wait_for_function("() => document.body.dataset.tableStatus === 'playing'")
    assert not page.is_visible("#waiting")
    assert ann.wait_turn_or_end()
    assert ann.errors == []


# ---------------------------------------------------------------------- 4: layout at the sizes people use


def finished_table(base: str) -> str:
    """A game of four random bots, played to its end (30 s bounds a failure only)."""
    body = json.dumps({"seats": 4, "bots": {str(s): "random" for s in range(4)}, "name": "Bots only"}).encode()
    request = urllib.request.Request(
        f"{base}/api/tables", data=body, headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        table = str(json.load(answer)["table"])
    end = time.monotonic() + 30
    while state(base, table)["view"]["phase"] != "over":
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.05)
    return table


def test_recent_games_keep_a_readable_column_at_1366(
    people: Callable[..., Player],  # noqa: F811
    server: str,  # noqa: F811
    artifacts: Path,  # noqa: F811
) -> None:
    """At 1366x900 the lobby's "Recent games" squeezed each game's text into 58 px, one
    letter per line, beside its buttons."""
    finished_table(server)
    for width, height in ((1366, 900), (390, 844)):
        page = people(viewport={"width": width, "height": height}).page
        page.goto(server + "/")
        page.wait_for_selector("#finished-tables .table-item")
        page.screenshot(path=str(artifacts / f"lobby-{width}.png"), full_page=True)
        widths = page.evaluate(
            "[...document.querySelectorAll('#finished-tables .table-item > .table-players')]"
            ".map(e => e.getBoundingClientRect().width)"
        )
        assert widths and min(widths) >= 200, (width, widths)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), width


def test_quick_bids_wrap_on_a_phone(people: Callable[..., Player]) -> None:  # noqa: F811
    """On a phone the quick-bid row scrolled sideways and hid its last buttons. With the
    widest labels it can get (two- and three-digit bids in German) every button stays on screen."""
    ann = people(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="de-DE")
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic", "heuristic"])
    page = ann.page
    page.wait_for_selector("#me:not([hidden])")
    page.evaluate(
        """() => {
          const box = document.getElementById("quick-bids");
          box.replaceChildren(...["104 bieten", "105 bieten", "106 bieten", "108 bieten", "Alles: 108"].map((text) => {
            const b = document.createElement("button");
            b.className = "button small quick-bid";
            b.textContent = text;
            return b;
          }));
        }"""
    )
    spans = page.evaluate(
        "[...document.querySelectorAll('#quick-bids .quick-bid')].map(b => b.getBoundingClientRect().right)"
    )
    assert len(spans) == 5 and max(spans) <= 390, spans
    assert page.evaluate("(q => q.scrollWidth <= q.clientWidth)(document.getElementById('quick-bids'))")


def test_the_hint_panel_opens_in_view_at_1366(people: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """At 1366x900 the hint panel opened below the fold, under the hand."""
    ann = people(viewport={"width": 1366, "height": 900})
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"], hints=True)
    page = ann.page
    assert ann.wait_turn_or_end()
    page.click("#hint-button")
    page.wait_for_selector("#hint-panel:not([hidden])", timeout=60_000)
    page.wait_for_function(
        "() => { const r = document.getElementById('hint-panel').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight + 1; }"
    )
    page.screenshot(path=str(artifacts / "hint-1366.png"))


def test_end_screen_names_no_pending_high_bid_and_bots_read_friendly(
    people: Callable[..., Player],  # noqa: F811
    server: str,  # noqa: F811
) -> None:
    """The end screen still said "none yet" for the high bid; profiles listed bots as
    "heuristic 1"; the lobby's footer showed developer text ("(R23). API: /docs")."""
    table = finished_table(server)
    page = people(viewport={"width": 1280, "height": 900}).page
    page.goto(f"{server}/t/{table}")
    page.click("#watch-button")
    page.wait_for_function("() => document.body.dataset.phase === 'over'")
    assert page.inner_text("#high-bid").strip() == "–"
    named = page.evaluate(
        """async () => {
          const r = await import("/static/render.js");
          return ["heuristic 1", "expert:strong 3", "random 5", "Ann", "heuristic"].map(r.playerName);
        }"""
    )
    assert named == ["Simple bot 1", "Strong bot 3", "Random bot 5", "Ann", "heuristic"]
    page.goto(server + "/")
    page.wait_for_selector("#seat-setup select")
    footer = page.inner_text("footer")
    assert "R23" not in footer and "/docs" not in footer and "API" not in footer, footer


# ---------------------------------------------------------------------- the pages' findings of a review


def test_my_games_badge_on_every_page_of_an_account(people: Callable[..., Player], server: str) -> None:  # noqa: F811
    """The My games link (with its badge) was missing from the tournaments, training, reset and fair-play pages."""
    from test_browser_accounts import register, unique

    ann = people(viewport={"width": 1280, "height": 900})
    register(ann, unique("Badge"))
    for path in ("/tournaments", "/training", "/reset", "/admin/fairplay", "/", "/games"):
        ann.page.goto(server + path)
        ann.page.wait_for_selector("#mygames-link", state="attached")


def test_training_on_a_fresh_install_says_how_positions_come(people: Callable[..., Player]) -> None:  # noqa: F811
    """/training opened on an empty "bot games" list on a fresh install; now it opens on whichever list has
    positions, and with none says how they come."""
    from browser_i18n import CATALOGUES

    player = people(viewport={"width": 1280, "height": 900})
    player.page.goto(player.base + "/training")
    player.page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    assert player.page.inner_text("#train-empty") == CATALOGUES["en"]["train.emptyAll"]
    assert player.errors == [] or all("401" in e or "Failed to load" in e for e in player.errors), player.errors


def test_unknown_profile_shows_its_error_alone(people: Callable[..., Player]) -> None:  # noqa: F811
    """An unknown player's profile showed an empty skeleton (rating, games, charts) under its error."""
    player = people(viewport={"width": 1280, "height": 900})
    player.page.goto(player.base + "/u/nobody-of-that-name")
    player.page.wait_for_selector("#banner:not([hidden])")
    for part in (".stats", "#chart", "main h2"):  # the rating's list, its chart, "Recent games"
        assert player.page.locator(f"{part}:visible").count() == 0, part


def test_guided_game_has_no_invite_link_or_chat(people: Callable[..., Player]) -> None:  # noqa: F811
    """The guided game (/learn) offered an invite link and a chat, though nobody else can join it."""
    from test_browser_learn import start_learning

    ann = people(viewport={"width": 1280, "height": 900})
    start_learning(ann)
    ann.page.wait_for_selector("#coach:not([hidden])")
    assert not ann.page.is_visible("#invite-button") and not ann.page.is_visible("#chat-panel")


def test_words_numbers_and_plurals_by_the_locale(people: Callable[..., Player]) -> None:  # noqa: F811
    """Moves name their cards in words, in the case the language needs ("lege den großen Hund", never
    "place LD"); decimals, plurals and lists come from Intl in each language."""
    said = {}
    for lang in ("en", "de", "fr"):
        player = people(viewport={"width": 800, "height": 600})
        player.page.goto(f"{player.base}/?lang={lang}")
        player.page.wait_for_selector("#seat-setup select")
        said[lang] = player.page.evaluate(
            """async () => {
              const r = await import("/static/render.js");
              const i = await import("/static/i18n.js");
              return [r.moveText("place LD"), r.moveText("place -8"), i.num(2.5, 1), i.t("mice", { n: 0 }),
                      i.t("mice", { n: 1 }), i.list(["Ann", "Bea", "Cy"])];
            }"""
        )
    assert said["en"] == ["place the large dog", "place −8", "2.5", "0 mice", "1 mouse", "Ann, Bea, and Cy"]
    assert said["de"] == ["lege den großen Hund", "lege −8", "2,5", "0 Mäuse", "1 Maus", "Ann, Bea und Cy"]
    assert said["fr"] == ["poser le grand chien", "poser −8", "2,5", "0 souris", "1 souris", "Ann, Bea et Cy"]
