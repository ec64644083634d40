"""Helpers of the TVM conformance suite.

* `Guarded`: an output array placed inside a larger buffer filled with a
  sentinel (NaN for floats), so a test proves that nothing outside the
  array was written.
* `loop_ir`, `allocs`, `loops`: the IR after schedule-ops
  (`compiler.lower(..., until="loop")`), and the realized region of every
  `loop.alloc` and the extent of every `loop.for` read off it: the
  counterpart of TVM's `InferBound` map.
* `arena_bytes`, `offsets`: the memory plan (`compiler.build(...).memory`).
* `isolated`: runs a test in a child interpreter, so that a test whose
  program may write out of bounds fails instead of corrupting or crashing
  the pytest process.
* `xfail_missing`: the strict xfail marker of a test that needs a missing or
  buggy feature; it turns red (XPASS) the moment the feature lands.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import compiler

RNG = np.random.default_rng(20240519)
PAD = 256  # sentinel elements on each side of a guarded array


def xfail_missing(reason: str) -> pytest.MarkDecorator:
    """A test that TVM's semantics require and this compiler can't do yet."""
    return pytest.mark.xfail(strict=True, reason=reason)


def rand(shape: Sequence[int] | int, dtype: str = "float32") -> np.ndarray:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if np.dtype(dtype).kind == "f":
        return RNG.uniform(-1.0, 1.0, shape).astype(dtype)
    return RNG.integers(-50, 50, shape).astype(dtype)


class Guarded:
    """`array` is a view into `backing`, which holds PAD sentinels on each side."""

    def __init__(self, shape: Sequence[int] | int, dtype: str = "float32", pad: int = PAD):
        self.shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.pad = pad
        self.sentinel: Any = np.nan if self.dtype.kind == "f" else np.iinfo(self.dtype).min + 3
        self.backing = np.full(self.size + 2 * pad, self.sentinel, self.dtype)
        self.array = self.backing[pad : pad + self.size].reshape(self.shape)
        assert self.array.base is not None  # a view: writes through it land in backing

    def _touched(self, region: np.ndarray) -> np.ndarray:
        if self.dtype.kind == "f":
            return np.flatnonzero(~np.isnan(region))
        return np.flatnonzero(region != self.sentinel)

    def check_guard(self) -> None:
        before = self._touched(self.backing[: self.pad])
        after = self._touched(self.backing[self.pad + self.size :])
        assert before.size == 0, (
            f"written before the array: elements {before - self.pad} (relative)"
        )
        assert after.size == 0, (
            f"written past the end of the array: elements {self.size + after} (flat)"
        )

    def check(self, expected: np.ndarray | float, rtol: float = 1e-5, atol: float = 1e-5) -> None:
        """Nothing outside the array was written, and the array holds `expected`."""
        self.check_guard()
        np.testing.assert_allclose(
            self.array, np.broadcast_to(expected, self.shape), rtol=rtol, atol=atol
        )


def guarded(shape: Sequence[int] | int, dtype: str = "float32") -> Guarded:
    return Guarded(shape, dtype)


# ---------------------------------------------------------------------------
# The IR after schedule-ops
# ---------------------------------------------------------------------------

Dim = int | str


def loop_ir(schedule: Any, args: Sequence[Any]) -> str:
    """`compiler.lower(s, args, until="loop")` as text."""
    return str(compiler.lower(schedule, list(args), until="loop"))


_ALLOC = re.compile(r'loop\.alloc (?:local )?"(?P<name>[^"]+)".*:\s*!loop\.buffer<\[(?P<dims>[^\]]*)\]')
_FOR = re.compile(
    r"loop\.for %(?P<var>[\w.$-]+) = %[\w.$-]+ extent %(?P<ext>[\w.$-]+)(?P<attrs>[^{]*)\{"
)
_CONST = re.compile(r"%(?P<name>[\w.$-]+) = arith\.constant (?P<value>-?\d+) : index")
_VAR = re.compile(r'%(?P<name>[\w.$-]+) = loop\.var "(?P<sym>[^"]+)"')


def _dim(text: str) -> Dim:
    text = text.strip().strip('"')
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _top_level_parts(text: str) -> list[str]:
    """`min(m, 8), l` -> ["min(m, 8)", "l"]: commas inside parentheses do not split."""
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:k].strip())
            start = k + 1
    return [*parts, text[start:].strip()]


def allocs(ir: str) -> dict[str, tuple[Dim, ...]]:
    """The shape of every `loop.alloc` (its realized region), by buffer name:
    an int per constant dimension, the expression text per symbolic one."""
    out: dict[str, tuple[Dim, ...]] = {}
    for m in _ALLOC.finditer(ir):
        dims = m["dims"].strip()
        shape = tuple(_dim(d) for d in _top_level_parts(dims)) if dims else ()
        assert m["name"] not in out, f"two allocations named {m['name']}"
        out[m["name"]] = shape
    return out


@dataclass(frozen=True)
class Loop:
    var: str
    extent: int | str | None  # an int, a symbolic variable's name, or None (an expression)
    kind: str  # serial | parallel | vectorized | unrolled
    depth: int  # indentation of the loop in the printed IR


def loops(ir: str) -> list[Loop]:
    """Every `loop.for` in program order, with its extent when it is a constant
    or a symbolic variable."""
    consts = {m["name"]: int(m["value"]) for m in _CONST.finditer(ir)}
    syms = {m["name"]: m["sym"] for m in _VAR.finditer(ir)}
    out = []
    for line in ir.splitlines():
        m = _FOR.search(line)
        if m is None:
            continue
        ext = m["ext"]
        extent = consts.get(ext, syms.get(ext))
        attrs = m["attrs"].split()
        kind = next((k for k in ("parallel", "vectorized", "unrolled") if k in attrs), "serial")
        out.append(Loop(m["var"], extent, kind, len(line) - len(line.lstrip())))
    return out


def loop_named(ir: str, var: str) -> Loop:
    found = [lp for lp in loops(ir) if lp.var == var]
    assert len(found) == 1, f"expected one loop %{var}, found {[lp.var for lp in loops(ir)]}"
    return found[0]


def same_axes(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Axis lists equal by identity (`==` on an axis builds a comparison, as in TVM)."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


def dim_is(dim: Any, value: int) -> bool:
    """A tensor dimension that is the constant `value` (a Python int or a constant expression)."""
    if isinstance(dim, bool):
        return False
    if isinstance(dim, int):
        return dim == value
    const = getattr(dim, "value", None)
    return isinstance(const, int) and const == value


# ---------------------------------------------------------------------------
# The memory plan
# ---------------------------------------------------------------------------


def evaluate_size(text: str, **symbols: int) -> int:
    """A size expression of the memory plan ('(l * m * 4 + 63) // 64 * 64') at given symbols."""
    value = eval(text, {"__builtins__": {}, "max": max, "min": min}, dict(symbols))
    return int(value)


def arena_bytes(fn: Any, **symbols: int) -> int:
    assert fn.memory is not None, "no intermediate buffer was planned"
    return evaluate_size(fn.memory.arena, **symbols)


def plan(fn: Any) -> dict[str, Any]:
    """The memory plan's buffers by name."""
    assert fn.memory is not None, "no intermediate buffer was planned"
    return {b.name: b for b in fn.memory.buffers}


def align64(nbytes: int) -> int:
    return (nbytes + 63) // 64 * 64


# ---------------------------------------------------------------------------
# Tests that may write out of bounds
# ---------------------------------------------------------------------------

_CHILD = """
import runpy, sys
sys.path.insert(0, sys.argv[1])
namespace = runpy.run_path(sys.argv[2])
namespace[sys.argv[3]].__wrapped__(**eval(sys.argv[4]))
"""


def isolated(test: Callable[..., None]) -> Callable[..., None]:
    """Run the test in a child interpreter: an out-of-bounds write that corrupts
    memory or kills the process (segfault, abort) becomes a test failure.
    Arguments (pytest parameters) must be literals."""

    @functools.wraps(test)
    def run_in_child(**kwargs: Any) -> None:
        path = inspect.getsourcefile(test)
        assert path is not None
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                _CHILD,
                os.path.dirname(__file__),
                path,
                test.__name__,
                repr(kwargs),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if proc.returncode < 0:
            raise AssertionError(
                f"{test.__name__} crashed the process (signal {-proc.returncode})\n{proc.stderr[-3000:]}"
            )
        if proc.returncode != 0:
            raise AssertionError(
                f"{test.__name__} failed in a child process:\n{proc.stderr[-3000:]}"
            )

    return run_in_child
