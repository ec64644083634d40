"""The schedule of a `te.func` as plain data: stages, iteration variables, relations.

`ScheduleModel.build(func, schedule)` replays the `sched` ops of a schedule
over the stages of a function, as TVM's `Stage` methods do, and raises a
`VerifyException` naming the primitive and the stage for an invalid
schedule. The `sched.schedule` verifier (through the checker this module
installs, `sched.install_schedule_checker`) and every pass that reads a
schedule use it.

Every iteration variable gets a name unique in the function that is also a
valid variable of `compiler.arith` expressions: `<stage>_<axis>` for root
axes, `<parent>_o` / `<parent>_i` after a split, `<outer>_f` after a fuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from compiler.arith.expr import Expr, Var
from compiler.dialects import sched, te
from compiler.dialects.sched import ScheduleOp

LOOP_KINDS = ("serial", "parallel", "vectorized", "unrolled")
PRAGMA_PRIMITIVES = ("parallel", "vectorize", "unroll")  # pragmas that are schedule primitives


class ScheduleError(VerifyException):
    """An invalid schedule primitive; `op` is the primitive, for the diagnostic's location."""

    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


@dataclass(eq=False)
class IterVar:
    name: str
    stage: str
    is_reduce: bool = False
    root_index: int | None = None
    kind: str = "serial"
    pragmas: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return self.name


@dataclass(eq=False)
class Split:
    parent: IterVar
    outer: IterVar
    inner: IterVar
    factor: int | None
    nparts: int | None


@dataclass(eq=False)
class Fuse:
    outer: IterVar
    inner: IterVar
    fused: IterVar


@dataclass(eq=False)
class Singleton:
    """A loop of one iteration added outside the stage's loops (`fuse()` of no axis)."""

    iv: IterVar


Relation = Split | Fuse | Singleton


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

    @property
    def root_vars(self) -> list[IterVar]:
        return self.axes + self.reduce_axes

    def index_leaf(self) -> Callable[[SSAValue], Expr | None]:
        """Names the stage's axes (and reduce axes) and shape variables in index
        expressions read from its body (`expr_from_value`'s leaf callback)."""
        names = {arg: iv.name for arg, iv in zip(self.op.axes, self.axes, strict=True)}
        reduction = self.op.reduction()
        if reduction is not None:
            names.update({arg: iv.name for arg, iv in zip(reduction.axes, self.reduce_axes, strict=True)})

        def leaf(value: SSAValue) -> Expr | None:
            if value in names:
                return Var(names[value])
            if isinstance(value.owner, te.VarOp):
                return Var(value.owner.var_name.data)
            return None

        return leaf

    def __repr__(self) -> str:
        return f"Stage({self.name})"


def _identifier(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    return name if name and not name[0].isdigit() else f"s_{name}"


class _Names:
    def __init__(self) -> None:
        self.used: set[str] = set()

    def fresh(self, base: str) -> str:
        name, k = base, 1
        while name in self.used:
            name = f"{base}{k}"
            k += 1
        self.used.add(name)
        return name


@dataclass
class ScheduleModel:
    func: te.FuncOp
    stages: dict[str, Stage]  # producers before consumers, as in the function

    # -- construction ---------------------------------------------------

    @staticmethod
    def build(func: te.FuncOp, schedule: ScheduleOp | None = None) -> ScheduleModel:
        names = _Names()
        returned = func.body.block.last_op
        outputs = {v.owner for v in returned.operands} if returned is not None else set()
        stages: dict[str, Stage] = {}
        for op in func.body.block.ops:
            if not isinstance(op, te.ComputeOp):
                continue
            name = op.stage.data
            if name in stages:
                raise VerifyException(f"two stages of @{func.sym_name.data} are named \"{name}\"")
            stages[name] = _make_stage(op, op in outputs, names)
        model = ScheduleModel(func, stages)
        if schedule is not None:
            _Replay(model, names).run(schedule)
        return model

    # -- queries ----------------------------------------------------------

    def consumers(self, stage: Stage) -> list[Stage]:
        """The stages that read `stage`, looking through inlined stages."""
        found: list[Stage] = []
        for s in self.stages.values():
            if stage.name not in s.inputs:
                continue
            for c in self.consumers(s) if s.inline else [s]:
                if c not in found:
                    found.append(c)
        return found

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

    def stage_of(self, op: te.ComputeOp) -> Stage:
        return self.stages[op.stage.data]


def _make_stage(op: te.ComputeOp, is_output: bool, names: _Names) -> Stage:
    stage = _identifier(op.stage.data)
    axes = [
        IterVar(names.fresh(f"{stage}_{_identifier(a.name_hint or f'ax{i}')}"), op.stage.data, root_index=i)
        for i, a in enumerate(op.axes)
    ]
    reduction = op.reduction()
    reduce_axes = []
    if reduction is not None:
        reduce_axes = [
            IterVar(
                names.fresh(f"{stage}_{_identifier(a.name_hint or f'r{i}')}"),
                op.stage.data,
                is_reduce=True,
                root_index=i,
            )
            for i, a in enumerate(reduction.axes)
        ]
    inputs: list[str] = []
    for inner in op.body.walk():
        if isinstance(inner, te.ReadOp) and isinstance(inner.tensor.owner, te.ComputeOp):
            source = inner.tensor.owner.stage.data
            if source not in inputs:
                inputs.append(source)
    result = Stage(op.stage.data, op, axes, reduce_axes, is_output, inputs)
    result.leaves = list(result.root_vars)
    return result


class _Replay:
    """Applies the sched ops in order, as TVM's Stage methods, checking each one."""

    def __init__(self, model: ScheduleModel, names: _Names):
        self.model = model
        self.names = names
        self.values: dict[SSAValue, IterVar] = {}
        self.attach_ops: dict[str, Operation] = {}  # the compute_at of each attached stage

    def stage(self, name: str, what: str) -> Stage:
        if name not in self.model.stages:
            known = ", ".join(self.model.stages)
            raise VerifyException(f"{what}: @{self.model.func.sym_name.data} has no stage \"{name}\" (stages: {known})")
        return self.model.stages[name]

    def leaf(self, value: SSAValue, what: str) -> tuple[Stage, IterVar]:
        iv = self.values[value]
        stage = self.model.stages[iv.stage]
        if iv not in stage.leaves:
            raise VerifyException(
                f"{what}: axis {iv.name} of stage \"{iv.stage}\" was already split or fused; "
                "use the axes that replaced it"
            )
        return stage, iv

    def run(self, schedule: ScheduleOp) -> None:
        for op in schedule.body.ops:
            try:
                self.apply(op)
            except ScheduleError:
                raise
            except VerifyException as err:
                raise ScheduleError(str(err), op) from None
        self.check_attachments()

    def apply(self, op: Operation) -> None:
        match op:
            case sched.AxisOp():
                self.axis(op)
            case sched.SplitOp():
                self.split(op)
            case sched.FuseOp():
                self.fuse(op)
            case sched.SingletonOp():
                self.singleton(op)
            case sched.ReorderOp():
                self.reorder(op)
            case sched.ComputeAtOp():
                self.compute_at(op)
            case sched.ComputeRootOp():
                s = self.stage(op.stage.data, "sched.compute_root")  # type: ignore[attr-defined]
                s.attach_stage, s.attach_ivar, s.inline = None, None, False
            case sched.ComputeInlineOp():
                self.compute_inline(op.stage.data)  # type: ignore[attr-defined]
            case sched.PragmaOp() if op.pragma.data in PRAGMA_PRIMITIVES:
                self.annotate(op.axis, f"sched.{op.pragma.data}")
            case sched.PragmaOp():
                _, iv = self.leaf(op.axis, op.name)
                if not re.fullmatch(r"[A-Za-z_][\w.]*(=[\w.+-]+)?", op.pragma.data):
                    raise VerifyException(f"sched.pragma: '{op.pragma.data}' is not a pragma name")
                iv.pragmas.append(op.pragma.data)
            case sched.ParallelOp() | sched.VectorizeOp() | sched.UnrollOp():
                self.annotate(op.operands[0], op.name)
            case _:
                raise VerifyException(f"{op.name} is not a schedule primitive")

    def annotate(self, axis: SSAValue, name: str) -> None:
        """parallel / vectorize / unroll, as an op or as a pragma of that name."""
        kind = {"sched.parallel": "parallel", "sched.vectorize": "vectorized", "sched.unroll": "unrolled"}
        _, iv = self.leaf(axis, name)
        if name != "sched.unroll" and iv.is_reduce:
            how = "in parallel" if name == "sched.parallel" else "as vector lanes"
            raise VerifyException(
                f"{name}: {iv.name} is a reduce axis; its iterations update the same elements and can't run {how}"
            )
        iv.kind = kind[name]

    def axis(self, op: sched.AxisOp) -> None:
        stage = self.stage(op.stage.data, "sched.axis")
        axes = stage.reduce_axes if op.is_reduce else stage.axes
        kind = "reduce axes" if op.is_reduce else "axes"
        if op.index.data >= len(axes):
            raise VerifyException(
                f"sched.axis: stage \"{stage.name}\" has {len(axes)} {kind}, no index {op.index.data}"
            )
        self.values[op.result] = axes[op.index.data]

    def split(self, op: sched.SplitOp) -> None:
        stage, parent = self.leaf(op.split_axis, "sched.split")
        outer = IterVar(self.names.fresh(f"{parent.name}_o"), stage.name, parent.is_reduce)
        inner = IterVar(self.names.fresh(f"{parent.name}_i"), stage.name, parent.is_reduce)
        factor = None if op.factor is None else op.factor.data
        nparts = None if op.nparts is None else op.nparts.data
        stage.relations.append(Split(parent, outer, inner, factor, nparts))
        position = stage.leaves.index(parent)
        stage.leaves[position : position + 1] = [outer, inner]
        self.move_attachments(parent, inner)
        self.values[op.outer] = outer
        self.values[op.inner] = inner

    def fuse(self, op: sched.FuseOp) -> None:
        stage, outer = self.leaf(op.outer, "sched.fuse")
        _, inner = self.leaf(op.inner, "sched.fuse")
        if outer.is_reduce != inner.is_reduce:
            data, red = (inner, outer) if outer.is_reduce else (outer, inner)
            raise VerifyException(
                f"sched.fuse: can't fuse the data-parallel axis {data.name} with the reduce axis {red.name}"
            )
        position = stage.leaves.index(outer)
        if position + 1 >= len(stage.leaves) or stage.leaves[position + 1] is not inner:
            raise VerifyException(
                f"sched.fuse: {inner.name} must be the loop right inside {outer.name} in stage \"{stage.name}\""
            )
        fused = IterVar(self.names.fresh(f"{outer.name}_f"), stage.name, outer.is_reduce)
        stage.relations.append(Fuse(outer, inner, fused))
        stage.leaves[position : position + 2] = [fused]
        self.move_attachments(outer, fused)
        self.move_attachments(inner, fused)
        self.values[op.result] = fused

    def singleton(self, op: sched.SingletonOp) -> None:
        stage = self.stage(op.stage.data, "sched.singleton")
        iv = IterVar(self.names.fresh(f"{_identifier(stage.name)}_singleton"), stage.name)
        stage.relations.append(Singleton(iv))
        stage.leaves.insert(0, iv)
        self.values[op.result] = iv

    def move_attachments(self, old: IterVar, new: IterVar) -> None:
        """Stages computed at a loop that is then split or fused move to the loop that
        replaces it: the inner one of a split, the fused one (TVM's LegalizeInvalidAttach)."""
        for stage in self.model.stages.values():
            if stage.attach_ivar is old:
                stage.attach_ivar = new

    def reorder(self, op: sched.ReorderOp) -> None:
        pairs = [self.leaf(v, "sched.reorder") for v in op.axes]
        stages = sorted({s.name for s, _ in pairs})
        if len(stages) > 1:
            raise VerifyException(f"sched.reorder mixes axes of stages {', '.join(stages)}")
        stage = pairs[0][0]
        order = [iv for _, iv in pairs]
        positions = sorted(stage.leaves.index(iv) for iv in order)
        for position, iv in zip(positions, order, strict=True):
            stage.leaves[position] = iv

    def compute_at(self, op: sched.ComputeAtOp) -> None:
        stage = self.stage(op.stage.data, "sched.compute_at")
        target, iv = self.leaf(op.axis, "sched.compute_at")
        if stage.is_output:
            raise VerifyException(
                f"sched.compute_at: stage \"{stage.name}\" is a result of the function; "
                "only intermediate stages can be attached"
            )
        chain, current = [target.name], target.attach_stage
        while current is not None and current is not stage:
            chain.append(current.name)
            current = current.attach_stage
        if current is stage or target is stage:
            cycle = " -> ".join([stage.name, *chain, stage.name])
            raise VerifyException(f"sched.compute_at: attachment cycle {cycle}")
        stage.attach_stage, stage.attach_ivar, stage.inline = target, iv, False
        self.attach_ops[stage.name] = op

    def check_scope(self, stage: Stage, target: Stage, ivar: IterVar) -> None:
        """The target reads the stage, and every consumer runs inside the attach point."""
        consumers = self.model.consumers(stage)
        if target not in consumers:
            raise VerifyException(
                f"sched.compute_at: stage \"{target.name}\" does not read \"{stage.name}\", "
                f"so \"{stage.name}\" can't be computed at its axis {ivar.name}"
            )
        for consumer in consumers:
            if consumer is target or ivar in self.model.attach_path(consumer):
                continue
            raise VerifyException(
                f"sched.compute_at: stage \"{stage.name}\" is computed inside loop {ivar.name} of "
                f"\"{target.name}\", but \"{consumer.name}\" also reads it outside that loop"
            )

    def compute_inline(self, name: str) -> None:
        stage = self.stage(name, "sched.compute_inline")
        if stage.reduce_axes:
            raise VerifyException(f"sched.compute_inline: stage \"{name}\" is a reduction and can't be inlined")
        if stage.is_output:
            raise VerifyException(f"sched.compute_inline: stage \"{name}\" is a result of the function")
        stage.inline, stage.attach_stage, stage.attach_ivar = True, None, None

    def check_attachments(self) -> None:
        for stage in self.model.stages.values():
            if stage.attach_stage is not None and stage.attach_ivar is not None:
                try:
                    self.check_scope(stage, stage.attach_stage, stage.attach_ivar)
                except VerifyException as err:
                    raise ScheduleError(str(err), self.attach_ops[stage.name]) from None
        for stage in self.model.stages.values():
            seen = [stage.name]
            current = stage.attach_stage
            while current is not None:
                if current.inline:
                    raise VerifyException(
                        f"sched.compute_at: stage \"{stage.name}\" is attached to \"{current.name}\", "
                        "which is inlined"
                    )
                if current.name in seen:
                    cycle = " -> ".join([*seen, current.name])
                    raise VerifyException(f"sched.compute_at: attachment cycle {cycle}")
                seen.append(current.name)
                current = current.attach_stage


def schedule_of(module: ModuleOp, func: te.FuncOp) -> sched.ScheduleOp | None:
    """The `sched.schedule` of `func` in `module`, if it has one."""
    for op in module.ops:
        if isinstance(op, sched.ScheduleOp) and op.func.root_reference.data == func.sym_name.data:
            return op
    return None


def check_schedule(func: te.FuncOp, schedule: ScheduleOp) -> None:
    """Replays a schedule only to reject it when invalid (the `sched.schedule` verifier)."""
    ScheduleModel.build(func, schedule)


sched.install_schedule_checker(check_schedule)
