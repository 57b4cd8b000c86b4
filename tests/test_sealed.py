"""The sealed held-out opponents (``bench/sealed``): they play legally from their view alone (R23), and no
training or tuning code imports them."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest

import catsack
from catsack.bots import make_bot
from catsack.bots.base import BOT_KINDS, play_game
from catsack.game import Game
from redeal import redealt_views

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import sealed  # noqa: E402
from sealed.draws import CURRENT, FIRST_SEED, SECOND_SEED, SETS, THIRD_SEED, draw_specs  # noqa: E402
from sealed.styles import FIRST, SECOND, STYLES, THIRD  # noqa: E402

#: The scripts that measure against the sealed set (and read it); nothing else may import it.
MEASURING = {"held_out.py"}


@pytest.fixture(autouse=True)
def _sealed_kind() -> object:
    sealed.register()
    yield
    BOT_KINDS.pop("sealed", None)


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_no_training_or_tuning_code_imports_the_sealed_set() -> None:
    package = Path(catsack.__file__).resolve().parent
    sources = [*package.rglob("*.py"), *(p for p in (ROOT / "bench").glob("*.py") if p.name not in MEASURING)]
    assert len(sources) > 50
    for path in sources:
        found = {m for m in _imports(path) if m == "sealed" or m.startswith("sealed.")}
        assert not found, f"{path.relative_to(ROOT)} imports {sorted(found)}"
        assert "sealed:" not in path.read_text(encoding="utf-8"), f"{path.relative_to(ROOT)} names a sealed style"


def test_each_set_holds_styles_and_draws() -> None:
    assert CURRENT == 2 and SETS[2][1] == "sealed:drifter" and SETS[1][1] == "sealed:turncoat"
    assert SETS[3][1] == "sealed:echo"
    for number, names, seed in ((1, FIRST, FIRST_SEED), (2, SECOND, SECOND_SEED), (3, THIRD, THIRD_SEED)):
        opponents, sitting = SETS[number]
        styles = [o.removeprefix("sealed:") for o in opponents if o.startswith("sealed:")]
        assert len(styles) >= 3 and set(styles) | {sitting.removeprefix("sealed:")} == set(names)
        draws = [o for o in opponents if o.startswith("persona:")]
        assert [d.removesuffix("+open=0") for d in draws] == draw_specs(seed=seed)
    assert not set(FIRST) & set(SECOND) and not (set(FIRST) | set(SECOND)) & set(THIRD)


def test_the_first_sets_draws_are_the_players_they_were() -> None:
    # The first set was drawn from the ten traits before ``open`` existed; pinned to open=0, each draw plays
    # those ten traits as drawn (``open`` is drawn last, so the others come from the same numbers).
    for spec in SETS[1][0]:
        if not spec.startswith("persona:"):
            continue
        bot = make_bot(spec)
        full = make_bot(spec.removesuffix("+open=0"))
        assert bot.traits.open == 0.0  # type: ignore[attr-defined]
        assert bot.traits.values()[:-1] == full.traits.values()[:-1]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_styles_finish_games_with_legal_moves(seats: int) -> None:
    for k, style in enumerate(STYLES):
        bots = [make_bot(f"sealed:{style}" if s == 0 else "heuristic", seed=s) for s in range(seats)]
        for game in range(2):  # the turncoat turns in the second game
            g = play_game(Game.new(seats, seed=10 * k + game), bots)
            assert g.is_over and len(g.rounds) == 9  # R20


def test_styles_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(2)
    for seats in (3, 4, 5):
        positions = []
        g = Game.new(seats, seed=seats)
        bots = [make_bot("sealed:grudge" if s % 2 else "persona:draw=5", seed=s) for s in range(seats)]
        for s, b in enumerate(bots):
            b.reset(s, seats)
        while not g.is_over:
            s = g.to_move
            assert s is not None
            if rng.random() < 0.2 and len(g.view(s).legal) > 1:
                positions.append(g.clone())
            g.play(bots[s].choose(g.view(s)))
        for view, other in redealt_views(positions, rng):
            for style in STYLES:
                bot = make_bot(f"sealed:{style}")
                bot.reset(view.seat or 0, seats)
                assert bot.choose(view) == bot.choose(other)


@pytest.mark.parametrize("style", ["turncoat", "drifter", "echo"])
def test_the_sitting_styles_turn_in_a_sittings_second_game(style: str) -> None:
    bot = make_bot(f"sealed:{style}")
    heuristic = make_bot("heuristic")
    g = Game.new(4, seed=3)
    bot.reset(0, 4)
    moves = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        if s == 0:
            assert bot.choose(view) == heuristic.choose(view)  # the first game: the heuristic's rule
            moves.append(view)
        g.play(heuristic.choose(view))
    bot.reset(0, 4)
    assert any(bot.choose(v) != heuristic.choose(v) for v in moves if len(v.legal) > 1)
