"""A learner against catsack's own bots (``expert``, ``heuristic``, ...): core games, the learner's decisions batched.

For training against players the compiled engine cannot run (search bots
written in Python). Each game seats the learner (a :class:`~catsack.learn.qnet.QNet`,
epsilon-greedy) in ``learner_seats[g]`` and a bot made from a spec in every
other seat; every player decides from its own view (R23), the learner from
:func:`~catsack.learn.fast_features.view_features` of it. The games advance
side by side so that the learner's decisions of one step make one forward
pass. Rows and results are as :func:`catsack.learn.fast_selfplay.play`'s.

With ``record_opponents``, the bots' own decisions come back too, as
behaviour-cloning rows (:class:`OpponentRows`: the bot's features, legal
abstract actions and the abstract action nearest its move), the data of
:mod:`catsack.learn.clone`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from catsack.bots.base import Bot, make_bot
from catsack.envs.encoding import game_rewards
from catsack.game import Game
from catsack.learn.fast_features import (
    NUM_ABSTRACT,
    abstract_legal,
    abstract_to_move,
    feature_size,
    nearest_abstract,
    view_features,
)
from catsack.learn.fast_selfplay import GameResults, Rows
from catsack.learn.mlp import mixed_return
from catsack.learn.qnet import QNet, greedy

__all__ = ["OpponentRows", "play_vs_bots"]

F32 = npt.NDArray[np.float32]


@dataclass
class OpponentRows:
    """The bots' decisions with a choice: features, legal abstract actions, the abstract action of the move."""

    x: F32
    legal: npt.NDArray[np.bool_]
    action: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.x)


def play_vs_bots(
    seats: int,
    net: QNet,
    opponents: Sequence[str],
    learner_seats: Sequence[int],
    *,
    rng: np.random.Generator,
    epsilon: float = 0.05,
    record_opponents: list[OpponentRows] | None = None,
    record_specs: int | None = None,
    rounds: int | None = None,
    hide_kinds: bool = False,
) -> tuple[Rows, GameResults]:
    """Play one game per entry of ``learner_seats``: the learner there, bots of ``opponents`` (cycled) elsewhere.

    The roles in the results are 0 for the learner and ``1 + k`` for ``opponents[k]``. With ``record_specs`` only
    the decisions of the first ``record_specs`` specs' bots are recorded. With ``rounds`` every game stops when its
    round ``rounds`` ends (for recording the bots' openings): the learner's rows then carry a return of 0 and the
    results are zeros, since no game was scored. With ``hide_kinds`` the bots meet players of no kind (``Bot.meet``
    gets ``None`` for every seat), as at a table of people.
    """
    n = seats
    num_games = len(learner_seats)
    if num_games < 1 or not opponents:
        raise ValueError("play_vs_bots needs at least one game and one opponent spec")
    size = feature_size(n)
    games = [Game.new(n, seed=int(k)) for k in rng.integers(0, 2**62, num_games)]
    roles = np.zeros((num_games, n), np.int64)
    bots: list[dict[int, Bot]] = []
    kinds = len(opponents) if record_specs is None else record_specs
    for g, me in enumerate(learner_seats):
        made: dict[int, Bot] = {}
        names: list[str | None] = []
        k = 0
        for s in range(n):
            if s == me:
                names.append("dmc")
                continue
            spec = opponents[k % len(opponents)]
            roles[g, s] = 1 + k % len(opponents)
            k += 1
            bot = make_bot(spec, seed=int(rng.integers(0, 2**31)))
            bot.reset(s, n)
            made[s] = bot
            names.append(bot.name)
        for bot in made.values():
            bot.meet([None] * n if hide_kinds else names)
        bots.append(made)
    recorded = (roles >= 1) & (roles <= kinds)
    rows_x: list[F32] = []
    rows_a: list[int] = []
    rows_g: list[int] = []
    opp_x: list[F32] = []
    opp_legal: list[npt.NDArray[np.bool_]] = []
    opp_a: list[int] = []
    active = list(range(num_games))
    while active:
        waiting: list[tuple[int, int]] = []
        for gi in active:
            game = games[gi]
            mover = game.to_move
            assert mover is not None
            if mover == learner_seats[gi]:
                waiting.append((gi, mover))
                continue
            view = game.view(mover)
            move = bots[gi][mover].choose(view)
            if record_opponents is not None and len(view.legal) > 1 and recorded[gi, mover]:
                legal = abstract_legal(view)
                if legal.sum() > 1:
                    opp_x.append(view_features(view))
                    opp_legal.append(legal)
                    opp_a.append(nearest_abstract(view, move))
            game.play(move)
        if waiting:
            views = [games[gi].view(s) for gi, s in waiting]
            x = np.empty((len(views), size), np.float32)
            legal = np.empty((len(views), NUM_ABSTRACT), np.bool_)
            for i, v in enumerate(views):
                view_features(v, x[i])
                legal[i] = abstract_legal(v)
            acts = greedy(net.forward(x), legal)
            for i, ((gi, _s), v) in enumerate(zip(waiting, views, strict=True)):
                choices = np.flatnonzero(legal[i])
                if len(choices) > 1:
                    if epsilon > 0 and rng.random() < epsilon:
                        acts[i] = choices[int(rng.integers(len(choices)))]
                    rows_x.append(x[i])
                    rows_a.append(int(acts[i]))
                    rows_g.append(gi)
                games[gi].play(abstract_to_move(v, int(acts[i])))
        active = [gi for gi in active if not games[gi].is_over and (rounds is None or games[gi].round <= rounds)]
    if rounds is None:
        win = np.array([game_rewards(g, "win") for g in games], np.float32)
        margin = np.array([game_rewards(g, "margin") for g in games], np.float32)
    else:
        win = margin = np.zeros((num_games, n), np.float32)
    plies = np.array([len(g.moves) for g in games], np.int64)
    gx = np.array(rows_g, np.int64)
    sx = np.asarray(learner_seats, np.int64)[gx]
    rows = Rows(
        np.stack(rows_x) if rows_x else np.zeros((0, size), np.float32),
        np.array(rows_a, np.int64),
        mixed_return(win[gx, sx], margin[gx, sx]) if len(gx) else np.zeros(0, np.float32),
        gx,
        sx,
    )
    if record_opponents is not None and opp_x:
        record_opponents.append(OpponentRows(np.stack(opp_x), np.stack(opp_legal), np.array(opp_a, np.int64)))
    return rows, GameResults(roles, win, margin, plies)
