"""`compiler.lower` and `compiler.build`: the Python entry points.

`build([A, B, C])` runs the default pipeline (`compiler.pipeline`), JIT
compiles the result and returns a `Function` whose arguments are arrays in
the order of the list, outputs included, as in TVM. Arrays are NumPy arrays
or any object with `__dlpack__`; they are passed zero-copy.
"""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from compiler import te as T
from compiler.driver.compile import compile_module
from compiler.driver.lowered import CompileOptions
from compiler.errors import ExprTypeError, IRError
from compiler.pipeline_options import PipelineOptions
from compiler.te.schedule import Schedule

if TYPE_CHECKING:  # xDSL and the passes are imported where used: a cached build needs none
    from xdsl.dialects.builtin import ModuleOp

    from compiler.driver.function import Function
    from compiler.graph_cache import GraphKey
    from compiler.pipeline import Stage
    from compiler.te.to_ir import FunctionSignature


def split_args(
    schedule_or_args: Schedule | Sequence[T.Tensor], args: Sequence[T.Tensor] | None
) -> tuple[Schedule | None, Sequence[T.Tensor]]:
    """The schedule (None without one) and the argument tensors of `f(s, args)` or `f(args)`."""
    if isinstance(schedule_or_args, Schedule):
        if args is None:
            raise ExprTypeError("build(s, args): the argument tensors are missing")
        return schedule_or_args, args
    if args is not None:
        raise ExprTypeError("build(s, args): the first argument must be a schedule (te.create_schedule)")
    return None, schedule_or_args


def lower(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
    until: Stage = "llvm",
    **options: bool,
) -> ModuleOp:
    """The IR after the default pipeline (or after the stage `until`).

    `lower([A, B, C])` or, with a schedule, `lower(s, [A, B, C])`. `until` is one of
    `compiler.pipeline.STAGES` (`"te"`, `"loop"`: after schedule-ops, `"flat"`,
    `"llvm"`); the keyword options are `compiler.pipeline.PipelineOptions`' (those of
    `build`: `check_bounds`, `tighten_pad_regions`, `loop_partition`, ...), with
    `auto_schedule` off unless asked for (`build` turns it on when it is given no
    schedule).

    >>> A = te.placeholder((16,), name="A")
    >>> B = te.compute((16,), lambda i: A[i] + 1.0, name="B")
    >>> ir = compiler.lower([A, B], until="loop")
    >>> "loop.func @main" in str(ir)
    True
    """
    from compiler.context import make_context
    from compiler.pipeline import as_stage
    from compiler.te.to_ir import build_module

    pipeline = PipelineOptions.of("lower", options)
    schedule, tensors = split_args(schedule_or_args, args)
    module, sig = build_module(compiled_program(tensors, schedule, pipeline.auto_schedule), name, schedule)
    ctx = make_context()
    _, built = built_options(module, sig, name, pipeline.pipeline_fields())
    for p in replace(built.pipeline(), until=as_stage(until)).passes():
        p.apply(ctx, module)
    module.verify()
    return module


def build(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
    *,
    auto_schedule: bool | None = None,
    tuning_log: str | os.PathLike[str] | None = None,
    options: PipelineOptions | None = None,
    **changes: bool,
) -> Function:
    """Compile `args` (inputs and outputs, in call order) into a callable `Function`.

    >>> n = te.var("n")
    >>> A = te.placeholder((n, 4), name="A")
    >>> B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    >>> f = compiler.build([A, B])
    >>> a = np.ones((3, 4), np.float32)
    >>> b = np.empty_like(a)
    >>> f(a, b)
    >>> float(b.sum())
    24.0
    >>> f                                               # doctest: +ELLIPSIS
    <Function main(A: float32[n, 4], out B: float32[n, 4]) for ...>

    `build([A, B, C])`, or with a schedule `build(s, [A, B, C])`; `check_bounds=True`
    checks every load and store, intermediates included, against its buffer's region:
    an access outside raises IndexError naming the buffer, the index and the region.

    Without a schedule, the program is scheduled automatically: the schedule recorded
    for it in the tuning log (`tuning_log=`, else the file named by COMPILER_TUNING_LOG;
    `compiler.tune` writes it) if there is one, else the `auto-schedule` pass's for the
    host, and a stage with a fast form is computed by it (`te.FastForm`: `ops.conv2d_nchw`
    computes in blocked NHWC). `auto_schedule=False` compiles the unscheduled program
    (TVM's default schedule); `auto_schedule=True` also extends a partial schedule to
    the stages it does not name. `a * b + c` becomes one fused multiply-add, rounded once (as TVM,
    clang and the BLAS libraries do; the FMA units are twice the throughput of a
    multiply and an add); `fp_contract=False` rounds every float operation as written.
    `fast_math=True` also lets LLVM reassociate float math (reductions vectorize):
    faster, and the sum's order no longer the program's. The keyword options are
    `compiler.pipeline.PipelineOptions`' (`check_bounds`, `fast_math`, `fp_contract`,
    `loop_partition`, `tighten_pad_regions`), over `options` if given; an unknown one
    raises OptionError.
    """
    from compiler import graph_cache
    from compiler.driver.cache import entry_of

    start = time.perf_counter()
    pipeline = PipelineOptions.of("build", changes, options)
    schedule, tensors = split_args(schedule_or_args, args)
    automatic = schedule is None if auto_schedule is None else auto_schedule
    chosen = replace(pipeline, auto_schedule=automatic)
    fields = chosen.pipeline_fields()

    def source() -> tuple[ModuleOp, FunctionSignature]:
        from compiler.te.to_ir import build_module
        from compiler.tuning_log import apply_logged_schedule

        # verified by compile_module unless its cache has an entry for the module's text (a
        # program that compiled before, with this compiler: it verified then)
        module, sig = build_module(compiled_program(tensors, schedule, automatic), name, schedule, verify=False)
        if schedule is None and automatic:
            apply_logged_schedule(module, name, tuning_log)
        return module, sig

    # the first level of the cache: keyed by the Python program, before any IR is emitted
    # (not with a tuning log, whose records are keyed by the te module's text)
    logged = schedule is None and automatic and _tuning_log_named(tuning_log)
    graph = None if logged or not _cache_on() else graph_cache.graph_key(tensors, schedule, name, fields)
    if graph is not None:
        hit = _graph_hit(graph, tensors, schedule, name, fields, source, start)
        if hit is not None:
            hit.stats.seconds["total"] = time.perf_counter() - start
            return hit
    module, sig = source()
    fn = compile_built(module, sig, name, options=chosen)
    if graph is not None:
        graph_cache.write(graph, entry_of(fn).to_json())
    fn.stats.seconds["total"] = time.perf_counter() - start
    return fn


def compiled_program(tensors: Sequence[T.Tensor], schedule: Schedule | None, automatic: bool) -> list[T.Tensor]:
    """The program `build` compiles of `tensors`: scheduled by the compiler (no schedule,
    `automatic`), its stages' fast forms (`te.FastForm`: `ops.conv2d_nchw` in blocked
    NHWC); else the program as written, which a schedule names."""
    from compiler.te.fast_forms import with_fast_forms

    return with_fast_forms(tensors) if schedule is None and automatic else list(tensors)


def _graph_hit(
    graph: GraphKey,
    tensors: Sequence[T.Tensor],
    schedule: Schedule | None,
    name: str,
    fields: dict[str, bool],
    source: Callable[[], tuple[ModuleOp, FunctionSignature]],
    start: float,
) -> Function | None:
    """`build`'s function from the graph level of the cache, or None; `source` emits the
    program (once) when an IR text, the pipeline or the profiling variant is asked for."""
    from compiler import graph_cache
    from compiler.driver.cache import load_graph
    from compiler.driver.compile import LazyRecipe, Recipe

    def unchanged() -> tuple[ModuleOp, CompileOptions]:
        if graph_cache.graph_key(tensors, schedule, name, fields) != graph:
            raise IRError(
                f"{name}: the program or its schedule changed after build() found it in the cache; "
                "its IR can not be made again (build the changed program)"
            )
        return built_options(*source(), name, fields)

    made = functools.cache(unchanged)
    hit = load_graph(graph, name, fields, made, start)
    if hit is None:
        return None
    return hit.with_recipe(LazyRecipe(lambda: Recipe(lambda: made()[0], name, made()[1], None)))


def _cache_on() -> bool:
    from compiler.lowering.object_cache import cache_enabled

    return cache_enabled()


def _tuning_log_named(tuning_log: str | os.PathLike[str] | None) -> bool:
    from compiler.tuning_log import log_path

    return log_path(tuning_log) is not None


def compile_built(module: ModuleOp, sig: FunctionSignature, name: str, **options: Any) -> Function:
    """Compile a module made by `build_module` (arguments in the order of `sig.args`);
    `options` are those of `compile_module`."""
    order, strided = _call_order(module, sig, name)
    return compile_module(module, name, order=order, strided_args=strided, **options)


def _call_order(module: ModuleOp, sig: FunctionSignature, name: str) -> tuple[list[str], list[str]]:
    """The names of the arguments of `sig` in call order, and those of the strided ones."""
    abi = sig.inputs + sig.outputs
    arg_names = dict(zip((t.uid for t in abi), _te_argument_names(module, name), strict=True))
    return [arg_names[t.uid] for t in sig.args], [arg_names[t.uid] for t in sig.args if t.strided]


def built_options(
    module: ModuleOp, sig: FunctionSignature, name: str, options: dict[str, Any]
) -> tuple[ModuleOp, CompileOptions]:
    """The module and the options `compile_built(module, sig, name, **options)` compiles."""
    order, strided = _call_order(module, sig, name)
    return module, CompileOptions(order=tuple(order), strided=tuple(strided), **options)


def _te_argument_names(module: ModuleOp, name: str) -> list[str]:
    """The names the compiled function gives the inputs and then the outputs of the
    `te.func @name` (the tensors' names, made unique by `build_module`; an output is
    named as schedule-ops names its buffer)."""
    from xdsl.ir import OpResult

    from compiler.dialects import te
    from compiler.passes.schedule_ops import result_name

    func = next(op for op in module.ops if isinstance(op, te.FuncOp) and op.sym_name.data == name)
    returned = func.body.block.last_op
    assert isinstance(returned, te.ReturnOp)
    inputs = [v.name_hint or "" for v in func.body.block.args]
    outputs = [result_name(v) if isinstance(v, OpResult) else v.name_hint or "" for v in returned.operands]
    return inputs + outputs
