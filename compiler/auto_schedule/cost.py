"""The cost model: a plan for one stage (`StagePlan`) from its features and the target:
the vector axis, the register tile, reduction blocking and panel packing (the
package docstring lists the rules)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from compiler.analysis.target import PRIVATE_SCRATCH_BYTES, Target
from compiler.auto_schedule.features import StageInfo


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
    rows_inside: bool = False  # the rows' outer loop innermost of the outer loops (a transpose's tiles)

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
    alone). The longest such axis; of symbolic ones, the innermost (a linear's rows of
    (batch, length): the length's rows lie a constant stride apart, and a batch of one
    would leave one-row tiles)."""
    best = _longest_free_axis(info, v, _contiguous_reads(info, v))
    if best is None:
        # every axis picks the contiguous reads' elements, some only through data: an
        # expert's weights chosen by each row's expert id (a grouped matmul, its rows
        # sorted by expert). Rows of one expert share the vectors loaded, but each row
        # loads its own; tiled, the panel of weights stays in cache while the rows pass
        # (untiled, each row read all of its expert's weights from memory)
        best = _longest_free_axis(info, v, _contiguous_reads(info, v, affine=True))
    return best


def _contiguous_reads(info: StageInfo, v: int, *, affine: bool = False) -> list[list[frozenset[str]]]:
    """The axes each index uses of the reads whose last index walks axis `v` (vector
    lanes load them contiguously); `affine`: an index computed from data uses none."""
    vname = info.axis_names[v]
    uses = info.affine_reads if affine else info.reads
    return [uses[k] for k, r in enumerate(info.reads) if r and vname in r[-1]]


def _longest_free_axis(info: StageInfo, v: int, contiguous: list[list[frozenset[str]]]) -> int | None:
    """`unroll_axis`'s choice among the axes some read of `contiguous` does not use."""
    best: tuple[int, int] | None = None
    for a, name in enumerate(info.axis_names):
        if a == v or all(any(name in u for u in r) for r in contiguous):
            continue
        extent = info.extents[a]
        if extent is not None and extent < 2:
            continue
        score = extent if extent is not None else 1 << 20
        if best is None or score > best[0] or (extent is None and score == best[0]):
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
    if extent is None:  # the rows past the extent: a tail that loop-partition peels and
        # unroll-loops versions by its row count (so any tile height keeps its rows in
        # registers); 8 as for a long static axis that it divides (below)
        return [1, 2, 4, 6, 8]
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
    conv's input row, which moves with the output row too); an index computed from data
    (a grouped matmul's expert) uses none."""
    others = set(info.axis_names) - {info.axis_names[v]}
    contiguous = _contiguous_reads(info, v, affine=True)
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
    }  # a read indexed by data (an expert's weights) uses every axis there: never packed
    if len(panel) != 1:
        return None
    (name,) = panel
    return name


def worth_parallel(info: StageInfo, target: Target) -> bool:
    """Whether the stage has cores to share and the work to pay for their fork and join
    (`Target.parallel_min_work`; a symbolic extent counts as large)."""
    sizes = [*info.extents, *info.reduce_extents]
    if target.cores <= 1:
        return False
    return any(e is None for e in sizes) or math.prod(e or 1 for e in sizes) >= target.parallel_min_work


def _root_plan(info: StageInfo, target: Target) -> tuple[StagePlan, int | None]:
    """A root plan, parallel when it is worth it, and the stage's vector axis."""
    return StagePlan(info.name, parallel=worth_parallel(info, target)), vector_axis(info)


def plan_reduction(info: StageInfo, target: Target) -> StagePlan:
    plan, v = _root_plan(info, target)
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
        if plan.vector_first:
            plan = _block_and_pack_panel(plan, info, v, vf, target)
    return plan


def _block_and_pack_panel(plan: StagePlan, info: StageInfo, v: int, vf: int, target: Target) -> StagePlan:
    """A long reduction blocked so that the column panel fits (the longest block that
    divides it: no tail), and the panel packed into a compact buffer (TVM's GEMM
    tutorial's packing, here a cache_read at the panel's k block: contiguous rows of the
    tile's width) unless it is contiguous already or the tile has few rows.

    A packed panel is each thread's own (the column loop is the parallel one): larger
    than a thread's scratch it lives in the arena and the loop runs serially (GPT-2's
    3072 -> 768 projection, an [in, out] weight: its 1536-deep panel 288 KiB with a
    2 MiB L2), so it fits `PRIVATE_SCRATCH_BYTES` as well as a quarter of L2, or is not
    packed."""
    rows = info.extents[plan.unroll_axis] if plan.unroll_axis is not None else None
    blocked = info.axis_names[v] in info.blocks  # its panel is contiguous already
    packed = not blocked and (rows is None or rows >= PACK_MIN_ROWS)
    k = info.reduce_extents[0] if info.reduce_extents else None

    def panel_bytes(depth: int) -> int:
        return depth * vf * info.element_bits // 8

    budget = min(target.l2_bytes // 4, PRIVATE_SCRATCH_BYTES) if packed else target.l2_bytes // 4
    if k is not None and len(info.reduce_extents) == 1 and panel_bytes(k) > budget:
        fitting = [c for c in range(min(k - 1, 4096), 31, -1) if k % c == 0 and panel_bytes(c) <= budget]
        if fitting:
            plan = replace(plan, reduce_split=fitting[0])
    if packed and panel_bytes(plan.reduce_split or k or 0) <= PRIVATE_SCRATCH_BYTES:
        plan = replace(plan, pack_input=_panel_input(info, v))
    return plan


TRANSPOSE_ROWS = 8
"""Rows of a transpose's tile: 8 rows of one vector each. Each vector gathers a column of
lanes rows of the source, the 8 rows take 8 elements of each of those source rows' lines,
which stay in L1 for the next, and the tiles along the rows run inside those along the
columns, so one block of source rows is read whole before the next. Untiled, each
output row streamed the whole source from memory (an NHWC -> NCHW result of
64 x 112 x 112: 1.9 ms; tiled 0.3, a copy's time)."""


def transpose_axes(info: StageInfo) -> tuple[int, int] | None:
    """(v, t) for a stage that transposes a read: its last axis v indexes another dimension
    of the read than the last, whose last index is the one data axis t (NCHW of NHWC: v
    is the width, t the channel); None otherwise."""
    if not info.axis_names:
        return None
    v = len(info.axis_names) - 1
    for read in info.reads:
        if not read or len(read[-1]) != 1:
            continue
        (name,) = read[-1]
        if name in info.axis_names[:v] and any(info.axis_names[v] in u for u in read[:-1]):
            return v, info.axis_names.index(name)
    return None


def plan_injective(info: StageInfo, target: Target) -> StagePlan:
    plan, v = _root_plan(info, target)
    if v is None:
        transposed = transpose_axes(info)
        if transposed is None:
            return plan
        v, t = transposed
        return replace(plan, vector_axis=v, vector_factor=target.lanes(info.element_bits), unroll_axis=t,
                       unroll_factor=TRANSPOSE_ROWS, rows_inside=True)
    lanes = target.lanes(info.element_bits)
    extent = info.extents[v]
    if extent is not None and extent <= 8 * lanes:
        return replace(plan, vector_axis=v, vector_factor=None)
    factors = _divisors(extent, [8 * lanes, 4 * lanes, 2 * lanes, lanes]) if extent is not None else []
    return replace(plan, vector_axis=v, vector_factor=factors[0] if factors else lanes)

