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
(`replay.Replay.rfactor`) calls it while replaying, so later
primitives can name "B.rf" and the new axes of B.
`model.apply_rfactors` (the `apply-rfactor` pass, and every analysis
that rewrites the function) puts them into the function and removes the `sched.rfactor` ops with the
primitives of B that preceded them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue

from compiler.arith.expr import LT, Cond, IndexConst, IndexExpr, IndexVar, free_vars
from compiler.arith.ir import emit_cond, emit_expr
from compiler.arith.simplify import Analyzer, const_value, simplify
from compiler.dialects import sched, te
from compiler.dialects.shape import Dim, dim_expr, dims_to_attr, expr_dim
from compiler.schedule import loop_relations
from compiler.schedule.axes import IterVar, Relation, Split


class Stage(Protocol):
    """What rfactor reads of a stage of the schedule model (`model.Stage`)."""

    @property
    def name(self) -> str: ...
    @property
    def op(self) -> te.ComputeOp: ...
    @property
    def axes(self) -> list[IterVar]: ...
    @property
    def reduce_axes(self) -> list[IterVar]: ...
    @property
    def relations(self) -> list[Relation]: ...
    @property
    def leaves(self) -> list[IterVar]: ...


@dataclass(eq=False)
class RfactorRecord:
    """One replayed `sched.rfactor`: the stage op it replaced and the two it made."""

    op: sched.RfactorOp
    old: te.ComputeOp
    factor: te.ComputeOp
    repl: te.ComputeOp


def _hint(name: str, stage: str) -> str:
    prefix = "".join(ch if ch.isalnum() else "_" for ch in stage) + "_"
    return name.removeprefix(prefix)


class _Factoring:
    """The index algebra of one rfactor: extents, values and bound checks of touched axes."""

    def __init__(self, stage: Stage, axis: IterVar) -> None:
        reduction = stage.op.reduction()
        assert reduction is not None
        extents = {iv: dim_expr(d) for iv, d in zip(stage.reduce_axes, reduction.get_extents(), strict=True)}
        f = loop_relations.factoring(
            stage.relations, axis, extents, stage.leaves, _split_extents, lambda a, b: simplify(a * b), IndexConst(1)
        )
        self.touched, relations, extent, self.leaves = f.touched, f.relations, f.extent, f.leaves
        value: dict[IterVar, IndexExpr] = {
            iv: IndexConst(0) if const_value(extent[iv]) == 1 else IndexVar(iv.name) for iv in self.leaves
        }
        loop_relations.pass_up_index(relations, value, extent)
        self.extent = {iv.name: e for iv, e in extent.items()}
        self.value = {iv.name: v for iv, v in value.items()}
        bounds: dict[str, tuple[IndexExpr | int | None, IndexExpr | int | None]] = {}
        for e in self.extent.values():
            bounds.update({name: (0, None) for name in free_vars(e)})
        bounds.update({iv.name: (0, simplify(self.extent[iv.name] - 1)) for iv in self.leaves})
        az = Analyzer(bounds)
        self.roots = f.roots
        self.checks: list[Cond] = []
        for iv in self.roots:
            root = az.simplify(self.value[iv.name])
            self.value[iv.name] = root
            if not az.prove_lt(root, self.extent[iv.name]):
                self.checks.append(LT(root, self.extent[iv.name]))


def _split_extents(rel: Split, e: IndexExpr) -> tuple[IndexExpr, IndexExpr]:
    """The outer and inner extents of a split of a touched axis: nparts gives the outer
    axis exactly nparts iterations (TVM's PassDownDomain), so a factored outer axis
    has a constant extent."""
    if rel.factor is not None:
        return simplify((e + rel.factor - 1) // rel.factor), simplify(IndexConst(rel.factor))
    assert rel.nparts is not None
    return simplify(IndexConst(rel.nparts)), simplify((e + rel.nparts - 1) // rel.nparts)


def rfactor_ops(stage: Stage, axis: IterVar, factor_axis: int, name: str) -> tuple[te.ComputeOp, te.ComputeOp]:
    """The factor stage and the new reduction of `stage`, detached (see the module docstring)."""
    f = _Factoring(stage, axis)
    old = stage.op
    reduction = old.reduction()
    assert reduction is not None
    # the schedule's rules (compiler.schedule.rules.check_rfactor) have checked the axis and the reducer
    shape = list(old.tensor_type.get_shape())
    shape.insert(factor_axis, expr_dim(f.extent[axis.name]))
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
        new_extents.append(expr_dim(f.extent[iv.name]))

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
    red.properties["extents"] = dims_to_attr(new_extents)
    if not red.is_custom:  # the identity: the start value is applied once, in B
        red.properties.pop("init", None)
    factor = te.ComputeOp(name, factor_types, clone.detach_region(clone.body))
    factor.result.name_hint = "".join(ch if ch.isalnum() else "_" for ch in name)
    clone.erase()
    return factor, _reduction_of_factor(old, reduction, factor, factor_axis, expr_dim(f.extent[axis.name]), _hint(axis.name, stage.name))


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
