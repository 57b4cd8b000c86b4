"""The Python side's catalogues (catsack.i18n): every message of the code is in the template and in every
language's ``.po`` file, translated (no empty or fuzzy entry, the placeholders of the English, every
plural form), nothing left in English but a short list, no rule number or card token in a player's text,
and numbers, percentages, durations and lists written the language's way (Babel's formatters).

What the texts look like once rendered (every mail, sentence, page and terminal screen in every
language) is checked where each is made: tests/test_texts_rendered.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

import catsack
from catsack.i18n import (
    DOMAIN,
    SHARED_WORDS,
    SOURCE_LANGUAGE,
    catalogue_file,
    duration,
    names,
    number,
    percent,
    shared_word,
    translations,
)
from catsack.locales import LANGUAGES

PACKAGE = Path(catsack.__file__).resolve().parent
LOCALE = PACKAGE / "locale"
#: Messages rightly the same as the English one in a language: (context or "", message).
SAME_AS_ENGLISH: dict[str, set[tuple[str, str]]] = {
    "de": {("", "Bank: {bank}")},
    "fr": {("", "{n} bot")},
}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
#: A rule's number ("R16") or a card's token ("LD") written in a player's text (the card letters of the
#: board and the log are a language's own: "LD" in English, "GH" in German).
RULE_OR_TOKEN = re.compile(r"\bR\d{1,2}\b|\b(?:LD|SD)\b")
LETTERS = "card letters"
#: The functions that look a message up; their message arguments must be written out for the extraction.
LOOKUPS = {"gettext": 1, "ngettext": 2, "pgettext": 2, "npgettext": 3, "N_": 1}
OTHER_LANGUAGES = [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def catalog(lang: str) -> Catalog:
    with catalogue_file(lang).open("rb") as stream:
        return read_po(stream, locale=lang, domain=DOMAIN)


def template() -> Catalog:
    with (LOCALE / f"{DOMAIN}.pot").open("rb") as stream:
        return read_po(stream)


def key(m: Message) -> tuple[str, str]:
    msgid = m.id[0] if isinstance(m.id, tuple) else m.id
    return (m.context or "", str(msgid))


def messages(cat: Catalog) -> dict[tuple[str, str], Message]:
    return {key(m): m for m in cat if m.id}


def extracted() -> dict[tuple[str, str], Any]:
    """Every message the package's code holds, as ``make catalogues`` extracts it (babel.cfg's map)."""
    found = extract_from_dir(str(PACKAGE), method_map=[("**.py", "python")], comment_tags=("i18n:",))
    out: dict[tuple[str, str], Any] = {}
    for _file, _line, message, _comments, context in found:
        msgid = message[0] if isinstance(message, tuple) else message
        out[(context or "", msgid)] = message
    return out


def forms(m: Message) -> list[str]:
    return list(m.string) if isinstance(m.string, tuple) else [m.string]


def english_forms(m: Message) -> list[str]:
    return list(m.id) if isinstance(m.id, tuple) else [m.id]


# ---------------------------------------------------------------------- one list of languages


def test_every_language_but_the_source_has_a_catalogue() -> None:
    """One ``.po`` file per language of catsack.locales, English (the source) none, no stray folder."""
    folders = {p.name for p in LOCALE.iterdir() if p.is_dir() and not p.name.startswith("_")}
    assert folders == set(OTHER_LANGUAGES), "a catalogue without a language in catsack.locales, or the reverse"
    for lang in OTHER_LANGUAGES:
        assert catalogue_file(lang).is_file(), lang
        assert catalog(lang).locale_identifier == lang


def test_the_catalogues_hold_every_message_of_the_code_and_no_other() -> None:
    """The template and every ``.po`` file are up to date with the code (``make catalogues``)."""
    code = set(extracted())
    assert len(code) > 200, "the extraction found too little: is the map right?"
    assert set(messages(template())) == code, "run make catalogues"
    for lang in OTHER_LANGUAGES:
        have = set(messages(catalog(lang)))
        assert have == code, (lang, sorted(code - have)[:5], sorted(have - code)[:5])


# ---------------------------------------------------------------------- complete


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_every_message_is_translated_with_the_same_placeholders(lang: str) -> None:
    cat = catalog(lang)
    assert not cat.fuzzy
    for k, m in messages(cat).items():
        assert "fuzzy" not in m.flags, (lang, k)
        texts = forms(m)
        assert all(t.strip() for t in texts), (lang, k, "empty")
        english = [set(PLACEHOLDER.findall(e)) for e in english_forms(m)]
        if isinstance(m.id, tuple):
            assert len(texts) == cat.num_plurals, (lang, k, "plural forms")
            for text in texts:  # each form: the placeholders both English forms share, none of its own
                found = set(PLACEHOLDER.findall(text))
                assert english[0] & english[1] <= found <= english[0] | english[1], (lang, k, text)
        else:
            assert set(PLACEHOLDER.findall(texts[0])) == english[0], (lang, k, texts[0])
        for text in texts:
            text.format(**{p: "x" for p in PLACEHOLDER.findall(text)})  # a stray brace is a format error


@pytest.mark.parametrize("lang", OTHER_LANGUAGES)
def test_nothing_is_left_in_english(lang: str) -> None:
    """A translation identical to the English is an oversight unless listed, or it holds no word."""
    same = {
        k
        for k, m in messages(catalog(lang)).items()
        if forms(m)[0] == english_forms(m)[0] and re.search(r"[A-Za-z]{2,}", PLACEHOLDER.sub("", forms(m)[0]))
    }
    assert same == SAME_AS_ENGLISH.get(lang, set()), sorted(same ^ SAME_AS_ENGLISH.get(lang, set()))


def test_no_rule_numbers_or_card_tokens_in_players_texts() -> None:
    """Players read words: no "(R13)" and no "LD" in any message, English or translated."""
    for k, message in extracted().items():
        for text in message if isinstance(message, tuple) else (message,):
            assert k[0] == LETTERS or not RULE_OR_TOKEN.search(text), (k, text)
    for lang in OTHER_LANGUAGES:
        for k, m in messages(catalog(lang)).items():
            for text in forms(m):
                assert k[0] == LETTERS or not RULE_OR_TOKEN.search(text), (lang, k, text)


def lookups_not_written_out(source: str) -> list[str]:
    """Calls of gettext and its kin whose messages are not string literals (the extraction cannot see
    them), and such calls inside an f-string (nor those). ``catsack.i18n.shared_word`` looks up the
    messages of SHARED_WORDS, which are literals checked against the extraction."""
    bad = []
    tree = ast.parse(source)
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef) and fn.name == "shared_word":
            fn.body = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and _lookup(inner):
                    bad.append(f"line {inner.lineno}: a lookup inside an f-string")
        if isinstance(node, ast.Call) and (n := _lookup(node)):
            messages = node.args[:n]
            if len(messages) < n or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in messages):
                bad.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return bad


def _lookup(call: ast.Call) -> int:
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return LOOKUPS.get(name, 0)


def test_every_lookup_is_written_out_for_the_extraction() -> None:
    """``t.gettext(variable)`` or a lookup in an f-string would show English forever: the extraction misses it."""
    found = {
        str(path.relative_to(PACKAGE)): bad
        for path in sorted(PACKAGE.rglob("*.py"))
        if (bad := lookups_not_written_out(path.read_text("utf-8")))
    }
    assert found == {}
    assert len(lookups_not_written_out('t.gettext(x)\nf"{t.gettext(\'a\')}"\nt.ngettext("a", "b", n)')) == 2


def test_plural_forms_follow_the_count() -> None:
    """Each catalogue's Plural-Forms header chooses the form: French's singular covers 0 and 1."""
    de, fr = translations("de"), translations("fr")
    text = "{n} other move is as good as “{best}” within the search's noise (±{noise})."
    plural = "{n} other moves are as good as “{best}” within the search's noise (±{noise})."
    assert de.ngettext(text, plural, 1) != de.ngettext(text, plural, 2)
    assert fr.ngettext(text, plural, 0) == fr.ngettext(text, plural, 1) != fr.ngettext(text, plural, 2)


# ---------------------------------------------------------------------- formatted by the locale


def test_numbers_durations_and_lists_by_the_locale() -> None:
    assert [number(6.5, lang) for lang in ("en", "de", "fr")] == ["6.5", "6,5", "6,5"]
    assert [number(-1.25, lang, signed=True) for lang in ("en", "de")] == ["-1.2", "-1,2"]
    assert number(2.0, "de", signed=True) == "+2,0" and number(3, "fr") == "3"
    assert number(1234.5, "en") == "1,234.5" and number(1234.5, "de") == "1.234,5"
    assert percent(0.23, "en") == "23%" and percent(0.23, "de") == "23\u00a0%"
    assert duration(2 * 86400 + 5 * 3600 + 60, "en") == "2 days, 5 hours"
    assert duration(3 * 3600 + 4 * 60, "de") == "3 Stunden, 4 Minuten"
    assert duration(3600, "fr") == "1\u00a0heure" and duration(-5, "en") == "0 minutes"
    assert duration(86400 + 59, "en") == "1 day"
    assert names(["Ann", "Bea", "Cy"], "fr") == "Ann, Bea et Cy" and names([], "de") == ""


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no texts in 'xx'"):
        translations("xx")


def test_no_hand_made_decimal_comma_or_language_list_in_the_code() -> None:
    """Numbers go through Babel's formatters and languages through catsack.locales.LANGUAGES."""
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text("utf-8")
        where = str(path.relative_to(PACKAGE))
        assert not re.search(r"""replace\(\s*["']\.["'],\s*["'],["']\s*\)""", text), where
        assert not re.search(r"""[(\[{]\s*["']en["']\s*,\s*["']de["']""", text), where
        assert not re.search(r"""==\s*["']de["']|["']de["']\s*(?:if|==)""", text), where


def test_shared_words_come_from_the_catalogues() -> None:
    """The words both sides show (SHARED_WORDS) are messages of the code, and the browser's JSON says
    what the ``.po`` files say (scripts/sync_browser_words.py writes them)."""
    from browser_i18n import CATALOGUES

    code = extracted()
    for browser_key, (context, message) in SHARED_WORDS.items():
        assert (context, message) in code, browser_key
        for lang in LANGUAGES:
            said = shared_word(browser_key, lang)
            assert CATALOGUES[lang][browser_key] == said, (
                f"{lang}.json's {browser_key} differs from the catalogue: run python scripts/sync_browser_words.py"
            )
