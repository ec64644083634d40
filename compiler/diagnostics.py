"""The compiler's errors that are xDSL diagnostics too.

A verifier raises `VerifyError` and a pass `PassError`: xDSL (and so
`compiler-opt`, which prints them as `file:line:col: error: ...`) sees a
`VerifyException` or a `PassFailedException`, while a Python caller of
`compiler.build` or `compiler.lower` catches them as `compiler.IRError` (a
`ValueError`) like every other `compiler.CompilerError`. `ScheduleVerifyError`
is the sched dialect's verifier failing on one primitive, which it carries as
`op` for the diagnostic's location; `MemoryPlanPassError` is `verify-memory-plan`
finding an unsound plan (a `compiler.MemoryPlanError`, an internal error).

A `PassError` given the op it is about (`op=`) is a located diagnostic,
`file:line:col: error: message`, at that op or, when the op was built by a pass
and has no location of its own, at its nearest ancestor that has one (the
`loop.func` that `schedule-ops` made from a `te.func` carries its location).
Built through the Python API, ops have no locations and the message is bare.

They live apart from `compiler.errors` because they derive from xDSL's
classes, and `compiler.errors` is imported where xDSL must not be (the runtime
that loads exported libraries).
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException, VerifyException

from compiler.errors import IRError, MemoryPlanError, ScheduleError

__all__ = ["MemoryPlanPassError", "PassError", "ScheduleVerifyError", "VerifyError", "location_prefix", "verify_top_level"]


def location_prefix(op: Operation | None) -> str:
    """`file:line:col: ` of `op` or of its nearest ancestor with a file location; "" without."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}: "
        op = op.parent_op()
    return ""


def located(message: str, op: Operation | None) -> str:
    """`message` as a diagnostic at `op`: `file:line:col: error: message`, or bare."""
    where = location_prefix(op)
    return f"{where}error: {message}" if where else message


class VerifyError(IRError, VerifyException):
    """An op or attribute that breaks an invariant of its dialect (a verifier failed)."""


def verify_top_level(op: Operation) -> None:
    """A function op (`te.func`, `loop.func`) lies in the module, not in another op: a
    function nested in a function would reach the lowering as a second symbol of its name."""
    parent = op.parent_op()
    if parent is not None and not isinstance(parent, ModuleOp):
        raise VerifyError(f"{op.name} must be at the top level of the module, not inside {parent.name}")


class PassError(IRError, PassFailedException):
    """A pass that cannot transform its input (unsupported IR, an unbindable variable...);
    `op` is the op it is about, for the diagnostic's location (None: not known)."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(located(message, op))
        self.op = op


class ScheduleVerifyError(ScheduleError, VerifyError):
    """An invalid schedule primitive found by the sched verifier; `op` is the primitive
    (None when no single primitive is to blame), whose location the message carries as a
    PassError's does (a schedule replayed by a pass fails outside `verify_located`);
    `message` is the message without it."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(located(message, op))
        self.message = message
        self.op = op


class MemoryPlanPassError(MemoryPlanError, PassFailedException):
    """`verify-memory-plan` found two buffers live at once over the same arena bytes;
    located at `op` (the function) as a PassError is."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(located(message, op))
        self.op = op
