"""Tensors and their stages: `te.placeholder`, `te.compute`, axes and shape variables.

A `Tensor` is produced by an `Operation` (a placeholder, or a compute stage
whose body is an expression of `compiler.te.nodes`); `A[i, j]` reads it (a
`Read` node). `collect_stages` lists the stages a program's outputs reach.
"""

from __future__ import annotations

import builtins
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import overload

from compiler.errors import ExprIndexError, ExprTypeError, ExprValueError
from compiler.te.nodes import (
    INDEX,
    Dim,
    Expr,
    ExprLike,
    IterVar,
    Var,
    as_expr,
    check_dtype,
    dim_repr,
    is_float,
    new_uid,
    with_items,
)
from compiler.te.reducers import Reduce
from compiler.te.traversal import walk


@dataclass(eq=False)
class Read(Expr):
    """An element of a tensor: `A[i, j]`."""

    tensor: Tensor
    indices: tuple[Expr, ...]

    def children(self) -> list[Expr]:
        return list(self.indices)

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        return with_items(self, "indices", tuple(f(i) for i in self.indices))

    @property
    def dtype(self) -> str:  # type: ignore[override]  # derived here, a field elsewhere
        return self.tensor.dtype




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
    fast_form: FastForm | None = field(default=None, repr=False)
    """The same values computed another way, which `build` compiles instead when it
    schedules the program itself (see `FastForm`)."""

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


@dataclass(frozen=True, eq=False)
class FastForm:
    """Another computation of a stage's values from `inputs` (`make(*inputs)`, or None
    where it is not faster), in stages the auto-scheduler compiles better than the
    stage as written: TVM's op strategies, one definition for a user's schedules and
    another for the machine's. `build` and `tune` without a schedule compute it instead
    (`te.fast_forms.with_fast_forms`); a schedule names the stages as written.
    `ops.conv2d_nchw` computes in blocked NHWC."""

    inputs: tuple[Tensor, ...]
    make: Callable[..., Tensor | None]


@dataclass(eq=False)
class Tensor:
    """A tensor of a program: a placeholder (an input) or the result of `te.compute`.

    `A[i, j]` reads it in an expression; `shape` holds ints and `te.var` expressions;
    `op` is its producer (`op.axis`, `op.reduce_axis` for schedules).
    """

    shape: tuple[Dim, ...]
    dtype: str
    op: Operation
    uid: int = field(default_factory=new_uid)
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
            if is_float(e.dtype):
                raise ExprTypeError(f"index {i} of {self.name} is a {e.dtype} expression")
        return Read(self, converted)

    def __repr__(self) -> str:
        shape = ", ".join(map(dim_repr, self.shape)) + ("," if self.ndim == 1 else "")
        strided = ", strided=True" if self.strided else ""
        return f"Tensor({self.name}, shape=({shape}), dtype={self.dtype}{strided})"



def check_shape(shape: Sequence[Dim] | Dim, what: str) -> tuple[Dim, ...]:
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


def check_name(name: object, what: str, *, identifier: bool = False) -> str:
    """A tensor's or axis's name names its values in the IR: letters, digits, `_ $ . -`,
    not starting with a digit (a shape variable's, an identifier)."""
    if not isinstance(name, str):
        raise ExprTypeError(f"{what}: the name must be a str, got {name!r}")
    if not (name.isidentifier() if identifier else _NAME.fullmatch(name)):
        allowed = "an identifier" if identifier else "letters, digits, _ $ . or -, not starting with a digit"
        raise ExprValueError(f"{what} '{name}': a name is {allowed}")
    return name


def var(name: str = "n", dtype: str = INDEX, *, lower: int = 0, upper: int | None = None) -> Var:
    """A symbolic shape variable, whose values at every call lie in [lower, upper]
    (`upper=None`: unbounded). A call outside raises ArgumentValueError; inside, the
    compiler may use the range: `lower=1` (no empty dimension) keeps the bounds of
    blocked loops over the variable small (`(n + 127) // 128` blocks is then >= 1)."""
    if dtype not in ("int32", INDEX):
        raise ExprValueError("te.var is a shape variable: its dtype must be int32 or int64")
    for what, value in (("lower", lower), ("upper", upper)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ExprTypeError(f"te.var {name}: {what} must be an int, got {value!r}")
    if lower < 0 or (upper is not None and upper < lower):
        raise ExprValueError(f"te.var {name}: the range [{lower}, {upper}] is not a range of sizes (0 <= lower <= upper)")
    return Var(check_name(name, "te.var", identifier=True), lower=lower, upper=upper)


def placeholder(
    shape: Sequence[Dim] | Dim, dtype: str = "float32", name: str = "placeholder", *, strided: bool = False
) -> Tensor:
    """An input tensor. `strided=True` binds its strides at call time (symbolic
    `<name>_stride<k>`), so a NumPy view such as `a[:, ::2]` is used without a copy."""
    op = Operation(check_name(name, "placeholder"))
    tensor = Tensor(check_shape(shape, f"placeholder {name}"), check_dtype(dtype), op, strided=strided)
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
    dims = check_shape(shape, f"compute {check_name(name, 'compute')}")
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
    tensor = Tensor(dims, check_dtype(body.dtype), op, strided=strided)
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
        Tensor(dims, check_dtype(b.dtype), op, value_index=k) for k, b in enumerate(bodies)
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
    check_name(name, "reduce_axis")
    if isinstance(dom, tuple):
        lo, extent = dom
        if not (isinstance(lo, int) and lo == 0):
            raise ExprValueError(f"reduce_axis {name}: the domain must start at 0, got {lo!r}")
    else:
        extent = dom
    check_shape((extent,), f"reduce_axis {name}")
    return IterVar(name, extent, is_reduce=True)


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
