"""rfactor: factoring a reduction over one of its reduce axes (TVM's `Schedule::rfactor`).

`sched.rfactor %ki as "B.rf" factor_axis f` on a reduction B whose reduce
axis k was split into (ko, ki) builds two stages, as TVM does
(src/te/schedule/schedule_dataflow_rewrite.cc):

    B.rf[.., ki, ..] = reduce over (untouched root reduce axes, ko) of body[k := ko * 4 + ki]
                       where ko * 4 + ki < extent(k)        (only if not provably true)
    B[..]            = reduce over ki.v of B.rf[.., ki.v, ..]

* touched axes: the reduce axes connected to %ki by splits and fuses (TVM's
  PassUpBitMaskOr/PassDownBitMaskOr); their extents are passed down from
  the root extents as TVM's PassDownDomain does (a split by nparts gives the
  outer axis nparts iterations, so a factored outer axis has a constant
  extent), their values passed up from the touched leaves (PassUpIndex);
* B.rf's data axes are B's with %ki inserted before data axis f; its reduce
  axes are the untouched root reduce axes, then the touched leaves other than
  %ki, in leaf order; its start value is the reduction's identity;
* B keeps its name, result, start value and attachment, with fresh axes and
  one reduce axis of %ki's extent; the primitives applied to B before are
  dropped (TVM resets the stage).

`rfactor_ops` builds the two `te.compute` ops detached; the schedule model
(`schedule_model._Replay.rfactor`) calls it while replaying, so later
primitives can name "B.rf" and the new axes of B.
`schedule_model.apply_rfactors` (the `apply-rfactor` pass, and every analysis
that rewrites the function) puts them into the function and removes the `sched.rfactor` ops with the
primitives of B that preceded them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from compiler.arith.expr import LT, Cond, Const, Expr, Var, free_vars, parse_expr
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.diagnostics import ScheduleVerifyError
from compiler.dialects import sched, te
from compiler.dialects.shape import Dim


@dataclass(eq=False)
class RfactorRecord:
    """One replayed `sched.rfactor`: the stage op it replaced and the two it made."""

    op: sched.RfactorOp
    old: te.ComputeOp
    factor: te.ComputeOp
    repl: te.ComputeOp


def _dim(e: Expr) -> Dim:
    e = simplify(e)
    c = const_value(e)
    return c if c is not None else str(e)


def _dim_expr(d: Dim) -> Expr:
    return Const(d) if isinstance(d, int) else parse_expr(d)


# The schedule model's relations are read by their fields (this module is imported by
# `schedule_model`, which defines them): a split has a `parent`, a fuse a `fused` axis.


def _is_split(rel: Any) -> bool:
    return hasattr(rel, "parent")


def _is_fuse(rel: Any) -> bool:
    return hasattr(rel, "fused")


def touched_axes(relations: list[Any], axis: object) -> set[object]:
    """The axes connected to `axis` through splits and fuses."""
    touched = {axis}
    changed = True
    while changed:
        changed = False
        for rel in relations:
            if _is_split(rel):
                group = [rel.parent, rel.outer, rel.inner]
            elif _is_fuse(rel):
                group = [rel.outer, rel.inner, rel.fused]
            else:
                continue
            if any(iv in touched for iv in group) and not all(iv in touched for iv in group):
                touched.update(group)
                changed = True
    return touched


def _hint(name: str, stage: str) -> str:
    prefix = "".join(ch if ch.isalnum() else "_" for ch in stage) + "_"
    return name.removeprefix(prefix)


class _Factoring:
    """The index algebra of one rfactor: extents, values and bound checks of touched axes."""

    def __init__(self, stage: Any, axis: Any) -> None:
        reduction = stage.op.reduction()
        assert reduction is not None
        self.touched = touched_axes(stage.relations, axis)
        self.extent: dict[str, Expr] = {
            iv.name: _dim_expr(d)
            for iv, d in zip(stage.reduce_axes, reduction.get_extents(), strict=True)
            if iv in self.touched
        }
        for rel in stage.relations:  # PassDownDomain
            if _is_split(rel) and rel.parent in self.touched:
                e = self.extent[rel.parent.name]
                inner: Expr
                outer: Expr
                if rel.factor is not None:
                    inner, outer = Const(rel.factor), (e + rel.factor - 1) // rel.factor
                else:
                    assert rel.nparts is not None
                    inner, outer = (e + rel.nparts - 1) // rel.nparts, Const(rel.nparts)
                self.extent[rel.inner.name], self.extent[rel.outer.name] = simplify(inner), simplify(outer)
            elif _is_fuse(rel) and rel.outer in self.touched:
                self.extent[rel.fused.name] = simplify(self.extent[rel.outer.name] * self.extent[rel.inner.name])
        self.leaves = [iv for iv in stage.leaves if iv in self.touched]
        self.value: dict[str, Expr] = {
            iv.name: Const(0) if const_value(self.extent[iv.name]) == 1 else Var(iv.name) for iv in self.leaves
        }
        for rel in reversed(stage.relations):  # PassUpIndex
            if _is_split(rel) and rel.parent in self.touched:
                step = self.extent[rel.inner.name]
                self.value[rel.parent.name] = self.value[rel.outer.name] * step + self.value[rel.inner.name]
            elif _is_fuse(rel) and rel.outer in self.touched:
                step = self.extent[rel.inner.name]
                self.value[rel.outer.name] = self.value[rel.fused.name] // step
                self.value[rel.inner.name] = self.value[rel.fused.name] % step
        bounds: dict[str, tuple[Expr | int | None, Expr | int | None]] = {}
        for e in self.extent.values():
            bounds.update({name: (0, None) for name in free_vars(e)})
        bounds.update({iv.name: (0, simplify(self.extent[iv.name] - 1)) for iv in self.leaves})
        az = Analyzer(bounds)
        self.roots = [iv for iv in stage.reduce_axes if iv in self.touched]
        self.checks: list[Cond] = []
        for iv in self.roots:
            value = az.simplify(self.value[iv.name])
            self.value[iv.name] = value
            if not az.prove_lt(value, self.extent[iv.name]):
                self.checks.append(LT(value, self.extent[iv.name]))


def rfactor_ops(stage: Any, axis: Any, factor_axis: int, name: str) -> tuple[te.ComputeOp, te.ComputeOp]:
    """The factor stage and the new reduction of `stage`, detached (see the module docstring)."""
    f = _Factoring(stage, axis)
    old = stage.op
    reduction = old.reduction()
    assert reduction is not None
    for iv in stage.axes:
        if iv in f.touched:
            raise ScheduleVerifyError(f"sched.rfactor: the factored axis {axis.name} is connected to the data axis {iv.name}")
    named = reduction.axes_named()
    if named:
        raise ScheduleVerifyError(
            f"sched.rfactor: the reducer {reduction.kind.data} of {stage.name} names its axis "
            f"%{named[0].name_hint or 'arg'} (in its identity or combiner); rfactor of such a reduction is not supported"
        )
    shape = list(old.tensor_type.get_shape())
    shape.insert(factor_axis, _dim(f.extent[axis.name]))
    factor_types = [te.TensorType(shape, t.element_type) for t in old.tensor_types]

    clone = old.clone()
    block = clone.body.block
    data_arg = block.insert_arg(IndexType(), factor_axis)
    data_arg.name_hint = _hint(axis.name, stage.name)
    red = clone.reduction()
    assert red is not None
    red_block = red.body.block
    root_args = dict(zip(stage.reduce_axes, red_block.args, strict=True))
    leaf_values: dict[str, SSAValue] = {axis.name: data_arg}
    new_extents: list[Dim] = [d for iv, d in zip(stage.reduce_axes, red.get_extents(), strict=True) if iv not in f.touched]
    for iv in f.leaves:
        if iv is axis:
            continue
        arg = red_block.insert_arg(IndexType(), len(red_block.args))
        arg.name_hint = _hint(iv.name, stage.name)
        leaf_values[iv.name] = arg
        new_extents.append(_dim(f.extent[iv.name]))

    ops: list[Operation] = []

    def var(v: str) -> SSAValue:
        if v in leaf_values:
            return leaf_values[v]
        op = te.VarOp(v)
        ops.append(op)
        return op.result

    cache: dict = {}
    for iv in f.roots:
        value = emit_expr(f.value[iv.name], ops.append, var, cache)
        root_args[iv].replace_all_uses_with(value)
    for check in f.checks:
        ops.append(te.WhereOp(emit_cond(check, ops.append, var, cache)))
    if red_block.first_op is not None:
        red_block.insert_ops_before(ops, red_block.first_op)
    else:
        red_block.add_ops(ops)
    for iv in f.roots:
        red_block.erase_arg(root_args[iv])
    red.properties["extents"] = te.dims_to_attr(new_extents)
    if not red.is_custom:  # the identity: the start value is applied once, in B
        red.properties.pop("init", None)
    factor = te.ComputeOp(name, factor_types, clone.detach_region(clone.body))
    factor.result.name_hint = "".join(ch if ch.isalnum() else "_" for ch in name)
    clone.erase()
    return factor, _reduction_of_factor(old, reduction, factor, factor_axis, _dim(f.extent[axis.name]), _hint(axis.name, stage.name))


def _reduction_of_factor(
    old: te.ComputeOp, reduction: te.ReduceOp, factor: te.ComputeOp, factor_axis: int, extent: Dim, hint: str
) -> te.ComputeOp:
    """B[..] = reduce over v of B.rf[.., v, ..], with B's kind (or combiner) and start value."""
    block = Block(arg_types=[IndexType()] * len(old.axes))
    for new, previous in zip(block.args, old.axes, strict=True):
        new.name_hint = previous.name_hint
    red_block = Block(arg_types=[IndexType()])
    red_block.args[0].name_hint = f"{hint}_v"
    indices: list[SSAValue] = list(block.args)
    indices.insert(factor_axis, red_block.args[0])
    reads = [te.ReadOp(result, indices) for result in factor.outputs]
    red_block.add_ops([*reads, te.YieldOp(*[r.result for r in reads])])
    combiner = None if reduction.combiner is None else reduction.combiner.clone()
    identity = None if reduction.identity is None else reduction.identity.clone()  # of shape variables only
    init = None if identity is not None else reduction.init_values() if combiner is not None else reduction.init
    types = list(reduction.outputs.types)
    red = te.ReduceOp(reduction.kind.data, [extent], types, Region(red_block), init, combiner, identity=identity)
    block.add_ops([red, te.YieldOp(*red.outputs)])
    repl = te.ComputeOp(old.stage.data, old.tensor_types, Region(block))
    repl.result.name_hint = old.result.name_hint
    return repl


def discard(records: list[RfactorRecord]) -> None:
    """Drop the detached ops of a replay that only verified the schedule."""
    for rec in reversed(records):
        if rec.repl.parent is None:
            rec.repl.erase()
        if rec.factor.parent is None:
            rec.factor.erase()
