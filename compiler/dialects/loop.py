"""`loop`: imperative loop nests over buffers, TVM's TIR as an xDSL dialect.

`schedule-ops` lowers `te` to this dialect; the storage passes rewrite it;
`lower-to-llvm` turns it into xDSL's `llvm` dialect. Scalar and index math
stay in `arith`/`math`; `scf.if` with results carries lazy selects.

```mlir
loop.func @add(%a: !loop.buffer<["n"], f32>, %c: !loop.buffer<["n"], f32>) {
  %c0 = arith.constant 0 : index
  %n = loop.var "n" : index
  %t = loop.alloc "T" [%c0] : !loop.buffer<["n"], f32>
  loop.for %i = %c0 extent %n vectorized {
    %v = loop.load %a[%i] : !loop.buffer<["n"], f32>
    loop.store %v, %t[%i] : !loop.buffer<["n"], f32>
  }
}
```

Buffers are indexed in *logical* coordinates: `loop.alloc` records the
realized region (a min per dimension, the extents are the type's shape) and
element `[i, j]` lives at `(i - min0) * stride0 + (j - min1) * stride1`. The
storage passes make that arithmetic explicit.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, Pure, SymbolOpInterface
from xdsl.utils.str_enum import StrEnum

from compiler.diagnostics import VerifyError, verify_top_level
from compiler.dialects.shape import (
    Dim,
    DimAttr,
    attr_to_dims,
    dims_to_attr,
    parse_dims,
    print_dims,
    verify_dims,
    verify_element_type,
    verify_var_name,
)
from compiler.dialects.syntax import parse_access, print_access
from compiler.errors import IRError

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A loop function over buffers (inputs and outputs alike, as in TVM).

    ```mlir
    loop.func @f(%a: !loop.buffer<[4], f32>, %b: !loop.buffer<[4], f32>) {
      ...
    }
    ```
    """

    name = "loop.func"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

    RESERVED: ClassVar[tuple[str, ...]] = ("sym_name", "function_type", "arg_attrs", "res_attrs")

    def __init__(self, sym_name: str, inputs: Sequence[Attribute], body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(sym_name),
                "function_type": FunctionType.from_lists(inputs, []),
            },
            regions=[body],
        )

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    def verify_(self) -> None:
        verify_top_level(self)
        if self.function_type.outputs.data:
            raise VerifyError("loop.func returns nothing: outputs are buffer arguments")
        if self.function_type.inputs.data != tuple(self.body.block.arg_types):
            raise VerifyError("loop.func block arguments must match the function input types")

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name, inputs, outputs, region, extra, arg_attrs, _ = parse_func_op_like(
            parser, reserved_attr_names=cls.RESERVED
        )
        if outputs:
            parser.raise_error("loop.func returns nothing: outputs are buffer arguments")
        if region is None:
            parser.raise_error("loop.func needs a body")
        op = cls(name, inputs, region)
        op.arg_attrs = arg_attrs
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            reserved_attr_names=self.RESERVED,
        )


@irdl_op_definition
class VarOp(IRDLOperation):
    """A symbolic shape variable of the function: `%h = loop.var "h" : index`.

    Free until `make-packed-api` binds it from an argument's shape or strides.
    """

    name = "loop.var"
    var_name = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$var_name attr-dict `:` type($result)"

    def __init__(self, var_name: str):
        super().__init__(properties={"var_name": StringAttr(var_name)}, result_types=[IndexType()])

    def verify_(self) -> None:
        verify_var_name(self.var_name.data, "loop.var")


@irdl_op_definition
class ForOp(IRDLOperation):
    """`loop.for %i = %min extent %n step 2 parallel { ... }`

    Runs `%i = min, min + step, ...` while `%i < min + extent`. The kind
    (serial, parallel, vectorized, unrolled; serial is not printed) tells the
    code generator how the iterations may be executed.
    """

    name = "loop.for"
    min = operand_def(IndexType)
    extent = operand_def(IndexType)
    step = prop_def(IntegerAttr[IndexType])
    kind = prop_def(StringAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(
        self,
        min: SSAValue | Operation,
        extent: SSAValue | Operation,
        body: Region | None = None,
        *,
        step: int = 1,
        kind: LoopKind | str = LoopKind.SERIAL,
    ):
        if body is None:
            body = Region(Block(arg_types=[IndexType()]))
        super().__init__(
            operands=[min, extent],
            properties={
                "step": IntegerAttr(step, IndexType()),
                "kind": StringAttr(str(LoopKind(kind))),
            },
            regions=[body],
        )

    @property
    def induction_var(self) -> BlockArgument:
        return self.body.block.args[0]

    @property
    def loop_kind(self) -> LoopKind:
        return LoopKind(self.kind.data)

    def verify_(self) -> None:
        if self.kind.data not in set(LoopKind):
            raise VerifyError(f"unknown loop kind '{self.kind.data}'")
        if self.step.value.data < 1:
            raise VerifyError(f"loop.for step must be positive, got {self.step.value.data}")
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyError("loop.for body must have exactly one index argument")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_block_argument(self.induction_var, print_type=False)
        printer.print_string(" = ")
        printer.print_operand(self.min)
        printer.print_string(" extent ")
        printer.print_operand(self.extent)
        if self.step.value.data != 1:
            printer.print_string(f" step {self.step.value.data}")
        if self.kind.data != LoopKind.SERIAL:
            printer.print_string(f" {self.kind.data}")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        iv = parser.parse_argument(expect_type=False).resolve(IndexType())
        parser.parse_punctuation("=")
        lo = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_keyword("extent")
        extent = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        step = 1
        if parser.parse_optional_keyword("step") is not None:
            step = parser.parse_integer(allow_negative=False, allow_boolean=False)
        kind = LoopKind.SERIAL
        attrs: dict[str, Attribute] = {}
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word == "attributes":  # a serial loop (no kind word) with attributes
            attrs = parser.parse_optional_attr_dict()
        elif word is not None:
            if word not in set(LoopKind):
                parser.raise_error(
                    f"unknown loop kind '{word}': expected one of {', '.join(LoopKind)}",
                    pos,
                    parser.pos,
                )
            kind = LoopKind(word)
            if (dictionary := parser.parse_optional_attr_dict_with_keyword()) is not None:
                attrs = dict(dictionary.data)
        op = cls(lo, extent, parser.parse_region([iv]), step=step, kind=kind)
        op.attributes |= attrs
        return op


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
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.arena.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

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
        print_access(printer, self.buffer, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)

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
        print_access(printer, self.buffer, self.indices)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)

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


@irdl_op_definition
class IfOp(IRDLOperation):
    """A statement-level guard: `loop.if %c { ... } else { ... }`.

    `likely` (printed after the condition) marks a guard expected to hold, as
    TVM's `likely`, for loop partitioning.
    """

    name = "loop.if"
    cond = operand_def(IntegerType(1))
    likely = opt_prop_def(UnitAttr)
    then_region = region_def("single_block")
    else_region = opt_region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(
        self,
        cond: SSAValue | Operation,
        then_region: Region | None = None,
        else_region: Region | None = None,
        *,
        likely: bool = False,
    ):
        super().__init__(
            operands=[cond],
            properties={"likely": UnitAttr() if likely else None},
            regions=[then_region or Region(Block()), [] if else_region is None else else_region],
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.cond)
        if self.likely is not None:
            printer.print_string(" likely")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.then_region)
        if self.else_region is not None:
            printer.print_string(" else ")
            printer.print_region(self.else_region)

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), IntegerType(1))
        likely = parser.parse_optional_keyword("likely") is not None
        attrs = parser.parse_optional_attr_dict_with_keyword()
        then_region = parser.parse_region()
        else_region = None
        if parser.parse_optional_keyword("else") is not None:
            else_region = parser.parse_region()
        op = cls(cond, then_region, else_region, likely=likely)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


MAX_ASSERT_VALUES = 4
"""How many values a `loop.assert` may report (the packed API's error-values array)."""

ASSERT_ERRORS = ("ValueError", "TypeError", "IndexError", "MemoryError")


@irdl_op_definition
class AssertOp(IRDLOperation):
    """Fail the call with a message if the condition is false.

    ```mlir
    loop.assert %ok, "x.shape[0] must be 4"
    loop.assert %ok, "f: x.shape[2] is {0}, expected h = {1}" (%x_shape_2, %h : index, index)
    loop.assert %ok, "f: x.dtype is {0:dtype}, expected float32" (%dt : i32) raises "TypeError"
    ```

    With values, the message is a Python format string whose field `{k}`
    is the k-th value (at most `MAX_ASSERT_VALUES` integers, reported to the
    caller through the packed API's error-values argument). `raises` names
    the Python exception the caller raises (`ValueError` when absent).
    """

    name = "loop.assert"
    cond = operand_def(IntegerType(1))
    message = prop_def(StringAttr)
    values = var_operand_def(base(IntegerType) | base(IndexType))
    error = opt_prop_def(StringAttr)
    assembly_format = (
        "$cond `,` $message (` ` `(` $values^ `:` type($values) `)`)? (`raises` $error^)? attr-dict"
    )

    def __init__(
        self,
        cond: SSAValue | Operation,
        message: str,
        values: Sequence[SSAValue | Operation] = (),
        *,
        error: str | None = None,
    ):
        super().__init__(
            operands=[cond, values],
            properties={
                "message": StringAttr(message),
                "error": None if error is None else StringAttr(error),
            },
        )

    @property
    def error_name(self) -> str:
        return "ValueError" if self.error is None else self.error.data

    def verify_(self) -> None:
        if len(self.values) > MAX_ASSERT_VALUES:
            raise VerifyError(
                f"loop.assert reports at most {MAX_ASSERT_VALUES} values, got {len(self.values)}"
            )
        if self.error_name not in ASSERT_ERRORS:
            raise VerifyError(
                f"loop.assert raises one of {', '.join(ASSERT_ERRORS)}, not '{self.error_name}'"
            )


@irdl_op_definition
class CallExternOp(IRDLOperation):
    """A call of an external function (a `te.extern` stage): each buffer operand passes
    its base pointer (whole, dense, row-major), each scalar its value; nothing returned.

    ```mlir
    loop.call_extern @add_one(%a, %B, %n) : !loop.buffer<["n"], f32>, !loop.buffer<["n"], f32>, index
    ```
    """

    name = "loop.call_extern"
    callee = prop_def(SymbolRefAttr)
    args = var_operand_def()
    assembly_format = "$callee `(` $args `)` attr-dict `:` type($args)"

    def __init__(self, callee: str, args: Sequence[SSAValue | Operation]):
        super().__init__(properties={"callee": SymbolRefAttr(callee)}, operands=[args])

    @property
    def callee_name(self) -> str:
        return self.callee.root_reference.data

    def verify_(self) -> None:
        for value in self.args:
            t = value.type
            scalar = isinstance(t, IndexType | Float16Type | Float32Type | Float64Type) or (
                isinstance(t, IntegerType) and t.width.data > 1
            )
            if not isinstance(t, BufferType) and not scalar:
                raise VerifyError(
                    f"loop.call_extern @{self.callee_name}: an argument is a buffer or an index, integer or "
                    f"float scalar, got {t}"
                )


LOOP = Dialect(
    "loop",
    [
        FuncOp,
        VarOp,
        ForOp,
        AllocOp,
        ViewOp,
        LoadOp,
        StoreOp,
        IfOp,
        AssertOp,
        CallExternOp,
    ],
    [BufferType],
)
