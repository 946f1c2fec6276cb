"""Shared test settings: bounded Hypothesis profiles.

Development runs explore new random examples every time; CI runs more examples from a fixed
derandomized sequence, so a submission's result does not depend on the luck of the draw.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# No server warm-up (ui/warmup.py) and no prefetch (ui/prefetch.py) in the tests' AppTest runs
# and servers: their caches and timings stay their own. tests/deploy/test_warmup.py and
# tests/app/test_prefetch.py turn them on.
os.environ.setdefault("ADLAB_WARMUP", "0")
os.environ.setdefault("ADLAB_PREFETCH", "0")
