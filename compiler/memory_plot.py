"""A memory plan as a picture: `plot_memory(summary, path)` draws a `MemorySummary`
(`build(...).memory`, a PyTorch model's `net.memory`; `compiler.torch.plot_memory`
is this function).

Time (the statement index of storage-rewrite's liveness) runs across, arena
offset up; each intermediate buffer is a labelled rectangle over its lifetime
(hatched when it was written in place of a dead buffer). Dashed lines mark the
arena size and the liveness lower bound (the most bytes live at one statement).
Symbolic plans are drawn at the sizes given in `dims`. matplotlib is optional:
it is imported only in `plot_memory`, with a clear error. The plan itself is
computed by `compiler.analysis.memory_summary`; drawing is the user's side.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compiler.analysis.memory_summary import MemorySummary
from compiler.errors import OptionError


@dataclass
class Box:
    name: str
    first: int
    last: int
    offset: int | None  # None: not in the arena
    size: int
    inplace_of: str | None


def _value(text: str, dims: Mapping[str, int], what: str) -> int:
    from compiler.arith.expr import evaluate, free_vars
    from compiler.arith.parse import parse_expr

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
    if arena != bound:  # (equal, the arena's label says so)
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
