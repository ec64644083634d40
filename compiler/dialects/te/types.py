"""The `te` dialect's tensor type, the scalar-argument attribute and the reduction kinds."""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerType,
    StringAttr,
)
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    TypeAttribute,
)
from xdsl.irdl import (
    irdl_attr_definition,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum

from compiler.diagnostics import VerifyError
from compiler.dialects.shape import (
    Dim,
    DimAttr,
    attr_to_dims,
    dims_to_attr,
    parse_dims,
    print_dims,
    shape_var_names,
    verify_dims,
    verify_element_type,
)

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------



@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!te.tensor<[1, "c", 56], f32>`: a dimension is an int or a symbolic name/expression."""

    name = "te.tensor"
    shape: ArrayAttr[DimAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[Dim], element_type: Attribute):
        super().__init__(dims_to_attr(shape), element_type)

    def get_shape(self) -> tuple[Dim, ...]:
        return attr_to_dims(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dims = parse_dims(parser, "!te.tensor")
            parser.parse_punctuation(",")
            return [dims, parser.parse_type()]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_dims(printer, self.get_shape())
            printer.print_string(", ")
            printer.print_attribute(self.element_type)

    def verify(self) -> None:
        verify_dims(self.get_shape(), "!te.tensor", verify_element_type(self.element_type, "!te.tensor"))


SCALAR_ATTR = "te.scalar"
"""Argument attribute of a `te.func`: this argument, a 0-d i64 tensor, is the value of
the named variable (TVM's scalar arguments: a `te.var` that `build` takes as an int)."""

DTYPE_ATTR = "te.dtype"
"""Argument or result attribute of a `te.func`: the tensor's elements are unsigned
(`"uint8"` on an i8 tensor). Arithmetic is on signless integers, as `arith` wants; the
attribute gives the compiled function's argument its DLPack type (uint8, not int8)."""

UNSIGNED_DTYPES = {"uint8": 8}
"""The dtypes `DTYPE_ATTR` (and the loop dialect's `loop.dtype`) may name, with their width."""


def verify_unsigned_dtype(dtype: str, t: Attribute, what: str, attr: str) -> None:
    """An unsigned-dtype attribute (`attr`) names one of `UNSIGNED_DTYPES` whose width is
    that of the integer elements of `t`, a tensor or buffer type (`what`: the argument or
    result it is on)."""
    if dtype not in UNSIGNED_DTYPES:
        raise VerifyError(f"{what}: {attr} must be one of {', '.join(map(repr, UNSIGNED_DTYPES))}, got {dtype!r}")
    width = UNSIGNED_DTYPES[dtype]
    if getattr(t, "element_type", None) != IntegerType(width):
        kind = "a tensor" if isinstance(t, TensorType) else "a buffer"
        raise VerifyError(f"{what}: {attr} {dtype!r} needs {kind} of i{width} elements, got {t}")

DYNAMIC = "?"
"""A `te.reduce` extent given by an operand (it depends on the compute's axes)."""


class ReduceKind(StrEnum):
    SUM = auto()
    PROD = auto()
    MAX = auto()
    MIN = auto()


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


def unbound_variables(op: Operation, names: set[str]) -> list[str]:
    """The symbolic variables of `names` that nothing binds in `op`'s te.func: neither an
    argument's or result's shape nor a scalar argument names them (none outside a te.func).
    Read from the te.func's properties: func.py defines the op and imports this module.
    No names: none, without reading the signature (a network's has hundreds of shapes, and
    every te.reduce with constant extents asks)."""
    if not names:
        return []
    func = op.parent_op()
    while func is not None and func.name != "te.func":
        func = func.parent_op()
    if func is None:
        return []
    known: set[str] = set()
    arg_attrs = func.properties.get("arg_attrs")
    for entries in arg_attrs.data if isinstance(arg_attrs, ArrayAttr) else ():
        scalar = entries.data.get(SCALAR_ATTR) if isinstance(entries, DictionaryAttr) else None
        if isinstance(scalar, StringAttr):
            known.add(scalar.data)
    function_type = func.properties["function_type"]
    assert isinstance(function_type, FunctionType)
    for t in (*function_type.inputs.data, *function_type.outputs.data):
        if isinstance(t, TensorType):
            known.update(shape_var_names(t.get_shape()))
    return sorted(names - known)
