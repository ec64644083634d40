"""Canonical simplification and bound proofs for integer index expressions.

This is the counterpart of TVM's ``arith::Analyzer`` (canonical simplifier +
constant-interval bound analysis), written from scratch.

Canonical form
--------------
Every expression is normalised to a *polynomial*: a map from monomials to
integer coefficients.  A monomial is a sorted tuple of *factors*; a factor is a
:class:`IndexVar` or an opaque non-linear node (``FloorDiv``, ``FloorMod``, ``Min``,
``Max``) whose children are themselves canonical.  Products of sums are
distributed, so ``(i + 1) * n - n`` becomes ``i * n``.  Converting back to an
expression prints positive terms first, then subtracted terms, then the
constant, each group ordered by a deterministic key, so equal polynomials
always print identically (``i * 8 + j - 1``, ``n - i * 8``).

The rewrite rules applied while building the polynomial (divisions and remainders by
constants and symbolic divisors, min/max folding) and the bound analysis behind
``Analyzer.lower`` (interval arithmetic, splitting on a min/max term, exact rewrites
of ``k * (x // d)``, symbolic substitution of variable bounds; steps 2-4 recurse with
a decreasing budget, ``_PROVE_BUDGET`` levels, memoised per :class:`Analyzer`) are
described in docs/guide/internals.md, "The simplifier".

Budgets
-------
The depth budget alone bounds the recursion, not its cost: the ranges of the
operands of a ``min``/``max`` factor are searched at the same depth, so a bound of
``min(max(min(...)))`` nested ``k`` deep costs a search per level, about ``4**k``
in all (a symbolic attention block's offsets, nested 10-20 deep, did not finish in
20 minutes). Every query of the public API (``simplify``, ``prove_*``,
``const_bounds``...) therefore has a *step budget* too, ``STEP_BUDGET`` searches
(calls of the search of ``lower`` that are not memoised). When it runs out, ``lower``
answers with interval arithmetic alone (step 1, no search): a looser bound, so a
proof fails ("cannot prove") and a ``min``/``max`` keeps an operand it could have
dropped; never a wrong answer. ``Analyzer.exhausted`` counts the queries that ran
out. Answers found under an exhausted budget stay memoised (they are sound), so a
later query on the same analyzer may see the looser one.

Soundness: every rewrite is an identity over the integers for all assignments
within ``bounds`` (bounds are inclusive, ``None`` is unbounded) and every bound
is a valid bound.

# WARNING: expressions are assumed to be well defined.  A division or modulo by
# zero may be simplified away (``(x // 0) * 0`` -> ``0``), so the simplified
# expression can evaluate where the original raised ZeroDivisionError.
# WARNING: the prover is incomplete: it reasons about each factor
# independently (``i * i >= 0`` is only provable if ``i``'s range is), knows no
# facts beyond the variable bounds and gives up when the search budget runs out.
# WARNING: the recursive algorithms assume shallow trees (index expressions);
# nesting deeper than Python's recursion limit raises RecursionError.
# WARNING: canonical printing is only canonical for the polynomial structure;
# two equal non-linear atoms written differently (``(9*i) // 8`` vs
# ``i + i // 8``) may print differently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from compiler.arith import bound_search
from compiler.arith.canonical import (
    Monomial,
    Poly,
    atom,
    mono,
    mono_divide,
    pconst,
    pconst_poly,
    pkey,
    pmul,
    pscale,
    single_atom,
    sort_key,
    symmod,
    to_expr,
)
from compiler.arith.expr import (
    EQ,
    LE,
    LT,
    NE,
    Add,
    And,
    BoolConst,
    Cond,
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    Mul,
    Not,
    Or,
    Sub,
    as_expr,
    free_vars,
)
from compiler.arith.poly import poly_add as _padd
from compiler.arith.ranges import Range
from compiler.errors import ExprTypeError

__all__ = [
    "Analyzer", "BoundsArg", "const_bounds", "const_value", "prove_eq", "prove_ge", "prove_gt", "prove_le",
    "prove_lt", "simplify", "simplify_cond",
]

BoundsArg = Mapping[str, tuple[IndexExpr | int | None, IndexExpr | int | None]]

_PROVE_BUDGET = 3

# ---------------------------------------------------------------------------
# Analyzer
# ---------------------------------------------------------------------------


class Analyzer:
    """Simplifier and prover over a fixed set of variable bounds.

    ``bounds`` maps a variable name to inclusive ``(lo, hi)`` ends, each an int,
    an :class:`IndexExpr` (possibly referring to other variables) or ``None``.
    Reuse one analyzer for many queries over the same bounds: results are
    memoised.
    """

    def __init__(self, bounds: BoundsArg | None = None) -> None:
        # a copy, with int ends wrapped (infer-bound's bounds name every loop of every
        # stage, a few thousand, and it makes an analyzer for each request: ends that are
        # expressions already are taken as they are)
        self.bounds: dict[str, tuple[IndexExpr | None, IndexExpr | None]] = {
            name: _as_ends(ends) for name, ends in (bounds or {}).items()
        }
        # per variable, on first use: a query names a few variables of the bounds
        self._refs_memo: dict[str, frozenset[str]] = {}
        self._budget = _PROVE_BUDGET
        self._steps = bound_search.STEP_BUDGET  # searches left in the current public query
        self._in_query = False
        self.exhausted = 0  # public queries that ran out of steps
        self._poly_memo: dict[tuple[IndexExpr, int], Poly] = {}
        self._lower_memo: dict[tuple[frozenset[tuple[Monomial, int]], int], int | None] = {}
        self._range_memo: dict[tuple[IndexExpr, int], Range] = {}

    @staticmethod
    def of(bounds: BoundsArg | Analyzer | None) -> Analyzer:
        """An analyzer over `bounds`, or `bounds` itself when it is one: a caller with
        many queries over the same bounds (infer-bound: thousands of loops) passes its
        analyzer, whose bounds are not copied again for each query, and whose answers it
        keeps."""
        return bounds if isinstance(bounds, Analyzer) else Analyzer(bounds)

    def set_bound(self, name: str, ends: tuple[IndexExpr | int | None, IndexExpr | int | None]) -> None:
        """Variable `name` takes the bounds `ends`: the answers given so far are forgotten,
        as a new analyzer over the new bounds would start, without copying the bounds of
        every other variable again (infer-bound sets a loop's range thousands of times in
        a network: rebuilding was quadratic, 36 s of EfficientNet's 100 s build)."""
        self.bounds[name] = _as_ends(ends)
        self._refs_memo.clear()
        self._poly_memo.clear()
        self._lower_memo.clear()
        self._range_memo.clear()

    def _refs(self, name: str) -> frozenset[str]:
        """The variables the bounds of variable `name` mention."""
        hit = self._refs_memo.get(name)
        if hit is None:
            ends = self.bounds.get(name, (None, None))
            hit = self._refs_memo[name] = frozenset().union(*(free_vars(b) for b in ends if b is not None))
        return hit

    # -- public API --------------------------------------------------------

    @bound_search.query
    def simplify(self, e: IndexExpr | int) -> IndexExpr:
        return to_expr(self.poly(as_expr(e)))

    @bound_search.query
    def fold_into_minmax(self, e: IndexExpr | int, name: str) -> IndexExpr:
        """`t + min(a, b)` as `min(t + a, t + b)` (and `max`) when the variable `name`
        cancels from a side, else `e` simplified: a tight split's last index, `o * 4 +
        min(n - o * 4, 4) - 1`, is `min(n - 1, o * 4 + 3)`, whose interval over `o` ends
        at n - 1, where `o * 4` and the `min` taken apart end at n rounded up to 4."""
        p = self.poly(as_expr(e))
        atoms = [m for m, k in p.items() if k == 1 and len(m) == 1 and isinstance(m[0], Min | Max)]
        if len(atoms) != 1:
            return to_expr(p)
        node = atoms[0][0]
        assert isinstance(node, Min | Max)
        rest = {m: k for m, k in p.items() if m != atoms[0]}
        sides = [to_expr(self._fuse(_padd(rest, self.poly(side)))) for side in (node.a, node.b)]
        if all(name in free_vars(side) for side in sides):
            return to_expr(p)
        return type(node)(sides[0], sides[1])

    @bound_search.query
    def const_bounds(self, e: IndexExpr | int) -> Range:
        """Constant ``(lo, hi)`` bounds of ``e`` (``None`` = unbounded)."""
        p = self.poly(as_expr(e))
        return (self.lower(p), self.upper(p))

    @bound_search.query
    def prove_le(self, a: IndexExpr | int, b: IndexExpr | int) -> bool:
        return self._lower_at_least(as_expr(b) - as_expr(a), 0)

    @bound_search.query
    def prove_lt(self, a: IndexExpr | int, b: IndexExpr | int) -> bool:
        return self._lower_at_least(as_expr(b) - as_expr(a), 1)

    @bound_search.query
    def prove_ge(self, a: IndexExpr | int, b: IndexExpr | int) -> bool:
        return self.prove_le(b, a)

    @bound_search.query
    def prove_gt(self, a: IndexExpr | int, b: IndexExpr | int) -> bool:
        return self.prove_lt(b, a)

    @bound_search.query
    def prove_eq(self, a: IndexExpr | int, b: IndexExpr | int) -> bool:
        p = self.poly(as_expr(a) - as_expr(b))
        if pconst(p) == 0:
            return True
        lo = self.lower(p)
        if lo is None or lo != 0:
            return False
        return self.upper(p) == 0

    @bound_search.query
    def simplify_cond(self, c: Cond) -> Cond:
        """Simplify both sides of comparisons and fold provable ones."""
        if isinstance(c, BoolConst):
            return c
        if isinstance(c, Not):
            return self._negate(self.simplify_cond(c.a))
        if isinstance(c, And | Or):
            return self._simplify_logic(c)
        return self._simplify_compare(c)

    # -- polynomial construction ------------------------------------------

    @bound_search.query
    def poly(self, e: IndexExpr) -> Poly:
        key = (e, self._budget)
        hit = self._poly_memo.get(key)
        if hit is None:
            hit = self._build_poly(e)
            self._poly_memo[key] = hit
        return hit

    def _build_poly(self, e: IndexExpr) -> Poly:
        if isinstance(e, IndexConst):
            return pconst_poly(e.value)
        if isinstance(e, IndexVar):
            lo, hi = self.bounds.get(e.name, (None, None))
            if isinstance(lo, IndexConst) and lo == hi:
                return pconst_poly(lo.value)
            return atom(e)
        if isinstance(e, Add):
            return self._fuse(_padd(self.poly(e.a), self.poly(e.b)))
        if isinstance(e, Sub):
            return self._fuse(_padd(self.poly(e.a), self.poly(e.b), -1))
        if isinstance(e, Mul):
            return self._fuse(pmul(self.poly(e.a), self.poly(e.b)))
        if isinstance(e, FloorDiv):
            return self._div(self.poly(e.a), self.poly(e.b))
        if isinstance(e, FloorMod):
            return self._mod(self.poly(e.a), self.poly(e.b))
        if isinstance(e, Min | Max):
            return self._minmax(type(e), self.poly(e.a), self.poly(e.b))
        raise ExprTypeError(f"not an expression: {e!r}")

    def _fuse(self, p: Poly) -> Poly:
        """``(x // d) * d * k + (x % d) * k`` -> ``x * k`` and
        ``x * k - (x // d) * d * k`` -> ``(x % d) * k`` (repeatedly)."""
        changed = True
        while changed:
            changed = False
            for m, k in p.items():
                fused = self._fuse_one(p, m, k)
                if fused is None:
                    fused = self._unfuse_one(p, m, k)
                if fused is not None:
                    p, changed = fused, True
                    break
        return p

    def _fuse_one(self, p: Poly, m: Monomial, k: int) -> Poly | None:
        for t, f in enumerate(m):
            if not isinstance(f, FloorMod) or (t > 0 and m[t - 1] == f):
                continue
            dpoly = self.poly(f.b)
            if len(dpoly) != 1:
                continue
            ((dm, dk),) = dpoly.items()
            rest = m[:t] + m[t + 1 :]
            div_mono = mono((*rest, FloorDiv(f.a, f.b), *dm))
            if div_mono == m or p.get(div_mono) != k * dk:
                continue
            out = {mm: kk for mm, kk in p.items() if mm not in (m, div_mono)}
            return _padd(out, pmul({rest: k}, self.poly(f.a)))
        return None

    def _unfuse_one(self, p: Poly, m: Monomial, k: int) -> Poly | None:
        for t, f in enumerate(m):
            if not isinstance(f, FloorDiv) or (t > 0 and m[t - 1] == f):
                continue
            dpoly = self.poly(f.b)
            if len(dpoly) != 1:
                continue
            ((dm, dk),) = dpoly.items()
            rest = mono_divide(m[:t] + m[t + 1 :], dm)
            if rest is None or k % dk != 0:
                continue
            xpoly = self.poly(f.a)
            target = pmul({rest: -k // dk}, xpoly)
            if not target or any(p.get(mm) != kk for mm, kk in target.items()):
                continue
            out = {mm: kk for mm, kk in _padd(p, target, -1).items() if mm != m}
            return _padd(out, pmul({rest: -k // dk}, self._mod(xpoly, dpoly)))
        return None

    # -- floordiv / floormod ------------------------------------------------

    def _div(self, pa: Poly, pb: Poly) -> Poly:
        c = pconst(pb)
        if c is None:
            return self._div_symbolic(pa, pb)
        if c == 0:
            return atom(FloorDiv(to_expr(pa), IndexConst(0)))
        if c < 0:
            pa, c = pscale(pa, -1), -c
        a = pconst(pa)
        if a is not None:
            return pconst_poly(a // c)
        if c == 1:
            return pa
        node = single_atom(pa)
        if isinstance(node, Min | Max) and c > 0:  # floor is monotonic: into both sides
            return self.poly(type(node)(FloorDiv(node.a, IndexConst(c)), FloorDiv(node.b, IndexConst(c))))
        quot: Poly = {}
        rem: Poly = {}
        for m, k in pa.items():
            if not m:
                q, r = divmod(k, c)
                quot = _padd(quot, pconst_poly(q))
                rem = _padd(rem, pconst_poly(r))
            elif k % c == 0:
                quot[m] = k // c
            else:
                rem[m] = k
        g = math.gcd(c, *rem.values())
        if g > 1:
            rem, c = {m: k // g for m, k in rem.items()}, c // g
        if not rem:
            return quot
        return _padd(quot, self._div_remainder(rem, c))

    def _div_remainder(self, rem: Poly, c: int) -> Poly:
        """``rem // c`` where ``rem`` has no multiple of ``c`` left, ``c > 1``."""
        nested = self._nested_div(rem, c)
        if nested is not None:
            return nested
        lo, hi = self.lower(rem), self.upper(rem)
        if lo is not None and hi is not None and lo // c == hi // c:
            return pconst_poly(lo // c)
        quotient = self._bounded_quotient(rem, c)
        if quotient is not None:
            return quotient
        return atom(FloorDiv(to_expr(rem), IndexConst(c)))

    def _bounded_quotient(self, rem: Poly, c: int) -> Poly | None:
        """``v // c`` of a variable whose symbolic bounds have one quotient: floor is
        monotonic, so ``lo // c == hi // c`` is ``v // c`` for every ``v`` in between (a
        loop from ``fo * 64`` over 64 iterations: ``v // 64`` is ``fo``)."""
        if len(rem) != 1 or rem.get(next(iter(rem))) != 1:
            return None
        (m,) = rem
        if len(m) != 1 or not isinstance(m[0], IndexVar) or m[0].name not in self.bounds:
            return None
        lo, hi = self.bounds[m[0].name]
        if lo is None or hi is None or (isinstance(lo, IndexConst) and isinstance(hi, IndexConst)):
            return None
        q_lo, q_hi = self.poly(FloorDiv(lo, IndexConst(c))), self.poly(FloorDiv(hi, IndexConst(c)))
        return q_lo if q_lo == q_hi else None

    def _nested_div(self, rem: Poly, c: int) -> Poly | None:
        """``(y // a + r) // c`` -> ``(y + r*a) // (a*c)`` for ``0 <= r < c``."""
        terms = [(m, k) for m, k in rem.items() if m]
        if len(terms) != 1:
            return None
        ((m, k),) = terms
        inner = m[0]
        if k != 1 or len(m) != 1 or not isinstance(inner, FloorDiv):
            return None
        if not isinstance(inner.b, IndexConst) or inner.b.value <= 0:
            return None
        a = inner.b.value
        r = rem.get((), 0)
        return self._div(_padd(self.poly(inner.a), pconst_poly(r * a)), pconst_poly(a * c))

    def _mod(self, pa: Poly, pb: Poly) -> Poly:
        c = pconst(pb)
        if c is None:
            return self._mod_symbolic(pa, pb)
        if c == 0:
            return atom(FloorMod(to_expr(pa), IndexConst(0)))
        if c < 0:
            return pscale(self._mod(pscale(pa, -1), pconst_poly(-c)), -1)
        a = pconst(pa)
        if a is not None:
            return pconst_poly(a % c)
        if c == 1:
            return {}
        rem: Poly = {}
        for m, k in pa.items():
            r = symmod(k, c) if m else k % c
            if r:
                rem[m] = r
        g = math.gcd(c, *rem.values())
        if g > 1:
            inner = self._mod({m: k // g for m, k in rem.items()}, pconst_poly(c // g))
            return pscale(inner, g)
        if pconst(rem) is not None:
            return rem
        nested = self._nested_mod(rem, c)
        if nested is not None:
            return nested
        lo, hi = self.lower(rem), self.upper(rem)
        if lo is not None and hi is not None and lo // c == hi // c:
            return _padd(rem, pconst_poly(-c * (lo // c)))
        quotient = self._bounded_quotient(rem, c)
        if quotient is not None:
            return _padd(rem, pscale(quotient, -c))
        return atom(FloorMod(to_expr(rem), IndexConst(c)))

    def _nested_mod(self, rem: Poly, c: int) -> Poly | None:
        """Replace a factor ``y % a`` by ``y`` when ``c`` divides ``a``."""
        for m, k in rem.items():
            for t, f in enumerate(m):
                if (
                    isinstance(f, FloorMod)
                    and isinstance(f.b, IndexConst)
                    and f.b.value > 0
                    and f.b.value % c == 0
                ):
                    rest: Poly = {m[:t] + m[t + 1 :]: k}
                    others = {mm: kk for mm, kk in rem.items() if mm != m}
                    replaced = _padd(others, pmul(rest, self.poly(f.a)))
                    return self._mod(self._fuse(replaced), pconst_poly(c))
        return None

    def _split_symbolic(self, pa: Poly, pb: Poly) -> tuple[Poly, Poly] | None:
        """Split ``pa = pb * quot + rem`` when ``pb`` is one monomial ``>= 1``."""
        if len(pb) != 1:
            return None
        ((dm, dk),) = pb.items()
        if dk != 1 or not self._lower_at_least_poly(pb, 1):
            return None
        quot: Poly = {}
        rem: Poly = {}
        for m, k in pa.items():
            q = mono_divide(m, dm)
            if q is None:
                rem[m] = k
            else:
                quot[q] = k
        return quot, rem

    def _div_symbolic(self, pa: Poly, pb: Poly) -> Poly:
        split = self._split_symbolic(pa, pb)
        if split is None:
            return atom(FloorDiv(to_expr(pa), to_expr(pb)))
        quot, rem = split
        if not rem or self._in_period(rem, pb):
            return quot
        if self._in_period(_padd(rem, pb), pb):  # -d <= rem < 0: one below (-1 // d is -1)
            return _padd(quot, pconst_poly(-1))
        return _padd(quot, atom(FloorDiv(to_expr(rem), to_expr(pb))))

    def _mod_symbolic(self, pa: Poly, pb: Poly) -> Poly:
        split = self._split_symbolic(pa, pb)
        if split is None:
            return atom(FloorMod(to_expr(pa), to_expr(pb)))
        _, rem = split
        if not rem or self._in_period(rem, pb):
            return rem
        if self._in_period(_padd(rem, pb), pb):
            return _padd(rem, pb)
        return atom(FloorMod(to_expr(rem), to_expr(pb)))

    def _in_period(self, rem: Poly, d: Poly) -> bool:
        """``0 <= rem <= d - 1`` provable."""
        if not self._lower_at_least_poly(rem, 0):
            return False
        return self._lower_at_least_poly(_padd(d, rem, -1), 1)

    # -- min / max ------------------------------------------------------------

    def _flatten(self, cls: type[Min | Max], p: Poly) -> list[Poly]:
        node = single_atom(p)
        if not isinstance(node, cls):
            return [p]
        return self._flatten(cls, self.poly(node.a)) + self._flatten(cls, self.poly(node.b))

    def _minmax(self, cls: type[Min | Max], pa: Poly, pb: Poly) -> Poly:
        operands: list[Poly] = []
        for p in self._flatten(cls, pa) + self._flatten(cls, pb):
            if p not in operands:
                operands.append(p)
        consts = [c for p in operands if (c := pconst(p)) is not None]
        others = [p for p in operands if pconst(p) is None]
        if consts:
            others.append(pconst_poly(min(consts) if cls is Min else max(consts)))
        kept: list[Poly] = []
        for p in others:
            if any(self._dominates(cls, q, p) for q in kept):
                continue
            kept = [q for q in kept if not self._dominates(cls, p, q)]
            kept.append(p)
        if len(kept) == 1:
            return kept[0]
        exprs = sorted(
            (to_expr(p) for p in kept), key=lambda e: (isinstance(e, IndexConst), sort_key(e))
        )
        out = exprs[0]
        for e in exprs[1:]:
            out = cls(out, e)
        return atom(out)

    def _dominates(self, cls: type[Min | Max], q: Poly, p: Poly) -> bool:
        """``q`` makes ``p`` redundant: ``q <= p`` for min, ``q >= p`` for max."""
        diff = _padd(p, q, -1) if cls is Min else _padd(q, p, -1)
        return self._lower_at_least_poly(diff, 0)

    # -- bound analysis -------------------------------------------------------

    def _lower_at_least(self, e: IndexExpr, target: int) -> bool:
        return self._lower_at_least_poly(self.poly(e), target)

    def _lower_at_least_poly(self, p: Poly, target: int) -> bool:
        lo = self.lower(p)
        return lo is not None and lo >= target

    @bound_search.query
    def upper(self, p: Poly, budget: int | None = None) -> int | None:
        """Constant upper bound of a polynomial, or ``None``."""
        lo = self.lower(pscale(p, -1), budget)
        return None if lo is None else -lo

    @bound_search.query
    def lower(self, p: Poly, budget: int | None = None) -> int | None:
        """Constant lower bound of a polynomial, or ``None``."""
        c = pconst(p)
        if c is not None:
            return c
        if budget is None:
            budget = self._budget
        key = (pkey(p), budget)
        if key in self._lower_memo:
            return self._lower_memo[key]
        if self._steps <= 0:  # out of steps: interval arithmetic alone, a looser bound
            self._steps = -1
            self._lower_memo[key] = None
            result = bound_search.interval_lower(self, p, 0)
            self._lower_memo[key] = result
            return result
        self._steps -= 1
        self._lower_memo[key] = None  # re-entrant queries see "unknown"
        saved = self._budget
        self._budget = max(budget - 1, 0)
        try:
            result = bound_search.lower_search(self, p, budget)
        finally:
            self._budget = saved
        self._lower_memo[key] = result
        return result

    # -- conditions -------------------------------------------------------------

    def _simplify_compare(self, c: Cond) -> Cond:
        assert isinstance(c, LT | LE | EQ | NE)
        a, b = self.simplify(c.a), self.simplify(c.b)
        diff = self.poly(Sub(b, a))
        lo, hi = self.lower(diff), self.upper(diff)
        # Truth of each comparison as a function of d = b - a.
        strict = isinstance(c, LT)
        if isinstance(c, LT | LE):
            need = 1 if strict else 0
            if lo is not None and lo >= need:
                return BoolConst(True)
            if hi is not None and hi < need:
                return BoolConst(False)
        else:
            is_eq = isinstance(c, EQ)
            if pconst(diff) == 0:
                return BoolConst(is_eq)
            if (lo is not None and lo > 0) or (hi is not None and hi < 0):
                return BoolConst(not is_eq)
        return type(c)(a, b)

    def _simplify_logic(self, c: And | Or) -> Cond:
        a, b = self.simplify_cond(c.a), self.simplify_cond(c.b)
        absorbing = isinstance(c, Or)  # True absorbs `or`, False absorbs `and`
        for x, y in ((a, b), (b, a)):
            if isinstance(x, BoolConst):
                return x if x.value == absorbing else y
        if a == b:
            return a
        return type(c)(a, b)

    def _negate(self, c: Cond) -> Cond:
        if isinstance(c, BoolConst):
            return BoolConst(not c.value)
        if isinstance(c, Not):
            return c.a
        if isinstance(c, LT):
            return LE(c.b, c.a)
        if isinstance(c, LE):
            return LT(c.b, c.a)
        if isinstance(c, EQ):
            return NE(c.a, c.b)
        if isinstance(c, NE):
            return EQ(c.a, c.b)
        return Not(c)


# ---------------------------------------------------------------------------
# Functional wrappers
# ---------------------------------------------------------------------------


def _as_ends(
    ends: tuple[IndexExpr | int | None, IndexExpr | int | None],
) -> tuple[IndexExpr | None, IndexExpr | None]:
    """A variable's bounds with int ends wrapped (the pair itself when none is an int)."""
    lo, hi = ends
    if isinstance(lo, int) or isinstance(hi, int):
        return (None if lo is None else as_expr(lo), None if hi is None else as_expr(hi))
    return (lo, hi)


def simplify(e: IndexExpr | int, bounds: BoundsArg | None = None) -> IndexExpr:
    """Canonical simplification of ``e`` (see module docstring)."""
    return Analyzer(bounds).simplify(e)


def simplify_cond(c: Cond, bounds: BoundsArg | None = None) -> Cond:
    return Analyzer(bounds).simplify_cond(c)


def prove_le(a: IndexExpr | int, b: IndexExpr | int, bounds: BoundsArg | None = None) -> bool:
    """True only if ``a <= b`` holds for every assignment within ``bounds``."""
    return Analyzer(bounds).prove_le(a, b)


def prove_lt(a: IndexExpr | int, b: IndexExpr | int, bounds: BoundsArg | None = None) -> bool:
    return Analyzer(bounds).prove_lt(a, b)


def prove_ge(a: IndexExpr | int, b: IndexExpr | int, bounds: BoundsArg | None = None) -> bool:
    return Analyzer(bounds).prove_ge(a, b)


def prove_gt(a: IndexExpr | int, b: IndexExpr | int, bounds: BoundsArg | None = None) -> bool:
    return Analyzer(bounds).prove_gt(a, b)


def prove_eq(a: IndexExpr | int, b: IndexExpr | int, bounds: BoundsArg | None = None) -> bool:
    return Analyzer(bounds).prove_eq(a, b)


def const_bounds(e: IndexExpr | int, bounds: BoundsArg | None = None) -> Range:
    """Constant inclusive ``(lo, hi)`` of ``e`` over ``bounds`` (``None`` = unbounded)."""
    return Analyzer(bounds).const_bounds(e)


def const_value(e: IndexExpr | int) -> int | None:
    """The value of ``e`` if it simplifies to a constant, else ``None``."""
    s = simplify(e)
    return s.value if isinstance(s, IndexConst) else None
