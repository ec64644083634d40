"""Substituting inlined stages into their consumers (TVM's InjectInline).

Used by the `compute-inline` pass and by bound inference, which inlines
first when the pass did not run.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.diagnostics import PassError
from compiler.dialects import sched, te
from compiler.schedule.model import (
    ScheduleModel,
    apply_dataflow_rewrites,
    apply_rfactors,
    schedule_of,
)


def inline_stage(producer: te.ComputeOp) -> None:
    """Replace every `te.read` of `producer` by a copy of its body, then erase it."""
    yielded = producer.body.block.last_op
    assert isinstance(yielded, te.YieldOp)
    uses = [(use, k) for k, result in enumerate(producer.outputs) for use in list(result.uses)]
    for use, k in uses:  # a multi-output stage: a read of its k-th tensor is its k-th value
        read = use.operation
        if not isinstance(read, te.ReadOp):
            raise PassError(f"compute-inline: stage \"{producer.stage.data}\" is used by {read.name}", read)
        mapping: dict[SSAValue, SSAValue] = dict(zip(producer.axes, read.indices, strict=True))
        for op in producer.body.block.ops:
            if op is yielded:
                break
            Rewriter.insert_op(op.clone(mapping), InsertPoint.before(read))
        Rewriter.replace_op(read, [], [mapping.get(yielded.values[k], yielded.values[k])])
    Rewriter.erase_op(producer)


def inline_function(module: ModuleOp, func: te.FuncOp) -> None:
    apply_dataflow_rewrites(module, func)  # cache stages: a no-op after apply-cache-stages
    apply_rfactors(module, func)  # a no-op when apply-rfactor already ran
    schedule = schedule_of(module, func)
    if schedule is None:
        return
    model = ScheduleModel.build(func, schedule)
    inlined = {stage.name for stage in model.stages.values() if stage.inline}
    for stage in reversed(list(model.stages.values())):
        if stage.inline:
            inline_stage(stage.op)
    for op in reversed(list(schedule.body.ops)):
        # the loops and placement an inlined stage was given go with it (TVM ignores them)
        if isinstance(op, sched.ComputeInlineOp) or _names_stage(op, inlined):
            Rewriter.erase_op(op)


def _names_stage(op: Operation, stages: set[str]) -> bool:
    """Whether a sched op is about one of `stages`: names it, or works on its axes."""
    stage = op.properties.get("stage")
    if isinstance(stage, StringAttr) and stage.data in stages:
        return True
    values = [*op.operands, *op.results]
    return any(isinstance(v.type, sched.IterType) and v.type.stage.data in stages for v in values)
