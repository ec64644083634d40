"""`plot_memory(summary, path)`: a memory plan as a picture; the implementation is
compiler.analysis.memory_plot (below the passes, so `MemorySummary.plot` can use it)."""

from compiler.analysis.memory_plot import Box, boxes, plot_memory

__all__ = ["Box", "boxes", "plot_memory"]
