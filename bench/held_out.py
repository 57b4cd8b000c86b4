"""The held-out benchmark: a bot against every sealed opponent (``bench/sealed``), kinds hidden, paired.

    .venv/bin/python bench/held_out.py play expert --seats 4 --deals 16 --out DIR [--only NAME,...]
    .venv/bin/python bench/held_out.py mixed expert --frozen classic --seats 4 --deals 8 --out DIR
    .venv/bin/python bench/held_out.py sitting expert --sittings 8 --games 2 --out DIR
    .venv/bin/python bench/held_out.py report DIR --hero expert --frozen classic [--json FILE]
    .venv/bin/python bench/held_out.py judge CANDIDATE.json --base DEFAULT.json

``--set`` picks the sealed set (``sealed.draws.SETS``): 2 (the default, on which the main rows of the results
table were measured), 1, the first, which the league's ``open`` trait has since seen, 3, written down later and
played once, 4, written down after the third was played, 5, written down after the fourth, 6, written down
after the fifth, 7, written down after the sixth was played, 8, written down before any figure of the seventh
was read, 9, written down before any figure of the eighth was read, 10, written down before any figure of the
ninth was read, 11, written down after the tenth was played, 12, written down after the eleventh was played
(each of these has been played once), or 13, written down after the twelfth was played (not yet played). Keep
each set's results in a folder of their own.

``play`` seats the bot with ``n - 1`` copies of each held-out opponent (``sealed.draws.SETS``) at ``n``
seats, every seat presented to every bot as a person (``--hide-kinds`` of ``bench/expert_strength.py``:
nothing tells the bot who sits there), on fresh duplicate deals (``--seed``; the benchmark's own seed, no
training or tuning reads it), each deal once with the bot in every seat (with three equal opponents the
rotations are both orders round the table). The heuristic bot plays the same deals and seatings in the
bot's seat (the opponents' seeds the same): the paired arm. Every table is saved after each deal to
``DIR/<bot>__<opponent>__<seats>.json`` (``bench/expert_strength.py --save``'s format, so ``--combine``
reads it), and a run that is stopped goes on from the last saved deal.

``mixed`` plays, for each held-out style, the table bot, ``--frozen``, heuristic, opponent, both orders
round the table (8 seatings a deal at four seats): is the bot first?

``sitting`` plays sittings (``bench/sitting.py``: several games in a row with the same bot objects) of the bot
among three of the set's sitting opponent (``sealed.draws.SETS``, which changes style from a sitting's
second game on), each sitting once per rotation, and the heuristic bot in its place on the same sittings; saved
to ``DIR/<bot>__sitting.json`` after each sitting.

``report`` prints, per opponent and seat count: the bot's win share (R22, ties split) [95% bootstrap CI
over deals], its paired margin over the heuristic bot in its seat, and over ``--frozen`` in its seat where
that bot's run of the same table is saved in ``DIR`` (its games are the same deals and seatings); then the
mixed tables. ``--json`` also writes the figures (the results table of docs/results.md is made from such files
by ``bench/results_table.py``).

``judge`` reads two ``report --json`` files of one set, a candidate's (its mixed tables played with the default
as ``--frozen``) and the default's, and says whether the candidate replaces the default by the rule written
before each set was played: (1) at 4 seats ahead of the heuristic bot with the CI against at least as many
opponents as the default less one, and behind (the CI below zero) none the default is not behind; (2) over the
4-seat rows, a mean paired win share over the heuristic bot at least the default's, and a mean paired margin
(the sitting's counted as one more row) at least the default's less one point; (3) at 3 and at 5 seats no more
opponents with the paired margin's CI below zero (both reports need rows at 3 and 5 seats: ``report --seats
3,4,5``); (4) at the mixed tables a win share at least the default's at two thirds of them and in sum.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expert_strength as es  # a sibling script: duplicate deals, paired margins, bootstraps
import sealed
from sealed.draws import CURRENT, SETS

from catsack.tournament import TournamentConfig
from catsack.tournament.runner import GameResult, play_chunk
from catsack.tournament.stats import summarize

PAIRED = "heuristic"


def styles(number: int) -> list[str]:
    """The hand-written styles of sealed set ``number``."""
    return [o for o in SETS[number][0] if o.startswith("sealed:")]


def table_file(out: Path, hero: str, opponent: str, seats: int, kind: str = "") -> Path:
    name = f"{hero}__{opponent}__{seats}{kind}"
    return out / (re.sub(r"[^A-Za-z0-9_.=+-]", "_", name) + ".json")


def load(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def games_of(data: dict[str, Any], field: str = "games") -> list[GameResult]:
    return es.load_games([data], field) if field in data else []


def play_table(
    bots: tuple[str, ...], seed: int, deals: int, seating: str, path: Path, paired: str | None
) -> dict[str, Any]:
    """Play (or go on playing) one table deal by deal, saving after each; return the saved data."""
    n = len(bots)
    per = n * (2 if seating == "both" else 1)
    config = TournamentConfig(bots, games=deals * per, seed=seed, keep_moves=True, seating=seating, hide_kinds=True)
    other = None
    if paired is not None:
        other = TournamentConfig(
            tuple(paired if b == bots[0] else b for b in bots),
            games=deals * per,
            seed=seed,
            keep_moves=True,
            seating=seating,
            hide_kinds=True,
        )
    data = load(path) or {
        "bots": list(bots),
        "seed": seed,
        "seating": seating,
        "hide_kinds": True,
        "elapsed": 0.0,
        "cpu": 0.0,
        "games": [],
    }
    if other is not None:
        data.setdefault("paired_bots", list(other.bots))
        data.setdefault("paired_games", [])
    done = {g["deal"] for g in data["games"]}
    for deal in range(deals):
        if deal in done:
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        data["games"] += [asdict(g) for g in play_chunk(config, [deal])]
        if other is not None:
            data["paired_games"] += [asdict(g) for g in play_chunk(other, [deal])]
        data["elapsed"] += time.perf_counter() - t0
        data["cpu"] += time.process_time() - c0
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(path)
        print(f"  {path.name}: deal {deal + 1}/{deals}, {data['cpu']:.0f} s CPU", file=sys.stderr, flush=True)
    return data


def play_sittings(hero: str, opponent: str, seed: int, sittings: int, games: int, path: Path) -> dict[str, Any]:
    """Sittings of ``hero`` (and of the heuristic bot in its place) among three ``opponent`` bots."""
    import sitting as st  # a sibling script

    data = load(path) or {"bots": [hero, *[opponent] * 3], "seed": seed, "games": games, "results": []}
    done = {(x["arm"], x["sitting"], x["rotation"]) for x in data["results"]}
    for i in range(sittings):
        for r in range(4):
            for arm, first in (("first", hero), ("against", PAIRED)):
                if (arm, i, r) in done:
                    continue
                c0 = time.process_time()
                got, _ = st.play_sitting([first, *[opponent] * 3], seed, i, r, games, True)
                data["results"].append({"arm": arm, "sitting": i, "rotation": r, "games": got})
                data["cpu"] = data.get("cpu", 0.0) + time.process_time() - c0
                path.write_text(json.dumps(data))
        print(f"  {path.name}: sitting {i + 1}/{sittings}, {data.get('cpu', 0):.0f} s CPU", file=sys.stderr, flush=True)
    return data


def sitting_figures(out: Path, hero: str) -> dict[str, Any] | None:
    """The hero's results in the sittings' later games, and paired over the heuristic bot by sitting."""
    data = load(table_file(out, hero, "sitting", 4))
    if data is None:
        return None
    got = {(x["arm"], x["sitting"], x["rotation"]): x["games"] for x in data["results"]}
    units = sorted({(i, r) for a, i, r in got if ("first", i, r) in got and ("against", i, r) in got})
    if not units or data["games"] < 2:
        return None
    later = range(1, data["games"])
    win = [sum(got["first", u[0], u[1]][g][0] for g in later) / len(later) for u in units]
    dm = [
        sum(got["first", u[0], u[1]][g][1] - got["against", u[0], u[1]][g][1] for g in later) / len(later)
        for u in units
    ]
    return {
        "opponent": data["bots"][1],
        "sittings": len(units),
        "games": data["games"],
        "win": es.boot_mean([[w] for w in win]),
        "over_heuristic": {"margin": es.boot_mean([[d] for d in dm], 1)},
    }


def share(bots: tuple[str, ...], games: list[GameResult], seed: int, spec: str) -> tuple[float, float, float]:
    for st in summarize(bots, games, seed=seed, ratings=False):
        if st.bot == spec:
            return st.win_share, *st.win_share_ci
    raise ValueError(f"{spec} is not at the table {bots}")


def figures(out: Path, hero: str, frozen: str | None, opponent: str, seats: int) -> dict[str, Any] | None:
    data = load(table_file(out, hero, opponent, seats))
    if data is None or not data["games"]:
        return None
    bots = tuple(data["bots"])
    games = games_of(data)
    row: dict[str, Any] = {
        "opponent": opponent,
        "seats": seats,
        "deals": len({g.deal for g in games}),
        "games": len(games),
        "seed": data["seed"],
        "win": share(bots, games, data["seed"], hero),
        "cpu": data.get("cpu", 0.0),
    }
    paired = games_of(data, "paired_games")
    if paired:
        row["over_heuristic"] = es.paired_figures(hero, bots, games, paired)
    theirs = load(table_file(out, frozen, opponent, seats)) if frozen else None
    if theirs is not None and frozen is not None:
        mine = {(g.deal, g.rotation) for g in games}
        other = [g for g in games_of(theirs) if (g.deal, g.rotation) in mine]
        if other:
            row["over_frozen"] = es.paired_figures(hero, bots, games, other)
            row["frozen_win"] = share(tuple(theirs["bots"]), other, data["seed"], frozen)
    return row


def mixed_figures(out: Path, hero: str, frozen: str, opponent: str, seats: int) -> dict[str, Any] | None:
    data = load(table_file(out, hero, opponent, seats, "-mixed"))
    if data is None or not data["games"]:
        return None
    bots = tuple(data["bots"])
    games = games_of(data)
    stats = summarize(bots, games, seed=data["seed"], ratings=False)
    return {
        "opponent": opponent,
        "seats": seats,
        "deals": len({g.deal for g in games}),
        "games": len(games),
        "shares": {st.bot: (st.win_share, *st.win_share_ci) for st in stats},
        "first": max(stats, key=lambda st: st.win_share).bot,
    }


def fmt(t: tuple[float, float, float], digits: int = 2, sign: bool = True) -> str:
    s = "+" if sign else ""
    return f"{t[0]:{s}.{digits}f} [{t[1]:{s}.{digits}f}, {t[2]:{s}.{digits}f}]"


def report(out: Path, hero: str, frozen: str | None, seats_list: list[int], as_json: Path | None, number: int) -> None:
    rows = []
    print(f"{hero} against sealed set {number}, kinds hidden (paired: the same deals and seatings)")
    print(
        "opponent | seats | deals | win share [CI] | paired margin over heuristic [CI] | paired win share over "
        "heuristic [CI] | over frozen [CI]"
    )
    for seats in seats_list:
        for opponent in SETS[number][0]:
            row = figures(out, hero, frozen, opponent, seats)
            if row is None:
                continue
            rows.append(row)
            over_h = fmt(row["over_heuristic"]["margin"]) if "over_heuristic" in row else "-"
            win_h = fmt(row["over_heuristic"]["win"], 3) if "over_heuristic" in row else "-"
            over_f = fmt(row["over_frozen"]["margin"]) if "over_frozen" in row else "-"
            print(
                f"{opponent} | {seats} | {row['deals']} | {fmt(row['win'], 3, False)} | {over_h} | {win_h} | {over_f}"
                + (f" (frozen wins {row['frozen_win'][0]:.3f})" if "frozen_win" in row else "")
            )
    mixed = []
    if frozen:
        for seats in seats_list:
            for opponent in styles(number):
                m = mixed_figures(out, hero, frozen, opponent, seats)
                if m is None:
                    continue
                mixed.append(m)
                shares = ", ".join(f"{b} {v[0]:.3f}" for b, v in m["shares"].items())
                print(f"mixed with {opponent}, {seats} seats, {m['deals']} deals: {shares}; first: {m['first']}")
    sat = sitting_figures(out, hero)
    if sat is not None:
        print(
            f"sittings with {sat['opponent']} ({sat['sittings']} sittings, games 2-{sat['games']}): win share "
            f"{fmt(sat['win'], 3, False)}, paired margin over heuristic {fmt(sat['over_heuristic']['margin'])}"
        )
    met = [r for r in rows if r["seats"] == 4 and "over_heuristic" in r]
    if met:
        ok = sum(1 for r in met if r["over_heuristic"]["margin"][1] > 0)
        print(f"target, 4 seats: paired margin over heuristic above zero with its CI: {ok} of {len(met)} opponents")
        wins = sum(1 for r in met if r["over_heuristic"]["win"][2] >= 0)
        print(f"4 seats: paired win share over heuristic not below zero with its CI: {wins} of {len(met)} opponents")
    for s in (3, 5):
        these = [r for r in rows if r["seats"] == s and "over_heuristic" in r]
        if these:
            ok = sum(1 for r in these if r["over_heuristic"]["margin"][0] >= 0)
            print(f"target, {s} seats: paired margin over heuristic not below zero: {ok} of {len(these)} opponents")
    if mixed:
        print(f"target, mixed tables: first at {sum(1 for m in mixed if m['first'] == hero)} of {len(mixed)}")
    if as_json is not None:
        import os

        data = {
            "kind": "held_out",
            "command": "python bench/held_out.py " + " ".join(sys.argv[1:]),
            "load": [round(x, 2) for x in os.getloadavg()],
            "set": number,
            "hero": hero,
            "frozen": frozen,
            "rows": rows,
            "mixed": mixed,
            "sitting": sat,
        }
        as_json.write_text(json.dumps(data, indent=1) + "\n")


#: Criterion 2: how far the candidate's mean paired margin may fall short of the default's.
MARGIN_SLACK = 1.0


def _paired_rows(data: dict[str, Any], seats: int) -> list[dict[str, Any]]:
    """A report's rows at ``seats`` that have the heuristic bot's paired arm."""
    return [r for r in data["rows"] if r["seats"] == seats and "over_heuristic" in r]


def _below(data: dict[str, Any], seats: int) -> set[str]:
    """The opponents at ``seats`` against whom the paired margin's CI lies below zero."""
    return {r["opponent"] for r in _paired_rows(data, seats) if r["over_heuristic"]["margin"][2] < 0}


def _means(data: dict[str, Any]) -> tuple[float, float]:
    """The mean paired win share and the mean paired margin (with the sitting's) over the heuristic bot, 4 seats."""
    rows = _paired_rows(data, 4)
    if not rows:
        raise ValueError(f"no 4-seat rows with a paired arm in the report of {data.get('hero')!r}")
    margins = [r["over_heuristic"]["margin"][0] for r in rows]
    if data.get("sitting"):
        margins.append(data["sitting"]["over_heuristic"]["margin"][0])
    return sum(r["over_heuristic"]["win"][0] for r in rows) / len(rows), sum(margins) / len(margins)


def judge(candidate: dict[str, Any], base: dict[str, Any]) -> list[tuple[str, bool]]:
    """The rule's four criteria for ``candidate`` against ``base`` (``report --json`` files of one set)."""
    if candidate.get("set") != base.get("set"):
        raise ValueError(f"the reports are of sets {candidate.get('set')} and {base.get('set')}: judge one set")
    out: list[tuple[str, bool]] = []
    ahead = [
        {r["opponent"] for r in _paired_rows(d, 4) if r["over_heuristic"]["margin"][1] > 0} for d in (candidate, base)
    ]
    behind = [_below(d, 4) for d in (candidate, base)]
    new = sorted(behind[0] - behind[1])
    out.append(
        (
            f"1. 4 seats: ahead of {len(ahead[0])} (the default {len(ahead[1])}); behind {len(behind[0])}"
            + (f", where the default is not: {', '.join(new)}" if new else ", none the default is not behind"),
            len(ahead[0]) >= len(ahead[1]) - 1 and not new,
        )
    )
    (cw, cm), (bw, bm) = _means(candidate), _means(base)
    out.append(
        (
            f"2. 4 seats: mean paired win share over heuristic {cw:+.3f} (the default {bw:+.3f}); mean paired margin "
            f"with the sitting {cm:+.2f} (the default {bm:+.2f}, at most {MARGIN_SLACK:.0f} less allowed)",
            cw >= bw and cm >= bm - MARGIN_SLACK,
        )
    )
    missing = [f"{d['hero']!r} at {s} seats" for d in (candidate, base) for s in (3, 5) if not _paired_rows(d, s)]
    if missing:  # a report made with report's default --seats 4 would pass this criterion with nothing to count
        out.append((f"3. no rows for {', '.join(missing)}: make both reports with --seats 3,4,5", False))
    else:
        counts = {s: (len(_below(candidate, s)), len(_below(base, s))) for s in (3, 5)}
        out.append(
            (
                "3. below zero at 3 / 5 seats: " + " / ".join(f"{c} (the default {b})" for c, b in counts.values()),
                all(c <= b for c, b in counts.values()),
            )
        )
    hero, frozen = candidate["hero"], candidate.get("frozen")
    if frozen != base["hero"]:
        out.append((f"4. mixed tables: the candidate's were played beside {frozen!r}, not the default", False))
        return out
    tables = [m for m in candidate.get("mixed", []) if frozen in m["shares"] and hero in m["shares"]]
    if not tables:
        out.append(("4. mixed tables: none in the candidate's report (play them with the default as --frozen)", False))
        return out
    mine = [m["shares"][hero][0] for m in tables]
    theirs = [m["shares"][frozen][0] for m in tables]
    level = sum(1 for a, b in zip(mine, theirs, strict=True) if a >= b)
    pairs = ", ".join(f"{a:.3f} / {b:.3f}" for a, b in zip(mine, theirs, strict=True))
    out.append(
        (
            f"4. mixed tables ({tables[0]['deals']} deals): the candidate / the default {pairs}; at least level at "
            f"{level} of {len(tables)}, in sum {sum(mine):.3f} / {sum(theirs):.3f}",
            3 * level >= 2 * len(tables) and sum(mine) >= sum(theirs),
        )
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("play", "mixed", "sitting", "report", "judge"))
    ap.add_argument(
        "spec", nargs="?", help="the bot to measure (play, mixed), the results folder (report), or a report (judge)"
    )
    ap.add_argument("--base", type=Path, help="judge: the default's report of the same set (report --json)")
    ap.add_argument("--out", type=Path, help="the results folder (play, mixed)")
    ap.add_argument("--seats", default="4", help="seat counts, comma separated")
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="play only these opponents (comma separated)")
    ap.add_argument("--hero", help="report: the bot measured")
    ap.add_argument("--frozen", help="the frozen expert's spec (mixed tables; report: paired over it)")
    ap.add_argument("--no-paired", action="store_true", help="play: leave out the heuristic bot's paired arm")
    ap.add_argument("--sittings", type=int, default=8, help="sitting: sittings, each once per rotation")
    ap.add_argument("--games", type=int, default=2, help="sitting: games per sitting")
    ap.add_argument("--json", type=Path, help="report: also write the figures here")
    ap.add_argument(
        "--set", type=int, choices=sorted(SETS), default=CURRENT, help="the sealed set (default: %(default)s)"
    )
    args = ap.parse_args()
    sealed.register()
    seats_list = [int(s) for s in args.seats.split(",")]
    if args.what == "judge":
        if not args.spec or args.base is None:
            ap.error("judge needs the candidate's report and --base, the default's")
        try:
            found = judge(json.loads(Path(args.spec).read_text()), json.loads(args.base.read_text()))
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"judge: {e}")
        for text, held in found:
            print(f"{text}: {'holds' if held else 'FAILS'}")
        print("the candidate replaces the default" if all(h for _, h in found) else "the default stays")
        return
    if args.what == "report":
        if not args.spec or not args.hero:
            ap.error("report needs the results folder and --hero")
        report(Path(args.spec), args.hero, args.frozen, seats_list, args.json, args.set)
        return
    if not args.spec or args.out is None:
        ap.error(f"{args.what} needs the bot's spec and --out")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.what == "sitting":
        path = table_file(args.out, args.spec, "sitting", 4)
        play_sittings(args.spec, SETS[args.set][1], args.seed, args.sittings, args.games, path)
        return
    only = [o for o in args.only.split(",") if o]
    for seats in seats_list:
        for opponent in only or (list(SETS[args.set][0]) if args.what == "play" else styles(args.set)):
            if args.what == "play":
                bots = (args.spec, *[opponent] * (seats - 1))
                path = table_file(args.out, args.spec, opponent, seats)
                play_table(bots, args.seed, args.deals, "rotate", path, None if args.no_paired else PAIRED)
            else:
                if not args.frozen:
                    ap.error("mixed needs --frozen")
                if seats < 4:
                    continue  # the mixed table seats the bot, the frozen expert, the heuristic bot and opponents
                bots = (args.spec, args.frozen, "heuristic", *[opponent] * (seats - 3))
                path = table_file(args.out, args.spec, opponent, seats, "-mixed")
                play_table(bots, args.seed, args.deals, "both", path, None)


if __name__ == "__main__":
    main()
