"""Python `compiler.te` graphs -> the `te` dialect.

`build_module(args, name)` makes one `te.func` whose inputs are the
placeholders among `args` (in order) and whose results are the computed
tensors among `args` (in order). Every stage reachable from those results
becomes one `te.compute`, in a topological order of the stage graph.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, math, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f16,
    f32,
    f64,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

import compiler.schedule.model  # noqa: F401  (installs the sched.schedule verifier)
from compiler.dialects import sched, te
from compiler.dialects.shape import ANY_SIZE, SHAPE_BOUNDS, SizeRange, shape_bounds_attr
from compiler.errors import ExprTypeError, ExprValueError, IRError, ScheduleError
from compiler.names import fresh_name
from compiler.te import language as T
from compiler.te.dims import canonical_dim, dim_vars
from compiler.te.extern import BufferData, ExternOp
from compiler.te.primitives import Rfactor, ScheduleEmitter
from compiler.te.schedule import Schedule, create_schedule
from compiler.te.tensors import collect_stages

_TYPES: dict[str, Attribute] = {
    "float16": f16,
    "bfloat16": BFloat16Type(),
    "float32": f32,
    "float64": f64,
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IndexType(),
    "uint8": IntegerType(8),
    "bool": i1,
}


def mlir_type(dtype: str, *, element: bool = False) -> Attribute:
    """The IR type of a dtype; tensor elements of int64 are i64, index math is `index`."""
    if element and dtype == "int64":
        return IntegerType(64)
    return _TYPES[dtype]


def tensor_type(t: T.Tensor) -> te.TensorType:
    return te.TensorType([canonical_dim(d) for d in t.shape], mlir_type(t.dtype, element=True))


def used_placeholders(stages: Sequence[T.Tensor]) -> list[T.Tensor]:
    found: dict[int, T.Tensor] = {}
    for s in stages:
        for body in s.op.all_bodies():
            for node in T.walk(body):
                if isinstance(node, T.Read) and node.tensor.is_placeholder and not node.tensor.is_scan_state:
                    found.setdefault(node.tensor.uid, node.tensor)
        for source in s.op.extern_inputs():
            if source.is_placeholder:
                found.setdefault(source.uid, source)
    return list(found.values())


@dataclass
class FunctionSignature:
    """How the user's argument list maps to the te.func inputs and results; a scalar
    `te.var` argument is a 0-d int64 placeholder, `scalars` maps its uid to the name."""

    args: list[T.Tensor]
    inputs: list[T.Tensor]
    outputs: list[T.Tensor]
    scalars: dict[int, str] = field(default_factory=lambda: {})


def _scalar_arguments(args: Sequence[object], name: str) -> tuple[list[T.Tensor], dict[int, str]]:
    """Each `te.var` of the argument list as a 0-d int64 placeholder of its name."""
    tensors: list[T.Tensor] = []
    scalars: dict[int, str] = {}
    for a in args:
        if isinstance(a, T.Var):
            if a.name in scalars.values():
                raise ExprValueError(f"{name}: the variable {a.name} appears twice in the argument list")
            p = T.placeholder((), "int64", name=a.name)
            scalars[p.uid] = a.name
            tensors.append(p)
        elif isinstance(a, T.Tensor):
            tensors.append(a)
        else:
            raise ExprTypeError(f"{name}: arguments must be tensors or te.var scalars, got {a!r}")
    return tensors, scalars


def signature(arguments: Sequence[T.Tensor | T.Var], name: str) -> FunctionSignature:
    args, scalars = _scalar_arguments(arguments, name)
    seen: set[int] = set()
    for a in args:
        if a.uid in seen:
            raise ExprValueError(f"{name}: tensor {a.name} appears twice in the argument list")
        seen.add(a.uid)
    states = [a.name for a in args if a.is_scan_state]
    if states:
        raise ExprValueError(
            f"{name}: {', '.join(states)} is the state of a te.scan (the scan's own previous rows), not an argument"
        )
    inputs = [a for a in args if a.is_placeholder]
    outputs = [a for a in args if not a.is_placeholder]
    if not outputs:
        raise ExprValueError(f"{name}: the argument list has no computed tensor to produce")
    missing = [p.name for p in used_placeholders(collect_stages(outputs)) if p.uid not in seen]
    if missing:
        raise ExprValueError(
            f"{name}: placeholder(s) {', '.join(missing)} are read but not in the argument list"
        )
    return FunctionSignature(list(args), inputs, outputs, scalars)


class _BodyEmitter:
    """Emits the scalar expression of one stage into a block, with per-block CSE."""

    def __init__(self, tensors: dict[int, SSAValue], axes: dict[int, SSAValue]):
        self.tensors = tensors
        self.axes = axes
        self.block: Block = Block()
        # per-block CSE by node identity; each entry keeps its node alive, else a node made
        # while emitting (a cast's comparison with zero) could be freed and its id given to
        # a later node, which would then be emitted as the first one's value
        self.scopes: list[dict[int, tuple[T.Expr, SSAValue]]] = []

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def emit(self, e: T.Expr) -> SSAValue:
        for scope in reversed(self.scopes):
            if id(e) in scope:
                return scope[id(e)][1]
        value = self._emit(e)
        self.scopes[-1][id(e)] = (e, value)
        return value

    def in_block(self, block: Block, e: T.Expr) -> SSAValue:
        saved = self.block
        self.block = block
        self.scopes.append({})
        try:
            return self.emit(e)
        finally:
            self.scopes.pop()
            self.block = saved

    def _emit(self, e: T.Expr) -> SSAValue:
        match e:
            case T.Const():
                return self.add(arith.ConstantOp(_const_attr(e.value, e.dtype)))
            case T.Var(name=n):
                return self.add(te.VarOp(n))
            case T.IterVar():
                if e.uid not in self.axes:
                    raise ExprValueError(f"axis {e.name} is used outside the compute that owns it")
                return self.axes[e.uid]
            case T.Read(tensor=t, indices=idx):
                value = self.add(te.ReadOp(self.tensors[t.uid], [self.emit(i) for i in idx]))
                if t.dtype == T.INDEX:  # int64 math is index math (an element stored as i64)
                    return self.add(arith.IndexCastOp(value, IndexType()))
                return value
            case T.Binary():
                return self._binary(e)
            case T.Compare():
                return self._compare(e)
            case T.Logical():
                return self._logical(e)
            case T.Call():
                return self._call(e)
            case T.Cast():
                return self._cast(e)
            case T.Select():
                return self._select(e)
            case _:
                raise ExprTypeError(f"cannot emit {type(e).__name__} here")

    def _binary(self, e: T.Binary) -> SSAValue:
        a, b = self.emit(e.a), self.emit(e.b)
        is_float = T.is_float(e.dtype)
        ops: dict[str, Callable[[SSAValue, SSAValue], Operation]] = (
            {"add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp, "div": arith.DivfOp}
            if is_float
            else {
                "add": arith.AddiOp,
                "sub": arith.SubiOp,
                "mul": arith.MuliOp,
                "floordiv": arith.FloorDivSIOp,
                "floormod": arith.RemSIOp,
            }
        )
        if e.dtype in te.UNSIGNED_DTYPES and e.op in ("floordiv", "floormod"):  # no negative operand
            return self.add((arith.DivUIOp if e.op == "floordiv" else arith.RemUIOp)(a, b))
        if e.op == "floormod":
            return self._floormod(a, b)
        return self.add(ops[e.op](a, b))

    def _floormod(self, a: SSAValue, b: SSAValue) -> SSAValue:
        q = self.add(arith.FloorDivSIOp(a, b))
        return self.add(arith.SubiOp(a, self.add(arith.MuliOp(q, b))))

    def _compare(self, e: T.Compare) -> SSAValue:
        a, b = self.emit(e.a), self.emit(e.b)
        if T.is_float(e.a.dtype):
            pred = {"lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "eq": "oeq", "ne": "une"}
            return self.add(arith.CmpfOp(a, b, pred[e.op]))
        pred = {"lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "eq": "eq", "ne": "ne"}
        if e.a.dtype in te.UNSIGNED_DTYPES:
            pred = {op: p.replace("s", "u", 1) if p.startswith("s") else p for op, p in pred.items()}
        return self.add(arith.CmpiOp(a, b, pred[e.op]))

    def _logical(self, e: T.Logical) -> SSAValue:
        values = [self.emit(a) for a in e.args]
        if e.op == "not":
            true = self.add(arith.ConstantOp(IntegerAttr(1, i1)))
            return self.add(arith.XOrIOp(values[0], true))
        cls = arith.AndIOp if e.op == "and" else arith.OrIOp
        acc = values[0]
        for v in values[1:]:
            acc = self.add(cls(acc, v))
        return acc

    def _call(self, e: T.Call) -> SSAValue:
        args = [self.emit(a) for a in e.args]
        if e.func == "likely":
            return args[0]
        is_float = T.is_float(e.dtype)
        table: dict[str, type[Operation]] = {
            "exp": math.ExpOp,
            "log": math.LogOp,
            "sqrt": math.SqrtOp,
            "tanh": math.TanhOp,
            "floor": math.FloorOp,
            "ceil": math.CeilOp,
            "sin": math.SinOp,
            "cos": math.CosOp,
            "tan": math.TanOp,
            "asin": math.AsinOp,
            "acos": math.AcosOp,
            "atan": math.AtanOp,
            "sinh": math.SinhOp,
            "cosh": math.CoshOp,
            "log2": math.Log2Op,
            "log10": math.Log10Op,
            "trunc": math.TruncOp,
            "round_even": math.RoundEvenOp,
            "atan2": math.Atan2Op,
            "bitwise_and": arith.AndIOp,
            "bitwise_or": arith.OrIOp,
            "bitwise_xor": arith.XOrIOp,
            "shift_right": arith.ShRUIOp if e.dtype == "uint8" else arith.ShRSIOp,
            "pow": math.PowFOp,
            "abs": math.AbsFOp if is_float else math.AbsIOp,
            "maximum": arith.MaximumfOp if is_float else arith.MaxSIOp,
            "minimum": arith.MinimumfOp if is_float else arith.MinSIOp,
        }
        if e.dtype in te.UNSIGNED_DTYPES:
            if e.func == "abs":
                return args[0]
            table |= {"maximum": arith.MaxUIOp, "minimum": arith.MinUIOp}
        return self.add(table[e.func](*args))

    def _cast(self, e: T.Cast) -> SSAValue:
        value = self.emit(e.value)
        src, dst = e.value.dtype, e.target
        to = mlir_type(dst)
        if src == "bool" and dst != "bool":  # a condition as 0/1 (zero-extended: true is 1, not -1)
            value = self.add(arith.ExtUIOp(value, IntegerType(64 if dst == T.INDEX else 32)))
            src = "int"
        elif dst == "bool" and src != "bool":  # a number as a condition: nonzero
            return self.emit(T.Compare("ne", e.value, T.const(0.0 if T.is_float(src) else 0, src)))
        if T.is_float(src) and T.is_float(dst):
            if {src, dst} == {"float16", "bfloat16"}:  # no 16-bit float holds the other: through f32
                value = self.add(arith.ExtFOp(value, f32))
                return self.add(arith.TruncFOp(value, to))
            bits = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
            cls = arith.ExtFOp if bits[dst] > bits[src] else arith.TruncFOp
            return self.add(cls(value, to))
        unsigned = src in te.UNSIGNED_DTYPES
        if isinstance(to, AnyFloat):
            if isinstance(value.type, IndexType):  # sitofp takes a sized integer
                value = self.add(arith.IndexCastOp(value, IntegerType(64)))
            if unsigned:  # zero-extended to a wider signed integer: exact, and llvm has no uitofp in xDSL
                value = self._int_resize(value, IntegerType(32 if te.UNSIGNED_DTYPES[src] < 32 else 64), True)
            return self.add(arith.SIToFPOp(value, to))
        if T.is_float(src):
            if isinstance(to, IndexType):  # fptosi gives a sized integer
                return self.add(arith.IndexCastOp(self.add(arith.FPToSIOp(value, IntegerType(64))), to))
            if not isinstance(to, IntegerType):
                raise ExprTypeError(f"cannot cast {src} to {dst}")
            if dst in te.UNSIGNED_DTYPES:  # as torch: through a wide signed integer, wrapped
                return self.add(arith.TruncIOp(self.add(arith.FPToSIOp(value, IntegerType(64))), to))
            return self.add(arith.FPToSIOp(value, to))
        if unsigned and isinstance(to, IndexType):  # zero-extended: 200 stays 200
            return self.add(arith.IndexCastOp(self._int_resize(value, IntegerType(64), unsigned), to))
        if IndexType() in (value.type, to):
            return self.add(arith.IndexCastOp(value, to))
        return self._int_resize(value, to, unsigned)

    def _int_resize(self, value: SSAValue, to: Attribute, unsigned: bool = False) -> SSAValue:
        assert isinstance(value.type, IntegerType)
        assert isinstance(to, IntegerType)
        if value.type.width.data < to.width.data:
            return self.add((arith.ExtUIOp if unsigned else arith.ExtSIOp)(value, to))
        if value.type.width.data > to.width.data:
            return self.add(arith.TruncIOp(value, to))
        return value

    def _select(self, e: T.Select) -> SSAValue:
        cond = self.emit(e.cond)
        then_block, else_block = Block(), Block()
        then_value = self.in_block(then_block, e.then_value)
        else_value = self.in_block(else_block, e.else_value)
        then_block.add_op(scf.YieldOp(then_value))
        else_block.add_op(scf.YieldOp(else_value))
        op = scf.IfOp(cond, [then_value.type], Region(then_block), Region(else_block))
        if _is_likely(e.cond):
            op.attributes["te.likely"] = UnitAttr()
        return self.add(op)


def _is_likely(cond: T.Expr) -> bool:
    return isinstance(cond, T.Call) and cond.func == "likely"


def _const_attr(value: int | float | bool, dtype: str) -> IntegerAttr | FloatAttr:
    t = mlir_type(dtype, element=dtype != "int64")
    if isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return FloatAttr(float(value), t)
    if dtype == "int64":
        return IntegerAttr(int(value), IndexType())
    if not isinstance(t, IntegerType):
        raise ExprTypeError(f"no constant of dtype {dtype}")
    return IntegerAttr(int(value), t)


def _emit_stage(t: T.Tensor, tensors: dict[int, SSAValue], stage_name: str) -> te.ComputeOp:
    body_expr = t.op.body
    assert body_expr is not None
    block = Block(arg_types=[IndexType()] * len(t.op.axis))
    axes: dict[int, SSAValue] = {}
    for arg, iv in zip(block.args, t.op.axis, strict=True):
        arg.name_hint = iv.name
        axes[iv.uid] = arg
    emitter = _BodyEmitter(tensors, axes)
    outputs = [t.op.output(k) for k in range(t.op.num_outputs)]
    elements = [mlir_type(o.dtype, element=True) for o in outputs]
    if isinstance(body_expr, T.Reduce):
        inits = [b.init if isinstance(b, T.Reduce) else None for b in t.op.all_bodies()]
        values = _emit_reduce(body_expr, emitter, block, elements, inits)
    else:
        values = []
        for expr, element in zip(t.op.all_bodies(), elements, strict=True):
            values.append(_element_value(emitter.in_block(block, expr), element, block))
    block.add_op(te.YieldOp(*values))
    return te.ComputeOp(stage_name, [tensor_type(o) for o in outputs], Region(block))


def _emit_extern(t: T.Tensor, tensors: dict[int, SSAValue], stage_name: str, block: Block) -> te.ExternOp:
    """A `te.extern` stage: its scalar arguments computed in `block` (the function's), before it."""
    op = t.op
    assert isinstance(op, ExternOp)
    outputs = [op.output(k) for k in range(op.num_outputs)]
    position = {o.uid: k for k, o in enumerate(outputs)}
    emitter = _BodyEmitter(tensors, {})
    emitter.block = block
    emitter.scopes.append({})
    args: list[SSAValue | int] = []
    for a in op.call.args:
        if isinstance(a, BufferData):
            args.append(position[a.tensor.uid] if a.tensor.uid in position else tensors[a.tensor.uid])
        else:
            args.append(emitter.emit(a))
    return te.ExternOp(stage_name, op.call.func, args, [tensor_type(o) for o in outputs])


def _element_value(value: SSAValue, element: Attribute, block: Block) -> SSAValue:
    """Index-typed values (int64 math) are stored as i64 elements (an int64 element read
    and stored unchanged stays the i64 it was: a copy is still a plain read)."""
    if isinstance(value.type, IndexType) and element != value.type:
        if isinstance(value, OpResult) and isinstance(value.op, arith.IndexCastOp) and value.op.input.type == element:
            source = value.op.input
            if not value.uses:
                value.op.detach()
                value.op.erase()
            return source
        cast = arith.IndexCastOp(value, element)
        block.add_op(cast)
        return cast.result
    return value


def _emit_reduce(
    r: T.Reduce, emitter: _BodyEmitter, outer: Block, elements: list[Attribute], inits: list[T.Expr | None]
) -> list[SSAValue]:
    """One `te.reduce` with a result per element (several for a tuple reducer, whose
    outputs' `Reduce`s each carry one start value in `inits`)."""
    data_axes = dict(emitter.axes)  # the compute's axes: a reducer's identity and combiner may name them
    block = Block(arg_types=[IndexType()] * len(r.axes))
    for arg, iv in zip(block.args, r.axes, strict=True):
        arg.name_hint = iv.name
        emitter.axes[iv.uid] = arg
    if r.where is not None:
        where = te.WhereOp(emitter.in_block(block, r.where))
        if _is_likely(r.where):  # loop-partition cuts the reduction's loops at it
            where.attributes["te.likely"] = UnitAttr()
        block.add_op(where)
    values = [
        _element_value(emitter.in_block(block, source), element, block)
        for source, element in zip(r.sources or (r.body,), elements, strict=True)
    ]
    block.add_op(te.YieldOp(*values))
    extents: list[int | str] = []
    dynamic: list[SSAValue] = []
    for iv in r.axes:
        if _names_axes(iv.known_extent, iv.name):
            extents.append(te.DYNAMIC)
            dynamic.append(emitter.in_block(outer, T.as_expr(iv.known_extent, T.INDEX)))
        else:
            extents.append(canonical_dim(iv.known_extent))
    if r.combiner is not None:
        combiner = _emit_combiner(r.combiner, elements, data_axes)
        if all(_constant_start(e) for e in inits):
            starts = [_init_attr(e, element) for e, element in zip(inits, elements, strict=True)]
            op = te.ReduceOp(r.kind, extents, elements, Region(block), starts, combiner, dynamic)
        else:
            identity = _emit_identity(r.combiner.name, inits, elements, data_axes)
            op = te.ReduceOp(r.kind, extents, elements, Region(block), None, combiner, dynamic, identity)
    else:
        init = None if r.init is None else _init_attr(r.init, elements[0])
        op = te.ReduceOp(r.kind, extents, elements[0], Region(block), init, dynamic_extents=dynamic)
    outer.add_op(op)
    return list(op.outputs)


def _names_axes(extent: T.Dim, name: str) -> bool:
    """Whether a reduce extent depends on the compute's axes (`te.reduce_axis((0, i))`):
    it becomes a `dynamic(...)` operand. Reduce axes can't size each other."""
    if isinstance(extent, int):
        return False
    axes = [node for node in T.walk(extent) if isinstance(node, T.IterVar)]
    if any(a.is_reduce for a in axes):
        raise ExprValueError(f"reduce_axis {name}: its extent {T.dim_repr(extent)} names a reduce axis")
    return bool(axes)


def _constant_start(e: T.Expr | None) -> bool:
    return isinstance(e.value if isinstance(e, T.Cast) else e, T.Const)


def _init_attr(e: T.Expr | None, element: Attribute) -> IntegerAttr | FloatAttr:
    value = e.value if isinstance(e, T.Cast) else e
    if not isinstance(value, T.Const):
        raise ExprTypeError(f"a reduction's start value must be a constant, got {e}")
    if isinstance(element, Float16Type | BFloat16Type | Float32Type | Float64Type):
        return FloatAttr(float(value.value), element)
    if not isinstance(element, IntegerType | IndexType):
        raise ExprTypeError(f"a reduction over {element} has no integer start value")
    return IntegerAttr(int(value.value), element)


def _emit_combiner(spec: T.Combiner, elements: list[Attribute], data_axes: dict[int, SSAValue]) -> Region:
    """The combiner region: its arguments, then the compute's axes, in scope."""
    block = Block(arg_types=[*elements, *elements])
    args: dict[int, SSAValue] = dict(data_axes)
    for arg, param in zip(block.args, [*spec.lhs, *spec.rhs], strict=True):
        arg.name_hint = param.name
        args[param.uid] = arg
    return _scalar_region(block, spec.results, elements, args, f"reducer {spec.name}: its combiner")


def _emit_identity(
    name: str, inits: list[T.Expr | None], elements: list[Attribute], data_axes: dict[int, SSAValue]
) -> Region:
    """The identity region of start values that are not constants (of the compute's axes)."""
    starts = [e for e in inits if e is not None]
    if len(starts) != len(inits):
        raise ExprValueError(f"reducer {name}: every result needs a start value")
    return _scalar_region(Block(), starts, elements, data_axes, f"reducer {name}: its identity")


def _scalar_region(
    block: Block, exprs: Sequence[T.Expr], elements: list[Attribute], axes: dict[int, SSAValue], what: str
) -> Region:
    """`exprs` emitted into `block`, yielded as elements; they may name only `axes` and
    shape variables (no tensor, no reduce axis)."""
    for e in exprs:
        for node in T.walk(e):
            if isinstance(node, T.Read):
                raise ExprValueError(f"{what} reads {node.tensor.name}; it may only name the compute's axes")
            if isinstance(node, T.IterVar) and node.is_reduce:
                raise ExprValueError(f"{what} names the reduce axis {node.name}; only the compute's axes may appear")
    emitter = _BodyEmitter({}, axes)
    values = [_element_value(emitter.in_block(block, e), element, block) for e, element in zip(exprs, elements, strict=True)]
    block.add_op(te.YieldOp(*values))
    return Region(block)


def _without_digit_suffix(name: str) -> str:
    """`name` with no `_<digits>` at its end, the underscores dropped (`a_1_0` -> `a10`)."""
    while (shorter := re.sub(r"_(\d+)$", r"\1", name)) != name:
        name = shorter
    return name


def unique_names(
    tensors: Sequence[T.Tensor], used: set[str] | None = None, arguments: Collection[int] = ()
) -> dict[int, str]:
    """A unique name per tensor: the user's name, suffixed (`y1`) when it is taken,
    by another tensor or by a name in `used` (which is updated). Not `y_1`: xDSL drops
    such a suffix from SSA name hints, and argument names come from those; so the name
    of a function argument (a tensor whose uid is in `arguments`) that ends so loses the
    underscores of its trailing digits instead (`args_0` -> `args0`, `split_10_0` ->
    `split100`), else `args_0` and `args_1` would both be the argument `args`."""
    used = set() if used is None else used
    names: dict[int, str] = {}
    for t in tensors:
        base = _without_digit_suffix(t.name) if t.uid in arguments else t.name
        name = fresh_name(base, used)
        used.add(name)
        names[t.uid] = name
    return names


def emit_schedule(
    schedule: Schedule, func_name: str, names: dict[int, str], inputs: dict[int, str] | None = None
) -> sched.ScheduleOp:
    """The primitives of a Python schedule as a `sched.schedule` op (`inputs`: the
    argument names, which cache_read may name)."""
    emitter = ScheduleEmitter(names, inputs or {})
    for p in schedule.primitives:
        emitter.emit(p)
    return sched.ScheduleOp(func_name, Region(emitter.block))


def _arg_attrs(t: T.Tensor, scalars: dict[int, str]) -> DictionaryAttr:
    """A scalar argument's variable, an unsigned tensor's dtype (i8 elements are signless)."""
    attrs: dict[str, Attribute] = {}
    if t.uid in scalars:
        attrs[te.SCALAR_ATTR] = StringAttr(scalars[t.uid])
    if t.dtype in te.UNSIGNED_DTYPES:
        attrs[te.DTYPE_ATTR] = StringAttr(t.dtype)
    return DictionaryAttr(attrs)


def _declared_ranges(sig: FunctionSignature) -> dict[str, SizeRange]:
    """The range of each shape variable of the signature declared with one (`te.var`'s
    `lower`, `upper`); two variables of one name must declare the same."""
    found: dict[str, SizeRange] = {}
    for t in (*sig.inputs, *sig.outputs):
        for v in (v for d in t.shape for v in dim_vars(d)):
            declared = (v.lower, v.upper)
            if found.setdefault(v.name, declared) != declared:
                raise ExprValueError(
                    f"two te.vars named {v.name} declare different ranges, {list(found[v.name])} and {list(declared)}"
                )
    return {n: r for n, r in found.items() if r != ANY_SIZE}


def build_module(
    args: Sequence[T.Tensor | T.Var],
    name: str = "main",
    schedule: Schedule | None = None,
    *,
    verify: bool = True,
) -> tuple[ModuleOp, FunctionSignature]:
    """The te+sched module of `args` (verified unless `verify=False`: `compiler.build`
    verifies it only when its cache has no entry for the module's text)."""
    sig = signature(args, name)
    stages = collect_stages(sig.outputs)
    # argument and stage names become the names of the compiled function's arguments
    # and buffers (and of its error messages): two tensors never share one
    used: set[str] = set()
    arguments = {t.uid for t in (*sig.inputs, *sig.outputs)}
    input_names = unique_names(sig.inputs, used, arguments)
    names = unique_names(stages, used, arguments)
    inputs = [tensor_type(t) for t in sig.inputs]
    func = te.FuncOp(name, inputs, [tensor_type(t) for t in sig.outputs])
    tensors: dict[int, SSAValue] = {}
    for arg, t in zip(func.args, sig.inputs, strict=True):
        arg.name_hint = input_names[t.uid]
        tensors[t.uid] = arg
    if sig.scalars or any(t.dtype in te.UNSIGNED_DTYPES for t in sig.inputs):
        func.arg_attrs = ArrayAttr([_arg_attrs(t, sig.scalars) for t in sig.inputs])
    if any(t.dtype in te.UNSIGNED_DTYPES for t in sig.outputs):
        func.res_attrs = ArrayAttr([_arg_attrs(t, {}) for t in sig.outputs])
    if ranges := _declared_ranges(sig):
        func.attributes[SHAPE_BOUNDS] = shape_bounds_attr(ranges)
    block = func.body.block
    for t in stages:
        for scan_op in _scans_needed(t, tensors):
            _emit_states(scan_op, tensors, names[scan_op.output(0).uid], block)
        op: te.ComputeOp | te.ExternOp = (
            _emit_extern(t, tensors, names[t.uid], block)
            if isinstance(t.op, ExternOp)
            else _emit_stage(t, tensors, names[t.uid])
        )
        op.result.name_hint = names[t.uid]
        block.add_op(op)
        for k, result in enumerate(op.outputs):
            tensors[t.op.output(k).uid] = result
    block.add_op(te.ReturnOp(*[tensors[t.uid] for t in sig.outputs]))
    module = ModuleOp([func])
    if schedule is None and any(t.op.attach_to is not None for t in stages):
        schedule = create_schedule(sig.outputs)  # the default schedule attaches them
    if schedule is not None:
        factors = [p.factor_tensor for p in schedule.primitives if isinstance(p, Rfactor)]
        names |= unique_names(factors, used)
        module.body.block.add_op(emit_schedule(schedule, name, names, input_names))
    if verify:
        verify_program(module, name)
    return module, sig


def _scans_needed(t: T.Tensor, tensors: dict[int, SSAValue]) -> list[T.Operation]:
    """The scans whose `te.state` ops stage `t` needs and that are not emitted yet: its
    own, and those whose state it reads."""
    found: list[T.Operation] = [t.op] if t.op.scan is not None else []
    for body in t.op.all_bodies():
        for node in T.walk(body):
            owner = node.tensor.op.scan_of if isinstance(node, T.Read) and node.tensor.is_scan_state else None
            if owner is not None and all(owner is not f for f in found):
                found.append(owner)
    return [f for f in found if f.scan is not None and f.scan.states[0].uid not in tensors]


def _emit_states(scan_op: T.Operation, tensors: dict[int, SSAValue], scan_name: str, block: Block) -> None:
    parts = scan_op.scan
    assert parts is not None
    for k, (init, state) in enumerate(zip(parts.inits, parts.states, strict=True)):
        op = te.StateOp(scan_name, k, tensors[init.uid], tensor_type(state))
        op.result.name_hint = state.name
        block.add_op(op)
        tensors[state.uid] = op.result


def verify_program(module: ModuleOp, name: str) -> None:
    """Verify a module of `build_module`: a ScheduleError when a schedule primitive is to
    blame, else an IRError."""
    try:
        module.verify()
    except VerifyException as err:
        error = ScheduleError if isinstance(err, ScheduleError) else IRError
        raise error(f"{name}: invalid schedule or program: {err}") from None
