"""Cross-process messages through Redis pub/sub (``CATSACK_REDIS_URL``).

A process that committed a move publishes the move itself (table, version, seat,
move text, the table's new status and deadline), so that another process holding
the table plays it on its copy without reading the database. The database stays
the truth: a message that does not follow the version a receiver holds (one was
lost, or the receiver loaded the table in between) makes that receiver read the
log, and the sweep still compares versions now and then.

Other messages: a change of seats (receivers read the seats), a seat's presence on
a process (so every process shows the same seat list), and the hand-over of a
table's lease to the process its players are connected to.

Messages go out through one publisher task that sends whatever is queued in one
pipelined round trip: a move never waits for Redis, and a busy event loop no longer
turns a slow answer into a lost message (the cause of the old "redis publish
failed" warnings under load: every move published on its own with a one-second
timeout that counted the time the loop was busy elsewhere). While Redis is away
messages wait (up to :data:`MAX_QUEUE`), and are sent when it is back.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

import orjson

__all__ = ["CHANNEL", "MAX_QUEUE", "Fanout", "listen"]

log = logging.getLogger("catsack.server")

CHANNEL = "catsack:tables"
#: Messages kept while Redis cannot be reached; older ones are dropped first (the receivers find the
#: version gap at their next message for that table, or the sweep does).
MAX_QUEUE = 20000
_BATCH = 500


class Fanout:
    """The Redis side of a server process: one queue of outgoing messages, one subscription."""

    def __init__(
        self, url: str, origin: str, on_message: Callable[[dict[str, Any]], None], channel: str = CHANNEL
    ) -> None:
        import redis.asyncio as aioredis

        self.channel = channel
        self.redis: Any = aioredis.from_url(url, socket_timeout=10.0, socket_connect_timeout=2.0)
        self.sub_redis: Any = aioredis.from_url(url, socket_connect_timeout=2.0)
        self.origin = origin
        self.on_message = on_message
        self.queue: collections.deque[bytes] = collections.deque(maxlen=MAX_QUEUE)
        self.ready = asyncio.Event()
        self.tasks: list[asyncio.Task[None]] = []
        self.received = 0
        self.sent = 0
        self.batches = 0
        self.dropped = 0  # messages pushed out of a full queue while Redis was away
        self.failures = 0  # failed round trips (each retried)

    async def start(self) -> None:
        await self.redis.ping()
        self.pubsub = self.sub_redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.channel)
        self.tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._publisher())]

    async def stop(self) -> None:
        if self.queue:  # what is queued goes out before the process does (a second at most)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._send(self._take()), 1.0)
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self.sub_redis.aclose()

    # ------------------------------------------------------------------ sending

    def publish(self, message: dict[str, Any]) -> None:
        """Queue ``message`` (a JSON object; the origin is added); it goes out with the next batch."""
        if len(self.queue) == self.queue.maxlen:
            self.dropped += 1
        self.queue.append(orjson.dumps({**message, "o": self.origin}))
        self.ready.set()

    def _take(self) -> list[bytes]:
        batch: list[bytes] = []
        while self.queue and len(batch) < _BATCH:
            batch.append(self.queue.popleft())
        return batch

    async def _send(self, batch: list[bytes]) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for data in batch:
            pipe.publish(self.channel, data)
        await pipe.execute()

    async def _publisher(self) -> None:
        delay = 0.1
        failing_since: float | None = None
        while True:
            await self.ready.wait()
            self.ready.clear()
            while self.queue:
                batch = self._take()
                try:
                    await self._send(batch)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    # Put the batch back in order and retry: a lost wake-up would leave the other
                    # processes waiting for the sweep. Warn once per outage, not once per move.
                    self.queue.extendleft(reversed(batch))
                    self.failures += 1
                    if failing_since is None:
                        failing_since = time.monotonic()
                        log.warning(
                            "redis publish failed; retrying",
                            extra={"fields": {"error": type(exc).__name__, "queued": len(self.queue)}},
                        )
                    await asyncio.sleep(delay)
                    delay = min(2.0, delay * 2)
                    continue
                self.sent += len(batch)
                self.batches += 1
                delay = 0.1
                if failing_since is not None:
                    log.info(
                        "redis publish works again",
                        extra={
                            "fields": {
                                "after_s": round(time.monotonic() - failing_since, 1),
                                "dropped": self.dropped,
                            }
                        },
                    )
                    failing_since = None

    # ------------------------------------------------------------------ receiving

    async def _listen(self) -> None:
        await listen(self.pubsub, self.channel, self.origin, self._received, name="fan-out")

    def _received(self, data: dict[str, Any]) -> None:
        self.received += 1
        self.on_message(data)


async def listen(
    pubsub: Any, channel: str, origin: str, handle: Callable[[dict[str, Any]], None], *, name: str
) -> None:
    """Hand each JSON object published on ``channel`` by another process (its ``"o"`` is not ``origin``)
    to ``handle``, until cancelled. Anything else is skipped; a message ``handle`` fails on is logged and
    skipped (one bad message must not stop the subscription); a lost subscription is taken up again a
    second later. ``pubsub``: a redis-py asyncio ``PubSub`` subscribed to ``channel``."""
    while True:
        try:
            async for message in pubsub.listen():
                if message.get("type") != "message":
                    continue
                try:
                    data = orjson.loads(message["data"])
                except (orjson.JSONDecodeError, TypeError):
                    continue
                if not isinstance(data, dict) or data.get("o") == origin:
                    continue
                try:
                    handle(data)
                except Exception:
                    log.exception(f"{name} message failed", extra={"fields": {"table": data.get("t")}})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning(f"{name}: redis subscription lost; retrying")
            await asyncio.sleep(1.0)
            with contextlib.suppress(Exception):
                await pubsub.subscribe(channel)
