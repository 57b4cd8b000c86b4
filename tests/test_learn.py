"""The learned evaluation: features from views only (R23), the numpy network, training, shipped weights."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from catsack import Game
from catsack.bots.base import make_bot, play_game
from catsack.learn import encode_features, feature_size, load_policy_model, load_value_model
from catsack.learn.features import (
    NUM_ABSTRACT,
    FeatureError,
    abstract_legal,
    abstract_to_move,
    feature_names,
    move_to_abstract,
)
from catsack.learn.mlp import MLP, Batch
from catsack.learn.model import DEFAULT_WEIGHTS, WEIGHTS_DIR, WeightsError, load_nets
from catsack.learn.train import TorchFit, TrainConfig, Trainer, main, parse_league
from catsack.record import record_from_obj

FIXTURE = Path(__file__).parent / "data" / "learn_fixture.json"


def _random_game_views(seats: int, seed: int) -> list[Game]:
    """Snapshots (clones) of one game with random bots at every ply."""
    game = Game.new(seats, seed=seed)
    bots = [make_bot("random", seed=seed * 10 + s) for s in range(seats)]
    out = []
    while (s := game.to_move) is not None:
        out.append(game.clone())
        game.play(bots[s].choose(game.view(s)))
    out.append(game.clone())
    return out


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_features_unchanged_when_hidden_cards_are_redealt(seats: int) -> None:
    rng = random.Random(seats)
    for k, game in enumerate(_random_game_views(seats, seed=seats)):
        if k % 7:
            continue
        for seat in range(seats):
            before = encode_features(game.view(seat))
            other = game.clone()
            other.redeal(seat, rng)
            assert np.array_equal(encode_features(other.view(seat)), before), (k, seat)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_feature_size_names_and_range(seats: int) -> None:
    assert len(feature_names(seats)) == feature_size(seats)
    for game in _random_game_views(seats, seed=11)[::5]:
        x = encode_features(game.view(0))
        assert x.shape == (feature_size(seats),) and x.dtype == np.float32
        assert np.isfinite(x).all() and np.abs(x).max() <= 3.0


def test_public_view_is_refused() -> None:
    with pytest.raises(FeatureError, match="public view"):
        encode_features(Game.new(4, seed=1).public_view())


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_abstract_actions_stand_for_distinct_legal_moves(seats: int) -> None:
    for seed in range(4):
        for game in _random_game_views(seats, seed=seed):
            if game.to_move is None:
                continue
            view = game.view(game.to_move)
            mask = abstract_legal(view)
            assert mask.shape == (NUM_ABSTRACT,) and mask.any()
            moves = [abstract_to_move(view, int(a)) for a in np.flatnonzero(mask)]
            assert len(set(moves)) == len(moves)
            assert all(m in view.legal for m in moves)
            for a, m in zip(np.flatnonzero(mask), moves, strict=True):
                assert move_to_abstract(view, m) == a
            for a in np.flatnonzero(~mask):
                with pytest.raises(FeatureError):
                    abstract_to_move(view, int(a))


def test_r15_last_choice_is_pass_or_the_plus_one_buy() -> None:
    game = Game.new(4, seed=5)
    for _ in range(4):
        game.play(game.legal_moves()[0])
    for _ in range(3):
        game.play("pass")
    assert game.phase == "last choice"
    view = game.view(game.to_move or 0)
    assert [abstract_to_move(view, int(a)).text for a in np.flatnonzero(abstract_legal(view))] == ["pass", "bid 1"]


def test_r12_raises_and_all_in() -> None:
    game = Game.new(4, seed=5)
    for _ in range(4):
        game.play(game.legal_moves()[0])
    game.play("bid 3")
    view = game.view(game.to_move or 0)  # 15 mice (R5), high bid 3
    texts = [abstract_to_move(view, int(a)).text for a in np.flatnonzero(abstract_legal(view))]
    assert texts == ["pass", "bid 4", "bid 5", "bid 7", "bid 10", "bid 15"]


def test_the_torch_layers_are_the_numpy_network() -> None:
    pytest.importorskip("torch", reason="training needs PyTorch (the extra 'train')")
    import torch

    net = MLP.create(7, (5, 4), np.random.default_rng(0))
    fit = TorchFit(net, 1e-3)
    x = np.random.default_rng(1).standard_normal((6, 7)).astype(np.float32)
    with torch.no_grad():
        assert np.allclose(fit.net(torch.from_numpy(x)).numpy(), net.forward(x), atol=1e-5)
    assert all(np.array_equal(a, b) for a, b in zip(fit.params(), net.params, strict=True))


def test_adam_fits_a_simple_target() -> None:
    pytest.importorskip("torch", reason="training needs PyTorch (the extra 'train')")
    rng = np.random.default_rng(1)
    net = MLP.create(3, (16,), rng)
    x = rng.random((256, 3)).astype(np.float32)
    win = (x[:, 0] > 0.5).astype(np.float32)
    batch = Batch(x, win, np.zeros(256, np.float32), np.array([-1] * 128 + [3] * 128))
    fit = TorchFit(net, 1e-2)
    first = fit.step(batch)
    for _ in range(200):
        last = fit.step(batch)
    assert last["win"] < 0.5 * first["win"] and last["q"] < first["q"]


def test_parse_league() -> None:
    assert parse_league("self=1, heuristic=0.5") == {"self": 1.0, "heuristic": 0.5}
    for bad in ("robot=1", "self", "self=x", "self=0", "self=-1"):
        with pytest.raises(ValueError):
            parse_league(bad)


def _tiny(seed: int = 3) -> TrainConfig:
    return TrainConfig(
        seats=(4,),
        games=6,
        batch_games=3,
        seed=seed,
        hidden=(16,),
        epochs=1,
        snapshot_every=1,
        eval_every=2,
        eval_games=4,
        league=parse_league("self=0.4,snapshot=0.2,heuristic=0.2,random=0.2"),
    )


def test_short_training_run_learns_and_exports(tmp_path: Path) -> None:
    out = tmp_path / "run"
    weights = tmp_path / "w.npz"
    args = ["--seats", "3,4", "--games", "4", "--batch-games", "2", "--hidden", "16", "--eval-every", "2"]
    assert main([*args, "--eval-games", "3", "--out", str(out), "--export", str(weights)]) == 0
    assert (out / "checkpoint.npz").exists()
    record = json.loads(weights.with_suffix(".json").read_text())
    assert record["games"] == {"3": 4, "4": 4} and record["config"]["seed"] == 0
    assert set(record["last_eval_vs_heuristic"]) == {"3p", "4p"}
    game = Game.new(4, seed=2)
    values = load_value_model(weights).evaluate_views([game.view(s) for s in range(4)])
    assert values.shape == (4,) and ((values > 0) & (values < 1)).all()
    assert load_policy_model(weights).choose(game.view(game.to_move or 0)) in game.legal_moves()
    with pytest.raises(WeightsError, match="no network for 5 seats"):
        load_value_model(weights).evaluate(Game.new(5, seed=1).view(0))
    # Resumed with a new league: the run goes on from its checkpoint and the log says so.
    ckpt = str(out / "checkpoint.npz")
    assert main(["--resume", ckpt, "--games", "6", "--league", "self=1", "--out", str(out)]) == 0
    resumed = Trainer.load(ckpt)
    assert resumed.games_done == {3: 6, 4: 6} and resumed.config.league == {"self": 1.0}
    assert {"iteration": 2, "league_from_here": {"self": 1.0}} in resumed.log


def test_resume_gives_the_uninterrupted_run(tmp_path: Path) -> None:
    whole = Trainer(_tiny())
    while not whole.done():
        whole.step()
    part = Trainer(_tiny())
    part.step()
    part.save(tmp_path / "ck.npz")
    resumed = Trainer.load(tmp_path / "ck.npz")
    while not resumed.done():
        resumed.step()
    assert resumed.iteration == whole.iteration == 2
    for net in ("nets", "averaged"):
        for a, b in zip(getattr(whole, net)[4].params, getattr(resumed, net)[4].params, strict=True):
            assert np.array_equal(a, b)
    assert len(resumed.snapshots) == len(whole.snapshots) == 2
    assert resumed.rng.bit_generator.state == whole.rng.bit_generator.state
    assert [e["4p"] for e in resumed.log] == [e["4p"] for e in whole.log]


def test_bad_weights_and_checkpoints_are_named(tmp_path: Path) -> None:
    with pytest.raises(WeightsError, match="no weights file"):
        load_nets("no-such-weights")
    junk = tmp_path / "junk.npz"
    np.savez(junk, a=np.zeros(2))
    with pytest.raises(WeightsError, match="no 'meta'"):
        load_nets(junk)
    with pytest.raises(ValueError, match="not a training checkpoint"):
        Trainer.load(junk)


# ---------------------------------------------------------------------- shipped weights


def test_shipped_weights_are_small_and_documented() -> None:
    npz = WEIGHTS_DIR / f"{DEFAULT_WEIGHTS}.npz"
    assert npz.stat().st_size < 400_000
    info = json.loads(npz.with_suffix(".json").read_text())
    for key in ("command", "config", "games", "wall_seconds", "git_commit"):
        assert key in info
    assert set(load_nets().nets) == {3, 4, 5}


def test_shipped_weights_reproduce_the_fixture() -> None:
    data = json.loads(FIXTURE.read_text())
    assert data["weights"] == DEFAULT_WEIGHTS
    value = load_value_model()
    policy = load_policy_model()
    assert len(data["positions"]) >= 12
    for row in data["positions"]:
        game = record_from_obj(row["record"]).to_game()
        view = game.view(row["seat"])
        assert value.evaluate(view, "win") == pytest.approx(row["win"], abs=1e-3)
        assert value.evaluate(view, "margin") == pytest.approx(row["margin"], abs=2e-2)
        if "policy_move" in row:
            assert policy.choose(game.view(row["to_move"])).text == row["policy_move"]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_policy_bot_plays_whole_games(seats: int) -> None:
    bots = [make_bot("policy", seed=1)] + [make_bot("heuristic", seed=s) for s in range(seats - 1)]
    game = play_game(Game.new(seats, seed=seats), bots)
    assert game.is_over and bots[0].name == "policy"
    fresh = Game.new(seats, seed=1)
    view = fresh.view(fresh.to_move or 0)
    scores = load_policy_model().scores(view)
    assert set(scores) == {m.text for m in view.legal} and all(np.isfinite(v) for v in scores.values())
