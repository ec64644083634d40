"""Name -> lazy factory for the project's dialects and passes.

`compiler-opt` and the Python API both use these tables, so a run imports
only the dialects and passes it needs.
"""

from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def sched() -> Dialect:
        import compiler.analysis.schedule_model  # noqa: F401  (installs the schedule verifier)
        from compiler.dialects.sched import SCHED

        return SCHED

    def loop() -> Dialect:
        from compiler.dialects.loop import LOOP

        return LOOP

    def packed() -> Dialect:
        from compiler.dialects.packed import PACKED

        return PACKED

    def te() -> Dialect:
        from compiler.dialects.te import TE

        return TE

    return {"loop": loop, "packed": packed, "sched": sched, "te": te}


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    def auto_schedule() -> type[ModulePass]:
        from compiler.passes.auto_schedule import AutoSchedulePass

        return AutoSchedulePass

    def default_pipeline() -> type[ModulePass]:
        from compiler.pipeline import DefaultPipelinePass

        return DefaultPipelinePass

    def apply_rfactor() -> type[ModulePass]:
        from compiler.passes.apply_rfactor import ApplyRfactorPass

        return ApplyRfactorPass

    def apply_cache_stages() -> type[ModulePass]:
        from compiler.passes.apply_cache_stages import ApplyCacheStagesPass

        return ApplyCacheStagesPass

    def compute_inline() -> type[ModulePass]:
        from compiler.passes.compute_inline import ComputeInlinePass

        return ComputeInlinePass

    def tighten_pad_regions() -> type[ModulePass]:
        from compiler.passes.tighten_pad_regions import TightenPadRegionsPass

        return TightenPadRegionsPass

    def infer_bound() -> type[ModulePass]:
        from compiler.passes.infer_bound import InferBoundPass

        return InferBoundPass

    def insert_bound_checks() -> type[ModulePass]:
        from compiler.passes.insert_bound_checks import InsertBoundChecksPass

        return InsertBoundChecksPass

    def instrument_stages() -> type[ModulePass]:
        from compiler.passes.instrument_stages import InstrumentStagesPass

        return InstrumentStagesPass

    def lower_to_llvm() -> type[ModulePass]:
        from compiler.lowering.to_llvm import LowerToLLVMPass

        return LowerToLLVMPass

    def loop_partition() -> type[ModulePass]:
        from compiler.passes.loop_partition import LoopPartitionPass

        return LoopPartitionPass

    def make_packed_api() -> type[ModulePass]:
        from compiler.passes.make_packed_api import MakePackedAPIPass

        return MakePackedAPIPass

    def schedule_ops() -> type[ModulePass]:
        from compiler.passes.schedule_ops import ScheduleOpsPass

        return ScheduleOpsPass

    def unroll_loops() -> type[ModulePass]:
        from compiler.passes.unroll_loops import UnrollLoopsPass

        return UnrollLoopsPass

    def verify_memory_plan() -> type[ModulePass]:
        from compiler.passes.verify_memory_plan import VerifyMemoryPlanPass

        return VerifyMemoryPlanPass

    def memory_report() -> type[ModulePass]:
        from compiler.passes.memory_report import MemoryReportPass

        return MemoryReportPass

    def storage_rewrite() -> type[ModulePass]:
        from compiler.passes.storage_rewrite import StorageRewritePass

        return StorageRewritePass

    def storage_flatten() -> type[ModulePass]:
        from compiler.passes.storage_flatten import StorageFlattenPass

        return StorageFlattenPass

    return {
        "apply-rfactor": apply_rfactor,
        "auto-schedule": auto_schedule,
        "apply-cache-stages": apply_cache_stages,
        "compute-inline": compute_inline,
        "default-pipeline": default_pipeline,
        "infer-bound": infer_bound,
        "insert-bound-checks": insert_bound_checks,
        "instrument-stages": instrument_stages,
        "loop-partition": loop_partition,
        "lower-to-llvm": lower_to_llvm,
        "make-packed-api": make_packed_api,
        "memory-report": memory_report,
        "schedule-ops": schedule_ops,
        "storage-flatten": storage_flatten,
        "storage-rewrite": storage_rewrite,
        "tighten-pad-regions": tighten_pad_regions,
        "unroll-loops": unroll_loops,
        "verify-memory-plan": verify_memory_plan,
    }
