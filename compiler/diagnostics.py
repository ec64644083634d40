"""The compiler's errors that are xDSL diagnostics too.

A verifier raises `VerifyError` and a pass `PassError`: xDSL (and so
`compiler-opt`, which prints them as `file:line:col: error: ...`) sees a
`VerifyException` or a `PassFailedException`, while a Python caller of
`compiler.build` or `compiler.lower` catches them as `compiler.IRError` (a
`ValueError`) like every other `compiler.CompilerError`. `ScheduleVerifyError`
is the sched dialect's verifier failing on one primitive, which it carries as
`op` for the diagnostic's location; `MemoryPlanPassError` is `verify-memory-plan`
finding an unsound plan (a `compiler.MemoryPlanError`, an internal error).

They live apart from `compiler.errors` because they derive from xDSL's
classes, and `compiler.errors` is imported where xDSL must not be (the runtime
that loads exported libraries).
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException, VerifyException

from compiler.errors import IRError, MemoryPlanError, ScheduleError

__all__ = ["MemoryPlanPassError", "PassError", "ScheduleVerifyError", "VerifyError"]


class VerifyError(IRError, VerifyException):
    """An op or attribute that breaks an invariant of its dialect (a verifier failed)."""


class PassError(IRError, PassFailedException):
    """A pass that cannot transform its input (unsupported IR, an unbindable variable...)."""


class ScheduleVerifyError(ScheduleError, VerifyError):
    """An invalid schedule primitive found by the sched verifier; `op` is the primitive
    (None when no single primitive is to blame)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


class MemoryPlanPassError(MemoryPlanError, PassFailedException):
    """`verify-memory-plan` found two buffers live at once over the same arena bytes."""
