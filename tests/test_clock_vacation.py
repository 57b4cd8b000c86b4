"""The turn-based clock with vacation windows: time inside a window is not elapsed (docs/rules.md,
"Playing online"); the deadline and the reminder's time move by exactly the window's length."""

from __future__ import annotations

import json

from catsack.server.tables.turnbased import HOUR, Clock, TurnBased, clock_of


def test_a_window_inside_the_turn_moves_the_deadline_by_its_length() -> None:
    clock = TurnBased(24, 72).new_clock(3).started(1000.0)
    assert clock.deadline(0) == 1000.0 + 96 * HOUR
    away = clock.with_away(0, [(1000.0 + 10 * HOUR, 1000.0 + 58 * HOUR)])  # two days away
    assert away.deadline(0) == 1000.0 + 96 * HOUR + 48 * HOUR
    assert away.deadline(1) == clock.deadline(1)  # another seat's clock is its own
    # The remaining time before and after the vacation: exactly what it was when it began.
    before = 96 * HOUR - away.elapsed(0, 1000.0 + 10 * HOUR)
    after = 96 * HOUR - away.elapsed(0, 1000.0 + 58 * HOUR)
    assert before == after == 86 * HOUR
    # A move after the vacation is charged for the time outside it only.
    moved = away.after_move(0, 1000.0 + 58 * HOUR + 20 * HOUR, charged=True)  # 30 hours outside
    assert moved.banks[0] == 72 * HOUR - 6 * HOUR
    assert moved.away == ()  # the window ended before the next turn: dropped


def test_a_window_that_began_before_the_turn_counts_from_the_turn_and_survives_the_text() -> None:
    clock = TurnBased(12, 0).new_clock(2).started(5000.0).with_away(1, [(4000.0, 5000.0 + 3 * HOUR)])
    assert clock.deadline(1) == 5000.0 + 12 * HOUR + 3 * HOUR
    again = clock_of(clock.to_json())
    assert again == clock and again is not None and again.on_vacation(1, 5000.0) == 5000.0 + 3 * HOUR
    assert json.loads(TurnBased(12, 0).new_clock(2).to_json()).get("away") is None  # no windows, as before
    # Windows that have not ended go on to the next turn (seat 1's turn comes while it is away).
    nxt = clock.after_move(0, 5000.0 + HOUR, charged=True)
    assert nxt.deadline(1) == 5000.0 + HOUR + 12 * HOUR + 2 * HOUR
    assert clock.public()["away"][1] == [["1970-01-01T01:06:40Z", "1970-01-01T04:23:20Z"]]


def test_two_windows_and_the_reminder() -> None:
    clock = Clock(10 * HOUR, (0.0, 0.0), 0.0).with_away(0, [(8 * HOUR, 9 * HOUR), (2 * HOUR, 4 * HOUR)])
    assert clock.deadline(0) == 13 * HOUR
    # A quarter of the ten hours left: seven and a half hours on the clock, plus the three paused.
    assert clock.remind_at(0, 0.25) == 7.5 * HOUR + 3 * HOUR  # both windows fall before it
    assert clock.remind_at(0, 0.1) == 9 * HOUR + 3 * HOUR
    assert clock.elapsed(0, 13 * HOUR) == 10 * HOUR
