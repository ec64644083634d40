"""Make the shared helpers of test/python importable (pytest runs in importlib mode)."""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

# CI runs every property test on the same examples (a failure there is reproducible
# and never flaky); locally, hypothesis explores new examples on every run.
from hypothesis import Phase, settings

settings.register_profile(
    "ci", derandomize=True, print_blob=True, phases=[p for p in Phase if p != Phase.explain]
)
settings.register_profile("dev", phases=[p for p in Phase if p != Phase.explain])
settings.load_profile("ci" if os.environ.get("CI") else "dev")
