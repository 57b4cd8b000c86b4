"""bench/halves.py: a bot that places as one bot and bids as another, and the duplicate comparison of the halves."""

from __future__ import annotations

import pytest

from bench_modules import load_bench
from catsack.bots import make_bot
from catsack.game import Game
from catsack.moves import PLACE

halves = load_bench("halves")


def test_the_mixed_player_places_as_one_bot_and_bids_as_the_other() -> None:
    mixed = halves.Halves(make_bot("heuristic"), make_bot("random", seed=3))
    placer, bidder = make_bot("heuristic"), make_bot("random", seed=3)
    g = Game.new(4, seed=2)
    for bot in (mixed, placer, bidder):
        bot.reset(0, 4)
    kinds = set()
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        if s == 0:
            move = mixed.choose(view)
            assert move == (placer if view.legal[0].kind == PLACE else bidder).choose(view)
            kinds.add(view.legal[0].kind == PLACE)
        else:
            move = make_bot("heuristic").choose(view)
        g.play(move)
    assert kinds == {True, False}


def test_each_player_is_paired_over_the_base_on_the_same_deals(capsys: pytest.CaptureFixture[str]) -> None:
    assert halves.main(["random", "--against", "heuristic", "--deals", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "against 3 x heuristic, 1 deals, every seat, kinds hidden:"
    assert [ln.split(":")[0] for ln in lines[1:]] == [
        "heuristic",
        "random",
        "random bidding, heuristic placing",
        "heuristic bidding, random placing",
    ]
    assert "paired score +0.0 [+0.0, +0.0]" in lines[1]  # the base over itself
    assert all("paired score" in ln and "rows bought" in ln for ln in lines[2:])
    seats = halves.play(lambda: make_bot("random", seed=1), "heuristic", 4, 2, 5)
    assert [s.deal for s in seats] == [0, 0, 0, 0, 1, 1, 1, 1]
    assert all(s.rows >= 0 and s.price >= 0 and 0 <= s.jumps <= s.bids for s in seats)
    history = [(0, "place +3"), (1, "place -5"), (1, "bid 1"), (0, "bid 3"), (1, "bid 4"), (0, "pass"),
               (0, "place +8"), (1, "place +2"), (0, "bid 2"), (1, "pass")]  # fmt: skip
    assert halves.steps(history, 0) == {"bids": 2, "jumps": 2}  # 1 -> 3, and a new round's opening bid of 2
    assert halves.steps(history, 1) == {"bids": 2, "jumps": 0}


def test_bad_arguments_are_named(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        halves.main(["random", "--against", "nosuchbot"])
    assert "nosuchbot" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        halves.main(["random", "--against", "heuristic", "--deals", "0"])
    assert "--deals must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        halves.main(["heuristic", "--against", "random"])
    assert "its halves would be itself" in capsys.readouterr().err
