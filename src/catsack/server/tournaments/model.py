"""Tournaments in the database: the tournament, its entries, its tables by round, its results.

Revision ``0007`` creates the tables (``0017`` adds a round's deadline to its tables). Every
step that two server processes could both take is decided by the database: a round starts by moving ``current_round``
from ``r`` to ``r + 1`` only where it is still ``r``; a round's tables and results
have ``(tournament, round, …)`` keys, so a second writer fails instead of doubling
them. The methods are synchronous (the server calls them in a worker thread).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from catsack.server.storage.store import metadata
from catsack.server.tables.turnbased import DEFAULT_BANK_HOURS, TurnBased
from catsack.server.tournaments.swiss import RoundScore

__all__ = [
    "PACES",
    "Entry",
    "TableSlot",
    "Tournament",
    "TournamentError",
    "Tournaments",
    "realtime_table",
    "round_hours",
    "turnbased_table",
]


def realtime_table(options: dict[str, Any]) -> tuple[int | None, dict[str, Any]]:
    """A real-time table: a turn timer of ``turn_seconds`` per move (a bot moves when it runs out)."""
    seconds = options.get("turn_seconds")
    return (int(seconds) if seconds else None), {}


def turnbased_table(options: dict[str, Any]) -> tuple[int | None, dict[str, Any]]:
    """A turn-based table (:mod:`catsack.server.tables.turnbased`): ``move_hours`` per move and a bank of
    ``bank_hours``; the runner adds the round's deadline as the clock's hard stop."""
    tb = TurnBased(int(options.get("move_hours") or 24), int(options.get("bank_hours", DEFAULT_BANK_HOURS)))
    return None, {"turn_based": tb.options()}


def round_hours(options: dict[str, Any]) -> float | None:
    """How long a round of a turn-based tournament lasts, in hours (``None``: no deadline)."""
    hours = options.get("round_hours")
    return float(hours) if options.get("pace") == "turnbased" and hours else None


#: How fast a tournament's games go: pace -> what its tables get from the tournament's options, as
#: ``(turn_seconds, extra table options)``: real time (a turn timer of seconds), or turn-based (hours
#: per move and a time bank, rounds with a deadline, see docs/tournaments.md). Seating, scoring and
#: withdrawal are the same for every pace.
PACES: dict[str, Callable[[dict[str, Any]], tuple[int | None, dict[str, Any]]]] = {
    "realtime": realtime_table,
    "turnbased": turnbased_table,
}

tournaments_t = Table(
    "tournaments",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("status", String(12), nullable=False),  # upcoming | running | finished | cancelled
    Column("seats", Integer, nullable=False),
    Column("rounds", Integer, nullable=False),
    Column("options", Text, nullable=False),  # JSON: pace, turn_seconds, rated, duplicate, filler, min_finished, seed
    Column("creator", Integer, nullable=True),  # the account that made it; NULL: the operator
    Column("created", Float, nullable=False),
    Column("starts", Float, nullable=True),  # epoch seconds it starts by itself (NULL: when its creator starts it)
    Column("started", Float, nullable=True),
    Column("finished", Float, nullable=True),
    Column("current_round", Integer, nullable=False),
)

entries_t = Table(
    "tournament_entries",
    metadata,
    Column("tournament_id", String(16), primary_key=True),
    Column("entry", Integer, primary_key=True),  # 1, 2, … in the order of entering
    Column("user_id", Integer, nullable=True),  # an account's entry
    Column("bot", String(40), nullable=True),  # a bot level's entry
    Column("name", String(40), nullable=False),
    Column("created", Float, nullable=False),
    Column("withdrawn", Float, nullable=True),
    Column("withdrawn_round", Integer, nullable=True),
)
Index("tournament_entries_one_per_account", entries_t.c.tournament_id, entries_t.c.user_id, unique=True)

tournament_tables_t = Table(
    "tournament_tables",
    metadata,
    Column("tournament_id", String(16), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("table_no", Integer, primary_key=True),
    Column("table_id", String(32), nullable=False, index=True),
    Column("seating", Text, nullable=False),  # JSON: per seat the entry number, null for a filler bot
    Column("deadline", Float, nullable=True),  # epoch seconds the round ends (turn-based); NULL: none
)

results_t = Table(
    "tournament_results",
    metadata,
    Column("tournament_id", String(16), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("entry", Integer, primary_key=True),
    Column("table_no", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Column("points", Float, nullable=False),
    Column("score", Integer, nullable=False),
    Column("cats", Integer, nullable=False),
    Column("win", Float, nullable=False),
    Column("abandoned", Boolean, nullable=False),
)


class TournamentError(ValueError):
    """A refused tournament request: a stable code, a message and the HTTP status to answer with."""

    def __init__(self, code: str, message: str, status: int = 409, params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.params = params or {}


@dataclass(frozen=True, slots=True)
class Tournament:
    id: str
    name: str
    status: str
    seats: int
    rounds: int
    options: dict[str, Any]
    creator: int | None
    created: float
    starts: float | None
    started: float | None
    finished: float | None
    current_round: int

    @property
    def duplicate(self) -> bool:
        return bool(self.options.get("duplicate"))


@dataclass(frozen=True, slots=True)
class Entry:
    entry: int
    user_id: int | None
    bot: str | None
    name: str
    withdrawn: float | None
    withdrawn_round: int | None
    created: float = 0.0  # when it entered (epoch seconds)


@dataclass(frozen=True, slots=True)
class TableSlot:
    round: int
    table_no: int
    table_id: str
    seating: list[int | None]
    deadline: float | None = None  # when the round ends (a turn-based tournament's), epoch seconds


def _tournament(r: Any) -> Tournament:
    return Tournament(
        r.id,
        r.name,
        r.status,
        r.seats,
        r.rounds,
        json.loads(r.options),
        r.creator,
        r.created,
        r.starts,
        r.started,
        r.finished,
        r.current_round,
    )


def _open_for_entries(status: str, options: dict[str, Any], started: float | None, now: float) -> bool:
    """Entries are open before the start, and in an arena also while its window is open."""
    if status == "upcoming":
        return True
    if status != "running" or options.get("format") != "arena" or started is None:
        return False
    return now < started + 60.0 * float(options.get("minutes") or 0)


class Tournaments:
    """Tournament rows in the server's database (``engine`` is the store's)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # ------------------------------------------------------------------ writes

    def create(
        self,
        name: str,
        seats: int,
        rounds: int,
        options: dict[str, Any],
        *,
        creator: int | None,
        starts: float | None = None,
        bots: Sequence[str] = (),
    ) -> Tournament:
        """A new upcoming tournament (with bot entries of the given levels, named by level and number)."""
        tid = secrets.token_urlsafe(6)
        now = time.time()
        opts = {**options, "seed": secrets.randbits(63)}  # deals of its rounds; never leaves the server
        with self.engine.begin() as conn:
            conn.execute(
                insert(tournaments_t).values(
                    id=tid,
                    name=name,
                    status="upcoming",
                    seats=seats,
                    rounds=rounds,
                    options=json.dumps(opts),
                    creator=creator,
                    created=now,
                    starts=starts,
                    started=None,
                    finished=None,
                    current_round=0,
                )
            )
            for i, level in enumerate(bots, start=1):
                conn.execute(
                    insert(entries_t).values(
                        tournament_id=tid, entry=i, user_id=None, bot=level, name=f"{level} {i}", created=now
                    )
                )
        found = self.get(tid)
        assert found is not None
        return found

    def enter(self, tid: str, user_id: int, name: str, limit: int, now: float | None = None) -> int:
        """Enter an account (before the start; an arena also while its window is open); its entry number.
        Refused when it entered already or the entry list is full. ``now``: the time (default: the clock's)."""
        for _ in range(5):  # two entering at once take the same number: the key refuses one, it tries again
            try:
                with self.engine.begin() as conn:
                    t = conn.execute(
                        select(tournaments_t.c.status, tournaments_t.c.options, tournaments_t.c.started).where(
                            tournaments_t.c.id == tid
                        )
                    ).first()
                    if t is None or not _open_for_entries(
                        t.status, json.loads(t.options), t.started, time.time() if now is None else now
                    ):
                        raise TournamentError("not_upcoming", "entries are open only before the tournament starts")
                    n = conn.execute(select(func.count()).where(entries_t.c.tournament_id == tid)).scalar() or 0
                    if n >= limit:
                        raise TournamentError("entries_full", f"the tournament is full ({limit} entries)")
                    number = (
                        conn.execute(
                            select(func.max(entries_t.c.entry)).where(entries_t.c.tournament_id == tid)
                        ).scalar()
                        or 0
                    ) + 1
                    conn.execute(
                        insert(entries_t).values(
                            tournament_id=tid, entry=number, user_id=user_id, bot=None, name=name, created=time.time()
                        )
                    )
                    return int(number)
            except IntegrityError:
                if self.entry_of(tid, user_id) is not None:
                    raise TournamentError("entered", "you entered this tournament already") from None
        raise TournamentError("busy", "too many people entered at once; try again", 503)

    def leave(self, tid: str, user_id: int) -> None:
        """Take an account's entry back before the start (afterwards it is withdrawn instead)."""
        from sqlalchemy import delete

        with self.engine.begin() as conn:
            conn.execute(
                delete(entries_t).where(
                    entries_t.c.tournament_id == tid,
                    entries_t.c.user_id == user_id,
                    select(tournaments_t.c.status).where(tournaments_t.c.id == tid).scalar_subquery() == "upcoming",
                )
            )

    def withdraw(self, tid: str, entry: int, round_no: int) -> bool:
        """Withdraw an entry from the rounds after ``round_no``; ``False`` if it was withdrawn already."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(entries_t)
                .where(entries_t.c.tournament_id == tid, entries_t.c.entry == entry, entries_t.c.withdrawn.is_(None))
                .values(withdrawn=time.time(), withdrawn_round=round_no)
            )
        return res.rowcount == 1

    def start(self, tid: str) -> bool:
        """Upcoming -> running (round 0: the first round is about to be seated); ``False`` if not upcoming."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == tid, tournaments_t.c.status == "upcoming")
                .values(status="running", started=time.time(), current_round=0)
            )
        return res.rowcount == 1

    def schedule(self, tid: str, when: float) -> bool:
        """Set an upcoming tournament's start time (a running server starts it at its next sweep)."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == tid, tournaments_t.c.status == "upcoming")
                .values(starts=when)
            )
        return res.rowcount == 1

    def next_round(self, tid: str, was: int, then: Callable[[Connection], object] | None = None) -> bool:
        """Move the running tournament from round ``was`` to ``was + 1`` (publish it); ``False`` if another
        did. ``then`` runs in the same transaction when this call moved it, so what it writes (the round's
        mails) is written exactly once, with the round."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(tournaments_t)
                .where(
                    tournaments_t.c.id == tid, tournaments_t.c.status == "running", tournaments_t.c.current_round == was
                )
                .values(current_round=was + 1)
            )
            if res.rowcount == 1 and then is not None:
                then(conn)
        return res.rowcount == 1

    def finish(self, tid: str, status: str = "finished") -> bool:
        with self.engine.begin() as conn:
            res = conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == tid, tournaments_t.c.status.in_(("upcoming", "running")))
                .values(status=status, finished=time.time())
            )
        return res.rowcount == 1

    def add_tables(
        self, tid: str, round_no: int, seatings: Sequence[Sequence[int | None]], deadline: float | None = None
    ) -> list[TableSlot]:
        """The slots of a round's tables (numbered from 1): all made now, with fresh table ids and the
        round's ``deadline``, in one transaction, or all those another process (or an earlier try) made
        before: a round is never seated half one way and half another, nor with two deadlines."""
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(tournament_tables_t),
                    [
                        {
                            "tournament_id": tid,
                            "round": round_no,
                            "table_no": table_no,
                            "table_id": secrets.token_urlsafe(6),
                            "seating": json.dumps(list(seating)),
                            "deadline": deadline,
                        }
                        for table_no, seating in enumerate(seatings, start=1)
                    ],
                )
        except IntegrityError:
            pass
        return self.tables(tid, round_no)

    def add_arena_tables(self, tid: str, was: int, seatings: Sequence[Sequence[int | None]]) -> list[TableSlot] | None:
        """An arena's new tables, numbered ``was + 1``, ``was + 2``, … (one slot each): made with the move
        of the tournament's counter from ``was`` in one transaction, so they are made only from the state
        the caller read at ``was``; ``None`` (nothing made) where another process moved it meanwhile."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(tournaments_t)
                .where(
                    tournaments_t.c.id == tid, tournaments_t.c.status == "running", tournaments_t.c.current_round == was
                )
                .values(current_round=was + len(seatings))
            )
            if res.rowcount != 1:
                return None
            made = [
                TableSlot(was + i, 1, secrets.token_urlsafe(6), list(seating))
                for i, seating in enumerate(seatings, start=1)
            ]
            if made:
                conn.execute(
                    insert(tournament_tables_t),
                    [
                        {
                            "tournament_id": tid,
                            "round": slot.round,
                            "table_no": 1,
                            "table_id": slot.table_id,
                            "seating": json.dumps(slot.seating),
                            "deadline": None,
                        }
                        for slot in made
                    ],
                )
        return made

    def record_round(self, tid: str, round_no: int, scores: Sequence[RoundScore]) -> bool:
        """Store a round's results once; ``False`` if they were stored already."""
        try:
            with self.engine.begin() as conn:
                if scores:
                    conn.execute(
                        insert(results_t),
                        [
                            {
                                "tournament_id": tid,
                                "round": round_no,
                                "entry": s.entry,
                                "table_no": s.table,
                                "seat": s.seat,
                                "place": s.place,
                                "points": s.points,
                                "score": s.score,
                                "cats": s.cats,
                                "win": s.win,
                                "abandoned": s.abandoned,
                            }
                            for s in scores
                        ],
                    )
        except IntegrityError:
            return False
        return True

    # ------------------------------------------------------------------ reads

    def get(self, tid: str) -> Tournament | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(tournaments_t).where(tournaments_t.c.id == tid)).first()
        return None if r is None else _tournament(r)

    def listing(self, limit: int = 50) -> list[Tournament]:
        """Upcoming and running tournaments, and the newest finished ones."""
        with self.engine.connect() as conn:
            live = conn.execute(
                select(tournaments_t)
                .where(tournaments_t.c.status.in_(("upcoming", "running")))
                .order_by(tournaments_t.c.created.desc())
                .limit(limit)
            ).all()
            done = conn.execute(
                select(tournaments_t)
                .where(tournaments_t.c.status.in_(("finished", "cancelled")))
                .order_by(tournaments_t.c.finished.desc())
                .limit(limit)
            ).all()
        return [_tournament(r) for r in [*live, *done]]

    def due(self, now: float) -> list[str]:
        """Tournaments the server must look after: running ones, and upcoming ones whose start time passed."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tournaments_t.c.id).where(
                    (tournaments_t.c.status == "running")
                    | ((tournaments_t.c.status == "upcoming") & (tournaments_t.c.starts <= now))
                )
            ).all()
        return [r.id for r in rows]

    def entries(self, tid: str) -> list[Entry]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(entries_t).where(entries_t.c.tournament_id == tid).order_by(entries_t.c.entry)
            ).all()
        return [Entry(r.entry, r.user_id, r.bot, r.name, r.withdrawn, r.withdrawn_round, r.created) for r in rows]

    def entry_of(self, tid: str, user_id: int) -> int | None:
        with self.engine.connect() as conn:
            n = conn.execute(
                select(entries_t.c.entry).where(entries_t.c.tournament_id == tid, entries_t.c.user_id == user_id)
            ).scalar()
        return None if n is None else int(n)

    def created_since(self, user_id: int, since: float) -> int:
        with self.engine.connect() as conn:
            n = conn.execute(
                select(func.count()).where(tournaments_t.c.creator == user_id, tournaments_t.c.created >= since)
            ).scalar()
        return int(n or 0)

    def tables(self, tid: str, round_no: int | None = None) -> list[TableSlot]:
        q = select(tournament_tables_t).where(tournament_tables_t.c.tournament_id == tid)
        if round_no is not None:
            q = q.where(tournament_tables_t.c.round == round_no)
        with self.engine.connect() as conn:
            rows = conn.execute(q.order_by(tournament_tables_t.c.round, tournament_tables_t.c.table_no)).all()
        return [TableSlot(r.round, r.table_no, r.table_id, json.loads(r.seating), r.deadline) for r in rows]

    def slot_of(self, table_id: str) -> tuple[str, TableSlot] | None:
        """The tournament and slot a game table belongs to."""
        with self.engine.connect() as conn:
            r = conn.execute(select(tournament_tables_t).where(tournament_tables_t.c.table_id == table_id)).first()
        return (
            None
            if r is None
            else (r.tournament_id, TableSlot(r.round, r.table_no, r.table_id, json.loads(r.seating), r.deadline))
        )

    def results(self, tid: str) -> dict[int, list[RoundScore]]:
        """Stored results by round."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(results_t).where(results_t.c.tournament_id == tid).order_by(results_t.c.round, results_t.c.entry)
            ).all()
        out: dict[int, list[RoundScore]] = {}
        for r in rows:
            out.setdefault(r.round, []).append(
                RoundScore(
                    r.entry, r.table_no, r.seat, r.place, r.points, r.score, r.cats, r.win, bool(r.abandoned), r.round
                )
            )
        return out
