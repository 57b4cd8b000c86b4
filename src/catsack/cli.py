"""The ``catsack`` command line (Typer + Rich). Each command imports what it needs lazily."""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, Annotated

import typer

from catsack.locales import LANGUAGES

if TYPE_CHECKING:
    from catsack.narrative import Translations
    from catsack.record import Record

app = typer.Typer(
    name="catsack",
    help="Felix: The Cat in the Sack — replay records, watch bots, play, run tournaments.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help: flags show as flags, defaults and ranges are listed, and "[...]" in a help text
    # is printed instead of being eaten as Rich markup.
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        from catsack import __version__

        typer.echo(f"catsack {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print catsack's version and exit."),
    ] = False,
) -> None:
    """Felix: The Cat in the Sack — replay records, watch bots, play, run tournaments."""


def _read_record(path: str) -> Record:
    """The record in ``path`` ('-': stdin), read through the loader's size cap: a larger file (or
    ``/dev/zero``) is never read whole."""
    from catsack.record import read_record

    if path == "-":
        return read_record(sys.stdin.buffer, source=path)
    with open(path, "rb") as f:
        return read_record(f, source=path)


def _echo(text: str, *, err: bool = False) -> None:
    """Print text whatever it holds: a character the terminal cannot encode (a lone surrogate from
    a file name, say) is written as an escape instead of crashing the command."""
    stream = sys.stderr if err else sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    typer.echo(text.encode(encoding, "backslashreplace").decode(encoding, "replace"), err=err)


_LANG_HELP = "Language of the narration: " + ", ".join(LANGUAGES) + "."


def _translations(lang: str) -> Translations:
    """The catalogue of ``lang`` for the narration, or exit 2 naming the languages there are."""
    if lang not in LANGUAGES:
        typer.echo(f"--lang must be one of {', '.join(LANGUAGES)}, not {lang!r}", err=True)
        raise typer.Exit(2)
    from catsack.i18n import translations

    return translations(lang)


@app.command()
def replay(
    records: Annotated[list[str], typer.Argument(help="Record files (catsack/1 JSON); '-' reads stdin.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON summary object per record, one per line.")] = False,
    lang: Annotated[str, typer.Option(help=_LANG_HELP)] = "en",
) -> None:
    """Show what happened in game records, or summarise them as JSON lines (docs/records.md)."""
    from catsack.errors import CatsackError
    from catsack.narrative import narrate
    from catsack.summary import summarize

    t = _translations(lang)

    failed = False
    for i, path in enumerate(records):
        try:
            record = _read_record(path)
            game = record.to_game()
        except OSError as exc:
            _echo(f"{path}: cannot read: {exc.strerror or exc}", err=True)
            failed = True
            continue
        except CatsackError as exc:
            _echo(str(exc), err=True)
            failed = True
            continue
        if as_json:
            sys.stdout.write(json.dumps(summarize(game), separators=(",", ":")) + "\n")
        else:
            if len(records) > 1:
                _echo(("\n" if i else "") + f"== {path} ==")
            _echo("\n".join(narrate(game, record.players, t)))
    sys.stdout.flush()
    if failed:
        raise typer.Exit(2)


# Seconds between lines of `catsack demo` on a terminal: slow enough to read as the game unfolds.
DEMO_DELAY = 0.4


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


@app.command()
def demo(
    seats: Annotated[int, typer.Option(min=3, max=5, help="Number of players (3-5).")] = 4,
    seed: Annotated[int | None, typer.Option(help="Seed for the deal and the bots.")] = None,
    bots: Annotated[str, typer.Option(help="Bot spec for every seat: random, heuristic, expert:easy...")] = "heuristic",
    delay: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            help=f"Seconds between lines (twice that between rounds); 0 prints the game at once. "
            f"Default: {DEMO_DELAY} on a terminal, 0 into a pipe or file.",
            show_default=False,
        ),
    ] = None,
    lang: Annotated[str, typer.Option(help=_LANG_HELP)] = "en",
) -> None:
    """Watch bots play one narrated game (each bot sees only its own seat's view)."""
    import random

    from catsack.bots.base import make_bot, play_game
    from catsack.errors import CatsackError
    from catsack.game import Game
    from catsack.narrative import narrate

    t = _translations(lang)
    rng = random.Random(seed)
    game = Game.new(seats, rng=rng)
    try:
        players = [make_bot(bots, seed=rng.randrange(2**31)) for _ in range(seats)]
    except CatsackError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(2) from None
    play_game(game, players)
    names = ["Ann", "Ben", "Cat", "Dan", "Eve"][:seats]
    lines = narrate(game, [f"{n} ({bots})" for n in names], t)
    pause = delay if delay is not None else (DEMO_DELAY if _stdout_is_terminal() else 0.0)
    if not pause:
        typer.echo("\n".join(lines))
        return
    for line in lines:
        typer.echo(line)
        # A blank line ends a round: a longer breath before the next one.
        time.sleep(pause * (2 if not line else 1))


# Commands living in their own modules: each has ``register(app)``. An explicit
# list (nothing registers itself on import); a module not present is skipped.
_COMMAND_MODULES = (
    "catsack.commands.analyse",
    "catsack.commands.tournament",
    "catsack.commands.play",
    "catsack.commands.serve",
    "catsack.commands.bot",
    "catsack.commands.db",
    "catsack.commands.admin",
)


def _register_commands() -> None:
    import importlib
    import importlib.util

    for name in _COMMAND_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name).register(app)


_register_commands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
