"""`plot_memory(summary, path)`: a memory plan as a picture; the implementation is
compiler.analysis.memory_summary (next to `MemorySummary`, whose `plot` uses it)."""

from compiler.analysis.memory_summary import Box, boxes, plot_memory

__all__ = ["Box", "boxes", "plot_memory"]
