"""Live My games: a server-sent-events stream per account that says "your games changed".

A logged-in page opens ``GET /api/mygames/events`` (an ``EventSource``) and asks for its list again
(``/api/mygames``, ``/api/mygames/summary``) when a ``changed`` event arrives. The event carries no
game data at all, only that something of the account's changed: a move or a seat at one of its
tables (the tables' events :class:`~catsack.server.tables.bus.MoveApplied` and
:class:`~catsack.server.tables.bus.SeatsChanged`, subscribed when the app starts), or one of its challenges.
What the page shows is read as before, so a lost event costs only latency: the page keeps a slow poll
as the fall-back, and polls as before where the stream cannot be opened.

Bounds (per process): at most :data:`STREAMS_PER_ACCOUNT` streams per account and
:data:`STREAMS_PER_ADDRESS` per client address (429 beyond); one stream gets at most one event per
:data:`MIN_GAP` seconds (changes in between fold into one); a comment every :data:`HEARTBEAT` seconds
keeps proxies from closing an idle stream; a stream ends after :data:`MAX_SECONDS` and the browser
opens it again, so a logged-out session stops being told anything.

With several processes (``CATSACK_REDIS_URL``) the accounts to tell are published on a Redis channel
of their own, ``<CATSACK_REDIS_CHANNEL>:accounts`` (:func:`accounts_channel`; account ids only), so a
page connected to one process hears of a move made on another, and two deployments sharing one Redis
server, each with its own ``CATSACK_REDIS_CHANNEL``, never hear each other's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache
from sqlalchemy import select

from catsack.server.people.accounts import seat_users_t
from catsack.server.tables.bus import MoveApplied, SeatsChanged

if TYPE_CHECKING:
    from catsack.server.tables.hub import Hub

__all__ = [
    "HEARTBEAT",
    "MAX_SECONDS",
    "MIN_GAP",
    "STREAMS_PER_ACCOUNT",
    "STREAMS_PER_ADDRESS",
    "GamesFeed",
    "Stream",
    "accounts_channel",
]

log = logging.getLogger("catsack.server")

STREAMS_PER_ACCOUNT = 6
STREAMS_PER_ADDRESS = 24
MIN_GAP = 2.0
HEARTBEAT = 20.0
MAX_SECONDS = 600.0
#: Tables whose accounts are remembered (a seat change reads them again).
CACHED_TABLES = 4096
#: How long the browser waits before opening a dropped stream again (milliseconds, the ``retry`` field).
RETRY_MS = 5000


def accounts_channel(redis_channel: str) -> str:
    """The Redis channel of the accounts to tell, under the deployment's ``CATSACK_REDIS_CHANNEL``."""
    return f"{redis_channel}:accounts"


@dataclass(eq=False)
class Stream:
    """One open stream: whose it is, and whether a change is waiting to be told."""

    account_id: int
    address: str
    pending: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False


class GamesFeed:
    """The open streams of this process, woken by the hub's table changes and by challenges."""

    def __init__(
        self,
        hub: Hub,
        *,
        per_account: int = STREAMS_PER_ACCOUNT,
        per_address: int = STREAMS_PER_ADDRESS,
        min_gap: float = MIN_GAP,
        heartbeat: float = HEARTBEAT,
        max_seconds: float = MAX_SECONDS,
    ) -> None:
        self.hub = hub
        self.per_account = per_account
        self.per_address = per_address
        self.min_gap = min_gap
        self.heartbeat = heartbeat
        self.max_seconds = max_seconds
        self.streams: dict[int, set[Stream]] = {}
        self.addresses: dict[str, int] = {}
        self.origin = uuid.uuid4().hex[:12]
        self._accounts: LRUCache[str, frozenset[int]] = LRUCache(maxsize=CACHED_TABLES)  # table id -> its accounts
        self._tasks: set[asyncio.Task[None]] = set()
        self._redis: Any = None
        self._pubsub: Any = None
        self.channel = accounts_channel("catsack:tables")
        self._listener: asyncio.Task[None] | None = None
        self.closing = False

    # ------------------------------------------------------------------ life cycle

    async def start(self, redis_url: str | None = None, redis_channel: str = "catsack:tables") -> None:
        """Hear (with ``redis_url``) other processes' changes, on the
        accounts channel under ``redis_channel`` (``CATSACK_REDIS_CHANNEL``)."""
        self.channel = accounts_channel(redis_channel)
        if redis_url:
            import redis.asyncio as aioredis

            # Publishing happens after a move: a hung Redis must fail fast, never hold anything up.
            self._redis = aioredis.from_url(redis_url, socket_timeout=1.0, socket_connect_timeout=1.0)
            sub = aioredis.from_url(redis_url, socket_connect_timeout=1.0)
            self._pubsub = sub.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(self.channel)
            self._listener = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        self.end_all()
        for task in [*self._tasks, *([self._listener] if self._listener else [])]:
            task.cancel()
        await asyncio.gather(*self._tasks, *([self._listener] if self._listener else []), return_exceptions=True)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._redis.aclose()

    def end_all(self) -> None:
        """End every open stream now (the server is stopping; the browsers open them again elsewhere)."""
        self.closing = True
        for streams in list(self.streams.values()):
            for s in list(streams):
                s.closed = True
                s.pending.set()

    def end_on_exit(self) -> None:
        """End the streams as soon as the server is told to stop (SIGINT, SIGTERM), before it waits for
        open responses to finish: a stream never ends by itself within a graceful shutdown's patience.

        The server's own handlers stay in place and run after this one. Only possible on the main
        thread (``catsack serve``); elsewhere (tests' in-process clients) nothing changes."""
        if threading.current_thread() is not threading.main_thread():
            return
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            previous = signal.getsignal(sig)
            if not callable(previous):
                continue

            def handler(signum: int, frame: Any, previous: Any = previous) -> None:
                loop.call_soon_threadsafe(self.end_all)
                previous(signum, frame)

            signal.signal(sig, handler)

    # ------------------------------------------------------------------ streams

    def open(self, account_id: int, address: str) -> Stream | None:
        """A new stream for ``account_id`` from ``address``; ``None`` when either has its most open."""
        full = len(self.streams.get(account_id, ())) >= self.per_account
        if self.closing or full or self.addresses.get(address, 0) >= self.per_address:
            return None
        stream = Stream(account_id, address)
        self.streams.setdefault(account_id, set()).add(stream)
        self.addresses[address] = self.addresses.get(address, 0) + 1
        return stream

    def close(self, stream: Stream) -> None:
        """Forget ``stream`` (idempotent)."""
        mine = self.streams.get(stream.account_id)
        if mine is None or stream not in mine:
            return
        stream.closed = True
        mine.discard(stream)
        if not mine:
            del self.streams[stream.account_id]
        left = self.addresses.get(stream.address, 1) - 1
        if left > 0:
            self.addresses[stream.address] = left
        else:
            self.addresses.pop(stream.address, None)

    async def events(self, stream: Stream) -> AsyncIterator[str]:
        """The stream's text: ``ready`` at once, ``changed`` when something changed (one per ``min_gap``
        at most), a comment now and then, and the end after ``max_seconds``."""
        try:
            yield f"retry: {RETRY_MS}\nevent: ready\ndata: {{}}\n\n"
            ends = time.monotonic() + self.max_seconds
            while not stream.closed:
                left = ends - time.monotonic()
                if left <= 0:
                    return
                try:
                    await asyncio.wait_for(stream.pending.wait(), timeout=min(self.heartbeat, left))
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                if stream.closed:
                    return
                stream.pending.clear()
                yield "event: changed\ndata: {}\n\n"
                if self.min_gap > 0:
                    await asyncio.sleep(self.min_gap)  # later changes wait and go out as one event
        finally:
            self.close(stream)

    # ------------------------------------------------------------------ changes

    def changed(self, account_ids: Iterable[int], *, publish: bool = True) -> None:
        """Tell the accounts' open streams (here, and in other processes when ``publish``)."""
        ids = {int(i) for i in account_ids}
        for account_id in ids:
            for stream in self.streams.get(account_id, ()):
                stream.pending.set()
        if publish and ids and self._redis is not None:
            self._spawn(self._publish(sorted(ids)))

    def moved(self, event: MoveApplied) -> None:
        """A move at a table (the tables' event)."""
        self.table_changed(event.table_id, event.version)

    def seats_changed(self, event: SeatsChanged) -> None:
        """A seat change at a table (the tables' event)."""
        self.table_changed(event.table_id, -1)

    def table_changed(self, table_id: str, version: int) -> None:
        """A move (``version`` ≥ 0) or a seat change (negative) at ``table_id``."""
        if not self.streams and self._redis is None:
            return  # nobody listens, here or anywhere
        if version < 0:
            self._accounts.pop(table_id, None)  # the seats changed: read them again
        known = self._accounts.get(table_id)
        if known is not None:
            self.changed(known)
            return
        self._spawn(self._lookup_and_tell(table_id))

    async def _lookup_and_tell(self, table_id: str) -> None:
        ids = await asyncio.to_thread(self._table_accounts, table_id)
        self._accounts[table_id] = ids  # the least recently used goes once CACHED_TABLES are kept
        self.changed(ids)

    def _table_accounts(self, table_id: str) -> frozenset[int]:
        with self.hub.store.engine.connect() as conn:
            rows = conn.execute(select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id))
            return frozenset(int(u) for u in rows.scalars())

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("games feed update failed", extra={"fields": {"error": str(task.exception())}})

    async def _publish(self, ids: list[int]) -> None:
        try:
            await self._redis.publish(self.channel, json.dumps({"accounts": ids, "origin": self.origin}))
        except Exception:  # Redis away: the pages' slow poll catches up
            log.warning("games feed publish failed")

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self._pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        data = json.loads(message["data"])
                        if data.get("origin") == self.origin:
                            continue
                        ids = [int(i) for i in data["accounts"]][:64]
                    except (ValueError, KeyError, TypeError):
                        continue
                    self.changed(ids, publish=False)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("games feed listener lost Redis; retrying")
                await asyncio.sleep(1.0)
