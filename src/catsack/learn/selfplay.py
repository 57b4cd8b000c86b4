"""Self-play against a league: many core games stepped together, the learner's decisions batched.

Each game seats, per seat, a role drawn from the league weights: ``self``
(the network being trained, epsilon-greedy), ``snapshot`` (a frozen past copy
of it, greedy), ``heuristic``, ``random`` or ``ismcts`` (``ismcts:easy``,
costly). Every game has at least one ``self`` seat. All players decide from
their own view (R23): the network's input is :func:`encode_features` of the
seat's view, exactly what it sees at play time.

What comes back is a :class:`~catsack.learn.mlp.Batch` of training rows:

- every non-forced decision of a ``self`` seat, with the abstract action
  taken (the Deep Monte Carlo target is that seat's final return);
- value-only rows (action ``-1``): the decisions of ``snapshot``,
  ``heuristic`` and ``ismcts`` seats, and, with probability
  ``value_sample`` per move, the view of one seat not to move (so the value
  function also knows states where someone else acts). Random seats give no
  rows: their outcomes say little about good play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.base import Bot, make_bot
from catsack.envs.encoding import rewards_of
from catsack.game import Game
from catsack.learn.features import NUM_ABSTRACT, abstract_legal, abstract_to_move, encode_features, feature_size
from catsack.learn.mlp import MLP, Batch
from catsack.moves import Move
from catsack.view import View

__all__ = ["ROLES", "GameStats", "play_batch", "sample_roles"]

ROLES: Final = ("self", "snapshot", "heuristic", "random", "ismcts")
_BOT_SPECS: Final = {"heuristic": "heuristic", "random": "random", "ismcts": "ismcts:easy"}

F32 = npt.NDArray[np.float32]


@dataclass
class GameStats:
    """Per game of a batch: its roles and each seat's final win share (R22) and margin (R21)."""

    roles: list[tuple[str, ...]] = field(default_factory=list)
    wins: list[tuple[float, ...]] = field(default_factory=list)
    margins: list[tuple[float, ...]] = field(default_factory=list)

    def share(self, role: str) -> tuple[float, int]:
        """Mean win share of the seats playing ``role`` and how many seats that was."""
        total = 0.0
        count = 0
        for roles, wins in zip(self.roles, self.wins, strict=True):
            for r, w in zip(roles, wins, strict=True):
                if r == role:
                    total += w
                    count += 1
        return (total / count if count else float("nan")), count


def sample_roles(
    seats: int, league: Mapping[str, float], rng: np.random.Generator, have_snapshots: bool
) -> tuple[str, ...]:
    """One role per seat from the league weights, with at least one ``self`` seat."""
    names = [r for r in ROLES if league.get(r, 0.0) > 0 and (r != "snapshot" or have_snapshots)]
    if not names:
        names = ["self"]
    w = np.array([league.get(r, 0.0) for r in names], np.float64)
    picks = rng.choice(len(names), size=seats, p=w / w.sum())
    roles = [names[int(k)] for k in picks]
    if "self" not in roles:
        roles[int(rng.integers(seats))] = "self"
    return tuple(roles)


def _greedy(q: npt.NDArray[np.float32], legal: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    masked = np.where(legal, q, -np.inf)
    best: npt.NDArray[np.int64] = np.argmax(masked, axis=1)
    return best


def play_batch(
    seats: int,
    roles: Sequence[tuple[str, ...]],
    net: MLP,
    snapshots: Sequence[MLP],
    rng: np.random.Generator,
    *,
    epsilon: float = 0.05,
    value_sample: float = 0.15,
    learn: bool = True,
) -> tuple[Batch, GameStats]:
    """Play one game per entry of ``roles`` to the end; return the training rows and the results."""
    n = seats
    size = feature_size(n)
    games = [Game.new(n, seed=int(s)) for s in rng.integers(0, 2**62, len(roles))]
    bots: list[dict[int, Bot]] = []
    snap_of: list[dict[int, int]] = []
    for g_roles in roles:
        made: dict[int, Bot] = {}
        snaps: dict[int, int] = {}
        for s, role in enumerate(g_roles):
            if role in _BOT_SPECS:
                bot = make_bot(_BOT_SPECS[role], seed=int(rng.integers(0, 2**31)))
                bot.reset(s, n)
                made[s] = bot
            elif role == "snapshot":
                snaps[s] = int(rng.integers(len(snapshots))) if snapshots else -1
        bots.append(made)
        snap_of.append(snaps)
    rows_x: list[F32] = []
    rows_game: list[int] = []
    rows_seat: list[int] = []
    rows_action: list[int] = []
    active = list(range(len(games)))
    while active:
        # Group this ply's decisions by who makes them: one forward pass per network.
        by_net: dict[int, list[tuple[int, int, View]]] = {}
        moves: dict[int, Move] = {}
        for gi in active:
            g = games[gi]
            mover = g.to_move
            assert mover is not None
            s = mover
            view = g.view(s)
            role = roles[gi][s]
            if role == "self" or role == "snapshot":
                key = -1 if role == "self" else snap_of[gi][s]
                by_net.setdefault(key, []).append((gi, s, view))
            else:
                moves[gi] = bots[gi][s].choose(view)
                if learn and role != "random":
                    rows_x.append(encode_features(view))
                    rows_game.append(gi)
                    rows_seat.append(s)
                    rows_action.append(-1)
            if learn and value_sample > 0 and rng.random() < value_sample:
                other = (s + 1 + int(rng.integers(n - 1))) % n
                if roles[gi][other] != "random":
                    rows_x.append(encode_features(g.view(other)))
                    rows_game.append(gi)
                    rows_seat.append(other)
                    rows_action.append(-1)
        for key, items in by_net.items():
            x = np.empty((len(items), size), np.float32)
            legal = np.empty((len(items), NUM_ABSTRACT), np.bool_)
            for i, (_gi, _s, view) in enumerate(items):
                encode_features(view, x[i])
                legal[i] = abstract_legal(view)
            model = net if key < 0 else snapshots[key]
            acts = _greedy(model.forward(x)[:, 2:], legal)
            if key < 0 and epsilon > 0:
                explore = np.flatnonzero(rng.random(len(items)) < epsilon)
                for j in explore:
                    choices = np.flatnonzero(legal[j])
                    acts[j] = choices[int(rng.integers(len(choices)))]
            for i, (gi, s, view) in enumerate(items):
                a = int(acts[i])
                moves[gi] = abstract_to_move(view, a)
                if learn:
                    rows_x.append(x[i])
                    rows_game.append(gi)
                    rows_seat.append(s)
                    # A forced choice teaches Q nothing; it still teaches the value head.
                    rows_action.append(a if key < 0 and legal[i].sum() > 1 else -1)
        for gi in active:
            games[gi].play(moves[gi])
        active = [gi for gi in active if not games[gi].is_over]
    stats = GameStats()
    for gi, g in enumerate(games):
        scores = g.scores()
        stats.roles.append(tuple(roles[gi]))
        stats.wins.append(rewards_of(scores, g.cat_points(), g.winners(), "win"))
        stats.margins.append(rewards_of(scores, g.cat_points(), g.winners(), "margin"))
    if rows_x:
        x_all = np.stack(rows_x).astype(np.float32)
    else:
        x_all = np.zeros((0, size), np.float32)
    gidx = np.array(rows_game, np.int64)
    sidx = np.array(rows_seat, np.int64)
    wins = np.array(stats.wins, np.float32).reshape(len(games), n)
    margins = np.array(stats.margins, np.float32).reshape(len(games), n)
    batch = Batch(
        x=x_all,
        win=wins[gidx, sidx] if len(gidx) else np.zeros(0, np.float32),
        margin=margins[gidx, sidx] if len(gidx) else np.zeros(0, np.float32),
        action=np.array(rows_action, np.int64),
    )
    return batch, stats
