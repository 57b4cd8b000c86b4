"""Train the learned evaluation by self-play against a league (Deep Monte Carlo), resumable from checkpoints.

    python -m catsack.learn.train --seats 3,4,5 --games 20000 --seed 1 --out runs/v1 --export felix-v1.npz

Each iteration plays ``--batch-games`` games per seat count
(:func:`catsack.learn.selfplay.play_batch`), then fits the network of that
seat count on the new rows for ``--epochs`` passes with PyTorch's Adam (the
``train`` extra; play stays numpy, :class:`catsack.learn.mlp.MLP`): the win-share
and margin heads on every row, the Q head of the action taken on the
learner's rows (regressed on the seat's final mixed return: Monte-Carlo
targets, no bootstrapping). An exponential moving average of the weights
(``--ema``) is what the quick evaluation plays, what joins the league as a
frozen snapshot every ``--snapshot-every`` iterations, and what is
exported. All randomness flows from ``--seed`` through one
numpy generator, whose state the checkpoint keeps with the networks, Adam's
moments, the averaged weights and the snapshots: resuming gives the very run an uninterrupted
one would have given. Progress is printed one line per iteration.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from catsack.learn.blas import single_thread_blas
from catsack.learn.features import feature_size
from catsack.learn.mlp import LOSS_WEIGHTS, MARGIN_SCALE, MLP, NUM_OUTPUTS, Batch, mixed_return
from catsack.learn.model import save_nets
from catsack.learn.selfplay import ROLES, play_batch, sample_roles

__all__ = ["CheckpointError", "TrainConfig", "Trainer", "main", "parse_league"]

CHECKPOINT_FORMAT = "catsack-learn-checkpoint/1"
DEFAULT_LEAGUE = "self=0.43,snapshot=0.2,heuristic=0.25,random=0.1,ismcts=0.02"
EVAL_SEED = 900_000  # the quick evaluation's deals never come from the training generator


class CheckpointError(ValueError):
    """A checkpoint that cannot be read or does not match."""


def parse_weights(text: str, roles: Sequence[str]) -> dict[str, float]:
    """``role=weight,role=weight`` -> weight per role, each role one of ``roles``; a clear ``ValueError``
    names the entry that is wrong (the league options of both trainers)."""
    league: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, eq, weight = part.partition("=")
        name = name.strip()
        if name not in roles or not eq:
            raise ValueError(f"league entry {part.strip()!r}: expected ROLE=WEIGHT with ROLE one of {', '.join(roles)}")
        try:
            w = float(weight)
        except ValueError:
            raise ValueError(f"league entry {part.strip()!r}: weight {weight!r} is not a number") from None
        if not w >= 0:
            raise ValueError(f"league entry {part.strip()!r}: weights must be >= 0")
        league[name] = w
    if sum(league.values()) <= 0:
        raise ValueError(f"league {text!r} gives every role weight 0")
    return league


def parse_league(text: str) -> dict[str, float]:
    """``self=0.45,heuristic=0.3,...`` -> weights per role (:data:`~catsack.learn.selfplay.ROLES`)."""
    return parse_weights(text, ROLES)


@dataclass
class TrainConfig:
    """Everything that decides a training run (stored in its checkpoints)."""

    seats: tuple[int, ...] = (4,)
    games: int = 1000  # per seat count
    batch_games: int = 32
    seed: int = 0
    hidden: tuple[int, ...] = (128, 128)
    lr: float = 5e-4
    ema: float = 0.995  # decay per Adam step of the averaged weights that are evaluated, snapshotted and shipped
    epochs: int = 2
    minibatch: int = 256
    epsilon: float = 0.05
    value_sample: float = 0.15
    league: dict[str, float] = field(default_factory=lambda: parse_league(DEFAULT_LEAGUE))
    snapshot_every: int = 10
    max_snapshots: int = 5
    eval_every: int = 10
    eval_games: int = 64

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TrainConfig:
        d = json.loads(text)
        d["seats"] = tuple(d["seats"])
        d["hidden"] = tuple(d["hidden"])
        return cls(**d)


def import_torch() -> Any:
    """PyTorch, or ``ImportError`` naming the extra that installs it."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(f"training needs PyTorch: pip install 'catsack[train]' ({exc})") from exc
    torch.set_num_threads(1)  # deterministic, and fair on a shared machine
    return torch


class TorchFit:
    """One seat count's network as PyTorch layers (a copy of an :class:`MLP`) and its Adam; the numpy MLP plays."""

    def __init__(self, net: MLP, lr: float) -> None:
        torch = import_torch()
        self.torch = torch
        sizes = [net.inputs, *net.hidden, NUM_OUTPUTS]
        layers: list[Any] = []
        for k in range(len(sizes) - 1):
            layers.append(torch.nn.Linear(sizes[k], sizes[k + 1]))
            if k < len(sizes) - 2:
                layers.append(torch.nn.ReLU())
        self.net = torch.nn.Sequential(*layers)
        self.linear = [m for m in self.net if hasattr(m, "weight")]
        with torch.no_grad():
            for k, m in enumerate(self.linear):
                m.weight.copy_(torch.from_numpy(net.params[2 * k].T.copy()))
                m.bias.copy_(torch.from_numpy(net.params[2 * k + 1].copy()))
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)

    def step(self, batch: Batch) -> dict[str, float]:
        """One Adam step on ``batch``: the win head's cross-entropy with soft targets (R22: a shared win is a
        fraction), the margin head's and the taken actions' Q squared errors (:data:`LOSS_WEIGHTS`)."""
        torch = self.torch
        F = torch.nn.functional
        out = self.net(torch.from_numpy(np.ascontiguousarray(batch.x, np.float32)))
        win = torch.from_numpy(np.asarray(batch.win, np.float32))
        win_loss = F.binary_cross_entropy_with_logits(out[:, 0], win)
        dm = out[:, 1] - torch.from_numpy(np.asarray(batch.margin, np.float32)) / MARGIN_SCALE
        margin_loss = 0.5 * torch.mean(dm * dm)
        rows = np.flatnonzero(batch.action >= 0)
        q_loss = torch.zeros(())
        if len(rows):
            target = torch.from_numpy(mixed_return(batch.win[rows], batch.margin[rows]))
            q = out[torch.from_numpy(rows), torch.from_numpy(2 + batch.action[rows])]
            q_loss = 0.5 * torch.mean((q - target) ** 2)
        loss = LOSS_WEIGHTS["win"] * win_loss + LOSS_WEIGHTS["margin"] * margin_loss + LOSS_WEIGHTS["q"] * q_loss
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return {"win": float(win_loss.detach()), "margin": float(margin_loss.detach()), "q": float(q_loss.detach())}

    def params(self) -> list[np.ndarray]:
        """The layers as an :class:`MLP`'s parameters (float32 copies)."""
        out: list[np.ndarray] = []
        for m in self.linear:
            out += [m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()]
        return out

    def to_arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """Adam's step count and moments, in the MLP's layout."""
        state = self.opt.state_dict()["state"]
        params = list(self.net.parameters())
        out: dict[str, np.ndarray] = {f"{prefix}/t": np.array(int(state[0]["step"]) if state else 0, np.int64)}
        for i, p in enumerate(params):
            s = state.get(i)
            m = s["exp_avg"].numpy() if s else np.zeros(tuple(p.shape), np.float32)
            v = s["exp_avg_sq"].numpy() if s else np.zeros(tuple(p.shape), np.float32)
            out[f"{prefix}/m{i}"] = m.T.copy() if m.ndim == 2 else m.copy()
            out[f"{prefix}/v{i}"] = v.T.copy() if v.ndim == 2 else v.copy()
        return out

    def load_arrays(self, arrays: Mapping[str, np.ndarray], prefix: str) -> None:
        """Adam's state back from :meth:`to_arrays`."""
        torch = self.torch
        t = int(np.asarray(arrays[f"{prefix}/t"]))
        if not t:
            return
        params = list(self.net.parameters())
        sd = self.opt.state_dict()
        state = {}
        for i, _ in enumerate(params):
            m = np.asarray(arrays[f"{prefix}/m{i}"], np.float32)
            v = np.asarray(arrays[f"{prefix}/v{i}"], np.float32)
            state[i] = {
                "step": torch.tensor(float(t)),
                "exp_avg": torch.from_numpy(m.T.copy() if m.ndim == 2 else m.copy()),
                "exp_avg_sq": torch.from_numpy(v.T.copy() if v.ndim == 2 else v.copy()),
            }
        sd["state"] = state
        self.opt.load_state_dict(sd)


class Trainer:
    """A training run's whole state: networks, optimisers, snapshots, generator, counters."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.nets = {n: MLP.create(feature_size(n), config.hidden, self.rng) for n in config.seats}
        self.fits = {n: TorchFit(net, config.lr) for n, net in self.nets.items()}
        # Monte-Carlo targets are noisy (one game's 0/1 outcome), so the trained weights wander from one
        # iteration to the next; their exponential moving average plays far more steadily (Polyak averaging).
        self.averaged = {n: net.copy() for n, net in self.nets.items()}
        self.snapshots: list[dict[int, MLP]] = []
        self.iteration = 0
        self.games_done = dict.fromkeys(config.seats, 0)
        self.wall = 0.0  # seconds of training so far, over all resumed parts
        self.log: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ one iteration

    def fit(self, n: int, batch: Batch) -> dict[str, float]:
        """Adam on ``batch`` for the configured epochs; the mean losses per head."""
        cfg = self.config
        net = self.nets[n]
        totals = {"win": 0.0, "margin": 0.0, "q": 0.0}
        steps = 0
        for _ in range(cfg.epochs):
            order = self.rng.permutation(len(batch))
            for lo in range(0, len(order), cfg.minibatch):
                idx = order[lo : lo + cfg.minibatch]
                mb = Batch(batch.x[idx], batch.win[idx], batch.margin[idx], batch.action[idx])
                losses = self.fits[n].step(mb)
                net.params = self.fits[n].params()
                for avg, p in zip(self.averaged[n].params, net.params, strict=True):
                    avg *= cfg.ema
                    avg += (1.0 - cfg.ema) * p
                for k, v in losses.items():
                    totals[k] += v
                steps += 1
        return {k: v / max(steps, 1) for k, v in totals.items()}

    def step(self) -> dict[str, Any]:
        """Play and learn one iteration for every seat count; return its log entry."""
        cfg = self.config
        start = time.monotonic()
        entry: dict[str, Any] = {"iteration": self.iteration + 1}
        for n in cfg.seats:
            roles = [sample_roles(n, cfg.league, self.rng, bool(self.snapshots)) for _ in range(cfg.batch_games)]
            snaps = [s[n] for s in self.snapshots]
            batch, stats = play_batch(
                n, roles, self.nets[n], snaps, self.rng, epsilon=cfg.epsilon, value_sample=cfg.value_sample
            )
            losses = self.fit(n, batch)
            self.games_done[n] += cfg.batch_games
            entry[f"{n}p"] = {"rows": len(batch), "self_share": round(stats.share("self")[0], 3), **losses}
        self.iteration += 1
        if self.iteration % cfg.snapshot_every == 0:
            self.snapshots.append({n: net.copy() for n, net in self.averaged.items()})
            del self.snapshots[: -cfg.max_snapshots]
        if cfg.eval_every and self.iteration % cfg.eval_every == 0:
            entry["eval_vs_heuristic"] = self.quick_eval()
        self.wall += time.monotonic() - start  # evaluation included: the wall time is the run's whole cost
        entry["wall"] = round(self.wall, 1)
        self.log.append(entry)
        return entry

    def quick_eval(self) -> dict[str, float]:
        """Greedy learner in one seat against heuristic bots, fixed deals: its mean win share per seat count."""
        out: dict[str, float] = {}
        for n in self.config.seats:
            rng = np.random.default_rng(EVAL_SEED + n)
            games = range(self.config.eval_games)
            roles = [tuple("self" if s == g % n else "heuristic" for s in range(n)) for g in games]
            _, stats = play_batch(n, roles, self.averaged[n], [], rng, epsilon=0.0, learn=False)
            out[f"{n}p"] = round(stats.share("self")[0], 3)
        return out

    def done(self) -> bool:
        return all(g >= self.config.games for g in self.games_done.values())

    # ------------------------------------------------------------------ checkpoints

    def save(self, path: str | Path) -> None:
        """Write the whole state (atomically: a temporary file, then a rename)."""
        arrays: dict[str, Any] = {}
        for n, net in self.nets.items():
            arrays.update(net.to_arrays(f"net/s{n}"))
            arrays.update(self.averaged[n].to_arrays(f"avg/s{n}"))
            arrays.update(self.fits[n].to_arrays(f"adam/s{n}"))
        for k, snap in enumerate(self.snapshots):
            for n, net in snap.items():
                arrays.update(net.to_arrays(f"snap{k}/s{n}"))
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": self.config.to_json(),
            "rng": self.rng.bit_generator.state,
            "iteration": self.iteration,
            "games_done": {str(n): g for n, g in self.games_done.items()},
            "snapshots": len(self.snapshots),
            "wall": self.wall,
            "log": self.log,
        }
        arrays["state"] = np.array(json.dumps(state))
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as fh:
            np.savez(fh, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> Trainer:
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise CheckpointError(f"cannot read checkpoint {str(path)!r}: {exc}") from exc
        if "state" not in arrays:
            raise CheckpointError(f"{str(path)!r} is not a training checkpoint (no 'state')")
        state = json.loads(str(arrays["state"]))
        if state.get("format") != CHECKPOINT_FORMAT:
            raise CheckpointError(f"{str(path)!r} has format {state.get('format')!r}, expected {CHECKPOINT_FORMAT!r}")
        config = TrainConfig.from_json(state["config"])
        self = cls(config)
        self.rng.bit_generator.state = state["rng"]
        for n in config.seats:
            self.nets[n] = MLP.from_arrays(arrays, f"net/s{n}")
            self.averaged[n] = MLP.from_arrays(arrays, f"avg/s{n}")
            self.fits[n] = TorchFit(self.nets[n], config.lr)
            self.fits[n].load_arrays(arrays, f"adam/s{n}")
        self.snapshots = [
            {n: MLP.from_arrays(arrays, f"snap{k}/s{n}") for n in config.seats} for k in range(state["snapshots"])
        ]
        self.iteration = int(state["iteration"])
        self.games_done = {int(n): int(g) for n, g in state["games_done"].items()}
        self.wall = float(state["wall"])
        self.log = list(state["log"])
        return self


def git_commit() -> str | None:
    """The checkout's commit, if this runs inside a git work tree (recorded beside exported weights)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, cwd=Path(__file__).parent
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip() or None


def export(trainer: Trainer, path: str | Path, command: Sequence[str], extra: Mapping[str, Any] | None = None) -> None:
    """Write shipped weights (``float16``) and, beside them, a JSON record of how they were made."""
    path = Path(path)
    meta: dict[str, Any] = {
        "command": " ".join(command),
        "config": json.loads(trainer.config.to_json()),
        "iterations": trainer.iteration,
        "games": {str(n): g for n, g in trainer.games_done.items()},
        "wall_seconds": round(trainer.wall, 1),
        "git_commit": git_commit(),
        "last_eval_vs_heuristic": _last_eval(trainer),
        **(extra or {}),
    }
    save_nets(path, trainer.averaged, meta)
    path.with_suffix(".json").write_text(json.dumps({**meta, "log": trainer.log}, indent=1, sort_keys=True) + "\n")


def _last_eval(trainer: Trainer) -> dict[str, float] | None:
    evals = [e["eval_vs_heuristic"] for e in trainer.log if "eval_vs_heuristic" in e]
    return evals[-1] if evals else None


def _line(entry: Mapping[str, Any], trainer: Trainer) -> str:
    parts = [f"it {entry['iteration']:4d}", f"wall {entry['wall']:7.1f}s"]
    for n in trainer.config.seats:
        e = entry[f"{n}p"]
        parts.append(
            f"{n}p games {trainer.games_done[n]} rows {e['rows']} win {e['win']:.3f} "
            f"margin {e['margin']:.3f} q {e['q']:.4f} self {e['self_share']:.2f}"
        )
    if "eval_vs_heuristic" in entry:
        parts.append("eval vs heuristic " + " ".join(f"{k} {v:.3f}" for k, v in entry["eval_vs_heuristic"].items()))
    return " | ".join(parts)


def build_parser() -> argparse.ArgumentParser:
    d = TrainConfig()
    p = argparse.ArgumentParser(prog="python -m catsack.learn.train", description=__doc__.split("\n\n")[0])
    p.add_argument("--seats", default="4", help="seat counts to train, e.g. 4 or 3,4,5 (one network each)")
    p.add_argument("--games", type=int, default=d.games, help="self-play games per seat count (the run's length)")
    p.add_argument("--minutes", type=float, default=None, help="also stop after this much training wall time")
    p.add_argument("--batch-games", type=int, default=d.batch_games, help="games per seat count per iteration")
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--hidden", default="128,128", help="hidden layer sizes")
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--ema", type=float, default=d.ema, help="decay of the averaged weights (shipped) per step")
    p.add_argument("--epochs", type=int, default=d.epochs, help="passes over each iteration's rows")
    p.add_argument("--epsilon", type=float, default=d.epsilon, help="exploration of the learner's seats")
    p.add_argument(
        "--league",
        default=None,
        help=f"role weights per seat ({', '.join(ROLES)}); default {DEFAULT_LEAGUE}; with --resume: a new league "
        "from here on (recorded in the log)",
    )
    p.add_argument("--snapshot-every", type=int, default=d.snapshot_every)
    p.add_argument("--eval-every", type=int, default=d.eval_every, help="quick evaluation vs heuristic (0: never)")
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--checkpoint-every", type=int, default=5, help="iterations between checkpoints")
    p.add_argument("--out", default="runs/learn", help="folder for checkpoint.npz")
    p.add_argument("--resume", default=None, metavar="CHECKPOINT", help="continue this checkpoint's run")
    p.add_argument("--export", default=None, metavar="NPZ", help="write shipped weights (+ .json record) at the end")
    return p


def _ints(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise SystemExit(f"--{what}: expected integers separated by commas, not {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    single_thread_blas()
    try:
        if args.resume:
            trainer = Trainer.load(args.resume)
            trainer.config.games = args.games  # the resumed run may be lengthened
            if args.league is not None:
                league = parse_league(args.league)
                trainer.config.league = league
                trainer.log.append({"iteration": trainer.iteration, "league_from_here": league})
            print(f"resumed {args.resume}: iteration {trainer.iteration}, games {trainer.games_done}", flush=True)
        else:
            seats = _ints(args.seats, "seats")
            for n in seats:
                feature_size(n)  # raises for seat counts outside 3..5
            config = TrainConfig(
                seats=seats,
                games=args.games,
                batch_games=args.batch_games,
                seed=args.seed,
                hidden=_ints(args.hidden, "hidden"),
                lr=args.lr,
                ema=args.ema,
                epochs=args.epochs,
                epsilon=args.epsilon,
                league=parse_league(args.league or DEFAULT_LEAGUE),
                snapshot_every=args.snapshot_every,
                eval_every=args.eval_every,
                eval_games=args.eval_games,
            )
            trainer = Trainer(config)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "checkpoint.npz"
    began = time.monotonic()
    while not trainer.done():
        if args.minutes is not None and time.monotonic() - began >= args.minutes * 60:
            print(f"stopping: {args.minutes} minutes of wall time reached", flush=True)
            break
        entry = trainer.step()
        print(_line(entry, trainer), flush=True)
        if trainer.iteration % args.checkpoint_every == 0:
            trainer.save(ckpt)
    trainer.save(ckpt)
    games = trainer.games_done
    print(f"done: {trainer.iteration} iterations, games {games}, wall {trainer.wall:.1f}s; {ckpt}", flush=True)
    if args.export:
        export(trainer, args.export, ["python -m catsack.learn.train", *(argv if argv is not None else sys.argv[1:])])
        print(f"exported {args.export}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
