"""Security budgets (catsack.server.budgets): sliding windows on an injected clock, in the process's
memory or in Redis shared by several processes (two budgets objects, two app instances), and a Redis
that does not answer refusing nobody."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("limits")

from hypothesis import given
from hypothesis import strategies as st

from catsack.server.budgets import Budget, Budgets


class FakeClock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_budget_is_spent_then_comes_back_as_the_clock_moves() -> None:
    async def go() -> None:
        clock = FakeClock()
        b = Budgets(clock=clock)
        five = Budget("t.five", 5, 60)
        assert [await b.spend(five, "k") for _ in range(5)] == [0.0] * 5
        wait = await b.spend(five, "k")
        assert 0 < wait <= 120
        assert await b.spend(five, "other key") == 0.0  # every key has its own
        assert await b.wait(five, "k") == wait  # a refusal spent nothing
        clock.now += wait
        assert await b.spend(five, "k") == 0.0
        await b.refund(five, "k")
        assert await b.spend(five, "k") == 0.0  # the refund gave it back

    run(go())


@given(
    st.lists(st.tuples(st.floats(min_value=0.0, max_value=200.0), st.integers(min_value=1, max_value=3)), max_size=40),
    st.integers(min_value=1, max_value=6),
)
def test_the_wait_a_refusal_names_is_honest(steps: list[tuple[float, int]], amount: int) -> None:
    """Whatever was spent before: a refusal's wait, once over, lets the same spend through; and no window
    of the budget's length ever holds more than twice its amount (the sliding window's bound)."""

    async def go() -> None:
        clock = FakeClock()
        b = Budgets(clock=clock)
        budget = Budget("t.prop", amount, 60)
        spent: list[tuple[float, int]] = []
        for gap, cost in steps:
            clock.now += gap
            wait = await b.spend(budget, "k", min(cost, amount))
            if wait > 0:
                clock.now += wait + 1e-6
                assert await b.spend(budget, "k", min(cost, amount)) == 0.0
            spent.append((clock.now, min(cost, amount)))
        for t, _ in spent:
            assert sum(c for u, c in spent if t - 60 < u <= t) <= 2 * amount

    run(go())


def test_a_redis_that_does_not_answer_refuses_nobody() -> None:
    """A budget whose Redis is away counts in the process meanwhile: the budget still holds, nothing raises."""
    from limits.aio.storage import RedisStorage

    async def go() -> None:
        dead = RedisStorage("async+redis://127.0.0.1:1/0", implementation="redispy", socket_connect_timeout=0.2)
        b = Budgets(dead, clock=FakeClock())
        two = Budget("t.two", 2, 60)
        assert [await b.spend(two, "k") for _ in range(3)][:2] == [0.0, 0.0]
        assert await b.wait(two, "k") > 0

    run(go())


def _redis_budgets(url: str, channel: str, clock: FakeClock) -> Budgets:
    from catsack.server.settings import Settings

    return Budgets.for_settings(Settings(redis_url=url, redis_channel=channel), clock=clock)


def test_two_processes_spend_one_budget_in_redis(redis_url: str) -> None:
    """Two budgets objects on one Redis (as two server processes have): five spent between them, the
    sixth is refused by both; another deployment's channel has a budget of its own."""

    async def go() -> None:
        channel = f"test-{uuid.uuid4().hex}"
        clock = FakeClock()
        one, two = _redis_budgets(redis_url, channel, clock), _redis_budgets(redis_url, channel, clock)
        five = Budget("t.shared", 5, 60)
        waits = [await (one if i % 2 else two).spend(five, "ann") for i in range(5)]
        assert waits == [0.0] * 5
        assert await one.spend(five, "ann") > 0 and await two.spend(five, "ann") > 0
        other = _redis_budgets(redis_url, f"{channel}-other", clock)
        assert await other.spend(five, "ann") == 0.0
        clock.now += 120
        assert await one.spend(five, "ann") == 0.0

    run(go())


def test_two_app_instances_share_the_login_budget(redis_url: str, tmp_path: Path) -> None:
    """Two server processes' apps on one database and one Redis: wrong passwords for one name from one
    address, sent to either app in turn, are refused after five in all (not five per process)."""
    from fastapi.testclient import TestClient

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app
    from web_clients import ORIGIN, register

    clock = FakeClock()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path}/app.db",
        redis_url=redis_url,
        redis_channel=f"test-{uuid.uuid4().hex}",
        bot_delay=0.0,
        log_json=True,
    )
    with TestClient(create_app(settings, clock=clock)) as a, TestClient(create_app(settings, clock=clock)) as b:
        assert register(a, "Owner").status_code == 201

        def login(c: TestClient, password: str) -> int:
            body = {"name": "Owner", "password": password}
            return int(c.post("/api/account/login", json=body, headers=ORIGIN).status_code)

        codes = [login(a if i % 2 else b, f"guess {i}") for i in range(8)]
        assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}, codes
