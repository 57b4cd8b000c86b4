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

import pytest  # noqa: E402

from server_procs import need_postgres, need_redis  # noqa: E402


@pytest.fixture
def postgres_url() -> str:
    """A PostgreSQL URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    return need_postgres()


@pytest.fixture
def redis_url() -> str:
    """A Redis URL for tests (skips, or fails under CATSACK_REQUIRE_SERVICES=1, when absent)."""
    return need_redis()
