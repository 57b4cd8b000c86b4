"""Vacations: a player pauses their turn-based clocks for a few days (docs/rules.md, "Playing online").

- **The rule.** An account may be on vacation for at most ``vacation_days_per_year`` days per calendar
  year (UTC), counted exactly: a vacation of three days ended after one counts one day, and one that
  crosses New Year counts in each year for its part there. A vacation is asked for in whole days
  (from now), one at a time; it ends by itself, or earlier when the player ends it.
- **The clocks.** While a player is on vacation their turn-based clocks stand still: each of their
  turn-based games in play stores the account's vacation windows in its clock
  (:class:`catsack.server.tables.turnbased.Clock`, ``away``), and time inside a window is not elapsed. The
  deadline of a move is written with the window, in the same transaction as the vacation, so no bot
  takes the seat while it is paused: not here, not after a restart, not in another process.
- **Keeping it so.** A clock gets its windows again when the turn passes to the player
  (:class:`catsack.server.tables.bus.TurnToPerson`: a game that began during the vacation, a move that
  raced with the vacation's start) and when a process takes tables over
  (:class:`catsack.server.tables.bus.TablesAdopted`: a move whose process died before that).
- **Shown to others.** The windows are part of the public clock (times are public, R23 hides cards),
  so the table page and My games say "on vacation until …".
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, Connection, Engine, Float, ForeignKey, Integer, Table, insert, select, update

from catsack.server.people.accounts import AccountError, seat_users_t
from catsack.server.storage.store import metadata, seats_t, tables_t
from catsack.server.tables.turnbased import clock_of

if TYPE_CHECKING:
    from catsack.server.tables.bus import TablesAdopted, TurnToPerson
    from catsack.server.tables.hub import Hub

__all__ = [
    "DAY",
    "Period",
    "Vacations",
    "apply_windows",
    "on_adopted",
    "on_turn",
    "refresh_tables",
    "used_seconds",
    "vacations_t",
]

log = logging.getLogger("catsack.server")

DAY = 86400.0

vacations_t = Table(
    "vacations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("starts", Float, nullable=False),
    # When it ends: as asked for, or when the player ended it earlier.
    Column("ends", Float, nullable=False),
    Column("created", Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Period:
    """One vacation of an account: from ``starts`` to ``ends`` (epoch seconds)."""

    id: int
    starts: float
    ends: float


def _year(year: int) -> tuple[float, float]:
    return datetime(year, 1, 1, tzinfo=UTC).timestamp(), datetime(year + 1, 1, 1, tzinfo=UTC).timestamp()


def _years(starts: float, ends: float) -> range:
    return range(
        datetime.fromtimestamp(starts, UTC).year, datetime.fromtimestamp(max(starts, ends - 1e-6), UTC).year + 1
    )


def used_seconds(periods: Sequence[tuple[float, float]], year: int) -> float:
    """The vacation time of ``periods`` inside calendar ``year`` (UTC); a running one counts as asked
    for (ending it early gives the rest back)."""
    a, b = _year(year)
    return sum(max(0.0, min(e, b) - max(s, a)) for s, e in periods)


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _periods(conn: Connection, user_id: int, after: float = float("-inf")) -> list[Period]:
    rows = conn.execute(
        select(vacations_t.c.id, vacations_t.c.starts, vacations_t.c.ends)
        .where(vacations_t.c.user_id == user_id, vacations_t.c.ends > after)
        .order_by(vacations_t.c.starts)
    ).all()
    return [Period(int(r.id), float(r.starts), float(r.ends)) for r in rows]


def apply_windows(conn: Connection, user_id: int, now: float, table_ids: Sequence[str] | None = None) -> list[str]:
    """Write the account's vacation windows into the clocks of its turn-based games in play (of
    ``table_ids``, or all), and the deadline where it is the account's move, in the caller's
    transaction. The tables whose clock changed."""
    query = (
        select(tables_t.c.id, tables_t.c.version, tables_t.c.to_move, tables_t.c.clock, seat_users_t.c.seat)
        .select_from(
            seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id).join(
                seats_t, (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
            )
        )
        .where(
            seat_users_t.c.user_id == user_id,
            tables_t.c.status == "playing",
            tables_t.c.clock.is_not(None),
            seats_t.c.kind == "human",
        )
    )
    if table_ids is not None:
        query = query.where(tables_t.c.id.in_(sorted(set(table_ids))))
    rows = conn.execute(query).all()
    if not rows:
        return []
    periods = _periods(conn, user_id)
    changed = []
    for r in rows:
        clock = clock_of(r.clock)
        if clock is None:
            continue
        seat = int(r.seat)
        since = now if clock.since is None else clock.since
        windows = [(p.starts, p.ends) for p in periods if p.ends > since]
        new = clock.with_away(seat, windows)
        if new == clock:
            continue
        values: dict[str, Any] = {"clock": new.to_json()}
        if r.to_move == seat:
            values["deadline"] = new.deadline(seat)
        done = conn.execute(
            update(tables_t).where(tables_t.c.id == r.id, tables_t.c.version == r.version).values(**values)
        ).rowcount
        if done:
            changed.append(str(r.id))
        # else a move landed meanwhile: the turn's handler (on_turn) writes the windows into its clock
    return changed


class Vacations:
    """The accounts' vacations (``engine`` is the store's; ``days_per_year``: the setting)."""

    def __init__(self, engine: Engine, days_per_year: int) -> None:
        self.engine = engine
        self.days_per_year = days_per_year

    def status(self, user_id: int, now: float | None = None) -> dict[str, Any]:
        """What the account page shows: the yearly allowance, the days used this year and left, the
        running vacation (if any) and this year's vacations."""
        now = time.time() if now is None else now
        year = datetime.fromtimestamp(now, UTC).year
        with self.engine.connect() as conn:
            periods = _periods(conn, user_id)
        used = used_seconds([(p.starts, p.ends) for p in periods], year) / DAY
        running = next((p for p in periods if p.starts <= now < p.ends), None)
        a, b = _year(year)
        return {
            "enabled": self.days_per_year > 0,
            "days_per_year": self.days_per_year,
            "used_days": round(used, 2),
            "left_days": round(max(0.0, self.days_per_year - used), 2),
            "until": None if running is None else _iso(running.ends),
            "since": None if running is None else _iso(running.starts),
            "periods": [
                {"from": _iso(p.starts), "until": _iso(p.ends)} for p in periods if p.ends > a and p.starts < b
            ],
        }

    def start(self, user_id: int, days: int, now: float | None = None) -> list[str]:
        """Begin a vacation of ``days`` whole days now. Refused (:class:`AccountError`) when vacations
        are off, one is running, or it would take the account past its days of a calendar year.
        The turn-based games whose clock it paused."""
        now = time.time() if now is None else now
        limit = self.days_per_year
        if limit <= 0:
            raise AccountError("vacation_off", "this server has no vacations (vacation_days_per_year is 0)", 409)
        if not isinstance(days, int) or isinstance(days, bool) or not 1 <= days <= limit:
            raise AccountError("vacation_days", f"a vacation lasts 1 to {limit} days", 422, params={"max": limit})
        ends = now + days * DAY
        with self.engine.begin() as conn:
            periods = _periods(conn, user_id)
            if any(p.starts <= now < p.ends for p in periods):
                raise AccountError("vacation_running", "you are on vacation already: end it first", 409)
            spans = [(p.starts, p.ends) for p in periods]
            for year in _years(now, ends):
                used = used_seconds(spans, year)
                wanted = used_seconds([(now, ends)], year)
                if used + wanted > limit * DAY + 1e-6:
                    left = max(0.0, limit - used / DAY)
                    raise AccountError(
                        "vacation_limit",
                        f"that is more vacation than is left in {year}: {left:.1f} of {limit} days",
                        409,
                        params={"year": year, "left": f"{left:.1f}", "max": limit},
                    )
            conn.execute(insert(vacations_t).values(user_id=user_id, starts=now, ends=ends, created=now))
            changed = apply_windows(conn, user_id, now)
        log.info("vacation started", extra={"fields": {"user": user_id, "days": days, "tables": len(changed)}})
        return changed

    def end(self, user_id: int, now: float | None = None) -> list[str]:
        """End the running vacation now (only the time taken counts); the games whose clock runs again.
        Refused (409 ``no_vacation``) when none is running."""
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            running = next((p for p in _periods(conn, user_id, now) if p.starts <= now), None)
            if running is None:
                raise AccountError("no_vacation", "you are not on vacation", 409)
            conn.execute(update(vacations_t).where(vacations_t.c.id == running.id).values(ends=now))
            changed = apply_windows(conn, user_id, now)
        log.info("vacation ended", extra={"fields": {"user": user_id, "tables": len(changed)}})
        return changed

    def away_until(self, user_ids: Sequence[int], now: float | None = None) -> dict[int, float]:
        """The accounts of ``user_ids`` on vacation now, with when it ends."""
        now = time.time() if now is None else now
        if not user_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(vacations_t.c.user_id, vacations_t.c.ends).where(
                    vacations_t.c.user_id.in_(sorted(set(user_ids))),
                    vacations_t.c.starts <= now,
                    vacations_t.c.ends > now,
                )
            ).all()
        return {int(r.user_id): float(r.ends) for r in rows}


# ---------------------------------------------------------------------- the live tables


async def refresh_tables(hub: Hub, table_ids: Sequence[str]) -> None:
    """Tell the live copies of ``table_ids`` (here and in other processes) that their clock changed:
    they read it, show it and set their timer again."""
    for table_id in table_ids:
        table = hub.tables.get(table_id)
        if table is not None:
            async with table.lock:
                await hub.catch_up(table)
        await hub.publish_seats(table_id)


def _with_vacation(engine: Engine, now: float, table_ids: Sequence[str] | None) -> list[str]:
    """:func:`apply_windows` for every account with a vacation not over that sits at ``table_ids`` (or
    at any turn-based game in play). Synchronous."""
    with engine.begin() as conn:
        users = sorted(
            {
                int(u)
                for u in conn.execute(
                    select(vacations_t.c.user_id).where(vacations_t.c.ends > now - 400 * DAY)
                ).scalars()
            }
        )
        changed: list[str] = []
        for user_id in users:
            changed += apply_windows(conn, user_id, now, table_ids)
    return sorted(set(changed))


async def on_turn(hub: Hub, event: TurnToPerson) -> None:
    """The turn passed to a person: their vacation windows go into the table's clock (a game that began
    during their vacation, or a move that raced with its start), and the deadline with them."""
    table = event.table
    seat = table.game.to_move
    if seat is None or table.players[seat].kind != "human" or table.players[seat].user_id is None:
        return
    user_id = int(table.players[seat].user_id or 0)
    clock = table.clock
    now = time.time()

    def apply() -> list[str]:
        with hub.store.engine.begin() as conn:
            if not _periods(conn, user_id, now) and (clock is None or not clock.windows(seat)):
                return []
            return apply_windows(conn, user_id, now, [table.id])

    changed = await asyncio.to_thread(apply)
    if changed:
        await refresh_tables(hub, changed)


async def on_adopted(hub: Hub, event: TablesAdopted) -> None:
    """This process took tables over: the clocks a dying process left without their vacation windows get
    them (as the missed turn mails are queued)."""
    ids = None if event.table_ids is None else list(event.table_ids)
    if ids is not None and not ids:
        return
    changed = await asyncio.to_thread(_with_vacation, hub.store.engine, time.time(), ids)
    if changed:
        await refresh_tables(hub, changed)
