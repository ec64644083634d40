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

from collections.abc import Sequence
from dataclasses import dataclass, field

from compiler.te import expr as T


def index_of(items: Sequence[T.IterVar], iv: T.IterVar) -> int:
    """Position of `iv` by identity (`==` on expressions builds a comparison)."""
    for k, item in enumerate(items):
        if item is iv:
            return k
    return -1


@dataclass
class Primitive:
    kind: str  # split fuse singleton reorder compute_at compute_root compute_inline parallel vectorize unroll
    stage: T.Tensor
    axes: tuple[T.IterVar, ...] = ()
    results: tuple[T.IterVar, ...] = ()
    factor: int | None = None
    nparts: int | None = None
    target: T.Tensor | None = None
    pragma: str | None = None


class Stage:
    """The schedule of one tensor: `s[T]`."""

    def __init__(self, schedule: Schedule, tensor: T.Tensor):
        self.schedule = schedule
        self.tensor = tensor
        self.leaves: list[T.IterVar] = list(tensor.op.axis) + list(tensor.op.reduce_axis)

    @property
    def op(self) -> T.Operation:
        return self.tensor.op

    def _leaf(self, iv: T.IterVar, what: str) -> T.IterVar:
        if not isinstance(iv, T.IterVar):
            raise TypeError(f"{what}: expected an axis of {self.tensor.name}, got {iv!r}")
        if index_of(self.leaves, iv) < 0:
            owner = self.schedule.owner_of(iv)
            if owner is not None and owner is not self:
                raise ValueError(f"{what}: axis {iv.name} belongs to stage {owner.tensor.name}, not {self.tensor.name}")
            raise ValueError(f"{what}: axis {iv.name} of {self.tensor.name} was already split or fused")
        return iv

    def _record(self, p: Primitive) -> None:
        self.schedule.primitives.append(p)

    def split(
        self, parent: T.IterVar, factor: int | None = None, nparts: int | None = None
    ) -> tuple[T.IterVar, T.IterVar]:
        self._leaf(parent, "split")
        if (factor is None) == (nparts is None):
            raise ValueError("split takes exactly one of factor= or nparts=")
        value = factor if factor is not None else nparts
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"split: the factor/nparts must be a positive int, got {value!r}")
        outer = T.IterVar(f"{parent.name}.outer", is_reduce=parent.is_reduce)
        inner = T.IterVar(f"{parent.name}.inner", is_reduce=parent.is_reduce)
        position = index_of(self.leaves, parent)
        self.leaves[position : position + 1] = [outer, inner]
        self._record(Primitive("split", self.tensor, (parent,), (outer, inner), factor, nparts))
        return outer, inner

    def fuse(self, *axes: T.IterVar) -> T.IterVar:
        """Fuse consecutive loops, outer first, into one (TVM's `fuse`): one axis is
        returned as it is; no axis adds an outermost loop of one iteration."""
        if not axes:
            singleton = T.IterVar(f"{self.tensor.name}.singleton")
            self.leaves.insert(0, singleton)
            self._record(Primitive("singleton", self.tensor, (), (singleton,)))
            return singleton
        fused = self._leaf(axes[0], "fuse")
        for inner in axes[1:]:
            fused = self._fuse_pair(fused, inner)
        return fused

    def _fuse_pair(self, outer: T.IterVar, inner: T.IterVar) -> T.IterVar:
        self._leaf(outer, "fuse")
        self._leaf(inner, "fuse")
        if outer.is_reduce != inner.is_reduce:
            raise ValueError(f"fuse: can't fuse a data-parallel axis with a reduce axis ({outer.name}, {inner.name})")
        position = index_of(self.leaves, outer)
        if position + 1 >= len(self.leaves) or self.leaves[position + 1] is not inner:
            raise ValueError(f"fuse: {inner.name} must be the loop right inside {outer.name}")
        fused = T.IterVar(f"{outer.name}.{inner.name}.fused", is_reduce=outer.is_reduce and inner.is_reduce)
        self.leaves[position : position + 2] = [fused]
        self._record(Primitive("fuse", self.tensor, (outer, inner), (fused,)))
        return fused

    def reorder(self, *axes: T.IterVar) -> None:
        for iv in axes:
            self._leaf(iv, "reorder")
        if len(set(map(id, axes))) != len(axes):
            raise ValueError("reorder: an axis appears twice")
        positions = sorted(index_of(self.leaves, iv) for iv in axes)
        for position, iv in zip(positions, axes, strict=True):
            self.leaves[position] = iv
        self._record(Primitive("reorder", self.tensor, tuple(axes)))

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
            raise TypeError(f"pragma: the pragma is a name, got {name!r}")
        if name in ("unroll", "vectorize", "parallel") and value is None:
            getattr(self, name)(axis)
            return
        self._leaf(axis, "pragma")
        text = name if value is None else f"{name}={value}"
        self._record(Primitive("pragma", self.tensor, (axis,), pragma=text))

    def compute_at(self, parent: Stage, axis: T.IterVar) -> None:
        if not isinstance(parent, Stage):
            raise TypeError("compute_at: the first argument is a stage, s[T]")
        parent._leaf(axis, "compute_at")
        self._record(Primitive("compute_at", self.tensor, (axis,), target=parent.tensor))

    def compute_root(self) -> None:
        self._record(Primitive("compute_root", self.tensor))

    def compute_inline(self) -> None:
        self._record(Primitive("compute_inline", self.tensor))

    def parallel(self, axis: T.IterVar) -> None:
        if axis.is_reduce:
            raise ValueError(f"parallel: {axis.name} is a reduce axis and can't run in parallel")
        self._annotate("parallel", axis)

    def vectorize(self, axis: T.IterVar) -> None:
        if axis.is_reduce:
            raise ValueError(f"vectorize: {axis.name} is a reduce axis; its lanes would update the same element")
        self._annotate("vectorize", axis)

    def unroll(self, axis: T.IterVar) -> None:
        self._annotate("unroll", axis)

    def _annotate(self, kind: str, axis: T.IterVar) -> None:
        self._leaf(axis, kind)
        self._record(Primitive(kind, self.tensor, (axis,)))


@dataclass
class Schedule:
    outputs: list[T.Tensor]
    stages: dict[int, Stage] = field(default_factory=dict)
    primitives: list[Primitive] = field(default_factory=list)

    def __getitem__(self, key: T.Tensor | T.Operation) -> Stage:
        tensor = self._tensor(key)
        if tensor.is_placeholder:
            raise ValueError(f"{tensor.name} is a placeholder: it has no stage to schedule")
        if tensor.uid not in self.stages:
            self.stages[tensor.uid] = Stage(self, tensor)
        return self.stages[tensor.uid]

    def _tensor(self, key: T.Tensor | T.Operation) -> T.Tensor:
        if isinstance(key, T.Tensor):
            return key
        for t in self._reachable():
            if t.op is key:
                return t
        raise KeyError(f"{getattr(key, 'name', key)!r} is not a stage of this schedule")

    def _reachable(self) -> list[T.Tensor]:
        return T.collect_stages(self.outputs)

    def owner_of(self, iv: T.IterVar) -> Stage | None:
        """The stage an axis belongs to (a root axis of its op, or a leaf made by split/fuse)."""
        for stage in self.stages.values():
            if index_of(stage.leaves, iv) >= 0:
                return stage
        for t in self._reachable():
            if max(index_of(t.op.axis, iv), index_of(t.op.reduce_axis, iv)) >= 0:
                return self[t]
        return None


def create_schedule(ops: T.Operation | T.Tensor | Sequence[T.Operation | T.Tensor]) -> Schedule:
    """`te.create_schedule(D.op)` or a list of output ops."""
    items = list(ops) if isinstance(ops, list | tuple) else [ops]
    schedule = Schedule([])
    tensors: list[T.Tensor] = []
    for item in items:
        if isinstance(item, T.Tensor):
            tensors.append(item)
        elif isinstance(item, T.Operation):
            tensor = item.output_tensor
            if tensor is None:
                raise ValueError(f"create_schedule: {item.name} is not a compute op")
            tensors.append(tensor)
        else:
            raise TypeError(f"create_schedule takes ops or tensors, got {item!r}")
    schedule.outputs = tensors
    return schedule
