"""The server's timed garbage collection (``catsack.server.runtime.collect_young``).

Young collections run on a timer instead of on allocation counts, so that a busy process pays many
short pauses rather than a few long ones; a quiet process skips them (issue 29: every process of a
deployment pays its own housekeeping, and an idle one should cost almost nothing). The timer's sleep
and the collector are replaced by fakes: the test counts ticks, not seconds.
"""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("fastapi")

from catsack.server import runtime


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
