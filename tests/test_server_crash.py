"""``kill -9`` of a real server mid-game and turn timers across a restart.

One ``catsack serve`` process, on a SQLite file in tmp_path and again on PostgreSQL (a schema of its
own). WebSocket clients play random legal moves at a table of two people and two bots and at a table
of three people, and record every ``ack`` and every ``state`` frame. The server is SIGKILLed at random
moments, restarted on the same database, and every client reconnects with
``hello {since: last version}``. After each restart:

- the state is at least as new as anything the client saw or was acknowledged, and its history begins
  with exactly the moves the client saw (a placement shown as ``place ?`` may since have been turned up);
- nothing is re-dealt: the seat's removed card is the same and its hand is the old hand minus the
  cards it placed since;
- a move whose ack was lost in the crash, sent again with the same ``action_id``, is answered once.

At the end every game is over, the action log has versions 1..N, every acknowledged action and every
version any client saw is in it, and no acknowledged action was lost. A third table with a 10 s turn
timer is created first: its deadline is in the database, is the same after the restarts, and a bot
plays for the absent seat shortly after it (the timer fires although the server that set it was killed).

``CATSACK_CRASH_SEED`` replays a run (the seed is printed).
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from server_procs import ServerProc, WsClient, postgres_schema

pytest.importorskip("fastapi", reason="the server extra (fastapi, uvicorn, sqlalchemy) is not installed")
pytest.importorskip("websockets", reason="websockets is not installed")
sqlalchemy = pytest.importorskip("sqlalchemy", reason="the server extra is not installed")

KILLS = 6
TURN_SECONDS = 10  # the HTTP API's minimum
HIDDEN = "place ?"


@dataclass
class Seat:
    """One human seat driven by a test client; what it saw survives the client's reconnects."""

    table: str
    seat: int
    client: WsClient
    acked: dict[str, tuple[int, str]] = field(default_factory=dict)  # action id -> (version after, move)
    pending: tuple[str, int, str] | None = None  # (action id, version, move) sent, not yet answered
    tried: set[int] = field(default_factory=set)  # versions this seat already sent a move against
    resent_applied: int = 0  # pending moves whose resend was acked (the first send or the resend won)
    resent_refused: int = 0


@dataclass
class Figures:
    kills: int = 0
    acked: int = 0
    lost: int = 0
    resent_applied: int = 0
    resent_refused: int = 0
    reconnects: int = 0
    restart_seconds: list[float] = field(default_factory=list)
    moves: int = 0


def same_history(before: list[list[Any]], after: list[list[Any]]) -> str | None:
    """Why ``after`` does not begin with ``before`` (a hidden placement may have been turned up), or None."""
    if len(after) < len(before):
        return f"history shrank from {len(before)} to {len(after)} moves"
    for i, (b, a) in enumerate(zip(before, after, strict=False)):
        if b[0] != a[0] or (b[1] != a[1] and not (b[1] == HIDDEN and str(a[1]).startswith("place "))):
            return f"move {i + 1} was {b} and is now {a}"
    return None


def own_placements(history: list[list[Any]], seat: int, start: int) -> Counter[str]:
    return Counter(t.removeprefix("place ") for s, t in history[start:] if s == seat and t.startswith("place "))


async def autoplay(p: Seat, rng: random.Random) -> None:
    """Play random legal moves for ``p`` until the game ends or the connection drops."""
    c = p.client

    def my_turn_or_over() -> bool:
        st = c.latest
        if st is None:
            return False
        if st["table_status"] == "over":
            return True
        return st["view"]["to_move"] == p.seat and st["version"] not in p.tried and bool(st["view"]["legal"])

    try:
        while True:
            await c.wait(my_turn_or_over, timeout=60)
            st = c.latest
            assert st is not None
            if st["table_status"] == "over":
                return
            version = int(st["version"])
            p.tried.add(version)
            await asyncio.sleep(rng.uniform(0.0, 0.04))
            text = rng.choice(st["view"]["legal"])
            aid = f"t{p.table}-s{p.seat}-v{version}-{rng.randrange(10**9)}"
            p.pending = (aid, version, text)
            answer = await c.move(text, version, aid, timeout=30)
            p.pending = None
            if answer["type"] == "ack":
                assert answer["version"] == version + 1, answer
                p.acked[aid] = (version + 1, text)
            else:
                assert answer["code"] in ("stale", "not_your_turn", "game_over"), answer
    except ConnectionError:
        return


def check_resumed(p: Seat, before: dict[str, Any], now: dict[str, Any]) -> None:
    """Nothing seen is lost by a crash, for one seat: ``now`` (the first state after the restart) keeps
    all ``before`` showed."""
    where = f"table {p.table} seat {p.seat}"
    vb, vn = before["version"], now["version"]
    assert vn >= vb, f"{where}: version went back from {vb} to {vn}"
    newest_ack = max((v for v, _ in p.acked.values()), default=0)
    assert vn >= newest_ack, f"{where}: acknowledged version {newest_ack} lost (now {vn})"
    hb, hn = before["view"]["history"], now["view"]["history"]
    assert len(hn) == vn, f"{where}: {len(hn)} moves in the history at version {vn}"
    why = same_history(hb, hn)
    assert why is None, f"{where}: {why}"
    for aid, (v, text) in p.acked.items():
        assert hn[v - 1] == [p.seat, text], f"{where}: acked {aid} ({text} -> v{v}) is now {hn[v - 1]}"
    # Nothing re-dealt: the same removed card, and the hand is the old one less what the seat placed since.
    assert now["view"]["removed"] == before["view"]["removed"], f"{where}: removed card changed"
    expected = Counter(before["view"]["hand"]) - own_placements(hn, p.seat, vb)
    assert Counter(now["view"]["hand"]) == expected, f"{where}: hand {now['view']['hand']} expected {expected}"
    # The events are exactly what was missed: versions after `since`, none twice.
    for ev in now["events"]:
        assert vb < ev["version"] <= vn, f"{where}: event {ev} outside ({vb}, {vn}]"


async def resend_pending(p: Seat) -> None:
    """A move sent just before the kill, without an answer: send it again with the same id."""
    if p.pending is None:
        return
    aid, version, text = p.pending
    p.pending = None
    answer = await p.client.move(text, version, aid, timeout=15)
    if answer["type"] == "ack":
        assert answer["version"] == version + 1, answer
        p.acked[aid] = (version + 1, text)
        p.resent_applied += 1
    else:
        assert answer["code"] in ("stale", "not_your_turn", "game_over"), answer
        p.resent_refused += 1


def db_rows(url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` read straight from the server's database (not through the server)."""
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sqlalchemy.text(sql), params)]
    finally:
        engine.dispose()


def iso_epoch(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


async def scenario(tmp_path: Path, url: str, rng: random.Random, figures: Figures) -> None:
    server = ServerProc(
        tmp_path,
        {
            "CATSACK_DATABASE_URL": url,
            "CATSACK_BOT_DELAY": "0.02",
            "CATSACK_SWEEP_SECONDS": "0.5",
            "CATSACK_GRACE_SECONDS": "600",
        },
        name="crash",
    )
    try:
        await asyncio.to_thread(server.start)
        await run(server, url, rng, figures)
    except BaseException:
        print(server.tail(60))
        raise
    finally:
        server.stop()


async def run(server: ServerProc, db: str, rng: random.Random, figures: Figures) -> None:
    # Timers are stored: a timer table. Nobody moves there; the seat to move is played by the timer.
    timer = server.create_table(seats=3, turn_seconds=TURN_SECONDS, name="timer")["table"]
    for s in range(3):
        server.join(timer, f"T{s}")
    watcher = WsClient(server.ws_url, timer, None, label="timer-watch")
    first = await watcher.connect()
    (deadline,) = db_rows(db, "SELECT deadline FROM tables WHERE id = :t", t=timer)[0]
    assert deadline is not None, "the turn timer's deadline is not stored in the database"
    assert first["deadline"] is not None and abs(iso_epoch(first["deadline"]) - deadline) < 1.0
    assert TURN_SECONDS - 2 < deadline - time.time() <= TURN_SECONDS

    seats: list[Seat] = []
    tables: list[str] = []

    async def new_tables() -> None:
        mixed = server.create_table(seats=4, bots={"2": "heuristic", "3": "random"}, name="mixed")["table"]
        people = server.create_table(seats=3, name="people")["table"]
        for table, humans in ((mixed, (0, 1)), (people, (0, 1, 2))):
            tables.append(table)
            for s in humans:
                token = server.join(table, f"P{s}", s)["token"]
                seat = Seat(table, s, WsClient(server.ws_url, table, token, label=f"{table}/{s}"))
                await seat.client.connect()
                assert seat.client.seat == s
                seats.append(seat)

    await new_tables()
    while figures.kills < KILLS:
        live = [p for p in seats if p.client.latest is None or p.client.latest["table_status"] != "over"]
        if not live:  # every game ended before enough kills: start two more
            await new_tables()
            continue
        players = [asyncio.create_task(autoplay(p, rng)) for p in seats]
        await asyncio.sleep(rng.uniform(0.15, 1.2))
        await asyncio.to_thread(server.kill9)
        figures.kills += 1
        await asyncio.wait_for(asyncio.gather(*players), 20)
        for c in [watcher, *(p.client for p in seats)]:
            if c.reader is not None:
                await asyncio.wait_for(c.reader, 5)
        before = {id(p): p.client.latest for p in seats}
        watched_before = watcher.latest
        t0 = time.monotonic()
        await asyncio.to_thread(server.start)
        figures.restart_seconds.append(time.monotonic() - t0)
        for p in seats:
            seen = before[id(p)]
            assert seen is not None
            now = await p.client.connect(since=seen["version"])
            figures.reconnects += 1
            check_resumed(p, seen, now)
            await resend_pending(p)
        assert watched_before is not None
        now = await watcher.connect(since=watched_before["version"])
        if now["version"] == 0:  # the timer has not fired yet: the same stored deadline, not a fresh one
            assert now["deadline"] == first["deadline"], (now["deadline"], first["deadline"])
            # Read in one statement with "still no move": the timer may fire between the hello and this read,
            # and the next turn's deadline is then rightly a fresh one.
            stored = db_rows(
                db,
                "SELECT deadline FROM tables WHERE id = :t"
                " AND NOT EXISTS (SELECT 1 FROM actions WHERE actions.table_id = :t)",
                t=timer,
            )
            assert not stored or stored[0][0] == deadline, (stored, deadline)

    # Play every game to its end.
    players = [asyncio.create_task(autoplay(p, rng)) for p in seats]
    await asyncio.wait_for(asyncio.gather(*players), 60)
    for p in seats:
        await p.client.wait(lambda c=p.client: c.latest is not None and c.latest["table_status"] == "over", 30)

    # The stored timer fired for the absent seat after the stored deadline, never before it, and
    # survived the kills. How soon after depends on the machine's load: 60 s bounds a failure only.
    await watcher.wait(lambda: watcher.version >= 1, timeout=max(1.0, deadline + 60 - time.time()))
    actor, created = db_rows(db, "SELECT actor, created FROM actions WHERE table_id = :t AND version = 1", t=timer)[0]
    assert actor == "timer", actor
    assert deadline - 0.05 <= created <= deadline + 60, f"timer move at {created - deadline:+.2f} s from the deadline"

    # At the end the action log holds every version seen and every action acknowledged.
    for table in tables:
        record = server.get_json(f"/api/tables/{table}/record")
        rows = db_rows(
            db, "SELECT version, seat, move, action_id FROM actions WHERE table_id = :t ORDER BY version", t=table
        )
        assert [r[0] for r in rows] == list(range(1, len(rows) + 1)), f"table {table}: versions not contiguous"
        assert [r[2] for r in rows] == record["moves"], f"table {table}: record and action log differ"
        figures.moves += len(rows)
        by_version = {r[0]: r for r in rows}
        for p in (p for p in seats if p.table == table):
            for aid, (v, text) in p.acked.items():
                figures.acked += 1
                row = by_version.get(v)
                if row is None or row[1:] != (p.seat, text, aid):
                    figures.lost += 1
            for st in p.client.states:
                why = same_history(st["view"]["history"], [[r[1], r[2]] for r in rows])
                assert why is None, f"table {table} seat {p.seat}, state v{st['version']}: {why}"
                assert st["view"]["removed"] == record["removed"][p.seat], "a removed card was re-dealt"
            figures.resent_applied += p.resent_applied
            figures.resent_refused += p.resent_refused
    for c in [watcher, *(p.client for p in seats)]:
        await c.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
@pytest.mark.slow
def test_kill_9_loses_nothing_and_timers_survive(backend: str, tmp_path: Path) -> None:
    """A kill -9 mid-game keeps every action seen and re-deals nothing, and timers are stored.

    On SQLite (a file in tmp_path) and on PostgreSQL (``CATSACK_TEST_POSTGRES_URL`` or the local ``test``
    database, in a schema of its own).
    """
    seed = int(os.environ.get("CATSACK_CRASH_SEED") or random.randrange(10**6))
    figures = Figures()
    t0 = time.monotonic()
    with ExitStack() as stack:
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / 'catsack.db'}"
        else:
            url, _schema = stack.enter_context(postgres_schema())
        try:
            asyncio.run(scenario(tmp_path, url, random.Random(seed), figures))
        finally:
            print(
                f"\nkill -9 run on {backend} (CATSACK_CRASH_SEED={seed}): {figures.kills} kills, "
                f"{figures.reconnects} reconnects, "
                f"{figures.moves} moves in the logs, {figures.acked} actions acknowledged, {figures.lost} lost; "
                f"unanswered moves resent after a kill: {figures.resent_applied} acked, "
                f"{figures.resent_refused} refused; restarts took "
                f"{', '.join(f'{s:.1f}' for s in figures.restart_seconds)} s; {time.monotonic() - t0:.1f} s in all"
            )
    assert figures.kills >= 5
    assert figures.acked > 0
    assert figures.lost == 0
