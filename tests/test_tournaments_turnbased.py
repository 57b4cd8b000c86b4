"""Turn-based Swiss tournaments (docs/tournaments.md, "Turn-based tournaments"): a start time, rounds
of turn-based tables with a round deadline, the round notice by mail and push, withdrawal by timeout,
and the standings after all that recomputed by hand.

Clocks are hours and days long, so tests move stored times into the past (as time passing would)
and ask for one step of the tournament or one pass of the hub's clock sweep instead of waiting.
"""

from __future__ import annotations

from catsack.server.turnbased import HOUR, Clock, TurnBased

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
    from catsack.server.turnbased import clock_of

    assert clock_of(clock.to_json()) == clock
    assert clock.public()["until"].endswith("Z")
    assert TurnBased(24).new_clock(3).until is None and "until" not in TurnBased(24).options()
