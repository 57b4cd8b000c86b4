"""Every page checked for accessibility by axe-core (Deque's engine, shipped by axe-playwright-python) in
Chromium: no serious or critical violation, in the light and the dark theme (prefers-color-scheme, as
Playwright emulates it) and in every language of catsack.locales. Also: a skip link first on every page,
and the table page's tab order.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of tests/test_browser.py).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from browser_i18n import CATALOGUES, WORD, assert_in_language
from catsack.locales import LANGUAGES
from catsack.rulebook import LANGUAGES as RULES_LANGUAGES
from test_browser import Player, browser, people, server, skip_or_fail  # noqa: F401  (fixtures)
from test_browser_accounts import PASSWORD, unique

pytestmark = pytest.mark.slow

#: The pages by a name, with their address ({table}, {name}, {tour} filled in) and what shows they are ready.
PAGES: dict[str, tuple[str, str]] = {
    "lobby": ("/", "#seat-setup select"),
    "learn": ("/learn", "#learn-start:not(:empty)"),
    "rules": ("/rules", "h1"),
    "replay": ("/replay/{table}", "#timeline li"),
    "upload": ("/replay", "#upload-title:not(:empty)"),
    "account": ("/account", "#me-link:not(:empty)"),
    "profile": ("/u/{name}", "#p-rating:not(:empty)"),
    "unknown profile": ("/u/nobody{name}", "#banner:not([hidden])"),
    "my games": ("/games", "#mygames-title:not(:empty)"),
    "friends": ("/friends", "#friends-title:not(:empty)"),
    "tournaments": ("/tournaments", "body[data-ready='yes']"),
    "tournament": ("{tour}", "body[data-ready='yes']"),
    "training": ("/training", "#train-pick-title:not(:empty)"),
    "admin": ("/admin/fairplay", "#denied:not([hidden])"),
    "reset": ("/reset", "#ask-form"),
    "leaderboard": ("/leaderboard", "body[data-ready='yes']"),
    "database": ("/database", "body[data-ready='yes']"),
    "explorer": ("/database/explorer", "body[data-ready='yes']"),
}


def violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations of the page as it is now, one line each."""
    if importlib.util.find_spec("axe_playwright_python") is None:
        skip_or_fail("axe-playwright-python is not installed (pip install -e '.[dev]')")
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    found = []
    for v in results.response["violations"]:
        if v["impact"] in ("serious", "critical"):
            targets = [" ".join(map(str, n["target"])) for n in v["nodes"][:4]]
            found.append(f"{v['id']} ({v['impact']}): {v['help']} at {targets}")
    return found


@pytest.fixture(scope="module")
def world(server: str, browser: Any) -> Iterator[dict[str, str]]:  # noqa: F811
    """What the pages show: a finished bot game, an account with a rated game's profile, a tournament."""
    context = browser.new_context()
    request = context.request
    made = request.post(f"{server}/api/tables", data={"seats": 4, "bots": {str(i): "random" for i in range(4)}})
    assert made.ok, made.text()
    table = str(made.json()["table"])
    name = unique("Axe")
    registered = request.post(
        f"{server}/api/account/register",
        data={"name": name, "password": PASSWORD},
        headers={"Origin": server},
    )
    assert registered.ok, registered.text()
    tour = request.post(
        f"{server}/api/tournaments",
        data=json.dumps({"name": "Friday", "seats": 4, "rounds": 2, "bots": ["heuristic"]}),
        headers={"Content-Type": "application/json", "Origin": server},
    )
    assert tour.ok, tour.text()
    tour_url = str(tour.json()["url"])
    page = context.new_page()
    page.goto(f"{server}/health")
    page.wait_for_function(
        "url => fetch(url).then(r => r.json()).then(t => t.status === 'over')",
        arg=f"{server}/api/tables/{table}",
        polling=200,
        timeout=120_000,
    )
    state = context.storage_state()
    context.close()
    yield {"table": table, "name": name, "tour": tour_url, "state": json.dumps(state)}


def scan(player: Player, path: str, ready: str, lang: str) -> list[str]:
    page = player.page
    page.goto(player.base + path)
    page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)
    page.wait_for_selector(ready, state="attached")
    return violations(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_every_page_passes_axe(
    people: Callable[..., Player],  # noqa: F811
    world: dict[str, str],
    lang: str,
    scheme: str,
) -> None:
    """No serious or critical axe-core violation on any page, logged in, in this language and theme; the
    table page in play and finished too. And no page shows a raw catalogue key or a word outside its
    language's catalogue."""
    player_locale = {"en": "en-US", "de": "de-DE", "fr": "fr-FR"}.get(lang, lang)
    player = people(
        viewport={"width": 1280, "height": 900},
        color_scheme=scheme,
        locale=player_locale,
        storage_state=json.loads(world["state"]),
    )
    found: dict[str, list[str]] = {}
    # Names on these pages are no language: the account's ("Axe<digits>x<digits>"), the tournament's, the table's.
    names = {w for n in ("Friday", world["name"], "nobody" + world["name"], world["table"]) for w in WORD.findall(n)}
    # The open tables of the other languages' runs, named in their language ("Table de Axe").
    names |= {w for c in CATALOGUES.values() for w in WORD.findall(c["lobby.defaultTable"])}
    for what, (path, ready) in PAGES.items():
        address = path.format(**world)
        if what == "rules":
            address += f"?lang={lang}"
        found[what] = scan(player, address, ready, lang if what != "rules" or lang in RULES_LANGUAGES else "en")
        if what != "rules":  # the rules page is the rulebook's, in the languages it is written in
            assert_in_language(player.page, lang, names, what)

    # The table in play (a guest's seat, the board, the hand) and finished (watched).
    guest = people(viewport={"width": 1280, "height": 900}, color_scheme=scheme, locale=player_locale)
    guest.create_table("Axe", ["heuristic", "heuristic", "heuristic"])
    guest.wait_turn_or_end()
    found["table in play"] = violations(guest.page)
    assert_in_language(guest.page, lang, names, "table in play")
    page = player.page
    page.goto(f"{player.base}/t/{world['table']}")
    page.click("#watch-button")
    page.wait_for_selector("#final:not([hidden])")
    found["table finished"] = violations(page)
    assert_in_language(page, lang, names, "table finished")
    bad = {what: v for what, v in found.items() if v}
    assert bad == {}, f"{lang}, {scheme}: {json.dumps(bad, indent=1, ensure_ascii=False)}"


def test_skip_link_first_on_every_page(people: Callable[..., Player], world: dict[str, str]) -> None:  # noqa: F811
    """The first Tab on every page lands on a link to the page's main content, and following it moves focus there."""
    player = people(viewport={"width": 1280, "height": 900}, storage_state=json.loads(world["state"]))
    page = player.page
    for what, (path, ready) in [*PAGES.items(), ("table", ("/t/{table}", "#join-panel"))]:
        if what == "rules":
            continue  # the rules page is the rulebook's own (server-rendered, no scripts)
        page.goto(player.base + path.format(**world))
        page.wait_for_selector(ready, state="attached")
        page.keyboard.press("Tab")
        focused = page.evaluate("[document.activeElement.className, document.activeElement.getAttribute('href')]")
        assert focused == ["skip-link", "#main"], (what, focused)
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main", what


def test_table_tab_order(people: Callable[..., Player]) -> None:  # noqa: F811
    """On the table page, Tab goes from the skip link through the top bar to the text table switch, then the
    hand's cards in order, then the bid and pass controls: the order of the page's reading."""
    ann = people(viewport={"width": 1280, "height": 900})
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    assert ann.wait_turn_or_end()
    page = ann.page
    page.evaluate("document.activeElement.blur()")
    order: list[str] = []
    for _ in range(80):  # once round the page, back to its first stop
        page.keyboard.press("Tab")
        el = page.evaluate(
            "(() => { const e = document.activeElement; return e.id || e.dataset.key || e.className || e.tagName })()"
        )
        if order and str(el) == order[0]:
            break
        order.append(str(el))
    assert order[0] == "skip-link"
    top = order.index("text-toggle")
    assert order.index("invite-button") < top < order.index("rules-link") < order.index("lang-picker")
    hand = [i for i, k in enumerate(order) if k.startswith("hand-")]
    assert hand and hand == list(range(hand[0], hand[0] + len(hand))), order  # the cards one after another
    assert order.index("lang-picker") < hand[0], order
    names: list[str] = page.evaluate(
        "[...document.querySelectorAll('.hand-card')].map(b => b.getAttribute('aria-label'))"
    )
    assert all(n and n.startswith("Place ") for n in names), names
    assert ann.errors == []


def test_dark_theme_keeps_text_on_the_felt_light(people: Callable[..., Player]) -> None:  # noqa: F811
    """axe cannot judge text on gradients (the wooden bar, the felt): in the dark theme that text stays light
    and the light cards' text stays dark."""
    ann = people(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    ann.create_table("Ann", ["heuristic", "heuristic", "heuristic"])
    assert ann.wait_turn_or_end()
    luminance: dict[str, float] = ann.page.evaluate(
        """sels => Object.fromEntries(sels.map(sel => {
             const [r, g, b] = getComputedStyle(document.querySelector(sel)).color.match(/\\d+/g).map(Number)
               .map(c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; });
             return [sel, 0.2126 * r + 0.7152 * g + 0.0722 * b];
           }))""",
        [".brand-text", "#table-title", "#my-money", "#bank", "#start-player", ".turn-alerts label", ".mouse-value"],
    )
    dark = {".mouse-value"}
    assert all(v > 0.6 for k, v in luminance.items() if k not in dark), luminance
    assert all(luminance[k] < 0.1 for k in dark), luminance
