"""unroll-loops: fully unroll `loop.for ... unrolled` loops with constant bounds.

`sched.unroll` marks a loop; this pass replaces each marked loop whose min
and extent are constants (and whose trip count is at most `max-trip-count`)
by that many copies of its body, the induction variable replaced by a
constant. Inner loops are unrolled first. A marked loop with a symbolic or
larger trip count is left to LLVM (which unrolls small loops on its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.dialects import loop


def constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def unroll(for_op: loop.ForOp, max_trip_count: int) -> bool:
    lo, extent = constant_index(for_op.min), constant_index(for_op.extent)
    step = for_op.step.value.data
    if lo is None or extent is None:
        return False
    trips = max(0, -(-extent // step))
    if trips > max_trip_count:
        return False
    for k in range(trips):
        iv = arith.ConstantOp(IntegerAttr(lo + k * step, IndexType()))
        Rewriter.insert_op(iv, InsertPoint.before(for_op))
        mapping: dict[SSAValue, SSAValue] = {for_op.induction_var: iv.result}
        for op in for_op.body.block.ops:
            Rewriter.insert_op(op.clone(mapping), InsertPoint.before(for_op))
    Rewriter.erase_op(for_op)
    return True


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    """Fully unroll loops marked `unrolled` whose trip count is a small constant."""

    name = "unroll-loops"

    max_trip_count: int = 64
    """Leave longer marked loops to LLVM."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        loops = [o for o in op.walk() if isinstance(o, loop.ForOp) and o.loop_kind == loop.LoopKind.UNROLLED]
        for for_op in reversed(loops):  # inner loops first
            unroll(for_op, self.max_trip_count)
