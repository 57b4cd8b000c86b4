"""Clock reminders: a mail and a push (kind ``clock``) when a share of a turn-based move's time is left.

When the turn of a turn-based game passes to a person (:class:`catsack.server.tables.bus.TurnToPerson`), a
reminder is queued in the mail queue and the push queue, due when ``clock_reminder_share`` of the
time they had for the move (time per move and bank) is left (:meth:`catsack.server.tables.turnbased.Clock.remind_at`).
It is queued once per turn (the turn is the table's version when it began): the queues do not take
the same reminder twice. The senders look at the stored clock again when it is due: a vacation that
paused the clock makes it wait as long, and a turn already played (or a game over) drops it, so a
reminder never comes after the move. A process that takes tables over
(:class:`catsack.server.tables.bus.TablesAdopted`) queues the reminders a dying process had not, as it does
the "your turn" notices. Like those, a reminder says the table and the time left, never a card (R23).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from catsack.server.people import mail, push
from catsack.server.people.outbox import persons_turns
from catsack.server.tables.turnbased import clock_of

if TYPE_CHECKING:
    from catsack.server.settings import Settings
    from catsack.server.tables.bus import TablesAdopted, TurnToPerson
    from catsack.server.tables.hub import Hub

__all__ = ["on_adopted", "on_turn", "queue_reminders"]

log = logging.getLogger("catsack.server")


def queue_reminders(engine: Engine, settings: Settings, table_ids: Sequence[str] | None = None) -> int:
    """Queue the clock reminder of the running turn of each turn-based game in play (of ``table_ids``, or
    all) whose turn is a person's with an account, unless it was queued before. How many were queued
    (mails and pushes). Synchronous: call it in a worker thread."""
    share = settings.clock_reminder_share
    if share <= 0 or not (mail.mail_enabled(settings) or push.push_enabled(settings)):
        return 0
    if table_ids is not None and not table_ids:
        return 0
    with engine.connect() as conn:
        rows = conn.execute(persons_turns(table_ids)).all()
    queued = 0
    for r in rows:
        clock = clock_of(r.clock)
        at = None if clock is None else clock.remind_at(int(r.to_move), share)
        if at is None:
            continue
        user, table_id, version = int(r.user_id), str(r.id), int(r.version)
        queued += int(mail.queue_reminder(engine, settings, user, table_id, version, at))
        queued += push.queue_reminder(engine, settings, user, table_id, version, at)
    return queued


async def on_turn(hub: Hub, event: TurnToPerson) -> None:
    """The turn of a turn-based game passed to a person: queue its reminder."""
    await asyncio.to_thread(queue_reminders, hub.store.engine, hub.settings, [event.table.id])


async def on_adopted(hub: Hub, event: TablesAdopted) -> None:
    """This process took tables over: queue the reminders their last process had not."""
    ids = None if event.table_ids is None else list(event.table_ids)
    n = await asyncio.to_thread(queue_reminders, hub.store.engine, hub.settings, ids)
    if n:
        log.info("missed clock reminders queued", extra={"fields": {"reminders": n}})
