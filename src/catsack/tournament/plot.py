"""A picture of a tournament: each bot spec's win share with its 95% interval (matplotlib, Agg)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from catsack.tournament.schedule import TournamentError

if TYPE_CHECKING:
    from catsack.tournament import TournamentResult

__all__ = ["plot_win_shares"]


def plot_win_shares(result: TournamentResult, path: str | Path) -> None:
    """Draw win shares with their bootstrap intervals into ``path`` (format from the suffix, e.g. PNG)."""
    try:
        import matplotlib
    except ImportError as exc:
        raise TournamentError(f"--plot needs matplotlib (pip install 'catsack[stats]'): {exc}") from None
    matplotlib.use("Agg")  # no display needed; must come before pyplot
    import matplotlib.pyplot as plt

    stats = [s for s in result.stats if not math.isnan(s.win_share)]
    labels = [s.bot for s in stats]
    shares = [s.win_share for s in stats]
    low = [s.win_share - s.win_share_ci[0] for s in stats]
    high = [s.win_share_ci[1] - s.win_share for s in stats]
    cfg = result.config
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.6 * len(stats)))
    try:
        ypos = list(range(len(stats)))
        ax.barh(ypos, shares, color="#6a8fbf", height=0.6)
        ax.errorbar(shares, ypos, xerr=[low, high], fmt="none", ecolor="black", capsize=4)
        ax.axvline(1 / cfg.seats, color="grey", linestyle="--", linewidth=1)
        ax.annotate(
            f" equal bots: 1/{cfg.seats}",
            xy=(1 / cfg.seats, 1.0),
            xycoords=("data", "axes fraction"),
            ha="left",
            va="top",
            fontsize="small",
            color="dimgrey",
        )
        ax.set_yticks(ypos, labels)
        ax.invert_yaxis()
        ax.set_xlabel("win share per seat-game (95% bootstrap interval)")
        ax.set_xlim(0, min(1.0, max([*(s.win_share_ci[1] for s in stats), 1 / cfg.seats]) * 1.15 + 0.02))
        ax.set_title(f"{cfg.games} games, {cfg.seats} seats, seed {cfg.seed}")
        fig.tight_layout()
        try:
            fig.savefig(path, dpi=120)
        except (OSError, ValueError) as exc:
            raise TournamentError(f"cannot write the plot {str(path)!r}: {exc}") from None
    finally:
        plt.close(fig)
