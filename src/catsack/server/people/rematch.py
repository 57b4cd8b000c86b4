"""Rematch: "Play again" makes one new table per finished table, with the same seats.

The new table seats the same bots at the same seats and leaves every person's seat
open (a seat a bot took over after its player left, too), so the invite link fills
whatever the old players do not take back. Its deal is new and its start player
is the old game's first start player plus one (R9: the table chooses). The first
"Play again" creates it; the old table's connections are told (a ``rematch``
frame) so every person there can join it in one click. Which table follows
which is stored (table ``rematches``, migration 0004), so two presses (in any
server process) lead to one table.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from typing import Any

from sqlalchemy import Column, Engine, Float, String, Table, insert, select
from sqlalchemy.exc import IntegrityError

from catsack.bots.expert.memory import TableMemory, remembers
from catsack.bots.strongest import is_agent
from catsack.learn.history import Sitting
from catsack.server.storage.store import metadata
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import LiveTable, TableError
from catsack.server.tables.seating import SEATABLE_BOTS
from catsack.server.tables.turnbased import TurnBased
from catsack.setup import Setup

__all__ = ["RematchStore", "Rematches", "carried_memory", "rematches_t"]

rematches_t = Table(
    "rematches",
    metadata,
    Column("table_id", String(32), primary_key=True),  # no foreign key: retention deletes tables
    Column("next_id", String(32), nullable=False),
    Column("created", Float, nullable=False),
)


class RematchStore:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def next_of(self, table_id: str) -> str | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(rematches_t.c.next_id).where(rematches_t.c.table_id == table_id)).first()
            return None if r is None else str(r.next_id)

    def link(self, table_id: str, next_id: str) -> str:
        """Record ``next_id`` as the rematch of ``table_id``; the one already recorded wins."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(rematches_t).values(table_id=table_id, next_id=next_id, created=time.time()))
            return next_id
        except IntegrityError:
            found = self.next_of(table_id)
            assert found is not None
            return found


class Rematches:
    """Creates and finds rematch tables for one server process."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.store = RematchStore(hub.store.engine)
        self._lock = asyncio.Lock()

    async def next_of(self, table_id: str) -> str | None:
        return await asyncio.to_thread(self.store.next_of, table_id)

    async def rematch(self, old: LiveTable, by: str) -> tuple[LiveTable, bool]:
        """The rematch table of the finished table ``old`` (created now if there is none yet) and
        whether this call created it."""
        if not old.game.is_over:
            raise TableError("not_over", "the game is not over yet", 409)
        async with self._lock:
            found = await self.next_of(old.id)
            if found is not None:
                table = await self.hub.get(found)
                if table is None:
                    raise TableError("gone", "the rematch table no longer exists", 410)
                return table, False
            n = old.row.seats
            bots: dict[int, str] = {}
            for i, p in enumerate(old.players):
                if p.kind == "bot" and not p.replaced and p.bot is not None and p.bot in SEATABLE_BOTS:
                    bots[i] = p.bot
            memory = carried_memory(old, bots)
            start = (old.game.setup.start + 1) % n
            setup = Setup.deal(n, random.Random(secrets.randbits(128)), start=start)
            opts = old.options
            table = await self.hub.create(
                n,
                bots,
                name=old.row.name,
                money_visible=bool(opts.get("money_visible")),
                turn_seconds=opts.get("turn_seconds"),
                hints=bool(opts.get("hints")),
                setup=setup,
                # A rated or private table's rematch is rated or private too; the host stays the host.
                # What the bots that keep a table memory read from this table's game (and the ones before).
                extra_options={k: opts[k] for k in ("rated", "private", "host_seat") if k in opts}
                | ({"memory": memory, "memory_people": old.people} if memory else {}),
                turn_based=TurnBased.of(opts),  # and a turn-based table's rematch is turn-based
            )
            linked = await self.hub.writer.run(self.store.link, old.id, table.id)
        if linked != table.id:  # another process was first: ours stays empty and is evicted as abandoned
            other = await self.hub.get(linked)
            if other is None:
                raise TableError("gone", "the rematch table no longer exists", 410)
            return other, False
        old.broadcast(offer(table.id, by))
        return table, True


def carried_memory(old: LiveTable, bots: dict[int, str]) -> dict[str, dict[str, Any]]:
    """Per bot seat (its number as text) that keeps a table memory, what it knew at the finished table ``old`` and
    read from its game, for the rematch: the game as that seat saw it at its end (its finished rounds, every card
    of them turned up, R14; R23), nothing of another seat's hand. A classic expert with ``memory=1``
    (:func:`catsack.bots.expert.memory.remembers`) keeps its :class:`~catsack.bots.expert.memory.TableMemory`; the
    learned expert (:func:`catsack.bots.strongest.is_agent`) its sitting's public history,
    ``{"sitting": Sitting.state()}`` (:class:`catsack.learn.history.Sitting`). What it knew is what it read at
    the tables before, if their people are ``old``'s (:meth:`~catsack.server.tables.live.LiveTable.memory_for`);
    a memory kept with ``old`` that cannot be read starts over. The rematch keeps it with ``memory_people``
    (:attr:`~catsack.server.tables.live.LiveTable.people`), so its bots use it only while the same people play."""
    kinds = old.kinds
    out: dict[str, dict[str, Any]] = {}
    for seat, spec in bots.items():
        if learned_expert(spec):
            out[str(seat)] = {"sitting": carried_sitting(old, seat).state()}
        elif remembers(spec):
            earlier = old.memory_for(seat)
            try:
                memory = TableMemory.from_state(earlier) if earlier is not None else TableMemory()
            except ValueError:
                memory = TableMemory()
            memory.meet(kinds)
            memory.read(old.game.view(seat), kinds)
            out[str(seat)] = memory.state()
    return out


def learned_expert(spec: str) -> bool:
    """Whether the bot ``spec`` is the learned expert (``expert`` with none but its own options)."""
    kind, _, arg = spec.strip().partition(":")
    return kind.strip() == "expert" and is_agent(arg)


def carried_sitting(old: LiveTable, seat: int) -> Sitting:
    """The learned expert's sitting at ``seat`` after the finished table ``old``: what it read at the tables before
    (while the same people play), with ``old``'s game added as that seat saw it at the end."""
    earlier = old.memory_for(seat)
    try:
        sitting = Sitting.from_state(earlier.get("sitting")) if earlier is not None else Sitting(old.game.seats)
    except ValueError:
        sitting = Sitting(old.game.seats)
    if sitting.seats != old.game.seats:
        sitting = Sitting(old.game.seats)
    sitting.add(old.game.view(seat))
    return sitting


def offer(next_id: str, by: str) -> dict[str, Any]:
    """The ``rematch`` frame sent to a finished table's connections."""
    return {"type": "rematch", "table": next_id, "by": by, "invite": f"/t/{next_id}"}
