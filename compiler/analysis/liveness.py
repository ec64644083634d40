"""Sizes and lifetimes of intermediate buffers: what storage-rewrite plans with,
and what memory-report and verify-memory-plan check the plan against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexConst, IndexExpr, IndexVar, Sub
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.dialects import loop
from compiler.dialects.shape import dim_expr, shape_var_names, size_bounds

ARENA = "arena"
"""The name of the one allocation that storage-rewrite packs intermediates into."""

REASON_ATTR = "loop.fresh_because"
"""On a planned view: why it got memory of its own instead of reusing a dead buffer."""

ALIGN = 64


def element_bytes(t: loop.BufferType) -> int:
    return loop.element_bytes(t.element_type)


def buffer_bytes(t: loop.BufferType) -> IndexExpr:
    size: IndexExpr = IndexConst(element_bytes(t))
    for d in t.get_shape():
        size = size * dim_expr(d)
    return simplify(size)


def aligned(e: IndexExpr) -> IndexExpr:
    return simplify((e + (ALIGN - 1)) // ALIGN * ALIGN)


# ---------------------------------------------------------------------------
# Liveness
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Lifetime:
    """An intermediate buffer and the statements (top-level positions) that use it."""

    name: str
    value: SSAValue
    op: Operation
    size: IndexExpr  # bytes
    first: int
    last: int

    @property
    def static_size(self) -> int | None:
        return const_value(self.size)

    def overlaps(self, other: Lifetime) -> bool:
        return self.first <= other.last and other.first <= self.last


def _top_level_position(op: Operation, body_ops: dict[Operation, int]) -> int:
    current: Operation | None = op
    while current is not None and current not in body_ops:
        current = current.parent_op()
    assert current is not None
    return body_ops[current]


def _lifetime(name: str, value: SSAValue, op: Operation, body_ops: dict[Operation, int]) -> Lifetime:
    assert isinstance(value.type, loop.BufferType)
    uses = [_top_level_position(use.operation, body_ops) for use in value.uses]
    here = _top_level_position(op, body_ops)
    first, last = (min(uses), max(uses)) if uses else (here, here)
    return Lifetime(name, value, op, buffer_bytes(value.type), first, last)


def liveness(func: loop.FuncOp) -> list[Lifetime]:
    """The lifetime of every intermediate buffer (`loop.alloc` or planned `loop.view`)."""
    body_ops = {op: k for k, op in enumerate(func.body.block.ops)}
    found: list[Lifetime] = []
    for op in walk_ops(func):
        if (isinstance(op, loop.AllocOp) and not op.is_local and op.buffer_name.data != ARENA) or isinstance(op, loop.ViewOp):
            found.append(_lifetime(op.buffer_name.data, op.result, op, body_ops))
    return found


def liveness_lower_bound(lifetimes: Sequence[Lifetime]) -> int | None:
    """max over statements of the bytes live there; None when a size is symbolic."""
    if any(t.static_size is None for t in lifetimes):
        return None
    # a sweep over the statements where the live bytes change (a buffer's join at its
    # first statement and leave after its last), not a sum over every buffer at every
    # statement: that was quadratic, and the default Mamba's unrolled scan has tens of
    # thousands of each (storage-rewrite ran for minutes here)
    changes: dict[int, int] = {}
    for t in lifetimes:
        size = t.static_size or 0
        if t.first <= t.last:
            changes[t.first] = changes.get(t.first, 0) + size
            changes[t.last + 1] = changes.get(t.last + 1, 0) - size
    live = most = 0
    for k in sorted(changes):
        live += changes[k]
        most = max(most, live)
    return most


def shape_params(func: loop.FuncOp) -> list[str]:
    """The symbolic shape variables of a function's buffer arguments."""
    names = {
        n
        for t in func.function_type.inputs.data
        if isinstance(t, loop.BufferType)
        for n in shape_var_names(t.get_shape())
    }
    return sorted(names)


def size_analyzer(func: loop.FuncOp, *, argument_shapes: bool = False) -> Analyzer:
    """Proves facts about sizes: every shape variable is non-negative, or in the range
    the function declares (`shape_bounds`, checked at every call). With
    `argument_shapes`, also what the arguments' shapes imply: an argument dimension
    `v - c` is a real array's extent at every call (the packed API checks each one),
    so `v >= c`."""
    declared = size_bounds(func, shape_params(func))
    lower = {n: lo for n, (lo, _) in declared.items()}
    if argument_shapes:
        for t in func.function_type.inputs.data:
            if not isinstance(t, loop.BufferType):
                continue
            for d in t.get_shape():
                e = dim_expr(d)
                if isinstance(e, Sub) and isinstance(e.a, IndexVar) and isinstance(e.b, IndexConst) and e.a.name in lower:
                    lower[e.a.name] = max(lower[e.a.name], e.b.value)
    return Analyzer({n: (lo, declared[n][1]) for n, lo in lower.items()})
