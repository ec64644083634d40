"""loop-partition: split loops at their likely conditions (TVM's LoopPartition).

Mirrors TVM's `LoopPartition` (src/tir/transforms/loop_partition.cc) and
Halide's automatic loop partitioning: a loop whose body tests a condition
that is expected to hold (a `likely` one) is split into a *main* loop over
the iterations where the condition provably holds, whose body runs with no
condition, and *edge* loops before and after it that keep the condition.
Runs on the N-D loop IR of `schedule-ops` (first pass of the `flat` stage).

The conditions (each a conjunction of affine comparisons, or a `min`):

* `loop.if %c likely`: the bound check of a split that does not divide its
  extent under `infer-bound{split-mode=guard}`, or of a fuse or an attach
  point whose range is smaller than the loop's (`i * 8 + ii < n`);
* `scf.if %c -> (f32) {te.likely}`: the lazy read of an inlined pad
  (`h + ry >= 1 && h + ry < H + 1`);
* `loop.for %ii = %c0 extent min(n - io * 8, 8)`: the inner loop of a split
  under the default `split-mode=tight` (`factor` or `nparts`): the main part
  of `io` gives it the constant extent 8, so it can be unrolled and vectorized
  with a known trip count.

Algorithm, for each loop `x` in [m, m + e), outer loops first:

  1. collect the conditions inside its body (at any depth) that mention `x`;
     split each into conjuncts `a < b` / `a <= b`, written `d >= 0`;
  2. relax the loops between `x` and the condition to their lower bound
     (`eval_set` over their ranges), so `d(x) >= 0` must hold for all their
     iterations; a relaxed `d` linear in `x`, `K * x + R` with `K` provably
     positive (negative), gives a lower (upper) split point `-(R // K)`
     (`R // -K + 1`): symbolic when `R` or `K` are (`n // 8`);
  3. the main range is [max(lower points, m), min(upper points, m + e));
     the loop becomes up to three loops, [m, lo), [lo, hi), [hi, m + e)
     (clamped so that every iteration runs exactly once, whatever the sizes),
     empty pieces dropped and one-iteration pieces inlined;
  4. in each piece, every condition is re-simplified with the `Analyzer`
     over the piece's loop ranges: conjuncts proven true are dropped (a
     guard with none left runs its branch unconditionally), a guard proven
     false keeps its other branch, and a `min` extent proven to pick one side
     becomes that side (a constant when it folds);
  5. the pieces' inner loops are partitioned in turn (up to `max-depth`
     nested partitions, to bound the code size).

Correctness never rests on step 2: a condition is only removed where step 4
proves it over the piece's ranges; step 2 only chooses where to cut.

Every question (steps 2-4) is a pure function of the condition and the ranges of the
loops around it, so `Prover.shared` answers it once per form: with the loop counters
renamed by depth, the nests of a network's repeated layers ask the same questions,
and a symbolic 12-layer model asks the analyzer about as much as a one-layer one.

Opt-out: `s[B].pragma(axis, "loop_partition", 0)` (`loop.pragmas =
["loop_partition=0"]`) keeps that loop and the loops inside it as scheduled;
`default-pipeline{loop-partition=false}` / `build(..., loop_partition=False)`
turn the pass off.

Known limits:
* a loop whose body holds an intermediate buffer (`loop.alloc`, a stage
  computed at it) is not partitioned (its copies would realize the buffer
  several times); the loops inside it are;
* an `unrolled` loop is only partitioned at constant points (unroll-loops
  needs constant bounds);
* conditions that are not affine (a load, a product of loop variables) or
  whose coefficient of `x` has no provable sign are left alone;
* the pieces of a `parallel` loop stay parallel: each is its own parallel
  region.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    ArrayAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.partition_prover import (
    Prover,
    and_leaves,
    atoms_of,
    comparisons,
    is_candidate,
    is_guard,
    piece_plan,
)
from compiler.analysis.value_names import ValueNames
from compiler.analysis.walk import walk_ops
from compiler.arith.builders import binary, index_constant
from compiler.arith.expr import (
    LE,
    LT,
    And,
    BoolConst,
    Cond,
    IndexConst,
    IndexExpr,
    Max,
    Min,
    Not,
    free_vars,
)
from compiler.arith.ir import emit_cond, emit_expr
from compiler.dialects import loop
from compiler.dialects.shape import declared_shape_bounds
from compiler.passes import LoopFunctionPass
from compiler.transforms.dead_code import erase_dead_arith

PRAGMAS_ATTR = "loop.pragmas"
OPT_OUT = "loop_partition=0"



# ---------------------------------------------------------------------------
# Rewriting: pieces of a loop, conditions decided in a piece
# ---------------------------------------------------------------------------


def pragmas(op: loop.ForOp) -> list[str]:
    attr = op.attributes.get(PRAGMAS_ATTR)
    if not isinstance(attr, ArrayAttr):
        return []
    return [p.data for p in attr.data if isinstance(p, StringAttr)]


def holds_buffer(body: list[Operation]) -> bool:
    """Whether the ops of a loop's body (`walk_ops`) realize an intermediate buffer."""
    return any(isinstance(o, loop.AllocOp) and not o.is_local for o in body)


def _constant(value: int, before: Operation) -> SSAValue:
    c = index_constant(value)
    Rewriter.insert_op(c, InsertPoint.before(before))
    return c.result


def _take_branch(if_op: loop.IfOp | scf.IfOp, then: bool) -> None:
    """Replace an if by the ops of one of its branches."""
    if isinstance(if_op, loop.IfOp):
        region = if_op.then_region if then else if_op.else_region
    else:
        region = if_op.true_region if then else if_op.false_region
    if region is None or not region.blocks:  # a loop.if without else, proven false
        Rewriter.erase_op(if_op)
        return
    block = region.block
    results: list[SSAValue] = []
    last = block.last_op
    if isinstance(last, scf.YieldOp):
        results = list(last.arguments)
        Rewriter.erase_op(last)
    Rewriter.inline_block(block, InsertPoint.before(if_op))
    for old, new in zip(if_op.results, results, strict=True):
        old.replace_all_uses_with(new)
    Rewriter.erase_op(if_op)


HOT_SHARE = 16
"""An edge piece holding more than 1/HOT_SHARE of a loop's (constant) iterations is hot:
its inner loops are partitioned too. The last of 11 channel blocks, kept cold (the
old 1/4 rule), ran its 4 channels with the column guard in the vector loop, as scalar
code: a 3x3 conv tiled 6 channels x 16 columns took 2.1x the time of the same conv
with every piece partitioned."""


class Partitioner:
    """Partitions the loops of one function."""

    def __init__(self, func: loop.FuncOp, max_depth: int):
        self.func = func
        self.names = ValueNames()
        for op in walk_ops(func):  # every shape variable known (>= 0) from the start
            if isinstance(op, loop.VarOp):
                self.names.leaf(op.result)
        self.prover = Prover(self.names, declared_shape_bounds(func))
        self.max_depth = max_depth
        self.partitioned = 0
        self.pieces: set[loop.ForOp] = set()  # loops made by partitioning: not split again

    # -- traversal -----------------------------------------------------------

    def run(self) -> None:
        self.visit(self.func.body.block, 0)
        erase_dead_arith(self.func, empty_loops=True)  # replaced conditions and extents, loops proven empty

    def visit(self, block: Block, depth: int) -> None:
        for op in list(block.ops):
            if isinstance(op, loop.ForOp):
                self.process(op, depth)
            else:
                for region in op.regions:
                    for inner in region.blocks:
                        self.visit(inner, depth)

    def process(self, for_op: loop.ForOp, depth: int, *, piece: bool = False) -> None:
        """Partition `for_op` (unless it is a piece of a loop already partitioned), then
        the loops inside it."""
        if OPT_OUT in pragmas(for_op):
            return  # the loop and its nest as scheduled
        after = for_op.next_op
        pieces = None
        if not piece and depth < self.max_depth:
            body = walk_ops(for_op.body)  # one walk for both questions
            if not holds_buffer(body):
                pieces = self.partition(for_op, body)
        if pieces is None:
            self.visit(for_op.body.block, depth)
            return
        self.partitioned += 1
        ends = [first for first, _ in pieces[1:]] + [after]
        ranges = [(first, end, hot) for (first, hot), end in zip(pieces, ends, strict=True)]
        self.decide([op for first, end, _ in ranges for op in _ops_from(first, end)])
        for first, end, hot in ranges:
            if not hot:  # a cold edge keeps its conditions: no more code for it
                self.narrow_to_live(list(_ops_from(first, end)))
                continue
            for op in list(_ops_from(first, end)):
                if isinstance(op, loop.ForOp):
                    self.process(op, depth + 1, piece=op in self.pieces)
                else:  # the body of a one-iteration piece, in place
                    for region in op.regions:
                        for inner in region.blocks:
                            self.visit(inner, depth + 1)

    # -- one loop --------------------------------------------------------------

    def split(
        self, for_op: loop.ForOp, body: list[Operation]
    ) -> tuple[list[IndexExpr], list[IndexExpr], list[tuple[Operation, LT | LE]], tuple[IndexExpr | None, IndexExpr | None]]:
        """The lower and upper split points of the conditions in `for_op` (whose ops are
        `body`), the conditions they come from, and where the code under the guards is
        dead (`_dead_points`)."""
        x = self.names.name(for_op.induction_var)
        lower: list[IndexExpr] = []
        upper: list[IndexExpr] = []
        used: list[tuple[Operation, LT | LE]] = []
        for op in body:
            if not is_candidate(op):
                continue
            for atom in atoms_of(self.prover, op, x):
                if x not in free_vars(atom):
                    continue
                point = self.prover.split_point(op, atom, for_op)
                if point is not None:
                    (lower if point[0] == "lower" else upper).append(point[1])
                    used.append((op, atom))
        return lower, upper, used, self._dead_points(for_op, used)

    def _dead_points(self, for_op: loop.ForOp, used: list[tuple[Operation, LT | LE]]) -> tuple[IndexExpr | None, IndexExpr | None]:
        """(first, end) of the iterations of `for_op` where some iteration inside can pass
        its one guard (`loop.if` without else, on a reduction's `where`: a causal
        product's triangle): outside them the guarded code is dead, and a piece of its
        own drops it (a piece with nothing else in it is dropped whole). None where
        unknown."""
        ops = {op for op, _ in used}
        if len(ops) != 1:
            return None, None
        (guard,) = ops
        if not isinstance(guard, loop.IfOp) or guard.else_region is not None:
            return None, None
        first: IndexExpr | None = None
        end: IndexExpr | None = None
        for _, atom in used:
            point = self.prover.split_point(guard, atom, for_op, for_any=True)
            if point is None:
                continue
            if point[0] == "lower":
                first = point[1] if first is None else Max(first, point[1])
            else:
                end = point[1] if end is None else Min(end, point[1])
        return first, end

    def partition(self, for_op: loop.ForOp, body: list[Operation]) -> list[tuple[Operation, bool]] | None:
        """Replace `for_op` by its pieces, if its conditions give split points at which
        one of them provably holds over the main piece: (first op, hot) per piece, in
        order. The main piece is hot; an edge is hot when it has a constant share of more
        than 1/HOT_SHARE of a loop of constant extent (a kernel window's edge, the last of
        11 channel blocks), cold otherwise (the border rows of a 56-row image, the tail of
        a long split)."""
        lower, upper, used, alive = self.split(for_op, body)
        if not used:
            return None
        levels = self.prover.levels(for_op)
        m, e = self.prover.expr(for_op.min), self.prover.expr(for_op.extent)
        args = (m, e, tuple(lower), tuple(upper), alive)
        plan = self.prover.shared("pieces", levels, args, lambda: piece_plan(self.prover.analyzer(levels), *args))
        if plan is None:
            return None  # the conditions hold everywhere, or the main piece is empty
        kept, main, total = plan
        if for_op.loop_kind == loop.LoopKind.UNROLLED and not all(
            isinstance(a, IndexConst) and isinstance(n, IndexConst) for a, n, _ in kept
        ):
            return None  # unroll-loops needs constant bounds
        x = self.names.name(for_op.induction_var)
        if not any(self.prover.holds(op, atom, {x: main}) for op, atom in used):
            return None  # nothing would be gained in the main piece
        pieces: list[tuple[Operation, bool]] = []
        for k, (start, extent, once) in enumerate(kept):
            hot = start == main[0] or (
                isinstance(extent, IndexConst) and isinstance(total, IndexConst) and HOT_SHARE * extent.value > total.value
            )
            last = k == len(kept) - 1
            pieces.append((self.emit_piece(for_op, start, extent, once, in_place=last), hot))
        return pieces

    def emit_piece(
        self, for_op: loop.ForOp, start: IndexExpr, extent: IndexExpr, once: bool, *, in_place: bool = False
    ) -> Operation:
        """A copy of `for_op` over [start, start + extent) (its body in place for one
        iteration) before it, or `for_op` itself for the last piece (`in_place`: one
        clone of the body fewer); the first op emitted (the piece's start, kept until
        the end)."""
        new, start_value, extent_value = self.range_values(start, extent, for_op)
        if not new:  # both are values already: an unused marker, erased as dead at the end
            new.append(index_constant(0))
            Rewriter.insert_op(new[0], InsertPoint.before(for_op))
        copy = for_op if in_place else for_op.clone()
        copy.operands = [start_value, extent_value]
        if not in_place:
            Rewriter.insert_op(copy, InsertPoint.before(for_op))
        self.pieces.add(copy)
        if once:  # one iteration: the body in place, the counter its start
            Rewriter.inline_block(copy.body.block, InsertPoint.before(copy), [start_value])
            self.prover.forget_values()  # the ops that read the counter read its start now
            Rewriter.erase_op(copy)
        return new[0]

    def range_values(
        self, start: IndexExpr, extent: IndexExpr, before: Operation
    ) -> tuple[list[Operation], SSAValue, SSAValue]:
        """The values of a loop range (its ops, inserted before `before`; none where both
        are values already)."""
        new: list[Operation] = []
        cache: dict[IndexExpr | Cond, SSAValue] = {}
        start_value = emit_expr(start, new.append, self.names.values.__getitem__, cache)
        extent_value = emit_expr(extent, new.append, self.names.values.__getitem__, cache)
        Rewriter.insert_op(new, InsertPoint.before(before))
        return new, start_value, extent_value

    def narrow_to_live(self, piece: list[Operation]) -> None:
        """Shrink each loop of symbolic extent in a cold edge whose body is one guard (and
        the arithmetic it reads) to the iterations where the guard can hold: no code is
        added, and the edge no longer runs a long loop of failing guards (a fuzzed
        `nparts` split whose inner extent became max(n // 4, 2^31 - 1): 2^33 iterations,
        4 of them live)."""
        for top in piece:
            for op in walk_ops(top):
                if isinstance(op, loop.ForOp) and not _detached(op, self.func):
                    self.narrow_loop(op)

    def narrow_loop(self, for_op: loop.ForOp) -> None:
        if isinstance(for_op.extent.owner, arith.ConstantOp) or for_op.loop_kind == loop.LoopKind.UNROLLED:
            return  # a constant trip count bounds the dead work (and unroll-loops needs it)
        guard = _only_guard(for_op)
        if guard is None:
            return
        x = self.names.name(for_op.induction_var)
        used: list[tuple[Operation, LT | LE]] = [(guard, atom) for atom in atoms_of(self.prover, guard, x) if x in free_vars(atom)]
        first, end = self._dead_points(for_op, used)
        if first is None and end is None:
            return
        m, e = self.prover.expr(for_op.min), self.prover.expr(for_op.extent)
        levels = self.prover.levels(for_op)
        az = self.prover.analyzer(levels)
        start = m if first is None else az.simplify(Max(m, first))
        stop = az.simplify(m + e) if end is None else az.simplify(Min(m + e, end))
        extent = az.simplify(Max(stop - start, IndexConst(0)))
        if az.prove_eq(extent, e):
            return
        _, start_value, extent_value = self.range_values(start, extent, for_op)
        for_op.operands = [start_value, extent_value]
        self.prover.forget_values()
        self.decide([for_op])  # the guard may now hold over the whole loop

    # -- the conditions of a piece ---------------------------------------------

    def decide(self, piece: list[Operation]) -> None:
        """Drop the conjuncts each condition in the pieces provably satisfies there."""
        found: list[Operation] = []
        for top in piece:
            for op in walk_ops(top):
                if is_guard(op) or (isinstance(op, loop.ForOp) and not isinstance(op.extent.owner, arith.ConstantOp)):
                    found.append(op)
        for op in found:
            if _detached(op, self.func):
                continue  # inside a branch already dropped
            if isinstance(op, loop.ForOp):
                self.decide_extent(op)
            else:
                assert isinstance(op, loop.IfOp | scf.IfOp)
                self.decide_guard(op)

    def leaf_decision(self, op: Operation, leaf: SSAValue) -> bool | SSAValue:
        """True (False) if the i1 `leaf` holds (fails) in every iteration around `op`;
        else the condition to keep: `leaf` simplified over those loops when that drops a
        loop variable from it (`(jo * 64 + ji) // 64 <= i` with ji in [0, 64) is
        `jo <= i`, the same in every lane of a vector loop over ji), or `leaf` itself."""
        cond = self.prover.cond(leaf)
        if cond is None:
            return leaf
        simpler = self.prover.verdict(op, cond)
        if isinstance(simpler, BoolConst):
            return simpler.value
        parts = comparisons(cond)
        if _is_conjunction_of(cond, parts) and all(self.prover.holds(op, a) for a in parts):
            return True
        if not free_vars(simpler) < free_vars(cond):
            return leaf
        new: list[Operation] = []
        value = emit_cond(simpler, new.append, self.names.values.__getitem__)
        Rewriter.insert_op(new, InsertPoint.before(op))
        return value

    def decide_guard(self, op: loop.IfOp | scf.IfOp) -> None:
        leaves = and_leaves(op.cond)
        kept: list[SSAValue] = []
        for leaf in leaves:
            decision = self.leaf_decision(op, leaf)
            if decision is False:
                self.take_branch(op, then=False)
                return
            if decision is not True:
                kept.append(decision)
        if not kept:
            self.take_branch(op, then=True)
            return
        if kept == leaves:
            return
        cond = kept[0]
        for leaf in kept[1:]:
            both = binary(arith.AndIOp, cond, leaf)
            Rewriter.insert_op(both, InsertPoint.before(op))
            cond = both.result
        op.operands = [cond, *op.operands[1:]]

    def take_branch(self, op: loop.IfOp | scf.IfOp, then: bool) -> None:
        rewires = bool(op.results)  # their uses will read the branch's values
        _take_branch(op, then)
        if rewires:
            self.prover.forget_values()

    def decide_extent(self, op: loop.ForOp) -> None:
        extent = self.prover.simplify(op, self.prover.expr(op.extent))
        if isinstance(extent, IndexConst):
            op.operands = [op.min, _constant(extent.value, op)]
            return
        owner = op.extent.owner
        if isinstance(owner, arith.MinSIOp):
            a, b = self.prover.expr(owner.lhs), self.prover.expr(owner.rhs)
            if self.prover.holds(op, LE(b, a)):
                op.operands = [op.min, owner.rhs]
            elif self.prover.holds(op, LE(a, b)):
                op.operands = [op.min, owner.lhs]


def _only_guard(for_op: loop.ForOp) -> loop.IfOp | None:
    """The one `loop.if` without else of a loop's body whose other ops are arithmetic,
    or None."""
    guards = [op for op in for_op.body.block.ops if isinstance(op, loop.IfOp)]
    if len(guards) != 1 or guards[0].else_region is not None:
        return None
    others = [op for op in for_op.body.block.ops if op is not guards[0]]
    return guards[0] if all(op.dialect_name() == "arith" for op in others) else None


def _detached(op: Operation, func: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not func:
        parent = parent.parent_op()
    return parent is None


def _is_conjunction_of(cond: Cond, parts: list[LT | LE]) -> bool:
    """Whether `cond` is exactly the conjunction of `parts` (no other kind of term)."""
    if isinstance(cond, And):
        return _is_conjunction_of(cond.a, parts) and _is_conjunction_of(cond.b, parts)
    return isinstance(cond, LT | LE) or (isinstance(cond, Not) and isinstance(cond.a, LT | LE))


def _ops_from(first: Operation | None, end: Operation | None) -> Iterator[Operation]:
    """The ops of a block from `first` up to, not including, `end`."""
    op = first
    while op is not None and op is not end:
        yield op
        op = op.next_op


def partition_function(func: loop.FuncOp, max_depth: int = 4) -> int:
    """Partition the loops of `func`; the number of loops split."""
    p = Partitioner(func, max_depth)
    p.run()
    return p.partitioned


@dataclass(frozen=True)
class LoopPartitionPass(LoopFunctionPass):
    """Split loops at their likely conditions: a condition-free main loop and edge loops."""

    name = "loop-partition"

    max_depth: int = 4
    """How many partitioned loops may nest (each multiplies the code of its body)."""

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        partition_function(func, self.max_depth)
