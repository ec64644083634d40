"""The schedule of a `te.func` as plain data: stages, iteration variables, relations.

`ScheduleModel.build(func, schedule)` replays the `sched` ops of a schedule
over the stages of a function, as TVM's `Stage` methods do, and raises a
`VerifyException` naming the primitive and the stage for an invalid
schedule. The `sched.schedule` verifier (through the checker this module
installs, `sched.install_schedule_checker`) and every pass that reads a
schedule use it.

`sched.cache_read`/`sched.cache_write` rewrite the function
(`compiler.schedule.cache_stages`) as they are replayed: a copy of it when the
replay only verifies, the function itself for apply-cache-stages
(`apply_dataflow_rewrites`), so the primitives after them see the new stages.

`sched.create_group` makes a `Group` of stages (TVM's group stage): a stage not
attached itself is computed where its innermost attached group is
(`resolve_group_attachments`, TVM's GetAttachSpec), so the passes see plain
attachments.

The model's data is `compiler.schedule.stages`, the replay
`compiler.schedule.replay`, scans `compiler.schedule.scans`; this
module builds the model and applies what the replay records (and re-exports the
model's names).

Every iteration variable gets a name unique in the function that is also a
valid variable of `compiler.arith` expressions: `<stage>_<axis>` for root
axes, `<parent>_o` / `<parent>_i` after a split, `<outer>_f` after a fuse.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from compiler.diagnostics import ScheduleVerifyError
from compiler.dialects import sched, te
from compiler.dialects.sched import ScheduleOp
from compiler.schedule.axes import Fuse, IterVar, Relation, Singleton, Split
from compiler.schedule.groups import group_chain
from compiler.schedule.replay import Replay, cache_layout
from compiler.schedule.rfactor import discard
from compiler.schedule.scans import mark_scans, place_scan_bodies, scan_bodies, scan_states
from compiler.schedule.stages import (
    LOOP_KINDS,
    PRAGMA_PRIMITIVES,
    Group,
    Names,
    ScheduleData,
    Stage,
    make_stage,
)

__all__ = [
    "LOOP_KINDS",
    "PRAGMA_PRIMITIVES",
    "Fuse",
    "Group",
    "IterVar",
    "Relation",
    "ScheduleModel",
    "Singleton",
    "Split",
    "Stage",
    "apply_dataflow_rewrites",
    "apply_rfactors",
    "cache_layout",
    "check_schedule",
    "group_chain",
    "has_dataflow_rewrites",
    "scan_bodies",
    "scan_states",
    "schedule_of",
]


class ScheduleModel(ScheduleData):
    """The model of a function under its schedule (`build`)."""

    @staticmethod
    def build(func: te.FuncOp, schedule: ScheduleOp | None = None, *, in_place: bool = False) -> ScheduleModel:
        """`in_place`: apply cache_read/cache_write to `func` itself (the apply-cache-stages
        pass); otherwise they rewrite a copy, which the model then describes."""
        if schedule is not None and not in_place and has_dataflow_rewrites(schedule):
            func = func.clone()
        names = Names()
        returned = func.body.block.last_op
        outputs = {v.owner for v in returned.operands} if returned is not None else set()
        stages: dict[str, Stage] = {}
        externs: dict[str, te.ExternOp] = {}
        for op in func.body.block.ops:
            if not isinstance(op, te.ComputeOp | te.ExternOp):
                continue
            name = op.stage.data
            if name in stages or name in externs:
                raise ScheduleVerifyError(f"two stages of @{func.sym_name.data} are named \"{name}\"", op)
            if isinstance(op, te.ExternOp):
                externs[name] = op
            else:
                stages[name] = make_stage(op, op in outputs, names)
        model = ScheduleModel(func, stages, externs=externs)
        mark_scans(func, stages)
        if schedule is not None:
            try:
                Replay(model, names).run(schedule)
            except VerifyException:
                discard(model.rfactors)  # detached stages still use the function's values
                raise
        else:
            place_scan_bodies(model)
        return model


def has_dataflow_rewrites(schedule: ScheduleOp) -> bool:
    """Whether a schedule holds primitives that rewrite its function (apply-cache-stages)."""
    kinds = (sched.CacheReadOp, sched.CacheWriteOp, sched.StorageAlignOp)
    return any(isinstance(op, kinds) for op in schedule.body.ops)


def apply_dataflow_rewrites(module: ModuleOp, func: te.FuncOp) -> None:
    """Applies the schedule's cache_read/cache_write/storage_align to the function and
    removes them from the schedule, with the loop structure a cache_write consumed."""
    schedule = schedule_of(module, func)
    if schedule is None or not has_dataflow_rewrites(schedule):
        return
    model = ScheduleModel.build(func, schedule, in_place=True)
    discard(model.rfactors)  # apply-rfactor puts them into the function, after this
    order = {op: k for k, op in enumerate(schedule.body.ops)}
    for op in sorted(set(model.rewritten), key=order.__getitem__, reverse=True):
        Rewriter.erase_op(op)


def apply_rfactors(module: ModuleOp, func: te.FuncOp) -> None:
    """Put the stages of every `sched.rfactor` into `func` and drop those ops from the schedule."""
    schedule = schedule_of(module, func)
    if schedule is None or not any(isinstance(op, sched.RfactorOp) for op in schedule.body.ops):
        return
    model = ScheduleModel.build(func, schedule)
    for rec in model.rfactors:
        Rewriter.insert_op(rec.factor, InsertPoint.before(rec.old))
        Rewriter.insert_op(rec.repl, InsertPoint.before(rec.old))
        for before, after in zip(rec.old.outputs, rec.repl.outputs, strict=True):
            before.replace_all_uses_with(after)
        Rewriter.erase_op(rec.old)
    ops = list(schedule.body.ops)
    erased: set[Operation] = set()
    for k, op in enumerate(ops):
        if not isinstance(op, sched.RfactorOp):
            continue
        stage_type = op.axis.type
        Rewriter.erase_op(op)
        erased.add(op)
        for earlier in reversed(ops[:k]):
            if earlier in erased:
                continue
            values = [*earlier.operands, *earlier.results]
            if any(v.type == stage_type for v in values):
                Rewriter.erase_op(earlier)
                erased.add(earlier)
    if schedule.body.block.first_op is None:
        Rewriter.erase_op(schedule)  # nothing left to schedule


def schedule_of(module: ModuleOp, func: te.FuncOp) -> sched.ScheduleOp | None:
    """The `sched.schedule` of `func` in `module`, if it has one."""
    for op in module.ops:
        if isinstance(op, sched.ScheduleOp) and op.func.root_reference.data == func.sym_name.data:
            return op
    return None


def check_schedule(func: te.FuncOp, schedule: ScheduleOp) -> None:
    """Replays a schedule only to reject it when invalid (the `sched.schedule` verifier)."""
    discard(ScheduleModel.build(func, schedule).rfactors)


sched.install_schedule_checker(check_schedule)
