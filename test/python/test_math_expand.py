"""f32 exp as vector arithmetic (lowering/math_expand.py): as accurate as libm's expf
for the normal range, and the same at the edges (0 below, inf above, NaN through)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import compiler
from compiler import ops, te


def _exp_function(n: int) -> tuple[compiler.Function, te.Tensor]:
    a = te.placeholder((n,), name="a")
    return compiler.build([a, ops.exp(a, name="e")]), a


def test_exp_matches_float64_in_the_normal_range() -> None:
    x = np.concatenate([np.linspace(-103.0, 88.7, 100_001), np.random.default_rng(0).normal(0, 5, 4096)]).astype(np.float32)
    f, _ = _exp_function(x.size)
    got = np.empty_like(x)
    f(x, got)
    expected = np.exp(x.astype(np.float64))
    normal = expected >= np.finfo(np.float32).tiny
    assert np.max(np.abs(got - expected)[normal] / expected[normal]) < 3e-7
    # the denormal results (below x = -87.3): within a few of their last places
    assert np.max(np.abs(got - expected)[~normal]) < 8 * 2.0**-149


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (-np.inf, 0.0), (-float(np.finfo(np.float32).max), 0.0), (-300.0, 0.0), (-176.0, 0.0), (-175.9, 0.0),
        (-110.0, 0.0), (0.0, 1.0), (88.8, np.inf), (100.0, np.inf), (np.inf, np.inf),
    ],
)
def test_exp_edges(value: float, expected: float) -> None:
    f, _ = _exp_function(37)  # a vector body and a scalar tail
    x = np.full(37, value, np.float32)
    got = np.empty_like(x)
    f(x, got)
    assert np.all(got == np.float32(expected))


def test_exp_of_nan_is_nan() -> None:
    f, _ = _exp_function(20)
    x = np.full(20, np.nan, np.float32)
    x[3] = 1.0
    got = np.empty_like(x)
    f(x, got)
    assert np.isnan(np.delete(got, 3)).all()
    assert got[3] == pytest.approx(np.e, rel=3e-7)


def test_exp_is_vectorized() -> None:
    """No call of expf is left in the code: the loop computes in vector registers."""
    f, _ = _exp_function(4096)
    assert "expf" not in f.llvm_ir


def test_tanh_matches_float64() -> None:
    """tanh from the vector exp: relative error below 1e-6 everywhere, exact near 0 (no
    cancellation: a polynomial there), +-1 at +-inf, NaN through."""
    a = te.placeholder((200_009,), name="a")
    f = compiler.build([a, ops.tanh(a, name="t")])
    edge = np.nextafter(np.float32(0.25), np.float32([0, 1, -1, 2]))  # both sides of the blend's cut
    x = np.concatenate(
        [np.linspace(-12, 12, 200_001), edge[:3], [0.0, 1e-30, -1e-7, np.inf, -np.inf]]
    ).astype(np.float32)
    got = np.empty_like(x)
    f(x, got)
    expected = np.tanh(x.astype(np.float64))
    finite = np.isfinite(x) & (x != 0)
    assert np.max(np.abs(got - expected)[finite] / np.abs(expected)[finite]) < 1e-6
    assert got[-5] == 0.0
    assert got[-2] == 1.0
    assert got[-1] == -1.0
    nan = np.full(17, np.nan, np.float32)
    out = np.empty(17, np.float32)
    compiler.build([b := te.placeholder((17,), name="b"), ops.tanh(b, name="t")])(nan, out)
    assert np.isnan(out).all()
    assert "tanhf" not in f.llvm_ir
    # no compare or select on vectors (vectorize.py has neither: GPT-2's GELU loop stayed
    # scalar, 8.5 ns an element), and the llvm dialect's IR computes on vectors; a scalar
    # select picks the parallel loop's team size
    assert not re.search(r"select <\d+ x i1>", f.llvm_ir)
    assert "fcmp" not in f.llvm_ir
    assert re.search(r"fdiv <\d+ x float>", f.llvm_ir)
