"""Security budgets: how many password attempts, password resets, verification mails and registrations
a client address, an account name or a mailbox may spend in a while.

Every budget is *amount* events per *seconds*, counted as a sliding window (the current window's count
plus the previous window's, weighted by how much of it still overlaps): no burst at a window's edge
doubles it. The counts live in the ``limits`` library's storage: Redis when ``CATSACK_REDIS_URL`` is set,
so that every server process spends from one budget (two processes no longer give an attacker twice the
guesses), and the library's in-process memory storage otherwise. A Redis that does not answer is not a
reason to refuse anyone: the process counts in its own memory until Redis is back (and logs it).

The windows are computed from an injected clock (:attr:`Budgets.clock`), not from the storage's: tests
move a fake clock instead of waiting, and nothing here reads the wall clock but the default clock. The
storage's own expiry only forgets counts that no window needs any more. Keys are hashed (no name or mail
address is stored in Redis in clear).

:class:`LoginThrottle` is the password-guess policy built on these budgets; the budgets of the password
reset, the verification mail and registration are in :data:`RESET_PER_CLIENT` and the other constants
below (docs/deploy.md, "Security budgets", lists them all).
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catsack.server.settings import Settings

__all__ = [
    "ADDRESS_CHANGES_PER_CLIENT",
    "REGISTRATIONS_PER_CLIENT",
    "RESET_ALARMED",
    "RESET_PER_CLIENT",
    "RESET_PER_RECIPIENT",
    "RESET_PER_RECIPIENT_AND_CLIENT",
    "VERIFY_PER_RECIPIENT",
    "Budget",
    "Budgets",
    "LoginThrottle",
]

log = logging.getLogger("catsack.server")

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Budget:
    """``amount`` events per ``seconds`` for each key (a client address, a name, a mailbox), under ``name``."""

    name: str
    amount: int
    seconds: int

    def __post_init__(self) -> None:
        if self.amount < 1 or self.seconds < 1:
            raise ValueError(f"budget {self.name}: amount and seconds must be at least 1")


#: Password attempts per client address, over all names (spraying one password over many names).
LOGIN_PER_CLIENT = Budget("login.client", 20, 60)
#: Wrong passwords per (name, client address): a client that keeps guessing one name waits, nobody else.
LOGIN_FAILURES_PER_PAIR = Budget("login.pair", 5, 300)
#: Wrong passwords per name from every address; spent, the name is under a distributed attack and each
#: (name, client address) pair gets :data:`LOGIN_ALARMED` instead.
LOGIN_FAILURES_PER_NAME = Budget("login.name", 30, 600)
LOGIN_ALARMED = Budget("login.alarmed", 1, 300)
#: New accounts per client address.
REGISTRATIONS_PER_CLIENT = Budget("register.client", 20, 3600)
#: Password-reset requests per client address, over every mailbox asked for.
RESET_PER_CLIENT = Budget("reset.client", 10, 3600)
#: Reset mails per mailbox (whoever asks): spent, the mailbox is under attack and each (mailbox, client
#: address) pair gets :data:`RESET_ALARMED`, so the owner asking from an address of their own still gets
#: a link while strangers' addresses get one each a day.
RESET_PER_RECIPIENT = Budget("reset.recipient", 3, 3600)
RESET_ALARMED = Budget("reset.alarmed", 1, 86400)
#: Reset requests per (mailbox, client address) before the mailbox's budget is spent.
RESET_PER_RECIPIENT_AND_CLIENT = Budget("reset.pair", 3, 3600)
#: Verification mails per mailbox over every account (a stranger's inbox is nobody's target).
VERIFY_PER_RECIPIENT = Budget("verify.recipient", 3, 86400)
#: Address changes (each sends a verification mail) per client address, over every account.
ADDRESS_CHANGES_PER_CLIENT = Budget("address.client", 10, 86400)


def _digest(key: str) -> str:
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class Budgets:
    """Budgets spent from a ``limits`` storage (``storage``: Redis shared by every process; ``None``: the
    process's memory), windows on ``clock`` (epoch seconds)."""

    def __init__(self, storage: Any = None, *, clock: Clock = time.time) -> None:
        from limits.aio.storage import MemoryStorage

        self.clock = clock
        self.shared = storage
        self.local = MemoryStorage()
        self._warned = 0.0

    @classmethod
    def for_settings(cls, settings: Settings, *, clock: Clock = time.time) -> Budgets:
        """Redis (``CATSACK_REDIS_URL``, keys under ``CATSACK_REDIS_CHANNEL``) when configured, else memory."""
        storage = None
        if settings.redis_url:
            from limits.aio.storage import RedisStorage

            url = settings.redis_url
            url = f"redis+{url}" if url.startswith("unix://") else url  # the library's name for a Unix socket
            storage = RedisStorage(
                f"async+{url}",
                implementation="redispy",
                key_prefix=f"{settings.redis_channel}:budgets",
                socket_timeout=1.0,
                socket_connect_timeout=1.0,
            )
        return cls(storage, clock=clock)

    def _keys(self, budget: Budget, key: str, now: float) -> tuple[str, str, float]:
        window = math.floor(now / budget.seconds)
        digest = _digest(key)
        into = now / budget.seconds - window  # how far into the current window, 0 to 1
        return f"{budget.name}:{window}:{digest}", f"{budget.name}:{window - 1}:{digest}", into

    async def _call(self, method: str, *args: Any) -> int:
        if self.shared is not None:
            try:
                return int(await getattr(self.shared, method)(*args))
            except Exception:
                now = time.monotonic()
                if now - self._warned > 60.0:
                    self._warned = now
                    log.warning("security budgets: Redis does not answer; counting in this process meanwhile")
        return int(await getattr(self.local, method)(*args))

    @staticmethod
    def _wait(budget: Budget, previous: int, current: int, into: float, cost: int) -> float:
        """Seconds until ``cost`` more fits (0.0: now) with these counts, ``into`` the current window."""
        room = budget.amount - cost
        if previous * (1.0 - into) + current <= room + 1e-9:  # a wait computed before, once over, is enough
            return 0.0
        if current <= room:  # the previous window's share has to fade
            return max(0.0, (1.0 - (room - current) / previous - into) * budget.seconds)
        if cost > budget.amount:
            return math.inf
        # This window alone holds too many: once it is the previous one, its share has to fade.
        return (1.0 - into + (1.0 - room / current)) * budget.seconds

    async def wait(self, budget: Budget, key: str, cost: int = 1) -> float:
        """Seconds until ``key`` may spend ``cost`` of ``budget`` (0.0: now); spends nothing."""
        current_key, previous_key, into = self._keys(budget, key, self.clock())
        previous = await self._call("get", previous_key)
        current = await self._call("get", current_key)
        return self._wait(budget, previous, current, into, cost)

    async def spend(self, budget: Budget, key: str, cost: int = 1) -> float:
        """Spend ``cost`` of ``key``'s ``budget``: 0.0 if it was there (and is spent now), else the seconds
        until it would be (nothing is spent then). Safe with other processes spending at once: a count
        taken past the budget is given back, so a race can refuse one more, never allow one more."""
        current_key, previous_key, into = self._keys(budget, key, self.clock())
        expiry = 2 * budget.seconds + 60
        current = await self._call("incr", current_key, expiry, cost)
        previous = await self._call("get", previous_key)
        wait = self._wait(budget, previous, current - cost, into, cost)
        if wait > 0:
            await self._call("incr", current_key, expiry, -cost)
        return wait

    async def count(self, budget: Budget, key: str, cost: int = 1) -> None:
        """Count ``cost`` events of ``key`` whatever the budget says (a wrong password that was tried)."""
        current_key, _previous, _into = self._keys(budget, key, self.clock())
        await self._call("incr", current_key, 2 * budget.seconds + 60, cost)

    async def refund(self, budget: Budget, key: str, cost: int = 1) -> None:
        """Give back ``cost`` spent in this window (what was spent came to nothing)."""
        await self.count(budget, key, -cost)


class LoginThrottle:
    """Budgets for password guesses that no stranger can turn against an account's owner.

    A budget per account name shared by every address would let anyone lock any account: five wrong
    passwords from anywhere, and the owner's right one refused from everywhere. Here:

    * every client address has a budget of attempts over all names (:data:`LOGIN_PER_CLIENT`);
    * every (name, address) pair has a budget of *failures* (:data:`LOGIN_FAILURES_PER_PAIR`): an address
      that keeps guessing one name waits, and nobody else does;
    * every name has a budget of failures over all addresses (:data:`LOGIN_FAILURES_PER_NAME`). Spent, the
      name is under a distributed attack, and each pair's budget shrinks to :data:`LOGIN_ALARMED` (one
      failure per few minutes per address). The owner trying from a new address still gets in at the
      first try, while a thousand attacking addresses get a thousand guesses per few minutes, not per
      second.

    Only failures spend the pair and name budgets, so a right password never costs the owner anything.
    With Redis configured every process spends from the same budgets.
    """

    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets

    @staticmethod
    def _pair(name: str, address: str) -> str:
        return f"{name}\x00{address}"

    async def attempt(self, name: str, address: str) -> float:
        """Spend one attempt of ``address`` at ``name`` (a comparison key): 0.0 if it may try now, else
        the seconds to wait (nothing is spent then but the address's attempt)."""
        wait = await self.budgets.spend(LOGIN_PER_CLIENT, address)
        if wait > 0:
            return wait
        pair = self._pair(name, address)
        wait = await self.budgets.wait(LOGIN_FAILURES_PER_PAIR, pair)
        if await self.budgets.wait(LOGIN_FAILURES_PER_NAME, name) > 0:  # under attack: the small budget too
            wait = max(wait, await self.budgets.wait(LOGIN_ALARMED, pair))
        return wait

    async def failed(self, name: str, address: str) -> None:
        """Count a wrong password of ``address`` for ``name``."""
        pair = self._pair(name, address)
        await self.budgets.count(LOGIN_FAILURES_PER_PAIR, pair)
        await self.budgets.count(LOGIN_FAILURES_PER_NAME, name)
        await self.budgets.count(LOGIN_ALARMED, pair)
