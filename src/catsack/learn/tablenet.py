"""The learned ``expert``'s network at play time: numpy, one forward pass for four heads.

Its input is :func:`table_features`: the ``dmc`` agents' features of a seat's view
(:func:`catsack.learn.fast_features.view_features`, R23) followed by the players' public history
(:func:`catsack.learn.history.history_block`). A ReLU trunk feeds four linear heads:

============== ======================== =============================================================
head           outputs                  what it says
============== ======================== =============================================================
``q``          16                       Q of each abstract action (:mod:`catsack.learn.fast_features`):
                                        the seat's expected return (win share plus a small margin
                                        term, :func:`catsack.learn.mlp.mixed_return`) after taking it
``value``      1                        the seat's expected return from here
``belief``     row length x 10          for each row card hidden from the seat, the chances of each
                                        card (its owner's history tells)
``behaviour``  16                       what the seat, as a player of the league, would do here: the
                                        opponent model, read for another player from that player's view
============== ======================== =============================================================

Training (:mod:`catsack.learn.league_train`, PyTorch) exports the same layers; a test checks that this
forward pass equals the torch network's. A weights file (``.npz``) holds, per seat count ``s``, the arrays
``s{s}.w{k}``, ``s{s}.b{k}`` (float16 when shipped) and a JSON ``meta`` entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

from catsack.envs.history_layout import history_size
from catsack.learn.fast_features import NUM_ABSTRACT, feature_size, view_features
from catsack.learn.history import Sitting, history_block
from catsack.view import View

__all__ = [
    "TABLE_FORMAT",
    "TABLE_WEIGHTS_DIR",
    "Heads",
    "TableNet",
    "TableWeights",
    "head_sizes",
    "input_size",
    "load_table",
    "row_length",
    "save_table",
    "softmax",
    "table_features",
]

TABLE_FORMAT: Final = "catsack-table/1"
TABLE_WEIGHTS_DIR: Final = Path(__file__).parent / "weights"
NUM_CARDS: Final = 10

F32 = npt.NDArray[np.float32]
Floats = TypeVar("Floats", npt.NDArray[np.float32], npt.NDArray[np.float64])


def softmax(z: Floats) -> Floats:
    """The softmax of ``z`` along its last axis (the heads' logits to probabilities)."""
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    out: Floats = e / e.sum(axis=-1, keepdims=True)
    return out


def row_length(seats: int) -> int:
    """Cards in a row: one per player, and the dummy's with three (R8, R10)."""
    return seats + 1 if seats == 3 else seats


def input_size(seats: int) -> int:
    """Length of :func:`table_features` (3: 359, 4: 405, 5: 504)."""
    return feature_size(seats) + history_size(seats)


def head_sizes(seats: int) -> tuple[int, int, int, int]:
    """Outputs of the heads q, value, belief, behaviour."""
    return NUM_ABSTRACT, 1, row_length(seats) * NUM_CARDS, NUM_ABSTRACT


def table_features(view: View, sitting: Sitting | None = None, out: F32 | None = None) -> F32:
    """The network's input for ``view``'s seat: its features, then the public history (with a sitting's)."""
    n = view.seats
    if out is None:
        out = np.empty(input_size(n), np.float32)
    k = feature_size(n)
    view_features(view, out[:k])
    out[k:] = history_block(view, sitting)
    return out


@dataclass(frozen=True)
class Heads:
    """The four heads of a batch: ``q`` (k, 16), ``value`` (k,), ``belief`` (k, row, 10) logits, ``behaviour``
    (k, 16) logits."""

    q: F32
    value: F32
    belief: F32
    behaviour: F32


class TableNet:
    """A ReLU multilayer perceptron from :func:`table_features` to the four heads, in float32."""

    def __init__(self, seats: int, weights: list[F32], biases: list[F32]) -> None:
        if not weights or len(weights) != len(biases):
            raise ValueError("a TableNet needs as many bias vectors as weight matrices, and at least one layer")
        for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or (k and w.shape[0] != weights[k - 1].shape[1]):
                raise ValueError(f"layer {k}: weight {w.shape} and bias {b.shape} do not chain")
        if weights[0].shape[0] != input_size(seats) or weights[-1].shape[1] != sum(head_sizes(seats)):
            raise ValueError(
                f"a {seats}-seat TableNet takes {input_size(seats)} inputs and gives {sum(head_sizes(seats))} "
                f"outputs, not {weights[0].shape[0]} and {weights[-1].shape[1]}"
            )
        self.seats = seats
        self.weights = [np.ascontiguousarray(w, np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, np.float32) for b in biases]

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(int(w.shape[1]) for w in self.weights[:-1])

    def forward(self, x: F32) -> F32:
        """``(k, outputs)``: every head's outputs side by side for ``k`` input rows."""
        h = x
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w
            h += b
            if k < last:
                np.maximum(h, 0.0, out=h)
        return h

    def heads(self, x: F32) -> Heads:
        """The four heads for ``k`` input rows."""
        out = self.forward(x)
        q, v, b, _ = head_sizes(self.seats)
        k = len(out)
        return Heads(
            out[:, :q],
            out[:, q],
            out[:, q + v : q + v + b].reshape(k, row_length(self.seats), NUM_CARDS),
            out[:, q + v + b :],
        )

    def q(self, x: F32) -> F32:
        """The Q head alone (``(k, 16)``)."""
        return self.forward(x)[:, :NUM_ABSTRACT]

    def to_arrays(self, prefix: str, dtype: type[np.floating[Any]] = np.float32) -> dict[str, npt.NDArray[Any]]:
        out: dict[str, npt.NDArray[Any]] = {}
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            out[f"{prefix}.w{k}"] = w.astype(dtype)
            out[f"{prefix}.b{k}"] = b.astype(dtype)
        return out

    @classmethod
    def from_arrays(cls, seats: int, arrays: Mapping[str, npt.NDArray[Any]], prefix: str) -> TableNet:
        weights: list[F32] = []
        biases: list[F32] = []
        k = 0
        while f"{prefix}.w{k}" in arrays:
            weights.append(np.asarray(arrays[f"{prefix}.w{k}"], np.float32))
            biases.append(np.asarray(arrays[f"{prefix}.b{k}"], np.float32))
            k += 1
        if not weights:
            raise ValueError(f"no layers under {prefix!r}")
        return cls(seats, weights, biases)


@dataclass
class TableWeights:
    """One :class:`TableNet` per seat count and the metadata stored with them."""

    nets: dict[int, TableNet]
    meta: dict[str, Any]

    def net(self, seats: int) -> TableNet:
        net = self.nets.get(seats)
        if net is None:
            have = ", ".join(str(s) for s in sorted(self.nets)) or "none"
            raise ValueError(f"these weights have no network for {seats} seats (have: {have})")
        return net


def _resolve(name: str | Path) -> Path:
    path = Path(name)
    if path.suffix != ".npz":
        path = TABLE_WEIGHTS_DIR / f"{name}.npz"
    if not path.exists():
        names = ", ".join(sorted(p.stem for p in TABLE_WEIGHTS_DIR.glob("expert-*.npz"))) or "none"
        raise ValueError(f"no table weights {str(name)!r} (shipped: {names})")
    return path


def load_table(name: str | Path) -> TableWeights:
    """Read a weights file: a shipped name (``expert-v1``) or an ``.npz`` path."""
    path = _resolve(name)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read table weights {str(path)!r}: {exc}") from exc
    meta_raw = arrays.pop("meta", None)
    meta = json.loads(str(meta_raw)) if meta_raw is not None else {}
    if meta.get("format") != TABLE_FORMAT:
        raise ValueError(f"{str(path)!r} is not a {TABLE_FORMAT} weights file (format {meta.get('format')!r})")
    nets = {int(s): TableNet.from_arrays(int(s), arrays, f"s{s}") for s in meta.get("seats", [])}
    return TableWeights(nets, meta)


def save_table(path: str | Path, nets: Mapping[int, TableNet], meta: Mapping[str, Any], *, half: bool = True) -> None:
    """Write ``nets`` (float16 unless ``half`` is false) and ``meta`` (format and seat counts added)."""
    arrays: dict[str, Any] = {}
    for seats, net in sorted(nets.items()):
        arrays.update(net.to_arrays(f"s{seats}", np.float16 if half else np.float32))
    full = {**meta, "format": TABLE_FORMAT, "seats": sorted(int(s) for s in nets)}
    arrays["meta"] = np.array(json.dumps(full, sort_keys=True))
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
