"""lower-to-llvm builds its llvm ops with `Operation.create` (scalar.py, memory.py): each
must be the op the dialect's constructor builds (same properties, attributes, types),
and the folds of trivial index arithmetic must keep the values."""

from __future__ import annotations

import numpy as np
import pytest
from alike import assert_same_op, values
from xdsl.dialects import arith, cf, llvm
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32, i1, i8, i32, i64
from xdsl.ir import Block, Operation

import compiler
from compiler import te
from compiler.lowering import scalar
from compiler.lowering.memory import gep_constant, gep_inbounds, load_value


@pytest.mark.parametrize("source", list(scalar._INT_BINARY))
def test_integer_binary_ops_match_their_constructors(source: type[Operation]) -> None:
    a, b = values(i32, i32)
    built = scalar.LowerScalarOps().lower(source.create(operands=[a, b], result_types=[i32]))
    assert isinstance(built, Operation)
    assert_same_op(built, scalar._INT_BINARY[source](a, b))


@pytest.mark.parametrize("source", list(scalar._NSW_BINARY))
def test_overflow_flags_match_their_constructors(source: type[Operation]) -> None:
    a, b = values(i64, i64)
    x, y = values(IndexType(), IndexType())
    plain = scalar.LowerScalarOps().lower(source.create(operands=[a, b], result_types=[i64]))
    nsw = scalar.LowerScalarOps().lower(source.create(operands=[x, y], result_types=[IndexType()]))
    assert isinstance(plain, Operation)
    assert isinstance(nsw, Operation)
    assert_same_op(plain, scalar._NSW_BINARY[source](a, b))
    assert nsw.properties == scalar._NSW_BINARY[source](a, b, overflow=scalar.NSW).properties


@pytest.mark.parametrize("fp_contract", [False, True])
@pytest.mark.parametrize("source", list(scalar._FLOAT_BINARY))
def test_float_binary_ops_match_their_constructors(source: type[Operation], fp_contract: bool) -> None:
    a, b = values(f32, f32)
    lowering = scalar.LowerScalarOps(fp_contract=fp_contract)
    built = lowering.lower(source.create(operands=[a, b], result_types=[f32]))
    assert isinstance(built, Operation)
    flags = lowering.float_flags if isinstance(built, llvm.FAddOp | llvm.FSubOp | llvm.FMulOp) else None
    assert_same_op(built, scalar._FLOAT_BINARY[source](a, b, fast_math=flags))


def test_casts_compares_selects_and_branches_match_their_constructors() -> None:
    a, b = values(i32, i32)
    (c,) = values(i1)
    (wide,) = values(i64)
    lowering = scalar.LowerScalarOps()
    assert_same_op(lowering.lower(arith.ExtSIOp(a, i64)), llvm.SExtOp(a, i64))
    assert_same_op(lowering.lower(arith.TruncIOp(wide, i32)), llvm.TruncOp(wide, i32))
    assert_same_op(lowering.lower(arith.CmpiOp(a, b, "slt")), llvm.ICmpOp(a, b, IntegerAttr(2, i64)))
    assert_same_op(lowering.lower(arith.SelectOp(c, a, b)), llvm.SelectOp(c, a, b))
    then, other = Block(arg_types=[i32]), Block()
    assert_same_op(
        lowering.lower(cf.ConditionalBranchOp(c, then, [a], other, [])),
        llvm.CondBrOp(c, then, [a], other, []),
    )
    assert_same_op(lowering.lower(cf.BranchOp(then, b)), llvm.BrOp(then, b))


def test_access_gep_matches_from_mixed_indices() -> None:
    ptr, index = values(llvm.LLVMPointerType(), i64)
    assert_same_op(gep_inbounds(ptr, index, f32), llvm.GEPOp.from_mixed_indices(ptr, [index], f32, inbounds=True))


@pytest.mark.parametrize("n", [1, 7, 64])
def test_folded_bounds_and_offsets_compute_the_same(n: int) -> None:
    # index math with 0 lower bounds, unit factors and floordivs by 1 and by a constant
    x = te.placeholder((n, 3), name="x")
    y = te.compute((n, 3), lambda i, j: x[i // 1 * 1 + 0, (j * 1 + 2) % 3] * 2.0 + x[(i + 5) // 2 % n, j], name="y")
    f = compiler.build([x, y], name="f")
    data = np.random.default_rng(0).standard_normal((n, 3)).astype(np.float32)
    out = np.empty((n, 3), np.float32)
    f(data, out)
    rows = ((np.arange(n) + 5) // 2) % n
    expected = data[:, [2, 0, 1]] * 2.0 + data[rows, :]
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_constant_index_geps_and_loads_match_their_constructors() -> None:
    """The packed function's field reads (packed_abi.py) are built with these."""
    (ptr,) = values(llvm.LLVMPointerType())
    for index, elem in ((24, i8), (3, i64), (0, llvm.LLVMPointerType())):
        assert_same_op(gep_constant(ptr, index, elem), llvm.GEPOp.from_mixed_indices(ptr, [index], elem))
    for t in (i32, i64, llvm.LLVMPointerType()):
        assert_same_op(load_value(ptr, t), llvm.LoadOp(ptr, t))
