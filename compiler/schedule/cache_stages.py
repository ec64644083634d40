"""Cache stages: TVM's `cache_read` and `cache_write` as rewrites of a `te.func`.

The schedule model (`compiler.schedule.model`) replays `sched.cache_read`
and `sched.cache_write` with these functions, on a copy of the function when it
only verifies a schedule, on the function itself in the `apply-cache-stages`
pass. TVM does the same rewrite of its operation graph in
src/te/schedule/schedule_dataflow_rewrite.cc (CacheRead, CacheWriteWithReLayout).

cache_read(A, scope, readers):

    A.local[ax0, ...] = A[ax0, ...]        a new stage after A (or first, for an argument)
    every te.read of A in the readers reads A.local instead

cache_write(C, scope), with the layout of C's data-parallel leaf loops at that
point (TVM's relayout; without split/fuse/reorder it is C's own shape):

    C.local[l0, l1, ...] = body of C, its root axes computed from the leaves
                           (PassUpIndex: i = io * 4 + ii, i = f // n, ...), guarded by
                           `i < extent` where a split does not divide (MakeBoundCheck)
    C[i, j]              = C.local[leaf indices of (i, j)]   (PassDownIndex: i // 4, i % 4)

C keeps its op (the schedule refers to it by name); its body becomes the read.
A multi-output stage (`C, D = te.compute(...)`) gets a multi-output cache: every
output moves to the cache, and the stage reads each one back.
A guarded reduction folds the reduction's identity where the guard fails, so the
cache holds defined values everywhere (C never reads them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import And, Cond, IndexConst, IndexExpr
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.simplify import simplify
from compiler.dialects import te
from compiler.dialects.shape import expr_dim


@dataclass
class Layout:
    """The cache of `cache_write`: one dimension per data-parallel leaf loop of the stage.

    Expressions name the leaves (`leaves`), the stage's root axes (`roots`, in
    axis order) and shape variables."""

    leaves: list[str]
    hints: list[str]  # SSA names of the cache's axes
    extents: list[IndexExpr]
    roots: list[str]
    root_values: list[IndexExpr]  # each root axis as a function of the leaves
    leaf_indices: list[IndexExpr]  # each leaf as a function of the root axes
    guards: list[Cond]  # over the leaves: where the leaves lie inside the stage's shape


STORAGE_ALIGN_ATTR = "te.storage_align"
"""On a `te.compute`: `["dim 0 factor 16 offset 1", ...]`, its buffer's aligned strides
(`sched.storage_align`, moved onto the stage by apply-cache-stages)."""


def format_align(aligns: dict[int, tuple[int, int]]) -> ArrayAttr[StringAttr]:
    return ArrayAttr([StringAttr(f"dim {d} factor {f} offset {o}") for d, (f, o) in sorted(aligns.items())])


def parse_align(attr: Attribute) -> list[tuple[int, tuple[int, int]]]:
    """The inverse of `format_align`: (dim, (factor, offset)) pairs."""
    assert isinstance(attr, ArrayAttr)
    found = []
    for item in attr.data:
        assert isinstance(item, StringAttr)
        _, dim, _, factor, _, offset = item.data.split()
        found.append((int(dim), (int(factor), int(offset))))
    return found


def aligned_strides(shape: Sequence[IndexExpr], aligns: dict[int, tuple[int, int]]) -> list[IndexExpr]:
    """Row-major strides, each stride of an aligned dimension padded up to the next
    `k * factor + offset` (TVM's StorageFlatten: stride += (factor + offset - stride % factor) % factor)."""
    strides: list[IndexExpr] = []
    stride: IndexExpr = IndexConst(1)
    for dim in reversed(range(len(shape))):
        if dim in aligns:
            factor, offset = aligns[dim]
            stride = simplify(stride + (factor + offset - stride % factor) % factor)
        strides.append(stride)
        stride = simplify(stride * shape[dim])
    return list(reversed(strides))


def reads_of(op: te.ComputeOp, tensor: SSAValue) -> list[te.ReadOp]:
    return [inner for inner in walk_ops(op.body) if isinstance(inner, te.ReadOp) and inner.tensor == tensor]


def insert_cache_read(func: te.FuncOp, source: SSAValue, name: str, readers: Sequence[te.ComputeOp]) -> te.ComputeOp:
    """`name[i] = source[i]`, placed after the source's stage (or before every stage for an
    argument); the readers' reads of `source` read it instead."""
    t = source.type
    assert isinstance(t, te.TensorType)
    block = Block(arg_types=[IndexType()] * t.rank)
    for k, arg in enumerate(block.args):
        arg.name_hint = f"ax{k}"
    read = te.ReadOp(source, block.args)
    block.add_ops([read, te.YieldOp(read.result)])
    cache = te.ComputeOp(name, t, Region(block))
    cache.result.name_hint = name
    body = func.body.block
    if isinstance(source.owner, te.ComputeOp):
        body.insert_op_after(cache, source.owner)
    else:
        first = next((op for op in body.ops if isinstance(op, te.ComputeOp)), body.last_op)
        assert first is not None
        body.insert_op_before(cache, first)
    for reader in readers:
        for inner in reads_of(reader, source):
            inner.operands[0] = cache.result
    return cache


def _shape_var(name: str, add: Callable[[Operation], None]) -> SSAValue:
    op = te.VarOp(name)
    add(op)
    return op.result


def _emitter(block: Block, names: dict[str, SSAValue]) -> Callable[[str], SSAValue]:
    """Variable values for emit_expr: the given names, else a shape variable (te.var)."""

    def value(name: str) -> SSAValue:
        if name not in names:
            names[name] = _shape_var(name, block.add_op)
        return names[name]

    return value


def insert_cache_write(func: te.FuncOp, stage: te.ComputeOp, name: str, layout: Layout) -> te.ComputeOp:
    """Moves the computation of `stage` into a new stage `name` laid out as `layout`
    (placed right before it); `stage` becomes the copy that reads it."""
    dims = [expr_dim(e) for e in layout.extents]
    cache_types = [te.TensorType(dims, t.element_type) for t in stage.tensor_types]
    block = Block(arg_types=[IndexType()] * len(layout.leaves))
    names: dict[str, SSAValue] = {}
    for arg, leaf, hint in zip(block.args, layout.leaves, layout.hints, strict=True):
        arg.name_hint = hint
        names[leaf] = arg
    var = _emitter(block, names)
    shared: dict[IndexExpr | Cond, SSAValue] = {}  # one value per sub-expression
    mapping: dict[SSAValue, SSAValue] = {}
    for axis, value in zip(stage.axes, layout.root_values, strict=True):
        mapping[axis] = emit_expr(value, block.add_op, var, shared)
    guard = None
    if layout.guards:
        cond = layout.guards[0]
        for g in layout.guards[1:]:
            cond = And(cond, g)
        guard = emit_cond(cond, block.add_op, var, shared)
    _clone_body(stage, block, mapping, guard)
    cache = te.ComputeOp(name, cache_types, Region(block))
    cache.result.name_hint = name
    func.body.block.insert_op_before(cache, stage)
    _become_copy(stage, cache, layout)
    return cache


def _clone_body(stage: te.ComputeOp, block: Block, mapping: dict[SSAValue, SSAValue], guard: SSAValue | None) -> None:
    """The stage's body into `block`, its axes replaced by `mapping`. A guard wraps the
    value (a reduction's body instead: its identity where the guard fails)."""
    reduction = stage.reduction()
    if guard is not None and reduction is None:
        inner = Block()
        values = _clone_ops(stage.body.block, inner, mapping)
        guarded = _guarded(guard, inner, values)
        block.add_op(guarded)
        block.add_op(te.YieldOp(*guarded.results))
        return
    for op in stage.body.block.ops:
        clone = op.clone(mapping)
        block.add_op(clone)
        if op is reduction:
            assert isinstance(clone, te.ReduceOp)
            _sink_axis_values(clone, set(block.args))
            if guard is not None:
                _guard_reduce_body(clone, guard)


def _sink_axis_values(reduce: te.ReduceOp, axes: set[SSAValue]) -> None:
    """The identity and combiner may use only the compute's axes from outside: where the
    cache's layout computes a root axis from its leaves (`yo * 4 + yi`), that index math
    is cloned into them."""
    for region in (reduce.identity, reduce.combiner):
        if region is not None:
            _SinkInto(region, axes).run()


class _SinkInto:
    """Clones into `region` the ops (and their operands' ops) computing the values it uses
    from outside that are not `axes`."""

    def __init__(self, region: Region, axes: set[SSAValue]):
        self.region, self.axes = region, axes
        self.sunk: dict[SSAValue, SSAValue] = {}
        self.ops: list[Operation] = []  # the clones, operands first

    def value(self, value: SSAValue) -> SSAValue:
        if value in self.axes:
            return value
        if value not in self.sunk:
            owner = value.owner
            assert isinstance(owner, Operation)  # the index math of the cache's block
            clone = owner.clone({v: self.value(v) for v in owner.operands})
            self.ops.append(clone)
            self.sunk.update(zip(owner.results, clone.results, strict=True))
        return self.sunk[value]

    def run(self) -> None:
        for op in walk_ops(self.region):
            for k, value in enumerate(op.operands):
                if value not in self.axes and not self.region.is_ancestor(value.owner):
                    op.operands[k] = self.value(value)
        block = self.region.block
        if self.ops and block.first_op is not None:
            block.insert_ops_before(self.ops, block.first_op)


def _clone_ops(source: Block, into: Block, mapping: dict[SSAValue, SSAValue]) -> list[SSAValue]:
    """Clones every op but the terminator; the yielded values (one per output), mapped."""
    yielded = source.last_op
    assert isinstance(yielded, te.YieldOp)
    for op in source.ops:
        if op is not yielded:
            into.add_op(op.clone(mapping))
    return [mapping.get(v, v) for v in yielded.values]


def _zero(t: Attribute) -> arith.ConstantOp:
    if isinstance(t, IntegerType | IndexType):
        return arith.ConstantOp(IntegerAttr(0, t))
    assert isinstance(t, AnyFloat)  # te element types: integers, index, floats
    return arith.ConstantOp(FloatAttr(0.0, t))


def _guarded(guard: SSAValue, then_block: Block, values: Sequence[SSAValue]) -> scf.IfOp:
    """`scf.if guard { then_block; yield values } else { yield 0, ... }` (a lazy select)."""
    then_block.add_op(scf.YieldOp(*values))
    zeros = [_zero(v.type) for v in values]
    else_block = Block([*zeros, scf.YieldOp(*[z.result for z in zeros])])
    return scf.IfOp(guard, [v.type for v in values], Region(then_block), Region(else_block))


def _guard_reduce_body(reduce: te.ReduceOp, guard: SSAValue) -> None:
    """The reduce body yields the reduction's identity where the guard fails (a named
    reducer's start values: the cache elements there are never read, only defined)."""
    body = reduce.body.block
    then_block = Block()
    values = _move_ops(body, then_block)
    then_block.add_op(scf.YieldOp(*values))
    else_block = Block()
    else_block.add_op(scf.YieldOp(*_start_values(reduce, else_block)))
    if_op = scf.IfOp(guard, [v.type for v in values], Region(then_block), Region(else_block))
    body.add_ops([if_op, te.YieldOp(*if_op.results)])


def _start_values(reduce: te.ReduceOp, into: Block) -> list[SSAValue]:
    """A reduction's start values computed in `into`: its identity region's ops cloned there,
    or its constants."""
    if reduce.identity is not None:
        return _clone_ops(reduce.identity.block, into, {})
    starts = reduce.init_values() if reduce.is_custom else [te.default_init(reduce.reduce_kind, reduce.result.type)]
    identities = [arith.ConstantOp(a) for a in starts]
    into.add_ops(identities)
    return [i.result for i in identities]


def _move_ops(source: Block, into: Block) -> list[SSAValue]:
    yielded = source.last_op
    assert isinstance(yielded, te.YieldOp)
    values = list(yielded.values)
    yielded.detach()
    yielded.erase()
    for op in list(source.ops):
        op.detach()
        into.add_op(op)
    return values


def _become_copy(stage: te.ComputeOp, cache: te.ComputeOp, layout: Layout) -> None:
    """The stage's body becomes `cache[leaf indices]`."""
    old = stage.body.block
    block = Block(arg_types=[IndexType()] * len(stage.axes))
    names: dict[str, SSAValue] = {}
    for arg, old_arg, root in zip(block.args, old.args, layout.roots, strict=True):
        arg.name_hint = old_arg.name_hint
        names[root] = arg
    var = _emitter(block, names)
    shared: dict[IndexExpr | Cond, SSAValue] = {}
    indices = [emit_expr(e, block.add_op, var, shared) for e in layout.leaf_indices]
    reads = [te.ReadOp(output, indices) for output in cache.outputs]  # one per output of a multi-output stage
    block.add_ops([*reads, te.YieldOp(*[r.result for r in reads])])
    stage.body.detach_block(old)
    old.erase()
    stage.body.add_block(block)
