"""The "How to play" page: the rules text of one language as a complete HTML page (markdown-it-py).

The page needs no JavaScript. Worked dog examples (fenced ``dogs`` blocks) are
drawn as cards and resolved by the engine's own R16 (:func:`catsack.game.resolve_dogs`),
so what the page shows cannot disagree with the game; card pictures come from
``/rules/img/<lang>/``. Headings get the ids GitHub gives them (so the text's
own contents links work in both places) and every rule label gets its number as
id: ``/rules#R16``.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from catsack.cards import Card
from catsack.i18n import card_name, translations
from catsack.locales import LANGUAGES as LANGUAGE_NAMES
from catsack.narrative import card_label
from catsack.rulebook import DEFAULT_LANGUAGE, LANGUAGES, DogExample, dog_example, source

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.token import Token

__all__ = ["IMAGE_ROOT", "plain_markdown", "render_examples", "render_page"]

IMAGE_ROOT = "/rules/img"

#: Links between the texts, as the page knows them (docs/rules.md is the default language's, the others
#: docs/rules.<lang>.md); other relative links (docs that are not served, such as records.md) become plain text.
_PAGE_LINKS = {
    ("rules.md" if lang == DEFAULT_LANGUAGE else f"rules.{lang}.md"): f"/rules?lang={lang}" for lang in LANGUAGES
}


def _label(card: Card, lang: str) -> str:
    """A card as the page writes it: cats with a true minus sign, the rabbit and the dogs as their letters."""
    return card_label(str(card).replace("-", "−"), translations(lang))


def _name(card: Card, lang: str) -> str:
    return card_name(str(card).replace("-", "−"), translations(lang))


def _file(card: Card) -> str:
    return "card-" + str(card).replace("+", "p").replace("-", "m") + ".svg"


def _card_img(card: Card, lang: str, extra: str = "") -> str:
    src = f"{IMAGE_ROOT}/{lang}/{_file(card)}"
    alt = _name(card, lang) + (f" ({extra})" if extra else "")
    cls = "card gone" if extra else "card"
    return f'<img class="{cls}" src="{html.escape(src)}" alt="{html.escape(alt)}" width="60" height="84">'


def _what_dogs_do(ex: DogExample, lang: str) -> str | None:
    """What the dogs of an example row do (R16), or ``None`` without a dog."""
    t = translations(lang)
    dogs = [c for c in ex.gone if str(c) in ("LD", "SD")]
    if not dogs:
        return None
    if len(dogs) >= 2:
        return t.ngettext(
            "{n} dog scares the others off: they go back into the box and no cat is chased.",
            "{n} dogs scare each other off: they go back into the box and no cat is chased.",
            len(dogs),
        ).format(n=len(dogs))
    dog = card_name(str(dogs[0]), t)
    if len(ex.gone) == 2:
        # i18n: {dog} is "large dog" or "small dog", {cat} a cat's value ("+15").
        return t.gettext("A lone {dog} chases the {cat}; both go back into the box.").format(
            dog=dog, cat=_label(ex.gone[1], lang)
        )
    return t.gettext("A lone {dog} finds no cat and goes back into the box.").format(dog=dog)


def _caption(ex: DogExample, lang: str) -> str:
    t = translations(lang)
    head = _what_dogs_do(ex, lang)
    if head is None:
        return t.gettext("No dog: the buyer keeps the whole row.")
    # i18n: what the buyer of a worked example's row keeps, as card labels ("+3 −5"), or "nothing".
    kept = " ".join(_label(c, lang) for c in ex.kept) or t.gettext("nothing")
    return head + " " + t.gettext("The buyer keeps {kept}.").format(kept=kept)


def render_examples(examples: Sequence[DogExample], lang: str) -> str:
    """Worked R16 examples as HTML: the row (cards that leave marked), an arrow, the kept cards, a caption."""
    out = ['<div class="dog-examples">']
    for ex in examples:
        leaving = list(ex.gone)
        row = []
        for card in ex.row:
            if card in leaving:  # the first copy of each dog and of the chased cat leaves
                leaving.remove(card)
                row.append(_card_img(card, lang, translations(lang).gettext("back into the box")))
            else:
                row.append(_card_img(card, lang))
        kept = "".join(_card_img(c, lang) for c in ex.kept)
        label = translations(lang).gettext("Row {row}").format(row=" ".join(_label(c, lang) for c in ex.row))
        out.append(
            f'<figure class="dog-example" aria-label="{html.escape(label)}">'
            f'<span class="cards">{"".join(row)}</span>'
            '<span class="arrow" aria-hidden="true">→</span>'
            f'<span class="cards kept">{kept}</span>'
            f"<figcaption>{html.escape(_caption(ex, lang))}</figcaption></figure>"
        )
    out.append("</div>\n")
    return "".join(out)


def _slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _rewrite(state: StateCore) -> None:
    """Heading and rule ids, card picture addresses, links between the texts (a markdown-it core rule)."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and i + 1 < len(tokens):
            tok.attrSet("id", _slug(tokens[i + 1].content))
        if tok.type != "inline" or not tok.children:
            continue
        children: list[Token] = []
        depth_dropped = 0
        for j, child in enumerate(tok.children):
            if child.type == "strong_open" and j + 1 < len(tok.children):
                m = re.match(r"R(\d+) ", tok.children[j + 1].content)
                if m and tok.children[j + 1].type == "text":
                    child.attrSet("id", f"R{m.group(1)}")
            elif child.type == "image":
                src = str(child.attrGet("src") or "")
                if src.startswith("img/"):
                    child.attrSet("src", IMAGE_ROOT + src[3:])
                child.attrSet("class", "card")
            elif child.type == "link_open":
                href = str(child.attrGet("href") or "")
                if href in _PAGE_LINKS:
                    child.attrSet("href", _PAGE_LINKS[href])
                elif not re.match(r"[a-z]+:|#|/", href):
                    depth_dropped += 1
                    continue
            elif child.type == "link_close" and depth_dropped:
                depth_dropped -= 1
                continue
            children.append(child)
        tok.children = children


@functools.cache
def _markdown(lang: str) -> MarkdownIt:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table")
    md.core.ruler.push("catsack_rewrite", _rewrite)

    def fence(renderer: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        tok = tokens[idx]
        if tok.info.strip() == "dogs":
            examples = [dog_example(line) for line in tok.content.splitlines() if line.strip()]
            return render_examples(examples, lang)
        return str(renderer.fence(tokens, idx, options, env))  # the class's own rule: a code block

    md.add_render_rule("fence", fence)
    return md


def _stylesheet() -> str:
    return (resources.files("catsack.rulebook") / "rules.css").read_text(encoding="utf-8")


@functools.cache
def render_page(lang: str) -> str:
    """The complete HTML page for ``lang`` (cached: the texts are package data and do not change)."""
    body = _markdown(lang).render(source(lang))
    t = translations(lang)
    title, lobby, language = t.gettext("How to play – catsack"), t.gettext("← catsack lobby"), t.gettext("Language")
    switch = " · ".join(
        f'<a href="/rules?lang={code}" hreflang="{code}" lang="{code}"'
        + (' aria-current="page"' if code == lang else "")
        + f">{html.escape(LANGUAGE_NAMES[code])}</a>"
        for code in LANGUAGES
    )
    return (
        "<!doctype html>\n"
        f'<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        '<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">\n'
        f"<style>\n{_stylesheet()}</style>\n</head>\n<body>\n"
        f'<header class="rules-top"><a class="home" href="/">{html.escape(lobby)}</a>'
        f'<nav aria-label="{html.escape(language)}">{switch}</nav></header>\n'
        f'<main class="rules">\n{body}</main>\n</body>\n</html>\n'
    )


_IMAGE_MD = re.compile(r"!\[[^\]]*\]\(img/[a-z]+/card-(\w+)\.svg\)")
_LINK_MD = re.compile(r"(?<!!)\[([^\]]+)\]\([^)]+\)")
_DOGS_MD = re.compile(r"^```dogs\n(.*?)^```\n", re.MULTILINE | re.DOTALL)


def plain_markdown(lang: str) -> str:
    """The rules text for a terminal (``catsack play``'s rules screen): no pictures, no links.

    Card pictures become their tokens (the back ``[??]``, as on the terminal board),
    links become their text, and the worked dog examples are listed with what the
    engine (R16) says the buyer keeps.
    """

    def card(m: re.Match[str]) -> str:
        name = m.group(1)
        if name == "back":
            return "`[??]`"
        return "`" + name.replace("p", "+", 1).replace("m", "−", 1) + "`"

    def examples(m: re.Match[str]) -> str:
        items = []
        for line in m.group(1).splitlines():
            if not line.strip():
                continue
            ex = dog_example(line)
            row = " ".join(str(c) for c in ex.row)
            kept = " ".join(str(c) for c in ex.kept) or "-"
            said = _what_dogs_do(ex, lang) or translations(lang).gettext("No dog: the buyer keeps the whole row.")
            items.append(f"- `{row}` → `{kept}`: {said}")
        return "\n".join(items) + "\n"

    text = _DOGS_MD.sub(examples, source(lang))
    text = _IMAGE_MD.sub(card, text)
    return _LINK_MD.sub(r"\1", text)
