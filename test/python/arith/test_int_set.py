"""Tests for compiler.arith.int_set: interval sets and eval_set soundness."""

from __future__ import annotations

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
)
from compiler.arith.int_set import IntSet, eval_set, intersect_all, union_all
from compiler.arith.parse import parse_expr
from compiler.arith.simplify import Analyzer

P = parse_expr
SHAPES = {"n": (1, None), "h": (1, None)}

# -- random expressions (kept in sync with test_expr.py) --------------------------

VARS = ("i", "j", "n")
_leaves = st.one_of(st.integers(-9, 9).map(IndexConst), st.sampled_from(VARS).map(IndexVar))
_nonzero = st.integers(-9, 9).filter(bool).map(IndexConst)


def _extend(children: st.SearchStrategy[IndexExpr]) -> st.SearchStrategy[IndexExpr]:
    binary = st.tuples(st.sampled_from([Add, Sub, Mul, Min, Max]), children, children)
    division = st.tuples(st.sampled_from([FloorDiv, FloorMod]), children, _nonzero | children)
    return (binary | division).map(lambda t: t[0](t[1], t[2]))


exprs = st.recursive(_leaves, _extend, max_leaves=10)
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ev(e: IndexExpr, env: dict[str, int]) -> int | None:
    try:
        return evaluate(e, env)
    except ZeroDivisionError:
        return None


def _s(s: IntSet) -> str:
    return str(s)


# -- IntSet basics ---------------------------------------------------------------------


def test_constructors_and_predicates() -> None:
    assert IntSet.point(P("i")) == IntSet(P("i"), P("i"))
    assert IntSet.point(P("i")).is_point()
    assert IntSet(P("i + 1 - 1"), P("i")).is_point()
    assert not IntSet(0, 3).is_point()
    assert _s(IntSet.from_range(P("i * 8"), 8)) == "[i * 8, i * 8 + 7]"
    assert _s(IntSet.from_range(0, P("n"))) == "[0, n - 1]"
    assert IntSet.from_range(0, 0).is_empty()
    assert not IntSet.from_range(0, P("n"), SHAPES).is_empty()
    assert IntSet.everything().is_everything()
    assert not IntSet.empty().is_everything()
    assert IntSet.empty().is_empty()
    assert _s(IntSet.empty()) == "{}"
    assert _s(IntSet(None, 3)) == "[-inf, 3]"
    assert IntSet(2, 5).contains(5, {})
    assert not IntSet(2, 5).contains(6, {})
    assert not IntSet.empty().contains(0, {})
    assert IntSet(P("n"), None).contains(7, {"n": 7})


def test_union_and_intersect() -> None:
    a, b = IntSet(P("i"), P("i + 3")), IntSet(P("i + 2"), P("i + 8"))
    assert _s(a.union(b)) == "[i, i + 8]"
    assert _s(a.intersect(b)) == "[i + 2, i + 3]"
    assert IntSet(0, 3).intersect(IntSet(5, 9)).is_empty()
    assert _s(IntSet(0, P("n - 1")).union(IntSet(3, 5), SHAPES)) == "[0, max(n - 1, 5)]"
    assert _s(IntSet(0, P("n")).union(IntSet(P("n"), P("n + 4")))) == "[min(n, 0), n + 4]"
    assert _s(IntSet(0, P("n")).union(IntSet(P("n"), P("n + 4")), SHAPES)) == "[0, n + 4]"
    assert IntSet(0, 3).union(IntSet(None, 1)).lo is None
    assert IntSet.empty().union(IntSet(1, 2)) == IntSet(IndexConst(1), IndexConst(2))
    assert IntSet(1, 2).intersect(IntSet.empty()).is_empty()
    assert _s(IntSet(0, None).intersect(IntSet(None, P("n")))) == "[0, n]"
    assert (
        _s(union_all([IntSet.point(3), IntSet.point(P("n"))], SHAPES)) == "[min(n, 3), max(n, 3)]"
    )
    assert union_all([]).is_empty()
    assert intersect_all([]).is_everything()
    assert _s(intersect_all([IntSet(0, 9), IntSet(3, 12), IntSet(None, 5)])) == "[3, 5]"


def test_cover_range_and_extent() -> None:
    s = IntSet(P("i * 8"), P("i * 8 + 7"))
    assert tuple(map(str, s.cover_range(0, 64))) == ("i * 8", "8")
    assert str(s.extent()) == "8"
    assert tuple(map(str, IntSet(P("x"), None).cover_range(0, P("n")))) == ("x", "n - x")
    assert tuple(map(str, IntSet(None, 5).cover_range(0, 64))) == ("0", "6")
    assert tuple(map(str, IntSet.everything().cover_range(0, P("n")))) == ("0", "n")
    assert tuple(map(str, IntSet.empty().cover_range(0, 64))) == ("0", "0")
    assert IntSet(0, None).extent() is None
    assert str(IntSet.empty().extent()) == "0"


# -- eval_set ---------------------------------------------------------------------------

SPLIT_DOM = {
    "io": IntSet(IndexConst(0), P("(n + 7) // 8 - 1")),
    "ii": IntSet.from_range(0, 8),
    "i": IntSet.from_range(0, P("n")),
    "k": IntSet.from_range(0, 3),
}


def _es(text: str) -> str:
    return str(eval_set(P(text), SPLIT_DOM, SHAPES))


def test_eval_set_rules() -> None:
    assert _es("io * 8 + ii") == "[0, (n + 7) // 8 * 8 - 1]"
    assert _es("i + k - 1") == "[-1, n]"
    assert _es("i * 2 - k") == "[-2, n * 2 - 2]"
    assert _es("-i") == "[1 - n, 0]"
    assert _es("i * n") == "[0, n * n - n]"
    assert _es("i * io") == "[0, n * ((n + 7) // 8) - n - (n + 7) // 8 + 1]"
    assert _es("i * (k - 1)") == "[1 - n, n * 2 - 2]"
    assert _es("i * x") == "[-inf, +inf]"
    assert _es("i // 8") == "[0, (n + 7) // 8 - 1]"
    assert _es("i // -2") == "[(1 - n) // 2, 0]"
    assert _es("k // n") == "[0, 2 // n]"
    assert _es("i % 8") == "[0, min(n - 1, 7)]"
    assert _es("(io * 8 + ii) % 8") == "[0, 7]"
    assert _es("(x * 8 + ii) % 8") == "[0, 7]"
    assert _es("(x * 8 + 3) % 8") == "[3, 3]"
    assert _es("(x + k) % 16 ") == "[0, 15]"
    assert _es("k % -4") == "[-3, 0]"
    assert _es("k % n") == "[0, min(n - 1, 2)]"
    assert _es("min(n - io * 8, 8)") == "[n - (n + 7) // 8 * 8 + 8, min(n, 8)]"
    assert _es("max(i, k)") == "[0, max(n - 1, 2)]"
    assert _es("h // 2") == "[h // 2, h // 2]"
    assert _es("x % y") == "[x % y, x % y]"
    assert _es("i * 0") == "[0, 0]"


def test_eval_set_unbounded_and_empty() -> None:
    dom = {"a": IntSet(0, None), "b": IntSet.empty()}
    assert str(eval_set(P("a * 2 + 1"), dom)) == "[1, +inf]"
    assert str(eval_set(P("3 - a"), dom)) == "[-inf, 3]"
    assert str(eval_set(P("a // 4"), dom)) == "[0, +inf]"
    assert str(eval_set(P("a % 4"), dom)) == "[0, 3]"
    assert str(eval_set(P("min(a, 5)"), dom)) == "[0, 5]"
    assert eval_set(P("a + b"), dom).is_empty()
    both = {"a": IntSet(0, None), "c": IntSet(1, 3)}
    assert str(eval_set(P("a * c"), both)) == "[0, +inf]"
    assert str(eval_set(P("a // c"), both)) == "[0, +inf]"
    assert str(eval_set(P("c // c"), both)) == "[0, 3]"
    assert str(eval_set(P("a % c"), both)) == "[0, 2]"


def test_eval_set_divisor_that_may_be_zero() -> None:
    """A divisor m known only >= 0 (a shape variable) is read as max(m, 1): a fused
    axis f over [0, n*m - 1] gives f % m in [0, m - 1] wherever m >= 1."""
    bounds = {"n": (0, None), "m": (0, None)}
    dom = {"f": IntSet.from_range(0, P("n * m"), bounds), "c": IntSet(IndexConst(-3), P("m"))}
    assert str(eval_set(P("f % m"), dom, bounds)) == "[0, min(m * n - 1, max(m, 1) - 1)]"
    assert str(eval_set(P("f // m"), dom, bounds)) == "[0, (m * n - 1) // max(m, 1)]"
    assert str(eval_set(P("c % m"), dom, bounds)) == "[0, max(m, 1) - 1]"
    assert str(eval_set(P("f % c"), dom, bounds)) == "[-inf, +inf]"  # c may be negative
    assert str(eval_set(P("x % m"), dom, bounds)) == "[x % m, x % m]"  # a point stays exact


@SETTINGS
@given(exprs, st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=6))
def test_eval_set_sound_divisor_may_be_zero(e: IndexExpr, sizes: list[tuple[int, int]]) -> None:
    """With n, m >= 0 and i over [0, n*m - 1] (empty when n*m == 0), every value the
    expression takes where it is defined lies in the set, whose ends stay defined."""
    bounds = {"n": (0, None), "j": (0, None)}
    dom = {"i": IntSet.from_range(0, P("n * j"), bounds)}
    s = eval_set(e, dom, bounds)
    for nv, jv in sizes:
        for iv in range(nv * jv):
            env = {"n": nv, "j": jv, "i": iv}
            v = _ev(e, env)
            if v is not None:
                assert s.contains(v, env), (str(e), str(s), env, v)


def test_eval_set_nonempty_domain() -> None:
    """`nonempty=True`: the ends may assume every domain set non-empty. A fused axis f over
    [0, n*m - 1] is non-empty only if n, m >= 1, so its row f // m spans [0, n - 1] and its
    column f % m [0, m - 1] (issue 37: GPT-2's Conv1D flattens (batch, seq) and unflattens
    it, and without this each layer nested the last one's bound twice)."""
    bounds = {"n": (0, None), "m": (0, None)}
    dom = {"f": IntSet.from_range(0, P("n * m"), bounds), "c": IntSet(IndexConst(-3), P("m"))}
    assert str(eval_set(P("f // m"), dom, bounds, nonempty=True)) == "[0, n - 1]"
    assert str(eval_set(P("f % m"), dom, bounds, nonempty=True)) == "[0, m - 1]"
    rows = {"r": eval_set(P("f // m"), dom, bounds, nonempty=True), "k": eval_set(P("f % m"), dom, bounds, nonempty=True)}
    assert str(eval_set(P("r * m + k"), rows, bounds, nonempty=True)) == "[0, m * n - 1]"
    # an end that would divide by m (0 where the domain is empty) is not taken: the
    # assumption-free set, defined at m == 0, instead
    assert str(eval_set(P("c // m"), dom, bounds, nonempty=True)) == str(eval_set(P("c // m"), dom, bounds))
    # a size that is not a product of symbolic points implies nothing
    assert str(eval_set(P("f // m"), {"f": IntSet.from_range(0, P("n * m + 1"), bounds)}, bounds, nonempty=True)) == (
        "[0, m * n // max(m, 1)]"
    )


@SETTINGS
@given(exprs, st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=6))
def test_eval_set_nonempty_sound(e: IndexExpr, sizes: list[tuple[int, int]]) -> None:
    """`nonempty=True` with n, j >= 0 and i over [0, n*j - 1]: every value the expression
    takes lies in the set, and the ends are defined at every size, 0 included (where the
    domain is empty and the set may be anything)."""
    bounds = {"n": (0, None), "j": (0, None)}
    dom = {"i": IntSet.from_range(0, P("n * j"), bounds)}
    s = eval_set(e, dom, bounds, nonempty=True)
    plain = eval_set(e, dom, bounds)
    for nv, jv in sizes:
        env = {"n": nv, "j": jv}
        for end in (s.lo, s.hi):
            # defined wherever the assumption-free set is (a point x // j is kept by both)
            if end is not None and all(x is None or _ev(x, env) is not None for x in (plain.lo, plain.hi)):
                assert _ev(end, env) is not None, (str(e), str(s), env)
        for iv in range(nv * jv):
            env = {"n": nv, "j": jv, "i": iv}
            v = _ev(e, env)
            if v is not None:
                assert s.contains(v, env), (str(e), str(s), env, v)


def test_eval_set_conv_index_in_bounds() -> None:
    """A strided conv2d input index stays inside the flattened NCHW buffer."""
    bounds = {
        **{s: (1, None) for s in ("N", "C", "H", "W")},
        "n": (0, P("N - 1")),
        "c": (0, P("C - 1")),
        "oh": (0, P("(H - 3) // 2")),
        "ow": (0, P("(W - 3) // 2")),
        "kh": (0, 2),
        "kw": (0, 2),
    }
    dom = {v: IntSet(*bounds[v]) for v in ("n", "c", "oh", "ow", "kh", "kw")}
    index = P("((n * C + c) * H + oh * 2 + kh) * W + ow * 2 + kw")
    s = eval_set(index, dom, bounds)
    assert str(s.lo) == "0"
    assert s.hi is not None
    an = Analyzer(bounds)
    assert an.prove_le(s.hi, P("N * C * H * W - 1"))
    assert an.prove_lt(P("oh * 2 + kh"), P("H"))


# -- soundness properties ----------------------------------------------------------------


@st.composite
def const_dom(draw: st.DrawFn) -> tuple[dict[str, IntSet], list[dict[str, int]]]:
    """Constant intervals (possibly half-open) for i and j; n stays symbolic."""
    dom: dict[str, IntSet] = {}
    ranges: dict[str, tuple[int, int]] = {}
    for name in ("i", "j"):
        lo = draw(st.integers(-10, 10))
        hi = lo + draw(st.integers(0, 12))
        has_lo, has_hi = draw(st.booleans()), draw(st.booleans())
        dom[name] = IntSet(lo if has_lo else None, hi if has_hi else None)
        ranges[name] = (lo if has_lo else hi - 25, hi if has_hi else lo + 25)
    ranges["n"] = (-20, 20)
    points = [
        {name: draw(st.integers(*ranges[name])) for name in VARS}
        for _ in range(draw(st.integers(1, 6)))
    ]
    return dom, points


@st.composite
def symbolic_dom_points(draw: st.DrawFn) -> list[dict[str, int]]:
    """Points for i in [0, n - 1], j in [0, (n + 7) // 8 - 1], n >= 1."""
    out = []
    for _ in range(draw(st.integers(1, 6))):
        nv = draw(st.integers(1, 40))
        out.append(
            {
                "n": nv,
                "i": draw(st.integers(0, nv - 1)),
                "j": draw(st.integers(0, (nv + 7) // 8 - 1)),
            }
        )
    return out


SYMBOLIC_DOM = {"i": IntSet.from_range(0, P("n")), "j": IntSet(IndexConst(0), P("(n + 7) // 8 - 1"))}


@SETTINGS
@given(exprs, const_dom())
def test_eval_set_sound_const_dom(
    e: IndexExpr, data: tuple[dict[str, IntSet], list[dict[str, int]]]
) -> None:
    dom, points = data
    s = eval_set(e, dom)
    for env in points:
        v = _ev(e, env)
        if v is not None:
            assert s.contains(v, env), (str(e), str(s), env, v)


@SETTINGS
@given(exprs, symbolic_dom_points())
def test_eval_set_sound_symbolic_dom(e: IndexExpr, points: list[dict[str, int]]) -> None:
    s = eval_set(e, SYMBOLIC_DOM, {"n": (1, None)})
    for env in points:
        v = _ev(e, env)
        if v is not None:
            assert s.contains(v, env), (str(e), str(s), env, v)


_ends = st.one_of(
    st.none(),
    st.integers(-8, 8).map(IndexConst),
    st.tuples(st.integers(-2, 2), st.integers(-8, 8)).map(lambda t: IndexVar("n") * t[0] + t[1]),
)
_sets = st.one_of(st.tuples(_ends, _ends).map(lambda t: IntSet(*t)), st.just(IntSet.empty()))


@SETTINGS
@given(_sets, _sets, st.integers(0, 6), st.lists(st.integers(-30, 30), min_size=1, max_size=8))
def test_union_intersect_sound(a: IntSet, b: IntSet, nv: int, values: list[int]) -> None:
    bounds = {"n": (0, 6)}
    u, x = a.union(b, bounds), a.intersect(b, bounds)
    env = {"n": nv}
    for v in values:
        in_a, in_b = a.contains(v, env), b.contains(v, env)
        if in_a or in_b:
            assert u.contains(v, env), (str(a), str(b), str(u), env, v)
        if in_a and in_b:
            assert x.contains(v, env), (str(a), str(b), str(x), env, v)
        if x.is_empty():
            assert not (in_a and in_b)


@SETTINGS
@given(_sets, st.integers(0, 6), st.lists(st.integers(-30, 30), min_size=1, max_size=8))
def test_cover_range_sound(a: IntSet, nv: int, values: list[int]) -> None:
    lo, ext = a.cover_range(-10, 21)
    env = {"n": nv}
    start, extent = evaluate(lo, env), evaluate(ext, env)
    for v in values:
        if a.contains(v, env) and -10 <= v <= 10:
            assert start <= v < start + extent, (str(a), str(lo), str(ext), env, v)
