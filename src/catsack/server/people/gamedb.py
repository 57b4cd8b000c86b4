"""The game database: every finished public game as monthly dumps of ``catsack/1`` records (docs/database.md).

**What goes in.** The games a stranger may read whole, as :mod:`catsack.server.people.gameaccess` decides for every
route: over, not private, and not a duplicate tournament round still played at other tables (such a game
comes in once its round is scored). Each is the record the public record route gives
(:func:`catsack.server.tables.retention.full_record`): everything that route and the replay's "all" perspective show
of a finished game, nothing else. A game a bot finished for a person is in, as its record shows it (the
``agents`` entry of that seat names the stand-in bot).

**Units.** A UTC day's games (by the time each game ended) are one gzip member of JSON lines, one record a line,
in the order the games ended (then by table id). A month's dump is its days' members one after another: one
gzip stream of several members, which every gzip reader (``zcat``, Python's ``gzip``) reads whole. The same
games always give the same bytes (no time stamp in the members), so a dump's SHA-256 names its contents.

**When.** A day is *closed* :data:`SETTLE_SECONDS` after it ends if none of its games is held back by an
embargo: it is written to the folder once (``days/YYYY-MM-DD.jsonl.gz`` and its ``.json``) and never built
again. A month whose days are all closed is written whole once (``catsack-YYYY-MM.jsonl.gz`` and
``catsack-YYYY-MM.json``) and its days' files go. The days still open (today, mostly) are rebuilt at most
every :data:`REFRESH_SECONDS`, so the work of a request is bounded by the games of the open days, whatever
the database holds; every process sharing the folder (``CATSACK_GAMEDB_DIR``) writes the same bytes, each
file under a temporary name renamed into place.

**The explorer's figures** are a :class:`~catsack.server.people.explorer.Tally` per day and month, kept beside the
dumps and added up (no scan of the games per request).
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from catsack.errors import CatsackError
from catsack.record import dumps_record
from catsack.server.people.explorer import Tally
from catsack.server.people.gameaccess import game_access
from catsack.server.storage.store import Store, tables_t
from catsack.server.tables.live import iso_time
from catsack.server.tables.retention import full_record

if TYPE_CHECKING:
    from catsack.server.tables.hub import Hub

__all__ = [
    "EMPTY",
    "FORMAT",
    "REFRESH_SECONDS",
    "SETTLE_SECONDS",
    "Day",
    "Dump",
    "DumpFolder",
    "Finished",
    "GameDatabase",
    "Listing",
    "MonthError",
    "Progress",
    "dump_name",
    "finished_between",
    "month_of",
    "parse_month",
    "write_dumps",
]

log = logging.getLogger("catsack.server.people.gamedb")

#: The format of the listing (``/api/database``) and of the metadata files beside the dumps.
FORMAT = "catsack-database/1"
#: A day's games are final this long after the day ends (the processes' clocks differ a little, and a move
#: made at midnight is committed a moment later).
SETTLE_SECONDS = 600.0
#: The days still open are rebuilt at most this often (the listing and the explorer are that fresh).
REFRESH_SECONDS = 60.0
#: The dump of a month without games: one empty gzip member (a file of no bytes is no gzip file).
EMPTY = gzip.compress(b"", compresslevel=9, mtime=0)
#: Games read from the database at once while a day is built.
CHUNK = 200

_MONTH = re.compile(r"(\d{4})-(\d{2})")

#: Called while dumps are built: ``(games done, games newly found to do)``, either may be 0.
Progress = Callable[[int, int], None]


class MonthError(CatsackError, ValueError):
    """A month that is not ``YYYY-MM`` (a year from 1970, a month 01 to 12); the message quotes it."""


def parse_month(text: str) -> str:
    """``text`` if it names a month as ``YYYY-MM``, else :class:`MonthError` naming what is wrong."""
    shown = repr(text[:20]) + ("…" if len(text) > 20 else "")
    found = _MONTH.fullmatch(text) if len(text) == 7 else None
    if found is None:
        raise MonthError(f"a month is written YYYY-MM (like 2026-11), not {shown}")
    year, month = int(found[1]), int(found[2])
    if not 1 <= month <= 12:
        raise MonthError(f"{shown}: the month must be 01 to 12, not {found[2]}")
    if year < 1970:
        raise MonthError(f"{shown}: the year must be 1970 or later")
    return text


def dump_name(month: str) -> str:
    """The file name of ``month``'s dump: ``catsack-2026-11.jsonl.gz``."""
    return f"catsack-{month}.jsonl.gz"


def month_of(epoch: float) -> str:
    """The UTC month of an epoch time, ``YYYY-MM``."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m")


def day_of(epoch: float) -> str:
    """The UTC day of an epoch time, ``YYYY-MM-DD``."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d")


def _start(day: date) -> float:
    return datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp()


def _days(month: str) -> list[date]:
    year, mon = int(month[:4]), int(month[5:])
    first = date(year, mon, 1)
    after = date(year + mon // 12, mon % 12 + 1, 1)
    return [first + timedelta(days=i) for i in range((after - first).days)]


def _next_month(month: str) -> str:
    year, mon = int(month[:4]), int(month[5:])
    return f"{year + mon // 12:04d}-{mon % 12 + 1:02d}"


def _months(first: str, last: str) -> list[str]:
    out = [first]
    while out[-1] < last:
        out.append(_next_month(out[-1]))
    return out


# ---------------------------------------------------------------------- reading the games


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished game as the listing query reads it: its table, when it ended, its options."""

    table_id: str
    finished: float
    options: Mapping[str, Any]


def finished_between(store: Store, start: float, end: float) -> list[Finished]:
    """The games that ended in ``[start, end)`` (epoch seconds), in the order they ended, then by table id."""
    query = (
        select(tables_t.c.id, tables_t.c.finished, tables_t.c.options)
        .where(tables_t.c.status == "over", tables_t.c.finished >= start, tables_t.c.finished < end)
        .order_by(tables_t.c.finished, tables_t.c.id)
    )
    with store.engine.connect() as conn:
        return [Finished(r.id, float(r.finished), json.loads(r.options)) for r in conn.execute(query)]


def first_finished(store: Store) -> float | None:
    """When the first game that is over ended (epoch seconds), ``None`` before any."""
    query = select(func.min(tables_t.c.finished)).where(tables_t.c.status == "over")
    with store.engine.connect() as conn:
        found = conn.execute(query).scalar()
    return None if found is None else float(found)


async def readable(hub: Hub, games: Sequence[Finished]) -> tuple[list[Finished], int]:
    """The games a stranger may read whole (:func:`catsack.server.people.gameaccess.game_access`, the one check of
    every route), and how many are held back for now by an embargo (private games are left out for good)."""
    public, held = [], 0
    for g in games:
        access = await game_access(hub, status="over", options=g.options, seats=())
        if access.whole is None:
            public.append(g)
        elif access.closed:
            held += 1
    return public, held


def build_day(store: Store, table_ids: Sequence[str], progress: Progress | None = None) -> tuple[bytes, int, Tally]:
    """One day's gzip member (JSON lines of the games' full records, in the given order), how many games it
    holds and their tally. A table deleted meanwhile (retention) is left out."""
    lines: list[str] = []
    tally = Tally()
    for table_id in table_ids:
        record = full_record(store, table_id)
        if record is not None:
            lines.append(dumps_record(record, indent=None))
            tally.add_record(record)
        if progress is not None:
            progress(1, 0)
    if not lines:
        return b"", 0, tally
    text = "\n".join(lines) + "\n"
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0), len(lines), tally


# ---------------------------------------------------------------------- days and months


@dataclass(frozen=True, slots=True)
class Day:
    """One UTC day's games: its gzip member, in memory (an open day) or in the folder (a closed one)."""

    day: str
    games: int
    size: int
    tally: Tally
    closed: bool
    data: bytes | None = None
    path: Path | None = None
    #: When it was built (epoch seconds, the database's clock), for an open day's refresh.
    built: float = 0.0


@dataclass(frozen=True, slots=True)
class Dump:
    """One month's dump: its games, size and SHA-256, and where its bytes are (one file, or its days)."""

    month: str
    games: int
    size: int
    sha256: str
    #: Every day of the month is closed: the dump never changes again.
    complete: bool
    tally: Tally
    #: The whole dump as one file (a complete month; ``catsack db dump``'s output).
    path: Path | None = None
    #: Otherwise its days in order (only those with games).
    days: tuple[Day, ...] = ()
    updated: float = 0.0

    @property
    def name(self) -> str:
        return dump_name(self.month)

    def public(self) -> dict[str, Any]:
        """The dump's entry in the listing."""
        return {
            "month": self.month,
            "file": self.name,
            "url": f"/api/database/{self.name}",
            "games": self.games,
            "bytes": self.size,
            "sha256": self.sha256,
            "complete": self.complete,
            "updated": iso_time(self.updated),
        }

    def open(self) -> list[Any]:
        """Its parts in order, files opened now (:class:`FileNotFoundError` if one went meanwhile: ask again)."""
        if self.path is not None:
            return [self.path.open("rb")]
        if not self.days:
            return [EMPTY]
        opened: list[Any] = []
        try:
            for d in self.days:
                opened.append(d.path.open("rb") if d.path is not None else d.data or b"")
        except OSError:
            for f in opened:
                if not isinstance(f, bytes):
                    f.close()
            raise
        return opened


def chunks(parts: Sequence[Any], size: int = 1 << 16) -> Iterator[bytes]:
    """The bytes of :meth:`Dump.open`'s parts, in pieces of at most ``size``; the files are closed at the end."""
    try:
        for part in parts:
            if isinstance(part, bytes):
                for i in range(0, len(part), size):
                    yield part[i : i + size]
                continue
            while piece := part.read(size):
                yield piece
    finally:
        for part in parts:
            if not isinstance(part, bytes):
                part.close()


def _digest(parts: Sequence[Any]) -> tuple[str, int]:
    h = hashlib.sha256()
    size = 0
    for piece in chunks(parts):
        h.update(piece)
        size += len(piece)
    return h.hexdigest(), size


class DumpFolder:
    """The folder of written dumps: complete months (``catsack-YYYY-MM.jsonl.gz`` with ``catsack-YYYY-MM.json``)
    and the closed days of months not complete yet (``days/YYYY-MM-DD.jsonl.gz`` with ``.json``). A file
    that exists is whole (written under a temporary name and renamed); a ``.json`` is written after its data.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.day_dir = root / "days"

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _read_meta(self, path: Path) -> dict[str, Any] | None:
        try:
            obj = json.loads(path.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("unreadable game database file, built again", extra={"fields": {"file": str(path)}})
            log.debug("reason: %s", exc)
            return None
        return obj if isinstance(obj, dict) and obj.get("format") == FORMAT else None

    # ---------------------------------------------------------------- days

    def closed_days(self, month: str) -> dict[str, Day]:
        """The closed days of ``month`` written here."""
        out: dict[str, Day] = {}
        if not self.day_dir.is_dir():
            return out
        for meta_path in sorted(self.day_dir.glob(f"{month}-??.json")):
            meta = self._read_meta(meta_path)
            data = meta_path.with_suffix(".jsonl.gz")
            if meta is None or not data.is_file():
                continue
            try:
                day = Day(
                    str(meta["day"]), int(meta["games"]), int(meta["bytes"]), Tally.from_json(meta["tally"]), True
                )
            except (KeyError, TypeError, ValueError):
                continue
            out[day.day] = replace(day, path=data)
        return out

    def write_day(self, day: str, data: bytes, games: int, tally: Tally) -> Day:
        path = self.day_dir / f"{day}.jsonl.gz"
        self._write(path, data)
        meta = {"format": FORMAT, "day": day, "games": games, "bytes": len(data), "tally": tally.to_json()}
        self._write(path.with_name(f"{day}.json"), json.dumps(meta, sort_keys=True).encode("utf-8"))
        return Day(day, games, len(data), tally, True, path=path)

    # ---------------------------------------------------------------- months

    def written_months(self) -> list[str]:
        """The months whose dump's metadata is here (complete or not), oldest first."""
        found = (p.name[len("catsack-") : -len(".json")] for p in self.root.glob("catsack-????-??.json"))
        return sorted(m for m in found if _MONTH.fullmatch(m))

    def month_path(self, month: str) -> Path:
        return self.root / dump_name(month)

    def complete_month(self, month: str) -> Dump | None:
        """``month``'s dump if it was written here whole and complete."""
        meta = self._read_meta(self.root / f"catsack-{month}.json")
        path = self.month_path(month)
        if meta is None or not meta.get("complete"):
            return None
        if meta.get("games") == 0:  # a month without public games: no file (the listing leaves it out)
            return Dump(month, 0, len(EMPTY), hashlib.sha256(EMPTY).hexdigest(), True, Tally())
        if not path.is_file():
            return None
        try:
            dump = Dump(
                month,
                int(meta["games"]),
                int(meta["bytes"]),
                str(meta["sha256"]),
                True,
                Tally.from_json(meta["tally"]),
                path=path,
                updated=float(meta["updated"]),
            )
        except (KeyError, TypeError, ValueError):
            return None
        return dump if path.stat().st_size == dump.size else None

    def write_month(self, dump: Dump) -> Dump:
        """Write ``dump`` whole (its days one after another) with its metadata; a complete month's days'
        files go (the empty days' too), and a complete month without games gets its metadata only. The dump
        as written."""
        path = self.month_path(dump.month)
        data = b"".join(chunks(dump.open()))
        sha = hashlib.sha256(data).hexdigest()
        written = not (dump.complete and dump.games == 0)  # an empty month is remembered by its metadata
        if written:
            self._write(path, data)
        meta = {
            "format": FORMAT,
            "month": dump.month,
            "file": dump.name,
            "games": dump.games,
            "bytes": len(data),
            "sha256": sha,
            "complete": dump.complete,
            "updated": dump.updated,
            "tally": dump.tally.to_json(),
        }
        self._write(self.root / f"catsack-{dump.month}.json", json.dumps(meta, sort_keys=True).encode("utf-8"))
        if dump.complete and self.day_dir.is_dir():
            for gone in self.day_dir.glob(f"{dump.month}-??.*"):
                with contextlib.suppress(OSError):
                    gone.unlink()
        return replace(dump, sha256=sha, size=len(data), path=path if written else None, days=())

    def write_sums(self, dumps: Sequence[Dump]) -> Path:
        """``SHA256SUMS`` for ``dumps`` (as ``sha256sum`` writes it: ``sha256sum -c SHA256SUMS`` checks them)."""
        path = self.root / "SHA256SUMS"
        self._write(path, "".join(f"{d.sha256}  {d.name}\n" for d in dumps).encode("ascii"))
        return path


# ---------------------------------------------------------------------- the database


@dataclass(frozen=True, slots=True)
class Listing:
    """The dumps as of ``at`` (epoch seconds), oldest first, and the explorer's tally over all of them."""

    at: float
    dumps: list[Dump] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)

    @property
    def games(self) -> int:
        return sum(d.games for d in self.dumps)


class GameDatabase:
    """The dumps of one server (or of ``catsack db dump``): built from the database through ``hub`` (its store
    and the read-access check), written to ``folder``, answered from memory between refreshes.

    ``clock``: epoch seconds (tests pass a fake one); ``refresh_seconds``: how long a listing is answered
    before the open days are looked at again (0: at every call, as the command does).
    """

    def __init__(
        self,
        hub: Hub,
        folder: Path,
        *,
        clock: Callable[[], float] = time.time,
        refresh_seconds: float = REFRESH_SECONDS,
    ) -> None:
        self.hub = hub
        self.folder = DumpFolder(folder)
        self.clock = clock
        self.refresh_seconds = refresh_seconds
        self._complete: dict[str, Dump] = {}
        self._open: dict[str, Day] = {}
        self._listing: Listing | None = None
        self._lock = asyncio.Lock()

    async def listing(self, progress: Progress | None = None) -> Listing:
        """Every month from the first game's to the current one, oldest first (past months without a public
        game left out), as of the last refresh; a refresh first if that is :attr:`refresh_seconds` old."""
        return await self._fresh(progress)

    async def dump(self, month: str, *, again: bool = False) -> Dump | None:
        """``month``'s dump (``None``: none listed); ``again``: look at the folder and the open days now (a file
        went: another process wrote the month whole, or an operator removed it)."""
        if again:
            self._listing = None
            self._complete.pop(month, None)
        return next((d for d in (await self._fresh(None)).dumps if d.month == month), None)

    async def _fresh(self, progress: Progress | None) -> Listing:
        now = self.clock()
        listing = self._listing
        if listing is not None and now - listing.at < self.refresh_seconds:
            return listing
        async with self._lock:
            listing = self._listing
            if listing is None or self.clock() - listing.at >= self.refresh_seconds:
                listing = self._listing = await self._refresh(self.clock(), progress)
        return listing

    async def _refresh(self, now: float, progress: Progress | None) -> Listing:
        store = self.hub.store
        first = await asyncio.to_thread(first_finished, store)
        current = month_of(now)
        months = _months(min(month_of(first), current) if first is not None else current, current)
        # Months written here whose games the database no longer holds (retention) stay listed.
        written = await asyncio.to_thread(self.folder.written_months)
        months = sorted(set(months) | {m for m in written if m < months[0]})
        out: list[Dump] = []
        for month in months:
            found = self._complete.get(month) or await asyncio.to_thread(self.folder.complete_month, month)
            if found is None:
                found = await self._month(month, now, progress)
                if found.complete:
                    found = await asyncio.to_thread(self.folder.write_month, found)
            if found.complete:
                self._complete[month] = found
            if found.games or month == current:
                out.append(found)
        return Listing(now, out, Tally.total(d.tally for d in out))

    async def _month(self, month: str, now: float, progress: Progress | None) -> Dump:
        """``month``'s dump from its closed days in the folder and its other days built now."""
        store = self.hub.store
        days = [d for d in _days(month) if _start(d) <= now]
        closed = await asyncio.to_thread(self.folder.closed_days, month)
        todo = [d for d in days if d.isoformat() not in closed]
        rows: dict[str, list[Finished]] = {}
        if todo:
            end = _start(_days(month)[-1] + timedelta(days=1))
            for g in await asyncio.to_thread(finished_between, store, _start(todo[0]), end):
                rows.setdefault(day_of(g.finished), []).append(g)
        built: dict[str, Day] = dict(closed)
        for d in todo:
            built[d.isoformat()] = await self._day(d, rows.get(d.isoformat(), []), now, progress)
        parts = tuple(built[d.isoformat()] for d in days if built[d.isoformat()].games)
        month_over = now >= _start(_days(month)[-1] + timedelta(days=1)) + SETTLE_SECONDS
        complete = month_over and all(built[d.isoformat()].closed for d in days)
        dump = Dump(month, sum(p.games for p in parts), 0, "", complete, Tally.total(p.tally for p in parts))
        dump = replace(dump, days=parts, updated=now)
        sha, size = await asyncio.to_thread(_digest, dump.open())
        return replace(dump, sha256=sha, size=size)

    async def _day(self, day: date, games: list[Finished], now: float, progress: Progress | None) -> Day:
        key = day.isoformat()
        settled = _start(day + timedelta(days=1)) + SETTLE_SECONDS
        cached = self._open.get(key)
        if (
            cached is not None
            and now - cached.built < self.refresh_seconds
            and (now < settled or cached.built >= settled)
        ):
            return cached
        public, held = await readable(self.hub, games)
        if progress is not None:
            progress(0, len(public))
        ids = [g.table_id for g in public]
        data, count, tally = await asyncio.to_thread(build_day, self.hub.store, ids, progress)
        if now >= settled and held == 0:
            self._open.pop(key, None)
            return await asyncio.to_thread(self.folder.write_day, key, data, count, tally)
        found = Day(key, count, len(data), tally, False, data=data, built=now)
        self._open[key] = found
        return found


async def write_dumps(db: GameDatabase, progress: Progress | None = None) -> list[Dump]:
    """Every dump of ``db`` written whole to its folder (``catsack db dump``): complete months once, as the
    server writes them; the current month (and a past one a running embargo holds open) as it is now, its
    metadata saying it is not complete (a server sharing the folder builds those from their days itself)."""
    listing = await db.listing(progress)
    out = []
    for dump in listing.dumps:
        out.append(dump if dump.path is not None else await asyncio.to_thread(db.folder.write_month, dump))
    return out
