"""apply-rfactor: factor reductions as their `sched.rfactor` ops say (TVM's `Schedule::rfactor`).

For each `sched.rfactor %ki as "B.rf" factor_axis f` of a schedule, in order,
the reduction B is replaced by two stages (`compiler.schedule.rfactor`):
"B.rf", which keeps the factored axis %ki as a data axis (before data axis f)
and reduces over the other reduce axes, and B, which reduces "B.rf" over
that axis. The `sched.rfactor` op and the primitives of B before it are
removed from the schedule; the primitives after it (on "B.rf" and the new
axes of B) stay for infer-bound.

Runs first in the pipeline, so every later pass sees plain stages;
compute-inline, tighten-pad-regions and infer-bound apply it themselves when
it did not run.

Known limits: the factored axis must be a reduce axis connected to the root
reduce axes by splits and fuses only; a stage with other stages attached to
it is rejected (their loops are replaced), as are primitives that still use
B's axes from before the rfactor.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ModuleOp

from compiler.dialects import te
from compiler.passes import TeFunctionPass
from compiler.schedule.model import apply_rfactors


@dataclass(frozen=True)
class ApplyRfactorPass(TeFunctionPass):
    """Split every `sched.rfactor`'d reduction into its factor stage and final reduction."""

    name = "apply-rfactor"

    def run_on_function(self, module: ModuleOp, func: te.FuncOp) -> None:
        apply_rfactors(module, func)
