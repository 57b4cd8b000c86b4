"""A small multilayer perceptron in numpy: forward pass, hand-written backward pass and Adam.

One network per seat count maps a feature vector to ``2 + 16`` outputs:

- ``out[:, 0]``: the logit of the seat's expected **win share** (R22: shared
  wins split), trained with cross-entropy on the final win share;
- ``out[:, 1]``: the expected final **margin** (score minus the table's mean,
  R21) divided by :data:`MARGIN_SCALE`, trained with squared error;
- ``out[:, 2 + a]``: ``Q(s, a)`` for abstract action ``a``
  (:mod:`catsack.learn.features`), the expected :func:`mixed_return` after
  taking ``a``, regressed on Monte-Carlo returns (Deep Monte Carlo).

Inference needs numpy only; training uses the same module.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.learn.features import NUM_ABSTRACT

__all__ = ["MARGIN_SCALE", "MARGIN_WEIGHT", "MLP", "NUM_OUTPUTS", "Adam", "Batch", "mixed_return"]

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]

NUM_OUTPUTS: Final = 2 + NUM_ABSTRACT
MARGIN_SCALE: Final = 20.0  # points; margins mostly lie within +-40
MARGIN_WEIGHT: Final = 0.1  # weight of margin / MARGIN_SCALE in the policy's return
LOSS_WEIGHTS: Final = {"win": 1.0, "margin": 0.5, "q": 1.0}


def mixed_return(win: npt.ArrayLike, margin: npt.ArrayLike) -> F32:
    """The return the policy maximises: win share plus a small margin term that breaks near-ties."""
    out: F32 = (np.asarray(win, np.float32) + MARGIN_WEIGHT * np.asarray(margin, np.float32) / MARGIN_SCALE).astype(
        np.float32
    )
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

    def loss_and_grads(self, batch: Batch) -> tuple[dict[str, float], list[F32]]:
        """Losses per head and the gradient of their weighted sum with respect to every parameter."""
        acts = [batch.x]
        h = batch.x
        last = len(self.params) - 2
        for i in range(0, len(self.params), 2):
            h = h @ self.params[i] + self.params[i + 1]
            if i < last:
                h = np.maximum(h, 0.0)
                acts.append(h)
        out = h
        b = len(batch)
        g = np.zeros_like(out)
        # Win share: cross-entropy with soft targets (a shared win is a fraction, R22).
        z = out[:, 0]
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0)))
        eps = 1e-7
        win_loss = float(-np.mean(batch.win * np.log(p + eps) + (1 - batch.win) * np.log(1 - p + eps)))
        g[:, 0] = LOSS_WEIGHTS["win"] * (p - batch.win) / b
        dm = out[:, 1] - batch.margin / MARGIN_SCALE
        margin_loss = float(0.5 * np.mean(dm * dm))
        g[:, 1] = LOSS_WEIGHTS["margin"] * dm / b
        rows = np.flatnonzero(batch.action >= 0)
        q_loss = 0.0
        if len(rows):
            cols = 2 + batch.action[rows]
            target = mixed_return(batch.win[rows], batch.margin[rows])
            dq = out[rows, cols] - target
            q_loss = float(0.5 * np.mean(dq * dq))
            g[rows, cols] = LOSS_WEIGHTS["q"] * dq / len(rows)
        grads: list[F32] = [np.empty(0, np.float32)] * len(self.params)
        for i in range(len(self.params) - 2, -1, -2):
            a = acts[i // 2]
            grads[i] = (a.T @ g).astype(np.float32)
            grads[i + 1] = g.sum(axis=0).astype(np.float32)
            if i:
                g = (g @ self.params[i].T) * (a > 0)
        return {"win": win_loss, "margin": margin_loss, "q": q_loss}, grads

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


@dataclass
class Adam:
    """Adam (Kingma & Ba) over a list of parameter arrays, with its moments kept for checkpoints."""

    lr: float = 1e-3
    beta1: float = 0.9
    beta2: float = 0.999
    eps: float = 1e-8
    t: int = 0
    m: list[F32] = field(default_factory=list)
    v: list[F32] = field(default_factory=list)

    def step(self, params: list[F32], grads: list[F32]) -> None:
        if not self.m:
            self.m = [np.zeros_like(p) for p in params]
            self.v = [np.zeros_like(p) for p in params]
        self.t += 1
        c1 = 1.0 - self.beta1**self.t
        c2 = 1.0 - self.beta2**self.t
        for p, g, m, v in zip(params, grads, self.m, self.v, strict=True):
            m *= self.beta1
            m += (1.0 - self.beta1) * g
            v *= self.beta2
            v += (1.0 - self.beta2) * (g * g)
            p -= (self.lr * (m / c1) / (np.sqrt(v / c2) + self.eps)).astype(np.float32)

    def to_arrays(self, prefix: str) -> dict[str, npt.NDArray[np.generic]]:
        out: dict[str, npt.NDArray[np.generic]] = {f"{prefix}/t": np.array(self.t, np.int64)}
        for i, (m, v) in enumerate(zip(self.m, self.v, strict=True)):
            out[f"{prefix}/m{i}"] = m
            out[f"{prefix}/v{i}"] = v
        return out

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[np.generic]], prefix: str, lr: float) -> Adam:
        m: list[F32] = []
        v: list[F32] = []
        while f"{prefix}/m{len(m)}" in arrays:
            m.append(np.asarray(arrays[f"{prefix}/m{len(m)}"], np.float32))
            v.append(np.asarray(arrays[f"{prefix}/v{len(v)}"], np.float32))
        return cls(lr=lr, t=int(np.asarray(arrays[f"{prefix}/t"])), m=m, v=v)
