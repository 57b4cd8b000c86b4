"""Reading the players at the table: which model of each other player its public bids and passes fit.

The learned ``expert``'s search (:func:`catsack.learn.agent.search`) plays its worlds with a model of every other
player. The behaviour head (the network's model of a player, from that player's own view) reads the players the
league trained it on well, and reads a player whose style it has not met only once that player's history shows
it: a player who saves its mice lets rows go in the first rounds far more often than the head expects. The
league's personas (:mod:`catsack.bots.personas`) are the other way round. This module weighs them per player.

:func:`read_players` deals a few of the search's worlds and replays the game so far in each (the hidden
placements as that world deals them, R23), and at every bid or pass of another player with a choice (R12, R13)
asks each candidate model how likely that move was from that player's view of the world: the behaviour head,
and ``personas`` persona draws (each estimated from ``samples`` draws of its decision's random numbers). A
player's likelihood under a model is its product over the player's moves, averaged over the worlds; with a prior
(``head`` for the behaviour head, the rest shared by the personas) that gives a posterior per player
(:class:`Reading`). Placements are left out: every placement is face down (R10), and the card a world deals
there was drawn from the belief head, so its likelihood would count the same evidence twice.

:meth:`Reading.assign` then gives each of the search's lanes a model per player, drawn from that player's
posterior, so a player whose moves only the personas explain is played by them and one the head reads well
by the head. With no moves seen yet the posterior is the prior.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.personas import NUM_TRAITS, NUM_UNIFORMS
from catsack.envs.encoding import move_to_action
from catsack.envs.vector_numba import NumbaVectorGame
from catsack.learn.history import Sitting
from catsack.learn.league import draw_trait_table
from catsack.learn.tablenet import TableNet, input_size, softmax
from catsack.moves import PLACE, parse_move
from catsack.setup import Setup
from catsack.view import HIDDEN_PLACE, View

__all__ = [
    "HEAD",
    "PERSONAS",
    "SAMPLES",
    "SMOOTH",
    "WORLDS",
    "Reading",
    "read_players",
]

HEAD: Final = 0.5  # the behaviour head's prior weight; the personas share the rest
PERSONAS: Final = 8  # persona draws weighed against the head
SAMPLES: Final = 8  # draws of a persona's random numbers per move, to estimate its chance
WORLDS: Final = 8  # worlds the game so far is replayed in
SMOOTH: Final = 0.1  # each model's chance of a move is mixed with a uniform choice among the legal abstract actions

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Reading:
    """Per seat the posterior over its models: column 0 the behaviour head, column ``1 + k`` the persona
    ``traits[k]``; the bot's own row is the prior. ``moves`` counts the moves each seat's posterior rests on and
    ``loglik`` (the same shape as ``posterior``) is their log-likelihood under each model, averaged over the
    worlds."""

    traits: F64  # (personas, NUM_TRAITS)
    posterior: F64  # (seats, 1 + personas)
    moves: tuple[int, ...]
    loglik: F64

    def assign(self, rng: np.random.Generator, lanes: int) -> tuple[F64, BoolArray]:
        """For ``lanes`` worlds of the search, each seat's model drawn from its posterior: the persona traits
        ``(lanes, seats, NUM_TRAITS)`` and where a persona plays ``(lanes, seats)`` (elsewhere the head)."""
        seats = self.posterior.shape[0]
        c = np.cumsum(self.posterior, axis=1)
        u = rng.random((lanes, seats))[..., None] * c[None, :, -1:]
        pick = np.minimum(np.argmax(c[None, :, :] > u, axis=2), self.posterior.shape[1] - 1)
        persona = pick > 0
        traits = np.where(persona[..., None], self.traits[np.maximum(pick - 1, 0)], 0.0)
        return traits, persona

    @property
    def head(self) -> tuple[float, ...]:
        """Each seat's posterior weight on the behaviour head."""
        return tuple(float(v) for v in self.posterior[:, 0])


@dataclass
class _Replay:
    """The game so far replayed in a few worlds (``vg``), and in ``samples`` copies of each world per persona
    (``sim``), with the public history the behaviour head reads (the arrays of
    :meth:`~NumbaVectorGame.track_history`)."""

    vg: NumbaVectorGame
    sim: NumbaVectorGame
    table: F64  # every sim lane's personas, (lanes, seats, NUM_TRAITS)
    history: tuple[I64, F64, F64]  # notes, sums, kept
    sit: F64
    games: I64
    x: npt.NDArray[np.float32]
    personas: int
    samples: int

    @classmethod
    def of(cls, setups: list[Setup], sitting: Sitting, traits: F64, samples: int, seats: int) -> _Replay:
        w, k, n = len(setups), len(traits), setups[0].seats
        vg = NumbaVectorGame.from_setups(setups)
        sim = NumbaVectorGame.from_setups([s for s in setups for _ in range(k * samples)])
        assert isinstance(vg, NumbaVectorGame) and isinstance(sim, NumbaVectorGame)
        table = np.broadcast_to(traits[None, :, None, None, :], (w, k, samples, n, NUM_TRAITS))
        history = vg.history_arrays()
        sit = np.broadcast_to(np.asarray(sitting.sums, np.float64), history[1].shape).copy()
        x = np.zeros((w, input_size(seats)), np.float32)
        return cls(vg, sim, np.ascontiguousarray(table.reshape(-1, n, NUM_TRAITS)), history, sit,
                   np.full(w, sitting.games, np.int64), x, k, samples)  # fmt: skip

    def chances(self, net: TableNet, acts: I64, rng: np.random.Generator, smooth: float) -> F64 | None:
        """Per world, the chance of the mover's move ``acts`` under the behaviour head and under each persona
        (each mixed with ``smooth`` of a uniform choice among the legal abstract actions); ``None`` without a
        choice."""
        vg = self.vg
        mask, counts = vg.abstract_mask()
        if not (counts > 1).all():
            return None
        w = len(acts)
        copies = self.personas * self.samples
        legal = mask.sum(axis=1).astype(np.float64)[:, None]
        seen = vg.nearest_abstract(acts)
        vg.table_features(self.x, self.history[1], self.sit, self.games)
        p = softmax(np.where(mask, net.heads(self.x).behaviour.astype(np.float64), -1e9))
        theirs = self.sim.persona_actions(self.table, rng.random((w * copies, NUM_UNIFORMS)))
        hit = self.sim.nearest_abstract(theirs) == np.repeat(seen, copies)
        share = hit.reshape(w, self.personas, self.samples).mean(axis=2)
        chance = np.concatenate([p[np.arange(w), seen][:, None], share], axis=1)
        out: F64 = (1 - smooth) * chance + smooth / legal
        return out

    def step(self, acts: I64) -> None:
        """Play ``acts`` (one per world) in every world and its copies."""
        self.vg.track_history(acts, *self.history)
        self.vg.step(acts)
        self.sim.step(np.repeat(acts, self.personas * self.samples))


def read_players(
    view: View,
    net: TableNet,
    setups: list[Setup],
    hidden: list[dict[int, int]],
    rng: np.random.Generator,
    *,
    sitting: Sitting | None = None,
    personas: int = PERSONAS,
    samples: int = SAMPLES,
    head: float = HEAD,
    smooth: float = SMOOTH,
    traits: F64 | None = None,
) -> Reading:
    """The posterior over each other player's model from its bids and passes so far in ``view``'s game (see the
    module docs); ``setups`` and ``hidden`` are worlds consistent with ``view``
    (:func:`catsack.learn.agent.deal_worlds`); ``traits`` ``(personas, NUM_TRAITS)`` are the personas weighed
    (by default ``personas`` drawn as the league draws them)."""
    if traits is not None:
        traits = np.asarray(traits, np.float64)
        if traits.ndim != 2 or traits.shape[1] != NUM_TRAITS or len(traits) < 1:
            raise ValueError(f"traits must be (personas, {NUM_TRAITS}), not {traits.shape}")
        personas = len(traits)
    if not 0.0 < head < 1.0 or personas < 1 or samples < 1 or not 0.0 < smooth <= 1.0:
        raise ValueError(
            f"read_players needs 0 < head < 1, personas >= 1, samples >= 1 and 0 < smooth <= 1 "
            f"(got {head}, {personas}, {samples}, {smooth})"
        )
    me = view.seat
    n = view.seats
    if me is None:
        raise ValueError("read_players needs a seat's view")
    sitting = sitting or Sitting(n)
    if not setups or len(setups) != len(hidden):
        raise ValueError(f"read_players needs worlds: {len(setups)} setups, {len(hidden)} hidden placements")
    if traits is None:
        traits = draw_trait_table(rng, (personas,))
    replay = _Replay.of(setups, sitting, traits, samples, net.seats)
    loglik = np.zeros((len(setups), n, 1 + len(traits)), np.float64)
    moves = [0] * n
    for s, text in view.history:
        if text == HIDDEN_PLACE:
            acts = np.array([world[s] for world in hidden], np.int64)
        else:
            move = parse_move(text)
            acts = np.full(len(setups), move_to_action(move), np.int64)
            if s != me and move.kind != PLACE:
                chances = replay.chances(net, acts, rng, smooth)
                if chances is not None:
                    moves[s] += 1
                    loglik[:, s] += np.log(chances)
        replay.step(acts)
    prior = np.log(np.concatenate([[head], np.full(len(traits), (1 - head) / len(traits))]))
    top = loglik.max(axis=0)
    marginal = top + np.log(np.exp(loglik - top).mean(axis=0))  # (seats, models): averaged over the worlds
    post = softmax(prior + marginal)
    post[me] = np.exp(prior)
    return Reading(traits, post, tuple(moves), marginal)
