"""The replay of a `sched.schedule` over the stages of a function, primitive by
primitive, as TVM's `Stage` methods do, checking each one (`ScheduleModel.build`)."""

from __future__ import annotations

import operator
import re

from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from compiler.arith.expr import IndexConst, IndexExpr, IndexVar, free_vars, lt
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import Analyzer
from compiler.diagnostics import ScheduleVerifyError
from compiler.dialects import sched, te
from compiler.dialects.sched import ScheduleOp
from compiler.dialects.shape import dim_expr
from compiler.errors import ScheduleError
from compiler.schedule import loop_relations, rules
from compiler.schedule.axes import Fuse, IterVar, Singleton, Split
from compiler.schedule.cache_stages import (
    STORAGE_ALIGN_ATTR,
    Layout,
    format_align,
    insert_cache_read,
    insert_cache_write,
    parse_align,
    reads_of,
)
from compiler.schedule.groups import common_group, group_chain
from compiler.schedule.rfactor import RfactorRecord, rfactor_ops
from compiler.schedule.scans import place_scan_bodies
from compiler.schedule.stages import (
    PRAGMA_PRIMITIVES,
    Group,
    Names,
    ScheduleData,
    Stage,
    arg_inputs,
    identifier,
    make_stage,
    stage_inputs,
)


class Replay:
    """Applies the sched ops in order, as TVM's Stage methods, checking each one."""

    def __init__(self, model: ScheduleData, names: Names):
        self.model = model
        self.names = names
        self.values: dict[SSAValue, IterVar] = {}
        self.attach_ops: dict[str, Operation] = {}  # the compute_at of each attached stage
        self.retired: dict[IterVar, str] = {}  # axes of a stage before its rfactor
        self.stale: dict[IterVar, str] = {}  # axes a cache_write replaced: why
        self.structure_ops: dict[str, list[Operation]] = {}  # split/fuse/reorder/singleton, per stage
        self.via_group: dict[str, Group] = {}  # stages attached by their group's compute_at

    def stage(self, name: str, what: str) -> Stage:
        rules.check_not_extern(what, name, name in self.model.externs)
        if name not in self.model.stages:
            known = ", ".join(self.model.stages)
            raise ScheduleVerifyError(f"{what}: @{self.model.func.sym_name.data} has no stage \"{name}\" (stages: {known})")
        return self.model.stages[name]

    def leaf(self, value: SSAValue, what: str) -> tuple[Stage, IterVar]:
        iv = self.values[value]
        if iv in self.stale:
            raise ScheduleVerifyError(f"{what}: {self.stale[iv]}")
        if iv in self.retired:
            raise ScheduleVerifyError(
                f"{what}: axis {iv.name} of stage \"{iv.stage}\" was retired by {self.retired[iv]}; "
                f"use sched.axis \"{iv.stage}\" for the axes of the new stage"
            )
        stage = self.model.stages[iv.stage]
        rules.check_leaf(what, iv.stage, iv.name, iv in stage.leaves)
        return stage, iv

    def run(self, schedule: ScheduleOp) -> None:
        for op in schedule.body.ops:
            try:
                self.apply(op)
                self.note_structure(op)
            except (VerifyException, ScheduleError) as err:  # located at this primitive unless it names one
                if isinstance(err, ScheduleVerifyError) and err.op is not None:
                    raise
                raise ScheduleVerifyError(str(err), op) from None
        self.resolve_group_attachments()
        place_scan_bodies(self.model)
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
            case sched.ComputeAtOp() if op.stage.data in self.model.groups:
                self.group_compute_at(op, self.model.groups[op.stage.data])
            case sched.ComputeAtOp():
                self.compute_at(op)
            case sched.ComputeRootOp() if op.stage.data in self.model.groups:
                group = self.model.groups[op.stage.data]
                group.attach_stage, group.attach_ivar = None, None
            case sched.ComputeRootOp() if op.stage.data in self.model.externs:
                pass  # where an extern stage always is
            case sched.ComputeRootOp():
                s = self.stage(op.stage.data, "sched.compute_root")
                s.attach_stage, s.attach_ivar, s.inline = None, None, False
            case sched.ComputeInlineOp() if op.stage.data in self.model.groups:
                raise ScheduleVerifyError(
                    f"sched.compute_inline: \"{op.stage.data}\" is a group; inline its stages one by one"
                )
            case sched.ComputeInlineOp():
                self.compute_inline(op.stage.data)
            case sched.CreateGroupOp():
                self.create_group(op)
            case sched.PragmaOp() if op.pragma.data in PRAGMA_PRIMITIVES:
                self.annotate(op.axis, f"sched.{op.pragma.data}")
            case sched.PragmaOp():
                _, iv = self.leaf(op.axis, op.name)
                if not re.fullmatch(r"[A-Za-z_][\w.]*(=[\w.+-]+)?", op.pragma.data):
                    raise ScheduleVerifyError(f"sched.pragma: '{op.pragma.data}' is not a pragma name")
                iv.pragmas.append(op.pragma.data)
            case sched.ParallelOp() | sched.VectorizeOp() | sched.UnrollOp():
                self.annotate(op.operands[0], op.name)
            case sched.RfactorOp():
                self.rfactor(op)
            case sched.CacheReadOp():
                self.cache_read(op)
            case sched.CacheWriteOp():
                self.cache_write(op)
            case sched.StorageAlignOp():
                self.storage_align(op)
            case _:
                raise ScheduleVerifyError(f"{op.name} is not a schedule primitive")

    def annotate(self, axis: SSAValue, name: str) -> None:
        """parallel / vectorize / unroll, as an op or as a pragma of that name."""
        _, iv = self.leaf(axis, name)
        primitive = name.removeprefix("sched.")
        rules.check_annotation(name, primitive, iv.name, iv.is_reduce)
        iv.kind = rules.ANNOTATION_KINDS[primitive]

    def axis(self, op: sched.AxisOp) -> None:
        stage = self.stage(op.stage.data, "sched.axis")
        axes = stage.reduce_axes if op.is_reduce else stage.axes
        kind = "reduce axes" if op.is_reduce else "axes"
        if op.index.data >= len(axes):
            raise ScheduleVerifyError(
                f"sched.axis: stage \"{stage.name}\" has {len(axes)} {kind}, no index {op.index.data}"
            )
        self.values[op.result] = axes[op.index.data]

    def split(self, op: sched.SplitOp) -> None:
        stage, parent = self.leaf(op.split_axis, "sched.split")
        outer = IterVar(self.names.fresh(f"{parent.name}_o"), stage.name, parent.is_reduce, mixed=parent.mixed)
        inner = IterVar(self.names.fresh(f"{parent.name}_i"), stage.name, parent.is_reduce, mixed=parent.mixed)
        factor = None if op.factor is None else op.factor.data
        nparts = None if op.nparts is None else op.nparts.data
        factor_expr = None
        if op.factor_expr is not None:
            try:
                factor_expr = parse_expr(op.factor_expr.data)
            except ValueError as err:
                raise ScheduleVerifyError(f"sched.split factor: {err}", op) from None
        disable = op.disable_predication is not None
        stage.relations.append(Split(parent, outer, inner, factor, nparts, disable, factor_expr))
        position = stage.leaves.index(parent)
        stage.leaves[position : position + 1] = [outer, inner]
        self.move_attachments(parent, inner)
        self.values[op.outer] = outer
        self.values[op.inner] = inner

    def fuse(self, op: sched.FuseOp) -> None:
        stage, outer = self.leaf(op.outer, "sched.fuse")
        _, inner = self.leaf(op.inner, "sched.fuse")
        position = rules.fuse_position("sched.fuse", stage.name, stage.leaves, outer, inner)
        # A data axis fused with a reduce axis is a reduce axis (TVM's fuse takes the larger
        # iteration type) that also runs over data: its reduction is initialised in a nest
        # of its own before the loops, over every loop not purely of reduce axes.
        mixed = outer.mixed or inner.mixed or outer.is_reduce != inner.is_reduce
        fused = IterVar(
            self.names.fresh(f"{outer.name}_f"), stage.name, outer.is_reduce or inner.is_reduce, mixed=mixed
        )
        stage.relations.append(Fuse(outer, inner, fused))
        stage.leaves[position : position + 2] = [fused]
        self.move_attachments(outer, fused)
        self.move_attachments(inner, fused)
        self.values[op.result] = fused

    def singleton(self, op: sched.SingletonOp) -> None:
        stage = self.stage(op.stage.data, "sched.singleton")
        iv = IterVar(self.names.fresh(f"{identifier(stage.name)}_singleton"), stage.name)
        stage.relations.append(Singleton(iv))
        stage.leaves.insert(0, iv)
        self.values[op.result] = iv

    def move_attachments(self, old: IterVar, new: IterVar) -> None:
        """Stages computed at a loop that is then split or fused move to the loop that
        replaces it: the inner one of a split, the fused one (TVM's LegalizeInvalidAttach)."""
        for holder in self.model.attachables():
            if holder.attach_ivar is old:
                holder.attach_ivar = new

    def reorder(self, op: sched.ReorderOp) -> None:
        pairs = [self.leaf(v, "sched.reorder") for v in op.axes]
        stages = sorted({s.name for s, _ in pairs})
        if len(stages) > 1:
            raise ScheduleVerifyError(f"sched.reorder mixes axes of stages {', '.join(stages)}")
        stage = pairs[0][0]
        order = [iv for _, iv in pairs]
        rules.check_distinct("sched.reorder", order)  # two values of one axis
        positions = sorted(stage.leaves.index(iv) for iv in order)
        for position, iv in zip(positions, order, strict=True):
            stage.leaves[position] = iv

    def compute_at(self, op: sched.ComputeAtOp) -> None:
        stage = self.stage(op.stage.data, "sched.compute_at")
        target, iv = self.leaf(op.axis, "sched.compute_at")
        if stage.is_output:
            raise ScheduleVerifyError(
                f"sched.compute_at: stage \"{stage.name}\" is a result of the function; "
                "only intermediate stages can be attached"
            )
        chain, current = [target.name], target.attach_stage
        while current is not None and current is not stage:
            chain.append(current.name)
            current = current.attach_stage
        if current is stage or target is stage:
            cycle = " -> ".join([stage.name, *chain, stage.name])
            raise ScheduleVerifyError(f"sched.compute_at: attachment cycle {cycle}")
        self.check_within_group(f"stage \"{stage.name}\"", stage.group, target)
        stage.attach_stage, stage.attach_ivar, stage.inline = target, iv, False
        self.attach_ops[stage.name] = op

    # -- create_group (TVM's Schedule::create_group) ------------------------------------

    @staticmethod
    def check_within_group(what: str, group: Group | None, target: Stage) -> None:
        """A stage or group inside a group can only be computed at a stage of that group."""
        if group is not None and group not in group_chain(target.group):
            raise ScheduleVerifyError(
                f"sched.compute_at: {what} is in group \"{group.name}\"; it can only be computed at a "
                f"stage of that group, and \"{target.name}\" is not in it"
            )

    def group_compute_at(self, op: sched.ComputeAtOp, group: Group) -> None:
        target, iv = self.leaf(op.axis, "sched.compute_at")
        rules.check_group_target("sched.compute_at", group.name, target.name, group in group_chain(target.group))
        self.check_within_group(f"group \"{group.name}\"", group.parent, target)
        group.attach_stage, group.attach_ivar = target, iv
        self.attach_ops[group.name] = op

    def group_stages(self, group: Group) -> list[Stage]:
        """The stages of a group and of the groups nested in it."""
        return [s for s in self.model.stages.values() if group in group_chain(s.group)]

    def create_group(self, op: sched.CreateGroupOp) -> None:
        op.verify_()  # its own checks first (the schedule's verifier runs before its ops')
        name = op.group.data
        where = f"sched.create_group \"{name}\""
        if name in self.model.stages or name in self.model.groups:
            kind = "stage" if name in self.model.stages else "group"
            raise ScheduleVerifyError(f"{where}: @{self.model.func.sym_name.data} already has a {kind} \"{name}\"")
        members = self.group_members(op, where)
        parent = common_group([s.group for s in members])
        touched = {g for s in members for g in group_chain(s.group) if g not in group_chain(parent)}
        for inner in touched:
            rules.check_group_cut(where, inner.name, [s.name for s in self.group_stages(inner) if s not in members])
        group = Group(name, parent)
        for inner in touched:
            if inner.parent is parent:
                inner.parent = group
        for stage in members:
            if stage.group is parent:
                stage.group = group
        self.model.groups[name] = group
        holders: list[Stage | Group] = [*members, *touched]
        for holder in holders:
            target = holder.attach_stage
            if target is not None and group not in group_chain(target.group):
                raise ScheduleVerifyError(
                    f"{where}: {holder.name} is computed at \"{target.name}\", outside the group; "
                    "attach it after create_group, or put that stage in the group"
                )

    def group_members(self, op: sched.CreateGroupOp, where: str) -> list[Stage]:
        """The stages on a path from an output down to an input (TVM's GetSubGraph): the
        outputs, the stages between, and the inputs with include_inputs."""
        outputs = [self.stage(o.data, where) for o in op.outputs.data]
        args = {a.name_hint for a in self.model.func.args if a.name_hint is not None}
        boundary = {i.data for i in op.inputs.data}
        for name in boundary:
            if name not in self.model.stages and name not in args:
                raise ScheduleVerifyError(f"{where}: @{self.model.func.sym_name.data} has no stage or argument \"{name}\"")
        include = op.include_inputs is not None
        reaches: dict[str, bool] = {}
        reached: set[str] = set()

        def visit(name: str) -> bool:
            if name in reaches:
                return reaches[name]
            if name in boundary:
                reached.add(name)
                reaches[name] = True
                return True
            reaches[name] = False
            stage = self.model.stages.get(name)
            if stage is None:
                return False  # an argument that is not an input
            found = [visit(source) for source in [*stage.inputs, *arg_inputs(stage.op)]]
            reaches[name] = any(found)
            return reaches[name]

        unreaching = [stage.name for stage in outputs if not visit(stage.name)]
        rules.check_group_reach(where, sorted(boundary), unreaching, sorted(boundary - reached))
        return [
            s for s in self.model.stages.values()
            if reaches.get(s.name) and (include or s.name not in boundary)
        ]

    def resolve_group_attachments(self) -> None:
        """A stage not attached itself is computed where its innermost attached group is
        (TVM's GetAttachSpec)."""
        for stage in self.model.stages.values():
            if stage.inline or stage.attach_stage is not None:
                continue
            group = next((g for g in group_chain(stage.group) if g.attach_stage is not None), None)
            if group is not None:
                stage.attach_stage, stage.attach_ivar = group.attach_stage, group.attach_ivar
                self.via_group[stage.name] = group

    def rfactor(self, op: sched.RfactorOp) -> None:
        """TVM's rfactor (compiler.schedule.rfactor): a factor stage before the stage, and
        the stage rebuilt as the reduction of the factor stage over the factored axis."""
        stage, iv = self.leaf(op.axis, "sched.rfactor")
        name, factor_axis = op.factor_stage.data, op.factor_axis.data
        if name in self.model.stages:
            raise ScheduleVerifyError(f"sched.rfactor: @{self.model.func.sym_name.data} already has a stage \"{name}\"")
        reduction = stage.op.reduction()
        named = [] if reduction is None else reduction.axes_named()
        touched = loop_relations.touched(stage.relations, iv)
        facts = rules.RfactorFacts(
            stage.name,
            iv.name,
            iv.is_reduce,
            fuses_data=iv.mixed or any(a in touched for a in stage.axes),
            factor_axis=factor_axis,
            ndata=len(stage.axes),
            attached_here=[s.name for s in self.model.attachables() if s.attach_stage is stage],
            reducer="" if reduction is None else reduction.kind.data,
            axis_named_by_reducer=f"%{named[0].name_hint or 'arg'}" if named else None,
        )
        rules.check_rfactor(op.name, facts)
        factor, repl = rfactor_ops(stage, iv, factor_axis, name)
        self.model.rfactors.append(RfactorRecord(op, stage.op, factor, repl))
        for old in [*stage.root_vars, *stage.leaves]:
            self.retired[old] = f"the sched.rfactor of {iv.name}"
        new_stage = make_stage(repl, stage.is_output, self.names)
        new_stage.attach_stage, new_stage.attach_ivar = stage.attach_stage, stage.attach_ivar
        new_stage.group = stage.group
        stages: dict[str, Stage] = {}
        for key, value in self.model.stages.items():
            if value is stage:
                stages[name] = make_stage(factor, False, self.names)
                stages[key] = new_stage
            else:
                stages[key] = value
        self.model.stages.clear()
        self.model.stages.update(stages)

    # -- cache_read, cache_write, storage_align (compiler.schedule.cache_stages) --------

    def note_structure(self, op: Operation) -> None:
        """Remembers the split/fuse/reorder/singleton ops of each stage: a cache_write of
        the stage consumes them (they define the cache's layout)."""
        match op:
            case sched.SplitOp():
                stage = self.values[op.outer].stage
            case sched.FuseOp():
                stage = self.values[op.result].stage
            case sched.ReorderOp():
                stage = self.values[op.axes[0]].stage
            case sched.SingletonOp():
                stage = op.stage.data
            case _:
                return
        self.structure_ops.setdefault(stage, []).append(op)

    def taken_names(self) -> set[str]:
        args = {a.name_hint for a in self.model.func.args if a.name_hint is not None}
        return set(self.model.stages) | args

    def add_stage(self, op: te.ComputeOp) -> Stage:
        """A stage for a new te.compute; the model's stages follow the function's order."""
        new = make_stage(op, False, self.names)
        known = {**self.model.stages, new.name: new}
        ordered = {c.stage.data: known[c.stage.data] for c in self.model.func.body.block.ops if isinstance(c, te.ComputeOp)}
        self.model.stages.clear()
        self.model.stages.update(ordered)
        return new

    def cache_read(self, op: sched.CacheReadOp) -> None:
        func, name = self.model.func, op.tensor.data
        if name in self.model.externs:
            raise ScheduleVerifyError(f"sched.cache_read: \"{name}\" is a te.extern stage, whose outputs can't be cached")
        if name in self.model.stages:
            source: SSAValue = self.not_factored(self.model.stages[name], op).op.result
        else:
            arg = next((a for a in func.args if a.name_hint == name), None)
            if arg is None:
                raise ScheduleVerifyError(f"sched.cache_read: @{func.sym_name.data} has no stage or argument \"{name}\"")
            source = arg
        readers = [self.not_factored(self.stage(r.data, "sched.cache_read"), op) for r in op.readers.data]
        for reader in readers:
            if not reads_of(reader.op, source):
                raise ScheduleVerifyError(
                    f"sched.cache_read: stage \"{reader.name}\" does not read \"{name}\", so it can't read its cache"
                )
        cache_name = sched.cache_stage_name(name, op.scope.data, self.taken_names())
        self.add_stage(insert_cache_read(func, source, cache_name, [r.op for r in readers]))
        for reader in readers:
            reader.inputs = stage_inputs(reader.op)
        self.model.rewritten.append(op)

    def cache_write(self, op: sched.CacheWriteOp) -> None:
        stage = self.not_factored(self.stage(op.stage.data, "sched.cache_write"), op)
        self.check_cache_write(stage)
        cache_name = sched.cache_stage_name(stage.name, op.scope.data, self.taken_names())
        cache = insert_cache_write(self.model.func, stage.op, cache_name, cache_layout(stage))
        self.add_stage(cache)
        for iv in stage.reduce_axes:
            self.stale[iv] = (
                f"axis {iv.name}: the sched.cache_write of \"{stage.name}\" moved its reduce axes to "
                f"\"{cache_name}\"; use sched.axis \"{cache_name}\" reduce"
            )
        for iv in loop_relations.made_axes(stage.relations):
            self.stale[iv] = (
                f"axis {iv.name}: the sched.cache_write of \"{stage.name}\" undid its splits and fuses "
                f"(they are the layout of \"{cache_name}\"); split \"{stage.name}\" again after it"
            )
        stage.reduce_axes, stage.relations, stage.leaves = [], [], list(stage.axes)
        stage.inputs = [cache_name]
        consumed = [*self.structure_ops.pop(stage.name, []), op]
        consumed += [v.owner for v, iv in self.values.items() if iv in self.stale and isinstance(v.owner, sched.AxisOp)]
        self.model.rewritten.extend(consumed)

    @staticmethod
    def not_factored(stage: Stage, op: Operation) -> Stage:
        """Cache stages are made before rfactor's (apply-cache-stages runs first)."""
        if stage.op.parent is None:
            raise ScheduleVerifyError(
                f"{op.name}: stage \"{stage.name}\" was made or rebuilt by a sched.rfactor; "
                "cache_read/cache_write of such a stage is not supported (apply them before the rfactor)"
            )
        return stage

    def check_cache_write(self, stage: Stage) -> None:
        loops = [*stage.root_vars, *loop_relations.made_axes(stage.relations)]
        facts = rules.CacheWriteFacts(
            stage.name,
            inline=stage.inline,
            attached=stage.attach_stage is not None,
            attached_here=[s.name for s in self.model.attachables() if s.attach_stage is stage],
            annotated=[
                (iv.name, " ".join([iv.kind, *iv.pragmas] if iv.kind != "serial" else iv.pragmas))
                for iv in loops if iv.kind != "serial" or iv.pragmas
            ],
            split_reduce=[iv.name for iv in stage.leaves if iv.is_reduce and iv not in stage.reduce_axes],
        )
        rules.check_cache_write("sched.cache_write", facts)

    def storage_align(self, op: sched.StorageAlignOp) -> None:
        iv = self.values[op.axis]
        stage = self.model.stages[iv.stage]
        rules.check_storage_align(op.name, stage.name, iv.name, iv in stage.axes, stage.is_output)
        dim = stage.axes.index(iv)
        attr = stage.op.attributes.get(STORAGE_ALIGN_ATTR)
        aligns = {} if attr is None else dict(parse_align(attr))
        aligns[dim] = (op.factor.data, op.offset.data)
        stage.op.attributes[STORAGE_ALIGN_ATTR] = format_align(aligns)
        self.model.rewritten.append(op)

    def check_scope(self, stage: Stage, target: Stage, ivar: IterVar) -> None:
        """Every consumer runs inside the attach point: it is the target, or it is computed
        inside that loop (TVM's InferRootBound: the target need not read the stage itself)."""
        consumers = self.model.consumers(stage)
        if not consumers:
            raise ScheduleVerifyError(
                f"sched.compute_at: no stage reads \"{stage.name}\", so it can't be computed at "
                f"\"{target.name}\"'s axis {ivar.name}"
            )
        for consumer in consumers:
            if consumer is target or ivar in self.model.attach_path(consumer):
                continue
            reads = "" if target in consumers else ", which does not read it"
            also = " also" if target in consumers else ""
            raise ScheduleVerifyError(
                f"sched.compute_at: stage \"{stage.name}\" is computed inside loop {ivar.name} of "
                f"\"{target.name}\"{reads}, but \"{consumer.name}\"{also} reads it outside that loop"
            )

    def compute_inline(self, name: str) -> None:
        stage = self.stage(name, "sched.compute_inline")
        rules.check_compute_inline("sched.compute_inline", name, bool(stage.reduce_axes), stage.is_output)
        self.check_not_read_whole(stage, "sched.compute_inline", "inlined")
        stage.inline, stage.attach_stage, stage.attach_ivar = True, None, None

    def check_group_scope(self, stage: Stage, group: Group) -> None:
        """The group's target reads a stage of it, and every reader of `stage` outside the
        group runs inside the attach point."""
        target, ivar = group.attach_stage, group.attach_ivar
        assert target is not None
        assert ivar is not None
        inside = {s.name for s in self.group_stages(group)}
        if not inside & set(target.inputs):
            raise ScheduleVerifyError(
                f"sched.compute_at: stage \"{target.name}\" reads no stage of group \"{group.name}\", "
                f"so the group can't be computed at its axis {ivar.name}"
            )
        for consumer in self.model.consumers(stage):
            if consumer is target or consumer.name in inside or ivar in self.model.attach_path(consumer):
                continue
            raise ScheduleVerifyError(
                f"sched.compute_at: stage \"{stage.name}\" of group \"{group.name}\" is computed inside loop "
                f"{ivar.name} of \"{target.name}\", but \"{consumer.name}\" also reads it outside that loop"
            )

    def check_not_read_whole(self, stage: Stage, what: str, how: str) -> None:
        """A stage a te.extern reads is realized whole, at the root: the extern takes its buffer."""
        readers = self.model.extern_readers(stage.name)
        if readers:
            raise ScheduleVerifyError(
                f"{what}: stage \"{stage.name}\" is read whole by the te.extern stage \"{readers[0]}\", so it "
                f"can't be {how}; it is computed at the root"
            )

    def check_attachments(self) -> None:
        for stage in self.model.stages.values():
            if stage.attach_stage is not None and stage.attach_ivar is not None:
                group = self.via_group.get(stage.name)
                try:
                    self.check_not_read_whole(stage, "sched.compute_at", "attached to a loop")
                    if group is None:
                        self.check_scope(stage, stage.attach_stage, stage.attach_ivar)
                    else:
                        self.check_group_scope(stage, group)
                except (VerifyException, ScheduleError) as err:
                    op = self.attach_ops[stage.name if group is None else group.name]
                    raise ScheduleVerifyError(str(err), op) from None
        for stage in self.model.stages.values():
            seen = [stage.name]
            current = stage.attach_stage
            while current is not None:
                if current.inline:
                    raise ScheduleVerifyError(
                        f"sched.compute_at: stage \"{stage.name}\" is attached to \"{current.name}\", "
                        "which is inlined"
                    )
                if current.name in seen:
                    cycle = " -> ".join([*seen, current.name])
                    raise ScheduleVerifyError(f"sched.compute_at: attachment cycle {cycle}")
                seen.append(current.name)
                current = current.attach_stage


# ---------------------------------------------------------------------------
# Scans (te.state): the time loop, and the stages computed inside it
# ---------------------------------------------------------------------------


def _cover(split: Split, extent: IndexExpr) -> tuple[IndexExpr, IndexExpr]:
    """The outer and inner extents of a split: ceil(extent / inner) outer iterations."""
    inner = split.inner_extent(extent)
    return (extent + inner - 1) // inner, inner


def cache_layout(stage: Stage) -> Layout:
    """The cache of a cache_write of `stage`: one dimension per data-parallel leaf loop,
    with its extent (PassDownDomain over the shape), each root axis as a function of the
    leaves (PassUpIndex), each leaf as a function of the root axes (PassDownIndex), and
    the bound checks of splits that may not divide (MakeBoundCheck)."""
    shape = [dim_expr(d) for d in stage.op.tensor_type.get_shape()]
    extent: dict[IterVar, IndexExpr] = dict(zip(stage.axes, shape, strict=True))
    loop_relations.pass_down_extent(stage.relations, extent, _cover, operator.mul, IndexConst(1))
    leaves = [iv for iv in stage.leaves if not iv.is_reduce]
    value: dict[IterVar, IndexExpr] = {iv: IndexVar(iv.name) for iv in leaves}
    loop_relations.pass_up_index(stage.relations, value, extent)
    index: dict[IterVar, IndexExpr] = {iv: IndexVar(iv.name) for iv in stage.axes}
    loop_relations.pass_down_index(stage.relations, index, extent, IndexConst(0))
    bounds: dict[str, tuple[IndexExpr | int | None, IndexExpr | int | None]] = {
        v: (0, None) for e in shape for v in free_vars(e)
    }
    az = Analyzer({**bounds, **{iv.name: (0, extent[iv] - 1) for iv in leaves}})
    roots = stage.axes
    guards = [lt(az.simplify(value[r]), e) for r, e in zip(roots, shape, strict=True) if not az.prove_lt(value[r], e)]
    prefix = identifier(stage.name) + "_"
    return Layout(
        leaves=[iv.name for iv in leaves],
        hints=[iv.name.removeprefix(prefix) for iv in leaves],
        extents=[az.simplify(extent[iv]) for iv in leaves],
        roots=[iv.name for iv in roots],
        root_values=[az.simplify(value[r]) for r in roots],
        leaf_indices=[az.simplify(index[iv]) for iv in leaves],
        guards=guards,
    )


