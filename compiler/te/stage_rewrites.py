"""The new ops `rfactor` and `cache_write` make of a stage, as users of the Python
schedule see them (`BF.shape`, `BF.op.reduce_axis`, `CL.op.axis`, `s[B].op.axis`).

The IR rewrites are `compiler.schedule.rfactor` and `compiler.schedule.cache_stages`;
both sides walk the stage's loop relations with `compiler.schedule.loop_relations`
(TVM's message passing), and `compiler.schedule.rules` checks the primitives first.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

from compiler.errors import ScheduleError
from compiler.schedule import loop_relations
from compiler.te import language as T
from compiler.te.primitives import Fuse, Singleton, Split

Relations = list[Split | Fuse | Singleton]


def static_split(p: Split, what: str) -> None:
    if p.factor is not None and not isinstance(p.factor, int):
        raise ScheduleError(
            f"{what}: {p.stage.name}'s axis {p.parent.name} is split by the symbolic factor "
            f"{T.dim_repr(p.factor)}; {what} of such a stage is not supported"
        )


def names_an_axis(extent: T.Dim) -> bool:
    return not isinstance(extent, int) and any(isinstance(node, T.IterVar) for node in T.walk(extent))


def _ceil_div(a: T.Dim, b: T.Dim) -> T.Dim:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return (a + b - 1) // b


Factoring = loop_relations.Factoring[T.IterVar, T.Dim]


def _root_values(f: Factoring, leaf_value: dict[T.IterVar, T.Expr]) -> dict[T.IterVar, T.Expr]:
    """The touched root axes as expressions of the new leaf axes (PassUpIndex)."""
    value: dict[T.IterVar, T.Expr | int] = {iv: 0 if _is_one(f.extent[iv]) else leaf_value[iv] for iv in f.leaves}
    loop_relations.pass_up_index(f.relations, value, f.extent)
    return {iv: T.as_expr(value[iv], T.INDEX) for iv in f.roots}


def _covers_exactly(f: Factoring, root: T.IterVar) -> bool:
    """Whether the leaves of a static root axis cover exactly its extent (no bound check)."""
    product = 1
    for iv in f.leaves:
        e = f.extent[iv]
        if not isinstance(e, int):
            return False
        product *= e
    return len(f.roots) == 1 and product == root.extent


def _rfactor_split(p: Split, e: T.Dim) -> tuple[T.Dim, T.Dim]:
    """A split's outer and inner extents for rfactor: nparts gives the outer axis exactly
    nparts iterations (TVM's PassDownDomain)."""
    static_split(p, "rfactor")
    if p.factor is not None:
        assert isinstance(p.factor, int)
        return _ceil_div(e, p.factor), p.factor
    assert p.nparts is not None
    return p.nparts, _ceil_div(e, p.nparts)


def _is_one(d: T.Dim) -> bool:
    return isinstance(d, int) and d == 1


@dataclass
class Factored:
    """What rfactor makes: the factor tensors (one per reducer element) and the stage's
    new op, the reduction of the factor tensors over `leaves[-1]`."""

    factors: tuple[T.Tensor, ...]
    new_op: T.Operation
    leaves: list[T.IterVar]


def rfactor_stage(
    relations: Relations, op: T.Operation, leaves: Sequence[T.IterVar], axis: T.IterVar, position: int, name: str
) -> Factored:
    """TVM's rfactor of reduction `op` over loop `axis`, its data axis at `position`."""
    extents = {iv: iv.known_extent for iv in op.reduce_axis}
    f = loop_relations.factoring(relations, axis, extents, leaves, _rfactor_split, operator.mul, 1)
    reduce = op.body
    assert isinstance(reduce, T.Reduce)
    data = [T.IterVar(iv.name, iv.extent) for iv in op.axis]
    untouched = [iv for iv in reduce.axes if iv not in f.touched]
    kept = [T.IterVar(iv.name, iv.extent, is_reduce=True) for iv in untouched]
    new_leaves = {iv: T.IterVar(iv.name, f.extent[iv], is_reduce=True) for iv in f.leaves if iv is not axis}
    factored = T.IterVar(axis.name, f.extent[axis])
    mapping: dict[int, T.Expr] = {old.uid: new for old, new in zip(op.axis, data, strict=True)}
    mapping |= {old.uid: new for old, new in zip(untouched, kept, strict=True)}
    roots = _root_values(f, {**new_leaves, axis: factored})
    mapping |= {iv.uid: roots[iv] for iv in f.roots}
    where = None if reduce.where is None else T.substitute(reduce.where, mapping)
    for iv in f.roots:
        if not (isinstance(iv.extent, int) and isinstance(f.extent[axis], int) and _covers_exactly(f, iv)):
            check = roots[iv] < iv.known_extent
            where = check if where is None else where & check
    data.insert(position, factored)
    factors = _factor_tensors(op, name, data, (*kept, *new_leaves.values()), mapping, where)
    v = T.IterVar(f"{axis.name}.v", f.extent[axis], is_reduce=True)
    axes = [T.IterVar(iv.name, iv.extent) for iv in op.axis]
    return Factored(factors, _reduction_of_factors(op, factors, axes, v, position), [*axes, v])


def _factor_tensors(
    op: T.Operation,
    name: str,
    data: list[T.IterVar],
    axes: tuple[T.IterVar, ...],
    mapping: dict[int, T.Expr],
    where: T.Expr | None,
) -> tuple[T.Tensor, ...]:
    """The factor stage: the reduction over the kept and touched axes, at the factor's data axes."""
    reduce = op.body
    assert isinstance(reduce, T.Reduce)
    bodies = [b for b in op.all_bodies() if isinstance(b, T.Reduce)]
    sources = tuple(T.substitute(e, mapping) for e in reduce.sources)
    factor_bodies = tuple(
        T.Reduce(
            b.kind,
            sources[k] if sources else T.substitute(b.body, mapping),
            axes,
            b.init if b.combiner is not None else None,  # a user reducer's start is its identity
            where,
            b.combiner,
            sources,
            k,
        )
        for k, b in enumerate(bodies)
    )
    factor_op = T.Operation(name, tuple(data), factor_bodies[0], bodies=factor_bodies if sources else ())
    shape = tuple(iv.known_extent for iv in data)
    factors = tuple(T.Tensor(shape, b.dtype, factor_op, value_index=k) for k, b in enumerate(factor_bodies))
    factor_op.output_tensor = factors[0]
    if sources:
        factor_op.outputs = factors
    return factors


def _reduction_of_factors(
    op: T.Operation, factors: tuple[T.Tensor, ...], axes: list[T.IterVar], v: T.IterVar, position: int
) -> T.Operation:
    """The stage's new op: its reduction, over `v`, of the factor tensors."""
    bodies = [b for b in op.all_bodies() if isinstance(b, T.Reduce)]
    index: list[T.Expr] = list(axes)
    index.insert(position, v)
    reads = tuple(T.Read(t, tuple(index)) for t in factors)
    tuple_reducer = isinstance(op.body, T.Reduce) and bool(op.body.sources)
    new_bodies = tuple(
        T.Reduce(b.kind, reads[k], (v,), b.init, None, b.combiner, reads if tuple_reducer else (), k)
        for k, b in enumerate(bodies)
    )
    new_op = T.Operation(op.name, tuple(axes), new_bodies[0], bodies=new_bodies if tuple_reducer else ())
    new_op.output_tensor, new_op.outputs = op.output_tensor, op.outputs
    return new_op


class _CacheLayout:
    """The cache of `cache_write` as users see it (`CL.op.axis`, `CL.shape`): one axis per
    data-parallel leaf of the stage, and each leaf as a function of the stage's axes
    (TVM's relayout; the IR rewrite is compiler.schedule.cache_stages)."""

    def __init__(self, relations: Relations, op: T.Operation, leaves: Sequence[T.IterVar]):
        extent: dict[T.IterVar, T.Dim] = {iv: iv.known_extent for iv in op.axis}
        loop_relations.pass_down_extent(relations, extent, _cache_split, operator.mul, 1)
        index: dict[T.IterVar, T.Expr] = {iv: iv for iv in op.axis}
        loop_relations.pass_down_index(relations, index, extent, T.const(0))
        data_leaves = [iv for iv in leaves if not iv.is_reduce]
        self.axes = [T.IterVar(f"{iv.name}.c", extent[iv]) for iv in data_leaves]
        self.extents = [extent[iv] for iv in data_leaves]
        self.indices = [index[iv] for iv in data_leaves]
        # the stage's axes as functions of the cache's (PassUpIndex), for the cache's body
        value: dict[T.IterVar, T.Expr] = dict(zip(data_leaves, self.axes, strict=True))
        loop_relations.pass_up_index(relations, value, extent)
        self.roots: dict[int, T.Expr] = {iv.uid: value[iv] for iv in op.axis}


def _cache_split(p: Split, e: T.Dim) -> tuple[T.Dim, T.Dim]:
    """A split's outer and inner extents for the cache: ceil(extent / inner) outer iterations."""
    static_split(p, "cache_write")
    if p.factor is not None:
        assert isinstance(p.factor, int)
        f: T.Dim = p.factor
    else:
        assert p.nparts is not None  # a split has a factor or nparts
        f = _ceil_div(e, p.nparts)
    return _ceil_div(e, f), f


def cache_write_stage(
    relations: Relations, op: T.Operation, leaves: Sequence[T.IterVar], tensors: Sequence[T.Tensor], name: str
) -> tuple[tuple[T.Tensor, ...], T.Operation]:
    """The cache tensors (one per output of the stage) and the stage's new op, which
    copies them back (TVM's CacheWriteWithReLayout)."""
    layout = _CacheLayout(relations, op, leaves)
    bodies = tuple(T.substitute(b, layout.roots) for b in op.all_bodies())
    cache_op = T.Operation(name, tuple(layout.axes), bodies[0], bodies=bodies if len(bodies) > 1 else ())
    caches = tuple(T.Tensor(tuple(layout.extents), t.dtype, cache_op, value_index=k) for k, t in enumerate(tensors))
    cache_op.output_tensor = caches[0]
    reads = tuple(T.Read(c, tuple(layout.indices)) for c in caches)
    copy = T.Operation(op.name, op.axis, reads[0], bodies=reads if len(reads) > 1 else ())
    copy.output_tensor = tensors[0]
    if len(caches) > 1:
        cache_op.outputs, copy.outputs = caches, tuple(tensors)
    return caches, copy
