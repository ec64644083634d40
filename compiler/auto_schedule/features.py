"""What the cost model reads of a stage (`StageInfo`): its extents, element size, reads
(the axes each index uses, whether a read is elementwise), guards and consumers."""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import SSAValue

from compiler.analysis.walk import walk_ops
from compiler.arith.expr import FloorMod, IndexConst, IndexExpr, IndexVar, free_vars
from compiler.arith.ir import expr_from_value
from compiler.arith.simplify import simplify
from compiler.dialects import te
from compiler.dialects.shape import Dim
from compiler.schedule.model import ScheduleModel, Stage


@dataclass
class StageInfo:
    """What the cost model reads of a stage."""

    name: str
    extents: list[int | None]  # data axes; None when symbolic
    reduce_extents: list[int | None]
    element_bits: int
    guarded: bool  # the body holds a lazy scf.if (a pad, a stencil's edge)
    is_output: bool
    reads: list[list[frozenset[str]]]  # per read: the axis names each index uses
    read_tensors: list[str | None]  # per read: the stage or argument read (None: a multi-output stage's)
    identity_reads: list[bool]  # per read: index k is axis k (an elementwise read)
    leading_identity: list[int]  # per read: how many leading indices are the stage's own axes, in order
    read_sizes: list[tuple[list[int | None], int]]  # per read: the tensor's extents and element bits
    shape: list[str]
    axis_names: list[str]
    reduce_names: list[str]
    consumers: list[str] = field(default_factory=list)
    reads_reduction: bool = False
    moves_only: bool = False
    """The body is one read (a transpose, reshape, slice): inlined, it costs index math."""
    blocks: dict[str, int] = field(default_factory=dict)
    """Per data axis: the c of a read whose last index is `axis % c` (a weight blocked by
    output channel): split by c, the read is contiguous in the tile."""
    affine_reads: list[list[frozenset[str]]] = field(default_factory=list)
    """`reads` without the indices computed from data (an expert's weights picked by a
    row's expert id), which count as using every axis there."""


def _is_axis(index: IndexExpr | None, axis: str, extent: Dim) -> bool:
    """`index` is the axis itself, or 0 along an axis of extent 1 (a broadcast's index)."""
    return (isinstance(index, IndexVar) and index.name == axis) or (extent == 1 and index == IndexConst(0))


def _tensor_name(value: SSAValue) -> str | None:
    """The name sched ops give the tensor `value` (a stage's or an argument's)."""
    owner = value.owner
    if isinstance(owner, te.ComputeOp):
        return owner.stage.data if len(owner.outputs) == 1 else None
    return value.name_hint


def _extent(d: Dim) -> int | None:
    return d if isinstance(d, int) else None


def _element_bits(t: te.TensorType) -> int:
    e = t.element_type
    if isinstance(e, IntegerType):
        return e.bitwidth
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}.get(str(e), 32)


@dataclass
class _Reads:
    """The features of a stage's reads, one entry per read (`StageInfo`'s fields)."""

    uses: list[list[frozenset[str]]] = field(default_factory=list)
    tensors: list[str | None] = field(default_factory=list)
    identity: list[bool] = field(default_factory=list)
    leading: list[int] = field(default_factory=list)
    sizes: list[tuple[list[int | None], int]] = field(default_factory=list)
    blocks: dict[str, int] = field(default_factory=dict)
    affine: list[list[frozenset[str]]] = field(default_factory=list)

    def add(self, read: te.ReadOp, exprs: list[IndexExpr | None], names: set[str], axes: list[str], shape: list[Dim]) -> None:
        """One read whose indices are `exprs` (None: not an index expression) of a stage
        whose root axes are `names` and data axes `axes` of extents `shape`."""
        self.tensors.append(_tensor_name(read.tensor))
        last = simplify(exprs[-1]) if exprs and exprs[-1] is not None else None  # canonical `v % c`
        if isinstance(last, FloorMod) and isinstance(last.a, IndexVar) and isinstance(last.b, IndexConst):
            self.blocks[last.a.name] = last.b.value
        self.uses.append([frozenset(names if e is None else free_vars(e) & names) for e in exprs])
        self.affine.append([frozenset() if e is None else free_vars(e) & names for e in exprs])
        self.identity.append(
            len(exprs) == len(axes) and all(_is_axis(e, a, d) for e, a, d in zip(exprs, axes, shape, strict=True))
        )
        same = 0
        while same < min(len(exprs), len(axes)) and _is_axis(exprs[same], axes[same], shape[same]):
            same += 1
        self.leading.append(same)
        t = read.tensor.type
        assert isinstance(t, te.TensorType)
        self.sizes.append(([_extent(d) for d in t.get_shape()], _element_bits(t)))


def stage_info(model: ScheduleModel, stage: Stage) -> StageInfo:
    op = stage.op
    reduction = op.reduction()
    leaf = stage.index_leaf()
    names = {iv.name for iv in stage.root_vars}
    axis_names = [iv.name for iv in stage.axes]
    shape = list(op.tensor_type.get_shape())
    reads = _Reads()
    for inner in walk_ops(op.body):
        if isinstance(inner, te.ReadOp):
            reads.add(inner, [expr_from_value(index, leaf) for index in inner.indices], names, axis_names, shape)
    guarded = any(isinstance(inner, scf.IfOp) for inner in walk_ops(op.body))
    moves_only = len(reads.uses) == 1 and not any(
        inner.results and not isinstance(inner.results[0].type, IndexType)
        for inner in walk_ops(op.body)
        if not isinstance(inner, te.ReadOp | te.YieldOp)
    )
    return StageInfo(
        stage.name,
        [_extent(d) for d in shape],
        [_extent(d) for d in reduction.get_extents()] if reduction is not None else [],
        _element_bits(op.tensor_type),
        guarded,
        stage.is_output,
        reads.uses,
        reads.tensors,
        reads.identity,
        reads.leading,
        reads.sizes,
        [str(d) for d in shape],
        axis_names,
        [iv.name for iv in stage.reduce_axes],
        blocks=reads.blocks,
        moves_only=moves_only,
        affine_reads=reads.affine,
    )
