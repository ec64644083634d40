"""storage-rewrite: reuse the memory of dead buffers (TVM's StorageRewrite, seed 001).

Liveness (this part): the statements of a `loop.func` body are numbered in
program order; an intermediate buffer (`loop.alloc` at any depth) is live
from the first top-level statement that uses it to the last one. A buffer
allocated inside a loop nest (a stage attached with compute_at) lives within
that nest's statement. The liveness lower bound is the largest total size of
the buffers live at one statement: no plan can use less memory than that
without recomputation.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue

from compiler.arith.expr import Const, Expr, parse_expr
from compiler.arith.simplify import const_value, simplify
from compiler.dialects import loop


def element_bytes(t: loop.BufferType) -> int:
    from compiler.lowering.to_llvm import element_size

    return element_size(t.element_type)


def buffer_bytes(t: loop.BufferType) -> Expr:
    size: Expr = Const(element_bytes(t))
    for d in t.get_shape():
        size = size * (Const(d) if isinstance(d, int) else parse_expr(d))
    return simplify(size)


@dataclass
class Lifetime:
    """An intermediate buffer and the statements (top-level positions) that use it."""

    name: str
    alloc: loop.AllocOp
    size: Expr  # bytes
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


def liveness(func: loop.FuncOp) -> list[Lifetime]:
    """The lifetime of every `loop.alloc` of the function, in allocation order."""
    body_ops = {op: k for k, op in enumerate(func.body.block.ops)}
    lifetimes: list[Lifetime] = []
    for op in func.walk():
        if not isinstance(op, loop.AllocOp):
            continue
        uses = [_top_level_position(use.operation, body_ops) for use in _all_uses(op.result)]
        here = _top_level_position(op, body_ops)
        first, last = (min(uses), max(uses)) if uses else (here, here)
        lifetimes.append(Lifetime(op.buffer_name.data, op, buffer_bytes(op.buffer_type), first, last))
    return lifetimes


def _all_uses(value: SSAValue) -> list:  # type: ignore[type-arg]
    return list(value.uses)


def liveness_lower_bound(lifetimes: list[Lifetime]) -> int | None:
    """max over statements of the bytes live there; None when a size is symbolic."""
    if any(t.static_size is None for t in lifetimes):
        return None
    if not lifetimes:
        return 0
    end = max(t.last for t in lifetimes)
    return max(
        sum(t.static_size or 0 for t in lifetimes if t.first <= k <= t.last) for k in range(end + 1)
    )
