"""`!loop.buffer`, the size of its elements, and the kinds of `loop.for`."""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto

from xdsl.dialects.builtin import ArrayAttr, NoneAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
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
    verify_dims,
    verify_element_type,
)
from compiler.errors import IRError


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """`!loop.buffer<[64, "h"], f32>`: a dense row-major buffer of the given shape.

    An optional strides list, in elements, declares a strided buffer:
    `!loop.buffer<[4, "n"], f32, strides ["s0", 1]>` places element `[i, j]`
    at `i * s0 + j`. Strides are integers or symbolic expressions like the
    shape; `make-packed-api` binds symbolic strides from the caller's DLTensor
    and `storage-flatten` uses them instead of the compact row-major ones.
    """

    name = "loop.buffer"
    shape: ArrayAttr[DimAttr]
    element_type: Attribute
    strides: ArrayAttr[DimAttr] | NoneAttr

    def __init__(
        self, shape: Sequence[Dim], element_type: Attribute, strides: Sequence[Dim] | None = None
    ):
        super().__init__(
            dims_to_attr(shape), element_type, NoneAttr() if strides is None else dims_to_attr(strides)
        )

    def get_shape(self) -> tuple[Dim, ...]:
        return attr_to_dims(self.shape)

    def get_strides(self) -> tuple[Dim, ...] | None:
        """The declared strides, or None for a compact row-major buffer."""
        return None if isinstance(self.strides, NoneAttr) else attr_to_dims(self.strides)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dims = parse_dims(parser, "!loop.buffer")
            parser.parse_punctuation(",")
            element_type = parser.parse_type()
            strides: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(",") is not None:
                parser.parse_keyword("strides")
                strides = parse_dims(parser, "!loop.buffer strides")
            return [dims, element_type, strides]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_dims(printer, self.get_shape())
            printer.print_string(", ")
            printer.print_attribute(self.element_type)
            if (strides := self.get_strides()) is not None:
                printer.print_string(", strides ")
                print_dims(printer, strides)

    def verify(self) -> None:
        size = verify_element_type(self.element_type, "!loop.buffer")
        verify_dims(self.get_shape(), "!loop.buffer", size)
        if (strides := self.get_strides()) is not None:
            verify_dims(strides, "!loop.buffer strides")
            if len(strides) != self.rank:
                raise VerifyError(
                    f"!loop.buffer: {len(strides)} strides for a rank-{self.rank} buffer"
                )


def element_bytes(t: Attribute) -> int:
    """The size in bytes of one element of a buffer (i1 takes a byte); an IRError for a
    type that no verified buffer has."""
    try:
        return verify_element_type(t, "a buffer element")
    except VerifyError as err:
        raise IRError(str(err)) from None


class LoopKind(StrEnum):
    SERIAL = auto()
    PARALLEL = auto()
    VECTORIZED = auto()
    UNROLLED = auto()


UNROLL_FULL = "unroll_full"
"""A unit attribute of an `unrolled` loop.for with a small constant trip count: LLVM
unrolls it fully (`unroll-loops` sets it; lower-to-llvm emits `llvm.loop.unroll.full`)."""

UNROLL_FULL_MAX_TRIPS = 1024
"""The most iterations a loop marked `unroll_full` may have (its extent a constant):
LLVM refuses to unroll much longer loops, with a warning that names no op."""
