"""The league's hard pool: persona tables the learner should meet more often (AlphaStar's prioritised
fictitious self-play, PFSP), ranked one of two ways (:data:`RANKS`):

``win``
    by the learner's running win share at the table: an entry is drawn with weight ``(1 - share) ** 2``, and
    every iteration the entries it wins most at are replaced by fresh draws. A table where every player does
    well (passive players who save their mice, say) looks easy, although a plain value bidder in the learner's
    seat may do better still.
``value``
    by the learner's shortfall against the value bidder at the same table: when an entry is drawn, the
    heuristic rule (a persona with every trait off) plays :data:`BASE_GAMES` games among copies of it, each seat
    in turn, on the compiled engine (:func:`value_shares`), and the entry's weight is
    ``exp((base - share) / TEMPERATURE)``, where ``share`` is the learner's win share there (decayed counts,
    :data:`PRIOR_GAMES` pseudo-games at the base), so the tables where the learner falls furthest behind the
    simple rule come back most, whatever their absolute share. The entries it leads the rule by most (once seen
    :data:`SEEN_GAMES` times) are replaced. This ranks tables by what the results table measures: the margin
    over the heuristic bot in the same seat.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.personas import NUM_TRAITS, NUM_UNIFORMS
from catsack.envs.vector_numba import NumbaVectorGame
from catsack.learn.league import draw_trait_table

__all__ = ["BASE_GAMES", "RANKS", "HardPool", "value_shares"]

RANKS: Final = ("win", "value")
BASE_GAMES: Final = 32  # the value bidder's games at a new entry's table
TEMPERATURE: Final = 0.1  # win share: an entry 0.1 further behind the rule is drawn e times as often
PRIOR_GAMES: Final = 2.0  # pseudo-games at the rule's share before the learner's own count
DECAY: Final = 0.98  # the learner's counts fade by this much an iteration (it changes as it trains)
SEEN_GAMES: Final = 4.0  # games at an entry before it may be replaced as one the learner leads


def value_shares(traits: npt.NDArray[np.float64], seats: int, games: int, seed: int) -> npt.NDArray[np.float64]:
    """The heuristic rule's win share at each persona table: one value bidder among ``seats - 1`` copies of
    ``traits[k]`` (``(K, NUM_TRAITS)``), in seat ``g % seats`` of game ``g``, ``games`` games per entry (R22:
    the tied share the win)."""
    t = np.asarray(traits, np.float64)
    if t.ndim != 2 or t.shape[1] != NUM_TRAITS:
        raise ValueError(f"traits must have the shape (K, {NUM_TRAITS}), not {t.shape}")
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    K = len(t)
    if K == 0:
        return np.zeros(0)
    N = K * games
    vg = NumbaVectorGame(N, seats, seed=seed)
    rng = np.random.default_rng(seed)
    lanes = np.repeat(t[:, None, :], seats, axis=1)
    table = np.repeat(lanes, games, axis=0)  # lane k * games + g: entry k, game g
    seat = np.tile(np.arange(games) % seats, K)
    table[np.arange(N), seat] = 0.0
    live = np.ones(N, np.bool_)
    while live.any():
        actions = vg.persona_actions(table, rng.random((N, NUM_UNIFORMS)), where=live)
        live &= ~vg.step(actions, where=live)
    win = vg.rewards("win")[np.arange(N), seat]
    out: npt.NDArray[np.float64] = win.reshape(K, games).mean(axis=1)
    return out


class HardPool:
    """``size`` persona draws the learner meets at a share of the tables of one persona, ranked by ``rank``
    (see the module's text); ``seed`` seeds the value bidder's games under the ``value`` rank."""

    def __init__(self, rng: np.random.Generator, size: int, seats: int, rank: str = "win", seed: int = 0) -> None:
        if rank not in RANKS:
            raise ValueError(f"the hard pool's rank must be one of {', '.join(RANKS)}, not {rank!r}")
        self.rank, self.seats, self.seed = rank, seats, seed
        self.traits = draw_trait_table(rng, (size,))
        self.share = np.full(size, 1.0 / seats)
        self.base = np.full(size, 1.0 / seats)  # the value bidder's share at each table (``value``)
        self.wins = np.zeros(size)  # the learner's decayed wins and games there (``value``)
        self.games = np.zeros(size)
        self.drawn = 0  # entries whose base has been played (a generator seed each)
        if rank == "value":
            self._play_base(np.arange(size))

    def _play_base(self, entries: npt.NDArray[np.int64]) -> None:
        self.base[entries] = value_shares(self.traits[entries], self.seats, BASE_GAMES, self.seed + self.drawn)
        self.drawn += 1
        self.wins[entries] = 0.0
        self.games[entries] = 0.0
        self.share[entries] = self.base[entries]

    def weights(self) -> npt.NDArray[np.float64]:
        """Each entry's chance to be drawn at a table from the pool."""
        if self.rank == "value":
            behind = self.base - self.share
            w = np.exp((behind - behind.max()) / TEMPERATURE)
        else:
            w = (1.0 - self.share) ** 2 + 1e-3
        out: npt.NDArray[np.float64] = w / w.sum()
        return out

    def update(self, pool: np.ndarray, win: np.ndarray, rng: np.random.Generator, refresh: int) -> None:
        """Fold in the learner's win shares at the pool's tables (``pool[g]``: the entry of game ``g``, -1 for
        none; ``win[g]``: the learner's share of game ``g``), then replace ``refresh`` entries by fresh draws."""
        played = pool >= 0
        if self.rank == "value":
            self.wins *= DECAY
            self.games *= DECAY
            np.add.at(self.wins, pool[played], win[played])
            np.add.at(self.games, pool[played], 1.0)
            self.share = (self.wins + PRIOR_GAMES * self.base) / (self.games + PRIOR_GAMES)
            if refresh:
                ahead = np.where(self.games >= SEEN_GAMES, self.share - self.base, -np.inf)
                order = np.argsort(-ahead, kind="stable")[:refresh]
                order = order[np.isfinite(ahead[order])]
                if len(order):
                    self.traits[order] = draw_trait_table(rng, (len(order),))
                    self._play_base(order)
            return
        for k in np.unique(pool[played]):
            self.share[k] = 0.7 * self.share[k] + 0.3 * float(win[pool == k].mean())
        if refresh:
            easiest = np.argsort(-self.share, kind="stable")[:refresh]
            self.traits[easiest] = draw_trait_table(rng, (refresh,))
            self.share[easiest] = 1.0 / self.seats

    def state(self) -> npt.NDArray[np.float64]:
        """The pool as one array for a checkpoint: traits, share, and under ``value`` base, wins and games."""
        cols = [self.traits, self.share[:, None]]
        if self.rank == "value":
            drawn = np.full((len(self.share), 1), float(self.drawn))
            cols += [self.base[:, None], self.wins[:, None], self.games[:, None], drawn]
        return np.concatenate(cols, axis=1)

    def restore(self, saved: npt.NDArray[np.float64], where: str) -> None:
        """Take back :meth:`state` (``where`` names the checkpoint in errors)."""
        extra = 5 if self.rank == "value" else 1
        if saved.ndim != 2 or saved.shape[1] - extra != self.traits.shape[1]:
            raise ValueError(
                f"{where}: its hard pool does not hold personas of {self.traits.shape[1]} traits ranked by "
                f"{self.rank!r} (a checkpoint from before a trait was added); start a new run from its exported "
                "weights with --init instead"
            )
        T = self.traits.shape[1]
        self.traits, self.share = saved[:, :T].copy(), saved[:, T].copy()
        if self.rank == "value":
            self.base, self.wins, self.games = saved[:, T + 1].copy(), saved[:, T + 2].copy(), saved[:, T + 3].copy()
            self.drawn = int(saved[0, T + 4]) if len(saved) else 0
