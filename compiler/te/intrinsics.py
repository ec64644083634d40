"""The elementwise math functions of the frontend (`te.exp`, `te.sigmoid`, ...), as
calls the lowering maps to LLVM intrinsics and libm."""

from __future__ import annotations

from collections.abc import Callable

from compiler.errors import ExprTypeError
from compiler.te.nodes import Call, Expr, ExprLike, as_expr, is_float, unify


def _unary(name: str) -> Callable[[ExprLike], Expr]:
    def f(x: ExprLike) -> Expr:
        e = as_expr(x, "float32")
        if not is_float(e.dtype) and name != "abs":
            raise ExprTypeError(f"te.{name} needs a float expression, got {e.dtype}")
        return Call(name, (e,), e.dtype)

    f.__name__ = name
    f.__doc__ = f"`te.{name}(x)`: the elementwise {name} of a float expression" + (
        " (or of an integer one)." if name == "abs" else "."
    )
    return f


exp = _unary("exp")
log = _unary("log")
sqrt = _unary("sqrt")
tanh = _unary("tanh")
abs = _unary("abs")
floor = _unary("floor")
ceil = _unary("ceil")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
log2 = _unary("log2")
log10 = _unary("log10")
trunc = _unary("trunc")
round_even = _unary("round_even")
round_even.__doc__ = "`te.round_even(x)`: x rounded to the nearest integer, halves to even (NumPy's, torch's)."


def sigmoid(x: ExprLike) -> Expr:
    """`1 / (1 + exp(-x))` of a float expression."""
    e = as_expr(x, "float32")
    return 1.0 / (1.0 + exp(-e))


def _float_binary(name: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = unify(a, b)
    if not is_float(ea.dtype):
        raise ExprTypeError(f"te.{name} needs float expressions, got {ea.dtype}")
    return Call(name, (ea, eb), ea.dtype)


def power(a: ExprLike, b: ExprLike) -> Expr:
    """`a ** b` of float expressions."""
    ea, eb = unify(a, b)
    return Call("pow", (ea, eb), ea.dtype)


def atan2(a: ExprLike, b: ExprLike) -> Expr:
    """The angle of the point (b, a), in (-pi, pi], of float expressions."""
    return _float_binary("atan2", a, b)


def fmod(a: ExprLike, b: ExprLike) -> Expr:
    """C's fmod of float expressions, as a - trunc(a / b) * b (xDSL's arith has no remf):
    exact while the quotient a / b is exact, else within the rounding of that quotient."""
    ea, eb = unify(a, b)
    if not is_float(ea.dtype):
        raise ExprTypeError(f"te.fmod needs float expressions, got {ea.dtype}")
    return ea - trunc(ea / eb) * eb


def _int_binary(name: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = unify(a, b)
    if is_float(ea.dtype) or ea.dtype == "bool":
        raise ExprTypeError(f"te.{name} needs integer expressions, got {ea.dtype}")
    return Call(name, (ea, eb), ea.dtype)


def bitwise_and(a: ExprLike, b: ExprLike) -> Expr:
    """`a & b` of integer expressions, bit by bit (`&` on expressions combines conditions)."""
    return _int_binary("bitwise_and", a, b)


def bitwise_or(a: ExprLike, b: ExprLike) -> Expr:
    """`a | b` of integer expressions, bit by bit."""
    return _int_binary("bitwise_or", a, b)


def bitwise_xor(a: ExprLike, b: ExprLike) -> Expr:
    """`a ^ b` of integer expressions, bit by bit."""
    return _int_binary("bitwise_xor", a, b)


def shift_right(a: ExprLike, b: ExprLike) -> Expr:
    """`a >> b` of integer expressions: arithmetic (copies of the sign bit shifted in) for
    the signed types, logical (zeros) for uint8; `b` must lie in [0, bits of a's type)."""
    return _int_binary("shift_right", a, b)
