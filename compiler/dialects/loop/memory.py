"""Buffers and their elements: `loop.alloc`, `loop.view` (a planned buffer in the
arena), `loop.load` and `loop.store`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IndexType, StringAttr, UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from compiler.diagnostics import VerifyError
from compiler.dialects.loop.types import BufferType
from compiler.dialects.syntax import parse_access, print_access, print_attributes_and_types


@irdl_op_definition
class AllocOp(IRDLOperation):
    """An intermediate buffer realized over a region, live to the end of its block.

    `%c = loop.alloc "C" [%m0, %m1] : !loop.buffer<[1, 16], f32>` realizes
    C over [m0, m0 + 1) x [m1, m1 + 16): one min per dimension (operands), the
    extents are the type's shape. `loop.alloc local "C.acc" ...` is a small
    thread-local scratch buffer (a reduction's accumulator) that lives on the
    stack, where LLVM keeps it in a register; memory planning ignores it.
    """

    name = "loop.alloc"
    buffer_name = prop_def(StringAttr)
    mins = var_operand_def(IndexType)
    local = opt_prop_def(UnitAttr)
    result = result_def(BufferType)

    def __init__(
        self,
        buffer_name: str,
        mins: Sequence[SSAValue | Operation],
        type: BufferType,
        *,
        local: bool = False,
    ):
        super().__init__(
            operands=[mins],
            properties={"buffer_name": StringAttr(buffer_name), "local": UnitAttr() if local else None},
            result_types=[type],
        )

    @property
    def is_local(self) -> bool:
        return self.local is not None

    @property
    def buffer_type(self) -> BufferType:
        t = self.result.type
        assert isinstance(t, BufferType)
        return t

    def verify_(self) -> None:
        if len(self.mins) != self.buffer_type.rank:
            raise VerifyError(
                f"loop.alloc \"{self.buffer_name.data}\" needs one min per dimension: "
                f"{self.buffer_type.rank} expected, {len(self.mins)} given"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" local " if self.is_local else " ")
        printer.print_string_literal(self.buffer_name.data)
        printer.print_string(" ")
        with printer.in_square_brackets():
            printer.print_list(self.mins, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AllocOp:
        local = parser.parse_optional_keyword("local") is not None
        name = parser.parse_str_literal(" (the buffer name)")
        mins = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, BufferType):
            parser.raise_error(f"expected a !loop.buffer type, got {t}")
        op = cls(name, [parser.resolve_operand(m, IndexType()) for m in mins], t, local=local)
        op.attributes |= attrs
        return op


@irdl_op_definition
class ViewOp(IRDLOperation):
    """A planned buffer: bytes of the function's arena from a byte offset.

    `%y = loop.view "y" %arena at "h * w * 256" inplace "x" : !loop.buffer<["h * w * 512"], i8> -> !loop.buffer<["h * w"], f32>`
    (`storage-rewrite`); the offset is an index expression over the shape
    variables; `inplace` names the buffer whose bytes this one overwrites.
    """

    name = "loop.view"
    buffer_name = prop_def(StringAttr)
    arena = operand_def(BufferType)
    offset = prop_def(StringAttr)
    inplace = opt_prop_def(StringAttr)
    result = result_def(BufferType)

    def __init__(self, buffer_name: str, arena: SSAValue | Operation, offset: str, type: BufferType, *, inplace: str | None = None):
        super().__init__(
            operands=[arena],
            properties={
                "buffer_name": StringAttr(buffer_name),
                "offset": StringAttr(offset),
                "inplace": None if inplace is None else StringAttr(inplace),
            },
            result_types=[type],
        )

    def verify_(self) -> None:
        from compiler.arith.parse import parse_expr

        try:
            parse_expr(self.offset.data)
        except ValueError as err:
            raise VerifyError(f"loop.view \"{self.buffer_name.data}\": bad offset: {err}") from None

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.buffer_name.data)
        printer.print_string(" ")
        printer.print_operand(self.arena)
        printer.print_string(" at ")
        printer.print_string_literal(self.offset.data)
        if self.inplace is not None:
            printer.print_string(" inplace ")
            printer.print_string_literal(self.inplace.data)
        print_attributes_and_types(printer, self.attributes, [self.arena.type, self.result.type])

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        name = parser.parse_str_literal(" (the buffer name)")
        arena = parser.parse_unresolved_operand()
        parser.parse_keyword("at")
        offset = parser.parse_str_literal(" (the byte offset)")
        inplace = None
        if parser.parse_optional_keyword("inplace") is not None:
            inplace = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        arena_type = parser.parse_type()
        parser.parse_punctuation("->")
        t = parser.parse_type()
        if not isinstance(t, BufferType) or not isinstance(arena_type, BufferType):
            parser.raise_error(f"expected !loop.buffer types, got {arena_type} -> {t}")
        op = cls(name, parser.resolve_operand(arena, arena_type), offset, t, inplace=inplace)
        op.attributes |= attrs
        return op


def _verify_access(op: str, buffer: SSAValue, indices: Sequence[SSAValue]) -> BufferType:
    t = buffer.type
    assert isinstance(t, BufferType)
    if len(indices) != t.rank:
        raise VerifyError(f"{op} of a rank-{t.rank} buffer takes {t.rank} indices, got {len(indices)}")
    return t


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = loop.load %b[%i, %j] : !loop.buffer<[4, 4], f32>`"""

    name = "loop.load"
    buffer = operand_def(BufferType)
    indices = var_operand_def(IndexType)
    result = result_def()

    def __init__(self, buffer: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        t = SSAValue.get(buffer).type
        assert isinstance(t, BufferType)
        super().__init__(operands=[buffer, indices], result_types=[t.element_type])

    def verify_(self) -> None:
        t = _verify_access("loop.load", self.buffer, self.indices)
        if self.result.type != t.element_type:
            raise VerifyError(f"loop.load result {self.result.type} is not {t.element_type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_access(printer, self.buffer, self.indices, self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        buffer, indices, attrs = parse_access(parser, BufferType, "!loop.buffer")
        op = cls(buffer, indices)
        op.attributes |= attrs
        return op


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`loop.store %v, %b[%i, %j] : !loop.buffer<[4, 4], f32>`"""

    name = "loop.store"
    value = operand_def()
    buffer = operand_def(BufferType)
    indices = var_operand_def(IndexType)

    def __init__(
        self,
        value: SSAValue | Operation,
        buffer: SSAValue | Operation,
        indices: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[value, buffer, indices])

    def verify_(self) -> None:
        t = _verify_access("loop.store", self.buffer, self.indices)
        if self.value.type != t.element_type:
            raise VerifyError(
                f"loop.store of a {self.value.type} value into a buffer of {t.element_type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        print_access(printer, self.buffer, self.indices, self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buffer, indices, attrs = parse_access(parser, BufferType, "!loop.buffer")
        t = buffer.type
        assert isinstance(t, BufferType)
        op = cls(parser.resolve_operand(value, t.element_type), buffer, indices)
        op.attributes |= attrs
        return op
