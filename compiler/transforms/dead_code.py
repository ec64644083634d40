"""Unused index arithmetic erased: the arith ops nothing reads, and, for
loop-partition, the loops left with an empty body (a guard proven false in all of
it). lower-to-llvm's cleanup step (`compiler.lowering.cleanup`) and the
loop-partition pass share it.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead

from compiler.analysis.walk import walk_ops
from compiler.dialects import loop


def erase_dead_arith(root: Operation, *, empty_loops: bool = False) -> None:
    """Erase the unused `arith` ops under `root` (and with `empty_loops`, every `loop.for`
    whose body is empty), in one walk, users first: an op is visited after everything
    that could use it (a later op, an op in its loop's body), so a chain of dead ops, and
    a loop with the bounds only it used, go at once. Only arith: a pure `loop.var` that
    looks unused still names a function argument."""
    for op in reversed(walk_ops(root)):
        if empty_loops and isinstance(op, loop.ForOp):
            if op.body.block.first_op is None:
                Rewriter.erase_op(op)
        elif op.dialect_name() == arith.Arith.name and is_trivially_dead(op):
            Rewriter.erase_op(op)
