"""``catsack analyse RECORD --seat N``: what the search thinks of each decision one seat made."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from catsack.bots.analysis import Decision


def _belief_text(beliefs: list[dict[str, float] | None]) -> str:
    parts = []
    for pos, belief in enumerate(beliefs):
        if belief is None:
            continue
        groups: dict[float, list[str]] = {}
        for token, p in belief.items():
            groups.setdefault(round(p, 4), []).append(token)
        text = "; ".join(f"{p:.0%} each " + " ".join(ts) for p, ts in sorted(groups.items(), reverse=True))
        parts.append(f"#{pos + 1}: {text}")
    return "\n".join(parts) or "-"


def _table(decision: Decision) -> object:
    from rich.table import Table

    a = decision.analysis
    verdict = "=" if a.best == decision.played else "≠"
    table = Table(
        title=f"ply {decision.ply} · round {decision.round} · {decision.phase} · played {decision.played} "
        f"{verdict} preferred {a.best}",
        title_justify="left",
    )
    table.add_column("move")
    table.add_column("value (pts)", justify="right")
    table.add_column("visits", justify="right")
    table.add_column("face-down cards (belief)")
    rows = sorted(a.values.items(), key=lambda kv: -kv[1])
    beliefs = _belief_text(a.beliefs)
    for i, (text, value) in enumerate(rows):
        mark = " ★" if text == a.best.text else ""
        mark += " ◀ played" if text == decision.played.text else ""
        table.add_row(text + mark, f"{value:+.2f}", str(a.visits.get(text, 0)), beliefs if i == 0 else "")
    if decision.played.text not in a.values:
        table.add_row(f"{decision.played} ◀ played", "not searched", "0", "" if rows else beliefs)
    return table


def register(app: typer.Typer) -> None:
    @app.command()
    def analyse(
        record_path: Annotated[str, typer.Argument(metavar="RECORD", help="A catsack/1 record file; '-' reads stdin.")],
        seat: Annotated[int, typer.Option("--seat", help="The seat whose decisions to analyse (0-based).")],
        level: Annotated[
            str,
            typer.Option(
                help="Search level: expert, expert:easy|normal|strong, expert:iters=N; "
                "ISMCTS: easy, normal, strong or iters=N."
            ),
        ] = "expert",
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object per decision, one per line.")] = False,
        seed: Annotated[int | None, typer.Option(help="Seed for the search (reproducible results).")] = None,
    ) -> None:
        """Analyse every decision of one seat in a record: move played, preferred move, values, beliefs."""
        from catsack.bots.analysis import analyse_record
        from catsack.errors import CatsackError
        from catsack.record import read_record

        try:  # through the loader's size cap: a huge file is refused, not read whole (issue 16, defect 9)
            if record_path == "-":
                record = read_record(sys.stdin.buffer, source=record_path)
            else:
                with open(record_path, "rb") as f:
                    record = read_record(f, source=record_path)
        except OSError as exc:
            typer.echo(f"{record_path}: cannot read: {exc.strerror or exc}", err=True)
            raise typer.Exit(2) from None
        except CatsackError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        try:
            decisions = analyse_record(record, seat, level=level, seed=seed)
        except CatsackError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        if as_json:
            for d in decisions:
                sys.stdout.write(json.dumps(d.to_dict(), separators=(",", ":")) + "\n")
            sys.stdout.flush()
            return
        from rich.console import Console

        console = Console()
        if not decisions:
            console.print(f"seat {seat} made no decision in this record")
        for d in decisions:
            console.print(_table(d))
