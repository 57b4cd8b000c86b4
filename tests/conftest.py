"""Hypothesis profiles: ``ci`` (the default) is derandomized; ``dev`` explores new examples.

Pick one with ``HYPOTHESIS_PROFILE=dev``. Neither keeps an example database,
so the tests never write into the repository.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# ---------------------------------------------------------------------- services

from collections.abc import Callable, Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from server_procs import need_postgres, need_redis, postgres_schema, stop_all  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def no_process_outlives_the_tests() -> Iterator[None]:
    """Whatever a test or fixture left running (servers, nginx, Redis started through server_procs)
    is killed when the session ends; what was found is printed, since each should have stopped its own."""
    yield
    left = stop_all()
    if left:
        print(f"\nstopped processes that tests left running: {left}")


@pytest.fixture
def postgres_url() -> str:
    """A PostgreSQL URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    return need_postgres()


@pytest.fixture
def redis_url() -> str:
    """A Redis URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    return need_redis()


@pytest.fixture
def db_schema_url() -> Iterator[str]:
    """A PostgreSQL URL on a fresh schema of its own (dropped afterwards); skips or fails like ``postgres_url``."""
    with postgres_schema() as (url, _schema):
        yield url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[str]:
    """A database URL for an app under test: each test that asks runs on SQLite and on PostgreSQL (a
    schema of its own; skips, or fails under CATSACK_REQUIRE_SERVICES=1, when PostgreSQL is absent)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/app.db"
    else:
        with postgres_schema() as (url, _schema):
            yield url


@pytest.fixture
def app_server(db_url: str) -> Iterator[Callable[..., Any]]:
    """A factory: ``app_server(**settings)`` gives a started TestClient on ``db_url`` (closed at the end)."""
    from fastapi.testclient import TestClient

    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    clients: list[TestClient] = []

    def start(**kw: Any) -> TestClient:
        base: dict[str, Any] = {
            "database_url": db_url,
            "bot_delay": 0.0,
            "sweep_seconds": 0.1,
            "grace_seconds": 3600.0,
            "log_json": True,
        }
        base.update(kw)
        c = TestClient(create_app(Settings(**base)))
        c.__enter__()
        clients.append(c)
        return c

    yield start
    for c in reversed(clients):
        c.__exit__(None, None, None)


# ---------------------------------------------------------------------- markers (``make test-fast`` leaves them out)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that drive Chromium (``browser``) by their files, and the ones that run on
    PostgreSQL or Redis through a fixture (``services``); ``slow`` tests carry their own mark."""
    for item in items:
        if item.path.name.startswith("test_browser"):
            item.add_marker(pytest.mark.browser)
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        on_postgres = "postgres" in (params.get("db_url"), params.get("backend"))
        if on_postgres or {"postgres_url", "redis_url", "db_schema_url"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)
