"""Sittings: several games in a row at one table, the same bot objects from game to game.

    .venv/bin/python bench/sitting.py --bots expert,dmc,dmc,dmc,dmc --against expert:memory=0 \\
        --sittings 8 --games 5 --seed 1 [--hide-kinds] [--jobs 2] [--save FILE] [--result FILE]

A sitting is ``--games`` games on fresh deals, played by the same bots in the same seats with
:func:`catsack.bots.base.play_game`, so a bot that keeps what a table's earlier games showed
(``expert:memory=1``, :mod:`catsack.bots.expert.memory`) can use it in the later ones. Each of the
``--sittings`` is played once per rotation of the seats (the first bot in every seat), and, with
``--against SPEC``, again with ``SPEC`` in the first bot's place on the same deals, bots and seeds: the
two arms are paired sitting by sitting (each rotation a sitting of its own). It prints the first bot's
win share (R22: ties split) and its margin over the table's mean score (R21) by the game's number in
the sitting (with, for a first bot that keeps a table memory, the mean of what it recalled for that
game), and for the games after the first (where a memory can act) the paired differences with 95%
bootstrap intervals over the sittings. ``--save`` writes the results after every sitting,
``--report FILE`` prints the tables of a saved run, finished or not, and ``--result FILE`` writes the games
after the first as a row of ``bench/results_table.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import fields
from pathlib import Path
from typing import Any

from catsack.bots import make_bot
from catsack.bots.base import play_game
from catsack.bots.expert.memory import Recalled
from catsack.game import Game
from catsack.setup import Setup
from catsack.tournament.schedule import derive_seed

Game_ = tuple[float, float]  # the first bot's (win share, margin) in one game
#: What a table memory sets for a game (the options of :class:`Recalled`), as the report prints it by game.
RECALLED = tuple(f.name for f in fields(Recalled) if f.name != "games")


def play_sitting(
    bots: list[str], seed: int, sitting: int, rotation: int, games: int, hide: bool
) -> tuple[list[Game_], list[dict[str, float] | None]]:
    """One sitting: the bots of ``bots`` (the first at seat ``rotation``) play ``games`` deals in a row. Per game,
    the first bot's result and what its table memory set for that game (:data:`RECALLED`), or ``None``."""
    n = len(bots)
    seats = [bots[(s - rotation) % n] for s in range(n)]
    made = [make_bot(spec, seed=derive_seed(seed, "bot", sitting, rotation, s)) for s, spec in enumerate(seats)]
    out: list[Game_] = []
    recalled: list[dict[str, float] | None] = []
    try:
        for g in range(games):
            setup = Setup.deal(n, random.Random(derive_seed(seed, "deal", sitting, g)))
            game = play_game(Game(setup), made, hide_kinds=hide)
            scores = game.scores()
            winners = game.winners()
            win = 1.0 / len(winners) if rotation in winners else 0.0
            out.append((win, scores[rotation] - sum(scores) / n))
            mem = getattr(made[rotation], "recalled", None)  # set when the game began (Bot.reset)
            recalled.append(None if mem is None else {k: getattr(mem, k) for k in RECALLED})
    finally:
        for bot in made:
            bot.close()
    return out, recalled


def cpu_since(t0: os.times_result) -> float:
    """CPU seconds of this process and its finished workers since ``t0``."""
    t = os.times()
    return sum(t[:4]) - sum(t0[:4])


def bootstrap(diffs: list[float], rng: random.Random, reps: int = 4000) -> tuple[float, float]:
    """95% percentile interval of the mean of ``diffs`` (one value per sitting; the rotations of one sitting
    share its deals, so the interval is a little narrower than one over independent deals would be)."""
    k = len(diffs)
    means = sorted(sum(diffs[rng.randrange(k)] for _ in range(k)) / k for _ in range(reps))
    return means[int(0.025 * reps)], means[int(0.975 * reps) - 1]


def played(saved: dict[str, Any]) -> tuple[list[str], dict[tuple[str, int, int], list[Game_]], list[tuple[int, int]]]:
    """A saved run's arms, each (arm, sitting, rotation)'s games, and the (sitting, rotation)s every arm has
    played."""
    arms = ["first", "against"] if saved.get("against") else ["first"]
    got = {(x["arm"], x["sitting"], x["rotation"]): [tuple(g) for g in x["games"]] for x in saved["results"]}
    units = sorted({(i, r) for _, i, r in got if all((a, i, r) in got for a in arms)})
    return arms, got, units


def report(saved: dict[str, Any]) -> None:
    """Print the tables of a run (:func:`main`'s ``--save`` file), finished or not: only the sittings played in
    every arm count."""
    bots, against, games = saved["bots"], saved.get("against"), saved["games"]
    arms, got, units = played(saved)
    recalled = {(x["arm"], x["sitting"], x["rotation"]): x.get("recalled") for x in saved["results"]}
    print(
        f"{', '.join(bots)}: {len(units)} sittings of {saved['sittings'] * len(bots)} (each rotation of the seats a "
        f"sitting) x {games} games, seed {saved['seed']}{', kinds hidden' if saved['hide_kinds'] else ''}"
        f"{'' if saved.get('complete') else ' (unfinished run)'}; {saved.get('cpu', 0):.0f} s CPU"
    )
    if not units:
        return
    for arm in arms:
        spec = bots[0] if arm == "first" else against
        print(f"\n{spec}: win share and margin by game of the sitting")
        for g in range(games):
            wins = [got[arm, i, r][g][0] for i, r in units]
            margins = [got[arm, i, r][g][1] for i, r in units]
            line = f"  game {g + 1}: {sum(wins) / len(wins):.3f}  {sum(margins) / len(margins):+.2f}"
            mems = [m[g] for i, r in units if (m := recalled.get((arm, i, r))) and len(m) > g and m[g]]
            if mems:  # what the first bot's table memory set for this game, its mean over the sittings
                line += "   recalled: " + ", ".join(f"{k} {sum(x[k] for x in mems) / len(mems):.2f}" for k in RECALLED)
            print(line)
        later = [got[arm, i, r][g] for i, r in units for g in range(1, games)]
        if later:
            print(
                f"  games 2-{games}: {sum(w for w, _ in later) / len(later):.3f}  "
                f"{sum(m for _, m in later) / len(later):+.2f}  ({len(later)} games)"
            )
    if not against:
        return
    same = sum(got["first", i, r][0] == got["against", i, r][0] for i, r in units)
    print(f"\ngame 1 (nothing to recall yet) the same in both arms in {same} of {len(units)} sittings")
    paired = later_figures(saved).get("paired")
    if paired:
        print(f"\n{bots[0]} over {against}, games 2-{games}, paired by sitting [95% CI; sittings resampled]:")
        for label, key in (("win share", "win"), ("margin", "margin")):
            m, lo, hi = paired[key]
            print(f"  {label}: {m:+.3f} [{lo:+.3f}, {hi:+.3f}]")


def later_figures(saved: dict[str, Any]) -> dict[str, Any]:
    """The first bot's win share and margin in the games after a sitting's first, each (mean, 95% CI low,
    high) with the sittings resampled, and with ``--against`` its paired differences over that bot in its
    place; only the sittings played in every arm count, and nothing where a sitting is one game."""
    against, games = saved.get("against"), saved["games"]
    _, got, units = played(saved)
    if games < 2 or not units:
        return {}
    rng = random.Random(saved["seed"])

    def mean_ci(values: list[float]) -> list[float]:
        return [sum(values) / len(values), *bootstrap(values, rng)]

    def per_sitting(arm: str, idx: int) -> list[float]:
        return [sum(got[arm, i, r][g][idx] for g in range(1, games)) / (games - 1) for i, r in units]

    out: dict[str, Any] = {"sittings": len(units), "win": mean_ci(per_sitting("first", 0))}
    out["margin"] = mean_ci(per_sitting("first", 1))
    if against:
        out["paired"] = {
            key: mean_ci([a - b for a, b in zip(per_sitting("first", idx), per_sitting("against", idx), strict=True)])
            for key, idx in (("win", 0), ("margin", 1))
        }
    return out


def write_result(path: Path, saved: dict[str, Any]) -> None:
    """A summary for ``bench/results_table.py``: the command, the load average, the table and the first
    bot's figures in the games after each sitting's first (:func:`later_figures`)."""
    keep = ("bots", "against", "seed", "games", "sittings", "hide_kinds", "complete")
    out = {
        "kind": "sitting",
        "command": "python bench/sitting.py " + " ".join(sys.argv[1:]),
        "load": [round(x, 2) for x in os.getloadavg()],
        **{k: saved.get(k) for k in keep},
        "later": later_figures(saved),
    }
    path.write_text(json.dumps(out, indent=1) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", help="comma-separated specs, one per seat; the first is measured")
    ap.add_argument("--against", help="the spec played in the first bot's place on the same sittings (paired)")
    ap.add_argument("--sittings", type=int, default=8, help="sittings, each played once per rotation of the seats")
    ap.add_argument("--games", type=int, default=5, help="games per sitting")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hide-kinds", action="store_true", help="present every seat to the bots as a person")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--save", type=Path, help="write every game's result (JSON), after each sitting")
    ap.add_argument("--report", type=Path, metavar="FILE", help="print the tables of a saved run (finished or not)")
    ap.add_argument(
        "--result",
        type=Path,
        metavar="FILE",
        help="also write a summary for bench/results_table.py (with --report too)",
    )
    args = ap.parse_args()
    if args.report is not None:
        saved = json.loads(args.report.read_text())
        report(saved)
        if args.result:
            write_result(args.result, saved)
        return
    if not args.bots:
        sys.exit("give --bots (or --report FILE)")
    bots = [b.strip() for b in args.bots.split(",")]
    if not 3 <= len(bots) <= 5:
        sys.exit(f"--bots names {len(bots)} seats; a table has 3 to 5 (R4)")
    if args.sittings < 1 or args.games < 1:
        sys.exit("--sittings and --games must be at least 1")
    for spec in {*bots, *([args.against] if args.against else [])}:
        make_bot(spec).close()  # a bad spec fails here, with its message
    n = len(bots)
    arms = {"first": bots} | ({"against": [args.against, *bots[1:]]} if args.against else {})
    jobs = [(arm, i, r) for i in range(args.sittings) for r in range(n) for arm in arms]  # the arms side by side
    t0 = os.times()
    saved: dict[str, Any] = {
        "bots": bots,
        "against": args.against,
        "seed": args.seed,
        "games": args.games,
        "sittings": args.sittings,
        "hide_kinds": args.hide_kinds,
        "complete": False,
        "results": [],
    }
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {
            pool.submit(play_sitting, arms[job[0]], args.seed, job[1], job[2], args.games, args.hide_kinds): job
            for job in jobs
        }
        for done, fut in enumerate(as_completed(futures), 1):
            arm, i, r = futures[fut]
            games, recalled = fut.result()
            saved["results"].append({"arm": arm, "sitting": i, "rotation": r, "games": games, "recalled": recalled})
            saved["cpu"] = cpu_since(t0)
            if args.save:
                args.save.write_text(json.dumps(saved))
            print(f"\r  {done}/{len(jobs)} sittings", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    saved["complete"] = True
    saved["cpu"] = cpu_since(t0)
    if args.save:
        args.save.write_text(json.dumps(saved))
    report(saved)
    if args.result:
        write_result(args.result, saved)


if __name__ == "__main__":
    main()
