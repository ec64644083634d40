"""compute-inline: substitute inlined stages into their consumers (TVM's InjectInline).

For every stage marked `sched.compute_inline`, each `te.read` of it is
replaced by a copy of the stage's body with its axes bound to the read's
indices (the copy keeps lazy `scf.if` guards intact, so a read that was
guarded stays guarded); the stage and its `sched.compute_inline` are then
erased. Stages are inlined consumers-first, so a chain of inlined stages
collapses into the first non-inlined consumer.

The schedule verifier has already rejected inlining a reduction or an output.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.dialects import te
from compiler.passes import TeFunctionPass
from compiler.schedule.inline import inline_function


@dataclass(frozen=True)
class ComputeInlinePass(TeFunctionPass):
    """Substitute every `sched.compute_inline` stage into its consumers."""

    name = "compute-inline"

    def run_on_function(self, module: ModuleOp, func: te.FuncOp) -> None:
        inline_function(module, func)
