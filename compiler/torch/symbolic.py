"""Symbolic dimensions between PyTorch and te.

torch.export describes a dynamic dimension as a sympy expression over its
own symbols (`s77`); the importer maps each symbol that is a whole input
dimension to a `te.var` named after the user's `torch.export.Dim`, and
evaluates te dimensions at call time to allocate outputs.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping

from compiler import te
from compiler.errors import ExprTypeError, UnsupportedOpError
from compiler.te import Dim
from compiler.te.nodes import Binary


def eval_dim(d: Dim, env: Mapping[str, int]) -> int:
    """The value of a shape dimension once its variables are bound."""
    if isinstance(d, int):
        return d
    match d:
        case te.Const(value=v):
            return int(v)
        case te.Var(name=n):
            return env[n]
        case te.Call(func="maximum", args=(a, b)):
            return max(eval_dim(a, env), eval_dim(b, env))
        case te.Call(func="minimum", args=(a, b)):
            return min(eval_dim(a, env), eval_dim(b, env))
        case te.Cast(value=v):
            return eval_dim(v, env)
        case Binary(op=op, a=a, b=b) if op in _BINARY:
            return _BINARY[op](eval_dim(a, env), eval_dim(b, env))
        case _:
            raise ExprTypeError(f"cannot evaluate the dimension {d!r}")


_BINARY: dict[str, Callable[[int, int], int]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "floormod": operator.mod,
}


def sympy_to_dim(expr: object, symbols: Mapping[str, te.Var]) -> Dim:
    """A sympy expression of torch.export (integers, symbols, +, *, //, %, min, max) as a te dimension."""
    import sympy

    if isinstance(expr, int | sympy.Integer):
        return int(expr)
    if isinstance(expr, sympy.Symbol):
        if expr.name not in symbols:
            raise UnsupportedOpError(f"the symbolic size {expr} is not a dimension of an input")
        return symbols[expr.name]
    if not isinstance(expr, sympy.Basic):
        raise UnsupportedOpError(f"the symbolic size {expr!r} is not a sympy expression")
    args = [sympy_to_dim(a, symbols) for a in expr.args]
    name = type(expr).__name__
    if isinstance(expr, sympy.Add):
        out = args[0]
        for a in args[1:]:
            out = out + a
        return out
    if isinstance(expr, sympy.Mul):
        out = args[0]
        for a in args[1:]:
            out = out * a
        return out
    if name == "FloorDiv":
        return args[0] // args[1]
    if name in ("Mod", "PythonMod"):
        return args[0] % args[1]
    if name in ("Max", "Min"):
        out = args[0]
        for a in args[1:]:
            if isinstance(out, int) and isinstance(a, int):
                out = max(out, a) if name == "Max" else min(out, a)
            else:
                out = te.maximum(out, a) if name == "Max" else te.minimum(out, a)
        return out
    raise UnsupportedOpError(f"the symbolic size {expr} ({name}) has no te form")
