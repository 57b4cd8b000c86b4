"""Vacations (docs/rules.md, "Playing online"): a player's turn-based clocks stand still for at most
``vacation_days_per_year`` days a calendar year, counted exactly; the deadline moves by exactly the
vacation, no bot takes the seat meanwhile (after a crash neither), and the others are shown until when."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy import insert, update

from catsack.server.people.accounts import AccountError
from catsack.server.people.vacation import DAY, Vacations, vacations_t
from catsack.server.storage.store import tables_t
from catsack.server.tables.bus import TablesAdopted
from catsack.server.tables.turnbased import HOUR, clock_of
from test_turn_based import TB, run, stored, wait_for
from web_clients import ORIGIN, browser, register


def hub_of(c: TestClient) -> Any:
    return c.app.state.hub  # type: ignore[attr-defined]


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_days_are_counted_exactly_per_calendar_year_and_refused_past_the_limit(
    app_server: Callable[..., TestClient],
) -> None:
    c = app_server(vacation_days_per_year=5)
    register(c, "Ann")
    box = Vacations(hub_of(c).store.engine, 5)
    t0 = at("2031-03-01T12:00:00")
    box.start(1, 3, now=t0)
    with pytest.raises(AccountError) as running:
        box.start(1, 1, now=t0 + DAY)
    assert running.value.code == "vacation_running"
    box.end(1, now=t0 + 2 * DAY)  # back after two of the three days: two count
    assert box.status(1, now=t0 + 3 * DAY)["used_days"] == 2.0
    with pytest.raises(AccountError) as refused:
        box.start(1, 4, now=t0 + 10 * DAY)
    assert refused.value.code == "vacation_limit" and refused.value.status == 409
    assert refused.value.params == {"year": 2031, "left": "3.0", "max": 5}
    assert "3.0 of 5 days" in refused.value.message
    box.start(1, 3, now=t0 + 10 * DAY)  # exactly what is left
    assert box.status(1, now=t0 + 20 * DAY)["left_days"] == 0.0
    # Across New Year each year counts its own part: two days in 2031 (none left) is refused...
    with pytest.raises(AccountError):
        box.start(1, 4, now=at("2031-12-30T00:00:00"))
    # ...and a vacation of a new year starts afresh.
    box.start(1, 5, now=at("2032-01-01T00:00:00"))
    # Through the API: whole days from 1 to the limit, a clear error past it.
    for bad in (0, 6):
        r = c.post("/api/vacation/start", json={"days": bad}, headers=ORIGIN)
        assert r.status_code == 422 and r.json()["code"] == "vacation_days" and r.json()["params"] == {"max": 5}
    assert c.post("/api/vacation/end", headers=ORIGIN).json()["code"] == "no_vacation"
    assert browser(c).get("/api/vacation").status_code == 401


def people_at_a_table(c: TestClient) -> tuple[str, TestClient, TestClient, Any]:
    """Ann (seat 0) and Bea (seat 1), both with accounts, and a bot; returns the mover's row."""
    ann, bea = c, browser(c)
    register(ann, "Ann")
    register(bea, "Bea")
    r = ann.post(
        "/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"}, headers=ORIGIN
    )
    t = str(r.json()["table"])
    assert bea.post(f"/api/tables/{t}/join", json={"name": "Bea"}, headers=ORIGIN).status_code == 200
    row = wait_for(lambda: (s := stored(c, t)).to_move in (0, 1) and s, "a person's turn")
    return t, ann, bea, row


def test_a_vacation_pauses_the_clock_exactly_and_the_others_see_it(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    t, ann, bea, row = people_at_a_table(c)
    mover, other = (ann, bea) if row.to_move == 0 else (bea, ann)
    before = row.deadline
    r = mover.post("/api/vacation/start", json={"days": 3}, headers=ORIGIN)
    assert r.status_code == 200, r.text
    until = at(r.json()["until"].rstrip("Z"))
    after = stored(c, t)
    started = until - 3 * DAY
    # The clock stands still from the vacation's start: the deadline moves by exactly three days.
    assert after.deadline == pytest.approx(before + 3 * DAY, abs=1.0)
    clock = clock_of(after.clock)
    assert clock is not None and clock.on_vacation(int(row.to_move), started + 1) == pytest.approx(until, abs=1.0)
    # Time left before and after: what was left when it began is left when it ends.
    ((a, b),) = clock.windows(int(row.to_move))
    assert b - a == 3 * DAY and clock.elapsed(int(row.to_move), b) == clock.elapsed(int(row.to_move), a)
    live = hub_of(c).tables[t]
    wait_for(lambda: live.row.deadline == after.deadline, "the live table's timer follows")
    # Shown to the others: the table's clock and their My games.
    state = other.get(f"/api/tables/{t}/state").json()
    assert state["clock"]["away"][row.to_move][0][1] == r.json()["until"]
    (game,) = other.get("/api/mygames").json()["games"]
    assert game["away_until"] == r.json()["until"]
    # Ending it: the clock runs again, charged only for the time away.
    r = mover.post("/api/vacation/end", headers=ORIGIN)
    assert r.status_code == 200 and r.json()["until"] is None
    ended = stored(c, t)
    assert before < ended.deadline < before + 60.0  # back within the minute: the deadline is nearly as it was
    assert other.get("/api/mygames").json()["games"][0]["away_until"] is None


def test_no_bot_takes_a_paused_seat_even_after_a_crash(app_server: Callable[..., TestClient]) -> None:
    """A process died after a move's commit and before the vacation's windows went into the clock: its
    stored deadline says the time ran out. The process that takes the table over writes the windows,
    and the clock sweep finds nothing to hand to a bot."""
    c = app_server()
    t, _ann, _bea, row = people_at_a_table(c)
    hub = hub_of(c)
    seat = int(row.to_move)
    now = time.time()
    clock = json.loads(row.clock)
    clock["since"] = now - 97 * HOUR  # 24 hours per move + 72 of bank: one hour too many without the vacation
    with hub.store.engine.begin() as conn:
        conn.execute(insert(vacations_t).values(user_id=seat + 1, starts=now - 5 * HOUR, ends=now + DAY, created=now))
        conn.execute(update(tables_t).where(tables_t.c.id == t).values(clock=json.dumps(clock), deadline=now - HOUR))

    async def evict() -> None:  # on the hub's event loop, as its sweep does it
        hub.evict(hub.tables[t])

    run(c, evict())  # nobody looks at it: it waits in the database
    run(c, hub.events.publish(TablesAdopted((t,))))
    fixed = stored(c, t)
    assert fixed.deadline == pytest.approx(now - 97 * HOUR + 96 * HOUR + 5 * HOUR + DAY, abs=1.0)
    assert run(c, hub.drive_due_tables()) == 0  # no clock ran out
    assert c.get(f"/api/tables/{t}/state").json()["players"][seat]["kind"] == "human"
