"""Train the learned ``expert`` against a growing league: self-play actors (local, or Ray), a PyTorch learner.

    python -m catsack.learn.league_train --seats 3,4,5 --games 2000000 --seed 1 --out runs/expert \\
        --export expert-v1.npz [--actors 2] [--ray-address auto] [--device cpu]

Needs the ``train`` extra (PyTorch, imported here only) and the compiled engine (``fast``); ``--actors N``
with N >= 1 plays on Ray (the ``ray`` extra): on this machine by default, on a cluster with
``--ray-address``. Each iteration, per seat count, the actors play ``--batch-games`` league games
(:func:`catsack.learn.league.play_league`: one learner seat per game; the others snapshots of it, exploiters,
personas drawn per sitting, value bidders, random bots, the shipped ``dmc`` agent; sittings of a few games
whose history carries over) and the learner fits that seat count's :class:`~catsack.learn.tablenet.TableNet`
on the new rows, one pass, no replay:

- the Q head by Deep Monte Carlo: squared error of ``Q(s, a)`` of the abstract action taken against the
  seat's final return (win share plus a small margin term, :func:`catsack.learn.mlp.mixed_return`);
- the value head on the same return;
- the belief head: cross-entropy of each row card hidden from the learner (the engine knows it);
- the behaviour head, the opponent model: cross-entropy of the other players' moves (personas, snapshots,
  exploiters, value bidders, ``dmc``), from their own features.

An exponential moving average of the learner's weights (``--ema`` per step, Polyak averaging: Monte-Carlo
targets are noisy and the raw weights wander) is what joins the league, is evaluated and is exported; the raw
weights act. Every ``--eval-every`` iterations the averaged learner plays one seat against value bidders and
against personas on fixed deals, and the averaged weights of the best mean so far are kept: the run exports
those. Every ``--snapshot-every`` iterations the averaged learner joins the league as a frozen snapshot (the
last ``--keep-snapshots`` kept); every ``--exploit-every`` iterations an **exploiter** starts from the learner and
trains ``--exploit-iterations`` iterations against a table of the frozen learner alone, then joins the league
(the last ``--keep-exploiters`` kept): the league grows with what beats the learner (PSRO, AlphaStar). A share
``--hard`` of the tables of one persona come from a hard pool (:mod:`catsack.learn.hard_pool`) that brings back
the tables the learner does worst at: by its win share there (``--pool-rank win``) or by how far it falls
behind a value bidder in its seat at that table (``--pool-rank value``).

Reproducible: every game's randomness comes from a generator seeded by (``--seed``, iteration, seat count,
chunk; ``--chunks`` of them an iteration), so the same games are played whether the chunks run here or on
any number of Ray actors, and torch's
generator (minibatch order; one torch thread) is seeded by ``--seed``. Resumable: ``OUT/checkpoint.pt``
(every ``--checkpoint-every`` iterations and at the end) keeps the networks, Adam's state, the league's
networks, torch's generator, the counters and the log; ``--resume OUT/checkpoint.pt --games N`` continues
to the very weights an uninterrupted run reaches.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Final

import numpy as np

from catsack.learn.blas import single_thread_blas
from catsack.learn.hard_pool import RANKS, HardPool
from catsack.learn.league import DEFAULT_ROLES, LEARNER, PERSONA, ROLES, VALUE, LeagueConfig, play_league
from catsack.learn.mlp import MARGIN_WEIGHT
from catsack.learn.qnet import QNet, load_dmc
from catsack.learn.tablenet import TableNet, head_sizes, input_size, row_length, save_table

__all__ = ["TrainConfig", "Trainer", "main"]

CHECKPOINT_FORMAT: Final = "catsack-table-checkpoint/1"
EVAL_SEED: Final = 900_000  # the quick evaluation's deals never come from the training generators
MAX_MARGIN_WEIGHT: Final = 10.0  # beyond it the win share hardly counts in the return
EVAL_TABLES: Final = ("value", "persona")


def import_torch() -> Any:
    """PyTorch, or ``ImportError`` naming the extra that installs it."""
    try:
        import torch
    except ImportError as exc:
        raise ImportError(f"training needs PyTorch: pip install 'catsack[train]' ({exc})") from exc
    return torch


@dataclass
class TrainConfig:
    """Everything that decides a training run (kept in its checkpoints and exported weights)."""

    seats: tuple[int, ...] = (4,)
    games: int = 100_000  # per seat count, the exploiters' games included
    batch_games: int = 1024
    seed: int = 0
    hidden: tuple[int, ...] = (192, 128)
    lr: float = 2e-4
    ema: float = 0.995  # decay per step of the averaged weights that join the league, are evaluated and exported
    minibatch: int = 1024
    roles: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_ROLES))
    sitting: float = 0.5
    switch: float = 0.3
    same: float = 0.5
    hard: float = 0.5  # the share of tables of one persona drawn from the hard pool (0: no pool)
    pool_size: int = 256
    pool_refresh: int = 4  # entries the learner does best against, replaced by fresh draws each iteration
    pool_rank: str = "win"  # how the hard pool ranks its tables (catsack.learn.hard_pool.RANKS)
    epsilon: float = 0.05
    behaviour: float = 0.1
    lanes: int = 1024
    snapshot_every: int = 10
    keep_snapshots: int = 6
    exploit_every: int = 40  # 0: no exploiters
    exploit_iterations: int = 8
    keep_exploiters: int = 4
    fixed: str = "dmc-v1"  # the league's ``fixed`` player ("" for none)
    init: str = ""  # table weights to start from
    opponents: str = ""  # table weights that fill the league's exploiter role from the start (an exploiter's run)
    chunks: int = 2  # an iteration's games are played in this many chunks, each from its own generator
    actors: int = 0  # Ray actors that play the chunks (0: this process); the games do not depend on it
    ray_address: str = ""
    device: str = "cpu"
    eval_every: int = 10
    eval_games: int = 512
    loss_value: float = 0.5
    loss_belief: float = 0.2
    loss_behaviour: float = 0.5
    margin_weight: float = MARGIN_WEIGHT  # the margin term of the return the learner maximises (mixed_return)
    hoard: float = 0.0  # the chance that a league persona is a hoarder (LeagueConfig.hoard)
    opener: str = ""  # dmc weights (a clone of an opening) that play the learner's round 1 in a share of games
    opening: float = 0.0  # that share (LeagueConfig.opening)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        for k in ("seats", "hidden"):
            if k in kw:
                kw[k] = tuple(kw[k])
        return cls(**kw)

    def league(self) -> LeagueConfig:
        return LeagueConfig(
            dict(self.roles),
            self.sitting,
            self.switch,
            self.same,
            self.hard,
            self.epsilon,
            self.behaviour,
            self.lanes,
            self.margin_weight,
            self.hoard,
            self.opening,
        )


def make_torch_net(seats: int, hidden: Sequence[int]) -> Any:
    """The torch network a :class:`TableNet` mirrors: Linear layers with ReLU between them."""
    torch = import_torch()
    sizes = [input_size(seats), *hidden]
    layers: list[Any] = []
    for a, b in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
    layers.append(torch.nn.Linear(sizes[-1], sum(head_sizes(seats))))
    return torch.nn.Sequential(*layers)


def _averaged(net: Any) -> Any:
    """A copy of ``net`` to hold its averaged weights."""
    import copy

    avg = copy.deepcopy(net)
    for p in avg.parameters():
        p.requires_grad_(False)
    return avg


def export_net(seats: int, net: Any) -> TableNet:
    """The numpy :class:`TableNet` with the torch network's weights (float32 copies)."""
    linear = [m for m in net if hasattr(m, "weight")]
    return TableNet(
        seats,
        [m.weight.detach().cpu().numpy().T.copy() for m in linear],
        [m.bias.detach().cpu().numpy().copy() for m in linear],
    )


def load_into(net: Any, table: TableNet) -> None:
    """Copy a :class:`TableNet`'s weights into the torch network of the same shape."""
    torch = import_torch()
    linear = [m for m in net if hasattr(m, "weight")]
    if len(linear) != len(table.weights):
        raise ValueError(f"the weights have {len(table.weights)} layers, the network {len(linear)}")
    with torch.no_grad():
        for m, w, b in zip(linear, table.weights, table.biases, strict=True):
            if tuple(m.weight.shape) != (w.shape[1], w.shape[0]):
                raise ValueError(f"a layer {tuple(w.shape)} does not fit {tuple(m.weight.shape)}")
            m.weight.copy_(torch.from_numpy(w.T.copy()))
            m.bias.copy_(torch.from_numpy(b))


def _arrays(net: TableNet) -> dict[str, np.ndarray]:
    return net.to_arrays("n")


def _net(seats: int, arrays: Mapping[str, np.ndarray]) -> TableNet:
    return TableNet.from_arrays(seats, arrays, "n")


def play_chunk(
    seats: int, games: int, learner: Mapping[str, np.ndarray], snapshots: Sequence[Mapping[str, np.ndarray]],
    exploiters: Sequence[Mapping[str, np.ndarray]], league: LeagueConfig, key: Sequence[int], fixed: str,
    pool: np.ndarray | None = None, weights: np.ndarray | None = None, opener: str = "",
) -> tuple[Any, Any, Any]:  # fmt: skip
    """One actor's share of an iteration: ``games`` league games from the generator seeded by ``key``; ``opener``'s
    network for ``seats`` (if it has one) plays the learner's round 1 in a share ``league.opening`` of them."""
    single_thread_blas()
    rng = np.random.default_rng(list(key))
    seed = int(rng.integers(0, 2**62))
    return play_league(
        seats,
        games,
        _net(seats, learner),
        [_net(seats, a) for a in snapshots],
        [_net(seats, a) for a in exploiters],
        config=league,
        rng=rng,
        seed=seed,
        fixed=load_dmc(fixed).net(seats) if fixed else None,
        opener=load_dmc(opener).nets.get(seats) if opener else None,
        pool=pool,
        pool_weights=weights,
    )


class _Actors:
    """Where the chunks are played: in this process, or on Ray actors (local, or a cluster by address)."""

    def __init__(self, count: int, address: str) -> None:
        self.count = count
        self.remote: list[Any] = []
        if count >= 1:
            try:
                import ray
            except ImportError as exc:
                raise ImportError(f"--actors needs Ray: pip install 'catsack[ray]' ({exc})") from exc
            if not ray.is_initialized():
                ray.init(address=address or None, num_cpus=None if address else count, log_to_driver=False)
            elif not address:
                # Each actor takes one CPU: the rest would wait for ever on a smaller Ray already running here.
                cpus = int(ray.cluster_resources().get("CPU", 0))  # type: ignore[no-untyped-call]
                if cpus < count:
                    raise ValueError(f"{count} actors need {count} CPUs; the Ray running in this process has {cpus}")
            worker = ray.remote(num_cpus=1)(_Worker)
            self.remote = [worker.remote() for _ in range(count)]

    def play(self, jobs: list[tuple[Any, ...]]) -> list[tuple[Any, Any, Any]]:
        if not self.remote:
            return [play_chunk(*job) for job in jobs]
        import ray

        refs = [self.remote[k % len(self.remote)].play.remote(*job) for k, job in enumerate(jobs)]
        return list(ray.get(refs))


class _Worker:
    """A Ray actor: plays chunks (its process keeps the compiled kernels warm)."""

    def play(self, *job: Any) -> tuple[Any, Any, Any]:
        return play_chunk(*job)


@dataclass
class _Seat:
    """The learner of one seat count, its optimiser, and the league's frozen networks."""

    net: Any
    opt: Any
    avg: Any = None  # the averaged weights (a torch network of the same shape)
    snapshots: list[TableNet] = field(default_factory=list)
    exploiters: list[TableNet] = field(default_factory=list)
    best: TableNet | None = None  # the averaged weights that evaluated best so far
    best_score: float = -1.0
    pool: HardPool | None = None


class Trainer:
    """A training run: :meth:`run` plays and fits iteration by iteration; :meth:`save` / :meth:`load` checkpoint it."""

    def __init__(self, config: TrainConfig) -> None:
        torch = import_torch()
        torch.set_num_threads(1)
        single_thread_blas()
        self.config = c = config
        torch.manual_seed(c.seed)
        self.device = torch.device(c.device)
        self.seats: dict[int, _Seat] = {}
        init = None
        if c.init:
            from catsack.learn.tablenet import load_table

            init = load_table(c.init)
        opener_seats = sorted(load_dmc(c.opener).nets) if c.opener else []
        if c.opener and not set(opener_seats) & set(c.seats):
            have = ", ".join(str(n) for n in opener_seats)
            raise ValueError(f"the opener {c.opener!r} has networks for {have} seats, none of --seats")
        against = None
        if c.opponents:
            from catsack.learn.tablenet import load_table

            against = load_table(c.opponents)
        for n in c.seats:
            net = make_torch_net(n, c.hidden)
            if init is not None:
                load_into(net, init.net(n))
            net.to(self.device)
            self.seats[n] = _Seat(net, torch.optim.Adam(net.parameters(), lr=c.lr), _averaged(net))
            if against is not None:
                self.seats[n].exploiters.append(against.net(n))
            if c.hard > 0:
                self.seats[n].pool = HardPool(
                    np.random.default_rng([c.seed, 7, n]), c.pool_size, n, c.pool_rank, seed=c.seed * 1000 + n
                )
        self.pool_rng = np.random.default_rng([c.seed, 8])
        self.iteration = 0
        self.games_played = dict.fromkeys(c.seats, 0)
        self.rows_seen = dict.fromkeys(c.seats, 0)
        self.cpu = 0.0
        self.log: list[dict[str, Any]] = []
        self.fixed: QNet | None = None
        self.actors: _Actors | None = None

    # ------------------------------------------------------------------ one iteration

    def jobs(self, n: int, learner: TableNet, snapshots: list[TableNet], exploiters: list[TableNet],
             league: LeagueConfig, games: int, tag: int,
             pool: HardPool | None = None) -> list[tuple[Any, ...]]:  # fmt: skip
        c = self.config
        traits = None if pool is None else pool.traits.copy()
        weights = None if pool is None else pool.weights()
        chunks = max(1, c.chunks)
        sizes = [games // chunks + (1 if k < games % chunks else 0) for k in range(chunks)]
        learner_a = _arrays(learner)
        snaps = [_arrays(s) for s in snapshots]
        expl = [_arrays(e) for e in exploiters]
        return [
            (
                n,
                size,
                learner_a,
                snaps,
                expl,
                league,
                (c.seed, self.iteration, n, tag, k),
                c.fixed,
                traits,
                weights,
                c.opener,
            )
            for k, size in enumerate(sizes)
            if size > 0
        ]

    def _fit(self, seat: _Seat, n: int, rows: Any, behaviour: Any) -> dict[str, float]:
        torch = import_torch()
        c = self.config
        dev = self.device
        x = torch.from_numpy(rows.x).to(dev)
        a = torch.from_numpy(rows.action).to(dev)
        y = torch.from_numpy(rows.ret).to(dev)
        bel = torch.from_numpy(rows.belief.astype(np.int64)).to(dev)
        bx = torch.from_numpy(behaviour.x).to(dev)
        ba = torch.from_numpy(behaviour.action).to(dev)
        q_n, v_n, b_n, _ = head_sizes(n)
        R = row_length(n)
        totals = {"q": 0.0, "value": 0.0, "belief": 0.0, "behaviour": 0.0}
        steps = 0
        order = torch.randperm(len(x))
        border = torch.randperm(len(bx)) if len(bx) else None
        per = max(1, -(-len(x) // c.minibatch))
        bsize = -(-len(bx) // per) if len(bx) else 0
        for k in range(0, len(x), c.minibatch):
            idx = order[k : k + c.minibatch]
            out = seat.net(x[idx])
            q = out[:, :q_n].gather(1, a[idx, None])[:, 0]
            loss_q = torch.mean((q - y[idx]) ** 2)
            loss_v = torch.mean((out[:, q_n] - y[idx]) ** 2)
            logits = out[:, q_n + v_n : q_n + v_n + b_n].reshape(-1, R, 10)
            target = bel[idx]
            hidden = target >= 0
            loss_b = (
                torch.nn.functional.cross_entropy(logits[hidden], target[hidden])
                if bool(hidden.any())
                else torch.zeros((), device=dev)
            )
            loss = loss_q + c.loss_value * loss_v + c.loss_belief * loss_b
            loss_h = torch.zeros((), device=dev)
            if border is not None and bsize:
                j = steps * bsize
                bidx = border[j : j + bsize]
                if len(bidx):
                    bout = seat.net(bx[bidx])[:, q_n + v_n + b_n :]
                    loss_h = torch.nn.functional.cross_entropy(bout, ba[bidx])
                    loss = loss + c.loss_behaviour * loss_h
            seat.opt.zero_grad()
            loss.backward()
            seat.opt.step()
            if seat.avg is not None:
                with torch.no_grad():
                    for mean, now in zip(seat.avg.parameters(), seat.net.parameters(), strict=True):
                        mean.mul_(c.ema).add_(now.detach(), alpha=1.0 - c.ema)
            for name, value in (("q", loss_q), ("value", loss_v), ("belief", loss_b), ("behaviour", loss_h)):
                totals[name] += float(value.detach())
            steps += 1
        return {k: round(v / max(steps, 1), 5) for k, v in totals.items()}

    def pool(self) -> _Actors:
        if self.actors is None:
            self.actors = _Actors(self.config.actors, self.config.ray_address)
        return self.actors

    def _train_on(self, n: int, seat: _Seat, snapshots: list[TableNet], exploiters: list[TableNet],
                  league: LeagueConfig, games: int, tag: int) -> dict[str, Any]:  # fmt: skip
        """Play ``games`` with ``seat``'s network as the learner against these league networks, and fit it."""
        learner = export_net(n, seat.net.cpu())
        seat.net.to(self.device)
        hard = seat.pool if league.hard > 0 else None
        results = self.pool().play(self.jobs(n, learner, snapshots, exploiters, league, games, tag, hard))
        rows = _concat([r[0] for r in results])
        behaviour = _concat([r[1] for r in results])
        losses = self._fit(seat, n, rows, behaviour)
        win = np.concatenate([r[2].win for r in results])
        roles = np.concatenate([r[2].roles for r in results])
        share = float(win[roles == LEARNER].mean()) if (roles == LEARNER).any() else float("nan")
        if hard is not None:
            games_pool = np.concatenate([r[2].pool for r in results])
            mine = (win * (roles == LEARNER)).sum(axis=1)  # the learner's win share in each game
            hard.update(games_pool, mine, self.pool_rng, self.config.pool_refresh)
        self.games_played[n] += len(win)
        self.rows_seen[n] += len(rows)
        return {"games": self.games_played[n], "rows": len(rows), "share": round(share, 4), **losses}

    def step(self) -> dict[str, Any]:
        """One iteration for every seat count that has games left (an exploiter's phase when one is due)."""
        torch = import_torch()
        c = self.config
        t0 = time.process_time()
        self.iteration += 1
        line: dict[str, Any] = {"iteration": self.iteration}
        for n in c.seats:
            if self.games_played[n] >= c.games:
                continue
            seat = self.seats[n]
            games = min(c.batch_games, c.games - self.games_played[n])
            line[f"s{n}"] = self._train_on(n, seat, seat.snapshots, seat.exploiters, c.league(), games, 0)
            if c.exploit_every and self.iteration % c.exploit_every == 0:
                line[f"s{n}"]["exploiter"] = self._exploit(n, seat, torch)
        if self.iteration % c.snapshot_every == 0:
            for n in c.seats:
                seat = self.seats[n]
                seat.snapshots.append(self.averaged(n))
                del seat.snapshots[: -c.keep_snapshots]
        if c.eval_every and self.iteration % c.eval_every == 0:
            line["eval"] = self.evaluate()
        line["cpu_s"] = round(time.process_time() - t0, 2)
        self.cpu += time.process_time() - t0
        self.log.append(line)
        return line

    def _exploit(self, n: int, seat: _Seat, torch: Any) -> dict[str, Any]:
        """Train an exploiter against the frozen learner alone, then add it to the league."""
        c = self.config
        frozen = self.averaged(n)
        net = make_torch_net(n, c.hidden)
        load_into(net, frozen)
        net.to(self.device)
        exploiter = _Seat(net, torch.optim.Adam(net.parameters(), lr=c.lr), None)
        league = replace(c.league(), roles={"snapshot": 1.0}, sitting=0.0, hard=0.0, opening=0.0)
        last: dict[str, Any] = {}
        for k in range(c.exploit_iterations):
            last = self._train_on(n, exploiter, [frozen], [], league, c.batch_games, 1 + k)
        seat.exploiters.append(export_net(n, exploiter.net.cpu()))
        del seat.exploiters[: -c.keep_exploiters]
        return {"share": last.get("share"), "league": len(seat.exploiters)}

    def averaged(self, n: int) -> TableNet:
        """The averaged weights of seat count ``n`` as a numpy network."""
        seat = self.seats[n]
        out = export_net(n, seat.avg.cpu())
        seat.avg.to(self.device)
        return out

    def evaluate(self) -> dict[str, float]:
        """Per seat count and table: the averaged learner's greedy win share in one seat (rotated) against three
        value bidders, and against personas, on the same deals every time (:data:`EVAL_SEED`). The averaged
        weights of the best mean of the two tables so far are kept (:meth:`nets` exports them)."""
        out: dict[str, float] = {}
        quiet = replace(self.config.league(), epsilon=0.0, sitting=0.0, behaviour=0.0)
        for n in self.config.seats:
            net = self.averaged(n)
            count = self.config.eval_games
            for table in EVAL_TABLES:
                roles = np.full((count, n), VALUE if table == "value" else PERSONA, np.int64)
                roles[np.arange(count), np.arange(count) % n] = LEARNER
                rng = np.random.default_rng(EVAL_SEED)
                _, _, res = play_league(
                    n, count, net, [], [], config=quiet, rng=rng, seed=EVAL_SEED, roles=roles, record=False
                )
                out[f"s{n}-{table}"] = round(res.share(LEARNER)[0], 4)
            score = sum(out[f"s{n}-{t}"] for t in EVAL_TABLES) / len(EVAL_TABLES)
            seat = self.seats[n]
            if score > seat.best_score:
                seat.best, seat.best_score = net, score
        return out

    def done(self) -> bool:
        return all(self.games_played[n] >= self.config.games for n in self.config.seats)

    def run(self, *, minutes: float | None = None, out: Path | None = None, checkpoint_every: int = 5,
            quiet: bool = False) -> None:  # fmt: skip
        """Iterate until every seat count has played its games (or ``minutes`` of CPU time have passed)."""
        start = self.cpu
        while not self.done():
            if minutes is not None and self.cpu - start > 60 * minutes:
                break
            line = self.step()
            if not quiet:
                print(json.dumps(line), flush=True)
            if out is not None and self.iteration % checkpoint_every == 0:
                self.save(out / "checkpoint.pt")
        if out is not None:
            self.save(out / "checkpoint.pt")

    # ------------------------------------------------------------------ checkpoints and export

    def nets(self) -> dict[int, TableNet]:
        """What a run exports: per seat count the averaged weights that evaluated best, else the averaged ones."""
        return {n: s.best if s.best is not None else self.averaged(n) for n, s in self.seats.items()}

    def save(self, path: Path) -> None:
        """Write the checkpoint (networks, Adam, the league's networks, torch's generator, counters, log)."""
        torch = import_torch()
        path.parent.mkdir(parents=True, exist_ok=True)

        def frozen(nets: list[TableNet]) -> list[dict[str, Any]]:
            return [{k: torch.from_numpy(v) for k, v in _arrays(t).items()} for t in nets]

        state = {
            "format": CHECKPOINT_FORMAT,
            "config": json.dumps(self.config.to_json()),
            "iteration": self.iteration,
            "games_played": json.dumps({str(k): v for k, v in self.games_played.items()}),
            "rows_seen": json.dumps({str(k): v for k, v in self.rows_seen.items()}),
            "cpu": self.cpu,
            "log": json.dumps(self.log),
            "torch_rng": torch.get_rng_state(),
            "pool_rng": json.dumps(self.pool_rng.bit_generator.state),
            "seats": {
                str(n): {
                    "net": s.net.state_dict(),
                    "avg": s.avg.state_dict(),
                    "opt": s.opt.state_dict(),
                    "best": frozen([s.best] if s.best is not None else []),
                    "best_score": s.best_score,
                    "pool": None if s.pool is None else torch.from_numpy(s.pool.state()),
                    "snapshots": frozen(s.snapshots),
                    "exploiters": frozen(s.exploiters),
                }
                for n, s in self.seats.items()
            },
        }
        tmp = path.with_suffix(".tmp")
        torch.save(state, tmp)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path, *, games: int | None = None, actors: int | None = None) -> Trainer:
        """A trainer where the checkpoint left off (``games``: a new total per seat count)."""
        torch = import_torch()
        try:
            state = torch.load(path, weights_only=True)
        except (OSError, RuntimeError, EOFError) as exc:
            raise ValueError(f"cannot read checkpoint {str(path)!r}: {exc}") from exc
        if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
        config = TrainConfig.from_json(json.loads(state["config"]))
        if games is not None:
            config.games = games
        if actors is not None:
            config.actors = actors
        trainer = cls(config)
        trainer.iteration = int(state["iteration"])
        trainer.games_played = {int(k): v for k, v in json.loads(state["games_played"]).items()}
        trainer.rows_seen = {int(k): v for k, v in json.loads(state["rows_seen"]).items()}
        trainer.cpu = float(state["cpu"])
        trainer.log = json.loads(state["log"])
        torch.set_rng_state(state["torch_rng"])
        if "pool_rng" in state:
            trainer.pool_rng.bit_generator.state = json.loads(state["pool_rng"])
        for n, s in trainer.seats.items():
            saved = state["seats"][str(n)]
            s.net.load_state_dict(saved["net"])
            s.avg.load_state_dict(saved["avg"])
            s.opt.load_state_dict(saved["opt"])
            s.best = next((_net(n, {k: v.numpy() for k, v in t.items()}) for t in saved["best"]), None)
            s.best_score = float(saved["best_score"])
            if s.pool is not None and saved.get("pool") is not None:
                s.pool.restore(saved["pool"].numpy(), str(path))
            s.snapshots = [_net(n, {k: v.numpy() for k, v in t.items()}) for t in saved["snapshots"]]
            s.exploiters = [_net(n, {k: v.numpy() for k, v in t.items()}) for t in saved["exploiters"]]
        return trainer

    def export(self, path: Path, *, command: str = "") -> None:
        """Write the networks as float16 weights with the command, configuration, counters and log."""
        meta = {
            "command": command,
            "config": self.config.to_json(),
            "iterations": self.iteration,
            "games": {str(k): v for k, v in self.games_played.items()},
            "rows": {str(k): v for k, v in self.rows_seen.items()},
            "cpu_s": round(self.cpu, 1),
            "log": self.log[-20:],
        }
        save_table(path, self.nets(), meta)
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")


def _concat(parts: Sequence[Any]) -> Any:
    """Rows of several chunks as one (the same dataclass, every array concatenated)."""
    first = parts[0]
    kw = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(first)}
    return type(first)(**kw)


def _tuple(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip())
    except ValueError:
        raise SystemExit(f"{what} must be comma-separated integers, not {text!r}") from None


def parse_roles(text: str) -> dict[str, float]:
    """``persona=0.5,snapshot=0.3,...`` -> weight per role (:data:`catsack.learn.league.ROLES`, not ``learner``)."""
    out: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, value = part.partition("=")
        name = name.strip()
        try:
            weight = float(value)
        except ValueError:
            weight = -1.0
        if not sep or name not in ROLES or name == "learner" or weight < 0:
            raise SystemExit(f"--roles: {part!r} is not ROLE=WEIGHT with ROLE one of {', '.join(ROLES[1:])}")
        out[name] = weight
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``python -m catsack.learn.league_train --help``)."""
    d = TrainConfig()
    p = argparse.ArgumentParser(prog="python -m catsack.learn.league_train", description=__doc__.split("\n\n")[0])
    p.add_argument("--seats", default="4", help="seat counts, comma separated (default 4)")
    p.add_argument("--games", type=int, default=d.games, help="games per seat count, the exploiters' included")
    p.add_argument("--minutes", type=float, default=None, help="also stop after this much CPU time")
    p.add_argument("--batch-games", type=int, default=d.batch_games)
    p.add_argument("--hidden", default=",".join(map(str, d.hidden)))
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--ema", type=float, default=d.ema, help="decay of the averaged weights per step")
    p.add_argument("--minibatch", type=int, default=d.minibatch)
    p.add_argument("--roles", default=",".join(f"{k}={v}" for k, v in DEFAULT_ROLES.items()))
    p.add_argument("--sitting", type=float, default=d.sitting, help="chance that a table plays another game")
    p.add_argument("--switch", type=float, default=d.switch, help="chance that a persona changes style then")
    p.add_argument("--same", type=float, default=d.same, help="chance that a sitting's personas share one draw")
    p.add_argument("--hard", type=float, default=d.hard, help="share of one-persona tables from the hard pool")
    p.add_argument(
        "--hoard", type=float, default=d.hoard, help="chance that a league persona saves its mice (thrift 0.6-1)"
    )
    p.add_argument("--pool-size", type=int, default=d.pool_size)
    p.add_argument(
        "--pool-rank",
        default=d.pool_rank,
        choices=RANKS,
        help="rank the hard pool's tables by the learner's win share, or by its shortfall against a value bidder "
        "in its seat",
    )
    p.add_argument("--epsilon", type=float, default=d.epsilon)
    p.add_argument(
        "--margin-weight", type=float, default=d.margin_weight,
        help="weight of the margin (over 20 points) beside the win share in the learner's return",
    )  # fmt: skip
    p.add_argument("--behaviour", type=float, default=d.behaviour, help="share of others' decisions kept")
    p.add_argument("--lanes", type=int, default=d.lanes)
    p.add_argument("--snapshot-every", type=int, default=d.snapshot_every)
    p.add_argument("--keep-snapshots", type=int, default=d.keep_snapshots)
    p.add_argument("--exploit-every", type=int, default=d.exploit_every, help="0: no exploiters")
    p.add_argument("--exploit-iterations", type=int, default=d.exploit_iterations)
    p.add_argument("--keep-exploiters", type=int, default=d.keep_exploiters)
    p.add_argument("--fixed", default=d.fixed, help="dmc weights of the league's fixed player ('' for none)")
    p.add_argument(
        "--opener", default=d.opener,
        help="dmc weights (e.g. a clone of the classic expert's round 1) that play the learner's round 1 "
        "in a share --opening of the games",
    )  # fmt: skip
    p.add_argument("--opening", type=float, default=d.opening, help="that share of the games (0..1)")
    p.add_argument("--init", default="", help="table weights to start from")
    p.add_argument(
        "--opponents",
        default="",
        help="table weights in the league's exploiter role from the start (train against them)",
    )
    p.add_argument("--chunks", type=int, default=d.chunks, help="game chunks per iteration (own generators)")
    p.add_argument("--actors", type=int, default=0, help="Ray actors (0: play in this process)")
    p.add_argument("--ray-address", default="", help="a Ray cluster's address (default: start Ray here)")
    p.add_argument("--device", default="cpu", help="the learner's torch device (cpu, cuda)")
    p.add_argument("--eval-every", type=int, default=d.eval_every)
    p.add_argument("--eval-games", type=int, default=d.eval_games)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, default=None, help="folder for checkpoint.pt")
    p.add_argument("--checkpoint-every", type=int, default=5)
    p.add_argument("--resume", type=Path, default=None, help="a checkpoint.pt to continue (with a new --games)")
    p.add_argument("--export", type=Path, default=None, help="write the weights here (.npz, float16)")
    p.add_argument("--quiet", action="store_true")
    args = p.parse_args(argv)
    if not 0.0 <= args.hoard <= 1.0:
        print(f"error: --hoard is a chance and must lie in 0..1, not {args.hoard}", file=sys.stderr)
        return 2
    if not 0.0 <= args.opening <= 1.0 or (args.opening > 0) != bool(args.opener):
        print(f"error: --opening is a share in 0..1 ({args.opening}) and needs --opener, as --opener needs it",
              file=sys.stderr)  # fmt: skip
        return 2
    if not 0.0 <= args.margin_weight <= MAX_MARGIN_WEIGHT:
        print(f"error: --margin-weight must lie in 0..{MAX_MARGIN_WEIGHT:g}, not {args.margin_weight}", file=sys.stderr)
        return 2
    try:
        if args.resume is not None:
            trainer = Trainer.load(args.resume, games=args.games, actors=args.actors)
        else:
            config = TrainConfig(
                seats=_tuple(args.seats, "--seats"),
                games=args.games,
                batch_games=args.batch_games,
                seed=args.seed,
                hidden=_tuple(args.hidden, "--hidden"),
                lr=args.lr,
                ema=args.ema,
                minibatch=args.minibatch,
                roles=parse_roles(args.roles),
                sitting=args.sitting,
                switch=args.switch,
                same=args.same,
                hard=args.hard,
                hoard=args.hoard,
                pool_size=args.pool_size,
                pool_rank=args.pool_rank,
                epsilon=args.epsilon,
                margin_weight=args.margin_weight,
                behaviour=args.behaviour,
                lanes=args.lanes,
                chunks=args.chunks,
                snapshot_every=args.snapshot_every,
                keep_snapshots=args.keep_snapshots,
                exploit_every=args.exploit_every,
                exploit_iterations=args.exploit_iterations,
                keep_exploiters=args.keep_exploiters,
                fixed=args.fixed,
                opener=args.opener,
                opening=args.opening,
                init=args.init,
                opponents=args.opponents,
                actors=args.actors,
                ray_address=args.ray_address,
                device=args.device,
                eval_every=args.eval_every,
                eval_games=args.eval_games,
            )
            trainer = Trainer(config)
    except (ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or (args.resume.parent if args.resume is not None else None)
    trainer.run(minutes=args.minutes, out=out, checkpoint_every=args.checkpoint_every, quiet=args.quiet)
    if args.export is not None:
        trainer.export(args.export, command=" ".join(["python -m catsack.learn.league_train", *(argv or sys.argv[1:])]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
