"""Tournament statistics per bot spec: win share, score, margin, bootstrap intervals, ratings.

Bots with the same spec are pooled: a spec filling k seats of each game plays
k seat-games per game. For each seat-game:

- **win share**: 1 for a sole winner, 1/k for each of k seats sharing the
  victory (R22), 0 otherwise; so the shares of one game add up to 1;
- **score**: cats plus money (R21);
- **margin**: the score minus the mean score of the game's table.

95% confidence intervals come from a percentile bootstrap over deals: a
deal's games are resampled together, since duplicate play makes them
dependent. Ratings are OpenSkill Plackett–Luce ratings (``catsack[stats]``)
fed with every game's R22 ranking, in schedule order.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from catsack.tournament.runner import GameResult
from catsack.tournament.schedule import derive_seed

__all__ = ["DEFAULT_RESAMPLES", "BotStats", "Rating", "bootstrap_ratio_ci", "quantile", "rate", "summarize"]

DEFAULT_RESAMPLES = 1000
# Win shares are multiples of 1/k for k sharing winners (k <= 5) and margins multiples of
# 1/seats: scaled by 60 both are whole numbers, so sums are exact and independent of order.
_SCALE = 60


@dataclass(frozen=True, slots=True)
class Rating:
    """An OpenSkill rating; ``ordinal`` (mu - 3 sigma) is the conservative estimate."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot spec's results; ``*_ci`` are 95% bootstrap intervals (low, high)."""

    bot: str
    seats: int  # seats of each game this spec fills
    games: int  # seat-games played
    wins: float  # sum of win shares
    win_share: float
    win_share_ci: tuple[float, float]
    mean_score: float
    mean_score_ci: tuple[float, float]
    mean_margin: float
    mean_margin_ci: tuple[float, float]
    rating: Rating | None
    faults: int  # fallback moves played for this spec (external bots)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "seats": self.seats,
            "games": self.games,
            "wins": self.wins,
            "win_share": self.win_share,
            "win_share_ci": list(self.win_share_ci),
            "mean_score": self.mean_score,
            "mean_score_ci": list(self.mean_score_ci),
            "mean_margin": self.mean_margin,
            "mean_margin_ci": list(self.mean_margin_ci),
            "rating": None
            if self.rating is None
            else {"mu": self.rating.mu, "sigma": self.rating.sigma, "ordinal": self.rating.ordinal},
            "faults": self.faults,
        }


def quantile(sorted_values: Sequence[float], p: float) -> float:
    """The ``p`` quantile of sorted values, interpolating linearly between neighbours."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    pos = (len(sorted_values) - 1) * p
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def bootstrap_ratio_ci(
    numerators: Sequence[Sequence[int]],
    denominators: Sequence[int],
    rng: random.Random,
    resamples: int = DEFAULT_RESAMPLES,
    level: float = 0.95,
) -> list[tuple[float, float]]:
    """Percentile bootstrap intervals of sum(numerator)/sum(denominator), resampling units.

    ``numerators[j][i]`` is statistic j's total over unit i (a deal) and
    ``denominators[i]`` the unit's count; all statistics share the resampled
    units. Integers keep the sums exact.
    """
    units = len(denominators)
    if units == 0:
        return [(math.nan, math.nan) for _ in numerators]
    if resamples < 1 or units == 1:
        total = sum(denominators)
        return [(sum(num) / total, sum(num) / total) for num in numerators]
    draws = _draws_numpy(numerators, denominators, rng, resamples)
    if draws is None:
        draws = [[] for _ in numerators]
        index = range(units)
        for _ in range(resamples):
            pick = rng.choices(index, k=units)
            total = sum(map(denominators.__getitem__, pick))
            for j, num in enumerate(numerators):
                draws[j].append(sum(map(num.__getitem__, pick)) / total)
    tail = (1 - level) / 2
    out = []
    for values in draws:
        values.sort()
        out.append((quantile(values, tail), quantile(values, 1 - tail)))
    return out


_NUMPY_MIN_WORK = 20_000  # resamples x units below which the plain loop is as fast


def _draws_numpy(
    numerators: Sequence[Sequence[int]], denominators: Sequence[int], rng: random.Random, resamples: int
) -> list[list[float]] | None:
    """The bootstrap loop's ratios, bit for bit, with numpy (``None`` without it, or for small work).

    numpy's legacy generator is the same Mersenne Twister as :mod:`random` and
    draws doubles the same way, so ``rng``'s state is handed over, the unit
    indices ``floor(random() * units)`` of :meth:`random.Random.choices` are
    drawn in one go, and the state is handed back: ``rng`` ends where the
    plain loop leaves it. Sums stay in exact integers.
    """
    units = len(denominators)
    if resamples * units < _NUMPY_MIN_WORK:
        return None
    try:
        import numpy as np
    except ImportError:
        return None
    version, internal, gauss = rng.getstate()
    mt = np.random.RandomState()
    mt.set_state(("MT19937", np.array(internal[:624], dtype=np.uint32), internal[624], 0, 0.0))
    draws: list[list[float]] = [[] for _ in numerators]
    den = np.asarray(denominators, dtype=np.int64)
    nums = [np.asarray(num, dtype=np.int64) for num in numerators]
    chunk = max(1, 2_000_000 // units)  # resamples per batch: bounded memory
    for first in range(0, resamples, chunk):
        rows = min(chunk, resamples - first)
        pick = (mt.random_sample((rows, units)) * float(units)).astype(np.int64)
        total = den[pick].sum(axis=1).astype(np.float64)
        for j, num in enumerate(nums):
            draws[j].extend((num[pick].sum(axis=1).astype(np.float64) / total).tolist())
    _, keys, pos, _, _ = mt.get_state()
    rng.setstate((version, (*(int(k) for k in keys), int(pos)), gauss))
    return draws


def rate(bots: Sequence[str], games: Sequence[GameResult]) -> dict[str, Rating] | None:
    """OpenSkill Plackett–Luce ratings per spec from each game's ranking; ``None`` without openskill.

    Each seat is its own team, ranked by ``GameResult.ranking`` (R22 ties share
    a rank). A spec filling several seats of a game gets the mean of the
    updates of its seats, so pooled bots move as one player.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = {spec: model.rating(name=spec) for spec in dict.fromkeys(bots)}
    for g in games:
        specs = [bots[e] for e in g.entries]
        teams = [[ratings[s]] for s in specs]
        new = model.rate(teams, ranks=[float(r) for r in g.ranking])
        by_spec: dict[str, list[Any]] = {}
        for s, team in zip(specs, new, strict=True):
            by_spec.setdefault(s, []).append(team[0])
        for s, rs in by_spec.items():
            mu = sum(r.mu for r in rs) / len(rs)
            sigma = sum(r.sigma for r in rs) / len(rs)
            ratings[s] = model.rating(mu=mu, sigma=sigma, name=s)
    return {s: Rating(float(r.mu), float(r.sigma)) for s, r in ratings.items()}


def summarize(
    bots: Sequence[str],
    games: Sequence[GameResult],
    *,
    seed: int,
    resamples: int = DEFAULT_RESAMPLES,
    ratings: bool = True,
) -> list[BotStats]:
    """Statistics per distinct spec of ``bots`` (in order of first appearance) over ``games``.

    ``bots`` is the tournament's bot list (``GameResult.entries`` index it);
    the bootstrap draws from a generator seeded by ``seed``.
    """
    specs = list(dict.fromkeys(bots))
    col = {s: j for j, s in enumerate(specs)}
    deal_index: dict[int, int] = {}
    # Per spec and deal: seat-games, scaled win shares, scores, scaled margins.
    counts: list[list[int]] = [[] for _ in specs]
    shares: list[list[int]] = [[] for _ in specs]
    scores: list[list[int]] = [[] for _ in specs]
    margins: list[list[int]] = [[] for _ in specs]
    faults = [0] * len(specs)
    for g in games:
        d = deal_index.get(g.deal)
        if d is None:
            d = deal_index[g.deal] = len(deal_index)
            for lists in (counts, shares, scores, margins):
                for per_spec in lists:
                    per_spec.append(0)
        n = len(g.scores)
        table = sum(g.scores)
        winners = g.winners
        for seat, entry in enumerate(g.entries):
            j = col[bots[entry]]
            counts[j][d] += 1
            if seat in winners:
                shares[j][d] += _SCALE // len(winners)
            scores[j][d] += g.scores[seat]
            margins[j][d] += (n * g.scores[seat] - table) * (_SCALE // n)
            if g.faults:
                faults[j] += g.faults[seat]
    rng = random.Random(derive_seed(seed, "bootstrap"))
    rated = rate(bots, games) if ratings else None
    out = []
    for j, spec in enumerate(specs):
        played = sum(counts[j])
        if played == 0:
            nan = (math.nan, math.nan)
            out.append(BotStats(spec, bots.count(spec), 0, 0.0, math.nan, nan, math.nan, nan, math.nan, nan, None, 0))
            continue
        numerators = [shares[j], scores[j], margins[j]]
        share_ci, score_ci, margin_ci = bootstrap_ratio_ci(numerators, counts[j], rng, resamples)
        wins = sum(shares[j]) / _SCALE
        out.append(
            BotStats(
                bot=spec,
                seats=bots.count(spec),
                games=played,
                wins=wins,
                win_share=wins / played,
                win_share_ci=(share_ci[0] / _SCALE, share_ci[1] / _SCALE),
                mean_score=sum(scores[j]) / played,
                mean_score_ci=score_ci,
                mean_margin=sum(margins[j]) / _SCALE / played,
                mean_margin_ci=(margin_ci[0] / _SCALE, margin_ci[1] / _SCALE),
                rating=None if rated is None else rated[spec],
                faults=faults[j],
            )
        )
    return out
