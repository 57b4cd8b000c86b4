"""``catsack admin``: the operator's tools: the soft-play report, reverting a game's rating changes,
and tournaments made by the operator (docs/tournaments.md)."""

from __future__ import annotations

import json
import time
from typing import Annotated

import typer

from catsack.commands.db import DbUrl

__all__ = ["register"]


def _url(database_url: str | None) -> str:
    """The database to work on: the option, else the server's setting (``CATSACK_DATABASE_URL``)."""
    if database_url:
        return database_url
    try:
        from catsack.server.settings import Settings
    except ImportError as exc:
        typer.echo(f"the admin commands need the 'server' extra: pip install 'catsack[server]' ({exc})", err=True)
        raise typer.Exit(2) from None
    return Settings().database_url


def register(app: typer.Typer) -> None:
    """Add the ``admin`` command group to ``app``."""
    admin = typer.Typer(help="The operator's tools: fair play, rating reverts, tournaments.")
    app.add_typer(admin, name="admin")

    @admin.command()
    def fairplay(
        database_url: DbUrl = None,
        as_json: Annotated[bool, typer.Option("--json", help="One JSON list instead of text.")] = False,
        everyone: Annotated[bool, typer.Option("--all", help="Every pair, not only those that stand out.")] = False,
        limit: Annotated[int, typer.Option(help="Read the newest LIMIT rated games.", min=1)] = 5000,
    ) -> None:
        """Pairs of accounts whose bidding against each other stands out (possible soft play), with the evidence."""
        from catsack.server.people.fairplay import MIN_GAP, MIN_TURNS, MIN_Z, report
        from catsack.server.storage.store import make_engine

        engine = make_engine(_url(database_url))
        try:
            found = report(engine, limit=limit, everyone=everyone)
        finally:
            engine.dispose()
        pairs = found.pairs
        if as_json:
            typer.echo(json.dumps(pairs, indent=1))
            return
        typer.echo(f"{found.games_read} rated games read")
        if not pairs:
            typer.echo("no pair stands out")
            return
        typer.echo(
            f"pairs whose pass share while the partner leads exceeds the share while others lead by >= {MIN_GAP} "
            f"(z >= {MIN_Z}, >= {MIN_TURNS} turns):"
        )
        for p in pairs:
            mark = "!" if p["stands_out"] else " "
            typer.echo(
                f"{mark} {p['a']} + {p['b']}: {p['games_together']} games together (overlap {p['overlap']:.0%}); "
                f"passed {p['passes_while_partner_led']} of {p['turns_while_partner_led']} turns while the other led "
                f"({p['pass_share_partner_led']:.0%}) against {p['pass_share_others_led']:.0%} while others led, "
                f"z = {p['z']}; raised over each other {p['raises_over_each_other']} times; "
                f"games: {', '.join(p['tables'][:8])}"
            )

    @admin.command()
    def revert(
        table: Annotated[str, typer.Argument(help="The rated game's table id.")],
        database_url: DbUrl = None,
        reason: Annotated[str, typer.Option(help="Why (kept with the game, at most 200 characters).")] = "",
    ) -> None:
        """Take a rated game's rating changes back (an abandoned or collusive game)."""
        from catsack.server.people.ratings import RatingError, Ratings
        from catsack.server.storage.store import make_engine

        engine = make_engine(_url(database_url))
        try:
            changes = Ratings(engine).revert(table, reason)
        except RatingError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(1) from None
        finally:
            engine.dispose()
        typer.echo(f"reverted the rating changes of game {table}:")
        for c in changes:
            typer.echo(f"  {c['player']}: {c['before']} -> {c['after']}")

    tour = typer.Typer(help="Tournaments made by the operator (a running server plays them).")
    admin.add_typer(tour, name="tournament")

    @tour.command("create")
    def tour_create(
        name: Annotated[str, typer.Option(help="Shown in the list.")],
        database_url: DbUrl = None,
        seats: Annotated[int, typer.Option(min=3, max=5)] = 4,
        rounds: Annotated[int, typer.Option(min=1, max=12)] = 4,
        turn_seconds: Annotated[int, typer.Option(min=10, max=600, help="Seconds per move.")] = 60,
        rated: Annotated[bool, typer.Option(help="Its games change ratings.")] = False,
        duplicate: Annotated[bool, typer.Option(help="Every table of a round plays the same deal.")] = False,
        bots: Annotated[str, typer.Option(help="Bot entries, comma-separated levels.")] = "",
        filler: Annotated[str, typer.Option(help="Level of the bots that fill short tables.")] = "heuristic",
        min_finished: Annotated[
            float | None, typer.Option(min=0.0, max=1.0, help="Least share of games finished to enter.")
        ] = None,
        starts_in: Annotated[int | None, typer.Option(min=0, help="Start by itself after this many minutes.")] = None,
        move_hours: Annotated[
            int | None, typer.Option(help="Turn-based: hours per move (12, 24 or 72); omitted: real time.")
        ] = None,
        bank_hours: Annotated[int, typer.Option(help="Turn-based: each player's time bank in hours.")] = 72,
        round_hours: Annotated[int, typer.Option(min=12, max=336, help="Turn-based: a round's length.")] = 72,
        arena: Annotated[
            int | None, typer.Option(min=10, max=1440, help="An arena of this many minutes instead of Swiss rounds.")
        ] = None,
        bots_after: Annotated[
            int | None, typer.Option(min=10, max=600, help="Arena: seconds before filler bots complete a table.")
        ] = None,
    ) -> None:
        """Create a tournament (upcoming; accounts enter on its page)."""
        from catsack.server.storage.store import Store
        from catsack.server.tables.seating import BOT_LEVELS
        from catsack.server.tables.turnbased import ClockError, TurnBased
        from catsack.server.tournaments.model import Tournaments

        levels = [b for b in bots.split(",") if b]
        for level in [*levels, filler]:
            if level not in BOT_LEVELS:
                typer.echo(f"unknown bot level {level!r} (choose from {', '.join(BOT_LEVELS)})", err=True)
                raise typer.Exit(2)
        store = Store(_url(database_url))
        try:
            options: dict[str, object] = {
                "pace": "realtime",
                "turn_seconds": turn_seconds,
                "rated": rated,
                "duplicate": duplicate,
                "filler": filler,
                "min_finished": min_finished,
            }
            if move_hours is not None:
                try:
                    TurnBased(move_hours, bank_hours)
                except ClockError as exc:
                    typer.echo(str(exc), err=True)
                    raise typer.Exit(2) from None
                if round_hours < move_hours:
                    typer.echo("a round lasts at least one move's time", err=True)
                    raise typer.Exit(2)
                options.update(
                    pace="turnbased",
                    turn_seconds=None,
                    move_hours=move_hours,
                    bank_hours=bank_hours,
                    round_hours=round_hours,
                )
            if arena is not None:
                if move_hours is not None or duplicate or levels:
                    typer.echo("an arena is played in real time, without duplicate deals or bot entries", err=True)
                    raise typer.Exit(2)
                options.update(format="arena", minutes=arena, bots_after=bots_after)
                rounds = 0
            starts = None if starts_in is None else time.time() + 60 * starts_in
            t = Tournaments(store.engine).create(
                name[:60], seats, rounds, options, creator=None, starts=starts, bots=levels
            )
        finally:
            store.close()
        typer.echo(f"created tournament {t.id}: /tournaments/{t.id}")

    @tour.command("start")
    def tour_start(
        tid: Annotated[str, typer.Argument(help="The tournament's id.")], database_url: DbUrl = None
    ) -> None:
        """Start an upcoming tournament now (a running server seats its first round within seconds)."""
        from catsack.server.storage.store import Store
        from catsack.server.tournaments.model import Tournaments

        store = Store(_url(database_url))
        try:
            ok = Tournaments(store.engine).schedule(tid, time.time())
        finally:
            store.close()
        if not ok:
            typer.echo(f"no upcoming tournament {tid!r}", err=True)
            raise typer.Exit(1)
        typer.echo(f"tournament {tid} starts now")

    @tour.command("list")
    def tour_list(database_url: DbUrl = None) -> None:
        """Upcoming, running and recent finished tournaments."""
        from catsack.server.storage.store import Store
        from catsack.server.tournaments.model import Tournaments

        store = Store(_url(database_url))
        try:
            for t in Tournaments(store.engine).listing():
                if t.options.get("format") == "arena":
                    where = f"arena {t.options.get('minutes')} min, {t.current_round} tables"
                else:
                    where = f"round {t.current_round}/{t.rounds}"
                typer.echo(f"{t.id}  {t.status:<9} {where}  {t.seats} seats  {t.name}")
        finally:
            store.close()
