"""The nodes of a tensor expression and the builders that check their types.

Expressions are small immutable trees: constants, shape variables, axes,
arithmetic, comparisons, conditions, calls, casts and selects (`Read` is in
`compiler.te.tensors`, `Reduce` in `compiler.te.reducers`). Each node lists its
children (`children`, `map_children`), which `compiler.te.traversal` walks.
Also here: the dtypes and their limits (`te.min_value`, `te.max_value`).
"""

from __future__ import annotations

import builtins
import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import count
from typing import TypeVar, Union

from compiler.errors import ExprTypeError, ExprValueError

ExprLike = Union["Expr", int, float, bool]

INDEX = "int64"
_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
_uids = count()


def new_uid() -> int:
    """A fresh identity for an axis or a tensor (one counter: they never share one)."""
    return next(_uids)


def is_float(dtype: str) -> bool:
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
        return Logical("and", bool_args("&", [self, other], "needs conditions"))

    def __rand__(self, other: ExprLike) -> Expr:
        return Logical("and", bool_args("&", [other, self], "needs conditions"))

    def __or__(self, other: ExprLike) -> Expr:
        return Logical("or", bool_args("|", [self, other], "needs conditions"))

    def __ror__(self, other: ExprLike) -> Expr:
        return Logical("or", bool_args("|", [other, self], "needs conditions"))

    def __invert__(self) -> Expr:
        return Logical("not", bool_args("~", [self], "needs a condition"))

    def astype(self, dtype: str) -> Expr:
        return self if dtype == self.dtype else Cast(dtype, self)

    def children(self) -> list[Expr]:
        """The operands, in order (none for a leaf)."""
        return []

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        """This node with `f` applied to its children; the node itself when none changes."""
        return self


def unchanged(old: Sequence[object], new: Sequence[object]) -> bool:
    """Whether `new` holds the very objects of `old` (a rewrite that changed nothing)."""
    return builtins.all(a is b for a, b in zip(old, new, strict=True))


_Node = TypeVar("_Node")


def with_items(node: _Node, name: str, items: tuple[Expr, ...]) -> _Node:
    """`node` itself when `items` holds the objects of its tuple field `name`, else a copy
    of it with `items` there."""
    if unchanged(getattr(node, name), items):
        return node
    new = copy.copy(node)
    setattr(new, name, items)
    return new


class _TwoOperands(Expr):
    """A node of two operands `a` and `b` (a dataclass below)."""

    a: Expr
    b: Expr

    def children(self) -> list[Expr]:
        return [self.a, self.b]

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        a, b = f(self.a), f(self.b)
        if a is self.a and b is self.b:
            return self
        new = copy.copy(self)
        new.a, new.b = a, b
        return new


class _Arguments(Expr):
    """A node of a tuple of arguments `args` (a dataclass below)."""

    args: tuple[Expr, ...]

    def children(self) -> list[Expr]:
        return list(self.args)

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        return with_items(self, "args", tuple(f(a) for a in self.args))


@dataclass(eq=False)
class Const(Expr):
    """A constant of a dtype: `te.const(2.0)`, or a Python number in an expression."""

    value: int | float | bool
    dtype: str


@dataclass(eq=False)
class Var(Expr):
    """A symbolic shape variable (bound from argument shapes at call time), with the
    range its values keep (`te.var`'s `lower` and `upper`): the packed API checks it
    at each call, and the compiler's proofs assume it."""

    name: str
    dtype: str = INDEX
    lower: int = 0
    upper: int | None = None


@dataclass(eq=False)
class IterVar(Expr):
    """A data-parallel axis of a compute, or a reduce axis with a domain [0, extent)."""

    name: str
    extent: Expr | int | None = None
    is_reduce: bool = False
    dtype: str = INDEX
    uid: int = field(default_factory=new_uid)

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
class Binary(_TwoOperands):
    op: str
    a: Expr
    b: Expr
    dtype: str


@dataclass(eq=False)
class Compare(_TwoOperands):
    """A comparison (`a < b`, `a == b`...): a bool expression."""

    op: str
    a: Expr
    b: Expr
    dtype: str = "bool"


@dataclass(eq=False)
class Logical(_Arguments):
    """`&`, `|`, `~` of conditions (`te.all`, `te.any`, `te.logical_not`)."""

    op: str  # "and" | "or" | "not"
    args: tuple[Expr, ...]
    dtype: str = "bool"


@dataclass(eq=False)
class Call(_Arguments):
    """An elementwise math function (exp, log, sqrt, tanh, abs, maximum, ...)."""

    func: str
    args: tuple[Expr, ...]
    dtype: str


@dataclass(eq=False)
class Cast(Expr):
    """A value converted to another dtype: `e.astype("float16")`."""

    target: str
    value: Expr

    def children(self) -> list[Expr]:
        return [self.value]

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        value = f(self.value)
        return self if value is self.value else replace(self, value=value)

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

    def children(self) -> list[Expr]:
        return [self.cond, self.then_value, self.else_value]

    def map_children(self, f: Callable[[Expr], Expr]) -> Expr:
        new = [f(k) for k in self.children()]
        if unchanged(self.children(), new):
            return self
        return replace(self, cond=new[0], then_value=new[1], else_value=new[2])


_FLOAT_LIMITS = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _int_limits(dtype: str) -> tuple[int, int]:
    if dtype == "uint8":
        return 0, 255
    bits = int(dtype.removeprefix("int"))
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def min_value(dtype: str) -> Const:
    """The smallest finite value of a dtype (TVM's `te.min_value`)."""
    check_dtype(dtype)
    return Const(-_FLOAT_LIMITS[dtype] if is_float(dtype) else _int_limits(dtype)[0], dtype)


def max_value(dtype: str) -> Const:
    """The largest finite value of a dtype (TVM's `te.max_value`)."""
    check_dtype(dtype)
    return Const(_FLOAT_LIMITS[dtype] if is_float(dtype) else _int_limits(dtype)[1], dtype)



Dim = int | Expr


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


def check_dtype(dtype: str) -> str:
    if dtype not in _FLOAT_DTYPES + _INT_DTYPES:
        raise ExprValueError(f"unsupported dtype '{dtype}': expected one of {_FLOAT_DTYPES + _INT_DTYPES}")
    return dtype


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
        return Const(value, dtype_hint if is_float(dtype_hint) else "float32")
    raise ExprTypeError(f"cannot use {value!r} ({type(value).__name__}) in a tensor expression")


def unify(a: ExprLike, b: ExprLike) -> tuple[Expr, Expr]:
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
    ea, eb = unify(a, b)
    if op in ("floordiv", "floormod") and is_float(ea.dtype):
        raise ExprTypeError(f"{op} needs integer operands, got {ea.dtype}")
    if op == "div" and not is_float(ea.dtype):
        raise ExprTypeError("'/' needs float operands; use '//' for integer division")
    return Binary(op, ea, eb, ea.dtype)


def compare(op: str, a: ExprLike, b: ExprLike) -> Expr:
    ea, eb = unify(a, b)
    return Compare(op, ea, eb)


def bool_args(name: str, args: Sequence[ExprLike], requirement: str = "") -> tuple[Expr, ...]:
    exprs = tuple(as_expr(a, "bool") for a in args)
    for e in exprs:
        if e.dtype != "bool":
            what = f"{name} {requirement}" if requirement else f"te.{name} takes conditions"
            raise ExprTypeError(f"{what}, got a {e.dtype} expression")
    return exprs


def all(*conds: ExprLike) -> Expr:
    """The conjunction of conditions (`te.all(i >= 1, i < n)`)."""
    exprs = bool_args("all", conds)
    return exprs[0] if len(exprs) == 1 else Logical("and", exprs)


def any(*conds: ExprLike) -> Expr:
    """The disjunction of conditions."""
    exprs = bool_args("any", conds)
    return exprs[0] if len(exprs) == 1 else Logical("or", exprs)


def logical_not(cond: ExprLike) -> Expr:
    """The negation of a condition (also `~cond`)."""
    return Logical("not", bool_args("logical_not", [cond]))


def if_then_else(cond: ExprLike, then_value: ExprLike, else_value: ExprLike) -> Expr:
    """Lazy select: the branch not taken is never evaluated (reads stay in bounds)."""
    (c,) = bool_args("if_then_else", [cond])
    a, b = unify(then_value, else_value)
    return Select(c, a, b, a.dtype)


def likely(cond: ExprLike) -> Expr:
    """Marks a condition as usually true (kept as a hint on the guard)."""
    (c,) = bool_args("likely", [cond])
    return Call("likely", (c,), "bool")


def maximum(a: ExprLike, b: ExprLike) -> Expr:
    """The larger of two values of one dtype (index expressions included)."""
    ea, eb = unify(a, b)
    return Call("maximum", (ea, eb), ea.dtype)


def minimum(a: ExprLike, b: ExprLike) -> Expr:
    """The smaller of two values of one dtype (index expressions included)."""
    ea, eb = unify(a, b)
    return Call("minimum", (ea, eb), ea.dtype)
