"""The `arith` ops the passes emit for index math, built without IRDL's generic builder.

`OpClass(...)` goes through `irdl_op_init`, which matches every operand, result and
property against the op's definition: for the few thousand constants, additions and
comparisons of a build that was a tenth of the passes' time. `OpClass.create` makes
the same op (the same operands, result types and properties as the constructor sets;
`test/python/arith/test_builders.py` compares them) without those checks; `module.verify()` still
checks the result under COMPILER_VERIFY.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue

INDEX = IndexType()
_NO_OVERFLOW = arith.IntegerOverflowAttr("none")
_I1 = IntegerType(1)
_I64 = IntegerType(64)
_PREDICATES = {name: IntegerAttr(k, _I64) for k, name in enumerate(arith.CMPI_COMPARISON_OPERATIONS)}
_INDEX_ATTRS: dict[int, IntegerAttr] = {}
"""Attributes are immutable: one `IntegerAttr` per index constant serves every op."""


def wrap_index(value: int) -> int:
    """`value` as a 64-bit signed index holds it (two's complement): index arithmetic
    wraps at run time, and a constant a pass folds wraps the same way."""
    return (value + 2**63) % 2**64 - 2**63


def index_attr(value: int) -> IntegerAttr:
    value = wrap_index(value)
    attr = _INDEX_ATTRS.get(value)
    if attr is None:
        attr = IntegerAttr(value, INDEX)
        if len(_INDEX_ATTRS) < 4096:  # small ints recur; a bound keeps the cache small
            _INDEX_ATTRS[value] = attr
    return attr


def index_constant(value: int) -> arith.ConstantOp:
    """`arith.ConstantOp(IntegerAttr(value, IndexType()))`."""
    return arith.ConstantOp.create(result_types=(INDEX,), properties={"value": index_attr(value)})


def int_constant(value: int, t: IntegerType) -> arith.ConstantOp:
    """`arith.ConstantOp(IntegerAttr(value, t))`."""
    return arith.ConstantOp.create(result_types=(t,), properties={"value": IntegerAttr(value, t)})


def bool_constant(value: bool) -> arith.ConstantOp:
    """`arith.ConstantOp(IntegerAttr(int(value), IntegerType(1)))`."""
    return arith.ConstantOp.create(result_types=(_I1,), properties={"value": IntegerAttr(int(value), _I1)})


def binary(cls: type[arith.SignlessIntegerBinaryOperation], lhs: SSAValue, rhs: SSAValue) -> arith.SignlessIntegerBinaryOperation:
    """`cls(lhs, rhs)`: the result of the type of `lhs`; no overflow flags."""
    properties: dict[str, Attribute] = {}
    if issubclass(cls, arith.SignlessIntegerBinaryOperationWithOverflow):
        properties["overflowFlags"] = _NO_OVERFLOW
    return cls.create(operands=(lhs, rhs), result_types=(lhs.type,), properties=properties)


def cmpi(lhs: SSAValue, rhs: SSAValue, predicate: str) -> arith.CmpiOp:
    """`arith.CmpiOp(lhs, rhs, predicate)` for a predicate by name (`"slt"`, ...)."""
    return arith.CmpiOp.create(operands=(lhs, rhs), result_types=(_I1,), properties={"predicate": _PREDICATES[predicate]})


def index_cast(value: SSAValue, to: Attribute) -> arith.IndexCastOp:
    """`arith.IndexCastOp(value, to)`."""
    return arith.IndexCastOp.create(operands=(value,), result_types=(to,))
