"""Tables in memory: a table's game, players and connections, and the frames built for them.

What leaves the server for a receiver is built by :func:`state_frame` (or its encoded form,
:meth:`LiveTable.state_bytes`) from that receiver's view (R23) and public events only.
Identifiers never follow a card (there are none: cards travel as tokens once face up).
:class:`~catsack.server.tables.hub.Hub` holds the live tables of a process and changes them.

After a move every connection of a table needs a state frame. Most of it is the same for all of
them: the fields of the view outside :data:`~catsack.view.SEAT_FIELDS` (encoded once per version
from the spectator's view, :class:`ViewTemplate`), the events and the seat list. Each receiver adds
only its own view's seat fields. A connection writes what is pending once per turn of the event loop,
straight to the socket where the server allows it (:attr:`Conn.write`).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from catsack.bots.base import Bot
from catsack.cards import Card
from catsack.events import Event
from catsack.game import Game
from catsack.narrative import describe_event
from catsack.record import Record, record_from_game, redact
from catsack.server.storage.store import ActionRow, SeatRow, TableRow
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.turnbased import Clock, TurnBased, clock_of
from catsack.setup import Setup
from catsack.view import VIEW_KEYS, View, round_to_dict

__all__ = [
    "MAX_EVENTS",
    "PROTOCOL",
    "Conn",
    "LiveTable",
    "Player",
    "TableError",
    "ViewTemplate",
    "error_frame",
    "event_dict",
    "events_since",
    "finished_by_bot",
    "hash_token",
    "iso_time",
    "record_extra",
    "seat_names",
    "setup_from_json",
    "setup_to_json",
    "shown_kind",
    "state_frame",
    "stored_game",
    "table_status",
]

log = logging.getLogger("catsack.server")

PROTOCOL = "catsack-ws/1"
#: Most events sent in one state frame; the view is always complete anyway.
MAX_EVENTS = 200


class TableError(Exception):
    """A refused request, with the HTTP status or protocol error code to answer with."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 400,
        *,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        #: The details of ``message`` that a client shows in its own language (``err.<code>`` catalogue keys).
        self.params = dict(params or {})
        self.headers = dict(headers or {})


def iso_time(epoch: float | None) -> str | None:
    """An epoch time as ISO 8601 UTC (``2026-11-21T10:00:00Z``), ``None`` stays ``None``."""
    if epoch is None:
        return None
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _jsonable(value: Any) -> Any:
    if isinstance(value, Card):
        return value.token
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


def seat_names(players: Sequence[Player | SeatRow]) -> list[str]:
    """One distinct name per seat for event texts, records and lists: people by their name (also when a
    bot finished their seat: :func:`finished_by_bot`), bots by level and seat number ("heuristic 3"), a
    repeated name with its seat number added ("Ann (2)")."""
    base = [
        p.name
        if p.name and (p.kind == "human" or (p.kind == "bot" and p.replaced))
        else (f"{p.bot} {i + 1}" if p.kind == "bot" else f"Seat {i + 1}")
        for i, p in enumerate(players)
    ]
    # Guests cannot share a name at a table (a join is refused); two seats of one name can still come
    # from before that rule or an account named like a guest: the seat number, in no language, parts them.
    return [n if base.count(n) == 1 else f"{n} ({i + 1})" for i, n in enumerate(base)]


def finished_by_bot(players: Sequence[Player | SeatRow]) -> list[int]:
    """The seats whose person left and a stand-in bot plays on (or played to the end): the seat keeps
    the person's name (:func:`seat_names`), and lists, records and profiles mark it."""
    return [i for i, p in enumerate(players) if p.kind == "bot" and p.replaced]


def record_extra(players: Sequence[Player | SeatRow]) -> dict[str, Any]:
    """The record keys a table's seats give: ``agents`` (:func:`seat_agents`) and, where a bot finished
    a person's seat, ``finished_by_bot`` (those seats, from 0)."""
    extra: dict[str, Any] = {"agents": seat_agents(players)}
    replaced = finished_by_bot(players)
    if replaced:
        extra["finished_by_bot"] = replaced
    return extra


def shown_kind(p: Player | SeatRow) -> str:
    """A seat's ``kind`` as the seat lists show it: ``open``, ``human``, or ``bot`` for the server's bots,
    a stand-in that took a person's seat over, and a bot account (a program over the bot API, whose seat
    is a person's to the table: a token, connections, the grace period)."""
    return "bot" if p.bot_account else p.kind


def seat_kinds(players: Sequence[Player | SeatRow]) -> list[str | None]:
    """Per seat, the bot spec seated there or ``None`` (a person, an open seat), as the lobby shows the
    seats: what a bot meets (``Bot.meet``) and an analysis reads."""
    return [p.bot if p.kind == "bot" and p.bot else None for p in players]


def seat_agents(players: Sequence[Player | SeatRow]) -> list[str]:
    """:func:`seat_kinds` for a record's ``agents`` key, a person's seat as ``"human"``; analysis reads
    it back as the table (``record_players``)."""
    return ["human" if k is None else k for k in seat_kinds(players)]


def stored_record(row: TableRow, seats: Sequence[SeatRow], game: Game, **extra: Any) -> Record:
    """The full record of a stored game: its seats' names (:func:`seat_names`), ``agents`` and
    ``finished_by_bot`` (:func:`record_extra`), the table's id, and ``extra`` keys (the archive adds the
    event and the date)."""
    return record_from_game(game, seat_names(seats), table=row.id, **record_extra(seats), **extra)


def event_dict(ev: Event, version: int, names: list[str]) -> dict[str, Any]:
    """A public event as JSON: its kind, the move (version) that caused it, a sentence, its fields."""
    out: dict[str, Any] = {"version": version, "kind": type(ev).__name__, "text": describe_event(ev, names)}
    for f in dataclasses.fields(ev):
        out[f.name] = _jsonable(getattr(ev, f.name))
    return out


def setup_to_json(setup: Setup) -> dict[str, Any]:
    return {
        "start": setup.start,
        "removed": [c.token for c in setup.removed],
        "dummy": [c.token for c in setup.dummy],
    }


def setup_from_json(seats: int, obj: dict[str, Any]) -> Setup:
    return Setup(
        seats,
        int(obj["start"]),
        tuple(Card.parse(t) for t in obj["removed"]),
        tuple(Card.parse(t) for t in obj["dummy"]),
    )


def stored_game(row: TableRow, actions: Iterable[ActionRow] = (), *, events: bool = False) -> Game:
    """The game of a stored table, rebuilt: its setup (all chance happens there) with ``actions``,
    the table's action log in order, played on it. ``events``: keep the game's events (a live table)."""
    game = Game(setup_from_json(row.seats, row.setup), events=events)
    for a in actions:
        game.play(a.move)
    return game


@dataclass
class Player:
    """A seat as the server tracks it."""

    kind: str  # open | human | bot
    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    replaced: bool = False
    away_since: float | None = None  # monotonic time the last connection of a human left
    user_id: int | None = None  # the account seated here; None for a guest (shown as one), a bot, an open seat
    # The account seated here is a bot account (a program playing over the bot API): its seat is a person's
    # here (a token, connections, the grace period, the turn timer), and it is shown as a bot's.
    bot_account: bool = False


class Conn:
    """One WebSocket connection: a seat (or ``None`` for a spectator) and its outbound frames.

    Frames are queued by :meth:`push` and go out in order. With a direct ``write`` (the server's
    own socket, :func:`catsack.server.routes.ws.direct_writer`), everything pending is written in
    one go at the end of the event loop's turn: the state frame of a move and the mover's ack
    together, without a task. Otherwise (other ASGI servers, the test client, a socket whose buffer
    is full) a short-lived sender task awaits ``send`` for each frame, so a slow client never holds
    a table's lock, and an idle connection keeps no waiting task (thousands of them would make every
    garbage collection slower). A ``state`` entry is built when it is sent, from the table as it is
    then, so bursts of moves coalesce.
    """

    STATE = object()  # a state frame if the table moved on since the last one sent
    FULL = object()  # a state frame in any case (hello, resync, seats changed)
    MAX_PENDING = 256

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        seat: int | None,
        since: int | None,
        *,
        record: bool = False,
        write: Callable[[list[bytes]], bool] | None = None,
    ) -> None:
        self.send = send
        #: Writes encoded text frames (UTF-8 JSON) to the socket at once, in order; ``False`` when the
        #: socket cannot take them now (then they go through ``send``).
        self.write = write
        self.seat = seat
        self.since = since  # last version this connection was shown
        self.pending: collections.deque[object] = collections.deque()
        self.task: asyncio.Task[None] | None = None
        self.table: LiveTable | None = None
        self.closed = False
        self.record = record
        self.sent: list[str] = []  # kept only when the hub records frames (leak tests)
        self.busy_hint = False
        #: The browser's login cookie as the socket opened (``None``: none): read only when the seat
        #: chats, so that a logged-in account a player blocked cannot chat from a guest's seat.
        self.session: str | None = None
        self.written = 0  # frames written directly (the rest went through ``send``)
        self._flush_due = False

    def push(self, item: object) -> None:
        if self.closed:
            return
        if len(self.pending) >= self.MAX_PENDING:  # a client that does not read: stop; it resyncs on reconnect
            self.close()
            return
        self.pending.append(item)
        if self.task is not None and not self.task.done():
            return  # the sender task sends it after what is ahead of it
        if self.write is not None:
            if not self._flush_due:
                self._flush_due = True
                asyncio.get_running_loop().call_soon(self._flush)
            return
        self.task = asyncio.get_running_loop().create_task(self._drain())

    def close(self) -> None:
        self.closed = True
        self.pending.clear()

    async def flush(self, timeout: float) -> None:
        """Let frames already pending go out (up to ``timeout`` seconds), then stop."""
        if self._flush_due:
            self._flush()
        task = self.task
        if task is not None and not task.done():
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(task), timeout)
        self.close()
        if task is not None and not task.done():
            task.cancel()

    def _render(self, item: object) -> bytes | None:
        if type(item) is bytes:  # rendered already, then handed back by a write that could not take it
            return item
        if item is not Conn.STATE and item is not Conn.FULL:
            return orjson.dumps(item)
        table = self.table
        if table is None or (item is Conn.STATE and self.since == table.version):
            return None
        try:
            data = table.state_bytes(self.seat, self.since)
        except Exception:  # never leave a connection silent: log it and tell the client
            log.exception("state frame failed", extra={"fields": {"table": table.id, "seat": self.seat}})
            return orjson.dumps({"type": "error", "code": "unavailable", "message": "state not available"})
        self.since = table.version
        return data

    def _flush(self) -> None:
        """Write everything pending in one go (called once per turn of the event loop)."""
        self._flush_due = False
        if self.closed or self.write is None or (self.task is not None and not self.task.done()):
            return
        frames = [data for data in map(self._render, self._take()) if data is not None]
        if not frames:
            return
        try:
            written = self.write(frames)
        except Exception:  # the socket is gone; the reader side cleans up
            self.close()
            return
        if written:
            self.written += len(frames)
            if self.record:
                self.sent.extend(data.decode() for data in frames)
            return
        # The socket's buffer is full (or it is closing): these frames, and any that follow them until
        # they are out, wait for it in the sender task.
        self.pending.extendleft(reversed(frames))
        self.task = asyncio.get_running_loop().create_task(self._drain())

    def _take(self) -> list[object]:
        items = list(self.pending)
        self.pending.clear()
        return items

    async def _drain(self) -> None:
        while self.pending and not self.closed:
            data = self._render(self.pending.popleft())
            if data is None:
                continue
            text = data.decode()
            if self.record:
                self.sent.append(text)
            try:
                await self.send(text)
            except Exception:  # the socket is gone; the reader side cleans up
                self.close()


class ViewTemplate:
    """A state's view as JSON with a hole for each key of :data:`~catsack.view.VIEW_KEYS` not given:
    the entries every receiver shares, encoded once, between the receiver's own.

    :meth:`LiveTable.state_bytes` builds it from the spectator's view (its ``shared_dict``, and the
    finished rounds encoded once per round) and fills the holes with each receiver's seat fields
    (:data:`~catsack.view.SEAT_FIELDS`): the result is ``orjson.dumps(view.to_dict())`` of that
    receiver's view, key order included (``tests/test_frames.py`` checks it over whole games; the
    core's ``test_r23_only_the_seat_fields_differ_between_viewers`` checks that the shared entries
    are the same in every view). Nothing a seat may not see is in it: it is the spectator's view.
    """

    __slots__ = ("keys", "parts")

    def __init__(self, shared: Mapping[str, Any], encoded: Mapping[str, bytes] | None = None) -> None:
        """``shared``: entries as values; ``encoded``: shared entries already encoded as JSON."""
        encoded = encoded or {}
        items: list[bytes | str] = []  # encoded '"key":value' runs, and the keys of the holes
        run: dict[str, Any] = {}
        for key in VIEW_KEYS:
            if key in shared:
                run[key] = shared[key]
                continue
            if run:
                items.append(orjson.dumps(run)[1:-1])
                run = {}
            items.append(orjson.dumps(key) + b":" + encoded[key] if key in encoded else key)
        if run:
            items.append(orjson.dumps(run)[1:-1])
        keys: list[str] = []
        parts: list[bytes] = []
        part = b"{"
        sep = b""
        for item in items:
            if isinstance(item, bytes):
                part += sep + item
            else:
                parts.append(part + sep + orjson.dumps(item) + b":")
                keys.append(item)
                part = b""
            sep = b","
        parts.append(part + b"}")
        self.keys = tuple(keys)
        self.parts = tuple(parts)

    def fill(self, own: Mapping[str, bytes]) -> bytes:
        """The view's JSON with ``own[key]`` (encoded JSON) in each hole."""
        parts = self.parts
        out = [parts[0]]
        for i, key in enumerate(self.keys, 1):
            out.append(own[key])
            out.append(parts[i])
        return b"".join(out)


@dataclass
class LiveTable:
    """A table in memory: its game (rebuilt from the action log), players and connections."""

    hub: object  # the process's coordinator holding it (catsack.server.tables.hub.Hub); never called from here
    row: TableRow
    players: list[Player]
    game: Game
    results: dict[tuple[int, str], int] = field(default_factory=dict)  # (seat, action id) -> version after
    conns: set[Conn] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    task: asyncio.Task[None] | None = None
    bots: dict[int, Bot] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)
    #: Epoch seconds the current turn began (the last move's commit; ``None``: not known, as before the
    #: first move). A bot's move is due a delay after it, also in a process that took the table over.
    turn_began: float | None = None
    #: This process holds the table's lease: it runs the bots and timers; otherwise it only relays.
    driver: bool = False
    #: Messages from other processes waiting for the table's lock (catsack.server.tables.fanout), in order.
    inbox: collections.deque[dict[str, Any]] = field(default_factory=collections.deque)
    inbox_task: asyncio.Task[None] | None = None
    #: The process that asked for this table's lease while players were connected here.
    wanted_by: str | None = None
    #: Other processes with connections to this table (they asked for its moves): process id ->
    #: time.monotonic() until which they count. The driving process publishes its moves only while
    #: some process listens, or for a while after it started driving (``announce_until``).
    listeners: dict[str, float] = field(default_factory=dict)
    announce_until: float = 0.0
    #: Seats connected to other processes: seat -> {process id: time.monotonic() until which it counts}.
    elsewhere: dict[int, dict[str, float]] = field(default_factory=dict)
    _frames: dict[tuple[str, int | None], bytes] = field(default_factory=dict)
    _template: ViewTemplate | None = None
    _frames_version: int = -1
    #: The finished rounds and the finished rounds' history with their JSON, kept while no round ends.
    _rounds_json: tuple[object, bytes] | None = None
    _settled_json: tuple[object, bytes] | None = None

    # ------------------------------------------------------------------ public facts

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def version(self) -> int:
        return self.game.ply

    @property
    def kinds(self) -> list[str | None]:
        """:func:`seat_kinds` of this table's seats: what its bots meet and a hint's analysis reads."""
        return seat_kinds(self.players)

    @property
    def people(self) -> list[str]:
        """The names of the persons seated here (sorted; a seat a bot took over counts as its person's): whom
        the table memory of this table's bots speaks of (:meth:`memory_for`)."""
        return sorted(p.name or "" for p in self.players if p.kind == "human" or p.replaced)

    def memory_for(self, seat: int) -> dict[str, Any] | None:
        """What the bot at ``seat`` read at the tables before this rematch (``options["memory"]``, kept with it by
        :func:`catsack.server.people.rematch.carried_memory`), if the persons seated now are the ones it was read from
        (``options["memory_people"]``); ``None`` otherwise: other people are not those players."""
        memory = self.options.get("memory")
        if not isinstance(memory, dict) or self.options.get("memory_people") != self.people:
            return None
        mine = memory.get(str(seat))
        return mine if isinstance(mine, dict) else None

    @property
    def status(self) -> str:
        if self.game.is_over:
            return "over"
        return "open" if any(p.kind == "open" for p in self.players) else "playing"

    @property
    def options(self) -> dict[str, Any]:
        return self.row.options

    @property
    def clock(self) -> Clock | None:
        """A turn-based table's clock as last stored (``None``: a real-time table)."""
        return clock_of(self.row.clock)

    @property
    def turn_based(self) -> TurnBased | None:
        return TurnBased.of(self.options)

    def names(self) -> list[str]:
        return seat_names(self.players)

    def seat_status(self, seat: int) -> str:
        """``connected`` (here or to another process), ``away``, ``open`` or ``bot``: the same answer
        on every process, so a seat connected elsewhere is never handed to a bot."""
        p = self.players[seat]
        if p.kind == "human":
            return "connected" if any(c.seat == seat for c in self.conns) or self.connected_elsewhere(seat) else "away"
        return p.kind  # open | bot

    def connected_elsewhere(self, seat: int) -> bool:
        now = time.monotonic()
        return any(until > now for until in self.elsewhere.get(seat, {}).values())

    def elsewhere_set(self, origin: str, seat: Any, on: bool, ttl: float) -> bool:
        """Process ``origin`` says ``seat`` is (``on``) or is no longer connected there; whether the
        seat's status changed. ``origin`` "" is what the database said when the table was loaded,
        replaced by the first word from a process."""
        if type(seat) is not int or not 0 <= seat < len(self.players):
            return False
        before = self.seat_status(seat)
        entry = self.elsewhere.setdefault(seat, {})
        if origin:
            entry.pop("", None)
        if on:
            entry[origin] = time.monotonic() + ttl
        else:
            entry.pop(origin, None)
        if not entry:
            del self.elsewhere[seat]
        return self.seat_status(seat) != before

    def elsewhere_gone(self, origin: str) -> bool:
        """Process ``origin`` is dead: its seats are not connected any more; whether any status changed."""
        changed = False
        for seat in list(self.elsewhere):
            if origin in self.elsewhere[seat]:
                changed = self.elsewhere_set(origin, seat, False, 0.0) or changed
        return changed

    def players_public(self) -> list[dict[str, Any]]:
        """The seat list every frame and page shows: each seat's name, kind (:func:`shown_kind`), status
        (a bot account's is its connection's), whether a person is a guest, or the seat a bot account's."""
        names = self.names()
        return [
            {
                "seat": i,
                "name": names[i] if p.kind != "open" else None,
                "kind": shown_kind(p),
                "status": self.seat_status(i),
                "replaced": p.replaced,
                "guest": p.kind == "human" and p.user_id is None,
                "bot_account": p.bot_account,
            }
            for i, p in enumerate(self.players)
        ]

    def public(self) -> dict[str, Any]:
        """The table as the HTTP API shows it: public information only."""
        return {
            "table": self.id,
            "name": self.row.name,
            "seats": self.row.seats,
            "status": self.status,
            "version": self.version,
            "money_visible": bool(self.options.get("money_visible")),
            "turn_seconds": self.options.get("turn_seconds"),
            "turn_based": self.options.get("turn_based"),
            "hints": bool(self.options.get("hints")),
            "rated": bool(self.options.get("rated")),
            "private": bool(self.options.get("private")),
            "host_seat": self.options.get("host_seat"),
            "tournament": self.options.get("tournament"),
            "created": iso_time(self.row.created),
            "finished": iso_time(self.row.finished),
            "players": self.players_public(),
        }

    # ------------------------------------------------------------------ frames

    def state_text(self, seat: int | None, since: int | None) -> str:
        """:meth:`state_bytes` as text."""
        return self.state_bytes(seat, since).decode()

    def state_bytes(self, seat: int | None, since: int | None) -> bytes:
        """The encoded ``state`` frame for ``seat``: the same content as :func:`state_frame`, put
        together from parts cached per version (the view's shared fields, each seat's own fields,
        the events after each ``since``, the seat list), since every connection of a table needs
        one after every move."""
        if self._frames_version != self.version:
            self._frames.clear()
            self._template = None
            self._frames_version = self.version
        cache = self._frames
        view_key = ("view", seat)
        view_json = cache.get(view_key)
        if view_json is None:
            money = bool(self.options.get("money_visible"))
            template = self._template
            if template is None:
                template = self._template = self._view_template(self.game.view(None, show_money=money))
            view_json = cache[view_key] = template.fill(self._own_json(self.game.view(seat, show_money=money)))
        events_key = ("events", since)
        events_json = cache.get(events_key)
        if events_json is None:
            events_json = orjson.dumps(events_since(self.game, since, self.names()))
            if len(cache) < 64:
                cache[events_key] = events_json
        tail = cache.get(("tail", None))
        if tail is None:
            players = self.players_public()
            deadline = self.row.deadline if self.status == "playing" else None
            parts: dict[str, Any] = {
                "players": players,
                "table_status": table_status(self.game, players),
                "deadline": iso_time(deadline),
            }
            clock = self.clock
            if clock is not None:
                parts["clock"] = clock.public()
            tail = cache[("tail", None)] = orjson.dumps(parts)[1:]
        return b"".join(
            (
                b'{"type":"state","version":',
                b"%d" % self.version,
                b',"view":',
                view_json,
                b',"events":',
                events_json,
                b",",
                tail,
            )
        )

    def _view_template(self, public: View) -> ViewTemplate:
        """This version's shared view entries, from the spectator's ``public`` view."""
        rounds = public.rounds
        known = self._rounds_json
        if known is None or known[0] is not rounds:
            known = self._rounds_json = (rounds, orjson.dumps([round_to_dict(r) for r in rounds]))
        return ViewTemplate(public.shared_dict(rounds=False), {"rounds": known[1]})

    def _own_json(self, view: View) -> dict[str, bytes]:
        """``view``'s seat fields, encoded; the finished rounds' part of its history once per round."""
        own = {key: orjson.dumps(value) for key, value in view.seat_dict(history=False).items()}
        settled, current = view.history_split()
        known = self._settled_json
        if known is None or known[0] is not settled:
            known = self._settled_json = (settled, orjson.dumps(settled)[1:-1])
        done, now = known[1], orjson.dumps(current)[1:-1]
        own["history"] = b"".join((b"[", done, b"," if done and now else b"", now, b"]"))
        return own

    def broadcast_state(self, *, force: bool = False) -> None:
        self._frames.clear()
        self._template = None
        item = Conn.FULL if force else Conn.STATE
        for c in self.conns:
            c.push(item)

    def broadcast(self, frame: dict[str, Any]) -> None:
        for c in self.conns:
            c.push(frame)

    def players_changed(self) -> None:
        self._frames.clear()
        self.broadcast({"type": "players", "players": self.players_public()})

    # ------------------------------------------------------------------ records

    def record(self, seat: int | None = None) -> Record:
        extra = {
            "table": self.id,
            "event": self.row.name,
            "date": iso_time(self.row.created),
            **record_extra(self.players),
        }
        names = self.names()
        if seat is None:
            return record_from_game(self.game, names, **extra)
        return redact(self.game, seat, names, **extra)


def state_frame(
    game: Game,
    seat: int | None,
    since: int | None,
    *,
    names: list[str],
    players: list[dict[str, Any]],
    money_visible: bool,
    deadline: float | None,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """The ``state`` frame for ``seat`` (``None``: a spectator): its view (R23), the public
    events after version ``since``, the seats, the turn deadline and a turn-based table's clock
    (public: when moves were made). Nothing else."""
    frame = {
        "type": "state",
        "version": len(game.moves),
        "view": game.view(seat, show_money=money_visible).to_dict(),
        "events": events_since(game, since, names),
        "players": players,
        "table_status": table_status(game, players),
        "deadline": iso_time(deadline),
    }
    if clock is not None:
        frame["clock"] = clock.public()
    return frame


def events_since(game: Game, since: int | None, names: list[str]) -> list[dict[str, Any]]:
    """The public events of the moves after version ``since`` (at most the last ``MAX_EVENTS`` moves)."""
    version = len(game.moves)
    start = version if since is None or since < 0 or since >= version else since
    start = max(start, version - MAX_EVENTS)
    events: list[dict[str, Any]] = []
    for ply in range(start, version):
        events.extend(event_dict(ev, ply + 1, names) for ev in game.events(ply))
    return events


def table_status(game: Game, players: list[dict[str, Any]]) -> str:
    if game.is_over:
        return "over"
    return "open" if any(p["kind"] == "open" for p in players) else "playing"


def error_frame(code: str, message: str, *, action_id: str | None = None, version: int | None = None) -> dict[str, Any]:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if action_id is not None:
        frame["action_id"] = action_id
    if version is not None:
        frame["version"] = version
    return frame
