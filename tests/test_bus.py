"""The tables' event registry (catsack.server.tables.bus): order, errors kept from the publisher, tasks."""

from __future__ import annotations

import asyncio
import logging

import pytest

from catsack.server.tables.bus import Bus, MoveApplied, SeatsChanged, TablesAdopted


def test_publish_awaits_handlers_in_order_and_a_failing_one_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    heard: list[str] = []
    bus = Bus()

    async def first(e: TablesAdopted) -> None:
        await asyncio.sleep(0)
        heard.append(f"first {e.table_ids}")

    def broken(_e: TablesAdopted) -> None:
        raise RuntimeError("a listener broke")

    async def last(_e: TablesAdopted) -> None:
        heard.append("last")

    bus.subscribe(TablesAdopted, first)
    bus.subscribe(TablesAdopted, broken)
    bus.subscribe(TablesAdopted, last)
    bus.subscribe(MoveApplied, lambda _e: heard.append("never"))  # another kind
    with caplog.at_level(logging.ERROR, logger="catsack.server"):
        asyncio.run(bus.publish(TablesAdopted(("t1",))))
    assert heard == ["first ('t1',)", "last"]
    assert "event handler failed" in caplog.text


def test_emit_calls_plain_handlers_at_once_and_runs_coroutines_in_a_task() -> None:
    heard: list[object] = []
    bus = Bus()

    async def later(e: SeatsChanged) -> None:
        heard.append(("later", e.table_id))

    bus.subscribe(SeatsChanged, lambda e: heard.append(("now", e.table_id)))
    bus.subscribe(SeatsChanged, later)

    async def body() -> None:
        bus.emit(SeatsChanged("t"))
        assert heard == [("now", "t")]  # the coroutine waits for the loop
        for _ in range(3):
            await asyncio.sleep(0)
        assert heard == [("now", "t"), ("later", "t")]

    asyncio.run(body())


def test_publish_soon_returns_before_the_handlers_and_unsubscribe_stops_them() -> None:
    heard: list[int] = []
    bus = Bus()

    async def handler(e: MoveApplied) -> None:
        heard.append(e.version)

    bus.subscribe(MoveApplied, handler)

    async def body() -> None:
        bus.publish_soon(MoveApplied("t", 1))
        assert heard == []
        for _ in range(3):
            await asyncio.sleep(0)
        assert heard == [1]
        bus.unsubscribe(MoveApplied, handler)
        assert bus.subscribed(MoveApplied) == 0
        bus.publish_soon(MoveApplied("t", 2))
        await asyncio.sleep(0)
        assert heard == [1]

    asyncio.run(body())
