"""`plot_memory(summary, path)`: a memory plan as a picture; the implementation is
compiler.memory_plot (it needs no PyTorch: `build` functions' plans too)."""

from compiler.memory_plot import Box, boxes, plot_memory

__all__ = ["Box", "boxes", "plot_memory"]
