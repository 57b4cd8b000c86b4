"""bench/results_table.py: the docs' results table is made from saved result files, one row per figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_modules import load_bench

results_table = load_bench("results_table")


def test_rows_come_from_result_files_and_replace_the_marked_part(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "a.json").write_text(
        json.dumps(
            {
                "kind": "cpu",
                "command": "python bench/bot_cpu.py ismcts:strong expert",
                "load": [1.5, 1.0, 1.0],
                "positions": 60,
                "seats": 4,
                "rows": [
                    {"spec": "ismcts:strong", "mean": 0.3, "p95": 0.4, "ratio": 1.0},
                    {"spec": "expert", "mean": 0.06, "p95": 0.1, "ratio": 0.2},
                ],
            }
        )
    )
    (folder / "b.json").write_text(
        json.dumps(
            {
                "kind": "strength",
                "command": "python bench/expert_strength.py --bots expert,heuristic,heuristic,heuristic",
                "load": [2.0, 2.0, 2.0],
                "bots": ["expert", "heuristic", "heuristic", "heuristic"],
                "games": 64,
                "deals": 16,
                "shares": {"expert": [0.5, 0.4, 0.6], "heuristic": [0.17, 0.1, 0.2]},
                "margins": {"expert": [5.0, 3.0, 7.0], "heuristic": [-1.7, -2.0, -1.0]},
                "paired_over": "classic",
                "paired": {"margin": [1.5, -0.5, 3.5], "score": [1, 0, 2], "win": [0.1, 0.0, 0.2]},
            }
        )
    )
    text = results_table.table(folder)
    lines = text.splitlines()
    assert len(lines) == 2 + 3
    assert "×0.20 of `ismcts:strong`" in lines[3] and "(load 1.5)" in lines[3]
    assert "paired margin over `classic` +1.50 [-0.50, +3.50]" in lines[4]
    doc = tmp_path / "doc.md"
    doc.write_text(f"# Bots\n\n{results_table.BEGIN}\nold\n{results_table.END}\n\nmore\n")
    assert results_table.main([str(folder), "--write", str(doc)]) == 0
    assert doc.read_text() == f"# Bots\n\n{results_table.BEGIN}\n{text}{results_table.END}\n\nmore\n"


def test_a_file_of_another_kind_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text('{"kind": "poem"}')
    assert results_table.main([str(tmp_path)]) == 2
    assert "x.json" in capsys.readouterr().err


def test_the_docs_table_is_the_one_the_saved_results_make() -> None:
    """docs/results.md's results block and held-out summary equal what the script makes of bench/results (after a new
    run: ``bench/results_table.py --write docs/results.md``)."""
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "results.md").read_text()
    block = doc.split(results_table.BEGIN, 1)[1].split(results_table.END, 1)[0]
    assert block == "\n" + results_table.table(root / "bench" / "results")
    block = doc.split(results_table.SUMMARY_BEGIN, 1)[1].split(results_table.SUMMARY_END, 1)[0]
    assert block == "\n" + results_table.summary(root / "bench" / "results")


def _held_out_row(opponent: str, seats: int, margin: list[float]) -> dict[str, object]:
    return {"opponent": opponent, "seats": seats, "deals": 16, "win": [0.5, 0.4, 0.6],
            "over_heuristic": {"margin": margin}}  # fmt: skip


def test_the_held_out_summary_counts_opponents_ahead_and_names_those_behind(tmp_path: Path) -> None:
    rows = [
        _held_out_row("sealed:a", 4, [5.0, 1.0, 9.0]),  # ahead: the interval above zero
        _held_out_row("sealed:b", 4, [1.0, -2.0, 4.0]),  # level
        _held_out_row("persona:draw=7", 4, [-6.0, -9.0, -3.0]),  # behind
        _held_out_row("sealed:a", 3, [2.0, 0.5, 4.0]),
    ]
    sitting = {
        "opponent": "sealed:c",
        "sittings": 8,
        "win": [0.9, 0.8, 1.0],
        "over_heuristic": {"margin": [3.0, 1.0, 5.0]},
    }
    for number in (2, 1):  # the summary lists the sets in order, whatever the file names
        data = {"kind": "held_out", "command": "python bench/held_out.py report", "load": [1.0], "set": number,
                "hero": "expert", "frozen": None, "rows": rows, "mixed": [], "sitting": sitting}  # fmt: skip
        (tmp_path / f"h{number}.json").write_text(json.dumps(data))
    lines = results_table.summary(tmp_path).splitlines()
    assert len(lines) == 2 + 4
    assert lines[2] == "| 1 | `expert` | 3 | 1 of 1 | none |  |"
    assert lines[3] == "| 1 | `expert` | 4 | 1 of 3 | `persona:draw=7` -6.0 | +3.0 [+1.0, +5.0] |"
    assert lines[4].startswith("| 2 | `expert` | 3 |")
    doc = tmp_path / "doc.md"
    doc.write_text(f"{results_table.BEGIN}\n{results_table.END}\n{results_table.SUMMARY_BEGIN}\nold\n"
                   f"{results_table.SUMMARY_END}\n")  # fmt: skip
    assert results_table.main([str(tmp_path), "--write", str(doc)]) == 0
    assert doc.read_text().split(results_table.SUMMARY_BEGIN)[1] == (
        "\n" + results_table.summary(tmp_path) + results_table.SUMMARY_END + "\n"
    )


def test_an_exploiter_row_states_its_budget(tmp_path: Path) -> None:
    (tmp_path / "e.json").write_text(
        json.dumps(
            {
                "kind": "exploit",
                "command": "python -m catsack.learn.exploit --hero X --against expert",
                "load": [1.0, 1.0, 1.0],
                "seats": 4,
                "hero": "X",
                "against": "expert",
                "budget": "for 40,960 games",
                "deals": 10,
                "games": 40,
                "win_share": [0.3, 0.2, 0.4],
                "gain_over_fair": [0.05, -0.05, 0.15],
                "paired_hero": "expert",
                "paired_win_diff": [0.02, -0.1, 0.14],
            }
        )
    )
    (row,) = results_table.table(tmp_path).splitlines()[2:]
    assert "trained for 40,960 games" in row and "gain over the fair share +0.050 [-0.050, +0.150]" in row
    assert "paired over `expert` in its seat +0.020" in row


def test_a_held_out_row_shows_the_paired_win_share_beside_the_margin(tmp_path: Path) -> None:
    row = {"opponent": "sealed:herd", "seats": 4, "deals": 2, "games": 8, "win": [0.9, 0.8, 1.0],
           "over_heuristic": {"margin": [-3.0, -5.0, -1.0], "win": [-0.125, -0.25, 0.0]}}  # fmt: skip
    data = {"kind": "held_out", "command": "python bench/held_out.py report d --hero expert --set 2 --json f.json",
            "load": [1.0, 1.0, 1.0], "set": 2, "hero": "expert", "frozen": None, "rows": [row], "mixed": [],
            "sitting": None}  # fmt: skip
    (tmp_path / "h.json").write_text(json.dumps(data))
    lines = results_table.table(tmp_path).splitlines()
    assert len(lines) == 3
    assert "`expert`, sealed set 2: `sealed:herd` ×3 (2 deals, kinds hidden)" in lines[2]
    assert "paired margin over `heuristic` -3.00 [-5.00, -1.00], win share -0.125 [-0.250, +0.000]" in lines[2]


def test_result_files_come_in_the_order_of_the_numbers_in_their_names(tmp_path: Path) -> None:
    names = ["held-out-10.json", "held-out-2.json", "held-out-9.json", "cpu-4.json"]
    ordered = sorted((tmp_path / n for n in names), key=results_table.by_name)
    assert [p.name for p in ordered] == ["cpu-4.json", "held-out-2.json", "held-out-9.json", "held-out-10.json"]
