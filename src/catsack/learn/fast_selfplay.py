"""Batched self-play on the compiled engine, the networks' decisions batched: thousands of games a CPU-second.

Many games run side by side in one :class:`~catsack.envs.vector_numba.NumbaVectorGame`
(its lanes; a finished game's lane is dealt the next game). At every step
each lane's seat to move decides:

- a **network** player (a :class:`~catsack.learn.qnet.QNet`) reads the
  mover's features (:meth:`~catsack.envs.vector_numba.NumbaVectorGame.learn_features`,
  compiled, the same numbers :func:`catsack.learn.fast_features.view_features`
  computes from the seat's view, R23) and plays its greedy legal abstract
  action; all the lanes where one network is to move make one forward pass;
- a **learner** (a network player named in ``learners``) explores:
  epsilon-greedy over the legal abstract actions, and every decision with a
  choice becomes a training row (its features and action; its target, the
  seat's final return, is filled in when the game ends: Deep Monte Carlo);
- ``"random"`` plays catsack's random bot, compiled; ``"value"`` a compiled
  value bidder (:meth:`~catsack.envs.vector_numba.NumbaVectorGame.value_bot_actions`,
  a simpler kin of the ``heuristic`` bot), the league's honest anchor.

A decision with one legal abstract action needs no network. Randomness:
the deals come from the engine's generator (``seed``), exploration and the
random bot from ``rng``; one seed and one generator state give the same
games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.envs.vector_numba import NumbaVectorGame
from catsack.learn.fast_features import NUM_ABSTRACT, feature_size
from catsack.learn.mlp import mixed_return
from catsack.learn.qnet import QNet, greedy

__all__ = ["BUILT_IN", "RANDOM", "VALUE", "GameResults", "Rows", "play"]

RANDOM: Final = "random"
VALUE: Final = "value"
BUILT_IN: Final = (RANDOM, VALUE)

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
Player = QNet | str


@dataclass
class Rows:
    """Training rows of the learners: features, abstract action, the final return, and the game and seat."""

    x: F32
    action: I64
    ret: F32
    game: I64
    seat: I64

    def __len__(self) -> int:
        return len(self.x)


@dataclass
class GameResults:
    """Per game, in the order of ``roles``: each seat's final win share (R22) and margin (R21)."""

    roles: I64
    win: F32
    margin: F32
    plies: I64

    def share(self, player: int) -> tuple[float, int]:
        """Mean win share of the seats ``player`` held, and how many seats that was."""
        mine = self.roles == player
        count = int(mine.sum())
        return (float(self.win[mine].mean()) if count else float("nan")), count


def play(
    seats: int,
    roles: npt.ArrayLike,
    players: Sequence[Player],
    *,
    learners: Sequence[int] = (0,),
    samplers: Sequence[int] = (),
    epsilon: float = 0.05,
    rng: np.random.Generator,
    seed: int,
    lanes: int = 1024,
) -> tuple[Rows, GameResults]:
    """Play one game per row of ``roles`` (``(games, seats)`` indices into ``players``) to the end.

    Network players in ``samplers`` draw their move from the softmax of their outputs over the legal
    actions instead of taking the best (a behaviour clone's way of playing, :mod:`catsack.learn.clone`).
    """
    n = seats
    role = np.asarray(roles, np.int64)
    num_games = len(role)
    if role.ndim != 2 or role.shape[1] != n or num_games < 1:
        raise ValueError(f"roles must be a (games, {n}) array of player indices")
    if role.min() < 0 or role.max() >= len(players):
        raise ValueError(f"roles must index the {len(players)} players")
    for p in players:
        if isinstance(p, str) and p not in BUILT_IN:
            raise ValueError(f"a player is a QNet or one of {', '.join(BUILT_IN)}, not {p!r}")
    learner = np.zeros(len(players), np.bool_)
    learner[list(learners)] = True
    sampler = np.zeros(len(players), np.bool_)
    sampler[list(samplers)] = True
    size = feature_size(n)
    N = min(lanes, num_games)
    games = NumbaVectorGame(N, n, seed=seed)
    lane_game = np.arange(N, dtype=np.int64)  # the game each lane plays
    started = N
    x = np.empty((N, size), np.float32)
    win = np.zeros((num_games, n), np.float32)
    margin = np.zeros((num_games, n), np.float32)
    plies = np.zeros(num_games, np.int64)
    rows_x: list[F32] = []
    rows_a: list[I64] = []
    rows_g: list[I64] = []
    rows_s: list[I64] = []
    live = np.ones(N, np.bool_)
    net_players = [k for k, p in enumerate(players) if isinstance(p, QNet)]
    random_ids = [k for k, p in enumerate(players) if p == RANDOM]
    value_ids = [k for k, p in enumerate(players) if p == VALUE]
    while live.any():
        games.learn_features(out=x)
        mask, counts = games.abstract_mask()
        mover = games.to_move
        who = role[lane_game, mover]
        choice = live & (counts > 1)
        abstract = np.argmax(mask, axis=1)  # the only legal action where there is one (0 in finished lanes)
        for k in net_players:
            idx = np.flatnonzero(choice & (who == k))
            if not len(idx):
                continue
            net = players[k]
            assert isinstance(net, QNet)
            m = mask[idx]
            out = net.forward(x[idx])
            if sampler[k]:
                z = np.where(m, out, -np.inf)
                p = np.exp(z - z.max(axis=1, keepdims=True))
                c = np.cumsum(p, axis=1)
                u = rng.random(len(idx))[:, None] * c[:, -1:]
                a = np.minimum(np.argmax(c > u, axis=1), NUM_ABSTRACT - 1)
            else:
                a = greedy(out, m)
            if learner[k]:
                if epsilon > 0:
                    explore = np.flatnonzero(rng.random(len(idx)) < epsilon)
                    if len(explore):
                        # A uniform legal action: the legal entry of largest uniform key.
                        keys = rng.random((len(explore), NUM_ABSTRACT)) * m[explore]
                        a[explore] = np.argmax(keys, axis=1)
                rows_x.append(x[idx].copy())
                rows_a.append(a)
                rows_g.append(lane_game[idx])
                rows_s.append(mover[idx])
            abstract[idx] = a
        actions = games.abstract_to_actions(abstract)
        for ids, moves in ((random_ids, games.random_bot_actions), (value_ids, games.value_bot_actions)):
            if ids:
                theirs = live & np.isin(who, ids)
                if theirs.any():
                    actions = np.where(theirs, moves(rng), actions)
        ended = games.step(actions, where=live)
        if ended.any():
            idx = np.flatnonzero(ended)
            done = lane_game[idx]
            win[done] = games.rewards("win")[idx]
            margin[done] = games.rewards("margin")[idx]
            plies[done] = games.ply[idx]
            fresh = min(len(idx), num_games - started)
            if fresh:
                redeal = np.zeros(N, np.bool_)
                redeal[idx[:fresh]] = True
                games.reset(redeal)
                lane_game[idx[:fresh]] = np.arange(started, started + fresh)
                started += fresh
            live[idx[fresh:]] = False
    if rows_x:
        gx = np.concatenate(rows_g)
        sx = np.concatenate(rows_s)
        rows = Rows(
            np.concatenate(rows_x),
            np.concatenate(rows_a),
            mixed_return(win[gx, sx], margin[gx, sx]),
            gx,
            sx,
        )
    else:
        rows = Rows(
            np.zeros((0, size), np.float32),
            np.zeros(0, np.int64),
            np.zeros(0, np.float32),
            np.zeros(0, np.int64),
            np.zeros(0, np.int64),
        )
    return rows, GameResults(role, win, margin, plies)
