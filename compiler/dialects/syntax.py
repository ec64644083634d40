"""Custom syntax that several dialects print and parse alike: an element access
`%b[%i, %j] {attrs} : type` (`loop.load`, `loop.store`'s destination, `te.read`);
and the parser the project's tools read IR with (`IRParser`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.printer import Printer
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer

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
