"""The rule bots: they see views only (R23), play legal moves, and heuristic beats random."""

from __future__ import annotations

import itertools
import random

import pytest

from catsack.bots import Bot, make_bot
from catsack.bots.base import BotSpecError
from catsack.bots.heuristic import (
    expected_row_value,
    kept_value,
    mask_row_value,
    row_distributions,
    seat_money,
    unseen_cards,
    values_with_each_card,
)
from catsack.cards import TOKENS
from catsack.game import Game, resolve_dogs
from catsack.view import HIDDEN_PLACE
from redeal import redealt_views

SPECS = ("random", "heuristic", "ismcts:iters=12")


def _positions(seats: int, seed: int, count: int) -> list[Game]:
    """Positions from a random game where the seat to move has a real choice."""
    rng = random.Random(seed)
    g = Game.new(seats, seed=seed)
    out = []
    while not g.is_over:
        if len(g.legal_moves()) > 1 and rng.random() < 0.3:
            out.append(g.clone())
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return out[:count]


def _play(specs: list[str], seats: int, seed: int) -> Game:
    g = Game.new(seats, seed=seed)
    bots = [make_bot(s, seed=seed * 7 + i) for i, s in enumerate(specs)]
    for i, b in enumerate(bots):
        b.reset(i, seats)
    while not g.is_over:
        s = g.to_move
        assert s is not None
        view = g.view(s)
        move = bots[s].choose(view)
        assert move in view.legal, f"{bots[s].name} chose illegal {move} in {view.phase}"
        g.play(move)
    return g


@pytest.mark.parametrize("spec", SPECS)
def test_make_bot_gives_a_bot(spec: str) -> None:
    bot = make_bot(spec, seed=1)
    assert isinstance(bot, Bot)
    assert bot.name == spec


@pytest.mark.parametrize("spec", ["random:x", "heuristic:3", "ismcts:huge", "ismcts:iters=0", "ismcts:time=-1"])
def test_bad_bot_arguments_are_rejected(spec: str) -> None:
    with pytest.raises(BotSpecError):
        make_bot(spec)


@pytest.mark.parametrize("spec", SPECS)
def test_same_view_same_seed_same_move(spec: str) -> None:
    for seats in (3, 4, 5):
        for g in _positions(seats, seed=seats, count=4):
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            assert make_bot(spec, seed=5).choose(view) == make_bot(spec, seed=5).choose(view)


@pytest.mark.parametrize("spec", SPECS)
def test_move_does_not_depend_on_hidden_cards(spec: str) -> None:
    # R23: re-deal everything the seat cannot see; its view, hence its move, must not change.
    rng = random.Random(11)
    for seats in (3, 4, 5):
        for view, other in redealt_views(_positions(seats, seed=20 + seats, count=4), rng):
            assert make_bot(spec, seed=3).choose(other) == make_bot(spec, seed=3).choose(view)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_random_and_heuristic_finish_games_with_legal_moves(seats: int) -> None:
    for seed in range(12):
        specs = ["random" if (seed + i) % 2 else "heuristic" for i in range(seats)]
        g = _play(specs, seats, seed)
        assert g.is_over and len(g.rounds) == 9  # R20


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.slow
def test_ismcts_finishes_games_with_legal_moves(seats: int) -> None:
    for seed in range(2):
        g = _play(["ismcts:iters=8", "heuristic", "random", "ismcts:easy", "random"][:seats], seats, seed)
        assert g.is_over


def test_ismcts_time_budget() -> None:
    g = _positions(4, seed=2, count=1)[0]
    seat = g.to_move
    assert seat is not None
    bot = make_bot("ismcts:time=0.02", seed=1)
    assert bot.choose(g.view(seat)) in g.legal_moves()


def test_heuristic_beats_random() -> None:
    # Duplicate deals: the heuristic bot sits in each seat in turn against three random bots.
    wins = 0.0
    games = 0
    for deal in range(8):
        for hero in range(4):
            specs = ["random"] * 4
            specs[hero] = "heuristic"
            g = _play(specs, 4, 500 + deal)
            winners = g.winners()
            wins += (hero in winners) / len(winners)
            games += 1
    assert wins / games >= 0.5  # bench/bot_strength.py measured 0.95 over 400 games; 0.25 is chance


def test_kept_value_follows_r16() -> None:
    rng = random.Random(4)
    for _ in range(3000):
        row = [rng.randrange(10) for _ in range(rng.choice((3, 4, 5)))]
        _, kept = resolve_dogs(row)
        assert kept_value(row) == sum(c.points for c in kept)


def test_seat_money_rebuilt_from_public_history() -> None:
    # R24: balances are hidden in views but computable from public moves.
    rng = random.Random(9)
    for seats in (3, 4, 5):
        g = Game.new(seats, seed=seats)
        while not g.is_over:
            s = g.to_move
            assert s is not None
            assert seat_money(g.view(s)) == list(g.money)
            ms = g.legal_moves()
            g.play(ms[rng.randrange(len(ms))])


def test_row_distributions_are_probabilities() -> None:
    for seats in (3, 4, 5):
        for g in _positions(seats, seed=40 + seats, count=6):
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            dists = row_distributions(view)
            for d in dists:
                assert abs(sum(p for _, p in d) - 1.0) < 1e-9
            if view.phase == "placement":
                full_row = seats + 1 if seats == 3 else seats  # R10: the dummy adds a card with 3 seats
                assert len(dists) == full_row - 1  # every card but the seat's own, which it chooses


def _enumerated(dists: list[list[tuple[int, float]]], extra: int | None = None) -> float:
    """E[kept value] by brute force over every combination of the row's cards."""
    total = 0.0
    for combo in itertools.product(*dists):
        w = 1.0
        cards = []
        for c, p in combo:
            cards.append(c)
            w *= p
        total += w * kept_value(cards if extra is None else [*cards, extra])
    return total


@pytest.mark.slow
def test_exact_row_value_equals_enumeration() -> None:
    # The heuristic computes E[kept value] (R16) in closed form; it must equal the plain average.
    rng = random.Random(6)
    for _ in range(600):
        dists = []
        for _ in range(rng.randrange(1, 6)):
            cards = rng.sample(range(10), rng.choice((1, 1, 2, 4, 7, 10)))
            weights = [rng.random() + 0.01 for _ in cards]
            dists.append([(c, w / sum(weights)) for c, w in zip(cards, weights, strict=True)])
        extra = rng.choice([None, rng.randrange(10)])
        assert expected_row_value(dists, extra=[extra])[0] == pytest.approx(_enumerated(dists, extra), abs=1e-7)
    for _ in range(300):
        masks = [rng.randrange(1, 1 << 10) for _ in range(rng.randrange(1, 6))]
        uniform = [[(c, 1 / m.bit_count()) for c in range(10) if m >> c & 1] for m in masks]
        assert mask_row_value(masks) == pytest.approx(_enumerated(uniform), abs=1e-7)
        with_card = values_with_each_card(masks)
        for c in range(10):
            assert with_card[c] == pytest.approx(_enumerated(uniform, c), abs=1e-7)


def test_unseen_cards_follow_the_history() -> None:
    # R23: another seat's unseen cards are its set minus what the viewer saw it place.
    for seats in (3, 4, 5):
        for g in _positions(seats, seed=60 + seats, count=8):
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            for owner in range(seats):
                if owner == seat:
                    expected = sorted({*map(int, view.hand), int(g.removed(seat))})
                else:
                    seen = {t for s, t in view.history if s == owner and t.startswith("place ") and t != HIDDEN_PLACE}
                    expected = [c for c in range(10) if f"place {TOKENS[c]}" not in seen]
                assert unseen_cards(view, owner) == expected


def test_ismcts_values_the_moves_asked_about_first() -> None:
    # Analysis asks about the move actually played: even one iteration must value it.
    from catsack.bots.ismcts import search

    for g in _positions(4, seed=8, count=10):
        seat = g.to_move
        assert seat is not None
        view = g.view(seat)
        asked = view.legal[len(view.legal) // 2]
        stats = search(view, random.Random(1), iterations=1, consider=iter([asked]))
        assert stats.moves == (asked,) and stats.visits == (1,)


def test_bots_meet_the_table_as_everyone_sees_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Bot.meet``: after ``reset``, every bot learns each seat's public kind (the spec seated there; the
    lobby and a tournament's table show it), in ``play_game``, a tournament and the Gymnasium env, where
    the agent's own seat is ``None`` (a player of unknown kind)."""
    from catsack.bots import random_bot
    from catsack.bots.base import play_game
    from catsack.tournament import TournamentConfig, run_tournament

    calls: list[tuple[str, list[str | None]]] = []
    monkeypatch.setattr(random_bot.RandomBot, "meet", lambda self, players: calls.append(("meet", list(players))))
    original_reset = random_bot.RandomBot.reset
    monkeypatch.setattr(
        random_bot.RandomBot,
        "reset",
        lambda self, seat, seats: (calls.append(("reset", [])), original_reset(self, seat, seats))[-1],
    )
    bots = [make_bot("random", seed=1), make_bot("heuristic", seed=2), make_bot("random", seed=3)]
    play_game(Game.new(3, seed=1), bots)
    table = ["random", "heuristic", "random"]
    assert calls == [("reset", []), ("meet", table), ("reset", []), ("meet", table)]

    calls.clear()
    run_tournament(TournamentConfig(bots=("random", "heuristic", "heuristic"), games=3, seed=4))
    met = [players for what, players in calls if what == "meet"]
    assert len(met) == 3  # one random seat per game, each rotation
    assert sorted(p.index("random") for p in met) == [0, 1, 2]
    assert all(sorted(p) == ["heuristic", "heuristic", "random"] for p in met)  # type: ignore[type-var]

    pytest.importorskip("gymnasium")
    from catsack.envs.gymnasium import FelixEnv

    calls.clear()
    env = FelixEnv(seats=3, learner_seat=1, opponents=["random", "heuristic"])
    env.reset(seed=2)
    assert [p for what, p in calls if what == "meet"] == [["heuristic", None, "random"]]


def _defines(module: str, name: str) -> bool:
    """Whether the source of ``module`` (a module of the package, not imported) defines ``name`` at its top."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    with open(spec.origin, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name:
            return True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == name for a in node.names):
            return True
    return False


def test_every_registry_entry_names_what_its_module_defines() -> None:
    """The bots' registries name their targets as text, the learned bots above the bots among them (nothing in
    the bots imports catsack.learn), so a target moved or renamed would show only when such a bot is made: each
    entry's module is one of the package's and defines the name. Read from source: no extra is needed."""
    from catsack.bots.base import BOT_KINDS, LEARNED_EXPERT
    from catsack.bots.expert.leaf import LEAVES

    for target in (*BOT_KINDS.values(), LEARNED_EXPERT, *LEAVES.values()):
        module, sep, name = target.partition(":")
        assert sep and module.startswith("catsack."), target
        assert _defines(module, name), target


def test_the_classic_expert_and_the_rule_bots_import_nothing_above_the_bots() -> None:
    """``expert:strong`` (a classic level under the name ``expert``), ``classic`` and the rule bots are made
    without importing the learned agents, the environments or numpy: they play on the base install."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from catsack.bots import make_bot\n"
        "for spec in ('expert:strong', 'random', 'heuristic', 'classic:iters=10', 'persona', 'style:bluff'):\n"
        "    make_bot(spec, seed=1)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('catsack.learn', 'catsack.envs', 'numpy'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
