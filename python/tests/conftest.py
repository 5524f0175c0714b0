"""Shared settings for ndpad's Python suite: hypothesis profiles sized for CI (2 cores)."""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(__file__))

settings.register_profile(
    "default",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.filter_too_much],
    print_blob=True,
)
# CI (CI=true) runs a fixed set of examples, so that its verdict is reproducible;
# local runs draw new ones each time.
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")
# More examples: NDPAD_HYPOTHESIS_SCALE=10 multiplies every test's max_examples.
