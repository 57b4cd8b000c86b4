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

import socket  # noqa: E402

import pytest  # noqa: E402

POSTGRES_URL = os.environ.get("CATSACK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
REDIS_URL = os.environ.get("CATSACK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def need_service(name: str, host: str, port: int) -> None:
    """Skip when ``name`` is not running, or fail when CATSACK_REQUIRE_SERVICES=1 (CI)."""
    if _reachable(host, port):
        return
    why = f"{name} is not reachable at {host}:{port}"
    if os.environ.get("CATSACK_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{why}, and CATSACK_REQUIRE_SERVICES=1 requires it")
    pytest.skip(why)


@pytest.fixture
def postgres_url() -> str:
    """A PostgreSQL URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    need_service("PostgreSQL", "127.0.0.1", 5432)
    return POSTGRES_URL


@pytest.fixture
def redis_url() -> str:
    """A Redis URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    need_service("Redis", "127.0.0.1", 6379)
    return REDIS_URL
