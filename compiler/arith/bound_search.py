"""The search of `Analyzer.lower` for a constant lower bound of a polynomial (see
`simplify.py`'s module docstring, "Bound analysis" and "Budgets"): interval
arithmetic over factors, then splitting a min/max term, rewriting a floordiv, and
substituting a variable's bound, each recursing with a smaller budget."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from compiler.arith.canonical import (
    Monomial,
    Poly,
    pmul,
    pscale,
)
from compiler.arith.expr import (
    FloorDiv,
    FloorMod,
    IndexConst,
    IndexExpr,
    IndexVar,
    Max,
    Min,
    free_vars,
)
from compiler.arith.poly import poly_add as _padd
from compiler.arith.ranges import Range, ceil_div, opt_max, opt_min, range_mul


class Searcher(Protocol):
    """What the search uses of `simplify.Analyzer` (a protocol, so that this module,
    which the analyzer calls, does not import it back)."""

    bounds: dict[str, tuple[IndexExpr | None, IndexExpr | None]]
    exhausted: int
    _steps: int
    _in_query: bool
    _range_memo: dict[tuple[IndexExpr, int], Range]

    def poly(self, e: IndexExpr) -> Poly: ...

    def lower(self, p: Poly, budget: int | None = None) -> int | None: ...

    def upper(self, p: Poly, budget: int | None = None) -> int | None: ...

    def _fuse(self, p: Poly) -> Poly: ...

    def _refs(self, name: str) -> frozenset[str]: ...


STEP_BUDGET = 1000
"""Searches (non-memoised `Analyzer.lower` calls) one public query may make; then
interval arithmetic alone (see "Budgets" in the module docstring). The largest query
of the lit suite and of the arith, memory, loop-partition, auto-schedule and
transformer tests took 210 (counted when the budget was introduced): about five times that."""

P = ParamSpec("P")
R = TypeVar("R")
A = TypeVar("A", bound=Searcher)


def query(method: Callable[Concatenate[A, P], R]) -> Callable[Concatenate[A, P], R]:
    """A public query of the analyzer: the outermost one (not one the analyzer makes of
    itself) starts with `STEP_BUDGET` steps, and counts in `exhausted` if it used them."""

    def query(self: A, /, *args: P.args, **kwargs: P.kwargs) -> R:
        if self._in_query:
            return method(self, *args, **kwargs)
        self._in_query = True
        self._steps = STEP_BUDGET
        try:
            return method(self, *args, **kwargs)
        finally:
            self._in_query = False
            if self._steps < 0:
                self.exhausted += 1

    query.__name__, query.__qualname__, query.__doc__ = method.__name__, method.__qualname__, method.__doc__
    query.__wrapped__ = method  # type: ignore[attr-defined]  # inspect.signature: the method's
    return query



def lower_search(az: Searcher, p: Poly, budget: int) -> int | None:
    best = interval_lower(az, p, budget)
    if budget <= 0:
        return best
    best = opt_max(best, _split_minmax(az, p, budget), False)
    best = opt_max(best, _rewrite_div(az, p, budget), False)
    return opt_max(best, _substitute_vars(az, p, budget), False)

def interval_lower(az: Searcher, p: Poly, budget: int) -> int | None:
    total = 0
    for m, k in p.items():
        if not m:
            total += k
            continue
        lo, hi = _mono_range(az, m, budget)
        end = lo if k > 0 else hi
        if end is None:
            return None
        total += k * end
    return total

def _mono_range(az: Searcher, m: Monomial, budget: int) -> Range:
    out: Range = (1, 1)
    for f in m:
        out = range_mul(out, _factor_range(az, f, budget))
    return out

def _expr_range(az: Searcher, e: IndexExpr, budget: int) -> Range:
    p = az.poly(e)
    return (az.lower(p, budget), az.upper(p, budget))

def _factor_range(az: Searcher, f: IndexExpr, budget: int) -> Range:
    key = (f, budget)
    hit = az._range_memo.get(key)
    if hit is None:
        az._range_memo[key] = (None, None)
        hit = _compute_factor_range(az, f, budget)
        az._range_memo[key] = hit
    return hit

def _compute_factor_range(az: Searcher, f: IndexExpr, budget: int) -> Range:
    if isinstance(f, IndexVar):
        return _var_range(az, f.name, budget)
    if isinstance(f, FloorDiv):
        return _floordiv_range(az, f, budget)
    if isinstance(f, FloorMod):
        return _floormod_range(az, f, budget)
    if isinstance(f, Min | Max):
        a = _expr_range(az, f.a, budget)
        b = _expr_range(az, f.b, budget)
        if isinstance(f, Min):
            return (opt_min(a[0], b[0], True), opt_min(a[1], b[1], False))
        return (opt_max(a[0], b[0], False), opt_max(a[1], b[1], True))
    return _expr_range(az, f, budget)

def _var_range(az: Searcher, name: str, budget: int) -> Range:
    lo_e, hi_e = az.bounds.get(name, (None, None))
    lo = hi = None
    if isinstance(lo_e, IndexConst):
        lo = lo_e.value
    elif lo_e is not None and budget > 0:
        lo = az.lower(az.poly(lo_e), budget - 1)
    if isinstance(hi_e, IndexConst):
        hi = hi_e.value
    elif hi_e is not None and budget > 0:
        hi = az.upper(az.poly(hi_e), budget - 1)
    return (lo, hi)

def _floordiv_range(az: Searcher, f: FloorDiv, budget: int) -> Range:
    xlo, xhi = _expr_range(az, f.a, budget)
    if isinstance(f.b, IndexConst):
        c = f.b.value
        if c > 0:
            return (None if xlo is None else xlo // c, None if xhi is None else xhi // c)
        if c < 0:
            return (None if xhi is None else xhi // c, None if xlo is None else xlo // c)
        return (None, None)
    dlo, dhi = _expr_range(az, f.b, budget)
    if xlo is None or dlo is None or dlo < 1:
        return (None, None)
    if xlo >= 0:
        lo = 0 if dhi is None else xlo // dhi
        return (lo, None if xhi is None else xhi // dlo)
    if xhi is not None and dhi is not None:
        corners = [x // d for x in (xlo, xhi) for d in (dlo, dhi)]
        return (min(corners), max(corners))
    return (None, None)

def _floormod_range(az: Searcher, f: FloorMod, budget: int) -> Range:
    xlo, xhi = _expr_range(az, f.a, budget)
    if isinstance(f.b, IndexConst):
        c = f.b.value
        if c > 0:
            if xlo is not None and xhi is not None and xlo // c == xhi // c:
                base = c * (xlo // c)
                return (xlo - base, xhi - base)
            hi: int | None = c - 1
            if xlo is not None and xlo >= 0 and xhi is not None:
                hi = min(c - 1, xhi)
            return (0, hi)
        if c < 0:
            return (c + 1, 0)
        return (None, None)
    dlo, dhi = _expr_range(az, f.b, budget)
    if dlo is not None and dlo >= 1:
        hi = None if dhi is None else dhi - 1
        if xlo is not None and xlo >= 0 and xhi is not None:
            if xhi < dlo:
                return (xlo, xhi)
            hi = xhi if hi is None else min(hi, xhi)
        return (0, hi)
    if dhi is not None and dhi <= -1:
        return (None if dlo is None else dlo + 1, 0)
    return (None, None)

def _split_minmax(az: Searcher, p: Poly, budget: int) -> int | None:
    for m, k in p.items():
        if len(m) != 1 or not isinstance(m[0], Min | Max):
            continue
        f = m[0]
        rest = {mm: kk for mm, kk in p.items() if mm != m}
        lo1 = az.lower(az._fuse(_padd(rest, az.poly(f.a), k)), budget - 1)
        lo2 = az.lower(az._fuse(_padd(rest, az.poly(f.b), k)), budget - 1)
        exact = isinstance(f, Min) == (k > 0)
        if exact:
            return None if lo1 is None or lo2 is None else min(lo1, lo2)
        return opt_max(lo1, lo2, False)
    return None

def _rewrite_div(az: Searcher, p: Poly, budget: int) -> int | None:
    """Use ``d * (x // d) == x - x % d`` on the first constant floordiv."""
    for m, k in p.items():
        for t, f in enumerate(m):
            if not (isinstance(f, FloorDiv) and isinstance(f.b, IndexConst) and f.b.value > 0):
                continue
            d = f.b.value
            rest: Poly = {m[:t] + m[t + 1 :]: k}
            others = {mm: kk for mm, kk in p.items() if mm != m}
            x_minus_mod = _padd(az.poly(f.a), az.poly(FloorMod(f.a, f.b)), -1)
            if k % d == 0:
                rest = {m[:t] + m[t + 1 :]: k // d}
                scale = 1
            else:
                others = pscale(others, d)
                scale = d
            lo = az.lower(az._fuse(_padd(others, pmul(rest, x_minus_mod))), budget - 1)
            return None if lo is None else ceil_div(lo, scale)
    return None

def _substitute_vars(az: Searcher, p: Poly, budget: int) -> int | None:
    present: set[str] = set()
    for m in p:
        for f in m:
            present |= free_vars(f)
    blocked = frozenset().union(*(az._refs(v) for v in present))
    for block in (blocked, frozenset()):
        new: Poly = {}
        changed = False
        for m, k in p.items():
            sub = _pick_substitution(az, m, k, block, budget, p) if m else None
            if sub is None:
                new = _padd(new, {m: k})
            else:
                new = _padd(new, sub)
                changed = True
        if changed:
            return az.lower(az._fuse(new), budget - 1)
        if not blocked:
            break
    return None

def _pick_substitution(
    az: Searcher, m: Monomial, k: int, blocked: frozenset[str], budget: int, p: Poly
) -> Poly | None:
    """A lower bound for the term ``k * m`` replacing one variable factor: first one whose
    remaining factors are a term of ``p`` of the other sign, which the substitution can
    cancel (``m * n - m`` with ``m, n >= 1``: ``n`` by 1 leaves ``m - m``, where ``m`` by 1
    would leave ``n - m``, whichever name sorts first)."""
    counts = Counter(m)
    order = sorted(range(len(m)), key=lambda t: p.get(m[:t] + m[t + 1 :], 0) * k >= 0)
    for t in order:
        f = m[t]
        if not isinstance(f, IndexVar) or counts[f] != 1 or f.name in blocked:
            continue
        ends = az.bounds.get(f.name)
        if ends is None:
            continue
        rest = m[:t] + m[t + 1 :]
        sign = _mono_sign(az, rest, budget)
        if sign is None:
            continue
        bound = ends[0] if k * sign > 0 else ends[1]
        if bound is None:
            continue
        return pmul({rest: k}, az.poly(bound))
    return None

def _mono_sign(az: Searcher, m: Monomial, budget: int) -> int | None:
    if not m:
        return 1
    lo, hi = _mono_range(az, m, budget - 1)
    if lo is not None and lo >= 0:
        return 1
    if hi is not None and hi <= 0:
        return -1
    return None
