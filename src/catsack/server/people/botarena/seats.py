"""The seats the arena's bots play: each is a connection of its table whose state frames become the
``catsack-bot/1`` messages (``new_game``, ``move``, ``game_over``), and whose ``move`` answers are played
through the hub's public path, as a browser's are."""

from __future__ import annotations

from typing import Any

import orjson

from catsack.server.people.botarena.coordinator import ArenaCoordinator
from catsack.server.people.botarena.model import BotSession, SeatPlay
from catsack.server.people.ratings import ranks_with_abandons
from catsack.server.tables.live import Conn, TableError

__all__ = ["Seats"]


class Seats:
    """The bots' seats: their connections, the requests for moves, the answers and the end of a game."""

    def __init__(self, arena: ArenaCoordinator) -> None:
        self.arena = arena

    async def sit(self, play: SeatPlay, session: BotSession) -> None:
        """Give ``play`` a connection of its table that reports to ``session``."""
        table = await self.arena.hub.get(play.table_id)
        if table is None:
            play.over = True
            return
        try:
            seat = self.arena.hub.seat_for_token(table, play.token)
        except TableError as exc:  # replaced by the stand-in meanwhile
            session.send({"type": "error", "code": exc.code, "message": exc.message, "table": play.table_id})
            play.over = True
            return
        session.games += 1
        play.game = session.games
        play.session = session
        play.started = False
        play.asked = None
        play.players = table.names()

        async def frame(text: str) -> None:
            await self._frame(play, session, text)

        conn = Conn(frame, seat, None)
        play.conn = conn
        self.arena.hub.attach(table, conn)

    async def _frame(self, play: SeatPlay, session: BotSession, text: str) -> None:
        """A frame the table sent to the bot's seat connection: turned into ``catsack-bot/1`` messages."""
        if play.session is not session or session.closed:
            return
        frame = orjson.loads(text)
        kind = frame.get("type")
        if kind == "error" and frame.get("code") == "replaced":
            session.send({"type": "error", "code": "replaced", "message": frame.get("message"), "table": play.table_id})
            play.over = True
            self.leave(play)
            return
        if kind != "state":
            return
        view = frame["view"]
        play.view = view
        if frame.get("players"):
            play.players = [p.get("name") or "" for p in frame["players"]]
        version = int(frame["version"])
        if view.get("phase") == "over":
            await self._game_over(play, session, view)
            return
        if view.get("to_move") == play.seat and view.get("legal") and play.asked != version:
            self.ask(play, session, view, version)

    def ask(self, play: SeatPlay, session: BotSession, view: dict[str, Any], version: int) -> None:
        """Ask the bot for its seat's move at ``version`` (told of the game first if it is new to it)."""
        if not play.started:
            session.send(
                {
                    "type": "new_game",
                    "game": play.game,
                    "seat": play.seat,
                    "seats": view["seats"],
                    "start": view["first_start"],
                    "hand": view["hand"],
                    "removed": view["removed"],
                    "players": play.players,
                    "seed": None,
                    "table": play.table_id,
                    "rated": play.rated,
                }
            )
            play.started = True
        session.next_id += 1
        rid = session.next_id
        session.requests = {k: v for k, v in session.requests.items() if v[0] is not play}  # one open per seat
        session.requests[rid] = (play, version, play.table_id)
        play.asked = version
        session.send(
            {
                "type": "move",
                "id": rid,
                "game": play.game,
                "table": play.table_id,
                "time_limit": self.arena.settings.move_seconds,
                "legal": view["legal"],
                "view": view,
            }
        )

    async def _game_over(self, play: SeatPlay, session: BotSession, view: dict[str, Any]) -> None:
        if play.over:
            return
        play.over = True
        scores = view.get("scores") or []
        ranking = ranks_with_abandons(scores, view.get("cat_points") or [0] * len(scores), []) if scores else []
        if play.started:
            session.send(
                {
                    "type": "game_over",
                    "game": play.game,
                    "table": play.table_id,
                    "scores": scores,
                    "winners": view.get("winners", []),
                    "ranking": ranking,
                    "view": view,
                }
            )
        session.requests = {k: v for k, v in session.requests.items() if v[0] is not play}
        self.leave(play)
        self.arena.plays.get(play.bot.id, {}).pop(play.table_id, None)

    async def answer(self, session: BotSession, message: dict[str, Any]) -> None:
        """A ``move`` answer: played at the table; a refusal is told to the bot (and, when the move was
        illegal, the request is made again while the timer runs)."""
        rid = message.get("id")
        held = session.requests.get(rid) if isinstance(rid, int) else None
        if held is None or not isinstance(rid, int):
            session.send({"type": "error", "code": "unknown_request", "message": f"no open request {rid!r}"})
            return
        play, version, _ = held
        text = message.get("move")
        if not isinstance(text, str) or len(text) > 24 or not text.isprintable():
            session.send({"type": "error", "code": "bad_frame", "message": "'move' must be a move's text", "id": rid})
            return
        del session.requests[rid]
        conn = play.conn
        if conn is None:
            return
        reply = await self.arena.hub.act(conn, f"bot-{rid}", version, text)
        if reply.get("type") == "error":
            play.faults += 1
            session.send({**reply, "id": rid, "table": play.table_id})
            if reply.get("code") == "illegal" and play.view is not None and play.asked == version:
                play.asked = None
                self.ask(play, session, play.view, version)

    def leave(self, play: SeatPlay) -> None:
        """The seat loses its connection (the grace period starts, as for a person who left)."""
        if play.conn is not None:
            self.arena.hub.detach(play.conn)
            play.conn.close()
        play.conn = None
        play.session = None
