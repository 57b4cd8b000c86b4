"""``bench/sitting.py``: several games in a row at one table, the same bot objects kept from game to game."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from bench_modules import load_bench
from catsack.bots import make_bot
from catsack.bots.base import play_game
from catsack.game import Game
from catsack.setup import Setup
from catsack.tournament.schedule import derive_seed


def test_a_sitting_is_its_deals_played_in_a_row_with_the_first_bot_in_the_rotated_seat() -> None:
    sitting = load_bench("sitting")
    bots = ["heuristic", "random", "style:dumper", "random"]
    got, _ = sitting.play_sitting(bots, 3, 1, 2, 2, False)
    assert len(got) == 2
    # the same games by hand: seat s holds bots[(s - rotation) % n], the same objects in every game (a
    # random bot's draws go on from one game to the next), and game g is the sitting's g-th deal
    made = [make_bot(bots[(s - 2) % 4], seed=derive_seed(3, "bot", 1, 2, s)) for s in range(4)]
    for g, (win, margin) in enumerate(got):
        setup = Setup.deal(4, random.Random(derive_seed(3, "deal", 1, g)))
        game = play_game(Game(setup), made)
        scores = game.scores()
        assert margin == scores[2] - sum(scores) / 4  # the first bot sits at seat 2 (the rotation)
        assert win == (1 / len(game.winners()) if 2 in game.winners() else 0.0)
    assert sitting.play_sitting(bots, 3, 1, 2, 2, False)[0] == got  # reproducible from the seed


def saved_run(
    bots: list[str], against: str | None, sittings: int, results: list[dict[str, Any]], complete: bool = True
) -> dict[str, Any]:
    """A run as ``bench/sitting.py --save`` keeps it: two games a sitting, seed 1, kinds hidden."""
    return {
        "bots": bots,
        "against": against,
        "seed": 1,
        "games": 2,
        "sittings": sittings,
        "hide_kinds": True,
        "complete": complete,
        "results": results,
    }


def test_the_report_pairs_the_arms_sitting_by_sitting_and_skips_unfinished_ones(capsys: object) -> None:
    sitting = load_bench("sitting")
    results = [
        {"arm": "first", "sitting": 0, "rotation": 0, "games": [[1.0, 5.0], [1.0, 4.0]]},
        {"arm": "against", "sitting": 0, "rotation": 0, "games": [[1.0, 5.0], [0.0, -2.0]]},
        {"arm": "first", "sitting": 0, "rotation": 1, "games": [[0.0, -1.0], [0.5, 2.0]]},  # no 'against' yet
    ]
    saved = saved_run(["a", "b", "c"], "z", 1, results, complete=False)
    sitting.report(saved)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "1 sittings of 3" in out and "unfinished run" in out and "kinds hidden" in out
    assert "game 1 (nothing to recall yet) the same in both arms in 1 of 1 sittings" in out
    assert "win share: +1.000 [+1.000, +1.000]" in out  # game 2 only: 1.0 - 0.0
    assert "margin: +6.000 [+6.000, +6.000]" in out  # 4.0 - (-2.0)


def test_what_a_remembering_first_bot_recalled_is_kept_by_game_and_reported(capsys: object) -> None:
    sitting = load_bench("sitting")
    bots = ["expert:iters=20+memory=1", "style:dumper", "heuristic"]
    games, recalled = sitting.play_sitting(bots, 1, 0, 0, 2, True)
    assert len(games) == 2 and recalled[0] is None  # nothing to recall in a sitting's first game
    assert set(recalled[1]) == set(sitting.RECALLED) and 0.05 <= recalled[1]["lead1"] <= 0.95
    assert sitting.play_sitting(["heuristic", *bots[1:]], 1, 0, 0, 2, True)[1] == [None, None]  # no memory
    results = [{"arm": "first", "sitting": 0, "rotation": 0, "games": games, "recalled": recalled}]
    saved = saved_run(bots, None, 1, results)
    sitting.report(saved)
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert f"recalled: lead1 {recalled[1]['lead1']:.2f}" in out


def test_the_result_file_holds_the_later_games_paired_and_makes_a_results_row(tmp_path: Path) -> None:
    sitting = load_bench("sitting")
    results_table = load_bench("results_table")
    arms = [(0, "first", 1.0, 4.0), (0, "against", 0.0, -2.0), (1, "first", 0.5, 2.0), (1, "against", 0.5, 2.0)]
    results = [  # two sittings, each played by both arms; game 1 the same everywhere
        {"arm": arm, "sitting": i, "rotation": 0, "games": [[1.0, 9.0], [win, margin]]} for i, arm, win, margin in arms
    ]
    saved = saved_run(["expert", "heuristic", "heuristic"], "heuristic", 2, results)
    later = sitting.later_figures(saved)
    assert later["sittings"] == 2
    assert later["win"][0] == 0.75 and later["margin"][0] == 3.0  # game 2 of each sitting, the first arm
    assert later["paired"]["win"][0] == 0.5 and later["paired"]["margin"][0] == 3.0  # (6 + 0) / 2
    assert later["paired"]["margin"][1] == 0.0 and later["paired"]["margin"][2] == 6.0  # resampled sittings
    assert sitting.later_figures({**saved, "games": 1}) == {}  # nothing after the first game
    folder = tmp_path / "results"
    folder.mkdir()
    sitting.write_result(folder / "s.json", saved)
    (row,) = results_table.table(folder).splitlines()[2:]
    assert "`expert` against `heuristic` in sittings (3 seats, 2 sittings of 2 games, each once per rotation" in row
    assert "rotation, game 2, kinds hidden)" in row
    assert "win share 0.750 [" in row and "paired margin over `heuristic` +3.00 [+0.00, +6.00]" in row
