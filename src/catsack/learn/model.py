"""Shipped learned models: a value function and a policy over information states (numpy only).

>>> from catsack import Game
>>> from catsack.learn import load_policy_model, load_value_model
>>> game = Game.new(4, seed=1)
>>> values = load_value_model().evaluate_views([game.view(s) for s in range(4)])
>>> values.shape
(4,)
>>> load_policy_model().choose(game.view(game.to_move)) in game.legal_moves()
True

Both read the same weights file: one network per seat count (3, 4, 5) with
a win-share head, a margin head and one Q head per abstract action (see
:mod:`catsack.learn.mlp` and ``docs/learning.md``). Every input is a seat's
view (R23).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from catsack.learn.blas import single_thread_blas
from catsack.learn.features import (
    ACTION_NAMES,
    NUM_ABSTRACT,
    FeatureError,
    abstract_legal,
    abstract_to_move,
    encode_features,
    encode_views,
    feature_size,
)
from catsack.learn.mlp import MARGIN_SCALE, MLP
from catsack.moves import Move
from catsack.view import View

__all__ = [
    "DEFAULT_WEIGHTS",
    "WEIGHTS_DIR",
    "WEIGHTS_FORMAT",
    "LearnedNets",
    "PolicyModel",
    "ValueModel",
    "WeightsError",
    "load_nets",
    "load_policy_model",
    "load_value_model",
    "save_nets",
]

WEIGHTS_DIR: Final = Path(__file__).parent / "weights"
DEFAULT_WEIGHTS: Final = "felix-v1"
WEIGHTS_FORMAT: Final = "catsack-learn/1"
HEADS: Final = ("win", "margin")

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]


class WeightsError(ValueError):
    """A weights file that is missing, of another format, or without a network for the seat count asked."""


@dataclass
class LearnedNets:
    """One network per seat count and the metadata stored with them (training command, figures)."""

    nets: dict[int, MLP]
    meta: dict[str, Any]

    def net(self, seats: int) -> MLP:
        net = self.nets.get(seats)
        if net is None:
            have = ", ".join(str(s) for s in sorted(self.nets)) or "none"
            raise WeightsError(f"these weights have no network for {seats} seats (have: {have})")
        return net


def _resolve(name: str | Path | None) -> Path:
    if name is None:
        name = DEFAULT_WEIGHTS
    path = Path(name)
    if path.suffix != ".npz":
        shipped = WEIGHTS_DIR / f"{name}.npz"
        if shipped.exists() or not path.exists():
            path = shipped
    if not path.exists():
        shipped_names = ", ".join(sorted(p.stem for p in WEIGHTS_DIR.glob("*.npz"))) or "none"
        raise WeightsError(f"no weights file {str(name)!r} (shipped: {shipped_names})")
    return path


def load_nets(name: str | Path | None = None) -> LearnedNets:
    """Read a weights file: a shipped name (``felix-v1``) or a path to an ``.npz`` file."""
    path = _resolve(name)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise WeightsError(f"cannot read weights {str(path)!r}: {exc}") from exc
    meta_raw = arrays.pop("meta", None)
    if meta_raw is None:
        raise WeightsError(f"{str(path)!r} has no 'meta' entry: not a catsack weights file")
    meta = json.loads(str(meta_raw))
    if meta.get("format") != WEIGHTS_FORMAT:
        raise WeightsError(f"{str(path)!r} has format {meta.get('format')!r}, expected {WEIGHTS_FORMAT!r}")
    nets: dict[int, MLP] = {}
    for seats in meta.get("seats", []):
        net = MLP.from_arrays(arrays, f"s{seats}")
        if net.inputs != feature_size(seats):
            want = feature_size(seats)
            raise WeightsError(f"{str(path)!r}: the {seats}-seat network takes {net.inputs} features, not {want}")
        nets[int(seats)] = net
    return LearnedNets(nets, meta)


def save_nets(path: str | Path, nets: Mapping[int, MLP], meta: Mapping[str, Any], *, half: bool = True) -> None:
    """Write networks as shipped weights (``float16`` when ``half``: half the size, ~3 digits kept)."""
    arrays: dict[str, Any] = {}
    for seats, net in sorted(nets.items()):
        for key, p in net.to_arrays(f"s{seats}").items():
            arrays[key] = p.astype(np.float16 if half else np.float32)
    full = {**meta, "format": WEIGHTS_FORMAT, "seats": sorted(nets)}
    arrays["meta"] = np.array(json.dumps(full, sort_keys=True))
    with Path(path).open("wb") as fh:
        np.savez_compressed(fh, **arrays)


def _by_seats(views: Sequence[View]) -> dict[int, list[int]]:
    groups: dict[int, list[int]] = {}
    for i, v in enumerate(views):
        if v.seat is None:
            raise FeatureError(f"view {i} is the public view; the models read a seat's view (R23)")
        groups.setdefault(v.seats, []).append(i)
    return groups


class ValueModel:
    """``V(view)``: the seat's expected final win share (R22) or margin (R21) under good play."""

    def __init__(self, nets: LearnedNets) -> None:
        self.nets = nets

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(self.nets.nets))

    def evaluate_features(self, x: npt.ArrayLike, seats: int, head: str = "win") -> F64:
        """Values of a ``(batch, feature_size(seats))`` feature array (the fast path for search)."""
        if head not in HEADS:
            raise ValueError(f"head must be one of {', '.join(HEADS)}, not {head!r}")
        arr = np.asarray(x, np.float32)
        if arr.ndim != 2 or arr.shape[1] != feature_size(seats):
            want = feature_size(seats)
            raise FeatureError(f"features must have shape (batch, {want}) for {seats} seats, not {arr.shape}")
        out = self.nets.net(seats).forward(arr)
        if head == "win":
            result: F64 = 1.0 / (1.0 + np.exp(-np.clip(out[:, 0].astype(np.float64), -30.0, 30.0)))
            return result
        margin: F64 = out[:, 1].astype(np.float64) * MARGIN_SCALE
        return margin

    def evaluate_views(self, views: Sequence[View], head: str = "win") -> F64:
        """One value per view, for that view's seat: win share in [0, 1] (``head="win"``) or margin in points."""
        out = np.zeros(len(views), np.float64)
        for seats, idx in _by_seats(views).items():
            x = encode_views([views[i] for i in idx])
            out[idx] = self.evaluate_features(x, seats, head)
        return out

    def evaluate(self, view: View, head: str = "win") -> float:
        """:meth:`evaluate_views` of one view."""
        return float(self.evaluate_views([view], head)[0])


class PolicyModel:
    """A policy over the 16 abstract actions: the move with the highest learned ``Q(view, action)``."""

    def __init__(self, nets: LearnedNets) -> None:
        self.nets = nets

    def q_values(self, view: View) -> F64:
        """``(16,)`` Q values of the abstract actions; ``-inf`` where an action stands for no legal move."""
        if view.seat is None:
            raise FeatureError("the policy reads a seat's view, not the public view (R23)")
        x = encode_features(view)[None, :]
        q = self.nets.net(view.seats).forward(x)[0, 2:].astype(np.float64)
        return np.where(abstract_legal(view), q, -np.inf)

    def q_values_batch(self, x: npt.ArrayLike, legal: npt.ArrayLike, seats: int) -> F64:
        """Q values of a ``(batch, features)`` array with its ``(batch, 16)`` legal mask (``-inf`` elsewhere)."""
        q = self.nets.net(seats).forward(np.asarray(x, np.float32))[:, 2:].astype(np.float64)
        return np.where(np.asarray(legal, np.bool_), q, -np.inf)

    def scores(self, view: View) -> dict[str, float]:
        """Move text -> Q value (expected win share plus a small margin term) of each abstract action's move."""
        q = self.q_values(view)
        out: dict[str, float] = {}
        for a in np.flatnonzero(np.isfinite(q)):
            out[abstract_to_move(view, int(a)).text] = float(q[a])
        return out

    def action_scores(self, view: View) -> dict[str, float]:
        """Abstract action name (``raise +2``) -> Q value, legal actions only."""
        q = self.q_values(view)
        return {ACTION_NAMES[a]: float(q[a]) for a in range(NUM_ABSTRACT) if np.isfinite(q[a])}

    def choose(self, view: View, rng: random.Random | None = None, epsilon: float = 0.0) -> Move:
        """The greedy move (with ``rng`` and ``epsilon`` > 0: a random abstract action that often)."""
        if not view.legal:
            raise ValueError(f"seat {view.seat} has no legal move in this view (to move: {view.to_move})")
        q = self.q_values(view)
        legal = np.flatnonzero(np.isfinite(q))
        if rng is not None and epsilon > 0 and rng.random() < epsilon:
            return abstract_to_move(view, int(legal[rng.randrange(len(legal))]))
        return abstract_to_move(view, int(legal[np.argmax(q[legal])]))


_CACHE: dict[str, LearnedNets] = {}


def _cached(name: str | Path | None) -> LearnedNets:
    key = str(_resolve(name))
    nets = _CACHE.get(key)
    if nets is None:
        nets = _CACHE[key] = load_nets(key)
    return nets


def load_value_model(name: str | Path | None = None) -> ValueModel:
    """The value model of a weights file (shipped ``felix-v1`` by default; read once per process).

    Loading a model also keeps numpy's BLAS to one thread (:mod:`catsack.learn.blas`): batched
    evaluations of these small layers run many times faster that way on a shared machine.
    """
    single_thread_blas()
    return ValueModel(_cached(name))


def load_policy_model(name: str | Path | None = None) -> PolicyModel:
    """The policy model of a weights file (shipped ``felix-v1`` by default; read once per process; see above)."""
    single_thread_blas()
    return PolicyModel(_cached(name))
