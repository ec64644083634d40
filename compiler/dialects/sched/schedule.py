"""`sched.schedule @f { ... }`, the op that holds a function's primitives, and the
hook through which the schedule model adds its checks to its verifier.

`IN_SCHEDULE` is the primitives' trait: every other op of the dialect lives in a
`sched.schedule`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, SymbolRefAttr
from xdsl.ir import Block, OpResult, Region
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, NoTerminator, SymbolTable
from xdsl.utils.exceptions import VerifyException

from compiler.diagnostics import ScheduleVerifyError, VerifyError
from compiler.dialects import te

IN_SCHEDULE = lazy_traits_def(lambda: (HasParent(ScheduleOp),))
"""The primitives' trait: they exist inside a `sched.schedule` only."""


@irdl_op_definition
class ScheduleOp(IRDLOperation):
    """`sched.schedule @f { ... }`: the schedule of `te.func @f`."""

    name = "sched.schedule"
    func = prop_def(SymbolRefAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, func: str, body: Region | None = None):
        super().__init__(
            properties={"func": SymbolRefAttr(func)}, regions=[body or Region(Block())]
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.func.root_reference.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> ScheduleOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, parser.parse_region())
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def verify_(self) -> None:
        module = self.parent_op()
        if not isinstance(module, ModuleOp):
            raise VerifyError("sched.schedule must be at the top level of a module")
        func = SymbolTable.lookup_symbol(module, self.func)
        if func is None:
            raise VerifyError(f"sched.schedule names no function {self.func}")
        if not isinstance(func, te.FuncOp):
            raise VerifyError(f"sched.schedule must name a te.func, {self.func} is not one")
        for op in self.body.block.ops:  # the replay knows the axes of this schedule only
            try:  # and assumes each primitive valid: verified first (the walk reaches them later)
                op.verify(verify_nested_ops=False)
            except VerifyException as err:
                raise ScheduleVerifyError(str(err), op) from None
            for value in op.operands:
                if not (isinstance(value, OpResult) and value.op.parent_block() is self.body.block):
                    raise ScheduleVerifyError(
                        f"{op.name} uses %{value.name_hint or '?'}, which this sched.schedule does not define", op
                    )
        for check in _SCHEDULE_CHECKERS:
            check(func, self)


ScheduleChecker = Callable[[te.FuncOp, ScheduleOp], None]
_SCHEDULE_CHECKERS: list[ScheduleChecker] = []


def install_schedule_checker(check: ScheduleChecker) -> None:
    """Adds a check of the schedule's meaning to the `sched.schedule` verifier.

    Replaying a schedule (which axes are leaves, attach scopes and cycles) is
    analysis, `compiler.schedule.model`; the dialect only defines the
    ops, so the model installs itself here when imported. The registry loads
    it with the dialect, so every context that can parse `sched` verifies it.
    """
    if check not in _SCHEDULE_CHECKERS:
        _SCHEDULE_CHECKERS.append(check)
