"""The automatic scheduler: a schedule for every stage the user left unscheduled.

`plan_function(func, schedule, target)` chooses, stage by stage, from a small
analytical cost model of the host (`Target`: vector width, vector registers,
cache sizes, cores); `emit_plans` writes the choices as `sched` ops (the
`auto-schedule` pass runs both; `compiler.tune` varies the plans and measures).

For each stage:

* injective stages that are not results are inlined into their consumers,
  except a guarded stage (a pad: its body holds a lazy `scf.if`) read by a
  reduction, which stays a stage of its own (inlined, its guard would run in
  the reduction's innermost loop);
* the vector axis is the innermost data axis when some read walks it
  contiguously (its last index uses it) or no read uses it (a broadcast);
  otherwise nothing is vectorized (a row sum would gather);
* a reduction gets a register tile: `unroll` rows of an axis that the
  vector-contiguous read does not use (so each vector load feeds `unroll`
  FMAs: `i` of a matmul, the output channel of a conv) times `vector` lanes,
  chosen to minimize loads per FMA with the accumulators in the vector
  registers; its reduce loops run outside the tile (the pattern of the hand
  schedules in bench/suite.py) and a short innermost reduce loop is unrolled;
  a long reduction whose panel (reduce extent x vector tile) overflows half of
  L1 is split and its outer part runs outside the row tiles (GEMM blocking);
* leading outer data loops are fused until they give each core a few
  iterations, and run in parallel;
* a reduction (not a matmul's packed panel) whose only consumer reads it
  element for element (a conv's bias and relu, inlined into one stage) is
  computed in that consumer's tile: the consumer's loops take the register
  tile's splits and order, and the reduction is computed at its innermost
  outer loop, so its buffer is one tile (registers) instead of a tensor that
  the epilogue reads back (TVM's fused conv + bias + relu);
* the stages a result reads row for row (its leading axes, all but the last:
  attention's scores, row max, exponentials and row sum), when one is a
  reduction and the largest would not fit in L2, are computed per block of the
  result's rows at its parallel block loop, each serial inside it with its own
  plan: a block's intermediates stay in cache (a quarter of L2 for the largest)
  and the whole tensors are never made (FlashAttention's row blocks).

A stage the user already scheduled (any `sched` op names it) is kept as it is;
the rest are scheduled around it. Splits prefer factors that divide the
extent, so the common shapes need no tail guard; where none does (a prime
extent, symbolic sizes) the split's tail is bounded by infer-bound as for any
schedule, so a plan never changes results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerType, StringAttr
from xdsl.ir import Block, Operation, SSAValue

from compiler.analysis.target import Target
from compiler.analysis.walk import walk_ops
from compiler.arith.expr import Const, Expr, FloorMod, Var, free_vars
from compiler.arith.ir import expr_from_value
from compiler.arith.simplify import simplify
from compiler.dialects import sched, te
from compiler.dialects.shape import Dim
from compiler.schedule.model import ScheduleModel, Stage, scan_bodies, scan_states

# ---------------------------------------------------------------------------
# Plans: the choices for one stage
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StagePlan:
    """The schedule of one stage. Axis numbers are root axes (data or reduce)."""

    stage: str
    action: str = "root"  # root | inline | keep (scheduled by the user)
    vector_axis: int | None = None
    vector_factor: int | None = None  # None: the whole axis is the vector loop
    unroll_axis: int | None = None
    unroll_factor: int = 1
    reduce_split: int | None = None  # split the first reduce axis by this, outer part outside the row tiles
    unroll_reduce: bool = False  # unroll the innermost reduce loop
    vector_first: bool = False  # the vector axis' outer loop outermost (a matmul's column panel)
    parallel: bool = True
    min_parallel: int = 4  # fuse leading loops until this many iterations per core
    local_tile: bool = False  # compute the register tile in a cache_write "local" stage
    pack_input: str | None = None  # read this input through a packed panel (cache_read "global")
    tile_of: str | None = None  # an epilogue: its loops carry this reduction's tile, computed at them
    row_block: int | None = None  # rows of the unroll axis per block; the stages `block_of` it computed there
    block_of: str | None = None  # computed at this stage's row-block loop (its plan serial inside it)

    def describe(self) -> str:
        if self.action != "root":
            return f"{self.stage}: {self.action}"
        if self.tile_of:
            return f"{self.stage}: epilogue of {self.tile_of} (its register tile)"
        if self.block_of:
            return f"{self.stage}: computed in {self.block_of}'s row block"
        parts = [f"{self.stage}:"]
        if self.vector_axis is not None:
            parts.append(f"vector axis {self.vector_axis} by {self.vector_factor or 'all'}")
        if self.unroll_axis is not None:
            parts.append(f"unroll axis {self.unroll_axis} by {self.unroll_factor}")
        if self.reduce_split:
            parts.append(f"reduce split {self.reduce_split}")
        if self.pack_input:
            parts.append(f"pack {self.pack_input}")
        parts.append("parallel" if self.parallel else "serial")
        return " ".join(parts)


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


def _is_axis(index: Expr | None, axis: str, extent: Dim) -> bool:
    """`index` is the axis itself, or 0 along an axis of extent 1 (a broadcast's index)."""
    return (isinstance(index, Var) and index.name == axis) or (extent == 1 and index == Const(0))


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


def stage_info(model: ScheduleModel, stage: Stage) -> StageInfo:
    op = stage.op
    reduction = op.reduction()
    leaf = stage.index_leaf()
    names = {iv.name for iv in stage.root_vars}
    axis_names = [iv.name for iv in stage.axes]
    reads: list[list[frozenset[str]]] = []
    read_tensors: list[str | None] = []
    identity: list[bool] = []
    leading: list[int] = []
    sizes: list[tuple[list[int | None], int]] = []
    blocks: dict[str, int] = {}
    for inner in walk_ops(op.body):
        if isinstance(inner, te.ReadOp):
            read_tensors.append(_tensor_name(inner.tensor))
            uses = []
            exprs = [expr_from_value(index, leaf) for index in inner.indices]
            last = simplify(exprs[-1]) if exprs and exprs[-1] is not None else None  # canonical `v % c`
            if isinstance(last, FloorMod) and isinstance(last.a, Var) and isinstance(last.b, Const):
                blocks[last.a.name] = last.b.value
            for e in exprs:
                uses.append(names if e is None else free_vars(e) & names)
            reads.append([frozenset(u) for u in uses])
            shape = op.tensor_type.get_shape()
            identity.append(
                len(exprs) == len(axis_names)
                and all(_is_axis(e, a, d) for e, a, d in zip(exprs, axis_names, shape, strict=True))
            )
            same = 0
            while same < min(len(exprs), len(axis_names)) and _is_axis(exprs[same], axis_names[same], shape[same]):
                same += 1
            leading.append(same)
            t = inner.tensor.type
            assert isinstance(t, te.TensorType)
            sizes.append(([_extent(d) for d in t.get_shape()], _element_bits(t)))
    guarded = any(isinstance(inner, scf.IfOp) for inner in walk_ops(op.body))
    moves_only = len(reads) == 1 and not any(
        inner.results and not isinstance(inner.results[0].type, IndexType)
        for inner in walk_ops(op.body)
        if not isinstance(inner, te.ReadOp | te.YieldOp)
    )
    return StageInfo(
        stage.name,
        [_extent(d) for d in op.tensor_type.get_shape()],
        [_extent(d) for d in reduction.get_extents()] if reduction is not None else [],
        _element_bits(op.tensor_type),
        guarded,
        stage.is_output,
        reads,
        read_tensors,
        identity,
        leading,
        sizes,
        [str(d) for d in op.tensor_type.get_shape()],
        axis_names,
        [iv.name for iv in stage.reduce_axes],
        blocks=blocks,
        moves_only=moves_only,
    )


# ---------------------------------------------------------------------------
# The cost model
# ---------------------------------------------------------------------------


def _divisors(n: int, candidates: Sequence[int]) -> list[int]:
    return [c for c in candidates if c <= n and n % c == 0]


def vector_axis(info: StageInfo) -> int | None:
    """The innermost data axis, if vector lanes along it load contiguously (some read's
    last index uses it) or broadcast (no read uses it)."""
    if not info.axis_names:
        return None
    v = len(info.axis_names) - 1
    name = info.axis_names[v]
    used = [r for r in info.reads if any(name in u for u in r)]
    if not used or any(r and name in r[-1] for r in used):
        return v
    return None


def unroll_axis(info: StageInfo, v: int) -> int | None:
    """A data axis some vector-contiguous read doesn't use: each vector that read loads
    along `v` then serves every unrolled row (a conv's or matmul's weights; in a
    depthwise conv, whose input is contiguous along the channels too, the weights
    alone). The longest such axis (known extents first)."""
    vname = info.axis_names[v]
    contiguous = [r for r in info.reads if r and vname in r[-1]]
    best: tuple[int, int] | None = None
    for a, name in enumerate(info.axis_names):
        if a == v or all(any(name in u for u in r) for r in contiguous):
            continue
        extent = info.extents[a]
        if extent is not None and extent < 2:
            continue
        score = extent if extent is not None else 1 << 20
        if best is None or score > best[0]:
            best = (score, a)
    return None if best is None else best[1]


def register_tile(info: StageInfo, v: int, u: int | None, target: Target) -> tuple[int | None, int]:
    """(vector factor, unroll factor): the fewest loads per FMA, (u + nv) / (u * nv) for
    u rows of nv vectors, with u * nv accumulators in the registers (4 kept for the
    loaded operands). Factors that divide the extents come first."""
    lanes = target.lanes(info.element_bits)
    extent = info.extents[v]
    block = info.blocks.get(info.axis_names[v])
    if block is not None and extent is not None and extent % block == 0:
        # a blocked weight: the tile is its block, which the layout chose for this host
        # (`channel_block`), with as many rows as the registers hold
        nv = -(-block // lanes)
        fitting = [uf for uf in _unroll_options(info, u) if uf * nv <= max(1, target.registers - 4)]
        return (None if block == extent else block), max(fitting, default=1)
    if extent is None:  # loop-partition gives the split's tail a loop of its own
        # up to 3 vectors, as for long static rows (a wider tile reuses each loaded
        # input across more vectors; bench/networks.py measures the symbolic 1x1 conv)
        vector_options: list[int | None] = [lanes, 2 * lanes, 3 * lanes]
    elif extent <= lanes:
        return None, _unroll_only(info, u, target, 1)
    else:
        vector_options = list(_divisors(extent, [lanes * k for k in (1, 2, 3, 4)]))
        if extent >= 4 * lanes:
            # long rows: wider tiles too, their tail peeled by loop-partition (a 56-wide
            # conv row as 2 x 24 + 8: fewer channels, more vectors per loaded input)
            vector_options += [lanes * k for k in (2, 3) if lanes * k not in vector_options]
        if not vector_options:  # no multiple of the lanes divides: a tail
            # past 3 vectors, 3 full ones and the tail peeled: a whole row of 56 on
            # AVX-512 (4 vectors, the last half empty) was slower and varied from one
            # process to the next, 8 channels x 48 was steady
            vector_options = [None] if extent <= 3 * lanes else [3 * lanes]
    budget = max(1, target.registers - 4)
    # a matmul's panel (B[k, j]) at most 3 vectors wide: 4 was slower than 6 x 16 on
    # AVX2, its panel twice as large for the same k block
    max_vectors = 3 if _panel_only(info, v) else 4
    best: tuple[float, int | None, int] | None = None
    for vf in vector_options:
        width = extent if vf is None else vf
        assert width is not None  # vf is None only for a known extent (with a tail)
        nv = -(-width // lanes)
        if nv > max_vectors and vf != vector_options[0]:
            continue
        for uf in _unroll_options(info, u):
            if uf * nv > budget:
                continue
            rows = info.extents[u] if u is not None else None
            cost = _tile_cost(uf, rows, nv, None if vf is None else -(-extent // lanes) if extent else None)
            if best is None or cost < best[0] - 1e-9:
                best = (cost, vf, uf)
    if best is None:
        return vector_options[0], 1
    return best[1], best[2]


def _tile_cost(rows: int, row_extent: int | None, vectors: int, row_vectors: int | None) -> float:
    """Loads per FMA of a `rows` x `vectors` register tile, (u + nv) / (u * nv), averaged
    over the stage: the tails of splits that do not divide (a row of 7 vectors in tiles of
    3: two of 3, one of 1) run narrower tiles, which load more per FMA. Symbolic extents
    count as long (their tails negligible)."""

    def pieces(factor: int, extent: int | None) -> list[tuple[int, int]]:
        if extent is None or extent % factor == 0:
            return [(factor, 1)]
        return [(factor, extent - extent % factor), (extent % factor, extent % factor)]

    total = weight = 0.0
    for u, nu in pieces(rows, row_extent):
        for v, nvs in pieces(vectors, row_vectors):
            total += (u + v) / (u * v) * nu * nvs
            weight += nu * nvs
    return total / weight


def _unroll_options(info: StageInfo, u: int | None) -> list[int]:
    if u is None or not info.reduce_extents:
        return [1]
    extent = info.extents[u]
    if extent is None:  # the rows past the extent: a guarded tail that loop-partition peels
        return [1, 2, 4]
    dividing = _divisors(extent, [2, 3, 4, 5, 6, 7, 8, 12])
    # a matmul's long axis may take 4 or 6 rows with a tail (peeled by loop-partition):
    # 6 x 16 is the AVX2 matmul kernel (12 accumulators), and 512 or 1000 rows aren't
    # multiples of 6
    tails = [uf for uf in (4, 6) if extent >= 8 * uf and uf not in dividing]
    return [1, *dividing, *tails]


def _unroll_only(info: StageInfo, u: int | None, target: Target, nv: int) -> int:
    options = _unroll_options(info, u)
    fitting = [uf for uf in options if uf * nv <= max(1, target.registers - 4)]
    return max(fitting) if fitting else 1


def _panel_only(info: StageInfo, v: int) -> bool:
    """The vector-contiguous reads use no data axis but `v` (a matmul's B[k, j], not a
    conv's input row, which moves with the output row too)."""
    vname = info.axis_names[v]
    others = set(info.axis_names) - {vname}
    contiguous = [r for r in info.reads if r and vname in r[-1]]
    return bool(contiguous) and all(not (u & others) for r in contiguous for u in r)


PACK_MIN_ROWS = 16
"""A matmul's B panel is packed when at least this many rows read it (the copy costs
one read of B per column panel and k block, the kernel M reads of it)."""


def _panel_input(info: StageInfo, v: int) -> str | None:
    """The one input a column panel reads (B of B[k, j]: contiguous along `v`, no other
    data axis), which rows `PACK_MIN_ROWS` or more apart in memory would make the panel's
    rows fall into a few cache sets (a 2 KiB row stride: 2 of L1's 64 sets)."""
    vname = info.axis_names[v]
    others = set(info.axis_names) - {vname}
    panel = {
        info.read_tensors[k]
        for k, r in enumerate(info.reads)
        if r and vname in r[-1] and not any(u & others for u in r)
    }
    if len(panel) != 1:
        return None
    (name,) = panel
    return name


def plan_reduction(info: StageInfo, target: Target) -> StagePlan:
    plan = StagePlan(info.name, parallel=target.cores > 1)
    v = vector_axis(info)
    if v is None:
        return plan
    u = unroll_axis(info, v)
    vf, uf = register_tile(info, v, u, target)
    plan = replace(plan, vector_axis=v, vector_factor=vf)
    if u is not None and uf > 1:
        plan = replace(plan, unroll_axis=u, unroll_factor=uf)
    last = info.reduce_extents[-1] if info.reduce_extents else None
    # a short innermost reduce loop (a conv's 3 taps) unrolled only around a small tile:
    # around 12 accumulators it ran no faster (a 3x3 conv's 4 x 24 tile) and tripled
    # the tile's code, and so the compile time
    tile = (plan.unroll_factor if plan.unroll_axis is not None else 1) * -(-(vf or 1) // target.lanes(info.element_bits))
    plan = replace(plan, unroll_reduce=last is not None and 1 < last <= 7 and tile < 8)
    if plan.unroll_axis is not None and any(e is None for e in info.extents[plan.unroll_axis + 1 :]):
        # the unrolled rows lie a symbolic stride apart in the stage's buffer, where LLVM
        # can't tell them apart: the tile goes to a cache stage of constant shape
        # (schedule-ops puts it on the stack), whose rows it keeps in registers
        return replace(plan, local_tile=True)
    if vf is not None:
        # a column panel (the vector tile's columns over the whole reduction) shared by
        # every row tile: its outer loop goes outside the row tiles, and a long
        # reduction is blocked so the panel stays in a quarter of L2. Not L1: every block
        # reloads and stores the accumulator tile, whose rows come from L3 at 512 x 512
        # (matmul 512, 4 x 24 tile: 128-row blocks, 12 KiB in L1, 0.88x PyTorch's
        # throughput; whole k, 48 KiB streamed from L2 by the prefetcher, 0.95-1.0x)
        plan = replace(plan, vector_first=plan.unroll_axis is not None and _panel_only(info, v))
        k = info.reduce_extents[0] if info.reduce_extents else None
        panel = (k or 0) * vf * info.element_bits // 8
        if plan.vector_first and k is not None and len(info.reduce_extents) == 1 and panel > target.l2_bytes // 4:
            # the longest block that divides k (no tail) and fits
            fitting = [c for c in range(min(k - 1, 4096), 31, -1)
                       if k % c == 0 and c * vf * info.element_bits // 8 <= target.l2_bytes // 4]
            if fitting:
                plan = replace(plan, reduce_split=fitting[0])
        rows = info.extents[plan.unroll_axis] if plan.unroll_axis is not None else None
        blocked = info.axis_names[v] in info.blocks  # its panel is contiguous already
        if plan.vector_first and not blocked and (rows is None or rows >= PACK_MIN_ROWS):
            # the panel copied into a compact buffer (TVM's GEMM tutorial's packing, here a
            # cache_read at the panel's k block): contiguous rows of the tile's width
            plan = replace(plan, pack_input=_panel_input(info, v))
    return plan


def plan_injective(info: StageInfo, target: Target) -> StagePlan:
    plan = StagePlan(info.name, parallel=target.cores > 1)
    v = vector_axis(info)
    if v is None:
        return plan
    lanes = target.lanes(info.element_bits)
    extent = info.extents[v]
    if extent is not None and extent <= 8 * lanes:
        return replace(plan, vector_axis=v, vector_factor=None)
    factors = _divisors(extent, [8 * lanes, 4 * lanes, 2 * lanes, lanes]) if extent is not None else []
    return replace(plan, vector_axis=v, vector_factor=factors[0] if factors else lanes)


def scheduled_stages(schedule: sched.ScheduleOp | None) -> set[str]:
    """Stages a schedule names (an axis, an attachment, inline or root)."""
    if schedule is None:
        return set()
    found: set[str] = set()
    for op in schedule.body.ops:
        stage = op.properties.get("stage")
        if isinstance(stage, StringAttr):
            found.add(stage.data)
        for operand in op.operands:
            if isinstance(operand.type, sched.IterType):
                found.add(operand.type.stage.data)
    return found


def user_inlined(schedule: sched.ScheduleOp | None) -> set[str]:
    """Stages the user's schedule inlines (kept as they are: inlined)."""
    if schedule is None:
        return set()
    return {op.stage.data for op in schedule.body.ops if isinstance(op, sched.ComputeInlineOp)}


def scan_stage_names(model: ScheduleModel) -> set[str]:
    """Scans, their inits and the stages inside their time loops: kept as the default
    schedule places them (a scan's steps run in order, its body at each step)."""
    names = {s.name for s in model.stages.values() if s.scan_from is not None}
    names |= {b.name for bodies in scan_bodies(model).values() for b in bodies}
    for states in scan_states(model.func).values():
        names |= {state.init.owner.stage.data for state in states if isinstance(state.init.owner, te.ComputeOp)}
    return names


def plan_function(func: te.FuncOp, schedule: sched.ScheduleOp | None, target: Target) -> list[StagePlan]:
    """A plan for each stage of `func`, producers first (`keep` for the user's stages)."""
    model = ScheduleModel.build(func, schedule)
    user = scheduled_stages(schedule)
    infos = {name: stage_info(model, s) for name, s in model.stages.items()}
    for name, s in model.stages.items():
        for src in s.inputs:
            infos[src].consumers.append(name)
    attach_targets = {s.attach_stage.name for s in model.stages.values() if s.attach_stage is not None}
    whole = {name for name in model.stages if model.extern_readers(name)}  # a te.extern reads them whole
    plans: list[StagePlan] = []
    in_scans = scan_stage_names(model)
    inlined = user_inlined(schedule)
    for name, info in infos.items():
        if name in user or name in in_scans:
            plans.append(StagePlan(name, action="keep"))
            continue
        if info.reduce_extents:
            plans.append(plan_reduction(info, target))
            continue
        read_by_reduction = _lands_in_reduction(name, infos)
        inlinable = not info.is_output and name not in attach_targets and name not in whole
        # computed inside a reduction, an element is computed again for every read of
        # it (a conv reads each input element R * S * K times; ResNet-50's residual
        # chain, inlined into the next stage's convs, ran many times its cost): only stages
        # that move elements go there
        recomputed = read_by_reduction and not info.moves_only
        if inlinable and not recomputed and not (info.guarded and read_by_reduction):
            plans.append(StagePlan(name, action="inline"))
            continue
        plans.append(plan_injective(info, target))
    return _row_blocks(_fuse_epilogues(plans, infos, whole), infos, whole | (user - inlined) | in_scans, target)


def _lands_in_reduction(name: str, infos: dict[str, StageInfo]) -> bool:
    """Whether a consumer of stage `name` is a reduction, or a stage that only moves
    elements on the way to one (a view or transpose: inlined wherever it goes, it takes
    `name`'s code into the reduction with it: GPT-2's GELU, read through a view by the
    next matmul, was computed again for every column panel of it)."""
    seen: set[str] = set()
    pending = list(infos[name].consumers)
    while pending:
        consumer = pending.pop()
        if consumer in seen:
            continue
        seen.add(consumer)
        info = infos[consumer]
        if info.reduce_extents:
            return True
        if info.moves_only and not info.is_output:
            pending.extend(info.consumers)
    return False


def _epilogue(name: str, infos: dict[str, StageInfo], plans: dict[str, StagePlan]) -> str | None:
    """The one stage that reads reduction `name` element for element, through stages
    inlined on the way (bias, relu), each with that one consumer; None if there is not
    exactly one, or it does not cover the same shape."""
    current = name
    while True:
        consumers = infos[current].consumers
        if len(consumers) != 1:
            return None
        (consumer,) = consumers
        info = infos[consumer]
        reads = [k for k, t in enumerate(info.read_tensors) if t == current]
        if not reads or not all(info.identity_reads[k] for k in reads) or info.shape != infos[name].shape:
            return None
        if plans[consumer].action != "inline":
            return consumer
        current = consumer


def _fuse_epilogues(plans: list[StagePlan], infos: dict[str, StageInfo], whole: set[str]) -> list[StagePlan]:
    """Reductions computed in their epilogue's tile (the module docstring's last rule),
    except those a te.extern reads (`whole`: they stay at the root)."""
    by_name = {p.stage: p for p in plans}
    for p in plans:
        info = infos[p.stage]
        if p.action != "root" or not info.reduce_extents or p.vector_axis is None or p.stage in whole:
            continue
        if p.pack_input or p.reduce_split:  # a matmul: its k blocks and panels stay
            continue
        epilogue = _epilogue(p.stage, infos, by_name)
        if epilogue is None or by_name[epilogue].action != "root" or infos[epilogue].reduce_extents:
            continue
        by_name[epilogue] = replace(p, stage=epilogue, local_tile=False, tile_of=p.stage)
        by_name[p.stage] = replace(p, action=f"computed in {epilogue}'s tile", local_tile=False)
    return [by_name[p.stage] for p in plans]


def _static_bytes(info: StageInfo) -> int | None:
    size = info.element_bits // 8
    for e in info.extents:
        if e is None:
            return None
        size *= e
    return size


def _block_members(name: str, infos: dict[str, StageInfo], plans: dict[str, StagePlan], whole: set[str]) -> list[str]:
    """The stages that can be computed per block of rows of stage `name`: root (and
    inlined) stages, not results nor in `whole` (read whole, or the user's), whose
    leading axes are `name`'s rows (all its axes but the last), read row for row (their
    leading indices the reader's own axes) only by one another, `name` and the
    reduction in its tile; the largest set (a fixed point)."""
    info = infos[name]
    rows = len(info.extents) - 1
    group = {name} | ({plans[name].tile_of} if plans[name].tile_of else set())
    members = {
        m for m, i in infos.items()
        if plans[m].action in ("root", "inline", "keep") and not plans[m].tile_of and not i.is_output and m not in whole and m != name
        and len(i.shape) >= rows and i.shape[:rows] == info.shape[:rows]
    }

    def row_for_row(member: str, consumer: str) -> bool:
        c = infos[consumer]
        return all(
            c.leading_identity[k] >= rows for k, t in enumerate(c.read_tensors) if t == member
        ) and c.shape[:rows] == info.shape[:rows]

    changed = True
    while changed:
        changed = False
        for m in sorted(members):
            consumers = infos[m].consumers
            if not consumers or not all(c in members | group and row_for_row(m, c) for c in consumers):
                members.discard(m)
                changed = True
    return sorted(members)


def _inputs_fit(members: list[str], rows: int, infos: dict[str, StageInfo], target: Target) -> bool:
    """Whether what each block reads again, each of the members' inputs from outside the
    block (the keys and values of one head, a mask's rows, a matmul's weights), fits in
    four L2s (it comes from L3 again for every block): a block of a few rows of an MLP
    whose weights are megabytes would read them all again for every block. A dimension
    indexed by the reader's row axes only counts once."""
    inside = set(members)
    for m in members:
        info = infos[m]
        row_axes = set(info.axis_names[:rows])
        for t, uses, (extents, bits) in zip(info.read_tensors, info.reads, info.read_sizes, strict=True):
            if t in inside:
                continue
            size = bits // 8
            for used, extent in zip(uses, extents, strict=True):
                if used <= row_axes:
                    continue
                if extent is None:
                    return False
                size *= extent
            if size > 4 * target.l2_bytes:
                return False
    return True


def _row_blocks(plans: list[StagePlan], infos: dict[str, StageInfo], whole: set[str], target: Target) -> list[StagePlan]:
    """The stages whose rows a result reads row for row, computed per block of its rows
    when one of them is a reduction and materializing them whole would not fit in L2
    (attention's scores, row max and sum, and exponentials: FlashAttention's row blocks,
    without its online rescaling): each block's intermediates stay in cache, and the
    threads run whole blocks. The block is a multiple of the result's row tile, its
    largest intermediate a quarter of L2."""
    by_name = {p.stage: p for p in plans}
    for p in plans:
        info = infos[p.stage]
        if p.action != "root" or p.unroll_axis != len(info.extents) - 2 or p.unroll_factor < 1 or p.block_of:
            continue
        members = [m for m in _block_members(p.stage, infos, by_name, whole) if by_name[m].action == "root"]
        sizes = [_static_bytes(infos[m]) for m in members]
        rows_extent = info.extents[p.unroll_axis]
        # symbolic sizes keep the whole stages: a block's bounds in them made loop-partition's
        # proofs explode (a dynamic BERT's build did not end in 15 minutes)
        if not any(infos[m].reduce_extents for m in members) or rows_extent is None or None in sizes:
            continue
        largest = max(s for s in sizes if s is not None)
        if largest <= target.l2_bytes or not _inputs_fit(members, len(info.extents) - 1, infos, target):
            continue
        block = _block_rows(info, p, largest, target)
        if block is None:
            continue
        by_name[p.stage] = replace(p, row_block=block)
        for m in members:
            by_name[m] = replace(by_name[m], block_of=p.stage, parallel=False)
    return [by_name[p.stage] for p in plans]


def _block_rows(info: StageInfo, plan: StagePlan, largest: int, target: Target) -> int | None:
    """Rows per block of `plan`'s row axis (static): a multiple of its row tile whose
    share of the largest intermediate (`largest` bytes) is a quarter of L2, small
    enough to give every core a few blocks; None when one block would do it all."""
    assert plan.unroll_axis is not None
    rows = info.extents[plan.unroll_axis]
    assert rows is not None
    rows_before = 1
    for e in info.extents[: plan.unroll_axis]:
        rows_before *= e or 1
    row_bytes = max(largest // (rows_before * rows), 1)
    u = plan.unroll_factor
    block = max(u, target.l2_bytes // 4 // row_bytes // u * u)
    while block > u and rows_before * -(-rows // block) < target.cores * plan.min_parallel:
        block -= u  # enough blocks for the cores
    if block >= rows and rows_before < target.cores:
        return None  # one block: nothing to share among the cores
    return min(block, rows)


# ---------------------------------------------------------------------------
# Emission: plans as sched ops
# ---------------------------------------------------------------------------


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
    end, trips = first + 1, outer[first][1]
    while end < len(outer) and trips is not None and trips < wanted:
        nxt = outer[end][1]
        trips = None if nxt is None else trips * nxt
        end += 1
    group = [entry for entry in outer[first:end] if entry[0] in tails]
    if end - first > 1 and group:
        rest = [entry for entry in outer if entry not in group]
        if all(trips == 1 for _, trips in rest):  # nothing else to run in parallel: the
            return outer, first, first + 1  # first loop alone (its tail a serial piece)
        rest, first, end = _parallel_group(rest, set(), wanted)
        return rest[:end] + group + rest[end:], first, end
    return outer, first, end


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
    # outer loops (with their trip counts, for the parallel fuse) and the tile inside
    outer: list[tuple[SSAValue, int | None]] = [(d, e) for d, e in zip(data, info.extents, strict=True)]
    inner: list[SSAValue] = []
    vo: tuple[SSAValue, int | None] | None = None
    uo: SSAValue | None = None
    block: tuple[SSAValue, int | None] | None = None
    if plan.unroll_axis is not None and plan.unroll_factor > 1:
        u, ue = outer[plan.unroll_axis]
        if plan.row_block:
            lb, u = b.split(u, plan.row_block)
            block = (lb, None if ue is None else -(-ue // plan.row_block))
            ue = plan.row_block
        uo, ui = b.split(u, plan.unroll_factor)
        outer[plan.unroll_axis] = (uo, None if ue is None else -(-ue // plan.unroll_factor))
        inner.append(ui)
    if plan.vector_axis is not None:
        v, ve = outer[plan.vector_axis]
        if plan.vector_factor is not None and (ve is None or plan.vector_factor < ve):
            vo_value, vi = b.split(v, plan.vector_factor)
            vo = (vo_value, None if ve is None else -(-ve // plan.vector_factor))
            outer[plan.vector_axis] = vo
        else:
            vi = v
            outer.pop(plan.vector_axis)
        inner.append(vi)
    if vo is not None and plan.vector_first:
        outer.remove(vo)
        outer.insert(0, vo)
    if tiled and uo is not None:
        # the rows' outer loop innermost: the input panel of one vector tile (the reduction
        # times the tile's columns) stays in L1 while every row tile reads it, and the rows'
        # operands (a conv's weights) come from L2
        rows = next(entry for entry in outer if entry[0] is uo)
        outer.remove(rows)
        outer.append(rows)
    reduce_outer: list[SSAValue] = []
    if plan.reduce_split and reduce:
        ko, ki = b.split(reduce[0], plan.reduce_split)
        reduce_outer, reduce = [ko], [ki, *reduce[1:]]
    # leading loops fused for the cores; a split reduction's outer loop right after them
    tails = {
        value for value, (factor, extent) in [
            (uo, (plan.unroll_factor, info.extents[plan.unroll_axis] if plan.unroll_axis is not None else None)),
            (vo[0] if vo is not None else None, (plan.vector_factor, info.extents[plan.vector_axis] if plan.vector_axis is not None else None)),
        ]
        if value is not None and factor and (extent is None or extent % factor)
    }
    if block is not None:  # the block loop right before the row tiles, the last of the parallel loops
        end = next(k for k, (v, _) in enumerate(outer) if v is uo)
        outer.insert(end, block)
        first, groups = 0, end + 1
        while first < end and outer[first][1] == 1:
            first += 1
    else:
        outer, first, groups = _parallel_group(outer, tails, target.cores * plan.min_parallel)
    if reduce_outer and not plan.vector_first:
        groups = len(outer)
    order = [v for v, _ in outer[:groups]] + reduce_outer + [v for v, _ in outer[groups:]] + reduce + inner
    if order != b.leaves:
        b.add(sched.ReorderOp(order))
    if plan.unroll_reduce and reduce:
        b.add(sched.UnrollOp(reduce[-1]))
    for ui in inner[:-1] if plan.vector_axis is not None else inner:
        b.add(sched.UnrollOp(ui))
    if plan.vector_axis is not None:
        b.add(sched.VectorizeOp(inner[-1]))
    fused_loops = [v for v, _ in outer[first:groups]] if plan.parallel and target.cores > 1 else []
    fused: SSAValue | None = None
    if fused_loops:
        fused = fused_loops[0]
        for v in fused_loops[1:]:
            fused = b.add(sched.FuseOp(fused, v), f"{stage}_par").results[0]
        b.add(sched.ParallelOp(fused))
    if block is not None:
        b.block_loops[stage] = fused if fused is not None and block[0] in fused_loops else block[0]
    if plan.pack_input is not None:
        # the panel is packed once per k block, or per column panel when k isn't blocked
        # (unless that loop was fused with others for the cores)
        at = reduce_outer[0] if reduce_outer else vo[0] if vo is not None else None
        if at is not None and (reduce_outer or at not in fused_loops or len(fused_loops) == 1):
            _emit_pack(b, info, plan, plan.pack_input, at)
    if tiled and outer:
        at = order[len(order) - len(inner) - 1]
        if at in fused_loops and fused is not None:  # the innermost outer loop went into the parallel fuse
            at = fused
        if plan.tile_of is not None:
            assert tile_info is not None
            _emit_local_tile(b, tile_info, plan, at, plan.tile_of)
        else:
            _emit_local_tile(b, info, plan, at, f"{stage}.local")


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
