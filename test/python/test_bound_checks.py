"""check_bounds=True: every load and store is checked before it happens.

An out-of-bounds access raises IndexError naming the buffer, the index and
the region; checks that are provably true are removed at compile time.
"""

from __future__ import annotations

import numpy as np
import pytest
from references import assert_guard_intact, guarded_empty
from xdsl.parser import Parser

import compiler
from compiler import te
from compiler.context import make_context
from compiler.driver import compile_module

SHIFT = """
loop.func @shift(%A: !loop.buffer<["n"], f32>, %B: !loop.buffer<["n"], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = loop.var "n" : index
  loop.for %i = %c0 extent %n KIND {
    %j = arith.addi %i, %c1 : index
    %v = loop.load %A[%j] : !loop.buffer<["n"], f32>
    loop.store %v, %B[%i] : !loop.buffer<["n"], f32>
  }
}
"""

SPILL = """
loop.func @spill(%A: !loop.buffer<[8], f32>, %B: !loop.buffer<[8], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %T = loop.alloc "T" [%c2] : !loop.buffer<[4], f32>
  loop.for %i = %c0 extent %c8 {
    %v = loop.load %A[%i] : !loop.buffer<[8], f32>
    loop.store %v, %T[%i] : !loop.buffer<[4], f32>
  }
  loop.for %i = %c0 extent %c8 {
    %z = arith.constant 0.0 : f32
    loop.store %z, %B[%i] : !loop.buffer<[8], f32>
  }
}
"""


def compile_text(text: str, name: str, *, check_bounds: bool = True) -> compiler.Function:
    module = Parser(make_context(), text).parse_module()
    return compile_module(module, name, check_bounds=check_bounds)


@pytest.mark.parametrize("kind", ["", "parallel"])
def test_a_read_past_the_end_raises_index_error(kind: str) -> None:
    f = compile_text(SHIFT.replace("KIND", kind), "shift")
    a = np.arange(5, dtype=np.float32)
    whole, b = guarded_empty((5,))
    with pytest.raises(IndexError, match=r"shift: load from A\[i \+ 1\] out of bounds: index 5 of dimension 0 is outside \[0, 5\)"):
        f(a, b)
    assert_guard_intact(whole)


def test_a_write_past_an_intermediate_raises_before_it_happens() -> None:
    f = compile_text(SPILL, "spill")
    with pytest.raises(IndexError, match=r"spill: store to T\[i\] out of bounds: index 0 of dimension 0 is outside \[2, 6\)"):
        f(np.zeros(8, np.float32), np.zeros(8, np.float32))


def test_without_checks_the_same_function_has_no_assert() -> None:
    f = compile_text(SHIFT.replace("KIND", ""), "shift", check_bounds=False)
    assert "loop.assert" not in f.loop_ir


def test_correct_schedules_keep_no_check() -> None:
    """Exact bounds prove every access of these schedules inside: the checked build
    is the unchecked one."""
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    P = te.compute((n + 2, 18), lambda i, j: te.if_then_else(
        te.all(i >= 1, i < n + 1, j >= 1, j < 17), A[i - 1, j - 1], 0.0), name="P")
    B = te.compute((n, 16), lambda i, j: P[i, j] + P[i + 2, j + 2], name="B")
    s = te.create_schedule(B.op)
    xo, _ = s[B].split(B.op.axis[1], factor=5)
    s[P].compute_at(s[B], xo)
    f = compiler.build(s, [A, B], check_bounds=True)
    assert "IndexError" not in f.loop_ir
    a = np.random.default_rng(0).random((7, 16), dtype=np.float32)
    whole, b = guarded_empty((7, 16))
    f(a, b)
    assert_guard_intact(whole)
    p = np.pad(a, 1)
    np.testing.assert_allclose(b, p[:-2, :-2] + p[2:, 2:], rtol=1e-6)


def test_check_bounds_option_of_the_pipeline_and_lower() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[te.min(i + 1, 8)], name="B")  # reads A[8] at i = 7
    ir = str(compiler.lower([A, B], until="loop", check_bounds=True))
    assert 'raises "IndexError"' in ir
    f = compiler.build([A, B], check_bounds=True)
    with pytest.raises(IndexError, match=r"main: load from A\[min\(B_i \+ 1, 8\)\] out of bounds: index 8"):
        f(np.zeros(8, np.float32), np.zeros(8, np.float32))


@pytest.mark.parametrize(("rows", "block"), [(16, 4), (13, 4), (9, 3)])
def test_a_where_narrows_the_producer_to_what_is_read(rows: int, block: int) -> None:
    """Y[i] = sum(P[i, k] for k <= i), P computed at Y's row blocks: infer-bound realizes
    P only for the columns a block reads (the `where` bounds k by the block's last row);
    the bound checker sees every read inside that region, and the result is NumPy's."""
    X = te.placeholder((rows, rows), name="X")
    P = te.compute((rows, rows), lambda i, j: X[i, j] * 2.0, name="P")
    k = te.reduce_axis((0, rows), "k")
    Y = te.compute((rows,), lambda i: te.sum(P[i, k], axis=k, where=te.likely(k <= i)), name="Y")
    s = te.create_schedule(Y.op)
    io, _ = s[Y].split(Y.op.axis[0], block)
    s[P].compute_at(s[Y], io)
    f = compiler.build(s, [X, Y], check_bounds=True)
    x = np.random.default_rng(3).standard_normal((rows, rows)).astype(np.float32)
    y = np.empty(rows, np.float32)
    f(x, y)
    np.testing.assert_allclose(y, (np.tril(x) * 2.0).sum(axis=1), rtol=1e-5, atol=1e-5)
