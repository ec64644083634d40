"""infer-bound: records TVM's InferBound results on every `te.compute`.

The algorithm (stage graph, leaf IntSets, PassUpDomain, attach paths, relax
sets, GatherBound, PassDownDomain) is `compiler.analysis.bounds`, which also
documents the attributes this pass writes (`te.realize`, `te.alloc_shape`,
`te.loops`, `te.axis_values`, `te.guards`, `te.attach`). Inlined stages are
substituted first; the `sched.schedule` op is consumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.analysis.bounds import SplitMode, infer_function
from compiler.diagnostics import PassError
from compiler.dialects import te
from compiler.passes import TeFunctionPass


@dataclass(frozen=True)
class InferBoundPass(TeFunctionPass):
    """Infer the realized region and loop ranges of every stage (TVM's InferBound)."""

    name = "infer-bound"

    split_mode: str = "tight"
    """How a split whose factor does not divide the extent stays in range: `tight`
    inner extents min(factor, extent - outer * factor), or a `guard` in the body."""

    explain: bool = False
    """Print, for each stage, its region and what determined each side of it."""

    clip_to_shape: bool = True
    """Cut each read's region to the part inside the stage's shape (as TVM's
    PropBoundToInputs): a read past the shape, such as a pad's, never grows its producer.
    `false` gives the regions of older TVM, which grow into the pads (seed 000)."""

    def prepare(self, module: ModuleOp) -> None:
        if self.split_mode not in ("tight", "guard"):
            raise PassError(f"infer-bound: split-mode must be tight or guard, got '{self.split_mode}'")

    def run_on_function(self, module: ModuleOp, func: te.FuncOp) -> None:
        split_mode: SplitMode = "tight" if self.split_mode == "tight" else "guard"
        infer_function(module, func, split_mode, explain=self.explain, clip_to_shape=self.clip_to_shape)

