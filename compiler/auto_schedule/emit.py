"""Emission: plans written as `sched` ops (`emit_plans`), after the user's own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue

from compiler.analysis.target import Target
from compiler.auto_schedule.cost import StagePlan
from compiler.auto_schedule.features import StageInfo, stage_info
from compiler.dialects import sched, te
from compiler.schedule.model import ScheduleModel


class _Builder:
    def __init__(self, block: Block, taken: set[str]):
        self.block = block
        self.leaves: list[SSAValue] = []  # the current stage's leaves, in loop order
        self.taken = taken  # stage and argument names (a new cache stage's must differ)
        self.block_loops: dict[str, SSAValue] = {}  # a row-blocked stage's block loop (`row_block`)

    def add(self, op: Operation, *hints: str) -> Operation:
        self.block.add_op(op)
        for result, hint in zip(op.results, hints, strict=False):
            result.name_hint = hint
        return op

    def axis(self, stage: str, index: int, hint: str, reduce: bool = False) -> SSAValue:
        return self.add(sched.AxisOp(stage, index, reduce=reduce), hint).results[0]

    def split(self, value: SSAValue, factor: int) -> tuple[SSAValue, SSAValue]:
        hint = value.name_hint or "ax"
        op = self.add(sched.SplitOp(value, factor=factor), f"{hint}_o", f"{hint}_i")
        position = self.leaves.index(value)
        self.leaves[position : position + 1] = list(op.results)
        return op.results[0], op.results[1]


def _parallel_group(
    outer: list[tuple[SSAValue, int | None]], tails: set[SSAValue], wanted: int
) -> tuple[list[tuple[SSAValue, int | None]], int, int]:
    """(outer loops, first, end): outer[first:end] are the leading loops fused into one
    parallel loop of at least `wanted` iterations. Loops of one iteration before them
    stay out (fused in, they would only turn the others' indices into divisions), and so
    do the outer loops of splits with a tail (`tails`), which go right after the group:
    a fused index hides their tail guard from loop-partition, which left the guard in
    the vector loop (NHWC convs of 64 channels by 24 ran several times slower)."""
    first = 0
    while first < len(outer) - 1 and outer[first][1] == 1:
        first += 1
    if not outer:
        return outer, 0, 0
    # a symbolic loop may run once (a batch of 1): the loops after it join the group
    # until the constant ones give `wanted` (a GELU over batch x seq x 3072 ran its batch
    # loop alone in parallel: one thread at batch 1)
    end, trips = first + 1, outer[first][1] or 1
    while end < len(outer) and trips < wanted:
        trips *= outer[end][1] or 1
        end += 1
    group = [entry for entry in outer[first:end] if entry[0] in tails]
    if end - first > 1 and group:
        rest = [entry for entry in outer if entry not in group]
        if all(trips == 1 for _, trips in rest):  # nothing else to run in parallel: the
            return outer, first, first + 1  # first loop alone (its tail a serial piece)
        rest, first, end = _parallel_group(rest, set(), wanted)
        return rest[:end] + group + rest[end:], first, end
    return outer, first, end


Loop = tuple[SSAValue, int | None]
"""A loop of the stage being emitted and its trip count (None: symbolic)."""


@dataclass
class _Nest:
    """One stage's loops while its plan is emitted: the outer loops (with their trip
    counts, for the parallel fuse), the register tile's loops inside them, and the
    reduce loops."""

    outer: list[Loop]
    reduce: list[SSAValue]
    inner: list[SSAValue] = field(default_factory=list)
    vector_outer: Loop | None = None  # the vector split's outer loop
    rows_outer: SSAValue | None = None  # the unroll split's outer loop
    block: Loop | None = None  # the row-block loop (`row_block`)
    reduce_outer: list[SSAValue] = field(default_factory=list)  # a split reduction's outer loop


def emit_stage(
    b: _Builder, info: StageInfo, plan: StagePlan, target: Target, tile_info: StageInfo | None = None
) -> None:
    """The sched ops of one stage's plan (`tile_info`: the reduction an epilogue's tile
    computes, `plan.tile_of`)."""
    if plan.action == "inline":
        b.add(sched.ComputeInlineOp(plan.stage))
        return
    if plan.action != "root" or not info.axis_names:
        return
    stage = plan.stage
    if plan.local_tile:
        b.add(sched.CacheWriteOp(stage, "local"))  # `stage` becomes the tile's copy-out
    tiled = plan.local_tile or plan.tile_of is not None  # the tile computed at this stage's loops
    data = [b.axis(stage, k, n) for k, n in enumerate(info.axis_names)]
    reduce = [] if plan.local_tile else [b.axis(stage, k, n, reduce=True) for k, n in enumerate(info.reduce_names)]
    b.leaves = [*data, *reduce]
    nest = _Nest(list(zip(data, info.extents, strict=True)), reduce)
    _split_tile(b, nest, plan)
    _place_tile_loops(b, nest, plan, tiled)
    first, groups = _parallel_span(nest, plan, info, target)
    order = [v for v, _ in nest.outer[:groups]] + nest.reduce_outer + [v for v, _ in nest.outer[groups:]]
    order += nest.reduce + nest.inner
    if order != b.leaves:
        b.add(sched.ReorderOp(order))
    _annotate_tile(b, nest, plan)
    fused_loops = [v for v, _ in nest.outer[first:groups]] if plan.parallel and target.cores > 1 else []
    fused = _fuse_parallel(b, stage, fused_loops)
    if nest.block is not None:
        b.block_loops[stage] = fused if fused is not None and nest.block[0] in fused_loops else nest.block[0]
    if plan.pack_input is not None:
        # the panel is packed once per k block, or per column panel when k isn't blocked
        # (unless that loop was fused with others for the cores)
        at = nest.reduce_outer[0] if nest.reduce_outer else nest.vector_outer[0] if nest.vector_outer else None
        if at is not None and (nest.reduce_outer or at not in fused_loops or len(fused_loops) == 1):
            _emit_pack(b, info, plan, plan.pack_input, at)
    if tiled and nest.outer:
        at = order[len(order) - len(nest.inner) - 1]
        if at in fused_loops and fused is not None:  # the innermost outer loop went into the parallel fuse
            at = fused
        if plan.tile_of is not None:
            assert tile_info is not None
            _emit_local_tile(b, tile_info, plan, at, plan.tile_of)
        else:
            _emit_local_tile(b, info, plan, at, f"{stage}.local")


def _split_tile(b: _Builder, nest: _Nest, plan: StagePlan) -> None:
    """The register tile's splits (rows by `unroll_factor`, after the row block's; the
    vector axis by `vector_factor`) and a split reduction's (`reduce_split`)."""
    if plan.unroll_axis is not None and plan.unroll_factor > 1:
        u, ue = nest.outer[plan.unroll_axis]
        if plan.row_block:
            lb, u = b.split(u, plan.row_block)
            nest.block = (lb, None if ue is None else -(-ue // plan.row_block))
            ue = plan.row_block
        uo, ui = b.split(u, plan.unroll_factor)
        nest.rows_outer = uo
        nest.outer[plan.unroll_axis] = (uo, None if ue is None else -(-ue // plan.unroll_factor))
        nest.inner.append(ui)
    if plan.vector_axis is not None:
        v, ve = nest.outer[plan.vector_axis]
        if plan.vector_factor is not None and (ve is None or plan.vector_factor < ve):
            vo, vi = b.split(v, plan.vector_factor)
            nest.vector_outer = (vo, None if ve is None else -(-ve // plan.vector_factor))
            nest.outer[plan.vector_axis] = nest.vector_outer
        else:
            vi = v
            nest.outer.pop(plan.vector_axis)
        nest.inner.append(vi)


def _place_tile_loops(b: _Builder, nest: _Nest, plan: StagePlan, tiled: bool) -> None:
    """A column panel's loop outermost (`vector_first`); a tile computed at this stage's
    loops: the rows' outer loop innermost (the input panel of one vector tile, the
    reduction times the tile's columns, stays in L1 while every row tile reads it, and
    the rows' operands, a conv's weights, come from L2), and so for a transpose's tiles
    (`rows_inside`); a split reduction's outer loop apart from its inner loops."""
    if nest.vector_outer is not None and plan.vector_first:
        nest.outer.remove(nest.vector_outer)
        nest.outer.insert(0, nest.vector_outer)
    if (tiled or plan.rows_inside) and nest.rows_outer is not None:
        rows = next(entry for entry in nest.outer if entry[0] is nest.rows_outer)
        nest.outer.remove(rows)
        nest.outer.append(rows)
    if plan.reduce_split and nest.reduce:
        ko, ki = b.split(nest.reduce[0], plan.reduce_split)
        nest.reduce_outer, nest.reduce = [ko], [ki, *nest.reduce[1:]]


def _split_tails(nest: _Nest, plan: StagePlan, info: StageInfo) -> set[SSAValue]:
    """The outer loops of the tile's splits whose factor does not divide the extent."""
    splits = [
        (nest.rows_outer, plan.unroll_factor, info.extents[plan.unroll_axis] if plan.unroll_axis is not None else None),
        (
            nest.vector_outer[0] if nest.vector_outer is not None else None,
            plan.vector_factor,
            info.extents[plan.vector_axis] if plan.vector_axis is not None else None,
        ),
    ]
    return {
        value for value, factor, extent in splits if value is not None and factor and (extent is None or extent % factor)
    }


def _parallel_span(nest: _Nest, plan: StagePlan, info: StageInfo, target: Target) -> tuple[int, int]:
    """(first, end): nest.outer[first:end] are the loops fused for the cores, and a split
    reduction's outer loop goes right after nest.outer[:end] (reordering nest.outer)."""
    if nest.block is not None:
        # the block loop the last of the parallel loops, with the column tiles and the row
        # tiles inside it: a column loop outside would compute the block's members again
        # for each column tile (a head of 128 in tiles of 48 computed the scores three times)
        if nest.vector_outer is not None:
            nest.outer.remove(nest.vector_outer)
        end = next(k for k, (v, _) in enumerate(nest.outer) if v is nest.rows_outer)
        nest.outer[end:end] = [nest.block] + ([nest.vector_outer] if nest.vector_outer is not None else [])
        first, groups = 0, end + 1
        while first < end and nest.outer[first][1] == 1:
            first += 1
    else:
        tails = _split_tails(nest, plan, info)
        nest.outer, first, groups = _parallel_group(nest.outer, tails, target.cores * plan.min_parallel)
    if nest.reduce_outer and not plan.vector_first:
        groups = len(nest.outer)
    return first, groups


def _annotate_tile(b: _Builder, nest: _Nest, plan: StagePlan) -> None:
    """The tile's loops unrolled (a short innermost reduce loop too), its last vectorized."""
    if plan.unroll_reduce and nest.reduce:
        b.add(sched.UnrollOp(nest.reduce[-1]))
    for ui in nest.inner[:-1] if plan.vector_axis is not None else nest.inner:
        b.add(sched.UnrollOp(ui))
    if plan.vector_axis is not None:
        b.add(sched.VectorizeOp(nest.inner[-1]))


def _fuse_parallel(b: _Builder, stage: str, loops: list[SSAValue]) -> SSAValue | None:
    """`loops` fused into one parallel loop (None when there are none)."""
    if not loops:
        return None
    fused = loops[0]
    for v in loops[1:]:
        fused = b.add(sched.FuseOp(fused, v), f"{stage}_par").results[0]
    b.add(sched.ParallelOp(fused))
    return fused


def _emit_pack(b: _Builder, info: StageInfo, plan: StagePlan, tensor: str, at: SSAValue) -> None:
    """`tensor` read through a compact copy of the region one iteration of `at` reads
    (`cache_read "global"` computed at `at`), copied a vector at a time."""
    rank = next(len(r) for r, name in zip(info.reads, info.read_tensors, strict=True) if name == tensor)
    cache = sched.cache_stage_name(tensor, "global", b.taken)
    b.taken.add(cache)
    b.add(sched.CacheReadOp(tensor, "global", [plan.stage]))
    b.add(sched.ComputeAtOp(cache, at))
    b.add(sched.VectorizeOp(b.axis(cache, rank - 1, f"{tensor}_p")))


def _emit_local_tile(b: _Builder, info: StageInfo, plan: StagePlan, at: SSAValue, cache: str) -> None:
    """The cache stage of a `local_tile` plan, computed at the copy's innermost outer loop
    `at`: its tile axes innermost (unrolled rows, vector columns), the reduction outside
    them, as the register tile of a stage without a cache."""
    b.add(sched.ComputeAtOp(cache, at))
    suffix = "_l" if cache != info.name else ""  # a cache stage's axes, or the stage's own
    data = [b.axis(cache, k, f"{n}{suffix}") for k, n in enumerate(info.axis_names)]
    reduce = [b.axis(cache, k, f"{n}{suffix}", reduce=True) for k, n in enumerate(info.reduce_names)]
    tile = [a for a in (plan.unroll_axis, plan.vector_axis) if a is not None]
    order = [d for a, d in enumerate(data) if a not in tile] + reduce + [data[a] for a in tile]
    b.leaves = [*data, *reduce]
    if order != b.leaves:
        b.add(sched.ReorderOp(order))
    if plan.unroll_reduce and reduce:
        b.add(sched.UnrollOp(reduce[-1]))
    if plan.unroll_axis is not None:  # an epilogue's tile may be one row of vectors
        b.add(sched.UnrollOp(data[plan.unroll_axis]))
    if plan.vector_axis is not None:
        b.add(sched.VectorizeOp(data[plan.vector_axis]))


def emit_plans(
    func: te.FuncOp, schedule: sched.ScheduleOp, plans: Sequence[StagePlan], target: Target
) -> None:
    """Appends the sched ops of `plans` to `schedule` (the user's ops stay first)."""
    model = ScheduleModel.build(func)
    b = _Builder(schedule.body.block, {*model.stages, *(a.name_hint or "" for a in func.args)})
    for plan in plans:
        if plan.stage in model.stages:
            tile = stage_info(model, model.stages[plan.tile_of]) if plan.tile_of in model.stages else None
            emit_stage(b, stage_info(model, model.stages[plan.stage]), plan, target, tile)
    for plan in plans:  # once the block loops exist
        if plan.block_of is not None and plan.block_of in b.block_loops:
            b.add(sched.ComputeAtOp(plan.stage, b.block_loops[plan.block_of]))
