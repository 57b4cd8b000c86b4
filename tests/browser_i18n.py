"""Shared checks for the translated pages: the catalogues, and "no English on a German page".

The check reads every visible text of a page (text nodes, tooltips, placeholders, aria-labels and the
document's title) and fails on any word that no German catalogue string holds, apart from player
names and a few untranslated tokens. Commands in ``<code>`` are not language and are skipped.
Used by the browser tests, and by the tests of mails and other texts the Python side renders
(:func:`python_words`).
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from catsack.locales import LANGUAGES

if TYPE_CHECKING:
    from playwright.sync_api import Page

STATIC = Path(__file__).resolve().parents[1] / "src" / "catsack" / "server" / "static"
#: Every language's browser catalogue, by code (the languages are catsack.locales').
CATALOGUES: dict[str, dict[str, Any]] = {
    lang: json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8")) for lang in LANGUAGES
}
WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ]+")

# Text on the page that no catalogue holds: the language picker's names, bot specs in tooltips.
NOT_TRANSLATED = {"deutsch", "english", "français", "heuristic", "random", "ismcts", "easy", "strong", "docs"}


def values(value: Any) -> list[str]:
    """A catalogue entry's strings: the string itself, or a plural entry's forms."""
    return list(value.values()) if isinstance(value, dict) else [value]


@functools.cache
def python_words(lang: str) -> frozenset[str]:
    """Every word of ``lang``'s Python-side catalogue (catsack.i18n: the analysis's sentences, rendered by the
    server, mails, the rules page's frame), lower case, placeholders left out; English: the messages."""
    from babel.messages.pofile import read_po

    from catsack.i18n import DOMAIN, SOURCE_LANGUAGE, catalogue_file

    strings: list[str] = []
    if lang == SOURCE_LANGUAGE:
        with (resources.files("catsack") / "locale" / f"{DOMAIN}.pot").open("rb") as stream:
            entries = [m.id for m in read_po(stream) if m.id]
    else:
        with catalogue_file(lang).open("rb") as stream:
            entries = [m.string for m in read_po(stream) if m.id]
    for entry in entries:
        strings += list(entry) if isinstance(entry, tuple) else [entry]
    return frozenset(w.lower() for text in strings for w in WORD.findall(re.sub(r"\{\w+\}", " ", text)))


@functools.cache
def formatter_words(lang: str) -> frozenset[str]:
    """The words Babel's formatters write in ``lang`` (CLDR's units of time, "and" in lists): texts carry
    them without any catalogue holding them."""
    from catsack.i18n import duration, names

    samples = [duration(s, lang) for s in (60, 120, 3600, 7200 + 60, 86400, 2 * 86400 + 3600)]
    samples.append(names(["a", "b", "c"], lang))
    return frozenset(w.lower() for text in samples for w in WORD.findall(text))


def german_words() -> set[str]:
    """Every word of the German catalogues (pages and the Python side's texts), lower case, placeholders
    left out."""
    return words_of("de") | python_words("de")


def visible_texts(page: Page) -> list[str]:
    """Every rendered text node, tooltip, placeholder and aria-label of the page, and its title."""
    texts: list[str] = page.evaluate(
        """() => {
          const out = [document.title];
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const el = n.parentElement;
            const text = n.textContent.trim();
            if (!text || !el || el.closest("script, style, code, [hidden]") || !el.getClientRects().length) continue;
            out.push(text);
          }
          for (const el of document.querySelectorAll("[title], [placeholder], [aria-label]")) {
            if (!el.getClientRects().length) continue;
            for (const a of ["title", "placeholder", "aria-label"]) {
              if (el.getAttribute(a)) out.push(el.getAttribute(a));
            }
          }
          return out;
        }"""
    )
    return texts


def assert_all_german(page: Page, names: set[str], where: str) -> None:
    """No visible word of the page outside the German catalogue (plus names and a few tokens)."""
    vocabulary = german_words() | NOT_TRANSLATED | {n.lower() for n in names}
    bad = [(w, text) for text in visible_texts(page) for w in WORD.findall(text) if w.lower() not in vocabulary]
    assert bad == [], f"{where}: words outside the German catalogue: {bad[:8]}"


def words_of(lang: str) -> set[str]:
    """Every word of ``lang``'s browser catalogue, lower case, placeholders left out."""
    strings = [s for v in CATALOGUES[lang].values() for s in values(v)]
    return {w.lower() for text in strings for w in WORD.findall(re.sub(r"\{\w+\}", " ", text))}


#: A catalogue key shown as it is ("lobby.create"): a text the page forgot to look up.
RAW_KEY = re.compile(r"^[a-z]+(?:\.[A-Za-z:_]+)+$")


def assert_in_language(page: Page, lang: str, names: set[str], where: str) -> None:
    """No raw catalogue key on the page, and no visible word outside ``lang``'s catalogue (names and a few
    tokens aside): nothing left in English on a page read in another language."""
    texts = visible_texts(page)
    raw = [text for text in texts if RAW_KEY.match(text.strip()) and text.strip() in CATALOGUES["en"]]
    assert raw == [], f"{where}: raw catalogue keys: {raw[:8]}"
    if lang == "en":
        return
    vocabulary = words_of(lang) | python_words(lang) | NOT_TRANSLATED | {n.lower() for n in names}
    # Single letters are keys (<kbd>B</kbd>) and card letters, not words of a language.
    bad = [(w, text) for text in texts for w in WORD.findall(text) if len(w) > 1 and w.lower() not in vocabulary]
    assert bad == [], f"{where}: words outside the {lang} catalogue: {bad[:8]}"
