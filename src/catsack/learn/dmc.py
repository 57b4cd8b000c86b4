"""Train a ``dmc`` agent (Deep Monte Carlo) with PyTorch: fast self-play against a league, or against bots.

    python -m catsack.learn.dmc --seats 3,4,5 --games 100000 --seed 1 --out runs/dmc --export dmc.npz

Needs the ``train`` extra (PyTorch, imported here only). Each iteration, per
seat count, plays ``--batch-games`` games and fits that seat count's network
on the learner's new rows: ``Q(s, a)`` of the abstract action taken,
regressed (squared error, Adam) on the seat's final return (win share plus
a small margin term: :func:`catsack.learn.mlp.mixed_return`). No
bootstrapping, no replay buffer: every row is a fresh Monte-Carlo sample.

Where the games come from (``--against``):

- ``league`` (default): batched self-play on the compiled engine
  (:func:`catsack.learn.fast_selfplay.play`). Each seat draws a role from
  ``--league``: ``self`` (the network being trained, epsilon-greedy; every
  game has at least one), ``snapshot`` (a frozen past copy, one taken every
  ``--snapshot-every`` iterations, the last ``--keep-snapshots`` kept),
  ``fixed`` (the networks of ``--fixed FILE.npz``, greedy, or drawing from
  their softmax with ``--fixed-sample``: a behaviour clone), ``value`` (a
  compiled value bidder, a simpler kin of the ``heuristic`` bot: the
  league's honest anchor, without which pure self-play drifted into play
  that loses to honest bidders) or ``random`` (catsack's random bot).
  ``--learners 1`` seats exactly one learner per game.
- a bot spec list (``expert:iters=100`` or ``expert,heuristic``): the learner
  in one seat (drawn per game), the bots in the others, on core games
  (:func:`catsack.learn.vs_bots.play_vs_bots`): slow, for exploiters.

``--init FILE.npz`` starts from exported weights (same hidden sizes).
Reproducible: all randomness flows from ``--seed`` (one numpy generator for
roles, deals and exploration; torch's generator for minibatch order), and
the checkpoint (``OUT/checkpoint.pt``, every ``--checkpoint-every``
iterations and at the end) keeps both generators' states, the networks,
Adam's moments, the snapshots and the counters: ``--resume`` continues to
the very weights an uninterrupted run reaches (one torch thread, same builds).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final

import numpy as np

from catsack.learn.blas import single_thread_blas
from catsack.learn.fast_features import NUM_ABSTRACT, feature_size
from catsack.learn.fast_selfplay import RANDOM, VALUE, GameResults, Rows, play
from catsack.learn.qnet import QNet, load_dmc, save_dmc
from catsack.learn.train import git_commit, parse_weights

__all__ = [
    "LEAGUE_ROLES",
    "DMCConfig",
    "DMCTrainer",
    "export_qnet",
    "import_torch",
    "main",
    "make_torch_net",
    "parse_league",
]

LEAGUE_ROLES: Final = ("self", "snapshot", "fixed", "value", "random")
DEFAULT_LEAGUE: Final = "self=0.4,snapshot=0.2,value=0.3,random=0.1"
EVAL_SEED: Final = 900_000  # the quick evaluation's deals never come from the training generator
CHECKPOINT_FORMAT: Final = "catsack-dmc-checkpoint/1"


def import_torch() -> Any:
    """PyTorch, or ``ImportError`` naming the extra that installs it."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(f"training needs PyTorch: pip install 'catsack[train]' ({exc})") from exc
    return torch


def parse_league(text: str) -> dict[str, float]:
    """``self=0.6,snapshot=0.3,random=0.1`` -> weight per role (:data:`LEAGUE_ROLES`)."""
    return parse_weights(text, LEAGUE_ROLES)


def make_torch_net(inputs: int, hidden: Sequence[int]) -> Any:
    """The torch network a :class:`~catsack.learn.qnet.QNet` mirrors: Linear layers with ReLU between them."""
    torch = import_torch()
    layers: list[Any] = []
    sizes = [inputs, *hidden]
    for a, b in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(sizes[-1], NUM_ABSTRACT))
    return torch.nn.Sequential(*layers)


def export_qnet(net: Any) -> QNet:
    """The numpy :class:`QNet` with the torch network's weights (float32 copies)."""
    linear = [m for m in net if hasattr(m, "weight")]
    return QNet(
        [m.weight.detach().numpy().T.copy() for m in linear],
        [m.bias.detach().numpy().copy() for m in linear],
    )


def _load_into(net: Any, q: QNet) -> None:
    torch = import_torch()
    linear = [m for m in net if hasattr(m, "weight")]
    if len(linear) != len(q.weights):
        raise ValueError(f"--init has {len(q.weights)} layers, the network {len(linear)}")
    with torch.no_grad():
        for m, w, b in zip(linear, q.weights, q.biases, strict=True):
            if tuple(m.weight.shape) != (w.shape[1], w.shape[0]):
                raise ValueError(f"--init layer {tuple(w.shape)} does not fit {tuple(m.weight.shape)}")
            m.weight.copy_(torch.from_numpy(w.T.copy()))
            m.bias.copy_(torch.from_numpy(b))


@dataclass
class DMCConfig:
    """Everything that decides a training run (kept in its checkpoints and exported weights)."""

    seats: tuple[int, ...] = (4,)
    games: int = 10_000  # per seat count
    batch_games: int = 512
    seed: int = 0
    hidden: tuple[int, ...] = (256, 256)
    lr: float = 3e-4
    minibatch: int = 1024
    epochs: int = 1
    epsilon: float = 0.05
    league: dict[str, float] = field(default_factory=lambda: parse_league(DEFAULT_LEAGUE))
    learners: int = 0  # 0: at least one learner per game; 1: exactly one
    against: tuple[str, ...] = ()  # bot specs: train against them on core games instead of the league
    fixed: str = ""  # weights file of the league's 'fixed' players
    fixed_sample: bool = False  # the fixed players draw from the softmax of their outputs (behaviour clones)
    init: str = ""  # weights file to start from
    snapshot_every: int = 10
    keep_snapshots: int = 5
    lanes: int = 1024
    eval_every: int = 10  # iterations between quick evaluations (0: none)
    eval_games: int = 512  # per seat count: one greedy learner against value bidders, fixed deals

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DMCConfig:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        for k in ("seats", "hidden", "against"):
            if k in kw:
                kw[k] = tuple(kw[k])
        return cls(**kw)


@dataclass
class _Seat:
    """The network, optimiser and snapshots of one seat count."""

    net: Any
    opt: Any
    snapshots: list[QNet] = field(default_factory=list)


class DMCTrainer:
    """A training run: :meth:`run` plays and fits iteration by iteration; :meth:`save` / :meth:`load` checkpoint it."""

    def __init__(self, config: DMCConfig) -> None:
        torch = import_torch()
        torch.set_num_threads(1)  # deterministic, and fair on a shared machine
        single_thread_blas()
        self.config = c = config
        torch.manual_seed(c.seed)
        self.rng = np.random.default_rng(c.seed)
        self.seats: dict[int, _Seat] = {}
        init = load_dmc(c.init) if c.init else None
        self.fixed = load_dmc(c.fixed) if c.fixed else None
        for n in c.seats:
            net = make_torch_net(feature_size(n), c.hidden)
            if init is not None:
                _load_into(net, init.net(n))
            self.seats[n] = _Seat(net, torch.optim.Adam(net.parameters(), lr=c.lr))
        self.iteration = 0
        self.games_played = dict.fromkeys(c.seats, 0)
        self.rows_seen = dict.fromkeys(c.seats, 0)
        self.wall = 0.0
        self.log: list[dict[str, Any]] = []
        self.commit = (git_commit() or "")[:7]  # the code that trains (a resumed run keeps its start's)

    # ------------------------------------------------------------------ one iteration

    def _roles(self, n: int, count: int, snapshots: int) -> tuple[np.ndarray, list[Any]]:
        """Roles of ``count`` league games: indices into [learner, fixed, random, value, snapshots...]."""
        c = self.config
        league = dict(c.league)
        if not snapshots:
            league.pop("snapshot", None)
        if self.fixed is None:
            league.pop("fixed", None)
        names = [r for r in LEAGUE_ROLES if league.get(r, 0.0) > 0 and (r != "self" or c.learners == 0)]
        if not names:
            names = ["self"]
        w = np.array([league[r] for r in names], np.float64)
        picks = self.rng.choice(len(names), size=(count, n), p=w / w.sum())
        role = np.zeros((count, n), np.int64)
        for k, name in enumerate(names):
            here = picks == k
            if name == "self":
                role[here] = 0
            elif name == "fixed":
                role[here] = 1
            elif name == "random":
                role[here] = 2
            elif name == "value":
                role[here] = 3
            else:
                role[here] = 4 + self.rng.integers(0, snapshots, size=int(here.sum()))
        if c.learners == 1:
            role[np.arange(count), self.rng.integers(0, n, size=count)] = 0
        else:
            none = ~(role == 0).any(axis=1)
            role[np.flatnonzero(none), self.rng.integers(0, n, size=int(none.sum()))] = 0
        return role, names

    def _play(self, n: int, learner: QNet) -> tuple[Rows, GameResults]:
        c = self.config
        count = min(c.batch_games, c.games - self.games_played[n])
        if c.against:
            from catsack.learn.vs_bots import play_vs_bots

            seats_of = self.rng.integers(0, n, size=count)
            return play_vs_bots(n, learner, list(c.against), seats_of.tolist(), rng=self.rng, epsilon=c.epsilon)
        seat = self.seats[n]
        role, _ = self._roles(n, count, len(seat.snapshots))
        fixed: Any = self.fixed.net(n) if self.fixed is not None else RANDOM
        players: list[Any] = [learner, fixed, RANDOM, VALUE, *seat.snapshots]
        seed = int(self.rng.integers(0, 2**62))
        samplers = (1,) if c.fixed_sample else ()
        return play(
            n,
            role,
            players,
            learners=(0,),
            samplers=samplers,
            epsilon=c.epsilon,
            rng=self.rng,
            seed=seed,
            lanes=c.lanes,
        )

    def _fit(self, n: int, rows: Rows) -> float:
        torch = import_torch()
        c = self.config
        seat = self.seats[n]
        x = torch.from_numpy(rows.x)
        a = torch.from_numpy(rows.action)
        y = torch.from_numpy(rows.ret)
        total = 0.0
        steps = 0
        for _ in range(c.epochs):
            order = torch.randperm(len(rows))
            for k in range(0, len(rows), c.minibatch):
                idx = order[k : k + c.minibatch]
                q = seat.net(x[idx]).gather(1, a[idx, None])[:, 0]
                loss = torch.mean((q - y[idx]) ** 2)
                seat.opt.zero_grad()
                loss.backward()
                seat.opt.step()
                total += float(loss.detach())
                steps += 1
        return total / max(steps, 1)

    def step(self) -> dict[str, Any]:
        """Play and fit one iteration for every seat count that has games left; return its log line."""
        c = self.config
        t0 = time.process_time()
        line: dict[str, Any] = {"iteration": self.iteration + 1}
        for n in c.seats:
            if self.games_played[n] >= c.games:
                continue
            seat = self.seats[n]
            learner = export_qnet(seat.net)
            rows, results = self._play(n, learner)
            loss = self._fit(n, rows) if len(rows) else float("nan")
            self.games_played[n] += len(results.roles)
            self.rows_seen[n] += len(rows)
            share, _ = results.share(0)
            line[f"s{n}"] = {
                "games": self.games_played[n],
                "rows": len(rows),
                "loss": round(loss, 5),
                "share": round(share, 4),
            }
        self.iteration += 1
        if not c.against and self.iteration % c.snapshot_every == 0:
            for n in c.seats:
                seat = self.seats[n]
                seat.snapshots.append(export_qnet(seat.net))
                del seat.snapshots[: -c.keep_snapshots]
        if c.eval_every and self.iteration % c.eval_every == 0:
            line["eval"] = self.evaluate()
        line["cpu_s"] = round(time.process_time() - t0, 2)
        self.log.append(line)
        return line

    def evaluate(self) -> dict[str, float]:
        """Quick check: per seat count, the greedy learner's win share in one seat (rotated) against value bidders.

        The same deals every time (:data:`EVAL_SEED`), and no draw from the training generators.
        """
        out: dict[str, float] = {}
        for n in self.config.seats:
            count = self.config.eval_games
            role = np.ones((count, n), np.int64)
            role[np.arange(count), np.arange(count) % n] = 0
            rng = np.random.default_rng(EVAL_SEED)
            _, results = play(n, role, [export_qnet(self.seats[n].net), VALUE], learners=(), rng=rng, seed=EVAL_SEED)
            out[f"s{n}"] = round(results.share(0)[0], 4)
        return out

    def done(self) -> bool:
        return all(self.games_played[n] >= self.config.games for n in self.config.seats)

    def run(self, *, minutes: float | None = None, out: Path | None = None, checkpoint_every: int = 10,
            quiet: bool = False) -> None:  # fmt: skip
        """Iterate until every seat count has played ``games`` (or ``minutes`` of wall time have passed)."""
        start = time.time()
        while not self.done():
            if minutes is not None and time.time() - start > 60 * minutes:
                break
            line = self.step()
            if not quiet:
                print(json.dumps(line), flush=True)
            if out is not None and self.iteration % checkpoint_every == 0:
                self.save(out / "checkpoint.pt", extra_wall=time.time() - start)
        if out is not None:
            self.save(out / "checkpoint.pt", extra_wall=time.time() - start)
        self.wall += time.time() - start

    # ------------------------------------------------------------------ checkpoints and export

    def nets(self) -> dict[int, QNet]:
        """The current networks as numpy :class:`QNet` objects."""
        return {n: export_qnet(s.net) for n, s in self.seats.items()}

    def save(self, path: Path, *, extra_wall: float = 0.0) -> None:
        """Write the checkpoint (networks, Adam, snapshots, both generators, counters, log)."""
        torch = import_torch()
        path.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": json.dumps(self.config.to_json()),
            "iteration": self.iteration,
            "games_played": json.dumps({str(k): v for k, v in self.games_played.items()}),
            "rows_seen": json.dumps({str(k): v for k, v in self.rows_seen.items()}),
            "wall": self.wall + extra_wall,
            "log": json.dumps(self.log),
            "commit": self.commit,
            "rng": json.dumps(self.rng.bit_generator.state),
            "torch_rng": torch.get_rng_state(),
            "seats": {
                str(n): {
                    "net": s.net.state_dict(),
                    "opt": s.opt.state_dict(),
                    "snapshots": [{k: torch.from_numpy(v) for k, v in q.to_arrays("q").items()} for q in s.snapshots],
                }
                for n, s in self.seats.items()
            },
        }
        tmp = path.with_suffix(".tmp")
        torch.save(state, tmp)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, *, games: int | None = None) -> DMCTrainer:
        """A trainer where the checkpoint left off (``games``: a new total per seat count)."""
        torch = import_torch()
        try:
            state = torch.load(path, weights_only=True)
        except (OSError, RuntimeError, EOFError) as exc:
            raise ValueError(f"cannot read checkpoint {str(path)!r}: {exc}") from exc
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
        config = DMCConfig.from_json(json.loads(state["config"]))
        if games is not None:
            config.games = games
        trainer = cls(config)
        trainer.iteration = int(state["iteration"])
        trainer.games_played = {int(k): v for k, v in json.loads(state["games_played"]).items()}
        trainer.rows_seen = {int(k): v for k, v in json.loads(state["rows_seen"]).items()}
        trainer.wall = float(state["wall"])
        trainer.log = json.loads(state["log"])
        trainer.commit = str(state.get("commit", ""))
        trainer.rng.bit_generator.state = json.loads(state["rng"])
        torch.set_rng_state(state["torch_rng"])
        for n, s in trainer.seats.items():
            saved = state["seats"][str(n)]
            s.net.load_state_dict(saved["net"])
            s.opt.load_state_dict(saved["opt"])
            s.snapshots = [
                QNet.from_arrays({k: v.numpy() for k, v in snap.items()}, "q") for snap in saved["snapshots"]
            ]
        return trainer

    def export(self, path: Path, *, command: str = "", extra: Mapping[str, Any] | None = None) -> None:
        """Write the networks as float16 weights with the command, configuration, counters, commit and log."""
        meta = {
            "command": command,
            "config": self.config.to_json(),
            "iterations": self.iteration,
            "games": {str(k): v for k, v in self.games_played.items()},
            "rows": {str(k): v for k, v in self.rows_seen.items()},
            "wall_s": round(self.wall, 1),
            "commit": self.commit,
            "log": self.log[-20:],
            **(extra or {}),
        }
        save_dmc(path, self.nets(), meta)
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def _tuple(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise SystemExit(f"{what} must be comma-separated integers, not {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m catsack.learn.dmc --help``)."""
    p = argparse.ArgumentParser(prog="python -m catsack.learn.dmc", description=__doc__.split("\n\n")[0])
    p.add_argument("--seats", default="4", help="seat counts, comma separated (default 4)")
    p.add_argument("--games", type=int, default=10_000, help="games per seat count (default 10000)")
    p.add_argument("--minutes", type=float, default=None, help="also stop after this much wall time")
    p.add_argument("--batch-games", type=int, default=512)
    p.add_argument("--hidden", default="256,256")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--minibatch", type=int, default=1024)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--epsilon", type=float, default=0.05)
    p.add_argument("--league", default=DEFAULT_LEAGUE)
    p.add_argument("--learners", type=int, choices=(0, 1), default=0, help="1: exactly one learner seat per game")
    p.add_argument("--against", default="league", help="'league', or bot specs (comma separated) to train against")
    p.add_argument("--fixed", default="", help="weights of the league's 'fixed' players")
    p.add_argument("--fixed-sample", action="store_true", help="fixed players sample from their softmax (clones)")
    p.add_argument("--init", default="", help="weights to start from")
    p.add_argument("--snapshot-every", type=int, default=10)
    p.add_argument("--keep-snapshots", type=int, default=5)
    p.add_argument("--lanes", type=int, default=1024)
    p.add_argument("--eval-every", type=int, default=10, help="iterations between quick evaluations (0: none)")
    p.add_argument("--eval-games", type=int, default=512)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None, help="folder for checkpoint.pt")
    p.add_argument("--checkpoint-every", type=int, default=10)
    p.add_argument("--resume", type=Path, default=None, help="a checkpoint.pt to continue (with a new --games)")
    p.add_argument("--export", type=Path, default=None, help="write the weights here (.npz, float16)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    try:
        if args.resume is not None:
            trainer = DMCTrainer.load(args.resume, games=args.games)
        else:
            against = () if args.against == "league" else tuple(s.strip() for s in args.against.split(",") if s.strip())
            config = DMCConfig(
                seats=_tuple(args.seats, "--seats"),
                games=args.games,
                batch_games=args.batch_games,
                seed=args.seed,
                hidden=_tuple(args.hidden, "--hidden"),
                lr=args.lr,
                minibatch=args.minibatch,
                epochs=args.epochs,
                epsilon=args.epsilon,
                league=parse_league(args.league),
                learners=args.learners,
                against=against,
                fixed=args.fixed,
                fixed_sample=args.fixed_sample,
                init=args.init,
                snapshot_every=args.snapshot_every,
                keep_snapshots=args.keep_snapshots,
                lanes=args.lanes,
                eval_every=args.eval_every,
                eval_games=args.eval_games,
            )
            trainer = DMCTrainer(config)
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or (args.resume.parent if args.resume is not None else None)
    trainer.run(minutes=args.minutes, out=out, checkpoint_every=args.checkpoint_every, quiet=args.quiet)
    if args.export is not None:
        trainer.export(args.export, command=" ".join(["python -m catsack.learn.dmc", *(argv or sys.argv[1:])]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
