"""The languages catsack speaks: one list that the server, its pages and every catalogue read.

Adding a language is adding its code and name here and its catalogue files: the browser's
``server/static/i18n/<code>.json`` (the server serves this list to pages at
``/i18n/languages.json``, and ``tests/test_catalogues.py`` checks that each listed language has a
complete catalogue). Standard library only, no I/O.
"""

from __future__ import annotations

__all__ = ["DEFAULT_LANGUAGE", "LANGUAGES", "negotiate"]

#: Every language by its code (ISO 639-1, lower case), with its name in itself, in the order pickers show.
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch", "fr": "Français"}
#: The language of a reader who asked for none of :data:`LANGUAGES`.
DEFAULT_LANGUAGE = "en"


def _base(tag: str) -> str:
    """``de-AT`` -> ``de``: the language of a tag, lower case."""
    return tag.strip().lower().replace("_", "-").split("-")[0]


def negotiate(
    query: str | None,
    cookie: str | None,
    accept_language: str | None,
    available: tuple[str, ...] | None = None,
) -> str:
    """The reader's language among ``available`` (default: every language): ``?lang=``, else the
    ``catsack_lang`` cookie, else the best of Accept-Language by its weights, else the default.

    Anything malformed in the header is skipped, never an error: it is a stranger's input.
    """
    choices = tuple(available) if available is not None else tuple(LANGUAGES)
    for choice in (query, cookie):
        if choice and _base(choice) in choices:
            return _base(choice)
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "")[:1000].split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        base = _base(tag)
        if base in choices and quality > 0:
            ranked.append((-quality, i, base))
    if ranked:
        return min(ranked)[2]
    return DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in choices else choices[0]
