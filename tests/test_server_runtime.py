"""The server's timed garbage collection (``catsack.server.tables.runtime.collect_young``).

Young collections run on a timer instead of on allocation counts, so that a busy process pays many
short pauses rather than a few long ones; a quiet process skips them (every process of a
deployment pays its own housekeeping, and an idle one should cost almost nothing). The timer's sleep
and the collector are replaced by fakes: the test counts ticks, not seconds.
"""

from __future__ import annotations

import asyncio
import gc
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from catsack.server.tables import runtime


class _Stop(Exception):
    pass


def _run_ticks(monkeypatch: pytest.MonkeyPatch, counts: list[int], full_seconds: float = 1e9) -> list[int]:
    """Run ``collect_young`` for ``len(counts)`` ticks, the young generation holding ``counts[i]``
    objects at tick ``i``; the generations it collected, in order."""
    collected: list[int] = []
    ticks = iter(counts)
    state = {"count": 0}

    async def sleep(_: float) -> None:
        try:
            state["count"] = next(ticks)
        except StopIteration:
            raise _Stop from None

    monkeypatch.setattr(runtime.asyncio, "sleep", sleep)
    monkeypatch.setattr(runtime.gc, "get_count", lambda: (state["count"], 0, 0))
    monkeypatch.setattr(runtime.gc, "collect", lambda gen=2: collected.append(gen) or 0)
    with pytest.raises(_Stop):
        asyncio.run(runtime.collect_young(0.1, full_seconds))
    return collected


def test_a_quiet_process_skips_its_young_collections(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run_ticks(monkeypatch, [0, 5, runtime.YOUNG_MIN - 1] * 10) == []


def test_a_busy_process_collects_every_tick_and_the_middle_generation_every_tenth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _run_ticks(monkeypatch, [runtime.YOUNG_MIN] * 20) == [0] * 9 + [1] + [0] * 9 + [1]
    # Skipped ticks do not count towards the tenth.
    busy_and_quiet = [runtime.YOUNG_MIN, 0] * 10
    assert _run_ticks(monkeypatch, busy_and_quiet) == [0] * 9 + [1]


def test_the_full_collection_runs_on_time_even_when_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run_ticks(monkeypatch, [0, 0, 0], full_seconds=0.0) == [2, 2, 2]


def test_each_timed_collection_reports_its_pause(monkeypatch: pytest.MonkeyPatch) -> None:
    paused: list[tuple[int, float]] = []
    ticks = iter([runtime.YOUNG_MIN, 0, runtime.YOUNG_MIN])

    async def sleep(_: float) -> None:
        try:
            state["count"] = next(ticks)
        except StopIteration:
            raise _Stop from None

    state = {"count": 0}
    monkeypatch.setattr(runtime.asyncio, "sleep", sleep)
    monkeypatch.setattr(runtime.gc, "get_count", lambda: (state["count"], 0, 0))
    monkeypatch.setattr(runtime.gc, "collect", lambda gen=2: 0)
    with pytest.raises(_Stop):
        asyncio.run(runtime.collect_young(0.1, 1e9, lambda gen, seconds: paused.append((gen, seconds))))
    assert [gen for gen, _ in paused] == [0, 0]  # the quiet tick collected nothing and reported nothing
    assert all(seconds >= 0.0 for _, seconds in paused)


def test_the_server_hooks_nothing_into_every_collection(tmp_path: Path) -> None:
    """The metrics time the timed collections where they run: no ``gc.callbacks`` entry, which would run
    at every collection, the many short ones included (``CATSACK_GC_LOG`` adds one, for load tests)."""
    from fastapi.testclient import TestClient

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    before = list(gc.callbacks)
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'gc.db'}", metrics=True, log_json=False)
    with TestClient(create_app(settings)) as client:
        assert gc.callbacks == before
        text = client.get("/metrics").text
        assert 'catsack_gc_collections{generation="0"}' in text
