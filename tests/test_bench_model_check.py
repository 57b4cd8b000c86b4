"""``bench/model_check.py``: the real gain of a move is the round's outcome the real table gives it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench_modules import BENCH, load_bench
from catsack.moves import parse_move


def _save(tmp_path: Path, bots: str, games: int, seed: int) -> Path:
    saved = tmp_path / "games.json"
    run = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", bots, "--games", str(games)]
    subprocess.run([*run, "--seed", str(seed), "--save", str(saved)], check=True, capture_output=True, timeout=300)
    return saved


def test_the_move_played_gains_what_the_saved_game_gave_it(tmp_path: Path) -> None:
    """Heuristic bots draw nothing, so replaying the saved move with the real table reproduces the saved
    round exactly: its real gain is the seat's relative gain from that decision to the round's end in the
    saved game (R13's payouts before it, already taken, do not count)."""
    check = load_bench("model_check")
    saved = _save(tmp_path, "heuristic,heuristic,heuristic,heuristic", 4, 4)
    config, games = load_bench("round_gain").load_saved([saved])
    for rnd in (1, 2, 5):
        for game in games:
            found = check.position(config, game, "heuristic", rnd, "bidding")
            assert found is not None
            g, before, specs = found
            assert g.round == rnd and g.phase == "bidding" and len(g.legal_moves()) > 1
            seat = g.to_move
            played = parse_move(game["moves"][len(before)])
            got = check.real_gain(g, played, specs, 0)
            start = g.scores()
            for text in game["moves"][len(before) :]:  # the saved game on to the round's end
                if g.round > rnd or g.is_over:
                    break
                g.play(parse_move(text))
            delta = [a - b for a, b in zip(g.scores(), start, strict=True)]
            assert got == pytest.approx(delta[seat] - sum(delta) / 4)


def test_a_search_bot_is_checked_against_its_own_candidates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """For a searching bot the moves checked are the ones its search tried; every regret is at least 0
    and a summary line closes the run. A spec not at the table or a file of something else is a usage error."""
    check = load_bench("model_check")
    saved = _save(tmp_path, "expert:iters=30,heuristic,random", 6, 2)
    assert check.main([str(saved), "--spec", "expert:iters=30", "--round", "2", "--positions", "2", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    regrets = [float(line.rsplit("regret ", 1)[1]) for line in out.splitlines() if line.startswith("game ")]
    assert len(regrets) == 2 and min(regrets) >= 0.0
    assert "2 decisions, 1 plays per move: mean regret" in out
    with pytest.raises(SystemExit) as e:
        check.main([str(saved), "--spec", "expert"])
    assert e.value.code == 2
    other = tmp_path / "other.json"
    other.write_text("{}")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        check.main([str(other), "--spec", "heuristic"])
    assert e.value.code == 2 and "is not a file of games" in capsys.readouterr().err


def test_the_analysis_is_checked_move_by_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--analysis``: every move the analysis valued, its value and noise beside its real gain, and the count
    of classed moves that really lost nothing."""
    check = load_bench("model_check")
    saved = _save(tmp_path, "expert:iters=30,heuristic,random", 6, 2)
    args = ["--spec", "expert:iters=30", "--round", "1", "--positions", "1", "--reps", "1", "--level", "iters=20"]
    assert check.main([str(saved), *args, "--analysis"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("  ") and " value " in line and " real " in line]
    assert rows and any(line.rstrip().endswith("best") for line in rows)
    assert "1 positions, 1 plays per move:" in out and "moves classed" in out


def test_compare_plays_out_two_versions_picks_to_the_game_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--compare``: with ``--rounds 9`` a move's real gain runs to the game's end (R20, R21), so replaying
    the saved move gives the seat's relative gain in the saved game; a version against itself differs nowhere."""
    check = load_bench("model_check")
    saved = _save(tmp_path, "heuristic,heuristic,heuristic,heuristic", 4, 4)
    config, games = load_bench("round_gain").load_saved([saved])
    found = check.position(config, games[0], "heuristic", 1, "bidding")
    assert found is not None
    g, before, specs = found
    seat = g.to_move
    got = check.real_gain(g, parse_move(games[0]["moves"][len(before)]), specs, 0, 9)
    start = g.scores()
    for text in games[0]["moves"][len(before) :]:
        g.play(parse_move(text))
    assert g.is_over
    delta = [a - b for a, b in zip(g.scores(), start, strict=True)]
    assert got == pytest.approx(delta[seat] - sum(delta) / 4)
    args = [str(saved), "--spec", "heuristic", "--compare", "heuristic", "--round", "1", "--rounds", "9"]
    assert check.main([*args, "--positions", "2", "--reps", "1"]) == 0
    out = capsys.readouterr().out
    assert "2 positions, 1 plays per move over 9 round(s)" in out
    assert "paired difference (heuristic minus heuristic) +0.00 [+0.00, +0.00]; the picks differ at 0 positions" in out
    assert check.main([*args[:4], "random", *args[5:], "--positions", "4", "--reps", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    picks = [line.split(": heuristic ", 1)[1] for line in lines if line.startswith("game ")]
    differ = sum(p.split(" (real")[0] != p.split(", random ")[1].split(" (real")[0] for p in picks)
    assert len(picks) == 4 and lines[-1].endswith(f"the picks differ at {differ} positions")


def test_max_mice_takes_only_decisions_of_a_poor_seat(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--max-mice M``: every position found is a decision of a seat holding at most M mice (R12), the first
    such one of its round, and the regret run prints each position's mice; ``--later`` plays the seat's own later
    decisions in the play-outs."""
    check = load_bench("model_check")
    saved = _save(tmp_path, "heuristic,random,random,random", 8, 3)
    config, games = load_bench("round_gain").load_saved([saved])
    found = 0
    for rnd in range(2, 10):
        for game in games:
            for limit in (None, 8):
                at = check.position(config, game, "random", rnd, "placement", limit)
                if at is None:
                    continue
                g, before, specs = at
                seat = g.to_move
                assert seat is not None and specs[seat] == "random" and g.phase == "placement"
                if limit is not None:
                    found += 1
                    assert g.money[seat] <= limit
                    plain = check.position(config, game, "random", rnd, "placement")
                    assert plain is not None and len(plain[1]) <= len(before)
    assert found > 0
    args = ["--spec", "random", "--phase", "placement", "--round", "3", "--max-mice", "12", "--positions", "2"]
    assert check.main([str(saved), *args, "--reps", "1", "--rounds", "9", "--later", "heuristic"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game ")]
    assert lines and all(int(line.split(", mice ")[1].split(":")[0]) <= 12 for line in lines)
