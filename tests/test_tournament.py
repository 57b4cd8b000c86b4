"""Tournaments: duplicate schedule and seatings, statistics on constructed results, determinism, outputs, CLI
errors, and the seating ``bench/expert_strength.py`` picks."""

from __future__ import annotations

import csv
import io
import json
import math
import random
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench_modules import BENCH, load_bench
from catsack.advice.analysis import record_players
from catsack.bots.base import BotSpecError
from catsack.cli import app
from catsack.record import read_record
from catsack.tournament import (
    GameResult,
    TournamentConfig,
    TournamentError,
    TournamentResult,
    derive_seed,
    parse_bots,
    run_tournament,
)
from catsack.tournament.output import CSV_COLUMNS, FORMAT, to_json, write_csv, write_json, write_records
from catsack.tournament.schedule import chunk_deals
from catsack.tournament.stats import bootstrap_ratio_ci, quantile, summarize

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "external_bot.py"
# Small and quick: the heuristic bot against two random bots, 3 seats.
BOTS = ("heuristic", "random", "random")


def result(
    deal: int, rotation: int, entries: tuple[int, ...], scores: tuple[int, ...], cats: tuple[int, ...] = ()
) -> GameResult:
    """A constructed GameResult, ranked and won by R22 (score, then cat sum; ties share)."""
    cats = cats or (0,) * len(scores)
    keys = list(zip(scores, cats, strict=True))
    ranking = tuple(1 + sum(k > mine for k in keys) for mine in keys)
    winners = tuple(i for i, k in enumerate(keys) if k == max(keys))
    return GameResult(deal, rotation, entries, scores, cats, ranking, winners)


@pytest.fixture(scope="module")
def small() -> TournamentResult:
    """One small tournament with moves kept, shared by the output tests."""
    return run_tournament(TournamentConfig(BOTS, games=9, seed=5, keep_moves=True), resamples=200)


# ---------------------------------------------------------------- schedule


def test_games_must_be_a_multiple_of_the_seats() -> None:
    with pytest.raises(TournamentError, match=r"--games 10 is not a multiple of the 4 seats.*8 or 12"):
        TournamentConfig(("random",) * 4, games=10, seed=1)
    with pytest.raises(TournamentError, match="3, 4 or 5 bots"):
        TournamentConfig(("random",) * 2, games=4, seed=1)
    with pytest.raises(TournamentError, match="positive"):
        TournamentConfig(("random",) * 3, games=0, seed=1)
    with pytest.raises(TournamentError, match="empty entry"):
        parse_bots("random,,random")


def test_every_bot_plays_every_deal_from_every_seat() -> None:
    cfg = TournamentConfig(("a", "b", "c", "d", "e"), games=10, seed=1)
    assert cfg.deals == 2
    seatings = [cfg.entries(r) for r in range(5)]
    for entry in range(5):
        assert sorted(s.index(entry) for s in seatings) == [0, 1, 2, 3, 4]
    assert cfg.entries(0) == (0, 1, 2, 3, 4)
    assert cfg.entries(1) == (4, 0, 1, 2, 3)  # bot i sits at seat i + 1
    assert cfg.setup(0) == cfg.setup(0) and cfg.setup(0) != cfg.setup(1)


def test_both_seatings_seat_every_bot_twice_per_seat_and_each_neighbour_on_both_sides() -> None:
    cfg = TournamentConfig(("a", "b", "c", "d"), games=16, seed=1, seating="both")
    assert cfg.seatings_per_deal == 8 and cfg.deals == 2
    seatings = [cfg.entries(r) for r in range(8)]
    assert len(set(seatings)) == 8
    for entry in range(4):
        assert sorted(s.index(entry) for s in seatings) == [0, 0, 1, 1, 2, 2, 3, 3]
        for direction in (seatings[:4], seatings[4:]):  # once at every seat in each direction
            assert sorted(s.index(entry) for s in direction) == [0, 1, 2, 3]
    assert cfg.entries(4) == (0, 3, 2, 1)  # seat s holds bot (r - s) % n: the order reversed
    # (a, b): bot a sits right after bot b (the next seat round the table).
    after = [(s[(seat + 1) % 4], s[seat]) for s in seatings for seat in range(4)]
    forward = [(s[(seat + 1) % 4], s[seat]) for s in seatings[:4] for seat in range(4)]
    assert all((b, a) not in forward for a, b in forward)  # a rotation never swaps neighbours
    for a, b in set(after):
        assert after.count((a, b)) == after.count((b, a)) == 4
    assert {(a, b) for a, b in after} == {(a, b) for a in range(4) for b in range(4) if (a - b) % 4 in (1, 3)}
    with pytest.raises(TournamentError, match="no seating 8"):
        cfg.entries(8)


def test_both_seatings_begin_with_the_rotations_and_their_games() -> None:
    rotate = TournamentConfig(BOTS, games=6, seed=9)
    both = TournamentConfig(BOTS, games=12, seed=9, seating="both")
    assert rotate.seatings_per_deal == 3 and both.seatings_per_deal == 6 and rotate.deals == both.deals == 2
    assert [both.entries(r) for r in range(3)] == [rotate.entries(r) for r in range(3)]
    assert [both.entries(r) for r in range(3, 6)] == [(0, 2, 1), (1, 0, 2), (2, 1, 0)]
    assert all(both.bot_seed(d, r, s) == rotate.bot_seed(d, r, s) for d in range(2) for r in range(3) for s in range(3))
    old = run_tournament(rotate, resamples=20).games
    new = run_tournament(both, resamples=20).games
    assert [(g.deal, g.rotation) for g in new] == [(d, r) for d in range(2) for r in range(6)]
    assert [g for g in new if g.rotation < 3] == old  # the rotations' games, move for move
    assert [g.entries for g in new if g.deal == 0] == [both.entries(r) for r in range(6)]


def test_seating_and_its_game_count_are_checked() -> None:
    with pytest.raises(TournamentError, match=r"unknown seating 'reverse' \(choose from rotate, both"):
        TournamentConfig(("random",) * 3, games=6, seed=1, seating="reverse")
    with pytest.raises(TournamentError, match=r"--games 12 is not a multiple of 8 .*--seating both.*8 or 16"):
        TournamentConfig(("random",) * 4, games=12, seed=1, seating="both")
    with pytest.raises(TournamentError, match=r"--games 3 is not a multiple of 6 .*use e\.g\. 6$"):
        TournamentConfig(("random",) * 3, games=3, seed=1, seating="both")
    assert TournamentConfig(("random",) * 4, games=12, seed=1).deals == 3  # rotate: a multiple of 4 is enough


def test_seeds_depend_on_the_schedule_only() -> None:
    assert derive_seed(1, "deal", 0) == derive_seed(1, "deal", 0)
    assert derive_seed(1, "deal", 0) != derive_seed(1, "deal", 1) != derive_seed(2, "deal", 1)
    assert derive_seed(1, "deal", 0) == 3771704300739359091  # stable across processes and versions
    assert sum(len(c) for c in chunk_deals(1000, 2)) == 1000
    assert [list(c) for c in chunk_deals(3, 8)] == [[0], [1], [2]]


# ---------------------------------------------------------------- statistics


def test_win_shares_scores_and_margins_on_constructed_results() -> None:
    bots = ("a", "b", "c")
    games = [
        result(0, 0, (0, 1, 2), (30, 20, 10)),  # a wins alone
        result(0, 1, (2, 0, 1), (25, 25, 10)),  # c and a share the victory (R22)
        result(0, 2, (1, 2, 0), (40, 10, 10), (5, 0, 3)),  # b wins
    ]
    stats = {s.bot: s for s in summarize(bots, games, seed=1, resamples=50)}
    assert stats["a"].wins == pytest.approx(1.5) and stats["a"].win_share == pytest.approx(0.5)
    assert stats["b"].win_share == pytest.approx(1 / 3)
    assert stats["c"].win_share == pytest.approx(0.5 / 3)
    assert sum(s.wins for s in stats.values()) == pytest.approx(3)  # one victory per game
    assert stats["a"].mean_score == pytest.approx((30 + 25 + 10) / 3)
    # margins: a: +10, +5, -10; table means 20, 20, 20.
    assert stats["a"].mean_margin == pytest.approx(5 / 3)
    assert sum(s.mean_margin * s.games for s in stats.values()) == pytest.approx(0)
    assert all(s.games == 3 and s.seats == 1 for s in stats.values())


def test_ties_on_score_are_broken_by_cats_before_sharing() -> None:
    games = [result(0, 0, (0, 1, 2), (20, 20, 5), (10, 8, 0))]  # R22: the higher cat sum wins
    stats = {s.bot: s for s in summarize(("a", "b", "c"), games, seed=1)}
    assert stats["a"].win_share == 1 and stats["b"].win_share == 0


def test_pooled_specs_count_every_seat() -> None:
    games = [result(d, r, (0, 1, 2, 3), (40, 10, 10, 10)) for d in range(2) for r in range(4)]
    stats = {s.bot: s for s in summarize(("x", "y", "y", "y"), games, seed=1)}
    assert stats["y"].seats == 3 and stats["y"].games == 24 and stats["x"].games == 8
    assert stats["x"].win_share == 1 and stats["y"].win_share == 0
    assert stats["x"].mean_margin == pytest.approx(22.5) and stats["y"].mean_margin == pytest.approx(-7.5)


def test_bootstrap_interval_contains_the_mean_and_narrows_with_data() -> None:
    rng = random.Random(3)
    bots = ("a", "b", "c")
    games = []
    for deal in range(60):
        for rot in range(3):
            scores = tuple(rng.randrange(20, 60) for _ in range(3))
            games.append(result(deal, rot, tuple((s - rot) % 3 for s in range(3)), scores))
    full = summarize(bots, games, seed=7, resamples=400)
    part = summarize(bots, games[:30], seed=7, resamples=400)
    for s, p in zip(full, part, strict=True):
        for value, (lo, hi) in (
            (s.win_share, s.win_share_ci),
            (s.mean_score, s.mean_score_ci),
            (s.mean_margin, s.mean_margin_ci),
        ):
            assert lo <= value <= hi
        assert s.mean_score_ci[1] - s.mean_score_ci[0] < p.mean_score_ci[1] - p.mean_score_ci[0]
    assert summarize(bots, games, seed=7, resamples=400) == full  # seeded


def test_bootstrap_of_identical_deals_is_a_point_and_quantiles_interpolate() -> None:
    rng = random.Random(1)
    assert bootstrap_ratio_ci([[2, 2, 2, 2]], [4, 4, 4, 4], rng, 100) == [(0.5, 0.5)]
    assert bootstrap_ratio_ci([[3]], [4], rng, 100) == [(0.75, 0.75)]
    assert math.isnan(bootstrap_ratio_ci([[]], [], rng)[0][0])
    assert quantile([0.0, 10.0], 0.25) == 2.5 and quantile([1.0, 2.0, 3.0], 1.0) == 3.0


def test_ratings_follow_the_rankings() -> None:
    pytest.importorskip("openskill")
    games = [result(d, r, (0, 1, 2), (50, 30, 10)) for d in range(10) for r in range(3)]
    stats = {s.bot: s for s in summarize(("top", "mid", "low"), games, seed=1)}
    ratings = {b: s.rating for b, s in stats.items()}
    assert all(r is not None for r in ratings.values())
    assert ratings["top"].mu > ratings["mid"].mu > ratings["low"].mu  # type: ignore[union-attr]


# ---------------------------------------------------------------- running


def test_same_seed_same_results_whatever_the_jobs() -> None:
    cfg = TournamentConfig(BOTS, games=12, seed=11)
    done: list[int] = []
    one = run_tournament(cfg, jobs=1, resamples=100, progress=done.append)
    assert done == [1] * 12  # in-process: one report per game
    done.clear()
    two = run_tournament(cfg, jobs=2, resamples=100, progress=done.append)
    assert sum(done) == 12 and len(done) == 4  # one report per finished chunk (a deal each here)
    assert one.games == two.games
    assert to_json(one) == to_json(two)
    assert [(g.deal, g.rotation) for g in one.games] == [(d, r) for d in range(4) for r in range(3)]
    other = run_tournament(TournamentConfig(BOTS, games=12, seed=12), resamples=100)
    assert other.games != one.games


def test_duplicate_deals_share_their_setup(small: TournamentResult, tmp_path: Path) -> None:
    write_records(small, tmp_path)
    by_deal: dict[int, set[tuple[object, ...]]] = {}
    for path in tmp_path.iterdir():
        with path.open() as f:
            rec = read_record(f)
        by_deal.setdefault(rec.extra["tournament"]["deal"], set()).add((rec.start, tuple(rec.removed)))
    assert len(by_deal) == 3 and all(len(setups) == 1 for setups in by_deal.values())


def test_records_are_written_and_replay_to_the_same_scores(small: TournamentResult, tmp_path: Path) -> None:
    res = small
    out = tmp_path / "records"
    assert write_records(res, out) == 9
    for g in res.games:
        path = out / f"deal{g.deal:06d}-seating{g.rotation}.json"
        with path.open() as f:
            rec = read_record(f)
        assert rec.players == [BOTS[e] for e in g.entries]
        assert record_players(rec) == [BOTS[e] for e in g.entries]  # the table analysis meets
        assert rec.extra["tournament"]["seating"] == g.rotation
        game = rec.to_game()
        assert game.is_over and game.scores() == g.scores and game.ranking() == g.ranking


def test_json_and_csv_shapes(small: TournamentResult) -> None:
    buf = io.StringIO()
    write_json(small, buf)
    data = json.loads(buf.getvalue())
    assert data["format"] == FORMAT and data["bots"] == list(BOTS) and data["games"] == 9 and data["deals"] == 3
    assert [r["bot"] for r in data["results"]] == ["heuristic", "random"]
    row = data["results"][1]
    assert row["seats"] == 2 and row["games"] == 18 and len(row["win_share_ci"]) == 2
    assert set(row) >= {"win_share", "mean_score", "mean_margin", "rating", "faults"}
    buf = io.StringIO()
    write_csv(small, buf)
    rows = list(csv.DictReader(io.StringIO(buf.getvalue())))
    assert tuple(rows[0]) == CSV_COLUMNS and len(rows) == 2
    assert float(rows[0]["win_share_low"]) <= float(rows[0]["win_share"]) <= float(rows[0]["win_share_high"])
    total = sum(float(r["wins"]) for r in rows)
    assert total == pytest.approx(9)


def test_unknown_bot_spec_fails_before_playing() -> None:
    with pytest.raises(BotSpecError, match="unknown bot kind 'nosuch'"):
        run_tournament(TournamentConfig(("random", "random", "nosuch"), games=3, seed=1))


def test_a_rejected_move_names_the_seat_from_1(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat numbers people read count from 1 (R4): the first mover's seat index 0..n-1 is told as 1..n."""
    from catsack.bots.base import Bot
    from catsack.moves import PASS_MOVE, Move
    from catsack.tournament import runner
    from catsack.view import View

    class Passer(Bot):
        name = "passer"

        def choose(self, view: View) -> Move:
            return PASS_MOVE  # never legal while cards are placed (R10)

    monkeypatch.setattr(runner, "make_bot", lambda spec, seed=None: Passer())
    config = TournamentConfig(BOTS, games=3, seed=5)
    start = config.setup(0).start
    with pytest.raises(TournamentError, match=rf"at seat {start + 1} \(deal 0"):
        runner.play_game(config, 0, 0)


def test_a_misbehaving_external_bot_does_not_stop_the_tournament(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'protocol': 'catsack-bot/1', 'name': 'bad'}), flush=True)\n"
        "    elif m['type'] == 'move':\n"
        "        print(json.dumps({'type': 'move', 'id': m['id'], 'move': 'bid 999'}), flush=True)\n"
    )
    spec = f"external:{shlex.quote(sys.executable)} {shlex.quote(str(bad))}"
    good = f"external:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE))}"
    res = run_tournament(TournamentConfig((spec, good, "random"), games=3, seed=2), resamples=50)
    stats = {s.bot: s for s in res.stats}
    assert stats[spec].faults > 0 and stats[good].faults == 0
    assert len(res.games) == 3 and all(sum(g.faults) == g.faults[g.entries.index(0)] for g in res.games)


# ---------------------------------------------------------------- command line


def test_cli_writes_json_to_stdout_and_csv_to_a_file(tmp_path: Path) -> None:
    pytest.importorskip("openskill")
    out = tmp_path / "r.csv"
    args = ["tournament", "--bots", "random,random,random", "--games", "6", "--seed", "3", "-q"]
    res = CliRunner().invoke(app, [*args, "--json", "-", "--csv", str(out), "--bootstrap", "50"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["seed"] == 3 and data["results"][0]["win_share"] == pytest.approx(1 / 3)  # one pooled spec
    assert out.read_text().startswith("bot,seats,games,")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,random,random,random", "--games", "10"], "not a multiple of the 4 seats"),
        (["--bots", "random,random,nosuch", "--games", "3"], "unknown bot kind 'nosuch'"),
        (["--bots", "random,random", "--games", "2"], "3, 4 or 5 bots"),
        (["--bots", "random,random,random", "--games", "3", "--backend", "mpi"], "unknown backend 'mpi'"),
        (["--bots", "random,random,random", "--json", "-", "--csv", "-"], "only one of --json and --csv"),
    ],
)
def test_cli_errors_are_clear(args: list[str], message: str) -> None:
    res = CliRunner().invoke(app, ["tournament", "-q", *args])
    assert res.exit_code == 2
    assert message in res.output


def test_cli_plays_both_seatings(tmp_path: Path) -> None:
    recs = tmp_path / "recs"
    out = tmp_path / "r.json"
    args = ["tournament", "--bots", "heuristic,random,random", "--games", "12", "--seed", "3", "-q"]
    res = CliRunner().invoke(app, [*args, "--seating", "both", "--json", str(out), "--records", str(recs)])
    assert res.exit_code == 0, res.output
    assert "12 games (2 deals x 6 seatings in both orders)" in res.output
    data = json.loads(out.read_text())
    assert (data["games"], data["deals"], data["seating"]) == (12, 2, "both")
    assert sum(r["games"] for r in data["results"]) == 12 * 3  # seat-games
    assert sum(r["wins"] for r in data["results"]) == pytest.approx(12)
    names = sorted(p.name for p in recs.iterdir())
    assert names == sorted(f"deal{d:06d}-seating{r}.json" for d in range(2) for r in range(6))
    cfg = TournamentConfig(("heuristic", "random", "random"), games=12, seed=3, seating="both")
    with (recs / "deal000001-seating4.json").open() as f:
        rec = read_record(f)
    assert rec.players == [cfg.bots[e] for e in cfg.entries(4)]
    assert rec.extra["tournament"] == {"seed": 3, "deal": 1, "seating": 4, "bots": ["heuristic", "random", "random"]}
    res = CliRunner().invoke(app, [*args[:3], "--games", "9", "--seating", "both", "-q"])
    assert res.exit_code == 2 and "not a multiple of 6" in res.output and "--seating both" in res.output
    res = CliRunner().invoke(app, [*args, "--seating", "sideways"])
    assert res.exit_code == 2 and "unknown seating 'sideways'" in res.output


def test_cli_plot_and_records(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    plot = tmp_path / "shares.png"
    recs = tmp_path / "recs"
    args = ["tournament", "--bots", "random,random,random", "--games", "3", "--seed", "1", "-q", "--bootstrap", "20"]
    res = CliRunner().invoke(app, [*args, "--plot", str(plot), "--records", str(recs)])
    assert res.exit_code == 0, res.output
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(list(recs.iterdir())) == 3


# ---------------------------------------------------------------- Ray


@pytest.mark.slow
def test_ray_backend_gives_the_local_results() -> None:
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'catsack[ray]')")
    cfg = TournamentConfig(("random",) * 3, games=6, seed=4)
    local = run_tournament(cfg, resamples=50)
    try:
        ray.init(num_cpus=1, include_dashboard=False, logging_level="ERROR")
    except Exception as exc:  # Ray cannot start in every sandbox
        pytest.skip(f"Ray cannot start here: {exc}")
    try:
        remote = run_tournament(cfg, backend="ray", resamples=50)
    finally:
        ray.shutdown()
    assert remote.games == local.games


def test_bootstrap_with_numpy_is_the_plain_loop_bit_for_bit() -> None:
    # The numpy path hands the Mersenne Twister state over and back: same intervals, same rng after.
    pytest.importorskip("numpy")
    from catsack.tournament import stats

    data = random.Random(3)
    units = 400
    den = [data.randrange(1, 5) for _ in range(units)]
    nums = [[data.randrange(0, 300) for _ in range(units)], [data.randrange(-500, 500) for _ in range(units)]]
    fast_rng = random.Random(99)
    fast = stats.bootstrap_ratio_ci(nums, den, fast_rng, 120)
    plain_rng = random.Random(99)
    limit = stats._NUMPY_MIN_WORK
    try:
        stats._NUMPY_MIN_WORK = 10**12  # force the plain loop
        plain = stats.bootstrap_ratio_ci(nums, den, plain_rng, 120)
    finally:
        stats._NUMPY_MIN_WORK = limit
    assert fast == plain
    assert fast_rng.random() == plain_rng.random()


# ---------------------------------------------------------------- bench/expert_strength.py


@pytest.mark.parametrize(
    ("bots", "seating"),
    [
        ("expert,expert:strong,heuristic,random", "both"),
        ("expert,heuristic,heuristic", "rotate"),
        ("expert,ismcts:strong,ismcts:strong,ismcts:strong", "rotate"),
        ("expert,heuristic,heuristic,heuristic,heuristic", "rotate"),
        ("heuristic,random,random,heuristic", "rotate"),  # reversed, the same table
        ("random,heuristic,expert", "both"),  # three distinct bots: reversing swaps every neighbour
        ("expert,openspiel-ismcts:sims=260,heuristic,heuristic", "both"),
        ("heuristic,heuristic,random,ismcts", "both"),  # two neighbours the same, two not
        ("heuristic,random,heuristic,ismcts", "rotate"),  # each of random and ismcts between two heuristic
    ],
)
def test_bench_auto_seating_plays_both_orders_only_where_they_differ(bots: str, seating: str) -> None:
    assert load_bench("expert_strength").auto_seating(parse_bots(bots)) == seating


@pytest.mark.slow
def test_bench_parts_with_both_seatings_combine_to_the_whole_run(tmp_path: Path) -> None:
    """``--seating both`` (the auto choice for three distinct bots) with ``--part``, saved and combined, prints
    the whole run's numbers; parts of another seating are refused."""
    run = [
        sys.executable,
        str(BENCH / "expert_strength.py"),
        "--bots",
        "heuristic,random,ismcts:iters=5",
        "--seed",
        "2",
    ]
    whole = subprocess.run([*run, "--games", "12"], check=True, capture_output=True, text=True).stdout
    assert "12 games (2 deals x 6 seatings)" in whole and "seating both" in whole
    for k in (0, 1):
        part = [*run, "--games", "12", "--part", f"{k}/2", "--save", str(tmp_path / f"p{k}.json")]
        done = subprocess.run(part, check=True, capture_output=True, text=True)
        assert done.stderr.splitlines()[-1].lstrip().startswith("6/6 games")  # the progress counts the part's games
    bad = subprocess.run([*run, "--games", "12", "--part", "2/2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "argument --part: '2/2'" in bad.stderr
    saved = json.loads((tmp_path / "p1.json").read_text())
    assert saved["seating"] == "both" and {g["rotation"] for g in saved["games"]} == set(range(6))
    combine = [sys.executable, str(BENCH / "expert_strength.py"), "--combine"]
    both = subprocess.run(
        [*combine, str(tmp_path / "p0.json"), str(tmp_path / "p1.json")], capture_output=True, text=True
    )
    assert both.returncode == 0, both.stderr
    assert both.stdout.splitlines()[2:] == whole.splitlines()[2:]  # all but the timing lines
    saved["seating"] = "rotate"
    (tmp_path / "r.json").write_text(json.dumps(saved))
    mixed = subprocess.run(
        [*combine, str(tmp_path / "p0.json"), str(tmp_path / "r.json")], capture_output=True, text=True
    )
    assert mixed.returncode == 2 and "one table, seed and seating" in mixed.stderr


@pytest.mark.slow
def test_bench_paired_parts_combine_to_the_whole_paired_run(tmp_path: Path) -> None:
    """With ``--paired`` each saved part keeps the paired games too, and the combined parts print the whole
    run's paired table and paired margin; a part saved without them is refused."""
    run = [
        sys.executable,
        str(BENCH / "expert_strength.py"),
        "--bots",
        "heuristic,style:dumper,style:dumper,style:dumper",
        "--paired",
        "random",
        "--hide-kinds",
        "--games",
        "16",
        "--seed",
        "5",
    ]
    whole = subprocess.run(run, check=True, capture_output=True, text=True).stdout
    assert "paired over random in its seats (16 games, 4 deals)" in whole
    for k in (0, 1):
        subprocess.run([*run, "--part", f"{k}/2", "--save", str(tmp_path / f"p{k}.json")], check=True)
    saved = json.loads((tmp_path / "p0.json").read_text())
    assert saved["paired_bots"][0] == "random" and len(saved["paired_games"]) == len(saved["games"]) == 8
    combine = [sys.executable, str(BENCH / "expert_strength.py"), "--combine"]
    both = subprocess.run(
        [*combine, str(tmp_path / "p0.json"), str(tmp_path / "p1.json")], capture_output=True, text=True
    )
    assert both.returncode == 0, both.stderr
    tail = whole[whole.index("paired table:") :]
    assert both.stdout[both.stdout.index("paired table:") :] == tail
    del saved["paired_bots"], saved["paired_games"]
    (tmp_path / "bare.json").write_text(json.dumps(saved))
    mixed = subprocess.run(
        [*combine, str(tmp_path / "bare.json"), str(tmp_path / "p1.json")], capture_output=True, text=True
    )
    assert mixed.returncode == 2 and "same --paired spec" in mixed.stderr


@pytest.mark.slow
def test_bench_paired_arms_played_apart_compare_as_paired(tmp_path: Path) -> None:
    """The table with the first spec replaced, played as a run of its own, holds exactly the games ``--paired``
    plays, and ``--combine A --against B`` prints the same paired table and margin; a table with other
    opponents, or other deals, is refused with the reason."""
    base = [sys.executable, str(BENCH / "expert_strength.py"), "--hide-kinds", "--games", "8", "--seed", "5"]
    first = "heuristic,style:dumper,style:dumper,style:dumper"
    paired = subprocess.run(
        [*base, "--bots", first, "--paired", "random", "--save", str(tmp_path / "a.json")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    alone = "random,style:dumper,style:dumper,style:dumper"
    subprocess.run([*base, "--bots", alone, "--save", str(tmp_path / "b.json")], check=True, capture_output=True)
    a, b = (json.loads((tmp_path / f).read_text()) for f in ("a.json", "b.json"))
    assert b["games"] == a["paired_games"]  # the same seeds for the same seats: the same games
    del a["paired_bots"], a["paired_games"]  # the first arm as a run of its own
    (tmp_path / "a.json").write_text(json.dumps(a))
    combine = [sys.executable, str(BENCH / "expert_strength.py"), "--combine", str(tmp_path / "a.json"), "--against"]
    out = subprocess.run([*combine, str(tmp_path / "b.json")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout[out.stdout.index("paired table:") :] == paired[paired.index("paired table:") :]
    subprocess.run(
        [*base, "--bots", "random,heuristic,heuristic,heuristic", "--save", str(tmp_path / "c.json")],
        check=True,
        capture_output=True,
    )
    other = subprocess.run([*combine, str(tmp_path / "c.json")], capture_output=True, text=True)
    assert other.returncode == 2 and "only the first spec replaced" in other.stderr
    subprocess.run([*base, "--bots", alone, "--part", "0/2", "--save", str(tmp_path / "d.json")], check=True)
    fewer = subprocess.run([*combine, str(tmp_path / "d.json")], capture_output=True, text=True)
    assert fewer.returncode == 2 and "the same deals and seatings" in fewer.stderr


def test_bench_combine_names_a_file_it_cannot_read(tmp_path: Path) -> None:
    """``--combine`` and ``--against`` answer a missing file, a file that is not JSON, or JSON that is not a
    saved run with a usage error naming the file, not a traceback."""
    combine = [sys.executable, str(BENCH / "expert_strength.py"), "--combine"]
    missing = tmp_path / "missing.json"
    out = subprocess.run([*combine, str(missing)], capture_output=True, text=True)
    assert out.returncode == 2 and f"cannot read saved games from {missing}" in out.stderr
    assert "Traceback" not in out.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    out = subprocess.run([*combine, str(broken)], capture_output=True, text=True)
    assert out.returncode == 2 and f"cannot read saved games from {broken}" in out.stderr
    other = tmp_path / "other.json"
    other.write_text("[1, 2]")
    out = subprocess.run([*combine, str(other)], capture_output=True, text=True)
    assert out.returncode == 2 and f"{other} is not a file of games saved with --save" in out.stderr
    saved = tmp_path / "saved.json"
    play = [sys.executable, str(BENCH / "expert_strength.py"), "--bots", "heuristic,random,random", "--games", "3"]
    subprocess.run([*play, "--save", str(saved)], check=True, capture_output=True)
    out = subprocess.run([*combine, str(saved), "--against", str(missing)], capture_output=True, text=True)
    assert out.returncode == 2 and f"cannot read saved games from {missing}" in out.stderr
