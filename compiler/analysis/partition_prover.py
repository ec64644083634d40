"""What loop-partition asks of a loop nest: its conditions, the ranges of its loops, where
a condition starts or stops holding, how a loop is cut (`piece_plan`), each a pure
function of the question and the loops' ranges, answered once per form of nest
(`Prover.shared`). The pass that rewrites the loops is passes/loop_partition.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue

from compiler.analysis.value_names import ValueNames, enclosing_loops
from compiler.arith.expr import (
    LE,
    LT,
    Add,
    And,
    BoolConst,
    Cond,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Not,
    Sub,
    free_vars,
    substitute_cond,
    substitute_index,
)
from compiler.arith.int_set import IntSet, eval_set
from compiler.arith.ir import cond_from_value, expr_from_value
from compiler.arith.simplify import Analyzer, simplify
from compiler.dialects import loop
from compiler.dialects.shape import ANY_SIZE, SizeRange

LIKELY_ATTR = "te.likely"
"""Marks the `scf.if` of a lazy read expected to take its then-branch (a pad's guard)."""

Bounds = dict[str, tuple[IndexExpr | None, IndexExpr | None]]
Answer = TypeVar("Answer")


def and_leaves(cond: SSAValue) -> list[SSAValue]:
    """The operands of a tree of `arith.andi` (the value itself if it is not one)."""
    owner = cond.owner
    if isinstance(owner, arith.AndIOp) and isinstance(cond.type, IntegerType):
        return and_leaves(owner.lhs) + and_leaves(owner.rhs)
    return [cond]


def comparisons(cond: Cond) -> list[LT | LE]:
    """The `a < b` / `a <= b` conjuncts of a condition (others are not used to split)."""
    if isinstance(cond, LT | LE):
        return [cond]
    if isinstance(cond, Not) and isinstance(cond.a, LT | LE):
        c = cond.a
        return [LE(c.b, c.a) if isinstance(c, LT) else LT(c.b, c.a)]
    if isinstance(cond, And):
        return comparisons(cond.a) + comparisons(cond.b)
    return []


def is_guard(op: Operation) -> bool:
    """A condition this pass splits at: a likely `loop.if` or a likely lazy read."""
    if isinstance(op, loop.IfOp):
        return op.likely is not None
    return isinstance(op, scf.IfOp) and LIKELY_ATTR in op.attributes


def min_args(e: IndexExpr) -> list[IndexExpr]:
    """The operands of a `min` extent, with sums moved inside it: infer-bound writes an
    attached stage's split extent as `min(4 * f + 3, k - 1) - 4 * f + 1`, whose operands
    are `4` and `k - 4 * f` (each simplified)."""
    return [simplify(a) for a in _min_operands(e)]


def _min_operands(e: IndexExpr) -> list[IndexExpr]:
    if isinstance(e, Min):
        return _min_operands(e.a) + _min_operands(e.b)
    if isinstance(e, Add | Sub):
        left, right = _min_operands(e.a), _min_operands(e.b)
        if len(left) > 1 and len(right) == 1:
            return [type(e)(a, e.b) for a in left]
        if len(right) > 1 and len(left) == 1 and isinstance(e, Add):
            return [Add(e.a, b) for b in right]
    return [e]


@dataclass(frozen=True)
class Level:
    """One loop around an op: its counter's name and inclusive range."""

    name: str
    lo: IndexExpr
    hi: IndexExpr


def diff_of(atom: LT | LE) -> IndexExpr:
    """`a < b` / `a <= b` as `diff >= 0`."""
    return atom.b - atom.a - (1 if isinstance(atom, LT) else 0)


def linear(diff: IndexExpr, x: str, az: Analyzer) -> tuple[IndexExpr, IndexExpr] | None:
    """(K, R) with diff == K * x + R and K free of x, or None."""
    rest = az.simplify(substitute_index(diff, {x: 0}))
    coeff = az.simplify(substitute_index(diff, {x: 1}) - rest)
    if x in free_vars(coeff) or az.simplify(diff - (coeff * IndexVar(x) + rest)) != IndexConst(0):
        return None
    return coeff, rest


def solve(diff: IndexExpr, x: str, az: Analyzer) -> tuple[str, IndexExpr] | None:
    """For `K * x + R >= 0`: ("lower", the first x that satisfies it) for K > 0,
    ("upper", the last one) for K < 0; None when K's sign is unknown."""
    found = linear(diff, x, az)
    if found is None:
        return None
    coeff, rest = found
    if az.prove_gt(coeff, 0):  # x >= ceil(-R / K)
        return "lower", az.simplify(IndexConst(0) - rest // coeff)
    if az.prove_lt(coeff, 0):  # x <= floor(R / -K)
        return "upper", az.simplify(rest // (IndexConst(0) - coeff))
    return None


class Prover:
    """Decides conditions over all iterations of the loops around an op (Analyzer,
    eval_set and a linear solve per loop; no other reasoning)."""

    def __init__(self, names: ValueNames, declared: Mapping[str, SizeRange]):
        self.names = names
        self.declared = declared  # the function's `shape_bounds`
        self._analyzers: dict[tuple[int, tuple[Level, ...]], Analyzer] = {}
        self._answers: dict[tuple[object, ...], object] = {}
        # per nest: the renaming of its counters by depth, and its ranges so renamed
        self._forms: dict[tuple[Level, ...], tuple[Callable[[object], object], tuple[object, ...]]] = {}
        self._read: dict[SSAValue, IndexExpr | None] = {}

    def expr(self, value: SSAValue) -> IndexExpr:
        """The expression of an index value, its ops read once (`forget_values` after
        rewiring ops)."""
        e = expr_from_value(value, self.names.leaf, cache=self._read)
        return e if e is not None else self.names.leaf(value)

    def cond(self, value: SSAValue) -> Cond | None:
        """The condition of an i1 value (None if it is not one of affine comparisons)."""
        return cond_from_value(value, self.names.leaf, cache=self._read)

    def forget_values(self) -> None:
        self._read.clear()

    def loop_range(self, for_op: loop.ForOp) -> tuple[IndexExpr, IndexExpr]:
        """(first, last) iteration of a loop."""
        lo = self.expr(for_op.min)
        return lo, lo + self.expr(for_op.extent) - 1

    def shared(self, kind: str, levels: Sequence[Level], args: tuple[object, ...], compute: Callable[[], Answer]) -> Answer:
        """`compute()`, a question about `args` over the loops `levels` (and the shapes),
        or the answer already found for a nest of the same form: with each loop counter
        renamed by its depth, the nests of a network's repeated layers ask the same
        questions (a 12-layer GPT-2 with symbolic sizes: 11 s of queries, nine in ten
        of them already answered for another layer)."""
        nest = tuple(levels)
        form = self._forms.get(nest)
        if form is None:
            forward = _renamer({level.name: IndexVar(f"%{k}") for k, level in enumerate(levels)})
            form = self._forms[nest] = (forward, tuple((forward(level.lo), forward(level.hi)) for level in levels))
        forward, ranges = form
        key = (kind, ranges, forward(args))
        if key in self._answers:
            back = _renamer({f"%{k}": IndexVar(level.name) for k, level in enumerate(levels)})
            return cast(Answer, back(self._answers[key]))  # renamed, of the type computed
        answer = compute()
        self._answers[key] = forward(answer)
        return answer

    def shapes(self) -> Bounds:
        """The shape variables (>= 0, or in the range the function declares), a new dict
        (callers add to it)."""
        found: Bounds = {}
        for name in self.names.shapes:
            lo, hi = self.declared.get(name, ANY_SIZE)
            found[name] = (IndexConst(lo), None if hi is None else IndexConst(hi))
        return found

    def levels(self, op: Operation, override: dict[str, tuple[IndexExpr, IndexExpr]] | None = None) -> list[Level]:
        found: list[Level] = []
        for for_op in enclosing_loops(op):
            name = self.names.name(for_op.induction_var)
            lo, hi = (override or {}).get(name) or self.loop_range(for_op)
            found.append(Level(name, lo, hi))
        return found

    def analyzer(self, levels: Sequence[Level]) -> Analyzer:
        """The analyzer over the shapes and `levels`' ranges, one per loop nest: every query
        there shares its memo (a symbolic attention block's guards asked the same bounds
        of fresh analyzers hundreds of times)."""
        key = (len(self.names.shapes), tuple(levels))
        az = self._analyzers.get(key)
        if az is None:
            az = self._analyzers[key] = Analyzer(self.bounds(list(levels)))
        return az

    def bounds(self, levels: list[Level]) -> Bounds:
        found = self.shapes()
        for level in levels:
            found[level.name] = (level.lo, level.hi)
        return found

    def verdict(self, op: Operation, cond: Cond) -> Cond:
        """`cond` simplified over the ranges of the loops around `op`."""
        levels = self.levels(op)
        return self.shared("verdict", levels, (cond,), lambda: self.analyzer(levels).simplify_cond(cond))

    def simplify(self, op: Operation, e: IndexExpr) -> IndexExpr:
        """`e` simplified over the ranges of the loops around `op`."""
        levels = self.levels(op)
        return self.shared("simplify", levels, (e,), lambda: self.analyzer(levels).simplify(e))

    def holds(self, op: Operation, atom: LT | LE, override: dict[str, tuple[IndexExpr, IndexExpr]] | None = None) -> bool:
        """Whether `atom` holds at `op` in every iteration of the loops around it."""
        levels = self.levels(op, override)
        return self.shared("holds", levels, (atom,), lambda: self._holds(levels, atom))

    def _holds(self, levels: list[Level], atom: LT | LE) -> bool:
        if self.analyzer(levels).simplify_cond(atom) == BoolConst(True):
            return True
        diff: IndexExpr | None = diff_of(atom)
        for k, level in enumerate(levels):  # innermost first
            assert diff is not None
            if level.name not in free_vars(diff):
                continue
            az = self.analyzer(levels[k + 1 :])
            bound = solve(diff, level.name, az)
            if bound is not None:
                side, point = bound
                if (side == "lower" and az.prove_ge(level.lo, point)) or (
                    side == "upper" and az.prove_le(level.hi, point)
                ):
                    return True
            diff = eval_set(diff, {level.name: IntSet(level.lo, level.hi)}, az).lo
            if diff is None:
                return False
        return diff is not None and self.analyzer(()).prove_ge(diff, 0)

    def split_point(
        self, op: Operation, atom: LT | LE, loop_op: loop.ForOp, *, for_any: bool = False
    ) -> tuple[str, IndexExpr] | None:
        """Where `atom` starts or stops holding along `loop_op` for all iterations of
        the loops between it and `op`: ("lower", first) or ("upper", end, exclusive).
        `for_any`: where it starts or stops holding for some iteration of them (outside,
        it holds for none: the guarded code is dead there)."""
        levels = self.levels(op)
        x = self.names.name(loop_op.induction_var)
        return self.shared(
            "split_point", levels, (atom, IndexVar(x), for_any), lambda: self._split_point(levels, atom, x, for_any)
        )

    def _split_point(self, levels: list[Level], atom: LT | LE, x: str, for_any: bool) -> tuple[str, IndexExpr] | None:
        diff: IndexExpr | None = diff_of(atom)
        for k, level in enumerate(levels):
            assert diff is not None
            outer = self.bounds(levels[k + 1 :])
            if level.name == x:
                if any(v != x and v not in outer for v in free_vars(diff)):
                    return None
                az = self.analyzer(levels[k + 1 :])
                bound = solve(diff, x, az)
                if bound is None or bound[0] == "lower":
                    return bound
                return "upper", az.simplify(bound[1] + 1)
            if level.name in free_vars(diff):
                relaxed = eval_set(diff, {level.name: IntSet(level.lo, level.hi)}, self.analyzer(levels[k + 1 :]))
                diff = relaxed.hi if for_any else relaxed.lo
                if diff is None:
                    return None
        return None


def _renamer(mapping: Mapping[str, IndexExpr]) -> Callable[[object], object]:
    """Renames the variables in an answer or a question: an expression, a condition, or a
    tuple of them (other values as they are)."""

    def rename(x: object) -> object:
        if isinstance(x, IndexExpr):
            return substitute_index(x, mapping)
        if isinstance(x, Cond):
            return substitute_cond(x, mapping)
        if isinstance(x, tuple):
            return tuple(rename(y) for y in x)
        return x

    return rename


Piece = tuple[IndexExpr, IndexExpr, bool]
"""A piece of a partitioned loop: start, extent, and whether it runs once."""


def piece_plan(
    az: Analyzer,
    m: IndexExpr,
    e: IndexExpr,
    lower: tuple[IndexExpr, ...],
    upper: tuple[IndexExpr, ...],
    alive: tuple[IndexExpr | None, IndexExpr | None],
) -> tuple[tuple[Piece, ...], tuple[IndexExpr, IndexExpr], IndexExpr] | None:
    """The pieces of the loop [m, m + e) split at the `lower` and `upper` points (the
    main piece [max(m, lower), min(m + e, upper)), edges around it, cut again at the
    `alive` range of a guard's code), the main piece's (first, last) and the loop's
    trip count; None when the main piece is empty or the only piece."""
    alive_first, alive_end = alive
    end = az.simplify(m + e)
    lo: IndexExpr = m
    for p in lower:
        lo = Max(lo, p)
    hi: IndexExpr = end
    for p in upper:
        hi = Min(hi, p)
    lo, hi = az.simplify(lo), az.simplify(hi)
    before, after = az.simplify(Min(lo, end)), az.simplify(Max(hi, lo))
    ranges = [(m, before), (lo, hi), (after, end)]
    if alive_first is not None:  # the iterations before it run nothing: a piece of their own
        cut = az.simplify(Min(Max(alive_first, m), before))
        ranges[0:1] = [(m, cut), (cut, before)]
    if alive_end is not None:
        cut = az.simplify(Max(Min(alive_end, end), after))
        ranges[-1:] = [(after, cut), (cut, end)]
    sized = [(a, az.simplify(b - a)) for a, b in ranges]
    kept = tuple((a, n, az.prove_eq(n, 1)) for a, n in sized if not az.prove_le(n, 0))
    if len(kept) < 2 or az.prove_le(sized[1][1], 0):
        return None
    return kept, (lo, az.simplify(hi - 1)), az.simplify(end - m)


def atoms_of(prover: Prover, op: Operation, x: str) -> list[LT | LE]:
    """The conjuncts of a condition op that hold on its likely path; for a loop whose
    extent is a `min`, that the operands free of `x` are the smaller."""
    if isinstance(op, loop.ForOp):
        args = min_args(prover.expr(op.extent))
        fixed = [a for a in args if x not in free_vars(a)]
        moving = [a for a in args if x in free_vars(a)]
        if not fixed or not moving:
            return []
        likely = fixed[0]
        for a in fixed[1:]:
            likely = Min(likely, a)
        return [LE(likely, a) for a in moving]
    assert isinstance(op, loop.IfOp | scf.IfOp)
    found: list[LT | LE] = []
    for leaf in and_leaves(op.cond):
        cond = prover.cond(leaf)
        if cond is not None:
            found += comparisons(cond)
    return found


def is_candidate(op: Operation) -> bool:
    return is_guard(op) or (isinstance(op, loop.ForOp) and _has_min(op.extent))


def _has_min(value: SSAValue) -> bool:
    """Whether an extent is a `min`, or a sum or difference of one (`min(...) - a + 1`)."""
    owner = value.owner
    if isinstance(owner, arith.MinSIOp):
        return True
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        return _has_min(owner.lhs) or _has_min(owner.rhs)
    return False
