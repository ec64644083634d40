"""compiler.arith.builders makes the same ops as the xDSL constructors it stands for."""

from __future__ import annotations

import pytest
from alike import assert_same_op, values
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i32
from xdsl.ir import Attribute, Operation, SSAValue

from compiler.arith.builders import (
    binary,
    bool_constant,
    cmpi,
    index_cast,
    index_constant,
    int_constant,
)


def _values(t: Attribute) -> tuple[SSAValue, SSAValue]:
    a, b = values(t, t)
    return a, b


def _same(built: Operation, made: Operation) -> None:
    assert_same_op(built, made)
    assert not built.regions
    built.verify()


@pytest.mark.parametrize("value", [0, 1, -7, 2**40])
def test_index_constant(value: int) -> None:
    _same(index_constant(value), arith.ConstantOp(IntegerAttr(value, IndexType())))


@pytest.mark.parametrize("t", [IntegerType(32), IntegerType(64)])
@pytest.mark.parametrize("value", [0, 3, -1])
def test_int_constant(value: int, t: IntegerType) -> None:
    _same(int_constant(value, t), arith.ConstantOp(IntegerAttr(value, t)))


@pytest.mark.parametrize("value", [False, True])
def test_bool_constant(value: bool) -> None:
    _same(bool_constant(value), arith.ConstantOp(IntegerAttr(int(value), IntegerType(1))))


@pytest.mark.parametrize(
    "cls",
    [
        arith.AddiOp,
        arith.SubiOp,
        arith.MuliOp,
        arith.FloorDivSIOp,
        arith.MinSIOp,
        arith.MaxSIOp,
        arith.AndIOp,
        arith.OrIOp,
        arith.XOrIOp,
    ],
)
@pytest.mark.parametrize("t", [IndexType(), IntegerType(1), i32])
def test_binary(cls: type[arith.SignlessIntegerBinaryOperation], t: object) -> None:
    a, b = _values(t)
    _same(binary(cls, a, b), cls(a, b))


@pytest.mark.parametrize("predicate", arith.CMPI_COMPARISON_OPERATIONS)
def test_cmpi(predicate: str) -> None:
    a, b = _values(IndexType())
    _same(cmpi(a, b, predicate), arith.CmpiOp(a, b, predicate))


def test_index_cast() -> None:
    a, _ = _values(i32)
    _same(index_cast(a, IndexType()), arith.IndexCastOp(a, IndexType()))
