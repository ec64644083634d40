"""Tests for compiler.arith.expr: construction, printing, parsing, evaluation."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    emax,
    emin,
    evaluate,
    evaluate_cond,
    free_vars,
    ge,
    gt,
    lt,
    substitute_cond,
    substitute_index,
    var,
)
from compiler.arith.parse import parse_cond, parse_expr

i, j, n, h = IndexVar("i"), IndexVar("j"), IndexVar("n"), IndexVar("h")

# -- random expressions ---------------------------------------------------------

VARS = ("i", "j", "n")
_leaves = st.one_of(st.integers(-9, 9).map(IndexConst), st.sampled_from(VARS).map(IndexVar))
_nonzero = st.integers(-9, 9).filter(bool).map(IndexConst)


def _extend(children: st.SearchStrategy[IndexExpr]) -> st.SearchStrategy[IndexExpr]:
    binary = st.tuples(st.sampled_from([Add, Sub, Mul, Min, Max]), children, children)
    division = st.tuples(st.sampled_from([FloorDiv, FloorMod]), children, _nonzero | children)
    return (binary | division).map(lambda t: t[0](t[1], t[2]))


exprs = st.recursive(_leaves, _extend, max_leaves=10)
envs = st.fixed_dictionaries({name: st.integers(-30, 30) for name in VARS})


def _conds_extend(children: st.SearchStrategy[Cond]) -> st.SearchStrategy[Cond]:
    return st.one_of(
        st.tuples(st.sampled_from([And, Or]), children, children).map(lambda t: t[0](t[1], t[2])),
        children.map(Not),
    )


_atoms = st.one_of(
    st.tuples(st.sampled_from([LT, LE, EQ, NE]), exprs, exprs).map(lambda t: t[0](t[1], t[2])),
    st.booleans().map(BoolConst),
)
conds = st.recursive(_atoms, _conds_extend, max_leaves=5)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _eval_or_none(e: IndexExpr, env: dict[str, int]) -> int | None:
    try:
        return evaluate(e, env)
    except ZeroDivisionError:
        return None


# -- construction ---------------------------------------------------------------


def test_operators_wrap_ints() -> None:
    assert IndexVar("i") * 8 + 3 == Add(Mul(i, IndexConst(8)), IndexConst(3))
    assert 3 + i == Add(IndexConst(3), i)
    assert 2 - i == Sub(IndexConst(2), i)
    assert 2 * i == Mul(IndexConst(2), i)
    assert 7 // i == FloorDiv(IndexConst(7), i)
    assert 7 % i == FloorMod(IndexConst(7), i)
    assert i // 2 == FloorDiv(i, IndexConst(2))
    assert i % 2 == FloorMod(i, IndexConst(2))
    assert -i == Mul(IndexConst(-1), i)
    assert -IndexConst(4) == IndexConst(-4)
    assert emin(i, 3) == Min(i, IndexConst(3))
    assert emax(0, j) == Max(IndexConst(0), j)
    assert var("k") == IndexVar("k")


def test_structural_equality_and_hash() -> None:
    assert i + 1 == IndexVar("i") + 1
    assert i + 1 != 1 + i
    assert len({i + 1, IndexVar("i") + 1, i + 2}) == 2
    assert IndexConst(3) != IndexVar("3")


def test_no_ordering_and_bad_operands() -> None:
    with pytest.raises(TypeError):
        _ = i < j  # type: ignore[operator]
    with pytest.raises(TypeError):
        _ = i + 1.5  # type: ignore[operator]
    with pytest.raises(TypeError):
        IndexConst(True)


# -- printing -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (h // 2, "h // 2"),
        (i * 8 + j - 1, "i * 8 + j - 1"),
        ((h + 1) // 2, "(h + 1) // 2"),
        (emin(n - i * 8, 8), "min(n - i * 8, 8)"),
        (i - (j - 1), "i - (j - 1)"),
        (i - (j + 1), "i - (j + 1)"),
        ((i - j) - 1, "i - j - 1"),
        (i * (j * n), "i * (j * n)"),
        (i // (j // 2), "i // (j // 2)"),
        ((i * 4) % 3, "i * 4 % 3"),
        (i * (j % 3), "i * (j % 3)"),
        (-i, "-i"),
        (-(i + j), "-(i + j)"),
        (-i // 2, "-i // 2"),
        (i + -3, "i - 3"),
        (i - -3, "i - -3"),
        (IndexConst(-2) * i, "-2 * i"),
        (emax(i, -1) * 2, "max(i, -1) * 2"),
    ],
)
def test_str(expr: IndexExpr, text: str) -> None:
    assert str(expr) == text
    assert evaluate(parse_expr(text), {"i": 5, "j": 3, "n": 2, "h": 7}) == evaluate(
        expr, {"i": 5, "j": 3, "n": 2, "h": 7}
    )


def test_cond_str() -> None:
    assert str(LE(IndexConst(1), i) & LT(i, IndexConst(57))) == "1 <= i and i < 57"
    assert str(Or(LT(i, j), EQ(i, n)) & NE(j, IndexConst(0))) == "(i < j or i == n) and j != 0"
    assert str(~(LT(i, j) & LT(j, n))) == "not (i < j and j < n)"
    assert str(Not(LT(i, j)) | LE(j, n)) == "not i < j or j <= n"
    assert str(BoolConst(True)) == "True"
    assert gt(i, 3) == LT(IndexConst(3), i)
    assert ge(i, 3) == LE(IndexConst(3), i)
    assert lt(i, 3) == LT(i, IndexConst(3))


# -- parsing ------------------------------------------------------------------------


def test_parse_expr() -> None:
    assert parse_expr("i * 8 + j - 1") == Sub(Add(Mul(i, IndexConst(8)), j), IndexConst(1))
    assert parse_expr(" (h + 1) // 2 ") == FloorDiv(Add(h, IndexConst(1)), IndexConst(2))
    assert parse_expr("min(n - i * 8, 8)") == Min(Sub(n, Mul(i, IndexConst(8))), IndexConst(8))
    assert parse_expr("max(i, j, 3)") == Max(Max(i, j), IndexConst(3))
    assert parse_expr("-3") == IndexConst(-3)
    assert parse_expr("-i") == Mul(IndexConst(-1), i)
    assert parse_expr("+i % 4") == FloorMod(i, IndexConst(4))
    assert parse_expr("x_1 * shape0") == Mul(IndexVar("x_1"), IndexVar("shape0"))


@pytest.mark.parametrize(
    ("text", "offending"),
    [
        ("i ** 2", "i ** 2"),
        ("i / 2", "i / 2"),
        ("x.shape + 1", "x.shape"),
        ("f(i)", "f(i)"),
        ("min(i)", "min(i)"),
        ("min(i, key=j)", "min(i, key=j)"),
        ("i + 1.5", "1.5"),
        ("True + i", "True"),
        ("i < j", "i < j"),
        ("i if j else n", "i if j else n"),
        ("i +", "i +"),
        ("min + 1", "min"),
    ],
)
def test_parse_expr_errors(text: str, offending: str) -> None:
    with pytest.raises(ValueError, match=re.escape(repr(offending))):
        parse_expr(text)


def test_parse_cond() -> None:
    assert parse_cond("1 <= i and i < 57") == And(LE(IndexConst(1), i), LT(i, IndexConst(57)))
    assert parse_cond("0 <= i < n") == And(LE(IndexConst(0), i), LT(i, n))
    assert parse_cond("i > j") == LT(j, i)
    assert parse_cond("i >= j") == LE(j, i)
    assert parse_cond("not (i == j or i != n)") == Not(Or(EQ(i, j), NE(i, n)))
    assert parse_cond("True") == BoolConst(True)
    with pytest.raises(ValueError, match="i"):
        parse_cond("i")
    with pytest.raises(ValueError, match="is"):
        parse_cond("i is j")


# -- evaluation and traversal -----------------------------------------------------


def test_evaluate_floor_semantics() -> None:
    env = {"i": -7, "j": 2}
    assert evaluate(i // j, env) == -4
    assert evaluate(i % j, env) == 1
    assert evaluate(i % -j, env) == -1
    assert evaluate(emin(i, j) * emax(i, j), env) == -14
    with pytest.raises(ZeroDivisionError):
        evaluate(i // (j - 2), env)
    with pytest.raises(ZeroDivisionError):
        evaluate(i % (j - 2), env)
    with pytest.raises(KeyError):
        evaluate(i + n, env)


def test_evaluate_cond() -> None:
    c = parse_cond("1 <= i and i < 57 or not j != 3")
    assert evaluate_cond(c, {"i": 1, "j": 0})
    assert not evaluate_cond(c, {"i": 57, "j": 0})
    assert evaluate_cond(c, {"i": 57, "j": 3})


def test_free_vars_and_substitute() -> None:
    e = emin(i * 8 + j, n) // 2
    assert free_vars(e) == frozenset({"i", "j", "n"})
    assert free_vars(IndexConst(3)) == frozenset()
    assert free_vars(parse_cond("i < 3 and not j == n")) == frozenset({"i", "j", "n"})
    swapped = substitute_index(i - j, {"i": j, "j": i})
    assert swapped == Sub(j, i)
    assert substitute_index(e, {"i": 2, "n": h}) == FloorDiv(
        Min(Add(Mul(IndexConst(2), IndexConst(8)), j), h), IndexConst(2)
    )
    assert substitute_cond(LT(i, n), {"n": 4}) == LT(i, IndexConst(4))


# -- properties -------------------------------------------------------------------


@SETTINGS
@given(exprs, envs)
def test_print_parse_roundtrip(e: IndexExpr, env: dict[str, int]) -> None:
    text = str(e)
    parsed = parse_expr(text)
    assert _eval_or_none(parsed, env) == _eval_or_none(e, env)
    # printing is a fixed point after one round trip
    assert str(parse_expr(str(parsed))) == str(parsed)


@SETTINGS
@given(exprs, envs)
def test_evaluate_matches_python(e: IndexExpr, env: dict[str, int]) -> None:
    expected: int | None
    try:
        expected = eval(str(e), {"min": min, "max": max}, dict(env))
    except ZeroDivisionError:
        expected = None
    assert _eval_or_none(e, env) == expected


@settings(max_examples=100, deadline=None)
@given(conds, envs)
def test_cond_roundtrip(c: Cond, env: dict[str, int]) -> None:
    parsed = parse_cond(str(c))

    def ev(x: Cond) -> bool | None:
        try:
            return evaluate_cond(x, env)
        except ZeroDivisionError:
            return None

    assert ev(parsed) == ev(c)
