"""memory-report: what storage-rewrite did, buffer by buffer (the numbers of
`compiler.analysis.memory_summary`, printed as comments)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.analysis.memory_summary import memory_summary
from compiler.dialects import loop


@dataclass(frozen=True)
class MemoryReportPass(ModulePass):
    """Print each buffer's size, lifetime and offset, and the plan's totals."""

    name = "memory-report"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.ops if isinstance(f, loop.FuncOp)]:
            summary = memory_summary(func)
            if summary.buffers:
                print("\n".join(f"// {line}" for line in summary.lines()))
