"""Parsing index expressions from text (`parse_expr`): Python's own parser, restricted
to the node kinds of the index language (`+ - * // %`, min/max, names, integers)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from compiler.arith.expr import (
    EQ,
    LE,
    LT,
    NE,
    Add,
    And,
    BinaryExpr,
    BoolConst,
    Cond,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Not,
    Or,
    Sub,
)
from compiler.errors import ExprValueError

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED = frozenset({"min", "max", "True", "False", "None"})
_AST_BINOPS: dict[type[ast.operator], Callable[[IndexExpr, IndexExpr], BinaryExpr]] = {
    ast.Add: Add,
    ast.Sub: Sub,
    ast.Mult: Mul,
    ast.FloorDiv: FloorDiv,
    ast.Mod: FloorMod,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text

    def error(self, node: ast.AST, what: str = "unsupported syntax") -> ExprValueError:
        segment = ast.get_source_segment(self.text, node) or ast.dump(node)
        return ExprValueError(f"{what} {segment!r} in {self.text!r}")

    def parse(self) -> ast.expr:
        try:
            tree = ast.parse(self.text.strip(), mode="eval")
        except SyntaxError as err:
            raise ExprValueError(f"cannot parse {self.text!r}: {err.msg}") from None
        self.text = self.text.strip()
        return tree.body

    def expr(self, node: ast.expr) -> IndexExpr:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int) and not isinstance(node.value, bool):
                return IndexConst(node.value)
            raise self.error(node, "unsupported constant")
        if isinstance(node, ast.Name):
            if not _IDENT.match(node.id) or node.id in _RESERVED:
                raise self.error(node, "invalid variable name")
            return IndexVar(node.id)
        if isinstance(node, ast.BinOp) and type(node.op) in _AST_BINOPS:
            return _AST_BINOPS[type(node.op)](self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self.expr(node.operand)
            return -inner if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.error(node)

    def call(self, node: ast.Call) -> IndexExpr:
        func = node.func
        if not (isinstance(func, ast.Name) and func.id in ("min", "max")):
            raise self.error(node, "unsupported call")
        if node.keywords or len(node.args) < 2:
            raise self.error(node, f"{func.id}() needs at least two positional arguments:")
        ctor = Min if func.id == "min" else Max
        args = [self.expr(a) for a in node.args]
        out = args[0]
        for arg in args[1:]:
            out = ctor(out, arg)
        return out

    def cond(self, node: ast.expr) -> Cond:
        if isinstance(node, ast.Constant) and isinstance(node.value, bool):
            return BoolConst(node.value)
        if isinstance(node, ast.BoolOp):
            ctor = And if isinstance(node.op, ast.And) else Or
            parts = [self.cond(v) for v in node.values]
            out = parts[0]
            for part in parts[1:]:
                out = ctor(out, part)
            return out
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return Not(self.cond(node.operand))
        if isinstance(node, ast.Compare):
            return self.compare(node)
        raise self.error(node, "unsupported condition")

    def compare(self, node: ast.Compare) -> Cond:
        operands = [self.expr(node.left), *(self.expr(c) for c in node.comparators)]
        result: Cond | None = None
        for op, lhs, rhs in zip(node.ops, operands, operands[1:], strict=False):
            part = self.comparison(node, op, lhs, rhs)
            result = part if result is None else And(result, part)
        assert result is not None
        return result

    def comparison(self, node: ast.Compare, op: ast.cmpop, lhs: IndexExpr, rhs: IndexExpr) -> Cond:
        if isinstance(op, ast.Lt):
            return LT(lhs, rhs)
        if isinstance(op, ast.LtE):
            return LE(lhs, rhs)
        if isinstance(op, ast.Gt):
            return LT(rhs, lhs)
        if isinstance(op, ast.GtE):
            return LE(rhs, lhs)
        if isinstance(op, ast.Eq):
            return EQ(lhs, rhs)
        if isinstance(op, ast.NotEq):
            return NE(lhs, rhs)
        raise self.error(node, "unsupported comparison")


def parse_expr(text: str) -> IndexExpr:
    """Parse Python-like integer expression syntax.

    Accepts integers, identifiers, ``+ - * // %``, unary ``-``/``+``,
    parentheses and ``min(a, b, ...)``/``max(a, b, ...)``.  Anything else
    raises ``ValueError`` naming the offending text.
    """
    parser = _Parser(text)
    return parser.expr(parser.parse())


def parse_cond(text: str) -> Cond:
    """Parse a condition: comparisons ``< <= > >= == !=`` (chains allowed),
    ``and``, ``or``, ``not``, parentheses and ``True``/``False``."""
    parser = _Parser(text)
    return parser.cond(parser.parse())
