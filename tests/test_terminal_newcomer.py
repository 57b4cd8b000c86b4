"""A new player's first hour in the terminal: extras named, bots named, seats counted from 1, the
narration's grammar (the browser's side is in test_browser_newcomer.py).

Each test failed before its fix.
"""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from catsack.cli import app

runner = CliRunner()


# ---------------------------------------------------------------------- 3: tournament --plot without matplotlib


def test_tournament_plot_without_matplotlib_fails_before_playing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The missing extra is named (``catsack[stats]``) before a single game is played."""
    import catsack.tournament

    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    def played(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("games were played before the plot's extra was checked")

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    monkeypatch.setattr(catsack.tournament, "run_tournament", played)
    res = runner.invoke(app, ["tournament", "--bots", "random,random,random", "-n", "3", "--plot", "x.png", "-q"])
    assert res.exit_code == 2, res.output
    assert "pip install 'catsack[stats]'" in res.output


# ---------------------------------------------------------------------- 5: terminal wording and records


def test_terminal_names_the_bots_levels(tmp_path: Path) -> None:
    """The opponents were Ann, Ben and Cat, with nothing saying which bots they are."""
    from catsack.tui.controller import PlayController

    ctl = PlayController.new(seats=4, seat=1, bots="random,heuristic,random", seed=3, data_dir=tmp_path)
    try:
        assert ctl.labels() == ["Ann (random)", "You", "Ben (heuristic)", "Cat (random)"]
    finally:
        ctl.close()


def test_your_card_turned_up_reads_yours() -> None:
    """The narration said "The first card (your) is turned up"; it should read "(yours)"."""
    from catsack.cards import Card
    from catsack.events import Revealed
    from catsack.narrative import narrate_event

    names = ["Ann", "You", "Ben"]
    assert narrate_event(Revealed(0, 1, Card.P8), names) == "The first card (yours) is turned up: +8."
    assert narrate_event(Revealed(1, 0, Card.P8), names) == "The second card (Ann's) is turned up: +8."


def test_replay_of_a_terminal_game_speaks_to_you(tmp_path: Path) -> None:
    """``catsack replay`` of a game played in the terminal narrated "You places"."""
    from catsack.tui.controller import PlayController

    ctl = PlayController.new(seats=3, seat=0, bots="random", seed=8, data_dir=tmp_path)
    try:
        while not ctl.is_over:
            if ctl.is_human_turn:
                ctl.play_human(ctl.view().legal[-1])
            else:
                seat = ctl.bot_to_move()
                assert seat is not None
                ctl.play_bot(seat, ctl.bot_choose(seat))
    finally:
        ctl.close()
    assert ctl.saved_path is not None
    res = runner.invoke(app, ["replay", str(ctl.saved_path)])
    assert res.exit_code == 0, res.output
    assert "You place a card" in res.output and "You places" not in res.output, res.output


# ---------------------------------------------------------------------- 6: seat numbers people read start at 1


def test_the_command_line_counts_seats_from_1(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``catsack play --seat`` counted from 0 while the browser counts from 1 (R4)."""
    pytest.importorskip("textual")
    from catsack.tui import app as tui_app

    seated: list[int] = []

    def run(self: Any, *args: Any, **kwargs: Any) -> None:  # the board is not drawn: only the seat matters
        seated.append(self.controller.human)

    monkeypatch.setattr(tui_app.PlayApp, "run", run)
    monkeypatch.setenv("CATSACK_DATA_DIR", str(tmp_path))
    for seat, index in (("1", 0), ("3", 2)):
        res = runner.invoke(app, ["play", "--seats", "3", "--seat", seat, "--bots", "random", "--seed", "1"])
        assert res.exit_code == 0, res.output
        assert seated[-1] == index
    for bad in ("0", "4"):
        res = runner.invoke(app, ["play", "--seats", "3", "--seat", bad])
        assert res.exit_code == 2 and ("1 to 3" in res.output or "greater than or equal to 1" in res.output)
    assert "1 to the number of seats" in " ".join(runner.invoke(app, ["play", "--help"]).output.split())


def test_a_record_without_names_narrates_seats_from_1() -> None:
    """``catsack replay`` of a record naming nobody said "Seat 0"; records keep index 0 (R4)."""
    from catsack.game import Game
    from catsack.narrative import narrate, seat_names

    assert seat_names(3) == ["Seat 1", "Seat 2", "Seat 3"]
    lines = narrate(Game.new(3, seed=1))
    assert lines[0] == "3 players: Seat 1, Seat 2, Seat 3." and "Seat 0" not in "\n".join(lines)


def test_the_rules_number_seats_from_1() -> None:
    """R4's example numbered the seats 0, 1, 2 in both languages."""
    from catsack.rulebook import source

    assert "numbered 1, 2, 3" in source("en") and "seat 1 again" in source("en")
    assert "mit 1, 2, 3" in source("de") and "Platz 1." in source("de")
