"""The schedule primitives a Python `Schedule` records, one small frozen record each.

`Stage` and `Schedule` (`compiler.te.schedule`) check a primitive's arguments and
append its record to `Schedule.primitives`; `compiler.te.to_ir.emit_schedule`
then asks each record for its `sched` op (`emit`). `Split`, `Fuse` and
`Singleton` are also the stage's loop-axis relations
(`compiler.schedule.loop_relations`), which the schedule API walks for the
shapes of rfactor and cache_write.

`str()` of a record is the call it stands for, as `Schedule`'s repr shows it:
`split(B, i, factor=8)`, `compute_at(B, D, j.outer)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from compiler.errors import ScheduleError
from compiler.names import fresh_name
from compiler.schedule import loop_relations
from compiler.te import language as T
from compiler.te.dims import canonical_dim

if TYPE_CHECKING:  # the IR is imported when a schedule is emitted, not when it is written
    from xdsl.ir import Operation, SSAValue

    from compiler.dialects import sched
else:

    class _LazySched:
        """The `sched` dialect (xDSL), imported at the first emission: `import compiler.te`
        and writing a program import no IR (a build served by the cache never emits)."""

        def __getattr__(self, name: str) -> object:
            from compiler.dialects import sched as dialect

            return getattr(dialect, name)

    sched = _LazySched()


def index_of(items: Sequence[T.IterVar], iv: T.IterVar) -> int:
    """Position of `iv` by identity (`==` on expressions builds a comparison)."""
    for k, item in enumerate(items):
        if item is iv:
            return k
    return -1


class GroupLike(Protocol):
    """What a group primitive reads of `compiler.te.schedule.Group`."""

    @property
    def name(self) -> str: ...
    @property
    def outputs(self) -> tuple[T.Tensor, ...]: ...
    @property
    def inputs(self) -> tuple[T.Tensor, ...]: ...


class ScheduleEmitter:
    """The state of emitting a Python schedule's primitives: the `sched` values of the
    axes named so far, each stage's op so far (rfactor and cache_write replace it), and
    the names of stages, arguments and groups."""

    def __init__(self, names: dict[int, str], inputs: dict[int, str]):
        from xdsl.ir import Block

        self.block = Block()
        self.names = names
        self.inputs = inputs
        self.values: dict[int, SSAValue] = {}
        self.ops: dict[int, T.Operation] = {}
        self.group_names: dict[int, str] = {}

    def stage_name(self, t: T.Tensor) -> str:
        if t.uid not in self.names:
            raise ScheduleError(f"schedule: {t.name} is not a stage of the function being built")
        return self.names[t.uid]

    def source_name(self, t: T.Tensor) -> str:
        """A stage's name, or an argument's (cache_read and create_group may name one)."""
        return self.inputs.get(t.uid) or self.stage_name(t)

    def axis(self, t: T.Tensor, iv: T.IterVar) -> SSAValue:
        """The value of axis `iv` of stage `t`: a `sched.axis` the first time a root axis is named."""
        if iv.uid not in self.values:
            current = self.ops.get(t.uid, t.op)
            if (k := index_of(current.axis, iv)) >= 0:
                op = sched.AxisOp(self.stage_name(t), k)
            elif (k := index_of(current.reduce_axis, iv)) >= 0:
                op = sched.AxisOp(self.stage_name(t), k, reduce=True)
            else:
                raise ScheduleError(f"schedule: {iv.name} is not an axis of {t.name}")
            self.block.add_op(op)
            op.result.name_hint = iv.name.replace(".", "_")
            self.values[iv.uid] = op.result
        return self.values[iv.uid]

    @staticmethod
    def dim(d: T.Dim) -> int | str:
        return canonical_dim(d)

    def taken(self) -> set[str]:
        return {*self.names.values(), *self.inputs.values()}

    def name_cache(self, cache: T.Tensor, source: str, scope: str) -> None:
        """The cache stage's name is the one the IR gives it."""
        self.names[cache.uid] = sched.cache_stage_name(source, scope, self.taken())

    def name_group(self, group: GroupLike) -> str:
        """A new group's name, `group<k>` (suffixed when a stage or argument has that name)."""
        taken = {*self.taken(), *self.group_names.values()}
        name = fresh_name(group.name, taken, "_")
        self.group_names[id(group)] = name
        return name

    def emit(self, p: Primitive) -> None:
        op = p.emit(self)
        self.block.add_op(op)
        for iv, result in zip(p.results, op.results, strict=True):
            result.name_hint = iv.name.replace(".", "_")
            self.values[iv.uid] = result




def _call(name: str, *parts: object) -> str:
    return f"{name}({', '.join(map(str, parts))})"


@dataclass(frozen=True, eq=False)
class Primitive(ABC):
    """One recorded primitive; `name` is TVM's name of the call."""

    name: ClassVar[str]

    @property
    def results(self) -> tuple[T.IterVar, ...]:
        """The axes the primitive makes, one per result of its sched op."""
        return ()

    @abstractmethod
    def emit(self, em: ScheduleEmitter) -> Operation:
        """The primitive's `sched` op (its results are named after `results`)."""


@dataclass(frozen=True, eq=False)
class StagePrimitive(Primitive):
    """A primitive of one stage, named by its (first) output tensor."""

    stage: T.Tensor


@dataclass(frozen=True, eq=False)
class Split(StagePrimitive, loop_relations.Split[T.IterVar]):
    factor: int | T.Expr | None = None  # an int, or a te.var expression (symbolic)
    nparts: int | None = None
    disable_predication: bool = False  # the user states the factor divides the extent
    name: ClassVar[str] = "split"

    @property
    def results(self) -> tuple[T.IterVar, ...]:
        return (self.outer, self.inner)

    def emit(self, em: ScheduleEmitter) -> Operation:
        factor = self.factor if self.factor is None or isinstance(self.factor, int) else em.dim(self.factor)
        parent = em.axis(self.stage, self.parent)
        return sched.SplitOp(parent, factor=factor, nparts=self.nparts, disable_predication=self.disable_predication)

    def __str__(self) -> str:
        options = [f"{k}={v}" for k, v in (("factor", self.factor), ("nparts", self.nparts)) if v is not None]
        return _call(self.name, self.stage.name, self.parent.name, *options)


@dataclass(frozen=True, eq=False)
class Fuse(StagePrimitive, loop_relations.Fuse[T.IterVar]):
    name: ClassVar[str] = "fuse"

    @property
    def results(self) -> tuple[T.IterVar, ...]:
        return (self.fused,)

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.FuseOp(em.axis(self.stage, self.outer), em.axis(self.stage, self.inner))

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.outer.name, self.inner.name)


@dataclass(frozen=True, eq=False)
class Singleton(StagePrimitive, loop_relations.Singleton[T.IterVar]):
    """`fuse()` of no axis: an outermost loop of one iteration."""

    name: ClassVar[str] = "singleton"

    @property
    def results(self) -> tuple[T.IterVar, ...]:
        return (self.iv,)

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.SingletonOp(em.stage_name(self.stage))

    def __str__(self) -> str:
        return _call(self.name, self.stage.name)


@dataclass(frozen=True, eq=False)
class Reorder(StagePrimitive):
    axes: tuple[T.IterVar, ...]
    name: ClassVar[str] = "reorder"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ReorderOp([em.axis(self.stage, iv) for iv in self.axes])

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, *(iv.name for iv in self.axes))


@dataclass(frozen=True, eq=False)
class AxisPrimitive(StagePrimitive):
    """A primitive on one axis of the stage."""

    axis: T.IterVar

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.axis.name)


@dataclass(frozen=True, eq=False)
class LoopAnnotation(AxisPrimitive):
    """A primitive that marks one loop of the stage."""


@dataclass(frozen=True, eq=False)
class Parallel(LoopAnnotation):
    name: ClassVar[str] = "parallel"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ParallelOp(em.axis(self.stage, self.axis))


@dataclass(frozen=True, eq=False)
class Vectorize(LoopAnnotation):
    name: ClassVar[str] = "vectorize"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.VectorizeOp(em.axis(self.stage, self.axis))


@dataclass(frozen=True, eq=False)
class Unroll(LoopAnnotation):
    name: ClassVar[str] = "unroll"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.UnrollOp(em.axis(self.stage, self.axis))


@dataclass(frozen=True, eq=False)
class Pragma(LoopAnnotation):
    text: str  # `name` or `name=value`
    name: ClassVar[str] = "pragma"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.PragmaOp(em.axis(self.stage, self.axis), self.text)

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.axis.name, f"pragma={self.text!r}")


@dataclass(frozen=True, eq=False)
class StorageAlign(AxisPrimitive):
    """Pad the stride of root axis `axis` of the stage's buffer: `stride % factor == offset`."""

    factor: int
    offset: int
    name: ClassVar[str] = "storage_align"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.StorageAlignOp(em.axis(self.stage, self.axis), self.factor, self.offset)

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.axis.name, f"factor={self.factor}")


@dataclass(frozen=True, eq=False)
class ComputeAt(StagePrimitive):
    """Compute the stage inside loop `axis` of stage `target`."""

    target: T.Tensor
    axis: T.IterVar
    name: ClassVar[str] = "compute_at"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ComputeAtOp(em.stage_name(self.stage), em.axis(self.target, self.axis))

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.target.name, self.axis.name)


@dataclass(frozen=True, eq=False)
class ComputeRoot(StagePrimitive):
    name: ClassVar[str] = "compute_root"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ComputeRootOp(em.stage_name(self.stage))

    def __str__(self) -> str:
        return _call(self.name, self.stage.name)


@dataclass(frozen=True, eq=False)
class ComputeInline(StagePrimitive):
    name: ClassVar[str] = "compute_inline"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ComputeInlineOp(em.stage_name(self.stage))

    def __str__(self) -> str:
        return _call(self.name, self.stage.name)


@dataclass(frozen=True, eq=False)
class Rfactor(StagePrimitive):
    """The reduction of the stage over `axis` factored into stage `factor_tensor`, whose
    data axes hold `axis` at `factor_axis`; `new_op` is the stage's op from then on."""

    axis: T.IterVar
    factor_tensor: T.Tensor
    factor_axis: int
    new_op: T.Operation
    name: ClassVar[str] = "rfactor"

    def emit(self, em: ScheduleEmitter) -> Operation:
        op = sched.RfactorOp(em.axis(self.stage, self.axis), em.stage_name(self.factor_tensor), self.factor_axis)
        em.ops[self.stage.uid], em.ops[self.factor_tensor.uid] = self.new_op, self.factor_tensor.op
        return op

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.factor_tensor.name, self.axis.name, f"factor={self.factor_axis}")


@dataclass(frozen=True, eq=False)
class CacheRead(StagePrimitive):
    """A stage `cache` copying tensor `stage` (a stage or an argument), read by `readers`."""

    cache: T.Tensor
    scope: str
    readers: tuple[T.Tensor, ...]
    name: ClassVar[str] = "cache_read"

    def emit(self, em: ScheduleEmitter) -> Operation:
        source = em.source_name(self.stage)
        em.name_cache(self.cache, source, self.scope)
        return sched.CacheReadOp(source, self.scope, [em.stage_name(r) for r in self.readers])

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.cache.name, f"scope={self.scope!r}")


@dataclass(frozen=True, eq=False)
class CacheWrite(StagePrimitive):
    """The stage's computation moved to stage `cache`; `new_op` (the stage from then on)
    copies the cache."""

    cache: T.Tensor
    scope: str
    new_op: T.Operation
    name: ClassVar[str] = "cache_write"

    def emit(self, em: ScheduleEmitter) -> Operation:
        source = em.source_name(self.stage)
        em.name_cache(self.cache, source, self.scope)
        for iv in [*em.ops.get(self.stage.uid, self.stage.op).reduce_axis, *self.cache.op.axis]:
            em.values.pop(iv.uid, None)  # the reduce axes are the cache stage's from now on
        em.ops[self.stage.uid] = self.new_op
        return sched.CacheWriteOp(source, self.scope)

    def __str__(self) -> str:
        return _call(self.name, self.stage.name, self.cache.name, f"scope={self.scope!r}")


@dataclass(frozen=True, eq=False)
class CreateGroup(Primitive):
    group: GroupLike
    include_inputs: bool
    name: ClassVar[str] = "create_group"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.CreateGroupOp(
            em.name_group(self.group),
            [em.stage_name(t) for t in self.group.outputs],
            [em.source_name(t) for t in self.group.inputs],
            self.include_inputs,
        )

    def __str__(self) -> str:
        return _call(self.name, self.group.name)


@dataclass(frozen=True, eq=False)
class GroupComputeAt(Primitive):
    """Compute the group's stages inside loop `axis` of stage `target`."""

    group: GroupLike
    target: T.Tensor
    axis: T.IterVar
    name: ClassVar[str] = "group_compute_at"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ComputeAtOp(em.group_names[id(self.group)], em.axis(self.target, self.axis))

    def __str__(self) -> str:
        return _call(self.name, self.group.name, self.target.name, self.axis.name)


@dataclass(frozen=True, eq=False)
class GroupComputeRoot(Primitive):
    group: GroupLike
    name: ClassVar[str] = "group_compute_root"

    def emit(self, em: ScheduleEmitter) -> Operation:
        return sched.ComputeRootOp(em.group_names[id(self.group)])

    def __str__(self) -> str:
        return _call(self.name, self.group.name)
