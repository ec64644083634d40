"""`sched`: schedules of `te` functions, TVM's `Schedule`/`Stage` as IR.

A `sched.schedule @f { ... }` holds the schedule primitives applied to the
stages of `te.func @f`. Iteration variables are SSA values of type
`!sched.iter<"Stage">`: a root axis comes from `sched.axis`, new ones from
`sched.split` and `sched.fuse`.

```mlir
sched.schedule @f {
  %i = sched.axis "D" 0 : !sched.iter<"D">
  %j = sched.axis "D" 1 : !sched.iter<"D">
  %jo, %ji = sched.split %j by 8 : !sched.iter<"D">
  sched.reorder %jo, %i, %ji : !sched.iter<"D">
  sched.compute_at "C", %ji : !sched.iter<"D">
  sched.vectorize %ji : !sched.iter<"D">
  sched.compute_inline "B"
}
```

The verifier of `sched.schedule` rejects invalid schedules: unknown stages
or axes, splitting or fusing an axis that is no longer a leaf, reordering
axes of another stage, attaching a stage inside a loop that some reader of it runs outside,
attachment cycles, inlining a reduction or an output, factoring (`sched.rfactor`)
a data axis or a stage others are computed at, and using a stage's axes from
before its rfactor; a `sched.cache_write` of a stage that is attached,
inlined, annotated, has stages attached to it or its reduce axes split, a
`sched.cache_read` whose reader does not read the tensor, axes a cache_write
replaced, a `sched.storage_align` of a non-root axis or of an output, and a
`sched.create_group` whose inputs the outputs do not read or that cuts
through another group, or a stage of a group computed at a stage outside it;
for a scan (`te.state`), a time axis split, fused, reordered inward or
annotated, a scan or its init attached or inlined, and a stage that reads the
scan's state computed outside its time loop; for a `te.extern` stage, any
primitive on it and attaching or inlining a stage it reads.

The definitions live in one module per story: `types` (`!sched.iter` and the
syntax of axis lists), `schedule` (`sched.schedule` and its checker hook),
`axes` (the primitives on a stage's loop nest), `placement` (`compute_at`,
`compute_root`, `compute_inline`, `create_group`) and `stages` (`rfactor`,
`cache_read`, `cache_write`, `storage_align`). This package re-exports them all.
"""

from xdsl.ir import Dialect

from compiler.dialects.sched.axes import (
    AxisAnnotationOp,
    AxisOp,
    FuseOp,
    ParallelOp,
    PragmaOp,
    ReorderOp,
    SingletonOp,
    SplitOp,
    UnrollOp,
    VectorizeOp,
)
from compiler.dialects.sched.placement import (
    ComputeAtOp,
    ComputeInlineOp,
    ComputeRootOp,
    CreateGroupOp,
    StageDirectiveOp,
)
from compiler.dialects.sched.schedule import ScheduleChecker, ScheduleOp, install_schedule_checker
from compiler.dialects.sched.stages import (
    CacheReadOp,
    CacheWriteOp,
    RfactorOp,
    StorageAlignOp,
    cache_stage_name,
)
from compiler.dialects.sched.types import IterType

SCHED = Dialect(
    "sched",
    [
        ScheduleOp,
        AxisOp,
        SplitOp,
        FuseOp,
        SingletonOp,
        ReorderOp,
        ParallelOp,
        VectorizeOp,
        UnrollOp,
        PragmaOp,
        ComputeAtOp,
        ComputeRootOp,
        ComputeInlineOp,
        RfactorOp,
        CacheReadOp,
        CacheWriteOp,
        StorageAlignOp,
        CreateGroupOp,
    ],
    [IterType],
)

__all__ = [
    "SCHED",
    "AxisAnnotationOp",
    "AxisOp",
    "CacheReadOp",
    "CacheWriteOp",
    "ComputeAtOp",
    "ComputeInlineOp",
    "ComputeRootOp",
    "CreateGroupOp",
    "FuseOp",
    "IterType",
    "ParallelOp",
    "PragmaOp",
    "ReorderOp",
    "RfactorOp",
    "ScheduleChecker",
    "ScheduleOp",
    "SingletonOp",
    "SplitOp",
    "StageDirectiveOp",
    "StorageAlignOp",
    "UnrollOp",
    "VectorizeOp",
    "cache_stage_name",
    "install_schedule_checker",
]
