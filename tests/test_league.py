"""League training of the learned expert: league games, the network's heads, a tiny run reproduced and resumed."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")
torch = pytest.importorskip("torch", reason="training needs PyTorch (the extra 'train')")

from catsack.game import Game  # noqa: E402
from catsack.learn import league_train  # noqa: E402
from catsack.learn.agent import DEFAULT_WEIGHTS, margin_weight  # noqa: E402
from catsack.learn.history import Sitting  # noqa: E402
from catsack.learn.league import LEARNER, NET, PERSONA, LeagueConfig, play_league  # noqa: E402
from catsack.learn.league_train import TrainConfig, Trainer, export_net, make_torch_net  # noqa: E402
from catsack.learn.mlp import MARGIN_SCALE, MARGIN_WEIGHT  # noqa: E402
from catsack.learn.tablenet import TableNet, input_size, load_table, row_length, table_features  # noqa: E402

pytestmark = pytest.mark.slow  # the kernels compile once (cached), then each test takes seconds


def _net(seats: int, seed: int = 0) -> TableNet:
    torch.manual_seed(seed)
    return export_net(seats, make_torch_net(seats, (32, 16)))


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_league_games_give_rows_for_every_head(seats: int) -> None:
    learner = _net(seats)
    config = LeagueConfig(lanes=16, behaviour=0.5)
    rows, behaviour, results = play_league(
        seats, 40, learner, [_net(seats, 1)], [_net(seats, 2)], config=config, rng=np.random.default_rng(1), seed=1
    )
    assert results.roles.shape == (40, seats)
    assert ((results.roles == LEARNER).sum(axis=1) == 1).all()  # one learner seat a game
    assert np.allclose(results.win.sum(axis=1), 1.0)  # R22: the win is shared out
    assert np.allclose(results.margin.sum(axis=1), 0.0, atol=1e-4)
    assert rows.x.shape == (len(rows), input_size(seats)) and rows.belief.shape == (len(rows), row_length(seats))
    assert (rows.belief >= -1).all() and (rows.belief < 10).all() and (rows.belief >= 0).any()
    assert len(behaviour) > 0 and ((behaviour.action >= 0) & (behaviour.action < 16)).all()
    assert set(np.unique(results.roles)) > {LEARNER, PERSONA}
    assert (results.roles >= NET).any()


def test_the_numpy_network_is_the_torch_network() -> None:
    net = make_torch_net(4, (32, 16))
    g = Game.new(4, seed=3)
    x = table_features(g.view(g.to_move), Sitting(4))  # type: ignore[arg-type]
    with torch.no_grad():
        expected = net(torch.from_numpy(x[None, :])).numpy()
    assert np.allclose(export_net(4, net).forward(x[None, :]), expected, atol=1e-5)


def _config(**kw: object) -> TrainConfig:
    base = dict(seats=(3,), games=128, batch_games=32, hidden=(24, 16), lanes=32, minibatch=64, snapshot_every=1,
                exploit_every=2, exploit_iterations=1, eval_every=2, eval_games=12, seed=5, fixed="")  # fmt: skip
    base.update(kw)
    return TrainConfig(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize("rank", ["win", "value"])
def test_a_tiny_run_is_reproduced_and_resumed(tmp_path: Path, rank: str) -> None:
    whole = Trainer(_config(pool_rank=rank, pool_size=32))
    whole.run(quiet=True)
    assert whole.iteration == 3 and whole.games_played[3] == 128  # the exploiter's games count too
    assert len(whole.seats[3].exploiters) == 1 and whole.seats[3].snapshots
    assert "eval" in whole.log[1] and "exploiter" in whole.log[1]["s3"]
    assert whole.seats[3].best is not None  # the averaged weights that evaluated best are what it exports
    first = Trainer(_config(games=64, pool_rank=rank, pool_size=32))
    first.run(quiet=True, out=tmp_path)
    resumed = Trainer.load(tmp_path / "checkpoint.pt", games=128)
    resumed.run(quiet=True)
    torch = pytest.importorskip("torch")
    old = torch.load(tmp_path / "checkpoint.pt", weights_only=True)  # as if saved before a trait was added
    old["seats"]["3"]["pool"] = old["seats"]["3"]["pool"][:, 1:]
    torch.save(old, tmp_path / "old.pt")
    with pytest.raises(ValueError, match=r"personas of \d+ traits"):
        Trainer.load(tmp_path / "old.pt", games=128)
    for a, b in zip(whole.nets()[3].weights, resumed.nets()[3].weights, strict=True):
        assert np.array_equal(a, b)
    kept, again = whole.seats[3].pool, resumed.seats[3].pool
    assert kept is not None and again is not None and np.array_equal(kept.state(), again.state())
    whole.export(tmp_path / "w.npz", command="test")
    loaded = load_table(tmp_path / "w.npz").net(3)
    assert all(np.allclose(a, b, atol=1e-2) for a, b in zip(loaded.weights, whole.nets()[3].weights, strict=True))


def test_an_exploiter_run_trains_against_the_given_weights(tmp_path: Path) -> None:
    target = Trainer(_config(games=32, exploit_every=0, eval_every=0))
    target.run(quiet=True)
    target.export(tmp_path / "target.npz")
    run = Trainer(_config(games=64, exploit_every=0, eval_every=0, opponents=str(tmp_path / "target.npz"),
                          roles={"exploiter": 1.0}))  # fmt: skip
    assert len(run.seats[3].exploiters) == 1
    run.run(quiet=True)
    assert run.log[-1]["s3"]["games"] == 64


def test_a_table_of_one_kind_shares_its_personas_draw() -> None:
    from catsack.learn.league import table_traits

    rng = np.random.default_rng(3)
    one = table_traits(rng, np.ones(50, np.bool_), 4)
    assert (one == one[:, :1]).all()
    own = table_traits(rng, np.zeros(50, np.bool_), 4)
    assert (own != own[:, :1]).any(axis=(1, 2)).all()
    config = LeagueConfig(lanes=16, same=1.0)
    _, _, results = play_league(4, 20, _net(4), [_net(4, 1)], [], config=config, rng=rng, seed=2)
    for row in results.roles:  # every seat but the learner's holds the same role
        others = row[row != LEARNER]
        assert len(set(others.tolist())) == 1


def test_the_leagues_personas_include_pure_styles() -> None:
    from catsack.bots.personas import OFF_SHARE, TRAITS
    from catsack.learn.league import PURE_SHARE, draw_trait_table

    t = draw_trait_table(np.random.default_rng(0), (20000,))
    dump = t[:, TRAITS.index("dump")]
    assert abs((dump == 0).mean() - (OFF_SHARE - PURE_SHARE)) < 0.02
    assert abs((dump == 1).mean() - PURE_SHARE) < 0.02  # a player who always dumps
    over = t[:, TRAITS.index("over")]
    assert abs((over == -3).mean() - PURE_SHARE / 2) < 0.02 and abs((over == 3).mean() - PURE_SHARE / 2) < 0.02


def test_a_share_of_the_leagues_personas_hoard_their_mice() -> None:
    from catsack.bots.personas import TRAITS
    from catsack.learn.league import HOARD_THRIFT, draw_trait_table

    plain = draw_trait_table(np.random.default_rng(4), (20000,))
    same = draw_trait_table(np.random.default_rng(4), (20000,), 0.0)
    assert (plain == same).all()  # no hoarders: the draws of runs trained before the option, unchanged
    t = draw_trait_table(np.random.default_rng(4), (20000,), 0.3)
    thrift = TRAITS.index("thrift")
    others = [k for k in range(len(TRAITS)) if k != thrift]
    assert (t[:, others] == plain[:, others]).all()  # only the thrift moves
    hoarders = t[:, thrift] != plain[:, thrift]
    assert abs(hoarders.mean() - 0.3) < 0.02
    assert (t[hoarders, thrift] >= HOARD_THRIFT).all() and (t[:, thrift] <= 1.0).all()
    already = (plain[:, thrift] >= HOARD_THRIFT).mean()  # the pure draws and the uniform ones high enough
    assert abs((t[:, thrift] >= HOARD_THRIFT).mean() - (already + 0.3 * (1 - already))) < 0.02
    config = LeagueConfig(lanes=16, hoard=1.0, roles={"persona": 1.0})
    rng = np.random.default_rng(5)
    rows, _, results = play_league(4, 20, _net(4), [], [], config=config, rng=rng, seed=3)
    assert len(results.win) == 20 and len(rows) > 0  # a league of hoarders plays its games
    assert league_train.TrainConfig(hoard=0.15).league().hoard == 0.15  # the trainer hands the share to its league


def test_the_hard_pool_brings_back_the_tables_the_learner_loses() -> None:
    from catsack.learn.hard_pool import HardPool

    pool = HardPool(np.random.default_rng(1), 8, 4)
    played = np.array([0, 0, 1, 1, -1])
    win = np.array([0.0, 0.0, 1.0, 1.0, 0.5])
    pool.update(played, win, np.random.default_rng(2), 0)
    w = pool.weights()
    assert w[0] > w[2] and abs(w.sum() - 1) < 1e-9  # lost at entry 0, won at entry 2
    before = pool.traits[1].copy()
    pool.update(played, win, np.random.default_rng(2), 1)  # the easiest entry is drawn anew
    assert not np.array_equal(pool.traits[1], before) and pool.share[1] == 0.25
    # every table of one persona draws from the pool (no switching: a switch draws fresh traits, off the pool)
    config = LeagueConfig(lanes=16, same=1.0, hard=1.0, switch=0.0, roles={"persona": 1.0})
    _, _, results = play_league(4, 24, _net(4), [], [], config=config, rng=np.random.default_rng(3), seed=3,
                                pool=pool.traits, pool_weights=pool.weights())  # fmt: skip
    assert results.pool is not None and (results.pool >= 0).all()


@pytest.mark.slow
def test_more_actors_than_a_running_rays_cpus_are_refused_by_name() -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'catsack[ray]')")
    try:
        ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR")
    except Exception as exc:  # Ray cannot start in every sandbox
        pytest.skip(f"Ray cannot start here: {exc}")
    try:
        trainer = Trainer(TrainConfig(seats=(4,), games=1024, seed=1, actors=2, chunks=2, eval_every=0))
        with pytest.raises(ValueError, match="2 actors need 2 CPUs; the Ray running in this process has 1"):
            trainer.pool()  # before: the second actor waited for ever
    finally:
        ray.shutdown()


def test_the_learners_return_has_the_configured_margin_term() -> None:
    # The same games (same generator and seed) with two margin weights: each learner row's return is its seat's
    # win share (R22) plus the weight times its margin (R21) over MARGIN_SCALE.
    net = _net(4)
    made = {}
    for weight in (MARGIN_WEIGHT, 1.0):
        config = LeagueConfig(lanes=16, margin_weight=weight)
        made[weight] = play_league(4, 24, net, [], [], config=config, rng=np.random.default_rng(3), seed=3)
    (rows, _, results), (heavy, _, again) = made[MARGIN_WEIGHT], made[1.0]
    assert np.array_equal(results.margin, again.margin) and np.array_equal(rows.x, heavy.x)
    win, margin = results.win[rows.game, rows.seat], results.margin[rows.game, rows.seat]
    assert np.allclose(rows.ret, win + MARGIN_WEIGHT * margin / MARGIN_SCALE, atol=1e-5)
    assert np.allclose(heavy.ret, win + margin / MARGIN_SCALE, atol=1e-5)
    assert not np.allclose(rows.ret, heavy.ret)


class _Opener:
    """An opener that plays the highest legal abstract action and keeps what it was shown."""

    def __init__(self) -> None:
        self.shown: list[np.ndarray] = []

    def forward(self, x: np.ndarray) -> np.ndarray:
        self.shown.append(x.copy())
        return np.tile(np.arange(16, dtype=np.float32), (len(x), 1))


def test_the_opener_plays_the_learners_round_1_in_its_share_of_games() -> None:
    from catsack.envs.encoding import observation_layout
    from catsack.learn.fast_features import feature_size

    first_round = {f.name: f for f in observation_layout(4)}["round"].start
    net, size = _net(4), feature_size(4)
    made = {}
    for share in (0.0, 1.0):
        opener = _Opener()
        config = LeagueConfig(lanes=16, epsilon=0.0, opening=share)
        rows, _, _ = play_league(4, 24, net, [], [], config=config, rng=np.random.default_rng(3), seed=3,
                                 opener=opener)  # type: ignore[arg-type]  # fmt: skip
        made[share] = (rows, opener.shown)
    assert made[0.0][1] == []  # a share of 0: the learner plays its own round 1
    rows, shown = made[1.0]
    first = rows.x[:, first_round] == 1
    assert first.any() and (~first).any()
    # the opener is shown each of the learner's round-1 decisions (the dmc part of its features) and nothing later
    assert sorted(r.tobytes() for r in np.concatenate(shown)) == sorted(r.tobytes() for r in rows.x[first, :size])
    # and its move is played: the highest legal action, all in (15) at a bid (R12), never a step raise (11-14)
    acts = rows.action[first]
    assert (acts == 15).any() and not ((acts > 10) & (acts < 15)).any()
    assert not (acts == net.q(rows.x[first]).argmax(axis=1)).all()


def test_an_opening_share_needs_an_opener_and_the_opener_a_share(capsys: pytest.CaptureFixture[str]) -> None:
    assert league_train.main(["--games", "8", "--opening", "0.3"]) == 2
    assert league_train.main(["--games", "8", "--opener", "dmc-v1"]) == 2
    assert "--opening" in capsys.readouterr().err


def test_the_margin_weight_is_kept_with_the_weights_and_read_by_the_search(tmp_path: Path) -> None:
    run = Trainer(_config(games=32, exploit_every=0, eval_every=0, margin_weight=0.5))
    run.run(quiet=True)
    run.export(tmp_path / "w.npz")
    assert margin_weight(load_table(tmp_path / "w.npz")) == 0.5
    assert margin_weight(load_table("expert-v4")) == MARGIN_WEIGHT  # trained before the option existed
    assert margin_weight(load_table(DEFAULT_WEIGHTS)) == 0.35  # the default, expert-v5, trained with 0.35
    assert league_train.main(["--margin-weight", "-1", "--games", "8"]) == 2
    assert league_train.main(["--margin-weight", "nan", "--games", "8"]) == 2
