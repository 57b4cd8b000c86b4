"""A compiled batched engine: :class:`~catsack.envs.vector.VectorGame` stepped by numba kernels.

Needs the optional extra ``fast`` (numba); without it nothing here compiles
and :class:`NumbaVectorGame` raises ``ImportError`` naming the extra. The
numpy :class:`~catsack.envs.vector.VectorGame` stays the dependency-light
default and the reference: :class:`NumbaVectorGame` **is** a VectorGame (same
arrays, same names, same dtypes, same deals for the same seed) whose
:meth:`~NumbaVectorGame.step`, deals, random policies, observations and masks run compiled, one
game after another instead of one array operation after another.
``tests/test_vector_numba.py`` plays the same deals with the same actions on
both, for 3, 4 and 5 seats, and compares every state array, the legal masks,
every seat's observation and the rewards at every ply (and, through
``tests/test_vector.py``, the core engine's games).

Ways in, fastest last:

- :class:`NumbaVectorGame`: a drop-in VectorGame (observations and masks
  compiled too, for a learner's policy); step it from Python.
- :func:`play_games`: self-play or evaluation with a policy per seat, a
  Python callable over observations and masks or a built-in one, batched
  on a NumbaVectorGame.
- :meth:`NumbaVectorGame.play_out`: finish every unfinished game inside the
  kernel with built-in policies (``"uniform"`` random legal actions or
  catsack's ``"random"`` bot), e.g. the rollouts of a search from
  positions loaded with :meth:`~catsack.envs.vector.VectorGame.from_setups`
  and :meth:`~NumbaVectorGame.step`.
- :func:`play_random`: deal and play whole games inside one kernel call.

For learned agents, :meth:`NumbaVectorGame.learn_features` computes each
mover's feature vector (the observation and the facts of
:mod:`catsack.learn.fast_features`, R23) and :meth:`~NumbaVectorGame.abstract_mask`
/ :meth:`~NumbaVectorGame.abstract_to_actions` the 16 abstract actions, all
compiled; ``tests/test_learn_dmc.py`` checks them against the same
functions of a core game's views.

>>> from catsack.envs.vector_numba import play_random
>>> result = play_random(1000, seats=4, seed=1)
>>> result.scores.shape, bool((result.rewards("win").sum(axis=1).round(9) == 1).all())
((1000, 4), True)

Hidden information is as in VectorGame (R23): the arrays hold the whole
truth; a seat gets only :meth:`~catsack.envs.vector.VectorGame.observe` and
:meth:`~catsack.envs.vector.VectorGame.legal_action_mask`. The built-in
policies read only what the mover may know (its hand and money, the phase
and high bid).

Compiled code is cached between processes (``NUMBA_CACHE_DIR`` if set, else
numba's ``__pycache__`` beside the kernels); the first compile takes some
seconds.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final, cast

import numpy as np
import numpy.typing as npt

from catsack.cards import CARDS
from catsack.constants import UP_AFTER_PASSES
from catsack.envs.encoding import (
    NUM_ACTIONS,
    PASS_ACTION,
    REWARD_MODES,
    ObsArray,
    action_to_move,
    move_to_action,
    observation_size,
)
from catsack.envs.vector import BoolArray, IntArray, VectorGame
from catsack.game import LAST_CHOICE, OVER, ROUNDS, Game
from catsack.setup import BANK_START, MOUSE_CARDS, TOTAL_MONEY, Setup, check_seats

__all__ = [
    "NUM_ABSTRACT",
    "POLICIES",
    "NumbaVectorGame",
    "Playouts",
    "Policy",
    "learn_extras_size",
    "learn_feature_size",
    "max_plies",
    "numba_available",
    "play_games",
    "play_random",
]

POLICIES: Final = {"uniform": 0, "random": 1}  # the built-in policies' codes in the kernels
NUM_ABSTRACT: Final = 16  # the learned agents' abstract actions (catsack.learn.fast_features)


def learn_extras_size(seats: int) -> int:
    """How many facts :meth:`NumbaVectorGame.learn_features` adds to the observation (3: 55, 4: 57, 5: 73)."""
    n = check_seats(seats)
    row_len = n + 1 if n == 3 else n
    return 2 * n + 1 + (n - 1) * len(CARDS) + (len(CARDS) if n == 3 else 0) + 4 * row_len + 2


def learn_feature_size(seats: int) -> int:
    """Length of a learned agent's feature vector: the observation and the extra facts (3: 238, 4: 260, 5: 323)."""
    return observation_size(seats) + learn_extras_size(seats)


def numba_available() -> bool:
    """Whether numba is installed (the extra ``fast``)."""
    return importlib.util.find_spec("numba") is not None


def _kernels() -> ModuleType:
    try:
        from catsack.envs import _vector_kernels
    except ImportError as exc:
        raise ImportError(f"the compiled engine needs numba: pip install 'catsack[fast]' ({exc})") from exc
    return _vector_kernels


def max_plies(seats: int) -> int:
    """An upper bound on a game's length: per round every seat places and passes once, bids rise by 1 (R10–R15)."""
    n = check_seats(seats)
    return ROUNDS * (2 * n + TOTAL_MONEY[n] + 1)


def _policy_codes(policies: str | Sequence[str], seats: int) -> IntArray:
    names = [policies] * seats if isinstance(policies, str) else list(policies)
    if len(names) != seats or any(p not in POLICIES for p in names):
        raise ValueError(
            f"policies must be one of {', '.join(POLICIES)} or a list of one per seat ({seats}), not {policies!r}"
        )
    return np.array([POLICIES[p] for p in names], np.int64)


def _seed_state(seed: int | None, rng: np.random.Generator) -> npt.NDArray[np.uint64]:
    """The kernel generator's state word: from ``seed``, or drawn from ``rng`` when it is None."""
    if seed is None:
        return rng.integers(0, 2**64, 1, dtype=np.uint64, endpoint=False)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, not {seed!r}")
    return np.asarray(np.random.SeedSequence(seed).generate_state(1, np.uint64), np.uint64)


class NumbaVectorGame(VectorGame):
    """A :class:`~catsack.envs.vector.VectorGame` whose steps, deals and random policies are compiled.

    Same constructor, arrays, deals (for the same ``seed``), actions,
    observations, rewards and records as VectorGame; see the module docs.
    """

    def __init__(self, num_games: int, seats: int = 4, *, seed: int | None = None) -> None:
        self._k = _kernels()
        n = check_seats(seats)
        up_after = UP_AFTER_PASSES[n]
        pay = [MOUSE_CARDS[n][k] if k < len(MOUSE_CARDS[n]) else 0 for k in range(n)]  # R13
        # The kernels' constants (_vector_kernels: _SEATS .. _UP_AFTER), then R14's reveals and R13's payouts.
        self._cf = np.array(
            [n, n + 1 if n == 3 else n, sum(MOUSE_CARDS[n]), BANK_START[n], n + 1 if n == 3 else n, *up_after, *pay],
            np.int64,
        )
        self._oc: IntArray | None = None  # the observation's layout for the kernel, made on first use
        super().__init__(num_games, seats, seed=seed)
        assert self._cf[1] == self._row_len and self._cf[4] == self._sets  # the numpy engine's own figures

    def _state(self) -> tuple[Any, ...]:
        """The state arrays and constants in the batched kernels' order (``_vector_kernels.STATE_FIELDS``, ``cf``)."""
        return (
            self._hand,
            self._removed,
            self._dummy,
            self._first_start,
            self._money,
            self._bank,
            self._filled,
            self._start,
            self._to_move,
            self._phase,
            self._round,
            self._row,
            self._placed,
            self._up,
            self._high,
            self._hseat,
            self._bids,
            self._passed,
            self._npass,
            self._won,
            self._won_obs,
            self._log,
            self._ply,
            self._cf,
        )

    def legal_action_mask(self) -> BoolArray:
        """``(num_games, 119)``: the legal actions of each game's seat to move (none once over)."""
        mask = np.empty((self.num_games, NUM_ACTIONS), np.bool_)
        self._k.legal_masks(mask, *self._policy_state())
        return mask

    def observe(self, seats: npt.ArrayLike | None = None) -> ObsArray:
        """``(num_games, size)`` float32: each game's observation for one seat (R23), as VectorGame's.

        ``seats`` is one seat for every game or an array with a seat per game;
        by default each game's seat to move (seat 0 in games that are over).
        """
        N = self.num_games
        if seats is None:
            v = np.where(self._phase == OVER, 0, self._to_move)
        else:
            v = np.ascontiguousarray(np.broadcast_to(np.asarray(seats), (N,)), np.int64)
            if ((v < 0) | (v >= self.seats)).any():
                raise ValueError(f"seats must lie in 0..{self.seats - 1}")
        if self._oc is None:
            o = self._o
            fields = [getattr(o, name) for name in self._k.OBS_FIELDS]
            self._oc = np.array([*fields, len(self._cards), self._dummy_seat, *self._cards], np.int64)
        out = np.empty((N, self._o.size), np.float32)
        self._k.observe(v, out, self._oc, self._tm, *self._state())
        return out

    def learn_features(self, seats: npt.ArrayLike | None = None, out: ObsArray | None = None) -> ObsArray:
        """``(num_games, learn_feature_size)`` float32: each game's learned-agent features for one seat (R23).

        The observation (as :meth:`observe`, with the same ``seats``), then the
        facts of :mod:`catsack.learn.fast_features`; ``out`` may be given to
        reuse a buffer.
        """
        N = self.num_games
        if seats is None:
            v = np.where(self._phase == OVER, 0, self._to_move)
        else:
            v = np.ascontiguousarray(np.broadcast_to(np.asarray(seats), (N,)), np.int64)
            if ((v < 0) | (v >= self.seats)).any():
                raise ValueError(f"seats must lie in 0..{self.seats - 1}")
        size = learn_feature_size(self.seats)
        if out is None:
            out = np.empty((N, size), np.float32)
        elif out.shape != (N, size) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape ({N}, {size})")
        if self._oc is None:
            o = self._o
            fields = [getattr(o, name) for name in self._k.OBS_FIELDS]
            self._oc = np.array([*fields, len(self._cards), self._dummy_seat, *self._cards], np.int64)
        self._k.observe(v, out, self._oc, self._tm, *self._state())
        self._k.learn_extras(v, out, self._o.size, self._tm, *self._state())
        return out

    def abstract_mask(self) -> tuple[BoolArray, IntArray]:
        """``(num_games, 16)`` bool: the mover's legal abstract actions, and ``(num_games,)`` how many (0 once over)."""
        mask = np.empty((self.num_games, NUM_ABSTRACT), np.bool_)
        counts = np.empty(self.num_games, np.int64)
        self._k.abstract_masks(mask, counts, *self._policy_state())
        return mask, counts

    def abstract_to_actions(self, abstract: npt.ArrayLike) -> IntArray:
        """The action index each game's abstract action stands for (legal abstract actions assumed; 0 once over)."""
        a = np.ascontiguousarray(abstract, np.int64)
        if a.shape != (self.num_games,) or ((a < 0) | (a >= NUM_ABSTRACT)).any():
            raise ValueError(f"abstract actions must be {self.num_games} integers from 0 to {NUM_ABSTRACT - 1}")
        out = np.empty(self.num_games, np.int64)
        self._k.abstract_actions(a, out, self._money, self._to_move, self._phase, self._high)
        return out

    def _policy_state(self) -> tuple[Any, ...]:
        """What a policy may read: the hands, money, seat to move, phase and high bid (R23)."""
        return self._hand, self._money, self._to_move, self._phase, self._high

    def _deal(self, idx: IntArray, start: IntArray, removed: IntArray, dummy: IntArray) -> None:
        i64 = np.int64
        self._k.deal_many(
            np.ascontiguousarray(idx, i64),
            np.ascontiguousarray(start, i64),
            np.ascontiguousarray(removed, i64),
            np.ascontiguousarray(dummy, i64),
            *self._state(),
        )

    def step(self, actions: npt.ArrayLike, where: npt.ArrayLike | None = None) -> BoolArray:
        """Play one action in every game that is not over; return which games this step finished.

        As :meth:`VectorGame.step <catsack.envs.vector.VectorGame.step>`: if any
        action to play is illegal, nothing is played and ``ValueError`` names
        the first such game, its action and seat.
        """
        N = self.num_games
        a = np.asarray(actions)
        if a.shape != (N,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({N},), got {a.dtype} {a.shape}")
        a = np.ascontiguousarray(a, np.int64)
        sel = np.ones(N, np.bool_) if where is None else np.ascontiguousarray(self._games_where(where))
        if int(self._ply.max()) >= self._log.shape[1]:
            self._grow_log()
        ended = np.empty(N, np.bool_)
        bad, played = self._k.step(a, sel, ended, *self._state())
        if bad >= 0:
            raise ValueError(self._why(int(bad), int(a[bad])))
        self.total_moves += int(played)
        return ended

    def _grow_log(self) -> None:
        self._log = np.concatenate([self._log, np.zeros_like(self._log)], axis=1)

    def random_actions(self, rng: np.random.Generator) -> IntArray:
        """A uniformly random legal action for every game (0 for games that are over).

        The same action VectorGame draws from the same ``rng`` state.
        """
        u = rng.random(self.num_games)
        out = np.empty(self.num_games, np.int64)
        self._k.uniform_actions(u, out, *self._policy_state())
        return out

    def value_bot_actions(self, rng: np.random.Generator) -> IntArray:
        """Every game's move of a compiled value bidder for its seat to move (0 once over), from that seat's view.

        A simpler kin of catsack's ``heuristic`` bot (``_vector_kernels.value_bot_actions``): it bids a
        mouse at a time up to a sampled estimate of the row less the payout for passing, and places its best
        card when it expects to buy, its worst when not (R10-R15). A fixed, honest anchor for self-play leagues.
        """
        rs = rng.integers(0, 2**63, 1, dtype=np.int64).astype(np.uint64)
        out = np.empty(self.num_games, np.int64)
        scratch = np.empty(self._row_len, np.int64)
        self._k.value_bot_actions(rs, out, scratch, *self._state())
        return out

    def persona_actions(self, traits: npt.ArrayLike, u: npt.ArrayLike, where: npt.ArrayLike | None = None) -> IntArray:
        """Every selected game's move of a league persona for its seat to move (0 elsewhere and once over).

        ``traits`` is ``(num_games, seats, NUM_TRAITS)``: each seat's persona (:class:`catsack.bots.personas.Traits`
        values, in ``TRAITS`` order); ``u`` is ``(num_games, NUM_UNIFORMS)`` uniform numbers, the decision's draws.
        The move is :func:`catsack.bots.personas.persona_move` from the mover's view (R23), compiled.
        """
        from catsack.bots.personas import NUM_TRAITS, NUM_UNIFORMS
        from catsack.envs import _persona_kernels as pk

        N = self.num_games
        t = np.ascontiguousarray(traits, np.float64)
        draws = np.ascontiguousarray(u, np.float64)
        if t.shape != (N, self.seats, NUM_TRAITS):
            raise ValueError(f"traits must have the shape ({N}, {self.seats}, {NUM_TRAITS}), not {t.shape}")
        if draws.shape != (N, NUM_UNIFORMS):
            raise ValueError(f"u must have the shape ({N}, {NUM_UNIFORMS}), not {draws.shape}")
        sel = np.ones(N, np.bool_) if where is None else np.ascontiguousarray(self._games_where(where))
        out = np.zeros(N, np.int64)
        masks = np.zeros(pk.MASK_SLOTS, np.int64)
        st = np.zeros((pk.SCRATCH_ROWS, pk.STAT_COLS), np.float64)
        pk.persona_actions(t, draws, sel, out, masks, st, *self._state())
        return out

    def history_arrays(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Fresh arrays for :meth:`track_history`: the round's notes, the game's sums, the sums kept for a sitting."""
        from catsack.envs import history_layout as hl

        N, n = self.num_games, self.seats
        return np.zeros((N, n, 5), np.int64), np.zeros((N, n, hl.NUM_SUMS)), np.zeros((N, n, hl.NUM_SUMS))

    def track_history(
        self,
        actions: npt.ArrayLike,
        notes: npt.NDArray[np.int64],
        sums: npt.NDArray[np.float64],
        kept: npt.NDArray[np.float64],
        where: npt.ArrayLike | None = None,
    ) -> None:
        """Before ``actions`` are played (where ``where``): note them, and add each round that they end to every
        seat's public sums (:mod:`catsack.envs.history_layout`); once the round numbered ``SITTING_ROUNDS`` ends,
        copy the sums to ``kept``. Arrays from :meth:`history_arrays`; zero a game's rows when it is dealt anew."""
        from catsack.envs import _history_kernels as hk

        a = np.ascontiguousarray(actions, np.int64)
        sel = np.ones(self.num_games, np.bool_) if where is None else np.ascontiguousarray(self._games_where(where))
        hk.track(a, sel, notes, sums, kept, *self._state())

    def history_features(
        self,
        out: ObsArray,
        col: int,
        sums: npt.NDArray[np.float64],
        sitting: npt.NDArray[np.float64],
        games: npt.NDArray[np.int64],
        seats: npt.ArrayLike | None = None,
    ) -> None:
        """``out[:, col:]``: each game's history block (:func:`catsack.learn.history.history_block`) for one seat
        (each game's seat to move by default), from the game's ``sums``, the sitting's ``sitting`` and ``games``."""
        from catsack.envs import _history_kernels as hk

        N = self.num_games
        if seats is None:
            v = np.where(self._phase == OVER, 0, self._to_move)
        else:
            v = np.ascontiguousarray(np.broadcast_to(np.asarray(seats), (N,)), np.int64)
        hk.history_features(v, out, col, sums, sitting, np.ascontiguousarray(games, np.int64), *self._state())

    def table_features(
        self,
        out: ObsArray,
        sums: npt.NDArray[np.float64],
        sitting: npt.NDArray[np.float64],
        games: npt.NDArray[np.int64],
        seats: npt.ArrayLike | None = None,
    ) -> ObsArray:
        """``out`` (``(num_games, learn_feature_size + history_size)`` float32, C-contiguous): for one seat per game
        (each game's seat to move by default) its :meth:`learn_features` followed by its history block
        (:meth:`history_features`), written in place: the learned ``expert``'s input
        (:func:`catsack.learn.tablenet.table_features`, R23)."""
        from catsack.envs import _history_kernels as hk
        from catsack.envs.history_layout import history_size

        N = self.num_games
        base = learn_feature_size(self.seats)
        if out.shape != (N, base + history_size(self.seats)) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of {N} rows of table features")
        if seats is None:
            v = np.where(self._phase == OVER, 0, self._to_move)
        else:
            v = np.ascontiguousarray(np.broadcast_to(np.asarray(seats), (N,)), np.int64)
        if self._oc is None:
            o = self._o
            fields = [getattr(o, name) for name in self._k.OBS_FIELDS]
            self._oc = np.array([*fields, len(self._cards), self._dummy_seat, *self._cards], np.int64)
        self._k.observe(v, out, self._oc, self._tm, *self._state())
        self._k.learn_extras(v, out, self._o.size, self._tm, *self._state())
        hk.history_features(v, out, base, sums, sitting, np.ascontiguousarray(games, np.int64), *self._state())
        return out

    def hidden_row_cards(self, seats: npt.ArrayLike | None = None) -> IntArray:
        """``(num_games, row length)``: each row card hidden from one seat (each game's seat to move by default),
        -1 at the other positions. The truth, for training targets: never for a seat (R23)."""
        N = self.num_games
        v = self._to_move if seats is None else np.broadcast_to(np.asarray(seats, np.int64), (N,))
        n = self.seats
        d = 1 if n == 3 else 0
        p = np.arange(self._row_len)[None, :]
        owner = (self._start[:, None] + p - d) % n
        hidden = (p >= d) & (p < self._placed[:, None]) & (p >= self._up[:, None]) & (owner != v[:, None])
        hidden &= (self._phase != OVER)[:, None]
        out: IntArray = np.where(hidden, self._row, -1)
        return out

    def nearest_abstract(self, actions: npt.ArrayLike) -> IntArray:
        """The abstract action (:mod:`catsack.learn.fast_features`) standing for each game's action by its mover, a
        bid between the raise steps going to the nearest step (ties to the smaller raise; R12), -1 once over."""
        a = np.asarray(actions, np.int64)
        N = self.num_games
        rows = np.arange(N)
        high = self._high
        mover = np.where(self._to_move >= 0, self._to_move, 0)
        money = self._money[rows, mover]
        steps = np.array([1, 2, 4, 7], np.int64)
        bids = np.concatenate([high[:, None] + steps[None, :], money[:, None]], axis=1)
        legal = bids <= money[:, None]
        legal[:, 4] &= ~np.isin(money - high, steps)
        gap = np.where(legal, np.abs(bids - (a - PASS_ACTION)[:, None]), 1 << 30)
        out = np.where(a > PASS_ACTION, PASS_ACTION + 1 + np.argmin(gap, axis=1), a)
        out = np.where(self._phase == LAST_CHOICE, np.where(a > PASS_ACTION, PASS_ACTION + 1, PASS_ACTION), out)
        result: IntArray = np.where(self._phase == OVER, -1, out)
        return result

    def _random_bot_choice(self, u: npt.NDArray[np.float64]) -> IntArray:
        out = np.empty(self.num_games, np.int64)
        self._k.random_bot_actions(np.ascontiguousarray(u, np.float64), out, *self._policy_state())
        return out

    @classmethod
    def from_games(cls, games: Sequence[Game]) -> NumbaVectorGame:
        """The positions of core games (same seat count): their deals, then their moves replayed batched.

        For rollouts from positions, e.g. worlds sampled from a seat's view with
        :func:`catsack.belief.sample_game` (repeat a game to roll it out more
        than once), then :meth:`play_out`.
        """
        if not games:
            raise ValueError("from_games needs at least one game")
        vg = cast(NumbaVectorGame, cls.from_setups([g.setup for g in games]))  # from_setups builds a cls
        logs = [[move_to_action(m) for m in g.moves] for g in games]
        lengths = np.array([len(log) for log in logs])
        actions = np.zeros((len(games), int(lengths.max())), np.int64)
        for i, log in enumerate(logs):
            actions[i, : len(log)] = log
        for ply in range(actions.shape[1]):
            vg.step(actions[:, ply], where=ply < lengths)
        return vg

    def play_out(
        self, seed: int | None = None, policies: str | Sequence[str] = "uniform", where: npt.ArrayLike | None = None
    ) -> int:
        """Play every unfinished game (or those where ``where`` is true) to its end inside the kernel.

        ``policies``: ``"uniform"`` (a uniformly random legal action, as
        :meth:`random_actions`), ``"random"`` (catsack's random bot, as
        :meth:`random_bot_actions`), or one of those per seat. ``seed`` seeds
        the kernel's own generator (splitmix64); ``None`` draws it from the
        object's generator. Moves are logged as by :meth:`step` (so
        :meth:`record` works); returns the number of moves played.
        """
        codes = _policy_codes(policies, self.seats)
        sel = np.ones(self.num_games, np.bool_) if where is None else np.ascontiguousarray(self._games_where(where))
        rs = _seed_state(seed, self._rng)
        total = 0
        while True:
            played, full = self._k.play_out(sel, codes, rs, *self._state())
            total += int(played)
            if full < 0:
                break
            self._grow_log()
        self.total_moves += total
        return total


@dataclass(frozen=True)
class Playouts:
    """The outcome of :func:`play_random`: one row per game.

    ``scores`` and ``cat_points`` are ``(num_games, seats)`` (R21), ``plies``
    each game's length. The first ``keep`` games also keep their deal and
    moves (:meth:`setup`, :meth:`actions`, :meth:`to_game`).
    """

    seats: int
    scores: IntArray
    cat_points: IntArray
    plies: IntArray
    kept: IntArray

    def winners(self) -> BoolArray:
        """``(num_games, seats)``: the leaders by score, then cat sum (R22)."""
        key = self.scores * 4096 + self.cat_points  # cat sums lie within ±2047
        won: BoolArray = key == key.max(axis=1, keepdims=True)
        return won

    def rewards(self, mode: str = "margin") -> npt.NDArray[np.float64]:
        """``(num_games, seats)`` terminal rewards (``margin``, ``rank``, ``win``), as VectorGame's."""
        if mode not in REWARD_MODES:
            raise ValueError(f"reward must be one of {', '.join(REWARD_MODES)}, not {mode!r}")
        s = self.scores
        if mode == "margin":
            r: npt.NDArray[np.float64] = s - s.mean(axis=1, keepdims=True)
            return r
        if mode == "rank":
            key = s * 4096 + self.cat_points
            beats = (key[:, :, None] > key[:, None, :]).sum(axis=2)
            beaten = (key[:, :, None] < key[:, None, :]).sum(axis=2)
            rank: npt.NDArray[np.float64] = (beats - beaten) / (self.seats - 1)
            return rank
        w = self.winners()
        win: npt.NDArray[np.float64] = w / w.sum(axis=1, keepdims=True)
        return win

    def _kept_row(self, g: int) -> IntArray:
        if type(g) is not int or not 0 <= g < len(self.kept):
            raise IndexError(f"only the first {len(self.kept)} games were kept (keep=...), not game {g!r}")
        row: IntArray = self.kept[g]
        return row

    def setup(self, g: int) -> Setup:
        """Kept game ``g``'s deal (R7–R9)."""
        row = self._kept_row(g)
        n = self.seats
        dummy = tuple(CARDS[int(c)] for c in row[1 + n : 1 + n + ROUNDS]) if n == 3 else ()
        return Setup(n, int(row[0]), tuple(CARDS[int(c)] for c in row[1 : 1 + n]), dummy)

    def actions(self, g: int) -> list[int]:
        """Kept game ``g``'s actions."""
        row = self._kept_row(g)
        head = 1 + self.seats + ROUNDS
        return [int(a) for a in row[head : head + int(self.plies[g])]]

    def to_game(self, g: int) -> Game:
        """Kept game ``g`` replayed in the core engine."""
        game = Game(self.setup(g))
        for a in self.actions(g):
            game.play(action_to_move(a))
        return game


def play_random(
    num_games: int,
    seats: int = 4,
    *,
    seed: int | None = None,
    policies: str | Sequence[str] = "uniform",
    keep: int = 0,
) -> Playouts:
    """Deal and play ``num_games`` whole games inside one compiled loop, on one core.

    Deals are uniform (R7–R9), drawn like every move from the kernel's
    splitmix64 generator seeded by ``seed`` (``None``: fresh entropy), so one
    seed gives the same games every time. ``policies`` as in
    :meth:`NumbaVectorGame.play_out`. ``keep`` games (the first) keep their
    deal and moves for replay.
    """
    if type(num_games) is not int or num_games < 0:
        raise ValueError(f"num_games must be a non-negative integer, not {num_games!r}")
    if type(keep) is not int or not 0 <= keep <= num_games:
        raise ValueError(f"keep must be an integer from 0 to num_games ({num_games}), not {keep!r}")
    n = check_seats(seats)
    codes = _policy_codes(policies, n)
    lane = NumbaVectorGame(1, n, seed=0)
    rs = _seed_state(seed, np.random.default_rng())  # the generator is drawn from only when seed is None
    scores = np.zeros((num_games, n), np.int64)
    cats = np.zeros((num_games, n), np.int64)
    plies = np.zeros(num_games, np.int64)
    kept = np.zeros((keep, 1 + n + ROUNDS + max_plies(n)), np.int64)
    scratch = np.zeros(20, np.int64)
    lane._k.play_random(num_games, codes, rs, keep, scores, cats, plies, kept, scratch, *lane._state())
    return Playouts(n, scores, cats, plies, kept)


Policy = Callable[[ObsArray, BoolArray], npt.ArrayLike]


def play_games(
    num_games: int,
    seats: int = 4,
    policies: Sequence[str | Policy] | None = None,
    *,
    batch: int = 1024,
    seed: int | None = None,
    keep: int = 0,
) -> Playouts:
    """Play ``num_games`` games, ``batch`` at a time, seat ``s`` by ``policies[s]``; self-play and evaluation.

    A policy is ``"uniform"`` or ``"random"`` (the built-in ones, drawn
    batched from a generator seeded by ``seed``), or a callable
    ``policy(obs, mask) -> actions`` that gets, for the ``k`` games where its
    seat is to move, their observations ``(k, size)`` float32 and legal masks
    ``(k, 119)`` bool (that seat's information only, R23) and returns ``k``
    actions. Finished games are re-dealt until ``num_games`` have been
    played; results come in the order the games ended. An illegal action
    raises ``ValueError`` naming the game, as :meth:`NumbaVectorGame.step`.
    """
    if type(num_games) is not int or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, not {num_games!r}")
    if type(keep) is not int or not 0 <= keep <= num_games:
        raise ValueError(f"keep must be an integer from 0 to num_games ({num_games}), not {keep!r}")
    if type(batch) is not int or batch < 1:
        raise ValueError(f"batch must be a positive integer, not {batch!r}")
    n = check_seats(seats)
    chosen: list[str | Policy] = ["uniform"] * n if policies is None else list(policies)
    if len(chosen) != n or any(isinstance(p, str) and p not in POLICIES for p in chosen):
        raise ValueError(f"policies must list one policy per seat ({n}): {', '.join(POLICIES)} or a callable")
    games = NumbaVectorGame(min(batch, num_games), n, seed=seed)
    rng = np.random.default_rng(seed)
    N = games.num_games
    scores = np.zeros((num_games, n), np.int64)
    cats = np.zeros((num_games, n), np.int64)
    plies = np.zeros(num_games, np.int64)
    head = 1 + n + ROUNDS
    kept = np.zeros((keep, head + max_plies(n)), np.int64)
    started, done = N, 0
    while done < num_games:
        to_move = games.to_move
        obs = games.observe() if any(callable(p) for p in chosen) else None
        mask = games.legal_action_mask()
        actions = np.zeros(N, np.int64)
        for seat, policy in enumerate(chosen):
            mine = to_move == seat
            if not mine.any():
                continue
            if policy == "uniform":
                actions[mine] = games.random_actions(rng)[mine]
            elif policy == "random":
                actions[mine] = games.random_bot_actions(rng)[mine]
            elif callable(policy) and obs is not None:
                picked = np.asarray(policy(obs[mine], mask[mine]))
                if picked.shape != (int(mine.sum()),) or not np.issubdtype(picked.dtype, np.integer):
                    raise ValueError(
                        f"the policy of seat {seat} must return {int(mine.sum())} integer actions, "
                        f"got {picked.dtype} {picked.shape}"
                    )
                actions[mine] = picked
        ended = np.flatnonzero(games.step(actions))
        final = games.scores()
        points = games.cat_points()
        for i in ended.tolist():
            if done == num_games:
                break
            scores[done] = final[i]
            cats[done] = points[i]
            plies[done] = games.ply[i]
            if done < keep:
                setup = games.setup(i)
                moves = games.actions(i)
                kept[done, 0] = setup.start
                kept[done, 1 : 1 + n] = [int(c) for c in setup.removed]
                if n == 3:
                    kept[done, 1 + n : head] = [int(c) for c in setup.dummy]
                kept[done, head : head + len(moves)] = moves
            done += 1
        redeal = ended[: max(0, num_games - started)]
        if len(redeal):
            where = np.zeros(N, np.bool_)
            where[redeal] = True
            games.reset(where)
            started += len(redeal)
    return Playouts(n, scores, cats, plies, kept)
