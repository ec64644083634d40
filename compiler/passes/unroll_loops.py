"""unroll-loops: fully unroll `loop.for ... unrolled` loops with constant bounds.

`sched.unroll` marks a loop. A marked loop whose extent is a constant (its
start may be symbolic) and whose trip count is at most `max-trip-count` is
unrolled fully, in one of two ways:

* by LLVM (the default): the loop stays and gets the `{unroll_full}`
  attribute, which lower-to-llvm turns into `llvm.loop.unroll.full`
  metadata on its back edge. The IR the Python lowering handles stays the
  size of the schedule instead of growing by the trip count (a register
  tile of 4x4 accumulators was 5x the ops, and lower-to-llvm's time grows
  with them); LLVM unrolls early in its pipeline, before the passes that
  keep the accumulators in registers, so the code is the same.
* here, by copying the body once per iteration with the induction
  variable replaced by a constant (or the start plus one): for loops nested in a `vectorized` loop
  (lower-to-llvm's vector code generator needs a straight-line body), and
  for every marked loop with `copy=true`. Inner loops are copied first.

A marked loop with a symbolic or larger trip count is left as it is (LLVM
may still unroll it partially on its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.diagnostics import PassError
from compiler.dialects import loop


def constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def trip_count(for_op: loop.ForOp) -> int | None:
    """The number of iterations, if the extent is a constant (the start may be symbolic)."""
    extent = constant_index(for_op.extent)
    if extent is None:
        return None
    step = for_op.step.value.data
    return max(0, -(-extent // step))


def in_vectorized_loop(op: loop.ForOp) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, loop.ForOp) and parent.loop_kind == loop.LoopKind.VECTORIZED:
            return True
        parent = parent.parent_op()
    return False


def unroll(for_op: loop.ForOp) -> None:
    """Replace the loop by one copy of its body per iteration (a constant extent): the
    induction variable is a constant, or `min + k * step` when the start is symbolic."""
    lo = constant_index(for_op.min)
    trips = trip_count(for_op)
    assert trips is not None
    step = for_op.step.value.data
    for k in range(trips):
        iv: arith.ConstantOp | arith.AddiOp = arith.ConstantOp(IntegerAttr((lo or 0) + k * step, IndexType()))
        Rewriter.insert_op(iv, InsertPoint.before(for_op))
        if lo is None:
            iv = arith.AddiOp(for_op.min, iv.result)
            Rewriter.insert_op(iv, InsertPoint.before(for_op))
        mapping: dict[SSAValue, SSAValue] = {for_op.induction_var: iv.result}
        for op in for_op.body.block.ops:
            Rewriter.insert_op(op.clone(mapping), InsertPoint.before(for_op))
    Rewriter.erase_op(for_op)


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    """Fully unroll loops marked `unrolled` whose trip count is a small constant."""

    name = "unroll-loops"

    max_trip_count: int = 64
    """Leave longer marked loops as they are."""

    copy: bool = False
    """Copy every unrolled body here instead of leaving the loops outside vector loops to LLVM."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 0 <= self.max_trip_count <= loop.UNROLL_FULL_MAX_TRIPS:
            raise PassError(
                f"unroll-loops: max-trip-count must be in [0, {loop.UNROLL_FULL_MAX_TRIPS}], got {self.max_trip_count}"
            )
        loops = [o for o in walk_ops(op) if isinstance(o, loop.ForOp) and o.loop_kind == loop.LoopKind.UNROLLED]
        for for_op in reversed(loops):  # inner loops first
            trips = trip_count(for_op)
            if trips is None or trips > self.max_trip_count:
                continue
            if self.copy or in_vectorized_loop(for_op):
                unroll(for_op)
            else:
                for_op.attributes[loop.UNROLL_FULL] = UnitAttr()
