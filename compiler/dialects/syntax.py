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


def _linear_string_literal_regex() -> None:
    """xDSL 0.74 lexes a string literal with a regular expression that nests a `+` in a
    `*` (`"(?:[^"...]+|<escape>)*"`), which backtracks exponentially in the length of a
    string that is never closed: a truncated file ending in `"max(min(m * n - 1, ...`,
    35 characters, lexed for more than 30 s before failing. The same language matched
    one character per repetition fails in linear time, with the lexer's own error
    ("End of file reached before closing string literal"). Installed on import of this
    module, which `compiler.registry` imports (so every parser of the project has it)."""
    import re

    from xdsl.utils.mlir_lexer import MLIRLexer

    MLIRLexer._unescaped_characters_regex = re.compile(  # pyright: ignore[reportPrivateUsage]
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )


_linear_string_literal_regex()
