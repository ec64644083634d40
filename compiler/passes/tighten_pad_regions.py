"""tighten-pad-regions: let bound inference see the guards of lazy reads (seed 000).

A padded stage reads its producer only where a guard holds:

    pad[i] = if_then_else(1 <= i && i < n + 1, y[i - 1], 0)    for i in [0, n + 2)

Interval bound inference evaluates `i - 1` over all of [0, n + 2) and asks for
y over [-1, n + 1): one element too many on each side, and the error compounds
backwards through every padded layer (pad_temp 60x60 instead of 58x58 in the
seed). Because `if_then_else` is lazy (`scf.if`), the read runs only where the
guard holds, so intersecting the read's iteration domain with the guard is
exact, and never under-approximates.

This pass annotates every guarded `te.read` of another stage:

  te.guard         the conjunction of the affine comparisons on the stage's
                   iteration variables that hold wherever the read executes
                   (nested guards, `likely` or not, symbolic bounds such as
                   `i < n + 1`), as text over infer-bound's variable names;
  te.guard_unused  what could not be used and why (a disjunction, a negation,
                   an equality, a non-affine condition).

`infer-bound` intersects each consumer variable's set with the bounds a
conjunct gives it before evaluating the read's indices (`tighten_domain`).
Dropping a conjunct only widens the domain, so what cannot be used is simply
left out: the request falls back towards the untightened one, never below
what is read.

Known limits (# WARNING): a conjunct is used only when it bounds a single
iteration variable (`2 * i + 1 < n` is fine, `i + j < n` is left unused:
intervals cannot represent it; an exact set library such as islpy could).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp, StringAttr

from compiler.analysis.guards import GUARD_ATTR, UNUSED_ATTR, path_conditions, split_usable
from compiler.analysis.walk import walk_ops
from compiler.dialects import te
from compiler.passes import TeFunctionPass
from compiler.schedule.model import ScheduleModel, apply_rfactors, schedule_of

# ---------------------------------------------------------------------------
# The pass: annotate guarded reads
# ---------------------------------------------------------------------------


def annotate_function(module: ModuleOp, func: te.FuncOp) -> None:
    apply_rfactors(module, func)  # a no-op when apply-rfactor already ran
    model = ScheduleModel.build(func, schedule_of(module, func))
    for stage in model.stages.values():
        for op in walk_ops(stage.op.body):
            if not (isinstance(op, te.ReadOp) and isinstance(op.tensor.owner, te.ComputeOp)):
                continue
            usable, unused = split_usable(path_conditions(op, stage))
            if usable:
                op.attributes[GUARD_ATTR] = StringAttr(" and ".join(str(c) for c in usable))
            if unused:
                op.attributes[UNUSED_ATTR] = StringAttr("; ".join(unused))


@dataclass(frozen=True)
class TightenPadRegionsPass(TeFunctionPass):
    """Record the guards of lazy reads so that infer-bound requests only what is read."""

    name = "tighten-pad-regions"

    def run_on_function(self, module: ModuleOp, func: te.FuncOp) -> None:
        annotate_function(module, func)
