"""Population table: every agent against every other at 3, 4 and 5 seats, ranked by alpha-Rank.

    .venv/bin/python bench/population.py --seats 4 --deals 2 --cache pop.json [--agents a,b,c] [--jobs 2]

For each seat count N and each ordered pair of agents (i, j) it plays the duplicate table of one ``i``
and N - 1 copies of ``j`` (every deal once per rotation, ``catsack.tournament``), and keeps the win
share (R22) per seat of each: ``f(i | j)``, the mutant's, and ``f(j | i)``, the residents'. That is
exactly the game alpha-Rank (Omidshafiei et al., 2019) asks about: can one ``i`` invade a table of
``j``? In a single population of ``--pop`` players with selection strength ``--alpha``, a mutant ``i``
in a monomorphic population of ``j`` fixes with chance

    rho = (1 - exp(-alpha d)) / (1 - exp(-m alpha d)),  d = N (f(i | j) - f(j | i))

(``1/m`` when ``d = 0``), and the stationary distribution of the Markov chain over monomorphic
populations ranks the agents: the mass each keeps. The table also lists each agent's mean
invading share ``N f(i | j)`` over the residents (1 = the fair share).

Results are kept in ``--cache`` (JSON, one entry per seat count and pair, written as each pair ends),
so a run can be stopped, resumed and extended with more agents or seat counts, and ``--report`` prints
the tables from the cache alone. Pairs are played in the order of ``--agents``: every pair among
the first k agents before any pair with the next one, so a run stopped early leaves a whole table of
the agents listed first. ``--jobs N`` plays N pairs at once, each in a process of its own (a
pair's games are deterministic, so the results do not depend on N). ``--kinds
hidden`` presents every seat as a person (``TournamentConfig.hide_kinds``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np

from catsack.tournament import TournamentConfig, run_tournament

DEFAULT_AGENTS = (
    "random",
    "heuristic",
    "ismcts:strong",
    "openspiel-ismcts:sims=400",
    "expert:easy",
    "expert:normal",
    "expert:strong",
    "expert",
    "style:saver",
    "style:early",
    "style:dumper",
    "style:bluff",
    "style:sandbag",
    "style:liar",
)


def key(seats: int, mutant: str, resident: str, hidden: bool) -> str:
    return f"{seats}|{mutant}|{resident}|{'hidden' if hidden else 'shown'}"


def play_pair(seats: int, mutant: str, resident: str, deals: int, seed: int, hidden: bool) -> dict[str, float]:
    """One mutant among ``seats - 1`` residents on ``deals`` duplicate deals: each one's win share per seat
    (``cpu``: the CPU seconds of this process, which plays every game of the pair)."""
    bots = (mutant, *([resident] * (seats - 1)))
    config = TournamentConfig(bots, games=seats * deals, seed=seed, hide_kinds=hidden)
    t0 = time.process_time()
    result = run_tournament(config, jobs=1)
    shares = {st.bot: st.win_share for st in result.stats}
    return {
        "mutant": shares[mutant],
        "resident": shares[resident],
        "games": seats * deals,
        "cpu": time.process_time() - t0,
    }


def alpha_rank(payoff: np.ndarray, alpha: float, pop: int) -> np.ndarray:
    """The stationary distribution of alpha-Rank's single-population chain; ``payoff[i, j]`` is ``d`` of
    the module docstring (the mutant ``i``'s advantage over the residents ``j``, in fair shares)."""
    k = payoff.shape[0]
    t = np.zeros((k, k))
    for j in range(k):  # from the population of j ...
        for i in range(k):  # ... a mutant i fixes
            if i == j:
                continue
            d = payoff[i, j]
            if abs(d) < 1e-12:
                rho = 1.0 / pop
            else:
                x = -alpha * d
                # (1 - e^x) / (1 - e^{m x}), computed without overflow
                rho = math.expm1(x) / math.expm1(pop * x) if pop * x < 700 else 0.0
            t[j, i] = rho / (k - 1)
        t[j, j] = 1.0 - t[j].sum()
    # the stationary distribution: the left eigenvector of t for eigenvalue 1
    a = np.vstack([t.T - np.eye(k), np.ones(k)])
    b = np.zeros(k + 1)
    b[-1] = 1.0
    pi, *_ = np.linalg.lstsq(a, b, rcond=None)
    pi = np.clip(pi, 0.0, None)
    out: np.ndarray = pi / pi.sum()
    return out


def table(
    cache: dict[str, dict[str, float]], seats: int, agents: list[str], hidden: bool, alpha: float, pop: int
) -> str:
    """The ranked population table for one seat count, as Markdown."""
    k = len(agents)
    d = np.zeros((k, k))
    invade = np.zeros((k, k))
    for i, a in enumerate(agents):
        for j, b in enumerate(agents):
            if i == j:
                invade[i, j] = 1.0
                continue
            r = cache[key(seats, a, b, hidden)]
            d[i, j] = seats * (r["mutant"] - r["resident"])
            invade[i, j] = seats * r["mutant"]
    pi = alpha_rank(d, alpha, pop)
    order = sorted(range(k), key=lambda i: (-pi[i], -invade[i].mean()))
    lines = [
        f"| rank | agent ({seats} seats) | alpha-Rank mass | mean invading share (fair = 1) | worst invading share |",
        "| --- | --- | --- | --- | --- |",
    ]
    for rank, i in enumerate(order, 1):
        others = [j for j in range(k) if j != i]
        worst = min(others, key=lambda j: invade[i, j])
        lines.append(
            f"| {rank} | `{agents[i]}` | {pi[i]:.3f} | {invade[i, others].mean():.2f} | "
            f"{invade[i, worst]:.2f} (`{agents[worst]}`) |"
        )
    return "\n".join(lines)


def pairs_to_play(
    cache: dict[str, dict[str, float]], seats: int, agents: list[str], hidden: bool
) -> list[tuple[str, str]]:
    """The ordered pairs (mutant, resident) not in the cache, every pair among the first k agents before
    any pair with agent k + 1: a run stopped early leaves a whole table of the agents listed first."""
    return sorted(
        ((a, b) for a in agents for b in agents if a != b and key(seats, a, b, hidden) not in cache),
        key=lambda pair: max(agents.index(pair[0]), agents.index(pair[1])),
    )


def play_pairs(
    cache: dict[str, dict[str, float]],
    path: Path,
    seats: int,
    todo: list[tuple[str, str]],
    args: argparse.Namespace,
    hidden: bool,
) -> None:
    """Play the pairs of ``todo``, ``args.jobs`` at a time, saving the cache as each one ends."""

    def played() -> Iterator[tuple[tuple[str, str], dict[str, float]]]:
        if args.jobs <= 1:
            for pair in todo:
                yield pair, play_pair(seats, *pair, args.deals, args.seed, hidden)
            return
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = {pool.submit(play_pair, seats, *pair, args.deals, args.seed, hidden): pair for pair in todo}
            for future in as_completed(futures):
                yield futures[future], future.result()

    for n, ((a, b), r) in enumerate(played(), 1):
        cache[key(seats, a, b, hidden)] = r
        path.write_text(json.dumps(cache, indent=1, sort_keys=True))
        print(
            f"  [{n}/{len(todo)}] {seats} seats: {a} among {b}: {r['mutant']:.3f} / {r['resident']:.3f} "
            f"({r['cpu']:.0f} s CPU)",
            file=sys.stderr,
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seats", type=int, nargs="+", default=[3, 4, 5])
    ap.add_argument("--agents", help="comma-separated specs (default: every open agent that can be made here)")
    ap.add_argument("--deals", type=int, default=2, help="duplicate deals per pair (each played once per rotation)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="pairs played at once, each in a process of its own")
    ap.add_argument("--cache", default="population.json", help="JSON file of the pairs played (read and extended)")
    ap.add_argument("--kinds", choices=("shown", "hidden"), default="shown")
    ap.add_argument("--alpha", type=float, default=10.0, help="alpha-Rank's selection strength")
    ap.add_argument("--pop", type=int, default=50, help="alpha-Rank's population size")
    ap.add_argument("--report", action="store_true", help="print the tables from the cache, playing nothing")
    args = ap.parse_args()
    from catsack.bots.base import BotSpecError, make_bot

    agents = args.agents.split(",") if args.agents else list(DEFAULT_AGENTS)
    usable = []
    for spec in agents:
        try:
            make_bot(spec).close()
            usable.append(spec)
        except BotSpecError as exc:
            print(f"left out {spec}: {exc}", file=sys.stderr)
    hidden = args.kinds == "hidden"
    path = Path(args.cache)
    cache: dict[str, dict[str, float]] = json.loads(path.read_text()) if path.exists() else {}
    for seats in args.seats:
        if not args.report:
            play_pairs(cache, path, seats, pairs_to_play(cache, seats, usable, hidden), args, hidden)
        have = [a for a in usable if all(key(seats, a, b, hidden) in cache for b in usable if b != a)]
        print(f"\n{seats} seats, kinds {args.kinds}, alpha {args.alpha:g}, population {args.pop}:\n")
        print(table(cache, seats, have, hidden, args.alpha, args.pop))


if __name__ == "__main__":
    main()
