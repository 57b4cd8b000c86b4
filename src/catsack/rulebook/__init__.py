"""The rules for players, one text per language, shipped with the package.

``<lang>.md`` here, one for every language of :data:`catsack.locales.LANGUAGES`
(``en.md``, ``de.md``, ``fr.md``), are the rules texts themselves (``img/<lang>/``
holds their card pictures, made by ``scripts/make_cards.mjs``). The server's
``/rules`` page (:mod:`catsack.rulebook.page`), the terminal's "How to play" and
the documentation's rules pages (``docs/rules.md`` and ``docs/rules.<lang>.md``
include these files) are all made from them. Rule numbers R1–R24 are the ones
code and tests cite.

Nothing here needs an optional dependency; rendering HTML does (markdown-it-py,
the ``server`` extra).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from catsack import locales
from catsack.cards import Card
from catsack.errors import ParseError
from catsack.game import resolve_dogs

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "DogExample",
    "choose_language",
    "defined_rules",
    "dog_examples",
    "image",
    "source",
]

#: The languages of the rules texts: every language catsack speaks has one (a test checks).
LANGUAGES = tuple(locales.LANGUAGES)
DEFAULT_LANGUAGE = locales.DEFAULT_LANGUAGE

# A rule is defined where its number opens a bold label at the start of a list item: "- **R12 Bidding.**".
_DEFINITION = re.compile(r"^\s*[-*] \*\*R(\d+) ", re.MULTILINE)
_IMAGE_NAME = re.compile(r"card-[A-Za-z0-9]+\.svg")
# A fenced block of worked dog examples: lines "ROW -> KEPT" in card tokens.
_DOGS_BLOCK = re.compile(r"^```dogs\n(.*?)^```", re.MULTILINE | re.DOTALL)


def source(lang: str) -> str:
    """The markdown rules text in ``lang`` (one of :data:`LANGUAGES`)."""
    if lang not in LANGUAGES:
        raise ValueError(f"no rules text in {lang!r}; languages: {', '.join(LANGUAGES)}")
    return (resources.files(__name__) / f"{lang}.md").read_text(encoding="utf-8")


def image(lang: str, name: str) -> bytes | None:
    """A card picture (``card-LD.svg``) for ``lang``, or ``None`` if there is no such picture."""
    if lang not in LANGUAGES or not _IMAGE_NAME.fullmatch(name):
        return None
    path = resources.files(__name__) / "img" / lang / name
    return path.read_bytes() if path.is_file() else None


def defined_rules(text: str) -> list[int]:
    """The rule numbers defined in a rules text, in order of appearance (each should appear once)."""
    return [int(n) for n in _DEFINITION.findall(text)]


def choose_language(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The reader's language: ``?lang=``, else the ``catsack_lang`` cookie, else Accept-Language, else English
    (:func:`catsack.locales.negotiate` among the languages with a rules text)."""
    return locales.negotiate(query, cookie, accept_language, LANGUAGES)


@dataclass(frozen=True, slots=True)
class DogExample:
    """One worked example of R16: a bought row, what the text says the buyer keeps, what the engine says."""

    row: tuple[Card, ...]
    written: tuple[Card, ...]
    gone: tuple[Card, ...]  # the dogs and the chased cat, as resolve_dogs reports them
    kept: tuple[Card, ...]

    @property
    def agrees(self) -> bool:
        """Whether the written outcome is the engine's (as a multiset: the order of kept cards is free)."""
        return sorted(self.written) == sorted(self.kept)


def dog_example(line: str) -> DogExample:
    """Parse ``"+11 +3 LD -5 -> +3 -5"`` and resolve the row with the engine (R16)."""
    row_text, arrow, kept_text = line.partition("->")
    if not arrow:
        raise ParseError(f"a dog example needs 'ROW -> KEPT', not {line!r}")
    row = tuple(Card.parse(t) for t in row_text.split())
    written = tuple(Card.parse(t) for t in kept_text.split())
    if not 4 <= len(row) <= 5:  # one card per seat, plus the dummy's with 3 seats
        raise ParseError(f"a row has 4 or 5 cards (R10), not {len(row)}: {line!r}")
    gone, kept = resolve_dogs(row)
    return DogExample(row, written, gone, kept)


def dog_examples(text: str) -> list[DogExample]:
    """Every worked example in the text's ``dogs`` blocks."""
    return [dog_example(line) for block in _DOGS_BLOCK.findall(text) for line in block.splitlines() if line.strip()]
