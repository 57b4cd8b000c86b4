"""Sentences that explain an analysed decision, in the player's language.

Every analysed decision gets one or two sentences: a *verdict* on the move played (the best move,
as good as the best within the search's noise, or worse by so many points) and, where the position
gives one, a *reason* for the best move built from public facts of the position (R23: what the seat
may know) and the search's own figures. A sentence is a template key plus parameters
(:class:`Sentence`); the templates are messages of the package's catalogues (:mod:`catsack.i18n`), so
the command line, the replay page and the hint panel say the same thing: the server sends the
sentences rendered in every language (:func:`render_all`). A sentence cites no rule number and no card
token: players read words.

The parameters are the analysis's own numbers, rounded as shown: ``value`` (the played move's value),
``se`` (its standard error), ``lost`` and ``noise`` (:func:`catsack.advice.analysis.judge`), and the
position's facts (:func:`position_facts`): ``worth`` (the expected kept value of the row, R16, from
the seat's view), ``limit`` (the most mice worth paying for it, :func:`catsack.bots.heuristic.bid_limit`),
``payout`` (what passing now pays, R13), ``top`` (the most mice any other bidder still in holds, R12),
``p`` (the chance in percent that the large dog lies face down in the row).
"""

from __future__ import annotations

import gettext
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from catsack.bots.heuristic import bid_limit, plans_to_buy, row_worth, seat_money
from catsack.cards import POINTS, TOKENS, Card
from catsack.i18n import card_name, move_words, number, percent, translations
from catsack.locales import LANGUAGES
from catsack.moves import PASS, Move

if TYPE_CHECKING:
    from catsack.advice.analysis import Analysis
    from catsack.view import View

__all__ = [
    "DOG_RISK_PERCENT",
    "MOVE_PARAMS",
    "TEMPLATES",
    "Sentence",
    "explain",
    "hint_sentences",
    "position_facts",
    "render",
    "render_all",
    "template",
]

#: Parameters that hold a move's text (told in the language's words), and a card's token.
MOVE_PARAMS = frozenset({"played", "best"})
CARD_PARAMS = frozenset({"card"})
#: Numbers shown with their sign, and shares shown as a percentage.
SIGNED_PARAMS = frozenset({"value"})
PERCENT_PARAMS = frozenset({"p"})
#: The sentence templates (each a message of every catalogue: :func:`template`).
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
    """One sentence: a template ``key`` of :data:`TEMPLATES` and its parameters (numbers, moves, cards)."""

    key: str
    params: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "params": dict(self.params)}


def template(key: str, t: gettext.NullTranslations, params: dict[str, Any]) -> str:
    """The text of template ``key`` in the language of ``t`` (plural forms chosen by ``params``' counts),
    its placeholders not yet filled. A key that is not in :data:`TEMPLATES` is a :class:`KeyError`."""
    n = int(params.get("n", 0))
    match key:
        case "only":
            return t.gettext("“{played}” was the only legal move.")
        case "best":
            return t.gettext(
                "“{played}” was the best move: it leaves you about {value} points against the table average at "
                "the end of the round (±{se})."
            )
        case "equal":
            return t.gettext(
                "“{played}” is as good as “{best}”: the {lost} points between them are within the search's "
                "noise (±{noise})."
            )
        case "worse":
            return t.gettext(
                "“{best}” was better: “{played}” gives up about {lost} points, more than the search's noise (±{noise})."
            )
        case "pass_pays":
            return t.ngettext(
                "passing now pays {payout} mouse; the row looks worth about {worth} points to you, so any price "
                "above {limit} loses you points.",
                "passing now pays {payout} mice; the row looks worth about {worth} points to you, so any price "
                "above {limit} loses you points.",
                int(params.get("payout", 0)),
            )
        case "pass_low":
            return t.ngettext(
                "passing now pays {payout} mouse, and the row looks worth only about {worth} points to you: "
                "not worth a bid.",
                "passing now pays {payout} mice, and the row looks worth only about {worth} points to you: "
                "not worth a bid.",
                int(params.get("payout", 0)),
            )
        case "pass_nothing":
            return t.gettext(
                "the row looks worth about {worth} points to you; the search expects buying it to cost more "
                "than it brings."
            )
        case "lock":
            return t.ngettext(
                "no other player still bidding holds more than {top} mouse, so a bid of {bid} cannot be topped.",
                "no other player still bidding holds more than {top} mice, so a bid of {bid} cannot be topped.",
                int(params.get("top", 0)),
            )
        case "bid_range":
            return t.gettext(
                "bids from {low} to {high} all score about the same here; the row looks worth about {worth} "
                "points to you."
            )
        case "bid_worth":
            return t.ngettext(
                "the row looks worth about {worth} points to you, and passing would pay {payout} mouse.",
                "the row looks worth about {worth} points to you, and passing would pay {payout} mice.",
                int(params.get("payout", 0)),
            )
        case "bid_value":
            return t.gettext("the row looks worth about {worth} points to you, and passing would pay nothing now.")
        case "dog_up":
            return t.gettext("the large dog is face up: unless a second dog turns up, it chases the row's best cat.")
        case "dog_risk":
            # i18n: {p} is a percentage ("23%"), {card} a card's name ("cat +11").
            return t.gettext(
                "the large dog may lie face down in the row ({p}): a lone large dog would chase your {card}."
            )
        case "last_buy":
            return t.gettext(
                "last choice: the whole row is face up and worth about {worth} points to you, for 1 mouse."
            )
        case "last_pass":
            return t.gettext(
                "last choice: the row is worth about {worth} points to you; the search prefers to leave it, and "
                "the round is void."
            )
        case "place_lead":
            return t.gettext(
                "in round 1 everyone holds 15 mice and you bid first, so a bid of 15 wins the row outright: "
                "your {card} is likely to come back to you."
            )
        case "place_keep":
            return t.ngettext(
                "with {money} mouse you are likely to buy this row, so your {card} is likely to come back to you.",
                "with {money} mice you are likely to buy this row, so your {card} is likely to come back to you.",
                int(params.get("money", 0)),
            )
        case "place_dump":
            return t.ngettext(
                "with {money} mouse (the richest of the others holds {richest}) you are unlikely to buy this "
                "row: your {card} most likely costs someone else.",
                "with {money} mice (the richest of the others holds {richest}) you are unlikely to buy this "
                "row: your {card} most likely costs someone else.",
                int(params.get("money", 0)),
            )
        case "place_large_dog":
            return t.gettext("a lone large dog chases the row's best cat: it spoils the row for whoever buys it.")
        case "place_small_dog":
            return t.gettext("the small dog chases the row's worst cat: it helps whoever buys the row.")
        case "hint_equal":
            return t.ngettext(
                "{n} other move is as good as “{best}” within the search's noise (±{noise}).",
                "{n} other moves are as good as “{best}” within the search's noise (±{noise}).",
                n,
            )
    raise KeyError(f"no sentence template {key!r}")


def render(sentence: Sentence, lang: str) -> str:
    """The sentence in ``lang``: moves and cards in its words, numbers written its way (one decimal)."""
    t = translations(lang)
    args: dict[str, str] = {}
    for k, v in sentence.params.items():
        if k in MOVE_PARAMS:
            args[k] = move_words(str(v), t)
        elif k in CARD_PARAMS:
            args[k] = card_name(str(v), t)
        elif k in PERCENT_PARAMS:
            args[k] = percent(float(v) / 100, lang)
        else:
            args[k] = number(v, lang, signed=k in SIGNED_PARAMS)
    text = template(sentence.key, t, sentence.params).format(**args)
    return text[:1].upper() + text[1:]


def render_all(sentences: list[Sentence]) -> dict[str, list[str]]:
    """The sentences rendered in every language of :data:`catsack.locales.LANGUAGES`: ``{"en": [...], ...}``."""
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
    from catsack.advice.analysis import equally_good

    return equally_good(a)


def explain(a: Analysis, played: Move) -> list[Sentence]:
    """One or two sentences on a decision: the verdict on ``played``, then the reason for the best move."""
    from catsack.advice.analysis import judge

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
    from catsack.advice.analysis import gap_noise

    equal = _equal(a)
    if len(equal) > 1:
        noise = max(gap_noise(a.values, a.noise, a.best.text, m) for m in equal[1:])
        out.append(Sentence("hint_equal", {"best": a.best.text, "n": len(equal) - 1, "noise": _fmt(noise)}))
    return out
