"""memory-report: what storage-rewrite did, buffer by buffer (the numbers of
`compiler.analysis.memory_summary`, printed as comments)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.analysis.memory_summary import memory_summary
from compiler.dialects import loop
from compiler.passes import LoopFunctionPass


@dataclass(frozen=True)
class MemoryReportPass(LoopFunctionPass):
    """Print each buffer's size, lifetime and offset, and the plan's totals."""

    name = "memory-report"

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        summary = memory_summary(func)
        if summary.buffers:
            print("\n".join(f"// {line}" for line in summary.lines()))
