"""`build` compiles through the `default-pipeline` pass: `compiler-opt -p` with the
pipeline a `Function` reports (`Function.pipeline`), run on the te and sched IR build
started from (`Function.source_ir`), makes the same llvm-dialect IR and the same LLVM IR."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.parser import Parser

import compiler
from compiler import te
from compiler.context import make_context
from compiler.lowering.jit import to_llvm_ir
from compiler.tools.compiler_opt import main as compiler_opt


def chain_in_call_order() -> compiler.Function:
    """A schedule, a symbolic size, the output first in the call."""
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 16), lambda i, j: B[i, j] + B[i, 15 - j], name="C")
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[1], factor=4)
    return compiler.build(s, [C, A], name="chain")


def matmul_auto_scheduled() -> compiler.Function:
    """No schedule: auto-schedule runs (an option of the pipeline)."""
    A = te.placeholder((32, 24), name="A")
    B = te.placeholder((24, 16), name="B")
    k = te.reduce_axis((0, 24), name="k")
    C = te.compute((32, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return compiler.build([A, B, C], name="matmul")


def checked_strided_view() -> compiler.Function:
    """Bound checks (a pipeline option) and a strided argument (make-packed-api's)."""
    n = te.var("n")
    A = te.placeholder((n, 8), name="A", strided=True)
    B = te.compute((n, 8), lambda i, j: A[i, 7 - j] + 1.0, name="B")
    return compiler.build([B, A], check_bounds=True, auto_schedule=False, name="view")


def two_outputs_fast_math() -> compiler.Function:
    """Several outputs, in another order than the te function returns them; fast-math."""
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * A[i], name="B")
    C = te.compute((64,), lambda i: B[i] + A[i], name="C")
    return compiler.build([C, A, B], fast_math=True, loop_partition=False, name="pair")


PROGRAMS: dict[str, Callable[[], compiler.Function]] = {
    "chain": chain_in_call_order,
    "matmul": matmul_auto_scheduled,
    "view": checked_strided_view,
    "pair": two_outputs_fast_math,
}


def run_compiler_opt(source: Path, *options: str) -> str:
    out = source.with_suffix(f".{len(options)}.out")
    assert compiler_opt([str(source), *options, "-o", str(out)]) == 0
    return out.read_text()


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_compiler_opt_with_the_reported_pipeline_makes_the_same_ir(program: str, tmp_path: Path) -> None:
    f = PROGRAMS[program]()
    assert f.pipeline.startswith("default-pipeline{")
    source = tmp_path / f"{program}.mlir"
    source.write_text(f.source_ir)
    llvm_dialect = run_compiler_opt(source, "-p", f.pipeline)
    assert llvm_dialect.strip() == f.llvm_dialect_ir.strip()
    llvm_ir = run_compiler_opt(source, "-p", f.pipeline, "-t", "llvm")
    built = to_llvm_ir(Parser(make_context(), f.llvm_dialect_ir).parse_module())
    assert llvm_ir.strip() == built.strip()


def test_the_pipeline_names_the_call_order_and_the_options() -> None:
    f = checked_strided_view()
    assert 'order="B","A"' in f.pipeline
    assert 'strided="A"' in f.pipeline
    assert "check_bounds=true" in f.pipeline
    a = np.arange(48, dtype=np.float32).reshape(6, 8)[:, :]
    b = np.empty_like(a)
    f(b, a)
    np.testing.assert_array_equal(b, a[:, ::-1] + 1.0)


def test_compile_module_takes_a_loop_function_through_the_same_pipeline() -> None:
    """A loop module goes through the same passes (those of the te stages find no te op);
    an order that does not name its arguments is make-packed-api's error."""
    from compiler.diagnostics import PassError
    from compiler.driver import compile_module

    text = """
    loop.func @copy(%A: !loop.buffer<[8], f32>, %B: !loop.buffer<[8], f32> {loop.output}) {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      loop.for %i = %c0 extent %c8 {
        %v = loop.load %A[%i] : !loop.buffer<[8], f32>
        loop.store %v, %B[%i] : !loop.buffer<[8], f32>
      }
    }
    """
    f = compile_module(Parser(make_context(), text).parse_module(), "copy", order=["B", "A"], cache=False)
    assert [s.name for s in f.specs] == ["B", "A"]
    a, b = np.arange(8, dtype=np.float32), np.zeros(8, np.float32)
    f(b, a)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(PassError, match="make-packed-api: no function has exactly the arguments B, X"):
        compile_module(Parser(make_context(), text).parse_module(), "copy", order=["B", "X"], cache=False)
