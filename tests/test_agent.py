"""The learned expert at the table: worlds dealt from its belief fit the view (R23), its search plays legal
moves, and what it cannot see does not change its move."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")

import itertools

from catsack.bots import make_bot
from catsack.bots.base import BOT_KINDS, play_game
from catsack.game import Game
from catsack.learn.agent import AgentOptions, ExpertAgent, deal_worlds, search
from catsack.learn.tablenet import TableNet, head_sizes, input_size, row_length, save_table
from catsack.view import HIDDEN_PLACE
from redeal import redealt_views

pytestmark = pytest.mark.slow  # the compiled kernels load once, then each test takes a second or two


def _net(seats: int, seed: int) -> TableNet:
    rng = np.random.default_rng(seed)
    sizes = [input_size(seats), 24, sum(head_sizes(seats))]
    ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in itertools.pairwise(sizes)]
    return TableNet(seats, ws, [np.zeros(b, np.float32) for b in sizes[1:]])


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("w") / "tiny.npz"
    save_table(path, {n: _net(n, n) for n in (3, 4, 5)}, {"command": "test"}, half=False)
    return path


def _positions(seats: int, seed: int, count: int) -> list[Game]:
    rng = random.Random(seed)
    g = Game.new(seats, seed=seed)
    bots = [make_bot("persona", seed=seed + s) for s in range(seats)]
    for s, b in enumerate(bots):
        b.reset(s, seats)
    out = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        if len(g.view(s).legal) > 1 and rng.random() < 0.2 and len(out) < count:
            out.append(g.clone())
        g.play(bots[s].choose(g.view(s)))
    return out


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_worlds_replay_to_the_same_view(seats: int) -> None:
    rng = np.random.default_rng(seats)
    for g in _positions(seats, seats, 6):
        view = g.view(g.to_move)  # type: ignore[arg-type]
        belief = rng.random((row_length(seats), 10)).astype(np.float32)
        setups, hidden = deal_worlds(view, belief, rng, 4)
        for setup, cards in zip(setups, hidden, strict=True):
            world = Game(setup)
            for s, text in view.history:
                world.play(f"place {['+15', '+11', '+8', '+5', '+3', '-5', '-8', 'R', 'LD', 'SD'][cards[s]]}"
                           if text == HIDDEN_PLACE else text)  # fmt: skip
            assert world.view(view.seat) == view  # type: ignore[arg-type]


def test_a_certain_belief_is_what_the_worlds_hold() -> None:
    for g in _positions(4, 9, 12):
        view = g.view(g.to_move)  # type: ignore[arg-type]
        hidden = [(p, rc.owner) for p, rc in enumerate(view.row) if rc.card is None and rc.owner is not None]
        if not hidden:
            continue
        belief = np.full((4, 10), 1e-9, np.float32)
        for p, owner in hidden:
            truth = int(g.clone().view(owner).row[p].card)  # type: ignore[arg-type]
            belief[p, truth] = 1.0
        _, cards = deal_worlds(view, belief, np.random.default_rng(0), 8)
        for p, owner in hidden:
            assert {w[owner] for w in cards} == {int(g.view(owner).row[p].card)}  # type: ignore[arg-type]


def test_the_agent_plays_legal_games(weights: Path) -> None:
    BOT_KINDS.setdefault("expert-test", "catsack.learn.agent:ExpertAgent")
    for seats in (3, 4, 5):
        bots = [make_bot(f"expert-test:weights={weights}+worlds=4+top=2", seed=1)] + [
            make_bot("persona", seed=s) for s in range(seats - 1)
        ]
        g = play_game(Game.new(seats, seed=seats), bots)
        assert g.is_over
        agent = bots[0]
        assert isinstance(agent, ExpertAgent) and agent.last is not None
    BOT_KINDS.pop("expert-test")


def test_search_values_every_candidate_and_the_move_considered(weights: Path) -> None:
    net = _net(4, 4)
    for g in _positions(4, 21, 5):
        view = g.view(g.to_move)  # type: ignore[arg-type]
        played = view.legal[-1]
        for opponents in ("model", "persona", "self", "mix", "read"):
            r = search(view, net, np.random.default_rng(3), worlds=5, top=2, opponents=opponents, consider=[played])
            assert set(r.moves) <= set(view.legal) and len(r.moves) >= 2
            assert all(np.isfinite(r.returns)) and all(se >= 0 for se in r.return_se)
            assert r.best() in r.moves


def test_a_longer_horizon_plays_the_worlds_on_to_the_game_end(weights: Path) -> None:
    """``rounds=9`` plays every world to the game's end (R20-R22): each world's return is then its win share (ties
    split: a multiple of 1/12 at four seats) plus the margin term, never the value head's estimate."""
    from catsack.learn.mlp import MARGIN_SCALE, MARGIN_WEIGHT

    net = _net(4, 4)
    for g in _positions(4, 23, 4):
        view = g.view(g.to_move)  # type: ignore[arg-type]
        r = search(view, net, np.random.default_rng(5), worlds=4, top=2, rounds=9)
        assert set(r.moves) <= set(view.legal) and r.best() in r.moves
        win = np.array(r.returns) - MARGIN_WEIGHT * np.array(r.margins) / MARGIN_SCALE  # mean over the 4 worlds
        assert np.all((win > -1e-4) & (win < 1 + 1e-4))
        assert np.allclose(win * 48, np.round(win * 48), atol=1e-3)
        # a network trained for a heavier margin term (league_train --margin-weight) values the same worlds with it
        heavy = search(view, net, np.random.default_rng(5), worlds=4, top=2, rounds=9, margin_weight=1.0)
        assert heavy.moves == r.moves and np.allclose(heavy.margins, r.margins)
        extra = (1.0 - MARGIN_WEIGHT) * np.array(r.margins) / MARGIN_SCALE
        assert np.allclose(np.array(heavy.returns) - np.array(r.returns), extra, atol=1e-4)


def test_the_move_does_not_depend_on_hidden_cards(weights: Path) -> None:
    rng = random.Random(2)
    for seats in (3, 4, 5):
        for view, other in redealt_views(_positions(seats, 30 + seats, 3), rng):
            a = ExpertAgent(f"weights={weights}+worlds=6", seed=4)
            b = ExpertAgent(f"weights={weights}+worlds=6", seed=4)
            a.reset(view.seat or 0, seats)
            b.reset(view.seat or 0, seats)
            assert a.choose(view) == b.choose(other)


def test_the_appraisal_holds_the_spread_between_opponent_models() -> None:
    from catsack.learn.agent import OPPONENTS, appraise

    net = _net(4, 7)
    for g in _positions(4, 44, 3):
        view = g.view(g.to_move)  # type: ignore[arg-type]
        a = appraise(view, net, np.random.default_rng(1), worlds=6, consider=[view.legal[0]])
        assert set(a.by_model) == set(OPPONENTS) and view.legal[0] in a.moves
        for k in range(len(a.moves)):
            means = [a.by_model[o][k] for o in OPPONENTS]
            assert a.values[k] == pytest.approx(sum(means) / len(means))
            assert a.noise[k] >= float(np.std(means)) - 1e-9  # never surer than the models agree


def test_the_options_are_read_and_a_bad_one_is_named() -> None:
    from catsack.bots.base import BotSpecError
    from catsack.learn.agent import AgentOptions, parse_agent

    assert parse_agent(None) == AgentOptions()
    got = parse_agent("worlds=8+top=2+search=0+opponents=mix+weights=expert-v1+rounds=3")
    assert got == AgentOptions("expert-v1", 8, 2, False, "mix", 3)
    assert parse_agent("opponents=read") == AgentOptions(opponents="read")
    assert parse_agent("open=classic+worlds=8") == AgentOptions(worlds=8, open="classic")
    for bad in ("opponents=bluffers", "worlds=1", "top=17", "search=yes", "depth=3", "rounds=0", "rounds=10",
                "open=dmc"):  # fmt: skip
        with pytest.raises(BotSpecError, match=bad.partition("=")[0]):
            parse_agent(bad)


def test_the_kind_expert_names_the_learned_or_the_classic_expert() -> None:
    from catsack.bots.strongest import is_agent

    assert is_agent(None) and is_agent("worlds=8+top=2") and is_agent("weights=x.npz") and is_agent("opponents=mix")
    assert is_agent("opponents=read") and is_agent("open=classic")
    assert not is_agent("strong") and not is_agent("iters=900") and not is_agent("worlds=8+bluff=0")


def test_a_forced_move_can_be_thought_over_like_a_choice(weights: Path) -> None:
    g = Game.new(4, seed=1)
    bots = [make_bot("persona", seed=s) for s in range(4)]
    for s, b in enumerate(bots):
        b.reset(s, 4)
    while len(g.view(g.to_move).legal) != 1:  # type: ignore[arg-type]
        s = g.to_move
        assert s is not None
        g.play(bots[s].choose(g.view(s)))
    agent = ExpertAgent(f"weights={weights}+worlds=4", seed=1)
    agent.reset(g.to_move or 0, 4)
    agent.think(g.view(g.to_move))  # type: ignore[arg-type]  # searches, though only one move is legal
    assert agent.choose(g.view(g.to_move)) == g.view(g.to_move).legal[0]  # type: ignore[arg-type]


def test_the_shipped_weights_are_documented_and_play() -> None:
    import json

    from catsack.learn.agent import margin_weight
    from catsack.learn.qnet import load_dmc
    from catsack.learn.tablenet import TABLE_WEIGHTS_DIR, load_table

    for name in ("expert-v1", "expert-v2", "expert-v3"):
        path = TABLE_WEIGHTS_DIR / f"{name}.npz"
        assert path.stat().st_size < 1_000_000
        info = json.loads(path.with_suffix(".json").read_text())
        assert info["command"].startswith("python -m catsack.learn.league_train") and info["games"]
        assert info["cpu_s"] > 0 and f"--export {name}.npz" in info["command"]
        assert sorted(load_table(name).nets) == [3, 4, 5]
    # a soup: its file names the soup's command and each run's, and the runs' budgets add up
    path = TABLE_WEIGHTS_DIR / "expert-v4.npz"
    assert path.stat().st_size < 1_000_000
    info = json.loads(path.with_suffix(".json").read_text())
    assert info["command"].startswith("python -m catsack.learn.soup") and len(info["soup"]) == 2
    for part in info["soup"]:
        assert part["command"].startswith("python -m catsack.learn.league_train --seats 3,4,5")
        assert "--init expert-v3" in part["command"] and f"--export {part['file']}" in part["command"]
        assert part["file"] in info["command"] and part["cpu_s"] > 0
    assert info["cpu_s"] == round(sum(p["cpu_s"] for p in info["soup"]), 1)
    assert load_table("expert-v4").meta["soup"] == [{"file": p["file"], "command": p["command"]} for p in info["soup"]]
    assert sorted(load_table("expert-v4").nets) == [3, 4, 5]
    # a run with the league's opener: its file names the run's command and the opener it was trained with, shipped
    path = TABLE_WEIGHTS_DIR / "expert-v5.npz"
    assert path.stat().st_size < 1_000_000
    info = json.loads(path.with_suffix(".json").read_text())
    assert info["command"].startswith("python -m catsack.learn.league_train --seats 3,4,5 --games 307200")
    assert "--init expert-v4" in info["command"] and f"--export runs/{info['file']}" in info["command"]
    assert f"--opener {info['opener']['file']}" in info["command"] and info["cpu_s"] > 0
    opener = load_dmc(info["opener"]["shipped_as"])
    assert sorted(opener.nets) == [4] and opener.meta["clone_of"] == "classic" and opener.meta["fit_command"]
    assert margin_weight(load_table("expert-v5")) == info["config"]["margin_weight"] == 0.35
    assert sorted(load_table("expert-v5").nets) == [3, 4, 5]
    # the default expert plays the newest shipped weights
    assert AgentOptions().weights == "expert-v5"
    bots = [ExpertAgent(None, seed=1), *(make_bot("heuristic") for _ in range(3))]
    assert play_game(Game.new(4, seed=9), bots).is_over


def test_the_classic_opening_plays_round_1_and_the_network_the_rest(weights: Path) -> None:
    from catsack.bots.expert import ExpertBot

    games = _positions(4, 61, 40)
    first = next(g for g in games if g.round == 1)
    later = next(g for g in games if g.round > 1)
    seat = first.to_move
    assert seat is not None
    agent = ExpertAgent(f"weights={weights}+worlds=4+open=classic", seed=3)
    classic = ExpertBot(seed=3)
    agent.reset(seat, 4)
    classic.reset(seat, 4)
    assert agent.choose(first.view(seat)) == classic.choose(first.view(seat))  # R10-R15: the classic's move
    agent.think(first.view(seat))  # searched by the classic expert, not the network
    assert agent.last is None
    # from round 2 on, the network's move, as without the option
    seat = later.to_move
    assert seat is not None
    mine = ExpertAgent(f"weights={weights}+worlds=4+open=classic", seed=5)
    plain = ExpertAgent(f"weights={weights}+worlds=4", seed=5)
    for bot in (mine, plain):
        bot.reset(seat, 4)
    assert mine.choose(later.view(seat)) == plain.choose(later.view(seat)) and mine.last is not None
    # whole games from its views (R23); the classic expert keeps its memory of the table from game to game
    bots = [ExpertAgent(f"weights={weights}+worlds=4+open=classic", seed=1)] + [
        make_bot("persona", seed=s) for s in range(3)
    ]
    for deal in (1, 2):
        assert play_game(Game.new(4, seed=deal), bots, hide_kinds=True).is_over
    opening = bots[0].opening  # type: ignore[attr-defined]
    assert opening is not None and opening.memory is not None and opening.memory.games == 1
