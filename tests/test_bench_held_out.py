"""bench/held_out.py: a table is played deal by deal, saved, resumed, paired and reported."""

from __future__ import annotations

import json
from pathlib import Path

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
