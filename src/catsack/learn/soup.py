"""A weight soup: the mean of several table-weights files trained from the same start.

    python -m catsack.learn.soup OUT.npz A.npz B.npz [C.npz ...]

Runs of ``league_train`` that start from the same weights (``--init``) and differ only in their seed end near
each other; the mean of their weights is one network that often generalises better than any of them, because
each run's own luck with its league averages out. A run from another run's weights (``expert-v5`` from
``expert-v4``) makes a soup too: a network part way between the two. The files must hold networks for the same
seat counts with layers of the same shapes. Parts trained for other returns (``--margin-weight``) may be mixed:
the return is win share plus the weight times the margin, linear in the weight, so the mean of heads that
estimate it with weights ``a`` and ``b`` estimates it with ``(a + b) / 2``, and the soup records that mean, so
the learned expert's search scores finished games as its heads do; the rest of the first file's configuration is
kept. Inputs may be paths or shipped names (``expert-v3``). The soup is a candidate like any run:
``bench/candidate.py`` before anything else.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from catsack.learn.agent import margin_weight
from catsack.learn.tablenet import TableNet, TableWeights, load_table, save_table

__all__ = ["main", "soup", "soup_margin_weight"]

F32 = npt.NDArray[np.float32]


def soup(parts: Sequence[TableWeights]) -> dict[int, TableNet]:
    """The mean of ``parts``' networks, seat count by seat count and layer by layer.

    Raises ``ValueError`` naming the first difference that makes a mean meaningless: other seat counts, other
    layer shapes. Margin weights may differ (:func:`soup_margin_weight`)."""
    if len(parts) < 2:
        raise ValueError("a soup needs two weights files or more")
    first = parts[0]
    for k, part in enumerate(parts[1:], start=2):
        if sorted(part.nets) != sorted(first.nets):
            raise ValueError(f"file {k} has networks for seats {sorted(part.nets)}, file 1 for {sorted(first.nets)}")
        for seats, net in part.nets.items():
            shapes = [w.shape for w in net.weights]
            if shapes != [w.shape for w in first.nets[seats].weights]:
                raise ValueError(f"file {k}'s {seats}-seat network has layers {shapes}, file 1's another shape")
    out: dict[int, TableNet] = {}
    for seats, net in first.nets.items():
        nets = [p.nets[seats] for p in parts]
        weights = [_mean([n.weights[i] for n in nets]) for i in range(len(net.weights))]
        biases = [_mean([n.biases[i] for n in nets]) for i in range(len(net.biases))]
        out[seats] = TableNet(seats, weights, biases)
    return out


def soup_margin_weight(parts: Sequence[TableWeights]) -> float:
    """The margin weight of the soup of ``parts``: the mean of theirs (the return is linear in it)."""
    return round(sum(margin_weight(p) for p in parts) / len(parts), 6)


def _mean(arrays: Sequence[F32]) -> F32:
    return np.asarray(np.mean(np.stack(arrays), axis=0), dtype=np.float32)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m catsack.learn.soup --help``)."""
    ap = argparse.ArgumentParser(prog="python -m catsack.learn.soup", description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="the soup's weights file (.npz)")
    ap.add_argument("parts", nargs="+", help="the weights files to average (paths or shipped names), two or more")
    args = ap.parse_args(argv)
    if args.out.suffix != ".npz":
        ap.error(f"the soup's file must end in .npz, not {args.out.name!r}")
    try:
        parts = [load_table(p) for p in args.parts]
        nets = soup(parts)
    except ValueError as exc:
        print(f"soup: {exc}", file=sys.stderr)
        return 2
    config = parts[0].meta.get("config", {})
    config = config if isinstance(config, dict) else {}
    weight = soup_margin_weight(parts)
    meta: dict[str, Any] = {
        "command": "python -m catsack.learn.soup " + " ".join([str(args.out), *args.parts]),
        "config": {**config, "margin_weight": weight},
        "soup": [
            {"file": p, "command": part.meta.get("command", "")} for p, part in zip(args.parts, parts, strict=True)
        ],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    save_table(args.out, nets, meta)
    each = sorted({margin_weight(p) for p in parts})
    mixed = f"; margin weight {weight}, the mean of {', '.join(map(str, each))}" if len(each) > 1 else ""
    print(f"soup of {len(parts)} files written to {args.out} (seats {', '.join(str(s) for s in sorted(nets))}{mixed})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
