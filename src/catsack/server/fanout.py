"""Cross-process fan-out through Redis pub/sub (``CATSACK_REDIS_URL``).

A process that appended a move publishes a wake-up naming the table and the
new version (``-1`` for a change of seats). Other processes holding that
table read the database to catch up: the message carries no game data, so a
lost message costs only latency (the sweep finds the version gap), never
correctness (checklist 20).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["CHANNEL", "Fanout"]

log = logging.getLogger("catsack.server")

CHANNEL = "catsack:tables"


class Fanout:
    def __init__(self, url: str, origin: str, on_wakeup: Callable[[str, int], Awaitable[None]]) -> None:
        import redis.asyncio as aioredis

        # Publishing happens while a table's lock is held: a hung Redis must fail fast, not stall moves.
        self.redis: Any = aioredis.from_url(url, socket_timeout=1.0, socket_connect_timeout=1.0)
        self.sub_redis: Any = aioredis.from_url(url, socket_connect_timeout=1.0)
        self.origin = origin
        self.on_wakeup = on_wakeup
        self.task: asyncio.Task[None] | None = None
        self.received = 0

    async def start(self) -> None:
        await self.redis.ping()
        self.pubsub = self.sub_redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(CHANNEL)
        self.task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()
        with contextlib.suppress(Exception):
            await self.sub_redis.aclose()

    async def publish(self, table_id: str, version: int) -> None:
        msg = json.dumps({"table": table_id, "version": version, "origin": self.origin})
        try:
            await self.redis.publish(CHANNEL, msg)
        except Exception:  # Redis down: other processes catch up through the version-gap sweep
            log.warning("redis publish failed", extra={"fields": {"table": table_id}})

    async def _listen(self) -> None:
        while True:
            try:
                async for message in self.pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    try:
                        data = json.loads(message["data"])
                        if data.get("origin") == self.origin:
                            continue
                        table_id, version = str(data["table"]), int(data["version"])
                    except (ValueError, KeyError, TypeError):
                        continue
                    self.received += 1
                    await self.on_wakeup(table_id, version)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("redis subscription lost; retrying")
                await asyncio.sleep(1.0)
                with contextlib.suppress(Exception):
                    await self.pubsub.subscribe(CHANNEL)
