"""Tournament output: JSON, CSV, a Rich table, and one ``catsack/1`` record per game.

The JSON and CSV outputs hold the results only (no timing, no job count), so
the same tournament gives byte-identical files however it was run.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from catsack.record import record_from_game, write_record
from catsack.tournament.schedule import TournamentConfig, TournamentError

if TYPE_CHECKING:
    from rich.table import Table

    from catsack.tournament import TournamentResult

__all__ = ["CSV_COLUMNS", "FORMAT", "csv_rows", "results_table", "to_json", "write_csv", "write_json", "write_records"]

FORMAT = "catsack-tournament/1"
CSV_COLUMNS = (
    "bot",
    "seats",
    "games",
    "wins",
    "win_share",
    "win_share_low",
    "win_share_high",
    "mean_score",
    "mean_score_low",
    "mean_score_high",
    "mean_margin",
    "mean_margin_low",
    "mean_margin_high",
    "rating_mu",
    "rating_sigma",
    "rating_ordinal",
    "faults",
)


def _num(x: float) -> float | None:
    """JSON has no NaN: write ``null`` for a statistic without data."""
    return None if math.isnan(x) else x


def to_json(result: TournamentResult) -> dict[str, Any]:
    """The tournament as a JSON-ready object (format ``catsack-tournament/1``)."""
    cfg = result.config
    rows = []
    for s in result.stats:
        d = s.to_dict()
        for key, value in d.items():
            if isinstance(value, float):
                d[key] = _num(value)
            elif isinstance(value, list):
                d[key] = [_num(v) if isinstance(v, float) else v for v in value]
        rows.append(d)
    return {
        "format": FORMAT,
        "bots": list(cfg.bots),
        "seats": cfg.seats,
        "games": cfg.games,
        "deals": cfg.deals,
        "seating": cfg.seating,
        "seed": cfg.seed,
        "resamples": result.resamples,
        "results": rows,
    }


def write_json(result: TournamentResult, stream: IO[str]) -> None:
    json.dump(to_json(result), stream, indent=2)
    stream.write("\n")


def csv_rows(result: TournamentResult) -> list[dict[str, Any]]:
    """One flat row per bot spec, keyed by :data:`CSV_COLUMNS`."""
    rows = []
    for s in result.stats:
        rows.append(
            {
                "bot": s.bot,
                "seats": s.seats,
                "games": s.games,
                "wins": s.wins,
                "win_share": s.win_share,
                "win_share_low": s.win_share_ci[0],
                "win_share_high": s.win_share_ci[1],
                "mean_score": s.mean_score,
                "mean_score_low": s.mean_score_ci[0],
                "mean_score_high": s.mean_score_ci[1],
                "mean_margin": s.mean_margin,
                "mean_margin_low": s.mean_margin_ci[0],
                "mean_margin_high": s.mean_margin_ci[1],
                "rating_mu": "" if s.rating is None else s.rating.mu,
                "rating_sigma": "" if s.rating is None else s.rating.sigma,
                "rating_ordinal": "" if s.rating is None else s.rating.ordinal,
                "faults": s.faults,
            }
        )
    return rows


def write_csv(result: TournamentResult, stream: IO[str]) -> None:
    writer = csv.DictWriter(stream, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(result))


def results_table(result: TournamentResult) -> Table:
    """A Rich table of the results, one row per bot spec."""
    from rich import box
    from rich.table import Table

    cfg = result.config
    rate = result.games_per_second
    deals = f"{cfg.deals} deal{'s' if cfg.deals != 1 else ''}"
    orders = " in both orders" if cfg.seating == "both" else ""
    title = (
        f"{cfg.games} games ({deals} x {cfg.seatings_per_deal} seatings{orders}), seed {cfg.seed}, "
        f"{result.elapsed:.1f} s, {rate:.{1 if rate < 10 else 0}f} games/s ({result.backend}, jobs {result.jobs})"
    )
    table = Table(title=title, title_justify="left", caption_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("bot (seats)", overflow="fold")
    table.add_column("games", justify="right")
    table.add_column("win share\n95% CI", justify="right", no_wrap=True)
    table.add_column("score\n95% CI", justify="right", no_wrap=True)
    table.add_column("margin\n95% CI", justify="right", no_wrap=True)
    table.add_column("rating\nmu±sigma", justify="right", no_wrap=True)
    faults = any(s.faults for s in result.stats)
    if faults:
        table.add_column("faults", justify="right")
    for s in sorted(result.stats, key=lambda s: -s.win_share if not math.isnan(s.win_share) else 0.0):
        # Value on the first line, its interval dimmed on the second: fits an 80-column terminal.
        cells = [
            s.bot if s.seats == 1 else f"{s.bot} (x{s.seats})",
            str(s.games),
            f"{s.win_share:.3f}\n[dim]{s.win_share_ci[0]:.3f}-{s.win_share_ci[1]:.3f}",
            f"{s.mean_score:.1f}\n[dim]{s.mean_score_ci[0]:.1f}-{s.mean_score_ci[1]:.1f}",
            f"{s.mean_margin:+.1f}\n[dim]{s.mean_margin_ci[0]:+.1f}..{s.mean_margin_ci[1]:+.1f}",
            "-" if s.rating is None else f"{s.rating.mu:.1f}±{s.rating.sigma:.1f}",
        ]
        if faults:
            cells.append(str(s.faults))
        table.add_row(*cells)
    share = 1 / cfg.seats
    table.caption = (
        f"win share: wins per seat-game, shared victories split (R22); {share:.3f} each for equal bots. "
        "margin: score minus the table's mean score. Intervals: bootstrap over deals. "
        "rating: OpenSkill Plackett-Luce mu±sigma."
    )
    if any(s.rating is None for s in result.stats):
        table.caption += " Ratings need openskill (pip install 'catsack[stats]')."
    return table


def record_name(deal: int, rotation: int) -> str:
    return f"deal{deal:06d}-seating{rotation}.json"


def write_records(result: TournamentResult, directory: str | Path) -> int:
    """Write every game as a ``catsack/1`` record into ``directory``; return how many.

    ``players`` and ``agents`` name each seat's bot spec as given on the command line (``agents``
    is what analysis reads as the table, :func:`catsack.advice.analysis.record_players`); the
    extra key ``tournament`` says where the game sits in the schedule.
    """
    from catsack.game import Game

    cfg: TournamentConfig = result.config
    path = Path(directory)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TournamentError(f"cannot create the records folder {str(path)!r}: {exc.strerror or exc}") from None
    written = 0
    setups: dict[int, Any] = {}
    for g in result.games:
        if g.moves is None:
            raise TournamentError("these results kept no moves: run the tournament with keep_moves=True for records")
        setup = setups.get(g.deal)
        if setup is None:
            setups.clear()
            setup = setups[g.deal] = cfg.setup(g.deal)
        game = Game(setup)
        for text in g.moves:
            game.play(text)
        specs = [cfg.bots[e] for e in g.entries]
        record = record_from_game(
            game,
            players=specs,
            agents=specs,
            tournament={"seed": cfg.seed, "deal": g.deal, "seating": g.rotation, "bots": list(cfg.bots)},
        )
        with open(path / record_name(g.deal, g.rotation), "w", encoding="utf-8") as stream:
            write_record(record, stream)
        written += 1
    return written
