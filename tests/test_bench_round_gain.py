"""``bench/round_gain.py``: replaying saved tournament games splits each seat's result by round exactly."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench_modules import BENCH, load_bench
from catsack.tournament import TournamentConfig


def save_games(bots: str, seed: int, tmp_path: Path) -> tuple[Path, dict[str, Any], TournamentConfig]:
    """Two games a seat of ``bots`` saved by ``bench/expert_strength.py --save``: the file, its data and the
    tournament config that dealt them."""
    n = len(bots.split(","))
    saved = tmp_path / "games.json"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", bots, "--games", str(2 * n)]
    subprocess.run([*run, "--seed", str(seed), "--save", str(saved)], check=True, capture_output=True, timeout=120)
    data = json.loads(saved.read_text())
    return saved, data, TournamentConfig(bots=tuple(data["bots"]), games=2 * n, seed=data["seed"])


@pytest.mark.parametrize("bots", ["heuristic,random,random", "random,heuristic,random,heuristic"])
@pytest.mark.slow
def test_round_gains_add_up_to_each_seats_result(bots: str, tmp_path: Path) -> None:
    """Per seat the rounds' relative gains add up to its final score minus the table's mean (everyone
    starts level, R5), every round's gains sum to zero, and the printout names every spec."""
    n = len(bots.split(","))
    saved, data, config = save_games(bots, 3, tmp_path)
    round_gain = load_bench("round_gain")
    for game in data["games"]:
        gains, places = round_gain.game_gains(config, game)
        assert len(gains) == 9  # R20: nine rounds
        assert sorted(places) == list(range(1, n + 1) if n == 3 else range(n))
        mean = sum(game["scores"]) / n
        for seat in range(n):
            assert sum(row[seat] for row in gains) == pytest.approx(game["scores"][seat] - mean)
        for row in gains:
            assert sum(row) == pytest.approx(0.0)
    out = subprocess.run(
        [sys.executable, str(BENCH / "round_gain.py"), str(saved)], check=True, capture_output=True, text=True
    ).stdout
    assert f"{2 * n} games, seed 3" in out
    for spec in set(bots.split(",")):
        assert out.count(spec) >= 2  # its row by round, and its round-1 row by place


def test_round1_lists_every_placement_and_opening(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--round1``: per spec, round 1's placements by place count each seat-game once, and every game's
    start player shows one opening whose led card is the game's first placement (R10, R11)."""
    saved = tmp_path / "games.json"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", "heuristic,random,random,heuristic"]
    subprocess.run([*run, "--games", "8", "--seed", "5", "--save", str(saved)], check=True, capture_output=True)
    data = json.loads(saved.read_text())
    round_gain = load_bench("round_gain")
    assert round_gain.main([str(saved), "--round1"]) == 0
    out = capsys.readouterr().out
    lines = out[out.index("round 1 placements") :].splitlines()
    placements = {line.split()[0]: line for line in lines[1:3]}
    openings = {line.split()[0]: line for line in lines[4:6]}
    for spec in ("heuristic", "random"):
        counts = [int(x) for x in re.findall(r" (\d+)(?:,|  \||$)", placements[spec].split(None, 1)[1])]
        assert sum(counts) == 8 * 2  # two seats of each spec in 8 games
    led = [int(x) for spec in openings for x in re.findall(r" (\d+)(?:,|$)", openings[spec].split(None, 1)[1])]
    assert sum(led) == len(data["games"]) == 8


def test_unreadable_files_get_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file or one that holds something else is named in a usage error, not a traceback."""
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    for path, says in ((tmp_path / "missing.json", "cannot read saved games"), (other, "is not a file of games")):
        with pytest.raises(SystemExit) as e:
            load_bench("round_gain").main([str(path)])
        assert e.value.code == 2
        assert says in capsys.readouterr().err


def test_strength_chart_draws_each_spec_with_its_printed_share(tmp_path: Path) -> None:
    """``bench/expert_strength.py --svg``: one bar per spec in the table's order, each labelled with the win
    share and CI the printout gives, and the fair-share line at 1/seats."""
    import xml.etree.ElementTree as ET

    svg = tmp_path / "chart.svg"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", "random,heuristic,random"]
    out = subprocess.run(
        [*run, "--games", "6", "--seed", "2", "--svg", str(svg)], check=True, capture_output=True, text=True
    ).stdout
    texts = [t.text or "" for t in ET.parse(svg).getroot().iter("{http://www.w3.org/2000/svg}text")]
    labels = [t for t in texts if t in ("random", "heuristic")]
    assert labels == ["random", "heuristic"]  # the specs once each, in the table's order
    printed = dict(re.findall(r"^  (\w+) +win share (\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\])", out, re.M))
    assert set(printed) == {"random", "heuristic"}
    assert [t for t in texts if "[" in t] == [printed["random"], printed["heuristic"]]
    assert "fair share 0.33" in texts


def test_auctions_account_for_every_seats_score(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--auctions``: per spec, the kept cat points of its rows minus their prices plus its pass payouts is
    exactly what its seats gained over the start money (R5, R13, R17, R21), and every row bought after a
    pass is counted once under its (buyer, runner-up) pair."""
    saved = tmp_path / "games.json"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", "heuristic,random,random,heuristic"]
    subprocess.run([*run, "--games", "8", "--seed", "7", "--save", str(saved)], check=True, capture_output=True)
    data = json.loads(saved.read_text())
    round_gain = load_bench("round_gain")
    config = TournamentConfig(bots=tuple(data["bots"]), games=8, seed=data["seed"])
    a = round_gain.auctions(config, data["games"])
    for spec in ("heuristic", "random"):
        gained = sum(
            score - 15
            for game in data["games"]
            for seat, score in enumerate(game["scores"])
            if data["bots"][game["entries"][seat]] == spec
        )
        rows = a.bought[spec]
        assert sum(kept - price for price, kept in rows) + a.paid[spec] == gained
        assert a.seat_games[spec] == 16
        assert sum(len(v) for (buyer, _), v in a.pairs.items() if buyer == spec) == len(rows)  # R15: n-1 passed
    assert sum(len(v) for v in a.bought.values()) > 8  # most rounds of 8 games are bought
    assert round_gain.main([str(saved), "--auctions"]) == 0
    out = capsys.readouterr().out
    assert "rows bought per spec" in out and "rows by buyer and runner-up" in out


def test_paired_reads_the_paired_tables_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--paired`` splits the paired table's games (saved by ``--paired SPEC --save``) by round; a file
    saved without a paired table gets a clear error naming it."""
    saved = tmp_path / "games.json"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", "heuristic,random,random,random"]
    subprocess.run([*run, "--paired", "style:dumper", "--games", "8", "--seed", "5", "--save", str(saved)], check=True)
    round_gain = load_bench("round_gain")
    assert round_gain.main([str(saved), "--paired"]) == 0
    out = capsys.readouterr().out
    assert "table: style:dumper, random, random, random; 8 games" in out and "heuristic" not in out
    data = json.loads(saved.read_text())
    del data["paired_games"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(data))
    with pytest.raises(SystemExit):
        round_gain.main([str(bare), "--paired"])
    assert f"{bare} holds no paired games" in capsys.readouterr().err


@pytest.mark.parametrize("bots", ["heuristic,random,random", "random,heuristic,random,heuristic"])
def test_purse_counts_every_placement_once(bots: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--purse``: every seat places one card a round (R10), so each spec's placements over the purse
    buckets are 9 per seat-game; each good cat placed went to its own pile, another's, or neither (R16, R17,
    R19); and the printout has a line per spec and bucket it placed from."""
    n = len(bots.split(","))
    saved, data, config = save_games(bots, 4, tmp_path)
    round_gain = load_bench("round_gain")
    a = round_gain.purse_placements(config, data["games"])
    specs = bots.split(",")
    for spec in set(specs):
        seat_games = specs.count(spec) * 2 * n
        assert sum(a.placed[spec]) == 9 * seat_games
        for b in range(len(round_gain.PURSES)):
            assert a.good[spec][b] == len(a.kept[spec][b]) + len(a.given[spec][b]) + a.lost[spec][b]
            assert a.good[spec][b] <= a.placed[spec][b]
    assert sum(sum(a.good[s]) for s in set(specs)) > 0
    assert round_gain.main([str(saved), "--purse"]) == 0
    out = capsys.readouterr().out
    lines = out[out.index("placements by the mice") :].splitlines()[2:]
    assert len(lines) == sum(1 for s in set(specs) for x in a.placed[s] if x)
