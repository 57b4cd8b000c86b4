"""Move analysis: what the search thinks of each option at a seat's decision.

``analyse_view`` searches from one view (R23: nothing hidden is used) and
reports, for every move the search considered (all placements; for bids the
abstraction described in :mod:`catsack.bots.ismcts`), the seat's expected
score margin over the table average in points, the preferred move, and the
exact belief over each face-down row card (:func:`catsack.belief.card_beliefs`).
``analyse_record`` does this for every decision of one seat in a record.

Levels: ``expert`` (the default: :mod:`catsack.bots.expert`, whose modelled
opponents decide from their own views), its smaller budgets ``expert:easy``,
``expert:normal``, ``expert:strong`` (the table levels) or ``expert:iters=N``; the ISMCTS
levels ``easy``, ``normal``, ``strong`` or ``iters=N``. A fixed seed gives the
same analysis every time (budgets are iteration counts, never wall time).

*Values and their noise.* A move's value is the mean, over the search's iterations that began with it,
of the seat's score margin over the table average at the end of the round (the leaf, or the game's
end), in points; its ``noise`` is that mean's standard error. The preferred move (``best``) is always
the best-valued one. Two values closer than :func:`gap_noise` (:data:`NOISE_Z` standard errors of
their difference) are *equally good*: the search cannot tell them apart, and playing either is never
classed a mistake (:func:`judge`). Repeated analyses of the same positions with other seeds spread
about as the standard error says (``bench/advice_check.py --noise``). The noise is the search's own:
how far its model of the other players is from the real table is another matter, measured by
``bench/model_check.py --analysis``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from catsack.belief import card_beliefs
from catsack.bots import expert
from catsack.bots.ismcts import LEVELS, search
from catsack.cards import CARDS
from catsack.errors import CatsackError
from catsack.game import Game
from catsack.moves import PLACES, Move
from catsack.record import MAX_NAME_CHARS, Record
from catsack.setup import Setup
from catsack.view import HIDDEN_PLACE, View

__all__ = [
    "DEFAULT_LEVEL",
    "NOISE_Z",
    "THRESHOLDS",
    "Analysis",
    "AnalysisError",
    "Decision",
    "Verdict",
    "analyse_record",
    "analyse_view",
    "classify",
    "equally_good",
    "game_for_seat",
    "gap_noise",
    "hint_payload",
    "judge",
    "record_players",
]

#: Lost value (points) from which a decision is a blunder, a mistake, an inaccuracy; checked in
#: this order, and only when the loss is larger than the noise (:func:`judge`). Calibrated on 12
#: heuristic-bot 4-seat games at the default level (expert) so that a seat's game of ~32 decisions
#: has a handful of each (``bench/analysis_load.py --calibrate 12``; docs/protocol.md).
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 12.0), ("mistake", 6.0), ("inaccuracy", 3.0))

#: Standard errors of a difference of two values within which the moves count as equally good
#: (two: about 95% of the time two equal moves fall within it).
NOISE_Z = 2.0
FEW_VISITS = 10
#: The expert levels' analysis gives every move at least 1/FLOOR_SHARE of the iterations: a move the
#: search likes less is then valued with its own later decisions searched too, not left with a handful
#: of iterations whose continuations were hardly explored (round 1's low bids read 1 to 2.5 points lower
#: that way; ``bench/model_check.py --analysis`` compares the values with the real table).
FLOOR_SHARE = 20


class AnalysisError(CatsackError):
    """A view, record, seat or level that cannot be analysed."""


@dataclass(frozen=True)
class Analysis:
    """The search's verdict at one decision.

    ``values`` maps move text to the seat's estimated score margin over the table average at the end
    of the round (points); ``noise`` the standard error of each value (points); ``visits`` how often
    the search tried it. ``best`` is the best-valued move. ``facts`` are public figures of the position
    the sentences are built from (:mod:`catsack.advice.explain`).
    """

    best: Move
    values: dict[str, float]
    beliefs: list[dict[str, float] | None]
    visits: dict[str, int]
    iterations: int
    noise: dict[str, float] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Analysis:
        """The analysis back from :meth:`to_dict` (or a stored decision); raises ``ValueError`` when malformed."""
        try:
            values = {str(k): float(v) for k, v in d["values"].items()}
            noise = {str(k): float(v) for k, v in d.get("noise", {}).items()}
            visits = {str(k): int(v) for k, v in d.get("visits", {}).items()}
            best = Move.parse(str(d["best"]))
            beliefs = [None if b is None else {str(t): float(p) for t, p in b.items()} for b in d.get("beliefs", [])]
            facts = dict(d.get("facts", {}))
            iterations = int(d.get("iterations", 0))
        except (KeyError, TypeError, AttributeError, CatsackError) as exc:
            raise ValueError(f"not an analysis: {exc}") from None
        if best.text not in values:
            raise ValueError(f"not an analysis: its best move {best.text!r} has no value")
        return cls(best, values, beliefs, visits, iterations, noise, facts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "best": self.best.text,
            "values": dict(self.values),
            "noise": dict(self.noise),
            "equal": equally_good(self),
            "visits": dict(self.visits),
            "beliefs": [None if b is None else dict(b) for b in self.beliefs],
            "iterations": self.iterations,
            "facts": dict(self.facts),
        }


@dataclass(frozen=True)
class Verdict:
    """What a played move cost against the best-valued one: ``lost`` points (never negative), the
    ``noise`` of that gap (:func:`gap_noise`), and its class (``None`` within the noise)."""

    lost: float
    noise: float
    cls: str | None

    @property
    def equal(self) -> bool:
        return self.lost <= self.noise


def classify(lost: float) -> str | None:
    """The class of a loss beyond the noise (:data:`THRESHOLDS`), or ``None``."""
    for name, threshold in THRESHOLDS:
        if lost >= threshold:
            return name
    return None


def gap_noise(values: dict[str, float], noise: dict[str, float], a: str, b: str) -> float:
    """The noise of the gap between two moves' values: :data:`NOISE_Z` standard errors of the difference."""
    return round(NOISE_Z * math.hypot(noise.get(a, 0.0), noise.get(b, 0.0)), 3)


def equally_good(a: Analysis) -> list[str]:
    """The moves whose value is within the noise of the best one's (the best first, then by value)."""
    best = a.best.text
    top = a.values[best]
    near = [m for m, v in a.values.items() if top - v <= gap_noise(a.values, a.noise, best, m)]
    return sorted(near, key=lambda m: (m != best, -a.values[m]))


def judge(values: dict[str, float], noise: dict[str, float], best: str, played: str) -> Verdict:
    """The verdict on ``played`` against ``best`` (the best-valued move): never a class within the noise."""
    if played == best or played not in values or best not in values:
        return Verdict(0.0, 0.0, None)
    lost = max(0.0, round(values[best] - values[played], 3))
    margin = gap_noise(values, noise, best, played)
    return Verdict(lost, margin, None if lost <= margin else classify(lost))


@dataclass(frozen=True)
class Decision:
    """One decision of the analysed seat in a record: the ply (0-based), the move played, the analysis."""

    ply: int
    round: int
    phase: str
    played: Move
    analysis: Analysis

    def to_dict(self) -> dict[str, Any]:
        """The decision as JSON: the analysis, the verdict on the move played, and its sentences in every
        language (:func:`catsack.advice.explain.explain`)."""
        from catsack.advice.explain import explain, render_all

        a = self.analysis
        v = judge(a.values, a.noise, a.best.text, self.played.text)
        sentences = explain(a, self.played)
        return {
            "ply": self.ply,
            "round": self.round,
            "phase": self.phase,
            "played": self.played.text,
            **a.to_dict(),
            "lost": v.lost,
            "margin": v.noise,
            "class": v.cls,
            "explain": [s.to_dict() for s in sentences],
            "sentences": render_all(sentences),
        }


DEFAULT_LEVEL = "expert"


def _level_iterations(level: str) -> tuple[str, int | None]:
    """``level`` -> (which search: ``learned``, ``classic`` or ``ismcts``; iterations, None: the search's own).

    ``expert`` (and ``expert:`` with the learned expert's options only) is the learned expert
    (:func:`catsack.learn.agent.appraise`); ``expert:easy|normal|strong|iters=N`` and ``classic[:...]`` the
    classic expert's search at that budget; ``easy|normal|strong|iters=N`` the ISMCTS levels."""
    from catsack.bots.strongest import is_agent

    if level == "expert" or (level.startswith("expert:") and is_agent(level.removeprefix("expert:"))):
        return "learned", None
    if level == "classic":
        return "classic", None
    is_expert = level.startswith(("expert:", "classic:"))
    text = level.partition(":")[2] if is_expert else level
    if is_expert and text in expert.LEVELS:
        return "classic", expert.LEVELS[text].iterations
    if not is_expert and text in LEVELS:
        return "ismcts", LEVELS[text]
    key, sep, value = text.partition("=")
    if sep and key == "iters" and value.isdigit() and int(value) >= 1:
        return ("classic" if is_expert else "ismcts"), int(value)
    raise AnalysisError(
        f"unknown analysis level {level!r} (use expert, {', '.join(f'expert:{k}' for k in expert.LEVELS)}, "
        f"expert:iters=N, classic, {', '.join(LEVELS)} or 'iters=N')"
    )


def _learned(view: View, level: str, seed: int | None, consider: Iterable[Move]) -> tuple[Any, ...]:
    """The learned expert's appraisal as (moves, values, noise, visits, worlds)."""
    import numpy as np

    from catsack.learn.agent import ExpertAgent, appraise

    agent = ExpertAgent(level.partition(":")[2] or None, seed=seed)
    a = appraise(view, agent.weights.net(view.seats), np.random.default_rng(seed), consider=consider)
    return a.moves, a.values, a.noise, [a.worlds] * len(a.moves), a.worlds


def analyse_view(
    view: View,
    *,
    level: str = DEFAULT_LEVEL,
    seed: int | None = None,
    consider: Iterable[Move] = (),
    players: Sequence[str | None] | None = None,
    seconds: float | None = None,
    min_iterations: int = 0,
) -> Analysis:
    """Search from ``view`` (its seat must be to move) and report every considered move's value.

    ``consider`` names legal moves to value besides the search's own candidates (e.g. the move played).
    ``players`` (per seat, the bot spec seated there or ``None``: what the table shows, as
    :meth:`catsack.bots.base.Bot.meet` gives it) lets the expert levels start from each player's kind.
    ``seconds`` (live hints only) stops an expert level's search at that wall-clock budget, after at least
    ``min_iterations`` and at most the level's iterations; analyses leave it out and stay reproducible.
    """
    kind, iterations = _level_iterations(level)
    if view.seat is None or view.to_move != view.seat or not view.legal:
        raise AnalysisError(f"seat {view.seat} is not to move in this view (to move: {view.to_move})")
    beliefs = card_beliefs(view)
    from catsack.advice.explain import position_facts

    facts = position_facts(view, beliefs)
    if len(view.legal) == 1:
        only = view.legal[0]
        return Analysis(only, {only.text: 0.0}, beliefs, {only.text: 0}, 0, {only.text: 0.0}, facts)
    if kind == "learned":
        moves, margins, errors, counts, worlds = _learned(view, level, seed, consider)
        values = {m.text: round(v, 3) for m, v in zip(moves, margins, strict=True)}
        noise = {m.text: round(e, 3) for m, e in zip(moves, errors, strict=True)}
        visits = {m.text: k for m, k in zip(moves, counts, strict=True)}
        best = max(moves, key=lambda m: values[m.text])  # the best-valued (ties: the network's first choice)
        return Analysis(best, values, beliefs, visits, worlds, noise, facts)
    if kind == "classic":
        budget = iterations if iterations is not None else expert.ITERATIONS[view.seats]
        stats = expert.search(
            view,
            random.Random(seed),
            iterations=budget,
            consider=consider,
            players=players,
            floor=budget // FLOOR_SHARE,
            seconds=seconds,
            min_iterations=min(min_iterations, budget),
        )
    else:
        stats = search(view, random.Random(seed), iterations=iterations, consider=consider)
    values = {m.text: round(v, 3) for m, v in zip(stats.moves, stats.margins, strict=True)}
    visits = {m.text: k for m, k in zip(stats.moves, stats.visits, strict=True)}
    # A spread read from a handful of iterations is itself unreliable: below FEW_VISITS, the widest
    # spread of any move, or the spread of all the root's iterations together, stands in for it when larger.
    total = sum(stats.visits)
    mean = sum(k * m for k, m in zip(stats.visits, stats.margins, strict=True)) / total
    pooled = math.sqrt(
        sum(
            k * (sd * sd + (m - mean) ** 2) for k, sd, m in zip(stats.visits, stats.spreads, stats.margins, strict=True)
        )
        / total
    )
    widest = max(pooled, *stats.spreads)
    noise = {
        m.text: round((sd if k >= FEW_VISITS else max(sd, widest)) / math.sqrt(k), 3)
        for m, sd, k in zip(stats.moves, stats.spreads, stats.visits, strict=True)
    }
    # The best-valued move, ties to the most visited (the search's own preference).
    best = max(stats.moves, key=lambda m: (values[m.text], visits[m.text]))
    return Analysis(best, values, beliefs, visits, stats.iterations, noise, facts)


def hint_payload(a: Analysis) -> dict[str, Any]:
    """What a hint shows of an analysis (no move played yet): the best move, every value and its noise,
    the moves as good as the best, the beliefs, and the sentences in every language."""
    from catsack.advice.explain import hint_sentences, render_all

    sentences = hint_sentences(a)
    return {
        "best": a.best.text,
        "values": dict(a.values),
        "noise": dict(a.noise),
        "equal": equally_good(a),
        "beliefs": [None if b is None else dict(b) for b in a.beliefs],
        "explain": [s.to_dict() for s in sentences],
        "sentences": render_all(sentences),
    }


def game_for_seat(record: Record, seat: int) -> Game:
    """Replay ``record`` into a game that shows ``seat`` exactly what it saw.

    A full record replays as it is. A record redacted for ``seat``
    (:func:`catsack.record.redact`) hides other seats' removed cards and
    unseen placements; they are filled with cards consistent with every
    public move, which changes nothing ``seat`` can see (R23).
    """
    if not 0 <= seat < record.seats:
        raise AnalysisError(f"no seat {seat} in a {record.seats}-seat record (seats are 0 to {record.seats - 1})")
    if not record.is_redacted:
        return record.to_game()
    if record.redacted_for != seat:
        raise AnalysisError(f"the record is redacted for seat {record.redacted_for}; it cannot show seat {seat}'s view")
    n = record.seats
    placed: list[list[int]] = [[] for _ in range(n)]
    owners = _placement_owners(record)
    for text, owner in zip(record.moves, owners, strict=False):
        if owner is not None and text.startswith("place ") and text != HIDDEN_PLACE:
            placed[owner].append(int(Move.parse(text).card))
    removed = []
    hidden_card: dict[int, int] = {}
    for j, card in enumerate(record.removed):
        if card is not None:
            removed.append(card)
            continue
        free = [c for c in range(10) if c not in placed[j]]
        if any(o == j and t == HIDDEN_PLACE for t, o in zip(record.moves, owners, strict=False)):
            hidden_card[j] = free.pop()
        if not free:
            raise AnalysisError(f"seat {j} places more cards than its set holds")
        removed.append(CARDS[free[0]])
    dummy: tuple[Any, ...] = ()
    if n == 3:
        known = [c for c in record.dummy if c is not None]
        rest = [c for c in CARDS if c not in known]
        dummy = tuple(known + rest[: 9 - len(known)])
    try:
        game = Game(Setup(n, record.start, tuple(removed), dummy))
        for text in record.moves:
            s = game.to_move
            game.play(PLACES[hidden_card[s]] if text == HIDDEN_PLACE and s is not None else text)
    except CatsackError as exc:
        raise AnalysisError(f"{record.source or '<record>'}: cannot replay the redacted record: {exc}") from exc
    return game


def _placement_owners(record: Record) -> list[int | None]:
    """The seat making each move of a redacted record, found by replaying with placeholder cards."""
    # Seat order depends only on public moves (bids, passes, buyers), so any
    # consistent cards give the right owners; replaying move by move lets a
    # hidden placement take any card still in hand.
    n = record.seats
    dummy = tuple(CARDS[:9]) if n == 3 else ()
    probe = Game(Setup(n, record.start, tuple(CARDS[9] for _ in range(n)), dummy))
    out: list[int | None] = []
    for text in record.moves:
        s = probe.to_move
        out.append(s)
        if s is None:
            break
        if text.startswith("place "):
            probe.play(probe.legal_moves()[0])
        else:
            try:
                probe.play(text)
            except CatsackError as exc:
                raise AnalysisError(f"{record.source or '<record>'}: cannot replay the redacted record: {exc}") from exc
    return out


def record_players(record: Record) -> list[str | None] | None:
    """Who sat at the record's table as the table showed it (:meth:`catsack.bots.base.Bot.meet`): per
    seat the bot spec, or ``None`` for a person, read from the record's ``agents`` key (``"human"`` or a
    bot spec per seat, as ``catsack play``, tournaments and the server write it). ``None`` when the
    record has no such list; an entry that names no bot (too long, not text, ``"human"``, ``"bot"``)
    reads as a person."""
    agents = record.extra.get("agents")
    if not isinstance(agents, list) or len(agents) != record.seats:
        return None
    return [
        a if isinstance(a, str) and a not in ("human", "bot") and 0 < len(a) <= MAX_NAME_CHARS else None for a in agents
    ]


def analyse_record(record: Record, seat: int, *, level: str = DEFAULT_LEVEL, seed: int | None = None) -> list[Decision]:
    """Analyse every decision ``seat`` made in ``record`` (moves with a single legal option included),
    with the table it sat at when the record names it (:func:`record_players`)."""
    _level_iterations(level)
    players = record_players(record)
    game = game_for_seat(record, seat)
    moves = game.moves
    replay = Game(game.setup)
    out: list[Decision] = []
    for ply, move in enumerate(moves):
        if replay.to_move == seat:
            view = replay.view(seat)
            sub = None if seed is None else seed * 1000 + ply
            analysis = analyse_view(view, level=level, seed=sub, consider=(move,), players=players)
            out.append(Decision(ply, view.round, view.phase, move, analysis))
        replay.play(move)
    return out
