"""schedule-ops: lower scheduled `te` stages to `loop` nests (TVM's ScheduleOps).

Mirrors TVM's ScheduleOps / MakeLoopNest / BuildRealize / MakeBoundCheck
(src/te/schedule/schedule_ops.cc, src/te/operation/op_util.cc). It reads the
bounds `infer-bound` recorded on each `te.compute` (and runs `infer-bound`
itself when they are missing). For every `te.func`:

  1. the function becomes a `loop.func` whose arguments are the te arguments
     followed by one output buffer per te result (outputs are arguments);
  2. every symbolic shape variable becomes one `loop.var` at the top;
  3. each stage computed at the root is emitted in program order; a stage
     attached at a leaf loop `X` of a consumer is emitted at the start of the
     body of `X`;
  4. a stage is a `loop.alloc` over its realized region (unless it is an
     output; `local`, on the stack, for one element of an attached stage or
     an attached tile of symbolic extents bounded by small constants, at those
     bounds: `_stack_shape`), then its leaf loops, outer first; at the innermost point the
     root axes are computed from the leaf variables, the body is guarded by
     the bound checks (`loop.if ... likely`), `te.read` becomes `loop.load`,
     and the yielded value is stored;
  5. a reduction stores its init value before its outermost reduce loop
     (or in a separate nest over the data-parallel loops when a reduce loop
     was reordered outside a data-parallel one or fused with one: that loop
     is in the nest too) and accumulates innermost;
     a `te.where` in its body makes the rest of the body and the update a
     `loop.if` on the predicate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.utils.hints import isa

from compiler.analysis.bound_attrs import LoopSpec, has_bounds, parse_loop, parse_range
from compiler.analysis.bounds import infer_function
from compiler.analysis.target import PRIVATE_SCRATCH_BYTES
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import And, BoolConst, Cond, IndexConst, IndexExpr, free_vars
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.parse import parse_cond, parse_expr
from compiler.arith.simplify import const_bounds, const_value
from compiler.diagnostics import PassError, VerifyError
from compiler.dialects import loop, te
from compiler.dialects.shape import (
    ANY_SIZE,
    SHAPE_BOUNDS,
    Dim,
    SizeRange,
    declared_shape_bounds,
    dim_expr,
    expr_dim,
    shape_var_names,
)
from compiler.errors import ExprError, IRError
from compiler.schedule.cache_stages import STORAGE_ALIGN_ATTR, aligned_strides, parse_align
from compiler.schedule.model import schedule_of

OUTPUT_ATTR = "loop.output"
PRAGMAS_ATTR = "loop.pragmas"  # the `sched.pragma` names of a loop that are not primitives
"""Unit attribute on a `loop.func` argument that the function writes."""
"""On a `loop.func` argument, a 0-d i64 buffer: the value of the named variable (a
`te.func` scalar argument, `{te.scalar = "n"}`); make-packed-api binds it from the data."""


def tensor_type(t: Attribute) -> te.TensorType:
    """A type of a te.func signature, which the te verifiers keep a !te.tensor."""
    if not isinstance(t, te.TensorType):
        raise PassError(f"expected a !te.tensor type, got {t}")
    return t


def buffer_type_of(t: Attribute) -> loop.BufferType:
    tensor = tensor_type(t)
    return loop.BufferType(tensor.get_shape(), tensor.element_type)


# ---------------------------------------------------------------------------
# The plan of a stage, as infer-bound recorded it
# ---------------------------------------------------------------------------


@dataclass
class StagePlan:
    realize_mins: list[IndexExpr]
    alloc_shape: list[Dim]
    loops: list[LoopSpec]
    axis_values: list[IndexExpr]
    guards: list[Cond]
    attach: str | None


def _texts(attr: Attribute) -> list[str]:
    assert isa(attr, ArrayAttr[StringAttr])
    return [s.data for s in attr.data]


def plan_of(op: te.ComputeOp) -> StagePlan:
    """The plan infer-bound recorded on `op`; a malformed attribute (hand-written IR) is
    an error located at `op`."""
    try:
        return _read_plan(op)
    except (ExprError, IRError, ValueError) as err:
        raise PassError(f"stage '{op.stage.data}': infer-bound's attributes do not parse: {err}", op) from None


def _read_plan(op: te.ComputeOp) -> StagePlan:
    shape: list[Dim] = []
    for text in _texts(op.attributes["te.alloc_shape"]):
        c = const_value(parse_expr(text))
        shape.append(c if c is not None else text)
    attach = op.attributes.get("te.attach")
    return StagePlan(
        [parse_range(r)[0] for r in _texts(op.attributes["te.realize"])],
        shape,
        [parse_loop(text) for text in _texts(op.attributes["te.loops"])],
        [parse_expr(v) for v in _texts(op.attributes["te.axis_values"])],
        [parse_cond(g) for g in _texts(op.attributes["te.guards"])],
        attach.data if isinstance(attach, StringAttr) else None,
    )


def _conjunction(conds: Sequence[Cond]) -> Cond:
    result: Cond = BoolConst(True)
    for c in conds:
        result = c if isinstance(result, BoolConst) else And(result, c)
    return result


# ---------------------------------------------------------------------------
# Lowering one function
# ---------------------------------------------------------------------------


class FunctionLowering:
    """Builds one `loop.func` from one `te.func` whose stages carry infer-bound's plans."""

    def __init__(self, func: te.FuncOp):
        self.func = func
        self.values: dict[SSAValue, SSAValue] = {}
        self.vars: dict[str, SSAValue] = {}
        self.env: dict[str, SSAValue] = {}  # loop variables in scope, by name
        self.plans = {op: plan_of(op) for op in func.body.block.ops if isinstance(op, te.ComputeOp)}
        self.attached: dict[str, list[te.ComputeOp]] = {}
        self.in_parallel = False  # emitting inside a parallel loop (a stage attached there)
        self.ranges = declared_shape_bounds(func)  # the sizes' declared ranges (`shape_bounds`)
        loop_owner = {spec.name: op for op, plan in self.plans.items() for spec in plan.loops}
        for op, plan in self.plans.items():
            if plan.attach is not None:
                owner = loop_owner.get(plan.attach)
                if owner is None or owner is op:  # hand-written or mutated IR
                    raise PassError(f"stage '{op.stage.data}': te.attach names loop '{plan.attach}', which "
                                    f"{'is its own' if owner is op else 'no stage has'} (te.loops)", op)
                self.attached.setdefault(plan.attach, []).append(op)
        arg_types: list[Attribute] = [buffer_type_of(t) for t in func.function_type.inputs.data]
        self.outputs: list[SSAValue] = []  # the returned tensors, each once
        returned = func.body.block.last_op
        assert isinstance(returned, te.ReturnOp)
        for value in returned.values:
            stage = value.owner
            if not isinstance(stage, te.ComputeOp | te.ExternOp):
                raise PassError(f"@{func.sym_name.data} returns an argument, not a computed tensor", returned)
            if value not in self.outputs:
                self.outputs.append(value)
                arg_types.append(buffer_type_of(value.type))
        self.result = loop.FuncOp(func.sym_name.data, arg_types)
        self.result.location = func.location  # later diagnostics point at the te.func
        if SHAPE_BOUNDS in func.attributes:  # the variables' ranges: checked at calls, used in proofs
            self.result.attributes[SHAPE_BOUNDS] = func.attributes[SHAPE_BOUNDS]
        n_in = len(func.args)
        scalars = func.scalar_args()
        arg_dtypes, result_dtypes = func.element_dtypes()
        output_dtypes = {self.outputs.index(v): result_dtypes[k] for k, v in enumerate(returned.values)
                         if k in result_dtypes}

        def attrs(entries: dict[str, Attribute], dtype: str | None) -> DictionaryAttr:
            return DictionaryAttr(entries | ({loop.DTYPE_ATTR: StringAttr(dtype)} if dtype is not None else {}))

        self.result.arg_attrs = ArrayAttr(
            [attrs({loop.SCALAR_ATTR: StringAttr(scalars[i])} if i in scalars else {}, arg_dtypes.get(i))
             for i in range(n_in)]
            + [attrs({OUTPUT_ATTR: UnitAttr()}, output_dtypes.get(k)) for k in range(len(self.outputs))]
        )
        self.block = self.result.body.block
        for te_arg, buf in zip(func.args, self.block.args[:n_in], strict=True):
            self.values[te_arg] = buf
            buf.name_hint = te_arg.name_hint
        for value, buf in zip(self.outputs, self.block.args[n_in:], strict=True):
            self.values[value] = buf
            buf.name_hint = result_name(value)

    # -- small emitters -------------------------------------------------

    def var(self, name: str) -> SSAValue:
        """A loop variable in scope, or the function-level value of a shape variable."""
        if name in self.env:
            return self.env[name]
        if name not in self.vars:
            op = loop.VarOp(name)
            op.result.name_hint = name
            previous = self.vars[next(reversed(self.vars))].owner if self.vars else None
            if isinstance(previous, Operation):
                self.block.insert_op_after(op, previous)
            elif self.block.first_op is not None:
                self.block.insert_op_before(op, self.block.first_op)
            else:
                self.block.add_op(op)
            self.vars[name] = op.result
        return self.vars[name]

    def expr(self, e: IndexExpr, into: Block) -> SSAValue:
        return emit_expr(e, into.add_op, self.var)

    # -- the function ----------------------------------------------------

    def lower(self) -> loop.FuncOp:
        for name in self.shape_names:
            self.var(name)
        self.bind_scan_buffers()
        for op in self.func.body.block.ops:
            if isinstance(op, te.VarOp):
                self.values[op.result] = self.var(op.var_name.data)
            elif isinstance(op, te.StateOp):
                continue
            elif isinstance(op, te.ComputeOp):
                if self.plans[op].attach is None:
                    self.emit_stage(op, self.block)
            elif isinstance(op, te.ExternOp):
                self.emit_extern(op, self.block)
            elif not isinstance(op, te.ReturnOp):
                clone = op.clone(self.values)
                self.block.add_op(clone)
        return self.result

    def bind_scan_buffers(self) -> None:
        """A scan, its state and its init are one buffer (TVM binds them): the init
        writes the first rows, each step reads the previous ones. An intermediate scan's
        buffer, whole, is allocated first, before its init runs."""
        stages = {op.stage.data: op for op in self.plans}
        for state in [op for op in self.func.body.block.ops if isinstance(op, te.StateOp)]:
            scan = stages[state.stage.data]
            result = scan.outputs[state.output_index]
            if result not in self.values:
                shape = list(tensor_type(result.type).get_shape())
                self.alloc_whole(result, alloc_type(scan, shape, state.output_index), self.block)
            self.values[state.result] = self.values[state.init] = self.values[result]

    def alloc_whole(self, result: SSAValue, buffer: loop.BufferType, block: Block) -> None:
        """The buffer of a stage's result over its whole shape, from 0 (an intermediate
        scan or te.extern: its region is not what its readers ask for)."""
        zeros = [self.expr(IndexConst(0), block) for _ in buffer.get_shape()]
        alloc = loop.AllocOp(result_name(result), zeros, buffer)
        alloc.result.name_hint = result_name(result)
        block.add_op(alloc)
        self.values[result] = alloc.result

    def emit_stage(self, stage: te.ComputeOp, block: Block) -> None:
        plan = self.plans[stage]
        out: list[SSAValue] = []  # one buffer per result of the stage
        for k, result in enumerate(stage.outputs):
            if result not in self.values:
                mins = [self.expr(m, block) for m in plan.realize_mins]
                stack = _stack_shape(stage, plan, k, self.in_parallel, self.ranges)
                shape = plan.alloc_shape if stack is None else stack
                alloc = loop.AllocOp(result_name(result), mins, alloc_type(stage, shape, k), local=stack is not None)
                alloc.result.name_hint = result_name(result)
                block.add_op(alloc)
                self.values[result] = alloc.result
            out.append(self.values[result])
        reduction = stage.reduction()
        first_reduce = next((k for k, lp in enumerate(plan.loops) if lp.is_reduce), len(plan.loops))
        init_inline = all(lp.is_reduce and not lp.mixed for lp in plan.loops[first_reduce:])
        mixed = any(lp.mixed for lp in plan.loops)
        if reduction is not None and not init_inline and mixed:
            self.emit_init_nest(stage, plan, out, block)  # a loop over data and reduce axes
        accumulator: tuple[list[SSAValue], Block] | None = None
        current = block
        enclosing_parallel = self.in_parallel
        for k, lp in enumerate(plan.loops):
            if reduction is not None and init_inline and k == first_reduce:
                accumulator = (self.emit_accumulator(stage, plan, current), current)
            elif reduction is not None and not mixed and k == first_reduce:
                self.emit_init_nest(stage, plan, out, current, first_reduce)  # a reduce loop encloses a data loop
            for_op = loop.ForOp(self.expr(lp.min, current), self.expr(lp.extent, current), kind=lp.kind)
            if lp.pragmas:
                for_op.attributes[PRAGMAS_ATTR] = ArrayAttr([StringAttr(p) for p in lp.pragmas])
            for_op.induction_var.name_hint = lp.name
            current.add_op(for_op)
            self.env[lp.name] = for_op.induction_var
            current = for_op.body.block
            self.in_parallel |= lp.kind == str(loop.LoopKind.PARALLEL)
            for inner in self.attached.get(lp.name, []):
                self.emit_stage(inner, current)
        self.in_parallel = enclosing_parallel
        if reduction is not None and init_inline and first_reduce == len(plan.loops):
            accumulator = (self.emit_accumulator(stage, plan, current), current)
        body = self.guarded(plan.guards, current)
        self.bind_axes(stage, plan, body)
        self.emit_body(stage, out, body, None if accumulator is None else accumulator[0])
        if accumulator is not None:
            self.emit_result(stage, plan, out, accumulator)
        for lp in plan.loops:
            self.env.pop(lp.name, None)

    def emit_extern(self, stage: te.ExternOp, block: Block) -> None:
        """A te.extern stage: its intermediate results allocated whole (from 0), then the call
        over the whole buffers."""
        out: list[SSAValue] = []
        for result, t in zip(stage.outputs, stage.tensor_types, strict=True):
            if result not in self.values:
                self.alloc_whole(result, loop.BufferType(t.get_shape(), t.element_type), block)
            out.append(self.values[result])
        args = [out[a] if isinstance(a, int) else self.values[a] for a in stage.arguments()]
        block.add_op(loop.CallExternOp(stage.callee_name, args))

    def emit_accumulator(self, stage: te.ComputeOp, plan: StagePlan, block: Block) -> list[SSAValue]:
        """Register accumulators (one per result) for a reduction whose reduce loops are
        innermost: initialised here, stored to the outputs once after the reduce loops."""
        reduction = stage.reduction()
        assert reduction is not None
        accs: list[SSAValue] = []
        constant = reduction.identity is None
        starts = reduction.init_values() if constant else [None] * len(reduction.outputs)
        for k, (value, t) in enumerate(zip(starts, reduction.outputs.types, strict=True)):
            suffix = "" if len(reduction.outputs) == 1 else f"{k}"
            zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
            acc = loop.AllocOp(f"{stage.stage.data}.acc{suffix}", [zero], loop.BufferType([1], t), local=True)
            acc.result.name_hint = f"{stage.stage.data}_acc{suffix}"
            block.add_ops([zero, acc])
            if value is not None:
                init = arith.ConstantOp(value)
                block.add_ops([init, loop.StoreOp(init, acc, [zero])])
            accs.append(acc.result)
        if not constant:
            self.store_identity(stage, plan, accs, block)
        return accs

    def store_identity(self, stage: te.ComputeOp, plan: StagePlan, accs: list[SSAValue], block: Block) -> None:
        """The accumulators start from the identity region, evaluated at the data axes' values
        here; where the bound checks on them fail nothing is accumulated nor stored, so the
        region (user arithmetic: a division, say) is not evaluated there either."""
        bound = set(self.env).union(self.shape_names)
        reduce_names = {lp.name for lp in plan.loops if lp.is_reduce}
        guards = [g for g in plan.guards if free_vars(g) <= bound and not free_vars(g) & reduce_names]
        body = self.guarded(guards, block)
        index = [self.expr(v, body) for v in plan.axis_values[: len(stage.axes)]]
        zero = self.expr(IndexConst(0), body)
        for value, acc in zip(self.start_values(stage, index, body), accs, strict=True):
            body.add_op(loop.StoreOp(value, acc, [zero]))

    def start_values(self, stage: te.ComputeOp, index: list[SSAValue], block: Block) -> list[SSAValue]:
        """A reduction's start values in `block`, the stage's data axes at `index`: its
        constants, or its identity region's ops."""
        reduction = stage.reduction()
        assert reduction is not None
        if reduction.identity is not None:
            return self.inline_region(reduction.identity.block, dict(zip(stage.axes, index, strict=True)), block)
        inits = [arith.ConstantOp(value) for value in reduction.init_values()]
        block.add_ops(inits)
        return [i.result for i in inits]

    def inline_region(self, source: Block, bindings: dict[SSAValue, SSAValue], block: Block) -> list[SSAValue]:
        """A scalar region's ops cloned into `block` (te.var as the function's loop.var),
        with `bindings` for its arguments and the compute's axes; its yielded values."""
        mapping = dict(bindings)
        yielded = source.last_op
        assert isinstance(yielded, te.YieldOp)
        for op in source.ops:
            if op is yielded:
                continue
            if isinstance(op, te.VarOp):
                mapping[op.result] = self.var(op.var_name.data)
                continue
            clone = op.clone(mapping)
            block.add_op(clone)
            for inner in walk_ops(clone):
                if isinstance(inner, te.VarOp):
                    Rewriter.replace_op(inner, [], [self.var(inner.var_name.data)])
        return [mapping.get(v, v) for v in yielded.values]

    def emit_result(
        self, stage: te.ComputeOp, plan: StagePlan, out: list[SSAValue], accumulator: tuple[list[SSAValue], Block]
    ) -> None:
        accs, block = accumulator
        bound = set(self.env).union(self.shape_names)
        reduce_names = {lp.name for lp in plan.loops if lp.is_reduce}
        guards = [g for g in plan.guards if free_vars(g) <= bound and not free_vars(g) & reduce_names]
        body = self.guarded(guards, block)
        index = [self.expr(v, body) for v in plan.axis_values[: len(stage.axes)]]
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        body.add_op(zero)
        for acc, buf in zip(accs, out, strict=True):
            value = loop.LoadOp(acc, [zero])
            body.add_ops([value, loop.StoreOp(value, buf, index)])

    def guarded(self, guards: Sequence[Cond], block: Block) -> Block:
        if not guards:
            return block
        cond = emit_cond(_conjunction(guards), block.add_op, self.var)
        if_op = loop.IfOp(cond, likely=True)
        block.add_op(if_op)
        return if_op.then_region.block

    def bind_axes(self, stage: te.ComputeOp, plan: StagePlan, block: Block) -> None:
        axes = list(stage.axes)
        reduction = stage.reduction()
        if reduction is not None:
            axes += list(reduction.axes)
        for arg, value in zip(axes, plan.axis_values, strict=True):
            self.values[arg] = self.expr(value, block)

    @cached_property
    def shape_names(self) -> tuple[str, ...]:
        """The size variables of the signature, in order of first appearance (read once: a
        network's has hundreds of shapes, and every stage's guards ask)."""
        names: dict[str, None] = {}
        for t in (*self.func.function_type.inputs.data, *self.func.function_type.outputs.data):
            names.update(dict.fromkeys(shape_var_names(tensor_type(t).get_shape())))
        return tuple(names)

    def emit_init(self, stage: te.ComputeOp, plan: StagePlan, out: list[SSAValue], block: Block) -> None:
        bound = set(self.env).union(self.shape_names)
        guards = [g for g in plan.guards if free_vars(g) <= bound]
        body = self.guarded(guards, block)
        data_values = plan.axis_values[: len(stage.axes)]
        index = [self.expr(v, body) for v in data_values]
        for start, buf in zip(self.start_values(stage, index, body), out, strict=True):
            body.add_op(loop.StoreOp(start, buf, index))

    def emit_init_nest(
        self, stage: te.ComputeOp, plan: StagePlan, out: list[SSAValue], block: Block, first: int = 0
    ) -> None:
        """Initialise the elements the loops from `first` on write, before them (a reduce
        loop outside a data loop). From the first reduce loop, inside the data loops
        around it (TVM's init): the tile is set right before its accumulation, in cache
        or registers, by the thread that computes it; from 0 (a loop over data and
        reduce axes), the whole realized region before the nest."""
        current = block
        for lp in plan.loops[first:]:
            if lp.is_reduce and not lp.mixed:  # a mixed loop runs over data too: initialised at each
                continue
            for_op = loop.ForOp(self.expr(lp.min, current), self.expr(lp.extent, current), kind=lp.kind)
            for_op.induction_var.name_hint = f"{lp.name}_init"
            current.add_op(for_op)
            self.env[lp.name] = for_op.induction_var
            current = for_op.body.block
        self.emit_init(stage, plan, out, current)
        for lp in plan.loops[first:]:
            if not lp.is_reduce or lp.mixed:
                self.env.pop(lp.name, None)

    def emit_body(
        self, stage: te.ComputeOp, out: list[SSAValue], block: Block, accs: list[SSAValue] | None = None
    ) -> None:
        index = [self.values[a] for a in stage.axes]
        yielded = stage.body.block.last_op
        assert isinstance(yielded, te.YieldOp)
        reduction = stage.reduction()
        for op in stage.body.block.ops:
            if op is yielded or op is reduction:
                continue
            self.clone_into(op, block)
        if reduction is None:
            for value, buf in zip(yielded.values, out, strict=True):
                block.add_op(loop.StoreOp(self.values[value], buf, index))
            return
        red_yield = reduction.body.block.last_op
        assert isinstance(red_yield, te.YieldOp)
        for op in reduction.body.block.ops:
            if isinstance(op, te.WhereOp):
                # the rest of the body and the update happen only where the predicate holds
                predicated = loop.IfOp(self.values.get(op.cond, op.cond), likely="te.likely" in op.attributes)
                block.add_op(predicated)
                block = predicated.then_region.block
            elif op is not red_yield:
                self.clone_into(op, block)
        targets, where = (out, index) if accs is None else (accs, [self.expr(IndexConst(0), block)])
        current = [loop.LoadOp(t, where) for t in targets]
        block.add_ops(current)
        elements = [self.values[v] for v in red_yield.values]
        if reduction.is_custom:
            combined = self.emit_combiner(stage, [c.result for c in current], elements, block)
        else:
            op = combine(reduction.reduce_kind, current[0].result, elements[0])
            block.add_op(op)
            combined = [op.results[0]]
        for value, t in zip(combined, targets, strict=True):
            block.add_op(loop.StoreOp(value, t, where))

    def emit_combiner(
        self, stage: te.ComputeOp, accs: list[SSAValue], elements: list[SSAValue], block: Block
    ) -> list[SSAValue]:
        """The user's combiner on (accumulators, elements): its ops cloned here, the
        compute's axes it names bound to their values (bind_axes)."""
        reduction = stage.reduction()
        assert reduction is not None
        assert reduction.combiner is not None
        combiner = reduction.combiner.block
        mapping: dict[SSAValue, SSAValue] = {a: self.values[a] for a in stage.axes}
        mapping |= dict(zip(combiner.args, [*accs, *elements], strict=True))
        return self.inline_region(combiner, mapping, block)

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
        for inner in walk_ops(clone):
            if isinstance(inner, te.ReadOp):
                # the clone already maps the tensor operand to its buffer
                load = loop.LoadOp(inner.tensor, inner.indices)
                Rewriter.replace_op(inner, load)
            elif isinstance(inner, te.VarOp):
                Rewriter.replace_op(inner, [], [self.var(inner.var_name.data)])


def result_name(value: SSAValue) -> str:
    """The buffer name of a stage's result: the stage's name, `T.v0`, `T.v1`, ... when it
    computes several tensors (TVM's names)."""
    stage = value.owner
    assert isinstance(stage, te.ComputeOp | te.ExternOp)
    if len(stage.outputs) == 1:
        return stage.stage.data
    outputs: list[SSAValue] = list(stage.outputs)
    return f"{stage.stage.data}.v{outputs.index(value)}"


LOCAL_TILE_BYTES = 4096
"""The largest tile of symbolic extents kept on the stack (`_stack_shape`)."""



def _stack_shape(
    stage: te.ComputeOp, plan: StagePlan, index: int, in_parallel: bool, ranges: Mapping[str, SizeRange]
) -> list[Dim] | None:
    """The shape at which a small attached stage lives on the stack (`loop.alloc local`,
    registers once LLVM promotes it), or None for a buffer of the arena:

    * one element: a reduction's accumulator (compiler.ops' float32 accumulators of
      float16 stages);
    * symbolic extents bounded by constants (a register tile `min(k, 4) x min(w, 16)` of
      a split symbolic axis, as the auto-scheduler's and TVM's `cache_write(C, "local")`
      make), at those bounds: its rows then lie at constant distances, so LLVM keeps the
      tile in registers across the reduction (at symbolic distances it can't tell the
      rows apart and loads and stores every accumulator at each step);
    * inside a parallel loop, constant (or constant-bounded) shapes up to
      PRIVATE_SCRATCH_BYTES: each thread its own copy (a packed panel of a matmul's B
      computed at the tile loop, a block of attention's scores over a length declared at
      most 512, `shape_bounds`), where one buffer of the arena would be shared by the
      threads and make the loop run serially (lowering/parallel.py).
    """
    if plan.attach is None:
        return None
    if all(d == 1 for d in plan.alloc_shape):
        return list(plan.alloc_shape)
    if all(isinstance(d, int) for d in plan.alloc_shape) and not in_parallel:
        return None
    shape: list[Dim] = []
    for d in plan.alloc_shape:
        hi = d if isinstance(d, int) else _constant_upper_bound(parse_expr(d), ranges)
        if hi is None or hi < 1:
            return None
        shape.append(hi)
    element = stage.tensor_types[index].element_type
    size = math.prod(int(d) for d in shape) * loop.element_bytes(element)
    if size > (PRIVATE_SCRATCH_BYTES if in_parallel else LOCAL_TILE_BYTES) or STORAGE_ALIGN_ATTR in stage.attributes:
        return None
    return shape


def _constant_upper_bound(extent: IndexExpr, ranges: Mapping[str, SizeRange]) -> int | None:
    """The largest value of an extent, whose variables are sizes (at least 0, or in their
    declared `ranges`), if constant."""
    return const_bounds(extent, {v: ranges.get(v, ANY_SIZE) for v in free_vars(extent)})[1]


def alloc_type(stage: te.ComputeOp, shape: Sequence[Dim], index: int = 0) -> loop.BufferType:
    """The buffer of an intermediate stage: compact, or with the strides its
    `sched.storage_align` asks for (`te.storage_align`)."""
    element = stage.tensor_types[index].element_type
    attr = stage.attributes.get(STORAGE_ALIGN_ATTR)
    if attr is None:
        return loop.BufferType(shape, element)
    extents = [dim_expr(d) for d in shape]
    strides = aligned_strides(extents, dict(parse_align(attr)))
    dims: list[Dim] = [expr_dim(e) for e in strides]
    try:
        return loop.BufferType(shape, element, dims)
    except VerifyError as err:  # strides no index can address (a huge factor): the stage's fault
        raise PassError(f"schedule-ops: stage \"{stage.stage.data}\"'s sched.storage_align: {err}", stage) from None


_Combine = Callable[[SSAValue, SSAValue], Operation]
"""An arith op class applied to the accumulator and the value (`arith.AddfOp(acc, v)`)."""


def combine(kind: te.ReduceKind, acc: SSAValue, value: SSAValue) -> Operation:
    is_float = not isinstance(acc.type, IntegerType | IndexType)
    table: dict[te.ReduceKind, tuple[_Combine, _Combine]] = {
        te.ReduceKind.SUM: (arith.AddfOp, arith.AddiOp),
        te.ReduceKind.PROD: (arith.MulfOp, arith.MuliOp),
        te.ReduceKind.MAX: (arith.MaximumfOp, arith.MaxSIOp),
        te.ReduceKind.MIN: (arith.MinimumfOp, arith.MinSIOp),
    }
    float_op, int_op = table[kind]
    return (float_op if is_float else int_op)(acc, value)


def lower_module(module: ModuleOp) -> None:
    for func in [op for op in module.ops if isinstance(op, te.FuncOp)]:
        stages = [op for op in func.body.block.ops if isinstance(op, te.ComputeOp)]
        # bounds inferred already, unless a schedule came after them (auto-schedule run on
        # infer-bound's output): it would outlive its function, naming the loop.func
        if not all(has_bounds(s) for s in stages) or schedule_of(module, func) is not None:
            infer_function(module, func)
        lowered = FunctionLowering(func).lower()
        Rewriter.replace_op(func, lowered)


@dataclass(frozen=True)
class ScheduleOpsPass(ModulePass):
    """Lower every `te.func` to a `loop.func` of loop nests, following its schedule."""

    name = "schedule-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_module(op)
