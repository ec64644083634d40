"""Symbolic integer intervals (TVM's ``IntSet`` / ``IntervalSet``) and ``eval_set``.

An :class:`IntSet` is an inclusive interval ``[lo, hi]`` whose ends are
expressions over symbolic variables (shape parameters, outer loop indices).
``None`` as an end means -inf / +inf.  The empty set is represented explicitly
(``IntSet.empty()``); an interval whose ends are symbolic is *not* considered
empty unless ``hi < lo`` is provable.

:func:`eval_set` over-approximates the set of values an expression takes when
the variables in ``dom`` range over their sets (variables not in ``dom`` stay
symbolic).  The expression is first put in canonical form (so a variable that
occurs in several affine terms is merged into one term), then evaluated with
interval arithmetic node by node:

* ``+``/``-``: end-wise; ``*`` by a constant or by a symbolic point of known
  sign: scaled (ends swapped for a negative factor); ``*`` of two sets:
  ``[lo*lo, hi*hi]`` when both are provably non-negative, else everything;
* ``// c`` (``c`` constant or a provably positive point): floor of both ends;
  ``x // d`` for non-negative ``x`` and a set ``d >= 1``: ``[0, hi // lo(d)]``-ish;
* ``% c``: exact when ``x`` provably lies in one period ``[q*c, q*c + c - 1]``
  (``q`` may be symbolic), ``[0, min(hi, c - 1)]`` for non-negative ``x``,
  otherwise ``[0, c - 1]``;
* ``min``/``max``: end-wise.

A divisor provably ``>= 0`` but not ``>= 1`` (a shape variable ``m`` dividing a
fused axis, ``f % m``) is read as ``max(m, 1)``: equal wherever the expression
is defined (a division by zero is never evaluated), and the ends stay defined
at ``m == 0`` (TVM assumes shape variables used as extents are positive).

Every end is simplified with :class:`~compiler.arith.simplify.Analyzer` using
the caller's ``bounds`` (typically ``(1, None)`` for shape variables), so
``min``/``max`` of ends fold whenever one side is provably smaller.

# WARNING: interval arithmetic loses correlations: ``i * 8 + i % 8`` is
# evaluated term by term, so the result may be wider than the exact range
# (it is always a superset).
# WARNING: a set whose ends are symbolic may be empty for some assignments;
# ``is_empty()`` is only True when emptiness is explicit or provable.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from compiler.arith.expr import (
    Add,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Sub,
    as_binary,
    as_expr,
    evaluate,
)
from compiler.arith.simplify import Analyzer, BoundsArg
from compiler.errors import ExprTypeError

__all__ = ["IntSet", "eval_set", "intersect_all", "union_all"]

End = IndexExpr | None


@dataclass(frozen=True)
class IntSet:
    """Inclusive interval ``[lo, hi]``; ``None`` ends are infinite."""

    lo: IndexExpr | None
    hi: IndexExpr | None
    empty_set: bool = False

    def __post_init__(self) -> None:
        if self.lo is not None:
            object.__setattr__(self, "lo", as_expr(self.lo))
        if self.hi is not None:
            object.__setattr__(self, "hi", as_expr(self.hi))

    # -- constructors -------------------------------------------------------

    @staticmethod
    def point(e: IndexExpr | int) -> IntSet:
        x = as_expr(e)
        return IntSet(x, x)

    @staticmethod
    def from_range(
        min_value: IndexExpr | int, extent: IndexExpr | int, bounds: BoundsArg | Analyzer | None = None
    ) -> IntSet:
        """``[min, min + extent - 1]``; empty if ``extent <= 0`` is provable."""
        analyzer = Analyzer.of(bounds)
        if analyzer.prove_le(extent, 0):
            return IntSet.empty()
        lo = analyzer.simplify(min_value)
        return IntSet(lo, analyzer.simplify(Sub(Add(lo, as_expr(extent)), IndexConst(1))))

    @staticmethod
    def everything() -> IntSet:
        return IntSet(None, None)

    @staticmethod
    def empty() -> IntSet:
        return IntSet(None, None, empty_set=True)

    # -- predicates -----------------------------------------------------------

    def is_empty(self) -> bool:
        return self.empty_set

    def is_everything(self) -> bool:
        return not self.empty_set and self.lo is None and self.hi is None

    def is_point(self, bounds: BoundsArg | Analyzer | None = None) -> bool:
        if self.empty_set or self.lo is None or self.hi is None:
            return False
        return self.lo == self.hi or Analyzer.of(bounds).prove_eq(self.lo, self.hi)

    def contains(self, value: int, env: Mapping[str, int]) -> bool:
        """Whether ``value`` lies in the set when its ends are evaluated in ``env``."""
        if self.empty_set:
            return False
        if self.lo is not None and value < evaluate(self.lo, env):
            return False
        return self.hi is None or value <= evaluate(self.hi, env)

    # -- operations -------------------------------------------------------------

    def union(self, other: IntSet, bounds: BoundsArg | Analyzer | None = None) -> IntSet:
        return _union(self, other, Analyzer.of(bounds))

    def intersect(self, other: IntSet, bounds: BoundsArg | Analyzer | None = None) -> IntSet:
        return _intersect(self, other, Analyzer.of(bounds))

    def extent(self, bounds: BoundsArg | Analyzer | None = None) -> IndexExpr | None:
        """``hi - lo + 1`` (``0`` for the empty set, ``None`` if unbounded)."""
        if self.empty_set:
            return IndexConst(0)
        if self.lo is None or self.hi is None:
            return None
        return Analyzer.of(bounds).simplify(Add(Sub(self.hi, self.lo), IndexConst(1)))

    def cover_range(
        self,
        default_min: IndexExpr | int,
        default_extent: IndexExpr | int,
        bounds: BoundsArg | Analyzer | None = None,
    ) -> tuple[IndexExpr, IndexExpr]:
        """``(min, extent)`` of a range covering the set.

        An infinite side falls back to the corresponding side of the default
        range ``[default_min, default_min + default_extent - 1]`` (TVM returns
        the whole default range when either side is infinite; falling back per
        side is equally sound and more precise).  The empty set gives
        ``(default_min, 0)``.
        """
        analyzer = Analyzer.of(bounds)
        dmin = as_expr(default_min)
        if self.empty_set:
            return (analyzer.simplify(dmin), IndexConst(0))
        lo = dmin if self.lo is None else self.lo
        hi = Sub(Add(dmin, as_expr(default_extent)), IndexConst(1)) if self.hi is None else self.hi
        lo = analyzer.simplify(lo)
        return (lo, analyzer.simplify(Add(Sub(hi, lo), IndexConst(1))))

    def __str__(self) -> str:
        if self.empty_set:
            return "{}"
        lo = "-inf" if self.lo is None else str(self.lo)
        hi = "+inf" if self.hi is None else str(self.hi)
        return f"[{lo}, {hi}]"


def _union(a: IntSet, b: IntSet, analyzer: Analyzer) -> IntSet:
    if a.empty_set:
        return b
    if b.empty_set:
        return a
    lo = None if a.lo is None or b.lo is None else analyzer.simplify(Min(a.lo, b.lo))
    hi = None if a.hi is None or b.hi is None else analyzer.simplify(Max(a.hi, b.hi))
    return IntSet(lo, hi)


def _intersect(a: IntSet, b: IntSet, analyzer: Analyzer) -> IntSet:
    if a.empty_set or b.empty_set:
        return IntSet.empty()
    lo = _pick(a.lo, b.lo, Max, analyzer)
    hi = _pick(a.hi, b.hi, Min, analyzer)
    if lo is not None and hi is not None and analyzer.prove_lt(hi, lo):
        return IntSet.empty()
    return IntSet(lo, hi)


def _pick(x: End, y: End, cls: type[Min | Max], analyzer: Analyzer) -> End:
    """Combine two ends where ``None`` is the neutral element."""
    if x is None:
        return y
    if y is None:
        return x
    return analyzer.simplify(cls(x, y))


def union_all(sets: Iterable[IntSet], bounds: BoundsArg | Analyzer | None = None) -> IntSet:
    """Union of any number of sets (the empty set for no sets)."""
    analyzer = Analyzer.of(bounds)
    out = IntSet.empty()
    for s in sets:
        out = _union(out, s, analyzer)
    return out


def intersect_all(sets: Iterable[IntSet], bounds: BoundsArg | Analyzer | None = None) -> IntSet:
    """Intersection of any number of sets (everything for no sets)."""
    analyzer = Analyzer.of(bounds)
    out = IntSet.everything()
    for s in sets:
        out = _intersect(out, s, analyzer)
    return out


# ---------------------------------------------------------------------------
# eval_set
# ---------------------------------------------------------------------------


class _SetEvaluator:
    def __init__(self, dom: Mapping[str, IntSet], analyzer: Analyzer) -> None:
        self.dom = dom
        self.an = analyzer
        # each node's set once: an expression of shared subtrees (a fused axis passed up
        # through every reshape of a network, ``s * (x // s) + min(s - 1, x)`` nested 30
        # deep) is a DAG of a few hundred nodes but a tree of millions of paths
        self._memo: dict[IndexExpr, IntSet] = {}

    def simp(self, e: End) -> End:
        return None if e is None else self.an.simplify(e)

    def make(self, lo: End, hi: End) -> IntSet:
        return IntSet(self.simp(lo), self.simp(hi))

    def const_of(self, s: IntSet) -> int | None:
        if isinstance(s.lo, IndexConst) and s.lo == s.hi:
            return s.lo.value
        return None

    def point_of(self, s: IntSet) -> IndexExpr | None:
        if s.lo is not None and s.lo == s.hi:
            return s.lo
        return None

    def nonneg(self, e: End) -> bool:
        return e is not None and self.an.prove_ge(e, 0)

    def eval(self, e: IndexExpr) -> IntSet:
        hit = self._memo.get(e)
        if hit is None:
            hit = self._memo[e] = self._eval(e)
        return hit

    def _eval(self, e: IndexExpr) -> IntSet:
        if isinstance(e, IndexConst):
            return IntSet.point(e)
        if isinstance(e, IndexVar):
            return self.dom.get(e.name, IntSet.point(e))
        node = as_binary(e)
        a = self.eval(node.a)
        b = self.eval(node.b)
        if a.empty_set or b.empty_set:
            return IntSet.empty()
        pa, pb = self.point_of(a), self.point_of(b)
        if pa is not None and pb is not None:
            return IntSet.point(self.an.simplify(type(node)(pa, pb)))
        if isinstance(e, Add):
            return self.make(_add(a.lo, b.lo), _add(a.hi, b.hi))
        if isinstance(e, Sub):
            return self.make(_sub(a.lo, b.hi), _sub(a.hi, b.lo))
        if isinstance(e, Mul):
            return self.mul(a, b)
        if isinstance(e, FloorDiv):
            return self.floordiv(a, self.divisor(b))
        if isinstance(e, FloorMod):
            return self.floormod(a, self.divisor(b))
        if isinstance(e, Min):
            return self.make(_opt2(a.lo, b.lo, Min, None), _opt2(a.hi, b.hi, Min, "other"))
        if isinstance(e, Max):
            return self.make(_opt2(a.lo, b.lo, Max, "other"), _opt2(a.hi, b.hi, Max, None))
        raise ExprTypeError(f"not an expression: {e!r}")

    def scale(self, s: IntSet, p: IndexExpr) -> IntSet:
        """``s * p`` for a point ``p``; everything if the sign of ``p`` is unknown."""
        if p == IndexConst(0):
            return IntSet.point(p)
        if self.an.prove_ge(p, 0):
            return self.make(_mul(s.lo, p), _mul(s.hi, p))
        if self.an.prove_le(p, 0):
            return self.make(_mul(s.hi, p), _mul(s.lo, p))
        return IntSet.everything()

    def mul(self, a: IntSet, b: IntSet) -> IntSet:
        pb = self.point_of(b)
        if pb is not None:
            return self.scale(a, pb)
        pa = self.point_of(a)
        if pa is not None:
            return self.scale(b, pa)
        if self.nonneg(a.lo) and self.nonneg(b.lo):
            return self.make(_mul(a.lo, b.lo), _mul(a.hi, b.hi))
        return IntSet.everything()

    def divisor(self, b: IntSet) -> IntSet:
        """A divisor set provably ``>= 0`` (a shape variable, a fused or split extent)
        read as ``max(b, 1)``.

        Why sound: expressions are assumed well defined (see simplify.py), so a divisor
        is never 0 where the expression is evaluated, and ``max(d, 1) == d`` for every
        ``d >= 1``. An extent ``m == 0`` means no iteration evaluates ``f % m``; the
        ``max`` keeps the set's ends defined there (no ``x // 0`` in an allocation size).
        """
        if b.lo is None or self.an.prove_ge(b.lo, 1) or not self.nonneg(b.lo):
            return b
        return self.make(Max(b.lo, IndexConst(1)), None if b.hi is None else Max(b.hi, IndexConst(1)))

    def floordiv(self, a: IntSet, b: IntSet) -> IntSet:
        p = self.point_of(b)
        if p is not None and self.an.prove_ge(p, 1):
            return self.make(_div(a.lo, p), _div(a.hi, p))
        if p is not None and self.an.prove_le(p, -1):
            return self.make(_div(a.hi, p), _div(a.lo, p))
        if self.nonneg(a.lo) and b.lo is not None and self.an.prove_ge(b.lo, 1):
            lo = IndexConst(0) if b.hi is None else _div(a.lo, b.hi)
            return self.make(lo, _div(a.hi, b.lo))
        return IntSet.everything()

    def floormod(self, a: IntSet, b: IntSet) -> IntSet:
        c = self.const_of(b)
        if c is not None and c < 0:
            return IntSet(IndexConst(c + 1), IndexConst(0))
        p = self.point_of(b)
        if p is None or not self.an.prove_ge(p, 1):
            return self.floormod_by_set(a, b)
        if a.lo is not None and a.hi is not None:
            q = self.an.simplify(FloorDiv(a.lo, p))
            if self.an.prove_eq(q, FloorDiv(a.hi, p)):
                base = Mul(q, p)
                return self.make(Sub(a.lo, base), Sub(a.hi, base))
        top = Sub(p, IndexConst(1))
        if self.nonneg(a.lo) and a.hi is not None:
            return self.make(IndexConst(0), Min(a.hi, top))
        return self.make(IndexConst(0), top)

    def floormod_by_set(self, a: IntSet, b: IntSet) -> IntSet:
        """``a % b`` for a divisor set ``b >= 1``: ``[0, hi(b) - 1]``."""
        if b.lo is None or b.hi is None or not self.an.prove_ge(b.lo, 1):
            return IntSet.everything()
        top = Sub(b.hi, IndexConst(1))
        if self.nonneg(a.lo) and a.hi is not None:
            return self.make(IndexConst(0), Min(a.hi, top))
        return self.make(IndexConst(0), top)


def _add(x: End, y: End) -> End:
    return None if x is None or y is None else Add(x, y)


def _sub(x: End, y: End) -> End:
    return None if x is None or y is None else Sub(x, y)


def _mul(x: End, y: End) -> End:
    return None if x is None or y is None else Mul(x, y)


def _div(x: End, y: IndexExpr) -> End:
    return None if x is None else FloorDiv(x, y)


def _opt2(x: End, y: End, cls: type[Min | Max], none_means: str | None) -> End:
    """``cls(x, y)`` where a ``None`` operand is absorbing (``none_means`` None)
    or neutral (``none_means == "other"``)."""
    if x is None or y is None:
        if none_means is None:
            return None
        return y if x is None else x
    return cls(x, y)


def eval_set(
    e: IndexExpr | int, dom: Mapping[str, IntSet], bounds: BoundsArg | Analyzer | None = None, *, nonempty: bool = False
) -> IntSet:
    """Over-approximate the values of ``e`` when each ``dom`` variable ranges
    over its set; other variables are symbolic points.  Ends are simplified
    with ``bounds``.

    ``nonempty=True``: the ends may assume that every ``dom`` set is non-empty (where
    one is empty, ``e`` takes no value and any set over-approximates it), as long as they
    stay defined where it is not (see `_nonempty_bounds`). A fused axis
    ``[0, batch * seq - 1]`` then implies ``batch, seq >= 1``, so its row
    ``i // seq`` spans ``[0, batch - 1]``, not ``[0, (batch * seq - 1) // max(seq, 1)]``,
    and a reshape back, ``seq * row + col``, spans ``[0, batch * seq - 1]`` again."""
    analyzer = Analyzer.of(bounds)
    x = analyzer.simplify(e)
    if nonempty:
        assumed = _nonempty_bounds(dom, analyzer)
        if assumed is not None:
            out = _SetEvaluator(dom, Analyzer(assumed)).eval(x)
            if all(end is None or _defined(end, analyzer) for end in (out.lo, out.hi)):
                return out
    return _SetEvaluator(dom, analyzer).eval(x)


def _nonempty_bounds(dom: Mapping[str, IntSet], analyzer: Analyzer) -> BoundsArg | None:
    """``analyzer``'s bounds with the lower bounds that non-empty ``dom`` sets imply, or
    None if they imply none: a set ``[lo, hi]`` whose size ``hi - lo + 1`` is ``k * v1 * v2
    ...`` (``k >= 1``, each ``v`` a symbolic point bounded below by 0: a shape variable, a
    fused extent's factors) is non-empty only if each ``v >= 1``."""
    bounds = dict(analyzer.bounds)
    raised = False
    for s in dom.values():
        if s.empty_set or s.lo is None or s.hi is None:
            continue
        size = analyzer.poly(analyzer.simplify(Add(Sub(s.hi, s.lo), IndexConst(1))))
        if len(size) != 1:
            continue
        [(mono, k)] = size.items()
        if k < 1 or not mono or not all(isinstance(f, IndexVar) and f.name not in dom for f in mono):
            continue
        for f in mono:
            assert isinstance(f, IndexVar)
            lo, hi = bounds.get(f.name, (None, None))
            if lo == IndexConst(0):
                bounds[f.name] = (IndexConst(1), hi)
                raised = True
    return bounds if raised else None


def _defined(e: IndexExpr, analyzer: Analyzer) -> bool:
    """Whether ``e`` is defined wherever ``analyzer``'s bounds hold: every divisor in it
    provably non-zero (each shared subtree visited once)."""
    seen: set[int] = set()
    todo = [e]
    while todo:
        x = todo.pop()
        if not isinstance(x, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max) or id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, FloorDiv | FloorMod) and not (analyzer.prove_ge(x.b, 1) or analyzer.prove_le(x.b, -1)):
            return False
        todo += [x.a, x.b]
    return True
