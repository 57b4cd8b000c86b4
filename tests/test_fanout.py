"""The Redis fan-out between server processes (the "redis publish failed" warnings).

The old fan-out published every move on a task of its own with a one-second socket timeout: a burst
of moves while the event loop was busy elsewhere (a garbage collection, a burst of frames) timed
those publishes out, each was logged and dropped, and the other processes waited for the sweep.
Reproduced with the old code: 300 publishes during a 1.2 s stall of the loop gave 299 warnings.
Now messages queue and go out in pipelined batches from one task: the same burst arrives whole and
in order, and while Redis is away they wait and go out when it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path
from typing import Any

import pytest

from server_procs import need_redis, private_redis, spawn

pytest.importorskip("redis", reason="redis is not installed")
pytestmark = pytest.mark.services

from catsack.server.tables.fanout import Fanout  # noqa: E402


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def until(pred: Any, what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def test_a_burst_during_a_stalled_loop_arrives_whole_and_in_order(caplog: pytest.LogCaptureFixture) -> None:
    url = need_redis()
    warnings = Warnings()
    logging.getLogger("catsack.server").addHandler(warnings)

    async def go() -> None:
        got: list[dict[str, Any]] = []
        channel = f"catsack:test:{time.monotonic_ns()}"
        sub = Fanout(url, "receiver", got.append, channel)
        pub = Fanout(url, "sender", lambda m: None, channel)
        await sub.start()
        await pub.start()
        try:
            for v in range(1, 301):
                pub.publish({"k": "m", "t": "table", "v": v})
            await asyncio.sleep(0)
            time.sleep(1.2)  # the event loop is busy elsewhere for longer than any socket timeout
            await until(lambda: len(got) >= 300, "the 300 messages")
            assert [m["v"] for m in got] == list(range(1, 301))
            assert {m["o"] for m in got} == {"sender"}
            assert pub.batches < 300  # pipelined, not one round trip per move
        finally:
            await pub.stop()
            await sub.stop()

    try:
        asyncio.run(go())
    finally:
        logging.getLogger("catsack.server").removeHandler(warnings)
    assert warnings.messages == []


def test_messages_wait_while_redis_is_away(tmp_path: Path) -> None:
    """Redis stops under a running sender: what it publishes meanwhile is kept (one warning, not one
    per message) and delivered, in order, once a Redis server answers on that address again."""
    need_redis()
    warnings = Warnings()
    logging.getLogger("catsack.server").addHandler(warnings)

    async def go(url: str, restart: Any) -> None:
        got: list[dict[str, Any]] = []
        pub = Fanout(url, "sender", lambda m: None)
        await pub.start()
        try:
            await restart(stop=True)
            for v in range(1, 51):
                pub.publish({"k": "m", "t": "table", "v": v})
            await until(lambda: pub.failures > 0, "a failed send")
            await restart(stop=False)
            sub = Fanout(url, "receiver", got.append)
            await sub.start()
            try:
                await until(lambda: pub.sent >= 50, "the queued messages to go out")
                pub.publish({"k": "m", "t": "table", "v": 51})
                await until(lambda: len(got) >= 1, "the message after the outage")
                assert got[-1]["v"] == 51
            finally:
                await sub.stop()
            assert pub.dropped == 0
        finally:
            await pub.stop()

    with private_redis(tmp_path) as url:
        port = int(url.rsplit(":", 1)[1].split("/")[0])

        async def restart(*, stop: bool) -> None:
            import redis.asyncio as aioredis

            if stop:
                r = aioredis.from_url(url)
                with contextlib.suppress(Exception):  # the server closes the connection as it goes
                    await r.shutdown(nosave=True)
                await r.aclose()
            else:
                import shutil
                import subprocess

                exe = shutil.which("redis-server")
                assert exe is not None
                # Through spawn: stopped at the end of the test run even if the shutdown below never runs.
                spawn(
                    [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                await asyncio.sleep(0.3)

        try:
            asyncio.run(go(url, restart))
        finally:
            logging.getLogger("catsack.server").removeHandler(warnings)
            import redis

            with contextlib.suppress(Exception):
                redis.Redis.from_url(url).shutdown(nosave=True)
    assert sum("redis publish failed" in m for m in warnings.messages) == 1
