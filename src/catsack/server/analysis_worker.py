"""What the analysis worker processes run (issue 14): one decision of one seat, and its class.

Kept apart from :mod:`catsack.server.analysis_jobs` so that a fresh worker process imports
only the rules core and the search (not the web server), and lowers its CPU priority first.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

__all__ = ["THRESHOLDS", "analyse_decision", "annotate", "classify", "die_with_parent", "lower_priority"]

#: Lost value (points) from which a decision is a blunder, a mistake, an inaccuracy; checked in
#: this order. Calibrated on 12 heuristic-bot 4-seat games at the default level (expert) so that a
#: seat's game of ~32 decisions has a handful of each: 3.2 inaccuracies, 1.6 mistakes and 1.3
#: blunders per game (bench/analysis_load.py --calibrate 12; docs/protocol.md).
THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 12.0), ("mistake", 6.0), ("inaccuracy", 3.0))


def classify(lost: float) -> str | None:
    for name, threshold in THRESHOLDS:
        if lost >= threshold:
            return name
    return None


def lower_priority(increment: int) -> None:
    """Worker initializer: yield the CPU to the server process's live tables, and die with the server."""
    die_with_parent()
    if increment:
        os.nice(increment)


def die_with_parent() -> None:
    """Ask Linux to end this process when the process that started it ends, however it ends (``kill -9``
    included), so that no worker outlives its server (issue 29, defect 8). Elsewhere: nothing."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    pr_set_pdeathsig = 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the server's own shutdown still ends the workers
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(0)


def analyse_decision(record_text: str, seat: int, ply: int, level: str | None, seed: int | None) -> dict[str, Any]:
    """One decision, exactly as :func:`catsack.bots.analysis.analyse_record` analyses it: the seat's
    view at ``ply`` (R23), the move played among the options, seed ``seed * 1000 + ply``, the table
    as the record names it."""
    from catsack.bots.analysis import DEFAULT_LEVEL, Decision, analyse_view, game_for_seat, record_players
    from catsack.game import Game
    from catsack.record import loads_record

    record = loads_record(record_text)
    game = game_for_seat(record, seat)
    replay = Game(game.setup)
    for move in game.moves[:ply]:
        replay.play(move)
    view = replay.view(seat)
    move = game.moves[ply]
    sub = None if seed is None else seed * 1000 + ply
    level = DEFAULT_LEVEL if level is None else level
    analysis = analyse_view(view, level=level, seed=sub, consider=(move,), players=record_players(record))
    return annotate(Decision(ply, view.round, view.phase, move, analysis).to_dict())


def annotate(decision: dict[str, Any]) -> dict[str, Any]:
    """Add ``lost`` (points the played move lost against the preferred one) and its ``class``."""
    values: dict[str, float] = decision["values"]
    best, played = decision["best"], decision["played"]
    lost = 0.0
    if played != best and played in values and best in values:
        lost = max(0.0, round(values[best] - values[played], 3))
    return {**decision, "lost": lost, "class": classify(lost)}
