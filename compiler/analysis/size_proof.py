"""Proofs that an integer expression is >= 0 when its variables multiply each other.

Memory plans with symbolic shapes compare sums of sizes such as
`(h + 1) // 2 * ((w + 1) // 2) * 4 + (h * w * 6 + 63) // 64 * 64`, and the in-place
test compares addresses such as `(i * (w // 2) + j) * 128` with `((2 * i + ry) * (w // 2)
* 2 + 2 * j + rx) * 64`. Presburger tools (islpy) reject products of variables, and
the interval prover of compiler.arith reasons about each factor alone. This module
finds a certificate of non-negativity instead:

  1. every `min`/`max` is replaced by each of its operands in turn (it equals one of
     them at every point), and each case is proven;
  2. a variable `x` with a constant lower bound `L` becomes `L + s` with `s >= 0`;
     a loop counter with symbolic bounds `[lo, hi]` becomes `lo + t` or `hi - t`
     (`t >= 0`), whichever side its coefficient favours at a sample point;
  3. a floor division or modulo by a constant `c` is either an opaque atom (shifted
     by its constant lower bound) or expanded exactly: `x // c = (x - r) / c` and
     `x % c = r` with one `r` in `[0, c - 1]` per `x` (rational coefficients);
  4. the polynomial is grouped by its monomials in unbounded variables (all >= 0):
     each group's coefficient is a polynomial in bounded ones (`0 <= r <= c - 1`)
     whose minimum is bounded below term by term. All groups >= 0 is a proof.

A proof is sound; a failure proves nothing (the caller falls back to a safe choice).
Several expansions are tried (every subset of the atoms when there are at most four),
because opaque atoms keep integrality (`w // 2 >= 0`) and expansion relates an
atom to its argument (`(x + 63) // 64 * 64 >= x`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

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
    evaluate,
    free_vars,
    substitute_index,
)
from compiler.arith.poly import poly_add as _padd
from compiler.arith.poly import poly_mul
from compiler.arith.simplify import Analyzer

Mono = tuple[str, ...]
Poly = dict[Mono, Fraction]

_MAX_SPLITS = 6  # min/max operands tried: at most 2**6 cases
_MAX_SUBSETS = 4  # up to 2**4 choices of which floor divisions to expand
_SAMPLE = 64  # value of every shape variable when choosing a loop counter's anchor


def _pmul(p: Poly, q: Poly) -> Poly:
    return poly_mul(p, q, lambda m1, m2: tuple(sorted(m1 + m2)))


def _pconst(c: Fraction | int) -> Poly:
    return {(): Fraction(c)} if c else {}


@dataclass
class _Builder:
    """Turns an expression into a polynomial over shifted variables (all >= 0);
    `upper` holds the bounded ones (their maximum after the shift)."""

    az: Analyzer
    expand: frozenset[IndexExpr]  # the floor divisions/modulos to expand

    def __post_init__(self) -> None:
        # keyed by nodes, not their text: nodes are hash-consed (one hash, computed once),
        # where the text of a tree of shared subtrees is exponential in its depth
        self.upper: dict[str, Fraction] = {}
        self.names: dict[IndexExpr, Poly] = {}  # variable or atom -> its shifted polynomial
        self.remainders: dict[tuple[IndexExpr, int], str] = {}

    def _shifted(self, key: IndexExpr, lo: int, hi: int | None) -> Poly:
        if key not in self.names:
            s = f"s{len(self.names)}"
            if hi is not None:
                self.upper[s] = Fraction(hi - lo)
            self.names[key] = _padd(_pconst(lo), {(s,): Fraction(1)})
        return self.names[key]

    def _atom(self, e: IndexExpr) -> Poly | None:
        lo, hi = self.az.const_bounds(e)
        if lo is None:
            return None
        return self._shifted(e, lo, hi)

    def _remainder(self, a: IndexExpr, c: int) -> Poly:
        key = (a, c)
        if key not in self.remainders:
            self.remainders[key] = f"r{len(self.remainders)}"
            self.upper[self.remainders[key]] = Fraction(c - 1)
        return {(self.remainders[key],): Fraction(1)}

    def _expands(self, e: FloorDiv | FloorMod) -> bool:
        return e in self.expand

    def poly(self, e: IndexExpr) -> Poly | None:
        match e:
            case IndexConst(value=v):
                return _pconst(v)
            case IndexVar():
                lo, hi = self.az.const_bounds(e)
                if lo is None:
                    return None
                return self._shifted(e, lo, hi)
            case Add(a=a, b=b) | Sub(a=a, b=b) | Mul(a=a, b=b):
                pa, pb = self.poly(a), self.poly(b)
                if pa is None or pb is None:
                    return None
                if isinstance(e, Mul):
                    return _pmul(pa, pb)
                return _padd(pa, pb, -1 if isinstance(e, Sub) else 1)
            case FloorDiv(a=a, b=IndexConst(value=c)) | FloorMod(a=a, b=IndexConst(value=c)) if c > 0:
                assert isinstance(e, FloorDiv | FloorMod)
                if not self._expands(e):
                    return self._atom(e)
                pa = self.poly(a)
                if pa is None:
                    return None
                r = self._remainder(a, c)
                if isinstance(e, FloorMod):
                    return r
                return {m: k / c for m, k in _padd(pa, r, -1).items()}
        return self._atom(e)


def _nodes(e: IndexExpr) -> list[IndexExpr]:
    """The nodes of `e`, parents first, a shared subtree once."""
    out, stack, seen = [], [e], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node)
        if not isinstance(node, IndexConst | IndexVar):
            binary = as_binary(node)
            stack.extend((binary.a, binary.b))
    return out


def _certified(p: Poly, upper: Mapping[str, Fraction]) -> bool:
    """Every variable is >= 0, those in `upper` at most that: each monomial group in
    unbounded variables must have a coefficient (a polynomial in the bounded ones)
    >= 0 over their box: checked at every vertex when it is multilinear (a multilinear
    polynomial takes its minimum at a vertex), else term by term."""
    groups: dict[Mono, Poly] = {}
    for mono, k in p.items():
        free = tuple(v for v in mono if v not in upper)
        bounded = tuple(v for v in mono if v in upper)
        groups.setdefault(free, {})[bounded] = k
    return all(_box_minimum(q, upper) >= 0 for q in groups.values())


def _box_minimum(q: Poly, upper: Mapping[str, Fraction]) -> Fraction:
    names = sorted({v for m in q for v in m})
    multilinear = all(len(set(m)) == len(m) for m in q)
    if multilinear and len(names) <= 10:
        least: Fraction | None = None
        for corner in range(1 << len(names)):
            at = {v: upper[v] if corner >> i & 1 else Fraction(0) for i, v in enumerate(names)}
            value = Fraction(0)
            for m, k in q.items():
                term = k
                for v in m:
                    term *= at[v]
                value += term
            least = value if least is None else min(least, value)
        return least if least is not None else Fraction(0)
    total = Fraction(0)
    for m, k in q.items():
        top = Fraction(1)
        for v in m:
            top *= upper[v]
        total += min(Fraction(0), k * top) if m else k
    return total


def _replace(e: IndexExpr, target: IndexExpr, by: IndexExpr, done: dict[int, IndexExpr] | None = None) -> IndexExpr:
    """`e` with `target` replaced by `by`, a shared subtree rewritten once."""
    if e == target:
        return by
    if isinstance(e, IndexConst | IndexVar):
        return e
    done = {} if done is None else done
    hit = done.get(id(e))
    if hit is None:
        binary = as_binary(e)
        hit = type(binary)(_replace(binary.a, target, by, done), _replace(binary.b, target, by, done))
        done[id(e)] = hit
    return hit


def _first_minmax(e: IndexExpr) -> Min | Max | None:
    for node in _nodes(e):
        if isinstance(node, Min | Max):
            return node
    return None


def _anchor(e: IndexExpr, boxes: Mapping[str, tuple[IndexExpr, IndexExpr]], az: Analyzer) -> IndexExpr:
    """Replace each loop counter by `lo + t` or `hi - t` (`t >= 0`, an unbounded
    superset of its range): the side where its coefficient, at a sample point, says
    the expression is smallest."""
    for _ in range(len(boxes) + 1):
        present = [v for v in boxes if v in free_vars(e)]
        if not present:
            return e
        point: dict[str, int] = {}
        for v, (lo, hi) in boxes.items():
            point[v] = (_at(lo, point, boxes) + _at(hi, point, boxes)) // 2
        mapping: dict[str, IndexExpr] = {}
        for v in present:
            lo, hi = boxes[v]
            slope = _at(e, point | {v: point[v] + 1}, boxes) - _at(e, point, boxes)
            t = IndexVar(f"{v}'t")
            mapping[v] = lo + t if slope >= 0 else hi - t
        e = substitute_index(e, mapping)
    return e


def _at(e: IndexExpr, point: Mapping[str, int], boxes: Mapping[str, object]) -> int:
    """`e` at a sample point: shape variables `_SAMPLE`, loop counters from `point` (0 if unset)."""
    env = {n: point.get(n, 0) if n in boxes or n.endswith("'t") else _SAMPLE for n in free_vars(e)}
    try:
        return evaluate(e, env)
    except ZeroDivisionError:
        return 0


def prove_nonnegative(
    e: IndexExpr,
    az: Analyzer,
    boxes: Mapping[str, tuple[IndexExpr, IndexExpr]] | None = None,
    *,
    opaque_minmax: bool = False,
) -> bool:
    """True only if `e >= 0` for all values of its variables: shape variables within
    `az`'s bounds, loop counters `v` within the inclusive `boxes[v] = (lo, hi)`,
    and fresh variables named with a trailing `'t` (introduced here) `>= 0`.
    `opaque_minmax`: before splitting a `min`/`max` into its operands (which forgets
    which operand is the larger), try it as an atom of its constant bounds (`max(x, 0)
    >= 0`); the memory-plan verifier asks for it, the planner keeps to the cases."""
    # the analyzer first: with the shape variables' bounds it drops the min/max sides that
    # can never be taken (a split's tail bound `max(.., s - 1)`), which the case split
    # below would otherwise have to try one by one, up to its limit
    e = az.simplify(_anchor(e, boxes or {}, az))
    fresh = {n: (0, None) for n in free_vars(e) if n.endswith("'t")}
    if fresh:
        az = Analyzer({**az.bounds, **fresh})
    return _prove_cases(e, az, _MAX_SPLITS, opaque_minmax)


def _prove_cases(e: IndexExpr, az: Analyzer, splits: int, opaque_minmax: bool) -> bool:
    node = _first_minmax(e)
    if node is None:
        return _prove_polynomial(e, az)
    if opaque_minmax and _prove_polynomial(e, az):
        return True
    if splits == 0:
        return False
    return all(_prove_cases(_replace(e, node, side), az, splits - 1, opaque_minmax) for side in (node.a, node.b))


def _prove_polynomial(e: IndexExpr, az: Analyzer) -> bool:
    """A proof with every min/max left an atom: the interval analyzer, or a certificate
    for one of the expansions of the floor divisions."""
    if az.prove_ge(e, 0):
        return True
    for expand in _expansions(e):
        builder = _Builder(az, expand)
        p = builder.poly(e)
        if p is not None and _certified(p, builder.upper):
            return True
    return False


def _expansions(e: IndexExpr) -> list[frozenset[IndexExpr]]:
    """Which floor divisions/modulos by constants to expand: every subset when there
    are few (none first, all second), else none, all, and the outermost only."""
    atoms = list(dict.fromkeys(n for n in _nodes(e) if isinstance(n, FloorDiv | FloorMod) and isinstance(n.b, IndexConst)))
    everything = frozenset(atoms)
    if len(atoms) <= _MAX_SUBSETS:
        subsets = [frozenset(a for i, a in enumerate(atoms) if k >> i & 1) for k in range(1 << len(atoms))]
        return sorted(subsets, key=lambda x: (x != frozenset(), x != everything))
    outer = frozenset(
        n for n in _nodes(e)
        if isinstance(n, FloorDiv | FloorMod) and any(isinstance(m, FloorDiv | FloorMod) for m in _nodes(n.a))
    )
    return [frozenset(), everything, outer]


class SizeProver:
    """`prove_le(a, b)` over an analyzer's bounds, memoised, with a numeric
    counter-example check first (most failed queries are simply false)."""

    def __init__(
        self,
        az: Analyzer,
        samples: tuple[int, ...] = (1, 7, 61, 256),
        *,
        opaque_minmax: bool = False,
        facts: Sequence[IndexExpr] = (),
    ) -> None:
        self.az = az
        self.samples = samples
        self.opaque_minmax = opaque_minmax  # see prove_nonnegative
        # expressions known to be >= 0 (the extents of a function's arguments): `b - a`
        # is also proven as `(b - a) - c * fact >= 0` for a few small c (a flattened
        # extent `m * n - m * 2` says what `n - 2 >= 0` would, where m may be 0)
        self.facts = [f for f in facts if free_vars(f)]
        self.memo: dict[tuple[IndexExpr, IndexExpr], bool] = {}  # by the nodes (hashed once), not their text

    def _refuted(self, e: IndexExpr) -> bool:
        names = free_vars(e)
        for value in self.samples:
            env = {}
            for n in names:
                lo, hi = self.az.bounds.get(n, (None, None))
                v = value
                if isinstance(lo, IndexConst):
                    v = max(v, lo.value)
                if isinstance(hi, IndexConst):
                    v = min(v, hi.value)
                env[n] = v
            try:
                if evaluate(e, env) < 0:
                    return True
            except ZeroDivisionError:
                continue
        return False

    def prove_le(self, a: IndexExpr, b: IndexExpr) -> bool:
        key = (a, b)
        if key not in self.memo:
            diff = b - a
            self.memo[key] = not self._refuted(diff) and (
                self._proven(diff)
                or any(self._proven(diff - c * fact) for fact in self.facts for c in (1, 2, 4, 8))
            )
        return self.memo[key]

    def _proven(self, e: IndexExpr) -> bool:
        return not self._refuted(e) and prove_nonnegative(e, self.az, opaque_minmax=self.opaque_minmax)
