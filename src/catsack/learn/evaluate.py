"""Reference positions for the shipped weights, and the choice of which trained weights to ship.

    python -m catsack.learn.evaluate --out tests/data/learn_fixture.json
    python -m catsack.learn.evaluate --select RUN/checkpoint.npz --export felix-v1.npz

The positions are prefixes of games among heuristic bots (fixed seeds, 3, 4
and 5 seats), stored as ``catsack/1`` records with the seat that looks; for
each, the fixture keeps the value model's win share and margin and the
policy's move. Regenerate it whenever the shipped weights change. Strength
is measured with ``catsack tournament`` on duplicate deals (docs/learning.md).

``--select`` compares, per seat count, the checkpoint's averaged weights and
its league snapshots on the same selection deals (common random numbers:
every candidate meets the same deals and the same bot seeds), one candidate
seat against tables of ``heuristic`` and of mixed opponents
(``--select-mixed``, cycled over the other seats: by default ``heuristic``
and ``random``), and exports the best network of each seat count. The
selection deals come from ``--select-seed``; report strength on other deals.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from catsack.bots.base import make_bot
from catsack.game import Game
from catsack.learn.mlp import MLP
from catsack.learn.model import DEFAULT_WEIGHTS, load_policy_model, load_value_model
from catsack.learn.selfplay import play_batch
from catsack.record import record_from_game, record_from_obj

__all__ = ["fixture", "fixture_positions", "main", "select_best"]

MIXED_DEFAULT = "heuristic,random"

_PLIES = (3, 17, 41, 66, 90)


def fixture_positions() -> list[tuple[dict[str, Any], int]]:
    """(record of a game prefix, seat) pairs: a few plies of heuristic games for each seat count."""
    out: list[tuple[dict[str, Any], int]] = []
    for seats in (3, 4, 5):
        game = Game.new(seats, seed=seats * 101)
        bots = [make_bot("heuristic", seed=s) for s in range(seats)]
        plies: list[int] = []
        while (s := game.to_move) is not None:
            game.play(bots[s].choose(game.view(s)))
        moves = game.moves
        plies = [p for p in _PLIES if p < len(moves)]
        for k, p in enumerate(plies):
            prefix = Game(game.setup)
            for m in moves[:p]:
                prefix.play(m)
            out.append((record_from_game(prefix).to_dict(), k % seats))
    return out


def fixture(name: str | None = None) -> dict[str, Any]:
    """The fixture's content for the weights ``name`` (shipped by default)."""
    value = load_value_model(name)
    policy = load_policy_model(name)
    rows = []
    for record, seat in fixture_positions():
        game = record_from_obj(record).to_game()
        view = game.view(seat)
        row: dict[str, Any] = {
            "record": record,
            "seat": seat,
            "win": round(value.evaluate(view, "win"), 5),
            "margin": round(value.evaluate(view, "margin"), 4),
        }
        if game.to_move is not None:
            mover = game.view(game.to_move)
            row["to_move"] = game.to_move
            row["policy_move"] = policy.choose(mover, random.Random(0)).text
        rows.append(row)
    return {"weights": name or DEFAULT_WEIGHTS, "positions": rows}


def candidate_score(
    net: MLP, seats: int, games: int, seed: int, mixed: tuple[str, ...] = ("heuristic", "random")
) -> float:
    """Mean win share of one greedy seat vs heuristic tables and vs mixed tables (rotating seats)."""
    import numpy as np

    shares = []
    for table in (("heuristic",) * (seats - 1), mixed):
        roles = []
        for g in range(games):
            me = g % seats
            others = iter(table[(g // seats + k) % len(table)] for k in range(seats - 1))
            roles.append(tuple("self" if s == me else next(others) for s in range(seats)))
        _, stats = play_batch(seats, roles, net, [], np.random.default_rng(seed + seats), epsilon=0.0, learn=False)
        shares.append(stats.share("self")[0])
    return float(sum(shares) / len(shares))


def select_best(
    candidates: dict[str, dict[int, MLP]], games: int, seed: int, mixed: tuple[str, ...] = ("heuristic", "random")
) -> dict[int, tuple[str, dict[str, float]]]:
    """Per seat count: the best candidate's name and every candidate's score (:func:`candidate_score`)."""
    seat_counts = sorted({n for nets in candidates.values() for n in nets})
    best: dict[int, tuple[str, dict[str, float]]] = {}
    for n in seat_counts:
        scores = {name: round(candidate_score(nets[n], n, games, seed, mixed), 4) for name, nets in candidates.items()}
        best[n] = (max(scores, key=lambda k: scores[k]), scores)
    return best


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m catsack.learn.evaluate", description=__doc__.split("\n\n")[0])
    p.add_argument("--weights", default=None, help="weights name or .npz path (default: the shipped ones)")
    p.add_argument("--out", default="-", help="fixture JSON file ('-': stdout)")
    p.add_argument("--select", default=None, metavar="CHECKPOINT", help="choose the weights to ship from a run")
    p.add_argument("--select-games", type=int, default=96, help="selection games per table and seat count")
    p.add_argument("--select-seed", type=int, default=500_000)
    p.add_argument("--select-mixed", default=MIXED_DEFAULT, help="roles of the mixed table (heuristic, random, ismcts)")
    p.add_argument("--export", default=None, metavar="NPZ", help="with --select: where to write the chosen weights")
    p.add_argument("--train-command", default="?", help="with --export: the training command, for the record")
    p.add_argument("--train-commit", default=None, help="with --export: the git commit the training ran at")
    args = p.parse_args(argv)
    if args.select:
        return _select(args)
    text = json.dumps(fixture(args.weights), indent=1) + "\n"
    if args.out == "-":
        print(text, end="")
    else:
        Path(args.out).write_text(text)
    return 0


def _select(args: argparse.Namespace) -> int:
    import sys

    from catsack.learn.train import Trainer, export

    games, seed, out = args.select_games, args.select_seed, args.export
    trainer = Trainer.load(args.select)
    candidates = {"final": dict(trainer.averaged)}
    for k, snap in enumerate(trainer.snapshots):
        candidates[f"snapshot {k}"] = snap
    mixed = tuple(r.strip() for r in args.select_mixed.split(",") if r.strip())
    best = select_best(candidates, games, seed, mixed)
    for n, (name, scores) in best.items():
        print(f"{n} seats: {name} ({scores})", flush=True)
    if out:
        trainer.averaged = {n: candidates[name][n] for n, (name, _) in best.items()}
        selection = {
            "command": " ".join(["python -m catsack.learn.evaluate", *sys.argv[1:]]),
            "games_per_table": games,
            "mixed_table": list(mixed),
            "seed": seed,
            "chosen": {str(n): name for n, (name, _) in best.items()},
            "scores": {str(n): scores for n, (_, scores) in best.items()},
        }
        extra = {"selection": selection, "train_git_commit": args.train_commit}
        export(trainer, out, [args.train_command], extra)
        print(f"exported {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
