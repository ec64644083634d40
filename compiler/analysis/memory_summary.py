"""The memory plan of a flat `loop.func`, buffer by buffer: each buffer's size,
lifetime (statements) and offset, why a buffer got fresh memory, the arena size
against the no-reuse total and the liveness lower bound. The memory-report pass
prints it; the compiled `Function` exposes it as `.memory`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from compiler.errors import OptionError

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

    def plot(self, path: str | Path, *, dims: Mapping[str, int] | None = None, title: str | None = None) -> None:
        """Draw the plan into `path` (PNG, SVG or PDF; matplotlib needed): buffers as
        rectangles over their lifetimes and arena offsets, the liveness lower bound as a
        line; `dims` binds symbolic sizes (`plot_memory`)."""
        plot_memory(self, path, dims=dims, title=title)

    def as_dict(self) -> dict[str, Any]:
        """The plan as JSON-able data (symbolic sizes stay expression texts); `from_dict`
        reads it back equal."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MemorySummary:
        buffers = [BufferInfo(**b) for b in data["buffers"]]
        return cls(
            data["function"], buffers, data["arena"], data["no_reuse"], data["lower_bound"], dict(data.get("stack", {})),
            data.get("constants"),
        )

    def __repr__(self) -> str:
        buffers = ", ".join(f"{b.name} {b.size}" for b in self.buffers)
        bound = "symbolic" if self.lower_bound is None else str(self.lower_bound)
        constants = "" if self.constants is None else f"; constants {self.constants} bytes"
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


# ---------------------------------------------------------------------------
# The picture: `plot_memory(summary, path)`: a memory plan as a picture (also
# `build(...).memory.plot(path)` and `net.memory.plot(path)`).
#
# Time (the statement index of storage-rewrite's liveness) runs across, arena
# offset up; each intermediate buffer is a labelled rectangle over its
# lifetime (hatched when it was written in place of a dead buffer). Dashed
# lines mark the arena size and the liveness lower bound (the most bytes live
# at one statement). Symbolic plans are drawn at the sizes given in `dims`.
# matplotlib is optional: it is imported only here, with a clear error.
# ---------------------------------------------------------------------------


@dataclass
class Box:
    name: str
    first: int
    last: int
    offset: int | None  # None: not in the arena
    size: int
    inplace_of: str | None


def _value(text: str, dims: Mapping[str, int], what: str) -> int:
    from compiler.arith.expr import evaluate, free_vars, parse_expr

    e = parse_expr(text)
    missing = sorted(free_vars(e) - set(dims))
    if missing:
        raise OptionError(f"plot_memory: {what} is {text}; give dims={{{', '.join(f'{m!r}: ...' for m in missing)}}}")
    return evaluate(e, dims)


def boxes(summary: MemorySummary, dims: Mapping[str, int] | None = None) -> tuple[list[Box], int, int]:
    """The buffers with numeric sizes and offsets, the arena size and the liveness lower bound."""
    dims = dict(dims or {})
    out = [
        Box(
            b.name,
            b.first,
            b.last,
            None if b.offset == "-" else _value(b.offset, dims, f"the offset of {b.name}"),
            _value(b.size, dims, f"the size of {b.name}"),
            b.inplace_of,
        )
        for b in summary.buffers
    ]
    arena = _value(summary.arena, dims, "the arena size")
    end = max((b.last for b in out), default=0)
    bound = max((sum(b.size for b in out if b.first <= k <= b.last) for k in range(end + 1)), default=0)
    return out, arena, bound


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def plot_memory(
    summary: MemorySummary | None,
    path: str | Path,
    *,
    dims: Mapping[str, int] | None = None,
    title: str | None = None,
) -> None:
    """Draw `summary` (a `MemorySummary`, e.g. `net.memory` or `build(...).memory`) into
    `path` (PNG, SVG or PDF by its suffix); `dims` binds symbolic sizes."""
    if summary is None:
        raise OptionError("plot_memory: the function has no intermediate buffers (its memory plan is None)")
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.patches import Rectangle
        from matplotlib.ticker import FuncFormatter
    except ImportError as err:
        raise ImportError("plot_memory needs matplotlib: pip install matplotlib") from err

    items, arena, bound = boxes(summary, dims)
    placed = [b for b in items if b.offset is not None]
    top = max([arena, bound, *[b.offset + b.size for b in placed if b.offset is not None]], default=1) or 1
    start = min((b.first for b in items), default=0)
    end = max((b.last for b in items), default=0) + 1
    fig = Figure(figsize=(11, 6), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    colors = [
        "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
    ]
    for k, b in enumerate(placed):
        assert b.offset is not None
        ax.add_patch(
            Rectangle(
                (b.first, b.offset), b.last - b.first + 1, b.size, facecolor=colors[k % len(colors)], alpha=0.55,
                edgecolor="black", linewidth=0.8, hatch="//" if b.inplace_of else None,
            )
        )
        label = b.name + (f"\nin place of {b.inplace_of}" if b.inplace_of else "") + f"\n{_bytes(b.size)}"
        tall = b.size >= 0.06 * top
        y = b.offset + b.size / 2 if tall else b.offset + b.size
        ax.text(b.first + (b.last - b.first + 1) / 2, y, label, ha="center", va="center" if tall else "bottom",
                fontsize=7, bbox={"facecolor": "white", "alpha": 0.7, "linewidth": 0, "pad": 1})
    ax.axhline(arena, color="black", linestyle="--", linewidth=1)
    ax.axhline(bound, color="tab:red", linestyle=":", linewidth=1.5)
    same = abs(arena - bound) < 0.02 * top
    ax.text(end + 0.4, arena, f"arena {_bytes(arena)}" + (" = liveness lower bound" if arena == bound else ""),
            va="bottom", ha="right", fontsize=8)
    if not same or arena != bound:
        ax.text(start - 0.4, bound, f"liveness lower bound {_bytes(bound)}", va="top" if same else "bottom",
                ha="left", fontsize=8, color="tab:red")
    ax.set_xlim(start - 0.5, end + 0.5)
    ax.set_ylim(0, top * 1.1)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: _bytes(v)))
    ax.set_xlabel("statement (liveness time)")
    ax.set_ylabel("arena offset")
    sizes = f" at {', '.join(f'{k}={v}' for k, v in dims.items())}" if dims else ""
    ax.set_title(title or f"memory plan of @{summary.function}{sizes}")
    unplaced = [b.name for b in items if b.offset is None]
    if unplaced:
        fig.text(0.01, 0.01, f"outside the arena: {', '.join(unplaced)}", fontsize=7)
    fig.tight_layout()
    fig.savefig(str(path))
