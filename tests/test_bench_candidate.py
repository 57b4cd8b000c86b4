"""bench/candidate.py: the gate a candidate's weights pass, played small, resumed, and judged from its files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench_modules import load_bench

candidate = load_bench("candidate")

SMALL = ["--opponents", "heuristic", "--deals", "1", "--exploit-games", "2048", "--exploit-deals", "1",
         "--reader", "heuristic", "--reader-games", "4", "--h2h-games", "8",
         "--h2h-fourth", "heuristic", "--searcher", "heuristic", "--search-games", "4"]  # fmt: skip


def test_every_check_is_played_saved_and_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gate"
    code = candidate.main(["expert-v5", "--out", str(out), *SMALL])
    files = sorted(p.name for p in out.glob("*.json"))
    assert files == [
        "exploit.json",
        "exploiter.json",
        "h2h__heuristic.json",
        "reader.json",
        "search.json",
        "styles__heuristic__4.json",
    ]  # exploiter: its weights
    styles = json.loads((out / "styles__heuristic__4.json").read_text())
    # the default expert paired against itself on the same deals and seeds: the same games, margin zero
    assert styles["games"] == 4 and styles["paired"]["margin"] == [0.0, 0.0, 0.0]
    # the reader among three of the default on the same deals: its paired arm, kept beside the gate's folder
    reader = json.loads((out / "reader.json").read_text())
    assert reader["paired"]["margin"] == [0.0, 0.0, 0.0] and reader["paired"]["games"] == 4
    arms = sorted(p.name for p in (tmp_path / "default-arms").iterdir())
    assert arms == [
        "expert-weights=expert-v5__heuristic__4__seed3.json",
        "heuristic__expert-weights=expert-v5__4__seed1.json",
    ]
    arm = tmp_path / "default-arms" / arms[1]
    # the candidate among three of the search bot, paired with the default in its seat: the same games
    search = json.loads((out / "search.json").read_text())
    assert search["games"] == 4 and search["paired"]["margin"] == [0.0, 0.0, 0.0]
    assert search["default_shares"] == search["shares"]
    # the candidate and the default at one table, both orders: the same network against itself
    h2h = json.loads((out / "h2h__heuristic.json").read_text())
    assert h2h["games"] == 8 and h2h["bots"][:2] == ["expert:weights=expert-v5"] * 2 and -1 <= h2h["win_gap"][0] <= 1
    exploited = json.loads((out / "exploit.json").read_text())
    assert exploited["games"] == 4 and "2048 games" in exploited["budget"]
    printed = capsys.readouterr().out
    assert "| exploiter |" in printed and "| reader | one heuristic among three, 4 games |" in printed
    assert "| search bot | the candidate among three heuristic, 4 games | its win share" in printed
    assert "paired margin over expert:weights=expert-v5 +0.0 [+0.0, +0.0] points a game; win share +0.000" in printed
    assert code == (0 if printed.rstrip().endswith("passes") else 1)

    # a second run plays nothing saved again; the verdict comes from the files
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    candidate.main(["expert-v5", "--out", str(out), *SMALL])
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before

    # another candidate's gate plays its own reader table but not the default's arm again
    arm_written = arm.stat().st_mtime_ns
    candidate.main(["expert-v5", "--options", "opponents=persona", "--out", str(tmp_path / "other"), *SMALL])
    assert (tmp_path / "other" / "reader.json").exists() and arm.stat().st_mtime_ns == arm_written

    # a reader that gains more against the candidate than against the default fails it, and says so
    reader["paired"]["margin"] = [3.0, 1.0, 5.0]
    (out / "reader.json").write_text(json.dumps(reader))
    styles["paired"]["margin"] = [-3.0, -5.0, -1.0]
    styles["paired"]["win"] = [-0.25, -0.4, -0.1]
    (out / "styles__heuristic__4.json").write_text(json.dumps(styles))
    (out / "exploit.json").unlink()
    h2h["win_gap"] = [-0.2, -0.3, -0.1]
    (out / "h2h__heuristic.json").write_text(json.dumps(h2h))
    search["paired"]["margin"] = [-2.5, -4.0, -0.5]
    (out / "search.json").write_text(json.dumps(search))
    capsys.readouterr()
    assert candidate.main(["expert-v5", "--out", str(out), "--report", *SMALL]) == 1
    printed = capsys.readouterr().out
    assert "one heuristic gains more against the candidate than against the default (+3.0 [+1.0, +5.0]" in printed
    assert "behind the default against heuristic at 4 seats (-3.0 [-5.0, -1.0])" in printed
    assert "fewer wins than the default against heuristic at 4 seats (-0.250 [-0.400, -0.100])" in printed
    assert (
        "mean paired margin is below zero (-3.00)" in printed
        and "mean paired win share is below zero (-0.250)" in printed
    )
    assert "not measured: the exploiter" in printed
    assert (
        "among three heuristic the candidate's paired margin over the default is below zero (-2.5 [-4.0, -0.5])"
        in printed
    )
    assert "paired win share over the default is below zero" not in printed

    # more points and fewer wins: the wins alone fail it
    styles["paired"]["margin"] = [2.0, 0.5, 3.5]
    styles["paired"]["win"] = [-0.05, -0.15, 0.05]
    (out / "styles__heuristic__4.json").write_text(json.dumps(styles))
    capsys.readouterr()
    candidate.main(["expert-v5", "--out", str(out), "--report", *SMALL])
    printed = capsys.readouterr().out
    assert "behind the default against" not in printed and "fewer wins than the default against" not in printed
    assert "mean paired win share is below zero (-0.050)" in printed and "mean paired margin" not in printed
    assert (
        "the default wins more often than the candidate at the table with heuristic (-0.200 [-0.300, -0.100])"
        in printed
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seats", "6"], "3 to 5 players"),
        (["--seats", "four"], "'four'"),
        (["--reader-games", "6"], "multiple of 4"),
        (["--h2h-games", "12"], "multiple of 8"),
        (["--search-games", "2"], "--search-games must be a positive multiple of 4"),
        (["--options", "opponents=crowd"], "bad expert option 'opponents=crowd'"),
        (["--options", "weights=expert-v2"], "give the weights as the first argument"),
    ],
)
def test_bad_arguments_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        candidate.main(["expert-v5", "--out", str(tmp_path), *args])
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_unknown_weights_are_an_error_not_a_crash(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = candidate.main(["no-such-weights", "--out", str(tmp_path), *SMALL])
    assert code == 2 and "no-such-weights" in capsys.readouterr().err


def test_search_options_make_the_shipped_weights_a_candidate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "gate"
    candidate.main(["expert-v5", "--options", "opponents=persona", "--out", str(out), *SMALL])
    styles = json.loads((out / "styles__heuristic__4.json").read_text())
    assert styles["bots"][0] == "expert:weights=expert-v5+opponents=persona"
    assert styles["paired_over"] == "expert:weights=expert-v5"
    assert "candidate expert-v5 with opponents=persona" in capsys.readouterr().out


def test_checks_pick_what_a_process_plays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "gate"
    candidate.main(["expert-v5", "--out", str(out), "--checks", "h2h,styles", *SMALL])
    assert sorted(p.name for p in out.glob("*.json")) == ["h2h__heuristic.json", "styles__heuristic__4.json"]
    printed = capsys.readouterr().out
    assert "not measured: the exploiter" in printed and "not measured: the reader" in printed
    with pytest.raises(SystemExit):
        candidate.main(["expert-v5", "--out", str(out), "--checks", "styles,readers", *SMALL])
    assert "--checks readers: give some of styles, exploit, reader, h2h, search" in capsys.readouterr().err


def test_a_default_arm_another_process_is_playing_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two gates beside each other play the default's arm once: the second waits for the first's file; a marker
    a stopped run left behind (its process gone) does not hold anyone up."""
    config = candidate.table(("expert:weights=expert-v5", "heuristic", "heuristic", "heuristic"), 4, 3)
    played = candidate.default_arm(tmp_path / "mine", config)
    (saved,) = (tmp_path / "mine").glob("*.json")

    folder = tmp_path / "shared"
    folder.mkdir()
    marker = folder / saved.with_suffix(".playing").name
    marker.write_text(str(os.getpid()))  # a live process "playing" the arm
    waits: list[float] = []

    def wait(seconds: float) -> None:  # while the waiter sleeps, that process saves the arm and drops its marker
        waits.append(seconds)
        (folder / saved.name).write_text(saved.read_text())
        marker.unlink()

    def play_again(*_: object) -> None:
        raise AssertionError("the arm was played twice")

    with monkeypatch.context() as m:
        m.setattr(candidate.time, "sleep", wait)
        m.setattr(candidate.es, "play", play_again)
        assert candidate.default_arm(folder, config) == played
    assert waits == [candidate.ARM_POLL]

    # one process wins the marker; no temporary file is left behind
    race = tmp_path / "race"
    race.mkdir()
    assert candidate.claim(race / "arm.playing") and not candidate.claim(race / "arm.playing")
    assert [p.name for p in race.iterdir()] == ["arm.playing"]

    stale = tmp_path / "stale"
    stale.mkdir()
    (stale / marker.name).write_text("999999999")  # no such process
    assert candidate.default_arm(stale, config) == played
    assert not (stale / marker.name).exists() and (stale / saved.name).exists()
