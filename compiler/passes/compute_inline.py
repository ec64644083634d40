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

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from compiler.analysis.inline import inline_function
from compiler.dialects import te


@dataclass(frozen=True)
class ComputeInlinePass(ModulePass):
    """Substitute every `sched.compute_inline` stage into its consumers."""

    name = "compute-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.ops if isinstance(f, te.FuncOp)]:
            inline_function(op, func)
