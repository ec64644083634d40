"""Ops built with `Operation.create` (compiler/arith/builders.py, the lowering's builders)
against the ones the dialects' constructors make."""

from __future__ import annotations

from xdsl.dialects import test
from xdsl.ir import Attribute, Operation, SSAValue


def values(*types: Attribute) -> list[SSAValue]:
    """Fresh values of these types (the results of a test op)."""
    return list(test.TestOp(result_types=types).results)


def assert_same_op(built: Operation, made: Operation) -> None:
    """The same op: class, operands, result types, properties and attributes."""
    assert type(built) is type(made)
    assert list(built.operands) == list(made.operands)
    assert built.result_types == made.result_types
    assert built.properties == made.properties
    assert built.attributes == made.attributes
