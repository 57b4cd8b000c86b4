"""Turn-based Swiss tournaments (docs/tournaments.md, "Turn-based tournaments"): a start time, rounds
of turn-based tables with a round deadline, the round notice by mail and push, withdrawal by timeout,
and the standings after all that recomputed by hand.

Clocks are hours and days long, so tests move stored times into the past (as time passing would)
and ask for one step of the tournament or one pass of the hub's clock sweep instead of waiting.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from catsack.server.tables.turnbased import HOUR, Clock, TurnBased

# ---------------------------------------------------------------------- the hard stop, by hand


def test_a_round_deadline_caps_every_turns_deadline_and_then_settles() -> None:
    """A clock with a hard stop: no deadline after it, and once it has come a turn is settled (the
    stand-in bot moves, the seat stays the person's) instead of timed out."""
    tb = TurnBased(24, 72, until=1000.0 + 50 * HOUR)
    assert tb.options() == {"move_hours": 24, "bank_hours": 72, "until": 1000.0 + 50 * HOUR}
    assert TurnBased.of({"turn_based": tb.options()}) == tb
    clock = tb.new_clock(3).started(1000.0)
    # Without the stop seat 0 would have 24 + 72 hours; the round ends after 50.
    assert clock.deadline(0) == 1000.0 + 50 * HOUR
    assert not clock.settling(1000.0 + 49 * HOUR) and clock.settling(1000.0 + 50 * HOUR)
    # A move keeps the stop; a bank spent down to a deadline before the stop is not capped.
    later = clock.after_move(0, 1000.0 + 30 * HOUR, charged=True)
    assert later.until == clock.until and later.deadline(1) == 1000.0 + 50 * HOUR
    short = Clock(12 * HOUR, (0.0, 0.0), 1000.0, until=1000.0 + 50 * HOUR)
    assert short.deadline(0) == 1000.0 + 12 * HOUR
    # Stored and read back, and shown: the stop is public (it is the round's deadline).
    from catsack.server.tables.turnbased import clock_of

    assert clock_of(clock.to_json()) == clock
    assert clock.public()["until"].endswith("Z")
    assert TurnBased(24).new_clock(3).until is None and "until" not in TurnBased(24).options()


# ---------------------------------------------------------------------- on the server

pytest.importorskip("fastapi")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import select, update  # noqa: E402

from catsack.server.people.mail import mail_queue_t  # noqa: E402
from catsack.server.people.push import push_queue_t  # noqa: E402
from catsack.server.storage.store import tables_t  # noqa: E402
from catsack.server.tournaments.model import Tournaments, tournament_tables_t  # noqa: E402
from catsack.server.tournaments.runner import advance  # noqa: E402
from mail_sink import mail_settings, smtp_sink  # noqa: E402
from push_sink import PushDevice, push_service  # noqa: E402
from test_days import CARD, hub_of, verified  # noqa: E402
from test_push import push_settings, subscribe  # noqa: E402
from test_social import account  # noqa: E402
from test_turn_based import expire, stored, wait_for  # noqa: E402
from web_clients import ORIGIN  # noqa: E402


def step(c: TestClient, tid: str, now: float | None = None) -> None:
    """One tournament step at ``now`` (what every process's sweep does every few seconds)."""
    c.portal.call(advance, hub_of(c), tid, now)  # type: ignore[union-attr]


def evicted(c: TestClient, table_id: str) -> None:
    """Let go of a table in memory, as the hub does with a turn-based game nobody watches."""
    hub = hub_of(c)
    table = hub.tables.get(table_id)
    if table is not None:
        c.portal.call(hub.evict, table)  # type: ignore[union-attr]


def deadline_passes(c: TestClient, tid: str, round_no: int) -> None:
    """Move round ``round_no``'s deadline into the past, as days passing would (the tournament's
    tables and every game's clock), and run one pass of the hub's clock sweep."""
    hub = hub_of(c)
    past = time.time() - 5.0
    with hub.store.engine.begin() as conn:
        conn.execute(
            update(tournament_tables_t)
            .where(tournament_tables_t.c.tournament_id == tid, tournament_tables_t.c.round == round_no)
            .values(deadline=past)
        )
    for slot in Tournaments(hub.store.engine).tables(tid, round_no):
        evicted(c, slot.table_id)
        row = stored(c, slot.table_id)
        if row.status != "playing":
            continue
        clock = json.loads(row.clock)
        clock["until"] = past
        with hub.store.engine.begin() as conn:
            conn.execute(
                update(tables_t).where(tables_t.c.id == slot.table_id).values(clock=json.dumps(clock), deadline=past)
            )
    c.portal.call(hub.drive_due_tables)  # type: ignore[union-attr]


def queued(c: TestClient, table: Any, kind: str = "tournament") -> list[int]:
    with hub_of(c).store.engine.connect() as conn:
        return [int(r.user_id) for r in conn.execute(select(table).where(table.c.kind == kind)).all()]


def by_hand(tables: list[list[tuple[int | None, int, int, bool]]]) -> dict[int, tuple[float, float, int]]:
    """Per entry: rank points, table wins and game score of one round, worked out from the rules as
    docs/tournaments.md states them (not with the code under test): place k of n earns n - k, tied
    places share their points, a first place shared by k counts 1/k, an abandoned seat earns nothing and
    its score is not the player's; fillers (entry None) earn nobody anything."""
    out: dict[int, tuple[float, float, int]] = {}
    for table in tables:
        n = len(table)
        keys = [(s, c) for _, s, c, _ in table]
        for entry, score, cats, abandoned in table:
            if entry is None:
                continue
            better = sum(1 for k in keys if k > (score, cats))
            tied = sum(1 for k in keys if k == (score, cats))
            points = sum(n - place for place in range(better + 1, better + 1 + tied)) / tied
            win = 1.0 / tied if better == 0 else 0.0
            out[entry] = (0.0, 0.0, 0) if abandoned else (points, win, score)
    return out


def test_a_turn_based_tournament_from_its_start_time_to_the_end(app_server: Any) -> None:
    """Three accounts, three seats, two turn-based rounds of three days, a start time a day ahead:

    * it starts at that time, not before, and round 1 is one turn-based table whose clocks stop at the
      round's deadline;
    * the round notice is queued once per player who wants it: Ann by mail and push, Ben by push, Cid
      (neither) not at all; a repeated step queues nothing more; nothing of the deal is in it;
    * the first person to move lets their clock run out: a bot takes the seat and they are withdrawn;
    * the deadline comes with the game unfinished: the stand-in bot plays it out for the two people
      left, their seats stay theirs (not abandoned, not withdrawn) and the game counts;
    * round 2 seats the two who stayed (and a filler), ends at its deadline the same way, and the
      standings are the hand-computed ones."""
    with smtp_sink() as (sink, port), push_service() as service:
        c = app_server(**mail_settings(port), **push_settings(), evict_turn_based_seconds=3600.0)
        ann, ben, cid = account(c, "Ann"), account(c, "Ben"), account(c, "Cid")
        verified(ann, sink, "ann@example.org")
        devices = {"Ann": PushDevice(service.base), "Ben": PushDevice(service.base)}
        subscribe(ann, devices["Ann"])
        subscribe(ben, devices["Ben"])
        starts = datetime.fromtimestamp(time.time() + 86400, UTC).replace(microsecond=0)
        body = {
            "name": "Winter league",
            "seats": 3,
            "rounds": 2,
            "pace": "turnbased",
            "move_hours": 24,
            "bank_hours": 72,
            "round_hours": 72,
            "starts_at": starts.isoformat(),
        }
        r = ann.post("/api/tournaments", json=body, headers=ORIGIN)
        assert r.status_code == 201, r.text
        t = r.json()
        assert t["starts"] == starts.isoformat().replace("+00:00", "Z") and t["pace"] == "turnbased"
        assert (t["move_hours"], t["bank_hours"], t["round_hours"], t["turn_seconds"]) == (24, 72, 72, None)
        for who in (ben, cid):
            assert who.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
        tid = t["id"]
        step(c, tid, starts.timestamp() - 60)  # a minute early: nothing happens
        assert c.get(f"/api/tournaments/{tid}").json()["status"] == "upcoming"
        step(c, tid, starts.timestamp())
        info = c.get(f"/api/tournaments/{tid}").json()
        assert info["status"] == "running" and info["round"] == 1 and len(info["tables"]) == 1
        game = info["tables"][0]["game"]
        options = hub_of(c).store.table(game).options
        (slot,) = Tournaments(hub_of(c).store.engine).tables(tid, 1)
        assert slot.deadline is not None and abs(slot.deadline - (time.time() + 72 * HOUR)) < 60
        assert options["turn_based"] == {"move_hours": 24, "bank_hours": 72, "until": slot.deadline}
        shown = datetime.fromtimestamp(slot.deadline, UTC).isoformat(timespec="seconds")
        assert info["deadline"] == shown.replace("+00:00", "Z")
        row = stored(c, game)
        assert row.status == "playing" and row.deadline <= slot.deadline

        # The notices: once per player who wants them, however often the step runs.
        step(c, tid)
        users = {e.name: e.user_id for e in Tournaments(hub_of(c).store.engine).entries(tid)}
        assert queued(c, mail_queue_t) == [users["Ann"]]
        assert sorted(queued(c, push_queue_t)) == sorted([users["Ann"], users["Ben"]])
        c.portal.call(c.app.state.mail_sender.run_once)  # type: ignore[attr-defined,union-attr]
        (mail,) = sink.wait(lambda ms: [m for m in ms if "round 1" in m["Subject"]], "the round mail")
        text = mail.get_content().split("\n--\n")[0]
        assert "turn-based, 1 day per move" in text and "The round ends" in text and not CARD.search(text)
        c.portal.call(c.app.state.push_sender.run_once, None)  # type: ignore[attr-defined,union-attr]
        got = [devices["Ben"].decrypt(r.body) for r in service.wait(devices["Ben"])]
        (pushed,) = [p for p in got if p["title"].startswith("Round")]  # (a turn of theirs may be pushed too)
        assert pushed["title"] == "Round 1 of Winter league starts" and "the round ends" in pushed["body"]

        # The first to move lets the clock run out: a bot has the seat, the player is withdrawn.
        first = stored(c, game).to_move
        seating = slot.seating
        timed_out = seating[first]
        evicted(c, game)  # nobody watches it: it waits in the database, like any turn-based game
        expire(c, game)
        c.portal.call(hub_of(c).drive_due_tables)  # type: ignore[union-attr]
        entries = lambda: {e.entry: e for e in Tournaments(hub_of(c).store.engine).entries(tid)}  # noqa: E731
        wait_for(lambda: entries()[timed_out].withdrawn is not None, "the player who timed out withdrawn")
        assert entries()[timed_out].withdrawn_round == 1
        wait_for(lambda: (r := stored(c, game)).to_move != first or r.status == "over", "the bot moved")

        # The deadline: the game is played out for the people left, and counts.
        deadline_passes(c, tid, 1)
        wait_for(lambda: stored(c, game).status == "over", "round 1's game played out")
        info = wait_for(lambda: (d := c.get(f"/api/tournaments/{tid}").json())["round"] == 2 and d, "round 2")
        stayed = [e for e in entries().values() if e.withdrawn is None]
        assert len(stayed) == 2
        (slot2,) = Tournaments(hub_of(c).store.engine).tables(tid, 2)
        assert sorted(e for e in slot2.seating if e is not None) == sorted(e.entry for e in stayed)
        assert slot2.seating.count(None) == 1  # a filler
        # The filler's moves are written with the clock it read: the days pass once a person is to move.
        wait_for(lambda: slot2.seating[stored(c, slot2.table_id).to_move] is not None, "a person to move in round 2")
        deadline_passes(c, tid, 2)
        done = wait_for(lambda: (d := c.get(f"/api/tournaments/{tid}").json())["status"] == "finished" and d, "the end")

    # Standings by hand, from the two finished games' scores.
    from catsack.server.tables.live import stored_game

    rounds = []
    for s, slot_ in ((1, slot), (2, slot2)):
        row_, seats_, actions = hub_of(c).store.load(slot_.table_id)
        played = stored_game(row_, actions)
        assert played.is_over
        table = [
            (entry, played.scores()[i], played.cat_points()[i], entry is not None and seats_[i].replaced)
            for i, entry in enumerate(slot_.seating)
        ]
        # Only the timed-out seat was handed over; the deadline's moves kept the others' seats theirs.
        assert [seat for seat, x in enumerate(table) if x[3]] == ([first] if s == 1 else [])
        rounds.append(by_hand([table]))
    totals = {}
    for e in entries():
        got = [r[e] for r in rounds if e in r]
        totals[e] = (sum(g[0] for g in got), sum(g[1] for g in got), sum(g[2] for g in got))
    order = sorted(totals, key=lambda e: (-totals[e][0], -totals[e][1], e == timed_out, -totals[e][2], e))
    rows = done["standings"]
    assert [r["entry"] for r in rows] == order
    for r in rows:
        assert (r["points"], r["wins"], r["score"]) == pytest.approx(totals[r["entry"]])
    assert rows[-1]["entry"] == timed_out and rows[-1]["withdrawn"] == 1 and rows[-1]["points"] == 0
    profile = c.get("/api/users/cid").json()
    assert profile["reputation"]["abandoned"] == (1 if users["Cid"] == entries()[timed_out].user_id else 0)


def test_the_operator_creates_a_turn_based_tournament_from_the_command_line(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from catsack.cli import app as cli_app
    from catsack.server.storage.store import Store

    url = f"sqlite:///{tmp_path / 'tb.db'}"
    Store(url).close()
    runner = CliRunner()
    args = ["admin", "tournament", "create", "--name", "Nights", "--database-url", url, "--seats", "3"]
    out = runner.invoke(cli_app, [*args, "--move-hours", "24", "--round-hours", "96", "--starts-in", "60"])
    assert out.exit_code == 0, out.output
    tid = out.output.split("created tournament ")[1].split(":")[0]
    store = Store(url)
    try:
        t = Tournaments(store.engine).get(tid)
    finally:
        store.close()
    assert t is not None and t.options["pace"] == "turnbased" and t.starts is not None
    assert (t.options["move_hours"], t.options["bank_hours"], t.options["round_hours"]) == (24, 72, 96)
    bad = runner.invoke(cli_app, [*args, "--move-hours", "5"])
    assert bad.exit_code == 2 and "hours per move" in bad.output
    short = runner.invoke(cli_app, [*args, "--move-hours", "72", "--round-hours", "24"])
    assert short.exit_code == 2 and "at least one move" in short.output
