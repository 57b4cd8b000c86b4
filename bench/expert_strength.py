"""Expert bot strength on duplicate deals (catsack.tournament), with 95% bootstrap CIs and junk-buy counts.

    .venv/bin/python bench/expert_strength.py PRESET [--games N] [--seed 1] [--jobs 1] [--seating auto]
    .venv/bin/python bench/expert_strength.py --bots expert,expert:strong,heuristic,random --games 200

Presets (and the targets they were made for):

=================  ================================================  =========  ==================
preset             table (one spec per seat)                         games      target
=================  ================================================  =========  ==================
``strong``         expert + 3 x ismcts:strong                        >= 400     >= 0.35, CI lo > 0.30
``mixed``          expert, expert:strong, heuristic, random          >= 200     expert highest, order holds
``levels``         expert, expert:strong, expert:normal, expert:easy any        order holds
``five``           expert + 4 x heuristic (5 seats)                  any        >= 0.35
``three``          expert + 2 x heuristic (3 seats)                  any        >= 0.60
``before``         ismcts:strong + 3 x heuristic (junk-buy baseline) any        -
``mixed-ismcts``   expert, ismcts:strong, heuristic, random          -          (the old mixed table)
``levels-ismcts``  expert, ismcts:strong, ismcts:normal, ismcts:easy -          (the old levels)
``openspiel``      expert, openspiel-ismcts:sims=400, 2 x heuristic  any        expert ahead >= 0.50
=================  ================================================  =========  ==================

``mixed`` and ``levels`` seat the levels people pick at a table (the lobby's Strong, Normal, Easy:
``expert:strong|normal|easy``). The table levels used to be ``ismcts:strong|normal|easy``;
the ``-ismcts`` presets keep those runs repeatable.

Every deal is played once per seating, so ``--games`` must be a multiple of the seatings per deal.
``--seating rotate`` rotates the table through the seats: n seatings for n seats. A rotation keeps
the order round the table, so a bot always speaks right after the same neighbour, and who speaks
first matters a lot in this game (``bench/round_gain.py --round1`` splits round 1 by place).
``--seating both`` adds the n rotations of the reversed order (2n seatings per deal), so each bot
also sits right before that neighbour. ``--seating auto`` (the default) picks ``both`` when the
reversed order seats the specs in ways no rotation does (``mixed``, ``levels``, their ``-ismcts``
versions and ``openspiel``: 8 seatings per deal), and ``rotate`` when the reversed order is just
another rotation (``strong``, ``five``, ``three``, ``before``), since there ``both`` would only
play the same seatings twice. Runs made before ``--seating`` existed used the rotations only: add
``--seating rotate`` to repeat them game for game.

Per spec it prints the win share (R22: ties split) with its bootstrap CI over deals, the mean
margin, and the *junk buys*: purchases of a row whose kept cats (after
R16's dogs) are worth <= -10 points, for <= 2 mice, per 100 seat-games of that spec; also the
mean price paid and kept value per row bought. Then, head to head, the first spec's share of
games in which it finished ahead of each other spec (R22's ranking, ties half), with a bootstrap CI
over deals: the comparison with ``openspiel-ismcts`` seated 1 vs 1 beside two heuristic bots is

    .venv/bin/python bench/expert_strength.py openspiel --games 96

(the preset's ``sims`` is chosen so both bots spend the same CPU time per move: ``bench/bot_cpu.py``).

``--svg FILE`` also draws the win shares with their CIs (one bar per spec, in the table's order, and the fair
share) as an SVG chart, e.g. for docs/img/.

A long run can be split across machines: ``--part K/P`` plays only the deals whose number is K modulo
P, ``--save FILE`` writes the games (JSON), and ``--combine FILE ...`` summarises saved parts together
(the same table, seed and seating), exactly as if one run had played them all; with ``--paired`` the
paired games are saved too, and combined parts print the paired margin over every part's deals:

    .venv/bin/python bench/expert_strength.py strong --games 400 --part 0/2 --save a.json --jobs 16
    .venv/bin/python bench/expert_strength.py strong --games 400 --part 1/2 --save b.json --jobs 2
    .venv/bin/python bench/expert_strength.py --combine a.json b.json

``--hide-kinds`` presents every seat to the bots as a person (the table setting
``TournamentConfig.hide_kinds``: ``Bot.meet`` gets no kinds), as at a server table of people.

``--paired SPEC`` also plays the same deals and seatings with the first spec replaced by ``SPEC`` (the
opponents' seeds are the same) and prints the first spec's paired margin, score and win share over ``SPEC``
in its seat, per game with a bootstrap CI over deals, e.g. the expert against the heuristic bot in its seat:

    .venv/bin/python bench/expert_strength.py --bots expert,style:bluff,style:bluff,style:bluff --paired heuristic

The two arms of a paired comparison can also be played as separate runs (two processes, or two
machines): play the table with ``SPEC`` first as a table of its own, save it, and compare with
``--combine FILE ... --against FILE ...`` (the same deals, seatings, seed and opponents; only the first spec
differs). It prints what ``--paired`` prints, e.g.

    .venv/bin/python bench/expert_strength.py strong --hide-kinds --games 400 --part 0/8 --save a.json
    .venv/bin/python bench/expert_strength.py --bots expert:dump=0,ismcts:strong,ismcts:strong,ismcts:strong \
        --hide-kinds --games 400 --part 0/8 --save b.json
    .venv/bin/python bench/expert_strength.py --combine a.json --against b.json

``--aivat`` replays the games and prints each spec's win share with AIVAT's control variates
(``catsack.tournament.aivat``: the deal and the moves of bots whose policy is known, scaled by a
coefficient fitted on the other half of the deals) beside the raw one, and how many fewer games the
same interval needs.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from catsack.cards import POINTS
from catsack.game import Game
from catsack.tournament import TournamentConfig, TournamentError, parse_bots, run_tournament
from catsack.tournament.runner import GameResult, play_chunk
from catsack.tournament.schedule import SEATINGS
from catsack.tournament.stats import summarize

sys.path.insert(0, str(Path(__file__).resolve().parent))
import round_gain  # a sibling script: the one reader of saved games

PRESETS: dict[str, str] = {
    "strong": "expert,ismcts:strong,ismcts:strong,ismcts:strong",
    "mixed": "expert,expert:strong,heuristic,random",
    "levels": "expert,expert:strong,expert:normal,expert:easy",
    "five": "expert,heuristic,heuristic,heuristic,heuristic",
    "three": "expert,heuristic,heuristic",
    "before": "ismcts:strong,heuristic,heuristic,heuristic",
    "mixed-ismcts": "expert,ismcts:strong,heuristic,random",
    "levels-ismcts": "expert,ismcts:strong,ismcts:normal,ismcts:easy",
    # 400 simulations cost about the expert's CPU time per move (bench/bot_cpu.py on a quiet machine: means
    # 0.370 s and 0.364 s; needs catsack[openspiel])
    "openspiel": "expert,openspiel-ismcts:sims=400,heuristic,heuristic",
}
JUNK_VALUE = -10  # a row worth this much or less (kept cats, R16) ...
JUNK_PRICE = 2  # ... bought for this many mice or fewer is a junk buy


def auto_seating(bots: Sequence[str]) -> str:
    """``--seating auto``: ``"both"`` when the reversed order round the table is not a rotation of ``bots``
    (so reversing seats the specs in ways the rotations never do), else ``"rotate"``."""
    table = tuple(bots)
    rotations = {table[k:] + table[:k] for k in range(len(table))}
    return "rotate" if table[::-1] in rotations else "both"


def read_saved(ap: argparse.ArgumentParser, name: str) -> dict[str, Any]:
    """One file written by ``--save`` (``round_gain.read_saved``); a usage error naming the file when it
    cannot be read or holds something else."""
    try:
        return round_gain.read_saved(Path(name))
    except ValueError as e:
        ap.error(str(e))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("preset", nargs="?", choices=sorted(PRESETS), help="a preset table (or give --bots)")
    ap.add_argument("--bots", help="comma-separated specs, one per seat (overrides the preset)")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument(
        "--seating",
        choices=("rotate", "both", "auto"),
        default="auto",
        help="rotate: n seatings per deal; both: also the reversed order (2n); auto (default): both where it "
        "seats the table differently",
    )
    ap.add_argument(
        "--part", type=part_arg, help="K/P or K,L,.../P: play only the deals whose number modulo P is listed"
    )
    ap.add_argument("--save", help="write the games played to this JSON file (for --combine)")
    ap.add_argument("--combine", nargs="+", metavar="FILE", help="summarise games saved by --save")
    ap.add_argument("--svg", metavar="FILE", help="also draw the win shares with their CIs as an SVG chart")
    ap.add_argument("--hide-kinds", action="store_true", help="present every seat to the bots as a person")
    ap.add_argument("--paired", metavar="SPEC", help="also play the table with SPEC in the first spec's seats")
    ap.add_argument(
        "--against",
        nargs="+",
        metavar="FILE",
        help="with --combine: saved parts of the same table with another first spec; print the paired comparison",
    )
    ap.add_argument("--aivat", action="store_true", help="also print AIVAT-corrected win shares")
    ap.add_argument(
        "--result", metavar="FILE", help="also write a small summary (for bench/results_table.py) with the command"
    )
    args = ap.parse_args()
    if args.combine:
        parts = [read_saved(ap, f) for f in args.combine]
        if len({(tuple(p["bots"]), p["seed"], p.get("seating", "rotate")) for p in parts}) != 1:
            ap.error("--combine needs parts of one table, seed and seating")
        games = load_games(parts, "games")
        elapsed = sum(p["elapsed"] for p in parts)
        seating = parts[0].get("seating", "rotate")  # files saved before --seating hold rotations only
        hide = bool(parts[0].get("hide_kinds", False))
        bots = tuple(parts[0]["bots"])
        report(bots, parts[0]["seed"], games, elapsed, "combined", args.svg, seating, hide)
        others = {tuple(p["paired_bots"]) for p in parts if "paired_bots" in p}
        paired_bots: tuple[str, ...] | None = None
        paired_parts: list[GameResult] | None = None
        if others:
            if len(others) != 1 or any("paired_bots" not in p for p in parts):
                ap.error("--combine: every part needs the same --paired spec, or none")
            paired_bots, paired_parts = others.pop(), load_games(parts, "paired_games")
            print_paired_table(bots, parts[0]["seed"], games, paired_bots, paired_parts)
        if args.result:
            write_result(args.result, bots, parts[0]["seed"], games, paired_bots, paired_parts)
        if args.against:
            theirs = [read_saved(ap, f) for f in args.against]
            other_bots = tuple(theirs[0]["bots"])
            expected = tuple(other_bots[0] if b == bots[0] else b for b in bots)
            if {
                (tuple(p["bots"]), p["seed"], p.get("seating", "rotate"), bool(p.get("hide_kinds"))) for p in theirs
            } != {(expected, parts[0]["seed"], seating, hide)}:
                ap.error(
                    "--against needs parts of the same table with only the first spec replaced, "
                    f"the same seed, seating and --hide-kinds (expected {', '.join(expected)}, seed {parts[0]['seed']})"
                )
            paired_games = load_games(theirs, "games")
            if [(g.deal, g.rotation) for g in paired_games] != [(g.deal, g.rotation) for g in games]:
                ap.error("--against: its parts must hold the same deals and seatings as --combine's")
            print_paired_table(bots, parts[0]["seed"], games, other_bots, paired_games)
        if args.aivat:
            print_aivat(bots, parts[0]["seed"], games, seating, hide)
        return
    if args.against:
        ap.error("--against compares saved parts: use it with --combine")
    if not args.bots and not args.preset:
        ap.error("give a preset or --bots")
    try:
        bots = parse_bots(args.bots or PRESETS[args.preset])
        seating = auto_seating(bots) if args.seating == "auto" else args.seating
        config = TournamentConfig(
            bots, games=args.games, seed=args.seed, keep_moves=True, seating=seating, hide_kinds=args.hide_kinds
        )
        other = None
        if args.paired:
            other = TournamentConfig(
                tuple(args.paired if b == bots[0] else b for b in bots),
                games=args.games,
                seed=args.seed,
                keep_moves=True,
                seating=seating,
                hide_kinds=args.hide_kinds,
            )
    except TournamentError as exc:
        ap.error(str(exc))
    t0 = time.perf_counter()
    played = 0

    # With --part only that part's deals are played: count those.
    total = len(part_deals(config, args.part)) * (config.games // config.deals) * (1 if other is None else 2)

    def progress(k: int) -> None:
        nonlocal played
        played += k
        print(f"  {played}/{total} games, {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)

    games = play(config, args.part, args.jobs, progress)
    elapsed = time.perf_counter() - t0
    paired = None if other is None else play(other, args.part, args.jobs, progress)
    if args.save:
        saved = {
            "bots": list(bots),
            "seed": args.seed,
            "seating": seating,
            "hide_kinds": args.hide_kinds,
            "elapsed": elapsed,
            "games": [asdict(g) for g in games],
        }
        if paired is not None and other is not None:
            saved["paired_bots"] = list(other.bots)
            saved["paired_games"] = [asdict(g) for g in paired]
        with open(args.save, "w") as f:
            json.dump(saved, f)
    report(bots, args.seed, games, elapsed, f"{args.jobs} job(s)", args.svg, seating, args.hide_kinds)
    if paired is not None and other is not None:
        print_paired_table(bots, args.seed, games, other.bots, paired)
    if args.result:
        write_result(args.result, bots, args.seed, games, other.bots if other is not None else None, paired)
    if args.aivat:
        print_aivat(bots, args.seed, games, seating, args.hide_kinds)


def split_part(text: str) -> tuple[set[int], int]:
    """``--part`` K/P or K,L,.../P as (the listed Ks, P); 0 for P where the text is not of that form."""
    which, slash, modulus = text.partition("/")
    try:
        return {int(x) for x in which.split(",")}, int(modulus) if slash else 0
    except ValueError:
        return set(), 0


def part_arg(text: str) -> str:
    """``--part``'s value, checked: K/P or K,L,.../P with every K in 0..P-1."""
    keep, modulus = split_part(text)
    if modulus < 1 or not keep or any(not 0 <= k < modulus for k in keep):
        raise argparse.ArgumentTypeError(f"{text!r}: give K/P or K,L,.../P with each K from 0 to P-1 (e.g. 0/4)")
    return text


def part_deals(config: TournamentConfig, part: str | None) -> list[int]:
    """The deals ``--part`` K/P (or K,L,.../P) plays: those whose number modulo P is listed; all without it."""
    if not part:
        return list(range(config.deals))
    keep, modulus = split_part(part)
    return [d for d in range(config.deals) if d % modulus in keep]


def play(config: TournamentConfig, part: str | None, jobs: int, progress: Callable[[int], None]) -> list[GameResult]:
    """Play the whole schedule, or with ``part`` (K/P) only the deals whose number modulo P is listed."""
    if not part:
        return run_tournament(config, jobs=jobs, progress=progress).games
    deals = part_deals(config, part)
    context = multiprocessing.get_context("forkserver")
    games: list[GameResult] = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        for chunk in pool.map(play_chunk, [config] * len(deals), [[d] for d in deals]):
            games.extend(chunk)
            progress(len(chunk))
    return games


def boot_mean(per_deal: Sequence[Sequence[float]], seed: int = 0) -> tuple[float, float, float]:
    """Mean and 95% percentile bootstrap interval over deals."""
    sums = [sum(d) for d in per_deal]
    counts = [len(d) for d in per_deal]
    rng = random.Random(seed)
    k = len(per_deal)
    boot = []
    for _ in range(2000):
        pick = [rng.randrange(k) for _ in range(k)]
        boot.append(sum(sums[i] for i in pick) / sum(counts[i] for i in pick))
    boot.sort()
    return sum(sums) / sum(counts), boot[50], boot[1949]


def load_games(parts: Sequence[dict[str, Any]], field: str) -> list[GameResult]:
    """The games kept under ``field`` in files saved by ``--save``, in schedule order."""
    return sorted(
        (
            GameResult(**{k: tuple(v) if isinstance(v, list) else v for k, v in g.items()})
            for p in parts
            for g in p[field]
        ),
        key=lambda r: (r.deal, r.rotation),
    )


def print_paired_table(
    bots: Sequence[str], seed: int, games: list[GameResult], other: Sequence[str], paired: list[GameResult]
) -> None:
    """The paired table's win shares and the first spec's paired margin, score and win share over its replacement."""
    print(f"paired table: {', '.join(other)}")
    for st in summarize(tuple(other), paired, seed=seed, ratings=False):
        print(f"  {st.bot:<24} win share {st.win_share:.3f}  margin {st.mean_margin:+.1f}")
    print_paired(bots[0], other[0], bots, games, paired)


def paired_figures(
    first: str, bots: Sequence[str], games: list[GameResult], paired: list[GameResult]
) -> dict[str, Any]:
    """The first spec's paired margin, score and win share (R22, ties split) over the spec in its seats in
    ``paired`` (the same deals and seatings), each (mean, CI low, CI high) with a bootstrap over deals; and
    the numbers of games and deals compared."""
    by_key = {(g.deal, g.rotation): g for g in paired}
    margin: dict[int, list[float]] = defaultdict(list)
    score: dict[int, list[float]] = defaultdict(list)
    wins: dict[int, list[float]] = defaultdict(list)
    for a in games:
        b = by_key.get((a.deal, a.rotation))
        if b is None:
            continue
        n = len(a.scores)
        for seat, e in enumerate(a.entries):
            if bots[e] != first:
                continue
            ma = a.scores[seat] - sum(a.scores) / n
            mb = b.scores[seat] - sum(b.scores) / n
            margin[a.deal].append(ma - mb)
            score[a.deal].append(a.scores[seat] - b.scores[seat])
            wa = 1.0 / len(a.winners) if seat in a.winners else 0.0
            wb = 1.0 / len(b.winners) if seat in b.winners else 0.0
            wins[a.deal].append(wa - wb)
    return {
        "margin": boot_mean(list(margin.values())),
        "score": boot_mean(list(score.values()), 1),
        "win": boot_mean(list(wins.values()), 2),
        "games": sum(map(len, margin.values())),
        "deals": len(margin),
    }


def win_gap(games: list[GameResult], first: int, other: int) -> tuple[float, float, float]:
    """The win share (R22, ties split) of the seat holding entry ``first`` of the table's bots minus that of the
    seat holding entry ``other``, in the same games, with a bootstrap CI over deals."""
    by_deal: dict[int, list[float]] = defaultdict(list)
    for res in games:
        share = [1.0 / len(res.winners) if s in res.winners else 0.0 for s in range(len(res.entries))]
        by_deal[res.deal].append(share[res.entries.index(first)] - share[res.entries.index(other)])
    return boot_mean(list(by_deal.values()))


def print_paired(
    first: str, other: str, bots: Sequence[str], games: list[GameResult], paired: list[GameResult]
) -> None:
    """The first spec's paired margin, score and win share (R22, ties split) over ``other`` in the same seats
    of the same games."""
    f = paired_figures(first, bots, games, paired)
    m, mlo, mhi = f["margin"]
    sc, slo, shi = f["score"]
    w, wlo, whi = f["win"]
    print(
        f"  paired over {other} in its seats ({f['games']} games, {f['deals']} deals): margin {m:+.2f} "
        f"[{mlo:+.2f}, {mhi:+.2f}], score {sc:+.2f} [{slo:+.2f}, {shi:+.2f}] points a game, "
        f"win share {w:+.3f} [{wlo:+.3f}, {whi:+.3f}]"
    )


def table_figures(bots: Sequence[str], seed: int, games: list[GameResult]) -> dict[str, Any]:
    """A table's games in figures: the bots, the numbers of games and deals, and each spec's win share (R22,
    ties split) and mean margin (R21), each with its bootstrap CI over deals."""
    stats = summarize(tuple(bots), games, seed=seed, ratings=False)
    return {
        "bots": list(bots),
        "games": len(games),
        "deals": len({g.deal for g in games}),
        "shares": {st.bot: [st.win_share, *st.win_share_ci] for st in stats},
        "margins": {st.bot: [st.mean_margin, *st.mean_margin_ci] for st in stats},
    }


def write_result(
    path: str,
    bots: Sequence[str],
    seed: int,
    games: list[GameResult],
    other: Sequence[str] | None,
    paired: list[GameResult] | None,
) -> None:
    """A small summary of a run for ``bench/results_table.py``: the command, the load average, each spec's win
    share and margin with their CIs, the first spec's head-to-head shares and its paired figures."""
    import os

    out: dict[str, Any] = {
        "kind": "strength",
        "command": "python bench/expert_strength.py " + " ".join(sys.argv[1:]),
        "load": [round(x, 2) for x in os.getloadavg()],
        **table_figures(bots, seed, games),
    }
    if paired is not None and other is not None:
        out["paired_over"] = other[0]
        out["paired"] = paired_figures(bots[0], bots, games, paired)
    Path(path).write_text(json.dumps(out, indent=1) + "\n")


def print_aivat(bots: tuple[str, ...], seed: int, games: list[GameResult], seating: str, hide: bool) -> None:
    """Each spec's raw and AIVAT win share over deals, and the games the same interval needs."""
    from catsack.tournament.aivat import by_spec, correct_games

    deals = len({g.deal for g in games})
    config = TournamentConfig(
        bots, games=len(bots) * SEATINGS[seating] * deals, seed=seed, keep_moves=True, seating=seating, hide_kinds=hide
    )
    t0 = time.process_time()
    corrected = correct_games(config, games)
    terms = sum(a.terms for a in corrected)
    print(f"AIVAT: {terms / max(1, len(games)):.1f} known-policy terms a game, {time.process_time() - t0:.0f} s CPU")
    per_spec: dict[str, list[float]] = defaultdict(list)
    for a in corrected:
        for seat, e in enumerate(a.result.entries):
            per_spec[bots[e]].append(a.outcome[seat])
    for spec, (raw, fixed, beta) in by_spec(config, corrected).items():
        values = per_spec[spec]
        mean = sum(values) / len(values)
        game_var = sum((x - mean) ** 2 for x in values) / max(1, len(values) - 1)
        per_deal = len(values) / max(1, deals)  # seat-games per deal
        if raw.deal_variance > 0:  # what duplicate dealing itself saves against one game per deal
            print(f"  {spec:<24} duplicate deals: variance ratio {game_var / per_deal / raw.deal_variance:.2f}")
        ratio = raw.deal_variance / fixed.deal_variance if fixed.deal_variance > 0 else math.nan
        fewer = 1.0 - 1.0 / ratio if ratio > 0 else math.nan
        print(
            f"  {spec:<24} raw {raw.mean:.3f} [{raw.low:.3f}, {raw.high:.3f}]  AIVAT {fixed.mean:.3f} "
            f"[{fixed.low:.3f}, {fixed.high:.3f}]  scale {beta:.2f}  variance ratio {ratio:.2f} "
            f"({100 * fewer:+.0f}% fewer games for the same interval)"
        )


def report(
    bots: tuple[str, ...],
    seed: int,
    games: list[GameResult],
    elapsed: float,
    how: str,
    svg: str | None = None,
    seating: str = "rotate",
    hide_kinds: bool = False,
) -> None:
    """Print win shares, margins, junk buys and rows bought per spec, then the head-to-head shares;
    with ``svg``, also write the win shares as a chart there. ``seating`` is the one the games were played with."""
    seats = len(bots)
    deals = len({g.deal for g in games})
    games_at_least = seats * SEATINGS.get(seating, 1) * max(1, deals)  # a bad seating fails in TournamentConfig
    config = TournamentConfig(bots, games=games_at_least, seed=seed, keep_moves=True, seating=seating)
    per_deal = config.seatings_per_deal
    stats = summarize(bots, games, seed=seed)
    junk: dict[str, int] = defaultdict(int)
    bought: dict[str, int] = defaultdict(int)
    paid: dict[str, int] = defaultdict(int)
    kept: dict[str, int] = defaultdict(int)
    for res in games:
        g = Game(config.setup(res.deal))
        for text in res.moves or ():
            g.play(text)
        for r in g.rounds:
            if r.buyer is None or r.price is None:
                continue
            spec = bots[res.entries[r.buyer]]
            value = sum(POINTS[c] for c in r.won)
            bought[spec] += 1
            paid[spec] += r.price
            kept[spec] += value
            if value <= JUNK_VALUE and r.price <= JUNK_PRICE:
                junk[spec] += 1
    print(f"table: {', '.join(bots)}; {len(games)} games ({deals} deals x {per_deal} seatings)")
    print(f"seed {seed}, seating {seating}{', kinds hidden' if hide_kinds else ''}, {elapsed:.0f} s with {how}")
    for st in stats:
        lo, hi = st.win_share_ci
        mlo, mhi = st.mean_margin_ci
        rows = bought[st.bot]
        per_row = f"{paid[st.bot] / rows:.1f} paid, {kept[st.bot] / rows:+.1f} kept" if rows else "-"
        print(
            f"  {st.bot:<24} win share {st.win_share:.3f} [{lo:.3f}, {hi:.3f}]  margin {st.mean_margin:+.1f} "
            f"[{mlo:+.1f}, {mhi:+.1f}]  junk buys {100 * junk[st.bot] / st.games:.1f}/100 games "
            f"({junk[st.bot]})  rows {rows} ({per_row} per row)"
        )
    if per_deal > seats:  # both orders round the table: each order's share alone (its seatings pooled)
        for label, order in (("as listed", False), ("reversed", True)):
            part = [g for g in games if (g.rotation >= seats) == order]
            shares = ", ".join(f"{st.bot} {st.win_share:.3f}" for st in summarize(bots, part, seed=seed, ratings=False))
            print(f"  order {label} ({len(part)} games): {shares}")
    head_to_head(games, bots)
    if svg:
        title = f"{', '.join(bots)}: {len(games)} duplicate games, seed {seed}"
        Path(svg).write_text(chart([(st.bot, st.win_share, *st.win_share_ci) for st in stats], 1 / seats, title))
        print(f"chart: {svg}")


def chart(bars: Sequence[tuple[str, float, float, float]], fair: float, title: str) -> str:
    """An SVG chart: one bar per (label, win share, CI low, CI high) in the table's order (the presets list
    the levels strongest first, so a bar longer than the one above it breaks the order), CI whiskers, and a
    dashed line at the fair share."""
    left, width, row, top = 150, 420, 34, 40

    def x(share: float) -> float:  # shares run 0..1 across the plot
        return left + width * share

    height = top + row * len(bars) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 30}" height="{height}" '
        'font-family="sans-serif" font-size="13">',
        f'<rect width="100%" height="100%" fill="white"/><text x="10" y="22" font-size="12">{escape(title)}</text>',
    ]
    for i, (label, share, lo, hi) in enumerate(bars):
        y = top + i * row
        out += [
            f'<text x="{left - 8}" y="{y + 18}" text-anchor="end">{escape(label)}</text>',
            f'<rect x="{left}" y="{y + 4}" width="{x(share) - left:.1f}" height="20" fill="#4a7ab5"/>',
            f'<line x1="{x(lo):.1f}" x2="{x(hi):.1f}" y1="{y + 14}" y2="{y + 14}" stroke="black" stroke-width="1.5"/>',
            f'<line x1="{x(lo):.1f}" x2="{x(lo):.1f}" y1="{y + 8}" y2="{y + 20}" stroke="black"/>',
            f'<line x1="{x(hi):.1f}" x2="{x(hi):.1f}" y1="{y + 8}" y2="{y + 20}" stroke="black"/>',
            f'<text x="{x(hi) + 6:.1f}" y="{y + 18}" font-size="11">{share:.3f} [{lo:.3f}, {hi:.3f}]</text>',
        ]
    base = top + row * len(bars)
    out.append(
        f'<line x1="{x(fair):.1f}" x2="{x(fair):.1f}" y1="{top}" y2="{base}" stroke="#b33" stroke-dasharray="4 3"/>'
    )
    out.append(f'<text x="{x(fair) + 4:.1f}" y="{base + 14}" font-size="11" fill="#b33">fair share {fair:.2f}</text>')
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append(f'<text x="{x(tick):.1f}" y="{base + 32}" text-anchor="middle" font-size="11">{tick:g}</text>')
    out.append(f'<text x="10" y="{base + 32}" font-size="11">win share</text></svg>')
    return "\n".join(out) + "\n"


def head_to_head(games: list[GameResult], bots: Sequence[str]) -> None:
    """Print the first spec's share of games finishing ahead of each other spec (ties half)."""
    first = bots[0]
    others = sorted({b for b in bots if b != first}, key=bots.index)
    for other in others:
        by_deal: dict[int, list[float]] = defaultdict(list)
        for res in games:
            mine = [res.ranking[s] for s, e in enumerate(res.entries) if bots[e] == first]
            theirs = [res.ranking[s] for s, e in enumerate(res.entries) if bots[e] == other]
            for a in mine:
                for b in theirs:
                    by_deal[res.deal].append(1.0 if a < b else 0.5 if a == b else 0.0)
        deals = list(by_deal.values())
        share = sum(map(sum, deals)) / sum(map(len, deals))
        rng = random.Random(0)
        boot = []
        for _ in range(2000):
            pick = [deals[rng.randrange(len(deals))] for _ in deals]
            boot.append(sum(map(sum, pick)) / sum(map(len, pick)))
        boot.sort()
        lo, hi = boot[int(0.025 * len(boot))], boot[int(0.975 * len(boot)) - 1]
        print(f"  head to head: {first} ahead of {other} in {share:.3f} [{lo:.3f}, {hi:.3f}] of games (ties half)")


if __name__ == "__main__":
    main()
