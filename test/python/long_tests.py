"""Whether this run is the long one (COMPILER_LONG_TESTS=1, `make test-long`), and the
example counts of the property tests for either run."""

from __future__ import annotations

import os

LONG_TESTS = os.environ.get("COMPILER_LONG_TESTS", "") not in ("", "0")


def examples(short: int, long: int, variable: str = "COMPILER_PROPERTY_EXAMPLES") -> int:
    """`variable` if set, else `long` in the long run and `short` in `make test`."""
    return int(os.environ.get(variable, str(long if LONG_TESTS else short)))
