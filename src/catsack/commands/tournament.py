"""``catsack tournament``: bots play duplicate deals; results as a table, JSON, CSV, records and a plot."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    app.command("tournament")(tournament)


def tournament(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            help="One bot spec per seat (3-5), comma separated: 'ismcts:strong,heuristic,heuristic,heuristic'. "
            "Equal specs are pooled in the results. External programs: 'external:python3 my_bot.py'.",
        ),
    ],
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            "-n",
            help="Games in total, a multiple of the number of bots, or of twice that with --seating both "
            "(each deal is played once per seating). Default: 100 deals.",
            show_default=False,
        ),
    ] = None,
    seating: Annotated[
        str,
        typer.Option(
            "--seating",
            metavar="rotate|both",
            help="'rotate': each deal once per rotation of the bots through the seats, which keeps the order "
            "round the table (a bot always speaks right after the same neighbour). 'both': also once per "
            "rotation of the reversed order, so each bot sits both right before and right after each of "
            "its neighbours (twice the games per deal).",
        ),
    ] = "rotate",
    seed: Annotated[
        int | None, typer.Option(help="Seed of the deals and the bots. Default: a random one, shown in the output.")
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", min=0, help="Worker processes; 1 plays in-process, 0 uses all cores.")
    ] = 1,
    backend: Annotated[
        str, typer.Option(help="'local' (processes on this machine) or 'ray' (needs the 'ray' extra).")
    ] = "local",
    move_time: Annotated[float, typer.Option(help="Seconds per decision for external bots.")] = 5.0,
    json_out: Annotated[
        str | None, typer.Option("--json", metavar="FILE", help="Write the results as JSON ('-': stdout).")
    ] = None,
    csv_out: Annotated[
        str | None, typer.Option("--csv", metavar="FILE", help="Write the results as CSV ('-': stdout).")
    ] = None,
    records: Annotated[
        Path | None, typer.Option("--records", metavar="DIR", help="Write every game as a catsack/1 record into DIR.")
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot", metavar="FILE.png", help="Draw win shares with 95% intervals (needs the 'stats' extra)."
        ),
    ] = None,
    resamples: Annotated[
        int, typer.Option("--bootstrap", min=0, help="Bootstrap resamples for the 95% intervals.")
    ] = 1000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Play a bot tournament with duplicate deals: every deal is replayed with the bots rotated through all seats.

    With --seating both every deal is also replayed with the order round the table reversed: who speaks
    first matters, and a rotation alone always seats each bot right after the same neighbour.
    """
    import logging
    import secrets
    import sys

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from catsack.errors import CatsackError
    from catsack.tournament import TournamentConfig, parse_bots, run_tournament
    from catsack.tournament.output import results_table, write_csv, write_json, write_records
    from catsack.tournament.schedule import SEATINGS

    def fail(message: str) -> typer.Exit:
        typer.echo(f"error: {message}", err=True)
        return typer.Exit(2)

    if json_out == "-" and csv_out == "-":
        raise fail("only one of --json and --csv can write to stdout ('-')")
    if plot is not None:  # before playing: a missing extra must not cost the whole tournament
        from catsack.tournament.plot import require_matplotlib

        try:
            require_matplotlib()
        except CatsackError as exc:
            raise fail(str(exc)) from None
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if seed is None:
        seed = secrets.randbelow(2**31)
    try:
        specs = parse_bots(bots)
        config = TournamentConfig(
            specs,
            games=games if games is not None else 100 * len(specs) * SEATINGS.get(seating, 1),
            seed=seed,
            move_time=move_time,
            keep_moves=records is not None,
            seating=seating,
        )
    except CatsackError as exc:
        raise fail(str(exc)) from None

    # The table goes to stderr when stdout carries JSON or CSV, so the data stays clean.
    console = Console(stderr=json_out == "-" or csv_out == "-")
    err_console = Console(stderr=True)
    progress = Progress(
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=quiet,
    )
    try:
        with progress:
            task = progress.add_task("games", total=config.games)
            result = run_tournament(
                config,
                jobs=jobs,
                backend=backend,
                progress=lambda done: progress.advance(task, done),
                resamples=resamples,
            )
    except CatsackError as exc:
        raise fail(str(exc)) from None

    console.print(results_table(result))
    try:
        for target, writer in ((json_out, write_json), (csv_out, write_csv)):
            if target == "-":
                writer(result, sys.stdout)
            elif target is not None:
                with open(target, "w", encoding="utf-8", newline="") as stream:
                    writer(result, stream)
        if records is not None:
            count = write_records(result, records)
            err_console.print(f"{count} records written to {records}")
        if plot is not None:
            from catsack.tournament.plot import plot_win_shares

            plot_win_shares(result, plot)
            err_console.print(f"plot written to {plot}")
    except OSError as exc:
        raise fail(f"cannot write {exc.filename}: {exc.strerror or exc}") from None
    except CatsackError as exc:
        raise fail(str(exc)) from None
