"""Whether this run is the long one (COMPILER_LONG_TESTS=1, `make test-long`), and the
example counts of the property tests for either run."""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from typing import Any

import pytest

LONG_TESTS = os.environ.get("COMPILER_LONG_TESTS", "") not in ("", "0")


def examples(short: int, long: int, variable: str = "COMPILER_PROPERTY_EXAMPLES") -> int:
    """`variable` if set, else `long` in the long run and `short` in `make test`."""
    return int(os.environ.get(variable, str(long if LONG_TESTS else short)))


def long_except(values: Sequence[Any], fast: Collection[Any]) -> list[Any]:
    """`values` as pytest parameters, each one not in `fast` marked `long`: `make test`
    runs the `fast` ones, `make test-long` all (a tuple value is one parameter set)."""

    def param(value: Any) -> Any:
        args = value if isinstance(value, tuple) else (value,)
        name = "-".join(str(a).removeprefix("torch.") for a in args)  # torch.float16 -> float16
        return pytest.param(*args, marks=() if value in fast else pytest.mark.long, id=name)

    return [param(v) for v in values]
