"""Abuse limits: per-connection frame budgets (checklist 14)."""

from __future__ import annotations

import time

__all__ = ["RateLimit"]


class RateLimit:
    """A token bucket per connection (checklist 14)."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.rate = per_second
        self.burst = float(burst)
        self.tokens = float(burst)
        self.t = time.monotonic()
        self.dropped = 0

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.t) * self.rate)
        self.t = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self.dropped += 1
        return False
