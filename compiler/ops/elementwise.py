"""Elementwise operators: activations, math, and binary arithmetic with NumPy
broadcasting (TOPI's `add`, `subtract`, ... and `nn.relu`, ...).

Each operator is one stage; a chain of them is cheap to fuse with
`s[t].compute_inline()` (the PyTorch frontend does so). Transcendental
functions of float16 values are evaluated in float32 and rounded once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from compiler import te
from compiler.errors import ExprTypeError, ExprValueError
from compiler.ops.util import broadcast_read, broadcast_shape, in_float32, promote
from compiler.te import Dim, Expr, Tensor
from compiler.te.nodes import compare as te_compare
from compiler.te.nodes import is_float

Scalar = int | float


def elementwise(x: Tensor, f: Callable[[Expr], Expr], name: str, dtype: str | None = None) -> Tensor:
    """A stage applying `f` to every element of x."""
    return te.compute(x.shape, lambda *i: f(x[i]), name=name, dtype=dtype)


# ---------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------


def relu(x: Tensor, name: str = "relu") -> Tensor:
    """`max(x, 0)` elementwise.

    >>> X = te.placeholder((4, 8), name="X")
    >>> ops.relu(X, name="Y")
    Tensor(Y, shape=(4, 8), dtype=float32)
    """
    return elementwise(x, lambda v: te.maximum(v, te.const(0.0, x.dtype)), name)


def leaky_relu(x: Tensor, alpha: float = 0.1, name: str = "leaky_relu") -> Tensor:
    """`x` where positive, `alpha * x` elsewhere."""
    return elementwise(x, lambda v: te.if_then_else(v > 0.0, v, v * alpha), name)


def clip(x: Tensor, a_min: float | None, a_max: float | None, name: str = "clip") -> Tensor:
    """min(max(x, a_min), a_max); `None` leaves that side open (PyTorch's clamp, hardtanh)."""

    def f(v: Expr) -> Expr:
        if a_min is not None:
            v = te.maximum(v, te.const(float(a_min), x.dtype))
        if a_max is not None:
            v = te.minimum(v, te.const(float(a_max), x.dtype))
        return v

    return elementwise(x, f, name)


def sigmoid_expr(v: Expr) -> Expr:
    return in_float32(lambda u: 1.0 / (1.0 + te.exp(-u)), v)


def sigmoid(x: Tensor, name: str = "sigmoid") -> Tensor:
    """`1 / (1 + exp(-x))` elementwise."""
    return elementwise(x, sigmoid_expr, name)


def tanh(x: Tensor, name: str = "tanh") -> Tensor:
    """The hyperbolic tangent of `x`, elementwise (float16 computes in float32)."""
    return elementwise(x, lambda v: in_float32(te.tanh, v), name)


def silu(x: Tensor, name: str = "silu") -> Tensor:
    """x * sigmoid(x) (swish)."""
    return elementwise(x, lambda v: in_float32(lambda u: u / (1.0 + te.exp(-u)), v), name)


def hardsigmoid(x: Tensor, name: str = "hardsigmoid") -> Tensor:
    """relu6(x + 3) / 6."""
    return elementwise(x, lambda v: te.minimum(te.maximum(v + 3.0, 0.0), 6.0) * (1.0 / 6.0), name)


def hardswish(x: Tensor, name: str = "hardswish") -> Tensor:
    """x * relu6(x + 3) / 6."""
    return elementwise(x, lambda v: v * (te.minimum(te.maximum(v + 3.0, 0.0), 6.0) * (1.0 / 6.0)), name)


_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def erf_expr(v: Expr) -> Expr:
    """erf(v) by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), in at least float32.

    The math dialect has no erf that every backend lowers, so it is built from exp."""

    def f(u: Expr) -> Expr:
        a = te.abs(u)
        t = 1.0 / (1.0 + _ERF_P * a)
        poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
        y = 1.0 - poly * te.exp(-(a * a))
        # erf is odd: y takes u's sign, as a clamp of u * 1e30 to [-1, 1] (exactly +-1
        # for |u| >= 1e-30, 0 at 0, NaN for NaN) rather than a select, which lowers to a
        # branch and kept every GELU loop (BERT's, ViT's) from vectorizing
        sign = te.maximum(te.minimum(u * 1e30, 1.0), -1.0)
        return y * sign

    return in_float32(f, v)


def erf(x: Tensor, name: str = "erf") -> Tensor:
    """The error function of `x`, elementwise (a float32 rational approximation)."""
    return elementwise(x, erf_expr, name)


def gelu_expr(v: Expr, approximate: str = "none") -> Expr:
    if approximate == "tanh":
        c = 0.7978845608028654  # sqrt(2 / pi)
        return in_float32(lambda u: 0.5 * u * (1.0 + te.tanh(c * (u + 0.044715 * u * u * u))), v)
    if approximate != "none":
        raise ExprValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return in_float32(lambda u: 0.5 * u * (1.0 + erf_expr(u * 0.7071067811865476)), v)


def gelu(x: Tensor, approximate: str = "none", name: str = "gelu") -> Tensor:
    """x * Phi(x) (exact, with erf) or its tanh approximation, as PyTorch's `gelu`."""
    return elementwise(x, lambda v: gelu_expr(v, approximate), name)


# ---------------------------------------------------------------------------
# Math
# ---------------------------------------------------------------------------


def exp(x: Tensor, name: str = "exp") -> Tensor:
    """`e ** x` elementwise (float16 computes in float32)."""
    return elementwise(x, lambda v: in_float32(te.exp, v), name)


def log(x: Tensor, name: str = "log") -> Tensor:
    """The natural logarithm of `x`, elementwise (float16 computes in float32)."""
    return elementwise(x, lambda v: in_float32(te.log, v), name)


def sqrt(x: Tensor, name: str = "sqrt") -> Tensor:
    """The square root of `x`, elementwise (float16 computes in float32)."""
    return elementwise(x, lambda v: in_float32(te.sqrt, v), name)


def rsqrt(x: Tensor, name: str = "rsqrt") -> Tensor:
    """`1 / sqrt(x)` elementwise (float16 computes in float32)."""
    return elementwise(x, lambda v: in_float32(lambda u: 1.0 / te.sqrt(u), v), name)


def abs(x: Tensor, name: str = "abs") -> Tensor:
    """`|x|` elementwise."""
    return elementwise(x, te.abs, name)


def negative(x: Tensor, name: str = "negative") -> Tensor:
    """`-x` elementwise."""
    return elementwise(x, lambda v: -v, name)


def power(x: Tensor, exponent: float, name: str = "power") -> Tensor:
    """x ** exponent for a scalar exponent (small integer powers are multiplied out)."""

    def f(v: Expr) -> Expr:
        if exponent == 2:
            return v * v
        if exponent == 3:  # GPT-2's GELU: a libm powf per element, scalar, cost a third of it
            return v * v * v
        if exponent == 1:
            return v
        if exponent == 0.5:
            return in_float32(te.sqrt, v)
        return in_float32(lambda u: te.power(u, float(exponent)), v)

    return elementwise(x, f, name)


def cast(x: Tensor, dtype: str, name: str = "cast") -> Tensor:
    """`x` converted elementwise to `dtype`."""
    return elementwise(x, lambda v: v.astype(dtype), name, dtype=dtype)


# ---------------------------------------------------------------------------
# Binary arithmetic with broadcasting
# ---------------------------------------------------------------------------


def scalar(value: Scalar, dtype: str) -> Expr:
    """A Python number as a constant of `dtype`."""
    return te.const(float(value) if is_float(dtype) else int(value), dtype)


def broadcast_binary(
    a: Tensor | Scalar, b: Tensor | Scalar, f: Callable[[Expr, Expr], Expr], name: str
) -> Tensor:
    """A stage computing f(a, b) elementwise, with NumPy broadcasting; one side may be a
    Python scalar, which takes the other side's dtype."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise ExprTypeError(f"{name}: at least one operand must be a tensor")
    if not isinstance(b, Tensor):
        assert isinstance(a, Tensor)
        return te.compute(a.shape, lambda *i: f(a[i], scalar(b, a.dtype)), name=name)
    if not isinstance(a, Tensor):
        return te.compute(b.shape, lambda *i: f(scalar(a, b.dtype), b[i]), name=name)
    shape = broadcast_shape(a.shape, b.shape, name)
    dtype = promote(a.dtype, b.dtype)

    def element(*i: Expr) -> Expr:
        return f(broadcast_read(a, shape, i).astype(dtype), broadcast_read(b, shape, i).astype(dtype))

    return te.compute(shape, element, name=name)


def add(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "add") -> Tensor:
    """`a + b` with NumPy broadcasting (either side may be a Python number)."""
    return broadcast_binary(a, b, lambda x, y: x + y, name)


def subtract(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "subtract") -> Tensor:
    """`a - b` with NumPy broadcasting (either side may be a Python number)."""
    return broadcast_binary(a, b, lambda x, y: x - y, name)


def multiply(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "multiply") -> Tensor:
    """`a * b` with NumPy broadcasting (either side may be a Python number)."""
    return broadcast_binary(a, b, lambda x, y: x * y, name)


def divide(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "divide") -> Tensor:
    """`a / b` with NumPy broadcasting (float tensors)."""
    return broadcast_binary(a, b, lambda x, y: x / y, name)


def maximum(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "maximum") -> Tensor:
    """The larger of `a` and `b` elementwise, with NumPy broadcasting."""
    return broadcast_binary(a, b, te.maximum, name)


def minimum(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "minimum") -> Tensor:
    """The smaller of `a` and `b` elementwise, with NumPy broadcasting."""
    return broadcast_binary(a, b, te.minimum, name)


def bias_add(x: Tensor, bias: Tensor, axis: int = 1, name: str = "bias_add") -> Tensor:
    """x + bias broadcast along `axis` (1 for NCHW, 3 for NHWC)."""
    axis = axis % x.ndim
    return te.compute(x.shape, lambda *i: x[i] + bias[i[axis]].astype(x.dtype), name=name)


def scale_shift(
    x: Tensor, scale: Tensor, shift: Tensor, axis: int = 1, name: str = "scale_shift"
) -> Tensor:
    """x * scale + shift, both 1-D along `axis` (a folded inference batch norm)."""
    axis = axis % x.ndim
    return te.compute(
        x.shape,
        lambda *i: x[i] * scale[i[axis]].astype(x.dtype) + shift[i[axis]].astype(x.dtype),
        name=name,
    )


def full(shape: Sequence[Dim], value: float, dtype: str = "float32", name: str = "full") -> Tensor:
    """A tensor of `shape` filled with `value`."""
    return te.compute(tuple(shape), lambda *i: scalar(value, dtype), name=name)


# ---------------------------------------------------------------------------
# Comparisons, masks and selection
# ---------------------------------------------------------------------------

MASK = "int8"
"""The dtype of a boolean tensor (comparisons, masks): 0 or 1 in int8. te tensors have
no bool element type (a bool vector in memory would be bit-packed), so masks are bytes,
as NumPy's and PyTorch's bools are."""


def _compare(op: str) -> Callable[..., Tensor]:
    def compare(a: Tensor | Scalar, b: Tensor | Scalar, name: str = op) -> Tensor:
        return broadcast_binary(a, b, lambda x, y: te_compare(op, x, y).astype(MASK), name)

    compare.__name__ = compare.__qualname__ = {
        "eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal"
    }[op]
    compare.__doc__ = f"`a {_SYMBOLS[op]} b` elementwise with NumPy broadcasting: a mask (`MASK`, 0 or 1)."
    return compare


_SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
equal = _compare("eq")
not_equal = _compare("ne")
less = _compare("lt")
less_equal = _compare("le")
greater = _compare("gt")
greater_equal = _compare("ge")


def truth(v: Expr) -> Expr:
    """A mask (or any number) element as a condition: nonzero."""
    return v.astype("bool")


def logical_and(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "logical_and") -> Tensor:
    """Nonzero in both `a` and `b`: a mask, with NumPy broadcasting."""
    return broadcast_binary(a, b, lambda x, y: (truth(x) & truth(y)).astype(MASK), name)


def logical_or(a: Tensor | Scalar, b: Tensor | Scalar, name: str = "logical_or") -> Tensor:
    """Nonzero in `a` or `b`: a mask, with NumPy broadcasting."""
    return broadcast_binary(a, b, lambda x, y: (truth(x) | truth(y)).astype(MASK), name)


def logical_not(x: Tensor, name: str = "logical_not") -> Tensor:
    """Zero in `x`: a mask."""
    return elementwise(x, lambda v: te.logical_not(truth(v)).astype(MASK), name, dtype=MASK)


def where(cond: Tensor, a: Tensor | Scalar, b: Tensor | Scalar, name: str = "where") -> Tensor:
    """`a` where `cond` is nonzero, else `b`, the three broadcast together (NumPy's `where`);
    a Python number takes the other operand's dtype (float32 if both are numbers)."""
    shape = cond.shape
    for v in (a, b):
        if isinstance(v, Tensor):
            shape = broadcast_shape(shape, v.shape, name)
    tensors = [v for v in (a, b) if isinstance(v, Tensor)]
    dtype = promote(*(t.dtype for t in tensors)) if tensors else "float32"

    def value(v: Tensor | Scalar, i: Sequence[Expr]) -> Expr:
        return broadcast_read(v, shape, i).astype(dtype) if isinstance(v, Tensor) else scalar(v, dtype)

    def element(*i: Expr) -> Expr:
        return te.if_then_else(truth(broadcast_read(cond, shape, i)), value(a, i), value(b, i))

    return te.compute(shape, element, name=name)


def reciprocal(x: Tensor, name: str = "reciprocal") -> Tensor:
    """`1 / x` elementwise."""
    return elementwise(x, lambda v: 1.0 / v, name)
