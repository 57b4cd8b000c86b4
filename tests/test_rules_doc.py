"""The rules for players (catsack.rulebook's <lang>.md, one per language) and the pages made from them.

Every rule number the code and tests cite is defined in every text, the
documentation's rules pages (docs/rules.md, docs/rules.<lang>.md) include the very
same files, the worked dog examples agree with the engine (R16), and the
``/rules`` page renders in every language without any script.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest

from catsack.cards import Card
from catsack.game import resolve_dogs
from catsack.rulebook import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    choose_language,
    defined_rules,
    dog_examples,
    image,
    source,
)
from repository import ROOT, repository_file

DOCS = {lang: "docs/rules.md" if lang == DEFAULT_LANGUAGE else f"docs/rules.{lang}.md" for lang in LANGUAGES}


def page_words(lang: str) -> tuple[str, str]:
    """What the /rules page says in ``lang``: its title's words and the large dog's name."""
    from catsack.i18n import card_name, translations

    t = translations(lang)
    return t.gettext("How to play – catsack").split(" – ")[0], card_name("LD", t)


ALL_RULES = list(range(1, 25))
_CITED = re.compile(r"\bR(\d{1,3})\b")
_TEXT_SUFFIXES = {".py", ".js", ".html", ".css", ".tcss", ".md", ".json", ".txt", ".toml", ".cfg", ".yml", ".yaml"}


def _text_files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        for path in root.rglob("*"):
            if path.suffix in _TEXT_SUFFIXES and path.is_file() and "__pycache__" not in path.parts:
                yield path


# ---------------------------------------------------------------------- rule numbers


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_rule_is_defined_once(lang: str) -> None:
    """R1–R24 are each defined exactly once, in both languages (the numbers are the same everywhere)."""
    defined = defined_rules(source(lang))
    assert sorted(defined) == ALL_RULES, sorted(defined)


def test_every_cited_rule_exists_in_the_rules_text() -> None:
    """Every ``R<n>`` cited anywhere in src/ and tests/ is a rule of every language's text."""
    cited: dict[int, Path] = {}
    for path in _text_files(ROOT / "src", ROOT / "tests"):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for m in _CITED.finditer(text):
            cited.setdefault(int(m.group(1)), path)
    assert len(cited) > 20  # the scan found the citations
    for lang in LANGUAGES:
        defined = set(defined_rules(source(lang)))
        missing = {f"R{n}": str(p.relative_to(ROOT)) for n, p in cited.items() if n not in defined}
        assert not missing, f"cited but not in the {lang} rules text: {missing}"


def test_no_pointer_to_the_team_reference_file() -> None:
    """The project stands on its own: no docstring or page sends readers to ../shared."""
    roots = [ROOT / d for d in ("src", "tests", "docs", "bench", "examples") if (ROOT / d).is_dir()]
    offenders = []
    for path in _text_files(*roots):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "../shared" in text or "shared/RULES.md" in text or re.search(r"(?<![\w/])RULES\.md", text):
            offenders.append(str(path.relative_to(ROOT)))
    offenders = [p for p in offenders if p != "tests/test_rules_doc.py"]
    assert not offenders, offenders


# ---------------------------------------------------------------------- one source per language


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_package_holds_each_text_and_its_pictures(lang: str) -> None:
    """The texts and card pictures are the package's own files (no links out of it): every picture
    the text shows is there, and nothing outside ``img/<lang>/`` can be asked for."""
    packaged = resources.files("catsack.rulebook")
    assert (packaged / f"{lang}.md").is_file()
    pictures = sorted(p.name for p in (packaged / "img" / lang).iterdir() if p.name.startswith("card-"))
    assert len(pictures) == 11  # ten card faces and the back
    shown = set(re.findall(rf"\]\(img/{lang}/(card-\w+\.svg)\)", source(lang)))
    assert shown <= set(pictures), shown - set(pictures)
    for name in pictures:
        picture = image(lang, name)
        assert picture is not None and picture.startswith(b"<svg"), name
    assert image(lang, "../en.md") is None and image(lang, "card-nope.svg") is None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_docs_rules_pages_include_the_package_texts(lang: str) -> None:
    """docs/rules.md and docs/rules.<lang>.md are the package's texts, included (one source per language), and
    the site's index lists each of them."""
    page = repository_file(DOCS[lang]).read_text(encoding="utf-8")
    assert page.startswith(f"```{{include}} ../src/catsack/rulebook/{lang}.md\n"), page[:200]
    index = repository_file("docs/index.md").read_text(encoding="utf-8")
    assert f"\n{DOCS[lang].removeprefix('docs/').removesuffix('.md')}\n" in index, "add it to the toctree"


def test_card_pictures_come_from_the_browser_card_art(tmp_path: Path) -> None:
    """The rulebook's img/ is what scripts/make_cards.mjs makes from static/cards.js today (needs node)."""
    script = repository_file("scripts/make_cards.mjs")
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    subprocess.run([node, str(script), str(tmp_path)], check=True, timeout=60)
    packaged = resources.files("catsack.rulebook") / "img"
    for lang in LANGUAGES:
        made = sorted(p.name for p in (tmp_path / lang).iterdir())
        assert made == sorted(p.name for p in (packaged / lang).iterdir())
        for name in made:
            assert (tmp_path / lang / name).read_bytes() == (packaged / lang / name).read_bytes(), (
                f"rulebook/img/{lang}/{name} is out of date: run node scripts/make_cards.mjs"
            )


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != DEFAULT_LANGUAGE])
def test_every_language_has_the_same_structure(lang: str) -> None:
    """The same rules in the same order, the same worked examples, sections and tables, and links to every
    other language, so the texts cannot drift apart."""
    en, other = source(DEFAULT_LANGUAGE), source(lang)
    assert defined_rules(en) == defined_rules(other)
    assert [(e.row, e.written) for e in dog_examples(en)] == [(e.row, e.written) for e in dog_examples(other)]
    assert en.count("\n## ") == other.count("\n## ")
    assert en.count("\n  | --- |") == other.count("\n  | --- |")
    assert re.findall(r"\]\(img/\w+/(card-\w+\.svg)\)", en) == re.findall(r"\]\(img/\w+/(card-\w+\.svg)\)", other)
    for text, own in ((en, DEFAULT_LANGUAGE), (other, lang)):
        for code in set(LANGUAGES) - {own}:
            assert f"]({DOCS[code].removeprefix('docs/')})" in text, (own, code)


# ---------------------------------------------------------------------- worked examples (R16)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_worked_dog_examples_agree_with_the_engine(lang: str) -> None:
    """R16: what each example says the buyer keeps is what the engine's dog resolution keeps."""
    examples = dog_examples(source(lang))
    assert len(examples) >= 6
    for ex in examples:
        assert ex.agrees, f"{' '.join(map(str, ex.row))}: text says {ex.written}, engine keeps {ex.kept}"
    kinds = {(sum(str(c) in ("LD", "SD") for c in ex.row), len(ex.gone)) for ex in examples}
    assert {(1, 2), (1, 1), (2, 2)} <= kinds  # a chase, a dog without a cat, two dogs cancelling


def test_rendered_examples_match_the_engine_for_random_rows() -> None:
    """The page draws what resolve_dogs keeps, for any row (checked on random rows of 4 and 5 cards)."""
    pytest.importorskip("markdown_it")
    from catsack.rulebook import dog_example
    from catsack.rulebook.page import render_examples

    rng = random.Random(13)
    for _ in range(200):
        row = [rng.choice(list(Card)) for _ in range(rng.choice((4, 5)))]
        ex = dog_example(" ".join(map(str, row)) + " ->")
        page = render_examples([ex], "en")
        kept_html = page.split('class="cards kept">', 1)[1].split("</span>", 1)[0]
        shown = re.findall(r"card-([pm]?\w+)\.svg", kept_html)
        _, kept = resolve_dogs(row)
        assert shown == [str(c).replace("+", "p").replace("-", "m") for c in kept], (row, shown)
        assert page.count('class="card gone"') == len(resolve_dogs(row)[0])


# ---------------------------------------------------------------------- language choice


def test_language_choice() -> None:
    assert choose_language(None, None, None) == "en"
    assert choose_language("de", "en", "en") == "de"
    assert choose_language("xx", "de", "en") == "de"  # an unknown ?lang= falls through
    assert choose_language(None, "de-AT", None) == "de"
    assert choose_language(None, None, "fr-FR, de;q=0.8, en;q=0.5") == "fr"
    assert choose_language(None, None, "it-IT, de;q=0.8, en;q=0.5") == "de"
    assert choose_language(None, None, "en-GB;q=0.9, de-CH") == "de"
    assert choose_language(None, None, "de;q=0, en") == "en"
    assert choose_language(None, None, "it, es") == "en"
    assert choose_language(None, None, "de;q=oops, en;q=0.1") == "en"


# ---------------------------------------------------------------------- the page


class _Page(HTMLParser):
    """Collects what the tests look at: tags, ids, links, images, visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        d = dict(attrs)
        self.tags.append((tag, d))
        if d.get("id"):
            self.ids.add(str(d["id"]))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    pytest.importorskip("markdown_it")
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    db = tmp_path_factory.mktemp("rules") / "server.db"
    with TestClient(create_app(Settings(database_url=f"sqlite:///{db}", bot_delay=0.0))) as c:
        yield c


def _get(client: object, url: str, **kw: object) -> tuple[str, _Page, object]:
    res = client.get(url, **kw)  # type: ignore[attr-defined]
    assert res.status_code == 200, (url, res.text[:300])
    page = _Page()
    page.feed(res.text)
    return res.text, page, res


@pytest.mark.parametrize(
    ("url", "headers", "cookies", "lang"),
    [
        ("/rules", {}, {}, "en"),
        ("/rules?lang=de", {}, {}, "de"),
        ("/rules?lang=fr", {}, {}, "fr"),
        ("/rules", {"Accept-Language": "de-DE,de;q=0.9,en;q=0.8"}, {}, "de"),
        ("/rules", {"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.8"}, {}, "fr"),
        ("/rules", {"Accept-Language": "de"}, {"catsack_lang": "en"}, "en"),
        ("/rules?lang=en", {}, {"catsack_lang": "de"}, "en"),
    ],
)
def test_rules_page_language(
    client: object, url: str, headers: dict[str, str], cookies: dict[str, str], lang: str
) -> None:
    client.cookies.clear()  # type: ignore[attr-defined]
    for k, v in cookies.items():
        client.cookies.set(k, v)  # type: ignore[attr-defined]
    _, page, res = _get(client, url, headers=headers)
    client.cookies.clear()  # type: ignore[attr-defined]
    assert res.headers["content-language"] == lang  # type: ignore[attr-defined]
    assert "Accept-Language" in res.headers["vary"]  # type: ignore[attr-defined]
    assert ("html", {"lang": lang}) in page.tags
    visible = " ".join(page.text)
    title, dog = page_words(lang)
    assert lang != "de" or (title, dog) == ("Spielregeln", "großer Hund")
    assert title in visible and dog in visible


@pytest.mark.parametrize("lang", LANGUAGES)
def test_rules_page_is_complete_without_script(client: object, lang: str) -> None:
    """Complete HTML, no script at all, every rule anchor, every picture and in-page link resolves."""
    text, page, _ = _get(client, f"/rules?lang={lang}")
    assert text.startswith("<!doctype html>")
    assert not any(tag == "script" for tag, _ in page.tags)
    assert not re.search(r"\son[a-z]+=", text) and "javascript:" not in text
    assert {f"R{n}" for n in ALL_RULES} <= page.ids
    for tag, attrs in page.tags:
        href = attrs.get("href") or ""
        if tag == "a" and href.startswith("#"):
            from urllib.parse import unquote

            assert unquote(href[1:]) in page.ids, href
        if tag == "a" and href.endswith(".md"):
            pytest.fail(f"a link to a file the server does not serve: {href}")
    images = {str(a["src"]) for t, a in page.tags if t == "img"}
    assert len(images) >= 11
    for src in images:
        res = client.get(src)  # type: ignore[attr-defined]
        assert res.status_code == 200 and res.headers["content-type"] == "image/svg+xml", src
    figures = [a for t, a in page.tags if t == "figure"]
    assert len(figures) == len(dog_examples(source(lang)))
    assert client.get(f"/rules/img/{lang}/card-XX.svg").status_code == 404  # type: ignore[attr-defined]
    assert client.get("/rules/img/xx/card-LD.svg").status_code == 404  # type: ignore[attr-defined]


def test_rules_page_examples_agree_with_the_core(client: object) -> None:
    """Each example figure's kept cards are the engine's for that row (R16)."""
    text, _, _ = _get(client, "/rules")
    figures = re.findall(r'<figure class="dog-example".*?</figure>', text)
    examples = dog_examples(source("en"))
    assert len(figures) == len(examples)
    for fig, ex in zip(figures, examples, strict=True):
        row_html, kept_html = fig.split('class="cards kept">', 1)
        row = re.findall(r"card-(\w+)\.svg", row_html)
        kept = re.findall(r"card-(\w+)\.svg", kept_html)
        token = {str(c).replace("+", "p").replace("-", "m"): c for c in Card}
        _, want = resolve_dogs([token[t] for t in row])
        assert [token[t] for t in row] == list(ex.row)
        assert [token[t] for t in kept] == list(want) == list(ex.written)


def test_lobby_links_to_the_rules(client: object) -> None:
    _, page, _ = _get(client, "/")
    assert any(tag == "a" and attrs.get("href") == "/rules" for tag, attrs in page.tags)
