"""Advice a player can trust: the best-valued move, its noise, and a sentence per decision.

- the named best move is the best-valued one; a move within the noise of it is never a mistake;
- each value carries its noise (a standard error from the search's own iterations);
- every language has every template (catsack.i18n's catalogues), and every sentence's numbers are the
  analysis's own figures, rounded as shown and written the language's way.
"""

from __future__ import annotations

import re

import pytest

from catsack.advice.analysis import (
    NOISE_Z,
    Analysis,
    analyse_record,
    analyse_view,
    equally_good,
    gap_noise,
    hint_payload,
    judge,
)
from catsack.advice.explain import TEMPLATES, Sentence, explain, render, template
from catsack.bots.base import make_bot
from catsack.game import Game
from catsack.i18n import translations
from catsack.locales import LANGUAGES
from catsack.moves import Move
from catsack.record import record_from_game

LEVEL = "expert:iters=120"


def _game(seats: int, seed: int, rounds: int = 9) -> Game:
    bots = [make_bot("heuristic", seed=seed + s) for s in range(seats)]
    for s, b in enumerate(bots):
        b.reset(s, seats)
    g = Game.new(seats, seed=seed)
    while not g.is_over and g.round <= rounds:
        s = g.to_move
        assert s is not None
        g.play(bots[s].choose(g.view(s)))
    return g


def _numbers(text: str, lang: str) -> list[float]:
    if lang != "en":  # a decimal comma
        text = re.sub(r"(\d),(\d)", r"\1.\2", text)
    return [float(x) for x in re.findall(r"[+-]?\d+(?:\.\d+)?", text)]


#: A value for every parameter a template may hold.
SAMPLE = {"played": "bid 3", "best": "place LD", "card": "+11", "value": 2.5, "se": 0.4, "lost": 1.5}
SAMPLE |= {"noise": 0.7, "payout": 2, "worth": 6.5, "limit": 5, "top": 9, "bid": 10, "low": 3, "high": 6}
SAMPLE |= {"p": 23, "money": 12, "richest": 14, "n": 2}


def test_every_template_in_every_language_with_its_placeholders() -> None:
    """Each template renders in each language, fills every placeholder, and names no rule or card token."""
    for key in TEMPLATES:
        english = set(re.findall(r"\{(\w+)\}", template(key, translations("en"), SAMPLE)))
        for lang in LANGUAGES:
            text = template(key, translations(lang), SAMPLE)
            assert set(re.findall(r"\{(\w+)\}", text)) == english, (key, lang)
            rendered = render(Sentence(key, {k: SAMPLE[k] for k in english}), lang)
            assert "{" not in rendered and not rendered[:1].islower(), (key, lang, rendered)
            assert not re.search(r"\bR\d+\b|\bLD\b|\bSD\b", rendered), (key, lang, rendered)
            if lang != "en":
                assert rendered != render(Sentence(key, {k: SAMPLE[k] for k in english}), "en"), (key, lang)
    with pytest.raises(KeyError, match="no sentence template"):
        template("nope", translations("en"), {})
    with pytest.raises(ValueError, match="no texts"):
        render(Sentence("only", {"played": "pass"}), "xx")


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_every_decision_has_sentences_whose_numbers_are_the_analysis(seats: int) -> None:
    g = _game(seats, seed=seats * 7, rounds=3)
    decisions = analyse_record(record_from_game(g), 1, level=LEVEL, seed=2)
    keys: set[str] = set()
    for d in decisions:
        a = d.analysis
        out = d.to_dict()
        assert a.values[a.best.text] == max(a.values.values())  # the best move is the best-valued
        assert set(out["noise"]) == set(a.values) and all(v >= 0 for v in out["noise"].values())
        sentences = explain(a, d.played)
        assert 1 <= len(sentences) <= 2
        keys |= {s.key for s in sentences}
        v = judge(a.values, a.noise, a.best.text, d.played.text)
        assert out["lost"] == v.lost and out["margin"] == v.noise and out["class"] == v.cls
        assert v.cls is None or v.lost > v.noise  # never a mistake within the noise
        for lang in LANGUAGES:
            texts = out["sentences"][lang]
            assert texts == [render(s, lang) for s in sentences]
            shown = _numbers(texts[0], lang)
            first = sentences[0]
            if first.key == "best":
                assert shown[-2:] == [round(a.values[d.played.text], 1), round(a.noise[d.played.text], 1)]
            elif first.key in ("equal", "worse"):
                assert shown[-2:] == [round(v.lost, 1), round(v.noise, 1)]
                assert (first.key == "equal") == v.equal
            for s in sentences[1:]:  # a reason's figures are the position's facts
                for name in ("worth", "payout", "limit", "top"):
                    if name in s.params:
                        assert s.params[name] == round(a.facts[name], 1) or s.params[name] == a.facts[name]
                assert len(_numbers(render(s, lang), lang)) >= sum(
                    isinstance(x, (int, float)) and not isinstance(x, bool) for x in s.params.values()
                )
    assert keys & {"best", "equal", "worse", "only"}


def test_the_best_is_the_best_valued_and_near_moves_are_equally_good() -> None:
    """``bid 10`` was once named best while ``bid 12`` showed more. Now the best-valued move is
    named, and one whose gap is within the noise is as good, never a mistake."""
    a = Analysis(
        Move.parse("bid 12"),
        {"bid 12": 5.3, "bid 10": 5.1, "pass": -6.0},
        [],
        {"bid 12": 900, "bid 10": 2000, "pass": 50},
        3000,
        {"bid 12": 0.2, "bid 10": 0.1, "pass": 0.3},
        {},
    )
    assert equally_good(a) == ["bid 12", "bid 10"]
    v = judge(a.values, a.noise, "bid 12", "bid 10")
    assert v.equal and v.cls is None and v.noise == pytest.approx(NOISE_Z * (0.2**2 + 0.1**2) ** 0.5, abs=1e-3)
    worse = judge(a.values, a.noise, "bid 12", "pass")
    assert worse.lost == 11.3 and worse.cls == "mistake" and not worse.equal
    big = judge({"a": 10.0, "b": 0.0}, {"a": 4.0, "b": 4.0}, "a", "b")
    assert big.lost == 10.0 and big.noise == gap_noise({}, {"a": 4.0, "b": 4.0}, "a", "b") and big.cls is None
    assert [s.key for s in explain(a, Move.parse("bid 10"))] == ["equal"]


def test_analyse_view_names_the_best_valued_move_with_its_noise() -> None:
    g = _game(4, seed=5, rounds=2)
    for seat in range(4):
        replay = Game(g.setup)
        for m in g.moves:
            if replay.to_move == seat and len(replay.legal_moves()) > 1:
                a = analyse_view(replay.view(seat), level=LEVEL, seed=seat)
                assert a.values[a.best.text] == max(a.values.values())
                assert set(a.noise) == set(a.values)
                assert Analysis.from_dict(a.to_dict()) == a
                hint = hint_payload(a)
                assert hint["best"] == a.best.text and hint["equal"][0] == a.best.text
                assert set(hint["sentences"]) == set(LANGUAGES)
                break
            replay.play(m)


def test_a_malformed_stored_analysis_is_a_clear_error() -> None:
    for bad in ({}, {"values": {"pass": 1}, "best": "bid 3"}, {"values": "x", "best": "pass"}, {"best": "fly"}):
        with pytest.raises(ValueError, match="not an analysis"):
            Analysis.from_dict(bad)  # type: ignore[arg-type]


def test_numbers_and_percentages_are_written_the_languages_way() -> None:
    s = Sentence("worse", {"played": "bid 3", "best": "pass", "lost": 6.5, "noise": 1.2})
    assert "6.5" in render(s, "en") and "±1.2" in render(s, "en")
    assert "6,5" in render(s, "de") and "±1,2" in render(s, "de") and "„passen“" in render(s, "de")
    assert "6,5" in render(s, "fr") and "±1,2" in render(s, "fr") and "« passer »" in render(s, "fr")
    risk = Sentence("dog_risk", {"p": 23, "card": "+11"})
    assert "(23%)" in render(risk, "en") and "(23\u00a0%)" in render(risk, "de") and "(23\u00a0%)" in render(risk, "fr")
    best = Sentence("best", {"played": "pass", "value": 2.0, "se": 0.3})
    assert "+2.0" in render(best, "en") and "+2,0" in render(best, "de")


def test_counts_choose_the_plural_form() -> None:
    """ "1 other move is", "2 other moves are": the plural form follows the count, in every language."""
    one = Sentence("hint_equal", {"best": "pass", "n": 1, "noise": 0.5})
    two = Sentence("hint_equal", {"best": "pass", "n": 2, "noise": 0.5})
    assert "1 other move is" in render(one, "en") and "2 other moves are" in render(two, "en")
    assert "1 weiterer Zug ist" in render(one, "de") and "2 weitere Züge sind" in render(two, "de")
    assert "1 autre coup vaut" in render(one, "fr") and "2 autres coups valent" in render(two, "fr")


def _bidding(best: str, **facts: object) -> Analysis:
    """A bidding decision's analysis whose best move is ``best`` (the other, ``pass`` or ``bid 9``, worse)."""
    other = "bid 9" if best == "pass" else "pass"
    base = {"phase": "bidding", "worth": 6.0, "limit": 5, "top": 15, "high": 2, "payout": 2}
    base |= {"large_up": 0, "dogs_up": 0, "p_large": 0, "own": None}
    return Analysis(Move.parse(best), {best: 3.0, other: -4.0}, [], {}, 100, {best: 0.5, other: 0.5}, base | facts)


def test_a_reason_never_argues_against_the_advised_move() -> None:
    """A lone large dog face up spoils the row for its buyer (R16): it is a reason to pass, never the
    reason given for a bid; a bid is explained by what the row is worth."""
    for facts in ({"large_up": 1, "dogs_up": 1}, {}):
        bid = explain(_bidding("bid 3", **facts), Move.parse("pass"))
        assert [s.key for s in bid] == ["worse", "bid_worth"], facts
    passed = explain(_bidding("pass", large_up=1, dogs_up=1), Move.parse("bid 9"))
    assert [s.key for s in passed] == ["worse", "dog_up"]


def test_a_bid_is_not_weighed_against_a_payout_of_nothing() -> None:
    """Where passing pays no mice (R13), the reason for a bid says so instead of "passing would pay 0 mice"."""
    (_, reason) = explain(_bidding("bid 3", payout=0), Move.parse("pass"))
    assert reason.key == "bid_value" and "payout" not in reason.params
    for lang in LANGUAGES:
        assert " 0 " not in render(reason, lang)
    (_, paid) = explain(_bidding("bid 3", payout=2), Move.parse("pass"))
    assert paid.key == "bid_worth" and "2 mice" in render(paid, "en")


def test_a_placement_without_a_public_reason_gets_none_that_restates_the_advice() -> None:
    """A card the seat keeps for a row it will likely buy, or a bad card it places anyway, has no
    public fact for it: the verdict alone is said, not "the search expects your -8 to leave you best off"."""
    facts = {"phase": "placement", "round": 2, "start": False, "buyer": True, "money": 9, "richest": 7}
    values = {"place -8": 1.0, "place +3": -1.0}
    a = Analysis(Move.parse("place -8"), values, [], {}, 100, {"place -8": 0.4, "place +3": 0.4}, facts)
    assert [s.key for s in explain(a, Move.parse("place -8"))] == ["best"]
    assert all("best off" not in template(key, translations("en"), SAMPLE) for key in TEMPLATES)


def test_german_moves_name_their_card_as_the_commands_object() -> None:
    """ "lege den großen Hund", not "lege großer Hund"; numbered cats and the English stay as they are."""
    s = Sentence("worse", {"played": "place LD", "best": "place SD", "lost": 2.0, "noise": 0.5})
    assert "„lege den großen Hund“" in render(s, "de") and "„lege den kleinen Hund“" in render(s, "de")
    assert "“place the large dog”" in render(s, "en")
    assert "« poser le grand chien »" in render(s, "fr")
    r = Sentence("worse", {"played": "place R", "best": "place +11", "lost": 2.0, "noise": 0.5})
    assert "„lege den Hasen“" in render(r, "de") and "„lege +11“" in render(r, "de")
