"""Sentences that explain an analysed decision, in the player's language.

Every analysed decision gets one or two sentences: a *verdict* on the move played (the best move,
as good as the best within the search's noise, or worse by so many points) and, where the position
gives one, a *reason* for the best move built from public facts of the position (R23: what the seat
may know) and the search's own figures. A sentence is a template key plus parameters
(:class:`Sentence`); the templates live in one catalogue per language (``explain.en.json``,
``explain.de.json`` beside this module), so the command line, the replay page and the hint panel say
the same thing: the server sends the sentences rendered in every language (:func:`render_all`).

The parameters are the analysis's own numbers, rounded as shown: ``value`` (the played move's value),
``se`` (its standard error), ``lost`` and ``noise`` (:func:`catsack.bots.analysis.judge`), and the
position's facts (:func:`position_facts`): ``worth`` (the expected kept value of the row, R16, from
the seat's view), ``limit`` (the most mice worth paying for it, :func:`catsack.bots.heuristic.bid_limit`),
``payout`` (what passing now pays, R13), ``top`` (the most mice any other bidder still in holds, R12),
``p`` (the chance in percent that the large dog lies face down in the row).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from catsack.bots.heuristic import bid_limit, plans_to_buy, row_worth, seat_money
from catsack.cards import POINTS, TOKENS, Card
from catsack.moves import PASS, Move

if TYPE_CHECKING:
    from catsack.bots.analysis import Analysis
    from catsack.view import View

__all__ = [
    "LANGUAGES",
    "MOVE_PARAMS",
    "TEMPLATES",
    "Sentence",
    "catalogue",
    "explain",
    "hint_sentences",
    "position_facts",
    "render",
    "render_all",
]

LANGUAGES = ("en", "de")
#: Parameters that hold a move's text (told in the language's words), and a card's token.
MOVE_PARAMS = frozenset({"played", "best"})
CARD_PARAMS = frozenset({"card"})
#: Numbers shown with their sign.
SIGNED_PARAMS = frozenset({"value"})
#: The sentence templates every catalogue has (a test checks both languages).
TEMPLATES = (
    "only",
    "best",
    "equal",
    "worse",
    "pass_pays",
    "pass_low",
    "pass_nothing",
    "lock",
    "bid_range",
    "bid_worth",
    "bid_value",
    "dog_up",
    "dog_risk",
    "last_buy",
    "last_pass",
    "place_lead",
    "place_keep",
    "place_dump",
    "place_large_dog",
    "place_small_dog",
    "hint_equal",
)
#: The large dog's chance (percent) from which it is named as a risk to the seat's own cat.
DOG_RISK_PERCENT = 20
_LD = int(Card.LARGE_DOG)


@dataclass(frozen=True)
class Sentence:
    """One sentence: a template ``key`` of the catalogues and its parameters (numbers, moves, cards)."""

    key: str
    params: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "params": dict(self.params)}


@cache
def catalogue(lang: str) -> dict[str, str]:
    """The templates of one language (``en``, ``de``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"no sentences in {lang!r} (languages: {', '.join(LANGUAGES)})")
    text = resources.files("catsack.bots").joinpath(f"explain.{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    assert isinstance(data, dict)
    return {str(k): str(v) for k, v in data.items()}


def _number(value: float | int, lang: str, signed: bool) -> str:
    text = f"{value:+.1f}" if signed else f"{value:.1f}" if isinstance(value, float) else str(value)
    return text.replace(".", ",") if lang == "de" else text


def _card(token: str, cat: dict[str, str]) -> str:
    return cat.get(f"card.{token}", token)


def _move(text: str, cat: dict[str, str]) -> str:
    move = Move.parse(text)
    if text.startswith("place "):  # the card as the command's object ("lege den großen Hund")
        return cat["move.place"].format(card=cat.get(f"move.card.{text[6:]}") or _card(text[6:], cat))
    if move.kind != PASS:
        return cat["move.bid"].format(n=move.arg)
    return cat["move.pass"]


def render(sentence: Sentence, lang: str) -> str:
    """The sentence in ``lang``: moves and cards in its words, numbers rounded to one decimal."""
    cat = catalogue(lang)
    args: dict[str, str] = {}
    for k, v in sentence.params.items():
        if k in MOVE_PARAMS:
            args[k] = _move(str(v), cat)
        elif k in CARD_PARAMS:
            args[k] = _card(str(v), cat)
        else:
            args[k] = _number(v, lang, k in SIGNED_PARAMS)
    text = cat[f"explain.{sentence.key}"].format(**args)
    return text[:1].upper() + text[1:]


def render_all(sentences: list[Sentence]) -> dict[str, list[str]]:
    """The sentences rendered in every language: ``{"en": [...], "de": [...]}``."""
    return {lang: [render(s, lang) for s in sentences] for lang in LANGUAGES}


def position_facts(view: View, beliefs: list[dict[str, float] | None]) -> dict[str, Any]:
    """Public figures of the seat's position (R23: only what its view shows) that sentences use."""
    seat = view.seat
    assert seat is not None
    money = seat_money(view)
    facts: dict[str, Any] = {
        "phase": view.phase,
        "round": view.round,
        "start": view.start == seat,
        "money": money[seat],
        "richest": max(m for s, m in enumerate(money) if s != seat),
        "payout": view.next_payout,
    }
    # The row as the seat saw it before deciding: the replay draws its decision panel's board from it.
    facts["row"] = [{"owner": rc.owner, "card": _token(rc.card), "face_up": rc.face_up} for rc in view.row]
    if view.phase == "placement":
        facts["buyer"] = plans_to_buy(view)
        return facts
    worth = row_worth(view)
    facts["worth"] = round(worth, 1)
    facts["limit"] = math.floor(bid_limit(view, worth))
    facts["top"] = max((m for s, m in enumerate(money) if s != seat and not view.passed[s]), default=0)
    facts["high"] = view.high_bid
    up = [rc.card for rc in view.row if rc.face_up and rc.card is not None]
    facts["large_up"] = sum(c == Card.LARGE_DOG for c in up)
    facts["dogs_up"] = sum(c in (Card.LARGE_DOG, Card.SMALL_DOG) for c in up)
    none = 1.0
    for b in beliefs:
        if b is not None:
            none *= 1.0 - b.get(TOKENS[_LD], 0.0)
    facts["p_large"] = round(100 * (1.0 - none))
    own = [rc.card for rc in view.row if rc.owner == seat and rc.card is not None and not rc.face_up]
    facts["own"] = own[0].token if own else None
    return facts


def _token(card: Card | None) -> str | None:
    return None if card is None else card.token


def _fmt(x: float) -> float:
    """A figure as a sentence shows it (one decimal), so a sentence's numbers are the analysis's."""
    return round(x + 0.0, 1)


def _reason(a: Analysis) -> Sentence | None:
    """Why the best move is best, from the position's public facts; ``None`` when none applies. A
    reason speaks for the best move (never a fact that argues against it) and says more than that the
    search prefers it."""
    f = a.facts
    best = a.best
    phase = f.get("phase")
    if phase == "placement":
        card = Card(best.arg)
        if card == Card.LARGE_DOG:
            return Sentence("place_large_dog", {})
        if card == Card.SMALL_DOG:
            return Sentence("place_small_dog", {})
        positive = POINTS[card] > 0
        if positive and f.get("round") == 1 and f.get("start"):
            return Sentence("place_lead", {"card": card.token})
        if positive and f.get("buyer"):
            return Sentence("place_keep", {"card": card.token, "money": f["money"]})
        if not positive and not f.get("buyer"):
            return Sentence("place_dump", {"card": card.token, "money": f["money"], "richest": f["richest"]})
        return None  # no public fact speaks for it: the verdict's figures are the whole reason
    if "worth" not in f:
        return None
    worth = _fmt(f["worth"])
    if phase == "last choice":
        return Sentence("last_buy" if best.kind != PASS else "last_pass", {"worth": worth})
    if best.text == "pass":
        if f.get("own") is not None and POINTS[Card.parse(f["own"])] > 0 and f["p_large"] >= DOG_RISK_PERCENT:
            return Sentence("dog_risk", {"p": f["p_large"], "card": f["own"]})
        if f["large_up"] == 1 and f["dogs_up"] == 1:  # a lone large dog spoils the row for its buyer
            return Sentence("dog_up", {})
        if f["payout"] and f["limit"] >= 1:
            return Sentence("pass_pays", {"payout": f["payout"], "worth": worth, "limit": f["limit"]})
        if f["payout"]:
            return Sentence("pass_low", {"payout": f["payout"], "worth": worth})
        return Sentence("pass_nothing", {"worth": worth})
    total = best.arg
    if total == f["top"] and total > f["high"] + 1:
        return Sentence("lock", {"top": f["top"], "bid": total})
    bids = sorted(Move.parse(m).arg for m in _equal(a) if m.startswith("bid "))
    if len(bids) >= 2:
        return Sentence("bid_range", {"low": bids[0], "high": bids[-1], "worth": worth})
    if f["payout"]:
        return Sentence("bid_worth", {"worth": worth, "payout": f["payout"]})
    return Sentence("bid_value", {"worth": worth})  # passing pays nothing now: no payout to weigh


def _equal(a: Analysis) -> list[str]:
    from catsack.bots.analysis import equally_good

    return equally_good(a)


def explain(a: Analysis, played: Move) -> list[Sentence]:
    """One or two sentences on a decision: the verdict on ``played``, then the reason for the best move."""
    from catsack.bots.analysis import judge

    if len(a.values) == 1 and played == a.best:
        return [Sentence("only", {"played": played.text})]
    v = judge(a.values, a.noise, a.best.text, played.text)
    out: list[Sentence]
    if played == a.best:
        figures = {"value": _fmt(a.values[played.text]), "se": _fmt(a.noise.get(played.text, 0.0))}
        out = [Sentence("best", {"played": played.text, **figures})]
    else:
        key = "equal" if v.equal else "worse"
        out = [
            Sentence(key, {"played": played.text, "best": a.best.text, "lost": _fmt(v.lost), "noise": _fmt(v.noise)})
        ]
    reason = _reason(a)
    if reason is not None:
        out.append(reason)
    return out


def hint_sentences(a: Analysis) -> list[Sentence]:
    """The hint's sentences (no move played yet): the reason for the best move, and the moves as good."""
    out: list[Sentence] = []
    reason = _reason(a)
    if reason is not None:
        out.append(reason)
    from catsack.bots.analysis import gap_noise

    equal = _equal(a)
    if len(equal) > 1:
        noise = max(gap_noise(a.values, a.noise, a.best.text, m) for m in equal[1:])
        out.append(Sentence("hint_equal", {"best": a.best.text, "n": len(equal) - 1, "noise": _fmt(noise)}))
    return out
