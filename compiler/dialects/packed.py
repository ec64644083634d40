"""`packed`: the DLTensor calling convention (TVM's packed functions) as IR.

`make-packed-api` wraps every compute `loop.func` in a packed function that
reads its `DLTensor*` arguments with these ops, checks them (`loop.assert`)
and calls the compute function; `lower-to-llvm` turns them into loads from
the DLTensor structs and a direct call.

```mlir
%x = packed.arg %args[0]
%h = packed.dltensor_get %x, shape[2] : index
%x_data = packed.dltensor_get %x, data : index
packed.call @conv_compute(%x_data, %y_data) ["h" = %h]
```
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from compiler.diagnostics import VerifyError

ERROR_VALUES_ATTR = "packed.error_values"
"""Unit attribute on the argument of a packed function where failing asserts store their values."""

DLTENSOR_FIELDS: dict[str, Attribute] = {
    "data": IndexType(),
    "device_type": IntegerType(32),
    "device_id": IntegerType(32),
    "ndim": IntegerType(32),
    "dtype": IntegerType(32),
    "shape": IndexType(),
    "strides": IndexType(),
    "byte_offset": IndexType(),
}
"""DLTensor fields and the type `packed.dltensor_get` reads them as. Pointers
(`data`, `shape`, `strides`) are addresses (`index`, 0 for NULL); `dtype` is
DLDataType as one little-endian u32 (`code | bits << 8 | lanes << 16`);
`shape[k]` and `strides[k]` are int64 read as `index` (64-bit, never truncated)."""


MAX_CONSTANT_INDEX = 2**31 - 1
"""The constant indices of the packed ops become i32 GEP indices."""


def _verify_constant_index(k: int, what: str) -> None:
    if not 0 <= k < MAX_CONSTANT_INDEX:
        raise VerifyError(f"{what} is {k}, outside [0, {MAX_CONSTANT_INDEX})")


@irdl_op_definition
class PackedArgOp(IRDLOperation):
    """`%x = packed.arg %args[0]`: the address of the k-th `DLTensor*` of a packed call."""

    name = "packed.arg"
    args = operand_def(LLVMPointerType)
    position = prop_def(IntAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, args: SSAValue | Operation, position: int):
        super().__init__(
            operands=[args], properties={"position": IntAttr(position)}, result_types=[IndexType()]
        )

    def verify_(self) -> None:
        _verify_constant_index(self.position.data, "packed.arg: the position")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.args)
        printer.print_string(f"[{self.position.data}]")
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> PackedArgOp:
        args = parser.resolve_operand(parser.parse_unresolved_operand(), LLVMPointerType())
        parser.parse_punctuation("[")
        position = parser.parse_integer(allow_negative=False, allow_boolean=False)
        parser.parse_punctuation("]")
        op = cls(args, position)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class DLTensorGetOp(IRDLOperation):
    """Read a field of a DLTensor: `%h = packed.dltensor_get %x, shape[2] : index`.

    The operand is a DLTensor address (`packed.arg`); fields and their
    types are in `DLTENSOR_FIELDS`. `shape[k]`/`strides[k]` read element k
    of the array (the caller checks `ndim` and, for strides, non-NULL first);
    `data[k]` reads int64 element k of the data (a scalar argument's value).
    """

    name = "packed.dltensor_get"
    tensor = operand_def(IndexType)
    field = prop_def(StringAttr)
    axis = opt_prop_def(IntAttr)
    result = result_def(base(IntegerType) | base(IndexType))
    traits = traits_def(Pure())

    def __init__(
        self,
        tensor: SSAValue | Operation,
        field: str,
        axis: int | None = None,
        result_type: Attribute | None = None,
    ):
        super().__init__(
            operands=[tensor],
            properties={
                "field": StringAttr(field),
                "axis": None if axis is None else IntAttr(axis),
            },
            result_types=[result_type or DLTENSOR_FIELDS.get(field, IndexType())],
        )

    def verify_(self) -> None:
        field = self.field.data
        if field not in DLTENSOR_FIELDS:
            raise VerifyError(
                f"packed.dltensor_get: unknown field '{field}', expected one of {', '.join(DLTENSOR_FIELDS)}"
            )
        if self.axis is not None and field not in ("shape", "strides", "data"):
            raise VerifyError(f"packed.dltensor_get: field '{field}' takes no index")
        if self.axis is not None:
            _verify_constant_index(self.axis.data, f"packed.dltensor_get: the index of {field}")
        if self.result.type != DLTENSOR_FIELDS[field]:
            raise VerifyError(
                f"packed.dltensor_get: field '{field}' is read as {DLTENSOR_FIELDS[field]}, not {self.result.type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        printer.print_string(f", {self.field.data}")
        if self.axis is not None:
            printer.print_string(f"[{self.axis.data}]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> DLTensorGetOp:
        tensor = parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())
        parser.parse_punctuation(",")
        field = parser.parse_identifier(" (a DLTensor field)")
        axis = None
        if parser.parse_optional_punctuation("[") is not None:
            axis = parser.parse_integer(allow_negative=False, allow_boolean=False)
            parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        op = cls(tensor, field, axis, parser.parse_type())  # the verifier checks the type
        op.attributes |= attrs
        return op


@irdl_op_definition
class CallOp(IRDLOperation):
    """Call a `loop.func` with buffer addresses and named symbolic variables.

    ```mlir
    packed.call @add_compute(%A_data, %B_data) ["n" = %n, "A_stride_0" = %A_stride_0]
    ```

    Operand k is the data address of the callee's k-th buffer argument; each
    `"name" = %value` binds the callee's `loop.var "name"`. `make-packed-api`
    emits it; `lower-to-llvm` passes the variables in the callee's order.
    """

    name = "packed.call"
    callee = prop_def(SymbolRefAttr)
    var_names = prop_def(ArrayAttr[StringAttr])
    buffers = var_operand_def(IndexType)
    vars = var_operand_def(IndexType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(
        self,
        callee: str,
        buffers: Sequence[SSAValue | Operation],
        vars: Sequence[tuple[str, SSAValue | Operation]] = (),
    ):
        super().__init__(
            operands=[buffers, [v for _, v in vars]],
            properties={
                "callee": SymbolRefAttr(callee),
                "var_names": ArrayAttr([StringAttr(n) for n, _ in vars]),
            },
        )

    @property
    def bindings(self) -> dict[str, SSAValue]:
        return {n.data: v for n, v in zip(self.var_names.data, self.vars, strict=True)}

    def verify_(self) -> None:
        if len(self.var_names.data) != len(self.vars):
            raise VerifyError("packed.call needs one name per variable operand")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_attribute(self.callee)
        with printer.in_parens():
            printer.print_list(self.buffers, printer.print_operand)
        printer.print_string(" ")

        def print_var(name_value: tuple[StringAttr, SSAValue]) -> None:
            printer.print_string_literal(name_value[0].data)
            printer.print_string(" = ")
            printer.print_operand(name_value[1])

        with printer.in_square_brackets():
            printer.print_list(zip(self.var_names.data, self.vars, strict=True), print_var)
        printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> CallOp:
        callee = parser.parse_symbol_name().data

        def operand() -> SSAValue:
            return parser.resolve_operand(parser.parse_unresolved_operand(), IndexType())

        def binding() -> tuple[str, SSAValue]:
            name = parser.parse_str_literal(" (a variable name)")
            parser.parse_punctuation("=")
            return name, operand()

        buffers = parser.parse_comma_separated_list(parser.Delimiter.PAREN, operand)
        vars = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, binding)
        op = cls(callee, buffers, vars)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


PACKED = Dialect("packed", [PackedArgOp, DLTensorGetOp, CallOp], [])
