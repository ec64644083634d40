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
  (lower-to-llvm's vector code generator needs a straight-line body), for
  loops from a symbolic start with no vector loop inside (LLVM left some of those
  rolled and warned), and for every marked loop with `copy=true`. Inner loops are
  copied first.

A marked loop whose extent is symbolic but provably at most `max-versions`
(the last row tile of a split whose factor does not divide a symbolic size:
`min(io * 6 + 5, n - 1) - io * 6 + 1`, at most 5 in loop-partition's tail
piece) is first *versioned*: a chain of `loop.if %extent == c` holds one copy
of the loop per possible trip count c, each with the constant extent c (and c for
the extent wherever its body reads it: an inner loop over the same count), which
is then unrolled as above. Left symbolic, the tail tile's rows were a loop
over an accumulator buffer in memory, and a symbolic linear's last few rows
cost as much as several full tiles (GPT-2's MLP at 16 tokens, 6 + 6 + 4 rows:
1.4x the static build's time). Only the outermost such loop of a nest is
versioned, so the copies never multiply.

A marked loop with a symbolic trip count of no small bound, or a larger one,
is left as it is (LLVM may still unroll it partially on its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.value_names import ValueNames, loop_ranges
from compiler.analysis.walk import walk_ops
from compiler.arith.simplify import const_bounds
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


def trip_count_bounds(for_op: loop.ForOp, names: ValueNames) -> tuple[int | None, int | None]:
    """Constant inclusive bounds of a unit-step loop's symbolic extent over the ranges of
    the loops around it (`None`: unbounded)."""
    return const_bounds(names.expr(for_op.extent), loop_ranges(for_op, names))


def version(for_op: loop.ForOp, counts: range) -> None:
    """Replace the loop by `if extent == c { the loop with extent c } else ...` for each c
    of `counts` (the trip counts it can have; any other runs no iteration)."""
    chain: list[Operation] = []  # the ops of the innermost else, built from the last count
    for count in reversed(counts):
        constant = arith.ConstantOp(IntegerAttr(count, IndexType()))
        same = arith.CmpiOp(for_op.extent, constant.result, "eq")
        copy = for_op.clone()
        copy.operands = [copy.min, constant.result]
        for use in list(for_op.extent.uses):  # inside this copy the extent is c (an inner loop over it too)
            if copy.is_ancestor(use.operation) and use.operation is not copy:
                use.operation.operands[use.index] = constant.result
        guard = loop.IfOp(same.result, Region(Block([copy])), Region(Block(chain)) if chain else None)
        chain = [constant, same, guard]
    Rewriter.insert_op(chain, InsertPoint.before(for_op))
    Rewriter.erase_op(for_op)


def version_bounded_loops(root: ModuleOp, max_versions: int) -> None:
    """Version each outermost `unrolled` loop (outside vector loops) whose symbolic
    extent is at most `max_versions`, by its possible trip counts."""
    names = ValueNames()
    versioned: list[tuple[loop.ForOp, range]] = []
    for op in walk_ops(root):
        if not isinstance(op, loop.ForOp) or op.loop_kind != loop.LoopKind.UNROLLED:
            continue
        if constant_index(op.extent) is not None or op.step.value.data != 1 or in_vectorized_loop(op):
            continue
        if any(outer.is_ancestor(op) for outer, _ in versioned):
            continue
        lo, hi = trip_count_bounds(op, names)
        if hi is not None and 1 <= hi <= max_versions:
            versioned.append((op, range(max(lo or 1, 1), hi + 1)))
    for for_op, counts in versioned:
        version(for_op, counts)


def _scalar_from_symbolic_start(for_op: loop.ForOp) -> bool:
    """A loop from a symbolic start with no vector loop inside: LLVM left some of these
    rolled despite their `llvm.loop.unroll.full` (three scalar stores from `n // 4 * 4`,
    fuzz seed 68; a 3 x 3 nest of them, seed 72) and printed a "loop not unrolled" warning
    at the build; copied here, they cannot be. (A register tile's rows, each a vector
    loop, stay LLVM's: it unrolls them, and copying them would multiply the vector loops
    lower-to-llvm generates.)"""
    return constant_index(for_op.min) is None and not any(
        isinstance(o, loop.ForOp) and o.loop_kind == loop.LoopKind.VECTORIZED for o in walk_ops(for_op)[1:]
    )


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    """Fully unroll loops marked `unrolled` whose trip count is a small constant."""

    name = "unroll-loops"

    max_trip_count: int = 64
    """Leave longer marked loops as they are."""

    copy: bool = False
    """Copy every unrolled body here instead of leaving the loops outside vector loops to LLVM."""

    max_versions: int = 8
    """Version a marked loop whose symbolic trip count is at most this and max-trip-count (0: never)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not 0 <= self.max_trip_count <= loop.UNROLL_FULL_MAX_TRIPS:
            raise PassError(
                f"unroll-loops: max-trip-count must be in [0, {loop.UNROLL_FULL_MAX_TRIPS}], got {self.max_trip_count}"
            )
        if not 0 <= self.max_versions <= loop.UNROLL_FULL_MAX_TRIPS:
            raise PassError(
                f"unroll-loops: max-versions must be in [0, {loop.UNROLL_FULL_MAX_TRIPS}], got {self.max_versions}"
            )
        version_bounded_loops(op, min(self.max_versions, self.max_trip_count))
        loops = [o for o in walk_ops(op) if isinstance(o, loop.ForOp) and o.loop_kind == loop.LoopKind.UNROLLED]
        for for_op in reversed(loops):  # inner loops first
            trips = trip_count(for_op)
            if trips is None or trips > self.max_trip_count:
                continue
            if self.copy or in_vectorized_loop(for_op) or _scalar_from_symbolic_start(for_op):
                unroll(for_op)
            else:
                for_op.attributes[loop.UNROLL_FULL] = UnitAttr()
