"""Custom syntax that several dialects print and parse alike: an element access
`%b[%i, %j] {attrs} : type` (`loop.load`, `loop.store`'s destination, `te.read`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer

A = TypeVar("A", bound=Attribute)


def print_access(printer: Printer, base: SSAValue, indices: Sequence[SSAValue]) -> None:
    """`%b[%i, %j]`"""
    printer.print_operand(base)
    with printer.in_square_brackets():
        printer.print_list(indices, printer.print_operand)


def parse_access(parser: Parser, kind: type[A], what: str) -> tuple[SSAValue, list[SSAValue], dict[str, Attribute]]:
    """`%b[%i, %j] {attrs} : type`: the base resolved to its type (a `kind`, else an error
    naming `what`, e.g. `!loop.buffer`), the indices to `index`, the attributes."""
    base = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
    attrs = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    t = parser.parse_type()
    if not isinstance(t, kind):
        parser.raise_error(f"expected a {what} type, got {t}")
    resolved: list[SSAValue] = [parser.resolve_operand(i, IndexType()) for i in indices]
    return parser.resolve_operand(base, t), resolved, attrs
