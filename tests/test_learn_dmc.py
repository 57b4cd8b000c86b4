"""The dmc agents: compiled features equal the view's (R23), self-play, the torch trainer, export and the bot kind."""

from __future__ import annotations

import itertools
import json
import os
import random
import tempfile
from pathlib import Path

import numpy as np
import pytest

# Compiled kernels are cached outside the repository (tests never write into it).
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
numba = pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")
if not numba.config.CACHE_DIR:
    numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

from catsack.bots.base import BotSpecError, make_bot, play_game  # noqa: E402
from catsack.envs.encoding import action_to_move  # noqa: E402
from catsack.envs.vector_numba import NumbaVectorGame  # noqa: E402
from catsack.game import Game  # noqa: E402
from catsack.learn.fast_features import (  # noqa: E402
    NUM_ABSTRACT,
    abstract_legal,
    abstract_to_move,
    feature_size,
    view_features,
)
from catsack.learn.fast_selfplay import RANDOM, play  # noqa: E402
from catsack.learn.qnet import DMC_WEIGHTS_DIR, QNet, load_dmc, save_dmc  # noqa: E402
from catsack.view import View  # noqa: E402

SHIPPED = sorted(p.stem for p in DMC_WEIGHTS_DIR.glob("dmc-*.npz"))


def _random_net(seats: int, hidden: tuple[int, ...], seed: int) -> QNet:
    rng = np.random.default_rng(seed)
    dims = [feature_size(seats), *hidden, NUM_ABSTRACT]
    ws = [rng.normal(0, (2 / a) ** 0.5, (a, b)).astype(np.float32) for a, b in itertools.pairwise(dims)]
    bs = [rng.normal(0, 0.1, b).astype(np.float32) for b in dims[1:]]
    return QNet(ws, bs)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_compiled_features_masks_and_actions_equal_the_views(seats: int) -> None:
    """At every decision of random games: the kernel's features and abstract masks are the view's (R23)."""
    ng = NumbaVectorGame(6, seats, seed=seats)
    games = [ng.to_game(i) for i in range(6)]
    rng = np.random.default_rng(seats)
    checked = 0
    while not ng.terminated.all():
        x = ng.learn_features()
        mask, counts = ng.abstract_mask()
        u = rng.random((6, NUM_ABSTRACT)) * mask
        u[:, 10] *= 3  # passes often enough to reach R15's last choice
        chosen = u.argmax(axis=1)
        actions = ng.abstract_to_actions(chosen)
        for i, g in enumerate(games):
            if g.is_over:
                continue
            seat = g.to_move
            assert seat is not None
            view = g.view(seat)
            np.testing.assert_allclose(x[i], view_features(view), atol=1e-6)
            assert (mask[i] == abstract_legal(view)).all() and counts[i] == mask[i].sum()
            move = abstract_to_move(view, int(chosen[i]))
            assert move == action_to_move(int(actions[i])) and move in view.legal
            g.play(move)
            checked += 1
        ng.step(np.where(ng.terminated, 0, actions))
    assert checked > 300 and all(g.is_over for g in games)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_dmc_features_unchanged_when_hidden_cards_are_redealt(seats: int) -> None:
    rng = random.Random(seats)
    g = Game.new(seats, seed=40 + seats)
    while not g.is_over:
        for seat in range(seats):
            other = g.clone()
            other.redeal(seat, rng)
            assert (view_features(other.view(seat)) == view_features(g.view(seat))).all()
        moves = g.legal_moves()
        g.play(moves[rng.randrange(len(moves))])


def test_self_play_rows_and_results() -> None:
    net = _random_net(4, (16,), seed=1)
    roles = np.array([[0, 1, 0, 1]] * 12 + [[1, 1, 0, 1]] * 12)
    rows, results = play(4, roles, [net, RANDOM], rng=np.random.default_rng(1), seed=2, lanes=8)
    assert np.allclose(results.win.sum(axis=1), 1.0) and np.allclose(results.margin.sum(axis=1), 0.0, atol=1e-4)
    assert (results.plies > 0).all()
    # Rows are the learner's decisions with a choice, each target its seat's final return.
    assert len(rows) > 24 * 10 and (roles[rows.game, rows.seat] == 0).all()
    expect = results.win[rows.game, rows.seat] + 0.1 * results.margin[rows.game, rows.seat] / 20
    np.testing.assert_allclose(rows.ret, expect, rtol=1e-6)
    share, count = results.share(0)
    assert count == 36 and 0 <= share <= 1
    # Same seed, same generator state: the same games.
    again, results2 = play(4, roles, [net, RANDOM], rng=np.random.default_rng(1), seed=2, lanes=8)
    assert (again.action == rows.action).all() and (results2.win == results.win).all()


def test_weights_round_trip_and_errors(tmp_path: Path) -> None:
    nets = {n: _random_net(n, (8, 8), seed=n) for n in (3, 4, 5)}
    path = tmp_path / "w.npz"
    save_dmc(path, nets, {"command": "test"}, half=False)
    back = load_dmc(path)
    x = np.random.default_rng(0).random((5, feature_size(4)), dtype=np.float32)
    assert (back.net(4).forward(x) == nets[4].forward(x)).all() and back.meta["command"] == "test"
    with pytest.raises(ValueError, match="no dmc weights"):
        load_dmc("no-such-weights")
    with pytest.raises(BotSpecError):
        make_bot("dmc:no-such-weights")
    (tmp_path / "bad.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="cannot read"):
        load_dmc(tmp_path / "bad.npz")


def _bot_specs(tmp_path: Path) -> list[tuple[str, list[int]]]:
    """A tiny random agent and every shipped one (``dmc-v1``, the exploiter, the expert's clone), with their seats."""
    path = tmp_path / "tiny.npz"
    save_dmc(path, {n: _random_net(n, (16,), seed=n) for n in (3, 4, 5)}, {})
    shipped = [(f"dmc:{name}", sorted(load_dmc(name).nets)) for name in SHIPPED]
    return [(f"dmc:{path}", [3, 4, 5]), *shipped]


def test_shipped_dmc_agents() -> None:
    assert {"dmc-v1", "dmc-exploit-v1", "dmc-expert-clone-v1"} <= set(SHIPPED)
    assert sorted(load_dmc("dmc-v1").nets) == [3, 4, 5] and sorted(load_dmc("exploit-v1").nets) == [4]
    for name in SHIPPED:
        assert "catsack.learn" in json.dumps(load_dmc(name).meta)  # the command that made it
    with pytest.raises(BotSpecError, match="no network for 3 seats"):
        make_bot("dmc:exploit-v1").reset(0, 3)


def test_dmc_bots_move_only_from_their_views(tmp_path: Path) -> None:
    """R23: re-deal everything a seat cannot see; the view, hence the dmc bot's move, must not change."""
    rng = random.Random(5)
    for spec, seat_counts in _bot_specs(tmp_path):
        for seats in seat_counts:
            g = Game.new(seats, seed=seats)
            bot = make_bot(spec, seed=1)
            while not g.is_over:
                seat = g.to_move
                assert seat is not None
                view = g.view(seat)
                c = g.clone()
                c.redeal(seat, rng)
                other: View = c.view(seat)
                assert other == view
                move = bot.choose(view)
                assert move in view.legal and bot.choose(other) == move
                g.play(move)


def test_dmc_bots_finish_games(tmp_path: Path) -> None:
    for spec, seat_counts in _bot_specs(tmp_path):
        for seats in seat_counts:
            bots = [make_bot(spec if s % 2 == 0 else "heuristic", seed=s) for s in range(seats)]
            g = play_game(Game.new(seats, seed=seats + 10), bots)
            assert g.is_over and len(g.rounds) == 9  # R20


torch = pytest.importorskip("torch", reason="training needs the extra 'train' (PyTorch)")

from catsack.learn.dmc import DMCConfig, DMCTrainer, export_qnet, main, make_torch_net  # noqa: E402


def test_numpy_forward_equals_the_torch_network() -> None:
    torch.manual_seed(0)
    net = make_torch_net(feature_size(5), (64, 32))
    for p in net.parameters():  # away from the initial zero-ish biases
        p.data.normal_(0, 0.3)
    x = np.random.default_rng(0).normal(0, 1, (50, feature_size(5))).astype(np.float32)
    with torch.no_grad():
        want = net(torch.from_numpy(x)).numpy()
    got = export_qnet(net).forward(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _tiny(**kw: object) -> DMCConfig:
    base: dict[str, object] = {"seats": (3, 4), "games": 96, "batch_games": 24, "seed": 3, "hidden": (24,), "lanes": 16}
    base.update(kw)
    return DMCConfig(**base)  # type: ignore[arg-type]


def test_a_seconds_long_training_run_exports_a_playable_agent(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code = main(
        ["--seats", "3,4,5", "--games", "64", "--batch-games", "32", "--hidden", "32", "--seed", "1", "--lanes", "32",
         "--snapshot-every", "1", "--out", str(out), "--export", str(tmp_path / "w.npz"), "--quiet"]
    )  # fmt: skip
    assert code == 0 and (out / "checkpoint.pt").exists()
    weights = load_dmc(tmp_path / "w.npz")
    assert sorted(weights.nets) == [3, 4, 5] and weights.meta["games"] == {"3": 64, "4": 64, "5": 64}
    assert weights.meta["iterations"] == 2 and "catsack.learn.dmc" in weights.meta["command"]
    bots = [make_bot(f"dmc:{tmp_path / 'w.npz'}", seed=s) for s in range(5)]
    assert play_game(Game.new(5, seed=1), bots).is_over


def test_training_is_reproducible_and_resumes_bit_for_bit(tmp_path: Path) -> None:
    whole = DMCTrainer(_tiny(snapshot_every=2))
    whole.run(quiet=True)
    half = DMCTrainer(_tiny(snapshot_every=2, games=48))
    half.run(out=tmp_path, quiet=True)
    resumed = DMCTrainer.load(tmp_path / "checkpoint.pt", games=96)
    assert resumed.iteration == 2
    resumed.run(quiet=True)
    again = DMCTrainer(_tiny(snapshot_every=2))
    again.run(quiet=True)
    for n in (3, 4):
        a, b, c = whole.nets()[n], resumed.nets()[n], again.nets()[n]
        for wa, wb, wc in zip(a.weights, b.weights, c.weights, strict=True):
            assert (wa == wb).all() and (wa == wc).all()
    assert whole.games_played == resumed.games_played == {3: 96, 4: 96}


def test_exploiter_training_against_bots_and_a_fixed_network(tmp_path: Path) -> None:
    start = tmp_path / "start.npz"
    save_dmc(start, {4: _random_net(4, (24,), seed=4)}, {})
    vs_bots = DMCTrainer(_tiny(seats=(4,), games=6, batch_games=6, against=("heuristic", "random"), init=str(start)))
    line = vs_bots.step()
    assert line["s4"]["games"] == 6 and line["s4"]["rows"] > 6 * 10
    fixed = DMCTrainer(
        _tiny(seats=(4,), learners=1, league={"fixed": 1.0}, fixed=str(start), fixed_sample=True, init=str(start))
    )
    line = fixed.step()
    assert line["s4"]["games"] == 24 and line["s4"]["rows"] > 24 * 10


def test_exploit_measurement_is_resumable_and_paired(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from catsack.learn import exploit

    out = tmp_path / "m.jsonl"
    base = ["--against", "random", "--seats", "3", "--deals", "2", "--seed", "4", "--out", str(out)]
    assert exploit.main(["--hero", "heuristic", *base]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["deals"] == 2 and first["games"] == 6 and len(out.read_text().splitlines()) == 6
    lo, mid, hi = first["win_share"][1], first["win_share"][0], first["win_share"][2]
    assert 0 <= lo <= mid <= hi <= 1 and abs(first["gain_over_fair"][0] - (mid - 1 / 3)) < 1e-12
    assert exploit.main(["--hero", "heuristic", *base]) == 0  # nothing left to play: the file does not grow
    assert json.loads(capsys.readouterr().out) == first and len(out.read_text().splitlines()) == 6
    assert exploit.main(["--hero", "random", "--paired-hero", "heuristic", *base]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["paired_deals"] == 2
    assert abs(second["paired_win_diff"][0] - (second["win_share"][0] - first["win_share"][0])) < 1e-12
    result = tmp_path / "r.json"
    argv = ["--hero", "random", "--paired-hero", "heuristic", *base, "--result", str(result), "--budget", "for 0 games"]
    assert exploit.main(argv) == 0
    saved = json.loads(result.read_text())
    assert saved["kind"] == "exploit" and saved["budget"] == "for 0 games" and len(saved["load"]) == 3
    assert saved["command"].startswith("python -m catsack.learn.exploit --hero random")
    assert {k: saved[k] for k in second} == json.loads(capsys.readouterr().out) == second


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_the_compiled_value_bidder_plays_legally_and_beats_random(seats: int) -> None:
    # The engine checks every action it steps (an illegal one raises); rotate the value bidder through the seats.
    roles = np.ones((120, seats), np.int64)
    roles[np.arange(120), np.arange(120) % seats] = 0
    _, results = play(seats, roles, ["value", RANDOM], learners=(), rng=np.random.default_rng(seats), seed=seats)
    assert results.share(0)[0] > 0.6  # 0.85-0.93 over 2,000 games; 1/seats is chance


def test_nearest_abstract_maps_bids_between_the_steps() -> None:
    from catsack.learn.fast_features import nearest_abstract
    from catsack.moves import PASS_MOVE, bid

    g = Game.new(4, seed=2)
    while g.phase != "bidding":
        g.play(g.legal_moves()[0])
    g.play(bid(10))  # the next seat faces a high bid of 10 with 15 mice: raises +1, +2, +4 and all in (15)
    view = g.view(g.to_move)
    assert abstract_to_move(view, nearest_abstract(view, bid(12))) == bid(12)
    assert abstract_to_move(view, nearest_abstract(view, bid(13))) == bid(12)  # ties go to the smaller raise
    assert abstract_to_move(view, nearest_abstract(view, bid(15))) == bid(15)
    assert nearest_abstract(view, PASS_MOVE) == 10


def test_clone_collects_a_bots_decisions_and_fits_them(tmp_path: Path) -> None:
    from catsack.learn import clone

    hero = tmp_path / "hero.npz"
    save_dmc(hero, {3: _random_net(3, (16,), seed=3)}, {})
    data = tmp_path / "d.npz"
    rows = clone.collect("heuristic", str(hero), 3, 4, 2, 1, data)
    assert rows > 4 * 20 and clone.collect("heuristic", str(hero), 3, 4, 2, 1, data) == rows  # resumable: done
    figures = clone.fit(data, tmp_path / "c.npz", hidden=(32,), epochs=30, lr=3e-3, seed=0)
    assert figures["rows"] == rows and figures["train_agreement"] > 0.7  # a rule bot is easy to imitate
    assert make_bot(f"dmc:{tmp_path / 'c.npz'}").name.startswith("dmc:")


def test_clone_collects_an_opening_of_one_bot_among_others(tmp_path: Path) -> None:
    # --rounds 1 --others random: only the first spec's decisions, only in round 1 (R10-R20), every game stopped there
    from catsack.envs.encoding import observation_layout
    from catsack.learn import clone

    hero = tmp_path / "hero.npz"
    save_dmc(hero, {4: _random_net(4, (16,), seed=3)}, {})
    data = tmp_path / "d.npz"
    rows = clone.collect("heuristic", str(hero), 4, 6, 3, 1, data, others=["random"], rounds=1, hide_kinds=True)
    first_round = {f.name: f for f in observation_layout(4)}["round"].start
    with np.load(data) as d:
        x, others, rounds = d["x"], str(d["others"]), int(d["rounds"])
    assert rows == len(x) > 0 and (x[:, first_round] == 1).all() and (others, rounds) == ("random", 1)
    # two of the three bot seats are the heuristic bot's: at most its placement and a few bids each per game
    assert rows <= 6 * 2 * 8
    # two streams fit as one; files of another seat count are refused by name
    more = tmp_path / "more.npz"
    more_rows = clone.collect("heuristic", str(hero), 4, 6, 3, 2, more, others=["random"], rounds=1)
    figures = clone.fit([data, more], tmp_path / "c.npz", hidden=(16,), epochs=2, lr=3e-3, seed=0)
    assert figures["rows"] == rows + more_rows and figures["data"] == [str(data), str(more)]
    three = tmp_path / "three.npz"
    save_dmc(hero, {3: _random_net(3, (16,), seed=3)}, {})
    clone.collect("heuristic", str(hero), 3, 3, 3, 1, three, rounds=1)
    with pytest.raises(ValueError, match="different bots or seat counts"):
        clone.fit([data, three], tmp_path / "c.npz", hidden=(16,), epochs=2, lr=3e-3, seed=0)
