"""Can a player trust the analysis? Its best move, its noise, and its sentences, over whole games.

    PYTHONPATH=src nice -n 10 python bench/advice_check.py --games 20 --seed 1
    PYTHONPATH=src nice -n 10 python bench/advice_check.py --games 2 --level expert:iters=500   # quick
    PYTHONPATH=src nice -n 10 python bench/advice_check.py --noise 12 --repeats 6               # calibration

Plays ``--games`` games (3, 4 and 5 seats in turn; seat 0 is ``expert:easy``, which makes mistakes of a
set size, the others ``heuristic``), analyses every decision of seat 0 as ``catsack analyse`` does
(:func:`catsack.advice.analysis.analyse_record`, level ``--level``, seed ``--seed``), and counts:

- decisions whose named best move is not the best-valued one (the target: none);
- decisions classed a mistake (or inaccuracy, blunder) although their value gap is within the noise
  (the target: none), and how many decisions were played within the noise of the best;
- decisions without one or two sentences in each language, or whose sentences' numbers differ from
  the analysis's (the target: none).

``--noise N`` instead checks the noise estimate itself: N positions of the same kind of games are
analysed ``--repeats`` times with different seeds, and the spread of each move's value between the
analyses is compared with the standard error one analysis reports (a ratio near 1: the noise shown is
the noise there is). CPU seconds and the load average are printed with the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time

from catsack.advice.analysis import analyse_record, analyse_view, judge
from catsack.advice.explain import LANGUAGES, explain, render
from catsack.bots.base import make_bot
from catsack.game import Game
from catsack.record import record_from_game

SEATS = (3, 4, 5)


def play(seats: int, seed: int) -> Game:
    """One game: seat 0 ``expert:easy``, the others ``heuristic``."""
    specs = ["expert:easy"] + ["heuristic"] * (seats - 1)
    bots = [make_bot(spec, seed=seed * 10 + s) for s, spec in enumerate(specs)]
    for s, b in enumerate(bots):
        b.reset(s, seats)
        b.meet(specs)
    g = Game.new(seats, seed=seed)
    while not g.is_over:
        s = g.to_move
        assert s is not None
        g.play(bots[s].choose(g.view(s)))
    return g


def check_games(args: argparse.Namespace) -> int:
    decisions = wrong_best = noisy_class = within = classed = bad_sentences = 0
    classes: dict[str, int] = {}
    t0 = time.process_time()
    for k in range(args.games):
        seats = SEATS[k % len(SEATS)]
        g = play(seats, args.seed + k)
        specs = ["expert:easy"] + ["heuristic"] * (seats - 1)
        record = record_from_game(g, agents=specs)
        for d in analyse_record(record, 0, level=args.level, seed=args.seed):
            a = d.analysis
            decisions += 1
            top = max(a.values.values())
            if a.values[a.best.text] != top:
                wrong_best += 1
                print(f"  game {k} ply {d.ply}: best {a.best} {a.values[a.best.text]} < {top}")
            v = judge(a.values, a.noise, a.best.text, d.played.text)
            if v.cls is not None:
                classed += 1
                classes[v.cls] = classes.get(v.cls, 0) + 1
                if v.lost <= v.noise:
                    noisy_class += 1
            if d.played != a.best and v.equal:
                within += 1
            sentences = explain(a, d.played)
            figures = d.to_dict()
            rendered = figures["sentences"]
            ok = 1 <= len(sentences) <= 2 and all(len(rendered[lang]) == len(sentences) for lang in LANGUAGES)
            first = sentences[0].params
            if "lost" in first:
                ok = ok and first["lost"] == round(v.lost, 1) and first["noise"] == round(v.noise, 1)
            if "value" in first:
                ok = ok and first["value"] == round(a.values[d.played.text], 1)
            ok = ok and all(render(s, lang) for s in sentences for lang in LANGUAGES)
            bad_sentences += not ok
        print(f"game {k + 1}/{args.games} ({seats} seats): {decisions} decisions so far", flush=True)
    cpu = time.process_time() - t0
    print(
        f"{args.games} games (3, 4, 5 seats), seat 0's {decisions} decisions at level {args.level}, seed {args.seed}:\n"
        f"  best move not the best-valued: {wrong_best} "
        f"({100 * (decisions - wrong_best) / decisions:.1f}% named right)\n"
        f"  classed a mistake (or inaccuracy, blunder) within the noise: {noisy_class} of {classed} classed "
        f"({', '.join(f'{n} {c}' for c, n in sorted(classes.items()))})\n"
        f"  played a move other than the best but within its noise (shown as equally good): {within}\n"
        f"  decisions without 1-2 sentences in {'/'.join(LANGUAGES)} matching the figures: {bad_sentences}\n"
        f"  CPU {cpu:.0f} s ({cpu / max(1, decisions):.2f} s per decision); load average {os.getloadavg()[0]:.2f}"
    )
    return 1 if wrong_best or noisy_class or bad_sentences else 0


def check_noise(args: argparse.Namespace) -> int:
    ratios: list[float] = []
    rng = random.Random(args.seed)
    positions: list[Game] = []
    k = 0
    while len(positions) < args.noise:
        g = play(SEATS[k % len(SEATS)], args.seed + 1000 + k)
        k += 1
        replay = Game(g.setup)
        found = []
        for move in g.moves:
            if replay.to_move == 0 and len(replay.legal_moves()) > 1:
                found.append(replay.clone())
            replay.play(move)
        positions.extend(rng.sample(found, min(2, len(found))))
    t0 = time.process_time()
    for pos in positions[: args.noise]:
        view = pos.view(0)
        runs = [analyse_view(view, level=args.level, seed=r) for r in range(args.repeats)]
        for m in set.intersection(*(set(r.values) for r in runs)):
            vals = [r.values[m] for r in runs]
            within = math.sqrt(sum(r.noise[m] ** 2 for r in runs) / len(runs))
            if within > 0:
                ratios.append(statistics.stdev(vals) / within)
    ratios.sort()
    q = lambda p: ratios[min(len(ratios) - 1, int(p * len(ratios)))]  # noqa: E731
    print(
        f"{args.noise} positions, {args.repeats} analyses each ({args.level}), {len(ratios)} moves: spread of a move's "
        f"value between analyses / the standard error one reports: median {q(0.5):.2f}, p90 {q(0.9):.2f}, "
        f"max {ratios[-1]:.2f}; moves whose spread is at most twice the standard error shown: "
        f"{sum(r <= 2 for r in ratios) / len(ratios):.2f}\n"
        f"  CPU {time.process_time() - t0:.0f} s; load average {os.getloadavg()[0]:.2f}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--level", default="expert", help="analysis level (catsack analyse --level)")
    ap.add_argument("--noise", type=int, default=0, help="check the noise estimate on this many positions instead")
    ap.add_argument("--repeats", type=int, default=6, help="searches per position with --noise")
    args = ap.parse_args(argv)
    if args.games < 1 or args.repeats < 2:
        ap.error("--games must be at least 1 and --repeats at least 2")
    return check_noise(args) if args.noise else check_games(args)


if __name__ == "__main__":
    raise SystemExit(main())
