"""The learned evaluation's multilayer perceptron in numpy: its layout, forward pass and parameter arrays.

One network per seat count maps a feature vector to ``2 + 16`` outputs:

- ``out[:, 0]``: the logit of the seat's expected **win share** (R22: shared
  wins split), trained with cross-entropy on the final win share;
- ``out[:, 1]``: the expected final **margin** (score minus the table's mean,
  R21) divided by :data:`MARGIN_SCALE`, trained with squared error;
- ``out[:, 2 + a]``: ``Q(s, a)`` for abstract action ``a``
  (:mod:`catsack.learn.features`), the expected :func:`mixed_return` after
  taking ``a``, regressed on Monte-Carlo returns (Deep Monte Carlo).

Inference needs numpy only. Training (:mod:`catsack.learn.train`) fits the same layers with PyTorch and
copies them back here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.learn.features import NUM_ABSTRACT

__all__ = ["LOSS_WEIGHTS", "MARGIN_SCALE", "MARGIN_WEIGHT", "MLP", "NUM_OUTPUTS", "Batch", "mixed_return"]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

NUM_OUTPUTS: Final = 2 + NUM_ABSTRACT
MARGIN_SCALE: Final = 20.0  # points; margins mostly lie within +-40
MARGIN_WEIGHT: Final = 0.1  # weight of margin / MARGIN_SCALE in the policy's return
LOSS_WEIGHTS: Final = {"win": 1.0, "margin": 0.5, "q": 1.0}


def mixed_return(win: npt.ArrayLike, margin: npt.ArrayLike, weight: float = MARGIN_WEIGHT) -> F32:
    """The return the policy maximises: win share plus ``weight`` times the margin over :data:`MARGIN_SCALE` (by
    default a small term that breaks near-ties)."""
    out: F32 = (np.asarray(win, np.float32) + weight * np.asarray(margin, np.float32) / MARGIN_SCALE).astype(np.float32)
    return out


@dataclass
class Batch:
    """Training rows: features, final win share and margin of the seat, and the action taken (-1: none)."""

    x: F32
    win: F32
    margin: F32
    action: I64

    def __len__(self) -> int:
        return len(self.x)


@dataclass
class MLP:
    """``inputs -> hidden... -> NUM_OUTPUTS`` with ReLU; parameters ``W0, b0, W1, b1, ...``."""

    params: list[F32]

    @classmethod
    def create(cls, inputs: int, hidden: tuple[int, ...], rng: np.random.Generator) -> MLP:
        sizes = [inputs, *hidden, NUM_OUTPUTS]
        params: list[F32] = []
        for i, (a, b) in enumerate(itertools.pairwise(sizes)):
            scale = np.sqrt(2.0 / a) if i < len(sizes) - 2 else 0.1 / np.sqrt(a)  # He init; small last layer
            params.append((rng.standard_normal((a, b)) * scale).astype(np.float32))
            params.append(np.zeros(b, np.float32))
        return cls(params)

    @property
    def inputs(self) -> int:
        return int(self.params[0].shape[0])

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(int(w.shape[1]) for w in self.params[0:-2:2])

    def copy(self) -> MLP:
        return MLP([p.copy() for p in self.params])

    def forward(self, x: F32) -> F32:
        """``(batch, NUM_OUTPUTS)`` raw outputs (win logit, scaled margin, Q values)."""
        h = x
        last = len(self.params) - 2
        for i in range(0, len(self.params), 2):
            h = h @ self.params[i] + self.params[i + 1]
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h

    def to_arrays(self, prefix: str) -> dict[str, F32]:
        return {f"{prefix}/p{i}": p for i, p in enumerate(self.params)}

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[np.generic]], prefix: str) -> MLP:
        params: list[F32] = []
        while f"{prefix}/p{len(params)}" in arrays:
            params.append(np.asarray(arrays[f"{prefix}/p{len(params)}"], np.float32))
        if not params or len(params) % 2:
            raise ValueError(f"no complete network under {prefix!r} (found {len(params)} arrays)")
        return cls(params)
