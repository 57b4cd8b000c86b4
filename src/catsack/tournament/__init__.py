"""Bot tournaments with duplicate deals: schedule, run (local processes or Ray), statistics, output.

>>> from catsack.tournament import TournamentConfig, run_tournament
>>> result = run_tournament(TournamentConfig(("random",) * 4, games=8, seed=1))  # doctest: +SKIP
>>> [s.bot for s in result.stats]  # doctest: +SKIP
['random']

Optional parts import their libraries lazily: ratings (openskill) and plots
(matplotlib) need ``catsack[stats]``, the Ray backend ``catsack[ray]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from catsack.tournament.runner import BACKENDS, GameResult, Progress, check_bots, run_games
from catsack.tournament.schedule import TournamentConfig, TournamentError, derive_seed, parse_bots
from catsack.tournament.stats import DEFAULT_RESAMPLES, BotStats, Rating, summarize

__all__ = [
    "BACKENDS",
    "BotStats",
    "GameResult",
    "Rating",
    "TournamentConfig",
    "TournamentError",
    "TournamentResult",
    "derive_seed",
    "parse_bots",
    "run_tournament",
]


@dataclass
class TournamentResult:
    """A finished tournament: every game's result (schedule order) and the statistics per spec."""

    config: TournamentConfig
    games: list[GameResult]
    stats: list[BotStats]
    resamples: int
    elapsed: float  # seconds spent playing (not part of the results)
    backend: str
    jobs: int

    @property
    def games_per_second(self) -> float:
        return len(self.games) / self.elapsed if self.elapsed > 0 else float("inf")


def run_tournament(
    config: TournamentConfig,
    *,
    jobs: int = 1,
    backend: str = "local",
    progress: Progress | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    check: bool = True,
) -> TournamentResult:
    """Play ``config``'s schedule and summarise it; the results depend on the config alone.

    ``check`` first makes each distinct bot once so a bad spec fails before
    any game is played (raises :class:`~catsack.bots.base.BotSpecError`).
    """
    if check:
        check_bots(config)
    started = time.perf_counter()
    games = run_games(config, jobs=jobs, backend=backend, progress=progress)
    elapsed = time.perf_counter() - started
    stats = summarize(config.bots, games, seed=config.seed, resamples=resamples)
    return TournamentResult(config, games, stats, resamples, elapsed, backend, jobs)
