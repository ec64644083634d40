"""Expression variables for SSA index values, shared by the passes that reason about
loop IR with `compiler.arith` (insert-bound-checks, loop-partition, storage-flatten)."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from compiler.arith.expr import IndexExpr, IndexVar
from compiler.arith.ir import expr_from_value
from compiler.dialects import loop


class ValueNames:
    """Expression variables for loop counters, `loop.var`s and other index values.

    A `loop.var` keeps its own name (so symbolic sizes read the same everywhere); any
    other value that is not arithmetic on known values becomes a fresh variable,
    `v<k>_<name hint>`, or `v<k>` without `hints` (names that must be identifiers of
    isl's syntax: storage-rewrite's access relations)."""

    def __init__(self, *, hints: bool = True) -> None:
        self.of: dict[SSAValue, str] = {}
        self.values: dict[str, SSAValue] = {}
        self.shapes: dict[str, SSAValue] = {}  # the `loop.var`s among `values`, kept as met
        self.hints = hints

    def leaf(self, value: SSAValue) -> IndexVar:
        if isinstance(value.owner, loop.VarOp):
            name = value.owner.var_name.data
            if name not in self.values:
                self.values[name] = self.shapes[name] = value
            return IndexVar(name)
        if value not in self.of:
            name = f"v{len(self.of)}_{value.name_hint or 'x'}" if self.hints else f"v{len(self.of)}"
            self.of[value] = name
            self.values[name] = value
        return IndexVar(self.of[value])

    def expr(self, value: SSAValue) -> IndexExpr:
        e = expr_from_value(value, self.leaf)
        return e if e is not None else self.leaf(value)

    def name(self, value: SSAValue) -> str:
        return self.leaf(value).name

    def shape_names(self) -> set[str]:
        """The `loop.var` names met so far (isl parameters)."""
        return set(self.shapes)


def enclosing_loops(op: Operation, stop: Operation | None = None) -> list[loop.ForOp]:
    """The loops around `op`, innermost first, up to (not including) `stop`."""
    found: list[loop.ForOp] = []
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        if isinstance(parent, loop.ForOp):
            found.append(parent)
        parent = parent.parent_op()
    return found


def loop_ranges(op: Operation, names: ValueNames) -> dict[str, tuple[IndexExpr, IndexExpr]]:
    """The inclusive range of each counter of the loops around `op`, by its name."""
    ranges: dict[str, tuple[IndexExpr, IndexExpr]] = {}
    for for_op in enclosing_loops(op):
        lo = names.expr(for_op.min)
        ranges[names.name(for_op.induction_var)] = (lo, lo + names.expr(for_op.extent) - 1)
    return ranges
