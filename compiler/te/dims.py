"""Shape dimensions as the te dialect spells them (an int, or an index-expression string),
without xDSL: `compiler.ops` reads them while it builds a program (`compiler.te.to_ir`
uses them when it emits one)."""

from __future__ import annotations

from compiler.errors import ExprTypeError
from compiler.te import language as T


def dim_text(d: T.Dim) -> int | str:
    """A shape dimension as the dialect spells it: an int or an index-expression string."""
    if isinstance(d, int):
        return d
    return _index_text(d)


def _index_text(e: T.Expr) -> str:
    match e:
        case T.Const(value=v):
            return str(int(v))
        case T.Var(name=n) | T.IterVar(name=n):
            return n
        case T.Binary(op=op, a=a, b=b) if op in _INDEX_OPS:
            return f"({_index_text(a)} {_INDEX_OPS[op]} {_index_text(b)})"
        case T.Call(func="maximum" | "minimum", args=(a, b)):
            fn = "max" if e.func == "maximum" else "min"
            return f"{fn}({_index_text(a)}, {_index_text(b)})"
        case _:
            raise ExprTypeError(f"cannot use {e} in a shape: only + - * // % min max of vars and ints")


_INDEX_OPS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "floormod": "%"}


def canonical_dim(d: T.Dim) -> int | str:
    """An int, or the canonical printed form of a symbolic dimension ("n + 2")."""
    from compiler.arith.expr import parse_expr
    from compiler.arith.simplify import const_value, simplify

    text = dim_text(d)
    if isinstance(text, int):
        return text
    e = simplify(parse_expr(text))
    c = const_value(e)
    return c if c is not None else str(e)
