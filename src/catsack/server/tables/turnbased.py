"""Turn-based tables: a time per move in hours, a time bank per player, and the rule when both run out.

A turn-based table is a normal table with one more option, ``turn_based``
(:class:`TurnBased`: hours per move and hours of time bank), chosen by its host
or by whatever creates the table (a challenge, a tournament round). Each move
may take up to the time per move for free; time beyond it comes out of the
mover's bank. When the time per move and the bank are both spent, the seat is
handed to a bot for the rest of the game (docs/rules.md, "Playing online").
No bot takes a turn-based seat for being disconnected: the clock is the only
limit.

The clock (:class:`Clock`: each seat's bank and when the current turn began) is
stored with the table, written in the same transaction as every move, so a
restart resumes every clock exactly. The turn's deadline is the table's stored
``deadline``. Nothing of a turn-based game stays in memory while nobody looks:
the server does not load turn-based tables on start, evicts them soon after
the last connection leaves, and :func:`due_tables` finds the ones whose clock
ran out or whose bot is to move, so that the hub loads and drives them.

A table may also have a hard stop (``until``, epoch seconds: a turn-based tournament round's
deadline, :mod:`catsack.server.tournaments`): no turn's deadline is later than it, and a person's
turn that reaches it is played by the stand-in bot with the seat kept theirs (:meth:`Clock.settling`),
so the game ends soon after it and counts as played. Time running out *before* it hands the seat to
a bot as usual.

Timing is public: everybody sees when each move was made (R23 hides cards, not
times), so the banks shown to every seat reveal nothing.

Vacations (:mod:`catsack.server.people.vacation`) pause a player's clocks: the clock keeps each seat's
vacation windows (``away``), and time inside them is not elapsed. The move's deadline and the
reminder's time (:meth:`Clock.remind_at`) are where the seat's running time, leaving out the
windows, reaches its limit; a window is written into the stored clock with the vacation, so a
restart or another process reads the same deadline.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, and_, or_, select

from catsack.server.storage.store import lease_free, leases_t, tables_t

__all__ = [
    "BANK_HOURS",
    "DEFAULT_BANK_HOURS",
    "MOVE_HOURS",
    "Clock",
    "ClockError",
    "TurnBased",
    "clock_of",
    "due_tables",
    "realtime_unfinished_ids",
    "reminder_time",
]

#: The times per move a host may choose, in hours.
MOVE_HOURS = (12, 24, 72)
#: The time banks a host may choose, in hours (0: none, every move must be made within its time).
BANK_HOURS = (0, 24, 72, 168)
DEFAULT_BANK_HOURS = 72
HOUR = 3600.0


class ClockError(ValueError):
    """A time control that is not one of the choices (a ``ValueError``: request models answer 422)."""


@dataclass(frozen=True, slots=True)
class TurnBased:
    """The turn-based time control of a table: ``move_hours`` per move plus ``bank_hours`` per player."""

    move_hours: int
    bank_hours: int = DEFAULT_BANK_HOURS
    until: float | None = None  # a hard stop (epoch seconds): a tournament round's deadline

    def __post_init__(self) -> None:
        if self.move_hours not in MOVE_HOURS:
            raise ClockError(
                f"a turn-based table has {', '.join(map(str, MOVE_HOURS))} hours per move, not {self.move_hours!r}"
            )
        if self.bank_hours not in BANK_HOURS:
            raise ClockError(
                f"a turn-based time bank has {', '.join(map(str, BANK_HOURS))} hours, not {self.bank_hours!r}"
            )

    @property
    def move_seconds(self) -> float:
        return self.move_hours * HOUR

    @property
    def bank_seconds(self) -> float:
        return self.bank_hours * HOUR

    def options(self) -> dict[str, Any]:
        """The table option as it is stored (``options["turn_based"]``) and shown."""
        out: dict[str, Any] = {"move_hours": self.move_hours, "bank_hours": self.bank_hours}
        if self.until is not None:
            out["until"] = self.until
        return out

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> TurnBased | None:
        """The time control in a table's options, or ``None`` for a real-time table."""
        tb = options.get("turn_based")
        if not isinstance(tb, Mapping):
            return None
        until = tb.get("until")
        return cls(
            int(tb["move_hours"]),
            int(tb.get("bank_hours", DEFAULT_BANK_HOURS)),
            None if until is None else float(until),
        )

    def new_clock(self, seats: int) -> Clock:
        return Clock(self.move_seconds, (self.bank_seconds,) * seats, None, until=self.until)


Window = tuple[float, float]


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class Clock:
    """A turn-based table's clock: the time per move, each seat's bank (seconds left), when the
    turn now running began (epoch seconds; ``None`` before the game starts), each seat's vacation
    windows (``away``: ``(start, end)`` pairs, epoch seconds; empty when nobody has one) and the
    table's hard stop (``until``: no deadline is later; ``None``: none)."""

    move_seconds: float
    banks: tuple[float, ...]
    since: float | None
    away: tuple[tuple[Window, ...], ...] = ()
    until: float | None = None

    def started(self, now: float) -> Clock:
        return replace(self, since=now)

    def windows(self, seat: int) -> tuple[Window, ...]:
        return self.away[seat] if seat < len(self.away) else ()

    def paused(self, seat: int, start: float, end: float) -> float:
        """Seconds of ``start``..``end`` inside ``seat``'s vacation windows (not elapsed on its clock)."""
        return sum(max(0.0, min(b, end) - max(a, start)) for a, b in self.windows(seat))

    def elapsed(self, seat: int, now: float) -> float:
        """The running turn's time on ``seat``'s clock at ``now``, its vacation left out."""
        if self.since is None:
            return 0.0
        return max(0.0, now - self.since - self.paused(seat, self.since, now))

    def after_move(self, seat: int, now: float, *, charged: bool) -> Clock:
        """The clock after ``seat`` moved at ``now``: time beyond the time per move (vacation left out)
        comes out of its bank when ``charged`` (a person's move; bots have no clock), and the next
        turn begins. Windows that ended are dropped."""
        banks = list(self.banks)
        if charged and self.since is not None:
            over = max(0.0, self.elapsed(seat, now) - self.move_seconds)
            banks[seat] = max(0.0, banks[seat] - over)
        away = tuple(tuple(w for w in ws if w[1] > now) for ws in self.away)
        return Clock(self.move_seconds, tuple(banks), now, away if any(away) else (), self.until)

    def _when(self, seat: int, budget: float) -> float | None:
        """When ``seat``'s running turn will have used ``budget`` seconds, vacation left out."""
        if self.since is None:
            return None
        when = self.since + budget
        for a, b in sorted(self.windows(seat)):
            if b <= self.since:
                continue
            if a >= when:
                break
            when += b - max(a, self.since)
        return when

    def deadline(self, seat: int) -> float | None:
        """When ``seat``'s time for the running turn is up (time per move, then its bank), at the
        latest the hard stop."""
        when = self._when(seat, self.move_seconds + self.banks[seat])
        if when is None or self.until is None:
            return when
        return min(when, self.until)

    def settling(self, now: float) -> bool:
        """Whether the hard stop has come: a person's turn is then the stand-in bot's move, the seat
        kept theirs (the game is played out and counts), instead of a timeout that hands the seat over."""
        return self.until is not None and now >= self.until

    def remind_at(self, seat: int, share: float) -> float | None:
        """When ``share`` of the time ``seat`` had for the running turn (its time per move and bank)
        is left: the reminder's time (``None`` before the game starts)."""
        return self._when(seat, (1.0 - share) * (self.move_seconds + self.banks[seat]))

    def with_away(self, seat: int, windows: Sequence[Window]) -> Clock:
        """This clock with ``seat``'s vacation windows replaced."""
        away = [list(self.windows(s)) for s in range(len(self.banks))]
        away[seat] = sorted((float(a), float(b)) for a, b in windows)
        kept = tuple(tuple(ws) for ws in away)
        return replace(self, away=kept if any(kept) else ())

    def on_vacation(self, seat: int, now: float) -> float | None:
        """The end of ``seat``'s vacation window running at ``now``, if one is."""
        return next((b for a, b in self.windows(seat) if a <= now < b), None)

    def public(self) -> dict[str, Any]:
        """What every receiver may see: time per move, banks, when the turn began and the seats'
        vacation windows (timing is public; others are told a player is away until when)."""
        out: dict[str, Any] = {
            "move_seconds": self.move_seconds,
            "banks": [round(b) for b in self.banks],
            "since": None if self.since is None else _iso(self.since),
        }
        if self.away:
            out["away"] = [[[_iso(a), _iso(b)] for a, b in self.windows(s)] for s in range(len(self.banks))]
        if self.until is not None:
            out["until"] = _iso(self.until)
        return out

    def to_json(self) -> str:
        obj: dict[str, Any] = {"move": self.move_seconds, "banks": list(self.banks), "since": self.since}
        if self.away:
            obj["away"] = [[list(w) for w in ws] for ws in self.away]
        if self.until is not None:
            obj["until"] = self.until
        return json.dumps(obj)


@functools.lru_cache(maxsize=256)
def _parse(text: str) -> Clock:
    obj = json.loads(text)
    away = tuple(tuple((float(a), float(b)) for a, b in ws) for ws in obj.get("away", ()))
    until = obj.get("until")
    return Clock(
        float(obj["move"]),
        tuple(float(b) for b in obj["banks"]),
        obj.get("since"),
        away,
        None if until is None else float(until),
    )


def clock_of(text: str | None) -> Clock | None:
    """The clock stored as ``text`` (``tables.clock``), ``None`` for a real-time table."""
    return None if text is None else _parse(text)


# ---------------------------------------------------------------------- queries


def realtime_unfinished_ids(engine: Engine) -> list[str]:
    """Unfinished tables that are not turn-based: the ones a server loads on start."""
    with engine.connect() as conn:
        rows = conn.execute(select(tables_t.c.id).where(tables_t.c.status != "over", tables_t.c.clock.is_(None)))
        return [r.id for r in rows]


def due_tables(
    engine: Engine, holder: str, skip: Sequence[str] = (), now: float | None = None, limit: int = 200
) -> list[str]:
    """Turn-based games in play that need driving: a clock ran out, or a bot is to move (no deadline),
    and no other process holds a live lease on them. ``skip``: tables already in memory here."""
    now = time.time() if now is None else now
    free = lease_free(now, holder)  # no lease, ours, or its holder's heartbeat ran out
    query = (
        select(tables_t.c.id)
        .select_from(tables_t.outerjoin(leases_t, leases_t.c.table_id == tables_t.c.id))
        .where(
            and_(
                tables_t.c.status == "playing",
                tables_t.c.clock.is_not(None),
                or_(tables_t.c.deadline.is_(None), tables_t.c.deadline <= now),
                free,
            )
        )
        .order_by(tables_t.c.deadline)
        .limit(limit + len(skip))
    )
    skipped = set(skip)
    with engine.connect() as conn:
        ids = [r.id for r in conn.execute(query) if r.id not in skipped]
    return ids[:limit]


def reminder_time(engine: Engine, table_id: str, version: int, share: float) -> float | None:
    """When the reminder of the turn that began at ``version`` of ``table_id`` is due (from the clock
    as stored now, vacations included); ``None`` once that turn is over (a move was made, the
    game ended) or for a table that is not turn-based."""
    with engine.connect() as conn:
        r = conn.execute(
            select(tables_t.c.status, tables_t.c.version, tables_t.c.to_move, tables_t.c.clock).where(
                tables_t.c.id == table_id
            )
        ).first()
    if r is None or r.status != "playing" or r.version != version or r.to_move is None:
        return None
    clock = clock_of(r.clock)
    return None if clock is None else clock.remind_at(int(r.to_move), share)
