"""The bot arena across processes (``CATSACK_REDIS_URL``): presence keys, offers and answers, kicks, and the
count of a table's unanswered challenges.

Each process keeps a presence key per bot connected to it (``<CATSACK_REDIS_CHANNEL>:bots:at:<id>``, naming
the process, refreshed every :data:`~catsack.server.people.botarena.model.PRESENCE_REFRESH` seconds), and the
processes speak on the arena's channel (``<CATSACK_REDIS_CHANNEL>:bots``): an offer of a seat to the process
a bot is connected to, its answer, and a kick of a bot wherever it is. Without Redis every step here does
nothing and the arena is one process's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Any

import orjson

from catsack.server.people.botaccounts import BotAccount
from catsack.server.people.botarena.coordinator import ArenaCoordinator
from catsack.server.people.botarena.model import OFFER_SECONDS, PRESENCE_REFRESH, PRESENCE_TTL, BotSession
from catsack.server.tables.fanout import listen
from catsack.server.tables.live import LiveTable, TableError

__all__ = ["Relay"]

log = logging.getLogger("catsack.server.people.botarena")


class Relay:
    """The arena's messages between processes and its keys in Redis (none without ``CATSACK_REDIS_URL``)."""

    def __init__(self, arena: ArenaCoordinator) -> None:
        self.arena = arena
        self._redis: Any = None  # redis.asyncio client with several processes (CATSACK_REDIS_URL)
        #: Offers sent to other processes, waiting for their answer.
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._starting = asyncio.Lock()
        base = arena.hub.settings.redis_channel
        self.channel = f"{base}:bots"
        self._at = f"{base}:bots:at:"
        self._pending = f"{base}:bots:pending:"

    @property
    def connected(self) -> bool:
        """Whether the arena speaks to other processes now."""
        return self._redis is not None

    async def ready(self) -> None:
        """With ``CATSACK_REDIS_URL``: subscribe to the arena's channel and keep this process's bots'
        presence keys, from the first use on (a bot connecting, a challenge, a list of bots)."""
        hub = self.arena.hub
        url = hub.settings.redis_url
        if not url or self._redis is not None:
            return
        async with self._starting:
            if self._redis is not None:
                return
            import redis.asyncio as aioredis

            client = aioredis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0)
            sub = aioredis.from_url(url, socket_connect_timeout=2.0)
            pubsub = sub.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.channel)
            except Exception:  # Redis is away: this process's bots play here, and the next use tries again
                log.warning("bot arena: redis unreachable; bots connected here are seen here only")
                for closing in (pubsub, sub, client):
                    with contextlib.suppress(Exception):
                        await closing.aclose()
                return
            self._redis = client
            hub.loops.start("bot arena", self._listen(pubsub, sub))

    async def _listen(self, pubsub: Any, sub: Any) -> None:
        """The arena's messages for this process, and the refresh of its presence keys."""
        hub = self.arena.hub
        refresh = asyncio.get_running_loop().create_task(self._refresh())
        try:
            await listen(pubsub, self.channel, hub.process_id, self._heard, name="bot arena")
        finally:
            refresh.cancel()
            client, self._redis = self._redis, None
            sessions = self.arena.sessions
            with contextlib.suppress(Exception):
                if sessions:  # this process stops: its bots are not here any more
                    await asyncio.wait_for(client.delete(*[self._at + str(b) for b in sessions]), 1.0)
            for closing in (pubsub, sub, client):
                with contextlib.suppress(Exception):
                    await closing.aclose()

    def _heard(self, data: dict[str, Any]) -> None:
        hub = self.arena.hub
        if data.get("to") in (hub.process_id, "*"):
            hub.loops.spawn(self._on_message(data))

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(PRESENCE_REFRESH)
            with contextlib.suppress(Exception):
                for session in list(self.arena.sessions.values()):
                    await self.present(session)

    def presence_here(self, bot_id: int, name: str) -> dict[str, Any]:
        """The presence of a bot connected to this process: the process, its games and the most it plays."""
        return {
            "p": self.arena.hub.process_id,
            "name": name,
            "games": len(self.arena.busy_with(bot_id)),
            "max_games": self.arena.settings.max_games,
        }

    async def present(self, session: BotSession) -> None:
        """Write (or refresh) the presence key of the session's bot, while the session is its bot's here."""
        if self._redis is not None and self.arena.sessions.get(session.bot.id) is session:
            value = orjson.dumps(self.presence_here(session.bot.id, session.bot.name))
            await self._redis.set(self._at + str(session.bot.id), value, ex=PRESENCE_TTL)

    async def absent(self, bot_id: int) -> None:
        """Drop the bot's presence key when it still names this process."""
        if self._redis is None:
            return
        key = self._at + str(bot_id)
        with contextlib.suppress(Exception):
            raw = await self._redis.get(key)
            if raw is not None and orjson.loads(raw).get("p") == self.arena.hub.process_id:
                await self._redis.delete(key)

    async def presence(self, bot_id: int) -> dict[str, Any] | None:
        """The presence key of a bot connected to another process; ``None`` when there is none."""
        await self.ready()
        if self._redis is None:
            return None
        try:
            raw = await self._redis.get(self._at + str(bot_id))
        except Exception:
            log.warning("bot arena: redis unreachable", extra={"fields": {"bot": bot_id}})
            return None
        found = orjson.loads(raw) if raw is not None else None
        return found if isinstance(found, dict) else None

    async def everywhere(self, here: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The bots connected ``here`` and those of every other process (their presence keys), by name."""
        await self.ready()
        if self._redis is None:
            return here
        names = {b["name"] for b in here}
        try:
            keys = [k async for k in self._redis.scan_iter(match=self._at + "*", count=500)]
            values = await self._redis.mget(keys) if keys else []
        except Exception:
            return here
        for raw in values:
            if raw is None:
                continue
            found = orjson.loads(raw)
            if isinstance(found, dict) and found.get("name") not in names:
                names.add(found["name"])
                here.append({"name": found["name"], "games": found["games"], "max_games": found["max_games"]})
        return sorted(here, key=lambda b: str(b["name"]).casefold())

    async def _publish(self, message: dict[str, Any]) -> None:
        await self._redis.publish(self.channel, orjson.dumps({**message, "o": self.arena.hub.process_id}))

    async def _on_message(self, data: dict[str, Any]) -> None:
        kind = data.get("k")
        if kind == "offer":
            await self._offered_here(data)
        elif kind == "answer":
            waiting = self._waiting.pop(str(data.get("r")), None)
            if waiting is not None and not waiting.done():
                waiting.set_result(data)
        elif kind == "kick" and isinstance(data.get("bot"), int):
            code = 4000 if data.get("code") == 4000 else 1008
            await self.arena.kick(data["bot"], str(data.get("reason") or ""), code=code, everywhere=False)

    async def _offered_here(self, data: dict[str, Any]) -> None:
        """Another process's offer of a seat to a bot connected here: challenge it, answer either way."""
        answer: dict[str, Any] = {"k": "answer", "to": data.get("o"), "r": data.get("r")}
        try:
            bot = data.get("bot")
            session = self.arena.sessions.get(bot) if isinstance(bot, int) else None
            if session is None:
                raise TableError("bot_offline", "the bot is not connected", 409)
            table = await self.arena.hub.get(str(data.get("table")))
            if table is None:
                raise TableError("not_found", "the table is gone", 404)
            c = await self.arena.challenge(
                session.bot, table, int(data.get("seat", -1)), fill=str(data.get("fill")), by=str(data.get("by"))
            )
            answer["challenge"] = c.id
        except TableError as exc:
            answer["error"] = {"code": exc.code, "message": exc.message, "status": exc.status, "params": exc.params}
        with contextlib.suppress(Exception):
            await self._publish(answer)

    async def expect(self, table_id: str, count: int) -> bool:
        """Count ``count`` unanswered challenges of ``table_id`` in Redis; ``False`` without Redis (the
        count is then this process's own)."""
        await self.ready()
        if self._redis is None:
            return False
        ttl = int(self.arena.settings.challenge_seconds + 2 * OFFER_SECONDS) + 60
        try:
            await self._redis.set(self._pending + table_id, count, ex=ttl)
        except Exception:  # the challenges then go to bots connected here only (the others fail)
            log.warning("bot arena: redis unreachable", extra={"fields": {"table": table_id}})
        return True

    async def answered(self, table_id: str) -> bool | None:
        """One challenge of ``table_id`` is answered: whether it was the last (by the count in Redis);
        ``None`` without Redis."""
        if self._redis is None:
            return None
        try:
            left = int(await self._redis.decr(self._pending + table_id))
            if left <= 0:
                await self._redis.delete(self._pending + table_id)
        except Exception:  # Redis is away: the fill waits for the host (the table stays open)
            return False
        return left <= 0

    async def offer(self, process: str, bot: BotAccount, table: LiveTable, seat: int, *, fill: str, by: str) -> str:
        """Send the offer of ``seat`` of ``table`` to ``bot``'s ``process``; the challenge's id there. Raise
        :class:`TableError` with its refusal, or 409 ``bot_offline`` when it does not answer."""
        rid = secrets.token_hex(8)
        waiting = self._waiting[rid] = asyncio.get_running_loop().create_future()
        try:
            await self._publish(
                {"k": "offer", "to": process, "r": rid, "bot": bot.id}
                | {"table": table.id, "seat": seat, "fill": fill, "by": by}
            )
            reply = await asyncio.wait_for(waiting, OFFER_SECONDS)
        except Exception:
            raise TableError(
                "bot_offline", f"the bot {bot.name!r} is not connected", 409, params={"name": bot.name}
            ) from None
        finally:
            self._waiting.pop(rid, None)
        problem = reply.get("error")
        if isinstance(problem, dict):
            params = problem.get("params") or {}
            if problem.get("code") in ("bot_offline", "bot_busy"):
                params = {"name": bot.name}
            raise TableError(
                str(problem.get("code")),
                str(problem.get("message")),
                int(problem.get("status", 409)),
                params=params,
            )
        return str(reply["challenge"])

    async def kick(self, bot_id: int, reason: str, code: int) -> None:
        """Ask the other processes to close the bot's connection."""
        if self._redis is not None:
            with contextlib.suppress(Exception):
                await self._publish({"k": "kick", "to": "*", "bot": bot_id, "reason": reason, "code": code})
