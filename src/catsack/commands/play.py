"""``catsack play``: one game in the terminal against bots (Textual; the ``tui`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from catsack.locales import LANGUAGES


def register(app: typer.Typer) -> None:
    """Add the ``play`` command to ``app``."""

    @app.command()
    def play(
        seats: Annotated[int, typer.Option(min=3, max=5, help="Number of players, 3-5 (R4).")] = 4,
        seat: Annotated[
            int | None,
            typer.Option(
                min=1,
                max=5,
                help="Your seat, 1 to the number of seats (default 1; with --resume, the saved game's). Seats are "
                "numbered clockwise and play goes clockwise; the first start player is drawn at random (R4, R9).",
            ),
        ] = None,
        bots: Annotated[
            str | None,
            typer.Option(
                help="Opponents as comma-separated bot specs, one per opponent or one for all, "
                "e.g. 'heuristic,expert:normal,external:python3 bot.py'. Default: heuristic.",
            ),
        ] = None,
        seed: Annotated[int | None, typer.Option(help="Seed for the deal and the bots (recorded in the save).")] = None,
        show_money: Annotated[
            bool, typer.Option("--show-money", help="Show everyone's money (R24 table option; hidden by default).")
        ] = False,
        delay: Annotated[
            float, typer.Option(min=0.0, help="Seconds between bot moves so you can follow; 0 plays them instantly.")
        ] = 0.8,
        name: Annotated[
            str | None,
            typer.Option(help="Your name at the table and in the saved record (default: 'You', in your language)."),
        ] = None,
        resume: Annotated[
            Path | None,
            typer.Option(
                metavar="FILE",
                help="Continue an unfinished game saved by catsack play (q saves it): same seat, names and "
                "opponents (--bots and --seat replace them); --seats, --seed and --name are not used.",
            ),
        ] = None,
        lang: Annotated[
            str | None,
            typer.Option(help=f"The game's language: {', '.join(LANGUAGES)} (default: the terminal's locale)."),
        ] = None,
    ) -> None:
        """Play a game against bots in the terminal; the game is saved for `catsack replay`.

        On the board, [??] is a face-down card, (+8) your own face-down card, > marks the seat to move
        and * in the log marks reveals, payouts, dog chases and purchases. Keys are listed at the bottom;
        ? shows how to play.
        Saved games go to $CATSACK_DATA_DIR (default ~/.local/share/catsack/games).
        """
        try:
            import textual  # noqa: F401
        except ImportError:
            typer.echo("catsack play needs Textual: pip install 'catsack[tui]'", err=True)
            raise typer.Exit(2) from None
        from catsack.i18n import translations
        from catsack.tui.app import PlayApp, terminal_language
        from catsack.tui.controller import PlayController

        if lang is not None and lang not in LANGUAGES:
            typer.echo(f"--lang must be one of {', '.join(LANGUAGES)}, not {lang!r}", err=True)
            raise typer.Exit(2)
        lang = lang or terminal_language()
        if resume is None and seat is not None and seat > seats:
            typer.echo(f"--seat must be from 1 to {seats} with {seats} seats, not {seat}", err=True)
            raise typer.Exit(2)
        index = None if seat is None else seat - 1  # people count seats from 1, the game from 0 (R4)
        try:
            if resume is not None:
                controller = PlayController.resume(resume, seat=index, bots=bots, show_money=show_money, lang=lang)
            else:
                controller = PlayController.new(
                    seats=seats, seat=index or 0, bots=bots, seed=seed, name=name, show_money=show_money, lang=lang
                )
        except (ValueError, OSError) as exc:  # bad --bots spec, unknown kind, failing external bot...
            typer.echo(f"catsack play: {exc}", err=True)
            raise typer.Exit(2) from None
        try:
            PlayApp(controller, delay=delay).run()
        finally:
            controller.save()
            controller.close()
        t = translations(lang)
        if controller.saved_path is not None:
            typer.echo(t.gettext("Game saved to {file}").format(file=controller.saved_path))
            typer.echo(t.gettext("Replay it with: {command}").format(command=f"catsack replay {controller.saved_path}"))
            if not controller.is_over:
                command = f"catsack play --resume {controller.saved_path}"
                typer.echo(t.gettext("Continue it with: {command}").format(command=command))
        elif controller.save_error:
            typer.echo(f"catsack play: {controller.save_error}", err=True)
