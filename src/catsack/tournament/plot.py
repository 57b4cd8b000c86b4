"""A picture of a tournament: each bot spec's win share with its 95% interval (matplotlib, Agg)."""

from __future__ import annotations

import math
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from catsack.tournament.schedule import TournamentError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from catsack.tournament import TournamentResult

__all__ = ["draw_win_shares", "plot_win_shares", "require_matplotlib"]


def require_matplotlib() -> ModuleType:
    """matplotlib, or a :class:`TournamentError` naming the extra that installs it (checked before any
    game is played, so a missing extra costs nothing)."""
    try:
        import matplotlib
    except ImportError:
        raise TournamentError(
            "--plot needs matplotlib, which the 'stats' extra installs: pip install 'catsack[stats]'"
        ) from None
    return matplotlib


def _pyplot() -> ModuleType:
    matplotlib = require_matplotlib()
    matplotlib.use("Agg")  # no display needed; must come before pyplot
    import matplotlib.pyplot as plt

    return plt


def draw_win_shares(result: TournamentResult) -> Figure:
    """A figure of the win shares with their bootstrap intervals; the caller closes it (``plt.close``)."""
    _pyplot()
    import matplotlib.pyplot as plt

    stats = [s for s in result.stats if not math.isnan(s.win_share)]
    # A spec filling several seats is pooled (stats.py): its label says so, as the results table does.
    labels = [s.bot if s.seats == 1 else f"{s.bot} (x{s.seats})" for s in stats]
    shares = [s.win_share for s in stats]
    low = [s.win_share - s.win_share_ci[0] for s in stats]
    high = [s.win_share_ci[1] - s.win_share for s in stats]
    cfg = result.config
    fig, ax = plt.subplots(figsize=(7, 1.4 + 0.6 * len(stats)))
    ypos = list(range(len(stats)))
    ax.barh(ypos, shares, color="#6a8fbf", height=0.6)
    ax.errorbar(shares, ypos, xerr=[low, high], fmt="none", ecolor="black", capsize=4)
    ax.axvline(1 / cfg.seats, color="grey", linestyle="--", linewidth=1)
    ax.set_yticks(ypos, labels)
    ax.invert_yaxis()
    # The dashed line is explained in the axis label: a text beside the line would sit on the
    # axes' frame or on a bar, whatever the data.
    ax.set_xlabel(
        f"win share per seat-game (95% bootstrap interval)\ndashed line: 1/{cfg.seats}, the share of equal bots"
    )
    ax.set_xlim(0, min(1.0, max([*(s.win_share_ci[1] for s in stats), 1 / cfg.seats]) * 1.15 + 0.02))
    ax.set_title(f"{cfg.games} games, {cfg.seats} seats, seed {cfg.seed}")
    fig.tight_layout()
    return fig


def plot_win_shares(result: TournamentResult, path: str | Path) -> None:
    """Draw win shares with their bootstrap intervals into ``path`` (format from the suffix, e.g. PNG)."""
    plt = _pyplot()
    fig = draw_win_shares(result)
    try:
        fig.savefig(path, dpi=120)
    except (OSError, ValueError) as exc:
        raise TournamentError(f"cannot write the plot {str(path)!r}: {exc}") from None
    finally:
        plt.close(fig)
