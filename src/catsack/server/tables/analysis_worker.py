"""What the analysis worker processes run: one decision of one seat, and its class.

Kept apart from :mod:`catsack.server.people.analysis_jobs` so that a fresh worker process imports
only the rules core and the search (not the web server), and lowers its CPU priority first.
"""

from __future__ import annotations

import os
from typing import Any

from catsack.advice.analysis import THRESHOLDS, classify, judge
from catsack.server.tables.think_worker import die_with_parent

__all__ = ["THRESHOLDS", "analyse_decision", "annotate", "classify", "lower_priority"]


def lower_priority(increment: int) -> None:
    """Worker initializer: yield the CPU to the server process's live tables, and die with the server."""
    die_with_parent()
    if increment:
        os.nice(increment)


def analyse_decision(record_text: str, seat: int, ply: int, level: str | None, seed: int | None) -> dict[str, Any]:
    """One decision, exactly as :func:`catsack.advice.analysis.analyse_record` analyses it: the seat's
    view at ``ply`` (R23), the move played among the options, seed ``seed * 1000 + ply``, the table
    as the record names it."""
    from catsack.advice.analysis import DEFAULT_LEVEL, Decision, analyse_view, game_for_seat, record_players
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
    """(Re)compute ``lost`` (points the played move lost against the best-valued one), ``margin`` (the
    noise of that gap) and the ``class`` (none within the noise: :func:`catsack.advice.analysis.judge`)."""
    v = judge(decision["values"], decision.get("noise", {}), decision["best"], decision["played"])
    return {**decision, "lost": v.lost, "margin": v.noise, "class": v.cls}
