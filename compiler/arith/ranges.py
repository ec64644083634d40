"""Constant intervals with open ends: `(lo, hi)` where None is -inf or +inf, as the
simplifier's bound analysis (`Analyzer.const_bounds`) computes them."""

from __future__ import annotations

Range = tuple[int | None, int | None]

# Extended integers: ints plus +-inf (floats) for interval products.
ExtInt = int | float
_INF = float("inf")


def ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def _ext_mul(a: ExtInt, b: ExtInt) -> ExtInt:
    if a == 0 or b == 0:
        return 0
    return a * b


def _to_ext(lo: int | None, hi: int | None) -> tuple[ExtInt, ExtInt]:
    return (-_INF if lo is None else lo, _INF if hi is None else hi)


def _from_ext(lo: ExtInt, hi: ExtInt) -> tuple[int | None, int | None]:
    return (None if lo == -_INF else int(lo), None if hi == _INF else int(hi))


def range_mul(a: Range, b: Range) -> Range:
    """The interval of a product: the least and greatest of the corners' products."""
    alo, ahi = _to_ext(*a)
    blo, bhi = _to_ext(*b)
    corners = [_ext_mul(x, y) for x in (alo, ahi) for y in (blo, bhi)]
    return _from_ext(min(corners), max(corners))


def opt_min(a: int | None, b: int | None, none_is_low: bool) -> int | None:
    """min with None meaning -inf (``none_is_low``) or +inf."""
    if a is None or b is None:
        return None if none_is_low else (b if a is None else a)
    return min(a, b)


def opt_max(a: int | None, b: int | None, none_is_high: bool) -> int | None:
    """max with None meaning +inf (``none_is_high``) or -inf."""
    if a is None or b is None:
        return None if none_is_high else (b if a is None else a)
    return max(a, b)
