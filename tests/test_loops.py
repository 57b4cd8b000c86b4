"""A server process's background loops (catsack.server.tables.loops): named, listed, stopped in one call."""

from __future__ import annotations

import asyncio

import pytest

from catsack.server.tables.loops import Loops


def test_loops_are_named_listed_and_stopped_together() -> None:
    async def body() -> None:
        loops = Loops()
        ended: list[str] = []

        async def forever(name: str) -> None:
            try:
                await asyncio.Event().wait()
            finally:
                ended.append(name)

        loops.start("sweep", forever("sweep"))
        loops.start("leases", forever("leases"))
        await asyncio.sleep(0)
        assert loops.names == ["sweep", "leases"]
        with pytest.raises(RuntimeError, match="'sweep' is running already"):
            loops.start("sweep", forever("again"))
        await loops.stop()
        assert sorted(ended) == ["leases", "sweep"] and loops.names == []
        await loops.stop()  # again: nothing left to stop

    asyncio.run(body())


def test_a_spawned_task_runs_to_its_end_unwaited() -> None:
    async def body() -> None:
        loops = Loops()
        done = asyncio.Event()

        async def work() -> None:
            await asyncio.sleep(0)
            done.set()

        loops.spawn(work())
        await asyncio.wait_for(done.wait(), 30)

    asyncio.run(body())
