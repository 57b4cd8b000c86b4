"""``catsack analyse RECORD --seat N``: what the search thinks of each decision one seat made.

Seats count from 1 here as everywhere people read them (R4); records and the API count from 0.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from catsack.locales import LANGUAGES

if TYPE_CHECKING:
    from catsack.advice.analysis import Decision


def _belief_text(beliefs: list[dict[str, float] | None], lang: str) -> str:
    from catsack.i18n import percent, translations

    t = translations(lang)
    parts = []
    for pos, belief in enumerate(beliefs):
        if belief is None:
            continue
        groups: dict[float, list[str]] = {}
        for token, p in belief.items():
            groups.setdefault(round(p, 4), []).append(token)
        text = "; ".join(
            t.gettext("{share} each {cards}").format(share=percent(p, lang), cards=" ".join(ts))
            for p, ts in sorted(groups.items(), reverse=True)
        )
        parts.append(f"#{pos + 1}: {text}")
    return "\n".join(parts) or "-"


def _verdict(decision: Decision, lang: str) -> str:
    """How the played move stands against the best-valued one, in ``lang``."""
    from catsack.advice.analysis import judge
    from catsack.i18n import move_words, number, translations

    t = translations(lang)
    a = decision.analysis
    v = judge(a.values, a.noise, a.best.text, decision.played.text)
    best, noise = move_words(a.best.text, t), number(v.noise, lang, decimals=2)
    if a.best == decision.played:
        return t.gettext("= best")
    if v.equal:
        return t.gettext("≈ best {move} (within the noise ±{noise})").format(move=best, noise=noise)
    classes = {
        "inaccuracy": t.pgettext("verdict", "inaccuracy"),
        "mistake": t.pgettext("verdict", "mistake"),
        "blunder": t.pgettext("verdict", "blunder"),
    }
    lost = number(v.lost, lang, decimals=2)
    text = t.gettext("≠ best {move}: {lost} lost (noise ±{noise})").format(move=best, lost=lost, noise=noise)
    return text + (f", {classes.get(v.cls, v.cls)}" if v.cls else "")


def _table(decision: Decision, lang: str) -> object:
    from rich.table import Table

    from catsack.advice.analysis import equally_good
    from catsack.advice.explain import explain, render
    from catsack.i18n import move_words, number, translations

    t = translations(lang)
    a = decision.analysis
    phases = {"placement": t.pgettext("phase", "placement"), "bidding": t.pgettext("phase", "bidding")}
    title = t.gettext("ply {ply} · round {round} · {phase} · played {move} {verdict}").format(
        ply=decision.ply,
        round=decision.round,
        phase=phases.get(decision.phase, decision.phase),
        move=move_words(decision.played.text, t),
        verdict=_verdict(decision, lang),
    )
    table = Table(
        title=title,
        caption=" ".join(render(s, lang) for s in explain(a, decision.played)),
        title_justify="left",
        caption_justify="left",
    )
    table.add_column(t.pgettext("analysis column", "move"))
    table.add_column(t.pgettext("analysis column", "value (pts)"), justify="right")
    table.add_column(t.pgettext("analysis column", "± s.e."), justify="right")
    table.add_column(t.pgettext("analysis column", "visits"), justify="right")
    table.add_column(t.pgettext("analysis column", "face-down cards (belief)"))
    played_mark = " ◀ " + t.gettext("played")
    equal = set(equally_good(a))
    rows = sorted(a.values.items(), key=lambda kv: -kv[1])
    beliefs = _belief_text(a.beliefs, lang)
    for i, (text, value) in enumerate(rows):
        mark = " ★" if text == a.best.text else " ≈" if text in equal else ""
        mark += played_mark if text == decision.played.text else ""
        noise = number(a.noise[text], lang, decimals=2) if text in a.noise else "-"
        table.add_row(
            move_words(text, t) + mark,
            number(value, lang, decimals=2, signed=True),
            noise,
            str(a.visits.get(text, 0)),
            beliefs if i == 0 else "",
        )
    if decision.played.text not in a.values:
        table.add_row(
            move_words(decision.played.text, t) + played_mark,
            t.gettext("not searched"),
            "-",
            "0",
            "" if rows else beliefs,
        )
    return table


def register(app: typer.Typer) -> None:
    @app.command()
    def analyse(
        record_path: Annotated[str, typer.Argument(metavar="RECORD", help="A catsack/1 record file; '-' reads stdin.")],
        seat: Annotated[
            int,
            typer.Option(
                "--seat",
                min=1,
                max=5,
                help="The seat whose decisions to analyse, 1 to the number of seats (the record's seat 0 is 1).",
            ),
        ],
        level: Annotated[
            str,
            typer.Option(
                help="Search level: expert, expert:easy|normal|strong, expert:iters=N; "
                "ISMCTS: easy, normal, strong or iters=N."
            ),
        ] = "expert",
        as_json: Annotated[bool, typer.Option("--json", help="One JSON object per decision, one per line.")] = False,
        seed: Annotated[int | None, typer.Option(help="Seed for the search (reproducible results).")] = None,
        lang: Annotated[str, typer.Option(help=f"Language of the sentences: {', '.join(LANGUAGES)}.")] = "en",
    ) -> None:
        """Analyse every decision of one seat in a record: move played, best-valued move, values with their
        noise (★ best, ≈ as good within the noise), beliefs, and a sentence on each decision.

        A move is classed a mistake only when it lost more than the noise of its gap to the best."""
        from catsack.advice.analysis import analyse_record
        from catsack.errors import CatsackError
        from catsack.record import read_record

        if lang not in LANGUAGES:
            typer.echo(f"--lang must be one of {', '.join(LANGUAGES)}, not {lang!r}", err=True)
            raise typer.Exit(2)

        try:  # through the loader's size cap: a huge file is refused, not read whole
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
        if seat > record.seats:
            n = record.seats
            typer.echo(f"--seat must be from 1 to {n} in this {n}-seat record, not {seat}", err=True)
            raise typer.Exit(2)
        if record.redacted_for is not None and record.redacted_for != seat - 1:
            shown = record.redacted_for + 1
            message = f"the record is redacted for seat {shown}; it cannot show seat {seat}'s view"
            typer.echo(f"{record_path}: {message}", err=True)
            raise typer.Exit(2)
        try:
            decisions = analyse_record(record, seat - 1, level=level, seed=seed)  # people count from 1 (R4)
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
            from catsack.i18n import translations

            console.print(translations(lang).gettext("seat {seat} made no decision in this record").format(seat=seat))
        for d in decisions:
            console.print(_table(d, lang))

    @app.command("training-pool")
    def training_pool(
        games: Annotated[int, typer.Option(min=1, max=1000, help="Bot games to play and analyse.")] = 20,
        seed: Annotated[int, typer.Option(help="Seed of the games and their analyses (reproducible).")] = 1,
        level: Annotated[str, typer.Option(help="Analysis level (as for catsack analyse).")] = "expert",
        database_url: Annotated[
            str | None, typer.Option("--database-url", help="The server's database (default: CATSACK_DATABASE_URL).")
        ] = None,
    ) -> None:
        """Mine training positions from bot games into the server's database (the training page's pool).

        Seat 0 is expert:easy (a level that makes mistakes), the others heuristic; 3, 4 and 5 seats in
        turn. Every decision of seat 0 the analysis classes a mistake or blunder becomes a position."""
        from catsack.errors import CatsackError
        from catsack.server.people.training import mine_pool
        from catsack.server.settings import Settings
        from catsack.server.storage.store import Store

        store = Store(database_url or Settings().database_url)
        try:
            added = mine_pool(store.engine, games=games, seed=seed, level=level, progress=typer.echo)
        except CatsackError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from None
        finally:
            store.close()
        typer.echo(f"{added} positions added to the pool")
