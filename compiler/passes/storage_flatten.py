"""storage-flatten: multi-dimensional buffers become 1-D (TVM's StorageFlatten).

Every buffer of a `loop.func` (arguments and `loop.alloc`s) becomes a 1-D
buffer of `prod(shape)` elements, row-major. An access `b[i0, ..., in]` to a
buffer realized from mins `m` with row-major strides `s` becomes

    b[(i0 - m0) * s0 + ... + (in - mn) * sn]

built as an index expression, simplified (canonical affine form, so that
`(i + 1 - 1) * 16 + j` prints as `i * 16 + j`) and emitted with `arith` ops
right before the access. A realized region's min moves into the accesses, so
the flat `loop.alloc` starts at 0.

Strides are the compact row-major ones of the buffer's shape, or the
declared ones of a strided buffer (`!loop.buffer<[4, "n"], f32, strides
["s0", 1]>`, whose symbolic strides `make-packed-api` binds at call time);
a strided buffer's flat type is its span, `1 + sum((d - 1) * s)` elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.arg_binder import row_major_strides
from compiler.analysis.value_names import ValueNames
from compiler.analysis.walk import walk_ops
from compiler.arith.builders import index_constant
from compiler.arith.expr import IndexConst, IndexExpr
from compiler.arith.ir import emit_expr
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.dialects import loop
from compiler.dialects.shape import dim_expr
from compiler.passes import LoopFunctionPass


def flat_type(t: loop.BufferType) -> loop.BufferType:
    """The 1-D type: `prod(shape)` elements, or the span of a strided buffer."""
    size: IndexExpr = IndexConst(1)
    if (strides := t.get_strides()) is None:
        for d in t.get_shape():
            size = size * dim_expr(d)
    else:  # 1 + sum((d - 1) * s): the elements from the first to the last one
        for d, s in zip(t.get_shape(), strides, strict=True):
            size = size + (dim_expr(d) - 1) * dim_expr(s)
    size = simplify(size)
    c = const_value(size)
    return loop.BufferType([max(c, 0) if c is not None else str(size)], t.element_type)


def is_flat(t: loop.BufferType) -> bool:
    return t.rank == 1 and t.get_strides() is None


@dataclass
class _Layout:
    mins: list[IndexExpr]
    strides: list[IndexExpr]


class IndexExprs(ValueNames):
    """Converts SSA index values to expressions (`ValueNames`) and back, within one function."""

    def __init__(self, func: loop.FuncOp):
        super().__init__()
        self.func = func
        # one memo for the function's accesses (shared strides); the loop counters' ranges
        # let it drop the divisions a split leaves in an index: (fo * 64 + fi) // 64 is fo
        # for fi in [0, 64) (a weight blocked by the split's factor reads contiguously)
        self.analyzer = Analyzer(self._loop_ranges(func))
        for op in func.body.block.ops:  # emitted expressions reuse the function's loop.vars
            if isinstance(op, loop.VarOp):
                self.values.setdefault(op.var_name.data, op.result)

    def _loop_ranges(self, func: loop.FuncOp) -> dict[str, tuple[IndexExpr, IndexExpr]]:
        """Inclusive ranges of the counters of the loops of constant extent (from a
        symbolic start too: a tile's loop inside its parent's, from `fo * 64`)."""
        ranges: dict[str, tuple[IndexExpr, IndexExpr]] = {}
        for op in walk_ops(func):
            if isinstance(op, loop.ForOp) and op.step.value.data == 1:
                extent = const_value(self.expr(op.extent))
                if extent is not None and extent > 0:
                    lo = self.expr(op.min)
                    ranges[self.name(op.body.block.args[0])] = (lo, simplify(lo + (extent - 1)))
        return ranges

    def var_value(self, name: str) -> SSAValue:
        if name not in self.values:
            op = loop.VarOp(name)
            op.result.name_hint = name
            block = self.func.body.block
            Rewriter.insert_op(op, InsertPoint.at_start(block))
            self.values[name] = op.result
        return self.values[name]

    def emit(self, e: IndexExpr, before: Operation) -> SSAValue:
        ops: list[Operation] = []
        value = emit_expr(self.analyzer.simplify(e), ops.append, self.var_value)
        if ops:
            Rewriter.insert_op(ops, InsertPoint.before(before))
        return value


def _layout_of(t: loop.BufferType, mins: Sequence[IndexExpr]) -> _Layout:
    if (strides := t.get_strides()) is not None:
        return _Layout(list(mins), [dim_expr(s) for s in strides])
    return _Layout(list(mins), row_major_strides([dim_expr(d) for d in t.get_shape()], simplify))


def _flat_index(layout: _Layout, indices: Sequence[IndexExpr]) -> IndexExpr:
    flat: IndexExpr = IndexConst(0)
    for index, lo, stride in zip(indices, layout.mins, layout.strides, strict=True):
        flat = flat + (index - lo) * stride
    return flat


def flatten_function(func: loop.FuncOp) -> None:
    exprs = IndexExprs(func)
    layouts: dict[SSAValue, _Layout] = {}
    block = func.body.block
    new_inputs: list[Attribute] = []
    for i, arg in enumerate(list(block.args)):
        t = arg.type
        if isinstance(t, loop.BufferType) and not is_flat(t):
            new = block.insert_arg(flat_type(t), i)
            new.name_hint = arg.name_hint
            arg.replace_all_uses_with(new)
            block.erase_arg(arg)
            layouts[new] = _layout_of(t, [IndexConst(0)] * t.rank)
            new_inputs.append(new.type)
        else:
            new_inputs.append(t)
    func.function_type = FunctionType.from_lists(new_inputs, [])
    for op in walk_ops(func):
        if isinstance(op, loop.AllocOp) and not (is_flat(op.buffer_type) and _zero_mins(op)):
            _flatten_alloc(op, exprs, layouts)
    for op in walk_ops(func):
        if isinstance(op, loop.LoadOp | loop.StoreOp) and op.buffer in layouts:
            _flatten_access(op, exprs, layouts[op.buffer])


def _zero_mins(op: loop.AllocOp) -> bool:
    """A realized region starting at 0 (a 1-D alloc from a non-zero min still needs its shift)."""
    return all(
        isinstance(m.owner, arith.ConstantOp)
        and isinstance(m.owner.value, IntegerAttr)
        and m.owner.value.value.data == 0
        for m in op.mins
    )


def _flatten_alloc(op: loop.AllocOp, exprs: IndexExprs, layouts: dict[SSAValue, _Layout]) -> None:
    mins = [exprs.expr(m) for m in op.mins]
    zero = index_constant(0)
    new = loop.AllocOp(op.buffer_name.data, [zero.result], flat_type(op.buffer_type), local=op.is_local)
    new.attributes |= op.attributes
    Rewriter.insert_op(zero, InsertPoint.before(op))
    Rewriter.replace_op(op, new)
    layouts[new.result] = _layout_of(op.buffer_type, mins)


def _flatten_access(
    op: loop.LoadOp | loop.StoreOp, exprs: IndexExprs, layout: _Layout
) -> None:
    flat = _flat_index(layout, [exprs.expr(i) for i in op.indices])
    index = exprs.emit(flat, op)
    if isinstance(op, loop.LoadOp):
        new: Operation = loop.LoadOp(op.buffer, [index])
    else:
        new = loop.StoreOp(op.value, op.buffer, [index])
    new.attributes |= op.attributes
    Rewriter.replace_op(op, new)


@dataclass(frozen=True)
class StorageFlattenPass(LoopFunctionPass):
    """Flatten every buffer of every `loop.func` to 1-D (see the module docstring)."""

    name = "storage-flatten"

    def run_on_function(self, module: ModuleOp, func: loop.FuncOp) -> None:
        flatten_function(func)

