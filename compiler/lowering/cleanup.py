"""lower-to-llvm, step 0 (cleanup): no dead index arithmetic to lower.

The flat loop IR carries index arithmetic nothing reads (schedule-ops computes
every axis value; storage-flatten replaces the N-D indices that used some of
them). LLVM would remove it, but each op costs the Python lowering several op
creations first: on the seed 000 chain a fifth of the flat ops are dead. It
goes before the parallel loops are outlined, where a dead op may be all that
captures a value into the outlined body.

(The repeated constants are merged by the scalar step, scalar.py; xDSL's CSE
over the rest of the index arithmetic cost more time than it saved.)
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from compiler.analysis.walk import walk_ops


def drop_dead_arith(root: Operation) -> None:
    """Erase the unused `arith` ops under `root`, users first (one walk: a chain of dead
    ops goes at once). Only arith: a pure `loop.var` that looks unused still names a
    function argument."""
    for op in reversed(walk_ops(root)):
        if op.dialect_name() == arith.Arith.name and is_trivially_dead(op):
            Rewriter.erase_op(op)
