"""Every text the Python side renders, in every language: each kind of mail, each advice sentence, the
rules page's frame and worked examples, the unsubscribe page and a whole terminal game (board, prompts,
log, hint, end table, keys). A text in a language other than English holds no word outside that
language's catalogues (names, links and the words Babel's formatters write aside), no placeholder left
unfilled, and no rule number or card token; an English one no placeholder left either.

The catalogues themselves (every message translated, placeholders, plural forms) are checked in
tests/test_python_catalogues.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from browser_i18n import WORD, formatter_words, python_words
from catsack.advice.explain import TEMPLATES, Sentence, render, template
from catsack.i18n import SOURCE_LANGUAGE, translations
from catsack.locales import LANGUAGES

#: Names and words that are no language's: the sample players and tables, the product's name.
NAMES = {"ann", "bea", "cy", "dan", "ben", "cat", "eve", "fay", "catsack", "spring", "cup", "fallback"}
#: A rule's number or a card's token (the card letters of a language are its own words).
RULE_OR_TOKEN = re.compile(r"\bR\d{1,2}\b|\b(?:LD|SD)\b")
SAMPLE = {"played": "bid 3", "best": "place LD", "card": "+11", "value": 2.5, "se": 0.4, "lost": 1.5}
SAMPLE |= {"noise": 0.7, "payout": 2, "worth": 6.5, "limit": 5, "top": 9, "bid": 10, "low": 3, "high": 6}
SAMPLE |= {"p": 23, "money": 12, "richest": 14, "n": 2}


def foreign_words(texts: Iterable[str], lang: str, extra: Iterable[str] = ()) -> list[tuple[str, str]]:
    """The words of ``texts`` that ``lang``'s catalogues do not hold (links, names and ``extra`` aside)."""
    if lang == SOURCE_LANGUAGE:
        return []
    known = python_words(lang) | formatter_words(lang) | NAMES | {w.lower() for w in extra}
    out = []
    for text in texts:
        bare = re.sub(r"https?://\S+|\S+\.(?:json|py|md)\b|--\w[\w-]*", " ", text)
        out += [(w, text) for w in WORD.findall(bare) if len(w) > 1 and w.lower() not in known]
    return out


def check(texts: list[str], lang: str, where: str, extra: Iterable[str] = ()) -> None:
    assert texts, where
    for text in texts:
        assert not re.search(r"\{\w*\}", text), (where, lang, text)
        if lang != SOURCE_LANGUAGE:
            assert not RULE_OR_TOKEN.search(text), (where, lang, text)
    bad = foreign_words(texts, lang, extra)
    assert bad == [], f"{where} in {lang}: words outside the catalogues: {bad[:6]}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_advice_sentence(lang: str) -> None:
    texts = []
    for key in TEMPLATES:
        wanted = set(re.findall(r"\{(\w+)\}", template(key, translations(SOURCE_LANGUAGE), SAMPLE)))
        for n in (1, 2):
            texts.append(render(Sentence(key, {k: (n if k == "n" else SAMPLE[k]) for k in wanted}), lang))
    check(texts, lang, "advice sentences")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_kind_of_mail(lang: str) -> None:
    pytest.importorskip("sqlalchemy")
    from catsack.server.people.mail import KINDS, TRANSACTIONAL, TurnLine, mail_footer, mail_text

    base = "https://catsack.example.org"
    payloads = {
        "verify": [{"token": "abc"}],
        "reset": [{"token": "abc"}],
        "turn": [{}],
        "invite": [{"from": "Bea", "table": "Spring", "turn_based": {"move_hours": h}} for h in (12, 24, 72)]
        + [{"from": "Bea", "table": "Spring"}],
        "friend": [{"from": "Bea"}],
        "tournament": [
            {"round": 2, "tournament": "Spring cup", "table": 3, "link": "/t/x", "wait": w} for w in (60, 600)
        ]
        + [
            {"round": 2, "tournament": "Spring cup", "table": 3, "link": "/t/x", "deadline": 1.8e9, "move_hours": h}
            for h in (12, 24, 72)
        ],
        "clock": [{}],
        "seat": [{"table": "Spring", "table_id": "x"}],
    }
    assert set(payloads) == set(KINDS) | set(TRANSACTIONAL)
    one = [TurnLine("Spring", ("Bea",), 1, 3 * 86400 + 3600, f"{base}/t/1")]
    many = [*one, TurnLine("Cup", ("Bea", "Cy"), 0, 90, f"{base}/t/2"), TurnLine("Dan", (), 2, 7200, f"{base}/t/3")]
    texts = []
    for kind, samples in payloads.items():
        for payload in samples:
            for turns in [one, many] if kind == "turn" else [one] if kind == "clock" else [[]]:
                made = mail_text(kind, lang, payload, name="Ann", base=base, turns=turns)
                assert made is not None, (kind, lang)
                texts += list(made)
        texts.append(mail_footer("all" if kind in TRANSACTIONAL else kind, lang, f"{base}/u", f"{base}/account"))
    assert mail_text("turn", lang, {}, name="Ann", base=base, turns=[]) is None
    check(texts, lang, "mails", extra={"Cup"})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_rules_pages_frame_and_worked_examples(lang: str) -> None:
    pytest.importorskip("markdown_it")
    from catsack.rulebook.page import plain_markdown, render_page

    page = render_page(lang)
    said = re.findall(r"<title>(.*?)</title>|<figcaption>(.*?)</figcaption>|aria-label=\"(.*?)\"", page)
    texts = [part.replace("&#x27;", "'") for parts in said for part in parts if part]
    # The terminal's worked examples: the row in the rules' own notation (a code span), then words.
    texts += [re.sub(r"`[^`]*`", " ", line) for line in plain_markdown(lang).splitlines() if line.startswith("- `")]
    check(texts, lang, "the rules page's frame", extra={"English", "Deutsch", "Français"})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_unsubscribe_page(lang: str, tmp_path: Path) -> None:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'server.db'}", bot_delay=0.0)
    with TestClient(create_app(settings)) as c:
        page = c.get(f"/mail/unsubscribe?u=1&t=x&k=turn&lang={lang}")
        assert page.status_code == 200 and f'<html lang="{lang}">' in page.text
        done = c.post(f"/mail/unsubscribe?u=1&t=x&k=turn&lang={lang}")
        assert done.status_code == 200 and f'<html lang="{lang}">' in done.text
    texts = [t for html in (page.text, done.text) for t in re.findall(r">([^<>]+)<", html) if t.strip()]
    check(texts, lang, "the unsubscribe page")


def quick_analysis(view: Any, **_options: Any) -> Any:
    """The analysis's form without its search: the legal moves valued in order, each with a noise, so the
    hint shows a suggestion, values, the moves as good as the best, the sentences and the beliefs."""
    from catsack.advice.analysis import Analysis
    from catsack.advice.explain import position_facts
    from catsack.belief import card_beliefs

    moves = [m.text for m in view.legal]
    values = {m: 3.0 - 0.2 * i for i, m in enumerate(moves)}
    noise = {m: 0.5 for m in moves}
    beliefs = card_beliefs(view)
    return Analysis(view.legal[0], values, beliefs, dict.fromkeys(moves, 10), 100, noise, position_facts(view, beliefs))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_whole_terminal_game(lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every line the terminal shows over a whole game against the fallback bots, at 3 seats (the dummy
    included), with a hint at every turn of the player's and the end table, and the keys' descriptions
    of every screen."""
    pytest.importorskip("textual")
    from catsack.advice import analysis
    from catsack.game import Game
    from catsack.tui import controller as controller_module
    from catsack.tui import render
    from catsack.tui.app import ConfirmQuitScreen, EndScreen, GameScreen, HintScreen, RulesScreen, in_language
    from catsack.tui.controller import PlayController, UniformFallbackBot

    fake = SimpleNamespace(analyse_view=quick_analysis, hint_payload=analysis.hint_payload)
    monkeypatch.setattr(controller_module, "_import_analysis", lambda: fake)

    t = translations(lang)
    game = Game.new(3, seed=12, events=True)
    names = [t.gettext("You"), "Ann", "Ben"]
    bots = {s: UniformFallbackBot(seed=s) for s in (1, 2)}
    ctl = PlayController(game, names, 0, bots, False, 12, {1: "fallback", 2: "fallback"}, data_dir=tmp_path, lang=lang)
    texts = [line.text for line in ctl.history()]
    while not ctl.is_over:
        view = ctl.view()
        texts += [
            str(render.status_text(view, names, lang)),
            str(render.players_text(view, ctl.labels(), 100, lang)),
            str(render.row_text(view, names, lang)),
            str(render.mouse_text(view, names, lang)),
            str(render.hand_text(view, 0, lang)),
            str(render.prompt_text(view, names, None, lang)),
        ]
        if ctl.is_human_turn:
            hint = ctl.hint(view)
            texts += render.hint_lines(
                hint.best,
                hint.values,
                hint.beliefs,
                view,
                names,
                hint.note,
                noise=hint.noise,
                equal=hint.equal,
                sentences=hint.sentences,
                lang=lang,
            )
            assert hint.best is not None and hint.sentences[lang]
            texts += [line.text for line in ctl.play_human(view.legal[-1])]
        else:
            seat = ctl.bot_to_move()
            assert seat is not None
            texts += [line.text for line in ctl.play_bot(seat, ctl.bots[seat].choose(ctl.game.view(seat)))]
    texts += render.final_table_lines(ctl.game, ctl.labels(), lang)
    texts.append(str(render.prompt_text(ctl.view(), names, None, lang)))
    for screen in (GameScreen, HintScreen, RulesScreen, ConfirmQuitScreen, EndScreen):
        keys = in_language(screen, lang).BINDINGS
        texts += [b.description for b in keys if getattr(b, "show", True) and hasattr(b, "description")]
    check(texts, lang, "the terminal", extra={"GH", "KH", "GC", "PC"})
    assert ctl.saved_path is not None and ctl.save_error is None
