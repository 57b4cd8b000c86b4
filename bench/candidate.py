"""The gate trained weights pass before they become the default ``expert``: fixed styles, an exploiter, a reader,
the default itself, a search bot.

    .venv/bin/python bench/candidate.py WEIGHTS --out DIR [--options OPTS] [--default WEIGHTS] [--seats 4]

``WEIGHTS`` is a table-weights file written by ``python -m catsack.learn.league_train --export`` (or a
shipped name); ``--options`` adds the expert's search options to the candidate (``opponents=persona``: the
shipped weights with another opponent model are a candidate too). Five checks, each a table of duplicate
deals with every seat presented as a person (``--hide-kinds``); each is saved to ``DIR`` as it ends, so a
stopped run goes on with the next one and ``--report`` prints the verdict from ``DIR`` alone:

1. **fixed styles**: the candidate among ``n - 1`` copies of each of ``--opponents`` (default: ``persona``,
   ``style:dumper``, ``style:liar``, ``style:bluff``, ``heuristic``, ``dmc``, and ``persona:thrift=0.8``, a
   value bidder who saves its mice for the late rounds) at each of ``--seats``, every
   deal once per rotation, and the default expert (``--default``: the shipped default's weights) in its seat
   on the same deals (the paired arm): the candidate's paired margin in points a game, with a bootstrap CI
   over deals;
2. **an exploiter**: a network trained from the candidate's own weights against the candidate's network
   (``league_train --opponents``, ``--exploit-games`` games at four seats), then seated against three of the
   candidate *with its search* for ``--exploit-deals`` deals (``catsack.learn.exploit``): its gain over the
   fair share;
3. **a reader**: one ``--reader`` (default ``classic``, the hand-built search expert, which reads the
   players at its table) among three of the candidate, ``--reader-games`` games, and the same deals with
   three of the default expert instead (the paired arm; it is the same for every candidate, so it is kept in
   ``--default-arms`` and played once): the reader's win share, and its paired margin against the candidate
   over against the default, with a bootstrap CI over deals;
4. **head to head**: the candidate and the default at one table with the heuristic bot and one of
   ``--h2h-fourth`` (default ``style:bluff`` and ``persona``, a table each; ``--h2h-games`` a table, every deal
   once per seating, both orders round the table, seed 5): the candidate's win share (R22, ties split) minus the
   default's in the same games, with a bootstrap CI over deals. A network can score more points than the default
   against every fixed style and still win fewer of the games the two play together;
5. **a search bot**: the candidate among three ``--searcher`` (default ``ismcts:strong``, the benchmarks'
   reference search bot), ``--search-games`` games (every deal once per rotation, seed 3), and the default in its
   seat on the same deals (the paired arm, kept in ``--default-arms`` like the reader's): the candidate's win
   share and its paired margin and win share over the default. The league trains against networks, personas and
   rules, never against a player who searches each decision (one costs a hundred times a network's CPU), so a
   network can gain against the league and the fixed styles and lose against search.

The verdict: **passes** when no fixed-style table's interval lies below zero and their mean is not below
zero, in points and in wins alike (a network can take more points from a style and win fewer games against it),
the exploiter gains at most ``+0.03`` (the target of docs/results.md), the reader's paired margin's
interval does not lie above zero (the reader gains no more against the candidate than against the default) and
no head-to-head win-share gap's interval lies below zero, and neither the paired margin's nor the paired win share's
interval at the search bot's table lies below zero.
A win share alone is too noisy for the reader: 64 games give about ±0.15 around the fair share, and pairing
the deals takes out the deals' luck. Training longer against a league of fixed players can make a network
better against them and worse against players who adapt to it; checks 2 and 3 are the cheapest measures of
that, and no check reads the sealed sets of ``bench/held_out.py`` (their seeds differ from it: ``--seed`` 90 for
the styles, 7 and 1 for the exploiter, 1 for the reader, 5 for the head-to-head tables, 3 for the search bot).
Cost on one core at four seats with the defaults: about 5, 4, 20, 8 and 30 minutes, and 20 and 30 more for the
reader's and the search bot's paired arms the first time (a game among three ``ismcts:strong`` costs about 14
CPU-seconds). When the candidate is the default itself (the same weights, no options) its arms are the
default's, played once: run ``candidate.py expert-v5 --checks reader,search`` beside a candidate's gate to fill
``--default-arms``.

``--checks`` plays only some of the five (``styles``, ``exploit``, ``reader``, ``h2h``, ``search``), so that two
processes can share a gate on two cores, for instance ``--checks reader,search`` in one and ``--checks
styles,exploit,h2h`` in the other, each with the same ``--out``; ``--report`` then judges the whole from the files.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expert_strength as es  # a sibling script: duplicate deals, paired margins, bootstraps

from catsack.bots.base import BotSpecError
from catsack.learn import exploit, league_train
from catsack.learn.agent import DEFAULT_WEIGHTS, parse_agent
from catsack.tournament import GameResult, TournamentConfig, TournamentError

OPPONENTS = ("persona", "style:dumper", "style:liar", "style:bluff", "heuristic", "dmc", "persona:thrift=0.8")
EXPLOIT_GAIN = 0.03  # the most an exploiter may gain over the fair share
H2H_FOURTH = ("style:bluff", "persona")  # the head-to-head tables' fourth players (the third: heuristic)
H2H_SEED = 5
SEARCH_SEED = 3
ARM_POLL = 20.0  # seconds between looks at a default arm another process is playing
CHECKS = ("styles", "exploit", "reader", "h2h", "search")  # the five checks, in the order a run plays them


def expert(weights: str) -> str:
    """The bot spec of the expert with these weights."""
    return f"expert:weights={weights}"


def table(bots: tuple[str, ...], games: int, seed: int) -> TournamentConfig:
    """A duplicate table: every deal once per rotation, every seat presented as a person."""
    return TournamentConfig(bots, games=games, seed=seed, seating="rotate", hide_kinds=True)


def strength(bots: tuple[str, ...], games: int, seed: int, paired: str | None) -> dict[str, Any]:
    """One duplicate table (every deal once per rotation, kinds hidden): each spec's win share and margin, and
    with ``paired`` the first spec's paired figures over ``paired`` in its seats."""
    config = table(bots, games, seed)
    progress = progress_line(bots, games * (1 if paired is None else 2))
    played = es.play(config, None, 1, progress)
    out: dict[str, Any] = {**es.table_figures(bots, seed, played), "seed": seed}
    if paired is not None:
        other = replace(config, bots=tuple(paired if b == bots[0] else b for b in bots))
        out["paired_over"] = paired
        out["paired"] = es.paired_figures(bots[0], bots, played, es.play(other, None, 1, progress))
    return out


def styles_file(out: Path, opponent: str, seats: int) -> Path:
    """Where the fixed-style table of ``opponent`` at ``seats`` is saved."""
    return out / f"styles__{opponent.replace(':', '-')}__{seats}.json"


def h2h_file(out: Path, fourth: str) -> Path:
    """Where the head-to-head table with ``fourth`` is saved."""
    return out / f"h2h__{fourth.replace(':', '-')}.json"


def save(path: Path, data: dict[str, Any]) -> None:
    """Write one check's figures (with the load average it ran at) atomically."""
    data = {**data, "load": [round(x, 2) for x in os.getloadavg()]}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(path)


def run(args: argparse.Namespace) -> None:
    """Play every check not yet saved in ``args.out``."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    hero = expert(args.weights) + (f"+{args.options}" if args.options else "")
    checks = set(args.checks)
    for n in args.seats if "styles" in checks else []:
        for opp in args.opponents:
            path = styles_file(out, opp, n)
            if not path.exists():
                save(path, strength((hero, *[opp] * (n - 1)), args.deals * n, args.seed, expert(args.default)))
    path = out / "exploit.json"
    if "exploit" in checks and not path.exists():
        net = out / "exploiter.npz"
        if not net.exists():
            league_train.main(
                ["--seats", "4", "--games", str(args.exploit_games), "--init", args.weights, "--opponents",
                 args.weights, "--roles", "exploiter=1", "--same", "1", "--hard", "0", "--exploit-every", "0",
                 "--eval-every", "0", "--ema", "0.98", "--seed", "7", "--export", str(net), "--quiet"]
            )  # fmt: skip
        exploit.main(
            ["--hero", f"{expert(str(net))}+search=0", "--against", hero, "--seats", "4", "--deals",
             str(args.exploit_deals), "--seed", "1", "--out", str(out / "exploit.jsonl"), "--result", str(path),
             "--budget", f"{args.exploit_games} games at 4 seats from the candidate's weights"]
        )  # fmt: skip
    path = out / "reader.json"
    if "reader" in checks and not path.exists():
        bots = (args.reader, hero, hero, hero)
        games, default = paired_arms(args, table(bots, args.reader_games, 1), hero)
        save(path, {**es.table_figures(bots, 1, games), "seed": 1, "paired_over": expert(args.default),
                    "paired": es.paired_figures(args.reader, bots, games, default)})  # fmt: skip
    for fourth in args.h2h_fourth if "h2h" in checks else []:
        path = h2h_file(out, fourth)
        if path.exists():
            continue
        bots = (hero, expert(args.default), "heuristic", fourth)
        config = TournamentConfig(bots, games=args.h2h_games, seed=H2H_SEED, seating="both", hide_kinds=True)
        games = es.play(config, None, 1, progress_line(bots, args.h2h_games))
        save(path, {**es.table_figures(bots, H2H_SEED, games), "seed": H2H_SEED,
                    "win_gap": list(es.win_gap(games, 0, 1))})  # fmt: skip
    path = out / "search.json"
    if "search" in checks and not path.exists():
        bots = (hero, *[args.searcher] * 3)
        games, default = paired_arms(args, table(bots, args.search_games, SEARCH_SEED), hero)
        other = (expert(args.default), *bots[1:])
        save(path, {**es.table_figures(bots, SEARCH_SEED, games), "seed": SEARCH_SEED,
                    "paired_over": expert(args.default),
                    "default_shares": es.table_figures(other, SEARCH_SEED, default)["shares"],
                    "paired": es.paired_figures(hero, bots, games, default)})  # fmt: skip


def paired_arms(
    args: argparse.Namespace, config: TournamentConfig, hero: str
) -> tuple[list[GameResult], list[GameResult]]:
    """The games of ``config`` and of the same table with the default in the candidate's seats (kept in
    ``--default-arms``); the candidate's own games are that arm when it is the default itself."""
    default_bots = tuple(expert(args.default) if b == hero else b for b in config.bots)
    if hero == expert(args.default):
        games = default_arm(args.default_arms, config)
        return games, games
    games = es.play(config, None, 1, progress_line(config.bots, config.games))
    return games, default_arm(args.default_arms, replace(config, bots=default_bots))


def default_arm(folder: Path, config: TournamentConfig) -> list[GameResult]:
    """The games of ``config`` (a table of the default's), played once and kept in ``folder``."""
    name = "__".join(b.replace(":", "-").replace("/", "-") for b in dict.fromkeys(config.bots))
    path = folder / f"{name}__{config.games}__seed{config.seed}.json"
    playing = path.with_suffix(".playing")  # the process playing this arm: its pid
    path.parent.mkdir(parents=True, exist_ok=True)
    claimed = False
    while not path.exists() and not (claimed := claim(playing)):
        if alive(playing):
            time.sleep(ARM_POLL)
        else:  # a stopped run's marker
            playing.unlink(missing_ok=True)
    if path.exists():  # played by another process (which may have finished just as this one claimed the marker)
        if claimed:
            playing.unlink(missing_ok=True)
        return es.load_games([json.loads(path.read_text())], "games")
    try:
        games = es.play(config, None, 1, progress_line(config.bots, config.games))
        save(path, {"bots": list(config.bots), "seed": config.seed, "games": [asdict(g) for g in games]})
    finally:
        playing.unlink(missing_ok=True)
    return games


def claim(marker: Path) -> bool:
    """Make ``marker`` hold this process's pid if no process holds it; whether it did (one process wins)."""
    mine = marker.with_name(f"{marker.name}.{os.getpid()}")
    mine.write_text(str(os.getpid()))
    try:
        os.link(mine, marker)  # atomic: fails when the marker exists
    except FileExistsError:
        return False
    finally:
        mine.unlink()
    return True


def alive(marker: Path) -> bool:
    """Whether the process whose pid ``marker`` holds is still running (a stopped run leaves its marker)."""
    try:
        os.kill(int(marker.read_text()), 0)
    except (ValueError, OSError):
        return False
    return True


def progress_line(bots: Sequence[str], total: int) -> Callable[[int], None]:
    """A progress callback that prints the games played of ``total`` at ``bots``'s table."""
    t0 = time.perf_counter()
    done = 0

    def progress(k: int) -> None:
        nonlocal done
        done += k
        print(f"  {', '.join(dict.fromkeys(bots))}: {done}/{total} games, {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)  # fmt: skip

    return progress


def load(path: Path) -> dict[str, Any] | None:
    """One saved check's figures, or ``None`` where it has not been played."""
    return json.loads(path.read_text()) if path.exists() else None


def verdict(
    out: Path, seats: Sequence[int], opponents: Sequence[str], fourths: Sequence[str] = H2H_FOURTH
) -> tuple[list[str], list[str]]:
    """The report's lines and the reasons the candidate fails (none: it passes), from the saved checks."""
    lines = ["| check | table | figure [95 % CI] |", "|---|---|---|"]
    failures: list[str] = []
    margins: list[float] = []
    wins: list[float] = []  # paired win shares (R22, ties split)
    missing: list[str] = []
    for n in seats:
        for opp in opponents:
            data = load(styles_file(out, opp, n))
            if data is None:
                missing.append(f"{opp} at {n} seats")
                continue
            m, lo, hi = data["paired"]["margin"]
            margins.append(m)
            w, wlo, whi = data["paired"]["win"]
            lines.append(f"| fixed styles | {opp} x {n - 1} | paired margin over {data['paired_over']} "
                         f"{m:+.1f} [{lo:+.1f}, {hi:+.1f}] points a game; win share {w:+.3f} [{wlo:+.3f}, "
                         f"{whi:+.3f}] |")  # fmt: skip
            wins.append(w)
            if hi < 0:
                failures.append(f"behind the default against {opp} at {n} seats ({m:+.1f} [{lo:+.1f}, {hi:+.1f}])")
            if whi < 0:
                failures.append(f"fewer wins than the default against {opp} at {n} seats "
                                f"({w:+.3f} [{wlo:+.3f}, {whi:+.3f}])")  # fmt: skip
    if margins:
        mean = sum(margins) / len(margins)
        share = sum(wins) / len(wins)
        lines.append(f"| fixed styles | mean of {len(margins)} tables | {mean:+.2f} points a game; win share "
                     f"{share:+.3f} |")  # fmt: skip
        if mean < 0:
            failures.append(f"the fixed-style tables' mean paired margin is below zero ({mean:+.2f})")
        if share < 0:
            failures.append(f"the fixed-style tables' mean paired win share is below zero ({share:+.3f})")
    data = load(out / "exploit.json")
    if data is None:
        missing.append("the exploiter")
    else:
        g, lo, hi = data["gain_over_fair"]
        lines.append(f"| exploiter | {data['budget']}, {data['games']} games | gain over the fair share "
                     f"{g:+.3f} [{lo:+.3f}, {hi:+.3f}] |")  # fmt: skip
        if g > EXPLOIT_GAIN:
            failures.append(f"an exploiter gains {g:+.3f} (at most {EXPLOIT_GAIN:+.2f})")
    data = load(out / "reader.json")
    if data is None:
        missing.append("the reader")
    else:
        reader = data["bots"][0]
        w, lo, hi = data["shares"][reader]
        fair = 1 / len(data["bots"])
        lines.append(f"| reader | one {reader} among three, {data['games']} games | its win share "
                     f"{w:.3f} [{lo:.3f}, {hi:.3f}] (fair {fair:.2f}) |")  # fmt: skip
        if "paired" not in data:
            missing.append("the reader's paired arm (a file of an older gate)")
        else:
            m, lo, hi = data["paired"]["margin"]
            lines.append(
                f"| reader | one {reader} among three, against the candidate over against "
                f"{data['paired_over']} | paired margin {m:+.1f} [{lo:+.1f}, {hi:+.1f}] points a game |"
            )
            if lo > 0:
                failures.append(f"one {reader} gains more against the candidate than against the default "
                                f"({m:+.1f} [{lo:+.1f}, {hi:+.1f}] points a game)")  # fmt: skip
    for fourth in fourths:
        data = load(h2h_file(out, fourth))
        if data is None:
            missing.append(f"the head-to-head table with {fourth}")
            continue
        g, lo, hi = data["win_gap"]
        lines.append(f"| head to head | {', '.join(data['bots'])}, both orders, {data['games']} games | the "
                     f"candidate's win share minus the default's {g:+.3f} [{lo:+.3f}, {hi:+.3f}] |")  # fmt: skip
        if hi < 0:
            failures.append(f"the default wins more often than the candidate at the table with {fourth} "
                            f"({g:+.3f} [{lo:+.3f}, {hi:+.3f}])")  # fmt: skip
    data = load(out / "search.json")
    if data is None:
        missing.append("the search bot's table")
    else:
        failures += search_lines(data, lines)
    failures += [f"not measured: {m}" for m in missing]
    return lines, failures


def search_lines(data: dict[str, Any], lines: list[str]) -> list[str]:
    """The search bot's table in the report's lines, and the reasons it fails the candidate."""
    hero, searcher = data["bots"][0], data["bots"][1]
    w, lo, hi = data["shares"][hero]
    d = data["default_shares"][data["paired_over"]][0]
    lines.append(f"| search bot | the candidate among three {searcher}, {data['games']} games | its win share "
                 f"{w:.3f} [{lo:.3f}, {hi:.3f}] (the default {d:.3f}) |")  # fmt: skip
    failures = []
    for key, what, fmt in (("margin", "paired margin", "+.1f"), ("win", "paired win share", "+.3f")):
        m, lo, hi = data["paired"][key]
        figure = f"{m:{fmt}} [{lo:{fmt}}, {hi:{fmt}}]"
        lines.append(f"| search bot | the candidate over {data['paired_over']} in its seat | {what} {figure} |")
        if hi < 0:
            failures.append(f"among three {searcher} the candidate's {what} over the default is below zero ({figure})")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("weights", help="the candidate's table weights (.npz path or shipped name)")
    ap.add_argument("--options", default="", help="the candidate's search options, '+' between them (opponents=mix)")
    ap.add_argument(
        "--out", type=Path, required=True, help="folder for the checks' figures, one per candidate (resumable)"
    )
    ap.add_argument(
        "--default", default=DEFAULT_WEIGHTS, help="the weights the fixed styles are paired against (the default's)"
    )
    ap.add_argument("--seats", default="4", help="seat counts of the fixed-style tables, comma separated")
    ap.add_argument("--opponents", default=",".join(OPPONENTS), help="the fixed styles, comma separated")
    ap.add_argument("--deals", type=int, default=32, help="deals per fixed-style table (each once per rotation)")
    ap.add_argument("--seed", type=int, default=90, help="the fixed-style tables' seed")
    ap.add_argument("--exploit-games", type=int, default=102_400, help="the exploiter's training games")
    ap.add_argument("--exploit-deals", type=int, default=48)
    ap.add_argument("--reader", default="classic", help="the adaptive player seated among three of the candidate")
    ap.add_argument("--reader-games", type=int, default=128, help="a multiple of 4")
    ap.add_argument("--h2h-games", type=int, default=256, help="each head-to-head table's games, a multiple of 8")
    ap.add_argument(
        "--h2h-fourth", default=",".join(H2H_FOURTH), help="the head-to-head tables' fourth players, comma separated"
    )
    ap.add_argument("--searcher", default="ismcts:strong", help="the search bot seated three times with the candidate")
    ap.add_argument("--search-games", type=int, default=128, help="games at the search bot's table, a multiple of 4")
    ap.add_argument(
        "--default-arms",
        type=Path,
        default=None,
        help="folder for the default's paired arms, shared by every candidate (default: OUT/../default-arms)",
    )
    ap.add_argument(
        "--checks", default=",".join(CHECKS), help="the checks to play, comma separated (default: all five)"
    )
    ap.add_argument("--report", action="store_true", help="print the verdict from --out without playing")
    args = ap.parse_args(argv)
    args.checks = [c.strip() for c in args.checks.split(",") if c.strip()]
    unknown = [c for c in args.checks if c not in CHECKS]
    if unknown or not args.checks:
        ap.error(f"--checks {','.join(unknown) or '(none)'}: give some of {', '.join(CHECKS)}")
    try:
        args.seats = [int(s) for s in args.seats.split(",")]
    except ValueError:
        ap.error(f"--seats {args.seats!r}: give seat counts such as 4 or 3,4,5")
    if any(not 3 <= n <= 5 for n in args.seats):
        ap.error("--seats: the game is played by 3 to 5 players (R4)")
    args.opponents = [o for o in args.opponents.split(",") if o]
    args.h2h_fourth = [o for o in args.h2h_fourth.split(",") if o]
    if args.default_arms is None:
        args.default_arms = args.out.resolve().parent / "default-arms"
    if args.reader_games < 4 or args.reader_games % 4:
        ap.error("--reader-games must be a positive multiple of 4 (one game per rotation of a deal)")
    if args.search_games < 4 or args.search_games % 4:
        ap.error("--search-games must be a positive multiple of 4 (one game per rotation of a deal)")
    if args.h2h_games < 8 or args.h2h_games % 8:
        ap.error("--h2h-games must be a positive multiple of 8 (one game per seating of a deal, both orders)")
    if args.options:
        try:
            parse_agent(args.options)
        except BotSpecError as exc:
            ap.error(f"--options: {exc}")
        if "weights=" in args.options:
            ap.error("--options: give the weights as the first argument, not as an option")
    if not args.report:
        try:
            run(args)
        except (TournamentError, ValueError, OSError) as exc:
            print(f"candidate: {exc}", file=sys.stderr)
            return 2
    lines, failures = verdict(args.out, args.seats, args.opponents, args.h2h_fourth)
    options = f" with {args.options}" if args.options else ""
    print(f"candidate {args.weights}{options} (fixed styles paired against {args.default})")
    print("\n".join(lines))
    print("passes" if not failures else "fails:\n" + "\n".join(f"- {f}" for f in failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
