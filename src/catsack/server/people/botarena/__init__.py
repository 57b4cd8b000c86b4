"""The bot arena: bot accounts connected over a WebSocket play seats with the ``catsack-bot/1`` messages.

docs/bot-api.md is the contract. A bot program (or ``catsack bot connect``) opens ``/api/bot/ws`` with
its API token (:mod:`catsack.server.people.botaccounts`) in an ``Authorization: Bearer`` header; the server
says ``hello``, the bot answers ``hello`` as in docs/bot-protocol.md, and then:

- a person's account challenges connected bots to a table (``POST /api/bots/challenges``); each bot is
  sent a ``challenge`` and answers ``accept`` or ``decline``;
- an accepted challenge seats the bot through the hub's public seating path
  (:meth:`~catsack.server.tables.hub.Hub.join`, as a person's join, its seat bound to the bot's account), and
  the bot's seat is then a connection of the table like a browser's: it is sent that seat's state
  frames only, so the bot sees exactly its seat's view (R23). From them it is sent ``new_game``, one
  ``move`` request per decision of its seat, and ``game_over``, the messages of ``catsack-bot/1``;
- its ``move`` answers are played with :meth:`~catsack.server.tables.hub.Hub.act`, the path of a browser's move.

Bounds, as for everything a stranger sends: at most :attr:`ArenaSettings.max_games` games per bot at a
time (challenges past it are refused ``bot_busy``); each decision has the table's turn timer
(:attr:`ArenaSettings.move_seconds`): when it runs out the server's stand-in bot makes that one move,
as for a person at a timed table, and a bot away longer than the grace period has its seat taken over
for the rest of the game (rated last, :mod:`catsack.server.people.ratings`); frames are bounded in size and
rate by the WebSocket's own settings (``CATSACK_MAX_FRAME_BYTES``, ``CATSACK_RATE_*``); one connection
per bot (a newer one replaces the older).

With several processes (``CATSACK_REDIS_URL``) a bot's connection lives in the one process it reached, and a
challenge made through any process gets there: each process keeps a presence key per connected bot
(``<CATSACK_REDIS_CHANNEL>:bots:at:<id>``, naming the process, refreshed every :data:`PRESENCE_REFRESH`
seconds and gone :data:`PRESENCE_TTL` seconds after its process), and the challenger's process sends the
offer on the arena's channel (``<CATSACK_REDIS_CHANNEL>:bots``) to the process named there, which
challenges its bot and answers with the challenge's id or the refusal. The bot's seat is then a
connection of that process, so the table's lease follows it there as for any player
(:meth:`~catsack.server.tables.hub.Hub.claim`). How many challenges of a table are still unanswered is a
counter in Redis, so the open seats go to the ``fill`` level once, after the last answer, wherever it
came. Revoking a bot closes its connection in every process.

The arena is a coordinator of parts, one module each: :mod:`.model` (the settings, a bot's session, its
seats and challenges, the ``hello``), :mod:`.relay` (the processes' messages and keys in Redis),
:mod:`.challenges` (offers, answers, expiry and the fill), :mod:`.seats` (the seats the bots play) and
:mod:`.arena` (:class:`Arena`, which holds the connections and delegates to the parts; they see it as
:class:`.coordinator.ArenaCoordinator`).
"""

from __future__ import annotations

from catsack.server.people.botarena.arena import Arena, arena_of
from catsack.server.people.botarena.model import (
    PRESENCE_REFRESH,
    PRESENCE_TTL,
    ArenaSettings,
    BotSession,
    Challenge,
    SeatPlay,
    read_hello,
)

__all__ = [
    "PRESENCE_REFRESH",
    "PRESENCE_TTL",
    "Arena",
    "ArenaSettings",
    "BotSession",
    "Challenge",
    "SeatPlay",
    "arena_of",
    "read_hello",
]
