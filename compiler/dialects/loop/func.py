"""`loop.func`, its shape variables (`loop.var`), and calls of external functions
(`loop.call_extern`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, NoTerminator, Pure, SymbolOpInterface

from compiler.diagnostics import VerifyError, verify_top_level
from compiler.dialects.loop.types import BufferType
from compiler.dialects.shape import shape_var_names, verify_shape_bounds, verify_var_name
from compiler.dialects.syntax import parse_function, print_function
from compiler.dialects.te.types import verify_unsigned_dtype

SCALAR_ATTR = "loop.scalar"
"""An argument attribute: a 0-d integer buffer whose value is a shape variable."""

DTYPE_ATTR = "loop.dtype"
"""On a `loop.func` argument, the unsigned dtype of its signless integer elements (a
`te.func` argument's or result's `{te.dtype = "uint8"}`); make-packed-api checks it."""


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A loop function over buffers (inputs and outputs alike, as in TVM).

    ```mlir
    loop.func @f(%a: !loop.buffer<[4], f32>, %b: !loop.buffer<[4], f32>) {
      ...
    }
    ```

    `attributes {shape_bounds = {n = array<i64: 1, 2048>}}`: the declared range of
    symbolic sizes, as on `te.func` (make-packed-api checks it at every call).
    """

    name = "loop.func"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), NoTerminator())

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
        self._verify_dtypes()
        verify_shape_bounds(self, self.symbolic_names(), f"loop.func @{self.sym_name.data}")

    def symbolic_names(self) -> set[str]:
        """The symbolic variables of the buffer arguments' shapes, and the scalars."""
        names = {
            n for t in self.function_type.inputs.data if isinstance(t, BufferType) for n in shape_var_names(t.get_shape())
        }
        for entries in self.arg_attrs.data if self.arg_attrs is not None else ():
            scalar = entries.data.get(SCALAR_ATTR)
            if isinstance(scalar, StringAttr):
                names.add(scalar.data)
        return names

    def _verify_dtypes(self) -> None:
        """A `loop.dtype` argument attribute names an unsigned dtype of the buffer's
        integer width (make-packed-api reads it as the argument's DLPack type)."""
        for k, entries in enumerate(self.arg_attrs.data if self.arg_attrs is not None else ()):
            dtype = entries.data.get(DTYPE_ATTR)
            if dtype is None:
                continue
            name = dtype.data if isinstance(dtype, StringAttr) else str(dtype)
            verify_unsigned_dtype(name, self.function_type.inputs.data[k], f"loop.func argument {k}", DTYPE_ATTR)

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        parts = parse_function(parser, "loop.func")
        if parts.outputs:
            parser.raise_error("loop.func returns nothing: outputs are buffer arguments")
        op = cls(parts.name, parts.inputs, parts.body)
        op.arg_attrs = parts.arg_attrs
        op.attributes |= parts.attributes
        return op

    def print(self, printer: Printer) -> None:
        print_function(printer, self)


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
        self._verify_first_of_its_name()

    def _verify_first_of_its_name(self) -> None:
        """One loop.var per name in a function: passes map a variable's name to one value
        (a second `loop.var "h"` left loop-partition using a value out of its scope)."""
        func = self.parent_op()
        while func is not None and not isinstance(func, FuncOp):
            func = func.parent_op()
        if func is None:
            return
        for op in func.walk():
            if op is self:
                return
            if isinstance(op, VarOp) and op.var_name == self.var_name:
                raise VerifyError(f"loop.var \"{self.var_name.data}\" is defined twice in @{func.sym_name.data}")


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
