"""The text table in the browser: a whole game played by typed commands alone, read from the page's one
live region, in English and in French (catsack.locales); the replay stepped through by commands.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py;
bots move at once). The test never clicks the drawn table: it types into the text table's command line
and reads what the live region says, as a screen reader user would hear it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import CATALOGUES
from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.slow

#: Every element that a screen reader treats as a live region.
LIVE = "[aria-live], [role=status], [role=alert], [role=log], [role=timer], [role=marquee]"


def live_regions(player: Player) -> int:
    """How many live regions the page has outside hidden parts."""
    count: int = player.page.evaluate(
        f"[...document.querySelectorAll({LIVE!r})].filter(el => !el.closest('[hidden]')).length"
    )
    return count


class Listener:
    """A screen reader's ear: every announcement of the live region, once, in order."""

    def __init__(self, player: Player) -> None:
        self.page = player.page
        self.heard: dict[int, tuple[str, str]] = {}  # n -> (kind, text)
        self.last = 0

    def listen(self) -> list[tuple[str, str]]:
        """The announcements since the last call."""
        found: list[list[Any]] = self.page.evaluate(
            "n => [...document.querySelectorAll('#live p')].filter(p => Number(p.dataset.n) > n)"
            ".map(p => [Number(p.dataset.n), p.dataset.kind, p.textContent])",
            self.last,
        )
        new = []
        for n, kind, text in found:
            self.heard[n] = (kind, text)
            new.append((kind, text))
            self.last = max(self.last, n)
        return new

    def wait(self, kind: str, pattern: str = "") -> str:
        """The next announcement of ``kind`` (matching ``pattern``) after those already heard."""
        self.page.wait_for_function(
            """([n, kind, pattern]) => [...document.querySelectorAll('#live p')].some(
                 p => Number(p.dataset.n) > n && p.dataset.kind === kind && new RegExp(pattern).test(p.textContent))""",
            arg=[self.last, kind, pattern],
        )
        for got_kind, text in self.listen():
            if got_kind == kind and re.search(pattern, text):
                return text
        raise AssertionError(f"no {kind} announcement matching {pattern!r}")  # pragma: no cover

    def send(self, line: str) -> None:
        """Type ``line`` into the text table (a move: its events answer it)."""
        self.listen()
        self.page.fill("#text-command", line)
        self.page.press("#text-command", "Enter")

    def type(self, line: str) -> str:
        """Type ``line`` into the text table and return the answer it says."""
        self.send(line)
        return self.wait("answer")

    def events(self) -> list[str]:
        return [text for kind, text in self.heard.values() if kind == "event"]


def play_by_text(player: Player, cat: dict[str, Any]) -> Listener:
    """Play the game of ``player``'s table to its end through the text table only; its Listener.

    Placement: the first card of the hand (read with the hand command). Bidding: the lowest bid while it
    is at most 2, else pass; the last choice: buy. Words come from the page language's catalogue ``cat``.
    """
    ear = Listener(player)
    word = {c: cat[f"text.cmd.{c}"].split("|")[0] for c in ("place", "bid", "buy", "pass", "hand", "scores")}
    your_turn = re.escape(cat["status.placeText"].split(":")[0])  # "Your turn", "À vous"
    nobody = re.escape(cat["status.lastChoiceText"].split(":")[0])
    over = re.escape(cat["ev.gameOverOne"].split(".")[0])
    bid_from = re.compile(re.escape(cat["status.bidText"].split("{min}")[0]) + r"(\d+)")
    turns = 0
    placing = cat["status.placeText"].split(" (")[0]
    while True:
        said = _next_turn(ear, your_turn, nobody, over)
        if said is None:
            break
        turns += 1
        assert turns < 120, "the game does not end"
        if re.match(nobody, said):
            ear.send(word["buy"])
        elif found := bid_from.search(said):
            # The state summary (plain text, not announced) shows the bids while the auction runs.
            assert cat["text.bids"].split("{")[0].strip() in player.page.inner_text("#text-state")
            lowest = int(found.group(1))
            ear.send(f"{word['bid']} {lowest}" if lowest <= 2 else word["pass"])
        elif said.startswith(placing):
            hand = ear.type(word["hand"])
            assert re.search(r"\b1 ", hand), hand
            ear.send(f"{word['place']} 1")
        else:
            ear.send(word["pass"])
    return ear


def _next_turn(ear: Listener, your_turn: str, nobody: str, over: str) -> str | None:
    """The next "your turn" announcement, or None once the game-over event is heard."""
    ear.page.wait_for_function(
        """([n, turn, over]) => [...document.querySelectorAll('#live p')].some(p => Number(p.dataset.n) > n &&
             ((p.dataset.kind === 'turn' && new RegExp(turn).test(p.textContent)) ||
              (p.dataset.kind === 'event' && new RegExp(over).test(p.textContent))))""",
        arg=[ear.last, f"^({your_turn}|{nobody})", f"^{over}"],
    )
    for kind, text in ear.listen():
        assert kind != "answer", f"a move was refused: {text}"
        if kind == "event" and re.match(over, text):
            return None
        if kind == "turn":
            return text
    raise AssertionError("no turn heard")  # pragma: no cover


def test_whole_game_through_the_text_table(people: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """A whole 4-seat game played by typing commands and listening to the one live region: every event is
    said once, reading commands answer on demand, and unknown or illegal commands get a clear answer."""
    en = CATALOGUES["en"]
    ann = people(viewport={"width": 1100, "height": 850})
    table = ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    page = ann.page
    page.click("#text-toggle")
    expect_on = page.locator("#text-toggle")
    assert expect_on.get_attribute("aria-pressed") == "true"
    assert page.evaluate("document.activeElement.id") == "text-command"
    assert live_regions(ann) == 1  # one polite live region; status, coach, preview, hint, log and chat are not live

    ear = Listener(ann)
    assert "place 3" in ear.type("help")
    assert ear.type("dance") == en["text.unknown"].replace("{word}", "dance")
    assert "Your hand: 1 " in ear.type("hand")
    assert ear.type("clock") == en["text.noClock"]
    assert ear.type("money").startswith("Your money: ")
    assert ear.type("place 12").startswith("You have no card “12”")
    assert ear.type("bid 3") == en["text.notBidding"]

    ear = play_by_text(ann, en)
    events = ear.events()
    assert events, "no event was announced"
    for n in range(2, 10):  # each round's start is said exactly once (round 1 began before the page came)
        assert sum(e.startswith(f"Round {n}:") for e in events) == 1, (n, events)
    assert any(e.startswith("Ann places a card face down") for e in events)

    final = ear.type("scores")
    assert final.startswith("1. ") and "Ann" in final, final
    assert ear.type("bid 5") == en["status.over"]
    assert page.locator("#final").is_visible()
    assert page.locator("#final .button.primary:visible").count() == 1  # one gold button: "Play again"
    assert live_regions(ann) == 1
    page.screenshot(path=str(artifacts / "text-table-end.png"), full_page=True)

    # The replay has the text table too (still switched on: the choice is kept), stepping by commands.
    page.goto(f"{ann.base}/replay/{table}")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    assert page.get_attribute("#text-toggle", "aria-pressed") == "true"
    ear = Listener(ann)
    assert ear.type("start") == en["replay.status.start"]
    assert ear.type("next").startswith("Move 1 of ")
    assert ear.type("row").startswith(("The row: 1, ", en["text.rowEmpty"]))
    assert ear.type("end").endswith(en["status.over"])
    assert ear.type("place 1") == en["text.replayMoves"]
    assert "next" in ear.type("help")
    assert live_regions(ann) == 1
    assert ann.errors == []


def test_whole_game_in_french_by_text(people: Callable[..., Player]) -> None:  # noqa: F811
    """A French browser (navigator.language fr-FR) gets the pages in French and plays a whole game with the
    French commands (pose, mise, passe, achète)."""
    fr = CATALOGUES["fr"]
    cyd = people(viewport={"width": 1100, "height": 850}, locale="fr-FR")
    cyd.page.goto(cyd.base + "/")
    cyd.page.wait_for_selector("#seat-setup select")
    assert cyd.page.evaluate("document.documentElement.lang") == "fr"
    assert cyd.page.inner_text("#create-button") == fr["lobby.create"]
    cyd.create_table("Cyd", ["heuristic", "heuristic"])
    page = cyd.page
    if page.get_attribute("#text-toggle", "aria-pressed") != "true":
        page.click("#text-toggle")
    ear = Listener(cyd)
    assert ear.type("aide") == fr["text.help"]
    assert ear.type("danse") == fr["text.unknown"].replace("{word}", "danse")
    assert ear.type("main").startswith("Votre main : 1 ")
    ear = play_by_text(cyd, fr)
    assert any(e.startswith("Manche 9 :") for e in ear.events())
    assert ear.type("scores").startswith("1. ")
    assert page.inner_text("#round-badge") == fr["badge.over"]
    assert cyd.errors == []


def test_commands_in_every_language(people: Callable[..., Player]) -> None:  # noqa: F811
    """The text table's words in German and French (any case, with or without accents), the English words in
    every language, and cards named by place, value, letters or name."""
    said = {}
    for lang in ("en", "de", "fr"):
        player = people(viewport={"width": 800, "height": 600})
        player.page.goto(f"{player.base}/?lang={lang}")
        player.page.wait_for_selector("#seat-setup select")
        said[lang] = player.page.evaluate(
            """async () => {
              const m = await import("/static/textmode.js");
              const hand = ["+11", "LD", "-5", "R"];
              const lines = ["place 2", "Lege 3", "POSE +11", "biete 7", "mise 7", "passe", "rangee", "rangée",
                             "Hilfe", "aide", "tanz"];
              const cards = ["2", "-5", "−5", "großer Hund", "grand chien", "lapin", "large dog", "9"];
              const parsed = (l) => { const p = m.parseCommand(l); return p.command ? `${p.command} ${p.arg}`.trim()
                                                                                     : `? ${p.unknown}`; };
              return [lines.map(parsed), cards.map((a) => m.cardOf(a, hand))];
            }"""
        )
    unknown = ["? Lege", "? POSE", "? biete", "? mise", "? passe", "? rangee", "? rangée", "? Hilfe", "? aide"]
    assert said["en"][0] == ["place 2", *unknown, "? tanz"]
    assert said["de"][0] == ["place 2", "place 3", "? POSE", "bid 7", "? mise", "pass", "? rangee", "? rangée",
                             "help", "? aide", "? tanz"]  # fmt: skip
    assert said["fr"][0] == ["place 2", "? Lege", "place +11", "? biete", "bid 7", "pass", "row", "row", "? Hilfe",
                             "help", "? tanz"]  # fmt: skip
    assert said["en"][1] == ["LD", "-5", "-5", None, None, None, "LD", None]
    assert said["de"][1] == ["LD", "-5", "-5", "LD", None, None, "LD", None]
    assert said["fr"][1] == ["LD", "-5", "-5", None, "LD", "R", "LD", None]
