"""WebSockets that have not said hello yet, bounded per client address and per process.

A socket holds memory from its handshake until its hello, for at most ``HELLO_TIMEOUT`` seconds. Two
bounds keep silent sockets from costing the server its memory or its newcomers:

* **Per client address** (``CATSACK_MAX_PENDING_PER_ADDRESS``): one address holds at most so many. A
  newcomer over it is refused at the handshake with **503** and ``Retry-After`` (the seconds until that
  address's oldest waiting socket times out), or, where the server cannot answer a WebSocket handshake
  with an HTTP response, accepted and closed with **1013** ``busy``.
* **Per process**, sized by memory (``CATSACK_MAX_PENDING_CONNECTIONS``; docs/deploy.md gives the
  arithmetic): when it is full, the **oldest** waiting socket is closed (1013 ``busy``) to make room for
  the newcomer. Silent sockets from many addresses can then only cut each other's wait short; they never
  lock a newcomer out, since a real client says hello at once and leaves this list.

A reconnect that proves its seat at the handshake (``/ws/{table}?seat=<the SHA-256 of its token, hex>``,
checked against a table this process holds) counts against neither bound: a player coming back is never
refused for others' silence. The proof is what the database stores, not the token: it lets nobody act.
"""

from __future__ import annotations

import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from itertools import count
from typing import Protocol

__all__ = ["HELLO_TIMEOUT", "PendingSockets", "Waiting", "proves_seat"]

#: Seconds a socket may take to say a good hello.
HELLO_TIMEOUT = 10.0

Clock = Callable[[], float]


class _Seat(Protocol):
    @property
    def token_hash(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Waiting:
    """One socket waiting for its hello: its client address, since when (the clock's seconds), and how
    to close it should it be evicted."""

    address: str
    since: float
    close: Callable[[], Awaitable[None]]


class PendingSockets:
    """The sockets of one process that have not said hello yet, oldest first."""

    def __init__(self, per_process: int, per_address: int, *, clock: Clock = time.monotonic) -> None:
        self.per_process = per_process
        self.per_address = per_address
        self.clock = clock
        self.waiting: OrderedDict[int, Waiting] = OrderedDict()
        self.by_address: dict[str, list[int]] = {}
        self.evicted = 0  # sockets closed to make room (metrics, tests)
        self._ids = count()

    def __len__(self) -> int:
        return len(self.waiting)

    def refusal(self, address: str) -> int | None:
        """``None`` if a socket from ``address`` may wait for its hello now; else the whole seconds after
        which it may (``Retry-After``): when the address's oldest waiting socket times out."""
        mine = self.by_address.get(address)
        if mine is None or len(mine) < self.per_address:
            return None
        oldest = self.waiting[mine[0]].since
        return max(1, math.ceil(oldest + HELLO_TIMEOUT - self.clock()))

    def admit(self, address: str, close: Callable[[], Awaitable[None]]) -> tuple[int, list[Waiting]]:
        """Count a socket of ``address`` as waiting (the caller has checked :meth:`refusal`): its key for
        :meth:`release`, and the oldest sockets taken out to make room, which the caller closes."""
        evicted = []
        while len(self.waiting) >= self.per_process:
            key, oldest = next(iter(self.waiting.items()))
            self.release(key)
            evicted.append(oldest)
        self.evicted += len(evicted)
        key = next(self._ids)
        self.waiting[key] = Waiting(address, self.clock(), close)
        self.by_address.setdefault(address, []).append(key)
        return key, evicted

    def release(self, key: int) -> None:
        """The socket said hello, left, or was evicted (again is nothing)."""
        found = self.waiting.pop(key, None)
        if found is None:
            return
        mine = self.by_address[found.address]
        mine.remove(key)
        if not mine:
            del self.by_address[found.address]


def proves_seat(seats: Sequence[_Seat], proof: str) -> bool:
    """Whether ``proof`` (64 hex digits) is the stored hash of one of ``seats``' tokens."""
    if len(proof) != 64 or not all(c in "0123456789abcdef" for c in proof):
        return False
    return any(s.token_hash is not None and secrets.compare_digest(s.token_hash, proof) for s in seats)
