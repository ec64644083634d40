"""Name -> lazy factory for the project's dialects and passes.

`compiler-opt` and the Python API both use these tables, so a run imports
only the dialects and passes it needs.
"""

import importlib
from collections.abc import Callable

from xdsl.ir import Dialect
from xdsl.passes import ModulePass


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    def sched() -> Dialect:
        import compiler.schedule.model  # noqa: F401  (installs the schedule verifier)
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


# Every pass by its `compiler-opt` name: the module that defines it and its class.
PASSES: dict[str, tuple[str, str]] = {
    "apply-cache-stages": ("compiler.passes.apply_cache_stages", "ApplyCacheStagesPass"),
    "apply-rfactor": ("compiler.passes.apply_rfactor", "ApplyRfactorPass"),
    "auto-schedule": ("compiler.passes.auto_schedule", "AutoSchedulePass"),
    "compute-inline": ("compiler.passes.compute_inline", "ComputeInlinePass"),
    "default-pipeline": ("compiler.pipeline", "DefaultPipelinePass"),
    "infer-bound": ("compiler.passes.infer_bound", "InferBoundPass"),
    "insert-bound-checks": ("compiler.passes.insert_bound_checks", "InsertBoundChecksPass"),
    "instrument-stages": ("compiler.passes.instrument_stages", "InstrumentStagesPass"),
    "loop-partition": ("compiler.passes.loop_partition", "LoopPartitionPass"),
    "lower-to-llvm": ("compiler.lowering.to_llvm", "LowerToLLVMPass"),
    "make-packed-api": ("compiler.passes.make_packed_api", "MakePackedAPIPass"),
    "memory-report": ("compiler.passes.memory_report", "MemoryReportPass"),
    "schedule-ops": ("compiler.passes.schedule_ops", "ScheduleOpsPass"),
    "storage-flatten": ("compiler.passes.storage_flatten", "StorageFlattenPass"),
    "storage-rewrite": ("compiler.passes.storage_rewrite", "StorageRewritePass"),
    "tighten-pad-regions": ("compiler.passes.tighten_pad_regions", "TightenPadRegionsPass"),
    "unroll-loops": ("compiler.passes.unroll_loops", "UnrollLoopsPass"),
    "verify-memory-plan": ("compiler.passes.verify_memory_plan", "VerifyMemoryPlanPass"),
}


def _pass_loader(module: str, name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        cls = getattr(importlib.import_module(module), name)
        assert isinstance(cls, type)
        assert issubclass(cls, ModulePass)
        return cls

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> a getter that imports the pass's module when called."""
    return {name: _pass_loader(module, cls) for name, (module, cls) in PASSES.items()}
