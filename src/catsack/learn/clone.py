"""Behaviour cloning of a slow bot into a fast network: the stand-in the exploiter trains against.

    python -m catsack.learn.clone collect --against expert:iters=100 --hero dmc-v1 --games 600 --out expert.npz
    python -m catsack.learn.clone fit --data expert.npz --out expert-clone.npz
    python -m catsack.learn.clone collect --against classic --others heuristic,persona --rounds 1 --hide-kinds \
        --games 2000 --out classic-r1.npz   # the classic expert's round 1 alone: an opener for the league

The ``expert`` decides in about 0.3 s (0.007 s at ``iters=100``), far too slow
for the thousands of games an exploiter needs. So its decisions are
recorded (``collect``: games with ``--hero`` in one seat, drawn per game, and
the bot in the others; every bot decision with a choice becomes a row of
the bot's own features, R23, its legal abstract actions and the abstract
action nearest its move, :func:`catsack.learn.fast_features.nearest_abstract`)
and a network is fitted to them (``fit``: cross-entropy over the legal
abstract actions, PyTorch). The clone plays greedily (its likeliest move)
on the compiled engine, as a ``fixed`` player of
:mod:`catsack.learn.dmc`'s league. ``collect`` appends to its file batch by
batch (each batch seeded from ``--seed`` and its index), so it can be
stopped and continued; ``fit`` reports its agreement with held-out decisions.
``--others`` seats other bots beside the cloned one (only its decisions are
recorded) and ``--rounds K`` stops every game after round K, for an opening
at a fraction of a whole game's cost: a clone of the classic expert's round 1
is what :mod:`catsack.learn.league_train`'s ``--opener`` takes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from catsack.learn.blas import single_thread_blas
from catsack.learn.fast_features import feature_size
from catsack.learn.qnet import load_dmc, save_dmc
from catsack.learn.vs_bots import OpponentRows, play_vs_bots

__all__ = ["collect", "fit", "main"]


def _load_rows(path: Path) -> tuple[OpponentRows, int]:
    if not path.exists():
        return OpponentRows(np.zeros((0, 0), np.float32), np.zeros((0, 16), np.bool_), np.zeros(0, np.int64)), 0
    with np.load(path, allow_pickle=False) as data:
        return OpponentRows(data["x"], data["legal"], data["action"]), int(data["batches"])


def collect(
    against: str,
    hero: str,
    seats: int,
    games: int,
    batch_games: int,
    seed: int,
    out: Path,
    *,
    others: Sequence[str] = (),
    rounds: int | None = None,
    hide_kinds: bool = False,
) -> int:
    """Play batches until ``out`` holds ``games`` games' worth of ``against``'s decisions; return the rows held.

    ``others``: bot specs seated after ``against`` in the remaining seats (cycled with it; only ``against``'s
    decisions are recorded). ``rounds``: stop every game after that round (to clone an opening).
    ``hide_kinds``: the bots meet players of no kind.
    """
    single_thread_blas()
    net = load_dmc(hero).net(seats)
    rows, batches = _load_rows(out)
    parts = [rows] if len(rows) else []
    while batches * batch_games < games:
        rng = np.random.default_rng([seed, batches])
        got: list[OpponentRows] = []
        t0 = time.process_time()
        learner_seats = rng.integers(0, seats, size=batch_games).tolist()
        play_vs_bots(seats, net, [against, *others], learner_seats, rng=rng, epsilon=0.0, record_opponents=got,
                     record_specs=1, rounds=rounds, hide_kinds=hide_kinds)  # fmt: skip
        parts += got
        batches += 1
        x = np.concatenate([p.x for p in parts])
        legal = np.concatenate([p.legal for p in parts])
        action = np.concatenate([p.action for p in parts])
        tmp = out.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, x=x, legal=legal, action=action, batches=batches, against=against, seats=seats,
                            others=",".join(others), rounds=0 if rounds is None else rounds)  # fmt: skip
        tmp.replace(out)
        cpu = time.process_time() - t0
        print(json.dumps({"batches": batches, "games": batches * batch_games, "rows": len(x), "cpu_s": round(cpu, 1)}))
        sys.stdout.flush()
    return sum(len(p) for p in parts)


def fit(
    data: Path | Sequence[Path], out: Path, *, hidden: Sequence[int], epochs: int, lr: float, seed: int
) -> dict[str, Any]:
    """Fit a network to the recorded decisions of one file or several (10% held out); write it as dmc weights;
    return its figures. Several files must hold one bot's decisions at one seat count."""
    from catsack.learn.dmc import export_qnet, import_torch, make_torch_net

    torch = import_torch()
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    paths = [data] if isinstance(data, Path) else list(data)
    if not paths:
        raise ValueError("fit needs at least one file of recorded decisions")
    parts: list[OpponentRows] = []
    kinds: set[tuple[int, str]] = set()
    for path in paths:
        if not path.exists():
            raise ValueError(f"no recorded decisions at {str(path)!r}")
        parts.append(_load_rows(path)[0])
        with np.load(path, allow_pickle=False) as raw:
            kinds.add((int(raw["seats"]), str(raw["against"])))
    if len(kinds) > 1:
        found = ", ".join(f"{a} at {n} seats" for n, a in sorted(kinds))
        raise ValueError(f"the files hold different bots or seat counts ({found}); fit one at a time")
    ((seats, against),) = kinds
    rows = OpponentRows(*(np.concatenate([getattr(p, k) for p in parts]) for k in ("x", "legal", "action")))
    if rows.x.shape[1] != feature_size(seats) or len(rows) < 20:
        names = ", ".join(repr(str(p)) for p in paths)
        raise ValueError(f"{names} hold {len(rows)} rows of {rows.x.shape[1]} features: too few, or not {seats}-seat")
    order = np.random.default_rng(seed).permutation(len(rows))
    held = order[: len(rows) // 10]
    train = order[len(rows) // 10 :]
    x = torch.from_numpy(rows.x)
    legal = torch.from_numpy(rows.legal)
    y = torch.from_numpy(rows.action)
    net = make_torch_net(feature_size(seats), hidden)
    opt = torch.optim.Adam(net.parameters(), lr=lr)

    def logits(idx: Any) -> Any:
        return net(x[idx]).masked_fill(~legal[idx], -1e9)

    tr = torch.from_numpy(train)
    for _ in range(epochs):
        perm = tr[torch.randperm(len(tr))]
        for k in range(0, len(perm), 256):
            idx = perm[k : k + 256]
            loss = torch.nn.functional.cross_entropy(logits(idx), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        h = torch.from_numpy(held)
        agree = float((logits(h).argmax(1) == y[h]).float().mean())
        held_loss = float(torch.nn.functional.cross_entropy(logits(h), y[h]))
        train_agree = float((logits(tr).argmax(1) == y[tr]).float().mean())
    figures = {
        "clone_of": against,
        "rows": len(rows),
        "held_out": len(held),
        "held_out_agreement": round(agree, 4),
        "held_out_loss": round(held_loss, 4),
        "train_agreement": round(train_agree, 4),
        "epochs": epochs,
        "hidden": list(hidden),
        "lr": lr,
        "seed": seed,
        "data": [str(p) for p in paths],
    }
    save_dmc(out, {seats: export_qnet(net)}, figures)
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m catsack.learn.clone collect|fit --help``)."""
    p = argparse.ArgumentParser(prog="python -m catsack.learn.clone", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="record a bot's decisions")
    c.add_argument("--against", required=True, help="the bot spec to clone")
    c.add_argument("--hero", default="dmc-v1", help="dmc weights playing the remaining seat")
    c.add_argument("--seats", type=int, default=4)
    c.add_argument("--games", type=int, default=200)
    c.add_argument("--batch-games", type=int, default=8)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--others", default="", help="bot specs for the remaining seats, comma-separated, cycled")
    c.add_argument("--rounds", type=int, default=None, help="stop every game after this round (clone an opening)")
    c.add_argument("--hide-kinds", action="store_true", help="the bots meet players of no kind")
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="fit a network to recorded decisions")
    f.add_argument("--data", type=Path, nargs="+", required=True, help="one file of recorded decisions or several")
    f.add_argument("--out", type=Path, required=True)
    f.add_argument("--hidden", default="256,256")
    f.add_argument("--epochs", type=int, default=20)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        if args.cmd == "collect":
            others = [o for o in args.others.split(",") if o]
            collect(args.against, args.hero, args.seats, args.games, args.batch_games, args.seed, args.out,
                    others=others, rounds=args.rounds, hide_kinds=args.hide_kinds)  # fmt: skip
        else:
            hidden = tuple(int(h) for h in args.hidden.split(","))
            print(json.dumps(fit(args.data, args.out, hidden=hidden, epochs=args.epochs, lr=args.lr, seed=args.seed)))
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
