"""Tests for compiler.arith.simplify: rewrite rules, proofs and soundness."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    evaluate,
    evaluate_cond,
    free_vars,
)
from compiler.arith.parse import parse_cond, parse_expr
from compiler.arith.simplify import (
    Analyzer,
    BoundsArg,
    const_bounds,
    const_value,
    prove_eq,
    prove_ge,
    prove_gt,
    prove_le,
    prove_lt,
    simplify,
    simplify_cond,
)

P = parse_expr

# -- random expressions (kept in sync with test_expr.py) --------------------------

VARS = ("i", "j", "n")
_leaves = st.one_of(st.integers(-9, 9).map(IndexConst), st.sampled_from(VARS).map(IndexVar))
_nonzero = st.integers(-9, 9).filter(bool).map(IndexConst)
_positive = st.integers(1, 9).map(IndexConst)


def _extend(children: st.SearchStrategy[IndexExpr]) -> st.SearchStrategy[IndexExpr]:
    binary = st.tuples(st.sampled_from([Add, Sub, Mul, Min, Max]), children, children)
    division = st.tuples(
        st.sampled_from([FloorDiv, FloorMod]), children, _positive | _nonzero | children
    )
    return (binary | division).map(lambda t: t[0](t[1], t[2]))


exprs = st.recursive(_leaves, _extend, max_leaves=10)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def const_bounds_and_points(draw: st.DrawFn) -> tuple[BoundsArg, list[dict[str, int]]]:
    """Constant (possibly half-open) bounds for i, j, n and points inside them."""
    bounds: dict[str, tuple[int | None, int | None]] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for name in VARS:
        lo = draw(st.integers(-10, 10))
        hi = lo + draw(st.integers(0, 12))
        has_lo, has_hi = draw(st.booleans()), draw(st.booleans())
        bounds[name] = (lo if has_lo else None, hi if has_hi else None)
        ranges[name] = (lo if has_lo else hi - 25, hi if has_hi else lo + 25)
    points = [
        {name: draw(st.integers(*ranges[name])) for name in VARS}
        for _ in range(draw(st.integers(1, 6)))
    ]
    return bounds, points


# Symbolic bounds typical of a split loop: n >= 1 is a shape, i < ceildiv(n, 8).
SYMBOLIC_BOUNDS: BoundsArg = {
    "n": (1, None),
    "i": (0, P("(n + 7) // 8 - 1")),
    "j": (0, 7),
}


@st.composite
def symbolic_points(draw: st.DrawFn) -> list[dict[str, int]]:
    out = []
    for _ in range(draw(st.integers(1, 6))):
        nv = draw(st.integers(1, 40))
        iv = draw(st.integers(0, (nv + 7) // 8 - 1))
        out.append({"n": nv, "i": iv, "j": draw(st.integers(0, 7))})
    return out


def _ev(e: IndexExpr, env: dict[str, int]) -> int | None:
    try:
        return evaluate(e, env)
    except ZeroDivisionError:
        return None


def _s(text: str, bounds: BoundsArg | None = None) -> str:
    return str(simplify(P(text), bounds))


# -- rules with exact expected output -------------------------------------------------

NAT8 = {"j": (0, 7)}


@pytest.mark.parametrize(
    ("text", "bounds", "expected"),
    [
        # affine canonicalisation
        ("(i + 1) - 1", None, "i"),
        ("2 * (i + 3) - i", None, "i + 6"),
        ("i * 8 + j - i * 8", None, "j"),
        ("j + i * 8 - 1", None, "i * 8 + j - 1"),
        ("3 - i", None, "3 - i"),
        ("0 - i - 3", None, "-i - 3"),
        ("n - 8 * i", None, "n - i * 8"),
        ("(i + 1) * n - n", None, "i * n"),
        ("(i + j) * (i - j)", None, "i * i - j * j"),
        ("2 * 3 + 4 // 3 - 7 % 4 + min(2, 5) * max(-1, -4)", None, "2"),
        # floordiv
        ("(8 * i + j) // 8", None, "i + j // 8"),
        ("(8 * i + j) // 8", NAT8, "i"),
        ("(x // 4) // 2", None, "x // 8"),
        ("(x // 2 + 1) // 3", None, "(x + 2) // 6"),
        ("x // 1", None, "x"),
        ("(4 * i + 2) // 8", None, "(i * 2 + 1) // 4"),
        ("(i + 15) // 8", None, "(i + 7) // 8 + 1"),
        ("i // -2", None, "-i // 2"),
        ("j // 8", NAT8, "0"),
        ("(j + 8) // 8", NAT8, "1"),
        ("i // n", {"n": (1, None), "i": (0, P("n - 1"))}, "0"),
        ("(i * n + j) // n", {"n": (1, None), "j": (0, P("n - 1"))}, "i"),
        # floormod
        ("(8 * i + j) % 8", None, "j % 8"),
        ("(8 * i + j) % 8", NAT8, "j"),
        ("(x * 8) % 8", None, "0"),
        ("x % 1", None, "0"),
        ("(i * 9 + j) % 8", None, "(i + j) % 8"),
        ("(4 * i + 2) % 8", None, "(i * 2 + 1) % 4 * 2"),
        ("(x % 16) % 8", None, "x % 8"),
        ("(x % 8) % 16", None, "x % 8"),
        ("j % 8", NAT8, "j"),
        ("(j + 16) % 8", NAT8, "j"),
        ("i % -3", None, "-(-i % 3)"),
        ("(i * n + j) % n", {"n": (1, None), "j": (0, P("n - 1"))}, "j"),
        # div/mod recombination
        ("(f // 8) * 8 + f % 8", None, "f"),
        ("(f // w) * w + f % w", None, "f"),
        ("((f // 8) * 8 + f % 8) * 3 + 1", None, "f * 3 + 1"),
        # min / max
        ("min(x, x)", None, "x"),
        ("min(i, i + 1)", None, "i"),
        ("max(i, i + 1)", None, "i + 1"),
        ("min(i + 2, i - 2) + max(3, 7)", None, "i + 5"),
        ("min(8, n - i * 8)", None, "min(n - i * 8, 8)"),
        ("min(min(i, 3), min(j, 5))", None, "min(min(i, j), 3)"),
        ("max(max(i, 3), i)", None, "max(i, 3)"),
        ("min(i, 8)", {"i": (0, 7)}, "i"),
        ("max(i, 0)", {"i": (0, None)}, "i"),
        ("min(j, 7)", NAT8, "j"),
        ("max(j - 8, -1)", NAT8, "-1"),
        ("min(n - i * 8, 8)", {"n": (1, None), "i": (0, P("n // 8 - 1"))}, "8"),
        ("min(n - i * 8, 8)", SYMBOLIC_BOUNDS, "min(n - i * 8, 8)"),
        # a variable fixed by its bounds
        ("i * 2 + j", {"i": (3, 3)}, "j + 6"),
        # a tile's counter from a symbolic start: its bounds have one quotient
        ("f // 64", {"f": (P("fo * 64"), P("fo * 64 + 63"))}, "fo"),
        ("f % 64", {"f": (P("fo * 64"), P("fo * 64 + 63"))}, "f - fo * 64"),
        ("f // 64", {"f": (P("fo * 64"), P("fo * 64 + 64"))}, "f // 64"),  # two quotients
        ("f // 32", {"f": (P("fo * 64"), P("fo * 64 + 63"))}, "f // 32"),
    ],
)
def test_simplify_rules(text: str, bounds: BoundsArg | None, expected: str) -> None:
    result = simplify(P(text), bounds)
    assert str(result) == expected
    assert P(expected) == result or simplify(P(expected), bounds) == result


def test_equal_affine_forms_print_identically() -> None:
    a = simplify(P("(i + 2) * 8 + j - (n - 3)"))
    b = simplify(P("j + 19 - n + 8 * i"))
    assert a == b
    assert str(a) == "i * 8 + j - n + 19"


def test_division_by_zero_is_kept() -> None:
    assert str(simplify(P("x // 0 + 1"))) == "x // 0 + 1"
    assert str(simplify(P("x % 0"))) == "x % 0"


def test_prove_basic() -> None:
    i, j = IndexVar("i"), IndexVar("j")
    assert prove_le(i, i + 1)
    assert prove_lt(i, i + 1)
    assert not prove_lt(i, i)
    assert prove_eq(P("(i + 1) * 2"), P("2 * i + 2"))
    assert not prove_eq(i, j)
    assert prove_le(0, j, NAT8)
    assert prove_lt(j, 8, NAT8)
    assert not prove_lt(j, 7, NAT8)
    assert prove_ge(8, j, NAT8)
    assert prove_gt(j + 1, 0, NAT8)
    assert not prove_le(i, j)


def test_prove_symbolic_loop_bounds() -> None:
    # io in [0, n - 1], ii in [0, 7]  =>  io * 8 + ii < n * 8
    b = {"n": (1, None), "io": (0, P("n - 1")), "ii": (0, 7)}
    assert prove_lt(P("io * 8 + ii"), P("n * 8"), b)
    assert not prove_lt(P("io * 8 + ii"), P("n * 8 - 1"), b)
    # io < ceildiv(n, 8): the guard io * 8 + ii < n is really needed
    assert not prove_lt(
        P("io * 8 + ii"), P("n"), SYMBOLIC_BOUNDS | {"io": (0, P("(n + 7) // 8 - 1")), "ii": (0, 7)}
    )
    # 2-D flattening: i * W + j <= H * W - 1
    b2 = {"H": (1, None), "W": (1, None), "i": (0, P("H - 1")), "j": (0, P("W - 1"))}
    assert prove_le(P("i * W + j"), P("H * W - 1"), b2)
    assert not prove_le(P("i * W + j"), P("H * W - 2"), b2)


def test_prove_floordiv_and_minmax() -> None:
    nonneg = {"n": (0, None)}
    assert prove_le(P("n"), P("(n + 7) // 8 * 8"), nonneg)
    assert prove_le(P("(n + 7) // 8 * 8"), P("n + 7"), nonneg)
    assert not prove_le(P("(n + 7) // 8 * 8"), P("n + 6"), nonneg)
    assert prove_le(P("n // 3 * 2"), P("n"), nonneg)
    assert prove_le(P("min(n - i * 8, 8)"), P("n - i * 8"))
    assert prove_le(P("min(n - i * 8, 8)"), 8)
    assert prove_le(P("i"), P("max(i, j)"))
    assert not prove_le(P("max(i, j)"), P("i"))


def test_symbolic_floordiv_of_a_remainder_just_below_zero() -> None:
    """`(q * d + r) // d` is `q - 1` and the modulo `r + d` when `-d <= r < 0` (a split's
    tail bound gave `-1 // ((s + 3) // 4)` in attention's plan)."""
    pos = {"s": (1, None)}
    assert str(simplify(P("-1 // ((s + 3) // 4)"), pos)) == "-1"
    assert str(simplify(P("(s * 3 - 1) // s"), pos)) == "2"
    assert str(simplify(P("(s * 3 - 1) % s"), pos)) == "s - 1"
    # not when the remainder can reach -d - 1 or 0: s = 1 gives (3 - 2) // 1 = 1, not 2 - 1
    assert str(simplify(P("(s * 3 - 2) // s"), pos)) != "1"
    assert str(simplify(P("-1 // s"), {"s": (0, None)})) == "-1 // s"


def test_fold_into_minmax_when_the_variable_cancels() -> None:
    """A tight split's last index folds so that its interval over the outer loop is exact."""
    az = Analyzer({"s": (1, None), "o": (0, P("(s + 3) // 4 - 1"))})
    folded = az.fold_into_minmax(P("o * 4 + min(s - o * 4, 4) - 1"), "o")
    assert isinstance(folded, Min)
    assert "o" not in free_vars(folded.a) or "o" not in free_vars(folded.b)
    for s_value in (1, 5, 8, 13):
        for o_value in range((s_value + 3) // 4):
            env = {"s": s_value, "o": o_value}
            assert evaluate(folded, env) == evaluate(P("o * 4 + min(s - o * 4, 4) - 1"), env)
    # nothing cancels: left as it was (simplified)
    assert az.fold_into_minmax(P("o * 4 + min(s, 4)"), "o") == az.simplify(P("o * 4 + min(s, 4)"))


def test_substitution_picks_the_factor_that_cancels() -> None:
    """`m * n - m >= 0` for m, n >= 1: the bound search replaces one factor of `m * n` by
    its lower bound, and only `n` (which leaves `m - m`) proves it; it used to take the
    first name in sort order, so `min(batch * seq - 1, seq - 1)` folded to `seq - 1` but the
    same expression over other names did not (a fused axis's column, issue 37)."""
    for a, b in (("m", "n"), ("n", "m"), ("batch", "seq"), ("seq", "batch"), ("x", "a")):
        bounds: BoundsArg = {a: (1, None), b: (1, None)}
        assert str(simplify(P(f"min({a} * {b} - 1, {b} - 1)"), bounds)) == f"{b} - 1"
        assert prove_ge(P(f"{a} * {b}"), P(b), bounds)
    assert not prove_ge(P("m * n"), P("m"), {"m": (1, None), "n": (0, None)})  # n == 0


def test_const_bounds_and_value() -> None:
    assert const_bounds(P("min(n - i * 8, 8)"), SYMBOLIC_BOUNDS) == (1, 8)
    assert const_bounds(P("i * 8 + j"), SYMBOLIC_BOUNDS) == (0, None)
    assert const_bounds(P("j % 3 - j // 4"), NAT8) == (-1, 2)
    assert const_value(P("(i + 3) - i")) == 3
    assert const_value(P("i")) is None


def test_simplify_cond() -> None:
    b = {"i": (0, 9)}
    assert str(simplify_cond(parse_cond("0 <= i and i < 8"), b)) == "i < 8"
    assert str(simplify_cond(parse_cond("0 <= i and i < 10"), b)) == "True"
    assert str(simplify_cond(parse_cond("i < 0 or i >= 10"), b)) == "False"
    assert str(simplify_cond(parse_cond("not i < j"))) == "j <= i"
    assert str(simplify_cond(parse_cond("i + 1 == 1 + i"))) == "True"
    assert str(simplify_cond(parse_cond("i * 2 != i * 2 + 1"))) == "True"


def test_analyzer_reuse() -> None:
    an = Analyzer({"j": (0, 7)})
    assert str(an.simplify(P("(8 * i + j) // 8"))) == "i"
    assert an.prove_lt(P("j"), 8)
    assert an.const_bounds(P("j * 2 - 1")) == (-1, 13)


# -- soundness properties ------------------------------------------------------------


@SETTINGS
@given(
    exprs,
    st.lists(
        st.fixed_dictionaries({v: st.integers(-30, 30) for v in VARS}), min_size=1, max_size=5
    ),
)
def test_simplify_sound_without_bounds(e: IndexExpr, points: list[dict[str, int]]) -> None:
    s = simplify(e)
    for env in points:
        expected = _ev(e, env)
        if expected is not None:
            assert evaluate(s, env) == expected, (str(e), str(s), env)


@SETTINGS
@given(exprs, const_bounds_and_points())
def test_simplify_sound_with_bounds(e: IndexExpr, data: tuple[BoundsArg, list[dict[str, int]]]) -> None:
    bounds, points = data
    s = simplify(e, bounds)
    for env in points:
        expected = _ev(e, env)
        if expected is not None:
            assert evaluate(s, env) == expected, (str(e), str(s), bounds, env)


@SETTINGS
@given(exprs, symbolic_points())
def test_simplify_sound_with_symbolic_bounds(e: IndexExpr, points: list[dict[str, int]]) -> None:
    s = simplify(e, SYMBOLIC_BOUNDS)
    for env in points:
        expected = _ev(e, env)
        if expected is not None:
            assert evaluate(s, env) == expected, (str(e), str(s), env)


@SETTINGS
@given(exprs)
def test_simplify_idempotent(e: IndexExpr) -> None:
    s = simplify(e)
    assert simplify(s) == s, (str(e), str(s))


@SETTINGS
@given(exprs, exprs)
def test_simplify_canonical_for_commuted_operands(a: IndexExpr, b: IndexExpr) -> None:
    assert simplify(Add(a, b)) == simplify(Add(b, a))
    assert simplify(Mul(a, b)) == simplify(Mul(b, a))


@SETTINGS
@given(exprs, exprs, const_bounds_and_points())
def test_prove_sound(a: IndexExpr, b: IndexExpr, data: tuple[BoundsArg, list[dict[str, int]]]) -> None:
    bounds, points = data
    an = Analyzer(bounds)
    facts = {
        "le": an.prove_le(a, b),
        "lt": an.prove_lt(a, b),
        "eq": an.prove_eq(a, b),
    }
    lo, hi = an.const_bounds(a)
    for env in points:
        va, vb = _ev(a, env), _ev(b, env)
        if va is None or vb is None:
            continue
        assert not facts["le"] or va <= vb, (str(a), str(b), bounds, env)
        assert not facts["lt"] or va < vb, (str(a), str(b), bounds, env)
        assert not facts["eq"] or va == vb, (str(a), str(b), bounds, env)
        assert lo is None or lo <= va, (str(a), lo, bounds, env)
        assert hi is None or va <= hi, (str(a), hi, bounds, env)


@SETTINGS
@given(exprs, exprs, symbolic_points())
def test_prove_sound_symbolic(a: IndexExpr, b: IndexExpr, points: list[dict[str, int]]) -> None:
    an = Analyzer(SYMBOLIC_BOUNDS)
    le, lt = an.prove_le(a, b), an.prove_lt(a, b)
    lo, hi = an.const_bounds(a)
    for env in points:
        va, vb = _ev(a, env), _ev(b, env)
        if va is None or vb is None:
            continue
        assert not le or va <= vb, (str(a), str(b), env)
        assert not lt or va < vb, (str(a), str(b), env)
        assert lo is None or lo <= va, (str(a), lo, env)
        assert hi is None or va <= hi, (str(a), hi, env)


@SETTINGS
@given(exprs, exprs, const_bounds_and_points())
def test_simplify_cond_sound(
    a: IndexExpr, b: IndexExpr, data: tuple[BoundsArg, list[dict[str, int]]]
) -> None:
    bounds, points = data
    cond = parse_cond(f"{a} < {b} or not {a} == {b}")
    s = simplify_cond(cond, bounds)
    for env in points:
        va, vb = _ev(a, env), _ev(b, env)
        if va is None or vb is None:
            continue
        assert evaluate_cond(s, env) == evaluate_cond(cond, env)


# Structured index expressions: affine in loop variables with floordiv / floormod
# / min terms, the shapes that bound inference actually produces.
_LOOP = ("i", "j", "n")
_coeffs = st.integers(-9, 9)


@st.composite
def index_exprs(draw: st.DrawFn) -> IndexExpr:
    out: IndexExpr = IndexConst(draw(st.integers(-9, 9)))
    for _ in range(draw(st.integers(1, 4))):
        term: IndexExpr = IndexVar(draw(st.sampled_from(_LOOP)))
        kind = draw(st.sampled_from(["var", "div", "mod", "min", "prod"]))
        if kind == "div":
            term = FloorDiv(term + draw(_coeffs), IndexConst(draw(st.integers(1, 9))))
        elif kind == "mod":
            term = FloorMod(term * draw(_coeffs) + draw(_coeffs), IndexConst(draw(st.integers(1, 9))))
        elif kind == "min":
            term = Min(term, IndexVar(draw(st.sampled_from(_LOOP))) * draw(_coeffs) + draw(_coeffs))
        elif kind == "prod":
            term = term * IndexVar(draw(st.sampled_from(_LOOP)))
        out = Add(out, Mul(term, IndexConst(draw(_coeffs))))
    return out


@SETTINGS
@given(index_exprs(), index_exprs(), symbolic_points())
def test_prove_sound_structured(a: IndexExpr, b: IndexExpr, points: list[dict[str, int]]) -> None:
    an = Analyzer(SYMBOLIC_BOUNDS)
    le, lt = an.prove_le(a, b), an.prove_lt(a, b)
    sa = an.simplify(a)
    lo, hi = an.const_bounds(a)
    for env in points:
        va, vb = evaluate(a, env), evaluate(b, env)
        assert evaluate(sa, env) == va, (str(a), str(sa), env)
        assert not le or va <= vb, (str(a), str(b), env)
        assert not lt or va < vb, (str(a), str(b), env)
        assert lo is None or lo <= va, (str(a), lo, env)
        assert hi is None or va <= hi, (str(a), hi, env)
