"""The memory plan of a flat `loop.func`, buffer by buffer: each buffer's size,
lifetime (statements) and offset, why a buffer got fresh memory, the arena size
against the no-reuse total and the liveness lower bound. The memory-report pass
prints it; the compiled `Function` exposes it as `.memory`; `compiler.memory_plot`
draws it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # xDSL is imported where a plan is computed: a cached build reads one only
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
    stack: dict[str, int] = field(default_factory=dict)
    """Buffers on the stack (`loop.alloc local`: register tiles, accumulators, stages
    computed inside a parallel loop, one copy per thread), bytes each: not in the arena."""
    constants: int | None = None
    """Bytes of the constants a network binds once (`from_torch`: its parameters as
    prepared at import, weights blocked and batch norms folded): not in the arena;
    None for a `build` function, whose arguments are all the caller's."""
    state: int | None = None
    """Bytes of the state a network holds (`from_torch`: the buffers the program writes,
    a KV cache, updated in place by every call): not in the arena; None without state."""

    def as_dict(self) -> dict[str, Any]:
        """The plan as JSON-able data (symbolic sizes stay expression texts); `from_dict`
        reads it back equal."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemorySummary:
        buffers = [BufferInfo(**b) for b in data["buffers"]]
        return cls(
            data["function"], buffers, data["arena"], data["no_reuse"], data["lower_bound"], dict(data.get("stack", {})),
            data.get("constants"), data.get("state"),
        )

    def __repr__(self) -> str:
        buffers = ", ".join(f"{b.name} {b.size}" for b in self.buffers)
        bound = "symbolic" if self.lower_bound is None else str(self.lower_bound)
        constants = "" if self.constants is None else f"; constants {self.constants} bytes"
        constants += "" if self.state is None else f"; state {self.state} bytes"
        return (
            f"<MemorySummary @{self.function}: arena {self.arena} bytes for {len(self.buffers)} "
            f"buffer(s) ({buffers}); without reuse {self.no_reuse}; liveness lower bound {bound}{constants}>"
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
        if self.stack:
            each = ", ".join(f"{name} {size}" for name, size in self.stack.items())
            out.append(f"  stack (per thread, not in the arena): {sum(self.stack.values())} bytes ({each})")
        if self.constants is not None:
            out.append(f"  constants (bound once, prepared at import; not in the arena): {self.constants} bytes")
        if self.state is not None:
            out.append(f"  state (written in place by every call, kept across calls; not in the arena): {self.state} bytes")
        return out


def memory_summary(func: loop.FuncOp) -> MemorySummary:
    from xdsl.dialects.builtin import StringAttr

    from compiler.analysis.liveness import (
        ARENA,
        REASON_ATTR,
        aligned,
        buffer_bytes,
        liveness,
        liveness_lower_bound,
    )
    from compiler.analysis.walk import walk_ops
    from compiler.arith.simplify import const_value
    from compiler.dialects import loop

    summary = MemorySummary(func.sym_name.data)
    views = {op.buffer_name.data: op for op in walk_ops(func) if isinstance(op, loop.ViewOp)}
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
    arena = next((op for op in walk_ops(func) if isinstance(op, loop.AllocOp) and op.buffer_name.data == ARENA), None)
    if arena is not None:
        summary.arena = str(buffer_bytes(arena.buffer_type))
    summary.no_reuse = "symbolic" if symbolic else str(total)
    summary.lower_bound = liveness_lower_bound(lifetimes)
    for op in walk_ops(func):
        if isinstance(op, loop.AllocOp) and op.is_local:
            summary.stack[op.buffer_name.data] = const_value(buffer_bytes(op.buffer_type)) or 0
    return summary
