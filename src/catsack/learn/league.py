"""League play on the compiled engine: a learner against a broad, growing population, thousands of games a CPU-second.

Many games run side by side in one :class:`~catsack.envs.vector_numba.NumbaVectorGame`. Each lane plays a
*sitting*: a few games in a row at one table (:data:`LeagueConfig.sitting`: the chance that a finished game's
table plays another), whose players' public history carries from game to game
(:class:`catsack.learn.history.Sitting`, kept by the compiled tracker). At a sitting's start every seat draws
a role (:data:`ROLES`, weights :attr:`LeagueConfig.roles`), or, with chance :attr:`LeagueConfig.same`, all
the seats but the learner's share one role, network and persona draw (a table of one kind, the way benchmarks
seat a bot among copies of another):

=============  ==================================================================================
role           who plays the seat
=============  ==================================================================================
``learner``    the network being trained, epsilon-greedy in its Q head; its decisions become rows
               (exactly one seat of every game)
``self``       the same network, greedy, recording nothing
``snapshot``   a frozen past copy of the learner (one of the league's networks)
``exploiter``  a network trained to beat a frozen learner, then frozen (PSRO / AlphaStar's exploiters)
``persona``    a parametric opponent (:mod:`catsack.bots.personas`), its traits drawn per sitting and,
               with chance :attr:`LeagueConfig.switch`, anew at each later game of it (a player who
               changes style between games)
``value``      the ``heuristic`` bot's rule (a persona with every trait off)
``random``     catsack's random bot
``fixed``      the shipped ``dmc`` agent (``dmc-v1``), greedy
=============  ==================================================================================

Every network reads :func:`catsack.learn.tablenet.table_features` (the seat's view and the public history,
R23), computed by the engine's kernels. Rows for training: the learner's decisions (features, abstract action,
the seat's final return, and the row cards hidden from it, for the belief head) and, for the opponent model,
a share of the other players' decisions (features and the abstract action nearest their move;
:meth:`~catsack.envs.vector_numba.NumbaVectorGame.nearest_abstract`), random players left out.
All randomness flows from ``rng`` and ``seed``: one generator state gives the same games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.personas import NUM_TRAITS, NUM_UNIFORMS, OFF_SHARE, RANGES, TRAITS
from catsack.envs.vector_numba import NumbaVectorGame
from catsack.learn.fast_features import NUM_ABSTRACT, feature_size
from catsack.learn.mlp import MARGIN_WEIGHT, mixed_return
from catsack.learn.qnet import QNet, greedy
from catsack.learn.tablenet import TableNet, input_size, row_length

__all__ = [
    "BEHAVIOUR_EXCLUDED",
    "ROLES",
    "Behaviour",
    "LeagueConfig",
    "LearnerRows",
    "Results",
    "draw_trait_table",
    "play_league",
    "table_traits",
]

ROLES: Final = ("learner", "self", "snapshot", "exploiter", "persona", "value", "random", "fixed")
# role codes in the lanes' table: the built-in players, then NET + k for the league's network k
LEARNER: Final = 0
PERSONA: Final = 1
VALUE: Final = 2
RANDOM: Final = 3
FIXED: Final = 4
NET: Final = 5
BEHAVIOUR_EXCLUDED: Final = (LEARNER, RANDOM)

DEFAULT_ROLES: Final = {
    "self": 0.1,
    "snapshot": 0.15,
    "exploiter": 0.1,
    "persona": 0.45,
    "value": 0.15,
    "random": 0.02,
    "fixed": 0.03,
}
F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]


@dataclass
class LeagueConfig:
    """Who plays the seats, and how the sittings run."""

    roles: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_ROLES))
    sitting: float = 0.5  # the chance that a finished game's table plays another game (up to MAX_GAMES)
    switch: float = 0.3  # the chance that a persona draws new traits for a sitting's next game
    same: float = 0.5  # the chance that a sitting's other seats share one role and draw (a table of one kind)
    hard: float = 0.0  # the share of tables of one persona whose draw comes from the hard pool (play_league's pool)
    epsilon: float = 0.05
    behaviour: float = 0.25  # the share of the other players' decisions kept for the opponent model
    lanes: int = 1024
    margin_weight: float = MARGIN_WEIGHT  # the margin term of the learner's return (mixed_return)
    hoard: float = 0.0  # the chance that a drawn persona (not the hard pool's) hoards: thrift HOARD_THRIFT .. 1
    opening: float = 0.0  # the share of training games whose round 1 the learner plays by play_league's opener


MAX_GAMES: Final = 5


@dataclass
class LearnerRows:
    """The learner's decisions: features, abstract action, final return, hidden row cards (-1: none), game, seat."""

    x: F32
    action: I64
    ret: F32
    belief: npt.NDArray[np.int8]
    game: I64
    seat: I64

    def __len__(self) -> int:
        return len(self.x)


@dataclass
class Behaviour:
    """Other players' decisions: features and the abstract action nearest their move."""

    x: F32
    action: I64

    def __len__(self) -> int:
        return len(self.x)


@dataclass
class Results:
    """Per game (in the order they started): each seat's role code, win share (R22) and margin (R21)."""

    roles: I64
    win: F32
    margin: F32
    pool: I64 | None = None  # per game, the hard pool's entry its personas came from (-1: none)

    def share(self, code: int) -> tuple[float, int]:
        mine = self.roles == code
        count = int(mine.sum())
        return (float(self.win[mine].mean()) if count else float("nan")), count


#: The league's draw of a trait: off with chance :data:`OFF_SHARE` less :data:`PURE_SHARE`, at an end of its
#: range (``over`` at either end, the others at their most) with chance ``PURE_SHARE``, else uniform over its
#: range. The corners of the space are pure styles (a player who always dumps, always bluffs), and a league
#: that met them only as rarely as uniform draws do learned to bet on tables that never do.
PURE_SHARE: Final = 0.2
#: A hoarder's least ``thrift`` (:attr:`LeagueConfig.hoard`): it spends at most 1 - 0.6 * rounds_left / 8 of its
#: purse on one row, so it keeps most of its mice through the first rounds.
HOARD_THRIFT: Final = 0.6
THRIFT: Final = TRAITS.index("thrift")


def draw_trait_table(rng: np.random.Generator, shape: tuple[int, ...], hoard: float = 0.0) -> npt.NDArray[np.float64]:
    """The league's personas for ``shape`` seats (:data:`PURE_SHARE`; the ``persona`` bot draws as
    :func:`catsack.bots.personas.draw_traits`, without the pure share). With chance ``hoard`` a persona is a
    hoarder: its ``thrift`` is drawn from :data:`HOARD_THRIFT` to 1 whatever its other draws (it saves its mice
    for the late rounds). ``hoard`` 0 draws exactly what it drew before the option existed."""
    lo = np.array([RANGES[t][0] for t in TRAITS])
    hi = np.array([RANGES[t][1] for t in TRAITS])
    u = rng.random((*shape, NUM_TRAITS))
    value = lo + (hi - lo) * rng.random((*shape, NUM_TRAITS))
    end = np.where((lo < 0) & (rng.random((*shape, NUM_TRAITS)) < 0.5), lo, hi)
    out: npt.NDArray[np.float64] = np.where(u < OFF_SHARE - PURE_SHARE, 0.0, np.where(u < OFF_SHARE, end, value))
    if hoard > 0.0:
        hoarder = rng.random(shape) < hoard
        thrift = HOARD_THRIFT + (1.0 - HOARD_THRIFT) * rng.random(shape)
        out[..., THRIFT] = np.where(hoarder, thrift, out[..., THRIFT])
    return out


def table_traits(
    rng: np.random.Generator, one: npt.NDArray[np.bool_], n: int, hoard: float = 0.0
) -> npt.NDArray[np.float64]:
    """Personas for ``len(one)`` tables: each seat its own draw, or where ``one`` one draw for the whole table
    (``hoard``: :func:`draw_trait_table`)."""
    count = len(one)
    own = draw_trait_table(rng, (count, n), hoard)
    shared = np.repeat(draw_trait_table(rng, (count, 1), hoard), n, axis=1)
    out: npt.NDArray[np.float64] = np.where(one[:, None, None], shared, own)
    return out


def _draw_roles(
    rng: np.random.Generator, one: npt.NDArray[np.bool_], n: int, weights: Mapping[str, float], snapshots: int,
    exploiters: int, fixed: bool,
) -> I64:  # fmt: skip
    """Role codes for ``len(one)`` tables: one learner seat each, the others drawn from ``weights``, every seat
    alike where ``one`` (a table of one kind: the same role and network)."""
    count = len(one)
    w = dict(weights)
    if not snapshots:
        w.pop("snapshot", None)
    if not exploiters:
        w.pop("exploiter", None)
    if not fixed:
        w.pop("fixed", None)
    names = [r for r in ROLES if r != "learner" and w.get(r, 0.0) > 0]
    if not names:
        names, probs = ["self"], np.ones(1)
    else:
        probs = np.array([w[r] for r in names], np.float64)
    picks = rng.choice(len(names), size=(count, n), p=probs / probs.sum())
    out = np.zeros((count, n), np.int64)
    for k, name in enumerate(names):
        here = picks == k
        if name == "self":
            out[here] = NET
        elif name == "snapshot":
            out[here] = NET + 1 + rng.integers(0, snapshots, size=int(here.sum()))
        elif name == "exploiter":
            out[here] = NET + 1 + snapshots + rng.integers(0, exploiters, size=int(here.sum()))
        else:
            out[here] = {"persona": PERSONA, "value": VALUE, "random": RANDOM, "fixed": FIXED}[name]
    out[one] = out[one][:, :1]
    out[np.arange(count), rng.integers(0, n, size=count)] = LEARNER
    return out


def play_league(
    seats: int,
    games: int,
    learner: TableNet,
    snapshots: Sequence[TableNet],
    exploiters: Sequence[TableNet],
    *,
    config: LeagueConfig,
    rng: np.random.Generator,
    seed: int,
    fixed: QNet | None = None,
    opener: QNet | None = None,
    roles: I64 | None = None,
    record: bool = True,
    pool: npt.NDArray[np.float64] | None = None,
    pool_weights: npt.NDArray[np.float64] | None = None,
) -> tuple[LearnerRows, Behaviour, Results]:
    """Play ``games`` league games; ``roles`` (``(games, seats)`` codes) fixes the tables instead of drawing them
    (evaluation: sittings off then). Returns the learner's rows, the others' decisions and every game's results.

    ``pool`` (``(K, NUM_TRAITS)``) with ``pool_weights`` is a hard pool of personas: a share
    :attr:`LeagueConfig.hard` of the tables of one persona draw their traits from it, entry ``k`` with chance
    ``pool_weights[k]`` (the trainer weighs the entries the learner does worst against most: prioritised
    fictitious self-play), and the results say which games did (:attr:`Results.pool`).

    ``opener`` (a network on the ``dmc`` features, e.g. a clone of the classic expert's round 1,
    :mod:`catsack.learn.clone`) plays the learner's round 1 (R10–R20) in a share :attr:`LeagueConfig.opening` of
    the games at drawn tables, greedily; those decisions are the learner's rows like any other, so its Q head
    learns what the opener's moves are worth with its own play after them (off-policy exploration in round 1)."""
    lanes = _Lanes(seats, games, [learner, *snapshots, *exploiters], len(snapshots), len(exploiters), config=config,
                   rng=rng, seed=seed, fixed=fixed, opener=opener, roles=roles, pool=pool,
                   pool_weights=pool_weights)  # fmt: skip
    while lanes.live.any():
        lanes.step(lanes.decide(record))
    learner_rows = lanes.rows.learner(lanes.win, lanes.margin, seats, config.margin_weight)
    return learner_rows, lanes.rows.behaviour(seats), lanes.results()


@dataclass
class _Rows:
    """What :func:`play_league` keeps for training, batch by batch: the learner's decisions (features, action,
    hidden row cards, game, seat) and the other players' (features, nearest abstract action)."""

    x: list[F32] = field(default_factory=list)
    action: list[I64] = field(default_factory=list)
    belief: list[npt.NDArray[np.int8]] = field(default_factory=list)
    game: list[I64] = field(default_factory=list)
    seat: list[I64] = field(default_factory=list)
    behaviour_x: list[F32] = field(default_factory=list)
    behaviour_action: list[I64] = field(default_factory=list)

    def learner(self, win: F32, margin: F32, n: int, weight: float = MARGIN_WEIGHT) -> LearnerRows:
        """The learner's rows, each with its seat's final return in its game (margin term ``weight``)."""
        if not self.x:
            z = np.zeros(0, np.int64)
            empty = np.zeros((0, input_size(n)), np.float32)
            return LearnerRows(empty, z, np.zeros(0, np.float32), np.zeros((0, row_length(n)), np.int8), z, z)
        g, s = np.concatenate(self.game), np.concatenate(self.seat)
        x, a, b = np.concatenate(self.x), np.concatenate(self.action), np.concatenate(self.belief)
        return LearnerRows(x, a, mixed_return(win[g, s], margin[g, s], weight), b, g, s)

    def behaviour(self, n: int) -> Behaviour:
        if not self.behaviour_x:
            return Behaviour(np.zeros((0, input_size(n)), np.float32), np.zeros(0, np.int64))
        return Behaviour(np.concatenate(self.behaviour_x), np.concatenate(self.behaviour_action))


class _Lanes:
    """:func:`play_league`'s games side by side: each lane's table (role codes, personas, hard-pool entry), its
    sitting (public history carried from game to game, games played), the game it plays, and the results."""

    def __init__(
        self,
        n: int,
        games: int,
        nets: list[TableNet],
        snapshots: int,
        exploiters: int,
        *,
        config: LeagueConfig,
        rng: np.random.Generator,
        seed: int,
        fixed: QNet | None,
        opener: QNet | None,
        roles: I64 | None,
        pool: npt.NDArray[np.float64] | None,
        pool_weights: npt.NDArray[np.float64] | None,
    ) -> None:
        self.n, self.games, self.nets, self.config, self.rng, self.fixed = n, games, nets, config, rng, fixed
        self.counts = (snapshots, exploiters)
        self.roles = None if roles is None else np.asarray(roles, np.int64)
        self.pool, self.pool_weights = pool, pool_weights
        N = self.N = min(config.lanes, games)
        self.vg = NumbaVectorGame(N, n, seed=seed)
        self.notes, self.sums, self.kept = self.vg.history_arrays()
        self.sitting = np.zeros_like(self.sums)
        self.played = np.zeros(N, np.int64)  # the sitting's games before this one
        self.kind_one = rng.random(N) < config.same  # tables of one kind
        self.table = self._draw(self.kind_one) if self.roles is None else self.roles[:N].copy()
        drawn = table_traits(rng, self.kind_one, n, config.hoard)
        self.traits = np.where((self.table == VALUE)[:, :, None], 0.0, drawn)
        self.pool_of = np.full(N, -1, np.int64)
        self._from_pool(np.arange(N))
        self.lane_game = np.arange(N, dtype=np.int64)
        self.game_roles = np.zeros((games, n), np.int64)
        self.game_roles[:N] = self.table
        self.game_pool = np.full(games, -1, np.int64)
        self.game_pool[:N] = self.pool_of
        self.started = N
        self.x = np.zeros((N, input_size(n)), np.float32)
        self.win = np.zeros((games, n), np.float32)
        self.margin = np.zeros((games, n), np.float32)
        self.live = np.ones(N, np.bool_)
        self.sitting_on = self.roles is None and config.sitting > 0
        self.opener = opener if self.roles is None and config.opening > 0 else None
        self.guided = np.zeros(N, np.bool_)  # the lanes whose round 1 the opener plays
        self._guide(np.arange(N))
        self.rows = _Rows()

    def _guide(self, lanes: I64) -> None:
        if self.opener is not None:
            self.guided[lanes] = self.rng.random(len(lanes)) < self.config.opening

    def _draw(self, one: npt.NDArray[np.bool_]) -> I64:
        snapshots, exploiters = self.counts
        return _draw_roles(self.rng, one, self.n, self.config.roles, snapshots, exploiters, self.fixed is not None)

    def _from_pool(self, lanes: I64) -> None:
        _from_pool(self.rng, lanes, self.kind_one, self.table, self.traits, self.pool_of, self.pool,
                   self.pool_weights, self.config.hard)  # fmt: skip

    def results(self) -> Results:
        return Results(self.game_roles, self.win, self.margin, self.game_pool)

    # ------------------------------------------------------------------ one decision in every lane

    def decide(self, record: bool) -> I64:
        """Every live lane's move: the networks' (the learner's epsilon-greedy, recorded), the fixed agent's, the
        personas' and the random bot's; a share of the others' decisions recorded for the opponent model."""
        vg, rng, live, N = self.vg, self.rng, self.live, self.N
        vg.table_features(self.x, self.sums, self.sitting, self.played)
        mask, counts = vg.abstract_mask()
        mover = np.where(live, vg.to_move, 0)
        who = self.table[np.arange(N), mover]
        choice = live & (counts > 1)
        abstract = np.argmax(mask, axis=1)
        self._network_moves(abstract, mask, choice, who, mover, record)
        fixed_idx = np.flatnonzero(choice & (who == FIXED))
        if self.fixed is not None and len(fixed_idx):
            abstract[fixed_idx] = greedy(self.fixed.forward(self.x[fixed_idx, : feature_size(self.n)]), mask[fixed_idx])
        actions: I64 = vg.abstract_to_actions(abstract)
        persona = live & ((who == PERSONA) | (who == VALUE))  # a value bidder: a persona with every trait off
        if persona.any():
            u = rng.random((N, NUM_UNIFORMS))
            actions = np.where(persona, vg.persona_actions(self.traits, u, where=persona), actions)
        rand = live & (who == RANDOM)
        if rand.any():
            actions = np.where(rand, vg.random_bot_actions(rng), actions)
        if record and self.config.behaviour > 0:
            keep = choice & ~np.isin(who, BEHAVIOUR_EXCLUDED) & (rng.random(N) < self.config.behaviour)
            if keep.any():
                idx = np.flatnonzero(keep)
                self.rows.behaviour_x.append(self.x[idx].copy())
                self.rows.behaviour_action.append(vg.nearest_abstract(actions)[idx])  # (cheap: a few array operations)
        return actions

    def _network_moves(self, abstract: I64, mask: npt.NDArray[np.bool_], choice: npt.NDArray[np.bool_], who: I64,
                       mover: I64, record: bool) -> None:  # fmt: skip
        """The networks' abstract actions where they have a choice, the learner's explored and recorded."""
        config, rng, x = self.config, self.rng, self.x
        for k in np.unique(who[choice & ((who >= NET) | (who == LEARNER))]).tolist():
            idx = np.flatnonzero(choice & (who == k))
            net = self.nets[0] if k == LEARNER else self.nets[k - NET]
            m = mask[idx]
            a = greedy(net.q(x[idx]), m)
            if k == LEARNER:
                if config.epsilon > 0:
                    explore = np.flatnonzero(rng.random(len(idx)) < config.epsilon)
                    if len(explore):
                        keys = rng.random((len(explore), NUM_ABSTRACT)) * m[explore]
                        a[explore] = np.argmax(keys, axis=1)
                if self.opener is not None:
                    opened = np.flatnonzero(self.guided[idx] & (self.vg.round[idx] == 1))
                    if len(opened):
                        dmc_x = x[idx[opened], : feature_size(self.n)]  # the opener reads the dmc features alone
                        a[opened] = greedy(self.opener.forward(dmc_x), m[opened])
                if record:
                    self.rows.x.append(x[idx].copy())
                    self.rows.action.append(a)
                    self.rows.belief.append(self.vg.hidden_row_cards()[idx].astype(np.int8))
                    self.rows.game.append(self.lane_game[idx])
                    self.rows.seat.append(mover[idx])
            abstract[idx] = a

    # ------------------------------------------------------------------ moves played, games that ended

    def step(self, actions: I64) -> None:
        """Play ``actions`` in every live lane (the public history tracked), then see to the games that ended."""
        self.vg.track_history(actions, self.notes, self.sums, self.kept, where=self.live)
        ended = self.vg.step(actions, where=self.live)
        if ended.any():
            self.end_games(np.flatnonzero(ended))

    def end_games(self, idx: I64) -> None:
        """Score the games of lanes ``idx`` (R21, R22) and deal the next ones while games remain: a sitting's next
        game at the same table, or a new table."""
        vg = self.vg
        done = self.lane_game[idx]
        scores = vg.scores()[idx]
        key = scores * 4096 + vg.cat_points()[idx]  # R22: score, then cat points; the tied share the win
        best = key == key.max(axis=1, keepdims=True)
        self.win[done] = best / best.sum(axis=1, keepdims=True)
        self.margin[done] = scores - scores.mean(axis=1, keepdims=True)
        fresh = idx[: max(0, self.games - self.started)]
        self.live[idx[len(fresh) :]] = False
        if not len(fresh):
            return
        redeal = np.zeros(self.N, np.bool_)
        redeal[fresh] = True
        vg.reset(redeal)
        go_on = np.zeros(len(fresh), np.bool_)
        if self.sitting_on:
            go_on = (self.rng.random(len(fresh)) < self.config.sitting) & (self.played[fresh] + 1 < MAX_GAMES)
        cont, new = fresh[go_on], fresh[~go_on]
        self._guide(fresh)
        self._sittings_go_on(cont)
        self._new_sittings(new)
        self.traits[fresh] = np.where((self.table[fresh] == VALUE)[:, :, None], 0.0, self.traits[fresh])
        for arr in (self.notes, self.sums, self.kept):
            arr[fresh] = 0
        order = np.concatenate([cont, new])
        started = self.started
        self.lane_game[order] = np.arange(started, started + len(order))
        self.game_roles[started : started + len(order)] = self.table[order]
        self.game_pool[started : started + len(order)] = self.pool_of[order]
        self.started += len(order)

    def _sittings_go_on(self, cont: I64) -> None:
        """Lanes ``cont`` play their sitting's next game: the history carries over, a persona may change style."""
        self.sitting[cont] += self.kept[cont]
        self.played[cont] += 1
        switch = self.rng.random((len(cont), self.n)) < self.config.switch
        switch[self.kind_one[cont]] = switch[self.kind_one[cont]][:, :1]  # a table of one kind changes style as one
        redrawn = table_traits(self.rng, self.kind_one[cont], self.n, self.config.hoard)
        self.traits[cont] = np.where(switch[:, :, None], redrawn, self.traits[cont])
        self.pool_of[cont[switch.any(axis=1)]] = -1

    def _new_sittings(self, new: I64) -> None:
        """Lanes ``new`` start a sitting at a new table: roles, personas and hard-pool draws afresh."""
        self.sitting[new] = 0.0
        self.played[new] = 0
        if not len(new):
            return
        rng = self.rng
        self.kind_one[new] = rng.random(len(new)) < self.config.same
        if self.roles is None:
            self.table[new] = self._draw(self.kind_one[new])
        else:
            self.table[new] = self.roles[self.started : self.started + len(new)]
        self.traits[new] = table_traits(rng, self.kind_one[new], self.n, self.config.hoard)
        self.pool_of[new] = -1
        self._from_pool(new)


def _from_pool(
    rng: np.random.Generator,
    lanes: I64,
    kind_one: npt.NDArray[np.bool_],
    table: I64,
    traits: npt.NDArray[np.float64],
    pool_of: I64,
    pool: npt.NDArray[np.float64] | None,
    weights: npt.NDArray[np.float64] | None,
    share: float,
) -> None:
    """Give a share of ``lanes``' tables of one persona their traits from the hard pool (see :func:`play_league`)."""
    if pool is None or weights is None or share <= 0 or not len(lanes):
        return
    persona = (table[lanes] == PERSONA) | (table[lanes] == LEARNER)
    eligible = lanes[kind_one[lanes] & persona.all(axis=1) & (rng.random(len(lanes)) < share)]
    if not len(eligible):
        return
    picks = rng.choice(len(pool), size=len(eligible), p=weights / weights.sum())
    traits[eligible] = pool[picks][:, None, :]
    pool_of[eligible] = picks
