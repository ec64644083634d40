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

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.analysis import loop_relations
from compiler.analysis.stage_groups import common_group, group_chain
from compiler.dialects.storage_scopes import CACHE_SCOPES
from compiler.errors import ScheduleError, ScheduleTypeError
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
        for p in reversed(self.schedule.primitives):
            if not isinstance(p, StagePrimitive) or p.stage is not self.tensor:
                continue
            if isinstance(p, ComputeInline):
                return ", inline"
            if isinstance(p, ComputeRoot):
                return ", root"
            if isinstance(p, ComputeAt):
                return f", attached at {p.target.name}.{p.axis.name}"
        return ""

    @property
    def group(self) -> Group | None:
        """The innermost group (`Schedule.create_group`) holding the stage, if any."""
        return self.schedule._group_of.get(self.tensor.uid)

    def _not_extern(self, what: str) -> None:
        """A te.extern stage has no loops, and is computed at the root, whole."""
        if isinstance(self.op, ExternOp):
            raise ScheduleError(
                f"{what}: stage {self.tensor.name} is a te.extern stage: an external function computes it "
                "over whole buffers, so it has no loops to split or reorder and can't be attached (compute_at) "
                "or inlined"
            )

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
            raise ScheduleError(f"{what}: axis {iv.name} of {self.tensor.name} was already split or fused")
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
        self._record(
            Split(
                stage=self.tensor,
                parent=parent,
                outer=outer,
                inner=inner,
                factor=factor,
                nparts=nparts,
                disable_predication=disable_predication,
            )
        )
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
        position = index_of(self.leaves, outer)
        if position + 1 >= len(self.leaves) or self.leaves[position + 1] is not inner:
            raise ScheduleError(f"fuse: {inner.name} must be the loop right inside {outer.name}")
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
        if len(set(map(id, axes))) != len(axes):
            raise ScheduleError("reorder: an axis appears twice")
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
        self._record(ComputeInline(stage=self.tensor))

    def parallel(self, axis: T.IterVar) -> None:
        """Run the iterations of loop `axis` on several threads (OpenMP); not a reduce axis."""
        if axis.is_reduce:
            raise ScheduleError(f"parallel: {axis.name} is a reduce axis and can't run in parallel")
        self._annotate(Parallel, axis)

    def vectorize(self, axis: T.IterVar) -> None:
        """Turn loop `axis` (innermost, ideally of a constant extent) into vector operations;
        not a reduce axis."""
        if axis.is_reduce:
            raise ScheduleError(f"vectorize: {axis.name} is a reduce axis; its lanes would update the same element")
        self._annotate(Vectorize, axis)

    def unroll(self, axis: T.IterVar) -> None:
        """Unroll loop `axis` completely (it needs a constant extent to be unrolled)."""
        self._annotate(Unroll, axis)

    def _annotate(self, kind: type[Parallel | Vectorize | Unroll], axis: T.IterVar) -> None:
        self._leaf(axis, kind.name)
        self._record(kind(stage=self.tensor, axis=axis))

    def storage_align(self, axis: T.IterVar, factor: int, offset: int) -> None:
        """Pad the stride of dimension `axis` (a root axis) of the stage's buffer so that
        `stride % factor == offset` (TVM's `storage_align`)."""
        self._not_extern("storage_align")
        if index_of(self.op.axis, axis) < 0:
            raise ScheduleError(f"storage_align: {getattr(axis, 'name', axis)} is not a data-parallel axis of {self.tensor.name}.op.axis")
        for what, value in (("factor", factor), ("offset", offset)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise ScheduleTypeError(f"storage_align: the {what} is an int, got {value!r}")
        if factor < 1 or not 0 <= offset < factor:
            raise ScheduleError(f"storage_align: needs factor >= 1 and 0 <= offset < factor, got factor {factor}, offset {offset}")
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
        if not axis.is_reduce or not isinstance(op.body, T.Reduce):
            raise ScheduleError(f"rfactor: {axis.name} is a data-parallel axis of {tensor.name}; only a reduce axis can be factored")
        dependent = [iv.name for iv in op.body.axes if _names_an_axis(iv.known_extent)]
        if dependent:
            raise ScheduleError(
                f"rfactor: the extent of reduce axis {dependent[0]} of {tensor.name} depends on a data axis "
                "(te.reduce_axis((0, i))); rfactor of such a reduction is not supported"
            )
        named = T.reducer_axes(op.body)
        if named:
            # each partial reduction would start from the identity at B.rf's axes, and the combiner
            # merging the parts would see B's: neither is the value the reduction means
            raise ScheduleError(
                f"rfactor: the reducer {op.body.kind} of {tensor.name} names its data axis {named[0].name} "
                "(in its identity or combiner); rfactor of such a reduction is not supported"
            )
        ndata = len(op.axis)
        position = factor_axis if factor_axis >= 0 else ndata + 1 + factor_axis
        if not 0 <= position <= ndata:
            raise ScheduleError(f"rfactor: factor_axis {factor_axis} is out of range for the {ndata} axes of {tensor.name}")
        f = _Rfactor(self, stage, axis)
        reduce = op.body
        data = [T.IterVar(iv.name, iv.extent) for iv in op.axis]
        kept = [T.IterVar(iv.name, iv.extent, is_reduce=True) for iv in reduce.axes if iv not in f.touched]
        leaves = {iv: T.IterVar(iv.name, f.extent[iv], is_reduce=True) for iv in f.leaves if iv is not axis}
        factored = T.IterVar(axis.name, f.extent[axis])
        mapping: dict[int, T.Expr] = {old.uid: new for old, new in zip(op.axis, data, strict=True)}
        mapping |= {old.uid: new for old, new in zip((iv for iv in reduce.axes if iv not in f.touched), kept, strict=True)}
        roots = f.values({**leaves, axis: factored})
        mapping |= {iv.uid: roots[iv] for iv in f.roots}
        where = None if reduce.where is None else T.substitute(reduce.where, mapping)
        for iv in f.roots:
            if not (isinstance(iv.extent, int) and isinstance(f.extent[axis], int) and _covers_exactly(f, iv)):
                check = roots[iv] < iv.known_extent
                where = check if where is None else where & check
        data.insert(position, factored)
        axes_rf = (*kept, *leaves.values())
        bodies = [b for b in op.all_bodies() if isinstance(b, T.Reduce)]
        sources = tuple(T.substitute(e, mapping) for e in reduce.sources)
        factor_bodies = tuple(
            T.Reduce(
                b.kind,
                sources[k] if sources else T.substitute(b.body, mapping),
                axes_rf,
                b.init if b.combiner is not None else None,  # a user reducer's start is its identity
                where,
                b.combiner,
                sources,
                k,
            )
            for k, b in enumerate(bodies)
        )
        factor_op = T.Operation(f"{tensor.name}.rf", tuple(data), factor_bodies[0], bodies=factor_bodies if sources else ())
        shape = tuple(iv.known_extent for iv in data)
        factors = tuple(T.Tensor(shape, b.dtype, factor_op, value_index=k) for k, b in enumerate(factor_bodies))
        factor_op.output_tensor = factors[0]
        if sources:
            factor_op.outputs = factors
        axes = [T.IterVar(iv.name, iv.extent) for iv in op.axis]
        v = T.IterVar(f"{axis.name}.v", f.extent[axis], is_reduce=True)
        index: list[T.Expr] = list(axes)
        index.insert(position, v)
        reads = tuple(T.Read(t, tuple(index)) for t in factors)
        new_bodies = tuple(
            T.Reduce(b.kind, reads[k], (v,), b.init, None, b.combiner, reads if sources else (), k)
            for k, b in enumerate(bodies)
        )
        new_op = T.Operation(op.name, tuple(axes), new_bodies[0], bodies=new_bodies if sources else ())
        new_op.output_tensor, new_op.outputs = op.output_tensor, op.outputs
        self.primitives.append(
            Rfactor(stage=stage.tensor, axis=axis, factor_tensor=factors[0], factor_axis=position, new_op=new_op)
        )
        stage.retired += [*op.axis, *reduce.axes, *stage.leaves]
        stage._op = new_op
        stage.leaves = [*axes, v]
        self.stages[factors[0].uid] = Stage(self, factors[0])
        # A tuple reducer gives one factor tensor per element, as a list (TVM's API).
        return factors[0] if len(factors) == 1 else list(factors)  # type: ignore[return-value]  # see above

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
            if key in self._redirected or not _reads(stage.op, tensor):
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
        self._check_cache_write(stage)
        layout = _CacheLayout(self, stage)
        name = f"{first.name}.{scope}"
        bodies = tuple(T.substitute(b, layout.roots) for b in stage.op.all_bodies())
        op = T.Operation(name, tuple(layout.axes), bodies[0], bodies=bodies if len(bodies) > 1 else ())
        caches = tuple(
            T.Tensor(tuple(layout.extents), t.dtype, op, value_index=k) for k, t in enumerate(tensors)
        )
        op.output_tensor = caches[0]
        reads = tuple(T.Read(c, tuple(layout.indices)) for c in caches)
        copy = T.Operation(stage.op.name, stage.op.axis, reads[0], bodies=reads if len(reads) > 1 else ())
        copy.output_tensor = first
        if len(caches) > 1:
            op.outputs, copy.outputs = caches, tuple(tensors)
        stage.cached += [*stage.leaves, *stage.op.reduce_axis]
        stage._op = copy
        stage.leaves = list(copy.axis)
        self.stages[caches[0].uid] = Stage(self, caches[0])
        self.primitives.append(CacheWrite(stage=first, cache=caches[0], scope=scope, new_op=copy))
        # one output gives the cache tensor, a multi-output stage the list of them (TVM's API)
        return caches[0] if len(caches) == 1 else list(caches)  # type: ignore[return-value]  # a list: see above

    def _check_cache_write(self, stage: Stage) -> None:
        stage._not_extern("cache_write")
        name = stage.tensor.name
        for p in self.primitives:
            if isinstance(p, ComputeAt | ComputeInline | LoopAnnotation) and p.stage is stage.tensor:
                raise ScheduleError(
                    f"cache_write: {name} already has a {p.name}; cache_write replaces {name}'s stage, so it must "
                    "come before compute_at, compute_inline and loop annotations"
                )
            if isinstance(p, ComputeAt | GroupComputeAt) and p.target is stage.tensor:
                what = p.group.name if isinstance(p, GroupComputeAt) else p.stage.name
                raise ScheduleError(
                    f"cache_write: {what} is computed at a loop of {name}, which cache_write replaces; "
                    "attach it after the cache_write"
                )
        for iv in stage.leaves:
            if iv.is_reduce and index_of(stage.op.reduce_axis, iv) < 0:
                raise ScheduleError(
                    f"cache_write: the reduce axis {iv.name} of {name} was split or fused; split the cache "
                    "stage's reduce axes after the cache_write"
                )

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
        outs, ins = _tensor_list(outputs, "outputs"), _tensor_list(inputs, "inputs")
        for t in outs:
            if t.is_placeholder:
                raise ScheduleError(f"create_group: output {t.name} is a placeholder, not a stage")
        members = _subgraph(self, outs, ins, include_inputs)
        stages = [self[t] for t in members]
        parent = common_group([s.group for s in stages])
        touched = {g for s in stages for g in group_chain(s.group) if g not in group_chain(parent)}
        for inner in touched:
            outside = [uid for uid, g in self._group_of.items() if inner in group_chain(g) and uid not in {t.uid for t in members}]
            if outside:
                names = ", ".join(self.stages[uid].tensor.name for uid in outside)
                raise ScheduleError(
                    f"create_group: the new group cuts through {inner.name}: its stage(s) {names} are not between "
                    "the inputs and the outputs (a group nests whole groups only)"
                )
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
        if self in group_chain(parent.group):
            raise ScheduleError(f"compute_at: {parent.tensor.name} is in {self.name}, which can't be computed inside itself")
        self.schedule.primitives.append(GroupComputeAt(group=self, target=parent.tensor, axis=axis))

    def compute_root(self) -> None:
        """Compute the group at the root (of the group holding it): undoes `compute_at`."""
        self.schedule.primitives.append(GroupComputeRoot(group=self))


def _tensor_list(items: T.Tensor | Sequence[T.Tensor], what: str) -> list[T.Tensor]:
    found = [items] if isinstance(items, T.Tensor) else list(items)
    if not found:
        raise ScheduleError(f"create_group: no {what} given")
    for t in found:
        if not isinstance(t, T.Tensor):
            raise ScheduleTypeError(f"create_group: the {what} are tensors, got {t!r}")
    return [t.op.output(0) if t.op.outputs else t for t in found]


def _subgraph(schedule: Schedule, outputs: list[T.Tensor], inputs: list[T.Tensor], include: bool) -> list[T.Tensor]:
    """The computed tensors on a path from an output down to an input (TVM's GetSubGraph)."""
    boundary = {t.uid for t in inputs}
    reaches: dict[int, bool] = {}
    order: list[T.Tensor] = []

    def visit(t: T.Tensor) -> bool:
        if t.uid in reaches:
            return reaches[t.uid]
        if t.uid in boundary:
            reaches[t.uid] = True
            if include and not t.is_placeholder:
                order.append(t)
            return True
        reaches[t.uid] = False
        if t.is_placeholder:
            return False
        found = [visit(r.op.output(0) if r.op.outputs else r) for r in _read_tensors(schedule[t].op)]
        reaches[t.uid] = any(found)
        if reaches[t.uid]:
            order.append(t)
        return reaches[t.uid]

    for t in outputs:
        if not visit(t):
            raise ScheduleError(f"create_group: output {t.name} reads none of the inputs, directly or through other stages")
    unread = [t.name for t in inputs if not reaches.get(t.uid)]
    if unread:
        raise ScheduleError(
            f"create_group: input(s) {', '.join(unread)} are not read by the outputs (directly or through other "
            "stages): a group holds the stages between its inputs and outputs"
        )
    return order


def _read_tensors(op: T.Operation) -> list[T.Tensor]:
    found: list[T.Tensor] = []
    for body in op.all_bodies():
        for node in T.walk(body):
            if isinstance(node, T.Read) and all(node.tensor is not t for t in found):
                found.append(node.tensor)
    return found


def _static_split(p: Split, what: str) -> None:
    if p.factor is not None and not isinstance(p.factor, int):
        raise ScheduleError(
            f"{what}: {p.stage.name}'s axis {p.parent.name} is split by the symbolic factor "
            f"{T.dim_repr(p.factor)}; {what} of such a stage is not supported"
        )


def _names_an_axis(extent: T.Dim) -> bool:
    return not isinstance(extent, int) and any(isinstance(node, T.IterVar) for node in T.walk(extent))


def _ceil_div(a: T.Dim, b: T.Dim) -> T.Dim:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return (a + b - 1) // b


class _Rfactor:
    """TVM's rfactor on the Python side: the shapes and axes users see (`BF.shape`,
    `BF.op.reduce_axis`, `s[B].op.axis`). The IR rewrite is compiler.transforms.rfactor."""

    def __init__(self, schedule: Schedule, stage: Stage, axis: T.IterVar):
        relations = _relations(schedule, stage.tensor)
        self.touched = loop_relations.touched(relations, axis)
        fused_data = [iv.name for iv in stage.op.axis if iv in self.touched]
        if fused_data:
            raise ScheduleError(
                f"rfactor: {axis.name} of {stage.tensor.name} is fused with the data axis {fused_data[0]}; only "
                "loops of reduce axes alone can be factored"
            )
        reduce = stage.op.body
        assert isinstance(reduce, T.Reduce)
        self.relations = [rel for rel in relations if set(rel.inputs) & self.touched]
        self.extent: dict[T.IterVar, T.Dim] = {iv: iv.known_extent for iv in reduce.axes if iv in self.touched}
        loop_relations.pass_down_extent(self.relations, self.extent, _rfactor_split, operator.mul, 1)
        self.leaves = [iv for iv in stage.leaves if iv in self.touched]
        self.roots = [iv for iv in reduce.axes if iv in self.touched]

    def values(self, leaf_value: dict[T.IterVar, T.Expr]) -> dict[T.IterVar, T.Expr]:
        """The touched root axes as expressions of the new leaf axes (PassUpIndex)."""
        value: dict[T.IterVar, T.Expr | int] = {
            iv: 0 if _is_one(self.extent[iv]) else leaf_value[iv] for iv in self.leaves
        }
        loop_relations.pass_up_index(self.relations, value, self.extent)
        return {iv: T.as_expr(value[iv], T.INDEX) for iv in self.roots}


def _rfactor_split(p: Split, e: T.Dim) -> tuple[T.Dim, T.Dim]:
    """A split's outer and inner extents for rfactor: nparts gives the outer axis exactly
    nparts iterations (TVM's PassDownDomain)."""
    _static_split(p, "rfactor")
    if p.factor is not None:
        assert isinstance(p.factor, int)
        return _ceil_div(e, p.factor), p.factor
    assert p.nparts is not None
    return p.nparts, _ceil_div(e, p.nparts)


def _is_one(d: T.Dim) -> bool:
    return isinstance(d, int) and d == 1


def _covers_exactly(f: _Rfactor, root: T.IterVar) -> bool:
    """Whether the leaves of a static root axis cover exactly its extent (no bound check)."""
    extents = [f.extent[iv] for iv in f.leaves]
    if not all(isinstance(e, int) for e in extents):
        return False
    product = 1
    for e in extents:
        assert isinstance(e, int)
        product *= e
    return len(f.roots) == 1 and product == root.extent


def _check_scope(what: str, scope: object) -> None:
    if scope not in CACHE_SCOPES:
        raise ScheduleError(f"{what}: unknown storage scope {scope!r} (expected one of {', '.join(CACHE_SCOPES)})")


def _reads(op: T.Operation, tensor: T.Tensor) -> bool:
    return any(isinstance(n, T.Read) and n.tensor is tensor for body in op.all_bodies() for n in T.walk(body))


class _CacheLayout:
    """The cache of `cache_write` as users see it (`CL.op.axis`, `CL.shape`): one axis per
    data-parallel leaf of the stage, and each leaf as a function of the stage's axes
    (TVM's relayout; the IR rewrite is compiler.transforms.cache_stages)."""

    def __init__(self, schedule: Schedule, stage: Stage):
        relations = _relations(schedule, stage.tensor)
        extent: dict[T.IterVar, T.Dim] = {iv: iv.known_extent for iv in stage.op.axis}
        loop_relations.pass_down_extent(relations, extent, _cache_split, operator.mul, 1)
        index: dict[T.IterVar, T.Expr] = {iv: iv for iv in stage.op.axis}
        loop_relations.pass_down_index(relations, index, extent, T.const(0))
        leaves = [iv for iv in stage.leaves if not iv.is_reduce]
        self.axes = [T.IterVar(f"{iv.name}.c", extent[iv]) for iv in leaves]
        self.extents = [extent[iv] for iv in leaves]
        self.indices = [index[iv] for iv in leaves]
        # the stage's axes as functions of the cache's (PassUpIndex), for the cache's body
        value: dict[T.IterVar, T.Expr] = dict(zip(leaves, self.axes, strict=True))
        loop_relations.pass_up_index(relations, value, extent)
        self.roots: dict[int, T.Expr] = {iv.uid: value[iv] for iv in stage.op.axis}


def _cache_split(p: Split, e: T.Dim) -> tuple[T.Dim, T.Dim]:
    """A split's outer and inner extents for the cache: ceil(extent / inner) outer iterations."""
    _static_split(p, "cache_write")
    if p.factor is not None:
        assert isinstance(p.factor, int)
        f: T.Dim = p.factor
    else:
        assert p.nparts is not None  # a split has a factor or nparts
        f = _ceil_div(e, p.nparts)
    return _ceil_div(e, f), f


def _relations(schedule: Schedule, tensor: T.Tensor) -> list[Split | Fuse | Singleton]:
    """The loop-axis relations of a stage since its op last changed (cache_write, rfactor)."""
    found: list[Split | Fuse | Singleton] = []
    for p in schedule.primitives:
        if isinstance(p, CacheWrite | Rfactor) and p.stage is tensor:
            found = []
        elif isinstance(p, Split | Fuse | Singleton) and p.stage is tensor:
            found.append(p)
    return found


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
