"""What the hub's parts see of the hub: the process's shared objects and the steps they ask of one another.

The parts of :mod:`catsack.server.tables` call each other only through this interface, which
:class:`catsack.server.tables.hub.Hub` implements by delegating to them; so no part imports another, and a
test can give one part a stand-in hub.
"""

from __future__ import annotations

from typing import Any, Protocol

from catsack.game import Game
from catsack.moves import Move
from catsack.server.metrics import Metrics
from catsack.server.settings import Settings
from catsack.server.storage.store import Store
from catsack.server.tables.bus import Bus
from catsack.server.tables.live import LiveTable
from catsack.server.tables.loops import Loops
from catsack.server.tables.thinking import Pace, Thinkers
from catsack.server.tables.turnbased import Clock
from catsack.server.tables.writer import Writer


class Coordinator(Protocol):
    """The hub, as its parts use it."""

    settings: Settings
    store: Store
    writer: Writer
    tables: dict[str, LiveTable]
    process_id: str
    fanout: Any  # catsack.server.tables.fanout.Fanout when CATSACK_REDIS_URL is set
    events: Bus
    loops: Loops
    metrics: Metrics | None
    pace: Pace
    thinkers: Thinkers
    sockets_dropped: int

    async def get(self, table_id: str, *, lease: bool = False) -> LiveTable | None: ...

    async def catch_up(self, table: LiveTable) -> None: ...

    def schedule(self, table: LiveTable, *, resume: bool = False) -> None: ...

    async def commit(
        self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str
    ) -> tuple[str, str] | None: ...

    def deadline_for(self, table: LiveTable, game: Game, clock: Clock | None = None) -> float | None: ...

    async def start_timer(self, table: LiveTable) -> None: ...

    def turn_changed(self, table: LiveTable) -> None: ...

    async def replace(self, table: LiveTable, seat: int, *, version: int | None = None) -> bool: ...

    def drop_seat_connections(self, table: LiveTable, seat: int) -> None: ...

    async def publish_seats(self, table_id: str, version: int = -1) -> None: ...

    def heard(self, table: LiveTable) -> bool: ...

    async def drive(self, table: LiveTable, *, catch_up: bool = True) -> None: ...

    async def claim(self, table: LiveTable) -> None: ...

    async def hand(self, table: LiveTable, to: str) -> None: ...

    def forget(self, table: LiveTable) -> None: ...

    def evict(self, table: LiveTable) -> None: ...
