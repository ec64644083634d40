"""Helpers shared by the operators: argument normalisation, shape arithmetic,
broadcasting and dtype promotion."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from compiler import te
from compiler.errors import ExprValueError
from compiler.te import Dim, Expr, Tensor
from compiler.te.dims import canonical_dim

FLOAT_BITS = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}
HALF_FLOATS = ("float16", "bfloat16")
"""The 16-bit floats: stored in 16 bits, computed and accumulated in float32 (as PyTorch
on CPU)."""


def pair(v: int | Sequence[int], what: str = "value") -> tuple[int, int]:
    if isinstance(v, int):
        return v, v
    items = tuple(v)
    if len(items) == 1:
        return items[0], items[0]
    if len(items) != 2:
        raise ExprValueError(f"{what}: expected an int or two ints, got {v!r}")
    return items[0], items[1]


def padding4(padding: int | Sequence[int]) -> tuple[int, int, int, int]:
    """(top, left, bottom, right) from an int, (h, w) or (top, left, bottom, right), as TOPI."""
    if isinstance(padding, int):
        return padding, padding, padding, padding
    items = tuple(padding)
    if len(items) == 1:
        return items[0], items[0], items[0], items[0]
    if len(items) == 2:
        return items[0], items[1], items[0], items[1]
    if len(items) == 4:
        return items[0], items[1], items[2], items[3]
    raise ExprValueError(f"padding: expected 1, 2 or 4 ints, got {padding!r}")


def normalize_axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise ExprValueError(f"{what}: axis {axis} is out of range for {ndim} dimensions")
    return axis % ndim if ndim else 0


def normalize_axes(axis: int | Sequence[int] | None, ndim: int, what: str) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, int) else tuple(axis)
    axes = tuple(sorted({normalize_axis(a, ndim, what) for a in items}))
    if len(axes) != len(items):
        raise ExprValueError(f"{what}: repeated axis in {axis!r}")
    return axes


def static(d: Dim) -> int | None:
    """The value of a dimension when it is a constant (after simplification)."""
    if isinstance(d, int):
        return d
    c = canonical_dim(d)
    return c if isinstance(c, int) else None


def same_dim(a: Dim, b: Dim) -> bool:
    """True when two dimensions are provably equal (same constant or same canonical form)."""
    return canonical_dim(a) == canonical_dim(b)


def simplify_dim(d: Dim) -> Dim:
    """A constant dimension as an int (symbolic ones are kept as written)."""
    c = static(d)
    return c if c is not None else d


def product(dims: Sequence[Dim]) -> Dim:
    out: Dim = 1
    for d in dims:
        out = out * d if not (isinstance(out, int) and out == 1) else d
    return simplify_dim(out)


def index_min(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return te.minimum(a, b)


def index_max(a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return te.maximum(a, b)


def ceil_div(a: Dim, b: int) -> Dim:
    return simplify_dim((a + (b - 1)) // b)


INT_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}


def promote(*dtypes: str) -> str:
    """The dtype of an arithmetic result: the widest float, else the widest integer (the
    first of equal width)."""
    floats = [d for d in dtypes if d in FLOAT_BITS]
    if not floats:
        return max(dtypes, key=lambda d: INT_BITS.get(d, 0))
    return max(floats, key=lambda d: FLOAT_BITS[d])


def broadcast_shape(a: Sequence[Dim], b: Sequence[Dim], what: str) -> tuple[Dim, ...]:
    """NumPy broadcasting of two shapes; two different symbolic dimensions are
    assumed equal (the caller's shape checks are the place to prove it)."""
    out: list[Dim] = []
    for k in range(1, max(len(a), len(b)) + 1):
        da = a[-k] if k <= len(a) else 1
        db = b[-k] if k <= len(b) else 1
        sa, sb = static(da), static(db)
        if sa == 1:
            out.append(db)
        elif sb == 1 or same_dim(da, db):
            out.append(da)
        elif sa is not None and sb is not None:
            raise ExprValueError(f"{what}: shapes {tuple(a)} and {tuple(b)} do not broadcast")
        else:
            out.append(db if sa is not None else da)
    return tuple(reversed(out))


def broadcast_read(x: Tensor, shape: Sequence[Dim], idx: Sequence[Expr]) -> Expr:
    """x read at the index `idx` of the broadcast `shape` (size-1 dimensions read 0)."""
    offset = len(shape) - x.ndim
    return x[tuple(0 if static(d) == 1 else idx[k + offset] for k, d in enumerate(x.shape))]


def lowest(dtype: str) -> float:
    """The most negative finite value of a float dtype (a max reduction's padding)."""
    return {"float16": -65504.0, "bfloat16": -3.3895313892515355e38, "float32": -3.4028234663852886e38, "float64": -1.7976931348623157e308}.get(
        dtype, -math.inf
    )


def count_expr(d: Dim, dtype: str) -> Expr:
    """A dimension (an element count) as a float scalar."""
    s = static(d)
    if s is not None:
        return te.const(float(s), dtype)
    assert isinstance(d, Expr)
    return d.astype(dtype)


def accumulator_dtype(dtype: str, acc_dtype: str | None) -> str:
    """The type a reduction of `dtype` values accumulates in: `acc_dtype` when given,
    float32 for float16 and bfloat16 (as PyTorch on CPU), else `dtype` itself."""
    if acc_dtype is not None:
        return acc_dtype
    return "float32" if dtype in HALF_FLOATS else dtype


def in_float32(f: Callable[..., Expr], *values: Expr) -> Expr:
    """`f(*values)`, evaluated in float32 and rounded once when the first value is a
    16-bit float (a function of float16 or bfloat16 values, as PyTorch's CPU kernels)."""
    dtype = values[0].dtype
    if dtype not in HALF_FLOATS:
        return f(*values)
    return f(*(v.astype("float32") for v in values)).astype(dtype)


def reduce_rounded(
    shape: Sequence[Dim],
    reduction: Callable[..., Expr],
    out_dtype: str,
    name: str,
    finish: Callable[[Expr, tuple[Expr, ...]], Expr] | None = None,
    acc_name: str | None = None,
    attach: bool = True,
) -> Tensor:
    """A reduction (`reduction(*i)`: a `te.sum` over wider values) rounded once to `out_dtype`.

    With a wider accumulator: stage `<name>_acc` (`acc_name`) reduces in it and stage
    `<name>` applies `finish(value, i)` (a mean's division, a pool's scale) and rounds;
    the accumulator is attached at the innermost loop of `<name>` by the default
    schedule (`Operation.attach_to`): one register per element, no full-size float32
    buffer. `attach=False` leaves it a stage of its own, for a product, whose register
    tile the auto-scheduler plans as a float32 one's (attached, a bf16 linear of a
    LLaMA's decode ran at a sixth of its float32 speed). Without one (and without
    `finish`), one stage `<name>`."""
    probe = te.compute(shape, reduction, name=acc_name or f"{name}_acc")
    if probe.dtype == out_dtype and finish is None:
        probe.op.name = name
        return probe
    out = te.compute(
        shape, lambda *i: (probe[i] if finish is None else finish(probe[i], i)).astype(out_dtype), name=name
    )
    if probe.dtype != out_dtype and attach:
        probe.op.attach_to = out
    return out


def product_dtypes(dtype: str, out_dtype: str | None, acc_dtype: str | None) -> tuple[str, str]:
    """(output type, accumulation type) of a sum of products of `dtype` values: the output
    is `out_dtype` (default `dtype`); the sum accumulates in `acc_dtype`, else in an
    `out_dtype` other than `dtype` (TOPI's meaning of out_dtype), else float32 for float16."""
    out = out_dtype or dtype
    return out, acc_dtype or (out if out != dtype else accumulator_dtype(dtype, None))


def product_term(a: Expr, b: Expr, acc: str) -> Expr:
    """a * b in the accumulation type (each operand converted unless it is of it)."""
    return (a if a.dtype == acc else a.astype(acc)) * (b if b.dtype == acc else b.astype(acc))
