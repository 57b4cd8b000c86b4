"""What the arena's parts see of the arena: its shared state and the steps they ask of one another.

The parts of :mod:`catsack.server.people.botarena` (the relay between processes, the challenges, the
seats the bots play) call each other only through this interface, which
:class:`~catsack.server.people.botarena.arena.Arena` implements by delegating to them; so no part imports
another.
"""

from __future__ import annotations

from typing import Protocol

from catsack.server.people.botaccounts import BotAccount
from catsack.server.people.botarena.model import ArenaSettings, BotSession, Challenge, SeatPlay
from catsack.server.tables.hub import Hub
from catsack.server.tables.live import LiveTable

__all__ = ["ArenaCoordinator"]


class ArenaCoordinator(Protocol):
    """The arena, as its parts use it."""

    hub: Hub
    settings: ArenaSettings
    #: The bots connected to this process, by account id.
    sessions: dict[int, BotSession]
    #: Each bot's seats, by account id and table.
    plays: dict[int, dict[str, SeatPlay]]
    #: The open challenges of this process's bots, by id.
    challenges: dict[str, Challenge]

    def busy_with(self, bot_id: int) -> list[str]: ...

    async def kick(
        self, bot_id: int, reason: str, *, code: int = 1008, here: bool = True, everywhere: bool = True
    ) -> None: ...

    async def challenge(self, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> Challenge: ...

    async def last_answer(self, table_id: str) -> bool: ...

    async def sit(self, play: SeatPlay, session: BotSession) -> None: ...
