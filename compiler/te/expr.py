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
import copy
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import count
from typing import Protocol, Union, overload

from compiler.errors import ExprIndexError, ExprTypeError, ExprValueError

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

    # `==` builds a comparison node (as in TVM), so it overrides object.__eq__ with
    # another return type; compare() rejects a non-expression with a TypeError.
    def __eq__(self, other: object) -> Expr:  # type: ignore[override]  # see above
        return compare("eq", self, other)  # type: ignore[arg-type]  # see above

    def __ne__(self, other: object) -> Expr:  # type: ignore[override]  # see above
        return compare("ne", self, other)  # type: ignore[arg-type]  # see above

    def __bool__(self) -> bool:
        raise ExprTypeError(
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
    """A constant of a dtype: `te.const(2.0)`, or a Python number in an expression."""

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

    @property
    def known_extent(self) -> Dim:
        """The extent of an axis that has one (every compute and reduce axis does)."""
        if self.extent is None:
            raise ExprValueError(f"the axis {self.name} has no extent")
        return self.extent

    def __repr__(self) -> str:
        domain = "" if self.extent is None else f", [0, {dim_repr(self.extent)})"
        return f"IterVar({self.name}{domain}{', reduce' if self.is_reduce else ''})"


@dataclass(eq=False)
class Binary(Expr):
    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(eq=False)
class Compare(Expr):
    """A comparison (`a < b`, `a == b`...): a bool expression."""

    op: str
    a: Expr
    b: Expr
    dtype: str = "bool"


@dataclass(eq=False)
class Logical(Expr):
    """`&`, `|`, `~` of conditions (`te.all`, `te.any`, `te.logical_not`)."""

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
    """A value converted to another dtype: `e.astype("float16")`."""

    target: str
    value: Expr

    @property
    def dtype(self) -> str:  # type: ignore[override]  # derived here, a field elsewhere
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
    """An element of a tensor: `A[i, j]`."""

    tensor: Tensor
    indices: tuple[Expr, ...]

    @property
    def dtype(self) -> str:  # type: ignore[override]  # derived here, a field elsewhere
        return self.tensor.dtype


@dataclass(eq=False)
class Reduce(Expr):
    """A reduction over reduce axes (`te.sum`, `te.prod`, `te.max`, `te.min`, a `comm_reducer`):
    the whole body of a compute."""

    kind: str  # sum | prod | max | min
    body: Expr
    axes: tuple[IterVar, ...]
    init: Expr | None = None
    where: Expr | None = None  # only iterations where it holds are combined (TVM's condition)
    combiner: _Combiner | None = None  # a user reducer (te.comm_reducer); `kind` is its name
    sources: tuple[Expr, ...] = ()  # a tuple reducer's elements: `body` is sources[value_index]
    value_index: int = 0

    @property
    def dtype(self) -> str:  # type: ignore[override]  # derived here, a field elsewhere
        return self.body.dtype


@dataclass(eq=False)
class CombinerArg(IterVar):
    """An argument of a user reducer's combiner (an accumulator or an element)."""


@dataclass(eq=False)
class CommReducer:
    """`te.comm_reducer(fcombine, fidentity, name)`: a commutative reducer of one value or a
    tuple of values. Calling it reduces over axes, as `te.sum` does; a tuple of elements
    gives a tuple of reductions, the outputs of one multi-output `te.compute`."""

    fcombine: Callable[..., object]
    fidentity: Callable[..., object]
    name: str = "reduce"

    def __call__(
        self,
        expr: ExprLike | Sequence[ExprLike],
        axis: IterVar | Sequence[IterVar],
        where: ExprLike | None = None,
        init: ExprLike | Sequence[ExprLike] | None = None,
    ) -> Expr | tuple[Expr, ...]:
        items: tuple[ExprLike, ...] = (expr,) if isinstance(expr, Expr | int | float) else tuple(expr)
        is_tuple = isinstance(expr, list | tuple)
        exprs = tuple(as_expr(e, "float32") for e in items)
        axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
        if not axes or not builtins.all(isinstance(a, IterVar) and a.is_reduce for a in axes):
            raise ExprTypeError(f"reducer {self.name}: axis must be one or more te.reduce_axis")
        dtypes = [e.dtype for e in exprs]
        lhs = tuple(CombinerArg(f"x{k}", dtype=d) for k, d in enumerate(dtypes))
        rhs = tuple(CombinerArg(f"y{k}", dtype=d) for k, d in enumerate(dtypes))
        combined = self.fcombine(lhs, rhs) if is_tuple else self.fcombine(lhs[0], rhs[0])
        results = _tuple_of(combined, len(exprs), f"reducer {self.name}: the combiner")
        if init is not None:
            # rfactor starts every partial reduction from the identity: a start value
            # other than it would be counted once per part
            raise ExprValueError(f"reducer {self.name}: init= is not supported; make it the identity")
        starts = self.fidentity(*dtypes)
        identities = _tuple_of(starts, len(exprs), f"reducer {self.name}: the identity")
        spec = _Combiner(self, lhs, rhs, tuple(r.astype(d) for r, d in zip(results, dtypes, strict=True)))
        cond = None if where is None else _bool_args(f"reducer {self.name}(where=)", [where], "needs a condition")[0]
        reductions = tuple(
            Reduce(self.name, e, axes, i.astype(e.dtype), cond, spec, exprs, k)
            for k, (e, i) in enumerate(zip(exprs, identities, strict=True))
        )
        return reductions if is_tuple else reductions[0]


class _Combiner:
    """A reducer applied to element types: its arguments and combined values."""

    def __init__(
        self, reducer: CommReducer, lhs: tuple[CombinerArg, ...], rhs: tuple[CombinerArg, ...], results: tuple[Expr, ...]
    ):
        self.name = reducer.name
        self.lhs, self.rhs, self.results = lhs, rhs, results

    def with_results(self, results: tuple[Expr, ...]) -> _Combiner:
        """The same reducer combining into `results` (its axes substituted)."""
        new = copy.copy(self)
        new.results = results
        return new

    def named_axes(self) -> list[IterVar]:
        """The axes (not its own arguments) its combined values name: the compute's data axes."""
        return _named_axes(self.results)


def _named_axes(exprs: Sequence[Expr]) -> list[IterVar]:
    found: dict[int, IterVar] = {}
    for e in exprs:
        for node in walk(e):
            if isinstance(node, IterVar) and not isinstance(node, CombinerArg):
                found.setdefault(node.uid, node)
    return list(found.values())


def reducer_axes(r: Reduce) -> list[IterVar]:
    """The axes a user reducer's identity or combiner names (TVM allows the compute's data axes)."""
    if r.combiner is None:
        return []
    found = {iv.uid: iv for iv in _named_axes([] if r.init is None else [r.init])}
    found |= {iv.uid: iv for iv in r.combiner.named_axes()}
    return list(found.values())


def _tuple_of(value: object, n: int, what: str) -> tuple[Expr, ...]:
    items = tuple(value) if isinstance(value, list | tuple) else (value,)
    if len(items) != n:
        raise ExprValueError(f"{what} gives {len(items)} values, expected {n}")
    return tuple(as_expr(v, "float32") for v in items)


def comm_reducer(
    fcombine: Callable[..., object], fidentity: Callable[..., object], name: str = "reduce"
) -> CommReducer:
    """A user reducer (TVM's `te.comm_reducer`): `fcombine(x, y)` combines an accumulator
    and an element (tuples of them for a tuple reducer), `fidentity(*dtypes)` is the start
    value(s); `name` must be an identifier."""
    if not name.isidentifier():
        raise ExprValueError(f"comm_reducer: the name must be an identifier, got {name!r}")
    return CommReducer(fcombine, fidentity, name)


_FLOAT_LIMITS = {"float16": 65504.0, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _int_limits(dtype: str) -> tuple[int, int]:
    if dtype == "uint8":
        return 0, 255
    bits = int(dtype.removeprefix("int"))
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def min_value(dtype: str) -> Const:
    """The smallest finite value of a dtype (TVM's `te.min_value`)."""
    _check_dtype(dtype)
    return Const(-_FLOAT_LIMITS[dtype] if _is_float(dtype) else _int_limits(dtype)[0], dtype)


def max_value(dtype: str) -> Const:
    """The largest finite value of a dtype (TVM's `te.max_value`)."""
    _check_dtype(dtype)
    return Const(_FLOAT_LIMITS[dtype] if _is_float(dtype) else _int_limits(dtype)[1], dtype)


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
    bodies: tuple[Expr, ...] = ()  # a multi-output compute: one body per output (body is the first)
    outputs: tuple[Tensor, ...] = field(default=(), repr=False)
    attach_to: Tensor | None = field(default=None, repr=False)
    """The consumer in whose innermost loop `te.create_schedule` (and `build` without a
    schedule) computes this stage: a wider accumulator its consumer rounds (`compiler.ops`
    reduces float16 in float32), one element at a time instead of a full buffer."""
    tag: str = ""  # `te.compute(..., tag=)`: the kind of stage (TVM's; "broadcast", ...)
    scan: ScanParts | None = field(default=None, repr=False)  # a `te.scan`: its inits, updates, states
    scan_of: Operation | None = field(default=None, repr=False)
    """On a scan's state placeholder and on its update ops: the scan (`te.scan`)."""

    @property
    def num_outputs(self) -> int:
        return builtins.max(len(self.outputs), 1)

    def output(self, k: int) -> Tensor:
        """TVM's `op.output(k)`."""
        if self.outputs:
            return self.outputs[k]
        if k != 0 or self.output_tensor is None:
            raise ExprIndexError(f"{self.name} has {self.num_outputs} output(s), no output {k}")
        return self.output_tensor

    def all_bodies(self) -> tuple[Expr, ...]:
        return self.bodies or (() if self.body is None else (self.body,))

    def extern_inputs(self) -> tuple[Tensor, ...]:
        """The tensors a `te.extern` stage reads whole (none for a compute)."""
        return ()

    def __repr__(self) -> str:
        if self.body is None:
            return f"PlaceholderOp({self.name})"
        reduce = f", reduce_axis=[{', '.join(iv.name for iv in self.reduce_axis)}]" if self.reduce_axis else ""
        return f"ComputeOp({self.name}, axis=[{', '.join(iv.name for iv in self.axis)}]{reduce})"

    @property
    def reduce_axis(self) -> tuple[IterVar, ...]:
        return self.body.axes if isinstance(self.body, Reduce) else ()


@dataclass(eq=False)
class Tensor:
    """A tensor of a program: a placeholder (an input) or the result of `te.compute`.

    `A[i, j]` reads it in an expression; `shape` holds ints and `te.var` expressions;
    `op` is its producer (`op.axis`, `op.reduce_axis` for schedules).
    """

    shape: tuple[Dim, ...]
    dtype: str
    op: Operation
    uid: int = field(default_factory=lambda: next(_ids))
    strided: bool = False  # as an argument of build, it accepts any strides (views, zero-copy)
    value_index: int = 0  # which output of its op (a multi-output compute)

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

    @property
    def is_scan_state(self) -> bool:
        """The state placeholder of a `te.scan`: no argument, the scan's previous rows."""
        return self.op.body is None and self.op.scan_of is not None

    def __getitem__(self, indices: ExprLike | tuple[ExprLike, ...]) -> Read:
        if not isinstance(indices, tuple):
            indices = (indices,)
        if len(indices) != self.ndim:
            raise ExprIndexError(
                f"tensor {self.name} has {self.ndim} dimensions, indexed with {len(indices)}"
            )
        converted = tuple(as_expr(i, INDEX) for i in indices)
        for i, e in enumerate(converted):
            if _is_float(e.dtype):
                raise ExprTypeError(f"index {i} of {self.name} is a {e.dtype} expression")
        return Read(self, converted)

    def __repr__(self) -> str:
        shape = ", ".join(map(dim_repr, self.shape)) + ("," if self.ndim == 1 else "")
        strided = ", strided=True" if self.strided else ""
        return f"Tensor({self.name}, shape=({shape}), dtype={self.dtype}{strided})"


_REPR_OPS = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "floormod": "%"}


def dim_repr(d: Expr | int | None) -> str:
    """A dimension or index expression as reprs show it: `4`, `n`, `n + 2`."""
    text = _dim_text(d)
    return text[1:-1] if text.startswith("(") and text.endswith(")") else text


def _dim_text(d: Expr | int | None) -> str:
    match d:
        case int() | Const():
            return str(d if isinstance(d, int) else d.value)
        case Var(name=n) | IterVar(name=n):
            return n
        case Binary(op=op, a=a, b=b) if op in _REPR_OPS:
            return f"({_dim_text(a)} {_REPR_OPS[op]} {_dim_text(b)})"
        case Call(func="maximum" | "minimum", args=(a, b)):
            return f"{d.func[:3]}({dim_repr(a)}, {dim_repr(b)})"
        case _:
            return type(d).__name__


def _check_dtype(dtype: str) -> str:
    if dtype not in _FLOAT_DTYPES + _INT_DTYPES:
        raise ExprValueError(f"unsupported dtype '{dtype}': expected one of {_FLOAT_DTYPES + _INT_DTYPES}")
    return dtype


def _check_shape(shape: Sequence[Dim] | Dim, what: str) -> tuple[Dim, ...]:
    dims = tuple(shape) if isinstance(shape, list | tuple) else (shape,)
    for i, d in enumerate(dims):
        if isinstance(d, bool) or not isinstance(d, int | Expr):
            raise ExprTypeError(f"{what}: dimension {i} must be an int or a te.var expression, got {d!r}")
        if isinstance(d, int) and d < 0:
            raise ExprValueError(f"{what}: dimension {i} is negative ({d})")
        if isinstance(d, Expr) and d.dtype != INDEX:
            raise ExprTypeError(f"{what}: dimension {i} is a {d.dtype} expression")
    return dims


_NAME = re.compile(r"[A-Za-z_$.-][\w$.-]*")


def _check_name(name: object, what: str, *, identifier: bool = False) -> str:
    """A tensor's or axis's name names its values in the IR: letters, digits, `_ $ . -`,
    not starting with a digit (a shape variable's, an identifier)."""
    if not isinstance(name, str):
        raise ExprTypeError(f"{what}: the name must be a str, got {name!r}")
    if not (name.isidentifier() if identifier else _NAME.fullmatch(name)):
        allowed = "an identifier" if identifier else "letters, digits, _ $ . or -, not starting with a digit"
        raise ExprValueError(f"{what} '{name}': a name is {allowed}")
    return name


def var(name: str = "n", dtype: str = INDEX) -> Var:
    """A symbolic shape variable."""
    if dtype not in ("int32", INDEX):
        raise ExprValueError("te.var is a shape variable: its dtype must be int32 or int64")
    return Var(_check_name(name, "te.var", identifier=True))


def placeholder(
    shape: Sequence[Dim] | Dim, dtype: str = "float32", name: str = "placeholder", *, strided: bool = False
) -> Tensor:
    """An input tensor. `strided=True` binds its strides at call time (symbolic
    `<name>_stride<k>`), so a NumPy view such as `a[:, ::2]` is used without a copy."""
    op = Operation(_check_name(name, "placeholder"))
    tensor = Tensor(_check_shape(shape, f"placeholder {name}"), _check_dtype(dtype), op, strided=strided)
    op.output_tensor = tensor
    return tensor


def _axis_names(fcompute: Callable[..., object], ndim: int) -> list[str]:
    try:
        params = list(inspect.signature(fcompute).parameters)
    except (TypeError, ValueError):
        params = []
    if len(params) == ndim and builtins.all(p.isidentifier() for p in params):
        return params
    return [f"ax{i}" for i in range(ndim)]


@overload
def compute(
    shape: Sequence[Dim] | Dim,
    fcompute: Callable[..., ExprLike],
    name: str = ...,
    dtype: str | None = ...,
    *,
    strided: bool = ...,
    tag: str = ...,
) -> Tensor: ...


@overload
def compute(
    shape: Sequence[Dim] | Dim,
    fcompute: Callable[..., Sequence[ExprLike]],
    name: str = ...,
    dtype: str | None = ...,
    *,
    strided: bool = ...,
    tag: str = ...,
) -> tuple[Tensor, ...]: ...


def compute(
    shape: Sequence[Dim] | Dim,
    fcompute: Callable[..., ExprLike | Sequence[ExprLike]],
    name: str = "compute",
    dtype: str | None = None,
    *,
    strided: bool = False,
    tag: str = "",
) -> Tensor | tuple[Tensor, ...]:
    """`te.compute(shape, lambda i, j: ..., name=...)`. A body that is a tuple makes a
    multi-output compute: a tuple of tensors of one shape, computed in one loop nest
    (TVM's; elementwise values, or the reductions of one tuple reducer).

    `tag`: a label of the stage's kind (TVM's; `"broadcast"` is what
    `te.schedule.AutoInlineBroadcast` inlines).

    `strided=True`: passed to `build` as an output, the tensor may be any strided view
    (a column slice, a transpose...: its strides are bound at call time, as for
    `te.placeholder(..., strided=True)`); it must still not overlap another argument.

    >>> n = te.var("n")
    >>> A = te.placeholder((n, 4), name="A")
    >>> B = te.compute((n, 4), lambda i, j: A[i, j] * 2.0, name="B")
    >>> B
    Tensor(B, shape=(n, 4), dtype=float32)
    """
    dims = _check_shape(shape, f"compute {_check_name(name, 'compute')}")
    axes = tuple(IterVar(n, d) for n, d in zip(_axis_names(fcompute, len(dims)), dims, strict=True))
    value = fcompute(*axes)
    if isinstance(value, list | tuple):
        outputs = _multi_output(name, dims, axes, value, dtype)
        outputs[0].op.tag = tag
        return outputs
    if not isinstance(value, Expr | int | float):
        raise ExprTypeError(f"compute {name}: the body is {value!r}, not an expression")
    body = as_expr(value, dtype or "float32")
    if dtype is not None:
        body = body.astype(dtype)
    _check_reduce_placement(body, name)
    op = Operation(name, axes, body, tag=tag)
    tensor = Tensor(dims, _check_dtype(body.dtype), op, strided=strided)
    op.output_tensor = tensor
    return tensor


def _multi_output(
    name: str, dims: tuple[Dim, ...], axes: tuple[IterVar, ...], values: Sequence[ExprLike], dtype: str | None
) -> tuple[Tensor, ...]:
    bodies = tuple(as_expr(v, dtype or "float32") for v in values)
    if not bodies:
        raise ExprValueError(f"compute {name}: the body is an empty tuple")
    reductions = [b for b in bodies if isinstance(b, Reduce)]
    if reductions:
        first = reductions[0]
        same = len(reductions) == len(bodies) and first.combiner is not None
        if not same or builtins.any(
            b.combiner is not first.combiner or b.value_index != k for k, b in enumerate(reductions)
        ):
            raise ExprValueError(
                f"compute {name}: the outputs of a multi-output reduction are the values of one "
                "tuple reducer (te.comm_reducer), in order"
            )
        if len(bodies) != len(first.sources):
            raise ExprValueError(f"compute {name}: the reducer gives {len(first.sources)} values, {len(bodies)} used")
    for b in bodies:
        _check_reduce_placement(b, name)
    op = Operation(name, axes, bodies[0], bodies=bodies)
    op.outputs = tuple(
        Tensor(dims, _check_dtype(b.dtype), op, value_index=k) for k, b in enumerate(bodies)
    )
    op.output_tensor = op.outputs[0]
    return op.outputs


@dataclass(eq=False)
class ScanParts:
    """What `te.scan` was given: per output, its init, update and state placeholder."""

    inits: tuple[Tensor, ...]
    updates: tuple[Tensor, ...]
    states: tuple[Tensor, ...]


def _check_reduce_placement(body: Expr, name: str) -> None:
    inner = body.body if isinstance(body, Reduce) else body
    for node in walk(inner):
        if isinstance(node, Reduce):
            raise ExprValueError(
                f"compute {name}: a reduction (te.sum/te.max/...) must be the whole body of the "
                "compute, as in TVM; compute it as its own stage and use that tensor"
            )


def reduce_axis(dom: tuple[Dim, Dim] | Dim, name: str = "rv") -> IterVar:
    """`te.reduce_axis((0, n), name="k")`; the domain must start at 0."""
    _check_name(name, "reduce_axis")
    if isinstance(dom, tuple):
        lo, extent = dom
        if not (isinstance(lo, int) and lo == 0):
            raise ExprValueError(f"reduce_axis {name}: the domain must start at 0, got {lo!r}")
    else:
        extent = dom
    _check_shape((extent,), f"reduce_axis {name}")
    return IterVar(name, extent, is_reduce=True)


class _Reduction(Protocol):
    """The signature of `te.sum` and `te.prod`."""

    def __call__(
        self,
        expr: ExprLike,
        axis: IterVar | Sequence[IterVar],
        init: ExprLike | None = None,
        where: ExprLike | None = None,
    ) -> Expr: ...


def _reducer(kind: str) -> _Reduction:
    def reduce(
        expr: ExprLike,
        axis: IterVar | Sequence[IterVar],
        init: ExprLike | None = None,
        where: ExprLike | None = None,
    ) -> Expr:
        axes = (axis,) if isinstance(axis, IterVar) else tuple(axis)
        if not axes or not builtins.all(isinstance(a, IterVar) and a.is_reduce for a in axes):
            raise ExprTypeError(f"te.{kind}: axis must be one or more te.reduce_axis")
        body = as_expr(expr, "float32")
        cond = None if where is None else _bool_args(f"te.{kind}(where=)", [where], "needs a condition")[0]
        return Reduce(kind, body, axes, None if init is None else as_expr(init, body.dtype), cond)

    reduce.__name__ = kind
    reduce.__doc__ = f"""`te.{kind}(expr, axis=k)`: the {kind} of `expr` over the reduce axes `axis`
    (one `te.reduce_axis` or several), the whole body of a `te.compute`. `init` is the
    starting value (the identity by default); `where` a condition on the axes that
    selects the terms.

    >>> A = te.placeholder((8, 16), name="A")
    >>> k = te.reduce_axis((0, 16), name="k")
    >>> B = te.compute((8,), lambda i: te.{kind}(A[i, k], axis=k), name="B")
    >>> B.op
    ComputeOp(B, axis=[i], reduce_axis=[k])
    """
    return reduce


sum = _reducer("sum")
prod = _reducer("prod")


def _is_reduce_axes(axis: object) -> bool:
    items = axis if isinstance(axis, list | tuple) else (axis,)
    return bool(items) and builtins.all(isinstance(a, IterVar) and a.is_reduce for a in items)


def max(
    expr: ExprLike,
    axis: IterVar | Sequence[IterVar] | ExprLike,
    init: ExprLike | None = None,
    where: ExprLike | None = None,
) -> Expr:
    """`te.max(x, axis=k)` reduces over reduce axes; `te.max(a, b)` is the larger of two
    values (as in TVM), index expressions included."""
    if isinstance(axis, Expr | int | float):
        if not _is_reduce_axes(axis) and init is None and where is None:
            return maximum(expr, axis)
        if not isinstance(axis, IterVar):
            raise ExprTypeError(f"te.max: axis must be one or more te.reduce_axis, got {axis!r}")
    return _reducer("max")(expr, axis, init, where)


def min(
    expr: ExprLike,
    axis: IterVar | Sequence[IterVar] | ExprLike,
    init: ExprLike | None = None,
    where: ExprLike | None = None,
) -> Expr:
    """`te.min(x, axis=k)` reduces over reduce axes; `te.min(a, b)` is the smaller of two values."""
    if isinstance(axis, Expr | int | float):
        if not _is_reduce_axes(axis) and init is None and where is None:
            return minimum(expr, axis)
        if not isinstance(axis, IterVar):
            raise ExprTypeError(f"te.min: axis must be one or more te.reduce_axis, got {axis!r}")
    return _reducer("min")(expr, axis, init, where)


def const(value: int | float | bool, dtype: str | None = None) -> Const:
    """A constant expression; its dtype defaults to bool, int64 or float32 from the value."""
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
    raise ExprTypeError(f"cannot use {value!r} ({type(value).__name__}) in a tensor expression")


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
            raise ExprTypeError(
                f"operands of types {ea.dtype} and {eb.dtype}: convert one with .astype()"
            )
    return ea, eb


def binary(op: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    if op in ("floordiv", "floormod") and _is_float(ea.dtype):
        raise ExprTypeError(f"{op} needs integer operands, got {ea.dtype}")
    if op == "div" and not _is_float(ea.dtype):
        raise ExprTypeError("'/' needs float operands; use '//' for integer division")
    return Binary(op, ea, eb, ea.dtype)


def compare(op: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = _unify(a, b)
    return Compare(op, ea, eb)


def _bool_args(name: str, args: Sequence[ExprLike], requirement: str = "") -> tuple[Expr, ...]:
    exprs = tuple(as_expr(a, "bool") for a in args)
    for e in exprs:
        if e.dtype != "bool":
            what = f"{name} {requirement}" if requirement else f"te.{name} takes conditions"
            raise ExprTypeError(f"{what}, got a {e.dtype} expression")
    return exprs


def all(*conds: ExprLike) -> Expr:
    """The conjunction of conditions (`te.all(i >= 1, i < n)`)."""
    exprs = _bool_args("all", conds)
    return exprs[0] if len(exprs) == 1 else Logical("and", exprs)


def any(*conds: ExprLike) -> Expr:
    """The disjunction of conditions."""
    exprs = _bool_args("any", conds)
    return exprs[0] if len(exprs) == 1 else Logical("or", exprs)


def logical_not(cond: ExprLike) -> Expr:
    """The negation of a condition (also `~cond`)."""
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


def maximum(a: ExprLike, b: ExprLike) -> Expr:
    """The larger of two values of one dtype (index expressions included)."""
    ea, eb = _unify(a, b)
    return Call("maximum", (ea, eb), ea.dtype)


def minimum(a: ExprLike, b: ExprLike) -> Expr:
    """The smaller of two values of one dtype (index expressions included)."""
    ea, eb = _unify(a, b)
    return Call("minimum", (ea, eb), ea.dtype)


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
        case Reduce(body=b, init=init, where=where, sources=sources):
            return [*(sources or (b,)), *(e for e in (init, where) if e is not None)]
        case _:
            return []


def substitute(e: Expr, mapping: dict[int, Expr]) -> Expr:
    """`e` with the axes in `mapping` (by uid) replaced; unchanged subtrees are shared.
    A user reducer's combiner is substituted too (it may name the compute's axes)."""
    if isinstance(e, IterVar):
        return mapping.get(e.uid, e)
    kids = children(e)
    new = [substitute(k, mapping) for k in kids]
    combiner = _substitute_combiner(e, mapping)
    if builtins.all(a is b for a, b in zip(new, kids, strict=True)) and (
        not isinstance(e, Reduce) or combiner is e.combiner
    ):
        return e
    match e:
        case Binary() | Compare():
            return replace(e, a=new[0], b=new[1])
        case Logical() | Call():
            return replace(e, args=tuple(new))
        case Cast():
            return replace(e, value=new[0])
        case Select():
            return replace(e, cond=new[0], then_value=new[1], else_value=new[2])
        case Read():
            return replace(e, indices=tuple(new))
        case Reduce():
            n = builtins.max(len(e.sources), 1)
            sources, rest = new[:n], new[n:]
            init = rest.pop(0) if e.init is not None else None
            return replace(
                e,
                body=sources[e.value_index if e.sources else 0],
                sources=tuple(sources) if e.sources else (),
                init=init,
                where=rest[0] if e.where is not None else None,
                combiner=combiner,
            )
        case _:
            raise ExprTypeError(f"cannot substitute into {type(e).__name__}")


def _substitute_combiner(e: Expr, mapping: dict[int, Expr]) -> _Combiner | None:
    if not isinstance(e, Reduce) or e.combiner is None:
        return None
    results = tuple(substitute(r, mapping) for r in e.combiner.results)
    if builtins.all(a is b for a, b in zip(results, e.combiner.results, strict=True)):
        return e.combiner
    return e.combiner.with_results(results)


def collect_stages(outputs: Sequence[Tensor], seen: set[int] | None = None) -> list[Tensor]:
    """Computed tensors reachable from `outputs`, producers before consumers; stages whose
    uid is in `seen` are not visited (nor what they read), and those visited are added to it."""
    order: list[Tensor] = []
    seen = set() if seen is None else seen

    def visit(t: Tensor) -> None:
        t = t.op.output(0) if t.op.outputs else t  # one stage per op: its first output
        if t.uid in seen or t.is_placeholder:
            return
        seen.add(t.uid)
        if t.op.scan is not None:
            for init in t.op.scan.inits:  # they write the scan's first rows, before it
                visit(init)
        for body in t.op.all_bodies():
            for node in walk(body):
                if isinstance(node, Read):
                    visit(node.tensor)
        for source in t.op.extern_inputs():
            visit(source)
        order.append(t)

    for t in outputs:
        visit(t)
    return order
