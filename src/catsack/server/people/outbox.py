"""The outbox that mail and push share: notices queued in the database, claimed by one sender, sent,
and tried again later when sending fails.

A channel (:mod:`catsack.server.people.mail`, :mod:`catsack.server.people.push`) keeps its own queue
table, whose rows share these columns: ``id``, ``kind``, ``payload`` (JSON), ``send_after``, ``status``
(``pending`` → ``sending`` → ``sent``, ``dropped`` or ``failed``), ``attempts``, ``claimed``,
``claimed_by`` (the sending process), ``sent`` and ``error``. :class:`Outbox` is the queue's life on
such a table: a due row is claimed by exactly one sender, a claim of a dead sender goes back to
``pending``, and a row is finished as sent, dropped, failed or pending again at a later time.
:class:`Sender` empties one: every poll it claims what is due, holds back a "your turn" notice while
the player is around and a clock reminder while a vacation paused the clock, makes the message from
what the database says then, sends it, and puts a failed one back with a growing delay
(:func:`backoff`) until the channel's attempts are spent.

What decides whether a notice about a table is still worth sending (:func:`still_seated`,
:func:`bots_seat`, :func:`seen_since`), and which games' turns a crash may have left untold
(:func:`persons_turns`), are here too: the same questions for both channels and the clock reminders.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from sqlalchemy import Connection, Engine, Select, Table, func, select, update

from catsack.server.people.accounts import seat_users_t
from catsack.server.people.friends import user_seen_t
from catsack.server.storage.store import alive_holders, seats_t, tables_t
from catsack.server.tables.turnbased import reminder_time

if TYPE_CHECKING:
    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub

__all__ = [
    "CLOCK_SLACK",
    "KINDS",
    "STALE_SECONDS",
    "Notice",
    "Outbox",
    "Sender",
    "backoff",
    "bots_seat",
    "here_since",
    "persons_turns",
    "reminder_later",
    "seen_since",
    "still_seated",
]

log = logging.getLogger("catsack.server")

#: The kinds of notice an account chooses, by mail and by push alike (each on until turned off): your
#: turn in a turn-based game, an invitation, a tournament round starting, a new follower, a clock about
#: to run out, a bot taking the account's seat.
KINDS = ("turn", "invite", "tournament", "friend", "clock", "seat")
#: A row left ``sending`` this long (its sender died) is sent again.
STALE_SECONDS = 600.0
#: A "your turn" notice made up to this long before its turn began counts as that turn's (the
#: processes' clocks may differ a little).
CLOCK_SLACK = 2.0


def backoff(attempts: int) -> float:
    """Seconds before trying a notice again after its ``attempts``-th failed try: 30 s, doubling, at most
    an hour."""
    return min(3600.0, 15.0 * 2.0**attempts)


class Notice(Protocol):
    """A claimed row as its channel reads it (:class:`~catsack.server.people.mail.Queued`,
    :class:`~catsack.server.people.push.QueuedPush`)."""

    @property
    def id(self) -> int: ...

    @property
    def user_id(self) -> int | None: ...

    @property
    def kind(self) -> str: ...

    @property
    def payload(self) -> dict[str, Any]: ...

    @property
    def attempts(self) -> int: ...


N = TypeVar("N", bound=Notice)
M = TypeVar("M")


class Outbox(Generic[N]):
    """A channel's queue table (:attr:`queue_table`) in the server's database (``engine`` is the store's).
    A channel names its table and reads a claimed row as its notice (:meth:`_notice`)."""

    queue_table: ClassVar[Table]

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def _notice(self, row: Any, attempts: int) -> N:
        """The claimed ``row``, at its ``attempts``-th try."""
        raise NotImplementedError

    def _sent(self, conn: Connection, notice_id: int, when: float) -> None:
        """What else a notice sent at ``when`` changes, in the transaction that marks it sent."""

    def claim(self, now: float, limit: int = 20, holder: str | None = None) -> list[N]:
        """Due notices, each taken by exactly one sender (``pending`` → ``sending``), marked as claimed by
        ``holder`` (the claiming process's id, whose heartbeat is in ``server_processes``). Claims of a
        dead sender go back to ``pending`` first: of a holder that is not alive, or older than
        :data:`STALE_SECONDS`."""
        q = self.queue_table
        out: list[N] = []
        with self.engine.begin() as conn:
            dead = q.c.claimed_by.is_not(None) & q.c.claimed_by.not_in(alive_holders(now))
            if holder is not None:
                dead = dead & (q.c.claimed_by != holder)
            conn.execute(
                update(q)
                .where(q.c.status == "sending", (q.c.claimed < now - STALE_SECONDS) | dead)
                .values(status="pending")
            )
            due = conn.execute(
                select(q).where(q.c.status == "pending", q.c.send_after <= now).order_by(q.c.send_after).limit(limit)
            ).all()
        for r in due:
            with self.engine.begin() as conn:
                took = conn.execute(
                    update(q)
                    .where(q.c.id == r.id, q.c.status == "pending")
                    .values(status="sending", claimed=now, claimed_by=holder, attempts=r.attempts + 1)
                ).rowcount
            if took:
                out.append(self._notice(r, r.attempts + 1))
        return out

    def finish(self, notice_id: int, status: str, *, error: str | None = None, retry_at: float | None = None) -> None:
        """Mark a claimed notice ``sent``, ``dropped`` (nothing left to say), ``failed`` (given up), or
        ``pending`` again at ``retry_at``."""
        q = self.queue_table
        values: dict[str, Any] = {"status": status, "error": None if error is None else error[:200]}
        if status == "sent":
            values["sent"] = time.time()
        if retry_at is not None:
            values["send_after"] = retry_at
        with self.engine.begin() as conn:
            conn.execute(update(q).where(q.c.id == notice_id, q.c.status == "sending").values(**values))
            if status == "sent":
                self._sent(conn, notice_id, values["sent"])

    def stats(self) -> dict[str, int]:
        """How many notices are in each status."""
        q = self.queue_table
        with self.engine.connect() as conn:
            rows = conn.execute(select(q.c.status, func.count()).group_by(q.c.status)).all()
        return {str(r[0]): int(r[1]) for r in rows}


class Sender(Generic[N, M]):
    """Empties a channel's outbox: every poll the due notices are claimed, made and sent. A channel says
    when it runs (:meth:`enabled`, :meth:`ready`), how it makes a message (:meth:`_make`) and how it
    sends one (:meth:`_send`, which puts a failed one back with :meth:`_failed`)."""

    #: The channel's word in the logs ("mail", "push"), and the field naming a notice there.
    what: ClassVar[str]

    def __init__(self, hub: Hub, box: Outbox[N], *, poll_seconds: float, away_minutes: float, max_attempts: int):
        self.hub = hub
        self.settings = hub.settings
        self.box = box
        self.poll_seconds = poll_seconds
        self.away_minutes = away_minutes
        self.max_attempts = max_attempts
        self.task: asyncio.Task[None] | None = None
        self.sent = 0

    def enabled(self) -> bool:
        """Whether the sender's loop runs."""
        raise NotImplementedError

    def ready(self) -> bool:
        """Whether a pass can send anything (:meth:`run_once` sends nothing otherwise)."""
        return True

    async def _make(self, notice: N, now: float) -> M | str:
        """The message of ``notice`` made now, or why it is not sent (it is dropped)."""
        raise NotImplementedError

    async def _send(self, notice: N, message: M, now: float) -> bool:
        """Send ``message``: whether it went (a failure is finished by :meth:`_failed`)."""
        raise NotImplementedError

    def start(self) -> None:
        if self.enabled():
            self.task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)

    async def _loop(self) -> None:
        while True:
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: try again next time
                log.exception(f"{self.what} queue pass failed")
            await asyncio.sleep(self.poll_seconds)

    async def run_once(self, now: float | None = None) -> int:
        """Send what is due; how many were sent."""
        if not self.ready():
            return 0
        now = time.time() if now is None else now
        due = await asyncio.to_thread(self.box.claim, now, holder=self.hub.process_id)
        n = 0
        for notice in due:
            if await self._one(notice, now):
                n += 1
        self.sent += n
        return n

    async def _one(self, notice: N, now: float) -> bool:
        box = self.box
        try:
            if await self._held(notice, now):
                return False
            made = await self._make(notice, now)
        except Exception as exc:
            log.exception(f"{self.what} not made", extra={"fields": {self.what: notice.id}})
            await asyncio.to_thread(box.finish, notice.id, "failed", error=f"render: {exc}")
            return False
        if isinstance(made, str):
            await asyncio.to_thread(box.finish, notice.id, "dropped", error=made)
            return False
        if not await self._send(notice, made, now):
            return False
        await asyncio.to_thread(box.finish, notice.id, "sent")
        log.info(f"{self.what} sent", extra={"fields": {self.what: notice.id, "kind": notice.kind}})
        return True

    async def _held(self, notice: N, now: float) -> bool:
        """Put ``notice`` back for later if it is not to go yet: a "your turn" notice while the player is
        around (until they have been away long enough), a clock reminder while a vacation paused the
        clock (as long as it moved the reminder). Whether it was put back."""
        engine = self.hub.store.engine
        later: float | None = None
        if notice.kind == "turn" and notice.user_id is not None:
            later = await asyncio.to_thread(here_since, engine, notice.user_id, now, self.away_minutes)
        elif notice.kind == "clock":
            later = await asyncio.to_thread(reminder_later, engine, self.settings, notice.payload, now)
        if later is None:
            return False
        await asyncio.to_thread(self.box.finish, notice.id, "pending", retry_at=later)
        return True

    async def _failed(
        self, notice: N, error: str, now: float, *, wait: float | None = None, give_up: bool = False
    ) -> None:
        """Sending ``notice`` failed with ``error``: given up when ``give_up`` or its attempts are spent,
        else pending again after ``wait`` seconds (the :func:`backoff` of its attempts when ``None`` or 0)."""
        if give_up or notice.attempts >= self.max_attempts:
            await asyncio.to_thread(self.box.finish, notice.id, "failed", error=error)
        else:
            retry = now + (wait or backoff(notice.attempts))
            await asyncio.to_thread(self.box.finish, notice.id, "pending", error=error, retry_at=retry)
        self._not_sent(notice, error)

    def _not_sent(self, notice: N, error: str) -> None:
        log.warning(f"{self.what} not sent", extra={"fields": {self.what: notice.id, "why": error[:200]}})


# ---------------------------------------------------------------------- whether a notice still goes


def here_since(engine: Engine, user_id: int, now: float, away_minutes: float) -> float | None:
    """``None`` if the account has been away ``away_minutes`` (no page open, no table connection),
    else when it will have been: its last sign of life plus that time."""
    with engine.connect() as conn:
        page = conn.execute(select(user_seen_t.c.seen).where(user_seen_t.c.user_id == user_id)).scalar()
        seat = conn.execute(
            select(func.max(seats_t.c.seen))
            .select_from(
                seat_users_t.join(
                    seats_t, (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
                )
            )
            .where(seat_users_t.c.user_id == user_id)
        ).scalar()
    back = max(page or 0.0, seat or 0.0) + away_minutes * 60.0
    return back if back > now else None


def reminder_later(engine: Engine, settings: Settings, payload: dict[str, Any], now: float) -> float | None:
    """When a clock reminder is due, if later than ``now`` (a vacation moved it); ``None`` to go now (or
    to be dropped when its turn is over)."""
    table_id, version = str(payload.get("table_id", "")), int(payload.get("version", -1))
    due = reminder_time(engine, table_id, version, settings.clock_reminder_share)
    return due if due is not None and due > now + 1.0 else None


def still_seated(conn: Connection, user_id: int, table_id: str) -> bool:
    """Whether the account still holds its (person's) seat at a table in play."""
    found = conn.execute(
        select(seats_t.c.kind)
        .select_from(
            seat_users_t.join(
                seats_t, (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
            ).join(tables_t, tables_t.c.id == seat_users_t.c.table_id)
        )
        .where(
            seat_users_t.c.user_id == user_id,
            seat_users_t.c.table_id == table_id,
            tables_t.c.status.in_(("open", "playing")),
        )
    ).scalar()
    return found == "human"


def bots_seat(conn: Connection, user_id: int, table_id: str, seat: int) -> str | None:
    """The table's name while the account's seat there is a bot's in a game not over, else ``None``."""
    r = conn.execute(
        select(tables_t.c.name, seats_t.c.kind)
        .select_from(
            seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id).join(
                seats_t, (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
            )
        )
        .where(
            seat_users_t.c.user_id == user_id,
            seat_users_t.c.table_id == table_id,
            seat_users_t.c.seat == seat,
            tables_t.c.status.in_(("open", "playing")),
        )
    ).first()
    return None if r is None or r.kind != "bot" else str(r.name)


def seen_since(conn: Connection, user_id: int, when: float) -> bool:
    """Whether the account had a page of the site open after ``when``."""
    seen = conn.execute(select(user_seen_t.c.seen).where(user_seen_t.c.user_id == user_id)).scalar()
    return seen is not None and seen > when


def persons_turns(table_ids: Sequence[str] | None = None) -> Select[Any]:
    """The turn-based games in play (of ``table_ids``, or all) whose turn is a person's with an account,
    as a query: each table's ``id``, ``version``, ``to_move`` and ``clock`` (JSON), and the ``user_id``
    to move. What a crash may have left untold (a "your turn" notice, a clock reminder)."""
    query = (
        select(tables_t.c.id, tables_t.c.version, tables_t.c.to_move, tables_t.c.clock, seat_users_t.c.user_id)
        .select_from(
            tables_t.join(seats_t, (seats_t.c.table_id == tables_t.c.id) & (seats_t.c.seat == tables_t.c.to_move)).join(
                seat_users_t,
                (seat_users_t.c.table_id == tables_t.c.id) & (seat_users_t.c.seat == tables_t.c.to_move),
            )
        )
        .where(tables_t.c.status == "playing", tables_t.c.clock.is_not(None), seats_t.c.kind == "human")
    )
    return query if table_ids is None else query.where(tables_t.c.id.in_(sorted(set(table_ids))))
