"""memory-report: what storage-rewrite did, buffer by buffer.

Prints, for every function with planned buffers, each buffer's size, lifetime
(statements) and offset, why a buffer got fresh memory, the arena size against
the no-reuse total and the liveness lower bound. `memory_summary()` returns
the same numbers (the compiled `Function` exposes them as `.memory`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass

from compiler.analysis.liveness import (
    ARENA,
    REASON_ATTR,
    aligned,
    buffer_bytes,
    liveness,
    liveness_lower_bound,
)
from compiler.arith.simplify import const_value
from compiler.dialects import loop


@dataclass
class BufferInfo:
    name: str
    size: str
    first: int
    last: int
    offset: str
    inplace_of: str | None
    reason: str | None


@dataclass
class MemorySummary:
    function: str
    buffers: list[BufferInfo] = field(default_factory=list)
    arena: str = "0"
    no_reuse: str = "0"
    lower_bound: int | None = None

    def plot(self, path: str | Path, *, dims: Mapping[str, int] | None = None, title: str | None = None) -> None:
        """Draw the plan into `path` (PNG, SVG or PDF; matplotlib needed): buffers as
        rectangles over their lifetimes and arena offsets, the liveness lower bound as a
        line; `dims` binds symbolic sizes (compiler.analysis.memory_plot)."""
        from compiler.analysis.memory_plot import plot_memory

        plot_memory(self, path, dims=dims, title=title)

    def __repr__(self) -> str:
        buffers = ", ".join(f"{b.name} {b.size}" for b in self.buffers)
        bound = "symbolic" if self.lower_bound is None else str(self.lower_bound)
        return (
            f"<MemorySummary @{self.function}: arena {self.arena} bytes for {len(self.buffers)} "
            f"buffer(s) ({buffers}); without reuse {self.no_reuse}; liveness lower bound {bound}>"
        )

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        """The `memory-report` table: one line per buffer, then the totals."""
        out = [f"memory plan of @{self.function}:"]
        out.append(f"  {'buffer':<14} {'bytes':>12} {'live':>9} {'offset':>12}  note")
        for b in self.buffers:
            note = f"in place of {b.inplace_of}" if b.inplace_of else (f"fresh: {b.reason}" if b.reason else "reuses the bytes of a dead buffer")
            out.append(f"  {b.name:<14} {b.size:>12} {f'{b.first}-{b.last}':>9} {b.offset:>12}  {note}")
        bound = "symbolic" if self.lower_bound is None else f"{self.lower_bound}"
        out.append(
            f"  arena {self.arena} bytes; without reuse {self.no_reuse}; "
            f"liveness lower bound {bound} (in-place writes can go below it)"
        )
        return out


def memory_summary(func: loop.FuncOp) -> MemorySummary:
    summary = MemorySummary(func.sym_name.data)
    views = {op.buffer_name.data: op for op in func.walk() if isinstance(op, loop.ViewOp)}
    lifetimes = liveness(func)
    total = 0
    symbolic = False
    for t in lifetimes:
        view = views.get(t.name)
        reason = view.attributes.get(REASON_ATTR) if view is not None else None
        summary.buffers.append(
            BufferInfo(
                t.name,
                str(t.size),
                t.first,
                t.last,
                view.offset.data if view is not None else "-",
                None if view is None or view.inplace is None else view.inplace.data,
                reason.data if isinstance(reason, StringAttr) else None,
            )
        )
        size = const_value(aligned(t.size))
        symbolic |= size is None
        total += size or 0
    arena = next((op for op in func.walk() if isinstance(op, loop.AllocOp) and op.buffer_name.data == ARENA), None)
    if arena is not None:
        summary.arena = str(buffer_bytes(arena.buffer_type))
    summary.no_reuse = "symbolic" if symbolic else str(total)
    summary.lower_bound = liveness_lower_bound(lifetimes)
    return summary


@dataclass(frozen=True)
class MemoryReportPass(ModulePass):
    """Print each buffer's size, lifetime and offset, and the plan's totals."""

    name = "memory-report"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.ops if isinstance(f, loop.FuncOp)]:
            summary = memory_summary(func)
            if summary.buffers:
                print("\n".join(f"// {line}" for line in summary.lines()))
