"""insert-bound-checks: check every buffer access against its buffer's region.

TVM's `instrument_bound_checkers`, Halide's bounds asserts. Runs on the
N-D loop IR that schedule-ops produces, where every index is a logical
coordinate: an argument buffer's region is `[0, shape)`, a `loop.alloc`'s
is `[min, min + extent)` per dimension (its realized region). Before each
`loop.load`/`loop.store`, for each dimension whose index is not provably
inside, it inserts

    loop.assert %ok, "main: store to C[i, j] out of bounds: index {0} of dimension 1 is outside [{1}, {2})" (%j, %lo, %hi : index, index, index) raises "IndexError"

so the call raises an IndexError naming the buffer, the index and the region
before the access happens. An integer division or remainder whose divisor is not
provably nonzero (`z_yy * 2 // z_ry` with `z_ry` from 0) gets a check before it,
`loop.assert %ne, "main: division by zero in an index: ..." raises "IndexError"`:
the machine's division traps (or, optimized, does anything) on a zero divisor, so
without it the call would die of a signal instead of raising. Proofs use the enclosing loops' ranges (and the
shape variables being non-negative): with exact bounds (tight splits) most
checks of a correct schedule are removed statically.

Off by default: `build(..., check_bounds=True)` or
`default-pipeline{check-bounds=true}` add it after schedule-ops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.guards import conjuncts, tighten_domain
from compiler.analysis.value_names import ValueNames
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import LE, LT, Cond, IndexConst, IndexExpr, IndexVar, Not
from compiler.arith.int_set import IntSet
from compiler.arith.ir import cond_from_value, emit_expr, expr_from_value
from compiler.arith.simplify import Analyzer, BoundsArg
from compiler.dialects import loop
from compiler.dialects.shape import ANY_SIZE, declared_shape_bounds, dim_expr
from compiler.passes import LoopFunctionPass

INTEGER_DIVISIONS = (
    arith.DivSIOp,
    arith.DivUIOp,
    arith.RemSIOp,
    arith.RemUIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
)
IntegerDivision = (
    arith.DivSIOp
    | arith.DivUIOp
    | arith.RemSIOp
    | arith.RemUIOp
    | arith.FloorDivSIOp
    | arith.CeilDivSIOp
    | arith.CeilDivUIOp
)


@dataclass
class Region:
    """Where a buffer's elements are, per dimension: [min, min + extent)."""

    name: str
    mins: list[IndexExpr]
    extents: list[IndexExpr]


class FunctionChecks:
    def __init__(self, func: loop.FuncOp) -> None:
        self.func = func
        self.names = ValueNames()
        self.regions: dict[SSAValue, Region] = {}
        self.shape_vars = set[str]()
        self.inserted = 0
        self.removed = 0

    def run(self) -> None:
        for op in self.func.body.block.ops:  # checks reuse the function's loop.vars
            if isinstance(op, loop.VarOp):
                self.names.leaf(op.result)
        for arg, t in zip(self.func.args, self.func.function_type.inputs.data, strict=True):
            if isinstance(t, loop.BufferType):
                shape = [dim_expr(d) for d in t.get_shape()]
                self.regions[arg] = Region(arg.name_hint or "arg", [IndexConst(0)] * len(shape), shape)
        for op in walk_ops(self.func):
            if isinstance(op, loop.AllocOp):
                shape = [dim_expr(d) for d in op.buffer_type.get_shape()]
                mins = [self.names.expr(m) for m in op.mins]
                self.regions[op.result] = Region(op.buffer_name.data, mins, shape)
            elif isinstance(op, loop.LoadOp | loop.StoreOp):
                self.check(op)
            elif isinstance(op, INTEGER_DIVISIONS):
                self.check_divisor(op)

    def bounds(self, op: Operation) -> BoundsArg:
        """Ranges of the loops around `op`, narrowed by the conditions of the branches
        it is in (a pad's guard keeps its reads inside); shape variables are >= 0, or in the
        range the function declares."""
        found: dict[str, tuple[IndexExpr | int | None, IndexExpr | int | None]] = {}
        loops: dict[str, tuple[IndexExpr, IndexExpr]] = {}
        guards: list[Cond] = []
        child, parent = op, op.parent_op()
        while parent is not None and parent is not self.func:
            if isinstance(parent, loop.ForOp):
                lo = self.names.expr(parent.min)
                hi = self.names.expr(parent.extent) + lo - 1
                loops[self.names.leaf(parent.induction_var).name] = (lo, hi)
                found.update(loops)
            elif isinstance(parent, scf.IfOp | loop.IfOp):
                cond = cond_from_value(parent.cond, self.names.leaf)
                if cond is not None:
                    taken = child.parent_region() is parent.regions[0]
                    guards += conjuncts(cond if taken else Not(cond))
            child, parent = parent, parent.parent_op()
        declared = declared_shape_bounds(self.func)
        for name, value in self.names.values.items():
            if isinstance(value.owner, loop.VarOp):
                found.setdefault(name, declared.get(name, ANY_SIZE))
        if guards := [g for g in guards if isinstance(g, LT | LE)]:
            dom = {name: IntSet(lo, hi) for name, (lo, hi) in loops.items()}
            for name, s in tighten_domain(dom, guards, found).dom.items():
                found[name] = (s.lo, s.hi)
        return found

    def check(self, op: loop.LoadOp | loop.StoreOp) -> None:
        region = self.regions.get(op.buffer)
        if region is None:  # a view: storage-rewrite's, already checked as its source
            return
        indices = [self.names.expr(i) for i in op.indices]
        az = Analyzer(self.bounds(op))
        for dim, (index, lo, extent) in enumerate(zip(indices, region.mins, region.extents, strict=True)):
            hi = az.simplify(lo + extent)
            if az.prove_le(lo, index) and az.prove_lt(index, hi):
                self.removed += 1
                continue
            self.emit_check(op, region, dim, op.indices[dim], (lo, hi))
            self.inserted += 1

    def check_divisor(self, op: IntegerDivision) -> None:
        """A check that the divisor of `op` is not 0, unless it provably is not."""
        divisor = op.rhs
        t = divisor.type
        if not isinstance(t, IndexType | IntegerType):
            return
        if isinstance(t, IndexType):
            d = self.names.expr(divisor)
            az = Analyzer(self.bounds(op))
            if az.prove_le(IndexConst(1), d) or az.prove_le(d, IndexConst(-1)):
                self.removed += 1
                return
        elif isinstance(divisor.owner, arith.ConstantOp):
            value = divisor.owner.value
            if isinstance(value, IntegerAttr) and value.value.data != 0:
                self.removed += 1
                return
        zero = arith.ConstantOp(IntegerAttr(0, t), t)
        ok = arith.CmpiOp(divisor, zero, "ne")
        text = f"{self._index_text(op.lhs)} ({op.name}) {self._index_text(divisor)}"
        message = f"{self.func.sym_name.data}: division by zero: {text}, with a divisor of 0".replace("{", "{{").replace("}", "}}")
        check = loop.AssertOp(ok, message, error="IndexError")
        Rewriter.insert_op([zero, ok, check], InsertPoint.before(op))
        self.inserted += 1

    def emit_check(
        self, op: loop.LoadOp | loop.StoreOp, region: Region, dim: int, index: SSAValue, bounds: tuple[IndexExpr, IndexExpr]
    ) -> None:
        new: list[Operation] = []
        cache: dict[IndexExpr | Cond, SSAValue] = {}
        lo, hi = (emit_expr(e, new.append, self.value_of(new), cache) for e in bounds)
        above = arith.CmpiOp(index, lo, "sge")
        below = arith.CmpiOp(index, hi, "slt")
        ok = arith.AndIOp(above, below)
        access = "load from" if isinstance(op, loop.LoadOp) else "store to"
        coords = ", ".join(self._index_text(i) for i in op.indices)
        message = (
            f"{self.func.sym_name.data}: {access} {region.name}[{coords}] out of bounds: "
            f"index {{0}} of dimension {dim} is outside [{{1}}, {{2}})"
        )
        check = loop.AssertOp(ok, message, [index, lo, hi], error="IndexError")
        Rewriter.insert_op([*new, above, below, ok, check], InsertPoint.before(op))

    def value_of(self, new: list[Operation]) -> Callable[[str], SSAValue]:
        """emit_expr's callback: the SSA value of an expression variable."""

        def value(name: str) -> SSAValue:
            if name in self.names.values:
                return self.names.values[name]
            var = loop.VarOp(name)  # a shape variable the function has no loop.var for
            Rewriter.insert_op(var, InsertPoint.at_start(self.func.body.block))
            self.names.values[name] = var.result
            return var.result

        return value

    def _index_text(self, index: SSAValue) -> str:
        e = expr_from_value(index, lambda v: IndexVar(v.name_hint or "?"))
        return str(e) if e is not None else "?"


def insert_checks(func: loop.FuncOp) -> tuple[int, int]:
    """Checks inserted and proven away in one function."""
    checks = FunctionChecks(func)
    checks.run()
    return checks.inserted, checks.removed


@dataclass(frozen=True)
class InsertBoundChecksPass(LoopFunctionPass):
    """Check every load and store against its buffer's region (off by default)."""

    name = "insert-bound-checks"

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        insert_checks(func)

