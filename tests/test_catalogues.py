"""The browser's catalogues and the one list of languages (catsack.locales): every language has a complete
catalogue, nothing is left in English, numbers, dates and plurals go through Intl, and the server serves the
list that pages read. The Python side's catalogues (gettext, catsack.i18n) are checked in
tests/test_python_catalogues.py; both sides cover the same languages (here)."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from browser_i18n import CATALOGUES, STATIC, values
from catsack.locales import DEFAULT_LANGUAGE, LANGUAGES, negotiate

#: Keys whose text is rightly the same as the English one in a language (names, units, shared words).
SAME_AS_ENGLISH: dict[str, set[str]] = {
    "de": {
        "acct.name", "board.bank", "bot.title", "chat.title", "days.inviteesPlaceholder", "days.offline",
        "days.online", "status.connected", "text.bank", "text.cmd.bank", "text.cmd.hand", "tour.name", "wait.level",
    },
    "fr": {
        "acct.place", "acct.score", "bot.title", "coach.title", "days.inviteesPlaceholder", "days.email", "days.hm",
        "days.m", "err.field.bots", "final.score",
        "lobby.options", "status.bot", "table.named", "table.title", "text.cmd.scores", "text.secret", "tour.points",
        "tour.tableN", "tour.tables", "wait.level",
    },
}  # fmt: skip
#: Texts that hold no word of any language (placeholders, numbers, units).
NO_WORDS = re.compile(r"^[\s\d{}\w.:/,|?+-]*$")
SCRIPTS = sorted(STATIC.glob("*.js"))
PAGES = sorted(STATIC.glob("*.html"))


def placeholders(value: Any) -> set[str]:
    return {p for v in values(value) for p in re.findall(r"\{(\w+)\}", v)}


def test_every_language_has_a_catalogue_and_every_catalogue_a_language() -> None:
    files = {p.stem for p in (STATIC / "i18n").glob("*.json")}
    assert files == set(LANGUAGES), "a catalogue file without a language in catsack.locales, or the reverse"
    assert DEFAULT_LANGUAGE in LANGUAGES


def test_both_sides_and_the_rules_speak_the_same_languages() -> None:
    """One list of languages: the browser's JSON catalogues, the Python side's ``.po`` files (English is
    the messages' own language), the rules texts and their card pictures each cover exactly it."""
    from importlib import resources

    from catsack.i18n import SOURCE_LANGUAGE, catalogue_file
    from catsack.rulebook import LANGUAGES as RULES_LANGUAGES
    from catsack.rulebook import source

    assert SOURCE_LANGUAGE == DEFAULT_LANGUAGE and tuple(RULES_LANGUAGES) == tuple(LANGUAGES)
    assert {p.stem for p in (STATIC / "i18n").glob("*.json")} == set(LANGUAGES)
    locale = resources.files("catsack") / "locale"
    assert {p.name for p in locale.iterdir() if p.is_dir()} | {SOURCE_LANGUAGE} == set(LANGUAGES)
    pictures = resources.files("catsack.rulebook") / "img"
    assert {p.name for p in pictures.iterdir() if p.is_dir()} == set(LANGUAGES)
    for lang in LANGUAGES:
        assert source(lang).startswith("# ")
        assert lang == SOURCE_LANGUAGE or catalogue_file(lang).is_file()


def test_every_key_in_every_language_with_the_same_placeholders() -> None:
    en = CATALOGUES["en"]
    for lang, catalogue in CATALOGUES.items():
        assert catalogue.keys() == en.keys(), (lang, sorted(catalogue.keys() ^ en.keys()))
        for key, value in catalogue.items():
            assert type(value) is type(en[key]), (lang, key)
            assert placeholders(value) == placeholders(en[key]) or isinstance(value, dict), (lang, key)
            if isinstance(value, dict):
                assert "other" in value and set(value) <= {"zero", "one", "two", "few", "many", "other"}, (lang, key)


def test_nothing_left_untranslated() -> None:
    """A text identical to the English one is an oversight, unless it is listed here or holds no word."""
    en = CATALOGUES["en"]
    for lang, catalogue in CATALOGUES.items():
        if lang == "en":
            continue
        same = {k for k, v in catalogue.items() if v == en[k] and not (isinstance(v, str) and _wordless(v))}
        assert same == SAME_AS_ENGLISH.get(lang, set()), (lang, sorted(same ^ SAME_AS_ENGLISH.get(lang, set())))


def _wordless(text: str) -> bool:
    """A text whose only letters are in its placeholders or single-letter units ("{level} {n}", "{n} s")."""
    bare = re.sub(r"\{\w+\}", "", text)
    return not re.search(r"[A-Za-zÀ-ÿ]{2,}", bare)


def test_no_rule_numbers_or_card_tokens_in_player_facing_text() -> None:
    """Players read words, not the rule book's numbers ("(R21)") or the record's tokens ("place LD")."""
    for lang, catalogue in CATALOGUES.items():
        for key, value in catalogue.items():
            for text in values(value):
                assert not re.search(r"\bR\d{1,2}\b", text), (lang, key, text)
                assert not re.search(r"\b(LD|SD)\b", text) or key.startswith("tok."), (lang, key, text)


def test_every_key_the_pages_use_is_in_the_catalogue() -> None:
    """Every t("key") of every script and every data-i18n* key of every page exists (dynamic keys by prefix)."""
    keys = CATALOGUES["en"].keys()
    used: set[str] = set()
    prefixes: set[str] = set()
    for path in SCRIPTS:
        text = path.read_text("utf-8")
        used |= set(re.findall(r"\bt(?:Nodes)?\(\"([\w.:-]+)\"", text))
        prefixes |= set(re.findall(r"\bt\(`([\w.:-]+)\$\{", text))
    for path in PAGES:
        used |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', path.read_text("utf-8")))
    assert used, "no keys found: the scan is broken"
    assert sorted(used - keys) == []
    for prefix in prefixes:
        assert any(k.startswith(prefix) for k in keys), prefix


def test_scripts_format_by_the_locale() -> None:
    """No language list, English plural rule or decimal comma written by hand in the pages' scripts."""
    for path in SCRIPTS:
        text = path.read_text("utf-8")
        assert not re.search(r"""\(\s*["']en["'],\s*["']de["']""", text), path.name
        assert not re.search(r"""["']de["']\s*\?""", text), path.name
        assert "n === 1" not in text, path.name
        assert not re.search(r"""replace\(\s*["']\.["'],\s*["'],["']\s*\)""", text), path.name
        assert "toLocaleString" not in text and "toLocaleDateString" not in text, path.name
        if path.name not in {"i18n.js", "sw.js"}:
            assert "Intl.PluralRules" not in text, f"{path.name}: plurals belong to i18n.js's t()"


def test_languages_are_served_to_pages() -> None:
    from catsack.server.web.app import create_app

    with TestClient(create_app()) as c:
        answer = c.get("/i18n/languages.json", headers={"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"})
        assert answer.status_code == 200
        body = answer.json()
        assert [x["code"] for x in body["languages"]] == list(LANGUAGES)
        assert body["default"] == DEFAULT_LANGUAGE and body["chosen"] == "fr"
        assert "Accept-Language" in answer.headers["vary"]
        c.cookies.set("catsack_lang", "de")
        assert c.get("/i18n/languages.json").json()["chosen"] == "de"
        for lang in LANGUAGES:
            assert c.get(f"/static/i18n/{lang}.json").status_code == 200


def test_negotiate() -> None:
    assert negotiate("fr", "de", "en") == "fr"
    assert negotiate(None, "de-AT", None) == "de"
    assert negotiate("xx", None, "it, fr;q=0.4, de;q=0.8") == "de"
    assert negotiate(None, None, "fr;q=bad, de;q=0") == DEFAULT_LANGUAGE
    assert negotiate(None, None, ";;;,,q=1" * 300) == DEFAULT_LANGUAGE
    assert negotiate(None, None, "fr", available=("en", "de")) == "en"
