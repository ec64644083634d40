"""Schedules in Python, with TVM's names.

```python
s = te.create_schedule(D.op)
xo, xi = s[D].split(D.op.axis[1], factor=8)
s[C].compute_at(s[D], xi)
s[D].vectorize(xi)
f = compiler.build(s, [A, D])
```

A `Schedule` records the primitives in order; `compiler.te.to_ir` emits
them as a `sched.schedule` op, whose verifier checks them (and reports an
invalid schedule as a `ValueError` from `build`/`lower`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.dialects.storage_scopes import CACHE_SCOPES
from compiler.errors import ScheduleError, ScheduleTypeError
from compiler.schedule import loop_relations, rules
from compiler.schedule.groups import common_group, group_chain
from compiler.te import language as T
from compiler.te.extern import ExternOp
from compiler.te.primitives import (
    CacheRead,
    CacheWrite,
    ComputeAt,
    ComputeInline,
    ComputeRoot,
    CreateGroup,
    Fuse,
    GroupComputeAt,
    GroupComputeRoot,
    LoopAnnotation,
    Parallel,
    Pragma,
    Primitive,
    Reorder,
    Rfactor,
    Singleton,
    Split,
    StagePrimitive,
    StorageAlign,
    Unroll,
    Vectorize,
    index_of,
)
from compiler.te.stage_graph import reads, relations_of, subgraph, tensor_list
from compiler.te.stage_rewrites import cache_write_stage, names_an_axis, rfactor_stage


class Stage:
    """The schedule of one compute stage: `s[T]` (TVM's `Stage`).

    Its methods record schedule primitives on the stage's loops: `leaves` are the
    loops from outermost to innermost as the primitives so far left them (data axes,
    then reduce axes, until `split`, `fuse` or `reorder` change them).

    >>> A = te.placeholder((64, 64), name="A")
    >>> B = te.compute((64, 64), lambda i, j: A[i, j] + 1.0, name="B")
    >>> s = te.create_schedule(B.op)
    >>> jo, ji = s[B].split(B.op.axis[1], factor=8)
    >>> s[B]
    Stage(B, leaf_axes=[i, j.outer, j.inner])
    """

    def __init__(self, schedule: Schedule, tensor: T.Tensor):
        self.schedule = schedule
        self.tensor = tensor
        self.leaves: list[T.IterVar] = list(tensor.op.axis) + list(tensor.op.reduce_axis)
        self._op = tensor.op  # a new op after rfactor, as TVM's stage
        self.retired: list[T.IterVar] = []  # axes from before an rfactor
        self.cached: list[T.IterVar] = []  # split/fused axes (and reduce axes) a cache_write replaced

    @property
    def op(self) -> T.Operation:
        """The stage's operation (after `rfactor`, the new reduction over the factored tensor)."""
        return self._op

    @property
    def leaf_axes(self) -> list[T.IterVar]:
        """The stage's loops, outermost first, as the primitives so far left them."""
        return list(self.leaves)

    def __repr__(self) -> str:
        leaves = ", ".join(iv.name for iv in self.leaves)
        return f"Stage({self.op.name}, leaf_axes=[{leaves}]{self._placement()})"

    def _placement(self) -> str:
        """Where the stage is computed, if a primitive said so."""
        p = self._placed_by()
        if isinstance(p, ComputeInline):
            return ", inline"
        if isinstance(p, ComputeRoot):
            return ", root"
        if isinstance(p, ComputeAt):
            return f", attached at {p.target.name}.{p.axis.name}"
        return ""

    def _placed_by(self) -> ComputeAt | ComputeRoot | ComputeInline | None:
        """The last primitive that said where the stage is computed."""
        for p in reversed(self.schedule.primitives):
            if isinstance(p, ComputeAt | ComputeRoot | ComputeInline) and p.stage is self.tensor:
                return p
        return None

    def _attached_here(self) -> list[str]:
        """The stages and groups computed at a loop of this stage now."""
        found = [
            s.tensor.name for s in self.schedule.stages.values()
            if isinstance(placed := s._placed_by(), ComputeAt) and placed.target is self.tensor
        ]
        for group in self.schedule.groups:
            placed_group = next(
                (p for p in reversed(self.schedule.primitives)
                 if isinstance(p, GroupComputeAt | GroupComputeRoot) and p.group is group),
                None,
            )
            if isinstance(placed_group, GroupComputeAt) and placed_group.target is self.tensor:
                found.append(group.name)
        return found

    def _annotations(self) -> list[tuple[str, str]]:
        """The loop annotations of the stage's loops since its op last changed."""
        kinds = {**rules.ANNOTATION_KINDS, "pragma": ""}
        found: list[tuple[str, str]] = []
        for p in self.schedule.primitives:
            if isinstance(p, CacheWrite | Rfactor) and p.stage is self.tensor:
                found = []
            elif isinstance(p, LoopAnnotation) and p.stage is self.tensor:
                found.append((p.axis.name, p.text if isinstance(p, Pragma) else kinds[p.name]))
        return found

    @property
    def group(self) -> Group | None:
        """The innermost group (`Schedule.create_group`) holding the stage, if any."""
        return self.schedule._group_of.get(self.tensor.uid)

    def _not_extern(self, what: str) -> None:
        rules.check_not_extern(what, self.tensor.name, isinstance(self.op, ExternOp))

    def _leaf(self, iv: T.IterVar, what: str) -> T.IterVar:
        self._not_extern(what)
        if not isinstance(iv, T.IterVar):
            raise ScheduleTypeError(f"{what}: expected an axis of {self.tensor.name}, got {iv!r}")
        if index_of(self.retired, iv) >= 0:
            raise ScheduleError(
                f"{what}: axis {iv.name} of {self.tensor.name} is from before its rfactor; "
                f"use s[{self.tensor.name}].op.axis / .op.reduce_axis"
            )
        if index_of(self.cached, iv) >= 0 and index_of(self.leaves, iv) < 0:
            raise ScheduleError(
                f"{what}: axis {iv.name} of {self.tensor.name} is from before its cache_write, which undid its "
                f"splits and fuses and moved its reduce axes to the cache stage"
            )
        if index_of(self.leaves, iv) < 0:
            owner = self.schedule.owner_of(iv)
            if owner is not None and owner is not self:
                raise ScheduleError(f"{what}: axis {iv.name} belongs to stage {owner.tensor.name}, not {self.tensor.name}")
        rules.check_leaf(what, self.tensor.name, iv.name, index_of(self.leaves, iv) >= 0)
        return iv

    def _record(self, p: Primitive) -> None:
        self.schedule.primitives.append(p)

    def split(
        self,
        parent: T.IterVar,
        factor: int | T.Expr | None = None,
        nparts: int | None = None,
        *,
        disable_predication: bool = False,
    ) -> tuple[T.IterVar, T.IterVar]:
        """Split loop `parent` into `(outer, inner)`: `factor=` gives the inner extent,
        `nparts=` the outer one; both cover the extent with ceil(extent / factor)
        outer iterations, and a tail that the factor does not divide does no work
        outside the extent. `disable_predication=True` (TVM's) states that no tail
        needs a predicate: the build fails unless the factor provably divides the
        extent (TVM would write past the tensor). A symbolic factor (a `te.var`
        expression, bound at call time) below 1 splits by 1.

        >>> A = te.placeholder((100,), name="A")
        >>> B = te.compute((100,), lambda i: A[i] * 2.0, name="B")
        >>> s = te.create_schedule(B.op)
        >>> s[B].split(B.op.axis[0], factor=32)
        (IterVar(i.outer), IterVar(i.inner))
        """
        self._leaf(parent, "split")
        if (factor is None) == (nparts is None):
            raise ScheduleError("split takes exactly one of factor= or nparts=")
        value = factor if factor is not None else nparts
        symbolic = isinstance(factor, T.Expr) and not isinstance(factor, T.IterVar) and factor.dtype == T.INDEX
        if not symbolic and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise ScheduleError(
                f"split: the factor must be a positive int or a te.var expression, nparts a positive int; got {value!r}"
            )
        outer = T.IterVar(f"{parent.name}.outer", is_reduce=parent.is_reduce)
        inner = T.IterVar(f"{parent.name}.inner", is_reduce=parent.is_reduce)
        position = index_of(self.leaves, parent)
        self.leaves[position : position + 1] = [outer, inner]
        split = Split(stage=self.tensor, parent=parent, outer=outer, inner=inner, factor=factor, nparts=nparts,
                      disable_predication=disable_predication)
        self._record(split)
        return outer, inner

    def fuse(self, *axes: T.IterVar) -> T.IterVar:
        """Fuse consecutive loops, outer first, into one (TVM's `fuse`): one axis is
        returned as it is; no axis adds an outermost loop of one iteration."""
        if not axes:
            self._not_extern("fuse")
            singleton = T.IterVar(f"{self.tensor.name}.singleton")
            self.leaves.insert(0, singleton)
            self._record(Singleton(stage=self.tensor, iv=singleton))
            return singleton
        fused = self._leaf(axes[0], "fuse")
        for inner in axes[1:]:
            fused = self._fuse_pair(fused, inner)
        return fused

    def _fuse_pair(self, outer: T.IterVar, inner: T.IterVar) -> T.IterVar:
        self._leaf(outer, "fuse")
        self._leaf(inner, "fuse")
        position = rules.fuse_position("fuse", self.tensor.name, self.leaves, outer, inner)
        # a data axis fused with a reduce axis is a reduce axis (TVM's larger iteration type)
        fused = T.IterVar(f"{outer.name}.{inner.name}.fused", is_reduce=outer.is_reduce or inner.is_reduce)
        self.leaves[position : position + 2] = [fused]
        self._record(Fuse(stage=self.tensor, outer=outer, inner=inner, fused=fused))
        return fused

    def reorder(self, *axes: T.IterVar) -> None:
        """Put the named loops in this order, in the positions they occupy together
        (the other leaves stay where they are)."""
        for iv in axes:
            self._leaf(iv, "reorder")
        rules.check_distinct("reorder", axes)
        positions = sorted(index_of(self.leaves, iv) for iv in axes)
        for position, iv in zip(positions, axes, strict=True):
            self.leaves[position] = iv
        self._record(Reorder(stage=self.tensor, axes=tuple(axes)))

    def tile(
        self, x_parent: T.IterVar, y_parent: T.IterVar, x_factor: int, y_factor: int
    ) -> tuple[T.IterVar, T.IterVar, T.IterVar, T.IterVar]:
        """Split two axes and order the loops `xo, yo, xi, yi` (TVM's `tile`)."""
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    def pragma(self, axis: T.IterVar, name: str, value: int | str | None = None) -> None:
        """A hint on the loop of `axis`: `unroll`, `vectorize` and `parallel` act as those
        primitives; other names (with their value, `name=value`) are kept on the loop
        (`loop.pragmas`) for later passes."""
        if not isinstance(name, str) or not name:
            raise ScheduleTypeError(f"pragma: the pragma is a name, got {name!r}")
        if name in ("unroll", "vectorize", "parallel") and value is None:
            getattr(self, name)(axis)
            return
        self._leaf(axis, "pragma")
        text = name if value is None else f"{name}={value}"
        self._record(Pragma(stage=self.tensor, axis=axis, text=text))

    def compute_at(self, parent: Stage, axis: T.IterVar) -> None:
        """Compute this stage inside loop `axis` of stage `parent`, only the region that
        one iteration of `parent` reads (bound inference sizes it); an attach point
        split or fused afterwards moves to the inner or fused loop."""
        if not isinstance(parent, Stage):
            raise ScheduleTypeError("compute_at: the first argument is a stage, s[T]")
        self._not_extern("compute_at")
        parent._leaf(axis, "compute_at")
        self._record(ComputeAt(stage=self.tensor, target=parent.tensor, axis=axis))

    def compute_root(self) -> None:
        """Compute the whole stage before its consumers, at the function's top level
        (the default; undoes `compute_at` and `compute_inline`)."""
        self._record(ComputeRoot(stage=self.tensor))

    def compute_inline(self) -> None:
        """Substitute the stage's expression into its readers: no buffer, no loops of its own
        (not for reductions or the function's outputs)."""
        self._not_extern("compute_inline")
        rules.check_compute_inline("compute_inline", self.tensor.name, bool(self.op.reduce_axis), self._is_output())
        self._record(ComputeInline(stage=self.tensor))

    def _is_output(self) -> bool:
        return any(t.op is self.tensor.op for t in self.schedule.outputs)

    def parallel(self, axis: T.IterVar) -> None:
        """Run the iterations of loop `axis` on several threads (OpenMP); not a reduce axis."""
        self._annotate(Parallel, axis)

    def vectorize(self, axis: T.IterVar) -> None:
        """Turn loop `axis` (innermost, ideally of a constant extent) into vector operations;
        not a reduce axis."""
        self._annotate(Vectorize, axis)

    def unroll(self, axis: T.IterVar) -> None:
        """Unroll loop `axis` completely (it needs a constant extent to be unrolled)."""
        self._annotate(Unroll, axis)

    def _annotate(self, kind: type[Parallel | Vectorize | Unroll], axis: T.IterVar) -> None:
        self._leaf(axis, kind.name)
        rules.check_annotation(kind.name, kind.name, axis.name, axis.is_reduce)
        self._record(kind(stage=self.tensor, axis=axis))

    def storage_align(self, axis: T.IterVar, factor: int, offset: int) -> None:
        """Pad the stride of dimension `axis` (a root axis) of the stage's buffer so that
        `stride % factor == offset` (TVM's `storage_align`)."""
        self._not_extern("storage_align")
        name = getattr(axis, "name", str(axis))
        rules.check_storage_align("storage_align", self.tensor.name, name, index_of(self.op.axis, axis) >= 0, self._is_output())
        for what, value in (("factor", factor), ("offset", offset)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ScheduleTypeError(f"storage_align: the {what} is an int, got {value!r}")
        rules.check_align_values("storage_align", factor, offset)
        self._record(StorageAlign(stage=self.tensor, axis=axis, factor=factor, offset=offset))


@dataclass
class Schedule:
    """The schedule of a program: `te.create_schedule(outputs)`, then `s[T]` is the
    `Stage` of each computed tensor T and the primitives apply in the order called.

    >>> A = te.placeholder((64,), name="A")
    >>> B = te.compute((64,), lambda i: A[i] + 1.0, name="B")
    >>> C = te.compute((64,), lambda i: B[i] * 2.0, name="C")
    >>> s = te.create_schedule(C.op)
    >>> s[B].compute_inline()
    >>> s
    Schedule(outputs=[C], stages=[B (inline), C], primitives=[compute_inline(B)])
    """

    outputs: list[T.Tensor]
    stages: dict[int, Stage] = field(default_factory=dict)
    primitives: list[Primitive] = field(default_factory=list)
    _redirected: set[tuple[int, int]] = field(default_factory=set)  # (reader, tensor) pairs cache_read moved
    groups: list[Group] = field(default_factory=list)  # create_group, in order
    _group_of: dict[int, Group] = field(default_factory=dict)  # stage uid -> its innermost group

    def __repr__(self) -> str:
        stages = []
        for t in self._reachable():
            place = self[t]._placement() if t.uid in self.stages else ""
            stages.append(t.name + (f" ({place[2:]})" if place else ""))
        outputs = ", ".join(t.name for t in self.outputs)
        primitives = ", ".join(map(str, self.primitives))
        return f"Schedule(outputs=[{outputs}], stages=[{', '.join(stages)}], primitives=[{primitives}])"

    def __getitem__(self, key: T.Tensor | T.Operation) -> Stage:
        """The `Stage` of a computed tensor (or of its op); KeyError for another schedule's."""
        tensor = self._tensor(key)
        if tensor.is_scan_state:
            raise ScheduleError(f"{tensor.name} is the state of a scan: it has no stage to schedule")
        if tensor.is_placeholder:
            raise ScheduleError(f"{tensor.name} is a placeholder: it has no stage to schedule")
        if tensor.op.scan_of is not None:  # a scan's update: the scan's stage computes it
            tensor = tensor.op.scan_of.output(0)
        tensor = tensor.op.output(0) if tensor.op.outputs else tensor  # the outputs of an op share its stage
        if tensor.uid not in self.stages:
            self.stages[tensor.uid] = Stage(self, tensor)
        return self.stages[tensor.uid]

    def _tensor(self, key: T.Tensor | T.Operation) -> T.Tensor:
        if isinstance(key, T.Tensor):
            return key
        if key.scan_of is not None and key.output_tensor is not None:
            return key.output_tensor
        for t in self._reachable():
            if t.op is key:
                return t
        raise KeyError(f"{getattr(key, 'name', key)!r} is not a stage of this schedule")

    def _reachable(self) -> list[T.Tensor]:
        return T.collect_stages(self.outputs)

    def rfactor(self, tensor: T.Tensor, axis: T.IterVar, factor_axis: int = 0) -> T.Tensor:
        """Factor reduction `tensor` over its reduce axis `axis` (TVM's `rfactor`): returns
        `tensor.rf`, whose data axes are the tensor's with `axis` inserted before data axis
        `factor_axis` (negative counts from the end) and which reduces over the other
        reduce axes; `s[tensor]` then reduces `tensor.rf` over that axis, with fresh axes
        (`s[tensor].op.axis`, `s[tensor].op.reduce_axis`)."""
        stage = self[tensor]
        stage._leaf(axis, "rfactor")
        op = stage.op
        reduce = op.body if isinstance(op.body, T.Reduce) else None
        dependent = [] if reduce is None else [iv.name for iv in reduce.axes if names_an_axis(iv.known_extent)]
        if dependent:
            raise ScheduleError(
                f"rfactor: the extent of reduce axis {dependent[0]} of {tensor.name} depends on a data axis "
                "(te.reduce_axis((0, i))); rfactor of such a reduction is not supported"
            )
        relations = relations_of(self.primitives, stage.tensor)
        named = [] if reduce is None else T.reducer_axes(reduce)
        facts = rules.RfactorFacts(
            tensor.name,
            axis.name,
            axis.is_reduce and reduce is not None,
            fuses_data=any(iv in loop_relations.touched(relations, axis) for iv in op.axis),
            factor_axis=factor_axis,
            ndata=len(op.axis),
            attached_here=stage._attached_here(),
            reducer="" if reduce is None else reduce.kind,
            axis_named_by_reducer=named[0].name if named else None,
        )
        position = rules.check_rfactor("rfactor", facts)
        made = rfactor_stage(relations, op, stage.leaves, axis, position, f"{tensor.name}.rf")
        self.primitives.append(
            Rfactor(stage=stage.tensor, axis=axis, factor_tensor=made.factors[0], factor_axis=position, new_op=made.new_op)
        )
        stage.retired += [*op.axis, *op.reduce_axis, *stage.leaves]
        stage._op = made.new_op
        stage.leaves = made.leaves
        self.stages[made.factors[0].uid] = Stage(self, made.factors[0])
        # A tuple reducer gives one factor tensor per element, as a list (TVM's API).
        return made.factors[0] if len(made.factors) == 1 else list(made.factors)  # type: ignore[return-value]  # see above

    def cache_read(
        self, tensor: T.Tensor, scope: str, readers: T.Tensor | T.Operation | Sequence[T.Tensor | T.Operation]
    ) -> T.Tensor:
        """A stage `<tensor>.<scope>` copying `tensor` (`AL[i] = A[i]`), read by `readers`
        instead of `tensor` (TVM's `cache_read`). Scopes: global, local, shared (each only
        means a buffer of its own: no GPU)."""
        if not isinstance(tensor, T.Tensor):
            raise ScheduleTypeError(f"cache_read: expected a tensor, got {tensor!r}")
        _check_scope("cache_read", scope)
        items = [readers] if isinstance(readers, T.Tensor | T.Operation) else list(readers)
        if not items:
            raise ScheduleError(f"cache_read: no reader of {tensor.name} given")
        stages = [self[r] for r in items]
        for stage in stages:
            key = (stage.tensor.uid, tensor.uid)
            if key in self._redirected or not reads(stage.op, tensor):
                raise ScheduleError(f"cache_read: {stage.tensor.name} does not read {tensor.name}")
            self._redirected.add(key)
        axes = tuple(T.IterVar(f"ax{k}", d) for k, d in enumerate(tensor.shape))
        op = T.Operation(f"{tensor.name}.{scope}", axes, T.Read(tensor, axes))
        cache = T.Tensor(tensor.shape, tensor.dtype, op)
        op.output_tensor = cache
        self.stages[cache.uid] = Stage(self, cache)
        self.primitives.append(CacheRead(stage=tensor, cache=cache, scope=scope, readers=tuple(s.tensor for s in stages)))
        return cache

    def cache_write(self, tensor: T.Tensor | Sequence[T.Tensor], scope: str) -> T.Tensor:
        """Move the computation of `tensor` to a new stage `<tensor>.<scope>` (its axes,
        reduce axes and body) and make `tensor` its copy (TVM's `cache_write`). Splits,
        fuses and reorders of `tensor` made before lay the cache out by those loops and are
        undone; compute_at, compute_inline and loop annotations must come after. A list of
        the outputs of one multi-output stage caches them all in one multi-output stage,
        and returns the list of its outputs (TVM's)."""
        items: list[object] = list(tensor) if isinstance(tensor, list | tuple) else [tensor]
        tensors: list[T.Tensor] = []
        for t in items:
            if not isinstance(t, T.Tensor):
                raise ScheduleTypeError(f"cache_write: expected a tensor, got {t!r}")
            tensors.append(t)
        _check_scope("cache_write", scope)
        first = tensors[0] if tensors else None
        if first is None or first.is_placeholder or list(map(id, tensors)) != list(
            map(id, [first.op.output(k) for k in range(first.op.num_outputs)])
        ):
            if len(tensors) == 1 and first is not None and not first.is_placeholder:
                raise ScheduleError(
                    f"cache_write: {first.name} is one output of a multi-output stage; pass the list of all "
                    f"{first.op.num_outputs} outputs, in order"
                )
            names = ", ".join(getattr(t, "name", "?") for t in tensors) or "nothing"
            raise ScheduleError(
                f"cache_write: the tensors ({names}) must be all the outputs of one computed stage, in order"
            )
        stage = self[first]
        stage._not_extern("cache_write")
        facts = rules.CacheWriteFacts(
            first.name,
            inline=isinstance(stage._placed_by(), ComputeInline),
            attached=isinstance(stage._placed_by(), ComputeAt),
            attached_here=stage._attached_here(),
            annotated=stage._annotations(),
            split_reduce=[iv.name for iv in stage.leaves if iv.is_reduce and index_of(stage.op.reduce_axis, iv) < 0],
        )
        rules.check_cache_write("cache_write", facts)
        caches, copy = cache_write_stage(relations_of(self.primitives, first), stage.op, stage.leaves, tensors, f"{first.name}.{scope}")
        stage.cached += [*stage.leaves, *stage.op.reduce_axis]
        stage._op = copy
        stage.leaves = list(copy.axis)
        self.stages[caches[0].uid] = Stage(self, caches[0])
        self.primitives.append(CacheWrite(stage=first, cache=caches[0], scope=scope, new_op=copy))
        # one output gives the cache tensor, a multi-output stage the list of them (TVM's API)
        return caches[0] if len(caches) == 1 else list(caches)  # type: ignore[return-value]  # a list: see above

    def create_group(
        self,
        outputs: T.Tensor | Sequence[T.Tensor],
        inputs: T.Tensor | Sequence[T.Tensor],
        include_inputs: bool = False,
    ) -> Group:
        """The stages between `inputs` and `outputs` (on a path from an output down to an
        input: the outputs, the stages between, and the inputs if `include_inputs`) as one
        group that `compute_at` attaches (TVM's `create_group`). A group holding every
        stage of an existing group nests it; one that holds only some of them is an error.

        >>> A = te.placeholder((8, 8), name="A")
        >>> B = te.compute((8, 8), lambda i, j: A[i, j] + 1.0, name="B")
        >>> C = te.compute((8, 8), lambda i, j: B[i, j] * 2.0, name="C")
        >>> D = te.compute((8, 8), lambda i, j: C[i, j] - 1.0, name="D")
        >>> s = te.create_schedule(D.op)
        >>> g = s.create_group(outputs=C, inputs=B, include_inputs=True)
        >>> g.compute_at(s[D], D.op.axis[0])
        >>> s[B].group is g
        True
        """
        outs, ins = tensor_list(outputs, "outputs"), tensor_list(inputs, "inputs")
        for t in outs:
            if t.is_placeholder:
                raise ScheduleError(f"create_group: output {t.name} is a placeholder, not a stage")
        members = subgraph(lambda t: self[t].op, outs, ins, include_inputs)
        stages = [self[t] for t in members]
        parent = common_group([s.group for s in stages])
        touched = {g for s in stages for g in group_chain(s.group) if g not in group_chain(parent)}
        member_uids = {t.uid for t in members}
        for inner in touched:
            outside = [uid for uid, g in self._group_of.items() if inner in group_chain(g) and uid not in member_uids]
            rules.check_group_cut("create_group", inner.name, [self.stages[uid].tensor.name for uid in outside])
        group = Group(self, f"group{len(self.groups)}", parent)
        for inner in touched:
            if inner.group is parent:
                inner.group = group
        for t in members:
            if self._group_of.get(t.uid) is parent:
                self._group_of[t.uid] = group
        self.groups.append(group)
        group.outputs, group.inputs = tuple(outs), tuple(ins)
        self.primitives.append(CreateGroup(group=group, include_inputs=include_inputs))
        return group

    def owner_of(self, iv: T.IterVar) -> Stage | None:
        """The stage an axis belongs to (a root axis of its op, or a leaf made by split/fuse)."""
        for stage in self.stages.values():
            if index_of(stage.leaves, iv) >= 0:
                return stage
        for t in self._reachable():
            if max(index_of(t.op.axis, iv), index_of(t.op.reduce_axis, iv)) >= 0:
                return self[t]
        return None


class Group:
    """A group of stages attached as one (`Schedule.create_group`, TVM's group stage):
    `g.compute_at(s[T], axis)` computes every stage of the group that is not attached
    itself inside that loop of T; `group` is the group that holds this one."""

    def __init__(self, schedule: Schedule, name: str, group: Group | None):
        self.schedule = schedule
        self.name = name
        self.group = group
        self.outputs: tuple[T.Tensor, ...] = ()
        self.inputs: tuple[T.Tensor, ...] = ()

    @property
    def parent(self) -> Group | None:
        """The group that holds this one (as `group`)."""
        return self.group

    def __repr__(self) -> str:
        members = [s.tensor.name for uid, g in self.schedule._group_of.items() if g is self for s in [self.schedule.stages[uid]]]
        return f"Group({self.name}, stages=[{', '.join(members)}])"

    def compute_at(self, parent: Stage, axis: T.IterVar) -> None:
        """Compute the group's stages inside loop `axis` of stage `parent` (only the region
        one iteration of `parent` reads, as a stage's compute_at)."""
        if not isinstance(parent, Stage):
            raise ScheduleTypeError("compute_at: the first argument is a stage, s[T]")
        parent._leaf(axis, "compute_at")
        rules.check_group_target("compute_at", self.name, parent.tensor.name, self in group_chain(parent.group))
        self.schedule.primitives.append(GroupComputeAt(group=self, target=parent.tensor, axis=axis))

    def compute_root(self) -> None:
        """Compute the group at the root (of the group holding it): undoes `compute_at`."""
        self.schedule.primitives.append(GroupComputeRoot(group=self))


def _check_scope(what: str, scope: object) -> None:
    if scope not in CACHE_SCOPES:
        raise ScheduleError(f"{what}: unknown storage scope {scope!r} (expected one of {', '.join(CACHE_SCOPES)})")


def _is_scheduled(schedule: Schedule, tensor: T.Tensor) -> bool:
    """Whether a primitive other than compute_root names the stage (TVM's is_scheduled:
    its loops, placement or annotations changed), or its group is attached."""
    if any(isinstance(p, StagePrimitive) and p.stage is tensor and not isinstance(p, ComputeRoot) for p in schedule.primitives):
        return True
    return any(isinstance(p, GroupComputeAt) and p.group in group_chain(schedule[tensor].group) for p in schedule.primitives)


def _auto_inline(schedule: Schedule, inlinable: Callable[[T.Operation], bool]) -> None:
    """compute_inline of every stage that is not an output, not scheduled yet, and
    `inlinable` (TVM's AutoInline* passes)."""
    outputs = {t.op.output(0).uid if t.op.outputs else t.uid for t in schedule.outputs}
    reachable = schedule._reachable()
    whole = {id(t.op) for r in reachable for t in r.op.extern_inputs()}  # a te.extern reads them whole
    for tensor in reachable:
        stage = schedule[tensor]
        if tensor.uid in outputs or stage.op.body is None or _is_scheduled(schedule, tensor):
            continue
        if isinstance(stage.op, ExternOp) or id(tensor.op) in whole:
            continue
        if inlinable(stage.op):
            stage.compute_inline()


def _is_injective(op: T.Operation) -> bool:
    return not op.reduce_axis


def _is_elementwise(op: T.Operation) -> bool:
    """Injective, and every read indexes by the stage's own axes, in order."""
    reads = [n for body in op.all_bodies() for n in T.walk(body) if isinstance(n, T.Read)]
    return _is_injective(op) and all(
        len(r.indices) == len(op.axis) and all(i is a for i, a in zip(r.indices, op.axis, strict=True)) for r in reads
    )


def AutoInlineElemWise(schedule: Schedule) -> None:  # TVM's name
    """Inline every unscheduled intermediate stage that is elementwise: no reduction, and
    each read at exactly the stage's own indices (`te.schedule.AutoInlineElemWise`)."""
    _auto_inline(schedule, _is_elementwise)


def AutoInlineBroadcast(schedule: Schedule) -> None:  # TVM's name
    """Inline every unscheduled intermediate stage tagged `"broadcast"` (`te.compute(...,
    tag="broadcast")`) without a reduction (`te.schedule.AutoInlineBroadcast`)."""
    _auto_inline(schedule, lambda op: _is_injective(op) and op.tag == "broadcast")


def AutoInlineInjective(schedule: Schedule) -> None:  # TVM's name
    """Inline every unscheduled intermediate stage without a reduction
    (`te.schedule.AutoInlineInjective`)."""
    _auto_inline(schedule, _is_injective)


def create_schedule(ops: T.Operation | T.Tensor | Sequence[T.Operation | T.Tensor]) -> Schedule:
    """The default schedule of the stages that compute `ops` (one output op or tensor, or a
    list): every stage computed at the root, its loops as its axes, except the stages whose
    op names a consumer to attach to (`Operation.attach_to`: computed in its innermost
    loop); `s[T]` then gives the `Stage` to transform.

    >>> A = te.placeholder((64, 64), name="A")
    >>> B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
    >>> s = te.create_schedule(B.op)
    >>> s[B]
    Stage(B, leaf_axes=[i, j])
    """
    items = list(ops) if isinstance(ops, list | tuple) else [ops]
    schedule = Schedule([])
    tensors: list[T.Tensor] = []
    for item in items:
        if isinstance(item, T.Tensor):
            tensors.append(item)
        elif isinstance(item, T.Operation):
            tensor = item.output_tensor
            if tensor is None:
                raise ScheduleError(f"create_schedule: {item.name} is not a compute op")
            tensors.append(tensor)
        else:
            raise ScheduleTypeError(f"create_schedule takes ops or tensors, got {item!r}")
    schedule.outputs = tensors
    stages = {t.uid for t in schedule._reachable()}
    for t in schedule._reachable():
        consumer = t.op.attach_to
        if consumer is not None and consumer.uid in stages and consumer.op.axis:
            # a wider accumulator computed per element of the stage that rounds it
            schedule[t].compute_at(schedule[consumer], consumer.op.axis[-1])
    return schedule
