"""The Python side's texts in every language: gettext catalogues, and numbers, times and lists written
the way each language writes them.

Every player-facing text of the Python code (mails, the advice sentences, the rules page's frame, the
terminal game, the unsubscribe page) is an English message in the source, marked for extraction
(``t.gettext("…")``, ``t.ngettext(…)``, ``t.pgettext(context, …)``, or :func:`N_` where a table holds
it). ``pybabel extract`` collects them into ``locale/catsack.pot`` and ``pybabel update`` carries them
into one ``locale/<lang>/LC_MESSAGES/catsack.po`` per language of :data:`catsack.locales.LANGUAGES`
other than English (``make catalogues``). The ``.po`` files are read when a language is first asked
for (Babel's reader, once per process): nothing is compiled at build time, so an editable install, a
wheel and a checkout behave the same. A missing message shows its English text; the tests see to it
that none is missing.

Numbers, percentages, durations and lists of names go through Babel's formatters (CLDR data), so a
German or French text gets its decimal comma, its spacing before ``%`` and its own words for days and
hours; plural forms come from each catalogue's ``Plural-Forms`` header.

The browser keeps its catalogues as JSON (``server/static/i18n/<lang>.json``) for the same list of
languages; the words both sides show (card names and letters, move words) have their source here, and
``scripts/sync_browser_words.py`` writes them into the JSON (:data:`SHARED_WORDS`).
"""

from __future__ import annotations

import functools
import gettext
import io
from importlib import resources
from importlib.resources.abc import Traversable

from catsack.locales import DEFAULT_LANGUAGE, LANGUAGES
from catsack.moves import PASS, Move

__all__ = [
    "DOMAIN",
    "N_",
    "SHARED_WORDS",
    "SOURCE_LANGUAGE",
    "card_name",
    "catalogue_file",
    "duration",
    "move_words",
    "names",
    "number",
    "percent",
    "shared_word",
    "translations",
]

#: The gettext domain: one catalogue per language for every Python text.
DOMAIN = "catsack"
#: The language the messages are written in; it needs no catalogue.
SOURCE_LANGUAGE = "en"
#: Texts shown by both the Python side and the browser, by the browser catalogue's key: (context, message).
#: The ``.po`` files are their source: card names and letters, move words, and the event log's sentences
#: (the terminal's log and the browser's say the same; :mod:`catsack.narrative`).
SHARED_WORDS: dict[str, tuple[str, str]] = {
    "card.LD": ("card", "large dog"),
    "card.SD": ("card", "small dog"),
    "card.R": ("card", "rabbit"),
    "card.cat": ("card", "cat {value}"),
    "tok.LD": ("card letters", "LD"),
    "tok.SD": ("card letters", "SD"),
    "tok.R": ("card letters", "R"),
    "move.bid": ("move", "bid {n}"),
    "move.pass": ("move", "pass"),
    "move.place": ("move", "place {card}"),
    "move.placeLD": ("move", "place the large dog"),
    "move.placeSD": ("move", "place the small dog"),
    "move.placeR": ("move", "place the rabbit"),
    "nothing": ("cards", "nothing"),
    "ordinal.0": ("ordinal", "first"),
    "ordinal.1": ("ordinal", "second"),
    "ordinal.2": ("ordinal", "third"),
    "ordinal.3": ("ordinal", "fourth"),
    "ordinal.4": ("ordinal", "fifth"),
    "ev.placed": ("", "{name} places a card face down ({nth} in the row)."),
    "ev.revealed": ("", "The {nth} card ({owner}'s) is turned up: {card}."),
    "ev.bid": ("", "{name} bids {total}."),
    "ev.passedEmpty": ("", "{name} passes; the mouse cards are empty, so nothing is paid."),
    "ev.passed": ("", "{name} passes and takes {mice} from the {card}-mouse card."),
    "ev.lastChoice": ("", "Nobody bid: {name} may buy the row for 1 mouse or pass."),
    "ev.dogAlone": ("", "The {dog} finds no cat and goes back to the box."),
    "ev.dogChase": ("", "The {dog} chases the {cat} cat away; both go back to the box."),
    "ev.dogsCancel": ("", "{n} dogs in the row: they scare each other off and no cat is chased."),
    "ev.bought": ("", "{name} buys the row for {mice} and takes {cards}."),
    "ev.void": ("", "{name} passes too: round {round} is void and the row goes back to the box."),
    "ev.refill": ("", "The bank refills the mouse cards (bank now {bank})."),
    "ev.noRefill": ("", "The mouse cards stay empty next round (bank {bank})."),
    "ev.roundStarted": ("", "Round {round}: {name} starts."),
    "ev.gameOverOne": ("", "Game over. {name} wins."),
    "ev.gameOverShared": ("", "Game over. {names} share the victory."),
}


def shared_word(key: str, lang: str) -> str:
    """The text of :data:`SHARED_WORDS`' ``key`` in ``lang``, as the browser's catalogue must hold it."""
    context, message = SHARED_WORDS[key]
    t = translations(lang)
    return t.pgettext(context, message) if context else t.gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for extraction where it is kept in a table and translated later (gettext_noop)."""
    return message


def catalogue_file(lang: str) -> Traversable:
    """The ``.po`` file of ``lang`` in the package (English, the source, has none)."""
    return resources.files("catsack") / "locale" / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def translations(lang: str) -> gettext.NullTranslations:
    """The messages of ``lang`` (one of :data:`catsack.locales.LANGUAGES`): ``gettext``, ``ngettext``,
    ``pgettext`` and ``npgettext`` as the standard library's. English returns the messages as they are.

    A language that is not in the list is a :class:`ValueError`; fuzzy and empty entries of a catalogue
    are left out (their English shows), as ``msgfmt`` does.
    """
    if lang not in LANGUAGES:
        raise ValueError(f"no texts in {lang!r} (languages: {', '.join(LANGUAGES)})")
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    from babel.support import Translations

    with catalogue_file(lang).open("rb") as stream:
        catalog = read_po(stream, locale=lang, domain=DOMAIN)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)  # what msgfmt would write: fuzzy entries left out
    compiled.seek(0)
    return Translations(compiled, domain=DOMAIN)


def card_name(token: str, t: gettext.NullTranslations) -> str:
    """A card's name for a sentence: ``large dog``, ``rabbit``, ``cat +11`` (in the language of ``t``)."""
    if token == "LD":
        return t.pgettext("card", "large dog")
    if token == "SD":
        return t.pgettext("card", "small dog")
    if token == "R":
        return t.pgettext("card", "rabbit")
    return t.pgettext("card", "cat {value}").format(value=token)


def move_words(text: str, t: gettext.NullTranslations) -> str:
    """A move as a command in words: ``bid 3``, ``pass``, ``place the large dog``, ``place +11`` (the card as
    the command's object: German ``lege den großen Hund``)."""
    move = Move.parse(text)
    if text.startswith("place "):
        token = text[6:]
        if token == "LD":
            return t.pgettext("move", "place the large dog")
        if token == "SD":
            return t.pgettext("move", "place the small dog")
        if token == "R":
            return t.pgettext("move", "place the rabbit")
        return t.pgettext("move", "place {card}").format(card=token)
    if move.kind != PASS:
        return t.pgettext("move", "bid {n}").format(n=move.arg)
    return t.pgettext("move", "pass")


def _locale(lang: str) -> str:
    return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


def number(value: float, lang: str, *, decimals: int = 1, signed: bool = False) -> str:
    """``value`` with ``decimals`` decimals (an int with none) in ``lang``'s digits: ``6.5``, ``6,5``,
    ``+1,2`` with ``signed``."""
    from babel.numbers import format_decimal

    body = "#,##0" + ("." + "0" * decimals if decimals and not isinstance(value, int) else "")
    pattern = f"+{body};-{body}" if signed else body
    return format_decimal(value, format=pattern, locale=_locale(lang))


def percent(share: float, lang: str) -> str:
    """A share (0.23) as a whole percentage the language's way: ``23%``, ``23 %``."""
    from babel.numbers import format_percent

    return format_percent(share, locale=_locale(lang))


def duration(seconds: float, lang: str) -> str:
    """Time left in its two largest units, in the language's words: ``2 days, 5 hours``,
    ``3 Stunden, 4 Minuten``, ``12 minutes`` (a unit that is zero is left out; a negative time is none)."""
    from babel.lists import format_list
    from babel.units import format_unit

    s = max(0, int(seconds))
    days, hours, minutes = s // 86400, s % 86400 // 3600, s % 3600 // 60
    if days:
        units = [(days, "duration-day"), (hours, "duration-hour")]
    elif hours:
        units = [(hours, "duration-hour"), (minutes, "duration-minute")]
    else:
        units = [(minutes, "duration-minute")]
    locale = _locale(lang)
    parts = [format_unit(n, unit, length="long", locale=locale) for i, (n, unit) in enumerate(units) if n or not i]
    return format_list(parts, style="unit", locale=locale)


def names(items: list[str], lang: str) -> str:
    """Names joined as a sentence lists them: ``Ann, Bea and Cy``, ``Ann, Bea et Cy``."""
    from babel.lists import format_list

    return format_list(items, locale=_locale(lang)) if items else ""
