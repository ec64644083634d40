"""auto-schedule: a schedule for every stage of a `te.func` that has none.

The choices come from `compiler.auto_schedule` (its docstring lists
them): inline injective producers, a register tile with the reduce loops
outside it, the innermost data axis vectorized at the target's width, the
outer loops fused and parallel over the cores. A function without a
`sched.schedule` gets one; a partial schedule is extended (the stages it names
are kept as the user scheduled them). `compiler-opt -p auto-schedule` prints
the chosen `sched` ops; the options pin the target, so the output does not
depend on the machine:

    compiler-opt f.mlir -p 'auto-schedule{vector_bits=256 cores=2}'

0 (the default) reads the host: llvmlite's CPU features, sysfs caches,
`os.sched_getaffinity`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.analysis.target import Target, host_target
from compiler.auto_schedule import emit_plans, plan_function
from compiler.diagnostics import PassError
from compiler.dialects import sched, te
from compiler.schedule.model import schedule_of


@dataclass(frozen=True)
class AutoSchedulePass(ModulePass):
    """Schedule every stage no `sched` op names, from an analytical cost model of the target."""

    name = "auto-schedule"

    vector_bits: int = 0
    """Vector register width in bits (512 for AVX-512, 256 for AVX2); 0: the host's."""

    registers: int = 0
    """Vector registers (the register tile keeps 4 free); 0: the host's (32 with AVX-512, else 16)."""

    cores: int = 0
    """Cores for parallel loops; 0: the host's usable cores. 1: no parallel loops."""

    l1_bytes: int = 0
    """L1 data cache bytes; 0: the host's. Part of the target, but no choice of the
    current cost model depends on it (reduction blocks are sized by L2, see `l2_bytes`)."""

    l2_bytes: int = 0
    """L2 cache bytes per core (blocks long reductions: a matmul panel stays in a quarter of it); 0: the host's."""

    parallel: bool = True
    """Run the outer loops in parallel (when cores > 1)."""

    parallel_min_work: int = -1
    """Iterations under which a stage stays on one core (its fork and join would cost more
    than its work); -1: the target's default (2^18), 0: every stage runs in parallel."""

    inline: bool = True
    """Inline injective intermediate stages into their consumers."""

    def target(self) -> Target:
        host = host_target()
        for option in ("vector_bits", "registers", "cores", "l1_bytes", "l2_bytes"):
            if getattr(self, option) < 0:
                raise PassError(f"auto-schedule: {option.replace('_', '-')} must be >= 0, got {getattr(self, option)}")
        if self.parallel_min_work < -1:
            raise PassError(f"auto-schedule: parallel-min-work must be >= -1, got {self.parallel_min_work}")
        if self.vector_bits and (self.vector_bits % 64 or self.vector_bits > 2048):
            raise PassError(f"auto-schedule: vector-bits must be a multiple of 64 up to 2048, got {self.vector_bits}")
        return replace(
            host,
            vector_bits=self.vector_bits or host.vector_bits,
            registers=self.registers or (32 if self.vector_bits >= 512 else 16 if self.vector_bits else host.registers),
            cores=self.cores or host.cores,
            l1_bytes=self.l1_bytes or host.l1_bytes,
            l2_bytes=self.l2_bytes or host.l2_bytes,
            parallel_min_work=host.parallel_min_work if self.parallel_min_work < 0 else self.parallel_min_work,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = self.target()
        for func in [f for f in op.ops if isinstance(f, te.FuncOp)]:
            schedule = schedule_of(op, func)
            plans = plan_function(func, schedule, target)
            if not self.parallel:
                plans = [replace(p, parallel=False) for p in plans]
            if not self.inline:
                plans = [replace(p, action="root") if p.action == "inline" else p for p in plans]
            if all(p.action == "keep" for p in plans):
                continue
            if schedule is None:
                schedule = sched.ScheduleOp(func.sym_name.data)
                op.body.block.add_op(schedule)
            emit_plans(func, schedule, plans, target)
