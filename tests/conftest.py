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
