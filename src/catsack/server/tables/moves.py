"""A move checked, committed, then applied and broadcast.

Every change to a table happens under that table's :class:`asyncio.Lock`: check the action, work out
its consequences on the game and take it back, commit it to the database, and only then play it for
good and tell the connections. So a slow database write cannot let two actions interleave, and
nothing a client saw can be lost by a crash.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from dataclasses import dataclass
from typing import Any

from catsack.errors import CatsackError
from catsack.moves import Move
from catsack.server.storage.store import Append, AppendConflict
from catsack.server.tables.bus import GameOver, MoveApplied
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import Conn, LiveTable, error_frame
from catsack.server.tables.turnbased import Clock

log = logging.getLogger("catsack.server")


@dataclass(frozen=True)
class Planned:
    """What a move does to its table, worked out before it is committed."""

    version: int
    status: str
    over: bool
    to_move: int | None
    deadline: float | None
    clock: Clock | None
    clock_text: str | None


class Moves:
    """Plays the moves of people, bots and timers on the tables."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub

    async def act(self, conn: Conn, action_id: str, version: int, text: str) -> dict[str, Any]:
        """A player's move: the answer frame (``ack`` or ``error``). State frames go to everyone."""
        table = conn.table
        assert table is not None
        seat = conn.seat
        if seat is None:
            return error_frame("unauthorized", "spectators cannot move", action_id=action_id)
        async with table.lock:
            if conn.seat is None:  # replaced, or taken over with a new link, while waiting for the lock
                who = "a bot" if table.players[seat].kind == "bot" else "a new link to it"
                return error_frame(
                    "replaced", f"{who} now plays seat {seat + 1}; you are watching", action_id=action_id
                )
            done = table.results.get((seat, action_id))
            if done is not None:
                return {"type": "ack", "action_id": action_id, "version": done}
            if table.game.is_over:
                return error_frame("game_over", "the game is over", action_id=action_id, version=table.version)
            if version != table.version:
                return error_frame(
                    "stale",
                    f"that move was made against version {version}; the table is at version {table.version}",
                    action_id=action_id,
                    version=table.version,
                )
            if table.status != "playing":
                return error_frame("not_your_turn", "the game starts when every seat is taken", action_id=action_id)
            if table.game.to_move != seat:
                return error_frame(
                    "not_your_turn",
                    f"it is seat {table.game.to_move}'s turn, not yours (seat {seat})",
                    action_id=action_id,
                    version=table.version,
                )
            try:
                move = Move.parse(text)
            except CatsackError as exc:
                return error_frame("illegal", str(exc), action_id=action_id, version=table.version)
            err = await self.hub.commit(table, seat, move, action_id, "human")
            if err is not None:
                return error_frame(err[0], err[1], action_id=action_id, version=table.version)
            return {"type": "ack", "action_id": action_id, "version": table.version}

    def plan(self, table: LiveTable, seat: int, move: Move, actor: str) -> Planned:
        """Work out ``move``'s consequences on the game itself and take it back at once (no await in
        between, so no frame can show it); raises :class:`CatsackError` for an illegal move."""
        game = table.game
        game.play(move)
        try:
            clock = table.clock
            if clock is not None:
                clock = clock.after_move(seat, time.time(), charged=actor == "human")
            deadline = self.hub.deadline_for(table, game, clock)
            over = game.is_over
            return Planned(
                len(game.moves),
                "over" if over else "playing",
                over,
                game.to_move,
                deadline,
                clock,
                None if clock is None else clock.to_json(),
            )
        finally:
            game.undo()

    async def commit(
        self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str
    ) -> tuple[str, str] | None:
        """Play ``move`` for ``seat`` (lock held): commit, then apply and broadcast. An error pair or None."""
        try:
            plan = self.plan(table, seat, move, actor)
        except CatsackError as exc:
            return ("illegal", str(exc))
        err = await self.write(table, seat, move, action_id, actor, plan)
        if err is not None:
            return err
        self.apply(table, seat, move, action_id, actor, plan)
        return None

    async def write(
        self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str, plan: Planned
    ) -> tuple[str, str] | None:
        """Append the move to the table's log; an error pair if it was not written."""
        hub = self.hub
        # A person's move is written only while their token still holds the seat in the database:
        # another process may have given it to a bot, or to a new token, and not told us yet.
        token = table.players[seat].token_hash if actor == "human" else None
        try:
            await hub.writer.append(
                Append(
                    table.id,
                    plan.version,
                    seat,
                    move.text,
                    action_id,
                    actor,
                    plan.status,
                    plan.deadline,
                    plan.to_move,
                    plan.clock_text,
                    token,
                )
            )
        except AppendConflict as exc:
            log.warning("append conflict", extra={"fields": {"table": table.id, "version": plan.version}})
            if hub.metrics is not None:
                hub.metrics.append_conflicts.inc()
            await hub.catch_up(table)
            p = table.players[seat]
            if token is not None and (p.kind != "human" or p.token_hash != token):
                who = f"a bot ({p.bot})" if p.kind == "bot" else "a new link to it"
                return ("replaced", f"the move was not made: {who} now plays seat {seat + 1}; you are watching")
            return ("stale", f"{exc}; the table is at version {table.version}")
        except Exception:
            log.exception("database write failed", extra={"fields": {"table": table.id}})
            return ("unavailable", "the move could not be saved; nothing changed, try again")
        return None

    def apply(self, table: LiveTable, seat: int, move: Move, action_id: str | None, actor: str, plan: Planned) -> None:
        """Play the committed move for good, tell the connections, the listeners and the other processes."""
        hub = self.hub
        game = table.game
        game.play(move)
        table.row = dataclasses.replace(
            table.row,
            version=plan.version,
            status=plan.status,
            deadline=plan.deadline,
            finished=time.time() if plan.over else None,
            to_move=plan.to_move,
            clock=plan.clock_text,
        )
        if action_id is not None:
            table.results[(seat, action_id)] = plan.version
        table.touched = time.monotonic()
        table.turn_began = time.time()
        table.broadcast_state()
        if hub.metrics is not None:
            hub.metrics.moves.labels(actor).inc()
        hub.schedule(table)
        hub.events.emit(MoveApplied(table.id, plan.version))
        # The move itself goes to the other processes that hold the table (queued: nothing here waits
        # for Redis); they play it on their copies without reading the database.
        if hub.fanout is not None and hub.heard(table):
            hub.fanout.publish(
                {
                    "k": "m",
                    "t": table.id,
                    "v": plan.version,
                    "s": seat,
                    "m": move.text,
                    "a": action_id,
                    "st": plan.status,
                    "d": plan.deadline,
                    "c": plan.clock_text,
                    "b": table.turn_began,
                }
            )
        if plan.clock is not None and not game.is_over:
            hub.turn_changed(table)
        if game.is_over:
            log.info("game over", extra={"fields": {"table": table.id, "scores": list(game.scores())}})
            hub.events.publish_soon(GameOver(table))  # reputation, rating, tournament
