"""The canonical form of index expressions: polynomials over monomials of factors
(variables and opaque non-linear nodes), their deterministic order, and conversion
back to expressions (see `simplify.py`'s module docstring, "Canonical form")."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

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
)
from compiler.arith.poly import poly_mul

Monomial = tuple[IndexExpr, ...]
Poly = dict[Monomial, int]



PRINTED_KEY_NODES = 4096
"""The largest tree (counted with its shared subtrees once per use, as printed) whose
sort key is its text; a larger one is keyed by a digest of its structure (see
`sort_key`)."""


@lru_cache(maxsize=1 << 16)
def sort_key(e: IndexExpr) -> tuple[int, str, str]:
    """The order of terms and of min/max operands: by kind, then text. The text of a tree
    of shared subtrees (a min of a max of a min... over the same operands) grows
    exponentially with its depth, so past `PRINTED_KEY_NODES` printed nodes the key is
    a digest of the structure instead (deterministic across runs, sorted after texts)."""
    rank = 0 if isinstance(e, IndexVar) else 1 if isinstance(e, FloorDiv | FloorMod) else 2
    if printed_nodes(e) > PRINTED_KEY_NODES:
        key = digest(e)
        return (rank, "\x7f" + key, key)
    return (rank, str(e), repr(e))


@lru_cache(maxsize=1 << 16)
def printed_nodes(e: IndexExpr) -> int:
    """How many nodes `str(e)` prints (a shared subtree once per use), without printing."""
    if isinstance(e, IndexConst | IndexVar):
        return 1
    assert isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max)
    return 1 + printed_nodes(e.a) + printed_nodes(e.b)


@lru_cache(maxsize=1 << 16)
def digest(e: IndexExpr) -> str:
    """A digest of the structure of `e`, the same in every process (not `hash`)."""
    if isinstance(e, IndexConst):
        text = f"c{e.value}"
    elif isinstance(e, IndexVar):
        text = f"v{e.name}"
    else:
        assert isinstance(e, Add | Sub | Mul | FloorDiv | FloorMod | Min | Max)
        text = f"{type(e).__name__}({digest(e.a)},{digest(e.b)})"
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def mono_key(m: Monomial) -> tuple[tuple[int, str, str], ...]:
    return tuple(sort_key(f) for f in m)


def mono(factors: Iterable[IndexExpr]) -> Monomial:
    return tuple(sorted(factors, key=sort_key))


def pconst_poly(value: int) -> Poly:
    return {(): value} if value else {}


def atom(e: IndexExpr) -> Poly:
    return {(e,): 1}


def pscale(p: Poly, k: int) -> Poly:
    return {m: c * k for m, c in p.items()} if k else {}


def join(m1: Monomial, m2: Monomial) -> Monomial:
    return mono(m1 + m2) if m1 and m2 else (m1 or m2)


def pmul(p: Poly, q: Poly) -> Poly:
    return poly_mul(p, q, join)


def pconst(p: Poly) -> int | None:
    if not p:
        return 0
    if len(p) == 1 and () in p:
        return p[()]
    return None


def pkey(p: Poly) -> frozenset[tuple[Monomial, int]]:
    return frozenset(p.items())


def single_atom(p: Poly) -> IndexExpr | None:
    if len(p) == 1:
        ((m, k),) = p.items()
        if k == 1 and len(m) == 1:
            return m[0]
    return None


def mono_expr(m: Monomial) -> IndexExpr:
    out = m[0]
    for f in m[1:]:
        out = Mul(out, f)
    return out


def term(m: Monomial, k: int) -> IndexExpr:
    base = mono_expr(m)
    return base if k == 1 else Mul(base, IndexConst(k))


def to_expr(p: Poly) -> IndexExpr:
    """Deterministic expression for a polynomial (see module docstring)."""
    terms = sorted(((m, k) for m, k in p.items() if m), key=lambda mk: mono_key(mk[0]))
    pos = [(m, k) for m, k in terms if k > 0]
    neg = [(m, -k) for m, k in terms if k < 0]
    constant = p.get((), 0)
    out: IndexExpr | None = None
    for m, k in pos:
        out = term(m, k) if out is None else Add(out, term(m, k))
    if out is None and neg and constant > 0:
        out, constant = IndexConst(constant), 0
    for m, k in neg:
        if out is None:
            out = Mul(IndexConst(-1), mono_expr(m)) if k == 1 else Mul(mono_expr(m), IndexConst(-k))
        else:
            out = Sub(out, term(m, k))
    if out is None:
        return IndexConst(constant)
    if constant > 0:
        return Add(out, IndexConst(constant))
    if constant < 0:
        return Sub(out, IndexConst(-constant))
    return out


def symmod(k: int, c: int) -> int:
    """``k mod c`` in the symmetric range ``(-c/2, c/2]``."""
    r = k % c
    return r - c if 2 * r > c else r


def mono_divide(m: Monomial, d: Monomial) -> Monomial | None:
    """``m / d`` if the factor multiset ``d`` is contained in ``m``."""
    have = Counter(m)
    need = Counter(d)
    if any(have[f] < n for f, n in need.items()):
        return None
    return mono((have - need).elements())
