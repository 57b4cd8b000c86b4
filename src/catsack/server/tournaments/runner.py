"""Running a tournament on the server: seating rounds as tables, scoring them, withdrawing leavers.

A tournament moves on when one of its tables finishes (the hub's game-over step
calls :func:`table_finished`) and, as a backstop, from a sweep every few seconds
(:func:`sweeper`: a scheduled start, a process that died between two steps). Every
step is safe to repeat and to race with another process (see
:mod:`catsack.server.tournaments.model`): :func:`advance` looks at what the database
says and does the next thing that is missing.

Tournament tables are ordinary public tables (a replay and analysis once over; never in the
lobby's open list, since every seat is filled when made): bots for bot entries and
filler bots, and each account's seat bound to it with a token nobody holds; the
player takes the seat from the tournament page (``POST /api/tables/{id}/takeover``).
A player who does not come, or leaves, loses the seat to a bot after the grace
period like at any table: the entry is then *withdrawn* (no later rounds) and that
seat earns nothing.

A turn-based tournament's tables are turn-based (hours per move, a time bank) and each round has a
deadline, set when its tables are made and kept with them: it is every table's hard stop
(:class:`catsack.server.tables.turnbased.Clock`), so a game still going then is played out by the stand-in
bot with the seats kept their people's, and the round ends. A clock that runs out before it hands the
seat to a bot like any timeout, and the entry is withdrawn.

An arena (:mod:`catsack.server.tournaments.arena`) has no rounds: each step scores its tables that
ended, and while its window is open seats the queue (everyone not at a table) as new tables, each its
own "round" numbered by the tournament's counter; after the window it finishes once the last game ends.
Its clock is :func:`arena_clock` (tests move it on).

In a duplicate tournament the tables of a round share one deal, so a table that is
ahead would tell the others what is coming: until the round is scored, its tables
have no spectators and no public records or replays (:func:`embargoed`).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from cachetools import FIFOCache
from sqlalchemy import Connection

from catsack.server.people.accounts import Accounts
from catsack.server.people.friends import blocked_pairs
from catsack.server.people.mail import queue_tournament_round, tournament_recipients
from catsack.server.people.ratings import Ratings, display
from catsack.server.storage.store import Store
from catsack.server.tables.live import TableError, stored_game
from catsack.server.tables.turnbased import HOUR, TurnBased
from catsack.server.tournaments.arena import Waiter, seat_queue
from catsack.server.tournaments.model import PACES, Entry, TableSlot, Tournament, Tournaments, round_hours
from catsack.server.tournaments.swiss import (
    RoundScore,
    SeatResult,
    meetings,
    pair_round,
    score_round,
    standings,
)
from catsack.setup import Setup

if TYPE_CHECKING:
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.live import LiveTable

__all__ = [
    "SWEEP_SECONDS",
    "ArenaClock",
    "advance",
    "arena_clock",
    "arena_ends",
    "embargoed",
    "is_arena",
    "seat_abandoned",
    "start_now",
    "sweeper",
    "table_finished",
    "table_results",
    "tournaments_of",
    "withdraw_entry",
]

log = logging.getLogger("catsack.server")

#: How often every process looks after running tournaments and scheduled starts.
SWEEP_SECONDS = 5.0
#: The level of the bots that fill short tables when a tournament names none.
DEFAULT_FILLER = "heuristic"

_locks: dict[str, asyncio.Lock] = {}


def tournaments_of(hub: Hub) -> Tournaments:
    return hub.service(Tournaments, lambda: Tournaments(hub.store.engine))


def _lock(tid: str) -> asyncio.Lock:
    lock = _locks.get(tid)
    if lock is None:
        lock = _locks[tid] = asyncio.Lock()
    return lock


class ArenaClock:
    """The arenas' clock: the time, moved on by ``skew`` seconds (tests move it instead of sleeping)."""

    def __init__(self) -> None:
        self.skew = 0.0

    def now(self) -> float:
        return time.time() + self.skew


def arena_clock(hub: Hub) -> ArenaClock:
    return hub.service(ArenaClock, ArenaClock)


def is_arena(t: Tournament) -> bool:
    return t.options.get("format") == "arena"


def arena_ends(t: Tournament) -> float | None:
    """When an arena's window closes (epoch seconds), ``None`` before it started."""
    if t.started is None:
        return None
    return t.started + 60.0 * float(t.options.get("minutes") or 0)


def round_setup(t: Tournament, round_no: int, table_no: int) -> Setup:
    """The deal of a table: one per round in a duplicate tournament, else one per table (drawn from the
    tournament's secret seed, so a step repeated after a crash deals the same cards)."""
    key = f"{t.options['seed']}:{round_no}" if t.duplicate else f"{t.options['seed']}:{round_no}:{table_no}"
    return Setup.deal(t.seats, random.Random(key))


async def advance(hub: Hub, tid: str, now: float | None = None) -> None:
    """Do the next step of tournament ``tid`` that is due at ``now`` (default: the time; start, seat a
    round, score it, finish; an arena: score its finished tables, seat the queue, close the window)."""
    async with _lock(tid):
        store = tournaments_of(hub)
        t = await asyncio.to_thread(store.get, tid)
        if t is None:
            return
        if is_arena(t):
            now = arena_clock(hub).now() if now is None else now
            if t.status == "upcoming" and t.starts is not None and now >= t.starts:
                await start(hub, t)
            elif t.status == "running":
                await _arena_step(hub, t, now)
            return
        now = time.time() if now is None else now
        if t.status == "upcoming":
            if t.starts is None or now < t.starts:
                return
            await start(hub, t)
            return
        if t.status == "running":
            await _round_step(hub, t)


async def _round_step(hub: Hub, t: Tournament) -> None:
    """The step of a running Swiss tournament (the caller holds its lock): publish or seat its round,
    or score it once every table is over and seat the next one (or finish)."""
    store = tournaments_of(hub)
    tid = t.id
    if t.current_round == 0:  # started, round 1 not published yet (a step cut short)
        await _next_round(hub, t)
        return
    r = t.current_round
    slots = await asyncio.to_thread(store.tables, tid, r)
    if not slots:  # published before its tables were made (by a server of an earlier release)
        await _seat_round(hub, t, r)
        return
    finished = True
    for slot in slots:
        row = await asyncio.to_thread(hub.store.table, slot.table_id)
        if row is None or row.status == "open":  # a step cut short: make or fill the table
            await _open_table(hub, t, r, slot.table_no, slot.seating, slot.table_id, deadline=slot.deadline)
            finished = False
        elif row.status != "over":
            finished = False
    if not finished:
        return
    scores = await asyncio.to_thread(_score, hub, t, slots)
    await asyncio.to_thread(store.record_round, tid, r, scores)
    entries = await asyncio.to_thread(store.entries, tid)
    active = [e for e in entries if e.withdrawn is None]
    if r >= t.rounds or not active:
        if await asyncio.to_thread(store.finish, tid):
            log.info("tournament finished", extra={"fields": {"tournament": tid, "rounds": r}})
        return
    await _next_round(hub, t)


async def start_now(hub: Hub, t: Tournament) -> bool:
    """Start an upcoming tournament now (its creator asks, or the operator): ``False`` if it had
    fewer than two entries (it is cancelled then) or had started already."""
    async with _lock(t.id):
        return await start(hub, t)


async def start(hub: Hub, t: Tournament) -> bool:
    """Start an upcoming tournament and seat its first round (the caller holds its lock)."""
    store = tournaments_of(hub)
    entries = await asyncio.to_thread(store.entries, t.id)
    if len(entries) < 2:
        await asyncio.to_thread(store.finish, t.id, "cancelled")
        log.info("tournament cancelled: fewer than two entries", extra={"fields": {"tournament": t.id}})
        return False
    if not await asyncio.to_thread(store.start, t.id):
        return False
    fresh = await asyncio.to_thread(store.get, t.id)
    assert fresh is not None
    if is_arena(fresh):
        await _arena_step(hub, fresh, arena_clock(hub).now())
    else:
        await _next_round(hub, fresh)
    log.info("tournament started", extra={"fields": {"tournament": t.id, "entries": len(entries)}})
    return True


async def _next_round(hub: Hub, t: Tournament) -> None:
    """Seat the round after ``t.current_round`` and then publish it (the caller holds the lock).

    Publishing is the step that moves ``current_round``: the pages list a round's tables and
    players take their seats from then on. So every table of the round is made and every person's
    seat bound to their account first, and a player never sees a table whose seat is not theirs yet
    (a step cut short is done again by the next :func:`advance`; nobody saw the round meanwhile)."""
    store = tournaments_of(hub)
    round_no = t.current_round + 1
    slots = await _seat_round(hub, t, round_no)
    if slots is None:  # nobody left to seat
        await asyncio.to_thread(store.finish, t.id)
        return
    entries = {e.entry: e for e in await asyncio.to_thread(store.entries, t.id)}
    mails: list[tuple[int, dict[str, Any]]] = []
    for slot in slots:
        row = await asyncio.to_thread(hub.store.table, slot.table_id)
        if row is None or row.status == "open":  # a seat could not be bound: the next sweep tries again
            log.warning(
                "tournament round not published: a table is not seated",
                extra={"fields": {"tournament": t.id, "round": round_no, "table": slot.table_id}},
            )
            return
        # The players mailed are the ones the table waits for (_open_table): one list, kept with the table.
        for seat in row.options.get("mailed_seats") or ():
            entry = entries.get(slot.seating[seat]) if seat < len(slot.seating) and slot.seating[seat] else None
            if entry is not None and entry.user_id is not None:
                payload: dict[str, Any] = {
                    "tournament": t.name,
                    "round": round_no,
                    "table": slot.table_no,
                    "table_id": slot.table_id,
                    "link": f"/t/{slot.table_id}",
                    # How long the seat is kept for them: the wait, or the grace period if that is longer.
                    "wait": max(float(row.options.get("wait_seconds") or 0.0), hub.settings.grace_seconds),
                }
                tb = TurnBased.of(row.options)
                if tb is not None and slot.deadline is not None:
                    # Turn-based: the seat is theirs until the round's deadline (their clock permitting).
                    payload.update(
                        deadline=slot.deadline,
                        move_hours=tb.move_hours,
                        wait=max(0.0, slot.deadline - time.time()),
                    )
                mails.append((entry.user_id, payload))

    def mail(conn: Connection) -> None:
        queue_tournament_round(conn, mails)

    if await asyncio.to_thread(store.next_round, t.id, t.current_round, mail if mails else None):
        log.info(
            "tournament round published",
            extra={"fields": {"tournament": t.id, "round": round_no, "tables": len(slots), "mails": len(mails)}},
        )


def _active(hub: Hub, t: Tournament, round_no: int) -> list[Entry]:
    """The entries to seat in ``round_no``: not withdrawn; an entry whose account was deleted is
    withdrawn now (nobody can take its seat)."""
    store = Tournaments(hub.store.engine)
    accounts = Accounts(hub.store.engine)
    out = []
    for e in store.entries(t.id):
        if e.withdrawn is not None:
            continue
        if e.user_id is not None and accounts.by_id(e.user_id) is None:
            store.withdraw(t.id, e.entry, round_no - 1)
            continue
        out.append(e)
    return out


def _ratings(hub: Hub, entries: Collection[Entry]) -> dict[int, float]:
    """Each entry's rating (people by their account's, bots by their level's)."""
    keys = {e.entry: f"user:{e.user_id}" if e.user_id is not None else f"bot:{e.bot}" for e in entries}
    found = Ratings(hub.store.engine).get(list(set(keys.values())))
    return {e: display(found[k]) for e, k in keys.items()}


def _first_order(hub: Hub, t: Tournament) -> list[int]:
    """Round 1: entries by rating (people by their account's, bots by their level's), then by entry number."""
    rating = _ratings(hub, _active(hub, t, 1))
    return sorted(rating, key=lambda e: (-rating[e], e))


def _apart(hub: Hub, t: Tournament) -> set[frozenset[int]]:
    """The pairs of entries whose accounts block one another (the seating keeps them apart where it can)."""

    by_user = {e.user_id: e.entry for e in Tournaments(hub.store.engine).entries(t.id) if e.user_id is not None}
    pairs = blocked_pairs(hub.store.engine, sorted(by_user))
    return {frozenset(by_user[u] for u in pair) for pair in pairs}


def _order(hub: Hub, t: Tournament, round_no: int) -> tuple[list[int], dict[frozenset[int], int]]:
    """The active entries in standings order before ``round_no``, and who met whom so far."""
    store = Tournaments(hub.store.engine)
    if round_no == 1:
        return _first_order(hub, t), {}
    active = [e.entry for e in _active(hub, t, round_no)]
    entries = store.entries(t.id)
    results = store.results(t.id)
    withdrawn = {e.entry for e in entries if e.withdrawn is not None}
    table = standings([e.entry for e in entries], [results[r] for r in sorted(results)], withdrawn)
    order = [s.entry for s in table if s.entry in active]
    met = meetings([s.seating for s in store.tables(t.id) if s.round < round_no])
    return order, dict(met)


async def _seat_round(hub: Hub, t: Tournament, round_no: int) -> list[TableSlot] | None:
    """Make the tables of ``round_no`` (the slots once, then each table) and bind every person's seat
    to their account; the round's slots, or ``None`` when nobody is left to seat."""
    store = tournaments_of(hub)
    slots = await asyncio.to_thread(store.tables, t.id, round_no)
    if not slots:
        order, met = await asyncio.to_thread(_order, hub, t, round_no)
        if not order:
            return None
        apart = await asyncio.to_thread(_apart, hub, t)
        seatings = pair_round(order, t.seats, met, round_no, apart)
        hours = round_hours(t.options)
        deadline = None if hours is None else time.time() + hours * HOUR
        slots = await asyncio.to_thread(store.add_tables, t.id, round_no, seatings, deadline)
    entries = {e.entry: e for e in await asyncio.to_thread(store.entries, t.id)}
    people = [e.user_id for e in entries.values() if e.user_id is not None]
    mailed = await asyncio.to_thread(tournament_recipients, hub.store.engine, hub.settings, people)
    for slot in slots:
        await _open_table(hub, t, round_no, slot.table_no, slot.seating, slot.table_id, mailed, slot.deadline)
    log.info("tournament round seated", extra={"fields": {"tournament": t.id, "round": round_no, "tables": len(slots)}})
    return slots


async def _open_table(
    hub: Hub,
    t: Tournament,
    round_no: int,
    table_no: int,
    seating: list[int | None],
    table_id: str,
    mailed: Collection[int] = (),
    deadline: float | None = None,
) -> None:
    """Make the table of a slot (if it is not there yet) and seat its people (those not seated yet).
    The accounts in ``mailed`` are told by mail that the round starts, and the new table waits for
    them (``mailed_seats``): they keep the seat ``tournament_wait_seconds`` instead of the grace period
    while they have not come (the hub's sweep). A turn-based table's clock stops at the round's
    ``deadline``."""

    entries = {e.entry: e for e in await asyncio.to_thread(tournaments_of(hub).entries, t.id)}
    table = await hub.get(table_id)
    if table is None:
        table = await _make_table(hub, t, round_no, table_no, seating, table_id, entries, mailed, deadline)
    await _seat_people(hub, t, table, seating, entries)


async def _make_table(
    hub: Hub,
    t: Tournament,
    round_no: int,
    table_no: int,
    seating: list[int | None],
    table_id: str,
    entries: dict[int, Entry],
    mailed: Collection[int],
    deadline: float | None,
) -> LiveTable:
    """Create a slot's table, its bots seated (bot entries and fillers); another process's if it made
    the table meanwhile."""
    filler = str(t.options.get("filler") or DEFAULT_FILLER)
    bots = {}
    for seat, entry in enumerate(seating):
        if entry is None:
            bots[seat] = filler
        elif entries[entry].bot is not None:
            bots[seat] = str(entries[entry].bot)
    turn_seconds, paced = PACES[str(t.options.get("pace", "realtime"))](t.options)
    paced = dict(paced)
    turn_based = TurnBased.of(paced)
    if turn_based is not None:
        del paced["turn_based"]  # the hub stores it with the clock
        turn_based = TurnBased(turn_based.move_hours, turn_based.bank_hours, until=deadline)
    options: dict[str, Any] = {
        **paced,
        "rated": bool(t.options.get("rated")),
        "tournament": t.id,
        "round": round_no,
    }
    if t.duplicate:
        options["embargo"] = {"tournament": t.id, "round": round_no}
    told = [
        seat
        for seat, entry in enumerate(seating)
        if entry is not None and entries[entry].user_id is not None and entries[entry].user_id in mailed
    ]
    if told:
        options["mailed_seats"] = told
        options["wait_seconds"] = hub.settings.tournament_wait_seconds
    try:
        return await hub.create(
            t.seats,
            bots,
            name=f"{t.name} · {round_no}.{table_no}",
            money_visible=bool(t.options.get("money_visible")),
            turn_seconds=turn_seconds,
            turn_based=turn_based,
            hints=False,
            setup=round_setup(t, round_no, table_no),
            table_id=table_id,
            extra_options=options,
        )
    except Exception:  # another process made it meanwhile
        table = await hub.get(table_id)
        if table is None:
            raise
        return table


async def _seat_people(
    hub: Hub, t: Tournament, table: LiveTable, seating: list[int | None], entries: dict[int, Entry]
) -> None:
    """Bind every person's open seat at ``table`` to their account."""
    for seat, entry in enumerate(seating):
        e = entries.get(entry) if entry is not None else None
        if e is None or e.user_id is None or table.players[seat].kind != "open":
            continue
        try:
            # A token nobody holds: the player takes the seat over from the tournament page.
            await hub.join(table, e.name, seat, account_id=e.user_id)
        except TableError as exc:
            log.warning(
                "tournament seat not taken",
                extra={"fields": {"tournament": t.id, "table": table.id, "seat": seat, "why": exc.code}},
            )


#: Results of finished tournament tables (they never change), for the pages' live standings.
_RESULTS_KEPT = 4096
_RESULTS: FIFOCache[str, list[SeatResult]] = FIFOCache(maxsize=_RESULTS_KEPT)


def table_results(store: Store, slot: TableSlot) -> list[SeatResult] | None:
    """The seats' results of a slot's table read from the database, ``None`` while it is not over."""
    found = _RESULTS.get(slot.table_id)
    if found is not None:
        return found
    loaded = store.load(slot.table_id)
    if loaded is None or loaded[0].status != "over":
        return None
    row, seats, actions = loaded
    game = stored_game(row, actions)
    scores, cats = game.scores(), game.cat_points()
    out = [
        SeatResult(entry, seat, scores[seat], cats[seat], entry is not None and seats[seat].replaced)
        for seat, entry in enumerate(slot.seating)
    ]
    _RESULTS[slot.table_id] = out  # the oldest goes once 4096 are kept
    return out


def _score(hub: Hub, t: Tournament, slots: list[TableSlot]) -> list[RoundScore]:
    """A round's results from its finished tables (read from the database)."""
    tables = []
    for slot in sorted(slots, key=lambda s: s.table_no):
        found = table_results(hub.store, slot)
        assert found is not None
        tables.append(found)
    return score_round(tables, duplicate=t.duplicate, round_no=slots[0].round if slots else 0)


# ---------------------------------------------------------------------- arenas


def _arena_queue(
    hub: Hub, t: Tournament, slots: list[TableSlot], playing: set[int], now: float
) -> list[list[int | None]]:
    """The tables to make now from an arena's queue: every active entry not at a table waits, since
    its last table ended (or the arena started, or it entered)."""
    active = [e for e in _active(hub, t, t.current_round + 1) if e.entry not in playing]
    if not active:
        return []
    last: dict[int, TableSlot] = {}
    for slot in slots:  # in table order: the last one an entry sat at stays
        for entry in slot.seating:
            if entry is not None:
                last[entry] = slot
    ended: dict[str, float] = {}
    for slot in {last[e.entry].table_id: last[e.entry] for e in active if e.entry in last}.values():
        row = hub.store.table(slot.table_id)
        ended[slot.table_id] = row.finished if row is not None and row.finished is not None else now
    rating = _ratings(hub, active)
    started = t.started if t.started is not None else now
    waiting = [
        Waiter(e.entry, rating[e.entry], ended[last[e.entry].table_id] if e.entry in last else max(started, e.created))
        for e in active
    ]
    mates = {e: {m for m in s.seating if m is not None and m != e} for e, s in last.items()}
    bots_after = t.options.get("bots_after")
    return seat_queue(waiting, t.seats, mates, now, None if bots_after is None else float(bots_after))


async def _arena_step(hub: Hub, t: Tournament, now: float) -> None:
    """An arena's step (the caller holds its lock): score the tables that ended, make or seat the
    tables a step cut short, then seat the queue while the window is open; after it, finish once the
    last game ends (games still going when the window closes count)."""
    store = tournaments_of(hub)
    slots = await asyncio.to_thread(store.tables, t.id)
    scored = set(await asyncio.to_thread(store.results, t.id))
    playing: set[int] = set()
    for slot in slots:
        if slot.round in scored:
            continue
        row = await asyncio.to_thread(hub.store.table, slot.table_id)
        if row is not None and row.status == "over":
            scores = await asyncio.to_thread(_score, hub, t, [slot])
            await asyncio.to_thread(store.record_round, t.id, slot.round, scores)
            continue
        if row is None or row.status == "open":
            await _open_table(hub, t, slot.round, slot.table_no, slot.seating, slot.table_id)
        playing.update(e for e in slot.seating if e is not None)
    ends = arena_ends(t)
    if ends is not None and now >= ends:
        if not playing and await asyncio.to_thread(store.finish, t.id):
            log.info("arena finished", extra={"fields": {"tournament": t.id, "tables": len(slots)}})
        return
    seatings = await asyncio.to_thread(_arena_queue, hub, t, slots, playing, now)
    if not seatings:
        return
    # The tables' numbers are the tournament's counter, moved with them in one transaction from the
    # number read before the tables were: a process that read an older state makes nothing, so nobody
    # is seated twice.
    made = await asyncio.to_thread(store.add_arena_tables, t.id, t.current_round, seatings)
    for slot in made or ():
        await _open_table(hub, t, slot.round, 1, slot.seating, slot.table_id)
        log.info("arena table seated", extra={"fields": {"tournament": t.id, "table": slot.round}})


# ---------------------------------------------------------------------- hooks


async def table_finished(hub: Hub, table: LiveTable) -> None:
    """A tournament table's game ended: the tournament may move on."""
    tid = table.options.get("tournament")
    if isinstance(tid, str):
        try:
            await advance(hub, tid)
        except Exception:
            log.exception("tournament step failed", extra={"fields": {"tournament": tid}})


async def seat_abandoned(hub: Hub, table: LiveTable, seat: int) -> None:
    """A bot took a tournament seat over: withdraw its entry (that seat earns nothing, see swiss.py)."""
    tid = table.options.get("tournament")
    if not isinstance(tid, str):
        return
    store = tournaments_of(hub)
    found = await asyncio.to_thread(store.slot_of, table.id)
    if found is None:
        return
    _tid, slot = found
    entry = slot.seating[seat] if seat < len(slot.seating) else None
    if entry is not None and await asyncio.to_thread(store.withdraw, tid, entry, slot.round):
        log.info("tournament entry withdrawn", extra={"fields": {"tournament": tid, "entry": entry}})


async def withdraw_entry(hub: Hub, t: Tournament, entry: int) -> None:
    """A player leaves a running tournament: withdrawn now, and a bot plays their current seat out."""
    store = tournaments_of(hub)
    await asyncio.to_thread(store.withdraw, t.id, entry, t.current_round)
    # The current round's table, and the next round's if it is being seated right now (not published yet).
    for slot in await asyncio.to_thread(store.tables, t.id):
        if (slot.round >= t.current_round or is_arena(t)) and entry in slot.seating:
            table = await hub.get(slot.table_id)
            if table is not None and table.status == "playing":
                seat = slot.seating.index(entry)
                if table.players[seat].kind == "human":
                    await hub.replace(table, seat)


async def embargoed(hub: Hub, options: dict[str, Any]) -> bool:
    """Whether a duplicate round's table is closed to spectators and public records (its round is not scored)."""
    emb = options.get("embargo")
    if not isinstance(emb, dict):
        return False
    t = await asyncio.to_thread(tournaments_of(hub).get, str(emb.get("tournament")))
    return t is not None and t.status == "running" and t.current_round <= int(emb.get("round", 0))


async def sweeper(hub: Hub, interval: float = SWEEP_SECONDS) -> None:
    """Every ``interval`` seconds, advance the running tournaments and start the scheduled ones."""
    while True:
        await asyncio.sleep(interval)
        try:
            now = time.time()
            ids = await asyncio.to_thread(tournaments_of(hub).due, now + arena_clock(hub).skew)
            for tid in ids:
                await advance(hub, tid)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("tournament sweep failed")
