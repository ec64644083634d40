"""The planner: a plan for every stage of a function (`plan_function`), from the per-stage
cost model, the inlining policy, and the rules that span stages (a reduction computed in
its epilogue's tile; a result's row blocks)."""

from __future__ import annotations

from dataclasses import replace

from xdsl.dialects.builtin import StringAttr

from compiler.analysis.target import PRIVATE_SCRATCH_BYTES, Target
from compiler.auto_schedule.cost import StagePlan, plan_injective, plan_reduction
from compiler.auto_schedule.features import StageInfo, stage_info
from compiler.auto_schedule.inlining import Producer, inlined_stages, transposes_last
from compiler.dialects import sched, te
from compiler.dialects.shape import ANY_SIZE, SizeRange, declared_shape_bounds, shape_var_names
from compiler.schedule.model import ScheduleModel, scan_bodies, scan_states


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
    whole = {name for name in model.stages if model.extern_readers(name)}  # a te.extern reads them whole
    in_scans = scan_stage_names(model)
    inlined = user_inlined(schedule)
    kept = (user | in_scans) - inlined
    inline = set(inlined_stages(_producers(model, infos, whole), recompute=True, decided={
        **{name: False for name in kept}, **{name: True for name in inlined}}))
    plans: list[StagePlan] = []
    for name, info in infos.items():
        if name in user or name in in_scans:
            plans.append(StagePlan(name, action="keep"))
        elif info.reduce_extents:
            plans.append(plan_reduction(info, target))
        elif name in inline:
            plans.append(StagePlan(name, action="inline"))
        else:
            plans.append(plan_injective(info, target))
    pinned = whole | (user - inlined) | in_scans
    return _row_blocks(_fuse_epilogues(plans, infos, whole), infos, pinned, target, declared_shape_bounds(func))


def _producers(model: ScheduleModel, infos: dict[str, StageInfo], whole: set[str]) -> list[Producer]:
    """The stages as the inlining policy reads them, producers first; pinned: results,
    stages another is computed at, and those a te.extern reads whole."""
    attach_targets = {s.attach_stage.name for s in model.stages.values() if s.attach_stage is not None}
    return [
        Producer(
            name,
            {c: infos[c].read_tensors.count(name) for c in info.consumers},
            reduction=bool(info.reduce_extents),
            moves_only=info.moves_only,
            guarded=info.guarded,
            transposes_last=info.moves_only and bool(info.axis_names)
            and transposes_last([info.axis_names[-1] in u for u in info.reads[0]]),
            pinned=info.is_output or name in attach_targets or name in whole,
        )
        for name, info in infos.items()
    ]


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


def _nominal(extent: int | None, longest: int) -> int:
    """What an extent counts as where a row block is sized: a symbolic one as `longest`,
    the largest size its function declares (`_longest`)."""
    return extent if extent is not None else longest


def _nominal_bytes(info: StageInfo, longest: int) -> int:
    size = info.element_bits // 8
    for e in info.extents:
        size *= _nominal(e, longest)
    return size


def _producer_map(infos: dict[str, StageInfo]) -> dict[str, list[str]]:
    """Each stage's producers (the reverse of `consumers`), built once per function for
    `_block_members`, which walks a result's producers: scanning every stage for each
    candidate result was quadratic in the stages (the default Mamba's unrolled scan has
    thousands)."""
    producers: dict[str, list[str]] = {}
    for m, i in infos.items():
        for c in i.consumers:
            producers.setdefault(c, []).append(m)
    return producers


def _block_members(
    name: str, infos: dict[str, StageInfo], plans: dict[str, StagePlan], whole: set[str],
    producers: dict[str, list[str]],
) -> list[str]:
    """The stages that can be computed per block of rows of stage `name`: root (and
    inlined) stages, not results nor in `whole` (read whole, or the user's), whose
    leading axes are `name`'s rows (all its axes but the last), read row for row (their
    leading indices the reader's own axes) only by one another, `name` and the
    reduction in its tile; the largest set (a fixed point: a stage that cannot be a
    member takes its producers out with it)."""
    info = infos[name]
    rows = len(info.extents) - 1
    tile_of = plans[name].tile_of
    group = {name} | ({tile_of} if tile_of else set())
    prefix = info.shape[:rows]

    def candidate(m: str) -> bool:
        i = infos[m]
        return (
            plans[m].action in ("root", "inline", "keep") and not plans[m].tile_of and not i.is_output
            and m not in whole and m != name and i.shape[:rows] == prefix
        )

    # a member's consumers are members or the group, so following them leads to the
    # group: the members are among the group's producers (transitively) that qualify
    members: set[str] = set()
    reached = [p for g in group for p in producers.get(g, ())]
    while reached:
        m = reached.pop()
        if m not in members and candidate(m):
            members.add(m)
            reached += producers.get(m, ())

    def row_for_row(member: str, consumer: str) -> bool:
        c = infos[consumer]
        return all(
            c.leading_identity[k] >= rows for k, t in enumerate(c.read_tensors) if t == member
        ) and c.shape[:rows] == info.shape[:rows]

    def fits(m: str) -> bool:
        consumers = infos[m].consumers
        return bool(consumers) and all((c in members or c in group) and row_for_row(m, c) for c in consumers)

    leaving = [m for m in members if not fits(m)]
    while leaving:
        m = leaving.pop()
        if m not in members:
            continue
        members.discard(m)
        leaving += [p for p in producers.get(m, ()) if p in members and m not in group]
    return sorted(members)


def _inputs_fit(members: list[str], rows: int, infos: dict[str, StageInfo], target: Target, longest: int) -> bool:
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
                if extent is None and not longest:
                    return False  # a symbolic input of static members: of no known size
                size *= _nominal(extent, longest)
            if size > 4 * target.l2_bytes:
                return False
    return True


def _row_blocks(
    plans: list[StagePlan], infos: dict[str, StageInfo], whole: set[str], target: Target, ranges: dict[str, SizeRange]
) -> list[StagePlan]:
    """The stages whose rows a result reads row for row, computed per block of its rows
    when one of them is a reduction and materializing them whole would not fit in L2
    (attention's scores, row max and sum, and exponentials: FlashAttention's row blocks,
    without its online rescaling): each block's intermediates stay in cache, and the
    threads run whole blocks. The block is a multiple of the result's row tile, its
    largest intermediate a quarter of L2.

    Symbolic sizes need a declared range (`ranges`, the function's `shape_bounds`) of at
    least 1 and at most some size, and count as the largest such size (`_longest`): with 0
    possible, the bounds of each block hedge for an empty dimension at every stage and nest
    (a dynamic BERT's infer-bound and loop-partition ran for minutes on them); with no
    largest size, a block's intermediates are of no bounded size, so they are no thread's
    own (`PRIVATE_SCRATCH_BYTES`, `_block_rows`) and the blocks would run serially."""
    by_name = {p.stage: p for p in plans}
    producers = _producer_map(infos)
    for p in plans:
        info = infos[p.stage]
        if p.action != "root" or p.unroll_axis != len(info.extents) - 2 or p.unroll_factor < 1 or p.block_of:
            continue
        members = [m for m in _block_members(p.stage, infos, by_name, whole, producers) if by_name[m].action == "root"]
        longest = _longest(members, infos, ranges)
        if not any(infos[m].reduce_extents for m in members) or longest is None:
            continue
        largest = max(_nominal_bytes(infos[m], longest) for m in members)
        if largest <= target.l2_bytes or not _inputs_fit(members, len(info.extents) - 1, infos, target, longest):
            continue
        block = _block_rows(info, p, largest, target, longest)
        if block is None:
            continue
        by_name[p.stage] = replace(p, row_block=block)
        for m in members:
            by_name[m] = replace(_at_nominal_sizes(by_name[m], infos[m], target, longest), block_of=p.stage, parallel=False)
    return [by_name[p.stage] for p in plans]


def _at_nominal_sizes(plan: StagePlan, info: StageInfo, target: Target, longest: int) -> StagePlan:
    """A row block member's plan with its symbolic extents at `longest` (`_nominal`): in a
    block its buffer lives on the stack at those sizes (schedule-ops' `_stack_shape`), so
    its rows lie a constant stride apart and need no local tile, and its tiles are those of
    a static stage of that length (a symbolic length's scores took 8 x 3 vectors, tiles that
    left a tail in every block of 30 rows, and copied each tile out of a local stage: 1.7x
    the static attention's time; at the nominal sizes, 6 x 4 as static)."""
    if None not in info.extents and None not in info.reduce_extents:
        return plan
    nominal = replace(
        info,
        extents=[_nominal(e, longest) for e in info.extents],
        reduce_extents=[_nominal(e, longest) for e in info.reduce_extents],
    )
    return plan_reduction(nominal, target) if info.reduce_extents else plan_injective(nominal, target)


def _longest(members: list[str], infos: dict[str, StageInfo], ranges: dict[str, SizeRange]) -> int | None:
    """The largest size the symbolic variables of the members' shapes are declared to take
    (0 when there are none), or None when one may be 0 or has no largest size."""
    uppers = [0]
    for name in shape_var_names([d for m in members for d in infos[m].shape]):
        lower, upper = ranges.get(name, ANY_SIZE)
        if lower < 1 or upper is None:
            return None
        uppers.append(upper)
    return max(uppers)


def _block_rows(info: StageInfo, plan: StagePlan, largest: int, target: Target, longest: int) -> int | None:
    """Rows per block of `plan`'s row axis (static): a multiple of its row tile whose
    share of the largest intermediate (`largest` bytes) is a quarter of L2 and at most a
    thread's own scratch (`PRIVATE_SCRATCH_BYTES`: a larger block lives in the arena,
    shared, and the blocks would run serially), small enough to give every core a few
    blocks; None when one block would do it all, or even one row tile is too large."""
    assert plan.unroll_axis is not None
    rows = _nominal(info.extents[plan.unroll_axis], longest)
    rows_before = 1
    for e in info.extents[: plan.unroll_axis]:
        rows_before *= _nominal(e, longest)
    row_bytes = max(largest // (rows_before * rows), 1)
    u = plan.unroll_factor
    if u * row_bytes > PRIVATE_SCRATCH_BYTES:
        return None
    block = max(u, min(target.l2_bytes // 4, PRIVATE_SCRATCH_BYTES) // row_bytes // u * u)
    while block > u and rows_before * -(-rows // block) < target.cores * plan.min_parallel:
        block -= u  # enough blocks for the cores
    if block >= rows and rows_before < target.cores:
        return None  # one block: nothing to share among the cores
    return min(block, rows)

