"""Playing a tournament's games: in this process, on local worker processes, or on Ray.

The unit of work is a chunk of deals; each deal is played once per seating
(:mod:`catsack.tournament.schedule`). Workers return plain
:class:`GameResult` values and the caller sorts them by (deal, rotation), so
the outcome does not depend on which worker played what, or when.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

from catsack.bots.base import Bot, make_bot
from catsack.errors import CatsackError
from catsack.game import Game
from catsack.protocol.external import ExternalBot
from catsack.setup import Setup
from catsack.tournament.schedule import TournamentConfig, TournamentError, chunk_deals
from catsack.view import make_view

__all__ = ["BACKENDS", "GameResult", "check_bots", "play_chunk", "play_game", "run_games"]

BACKENDS = ("local", "ray")
Progress = Callable[[int], None]

# Bot kinds whose choose() answers a forced position (one legal move) with that move and
# nothing else (base.forced_move: no random draw, no state kept), so the runner plays it
# without building a view: the games are exactly the same. Not the random bot (it draws
# for a single placement), nor external programs (their protocol sees every decision).
_ANSWERS_FORCED = frozenset({"heuristic", "ismcts", "expert", "openspiel-ismcts", "style"})


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of one tournament game, by seat."""

    deal: int
    rotation: int  # the seating (TournamentConfig.entries): a rotation, or one of the reversed order
    entries: tuple[int, ...]  # index into config.bots of the bot at each seat
    scores: tuple[int, ...]  # R21
    cat_points: tuple[int, ...]
    ranking: tuple[int, ...]  # 1-based, ties share a rank (R22)
    winners: tuple[int, ...]  # R22: all seats sharing the victory
    faults: tuple[int, ...] = ()  # fallback moves played for each seat (external bots)
    moves: tuple[str, ...] | None = None  # only when the config keeps moves (records)


def play_game(
    config: TournamentConfig,
    deal: int,
    rotation: int,
    setup: Setup | None = None,
    pool: dict[int, ExternalBot] | None = None,
) -> GameResult:
    """Play one game of the schedule. ``pool`` keeps external bot programs running between games."""
    n = config.seats
    entries = config.entries(rotation)
    players = [config.bots[e] for e in entries]
    met = list(config.met(rotation))  # what the bots see of the table: the specs, or None with hide_kinds
    game = Game(setup if setup is not None else config.setup(deal))
    bots: list[Bot] = []
    to_close: list[Bot] = []
    faults_before: list[int] = []
    try:
        for seat, entry in enumerate(entries):
            seed = config.bot_seed(deal, rotation, seat)
            bot: Bot | None = pool.get(entry) if pool is not None else None
            if bot is None:
                bot = make_bot(config.bots[entry], seed=seed)
                if isinstance(bot, ExternalBot) and pool is not None:
                    pool[entry] = bot
                else:
                    to_close.append(bot)
            if isinstance(bot, ExternalBot):
                bot.seed = seed  # the program gets it in new_game: determinism is its part of the deal
                bot.time_limit = config.move_time
                bot.players = None if config.hide_kinds else players
            faults_before.append(getattr(bot, "faults", 0))
            bot.reset(seat, n)
            bot.meet(met)  # every seat's spec is public at a tournament table, unless hidden
            bots.append(bot)
        skips = [
            players[seat].strip().partition(":")[0] in _ANSWERS_FORCED for seat in range(n)
        ]  # kind as make_bot reads it
        while not game.is_over:
            mover = game.to_move
            assert mover is not None
            legal = game.legal_moves()
            if len(legal) == 1 and skips[mover]:
                move = legal[0]
            else:
                move = bots[mover].choose(make_view(game, mover))  # Game.view without the indirection
            try:
                game.play(move)
            except CatsackError as exc:
                raise TournamentError(
                    f"bot {players[mover]!r} at seat {mover + 1} (deal {deal}, seating {rotation}) "
                    f"chose a move the rules reject: {exc}"
                ) from exc
        ranking = game.ranking()
        for seat, bot in enumerate(bots):
            if isinstance(bot, ExternalBot):
                bot.game_over(game.view(seat), ranking)
        faults = tuple(getattr(b, "faults", 0) - before for b, before in zip(bots, faults_before, strict=True))
    finally:
        for bot in to_close:
            bot.close()
    return GameResult(
        deal=deal,
        rotation=rotation,
        entries=entries,
        scores=game.scores(),
        cat_points=game.cat_points(),
        ranking=ranking,
        winners=game.winners(),
        faults=faults,
        moves=tuple(m.text for m in game.moves) if config.keep_moves else None,
    )


def play_chunk(config: TournamentConfig, deals: Sequence[int], on_game: Progress | None = None) -> list[GameResult]:
    """Play every seating of each deal in ``deals`` (the work unit of all backends).

    ``on_game`` (in-process runs only) is called with 1 after each game.
    """
    pool: dict[int, ExternalBot] = {}
    out: list[GameResult] = []
    try:
        for deal in deals:
            setup = config.setup(deal)
            for rotation in range(config.seatings_per_deal):
                out.append(play_game(config, deal, rotation, setup, pool))
                if on_game is not None:
                    on_game(1)
    finally:
        for bot in pool.values():
            bot.close()
    return out


def check_bots(config: TournamentConfig) -> None:
    """Make (and close) each distinct bot once, so a bad spec fails before any game is played."""
    for spec in config.unique_bots:
        bot = make_bot(spec, seed=0)
        bot.close()


def _resolve_jobs(jobs: int) -> int:
    if type(jobs) is not int or jobs < 0:
        raise TournamentError(f"--jobs must be 0 (all cores) or a positive number, not {jobs!r}")
    return jobs or os.cpu_count() or 1


def run_games(
    config: TournamentConfig,
    *,
    jobs: int = 1,
    backend: str = "local",
    progress: Progress | None = None,
) -> list[GameResult]:
    """Play the whole schedule and return the results sorted by (deal, rotation).

    ``jobs=1`` with the local backend plays in this process; more jobs use a
    process pool; ``backend="ray"`` sends the chunks to Ray (``catsack[ray]``).
    ``progress`` is called with the number of games each finished chunk held.
    Worker processes start with ``forkserver`` (``spawn`` where missing), so a
    script calling this with several jobs needs the ``if __name__ ==
    "__main__":`` guard of :mod:`multiprocessing`.
    """
    if backend not in BACKENDS:
        raise TournamentError(f"unknown backend {backend!r} (choose from {', '.join(BACKENDS)})")
    jobs = _resolve_jobs(jobs)
    chunks = chunk_deals(config.deals, jobs)
    report = progress or (lambda _n: None)
    if backend == "ray":
        results = _run_ray(config, chunks, jobs, report)
    elif jobs == 1 or len(chunks) == 1:
        results = []
        for chunk in chunks:
            results.extend(play_chunk(config, chunk, report))
    else:
        results = _run_pool(config, chunks, jobs, report)
    results.sort(key=lambda r: (r.deal, r.rotation))
    return results


def _run_pool(config: TournamentConfig, chunks: list[range], jobs: int, report: Progress) -> list[GameResult]:
    # forkserver: workers start from a clean process, not from a fork of one that may run
    # threads (progress display, external bot readers).
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    results: list[GameResult] = []
    executor = ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=context)
    try:
        pending: set[Future[list[GameResult]]] = {executor.submit(play_chunk, config, c) for c in chunks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                part = future.result()
                results.extend(part)
                report(len(part))
    except BaseException:
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    executor.shutdown()
    return results


def _run_ray(config: TournamentConfig, chunks: list[range], jobs: int, report: Progress) -> list[GameResult]:
    try:
        import ray  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError as exc:
        raise TournamentError(f"--backend ray needs Ray (pip install 'catsack[ray]'): {exc}") from None
    import logging

    own = not ray.is_initialized()
    if own:
        # Joins a cluster when RAY_ADDRESS is set; otherwise starts a local Ray with `jobs` CPUs.
        ray.init(num_cpus=None if os.environ.get("RAY_ADDRESS") else jobs, logging_level=logging.WARNING)
    results: list[GameResult] = []
    try:
        task = ray.remote(play_chunk)
        pending = [task.remote(config, chunk) for chunk in chunks]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                part: list[GameResult] = ray.get(ref)
                results.extend(part)
                report(len(part))
    finally:
        if own:
            ray.shutdown()
    return results
