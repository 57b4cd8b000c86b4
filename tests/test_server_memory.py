"""Memory after eviction, measured where it matters: the resident size (RSS) of a real ``catsack serve``
process after many tables were made, played to the end or left, over real sockets.

The in-process test (test_server.py, c19) measures the Python heap with ``tracemalloc``; this one
runs the server as a subprocess and reads its ``VmRSS`` from ``/proc``, which also counts what the C
allocator keeps, the event loop, uvicorn's per-connection state and SQLite's caches. Each cycle is
either a game of three bots that a spectator watches over a WebSocket to its end, or a table one
person joins, connects to and leaves. After a warm-up (caches, pools and the allocator's arenas
reach their working size) the RSS is the baseline; after many more cycles and eviction it must be
back near it. The server asks glibc to return freed memory (``malloc_trim``) after evictions.

Linux only (reads ``/proc``); a few hundred cycles so it fits in the suite.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from server_procs import ServerProc, WsClient

pytest.importorskip("fastapi", reason="the server extra (fastapi, uvicorn, sqlalchemy) is not installed")
pytest.importorskip("websockets", reason="websockets is not installed")
httpx = pytest.importorskip("httpx")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/<pid>/status")

WARMUP = 80
CYCLES = 240
CONCURRENCY = 12
#: Allowed growth of the resident size over CYCLES cycles after the warm-up. Before the eviction
#: fixes the figure was 75 -> 227 MB over 7,200 cycles (~21 KiB per cycle); a leak of
#: that size would show here as ~5 MiB.
MAX_GROWTH_MIB = 4.0


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError(f"no VmRSS for pid {pid}")


async def cycle(server: ServerProc, client: Any, i: int) -> None:
    if i % 2 == 0:  # a finished game: three bots, a spectator watches it end
        r = await client.post("/api/tables", json={"seats": 3, "bots": {"0": "random", "1": "random", "2": "random"}})
        assert r.status_code == 201, r.text
        w = WsClient(server.ws_url, r.json()["table"], None, label=f"watch{i}")
        await w.connect()
        await w.wait(lambda: w.latest is not None and w.latest["table_status"] == "over", 30)
        await w.close()
    else:  # left: one person creates a table, sits at it (one request), connects and goes away
        r = await client.post("/api/tables", json={"seats": 4, "player": f"p{i}"})
        assert r.status_code == 201, r.text
        w = WsClient(server.ws_url, r.json()["table"], r.json()["token"], label=f"p{i}")
        try:
            await w.connect()
        except AssertionError:
            # On a busy machine the connection may come after EVICT_OPEN_SECONDS: the sweep has abandoned
            # the waiting table by then, as it should, and the table is gone all the same.
            if not any(f.get("code") == "unknown_table" for f in w.frames):
                raise
        await w.close()


async def cycles(server: ServerProc, n: int, start: int) -> None:
    sem = asyncio.Semaphore(CONCURRENCY)
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:

        async def one(i: int) -> None:
            async with sem:
                await cycle(server, client, i)

        await asyncio.gather(*(one(start + i) for i in range(n)))


TRIM_SECONDS = 2.5  # the sweep trims the heap at most every 2 s after an eviction
WAIT = 60.0  # seconds: bounds a wait for a condition, so only a failure ever takes this long


def evicted(server: ServerProc) -> None:
    """Wait until every table is evicted."""
    end = time.monotonic() + WAIT
    while server.get_json("/health")["tables"] > 0:
        assert time.monotonic() < end, f"tables still in memory: {server.get_json('/health')}"
        time.sleep(0.1)


def settled_rss(server: ServerProc, at_most: float | None = None) -> float:
    """The RSS once every table is evicted and the allocator was trimmed.

    A trim comes with a sweep at least ``TRIM_SECONDS`` after the last eviction, later on a busy
    machine: with ``at_most``, the RSS is read again until it is that low, for up to ``WAIT`` seconds
    (a leak never gets there). Without, the lowest RSS seen in ``TRIM_SECONDS`` after the eviction:
    an untrimmed baseline only makes the test more lenient, never flaky.
    """
    assert server.proc is not None
    evicted(server)
    low = rss_mib(server.proc.pid)
    start = time.monotonic()
    while True:
        waited = time.monotonic() - start
        if waited >= WAIT or (waited >= TRIM_SECONDS and (at_most is None or low <= at_most)):
            return low
        time.sleep(0.1)
        low = min(low, rss_mib(server.proc.pid))


@pytest.mark.slow
def test_c19_rss_back_near_baseline_over_real_sockets(tmp_path: Path) -> None:
    """Hundreds of finished and left tables over real WebSockets; the
    server's RSS after eviction stays within a few MiB of its post-warm-up baseline."""
    env = {
        "CATSACK_DATABASE_URL": f"sqlite:///{tmp_path / 'rss.db'}",
        "CATSACK_BOT_DELAY": "0",
        "CATSACK_SWEEP_SECONDS": "0.2",
        "CATSACK_EVICT_FINISHED_SECONDS": "0.1",
        "CATSACK_EVICT_OPEN_SECONDS": "1",
        "CATSACK_EVICT_IDLE_SECONDS": "0.5",
        "CATSACK_GRACE_SECONDS": "600",
        "CATSACK_HTTP_RATE_PER_SECOND": "100000",
        "CATSACK_HTTP_RATE_BURST": "100000",
    }
    server = ServerProc(tmp_path, env, name="rss")
    figures: dict[str, Any] = {}
    try:
        server.start()
        assert server.proc is not None
        figures["start_mib"] = round(rss_mib(server.proc.pid), 1)
        t0 = time.monotonic()
        asyncio.run(cycles(server, WARMUP, 0))
        figures["baseline_mib"] = base = round(settled_rss(server), 1)
        asyncio.run(cycles(server, CYCLES, WARMUP))
        figures["end_mib"] = end = round(settled_rss(server, at_most=base + MAX_GROWTH_MIB), 1)
        figures["cycles"] = WARMUP + CYCLES
        figures["seconds"] = round(time.monotonic() - t0, 1)
        figures["kib_per_cycle"] = round((end - base) * 1024 / CYCLES, 2)
    except BaseException:
        print(server.tail(30))
        raise
    finally:
        server.stop()
        print(f"\nRSS over create/finish/leave cycles: {figures}")
    assert end - base <= MAX_GROWTH_MIB, figures
