"""Process-wide set-up of the server: structured logging and garbage-collector tuning."""

from __future__ import annotations

import asyncio
import functools
import gc
import json
import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from catsack.server.settings import Settings

__all__ = ["YOUNG_MIN", "GcLog", "JsonFormatter", "collect_young", "safe_url", "setup_logging"]

log = logging.getLogger("catsack.server")

#: Fewer new objects than this since the last collection: the timed young collection waits (a quiet
#: process allocates a few dozen objects a tick; a busy one thousands).
YOUNG_MIN = 200


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message and the record's ``fields``."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            out.update(fields)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


class GcLog:
    """Times every garbage-collector pause through ``gc.callbacks`` and logs it."""

    def __init__(self) -> None:
        self.t0 = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.t0 = time.perf_counter()
            return
        ms = (time.perf_counter() - self.t0) * 1000.0
        log.info("gc", extra={"fields": {"gen": info.get("generation"), "ms": round(ms, 3)}})


async def collect_young(
    interval: float, full_seconds: float, on_pause: Callable[[int, float], None] | None = None
) -> None:
    """Short, frequent young-generation collections instead of rare long ones; the middle generation
    every 10th time, everything every ``full_seconds`` (timed collections never trigger the older
    generations by themselves). A tick with fewer than :data:`YOUNG_MIN` new objects is skipped: an
    idle process then costs almost nothing, which matters with several processes on one machine.
    ``on_pause(generation, seconds)`` hears how long each collection took (the metrics)."""
    ticks = 0
    last_full = time.monotonic()
    while True:
        await asyncio.sleep(interval)
        if time.monotonic() - last_full >= full_seconds:
            gen = 2
        elif gc.get_count()[0] >= YOUNG_MIN:
            ticks += 1
            gen = 1 if ticks % 10 == 0 else 0
        else:
            continue
        t0 = time.perf_counter()
        gc.collect(gen)
        if gen == 2:
            last_full = time.monotonic()
        if on_pause is not None:
            on_pause(gen, time.perf_counter() - t0)


def setup_logging(settings: Settings) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if settings.log_json else logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    )
    logger = logging.getLogger("catsack.server")
    logger.handlers[:] = [handler]
    logger.setLevel(settings.log_level.upper())
    logger.propagate = False


def safe_url(url: str) -> str:
    """The database URL without a password, for logs."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


@functools.cache
def _libc() -> Any:
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


def malloc_trim() -> bool:
    """Ask glibc to hand free heap memory back to the system (``malloc_trim(0)``); ``False`` where the
    C library has no such call. Evicted tables free their Python objects, but glibc keeps the freed
    pages for reuse, so without this the resident size stays at its high-water mark
    (that, not a leak, is most of what the create/abandon run showed)."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
