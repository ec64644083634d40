"""Sparse polynomials as `{monomial: coefficient}` dicts with no zero coefficients,
shared by the simplifier (integer coefficients, monomials of expressions) and the
size prover (rational coefficients, monomials of variable names)."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from typing import TypeVar

M = TypeVar("M", bound=Hashable)
C = TypeVar("C", int, Fraction)


def _accumulate(out: dict[M, C], m: M, k: C) -> None:
    """`out[m] += k`, dropping the monomial when its coefficient becomes zero."""
    v = out.get(m, 0) + k
    if v:
        out[m] = v
    else:
        out.pop(m, None)


def poly_add(p: dict[M, C], q: dict[M, C], scale: int = 1) -> dict[M, C]:
    """`p + scale * q`."""
    out = dict(p)
    for m, k in q.items():
        _accumulate(out, m, scale * k)
    return out


def poly_mul(p: dict[M, C], q: dict[M, C], join: Callable[[M, M], M]) -> dict[M, C]:
    """`p * q`; `join` makes the monomial of a product of two monomials (in the
    canonical order of the caller's keys)."""
    out: dict[M, C] = {}
    for m1, k1 in p.items():
        for m2, k2 in q.items():
            _accumulate(out, join(m1, m2), k1 * k2)
    return out
