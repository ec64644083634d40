"""Bridge between :mod:`compiler.arith.expr` and xDSL ``arith`` SSA values.

``expr_from_value`` walks the def-use tree of an integer SSA value and turns
the ``arith`` operations it understands into an :class:`IndexExpr`; every other
value (block arguments, loads, unknown ops) is delegated to a ``leaf``
callback, which typically maps loop induction variables and shape values to
:class:`IndexVar`.  ``emit_expr``/``emit_cond`` go the other way and materialise an
expression as ``index``-typed ``arith`` operations.

Mapping of operations (``x``, ``d`` are the operand expressions):

==================  =========================================================
arith.constant      integer/index ``IntegerAttr`` -> ``IndexConst``
addi/subi/muli      ``x + d``, ``x - d``, ``x * d``
floordivsi          ``x // d``
ceildivsi           ``-((-x) // d)``
divsi               if ``d`` is a non-zero constant: ``x // d`` when ``x >= 0`` is
                    provable from ``bounds``, otherwise the exact truncating
                    form ``max(x, 0) // d - (-min(x, 0)) // d`` (sign-adjusted for
                    ``d < 0``); if ``d`` is provably ``>= 1`` and ``x >= 0``:
                    ``x // d``; otherwise the value is a leaf
remsi               ``x - d * trunc_div(x, d)`` with the same cases as divsi
                    (``x % d`` when ``x >= 0`` and ``d >= 1`` are provable)
divui/remui         ``x // d`` / ``x % d`` only when ``x >= 0`` and ``d >= 1`` are
                    provable, otherwise a leaf
minsi/maxsi         ``min``/``max``; minui/maxui only for provably
                    non-negative operands
index_cast, extsi   passed through; extui only for a provably non-negative operand
==================  =========================================================

An operation listed above whose operand is not representable, or whose case
is not handled, is treated like any other value: ``leaf(value)`` decides (a
leaf is an opaque integer, so mapping it to a fresh ``IndexVar`` is always sound).
If ``leaf`` returns ``None`` anywhere in the tree, the whole result is ``None``.

# WARNING: expressions use unbounded integers; overflow of fixed-width
# (``i32``/``i64``/``index``) arithmetic is ignored, as in TVM.

``emit_expr`` lowers ``x // d`` to ``arith.floordivsi`` and ``x % d`` to
``x - (x floordivsi d) * d`` (exact floor semantics for every sign); identical
sub-expressions are emitted once per call (or per shared ``cache``).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Operation, OpResult, SSAValue

from compiler.arith.builders import INDEX, binary, bool_constant, cmpi, index_cast, index_constant
from compiler.arith.expr import (
    EQ,
    LE,
    LT,
    NE,
    Add,
    And,
    BoolConst,
    Cond,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Not,
    Or,
    Sub,
    as_binary,
    as_compare,
)
from compiler.arith.simplify import Analyzer, BoundsArg

__all__ = ["emit_cond", "emit_expr", "expr_from_value"]

LeafFn = Callable[[SSAValue], IndexExpr | None]
InsertFn = Callable[[Operation], None]
VarValueFn = Callable[[str], SSAValue]

_BINARY: dict[type[Operation], Callable[[IndexExpr, IndexExpr], IndexExpr]] = {
    arith.AddiOp: Add,
    arith.SubiOp: Sub,
    arith.MuliOp: Mul,
    arith.FloorDivSIOp: FloorDiv,
    arith.MinSIOp: Min,
    arith.MaxSIOp: Max,
}
_SUPPORTED: tuple[type[Operation], ...] = (
    *_BINARY,
    arith.IndexCastOp,
    arith.ExtSIOp,
    arith.ExtUIOp,
    arith.CeilDivSIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.DivUIOp,
    arith.RemUIOp,
    arith.MinUIOp,
    arith.MaxUIOp,
)


def _is_int_like(value: SSAValue) -> bool:
    return isinstance(value.type, IndexType | IntegerType)


def _trunc_div(x: IndexExpr, c: int) -> IndexExpr:
    """Exact truncating division by a non-zero constant."""
    if c < 0:
        return Mul(IndexConst(-1), _trunc_div(x, -c))
    positive = FloorDiv(Max(x, IndexConst(0)), IndexConst(c))
    negative = FloorDiv(Mul(IndexConst(-1), Min(x, IndexConst(0))), IndexConst(c))
    return Sub(positive, negative)


class _Reader:
    def __init__(self, leaf: LeafFn, bounds: BoundsArg | None) -> None:
        self.leaf = leaf
        self.bounds = bounds
        self._analyzer: Analyzer | None = None  # only unsigned and signed div/rem ask
        self.cache: dict[SSAValue, IndexExpr | None] = {}

    @property
    def analyzer(self) -> Analyzer:
        if self._analyzer is None:
            self._analyzer = Analyzer(self.bounds)
        return self._analyzer

    def read(self, value: SSAValue) -> IndexExpr | None:
        if value in self.cache:
            return self.cache[value]
        result = self._from_op(value) if isinstance(value, OpResult) else None
        if result is None:
            result = self.leaf(value)
        self.cache[value] = result
        return result

    def _operands(self, op: Operation) -> list[IndexExpr] | None:
        out: list[IndexExpr] = []
        for operand in op.operands:
            e = self.read(operand)
            if e is None:
                return None
            out.append(e)
        return out

    def _from_op(self, value: OpResult) -> IndexExpr | None:
        op = value.op
        if not _is_int_like(value):
            return None
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            return IndexConst(attr.value.data) if isinstance(attr, IntegerAttr) else None
        if not isinstance(op, _SUPPORTED):
            return None
        args = self._operands(op)
        if args is None:
            return None
        ctor = _BINARY.get(type(op))
        if ctor is not None:
            return ctor(args[0], args[1])
        return self._special(op, args)

    def _special(self, op: Operation, args: list[IndexExpr]) -> IndexExpr | None:
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            return args[0]
        if isinstance(op, arith.ExtUIOp):
            return args[0] if self._nonneg(args[0]) else None
        if isinstance(op, arith.CeilDivSIOp):
            return Mul(IndexConst(-1), FloorDiv(Mul(IndexConst(-1), args[0]), args[1]))
        if isinstance(op, arith.DivSIOp | arith.RemSIOp):
            return self._signed_divrem(isinstance(op, arith.DivSIOp), args[0], args[1])
        if isinstance(op, arith.DivUIOp | arith.RemUIOp):
            if self._nonneg(args[0]) and self.analyzer.prove_ge(args[1], 1):
                divmod_ctor = FloorDiv if isinstance(op, arith.DivUIOp) else FloorMod
                return divmod_ctor(args[0], args[1])
            return None
        if isinstance(op, arith.MinUIOp | arith.MaxUIOp):
            if self._nonneg(args[0]) and self._nonneg(args[1]):
                minmax_ctor = Min if isinstance(op, arith.MinUIOp) else Max
                return minmax_ctor(args[0], args[1])
            return None
        return None

    def _nonneg(self, e: IndexExpr) -> bool:
        return self.analyzer.prove_ge(e, 0)

    def _signed_divrem(self, is_div: bool, x: IndexExpr, d: IndexExpr) -> IndexExpr | None:
        if self._nonneg(x) and self.analyzer.prove_ge(d, 1):
            return FloorDiv(x, d) if is_div else FloorMod(x, d)
        c = self.analyzer.simplify(d)
        if not isinstance(c, IndexConst) or c.value == 0:
            return None
        q = _trunc_div(x, c.value)
        return q if is_div else Sub(x, Mul(c, q))


def expr_from_value(
    value: SSAValue | Operation,
    leaf: LeafFn,
    bounds: BoundsArg | None = None,
    cache: dict[SSAValue, IndexExpr | None] | None = None,
) -> IndexExpr | None:
    """Build an :class:`IndexExpr` from a tree of integer ``arith`` ops (see module
    docstring); ``bounds`` are only used to prove operands non-negative.  A
    single-result operation stands for its result. ``cache`` keeps the expressions of
    the values read, for the next call (the caller forgets it when it rewires ops)."""
    reader = _Reader(leaf, bounds)
    if cache is not None:
        reader.cache = cache
    return reader.read(SSAValue.get(value))


# ---------------------------------------------------------------------------
# Emission
# ---------------------------------------------------------------------------

_EMIT_BINARY: dict[type[IndexExpr], type[arith.SignlessIntegerBinaryOperation]] = {
    Add: arith.AddiOp,
    Sub: arith.SubiOp,
    Mul: arith.MuliOp,
    FloorDiv: arith.FloorDivSIOp,
    Min: arith.MinSIOp,
    Max: arith.MaxSIOp,
}
_PREDICATES: dict[type[Cond], str] = {LT: "slt", LE: "sle", EQ: "eq", NE: "ne"}


class _Emitter:
    def __init__(
        self, insert: InsertFn, var_value: VarValueFn, cache: dict[IndexExpr | Cond, SSAValue]
    ) -> None:
        self.insert = insert
        self.var_value = var_value
        self.cache = cache

    def _add(self, op: Operation) -> SSAValue:
        self.insert(op)
        return op.results[0]

    def expr(self, e: IndexExpr) -> SSAValue:
        hit = self.cache.get(e)
        if hit is None:
            hit = self._emit_expr(e)
            self.cache[e] = hit
        return hit

    def _emit_expr(self, e: IndexExpr) -> SSAValue:
        if isinstance(e, IndexConst):
            return self._add(index_constant(e.value))
        if isinstance(e, IndexVar):
            value = self.var_value(e.name)
            if isinstance(value.type, IntegerType):
                return self._add(index_cast(value, INDEX))
            return value
        if isinstance(e, FloorMod):
            a, b = self.expr(e.a), self.expr(e.b)
            q = self.expr(FloorDiv(e.a, e.b))
            return self._add(binary(arith.SubiOp, a, self._add(binary(arith.MuliOp, q, b))))
        node = as_binary(e)
        a, b = self.expr(node.a), self.expr(node.b)
        return self._add(binary(_EMIT_BINARY[type(node)], a, b))

    def cond(self, c: Cond) -> SSAValue:
        hit = self.cache.get(c)
        if hit is None:
            hit = self._emit_cond(c)
            self.cache[c] = hit
        return hit

    def cache_bool(self, value: bool) -> SSAValue:
        key = BoolConst(value)
        hit = self.cache.get(key)
        if hit is None:
            hit = self._add(bool_constant(value))
            self.cache[key] = hit
        return hit

    def _emit_cond(self, c: Cond) -> SSAValue:
        if isinstance(c, BoolConst):
            return self.cache_bool(c.value)
        if isinstance(c, Not):
            return self._add(binary(arith.XOrIOp, self.cond(c.a), self.cache_bool(True)))
        if isinstance(c, And | Or):
            a, b = self.cond(c.a), self.cond(c.b)
            return self._add(binary(arith.AndIOp if isinstance(c, And) else arith.OrIOp, a, b))
        cmp = as_compare(c)
        a, b = self.expr(cmp.a), self.expr(cmp.b)
        return self._add(cmpi(a, b, _PREDICATES[type(cmp)]))


def emit_expr(
    e: IndexExpr,
    insert: InsertFn,
    var_value: VarValueFn,
    cache: dict[IndexExpr | Cond, SSAValue] | None = None,
) -> SSAValue:
    """Emit ``index``-typed ``arith`` ops computing ``e``.

    ``insert(op)`` is called for each new op in dependency order;
    ``var_value(name)`` supplies the value of each variable (an integer-typed
    value gets an ``arith.index_cast``).  Pass the same ``cache`` dict to
    several calls to share sub-expressions (the caller must ensure the cached
    values dominate the new insertion point).
    """
    return _Emitter(insert, var_value, {} if cache is None else cache).expr(e)


def emit_cond(
    c: Cond,
    insert: InsertFn,
    var_value: VarValueFn,
    cache: dict[IndexExpr | Cond, SSAValue] | None = None,
) -> SSAValue:
    """Emit an ``i1`` value for a condition (``arith.cmpi`` with signed
    predicates, ``andi``/``ori``, ``not`` as ``xori`` with ``true``)."""
    return _Emitter(insert, var_value, {} if cache is None else cache).cond(c)


# ---------------------------------------------------------------------------
# Conditions
# ---------------------------------------------------------------------------

_CMP_READ: dict[str, Callable[[IndexExpr, IndexExpr], Cond]] = {
    "slt": lambda a, b: LT(a, b),
    "sle": lambda a, b: LE(a, b),
    "sgt": lambda a, b: LT(b, a),
    "sge": lambda a, b: LE(b, a),
    "eq": lambda a, b: EQ(a, b),
    "ne": lambda a, b: NE(a, b),
}


def cond_from_value(
    value: SSAValue | Operation,
    leaf: LeafFn,
    bounds: BoundsArg | None = None,
    cache: dict[SSAValue, IndexExpr | None] | None = None,
) -> Cond | None:
    """Build a :class:`Cond` from an ``i1`` tree of ``arith.cmpi`` (signed or
    equality predicates on integers), ``andi``, ``ori``, ``xori`` with ``true``
    (negation) and ``i1`` constants; ``None`` for anything else. ``cache`` as for
    :func:`expr_from_value`."""
    v = SSAValue.get(value)
    op = v.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return BoolConst(op.value.value.data != 0)
    if isinstance(op, arith.CmpiOp):
        pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
        if pred not in _CMP_READ:
            return None
        lhs, rhs = expr_from_value(op.lhs, leaf, bounds, cache), expr_from_value(op.rhs, leaf, bounds, cache)
        return None if lhs is None or rhs is None else _CMP_READ[pred](lhs, rhs)
    if isinstance(op, arith.AndIOp | arith.OrIOp):
        a, b = cond_from_value(op.lhs, leaf, bounds, cache), cond_from_value(op.rhs, leaf, bounds, cache)
        if a is None or b is None:
            return None
        return And(a, b) if isinstance(op, arith.AndIOp) else Or(a, b)
    if isinstance(op, arith.XOrIOp):
        a, b = cond_from_value(op.lhs, leaf, bounds, cache), cond_from_value(op.rhs, leaf, bounds, cache)
        if isinstance(b, BoolConst) and b.value and a is not None:
            return Not(a)
        if isinstance(a, BoolConst) and a.value and b is not None:
            return Not(b)
    return None
