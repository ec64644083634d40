"""lower-to-llvm, step 0 (cleanup): fewer ops to lower.

The flat loop IR carries index arithmetic nothing reads (schedule-ops computes
every axis value; storage-flatten replaces the N-D indices that used some of
them) and the same constants and products again in every loop body. LLVM would
remove both, but each op costs the Python lowering three op creations first
(arith, llvm, llvmlite): on the seed 000 chain a fifth of the flat ops are dead
and another fifth repeat an earlier one.

`drop_dead_arith` erases `arith` ops whose results are unused (only arith: a
pure `loop.var` that looks unused still names a function argument);
`merge_common_subexpressions` is xDSL's CSE. It runs after the parallel loops
are outlined: before, a constant inside a parallel loop would be replaced by an
equal one outside it, captured, and lost to LLVM as a constant in the outlined
body (no unrolling by a known trip count).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def drop_dead_arith(root: Operation) -> None:
    """Erase the unused `arith` ops under `root`, users first (one walk: a chain of dead
    ops goes at once)."""
    for op in reversed(list(root.walk())):
        if op.dialect_name() == arith.Arith.name and is_trivially_dead(op):
            Rewriter.erase_op(op)


def merge_common_subexpressions(root: Operation) -> None:
    """Replace each pure op equal to one that dominates it by that one."""
    cse(root)
