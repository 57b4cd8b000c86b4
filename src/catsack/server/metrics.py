"""Prometheus metrics of one server process, served at ``/metrics`` (names prefixed ``catsack_``).

Each app has its own :class:`~prometheus_client.CollectorRegistry`, so several apps in one
process (tests) never clash, and nothing registers at import time.
"""

from __future__ import annotations

import gc
from collections.abc import Sized
from functools import partial
from typing import Protocol

__all__ = ["Metrics"]

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
_GC_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
_THINK_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_GENERATIONS = ("0", "1", "2")


class Counted(Protocol):
    """What the live gauges read: the hub's tables and its connections per address."""

    @property
    def tables(self) -> Sized: ...

    @property
    def addresses(self) -> dict[str, int]: ...


def _collections(generation: int) -> float:
    return float(gc.get_stats()[generation]["collections"])


class Metrics:
    """The counters, gauges and histograms of one app; :meth:`bind` ties the gauges to a hub."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.live_tables = Gauge("catsack_live_tables", "Tables held in memory by this process", registry=r)
        self.connections = Gauge("catsack_connections", "Open WebSocket connections", registry=r)
        self.moves = Counter("catsack_moves_applied", "Moves committed and applied, by actor", ["actor"], registry=r)
        self.acks = Counter("catsack_acks", "Moves acknowledged to the client that sent them", registry=r)
        self.errors = Counter("catsack_errors", "Error answers (WebSocket and HTTP), by code", ["code"], registry=r)
        self.append_conflicts = Counter(
            "catsack_append_conflicts", "Moves refused because another writer appended that version first", registry=r
        )
        self.http_refused = Counter(
            "catsack_http_refused", "HTTP requests refused by the abuse limits, by reason", ["reason"], registry=r
        )
        self.latency = Histogram(
            "catsack_action_broadcast_seconds",
            "From a move frame's arrival to its state frames queued for every connection",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.gc_pause = Histogram(
            "catsack_gc_pause_seconds",
            "Pauses of the timed garbage collections (catsack.server.tables.runtime.collect_young)",
            ["generation"],
            buckets=_GC_BUCKETS,
            registry=r,
        )
        self.gc_collections = Gauge(
            "catsack_gc_collections",
            "Garbage collections since the process started, timed and automatic",
            ["generation"],
            registry=r,
        )
        for gen in range(3):
            self.gc_collections.labels(str(gen)).set_function(partial(_collections, gen))
        self.bot_think = Histogram(
            "catsack_bot_think_seconds", "Time a bot takes to move", ["bot"], buckets=_THINK_BUCKETS, registry=r
        )

    def bind(self, hub: Counted) -> None:
        """Read the live gauges from ``hub`` whenever metrics are collected."""
        self.live_tables.set_function(lambda: float(len(hub.tables)))
        self.connections.set_function(lambda: float(sum(hub.addresses.values())))

    def gc_paused(self, generation: int, seconds: float) -> None:
        """A timed collection of ``generation`` took ``seconds``. Pauses are timed where the server
        collects, not through ``gc.callbacks``, which would run twice at every collection; the
        collections Python starts by itself are counted in ``catsack_gc_collections``, not timed."""
        self.gc_pause.labels(_GENERATIONS[generation]).observe(seconds)

    # ------------------------------------------------------------------ output

    def render(self) -> tuple[bytes, str]:
        """The text exposition format and its content type."""
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    def error(self, code: str) -> None:
        self.errors.labels(code).inc()
