"""The schedule model's data: stages, groups and the model that holds them
(`compiler.schedule.model` builds it by replaying a schedule)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.ir import BlockArgument, Operation, SSAValue

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import IndexExpr, IndexVar, free_vars
from compiler.arith.ir import expr_from_value
from compiler.arith.simplify import simplify
from compiler.diagnostics import ScheduleVerifyError
from compiler.dialects import te
from compiler.dialects.shape import dim_expr
from compiler.names import fresh_name
from compiler.schedule.axes import IterVar, Relation
from compiler.schedule.rfactor import RfactorRecord

LOOP_KINDS = ("serial", "parallel", "vectorized", "unrolled")
PRAGMA_PRIMITIVES = ("parallel", "vectorize", "unroll")  # pragmas that are schedule primitives


@dataclass(eq=False)
class Group:
    """A group of stages (`sched.create_group`, TVM's group stage): attached as one.
    Groups nest: `parent` is the group that holds this one."""

    name: str
    parent: Group | None = None
    attach_stage: Stage | None = None
    attach_ivar: IterVar | None = None

    def __repr__(self) -> str:
        return f"Group({self.name})"


@dataclass(eq=False)
class Stage:
    name: str
    op: te.ComputeOp
    axes: list[IterVar]
    reduce_axes: list[IterVar]
    is_output: bool
    inputs: list[str]
    relations: list[Relation] = field(default_factory=list)
    leaves: list[IterVar] = field(default_factory=list)
    attach_stage: Stage | None = None
    attach_ivar: IterVar | None = None
    inline: bool = False
    group: Group | None = None  # the innermost group holding the stage
    scan_from: IndexExpr | None = None  # a scan (te.state names it): its time loop's first step

    @property
    def root_vars(self) -> list[IterVar]:
        return self.axes + self.reduce_axes

    def index_leaf(self) -> Callable[[SSAValue], IndexExpr | None]:
        """Names the stage's axes (and reduce axes) and shape variables in index
        expressions read from its body (`expr_from_value`'s leaf callback)."""
        names = {arg: iv.name for arg, iv in zip(self.op.axes, self.axes, strict=True)}
        reduction = self.op.reduction()
        if reduction is not None:
            names.update({arg: iv.name for arg, iv in zip(reduction.axes, self.reduce_axes, strict=True)})

        def leaf(value: SSAValue) -> IndexExpr | None:
            if value in names:
                return IndexVar(names[value])
            if isinstance(value.owner, te.VarOp):
                return IndexVar(value.owner.var_name.data)
            return None

        return leaf

    def reduce_extents(self) -> list[IndexExpr]:
        """The extent of each reduce axis, over shape variables and, for a `"?"`
        extent (`te.reduce_axis((0, i))`), the stage's data axes (`<stage>_<axis>`)."""
        reduction = self.op.reduction()
        if reduction is None:
            return []
        dynamic = reduction.dynamic_extent_values()
        out: list[IndexExpr] = []
        for k, (iv, d) in enumerate(zip(self.reduce_axes, reduction.get_extents(), strict=True)):
            if k not in dynamic:
                out.append(dim_expr(d))
                continue
            e = expr_from_value(dynamic[k], self.index_leaf())
            if e is None or free_vars(e) & {r.name for r in self.reduce_axes}:
                raise ScheduleVerifyError(
                    f"stage \"{self.name}\": the extent of reduce axis {iv.name} is not an index "
                    "expression of the stage's data axes and shape variables"
                )
            out.append(simplify(e))
        return out

    def __repr__(self) -> str:
        return f"Stage({self.name})"


def identifier(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    return name if name and not name[0].isdigit() else f"s_{name}"


class Names:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def fresh(self, base: str) -> str:
        name = fresh_name(base, self.used)
        self.used.add(name)
        return name


@dataclass
class ScheduleData:
    """The stages of a function and what its schedule did to them (`ScheduleModel`
    builds it by replaying the schedule)."""

    func: te.FuncOp
    stages: dict[str, Stage]  # producers before consumers, as in the function
    rfactors: list[RfactorRecord] = field(default_factory=list)  # detached until apply_rfactors
    rewritten: list[Operation] = field(default_factory=list)  # sched ops applied to the function (in place)
    groups: dict[str, Group] = field(default_factory=dict)  # sched.create_group, by name
    externs: dict[str, te.ExternOp] = field(default_factory=dict)  # te.extern stages: no loops, by name

    # -- queries ----------------------------------------------------------

    def consumers(self, stage: Stage) -> list[Stage]:
        """The stages that read `stage`, looking through inlined stages: `consumer_map`'s
        entry, found from `stage` alone (the replay asks while the stages change, once per
        attached stage: the whole map each time was quadratic)."""
        found: list[Stage] = []
        for s in self.stages.values():
            if stage.name not in s.inputs:
                continue
            for c in self.consumers(s) if s.inline else [s]:
                if c not in found:
                    found.append(c)
        return found

    def consumer_map(self) -> dict[str, list[Stage]]:
        """`consumers` of every stage, at once: an index of the readers, and each inlined
        stage's consumers found once. Valid until the stages change: a caller asking for
        every stage's (`InferBound`) keeps the map, since a scan of every stage per stage
        is quadratic (the default Mamba's unrolled scan has thousands of stages)."""
        readers: dict[str, list[Stage]] = {}
        for s in self.stages.values():
            for name in s.inputs:
                readers.setdefault(name, []).append(s)
        found: dict[str, list[Stage]] = {}

        def of(stage: Stage) -> list[Stage]:
            if stage.name not in found:
                result: list[Stage] = []
                for s in readers.get(stage.name, []):
                    for c in of(s) if s.inline else [s]:
                        if c not in result:
                            result.append(c)
                found[stage.name] = result
            return found[stage.name]

        for stage in reversed(list(self.stages.values())):  # consumers first: shallow recursion
            of(stage)
        return found

    def extern_readers(self, name: str) -> list[str]:
        """The te.extern stages that read stage `name` (whole)."""
        return [
            e for e, op in self.externs.items()
            if any(isinstance(v.owner, te.ComputeOp) and v.owner.stage.data == name for v in op.inputs())
        ]

    def attach_path(self, stage: Stage) -> list[IterVar]:
        """Leaf variables whose loops enclose the stage, innermost first (CreateAttachPath)."""
        path: list[IterVar] = []
        current = stage
        while current.attach_stage is not None and current.attach_ivar is not None:
            target = current.attach_stage
            position = target.leaves.index(current.attach_ivar)
            path.extend(reversed(target.leaves[: position + 1]))
            current = target
        return path

    def attachables(self) -> list[Stage | Group]:
        """Everything compute_at can attach: the stages and the groups."""
        return [*self.stages.values(), *self.groups.values()]


def make_stage(op: te.ComputeOp, is_output: bool, names: Names) -> Stage:
    stage = identifier(op.stage.data)
    axes = [
        IterVar(names.fresh(f"{stage}_{identifier(a.name_hint or f'ax{i}')}"), op.stage.data, root_index=i)
        for i, a in enumerate(op.axes)
    ]
    reduction = op.reduction()
    reduce_axes = []
    if reduction is not None:
        reduce_axes = [
            IterVar(
                names.fresh(f"{stage}_{identifier(a.name_hint or f'r{i}')}"),
                op.stage.data,
                is_reduce=True,
                root_index=i,
            )
            for i, a in enumerate(reduction.axes)
        ]
    result = Stage(op.stage.data, op, axes, reduce_axes, is_output, stage_inputs(op))
    result.leaves = list(result.root_vars)
    return result


def stage_inputs(op: te.ComputeOp) -> list[str]:
    inputs: list[str] = []
    for inner in walk_ops(op.body):
        if isinstance(inner, te.ReadOp) and isinstance(inner.tensor.owner, te.ComputeOp):
            source = inner.tensor.owner.stage.data
            if source not in inputs:
                inputs.append(source)
    return inputs


def arg_inputs(op: te.ComputeOp) -> list[str]:
    """The arguments of the function a stage reads, by name."""
    found: list[str] = []
    for inner in walk_ops(op.body):
        if isinstance(inner, te.ReadOp) and isinstance(inner.tensor, BlockArgument):
            name = inner.tensor.name_hint
            if name is not None and name not in found:
                found.append(name)
    return found


