"""The results table of docs/results.md, made from saved result files so a figure cannot drift from its run.

    .venv/bin/python bench/results_table.py [bench/results] [--write docs/results.md]

Reads every ``*.json`` of the folder (default ``bench/results``), each written by a benchmark's
``--result`` / ``--json`` option: ``bench/expert_strength.py --result`` (a table's win shares and paired
margins), ``bench/held_out.py report --json`` (the held-out set), ``bench/bot_cpu.py --result`` (CPU per
decision), ``bench/selfplay_speed.py --result`` (training throughput), ``python -m catsack.learn.exploit
--result`` (an exploiter's gain), ``bench/sitting.py --result`` (the games after a sitting's first). Prints one
Markdown table, a row per figure with the command that reproduces it and the load average it ran at; with
``--write FILE`` it replaces the part of ``FILE`` between the lines ``<!-- results:begin -->`` and
``<!-- results:end -->``, and where ``FILE`` has the lines ``<!-- held-out-summary:begin -->`` and
``<!-- held-out-summary:end -->``, the part between them with the held-out sets' summary (:func:`summary`: per
set and seat count, how many opponents the bot is ahead of the heuristic bot against and which it is behind).
``tests/test_bench_results_table.py`` checks that docs/results.md holds the table and the summary of
``bench/results``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BEGIN = "<!-- results:begin -->"
END = "<!-- results:end -->"
SUMMARY_BEGIN = "<!-- held-out-summary:begin -->"
SUMMARY_END = "<!-- held-out-summary:end -->"
DEFAULT = Path(__file__).resolve().parent / "results"


def ci(t: Sequence[float], digits: int = 2, sign: bool = True) -> str:
    s = "+" if sign else ""
    return f"{t[0]:{s}.{digits}f} [{t[1]:{s}.{digits}f}, {t[2]:{s}.{digits}f}]"


def load(data: Sequence[float]) -> str:
    return f"{data[0]:.1f}" if data else "?"


def first_and_others(bots: Sequence[str]) -> tuple[str, list[str], str]:
    """A table's first spec, the other specs (each once, in seat order) and "`first` against `o`, ..."."""
    others = sorted(set(bots[1:]), key=list(bots).index)
    return bots[0], others, f"`{bots[0]}` against {', '.join(f'`{o}`' for o in others)}"


def strength_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    bots = r["bots"]
    first, others, table = first_and_others(bots)
    what = f"{table} ({len(bots)} seats, {r['games']} games)"
    fig = f"win share {ci(r['shares'][first], 3, False)}"
    for o in others:
        fig += f"; `{o}` {r['shares'][o][0]:.3f}"
    if "paired" in r:
        fig += f"; paired margin over `{r['paired_over']}` {ci(r['paired']['margin'])}"
    return [(what, fig, f"`{r['command']}` (load {load(r['load'])})")]


def held_out_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    out = []
    hero, frozen = r["hero"], r.get("frozen")
    held = f"sealed set {r['set']}"
    cmd = f"`{r.get('command', 'python bench/held_out.py')}` (load {load(r.get('load', []))})"
    for row in r["rows"]:
        what = f"`{hero}`, {held}: `{row['opponent']}` ×{row['seats'] - 1} ({row['deals']} deals, kinds hidden)"
        fig = f"win share {ci(row['win'], 3, False)}"
        if "over_heuristic" in row:
            fig += f"; paired margin over `heuristic` {ci(row['over_heuristic']['margin'])}"
            if "win" in row["over_heuristic"]:
                fig += f", win share {ci(row['over_heuristic']['win'], 3)}"
        if "over_frozen" in row and frozen:
            over = row["over_frozen"]
            fig += f"; over `{frozen}` {ci(over['margin'])}"
            if "deals" in over and over["deals"] != row["deals"]:
                fig += f" ({over['deals']} deals)"
        out.append((what, fig, cmd))
    sat = r.get("sitting")
    if sat:
        what = f"`{hero}` in sittings, {held}: `{sat['opponent']}` ×3 ({sat['sittings']} sittings, later games)"
        over = ci(sat["over_heuristic"]["margin"])
        fig = f"win share {ci(sat['win'], 3, False)}; paired margin over `heuristic` {over}"
        out.append((what, fig, cmd))
    for m in r.get("mixed", []):
        shares = ", ".join(f"`{b}` {v[0]:.3f}" for b, v in m["shares"].items())
        deals = f"{m['deals']} deal{'' if m['deals'] == 1 else 's'}, {m['games']} games"
        out.append((f"mixed table, {held}: `{m['opponent']}` ({deals}, both orders)", shares, cmd))
    return out


def cpu_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    first = r["rows"][0]["spec"]
    out = []
    for row in r["rows"]:
        what = f"CPU per decision of `{row['spec']}` ({r['seats']} seats, {r['positions']} positions)"
        median = f", median {row['median']:.3f} s" if "median" in row else ""
        fig = f"mean {row['mean']:.3f} s{median}, p95 {row['p95']:.3f} s, ×{row['ratio']:.2f} of `{first}`'s mean"
        out.append((what, fig, f"`{r['command']}` (load {load(r['load'])})"))
    return out


def selfplay_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(row["what"], row["figure"], f"`{r['command']}` (load {load(r['load'])})") for row in r["rows"]]


def exploit_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    what = (
        f"exploiter `{r['hero']}` against {r['seats'] - 1} × `{r['against']}` ({r['deals']} deals, {r['games']} games)"
    )
    if r.get("budget"):
        what += f", trained {r['budget']}"
    fig = f"win share {ci(r['win_share'], 3, False)}; gain over the fair share {ci(r['gain_over_fair'], 3)}"
    if r.get("paired_hero") and "paired_win_diff" in r:
        fig += f"; paired over `{r['paired_hero']}` in its seat {ci(r['paired_win_diff'], 3)}"
    return [(what, fig, f"`{r['command']}` (load {load(r['load'])})")]


def sitting_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    bots = r["bots"]
    _, _, table = first_and_others(bots)
    later = r["later"]
    games = "game 2" if r["games"] == 2 else f"games 2–{r['games']}"
    what = (
        f"{table} in sittings ({len(bots)} seats, "
        f"{r['sittings']} sittings of {r['games']} games, each once per rotation, {games}"
        f"{', kinds hidden' if r['hide_kinds'] else ''})"
    )
    fig = f"win share {ci(later['win'], 3, False)}; margin {ci(later['margin'])}"
    if "paired" in later:
        fig += f"; paired margin over `{r['against']}` {ci(later['paired']['margin'])}"
    return [(what, fig, f"`{r['command']}` (load {load(r['load'])})")]


READERS = {
    "strength": strength_rows,
    "held_out": held_out_rows,
    "cpu": cpu_rows,
    "selfplay": selfplay_rows,
    "exploit": exploit_rows,
    "sitting": sitting_rows,
}


def by_name(path: Path) -> list[Any]:
    """A file's sort key: its name with each run of digits as a number (``held-out-9`` before ``held-out-10``)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def table(folder: Path) -> str:
    """The Markdown table of every result file in ``folder`` (by file name, numbers in it as numbers)."""
    rows: list[tuple[str, str, str]] = []
    for path in sorted(folder.glob("*.json"), key=by_name):
        data = json.loads(path.read_text())
        reader = READERS.get(data.get("kind", ""))
        if reader is None:
            raise ValueError(f"{path.name}: not a result file (kind {data.get('kind')!r})")
        rows += reader(data)
    lines = ["| result | figure [95% CI] | command |", "| --- | --- | --- |"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(lines) + "\n"


def summary(folder: Path) -> str:
    """The held-out sets at a glance, from the ``held_out`` files of ``folder``: per set and seat count, the
    opponents the bot is ahead of the heuristic bot against (paired margin's interval above zero), those it is
    behind (interval below zero, with the margin), and its paired margin in the sitting opponent's later games."""
    lines = [
        "| set | bot | seats | ahead of `heuristic` | behind `heuristic` (points a game) | sitting's later games |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    sets = [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]
    for r in sorted((r for r in sets if r.get("kind") == "held_out"), key=lambda r: r["set"]):
        sat = r.get("sitting")
        for seats in sorted({row["seats"] for row in r["rows"]}):
            rows = [row for row in r["rows"] if row["seats"] == seats and "over_heuristic" in row]
            ahead = sum(1 for row in rows if row["over_heuristic"]["margin"][1] > 0)
            behind = [
                f"`{row['opponent']}` {row['over_heuristic']['margin'][0]:+.1f}"
                for row in rows
                if row["over_heuristic"]["margin"][2] < 0
            ]
            later = ci(sat["over_heuristic"]["margin"], 1) if sat and seats == 4 else ""
            lost = ", ".join(behind) or "none"
            lines.append(f"| {r['set']} | `{r['hero']}` | {seats} | {ahead} of {len(rows)} | {lost} | {later} |")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str, begin: str = BEGIN, end: str = END) -> None:
    """Replace what lies between the lines ``begin`` and ``end`` in ``path`` with ``text``."""
    doc = path.read_text()
    if begin not in doc or end not in doc:
        raise ValueError(f"{path} has no {begin} ... {end} lines")
    head, rest = doc.split(begin, 1)
    _, tail = rest.split(end, 1)
    path.write_text(f"{head}{begin}\n{text}{end}{tail}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--write", type=Path, help="replace the results part of this Markdown file")
    args = ap.parse_args(argv)
    try:
        text = table(args.folder)
        if args.write:
            write(args.write, text)
            if SUMMARY_BEGIN in args.write.read_text():
                write(args.write, summary(args.folder), SUMMARY_BEGIN, SUMMARY_END)
    except (ValueError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not args.write:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
