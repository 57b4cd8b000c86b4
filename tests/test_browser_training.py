"""Learn from your mistakes in the browser: finish a game, open its analysis, retry one of
your mistakes from the training page, and see the verdict, in English and on a phone in German.

Playwright drives Debian's Chromium against a real `catsack serve` (the fixtures of
tests/test_browser.py, bots move at once) with a cheap expert analysis level. Screenshots go to
$CATSACK_ARTIFACTS or pytest's tmp_path, never into the repository.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from browser_i18n import CATALOGUES
from test_browser import Player, artifacts, launched, people, served  # noqa: F401
from test_browser_accounts import create, play_to_the_end, register, unique

LEVEL = "expert:iters=300"  # cheap; always-passing play still gives mistakes the search is sure of
WAIT_MS = 60_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from served(tmp_path_factory.mktemp("training-server"), {"CATSACK_ANALYSIS_LEVEL": LEVEL})


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[object]:
    yield from launched()


def test_retry_a_mistake_of_your_own_game(people: Callable[..., Player], server: str, artifacts: Path) -> None:  # noqa: F811
    from playwright.sync_api import expect

    ann = people(viewport={"width": 1280, "height": 900}, locale="en-US")
    errors: list[str] = []
    ann.page.on("pageerror", lambda exc: errors.append(str(exc)))
    name = unique("Trainee")
    register(ann, name)
    page = ann.page
    # The first card of the hand, and a pass at every bid: mistakes to learn from. Nearly every deal gives
    # some row the analysis is sure passing lost; a deal that gives none is followed by another game.
    for _ in range(3):
        table = create(ann, ["heuristic", "heuristic", "heuristic"])
        play_to_the_end(ann)

        # The analysis of our seat, on the replay page; it links to the training page.
        page.goto(f"{server}/replay/{table}")
        page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
        page.select_option("#analysis-seat", "0")
        page.click("#analysis-button")
        page.wait_for_function("() => document.body.dataset.analysis === 'done'", timeout=WAIT_MS)
        with urllib.request.urlopen(f"{server}/api/tables/{table}/analysis?seat=0", timeout=10) as answer:
            result = json.load(answer)["result"]
        wrong = [d for d in result["decisions"] if d["class"] in ("mistake", "blunder") and len(d["values"]) > 1]
        if wrong:
            break
    assert wrong, "three games of passing every auction and never a row the analysis is sure of"
    page.click("#training-link")

    # The training page lists our mistakes; one opens as our seat saw it, with the analysed moves.
    page.wait_for_url("**/training?source=own*")
    page.wait_for_function("() => document.body.dataset.loaded === 'yes'")
    expect(page.locator("#train-list li")).to_have_count(len(wrong), timeout=WAIT_MS)
    page.locator("#train-list li button").first.click()
    page.wait_for_function("() => document.body.dataset.position !== undefined")
    expect(page.locator("#train-question")).to_have_text(CATALOGUES["en"]["train.question"])
    choices = page.locator("#train-choices button")
    assert choices.count() >= 2
    position = page.evaluate("document.body.dataset.position")
    with urllib.request.urlopen(f"{server}/api/training/{position}", timeout=10) as answer:
        shown = json.load(answer)
    decision = next(d for d in wrong if d["ply"] == shown["ply"])
    assert page.locator("#row li.slot:not(.empty)").count() == len(shown["view"]["row"])
    assert page.locator("#train-hand .card").count() == len(shown["view"]["hand"])

    # Answer with the move played in the game (the mistake again): the verdict and its sentences.
    played = decision["played"]
    page.locator(f'#train-choices button[data-move="{played}"]').click()
    page.wait_for_function("() => document.body.dataset.verdict !== undefined")
    assert page.evaluate("document.body.dataset.verdict") == "missed"
    verdict = page.inner_text("#train-verdict")
    assert decision["sentences"]["en"][0] in verdict  # the analysis's own sentence, as on the replay page
    assert f"{decision['lost']:.1f}" in verdict
    assert page.locator("#train-verdict .hint-values li").count() == len(decision["values"])
    page.screenshot(path=str(artifacts / "training.png"), full_page=True)

    # The next attempt at it, with the best move: solved; the list counts the attempts.
    page.reload()
    page.wait_for_function(
        "() => document.body.dataset.loaded === 'yes' && document.body.dataset.position !== undefined"
    )
    page.locator(f'#train-choices button[data-move="{decision["best"]}"]').click()
    page.wait_for_function("() => document.body.dataset.verdict === 'solved'")
    assert CATALOGUES["en"]["train.solvedBest"].split(":")[0] in page.inner_text("#train-verdict")
    # Only the first answer counted towards the position's difficulty, and the page says so.
    expect(page.locator("#train-not-counted")).to_have_text(CATALOGUES["en"]["train.notCounted"])

    # A phone, in German: the same position, its question and verdict in German.
    phone = people(viewport={"width": 390, "height": 844}, locale="de-DE")
    phone.page.on("pageerror", lambda exc: errors.append(str(exc)))
    phone.page.goto(f"{server}/training?source=pool#p={position}")
    phone.page.wait_for_function("() => document.body.dataset.position !== undefined")
    de = CATALOGUES["de"]
    expect(phone.page.locator("#train-question")).to_have_text(de["train.question"])
    phone.page.locator(f'#train-choices button[data-move="{played}"]').click()
    phone.page.wait_for_function("() => document.body.dataset.verdict === 'missed'")
    assert decision["sentences"]["de"][0] in phone.page.inner_text("#train-verdict")
    width = phone.page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width}px wide on a 390px phone"
    phone.page.screenshot(path=str(artifacts / "training-phone-de.png"), full_page=True)
    assert errors == []
