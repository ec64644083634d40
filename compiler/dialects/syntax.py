"""Custom syntax that several dialects print and parse alike: an element access
`%b[%i, %j] {attrs} : type` (`loop.load`, `loop.store`'s destination, `te.read`), a
function in `func.func`'s syntax (`te.func`, `loop.func`); and the parser the
project's tools read IR with (`IRParser`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, Protocol, TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FunctionType, IndexType, StringAttr
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer

A = TypeVar("A", bound=Attribute)


def print_access(printer: Printer, base: SSAValue, indices: Sequence[SSAValue], attributes: dict[str, Attribute]) -> None:
    """`%b[%i, %j] {attrs} : type`, the inverse of `parse_access`."""
    printer.print_operand(base)
    with printer.in_square_brackets():
        printer.print_list(indices, printer.print_operand)
    print_attributes_and_types(printer, attributes, [base.type])


def print_attributes_and_types(printer: Printer, attributes: dict[str, Attribute], types: Sequence[Attribute]) -> None:
    """` {attrs} : t0 -> t1 -> ...`: an op's attributes, then its type signature."""
    printer.print_op_attributes(attributes)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute, " -> ")


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


FUNCTION_PROPERTIES = ("sym_name", "function_type", "arg_attrs", "res_attrs")
"""A function op's properties, which its syntax prints in place (not as attributes)."""


class FunctionLike(Protocol):
    sym_name: StringAttr
    function_type: FunctionType
    body: Region
    attributes: dict[str, Attribute]
    arg_attrs: ArrayAttr[DictionaryAttr] | None
    res_attrs: ArrayAttr[DictionaryAttr] | None


class FunctionParts(NamedTuple):
    name: str
    inputs: list[Attribute]
    outputs: list[Attribute]
    body: Region
    attributes: dict[str, Attribute]
    arg_attrs: ArrayAttr[DictionaryAttr] | None
    res_attrs: ArrayAttr[DictionaryAttr] | None


def parse_function(parser: Parser, what: str) -> FunctionParts:
    """`@name(%a: type, ...) -> types attributes {...} {body}`, as `func.func` is written;
    a function without a body is an error naming `what`."""
    name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
        parser, reserved_attr_names=FUNCTION_PROPERTIES
    )
    if region is None:
        parser.raise_error(f"{what} needs a body")
    attributes = dict(extra.data) if extra is not None else {}
    return FunctionParts(name, list(inputs), list(outputs), region, attributes, arg_attrs, res_attrs)


def print_function(printer: Printer, op: FunctionLike) -> None:
    """The inverse of `parse_function`."""
    print_func_op_like(
        printer,
        op.sym_name,
        op.function_type,
        op.body,
        op.attributes,
        arg_attrs=op.arg_attrs,
        res_attrs=op.res_attrs,
        reserved_attr_names=FUNCTION_PROPERTIES,
    )


class LinearStringLexer(MLIRLexer):
    """xDSL's lexer, with string literals lexed in linear time.

    xDSL 0.74 lexes a string literal with a regular expression that nests a `+` in a
    `*` (`"(?:[^"...]+|<escape>)*"`), which backtracks exponentially in the length of
    a string that is never closed: a truncated file ending in `"max(min(m * n - 1, ...`,
    35 characters, lexed for more than 30 s before failing. The same language matched
    one character per repetition fails in linear time, with the lexer's own error
    ("End of file reached before closing string literal")."""

    _unescaped_characters_regex = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')


class IRParser(Parser):
    """xDSL's parser with `LinearStringLexer`: the project's parsers (`compiler-opt`,
    `compiler-run`, the tuning log) use it; xDSL's own parser is left as it is."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>"):
        super().__init__(ctx, input, name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(LinearStringLexer(Input(text, name)))
