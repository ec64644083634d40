"""Scans in the schedule model: the stages of a scan's body (`te.state` names them)
and where they are computed (inside the scan's time loop)."""

from __future__ import annotations

from compiler.analysis.walk import walk_ops
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import simplify
from compiler.diagnostics import ScheduleVerifyError
from compiler.dialects import te
from compiler.schedule.stages import ScheduleData, Stage


def scan_states(func: te.FuncOp) -> dict[str, list[te.StateOp]]:
    """The `te.state` ops of each scan, by the scan's stage name."""
    found: dict[str, list[te.StateOp]] = {}
    for op in func.body.block.ops:
        if isinstance(op, te.StateOp):
            found.setdefault(op.stage.data, []).append(op)
    return found


def mark_scans(func: te.FuncOp, stages: dict[str, Stage]) -> None:
    """Each scan stage's first time step: its inits' first extent (all the same). The
    te.state verifier has checked that the stage exists and has the state's type."""
    for name, states in scan_states(func).items():
        firsts = {str(state.init_type.get_shape()[0]) for state in states}
        if len(firsts) != 1:
            raise ScheduleVerifyError(
                f'te.state of "{name}": its inits have different first extents {sorted(firsts)}', states[0]
            )
        stages[name].scan_from = simplify(parse_expr(firsts.pop()))


def _reads_state_of(op: te.ComputeOp) -> set[str]:
    return {
        inner.tensor.owner.stage.data
        for inner in walk_ops(op.body)
        if isinstance(inner, te.ReadOp) and isinstance(inner.tensor.owner, te.StateOp)
    }


def scan_bodies(model: ScheduleData) -> dict[str, list[Stage]]:
    """Per scan, the stages that read its state, directly or through other stages
    (TVM's scan body): they can only be computed inside its time loop."""
    depends: dict[str, set[str]] = {}
    for stage in model.stages.values():
        deps = _reads_state_of(stage.op)
        for name in stage.inputs:
            deps |= depends.get(name, set())
        depends[stage.name] = deps - {stage.name}
    bodies: dict[str, list[Stage]] = {}
    for stage in model.stages.values():
        for scan in depends[stage.name]:
            bodies.setdefault(scan, []).append(stage)
    return bodies


def place_scan_bodies(model: ScheduleData) -> None:
    """Computes a scan's body stages inside its time loop unless the schedule put them
    inside it (or inlined them); checks the scan's time loop stays outermost and serial."""
    scans = [s for s in model.stages.values() if s.scan_from is not None]
    bodies = scan_bodies(model)
    for name, states in scan_states(model.func).items():
        for state in states:
            init = state.init.owner
            assert isinstance(init, te.ComputeOp)
            stage = model.stages[init.stage.data]
            if stage.inline or stage.attach_stage is not None or stage.is_output:
                raise ScheduleVerifyError(
                    f'stage "{stage.name}" is the init of scan "{name}": it writes the scan\'s first rows, at the '
                    "root (it can't be inlined, attached or be a result itself)"
                )
    for scan in scans:
        _check_scan_stage(scan)
        time = scan.axes[0]
        for body in bodies.get(scan.name, []):
            if body.scan_from is not None:
                raise ScheduleVerifyError(f'scan "{body.name}" reads the state of scan "{scan.name}": scans do not nest')
            if body.inline:
                continue
            if body.attach_stage is None:
                body.attach_stage, body.attach_ivar = scan, time
        for body in bodies.get(scan.name, []):
            if not body.inline and time not in model.attach_path(body):
                raise ScheduleVerifyError(
                    f'stage "{body.name}" reads the state of scan "{scan.name}", so it must be computed inside the '
                    f"scan's time loop {time.name} (compute_at the scan or a stage inside it, or compute_inline)"
                )


def _check_scan_stage(scan: Stage) -> None:
    time = scan.axes[0]
    where = f'scan "{scan.name}"'
    if scan.inline or scan.attach_stage is not None:
        raise ScheduleVerifyError(f"{where} is computed at the root: it can't be inlined or attached")
    if not scan.leaves or scan.leaves[0] is not time or any(time in r.inputs for r in scan.relations):
        raise ScheduleVerifyError(
            f"{where}: its time axis {time.name} must stay its outermost loop, unsplit and unfused (the steps run in order)"
        )
    if time.kind != "serial":
        raise ScheduleVerifyError(f"{where}: its time axis {time.name} runs in order; it can't be {time.kind}")


