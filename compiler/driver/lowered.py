"""The passes of `compile_module` up to the flat loop IR, and what is read on the way.

Every pass is one of the `default-pipeline` pass (`CompileOptions.pipeline()`):
what `compile_module` compiles, `compiler-opt -p` with `Function.pipeline`
compiles too. Between the loop and the flat stage the driver only reads the IR:
the arguments' specs and, for a profiling variant, what each timed nest computes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from compiler.errors import ExprTypeError, IRError, MemoryPlanError
from compiler.pipeline_options import PipelineOptions
from compiler.runtime.module import ArgSpec

if TYPE_CHECKING:  # xDSL, loop and the passes are imported where used: a cached build needs none
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Attribute

    from compiler.analysis.memory_summary import MemorySummary
    from compiler.dialects import loop
    from compiler.passes.instrument_stages import NestRecord
    from compiler.pipeline import DefaultPipelinePass

_NUMPY_DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8")
"""The element types a compiled function's arguments can have, by NumPy's names."""


@dataclass(frozen=True, kw_only=True)
class CompileOptions(PipelineOptions):
    """Every option of `compile_module` that changes what it compiles (a part of the build
    key): the pipeline's, and make-packed-api's `order` and `strided`."""

    order: tuple[str, ...] = ()
    """The arguments in call order, by name (none: the function's order)."""

    strided: tuple[str, ...] = ()
    """The buffer arguments that take any strides."""

    def pipeline(self) -> DefaultPipelinePass:
        """The `default-pipeline` pass these options stand for (its text: `Function.pipeline`)."""
        from compiler.pipeline import DefaultPipelinePass

        fields: dict[str, Any] = {**self.pipeline_fields(), "order": self.order, "strided": self.strided}
        return DefaultPipelinePass(**fields)


@dataclass
class Lowered:
    """`compile_module`'s passes up to the flat loop IR, and what they tell."""

    module: ModuleOp  # the flat module (lowered further to the llvm dialect in place)
    specs: list[ArgSpec]
    memory: MemorySummary | None
    texts: Callable[[], tuple[str, str]]
    """The loop IR and the flat IR, printed when first asked for (`lower_to_flat`)."""
    stages: list[NestRecord] | None = None
    """What each timed nest computes (a profiling variant: `instrument-stages`)."""

    @property
    def loop_ir(self) -> str:
        return self.texts()[0]

    @property
    def flat_ir(self) -> str:
        return self.texts()[1]


def lower_to_flat(
    module: ModuleOp, name: str, options: CompileOptions, texts: Callable[[], tuple[str, str]] | None = None
) -> Lowered:
    """Run the pipeline's passes up to the flat loop IR on `module` (in place). The IR
    texts are `texts`, or printed along the way."""
    from compiler.context import make_context
    from compiler.dialects import loop

    pipeline = options.pipeline()
    ctx = make_context()
    outputs = _output_stages(module, name) if options.profile else {}
    for p in pipeline.stage("loop"):
        p.apply(ctx, module)
    func = next((op for op in module.ops if isinstance(op, loop.FuncOp) and op.sym_name.data == name), None)
    if func is None:
        raise IRError(f"no function @{name} in the module")
    stages = _nest_records(func, outputs) if options.profile else None
    specs = _in_call_order(specs_of(func), options.order, options.strided)
    loop_ir = str(module) if texts is None else ""
    for p in pipeline.stage("flat"):
        p.apply(ctx, module)
    if verify_passes():
        module.verify()
    if texts is None:
        printed = (loop_ir, str(module))
        texts = lambda: printed  # noqa: E731
    return Lowered(module, specs, memory_plan(module), texts, stages)


def _nest_records(func: loop.FuncOp, outputs: dict[int, str]) -> list[NestRecord] | None:
    """What each nest `instrument-stages` timed computes, outputs named by their stage."""
    from compiler.passes.instrument_stages import nest_records

    records = nest_records(func)
    return None if records is None else [r.renamed(outputs) for r in records]


def _in_call_order(specs: list[ArgSpec], order: Sequence[str], strided: Sequence[str]) -> list[ArgSpec]:
    """The specs of the loop function's arguments as make-packed-api will see them:
    in `order` (if it names them all: else the pass reports it), those named in
    `strided` strided."""
    by_name = {s.name: s for s in specs}
    ordered = [by_name[n] for n in order] if order and sorted(order) == sorted(by_name) else specs
    return [replace(s, strided=True) if s.name in strided else s for s in ordered]


def _output_stages(module: ModuleOp, name: str) -> dict[int, str]:
    """The stage each output argument of the `te.func @name` holds, by the position of
    its argument in the `loop.func` (the te arguments, then the results)."""
    from compiler.dialects import te
    from compiler.passes.schedule_ops import result_name

    func = next((op for op in module.ops if isinstance(op, te.FuncOp) and op.sym_name.data == name), None)
    if func is None:
        return {}
    returned = func.body.block.last_op
    assert isinstance(returned, te.ReturnOp)
    return {len(func.args) + k: result_name(v) for k, v in enumerate(returned.operands)}


def specs_of(func: loop.FuncOp) -> list[ArgSpec]:
    """The arguments of a `loop.func` before make-packed-api (N-D shapes).

    An output is an argument marked `{loop.output}` or one the function stores to.
    """
    from compiler.analysis.arg_binder import arg_decls
    from compiler.dialects import loop

    return [
        ArgSpec(d.name, d.shape, dtype_of(t.element_type), d.is_output, d.strides is not None)
        for d, t in zip(arg_decls(func), func.function_type.inputs.data, strict=True)
        if isinstance(t, loop.BufferType)
    ]


def dtype_of(t: Attribute) -> str:
    from compiler.te.to_ir import mlir_type

    for dtype in _NUMPY_DTYPES:
        if mlir_type(dtype, element=True) == t:
            return dtype
    raise ExprTypeError(f"no NumPy dtype for element type {t}")


def verify_passes() -> bool:
    """Whether builds verify the IR the passes made ($COMPILER_VERIFY=1: the test suite
    does). A wrong op there is a compiler bug, not the user's: checking every build cost
    a sixth of the passes' time."""
    return os.environ.get("COMPILER_VERIFY", "0") not in ("", "0")


def memory_plan(module: ModuleOp) -> MemorySummary | None:
    """The plan storage-rewrite made (checked: a wrong plan is an internal error)."""
    from compiler.analysis.memory_summary import memory_summary
    from compiler.dialects import loop
    from compiler.lowering.packed_abi import is_packed_entry
    from compiler.passes.verify_memory_plan import check_function

    for func in module.ops:  # not the packed entry: its stack is a table of its arguments
        if isinstance(func, loop.FuncOp) and not is_packed_entry(func):
            problems = check_function(func)
            if problems:
                raise MemoryPlanError(f"internal error: unsound memory plan: {'; '.join(problems)}")
            summary = memory_summary(func)
            if summary.buffers or summary.stack:
                return summary
    return None
