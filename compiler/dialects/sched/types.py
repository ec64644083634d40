"""`!sched.iter`, the type of a stage's iteration variables, and the syntax of
the primitives' axis lists (`%a, %b : !sched.iter<"D">`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer


@irdl_attr_definition
class IterType(ParametrizedAttribute, TypeAttribute):
    """`!sched.iter<"D">`: an iteration variable of stage D."""

    name = "sched.iter"
    stage: StringAttr

    def __init__(self, stage: str):
        super().__init__(StringAttr(stage))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [StringAttr(parser.parse_str_literal(" (the stage name)"))]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.stage.data)


def stage_of(value: SSAValue) -> str:
    t = value.type
    assert isinstance(t, IterType)
    return t.stage.data


def parse_iters(parser: Parser) -> tuple[list[SSAValue], IterType]:
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    t = parser.parse_type()
    if not isinstance(t, IterType):
        parser.raise_error(f"expected a !sched.iter type, got {t}")
    return [parser.resolve_operand(n, t) for n in names], t


def print_iters(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_attribute(values[0].type)
