"""The Python tensor-expression builder, with TVM's TE names.

```python
from compiler import te
n = te.var("n")
A = te.placeholder((n, 16), name="A")
k = te.reduce_axis((0, 16), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
```

Expressions are small immutable trees; `compiler.te.to_ir` turns the
tensors reachable from a function's arguments into the `te` dialect.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Union

ExprLike = Union["Expr", int, float, bool]

INDEX = "int64"
_FLOAT_DTYPES = ("float16", "float32", "float64")
_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
_ids = count()


def _is_float(dtype: str) -> bool:
    return dtype in _FLOAT_DTYPES


class Expr:
    """A scalar expression. Arithmetic operators build new expressions."""

    dtype: str

    # identity semantics for hashing: `==` builds a comparison, as in TVM
    __hash__ = object.__hash__

    def __add__(self, other: ExprLike) -> Expr:
        return binary("add", self, other)

    def __radd__(self, other: ExprLike) -> Expr:
        return binary("add", other, self)

    def __sub__(self, other: ExprLike) -> Expr:
        return binary("sub", self, other)

    def __rsub__(self, other: ExprLike) -> Expr:
        return binary("sub", other, self)

    def __mul__(self, other: ExprLike) -> Expr:
        return binary("mul", self, other)

    def __rmul__(self, other: ExprLike) -> Expr:
        return binary("mul", other, self)

    def __truediv__(self, other: ExprLike) -> Expr:
        return binary("div", self, other)

    def __rtruediv__(self, other: ExprLike) -> Expr:
        return binary("div", other, self)

    def __floordiv__(self, other: ExprLike) -> Expr:
        return binary("floordiv", self, other)

    def __rfloordiv__(self, other: ExprLike) -> Expr:
        return binary("floordiv", other, self)

    def __mod__(self, other: ExprLike) -> Expr:
        return binary("floormod", self, other)

    def __rmod__(self, other: ExprLike) -> Expr:
        return binary("floormod", other, self)

    def __neg__(self) -> Expr:
        return binary("sub", const(0, self.dtype), self)

    def __lt__(self, other: ExprLike) -> Expr:
        return compare("lt", self, other)

    def __le__(self, other: ExprLike) -> Expr:
        return compare("le", self, other)

    def __gt__(self, other: ExprLike) -> Expr:
        return compare("gt", self, other)

    def __ge__(self, other: ExprLike) -> Expr:
        return compare("ge", self, other)

    def __eq__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("eq", self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]
        return compare("ne", self, other)  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        raise TypeError(
            "a tensor expression has no truth value; use te.all/te.any and te.if_then_else"
        )

    # `&`, `|`, `~` combine conditions (TVM, NumPy masks); on numbers they would be
    # bitwise operations, which tensor expressions do not have.
    def __and__(self, other: ExprLike) -> Expr:
        return Logical("and", _bool_args("&", [self, other], "needs conditions"))

    def __rand__(self, other: ExprLike) -> Expr:
        return Logical("and", _bool_args("&", [other, self], "needs conditions"))

    def __or__(self, other: ExprLike) -> Expr:
        return Logical("or", _bool_args("|", [self, other], "needs conditions"))

    def __ror__(self, other: ExprLike) -> Expr:
        return Logical("or", _bool_args("|", [other, self], "needs conditions"))

    def __invert__(self) -> Expr:
        return Logical("not", _bool_args("~", [self], "needs a condition"))

    def astype(self, dtype: str) -> Expr:
        return self if dtype == self.dtype else Cast(dtype, self)


@dataclass(eq=False)
class Const(Expr):
    value: int | float | bool
    dtype: str


@dataclass(eq=False)
class Var(Expr):
    """A symbolic shape variable (bound from argument shapes at call time)."""

    name: str
    dtype: str = INDEX


@dataclass(eq=False)
class IterVar(Expr):
    """A data-parallel axis of a compute, or a reduce axis with a domain [0, extent)."""

    name: str
    extent: Expr | int | None = None
    is_reduce: bool = False
    dtype: str = INDEX
    uid: int = field(default_factory=lambda: next(_ids))

    @property
    def var(self) -> IterVar:
        return self


@dataclass(eq=False)
class Binary(Expr):
    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(eq=False)
class Compare(Expr):
    op: str
    a: Expr
    b: Expr
    dtype: str = "bool"


@dataclass(eq=False)
class Logical(Expr):
    op: str  # "and" | "or" | "not"
    args: tuple[Expr, ...]
    dtype: str = "bool"


@dataclass(eq=False)
class Call(Expr):
    """An elementwise math function (exp, log, sqrt, tanh, abs, maximum, ...)."""

    func: str
    args: tuple[Expr, ...]
    dtype: str


@dataclass(eq=False)
class Cast(Expr):
    target: str
    value: Expr

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.target


@dataclass(eq=False)
class Select(Expr):
    """Lazy if-then-else: only the taken branch is evaluated."""

    cond: Expr
    then_value: Expr
    else_value: Expr
    dtype: str
    likely: bool = False


@dataclass(eq=False)
class Read(Expr):
    tensor: Tensor
    indices: tuple[Expr, ...]

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.tensor.dtype


@dataclass(eq=False)
class Reduce(Expr):
    kind: str  # sum | prod | max | min
    body: Expr
    axes: tuple[IterVar, ...]
    init: Expr | None = None

    @property
    def dtype(self) -> str:  # type: ignore[override]
        return self.body.dtype


# ---------------------------------------------------------------------------
# Tensors
# ---------------------------------------------------------------------------

Dim = int | Expr


@dataclass(eq=False)
class Operation:
    """The producer of a tensor: a placeholder or a compute stage (TVM's `tensor.op`)."""

    name: str
    axis: tuple[IterVar, ...] = ()
    body: Expr | None = None
    output_tensor: Tensor | None = field(default=None, repr=False)

    @property
    def reduce_axis(self) -> tuple[IterVar, ...]:
        return self.body.axes if isinstance(self.body, Reduce) else ()


@dataclass(eq=False)
class Tensor:
    shape: tuple[Dim, ...]
    dtype: str
    op: Operation
    uid: int = field(default_factory=lambda: next(_ids))
    strided: bool = False  # a placeholder that accepts any strides (views, zero-copy)

    __hash__ = object.__hash__

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def is_placeholder(self) -> bool:
        return self.op.body is None

    def __getitem__(self, indices: ExprLike | tuple[ExprLike, ...]) -> Read:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != self.ndim:
            raise IndexError(
                f"tensor {self.name} has {self.ndim} dimensions, indexed with {len(indices)}"
            )
        converted = tuple(as_expr(i, INDEX) for i in indices)
        for i, e in enumerate(converted):
            if _is_float(e.dtype):
                raise TypeError(f"index {i} of {self.name} is a {e.dtype} expression")
        return Read(self, converted)

    def __repr__(self) -> str:
        return f"Tensor({self.name}, shape={self.shape}, dtype={self.dtype})"


def _check_dtype(dtype: str) -> str:
    if dtype not in _FLOAT_DTYPES + _INT_DTYPES:
        raise ValueError(f"unsupported dtype '{dtype}': expected one of {_FLOAT_DTYPES + _INT_DTYPES}")
    return dtype


def _check_shape(shape: Sequence[Dim] | Dim, what: str) -> tuple[Dim, ...]:
    dims = tuple(shape) if isinstance(shape, list | tuple) else (shape,)
    for i, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, int | Expr):
            raise TypeError(f"{what}: dimension {i} must be an int or a te.var expression, got {d!r}")
        if isinstance(d, int) and d < 0:
            raise ValueError(f"{what}: dimension {i} is negative ({d})")
        if isinstance(d, Expr) and d.dtype != INDEX:
            raise TypeError(f"{what}: dimension {i} is a {d.dtype} expression")
    return dims


def var(name: str = "n", dtype: str = INDEX) -> Var:
    """A symbolic shape variable."""
    if dtype not in ("int32", INDEX):
        raise ValueError("te.var is a shape variable: its dtype must be int32 or int64")
    return Var(name)


def placeholder(
    shape: Sequence[Dim] | Dim, dtype: str = "float32", name: str = "placeholder", *, strided: bool = False
) -> Tensor:
    """An input tensor. `strided=True` binds its strides at call time (symbolic
    `<name>_stride<k>`), so a NumPy view such as `a[:, ::2]` is used without a copy."""
    op = Operation(name)
    tensor = Tensor(_check_shape(shape, f"placeholder {name}"), _check_dtype(dtype), op, strided=strided)
    op.output_tensor = tensor
    return tensor


def _axis_names(fcompute: Callable[..., ExprLike], ndim: int) -> list[str]:
    try:
        params = list(inspect.signature(fcompute).parameters)
    except (TypeError, ValueError):
        params = []
    if len(params) == ndim and builtins.all(p.isidentifier() for p in params):
        return params
    return [f"ax{i}" for i in range(ndim)]


def compute(
    shape: Sequence[Dim] | Dim,
    fcompute: Callable[..., ExprLike],
    name: str = "compute",
    dtype: str | None = None,
) -> Tensor:
    """`te.compute(shape, lambda i, j: ..., name=...)`."""
    dims = _check_shape(shape, f"compute {name}")
    axes = tuple(IterVar(n, d) for n, d in zip(_axis_names(fcompute, len(dims)), dims, strict=True))
    body = as_expr(fcompute(*axes), dtype or "float32")
    if dtype is not None:
        body = body.astype(dtype)
    _check_reduce_placement(body, name)
    op = Operation(name, axes, body)
    tensor = Tensor(dims, _check_dtype(body.dtype), op)
    op.output_tensor = tensor
    return tensor


def _check_reduce_placement(body: Expr, name: str) -> None:
    inner = body.body if isinstance(body, Reduce) else body
    for node in walk(inner):
        if isinstance(node, Reduce):
            raise ValueError(
                f"compute {name}: a reduction (te.sum/te.max/...) must be the whole body of the "
                "compute, as in TVM; compute it as its own stage and use that tensor"
            )


def reduce_axis(dom: tuple[Dim, Dim] | Dim, name: str = "rv") -> IterVar:
    """`te.reduce_axis((0, n), name="k")`; the domain must start at 0."""
    if isinstance(dom, tuple):
        lo, extent = dom
        if not (isinstance(lo, int) and lo == 0):
            raise ValueError(f"reduce_axis {name}: the domain must start at 0, got {lo!r}")
    else:
        extent = dom
    _check_shape((extent,), f"reduce_axis {name}")
    return IterVar(name, extent, is_reduce=True)


def _reducer(kind: str) -> Callable[..., Expr]:
    def reduce(expr: ExprLike, axis: IterVar | Sequence[IterVar], init: ExprLike | None = None) -> Expr:
        axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
        if not axes or not builtins.all(isinstance(a, IterVar) and a.is_reduce for a in axes):
            raise TypeError(f"te.{kind}: axis must be one or more te.reduce_axis")
        body = as_expr(expr, "float32")
        return Reduce(kind, body, axes, None if init is None else as_expr(init, body.dtype))

    reduce.__name__ = kind
    return reduce


sum = _reducer("sum")
prod = _reducer("prod")


def _is_reduce_axes(axis: object) -> bool:
    items = axis if isinstance(axis, list | tuple) else (axis,)
    return bool(items) and builtins.all(isinstance(a, IterVar) and a.is_reduce for a in items)


def max(
    expr: ExprLike, axis: IterVar | Sequence[IterVar] | ExprLike, init: ExprLike | None = None
) -> Expr:
    """`te.max(x, axis=k)` reduces over reduce axes; `te.max(a, b)` is the larger of two
    values (as in TVM), index expressions included."""
    if not _is_reduce_axes(axis) and init is None:
        return maximum(expr, axis)  # type: ignore[arg-type]
    return _reducer("max")(expr, axis, init)


def min(
    expr: ExprLike, axis: IterVar | Sequence[IterVar] | ExprLike, init: ExprLike | None = None
) -> Expr:
    """`te.min(x, axis=k)` reduces over reduce axes; `te.min(a, b)` is the smaller of two values."""
    if not _is_reduce_axes(axis) and init is None:
        return minimum(expr, axis)  # type: ignore[arg-type]
    return _reducer("min")(expr, axis, init)


def const(value: int | float | bool, dtype: str | None = None) -> Const:
    if dtype is None:
        dtype = "bool" if isinstance(value, bool) else INDEX if isinstance(value, int) else "float32"
    return Const(value, dtype)


def as_expr(value: ExprLike, dtype_hint: str) -> Expr:
    if isinstance(value, Expr):
        return value
    if isinstance(value, bool):
        return Const(value, "bool")
    if isinstance(value, int):
        return Const(value, dtype_hint if dtype_hint != "bool" else INDEX)
    if isinstance(value, float):
        return Const(value, dtype_hint if _is_float(dtype_hint) else "float32")
    raise TypeError(f"cannot use {value!r} ({type(value).__name__}) in a tensor expression")


def _unify(a: ExprLike, b: ExprLike) -> tuple[Expr, Expr]:
    if isinstance(a, Expr) and not isinstance(b, Expr):
        return a, as_expr(b, a.dtype)
    if isinstance(b, Expr) and not isinstance(a, Expr):
        return as_expr(a, b.dtype), b
    ea, eb = as_expr(a, INDEX), as_expr(b, INDEX)
    if ea.dtype != eb.dtype:
        # a literal adopts the other side's type; anything else needs an explicit astype
        if isinstance(ea, Const) and not isinstance(ea.value, bool):
            ea = Const(ea.value, eb.dtype)
        elif isinstance(eb, Const) and not isinstance(eb.value, bool):
            eb = Const(eb.value, ea.dtype)
        else:
            raise TypeError(
                f"operands of types {ea.dtype} and {eb.dtype}: convert one with .astype()"
            )
    return ea, eb


def binary(op: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    if op in ("floordiv", "floormod") and _is_float(ea.dtype):
        raise TypeError(f"{op} needs integer operands, got {ea.dtype}")
    if op == "div" and not _is_float(ea.dtype):
        raise TypeError("'/' needs float operands; use '//' for integer division")
    return Binary(op, ea, eb, ea.dtype)


def compare(op: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    return Compare(op, ea, eb)


def _bool_args(name: str, args: Sequence[ExprLike], requirement: str = "") -> tuple[Expr, ...]:
    exprs = tuple(as_expr(a, "bool") for a in args)
    for e in exprs:
        if e.dtype != "bool":
            what = f"{name} {requirement}" if requirement else f"te.{name} takes conditions"
            raise TypeError(f"{what}, got a {e.dtype} expression")
    return exprs


def all(*conds: ExprLike) -> Expr:
    exprs = _bool_args("all", conds)
    return exprs[0] if len(exprs) == 1 else Logical("and", exprs)


def any(*conds: ExprLike) -> Expr:
    exprs = _bool_args("any", conds)
    return exprs[0] if len(exprs) == 1 else Logical("or", exprs)


def logical_not(cond: ExprLike) -> Expr:
    return Logical("not", _bool_args("logical_not", [cond]))


def if_then_else(cond: ExprLike, then_value: ExprLike, else_value: ExprLike) -> Expr:
    """Lazy select: the branch not taken is never evaluated (reads stay in bounds)."""
    (c,) = _bool_args("if_then_else", [cond])
    a, b = _unify(then_value, else_value)
    return Select(c, a, b, a.dtype)


def likely(cond: ExprLike) -> Expr:
    """Marks a condition as usually true (kept as a hint on the guard)."""
    (c,) = _bool_args("likely", [cond])
    return Call("likely", (c,), "bool")


def _unary(name: str) -> Callable[[ExprLike], Expr]:
    def f(x: ExprLike) -> Expr:
        e = as_expr(x, "float32")
        if not _is_float(e.dtype) and name != "abs":
            raise TypeError(f"te.{name} needs a float expression, got {e.dtype}")
        return Call(name, (e,), e.dtype)

    f.__name__ = name
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


def sigmoid(x: ExprLike) -> Expr:
    e = as_expr(x, "float32")
    return 1.0 / (1.0 + exp(-e))


def maximum(a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    return Call("maximum", (ea, eb), ea.dtype)


def minimum(a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    return Call("minimum", (ea, eb), ea.dtype)


def power(a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    return Call("pow", (ea, eb), ea.dtype)


def walk(e: Expr) -> list[Expr]:
    """Every node of an expression (pre-order), not descending into tensors."""
    out: list[Expr] = []
    stack = [e]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(children(node)))
    return out


def children(e: Expr) -> list[Expr]:
    match e:
        case Binary(a=a, b=b) | Compare(a=a, b=b):
            return [a, b]
        case Logical(args=args) | Call(args=args):
            return list(args)
        case Cast(value=v):
            return [v]
        case Select(cond=c, then_value=t, else_value=f):
            return [c, t, f]
        case Read(indices=idx):
            return list(idx)
        case Reduce(body=b, init=init):
            return [b] if init is None else [b, init]
        case _:
            return []


def collect_stages(outputs: Sequence[Tensor]) -> list[Tensor]:
    """Computed tensors reachable from `outputs`, producers before consumers."""
    order: list[Tensor] = []
    seen: set[int] = set()

    def visit(t: Tensor) -> None:
        if t.uid in seen or t.is_placeholder:
            return
        seen.add(t.uid)
        assert t.op.body is not None
        for node in walk(t.op.body):
            if isinstance(node, Read):
                visit(node.tensor)
        order.append(t)

    for t in outputs:
        visit(t)
    return order
