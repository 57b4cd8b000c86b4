"""A newcomer in the browser: German and English, help in place, the purchase preview, the guided
first game (/learn), round 2's news, a phone's layout, the bid box's start and bots' names.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of
tests/test_browser.py; bots move at once). Screenshots go to $CATSACK_ARTIFACTS or
pytest's tmp_path, never into the repository.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import CATALOGUES, STATIC, assert_all_german, german_words, values
from catsack import Card, Game
from catsack.bots.heuristic import HeuristicBot
from catsack.events import Bought, DogChase, DogsCancel, LastChoice, Passed, Refill
from catsack.game import resolve_dogs
from catsack.server.routes import learn
from catsack.server.tables.seating import BOT_LEVELS
from test_browser import Player, artifacts, browser, people, server  # noqa: F401  (fixtures)

STEPS = ["welcome", *[m for m in ("first_reveal", "bidding", "pass_paid", "reveal_after_pass", "bought", "refill",
                                  "dog_chase", "last_choice", "dogs_cancel")], "free", "over"]  # fmt: skip
# The lobby, table, guided-game and replay pages and their modules (other pages keep their own keys).
MY_PAGES = ("index", "table", "learn", "replay")
MY_SCRIPTS = (
    "api",
    "cards",
    "coach",
    "connection",
    "dogs",
    "events",
    "i18n",
    "learn",
    "lobby",
    "rematch",
    "render",
    "replay",
    "table",
)


def _placeholders(value: Any) -> set[str]:
    return {p for v in values(value) for p in re.findall(r"\{(\w+)\}", v)}


def page_errors(player: Player) -> list[str]:
    """The page's JavaScript errors; the browser's own lines about HTTP statuses (a guest's 401 from
    the account check) are not the page's errors."""
    return [e for e in player.errors if not e.startswith("Failed to load resource")]


# ---------------------------------------------------------------------- catalogues (no browser)


def test_catalogues_have_the_same_keys_and_placeholders() -> None:
    """Both languages translate every string, with the same {placeholders} and plural forms."""
    en, de = CATALOGUES["en"], CATALOGUES["de"]
    assert en.keys() == de.keys(), sorted(en.keys() ^ de.keys())
    for key in en:
        assert _placeholders(en[key]) == _placeholders(de[key]), key
        assert type(en[key]) is type(de[key]), key
        if isinstance(en[key], dict):
            assert en[key].keys() == de[key].keys() == {"one", "other"}, key


def test_every_key_the_pages_use_is_in_the_catalogue() -> None:
    """Every t("key") of the scripts and every data-i18n* key of the pages exists (dynamic keys by prefix)."""
    keys = CATALOGUES["en"].keys()
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in [STATIC / f"{name}.js" for name in MY_SCRIPTS]:
        text = path.read_text("utf-8")
        used |= set(re.findall(r"\bt(?:Nodes)?\(\"([\w.:-]+)\"", text))  # tNodes: replay.js
        prefixes |= set(re.findall(r"\bt\(`([\w.:-]+)\$\{", text))
        used |= set(re.findall(r"\? \"([a-z]+\.[\w.]+)\" : \"", text))  # t(cond ? "a.b" : "a.c")
    for path in [STATIC / f"{name}.html" for name in MY_PAGES]:
        used |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', path.read_text("utf-8")))
    assert used, "no keys found: the scan is broken"
    assert sorted(used - keys) == []
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in keys), prefix


def test_the_german_check_would_catch_english() -> None:
    """The vocabulary test below is not vacuous: English game words are not German words."""
    assert not {"mice", "passes", "bids", "round", "places", "buys", "chases"} & german_words()


def test_learn_deal_has_every_moment_early() -> None:
    """The guided game's deal and script, replayed with the core and the heuristic bots, show
    every moment by round 4 (R11, R13, R14, R15, R16, R17, R18) — as the server will play it."""
    game = Game(learn.learn_setup(), events=True)
    bots = {s: HeuristicBot(seed=s) for s in learn.BOTS}
    for s, b in bots.items():
        b.reset(s, 4)
    script = list(learn.SCRIPT)
    seen: dict[str, int] = {}
    while (seat := game.to_move) is not None:
        rnd = game.round
        if seat == learn.LEARNER and script:
            game.play(script.pop(0))
        elif seat == learn.LEARNER:
            game.play(game.legal_moves()[-1])
        else:
            game.play(bots[seat].choose(game.view(seat)))
        for ev in game.last_events():
            kind = None
            if isinstance(ev, Passed) and ev.seat == learn.LEARNER and ev.payout > 0:
                kind = "learner paid"
            elif isinstance(ev, DogChase) and ev.cat is not None:
                kind = "chase"
            elif isinstance(ev, DogsCancel):
                kind = "cancel"
            elif isinstance(ev, Bought) and ev.seat == learn.LEARNER:
                kind = "learner bought"
            elif isinstance(ev, Refill) and ev.filled:
                kind = "refill"
            elif isinstance(ev, LastChoice) and ev.seat == learn.LEARNER:
                kind = "learner's last choice"
            if kind:
                seen.setdefault(kind, rnd)
    assert script == [], "the script must stay legal all the way"
    assert set(seen) == {"learner paid", "chase", "cancel", "learner bought", "refill", "learner's last choice"}, seen
    assert max(seen.values()) <= 4, seen


# ---------------------------------------------------------------------- browser helpers


def start_learning(player: Player, name: str = "Ann") -> None:
    page = player.page
    page.goto(player.base + "/learn")
    page.wait_for_selector("#lang-picker")  # the page's script ran (its catalogue loads first): the form is live
    page.fill("#learn-name", name)
    page.click("#learn-start")
    page.wait_for_url("**/t/*")
    page.wait_for_function("() => document.body.dataset.version !== undefined && document.body.dataset.version !== ''")


# What the guided game's page shows, read in one round trip: the coach's button and step, whose
# turn it is, and the suggested move (the highlighted control).
COACH_STATE = """() => {
  const b = document.body.dataset;
  const s = document.querySelector(".coach-suggest");
  let suggest = null;
  if (s) suggest = s.dataset.move || (s.dataset.bid ? `bid ${s.dataset.bid}` : "");
  if (s && !suggest) suggest = s.id === "pass-button" ? "pass" : "bid 1";
  return { next: !!document.getElementById("coach-next"), step: b.coachStep || "", phase: b.phase,
           version: b.version, suggest };
}"""


def coach_move(player: Player, on_step: Callable[[str], None] | None = None) -> str:
    """One step of the guided game: acknowledge the coach, or play the suggested (else any) move.
    ``on_step`` sees the coach's step on show first. Returns 'next', the move, or 'over'."""
    page = player.page
    page.wait_for_function(
        "() => document.body.dataset.myTurn === 'yes' || document.body.dataset.phase === 'over'"
        " || !!document.getElementById('coach-next')"
    )
    shown: dict[str, Any] = page.evaluate(COACH_STATE)
    if shown["step"] and on_step is not None:
        on_step(shown["step"])
    if shown["next"]:
        page.click("#coach-next")
        return "next"
    if shown["phase"] == "over":
        return "over"
    if shown["suggest"] is None:
        return player.act()
    page.click(".coach-suggest")
    page.wait_for_function(
        "v => document.body.dataset.version !== v && document.body.dataset.busy === 'no'", arg=shown["version"]
    )
    player.moves.append(shown["suggest"])
    return str(shown["suggest"])


# ---------------------------------------------------------------------- the guided game, in German


def test_guided_game_in_german(people: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """/learn in German: every coach step appears and points at its part of the page, the whole
    game is played by clicking the suggested moves, no English is left on the table page at any
    step, and the last choice's preview names exactly what 1 mouse buys (R15, R16)."""
    ann = people(viewport={"width": 1280, "height": 900}, locale="de-DE")
    start_learning(ann)
    page = ann.page
    assert page.evaluate("document.documentElement.lang") == "de"
    names = {"Ann"}
    shown: list[str] = []
    last_choice_kept: list[str] = []

    def on_step(step: str) -> None:
        if ann.body("phase") == "last choice" and ann.body("myTurn") == "yes" and not last_choice_kept:
            assert page.get_attribute("#preview", "data-exact") == "yes"
            last_choice_kept.append(page.get_attribute("#preview", "data-kept") or "")
            assert page.is_visible("#buy-preview") and "1 Maus kauft genau" in page.inner_text("#buy-preview")
        if step in shown:
            return
        shown.append(step)
        assert page.locator(".coach-spot").count() == 1, f"step {step} points at nothing"
        assert_all_german(ann.page, names, f"coach step {step}")
        if step in ("welcome", "dog_chase", "dogs_cancel", "last_choice"):
            page.screenshot(path=str(artifacts / f"learn-de-{len(shown):02d}-{step}.png"))

    for _ in range(300):
        if coach_move(ann, on_step) == "over":
            break
    else:
        pytest.fail("the guided game does not end")
    page.wait_for_function("() => document.body.dataset.coachStep === 'over'")
    on_step("over")
    assert shown[0] == "welcome" and shown[-2:] == ["free", "over"], shown
    assert sorted(shown) == sorted(STEPS), shown
    assert ann.body("coachSeen").split() == shown
    assert_all_german(ann.page, names, "game over")
    page.screenshot(path=str(artifacts / "learn-de-end.png"), full_page=True)
    # The buy for 1 mouse took exactly what the preview said (R15, R16).
    assert last_choice_kept, "the learner never had the last choice"
    record = page.request.get(f"{ann.base}/api/tables/{page.url.rsplit('/', 1)[1]}/record").json()
    game = Game.from_setup(4, record["start"], [Card.parse(t) for t in record["removed"]], [])
    bought = None
    for move in record["moves"]:
        last_choice = game.phase == "last choice"
        game.play(move)
        if last_choice and move == "bid 1":
            bought = next(ev for ev in game.last_events() if isinstance(ev, Bought))
    assert bought is not None and " ".join(c.token for c in bought.cards) == last_choice_kept[0]
    # Start again at any time: a fresh guided game, coach from the beginning.
    page.click("#coach-restart")
    page.wait_for_url("**/learn")
    page.click("#learn-start")
    page.wait_for_url("**/t/*")
    page.wait_for_function("() => document.body.dataset.coachStep === 'welcome'")
    assert page_errors(ann) == []


# ---------------------------------------------------------------------- language, help, preview


def test_language_picker_remembers_and_lobby_is_german(people: Callable[..., Player]) -> None:  # noqa: F811
    """The browser's language is the default; the picker switches, and the choice is kept in
    localStorage and the catsack_lang cookie (which /rules reads). Lobby, a waiting table and the
    join panel then show no English."""
    ann = people(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ann.page
    page.goto(ann.base + "/")
    page.wait_for_selector("#seat-setup select")
    assert page.inner_text("#create-title") == "New table"
    page.select_option("#lang-picker", "de")
    page.wait_for_function("() => document.documentElement.lang === 'de'")
    page.wait_for_selector("#seat-setup select")
    assert page.inner_text("#create-title") == "Neuer Tisch"
    assert page.evaluate("localStorage.getItem('catsack:lang')") == "de"
    assert {"name": "catsack_lang", "value": "de"}.items() <= next(
        c for c in ann.context.cookies() if c["name"] == "catsack_lang"
    ).items()
    assert_all_german(ann.page, {"Ann"}, "lobby")
    page.reload()
    page.wait_for_selector("#seat-setup select")
    assert page.inner_text("#create-title") == "Neuer Tisch"
    # The table page waiting for a second person, and that person's join panel, in German too.
    table = ann.create_table("Ann", ["human", "heuristic"])
    assert_all_german(ann.page, {"Ann"}, "table waiting for players")
    bea = people(viewport={"width": 1280, "height": 900}, locale="de-AT")
    bea.page.goto(f"{ann.base}/t/{table}")
    bea.page.wait_for_selector("#join-panel:not([hidden]) .join-seat")
    assert_all_german(bea.page, {"Ann"}, "join panel")
    assert page_errors(ann) == [] and page_errors(bea) == []


def test_help_in_place_and_rules_link(people: Callable[..., Player]) -> None:  # noqa: F811
    """Each term of the table page has its help (R7, R10-R18), and "How to play" opens /rules beside the game."""
    ann = people(viewport={"width": 1280, "height": 900})
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    page = ann.page
    assert ann.wait_turn_or_end()
    ann.act()
    page.wait_for_function("() => document.body.dataset.phase === 'bidding'")
    for term in ("mouseCards", "row", "removed", "bank", "start"):
        tip = page.locator(f'.help-tip[data-help="{term}"]')
        assert tip.count() == 1 and tip.is_visible(), term
        assert len(tip.get_attribute("title") or "") > 30, term
    tip = page.locator('.help-tip[data-help="bank"]')
    tip.click()
    assert "Bank" in page.inner_text(".help-pop")
    page.locator("#status-line").click()
    assert page.locator(".help-pop").count() == 0
    assert page.locator(".mouse-card.next").get_attribute("title") == CATALOGUES["en"]["help.nextPass"]
    assert page.locator(".tag.start[title]").count() == 1
    link = page.locator("#rules-link")
    assert link.get_attribute("href") == "/rules?lang=en"
    assert link.get_attribute("target") not in (None, "", "_self", "_top", "_parent")
    with ann.context.expect_page() as opened:
        link.click()
    opened.value.wait_for_load_state()
    assert opened.value.url.endswith("/rules?lang=en")
    assert page.url.rsplit("/", 2)[-2] == "t"  # the game page stays where it was
    assert page_errors(ann) == []


def test_purchase_preview_matches_the_core(people: Callable[..., Player], server: str) -> None:  # noqa: F811
    """dogs.js resolves random rows exactly as the core's resolve_dogs (R16), and the preview of a
    partly face-up row uses only the face-up cards (R23)."""
    rng = random.Random(16)
    tokens = [c.token for c in Card]
    rows = [[rng.choice(tokens) for _ in range(rng.randint(3, 5))] for _ in range(400)]
    rows += [
        ["LD", "R", "-5", "-8"],
        ["SD", "+3", "+15", "R"],
        ["LD", "SD", "+15"],
        ["SD", "R", "R"],
        ["LD", "+11", "+11"],
    ]
    ann = people()
    ann.page.goto(server + "/static/favicon.svg")
    got = ann.page.evaluate(
        "async rows => { const m = await import('/static/dogs.js'); return rows.map((r) => m.resolveDogs(r)); }", rows
    )
    for row, answer in zip(rows, got, strict=True):
        chased, kept = resolve_dogs([Card.parse(t).value for t in row])
        assert answer == {"chased": [c.token for c in chased], "kept": [c.token for c in kept]}, row
    view = {
        "row": [
            {"card": "LD", "face_up": True},
            {"card": "+11", "face_up": True},
            {"card": "-8", "face_up": False},
            {"card": None, "face_up": False},
        ]
    }
    preview = ann.page.evaluate("async v => (await import('/static/dogs.js')).purchasePreview(v)", view)
    assert preview == {"exact": False, "hidden": 2, "dogs": ["LD"], "chased": ["LD", "+11"], "kept": []}


# ---------------------------------------------------------------------- a newcomer's first games


def test_dog_news_stays_with_its_round(people: Callable[..., Player]) -> None:  # noqa: F811
    """The guided game's round 2 ends with two dogs cancelling (R16); that news is told
    under "Last round (2)", and no banner about it is on screen once round 3 has begun."""
    ann = people(viewport={"width": 1280, "height": 900})
    start_learning(ann)
    page = ann.page
    while not (ann.body("round") == "3" and ann.body("myTurn") == "yes"):
        coach_move(ann)
    assert page.is_hidden("#banner")
    assert page.get_attribute("#last-round", "data-round") == "2"
    assert "2 dogs cancelled each other out" in page.inner_text("#last-round .last-summary")
    assert page.text_content("#last-round h3") == "Last round (2)"
    assert page_errors(ann) == []


def test_phone_layout(people: Callable[..., Player], artifacts: Path) -> None:  # noqa: F811
    """A 390x844 phone: the header is one line, the row and the bid/pass buttons
    are on one screen, and no keyboard badges or shortcut hints are shown on a touch screen."""
    phone = people(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, device_scale_factor=2)
    page = phone.page
    phone.create_table("Pip", ["heuristic", "heuristic", "heuristic"])
    assert phone.wait_turn_or_end()
    assert page.locator(".key-hint:visible").count() == 0
    assert page.is_hidden("#help")
    assert "1–9" not in page.inner_text("#status-line")
    phone.act()
    while phone.body("phase") != "bidding" or phone.body("myTurn") != "yes":
        assert phone.wait_turn_or_end()
        if phone.body("phase") != "bidding":
            phone.act()
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(artifacts / "phone-390x844-bidding.png"))
    tops = page.evaluate(
        "[...document.querySelectorAll('.topbar > *')].filter((e) => e.getClientRects().length)"
        ".map((e) => e.getBoundingClientRect().top)"
    )
    assert max(tops) - min(tops) < 16, f"the header wraps: {tops}"
    header = page.locator(".topbar").bounding_box()
    assert header is not None and header["height"] < 60
    row = page.locator("#row").bounding_box()
    pass_button = page.locator("#pass-button").bounding_box()
    bid = page.locator("#bid-button").bounding_box()
    assert row and pass_button and bid
    assert row["y"] >= 0 and max(pass_button["y"] + pass_button["height"], bid["y"] + bid["height"]) <= 844, (
        row,
        pass_button,
        bid,
    )
    assert "(P)" not in page.inner_text("#status-line")
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
    assert page_errors(phone) == []


def test_bid_box_agrees_with_status(people: Callable[..., Player]) -> None:  # noqa: F811
    """A new bidding turn starts the bid box at the lowest legal bid that the status
    line names, whatever was typed in an earlier turn (R12)."""
    ann = people(viewport={"width": 1280, "height": 900})
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    page = ann.page
    typed = False
    for _ in range(80):
        assert ann.wait_turn_or_end(), "the game ended before a second bidding turn"
        if ann.body("phase") == "bidding" and page.is_enabled("#bid-amount"):
            low = int(page.get_attribute("#bid-amount", "min") or 0)
            value = page.input_value("#bid-amount")
            status = page.inner_text("#status-line")
            if typed:
                assert value == str(low), (value, status)
                assert f"bid {low} or more" in status
                break
            high = int(page.get_attribute("#bid-amount", "max") or 0)
            if high >= low + 3:
                page.fill("#bid-amount", str(low + 3))  # typed but never sent
                typed = True
                before = ann.body("version")
                page.click("#pass-button")
                page.wait_for_function("v => document.body.dataset.version !== v", arg=before)
                continue
        ann.act()
    else:
        pytest.fail("no second bidding turn")
    assert typed and page_errors(ann) == []


def test_friendly_bot_names(people: Callable[..., Player], server: str) -> None:  # noqa: F811
    """Bots show as "Strong bot 2" with their spec in a tooltip, and the names
    under the row cards are not cut off."""
    ann = people(viewport={"width": 1280, "height": 900})
    ann.page.goto(server + "/")
    ann.page.wait_for_selector("#seat-setup select")
    offered = ann.page.eval_on_selector("#seat-setup select", "s => [...s.options].map(o => o.value)")
    assert offered == ["human", *BOT_LEVELS]  # the lobby offers the server's levels, weakest first
    players = [{"seat": 0, "kind": "human", "name": "Ann"}] + [
        {"seat": i, "kind": "bot", "name": f"{spec} {i + 1}"}
        for i, spec in enumerate(["expert:strong", "ismcts:strong", "random", "heuristic"], start=1)
    ]
    names, titles = ann.page.evaluate(
        "async ps => { const r = await import('/static/render.js'); const n = r.seatNames(ps, 5);"
        " return [n, r.seatTitles(ps, 5, n)]; }",
        players,
    )
    assert names == ["Ann", "Strong bot 2", "Strong search bot (classic) 3", "Random bot 4", "Simple bot 5"]
    assert titles[1] == "Bot (expert:strong)" and titles[2] == "Bot (ismcts:strong)" and titles[4] == "Bot (heuristic)"

    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    assert ann.wait_turn_or_end()
    ann.act()
    ann.page.wait_for_function("() => document.querySelectorAll('#row .slot .owner').length === 4")
    owners = ann.page.locator("#row .slot .owner")
    for i in range(owners.count()):
        owner = owners.nth(i)
        text = owner.inner_text()
        assert ":" not in text and "heuristic" not in text, text
        clipped = owner.evaluate("e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight + 1")
        assert not clipped, text
        if text != "Ann":
            assert text.startswith("Simple bot") and owner.get_attribute("title") == "Bot (heuristic)"
    assert page_errors(ann) == []
