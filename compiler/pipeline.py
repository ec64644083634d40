"""The named pipeline shared by `compiler-opt` and `compiler.build`.

`default_pipeline(until)` lists the passes from the `te` dialect down to the
`llvm` dialect; `until` stops after a named stage:

| stage  | after the passes                    | the module holds     |
|--------|-------------------------------------|----------------------|
| `te`   | none                                | te.func              |
| `loop` | apply-cache-stages, apply-rfactor, (auto-schedule,) compute-inline, tighten-pad-regions, infer-bound, schedule-ops, (insert-bound-checks, instrument-stages) | loop.func, N-D |
| `flat` | loop-partition, make-packed-api, storage-flatten, storage-rewrite, unroll-loops | packed + loop.func, 1-D, one arena |
| `llvm` | lower-to-llvm                       | llvm.func            |

`compiler-opt -p 'default-pipeline{until=loop}'` runs the same list: the
tool replaces `default-pipeline{...}` by the passes it stands for
(`DefaultPipelinePass.passes()`) before running, so `--print-between-passes`
and `--time-passes` show every stage. `str()` of each pass is valid `-p`
text (`pipeline_spec()`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.errors import OptionError
from compiler.pipeline_options import PipelineOptions

Stage = Literal["te", "loop", "flat", "llvm"]
STAGES: tuple[Stage, ...] = ("te", "loop", "flat", "llvm")


def as_stage(text: str) -> Stage:
    """`text` (a pass option, a command-line word) as a Stage; OptionError for another word."""
    for stage in STAGES:
        if stage == text:
            return stage
    raise OptionError(f"unknown pipeline stage '{text}': expected one of {', '.join(STAGES)}")


def default_pipeline(
    until: Stage = "llvm",
    *,
    options: PipelineOptions | None = None,
    order: tuple[str, ...] = (),
    strided: tuple[str, ...] = (),
    **changes: bool,
) -> list[ModulePass]:
    """The passes from te to llvm (until the stage `until`), for `options` (the defaults)
    with `changes`: see `PipelineOptions` (`fast_math=True`: results may differ from
    the default in the last bits; `tighten_pad_regions=False`: TVM's regions, for
    comparison; `auto_schedule=True`: `build()` does this when it is given no schedule;
    `profile=True`: `Function.profile` builds this variant). `order` and `strided` are
    make-packed-api's options (the arguments in call order, those with any strides)."""
    o = PipelineOptions.of("default_pipeline", changes, options)
    if until not in STAGES:
        raise OptionError(f"unknown pipeline stage '{until}': expected one of {', '.join(STAGES)}")
    stages: list[tuple[Stage, list[ModulePass]]] = [
        ("loop", _loop_stage(o)),
        ("flat", _flat_stage(o, order, strided)),
        ("llvm", _llvm_stage(o)),
    ]
    passes: list[ModulePass] = []
    for stage, stage_passes in stages:
        if STAGES.index(stage) > STAGES.index(until):
            break
        passes.extend(stage_passes)
    return passes


def _loop_stage(o: PipelineOptions) -> list[ModulePass]:
    """te + sched -> loop.func, N-D."""
    from compiler.passes.apply_cache_stages import ApplyCacheStagesPass
    from compiler.passes.apply_rfactor import ApplyRfactorPass
    from compiler.passes.auto_schedule import AutoSchedulePass
    from compiler.passes.compute_inline import ComputeInlinePass
    from compiler.passes.infer_bound import InferBoundPass
    from compiler.passes.insert_bound_checks import InsertBoundChecksPass
    from compiler.passes.instrument_stages import InstrumentStagesPass
    from compiler.passes.schedule_ops import ScheduleOpsPass
    from compiler.passes.tighten_pad_regions import TightenPadRegionsPass

    return [
        ApplyCacheStagesPass(),
        ApplyRfactorPass(),
        *([AutoSchedulePass()] if o.auto_schedule else []),
        ComputeInlinePass(),
        *([TightenPadRegionsPass()] if o.tighten_pad_regions else []),
        InferBoundPass(clip_to_shape=o.tighten_pad_regions),  # both off: old TVM's regions
        ScheduleOpsPass(),
        *([InsertBoundChecksPass()] if o.check_bounds else []),
        *([InstrumentStagesPass()] if o.profile else []),
    ]


def _flat_stage(o: PipelineOptions, order: tuple[str, ...], strided: tuple[str, ...]) -> list[ModulePass]:
    """loop.func, N-D -> the packed function and 1-D buffers in one arena."""
    from compiler.passes.loop_partition import LoopPartitionPass
    from compiler.passes.make_packed_api import MakePackedAPIPass
    from compiler.passes.storage_flatten import StorageFlattenPass
    from compiler.passes.storage_rewrite import StorageRewritePass
    from compiler.passes.unroll_loops import UnrollLoopsPass

    # make-packed-api needs the N-D argument types, which storage-flatten drops
    return [
        *([LoopPartitionPass()] if o.loop_partition else []),
        MakePackedAPIPass(strided=strided, order=order),
        StorageFlattenPass(),
        StorageRewritePass(),
        UnrollLoopsPass(),
    ]


def _llvm_stage(o: PipelineOptions) -> list[ModulePass]:
    from compiler.lowering.to_llvm import LowerToLLVMPass

    return [LowerToLLVMPass(fast_math=o.fast_math, fp_contract=o.fp_contract)]


def stage_passes(stage: Stage, **options: Any) -> list[ModulePass]:
    """The passes that lead from the stage before `stage` to `stage`; the options are
    `default_pipeline`'s."""
    previous = STAGES[STAGES.index(stage) - 1]
    everything = default_pipeline(stage, **options)
    before = default_pipeline(previous, **options) if stage != "te" else []
    return everything[len(before) :]


def pipeline_spec(until: Stage = "llvm") -> str:
    return ",".join(str(p) for p in default_pipeline(until))


@dataclass(frozen=True)
class _Until:
    until: str = "llvm"
    """Stop after this stage: te, loop, flat or llvm."""


@dataclass(frozen=True)
class _Signature:
    order: tuple[str, ...] = ()
    """The arguments in call order, by name (`make-packed-api{order=...}`; `build` sets it)."""

    strided: tuple[str, ...] = ()
    """Arguments that take any strides (`make-packed-api{strided=...}`)."""


@dataclass(frozen=True)
class DefaultPipelinePass(PipelineOptions, _Signature, _Until, ModulePass):
    """The whole default pipeline as one pass: `default-pipeline{until=loop}`. Its
    options are `until`, `order`, `strided`, then `PipelineOptions`' (in this order:
    the bases later in the method resolution order give their fields first).
    `compiler.build` compiles with one (`Function.pipeline` is its text)."""

    name = "default-pipeline"

    def passes(self) -> list[ModulePass]:
        """The passes this one stands for (what compiler-opt runs in its place)."""
        return default_pipeline(as_stage(self.until), **self._options())

    def stage(self, stage: Stage) -> list[ModulePass]:
        """The passes of this pipeline that lead to `stage` from the stage before it."""
        return stage_passes(stage, **self._options())

    def _options(self) -> dict[str, Any]:
        fields = PipelineOptions(**self.pipeline_fields())
        return {"options": fields, "order": self.order, "strided": self.strided}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for p in self.passes():
            p.apply(ctx, op)


def expand_pipelines(passes: Sequence[ModulePass]) -> tuple[ModulePass, ...]:
    """`passes` with each `default-pipeline` replaced by the passes it stands for."""
    return tuple(q for p in passes for q in (p.passes() if isinstance(p, DefaultPipelinePass) else [p]))
