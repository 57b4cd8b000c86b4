"""The analysis API and ``catsack analyse``: values per move, beliefs per face-down card (R23)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from catsack.advice.analysis import Analysis, AnalysisError, analyse_record, analyse_view, game_for_seat, record_players
from catsack.belief import card_beliefs
from catsack.bots import expert
from catsack.game import Game
from catsack.moves import PASS_MOVE, bid
from catsack.record import dumps_record, record_from_game, redact

LEVEL = "iters=30"


def _game(seats: int, seed: int, upto: int | None = None) -> Game:
    rng = random.Random(seed)
    g = Game.new(seats, seed=seed)
    while not g.is_over and (upto is None or g.ply < upto):
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return g


def _to_bidding(seats: int, seed: int) -> Game:
    g = Game.new(seats, seed=seed)
    while g.phase == "placement":
        g.play(g.legal_moves()[0])
    return g


def test_placement_values_every_legal_move() -> None:
    g = Game.new(4, seed=3)
    seat = g.to_move
    assert seat is not None
    a = analyse_view(g.view(seat), level=LEVEL, seed=1)
    assert set(a.values) == {m.text for m in g.legal_moves()}
    assert a.best in g.legal_moves() and a.best.text in a.values


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_bidding_values_the_considered_moves_and_beliefs_sum_to_one(seats: int) -> None:
    g = _to_bidding(seats, seed=seats)
    seat = g.to_move
    assert seat is not None
    view = g.view(seat)
    a = analyse_view(view, level=LEVEL, seed=2)
    assert PASS_MOVE.text in a.values and bid(1).text in a.values  # pass and the minimum raise
    assert all(m in [x.text for x in view.legal] for m in a.values)
    assert a.beliefs == card_beliefs(view)
    hidden = 0
    for rc, belief in zip(view.row, a.beliefs, strict=True):
        if rc.card is not None:
            assert belief is None
        else:
            hidden += 1
            assert belief is not None and abs(sum(belief.values()) - 1.0) < 1e-9
    assert hidden >= 1


def test_analysis_is_reproducible_with_a_seed() -> None:
    g = _to_bidding(4, seed=8)
    seat = g.to_move
    assert seat is not None
    assert analyse_view(g.view(seat), level=LEVEL, seed=4) == analyse_view(g.view(seat), level=LEVEL, seed=4)


def test_analysis_needs_the_seat_to_move() -> None:
    g = Game.new(4, seed=1)
    other = (g.start_player + 1) % 4
    with pytest.raises(AnalysisError):
        analyse_view(g.view(other), level=LEVEL)
    with pytest.raises(AnalysisError, match="expert:easy, expert:normal, expert:strong"):
        analyse_view(g.view(g.start_player), level="superhuman")
    with pytest.raises(AnalysisError):
        analyse_view(g.view(g.start_player), level="expert:medium")


def test_analysis_levels_name_the_expert_budgets() -> None:
    """``expert:easy`` analyses with the table level's budget, as the bot of that level searches."""
    g = Game.new(4, seed=1)
    a = analyse_view(g.view(g.start_player), level="expert:easy", seed=1)
    assert a.iterations == expert.LEVELS["easy"].iterations


def test_analyse_record_covers_each_decision_of_the_seat() -> None:
    g = _game(4, seed=5, upto=30)
    record = record_from_game(g)
    decisions = analyse_record(record, 2, level="iters=5", seed=1)
    replay = Game(g.setup)
    expected = []
    for ply, move in enumerate(g.moves):
        if replay.to_move == 2:
            expected.append((ply, move))
        replay.play(move)
    assert [(d.ply, d.played) for d in decisions] == expected
    for d in decisions:
        assert d.analysis.best.text in d.analysis.values
        assert d.played.text in d.analysis.values  # the played move is always valued


def test_record_analysis_meets_the_table_the_record_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """A record's ``agents`` (``"human"`` or a bot spec per seat) is the table the analysis meets, as the
    live hint panels do; a record without that list, or with a malformed one, meets no table."""
    from catsack.advice import analysis

    g = _game(4, seed=5, upto=12)
    agents = ["human", "heuristic", "expert:strong", "random"]
    record = record_from_game(g, agents=agents)
    assert record_players(record) == [None, "heuristic", "expert:strong", "random"]
    assert record_players(record_from_game(g)) is None
    assert record_players(record_from_game(g, agents=agents[:3])) is None
    odd = record_from_game(g, agents=["bot", 7, "x" * 500, "heuristic"])
    assert record_players(odd) == [None, None, None, "heuristic"]
    met: list[object] = []
    real = analysis.analyse_view

    def spy(*args: Any, **kwargs: Any) -> Analysis:
        met.append(kwargs.get("players"))
        return real(*args, **kwargs)

    monkeypatch.setattr(analysis, "analyse_view", spy)
    decisions = analyse_record(record, 0, level="expert:iters=5", seed=1)
    assert decisions and met == [[None, "heuristic", "expert:strong", "random"]] * len(decisions)
    from catsack.server.tables.analysis_worker import analyse_decision

    one = analyse_decision(dumps_record(record), 0, decisions[0].ply, "expert:iters=5", 1)
    assert one["best"] == decisions[0].to_dict()["best"] and met[-1] == met[0]  # the worker meets it too


@pytest.mark.parametrize("seats", [3, 4])
def test_redacted_record_gives_the_same_analysis(seats: int) -> None:
    # A record redacted for the seat shows it everything it saw (R23), so the analysis is the same.
    g = _game(seats, seed=12, upto=25)
    seat = 1
    full = analyse_record(record_from_game(g), seat, level="iters=5", seed=3)
    red = redact(g, seat)
    assert game_for_seat(red, seat).view(seat) == g.view(seat)
    assert analyse_record(red, seat, level="iters=5", seed=3) == full
    with pytest.raises(AnalysisError):
        game_for_seat(red, 0)


def test_cli_analyse(tmp_path: Path) -> None:
    from catsack.cli import app

    g = _game(4, seed=6, upto=20)
    path = tmp_path / "game.json"
    path.write_text(dumps_record(record_from_game(g)), encoding="utf-8")
    runner = CliRunner()
    # Seats people read count from 1 (R4): --seat 2 is the record's seat 1.
    res = runner.invoke(app, ["analyse", str(path), "--seat", "2", "--level", "iters=5", "--json", "--seed", "1"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert lines and all({"ply", "played", "best", "values", "beliefs"} <= set(x) for x in lines)
    want = analyse_record(record_from_game(g), 1, level="iters=5", seed=1)
    assert [x["ply"] for x in lines] == [d.ply for d in want]
    res = runner.invoke(app, ["analyse", str(path), "--seat", "2", "--level", "iters=5"])
    assert res.exit_code == 0 and "best" in res.stdout and "± s.e." in res.stdout

    res = runner.invoke(app, ["analyse", str(path), "--seat", "0"])
    assert res.exit_code == 2 and "--seat" in res.output
    res = runner.invoke(app, ["analyse", str(path), "--seat", "5"])
    assert res.exit_code == 2 and "--seat must be from 1 to 4" in res.output
    red = tmp_path / "red.json"
    red.write_text(dumps_record(redact(g, 1)), encoding="utf-8")
    res = runner.invoke(app, ["analyse", str(red), "--seat", "1", "--level", "iters=5"])
    assert res.exit_code == 2 and "redacted for seat 2" in res.output and "seat 1's view" in res.output
    res = runner.invoke(app, ["analyse", str(red), "--seat", "2", "--level", "iters=5", "--json", "--seed", "1"])
    assert res.exit_code == 0 and [json.loads(x)["ply"] for x in res.stdout.splitlines()] == [d.ply for d in want]
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "catsack/1", "seats": 4}', encoding="utf-8")
    res = runner.invoke(app, ["analyse", str(bad), "--seat", "1"])
    assert res.exit_code == 2 and "start" in res.output
    res = runner.invoke(app, ["analyse", str(tmp_path / "missing.json"), "--seat", "1"])
    assert res.exit_code == 2 and "cannot read" in res.output


@pytest.mark.parametrize(
    ("lang", "words", "number"),
    [
        ("de", ["Runde", "Zug", "Wert (Pkt.)", "Besuche", "lege"], ","),
        ("fr", ["manche", "coup", "visites", "pose"], ","),
    ],
)
def test_cli_analyse_speaks_the_language_asked(tmp_path: Path, lang: str, words: list[str], number: str) -> None:
    """The table's title, headers, moves and numbers in the language of ``--lang``, not only its sentences."""
    from catsack.cli import app

    g = _game(4, seed=6, upto=20)
    path = tmp_path / "game.json"
    path.write_text(dumps_record(record_from_game(g)), encoding="utf-8")
    args = ["analyse", str(path), "--seat", "2", "--level", "iters=5", "--seed", "1"]
    res = CliRunner().invoke(app, [*args, "--lang", lang], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    for word in words:
        assert word in res.stdout, word
    for english in ("round", "played", "value (pts)", "visits", "face-down", "place +", "bid "):
        assert english not in res.stdout, english
    assert re.search(r"[+-]\d+" + re.escape(number) + r"\d\d", res.stdout)
