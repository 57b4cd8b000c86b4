"""``catsack replay RECORD... [--json] [--lang L]``: narrative and JSON modes, errors on stderr, exit status 2.

Most tests run the Typer app in-process (``typer.testing.CliRunner``, which
keeps stdout and stderr apart); one runs ``python -m catsack.cli`` for real.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from catsack.cli import app

DATA = Path(__file__).parent / "data"
GOOD = ["4p_void_round", "3p_dogs", "5p_incomplete", "5p_random", "4p_shared_victory"]
ROUND_KEYS = {"start", "row", "owners", "buyer", "price", "chased", "payouts", "void"}
SUMMARY_KEYS = {"complete", "to_move", "legal", "money", "bank", "won", "cat_points", "scores", "winners", "rounds"}


def path(name: str) -> str:
    return str(DATA / f"{name}.json")


def expected(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((DATA / f"{name}.expected.json").read_text(encoding="utf-8"))
    return out


def replay(*args: str, stdin: str | None = None) -> Any:
    return CliRunner().invoke(app, ["replay", *args], input=stdin)


# ---------------------------------------------------------------- narrative mode


def test_narrative_of_one_record() -> None:
    result = replay(path("4p_void_round"))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[:2] == ["4 players: Ann, Ben, Cat, Dan.", "Round 1: Ann starts."]
    text = result.stdout
    assert "  Dan passes too: round 1 is void and the row goes back to the box." in lines
    assert "  Ann passes; the mouse cards are empty, so nothing is paid." in lines
    assert "3 dogs in the row: they scare each other off and no cat is chased." in text
    assert "  Game over. Ben wins." in lines
    table = lines[-5:]
    assert table[0].split() == ["rank", "player", "score", "cats", "mice", "won", "pile"]
    assert table[1].split()[:5] == ["1", "Ben", "40", "21", "19"]
    assert table[4].split()[:5] == ["4", "Ann", "25", "4", "21"]


@pytest.mark.parametrize(
    ("lang", "first", "winner"),
    [("de", "4 Spieler: Ann, Ben, Cat, Dan.", "Ben"), ("fr", "4 joueurs : Ann, Ben, Cat, Dan.", "Ben")],
)
def test_narrative_in_another_language(lang: str, first: str, winner: str) -> None:
    english = replay(path("4p_void_round")).stdout.splitlines()
    result = replay(path("4p_void_round"), "--lang", lang)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == first
    assert len(lines) == len(english)  # the same events, one line each
    assert lines[-4].split()[:2] == ["1", winner]
    assert not {"passes", "starts", "wins", "Round"} & set(result.stdout.split())


def test_unknown_language_is_refused_naming_the_languages() -> None:
    result = replay(path("4p_void_round"), "--lang", "xx")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--lang must be one of en, de, fr, not 'xx'" in result.stderr


def test_demo_narrates_in_the_language_asked() -> None:
    result = CliRunner().invoke(app, ["demo", "--seed", "3", "--delay", "0", "--lang", "fr"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("4 joueurs : Ann (heuristic), Ben (heuristic)")
    assert "Manche 1 : Ann (heuristic) commence." in result.stdout


def test_narrative_names_lone_dogs_and_shared_victory() -> None:
    dogs = replay(path("3p_dogs")).stdout
    assert "The large dog chases the +15 cat away; both go back to the box." in dogs
    assert "The large dog chases the -5 cat away; both go back to the box." in dogs
    assert "The small dog chases the +3 cat away; both go back to the box." in dogs
    assert "The first card (the dummy's) is turned up: LD." in dogs
    shared = replay(path("4p_shared_victory")).stdout
    assert "Game over. Ann and Cat share the victory." in shared


def test_narrative_of_an_incomplete_record() -> None:
    result = replay(path("5p_incomplete"))
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "(The record stops here: Ann to move, bidding.)"
    assert "rank" not in result.stdout


def test_narrative_of_several_records_has_headers_in_order() -> None:
    result = replay(path("3p_dogs"), path("4p_void_round"))
    assert result.exit_code == 0
    headers = [line for line in result.stdout.splitlines() if line.startswith("== ")]
    assert headers == [f"== {path('3p_dogs')} ==", f"== {path('4p_void_round')} =="]


# ---------------------------------------------------------------- JSON mode


def test_json_one_line_per_record_in_argument_order() -> None:
    result = replay("--json", *(path(n) for n in GOOD))
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == len(GOOD)
    for name, line in zip(GOOD, lines, strict=True):
        obj = json.loads(line)
        assert obj == expected(name)
        assert set(obj) >= SUMMARY_KEYS
        assert all(set(r) >= ROUND_KEYS for r in obj["rounds"])


def test_json_documented_values_for_the_void_round_record() -> None:
    obj = json.loads(replay("--json", path("4p_void_round")).stdout)
    assert obj["complete"] is True and obj["to_move"] is None and obj["legal"] == []
    assert obj["money"] == [21, 19, 19, 17] and obj["bank"] == 11
    assert obj["cat_points"] == [4, 21, 16, 20] and obj["scores"] == [25, 40, 35, 37] and obj["winners"] == [1]
    first = obj["rounds"][0]
    assert first["void"] is True and first["buyer"] is None and first["price"] is None
    assert first["row"] == ["+15"] * 4 and first["owners"] == [0, 1, 2, 3] and first["chased"] == []
    assert first["payouts"] == [[0, 2], [1, 4], [2, 6]]
    assert obj["rounds"][7]["chased"] == ["LD", "LD", "LD"] and obj["rounds"][7]["start"] == 2


def test_json_of_an_incomplete_record() -> None:
    obj = json.loads(replay("--json", path("5p_incomplete")).stdout)
    assert obj["complete"] is False and obj["to_move"] == 0 and obj["legal"][-1] == "pass"


# ---------------------------------------------------------------- errors


def test_illegal_record_exit_2_message_on_stderr_other_records_still_printed() -> None:
    bad = path("rules_example_illegal")
    result = replay("--json", path("3p_dogs"), bad, path("4p_void_round"))
    assert result.exit_code == 2
    lines = result.stdout.splitlines()
    assert [json.loads(line) for line in lines] == [expected("3p_dogs"), expected("4p_void_round")]
    err = result.stderr.strip()
    assert err == f"{bad}: move 4 (seat 3): 'place R': R is not in seat 3's hand"


def test_illegal_record_in_narrative_mode() -> None:
    bad = path("3p_illegal_overbid")
    result = replay(bad, path("3p_dogs"))
    assert result.exit_code == 2
    assert result.stderr.strip() == f"{bad}: move 5 (seat 1): 'bid 16': seat 1 has only 15 mice (R12)"
    assert "3 players: Ann, Ben, Cat." in result.stdout
    assert f"== {bad} ==" not in result.stdout  # nothing at all is printed for the illegal record
    assert f"== {path('3p_dogs')} ==" in result.stdout


def test_move_after_the_end_names_no_seat() -> None:
    bad = path("4p_move_after_end")
    result = replay("--json", bad)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.strip() == f"{bad}: move 73 (no seat (the game is over)): 'pass': the game is over (R20)"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not UTF-8 text"),
        (b'{"format": "catsack/1", "seats": 7, "start": 0, "removed": [], "moves": []}', "'seats' must be 3, 4 or 5"),
        (b"[]", "a record must be a JSON object"),
    ],
)
def test_unreadable_or_malformed_files(tmp_path: Path, content: bytes, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    result = replay("--json", str(bad), path("3p_dogs"))
    assert result.exit_code == 2
    assert str(bad) in result.stderr and message in result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [expected("3p_dogs")]


def test_missing_file_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = replay("--json", str(missing), str(tmp_path))
    assert result.exit_code == 2 and result.stdout == ""
    errors = result.stderr.splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"{missing}: cannot read") and errors[1].startswith(f"{tmp_path}: cannot read")


def test_huge_integer_in_a_record_is_a_clean_error(tmp_path: Path) -> None:
    bad = tmp_path / "huge.json"
    bad.write_text('{"format": "catsack/1", "seats": 4, "start": ' + "9" * 5000 + "}", encoding="utf-8")
    result = replay("--json", str(bad))
    assert result.exit_code == 2 and str(bad) in result.stderr


def test_stdin_dash() -> None:
    text = (DATA / "3p_dogs.json").read_text(encoding="utf-8")
    result = replay("--json", "-", stdin=text)
    assert result.exit_code == 0 and json.loads(result.stdout) == expected("3p_dogs")


def test_no_record_is_a_usage_error() -> None:
    result = replay()
    assert result.exit_code == 2 and result.stdout == ""


def test_real_process_python_m_catsack_cli(tmp_path: Path) -> None:
    bad = path("rules_example_illegal")
    proc = subprocess.run(
        [sys.executable, "-m", "catsack.cli", "replay", "--json", path("5p_random"), bad, path("3p_random")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [expected("5p_random"), expected("3p_random")]
    assert proc.stderr.strip() == f"{bad}: move 4 (seat 3): 'place R': R is not in seat 3's hand"
    assert "Traceback" not in proc.stderr
