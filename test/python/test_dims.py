"""te dimensions <-> index-language expressions (`compiler.te.dims`): node to node, both ways."""

from __future__ import annotations

import pytest

from compiler import te
from compiler.arith import expr as A
from compiler.arith.simplify import simplify
from compiler.errors import ExprTypeError
from compiler.te.dims import canonical_dim, from_arith, to_arith

n, m = te.var("n"), te.var("m")


@pytest.mark.parametrize(
    ("dim", "expected"),
    [
        (7, A.IndexConst(7)),
        (n, A.IndexVar("n")),
        (n + 2, A.Add(A.IndexVar("n"), A.IndexConst(2))),
        (n - m, A.Sub(A.IndexVar("n"), A.IndexVar("m"))),
        (n * m // 4 % 3, A.FloorMod(A.FloorDiv(A.Mul(A.IndexVar("n"), A.IndexVar("m")), A.IndexConst(4)), A.IndexConst(3))),
        (te.max(n, m), A.Max(A.IndexVar("n"), A.IndexVar("m"))),
        (te.minimum(n, 8), A.Min(A.IndexVar("n"), A.IndexConst(8))),
    ],
)
def test_to_arith_converts_node_to_node(dim: te.Dim, expected: A.IndexExpr) -> None:
    assert to_arith(dim) == expected


def test_axes_convert_by_name() -> None:
    k = te.reduce_axis((0, n), name="k")
    assert to_arith(k * 2) == A.Mul(A.IndexVar("k"), A.IndexConst(2))


@pytest.mark.parametrize(
    "e",
    [
        A.IndexConst(-3),
        A.IndexVar("n"),
        A.Add(A.IndexVar("n"), A.IndexConst(1)),
        A.Sub(A.IndexConst(10), A.IndexVar("n")),
        A.FloorMod(A.FloorDiv(A.Mul(A.IndexVar("n"), A.IndexVar("m")), A.IndexConst(4)), A.IndexConst(3)),
        A.Max(A.Min(A.IndexVar("n"), A.IndexConst(8)), A.IndexVar("m")),
    ],
)
def test_round_trip_from_arith(e: A.IndexExpr) -> None:
    back = from_arith(e)
    assert isinstance(back, int) or back.dtype == "int64"
    assert to_arith(back) == e


def test_round_trip_from_te_keeps_the_canonical_form() -> None:
    for d in [n + 2, (n + 1) * m, te.max(n - 1, 0), n // 2 + n % 2]:
        once = to_arith(d)
        assert to_arith(from_arith(once)) == once
        assert canonical_dim(from_arith(once)) == canonical_dim(d) == str(simplify(once))


def test_from_arith_builds_te_nodes() -> None:
    d = from_arith(A.Min(A.IndexVar("n"), A.IndexConst(4)))
    assert isinstance(d, te.Call)
    assert d.func == "minimum"
    (a, b) = d.args
    assert isinstance(a, te.Var)
    assert a.name == "n"
    assert isinstance(b, te.Const)
    assert b.value == 4
    assert from_arith(A.IndexConst(5)) == 5


def test_canonical_dim() -> None:
    assert canonical_dim(n + 2 - 2) == "n"
    assert canonical_dim(te.const(3) * 4) == 12
    assert canonical_dim(n * 2 + n) == str(simplify(A.Mul(A.IndexVar("n"), A.IndexConst(3))))


@pytest.mark.parametrize(
    "dim",
    [
        te.const(2.0) + 1.0,  # a float
        te.if_then_else(n > 2, n, 2),  # a select
        te.placeholder((4,), "int64", name="lengths")[0],  # a read
        te.const(2, "int32").astype("int64"),  # a cast
        te.const(True),  # a bool
    ],
)
def test_what_has_no_counterpart_in_the_index_language(dim: te.Expr) -> None:
    with pytest.raises(ExprTypeError, match=r"cannot use .* in a shape"):
        to_arith(dim)


def test_conditions_have_no_counterpart_in_te_dims() -> None:
    with pytest.raises(ExprTypeError, match="not an index expression"):
        from_arith(A.lt(A.IndexVar("n"), 3))  # type: ignore[arg-type]  # what the test checks
