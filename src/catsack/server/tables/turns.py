"""What moves a game on by itself: bots, turn timers and turn-based clocks, and the hints of the expert.

Only the process driving a table (holding its lease) runs them. A bot's move is due after a delay
drawn from a fixed distribution, whatever its view, and searching bots and hints think in processes
of their own (:mod:`catsack.server.tables.thinking`), from the seat's view only (R23).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from functools import partial
from typing import Any

from catsack.bots.base import Bot, make_bot
from catsack.game import Game
from catsack.moves import Move
from catsack.server.tables.bus import TurnToPerson
from catsack.server.tables.coordinator import Coordinator
from catsack.server.tables.live import Conn, LiveTable, error_frame
from catsack.server.tables.thinking import Plan
from catsack.server.tables.turnbased import Clock

log = logging.getLogger("catsack.server")

#: Bots that search: they think in the thinking processes.
SEARCHING_BOTS = ("ismcts", "expert")


class Turns:
    """Starts and runs the bot moves, turn timers and clocks of the tables this process drives."""

    def __init__(self, hub: Coordinator) -> None:
        self.hub = hub
        self.hinting: set[tuple[str, int]] = set()  # seats whose hint is being worked out

    def deadline_for(self, table: LiveTable, game: Game, clock: Clock | None = None) -> float | None:
        """When the turn of ``game``'s seat to move runs out: a real-time table's turn timer, or a
        turn-based table's ``clock`` (its time per move and the seat's bank); ``None`` for a bot."""
        seat = game.to_move
        if seat is None or table.players[seat].kind != "human":
            return None
        if clock is not None:
            return clock.deadline(seat)
        seconds = table.options.get("turn_seconds")
        if not seconds:
            return None
        return time.time() + float(seconds)

    async def start_timer(self, table: LiveTable) -> None:
        """The game starts (the last seat was taken): start the turn timer or the turn-based clock."""
        hub = self.hub
        clock = table.clock
        if clock is not None:
            clock = clock.started(time.time())
        deadline = self.deadline_for(table, table.game, clock)
        clock_text = None if clock is None else clock.to_json()
        await hub.writer.run(partial(hub.store.set_deadline, table.id, table.version, deadline, clock=clock_text))
        table.row = dataclasses.replace(table.row, deadline=deadline, status=table.status, clock=clock_text)
        if clock is not None:
            self.turn_changed(table)

    def turn_changed(self, table: LiveTable) -> None:
        """A turn-based table's turn passed to someone: a person's is told (a mail, if they want it)."""
        seat = table.game.to_move
        if seat is not None and table.players[seat].kind == "human":
            self.hub.events.publish_soon(TurnToPerson(table))

    def schedule(self, table: LiveTable, *, resume: bool = False) -> None:
        """Start whatever moves the game on by itself: a bot's move or a turn timer. Only the process
        holding the table's lease does (otherwise every process holding a table
        computed every bot move, and all but one lost the append race). ``resume``: the table was just
        loaded or taken over, and its turn began before (a bot's delay counts from then)."""
        if table.task is not None and not table.task.done() and table.task is not asyncio.current_task():
            table.task.cancel()
        table.task = None
        seat = table.game.to_move
        if seat is None or table.status != "playing" or not table.driver:
            return
        p = table.players[seat]
        if p.kind == "bot":
            table.task = asyncio.create_task(self.bot_turn(table, seat, table.version, resume))
        elif p.kind == "human" and table.row.deadline is not None:
            table.task = asyncio.create_task(self.timer_turn(table, seat, table.version, table.row.deadline))

    def bot(self, table: LiveTable, seat: int, spec: str) -> Bot:
        """The bot of this process playing ``seat`` as ``spec`` (made on first use)."""
        bot = table.bots.get(seat)
        if bot is None or bot.name != spec:
            bot = make_bot(spec, seed=secrets.randbits(32))
            bot.name = spec
            bot.reset(seat, table.row.seats)
            bot.meet(table.kinds)
            table.bots[seat] = bot
        return bot

    async def decide(self, table: LiveTable, seat: int, spec: str, until: float) -> Move:
        """The bot ``spec``'s move for ``seat``, from the seat's view only (R23). A searching bot thinks in
        a thinking process until ``until`` (the pace's clock), so it never holds the event loop's GIL."""
        hub = self.hub
        view = table.game.view(seat, show_money=bool(table.options.get("money_visible")))
        t0 = time.perf_counter()
        if spec.startswith(SEARCHING_BOTS):
            deadline = hub.pace.wall(until)
            memory = table.memory_for(seat)  # read at the tables before a rematch, from the people seated now
            text = await hub.thinkers.move(spec, seat, table.row.seats, table.kinds, view, deadline, memory)
            move = Move.parse(text)
        else:
            move = self.bot(table, seat, spec).choose(view)
        if hub.metrics is not None:
            hub.metrics.bot_think.labels(spec).observe(time.perf_counter() - t0)
        return move

    def standin_move(self, table: LiveTable, seat: int) -> Move:
        """The stand-in bot's move for ``seat``, worked out at once in this process (a fraction of a
        millisecond): what the seat plays if its search has not answered when the move is due."""
        bot = make_bot(self.hub.settings.standin_bot, seed=secrets.randbits(32))
        bot.reset(seat, table.row.seats)
        bot.meet(table.kinds)
        return bot.choose(table.game.view(seat, show_money=bool(table.options.get("money_visible"))))

    async def search(self, table: LiveTable, seat: int, spec: str, plan: Plan) -> asyncio.Future[Move]:
        """The bot's move as a future: a searching bot's thinks meanwhile (not waited for); a bot of
        this process decides at once, before the wait."""
        if spec.startswith(SEARCHING_BOTS):
            return asyncio.ensure_future(self.decide(table, seat, spec, plan.think_until))
        search: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
        try:
            search.set_result(await self.decide(table, seat, spec, plan.think_until))
        except Exception as exc:
            search.set_exception(exc)
        return search

    async def bot_turn(self, table: LiveTable, seat: int, version: int, resume: bool = False) -> None:
        """Play the bot's move for ``seat`` when it is due (the table still at ``version``)."""
        # When the move is due is drawn before anything of the view is read, and the move is released
        # then, whatever its search did: the search's answer if it came in time, else the stand-in's move
        # worked out now. A forced move and a move with a choice are released alike by construction (R23,
        # R24; thinking.Pace.release, docs/protocol.md). A process that has just taken the table over
        # (``resume``) counts the delay from when the turn began, as the log or the last message tells:
        # the table does not stand still a whole bot delay more.
        hub = self.hub
        plan = hub.pace.plan()
        if resume and table.turn_began is not None:
            plan = plan.resumed(plan.start - max(0.0, time.time() - table.turn_began))
        try:
            spec = table.players[seat].bot or hub.settings.standin_bot
            search = await self.search(table, seat, spec, plan)
            # The stand-in's move is worked out only where it may be played: while a search runs (a
            # searching bot's), or after a bot of this process failed. For every turn of every game it
            # cost more CPU than the bots' own moves, and filled the stand-in bot's process-wide caches
            # (up to ~100 MiB) with every game's rows.
            answered = search.done() and search.exception() is None
            fallback = search.result() if answered else self.standin_move(table, seat)
            try:
                move = await hub.pace.release(plan, search, fallback)
            except asyncio.CancelledError:
                search.cancel()
                raise
            except Exception:  # (no delay to keep) a thinking process died: the stand-in's move
                move = fallback
            if search.done() and not search.cancelled() and search.exception() is not None:
                # a thinking process died: the stand-in played this move, the game goes on
                log.error(
                    "bot failed; the stand-in moved",
                    exc_info=search.exception(),
                    extra={"fields": {"table": table.id, "seat": seat}},
                )
            async with table.lock:
                if table.version != version or table.players[seat].kind != "bot":
                    return
                table.task = None
                err = await hub.commit(table, seat, move, None, "bot")
                if err is not None:
                    log.error("bot move refused", extra={"fields": {"table": table.id, "seat": seat, "why": err[1]}})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot failed", extra={"fields": {"table": table.id, "seat": seat}})

    async def timer_turn(self, table: LiveTable, seat: int, version: int, deadline: float) -> None:
        """At ``deadline``: the stand-in bot moves for ``seat`` (a turn-based clock: a bot takes the seat)."""
        try:
            await asyncio.sleep(max(0.0, deadline - time.time()))
            if table.clock is not None and (table.row.deadline or 0.0) > time.time() + 1.0:
                self.schedule(table)  # the clock was paused meanwhile (a vacation): wait for its new deadline
                return
            if table.clock is not None and not table.clock.settling(time.time()):
                await self.clock_ran_out(table, seat, version)
                return
            # A real-time turn timer, or a turn-based table past its hard stop (a tournament round's
            # deadline): the stand-in bot moves for the person, and the seat stays theirs.
            move = await self.decide(table, seat, self.hub.settings.standin_bot, self.hub.pace.clock())
            async with table.lock:
                if table.version != version:
                    return
                table.task = None
                err = await self.hub.commit(table, seat, move, None, "timer")
            if err is None:
                notice = {
                    "type": "notice",
                    "code": "timer",
                    "message": f"Your time ran out: a bot played {move.text} for you.",
                }
                for c in list(table.conns):
                    if c.seat == seat:
                        c.push(notice)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer move failed", extra={"fields": {"table": table.id, "seat": seat}})

    async def clock_ran_out(self, table: LiveTable, seat: int, version: int) -> None:
        """A turn-based seat spent its time per move and its bank: a bot plays the seat from now on
        (docs/rules.md, "Playing online"), as after the grace period of a real-time table."""
        if table.version != version or table.players[seat].kind != "human":
            return
        if table.task is asyncio.current_task():
            table.task = None  # replace() reschedules; it must not cancel this task while it runs
        # A move may land while this waits for the table's lock (the instant the clock runs out): then
        # the player made it in time, and replace() leaves the seat alone (it checks the version again).
        if await self.hub.replace(table, seat, version=version):
            log.info("turn-based clock ran out", extra={"fields": {"table": table.id, "seat": seat}})

    async def hint(self, conn: Conn) -> dict[str, Any]:
        """The expert's advice for the connection's seat, worked out in a thinking process within
        ``hint_seconds``: one at a time per seat (however many connections it has), and at most
        ``hint_max_running`` in this process."""
        thinkers = self.hub.thinkers
        table = conn.table
        assert table is not None
        if not table.options.get("hints"):
            return error_frame("hints_off", "this table does not allow hints")
        seat = conn.seat
        if seat is None:
            return error_frame("unauthorized", "spectators get no hints")
        if table.game.to_move != seat:
            return error_frame("not_your_turn", "hints are given when it is your turn")
        key = (table.id, seat)
        if key in self.hinting:
            return error_frame("rate_limited", "a hint is already being worked out")
        if not thinkers.hint_slot():
            return error_frame("busy", "the server is working out other hints: try again in a moment")
        view = table.game.view(seat, show_money=bool(table.options.get("money_visible")))
        version = table.version
        self.hinting.add(key)
        try:
            a = await thinkers.hint(view, table.kinds)
        finally:
            self.hinting.discard(key)
            thinkers.hint_done()
        return {"type": "hint", "version": version, **a}
