"""The JIT's function-by-function LLVM pipeline (compiler/lowering/jit.py)."""

from __future__ import annotations

import re
import sys
import threading

import llvmlite.binding as llvm
import numpy as np
import pytest
from references import conv2d_reference
from xdsl.dialects import llvm as L

import compiler
from compiler import ops, te
from compiler.errors import IRError
from compiler.lowering import jit
from compiler.lowering.engine import target_machine


def _conv_chain() -> compiler.Function:
    x = te.placeholder((1, 8, 10, 10), name="x")
    w = te.placeholder((8, 8, 3, 3), name="w")
    y = ops.relu(ops.conv2d_nchw(x, w, padding=1, name="y"), name="r")
    return compiler.build([x, w, y], name="chain")


def test_every_function_is_a_module_of_its_own() -> None:
    """Each function's module declares what it calls and the globals it reads: it parses
    and verifies alone, and holds exactly one definition."""
    f = _conv_chain()
    module = f._jit.llvm_module()
    defined = [op for op in module.ops if isinstance(op, L.FuncOp) and op.body.blocks]
    assert len(defined) >= 2  # the packed function and its compute function at least
    before = [op.sym_name.data for op in module.ops]
    for function in defined:
        text = jit.function_text(module, function)
        parsed = llvm.parse_assembly(text)
        parsed.verify()
        bodies = [fn.name for fn in parsed.functions if not fn.is_declaration]
        assert function.sym_name.data in bodies
        assert set(bodies) <= {function.sym_name.data, "compiler_workspace_acquire", "compiler_workspace_release"}
    assert [op.sym_name.data for op in module.ops] == before  # each function went back in place


def test_the_linked_module_runs_like_the_program() -> None:
    f = _conv_chain()
    rng = np.random.default_rng(1)
    a = rng.standard_normal((1, 8, 10, 10)).astype(np.float32)
    k = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
    out = np.zeros((1, 8, 10, 10), np.float32)
    f(a, k, out)
    expected = np.maximum(conv2d_reference(a.astype(np.float64), k.astype(np.float64), stride=1, pad=1), 0)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    # one module: every function defined once, the packed one calling its compute function
    defined = re.findall(r"^define [^@]*@(\w+)\(", f.llvm_ir, re.M)
    assert sorted(defined) == sorted(set(defined))
    assert {"chain", "chain_compute"} <= set(defined)
    assert re.search(r"call [^\n]*@chain_compute\(", f.llvm_ir)


def test_the_packed_function_is_optimized_at_its_own_level(monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process too the packed function's IR is optimized at `PACKED_ENTRY_OPT`
    (what `optimized_ir` shows is what runs), every other function at the build's level."""
    monkeypatch.setenv("COMPILER_CACHE", "0")
    levels: list[tuple[str, int | None]] = []
    submit = jit.FunctionPipeline.submit

    def recording(self: jit.FunctionPipeline, text: str, opt: int | None = None) -> None:
        levels.append((re.findall(r'^define [^@]*@"?(\w+)"?\(', text, re.M)[0], opt))
        submit(self, text, opt)

    monkeypatch.setattr(jit.FunctionPipeline, "submit", recording)
    _conv_chain()
    by_name = dict(levels)
    assert by_name.pop("chain") == jit.PACKED_ENTRY_OPT
    assert by_name
    assert set(by_name.values()) == {3}, by_name


def _pipeline_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "llvm-optimize"]


def test_a_failing_lowering_stops_the_pipeline() -> None:
    interval = sys.getswitchinterval()

    def lower() -> object:
        raise IRError("lowering failed")

    with pytest.raises(IRError, match="lowering failed"):
        jit.compile_object(lower, "a program that does not lower", cache=False)  # type: ignore[arg-type]
    assert sys.getswitchinterval() == interval
    assert not _pipeline_threads()


def test_an_llvm_error_in_the_thread_is_raised_by_finish() -> None:
    interval = sys.getswitchinterval()
    pipeline = jit.FunctionPipeline(target_machine(), 3)
    assert sys.getswitchinterval() <= jit.SWITCH_INTERVAL
    pipeline.submit("define i32 @f() {\n  ret i64 0\n}\n")  # the wrong type: LLVM rejects it
    with pytest.raises(RuntimeError):
        pipeline.finish()
    assert sys.getswitchinterval() == interval
    assert not _pipeline_threads()


def test_pipelines_of_several_threads_put_the_switch_interval_back() -> None:
    """Builds in two threads at once: the interval is lowered while either runs and
    restored when the last one ends, whatever the order."""
    interval = sys.getswitchinterval()
    first = jit.FunctionPipeline(target_machine(), 3)
    second = jit.FunctionPipeline(target_machine(), 3)
    first.finish()
    assert sys.getswitchinterval() <= jit.SWITCH_INTERVAL  # the second still runs
    second.finish()
    second.abandon()  # a second stop changes nothing
    assert sys.getswitchinterval() == interval
    results: list[np.ndarray] = []

    def build_and_run() -> None:
        f = _conv_chain()
        out = np.zeros((1, 8, 10, 10), np.float32)
        f(np.ones((1, 8, 10, 10), np.float32), np.ones((8, 8, 3, 3), np.float32), out)
        results.append(out)

    threads = [threading.Thread(target=build_and_run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 3
    assert all(np.array_equal(r, results[0]) for r in results)
    assert results[0][0, 0, 5, 5] == 72.0  # 8 channels x 9 taps of ones
    assert sys.getswitchinterval() == interval
