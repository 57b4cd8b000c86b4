"""The ``dmc`` agents' Q-network at play time: a numpy multilayer perceptron read from exported weights.

``Q(features, a)`` for the 16 abstract actions (:mod:`catsack.learn.fast_features`):
the expected return (win share plus a small margin term,
:func:`catsack.learn.mlp.mixed_return`) of taking ``a``. Layers are linear
maps with ReLU between them; the last has no activation. Training
(:mod:`catsack.learn.dmc`, PyTorch) exports the same layers; a test checks
that this forward pass equals the torch network's.

A weights file (``.npz``) holds, per seat count ``s``, the arrays
``s{s}.w{k}`` and ``s{s}.b{k}`` (float16 when shipped) and a JSON ``meta``
entry: the format, the seat counts, and how the weights were made.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from catsack.learn.fast_features import NUM_ABSTRACT, feature_size

__all__ = ["DMC_FORMAT", "DMC_WEIGHTS_DIR", "DMCWeights", "QNet", "greedy", "load_dmc", "save_dmc"]

DMC_FORMAT: Final = "catsack-dmc/1"
DMC_WEIGHTS_DIR: Final = Path(__file__).parent / "weights"

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]


class QNet:
    """A ReLU multilayer perceptron from features to ``Q`` of every abstract action, in float32."""

    def __init__(self, weights: list[F32], biases: list[F32]) -> None:
        if not weights or len(weights) != len(biases):
            raise ValueError("a QNet needs as many bias vectors as weight matrices, and at least one layer")
        for k, (w, b) in enumerate(zip(weights, biases, strict=True)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or (k and w.shape[0] != weights[k - 1].shape[1]):
                raise ValueError(f"layer {k}: weight {w.shape} and bias {b.shape} do not chain")
        if weights[-1].shape[1] != NUM_ABSTRACT:
            raise ValueError(f"the last layer must have {NUM_ABSTRACT} outputs, not {weights[-1].shape[1]}")
        self.weights = [np.ascontiguousarray(w, np.float32) for w in weights]
        self.biases = [np.ascontiguousarray(b, np.float32) for b in biases]

    @property
    def inputs(self) -> int:
        """The feature vector's length."""
        return int(self.weights[0].shape[0])

    @property
    def hidden(self) -> tuple[int, ...]:
        """The hidden layers' widths."""
        return tuple(int(w.shape[1]) for w in self.weights[:-1])

    def forward(self, x: F32) -> F32:
        """``(k, 16)``: Q of every abstract action for ``k`` feature rows."""
        h = x
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w
            h += b
            if k < last:
                np.maximum(h, 0.0, out=h)
        return h

    def to_arrays(self, prefix: str, dtype: type[np.floating[Any]] = np.float32) -> dict[str, npt.NDArray[Any]]:
        """The layers as named arrays (``{prefix}.w0``, ``{prefix}.b0``, ...)."""
        out: dict[str, npt.NDArray[Any]] = {}
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            out[f"{prefix}.w{k}"] = w.astype(dtype)
            out[f"{prefix}.b{k}"] = b.astype(dtype)
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]], prefix: str) -> QNet:
        """The network stored under ``prefix`` by :meth:`to_arrays`."""
        weights: list[F32] = []
        biases: list[F32] = []
        k = 0
        while f"{prefix}.w{k}" in arrays:
            weights.append(np.asarray(arrays[f"{prefix}.w{k}"], np.float32))
            biases.append(np.asarray(arrays[f"{prefix}.b{k}"], np.float32))
            k += 1
        if not weights:
            raise ValueError(f"no layers under {prefix!r}")
        return cls(weights, biases)


def greedy(q: F32, legal: B) -> I64:
    """The legal action of highest Q in each row (the first on ties)."""
    best: I64 = np.argmax(np.where(legal, q, -np.inf), axis=1)
    return best


@dataclass
class DMCWeights:
    """One :class:`QNet` per seat count and the metadata stored with them."""

    nets: dict[int, QNet]
    meta: dict[str, Any]

    def net(self, seats: int) -> QNet:
        """The network for ``seats`` players; ``ValueError`` naming the seat counts there are if none."""
        net = self.nets.get(seats)
        if net is None:
            have = ", ".join(str(s) for s in sorted(self.nets)) or "none"
            raise ValueError(f"these weights have no network for {seats} seats (have: {have})")
        return net


def _resolve(name: str | Path) -> Path:
    path = Path(name)
    if path.suffix != ".npz":
        shipped = DMC_WEIGHTS_DIR / f"{name}.npz"
        if not shipped.exists():
            shipped = DMC_WEIGHTS_DIR / f"dmc-{name}.npz"  # ``exploit-v1`` for ``dmc-exploit-v1``
        if shipped.exists() or not path.exists():
            path = shipped
    if not path.exists():
        names = ", ".join(sorted(p.stem for p in DMC_WEIGHTS_DIR.glob("dmc-*.npz"))) or "none"
        raise ValueError(f"no dmc weights {str(name)!r} (shipped: {names})")
    return path


def load_dmc(name: str | Path) -> DMCWeights:
    """Read a dmc weights file: a shipped name (``dmc-v1``, or ``v1`` without the prefix) or an ``.npz`` path."""
    path = _resolve(name)
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read dmc weights {str(path)!r}: {exc}") from exc
    meta_raw = arrays.pop("meta", None)
    meta = json.loads(str(meta_raw)) if meta_raw is not None else {}
    if meta.get("format") != DMC_FORMAT:
        raise ValueError(f"{str(path)!r} is not a {DMC_FORMAT} weights file (format {meta.get('format')!r})")
    nets: dict[int, QNet] = {}
    for seats in meta.get("seats", []):
        net = QNet.from_arrays(arrays, f"s{seats}")
        if net.inputs != feature_size(int(seats)):
            raise ValueError(f"{str(path)!r}: the {seats}-seat network takes {net.inputs} features")
        nets[int(seats)] = net
    return DMCWeights(nets, meta)


def save_dmc(path: str | Path, nets: Mapping[int, QNet], meta: Mapping[str, Any], *, half: bool = True) -> None:
    """Write ``nets`` (float16 unless ``half`` is false) and ``meta`` (format and seat counts added)."""
    arrays: dict[str, Any] = {}
    for seats, net in sorted(nets.items()):
        arrays.update(net.to_arrays(f"s{seats}", np.float16 if half else np.float32))
    full = {**meta, "format": DMC_FORMAT, "seats": sorted(int(s) for s in nets)}
    arrays["meta"] = np.array(json.dumps(full, sort_keys=True))
    with open(path, "wb") as fh:
        np.savez_compressed(fh, **arrays)
