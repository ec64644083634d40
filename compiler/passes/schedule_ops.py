"""schedule-ops: lower `te` stages to `loop` nests (TVM's ScheduleOps).

Mirrors TVM's `ScheduleOps`/`MakeLoopNest`/`BuildRealize`
(src/te/schedule/schedule_ops.cc). For every `te.func`:

  1. the function becomes a `loop.func` whose arguments are the te
     arguments followed by one output buffer per te result (as in TVM's
     `build([A, B, C])`, outputs are arguments);
  2. every symbolic variable becomes one `loop.var` at the top;
  3. every stage that is not an output is realized by a `loop.alloc` over
     its region (min and extent per dimension);
  4. every stage becomes a loop nest over its region, whose body is the
     stage's body with `te.read` turned into `loop.load` and the yielded
     value stored; a `te.reduce` becomes `out = init; for r...: out = out op body`.

Bounds: without bound inference every stage is realized and computed over its
full output shape from 0. `infer-bound` (a later pass in the pipeline)
replaces these regions by the inferred ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IndexType, IntegerType, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from compiler.arith.expr import Const, Expr, parse_expr
from compiler.arith.ir import emit_expr
from compiler.dialects import loop, te
from compiler.dialects.shape import Dim, shape_var_names

OUTPUT_ATTR = "loop.output"
"""Unit attribute on a `loop.func` argument that the function writes."""


def dim_expr(dim: Dim) -> Expr:
    return Const(dim) if isinstance(dim, int) else parse_expr(dim)


def buffer_type_of(t: te.TensorType) -> loop.BufferType:
    return loop.BufferType(t.get_shape(), t.element_type)


@dataclass
class Region_:
    """The realized region of a stage: min and extent per output dimension."""

    mins: list[Expr]
    extents: list[Expr]


def full_region(stage: te.ComputeOp) -> Region_:
    shape = stage.tensor_type.get_shape()
    return Region_([Const(0)] * len(shape), [dim_expr(d) for d in shape])


class FunctionLowering:
    """Builds one `loop.func` from one `te.func`, appending ops at `self.block`'s end."""

    def __init__(self, func: te.FuncOp, region_of: Callable[[te.ComputeOp], Region_]):
        self.func = func
        self.region_of = region_of
        self.values: dict[SSAValue, SSAValue] = {}
        self.vars: dict[str, SSAValue] = {}
        arg_types: list[Attribute] = [buffer_type_of(t) for t in func.function_type.inputs.data]  # type: ignore[arg-type]
        self.outputs: list[te.ComputeOp] = []
        returned = func.body.block.last_op
        assert isinstance(returned, te.ReturnOp)
        for value in returned.values:
            stage = value.owner
            if not isinstance(stage, te.ComputeOp):
                raise ValueError(f"@{func.sym_name.data} returns an argument, not a computed tensor")
            if stage not in self.outputs:
                self.outputs.append(stage)
                arg_types.append(buffer_type_of(stage.tensor_type))
        self.result = loop.FuncOp(func.sym_name.data, arg_types)
        n_in = len(func.args)
        self.result.arg_attrs = _arg_attrs(n_in, len(self.outputs))
        self.block = self.result.body.block
        for te_arg, buf in zip(func.args, self.block.args[:n_in], strict=True):
            self.values[te_arg] = buf
            buf.name_hint = te_arg.name_hint
        for stage, buf in zip(self.outputs, self.block.args[n_in:], strict=True):
            self.values[stage.result] = buf
            buf.name_hint = stage.stage.data

    # -- small emitters -------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def var(self, name: str) -> SSAValue:
        if name not in self.vars:
            op = loop.VarOp(name)
            op.result.name_hint = name
            first = self.block.first_op
            if first is None:
                self.block.add_op(op)
            else:
                self.block.insert_op_before(op, first)
            self.vars[name] = op.result
        return self.vars[name]

    def expr(self, e: Expr, into: Block) -> SSAValue:
        return emit_expr(e, into.add_op, self.var)

    # -- the function ----------------------------------------------------

    def lower(self) -> loop.FuncOp:
        for t in (*self.func.function_type.inputs.data, *self.func.function_type.outputs.data):
            assert isinstance(t, te.TensorType)
            for name in shape_var_names(t.get_shape()):
                self.var(name)
        for op in self.func.body.block.ops:
            if isinstance(op, te.VarOp):
                self.values[op.result] = self.var(op.var_name.data)
            elif isinstance(op, te.ComputeOp):
                self.lower_stage(op)
            elif isinstance(op, te.ReturnOp):
                continue
            else:
                self.insert(op.clone(self.values))
                for old, new in zip(op.results, self.block.last_op.results, strict=True):  # type: ignore[union-attr]
                    self.values[old] = new
        return self.result

    def lower_stage(self, stage: te.ComputeOp) -> None:
        region = self.region_of(stage)
        out = self.values.get(stage.result)
        if out is None:
            mins = [self.expr(m, self.block) for m in region.mins]
            alloc = loop.AllocOp(stage.stage.data, mins, buffer_type_of_region(stage, region))
            alloc.result.name_hint = stage.stage.data
            self.insert(alloc)
            out = self.values[stage.result] = alloc.result
        body = self.loop_nest(region.mins, region.extents, self.block, stage.axes)
        self.emit_body(stage, out, body)

    def loop_nest(
        self, mins: Sequence[Expr], extents: Sequence[Expr], block: Block, axes: Sequence[SSAValue]
    ) -> Block:
        """Nested serial loops over [min, min + extent) per axis; returns the innermost block."""
        for lo, ext, axis in zip(mins, extents, axes, strict=True):
            for_op = loop.ForOp(self.expr(lo, block), self.expr(ext, block))
            for_op.induction_var.name_hint = axis.name_hint
            block.add_op(for_op)
            self.values[axis] = for_op.induction_var
            block = for_op.body.block
        return block

    def emit_body(self, stage: te.ComputeOp, out: SSAValue, block: Block) -> None:
        index = [self.values[a] for a in stage.axes]
        yielded = stage.body.block.last_op
        assert isinstance(yielded, te.YieldOp)
        for op in stage.body.block.ops:
            if op is yielded:
                break
            if isinstance(op, te.ReduceOp):
                self.emit_reduce(op, out, index, block)
                return
            self.clone_into(op, block)
        block.add_op(loop.StoreOp(self.values[yielded.values[0]], out, index))

    def emit_reduce(self, red: te.ReduceOp, out: SSAValue, index: list[SSAValue], block: Block) -> None:
        init = arith.ConstantOp(red.init_value())
        block.add_op(init)
        block.add_op(loop.StoreOp(init, out, index))
        extents = [dim_expr(d) for d in red.get_extents()]
        inner = self.loop_nest([Const(0)] * len(extents), extents, block, red.axes)
        yielded = red.body.block.last_op
        assert isinstance(yielded, te.YieldOp)
        for op in red.body.block.ops:
            if op is not yielded:
                self.clone_into(op, inner)
        acc = loop.LoadOp(out, index)
        inner.add_op(acc)
        combined = combine(red.reduce_kind, acc.result, self.values[yielded.values[0]])
        inner.add_op(combined)
        inner.add_op(loop.StoreOp(combined, out, index))

    def clone_into(self, op: Operation, block: Block) -> None:
        """Clone a scalar op, then turn the te ops it (or its regions) holds into loop ops."""
        if isinstance(op, te.ReadOp):
            load = loop.LoadOp(self.values[op.tensor], [self.values.get(i, i) for i in op.indices])
            load.result.name_hint = op.result.name_hint
            block.add_op(load)
            self.values[op.result] = load.result
            return
        if isinstance(op, te.VarOp):
            self.values[op.result] = self.var(op.var_name.data)
            return
        clone = op.clone(self.values)
        block.add_op(clone)
        for old, new in zip(op.results, clone.results, strict=True):
            self.values[old] = new
        for inner in list(clone.walk()):
            if isinstance(inner, te.ReadOp):
                # the clone already maps the tensor operand to its buffer
                load = loop.LoadOp(inner.tensor, inner.indices)
                Rewriter.replace_op(inner, load)
            elif isinstance(inner, te.VarOp):
                Rewriter.replace_op(inner, [], [self.var(inner.var_name.data)])


def buffer_type_of_region(stage: te.ComputeOp, region: Region_) -> loop.BufferType:
    from compiler.arith.simplify import const_value

    dims: list[Dim] = []
    for e in region.extents:
        c = const_value(e)
        dims.append(c if c is not None else str(e))
    return loop.BufferType(dims, stage.tensor_type.element_type)


def combine(kind: te.ReduceKind, acc: SSAValue, value: SSAValue) -> Operation:
    is_float = not isinstance(acc.type, IntegerType | IndexType)
    table: dict[te.ReduceKind, tuple[type[Operation], type[Operation]]] = {
        te.ReduceKind.SUM: (arith.AddfOp, arith.AddiOp),
        te.ReduceKind.PROD: (arith.MulfOp, arith.MuliOp),
        te.ReduceKind.MAX: (arith.MaximumfOp, arith.MaxSIOp),
        te.ReduceKind.MIN: (arith.MinimumfOp, arith.MinSIOp),
    }
    float_op, int_op = table[kind]
    return (float_op if is_float else int_op)(acc, value)  # type: ignore[call-arg]


def _arg_attrs(n_inputs: int, n_outputs: int) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr(
        [DictionaryAttr({})] * n_inputs + [DictionaryAttr({OUTPUT_ATTR: UnitAttr()})] * n_outputs
    )


def lower_module(module: ModuleOp, region_of: Callable[[te.ComputeOp], Region_] = full_region) -> None:
    for func in [op for op in module.ops if isinstance(op, te.FuncOp)]:
        lowered = FunctionLowering(func, region_of).lower()
        Rewriter.replace_op(func, lowered)


@dataclass(frozen=True)
class ScheduleOpsPass(ModulePass):
    """Lower every `te.func` to a `loop.func` of loop nests."""

    name = "schedule-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(op)

