"""Immutable integer index expressions and affine conditions.

This is the expression language used by bound inference (the counterpart of
TVM's ``PrimExpr`` restricted to integer index arithmetic).

Expressions (:class:`IndexExpr`) are frozen dataclasses, hashable and compared
structurally (``==`` is dataclass equality, *not* a symbolic comparison):

* :class:`IndexConst`, :class:`IndexVar` -- leaves;
* :class:`Add`, :class:`Sub`, :class:`Mul` -- exact (unbounded) integer arithmetic;
* :class:`FloorDiv`, :class:`FloorMod` -- floor semantics, like Python's ``//``
  and ``%`` (the remainder takes the sign of the divisor);
* :class:`Min`, :class:`Max`.

Python operators ``+ - * // %`` and unary ``-`` build nodes (ints are wrapped
into :class:`IndexConst` automatically).  Ordering operators are deliberately not
overloaded; use :func:`lt`, :func:`le`, ... to build conditions.

Conditions (:class:`Cond`) are :class:`LT`, :class:`LE`, :class:`EQ`,
:class:`NE` over expressions, combined with :class:`And`, :class:`Or`,
:class:`Not`, plus the literal :class:`BoolConst`.  ``&``, ``|`` and ``~``
build ``And``, ``Or`` and ``Not``.

Printing (``str``) produces text accepted by :func:`parse_expr` /
:func:`parse_cond` (Python syntax) with minimal parentheses; the parsers use
Python's :mod:`ast` module and accept only the node kinds listed above.

# WARNING: ``IndexVar`` names are not validated.  Only names that are plain Python
# identifiers (and not ``min``/``max``/``and``/...) survive a print/parse round
# trip; a name such as ``blockIdx.x`` prints fine but does not parse back.
"""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import SupportsIndex

from compiler.errors import ExprTypeError

__all__ = [
    "EQ",
    "LE",
    "LT",
    "NE",
    "Add",
    "And",
    "BinaryExpr",
    "BoolConst",
    "Compare",
    "Cond",
    "FloorDiv",
    "FloorMod",
    "IndexConst",
    "IndexExpr",
    "IndexVar",
    "Max",
    "Min",
    "Mul",
    "Not",
    "Or",
    "Sub",
    "as_binary",
    "as_compare",
    "as_expr",
    "const",
    "emax",
    "emin",
    "eq",
    "evaluate",
    "evaluate_cond",
    "free_vars",
    "ge",
    "gt",
    "le",
    "lt",
    "ne",
    "substitute_cond",
    "substitute_index",
    "var",
]


# ---------------------------------------------------------------------------
# Expression nodes
# ---------------------------------------------------------------------------


class IndexExpr:
    """Base class of integer expressions.  Use the subclasses to build nodes."""

    __slots__ = ()

    def __add__(self, other: IndexExpr | int) -> IndexExpr:
        rhs = _wrap(other)
        return NotImplemented if rhs is None else Add(self, rhs)

    def __radd__(self, other: int) -> IndexExpr:
        lhs = _wrap(other)
        return NotImplemented if lhs is None else Add(lhs, self)

    def __sub__(self, other: IndexExpr | int) -> IndexExpr:
        rhs = _wrap(other)
        return NotImplemented if rhs is None else Sub(self, rhs)

    def __rsub__(self, other: int) -> IndexExpr:
        lhs = _wrap(other)
        return NotImplemented if lhs is None else Sub(lhs, self)

    def __mul__(self, other: IndexExpr | int) -> IndexExpr:
        rhs = _wrap(other)
        return NotImplemented if rhs is None else Mul(self, rhs)

    def __rmul__(self, other: int) -> IndexExpr:
        lhs = _wrap(other)
        return NotImplemented if lhs is None else Mul(lhs, self)

    def __floordiv__(self, other: IndexExpr | int) -> IndexExpr:
        rhs = _wrap(other)
        return NotImplemented if rhs is None else FloorDiv(self, rhs)

    def __rfloordiv__(self, other: int) -> IndexExpr:
        lhs = _wrap(other)
        return NotImplemented if lhs is None else FloorDiv(lhs, self)

    def __mod__(self, other: IndexExpr | int) -> IndexExpr:
        rhs = _wrap(other)
        return NotImplemented if rhs is None else FloorMod(self, rhs)

    def __rmod__(self, other: int) -> IndexExpr:
        lhs = _wrap(other)
        return NotImplemented if lhs is None else FloorMod(lhs, self)

    def __neg__(self) -> IndexExpr:
        if isinstance(self, IndexConst):
            return IndexConst(-self.value)
        return Mul(IndexConst(-1), self)

    def __pos__(self) -> IndexExpr:
        return self

    def __str__(self) -> str:
        return _format_expr(self)


class _Binary(IndexExpr):
    """A binary node, built once per structure (hash-consed: building `Add(x, y)` again
    returns the node already built while it lives), whose hash is computed once from its
    children's. The simplifier's memo tables hash and compare deep trees (nested min/max
    over symbolic shapes, whose subtrees are shared) millions of times; a dataclass's own
    `__hash__`/`__eq__` walk the whole tree, which is exponential in the depth of a tree
    of shared subtrees, where these are one lookup. Pickled as its constructor call (the
    hash of a name differs from one process to another)."""

    __slots__ = ()
    a: IndexExpr
    b: IndexExpr
    _h: int

    def __new__(cls, a: IndexExpr, b: IndexExpr) -> _Binary:
        hit = _BUILT.get((cls, a, b))
        return hit if hit is not None else object.__new__(cls)

    def __post_init__(self) -> None:
        key = (self.__class__, self.a, self.b)
        object.__setattr__(self, "_h", hash(key))
        _BUILT.setdefault(key, self)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, _Binary)
        return self._h == other._h and self.a == other.a and self.b == other.b

    def __hash__(self) -> int:
        return self._h

    def __reduce__(self) -> tuple[type[_Binary], tuple[IndexExpr, IndexExpr]]:
        return (self.__class__, (self.a, self.b))


_BUILT: weakref.WeakValueDictionary[tuple[type[_Binary], IndexExpr, IndexExpr], _Binary] = weakref.WeakValueDictionary()
"""The binary nodes alive, by class and children (`_Binary`)."""


@dataclass(frozen=True, slots=True)
class IndexConst(IndexExpr):
    """An integer literal."""

    value: int

    def __post_init__(self) -> None:
        if isinstance(self.value, bool):
            raise ExprTypeError("IndexConst expects an int, not a bool")
        object.__setattr__(self, "value", operator.index(self.value))


@dataclass(frozen=True, slots=True)
class IndexVar(IndexExpr):
    """A named integer variable (loop index, shape parameter, ...)."""

    name: str


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Add(_Binary):
    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Sub(_Binary):
    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Mul(_Binary):
    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class FloorDiv(_Binary):
    """``a // b`` rounding towards negative infinity."""

    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class FloorMod(_Binary):
    """``a % b`` with Python semantics: ``a == (a // b) * b + a % b``."""

    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Min(_Binary):
    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class Max(_Binary):
    a: IndexExpr
    b: IndexExpr
    _h: int = field(init=False, repr=False, compare=False)


BinaryExpr = Add | Sub | Mul | FloorDiv | FloorMod | Min | Max
_BINARY_EXPRS: tuple[type[IndexExpr], ...] = (Add, Sub, Mul, FloorDiv, FloorMod, Min, Max)


# ---------------------------------------------------------------------------
# Condition nodes
# ---------------------------------------------------------------------------


class Cond:
    """Base class of boolean conditions over integer expressions."""

    __slots__ = ()

    def __and__(self, other: object) -> Cond:
        return And(self, other) if isinstance(other, Cond) else NotImplemented

    def __or__(self, other: object) -> Cond:
        return Or(self, other) if isinstance(other, Cond) else NotImplemented

    def __invert__(self) -> Cond:
        return Not(self)

    def __str__(self) -> str:
        return _format_cond(self)


@dataclass(frozen=True, slots=True)
class BoolConst(Cond):
    value: bool


@dataclass(frozen=True, slots=True)
class LT(Cond):
    a: IndexExpr
    b: IndexExpr


@dataclass(frozen=True, slots=True)
class LE(Cond):
    a: IndexExpr
    b: IndexExpr


@dataclass(frozen=True, slots=True)
class EQ(Cond):
    a: IndexExpr
    b: IndexExpr


@dataclass(frozen=True, slots=True)
class NE(Cond):
    a: IndexExpr
    b: IndexExpr


@dataclass(frozen=True, slots=True)
class And(Cond):
    a: Cond
    b: Cond


@dataclass(frozen=True, slots=True)
class Or(Cond):
    a: Cond
    b: Cond


@dataclass(frozen=True, slots=True)
class Not(Cond):
    a: Cond


Compare = LT | LE | EQ | NE
_COMPARES: tuple[type[Cond], ...] = (LT, LE, EQ, NE)


# ---------------------------------------------------------------------------
# Constructors
# ---------------------------------------------------------------------------


def _wrap(x: object) -> IndexExpr | None:
    if isinstance(x, IndexExpr):
        return x
    if type(x) is int:  # the common case: a protocol isinstance (below) is slow
        return IndexConst(x)
    if isinstance(x, bool) or not isinstance(x, SupportsIndex):
        return None
    try:
        return IndexConst(operator.index(x))
    except TypeError:
        return None


def as_binary(e: IndexExpr) -> BinaryExpr:
    """``e`` as a binary node: every IndexExpr that is neither a IndexConst nor a IndexVar is one."""
    if not isinstance(e, BinaryExpr):
        raise ExprTypeError(f"unknown expression node {e!r}")
    return e


def as_compare(c: Cond) -> Compare:
    """``c`` as a comparison: every Cond that is not BoolConst/Not/And/Or is one."""
    if not isinstance(c, Compare):
        raise ExprTypeError(f"unknown condition node {c!r}")
    return c


def as_expr(x: IndexExpr | int) -> IndexExpr:
    """Return ``x`` if it is an :class:`IndexExpr`, else wrap the int in a :class:`IndexConst`."""
    e = _wrap(x)
    if e is None:
        raise ExprTypeError(f"expected an IndexExpr or int, got {type(x).__name__}")
    return e


def const(value: int) -> IndexConst:
    return IndexConst(value)


def var(name: str) -> IndexVar:
    return IndexVar(name)


def emin(a: IndexExpr | int, b: IndexExpr | int) -> IndexExpr:
    """Build ``min(a, b)`` (no folding; see ``simplify``)."""
    return Min(as_expr(a), as_expr(b))


def emax(a: IndexExpr | int, b: IndexExpr | int) -> IndexExpr:
    """Build ``max(a, b)`` (no folding; see ``simplify``)."""
    return Max(as_expr(a), as_expr(b))


def lt(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    return LT(as_expr(a), as_expr(b))


def le(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    return LE(as_expr(a), as_expr(b))


def gt(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    """``a > b``, represented as ``b < a``."""
    return LT(as_expr(b), as_expr(a))


def ge(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    """``a >= b``, represented as ``b <= a``."""
    return LE(as_expr(b), as_expr(a))


def eq(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    return EQ(as_expr(a), as_expr(b))


def ne(a: IndexExpr | int, b: IndexExpr | int) -> Cond:
    return NE(as_expr(a), as_expr(b))


# ---------------------------------------------------------------------------
# Traversals
# ---------------------------------------------------------------------------


def free_vars(e: IndexExpr | Cond) -> frozenset[str]:
    """Names of all variables occurring in an expression or condition (each shared
    subtree visited once: a tree of shared subtrees is walked in the number of its
    distinct nodes, not of its paths)."""
    out: set[str] = set()
    seen: set[int] = set()
    stack: list[IndexExpr | Cond] = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, IndexVar):
            out.add(node.name)
        elif id(node) in seen:
            continue
        elif isinstance(node, Not):
            seen.add(id(node))
            stack.append(node.a)
        elif isinstance(node, BinaryExpr | Compare | And | Or):
            seen.add(id(node))
            stack.append(node.a)
            stack.append(node.b)
    return frozenset(out)


def substitute_index(e: IndexExpr, mapping: Mapping[str, IndexExpr | int]) -> IndexExpr:
    """Replace variables by expressions (simultaneously, not recursively)."""
    table = {name: as_expr(v) for name, v in mapping.items()}
    cache: dict[IndexExpr, IndexExpr] = {}
    return _subst(e, table, cache)


def _subst(e: IndexExpr, table: Mapping[str, IndexExpr], cache: dict[IndexExpr, IndexExpr]) -> IndexExpr:
    if isinstance(e, IndexVar):
        return table.get(e.name, e)
    if isinstance(e, IndexConst):
        return e
    hit = cache.get(e)
    if hit is not None:
        return hit
    node = as_binary(e)
    a = _subst(node.a, table, cache)
    b = _subst(node.b, table, cache)
    out = e if (a is node.a and b is node.b) else type(node)(a, b)
    cache[e] = out
    return out


def substitute_cond(c: Cond, mapping: Mapping[str, IndexExpr | int]) -> Cond:
    """Apply :func:`substitute_index` to every expression inside a condition."""
    table = {name: as_expr(v) for name, v in mapping.items()}
    cache: dict[IndexExpr, IndexExpr] = {}

    def go(node: Cond) -> Cond:
        if isinstance(node, BoolConst):
            return node
        if isinstance(node, Not):
            return Not(go(node.a))
        if isinstance(node, (And, Or)):
            return type(node)(go(node.a), go(node.b))
        cmp = as_compare(node)
        return type(cmp)(_subst(cmp.a, table, cache), _subst(cmp.b, table, cache))

    return go(c)


_INT_OPS: dict[type[IndexExpr], Callable[[int, int], int]] = {
    Add: operator.add,
    Sub: operator.sub,
    Mul: operator.mul,
    FloorDiv: operator.floordiv,
    FloorMod: operator.mod,
    Min: min,
    Max: max,
}


def evaluate(e: IndexExpr, env: Mapping[str, int]) -> int:
    """Evaluate with Python integer semantics.

    Raises ``KeyError`` for an unbound variable and ``ZeroDivisionError`` for a
    division or modulo by zero. A subtree shared by several parents is evaluated once
    (a tree of shared subtrees in the number of its distinct nodes).
    """
    return _evaluate(e, env, {})


def _evaluate(e: IndexExpr, env: Mapping[str, int], done: dict[int, int]) -> int:
    if isinstance(e, IndexConst):
        return e.value
    if isinstance(e, IndexVar):
        if e.name not in env:
            raise KeyError(f"variable {e.name!r} has no value")
        return operator.index(env[e.name])
    hit = done.get(id(e))
    if hit is None:
        node = as_binary(e)
        hit = _INT_OPS[type(node)](_evaluate(node.a, env, done), _evaluate(node.b, env, done))
        done[id(e)] = hit
    return hit


_CMP_OPS: dict[type[Cond], Callable[[int, int], bool]] = {
    LT: operator.lt,
    LE: operator.le,
    EQ: operator.eq,
    NE: operator.ne,
}


def evaluate_cond(c: Cond, env: Mapping[str, int]) -> bool:
    """Evaluate a condition (``and``/``or`` short-circuit like Python)."""
    if isinstance(c, BoolConst):
        return c.value
    if isinstance(c, Not):
        return not evaluate_cond(c.a, env)
    if isinstance(c, And):
        return evaluate_cond(c.a, env) and evaluate_cond(c.b, env)
    if isinstance(c, Or):
        return evaluate_cond(c.a, env) or evaluate_cond(c.b, env)
    cmp = as_compare(c)
    return _CMP_OPS[type(cmp)](evaluate(cmp.a, env), evaluate(cmp.b, env))


# ---------------------------------------------------------------------------
# Printing
# ---------------------------------------------------------------------------

_P_ADD, _P_MUL, _P_UNARY, _P_ATOM = 1, 2, 3, 4
_BIN_SYMBOL: dict[type[IndexExpr], tuple[str, int]] = {
    Add: ("+", _P_ADD),
    Sub: ("-", _P_ADD),
    Mul: ("*", _P_MUL),
    FloorDiv: ("//", _P_MUL),
    FloorMod: ("%", _P_MUL),
}


def _is_negation(e: IndexExpr) -> bool:
    return isinstance(e, Mul) and e.a == IndexConst(-1)


def _prec(e: IndexExpr) -> int:
    if isinstance(e, IndexConst):
        return _P_UNARY if e.value < 0 else _P_ATOM
    if isinstance(e, IndexVar | Min | Max):
        return _P_ATOM
    if _is_negation(e):
        return _P_UNARY
    return _BIN_SYMBOL[type(e)][1]


def _paren(e: IndexExpr, needed: bool) -> str:
    text = _format_expr(e)
    return f"({text})" if needed else text


def _format_expr(e: IndexExpr) -> str:
    if isinstance(e, IndexConst):
        return str(e.value)
    if isinstance(e, IndexVar):
        return e.name
    if isinstance(e, Min | Max):
        fname = "min" if isinstance(e, Min) else "max"
        return f"{fname}({_format_expr(e.a)}, {_format_expr(e.b)})"
    node = as_binary(e)
    if _is_negation(node):
        return "-" + _paren(node.b, _prec(node.b) < _P_UNARY)
    symbol, prec = _BIN_SYMBOL[type(node)]
    rhs = node.b
    if isinstance(node, Add) and isinstance(rhs, IndexConst) and rhs.value < 0:
        symbol, rhs = "-", IndexConst(-rhs.value)
    left = _paren(node.a, _prec(node.a) < prec)
    right = _paren(rhs, _prec(rhs) <= prec)
    return f"{left} {symbol} {right}"


_C_OR, _C_AND, _C_NOT, _C_ATOM = 1, 2, 3, 4
_CMP_SYMBOL: dict[type[Cond], str] = {LT: "<", LE: "<=", EQ: "==", NE: "!="}


def _cond_prec(c: Cond) -> int:
    if isinstance(c, Or):
        return _C_OR
    if isinstance(c, And):
        return _C_AND
    if isinstance(c, Not):
        return _C_NOT
    return _C_ATOM


def _cparen(c: Cond, needed: bool) -> str:
    text = _format_cond(c)
    return f"({text})" if needed else text


def _format_cond(c: Cond) -> str:
    if isinstance(c, BoolConst):
        return "True" if c.value else "False"
    if isinstance(c, Not):
        return "not " + _cparen(c.a, _cond_prec(c.a) < _C_NOT)
    if isinstance(c, And | Or):
        word, prec = ("and", _C_AND) if isinstance(c, And) else ("or", _C_OR)
        left = _cparen(c.a, _cond_prec(c.a) < prec)
        right = _cparen(c.b, _cond_prec(c.b) <= prec)
        return f"{left} {word} {right}"
    cmp = as_compare(c)
    return f"{_format_expr(cmp.a)} {_CMP_SYMBOL[type(cmp)]} {_format_expr(cmp.b)}"
