"""Shape dimensions between the two expression languages: te's (`compiler.te.nodes`, what
programs are written in) and the index language (`compiler.arith.expr`, what the
simplifier and the dialects' shapes use), converted node to node, both ways, without
xDSL: `compiler.ops` compares dimensions while it builds a program, and
`compiler.te.to_ir` spells them as the te dialect does when it emits one."""

from __future__ import annotations

from collections.abc import Callable

from compiler.arith import expr as A
from compiler.errors import ExprTypeError
from compiler.te import language as T

_TO_ARITH: dict[str, Callable[[A.IndexExpr, A.IndexExpr], A.IndexExpr]] = {
    "add": A.Add,
    "sub": A.Sub,
    "mul": A.Mul,
    "floordiv": A.FloorDiv,
    "floormod": A.FloorMod,
    "maximum": A.Max,
    "minimum": A.Min,
}
"""te's integer operations (binary ops and calls) and the index language's nodes."""

_TO_TE: dict[type[A.IndexExpr], tuple[str, bool]] = {
    A.Add: ("add", False),
    A.Sub: ("sub", False),
    A.Mul: ("mul", False),
    A.FloorDiv: ("floordiv", False),
    A.FloorMod: ("floormod", False),
    A.Max: ("maximum", True),
    A.Min: ("minimum", True),
}
"""The index language's binary nodes as te spells them: (op or function, is a call)."""


def to_arith(d: T.Dim) -> A.IndexExpr:
    """A shape dimension (an int or a te index expression of vars, axes and ints under
    + - * // % min max) as an index-language expression; anything else (a float, a
    read, a select...) has no counterpart there: ExprTypeError."""
    match d:
        case int():
            return A.IndexConst(d)
        case T.Const(value=int() as v) if not isinstance(v, bool):
            return A.IndexConst(v)
        case T.Var(name=n) | T.IterVar(name=n):
            return A.IndexVar(n)
        case T.Binary(op=op, a=a, b=b) if op in _TO_ARITH:
            return _TO_ARITH[op](to_arith(a), to_arith(b))
        case T.Call(func="maximum" | "minimum" as fn, args=(a, b)):
            return _TO_ARITH[fn](to_arith(a), to_arith(b))
        case _:
            raise ExprTypeError(f"cannot use {d} in a shape: only + - * // % min max of vars and ints")


def dim_vars(d: T.Dim) -> list[T.Var]:
    """The `te.var`s a shape dimension names (as `to_arith` reads it), first seen first."""
    match d:
        case T.Var():
            return [d]
        case T.Binary(a=a, b=b) | T.Call(args=(a, b)):
            return [*dim_vars(a), *dim_vars(b)]
        case _:
            return []


def from_arith(e: A.IndexExpr) -> T.Dim:
    """An index-language expression as a te shape dimension: an int for a constant, else
    an int64 expression of `te.var`s (every index-language node has a te counterpart)."""
    match e:
        case A.IndexConst(value=v):
            return v
        case A.IndexVar(name=n):
            return T.Var(n)
        case A.Add() | A.Sub() | A.Mul() | A.FloorDiv() | A.FloorMod() | A.Max() | A.Min():
            op, is_call = _TO_TE[type(e)]
            a, b = (_as_te(from_arith(x)) for x in (e.a, e.b))
            return T.Call(op, (a, b), T.INDEX) if is_call else T.Binary(op, a, b, T.INDEX)
        case _:
            raise ExprTypeError(f"{type(e).__name__} is not an index expression of the index language")


def _as_te(d: T.Dim) -> T.Expr:
    return T.Const(d, T.INDEX) if isinstance(d, int) else d


def canonical_dim(d: T.Dim) -> int | str:
    """An int, or the canonical printed form of a symbolic dimension ("n + 2"), as the te
    dialect spells it."""
    from compiler.arith.simplify import const_value, simplify

    if isinstance(d, int):
        return d
    e = simplify(to_arith(d))
    c = const_value(e)
    return c if c is not None else str(e)
