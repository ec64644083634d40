"""Reductions: `te.sum`, `te.prod`, `te.max`, `te.min` and user reducers (`te.comm_reducer`).

A `Reduce` node is the whole body of a compute; its reduce axes come from
`te.reduce_axis`. `te.max(a, b)` and `te.min(a, b)` of two values are the
elementwise `maximum`/`minimum` (as in TVM), so these two names shadow Python's
builtins here and in `compiler.te` (this module spells those `builtins.max`).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from compiler.errors import ExprTypeError, ExprValueError
from compiler.te.nodes import (
    Expr,
    ExprLike,
    IterVar,
    as_expr,
    bool_args,
    maximum,
    minimum,
    unchanged,
    with_items,
)
from compiler.te.traversal import walk


@dataclass(eq=False)
class Reduce(Expr):
    """A reduction over reduce axes (`te.sum`, `te.prod`, `te.max`, `te.min`, a `comm_reducer`):
    the whole body of a compute."""

    kind: str  # sum | prod | max | min
    body: Expr
    axes: tuple[IterVar, ...]
    init: Expr | None = None
    where: Expr | None = None  # only iterations where it holds are combined (TVM's condition)
    combiner: Combiner | None = None  # a user reducer (te.comm_reducer); `kind` is its name
    sources: tuple[Expr, ...] = ()  # a tuple reducer's elements: `body` is sources[value_index]
    value_index: int = 0

    def children(self) -> list[Expr]:
        return [*(self.sources or (self.body,)), *(e for e in (self.init, self.where) if e is not None)]

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        """Also maps a user reducer's combined values (they may name the compute's axes)."""
        kids = self.children()
        new = [f(k) for k in kids]
        combiner = None if self.combiner is None else self.combiner.map_results(f)
        if unchanged(kids, new) and combiner is self.combiner:
            return self
        n = builtins.max(len(self.sources), 1)
        sources, rest = new[:n], new[n:]
        init = rest.pop(0) if self.init is not None else None
        return replace(
            self,
            body=sources[self.value_index if self.sources else 0],
            sources=tuple(sources) if self.sources else (),
            init=init,
            where=rest[0] if self.where is not None else None,
            combiner=combiner,
        )

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
        spec = Combiner(self, lhs, rhs, tuple(r.astype(d) for r, d in zip(results, dtypes, strict=True)))
        cond = None if where is None else bool_args(f"reducer {self.name}(where=)", [where], "needs a condition")[0]
        reductions = tuple(
            Reduce(self.name, e, axes, i.astype(e.dtype), cond, spec, exprs, k)
            for k, (e, i) in enumerate(zip(exprs, identities, strict=True))
        )
        return reductions if is_tuple else reductions[0]


class Combiner:
    """A reducer applied to element types: its arguments and combined values."""

    def __init__(
        self, reducer: CommReducer, lhs: tuple[CombinerArg, ...], rhs: tuple[CombinerArg, ...], results: tuple[Expr, ...]
    ):
        self.name = reducer.name
        self.lhs, self.rhs, self.results = lhs, rhs, results

    def map_results(self, f: Callable[[Expr], Expr]) -> Combiner:
        """The same reducer combining into its results mapped by `f` (its axes substituted);
        itself when none changes."""
        return with_items(self, "results", tuple(f(r) for r in self.results))

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
        cond = None if where is None else bool_args(f"te.{kind}(where=)", [where], "needs a condition")[0]
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
    return _reduce_or_pair("max", maximum, expr, axis, init, where)


def min(
    expr: ExprLike,
    axis: IterVar | Sequence[IterVar] | ExprLike,
    init: ExprLike | None = None,
    where: ExprLike | None = None,
) -> Expr:
    """`te.min(x, axis=k)` reduces over reduce axes; `te.min(a, b)` is the smaller of two values."""
    return _reduce_or_pair("min", minimum, expr, axis, init, where)


def _reduce_or_pair(
    kind: str,
    pair: Callable[[ExprLike, ExprLike], Expr],
    expr: ExprLike,
    axis: IterVar | Sequence[IterVar] | ExprLike,
    init: ExprLike | None,
    where: ExprLike | None,
) -> Expr:
    """`te.max`/`te.min`: over reduce axes, else of two values (`pair`)."""
    if isinstance(axis, Expr | int | float):
        if not _is_reduce_axes(axis) and init is None and where is None:
            return pair(expr, axis)
        if not isinstance(axis, IterVar):
            raise ExprTypeError(f"te.{kind}: axis must be one or more te.reduce_axis, got {axis!r}")
    return _reducer(kind)(expr, axis, init, where)
