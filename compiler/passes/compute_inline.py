"""compute-inline: substitute inlined stages into their consumers (TVM's InjectInline).

For every stage marked `sched.compute_inline`, each `te.read` of it is
replaced by a copy of the stage's body with its axes bound to the read's
indices (the copy keeps lazy `scf.if` guards intact, so a read that was
guarded stays guarded); the stage and its `sched.compute_inline` are then
erased. Stages are inlined consumers-first, so a chain of inlined stages
collapses into the first non-inlined consumer.

The schedule verifier has already rejected inlining a reduction or an output.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from compiler.dialects import sched, te
from compiler.dialects.sched_model import ScheduleModel


def inline_stage(producer: te.ComputeOp) -> None:
    """Replace every `te.read` of `producer` by a copy of its body, then erase it."""
    yielded = producer.body.block.last_op
    assert isinstance(yielded, te.YieldOp)
    for use in list(producer.result.uses):
        read = use.operation
        if not isinstance(read, te.ReadOp):
            raise PassFailedException(f"compute-inline: stage \"{producer.stage.data}\" is used by {read.name}")
        mapping: dict[SSAValue, SSAValue] = dict(zip(producer.axes, read.indices, strict=True))
        for op in producer.body.block.ops:
            if op is yielded:
                break
            Rewriter.insert_op(op.clone(mapping), InsertPoint.before(read))
        Rewriter.replace_op(read, [], [mapping.get(yielded.values[0], yielded.values[0])])
    Rewriter.erase_op(producer)


def inline_function(module: ModuleOp, func: te.FuncOp) -> None:
    from compiler.passes.infer_bound import schedule_of

    schedule = schedule_of(module, func)
    if schedule is None:
        return
    model = ScheduleModel.build(func, schedule)
    for stage in reversed(list(model.stages.values())):
        if stage.inline:
            inline_stage(stage.op)
    for op in list(schedule.body.ops):
        if isinstance(op, sched.ComputeInlineOp):
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class ComputeInlinePass(ModulePass):
    """Substitute every `sched.compute_inline` stage into its consumers."""

    name = "compute-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.ops if isinstance(f, te.FuncOp)]:
            inline_function(op, func)
