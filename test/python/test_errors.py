"""Wrong calls raise clear Python exceptions naming the argument, field and values."""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import PassFailedException, VerifyException

import compiler
from compiler import errors, ops, te
from compiler.diagnostics import PassError, ScheduleVerifyError, VerifyError

PACKAGE = Path(compiler.__file__).parent


@pytest.fixture(scope="module")
def add_fn() -> compiler.Function:
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] + 1.0, name="B")
    return compiler.build([A, B])


def test_wrong_argument_count(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match=r"takes 2 arrays \(A, B\), got 1"):
        add_fn(np.zeros((3, 4), np.float32))


def test_wrong_dtype(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match=r"A.dtype is float64, expected float32"):
        add_fn(np.zeros((3, 4)), np.zeros((3, 4), np.float32))


def test_static_dimension_mismatch(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"A.shape\[1\] is 5, expected 4"):
        add_fn(np.zeros((3, 5), np.float32), np.zeros((3, 4), np.float32))


def test_symbolic_dimension_mismatch_names_binding(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"B.shape\[0\] is 2, expected n = 3 \(n bound from A.shape\[0\]\)"):
        add_fn(np.zeros((3, 4), np.float32), np.zeros((2, 4), np.float32))


def test_not_an_array(add_fn: compiler.Function) -> None:
    with pytest.raises(TypeError, match="argument A must be a NumPy array"):
        add_fn([[1.0]], np.zeros((1, 4), np.float32))


def test_wrong_ndim(add_fn: compiler.Function) -> None:
    with pytest.raises(ValueError, match=r"A.ndim is 1, expected 2"):
        add_fn(np.zeros(4, np.float32), np.zeros((1, 4), np.float32))


def test_read_only_output(add_fn: compiler.Function) -> None:
    out = np.zeros((3, 4), np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="output B is read-only"):
        add_fn(np.zeros((3, 4), np.float32), out)


def test_non_contiguous(add_fn: compiler.Function) -> None:
    a = np.zeros((3, 8), np.float32)[:, ::2]
    with pytest.raises(ValueError, match="A is not C-contiguous"):
        add_fn(a, np.zeros((3, 4), np.float32))


def test_builder_errors() -> None:
    A = te.placeholder((4,), name="A")
    with pytest.raises(IndexError, match="A has 1 dimensions, indexed with 2"):
        A[0, 1]
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(ValueError, match="must be the whole body"):
        te.compute((4,), lambda i: te.sum(A[k], axis=k) * 2.0, name="bad")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(ValueError, match="placeholder\\(s\\) A are read but not in the argument list"):
        compiler.build([B])
    with pytest.raises(TypeError, match=r"convert one with .astype"):
        te.compute((4,), lambda i: A[i] + i, name="mixed")


# ---------------------------------------------------------------------------
# The exception hierarchy (compiler.errors): each family is raised where its
# story fails, and is caught both as CompilerError and as its builtin base.
# ---------------------------------------------------------------------------


def raised(call: Callable[[], object], family: type[Exception], builtin: type[Exception]) -> Exception:
    """Run `call`, which must raise `family`; check it is a CompilerError and a `builtin`."""
    with pytest.raises(family) as info:
        call()
    assert isinstance(info.value, compiler.CompilerError)
    assert isinstance(info.value, builtin)
    return info.value


def test_hierarchy_is_exported_lazily_and_complete() -> None:
    assert set(compiler.errors.__all__) <= set(compiler.__all__)
    for name in compiler.errors.__all__:
        cls = getattr(compiler, name)
        assert cls is getattr(compiler.errors, name)
        assert issubclass(cls, compiler.CompilerError)
    families = {
        errors.ScheduleError: ValueError,
        errors.ScheduleTypeError: TypeError,
        errors.IRError: ValueError,
        errors.ArgumentTypeError: TypeError,
        errors.ArgumentValueError: ValueError,
        errors.ReadOnlyOutputError: ValueError,
        errors.BoundsError: IndexError,
        errors.MemoryPlanError: AssertionError,
        errors.UnsupportedOpError: NotImplementedError,
        errors.ExprTypeError: TypeError,
        errors.ExprValueError: ValueError,
        errors.ExprIndexError: IndexError,
        errors.ModuleLoadError: ValueError,
        errors.OptionError: ValueError,
        errors.LinkError: RuntimeError,
        errors.InternalError: RuntimeError,
    }
    for cls, builtin in families.items():
        assert issubclass(cls, builtin), cls
    assert issubclass(errors.ReadOnlyOutputError, errors.ArgumentError)
    assert issubclass(VerifyError, compiler.IRError)
    assert issubclass(VerifyError, VerifyException)
    assert issubclass(PassError, compiler.IRError)
    assert issubclass(PassError, PassFailedException)
    assert issubclass(ScheduleVerifyError, compiler.ScheduleError)
    assert issubclass(ScheduleVerifyError, VerifyException)


def test_expression_errors() -> None:
    A = te.placeholder((4,), name="A")
    err = raised(lambda: A[0, 1], errors.ExprIndexError, IndexError)
    assert str(err) == "tensor A has 1 dimensions, indexed with 2"
    raised(lambda: te.compute((4,), lambda i: A[i] + i, name="mixed"), errors.ExprTypeError, TypeError)
    raised(lambda: te.placeholder((-1,), name="neg"), errors.ExprValueError, ValueError)
    raised(lambda: ops.transpose(A, (1, 0)), errors.ExprValueError, ValueError)
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    err = raised(lambda: compiler.build([B]), errors.ExprValueError, ValueError)
    assert "placeholder(s) A are read but not in the argument list" in str(err)


def test_schedule_errors_from_the_stage_api_and_the_verifier() -> None:
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1.0, name="B")
    C = te.compute((8,), lambda i: B[i] * 2.0, name="C")
    s = te.create_schedule(C.op)
    err = raised(lambda: s[C].split(C.op.axis[0], factor=2, nparts=2), compiler.ScheduleError, ValueError)
    assert str(err) == "split takes exactly one of factor= or nparts="
    raised(lambda: s[B].compute_at(C, C.op.axis[0]), errors.ScheduleTypeError, TypeError)  # type: ignore[arg-type]
    # the stage API checks what it knows when the primitive is called (compiler.schedule.rules) ...
    err = raised(lambda: s[C].compute_inline(), compiler.ScheduleError, ValueError)
    assert "stage \"C\" is a result of the function" in str(err)
    # ... the sched dialect's verifier the rest, when the program is built
    D = te.compute((8,), lambda i: B[i] - 1.0, name="D")
    s = te.create_schedule([C.op, D.op])
    s[B].compute_at(s[C], C.op.axis[0])
    err = raised(lambda: compiler.lower(s, [A, C, D], until="loop"), compiler.ScheduleError, ValueError)
    assert "\"D\" also reads it outside that loop" in str(err)


def test_ir_errors_are_xdsl_diagnostics_too() -> None:
    from xdsl.parser import Parser

    from compiler.context import make_context

    text = 'loop.func @f(%a: !loop.buffer<[4], f32>) {\n  %c = arith.constant 0 : index\n  loop.for %i = %c extent %c step 0 {\n  }\n}'
    module = Parser(make_context(), text).parse_module()
    err = raised(module.verify, VerifyError, ValueError)
    assert isinstance(err, VerifyException)
    assert "loop.for step must be in [1, 2^63 - 1], got 0" in str(err)
    n = te.var("n")
    A = te.placeholder((n + 2,), name="A")  # n appears in no shape by itself: nothing binds it
    B = te.compute((n + 2,), lambda i: A[i] * 2.0, name="B")
    err = raised(lambda: compiler.lower([A, B]), PassError, ValueError)
    assert isinstance(err, compiler.IRError)
    assert "symbolic variable 'n'" in str(err)


def test_an_invalid_loop_function_given_to_compile_module_is_an_ir_error() -> None:
    """A loop.func built by hand is verified before any pass (an IRError naming the op,
    not a crash in a pass)."""
    from xdsl.parser import Parser

    from compiler.context import make_context
    from compiler.driver import compile_module

    text = (
        "loop.func @bad(%a: !loop.buffer<[4], f32>, %b: !loop.buffer<[4], f32> {loop.output}) {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %v = loop.load %a[%c0, %c0] : !loop.buffer<[4], f32>\n"
        "  loop.store %v, %b[%c0] : !loop.buffer<[4], f32>\n}"
    )
    module = Parser(make_context(), text).parse_module()  # parsing does not verify
    err = raised(lambda: compile_module(module, "bad", cache=False), compiler.IRError, ValueError)
    assert "loop.load of a rank-1 buffer takes 1 indices, got 2" in str(err)


def test_option_errors() -> None:
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    err = raised(lambda: compiler.lower([A, B], until="nowhere"), errors.OptionError, ValueError)  # type: ignore[arg-type]
    assert "unknown pipeline stage 'nowhere'" in str(err)


def test_argument_errors(add_fn: compiler.Function) -> None:
    raised(lambda: add_fn(np.zeros((3, 4), np.float32)), errors.ArgumentTypeError, TypeError)
    raised(lambda: add_fn(np.zeros((3, 4)), np.zeros((3, 4), np.float32)), errors.ArgumentTypeError, TypeError)
    raised(lambda: add_fn([[1.0]], np.zeros((1, 4), np.float32)), errors.ArgumentTypeError, TypeError)
    err = raised(
        lambda: add_fn(np.zeros((3, 5), np.float32), np.zeros((3, 4), np.float32)),
        errors.ArgumentValueError,
        ValueError,
    )
    assert str(err) == "main: A.shape[1] is 5, expected 4"
    out = np.zeros((3, 4), np.float32)
    out.flags.writeable = False
    err = raised(lambda: add_fn(np.zeros((3, 4), np.float32), out), errors.ReadOnlyOutputError, ValueError)
    assert isinstance(err, errors.ReadOnlyOutputError)
    assert (err.function, err.argument) == ("main", "B")
    # an unknown failure code is an internal error (a RuntimeError)
    assert isinstance(add_fn._packed.error(999, [0] * 4), errors.InternalError)


def test_bounds_error() -> None:
    A = te.placeholder((5,), name="A")
    B = te.compute((5,), lambda i: A[i + 1], name="B")  # reads A[5] at i = 4
    f = compiler.build([A, B], check_bounds=True)
    err = raised(lambda: f(np.zeros(5, np.float32), np.zeros(5, np.float32)), errors.BoundsError, IndexError)
    assert re.fullmatch(r"main: load from A\[\w+ \+ 1\] out of bounds: index 5 of dimension 0 is outside \[0, 5\)", str(err))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: te.placeholder((4,), name="0 A"), "placeholder '0 A': a name is letters, digits"),
        (lambda: te.compute((4,), lambda i: 1.0, name="a b"), "compute 'a b': a name is letters, digits"),
        (lambda: te.reduce_axis((0, 4), name="k k"), "reduce_axis 'k k': a name is letters, digits"),
        (lambda: te.var("n + 1"), "te.var 'n + 1': a name is an identifier"),
    ],
)
def test_names_that_cannot_name_values_are_expression_errors(make: Callable[[], object], message: str) -> None:
    """Found by hand with the API fuzzer's eyes: xDSL refused such a name deep in build()
    with a bare ValueError."""
    err = raised(make, errors.ExprValueError, ValueError)
    assert str(err).startswith(message)


def _outer_sum(shape_of_a: tuple[te.Dim, ...]) -> compiler.Function:
    """C[i] = sum_k A[i] * A[k] through an intermediate P = A x A in the arena: P has n * n
    elements while A (taking any strides) may be a zero-stride view of n elements."""
    n = shape_of_a[0]
    A = te.placeholder(shape_of_a, name="A", strided=True)
    P = te.compute((4, n), lambda i, j: A[i] * A[j], name="P")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((4,), lambda i: te.sum(P[i, k], axis=k), name="C")
    return compiler.build(te.create_schedule(C.op), [A, C])


@pytest.mark.parametrize("n", [2**40, 2**60])
def test_an_arena_too_large_is_an_out_of_memory_error(n: int) -> None:
    """2^40 elements: aligned_alloc fails (16 TB); 2^60: the arena size wraps in 64 bits
    (f64 bound check). Both end in OutOfMemoryError, and the function still works after."""
    f = _outer_sum((te.var("n"),))
    x, c = np.ones(4, np.float32), np.zeros(4, np.float32)
    huge = np.lib.stride_tricks.as_strided(x, (n,), (0,))
    err = raised(lambda: f(huge, c), errors.OutOfMemoryError, MemoryError)
    assert str(err) == 'main_compute: out of memory: no block for buffer "arena"'
    f(x, c)
    np.testing.assert_array_equal(c, np.full(4, 4.0, np.float32))


OVERLAPPING_PLAN = """
loop.func @overlap(%out: !loop.buffer<[16], f32> {loop.output}) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %arena = loop.alloc "arena" [%c0] : !loop.buffer<[96], i8>
  %a = loop.view "a" %arena at "0" : !loop.buffer<[96], i8> -> !loop.buffer<[16], f32>
  %b = loop.view "b" %arena at "32" : !loop.buffer<[96], i8> -> !loop.buffer<[16], f32>
  loop.for %i = %c0 extent %c16 {
    %one = arith.constant 1.0 : f32
    loop.store %one, %a[%i] : !loop.buffer<[16], f32>
    loop.store %one, %b[%i] : !loop.buffer<[16], f32>
  }
  loop.for %i = %c0 extent %c16 {
    %x = loop.load %a[%i] : !loop.buffer<[16], f32>
    %y = loop.load %b[%i] : !loop.buffer<[16], f32>
    %s = arith.addf %x, %y : f32
    loop.store %s, %out[%i] : !loop.buffer<[16], f32>
  }
}
"""


def test_memory_plan_errors() -> None:
    from xdsl.parser import Parser

    from compiler.context import make_context
    from compiler.driver.lowered import memory_plan
    from compiler.passes.verify_memory_plan import VerifyMemoryPlanPass

    ctx = make_context()
    module = Parser(ctx, OVERLAPPING_PLAN).parse_module()
    err = raised(lambda: memory_plan(module), errors.MemoryPlanError, AssertionError)
    assert "internal error: unsound memory plan: a (statements" in str(err)
    err = raised(lambda: VerifyMemoryPlanPass().apply(ctx, module), errors.MemoryPlanError, AssertionError)
    assert isinstance(err, PassFailedException)  # compiler-opt prints it as a diagnostic
    assert "verify-memory-plan: @overlap: a (statements 5-6, bytes 0..+64)" in str(err)


def test_module_load_error(tmp_path: Path) -> None:
    import ctypes.util

    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no libm to load")
    path = Path(f"/lib/x86_64-linux-gnu/{libm}")
    if not path.exists():
        pytest.skip(f"{libm} is not at {path}")
    err = raised(lambda: compiler.load_module(path), errors.ModuleLoadError, ValueError)
    assert "not a library written by export_library" in str(err)


def test_unsupported_operator_is_an_unsupported_op_error() -> None:
    from compiler.torch import UnsupportedOperatorError

    assert issubclass(UnsupportedOperatorError, errors.UnsupportedOpError)
    assert issubclass(UnsupportedOperatorError, NotImplementedError)


def test_linker_errors_are_link_errors() -> None:
    from compiler.lowering.export import LinkerNotFoundError

    assert issubclass(LinkerNotFoundError, errors.LinkError)
    assert issubclass(LinkerNotFoundError, RuntimeError)


# Builtin exceptions the package may still raise: Python's own protocols.
PROTOCOL_EXCEPTIONS = {"KeyError", "AttributeError", "FileNotFoundError", "ImportError"}
BUILTIN_EXCEPTIONS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}
XDSL_EXCEPTIONS = {"VerifyException", "PassFailedException", "DiagnosticException"}


def test_every_raise_uses_the_hierarchy() -> None:
    """No `raise ValueError(...)` (or VerifyException...) in compiler/: a CompilerError subclass."""
    offenders: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Raise) or node.exc is None:
                continue
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = exc.id if isinstance(exc, ast.Name) else None
            if name in (BUILTIN_EXCEPTIONS | XDSL_EXCEPTIONS) - PROTOCOL_EXCEPTIONS:
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: raise {name}")
    assert offenders == []
