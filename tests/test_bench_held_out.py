"""bench/held_out.py: a table is played deal by deal, saved, resumed, paired and reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench_modules import load_bench
from catsack.bots.base import BOT_KINDS

held_out = load_bench("held_out")


@pytest.fixture(autouse=True)
def _sealed_kind() -> object:
    held_out.sealed.register()
    yield
    BOT_KINDS.pop("sealed", None)


def test_a_table_is_saved_resumed_paired_and_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bots = ("random", "sealed:jumper", "sealed:jumper", "sealed:jumper")
    path = held_out.table_file(tmp_path, "random", "sealed:jumper", 4)
    data = held_out.play_table(bots, 5, 1, "rotate", path, "heuristic")
    assert len(data["games"]) == 4 and len(data["paired_games"]) == 4  # one deal, the bot in every seat
    saved = json.loads(path.read_text())
    again = held_out.play_table(bots, 5, 2, "rotate", path, "heuristic")  # the first deal is not played again
    assert again["games"][:4] == saved["games"] and len(again["games"]) == 8
    frozen = held_out.table_file(tmp_path, "heuristic", "sealed:jumper", 4)
    held_out.play_table(("heuristic", *bots[1:]), 5, 2, "rotate", frozen, None)
    row = held_out.figures(tmp_path, "random", "heuristic", "sealed:jumper", 4)
    assert row is not None and row["deals"] == 2 and row["games"] == 8
    # the paired arm and the frozen bot's run are the same heuristic games: the same paired margins
    assert row["over_heuristic"]["margin"] == row["over_frozen"]["margin"]
    held_out.report(tmp_path, "random", "heuristic", [4], tmp_path / "f.json", 1)  # jumper is of the first set
    out = capsys.readouterr().out
    assert "sealed set 1" in out and "sealed:jumper | 4 | 2 |" in out
    win = row["over_heuristic"]["win"]
    assert f"| {win[0]:+.3f} [{win[1]:+.3f}, {win[2]:+.3f}] |" in out  # the paired win share beside the margin
    assert "paired win share over heuristic not below zero with its CI: " in out
    report = json.loads((tmp_path / "f.json").read_text())
    assert report["set"] == 1 and report["rows"][0]["opponent"] == "sealed:jumper"
    held_out.report(tmp_path, "random", "heuristic", [4], None, 2)  # the second set has no jumper: no rows
    assert "sealed:jumper" not in capsys.readouterr().out


def _report(hero: str, ahead: list[float], sitting: float, below5: int, mixed: list[float] | None) -> dict[str, Any]:
    """A ``report --json`` file's figures: 4-seat rows with these paired margins (CI +-1), ``below5`` rows below zero
    at 5 seats, none at 3 seats, and mixed tables where ``hero`` wins these shares and the default ``expert`` 0.3."""
    rows: list[dict[str, Any]] = [
        {"opponent": f"o{k}", "seats": 4, "over_heuristic": {"margin": [m, m - 1, m + 1], "win": [m / 20, 0, 0]}}
        for k, m in enumerate(ahead)
    ]
    rows += [
        {"opponent": f"o{k}", "seats": 5, "over_heuristic": {"margin": [-3, -4, -2] if k < below5 else [1, 0.5, 2]}}
        for k in range(3)
    ]
    rows += [{"opponent": f"o{k}", "seats": 3, "over_heuristic": {"margin": [1, 0.5, 2]}} for k in range(3)]
    tables = [{"deals": 32, "shares": {hero: [x, 0, 1], "expert": [0.3, 0, 1]}} for x in mixed or []]
    return {
        "set": 12,
        "hero": hero,
        "frozen": "expert" if mixed is not None else None,
        "rows": rows,
        "mixed": tables,
        "sitting": {"over_heuristic": {"margin": [sitting, 0, 0]}},
    }


def test_judge_applies_the_rule_criterion_by_criterion() -> None:
    base = _report("expert", [5, 5, -5, 0.5], 10, 1, None)
    good = _report("cand", [5, 5, -5, 0.5], 10, 1, [0.4, 0.3, 0.25])
    assert [held for _, held in held_out.judge(good, base)] == [True, True, True, True]
    texts = [t for t, _ in held_out.judge(good, base)]
    assert "ahead of 2 (the default 2)" in texts[0] and "at least level at 2 of 3" in texts[3]
    behind = _report("cand", [5, 5, -5, -5], 10, 1, [0.4] * 3)  # behind o3, where the default is not
    assert [held for _, held in held_out.judge(behind, base)][:2] == [False, False]
    weaker = _report("cand", [5, 5, -5, 0.5], 4, 2, [0.4, 0.2, 0.2])  # margin 1.2 points less; one more below at 5
    assert [held for _, held in held_out.judge(weaker, base)] == [True, False, False, False]
    other = dict(good, frozen="classic")
    assert "not the default" in held_out.judge(other, base)[3][0]
    with pytest.raises(ValueError, match="sets 11 and 12"):
        held_out.judge(dict(good, set=11), base)
    # a report of 4 seats alone has nothing to count at 3 and 5: the criterion fails and says how to make it
    four = dict(good, rows=[r for r in good["rows"] if r["seats"] == 4])
    third = held_out.judge(four, base)[2]
    assert not third[1] and "'cand' at 3 seats, 'cand' at 5 seats" in third[0] and "--seats 3,4,5" in third[0]
