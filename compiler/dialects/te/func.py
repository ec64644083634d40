"""`te.func`, its `te.return`, and `te.var` (a symbolic shape variable of the function)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
)
from xdsl.ir import (
    Attribute,
    Block,
    Operation,
    Region,
    SSAValue,
)
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
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SymbolOpInterface,
)

from compiler.diagnostics import VerifyError, verify_top_level
from compiler.dialects.shape import (
    shape_var_names,
    verify_shape_bounds,
    verify_var_name,
)

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------
from compiler.dialects.syntax import parse_function, print_function
from compiler.dialects.te.extern import ExternOp
from compiler.dialects.te.stage import ComputeOp
from compiler.dialects.te.types import (
    DTYPE_ATTR,
    SCALAR_ATTR,
    TensorType,
    unbound_variables,
    verify_unsigned_dtype,
)


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A tensor function: tensor arguments in, computed tensors out.

    ```mlir
    te.func @add(%a: !te.tensor<[4], f32>, %b: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
      ...
      te.return %c : !te.tensor<[4], f32>
    }
    ```

    `attributes {shape_bounds = {n = array<i64: 1, 2048>}}` declares the range of
    symbolic sizes (`te.var(lower=, upper=)`): the packed API checks it at every call
    and the passes prove with it (`compiler.dialects.shape.SHAPE_BOUNDS`).
    """

    name = "te.func"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        sym_name: str,
        inputs: Sequence[Attribute],
        outputs: Sequence[Attribute],
        body: Region | None = None,
    ):
        if body is None:
            body = Region(Block(arg_types=inputs))
        super().__init__(
            properties={
                "sym_name": StringAttr(sym_name),
                "function_type": FunctionType.from_lists(inputs, outputs),
            },
            regions=[body],
        )

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    def scalar_args(self) -> dict[int, str]:
        """The scalar arguments (`{te.scalar = "x"}`): position -> variable name."""
        if self.arg_attrs is None:
            return {}
        found: dict[int, str] = {}
        for i, attrs in enumerate(self.arg_attrs.data):
            name = attrs.data.get(SCALAR_ATTR)
            if isinstance(name, StringAttr):
                found[i] = name.data
        return found

    def symbolic_names(self) -> set[str]:
        """The symbolic variables of the argument and result shapes, and the scalars."""
        types = (*self.function_type.inputs.data, *self.function_type.outputs.data)
        names = {n for t in types if isinstance(t, TensorType) for n in shape_var_names(t.get_shape())}
        return names | set(self.scalar_args().values())

    def element_dtypes(self) -> tuple[dict[int, str], dict[int, str]]:
        """The unsigned arguments and results (`{te.dtype = "uint8"}`): position -> dtype."""
        return _dtypes(self.arg_attrs), _dtypes(self.res_attrs)

    def verify_(self) -> None:
        verify_top_level(self)
        args, results = self.element_dtypes()
        for what, dtypes, types in (("argument", args, self.function_type.inputs.data),
                                    ("result", results, self.function_type.outputs.data)):
            for i, dtype in dtypes.items():
                verify_unsigned_dtype(dtype, types[i], f"te.func {what} {i}", DTYPE_ATTR)
        for i, t in enumerate(self.function_type.inputs.data):
            if not isinstance(t, TensorType):
                raise VerifyError(f"te.func argument {i} must be a !te.tensor, got {t}")
        verify_shape_bounds(self, self.symbolic_names(), f"te.func @{self.sym_name.data}")
        for i, var in self.scalar_args().items():
            t = self.function_type.inputs.data[i]
            if not isinstance(t, TensorType) or t.get_shape() or t.element_type != IntegerType(64):
                raise VerifyError(f"te.func scalar argument {i} ('{var}') must be a !te.tensor<[], i64>, got {t}")
        if self.function_type.inputs.data != tuple(self.body.block.arg_types):
            raise VerifyError("te.func block arguments must match the function input types")
        ret = self.body.block.last_op
        if not isinstance(ret, ReturnOp):
            raise VerifyError("te.func body must end with te.return")
        stages: set[str] = set()
        for op in self.body.block.ops:
            if isinstance(op, ComputeOp | ExternOp):
                if op.stage.data in stages:
                    raise VerifyError(f"two stages of @{self.sym_name.data} are named \"{op.stage.data}\"")
                stages.add(op.stage.data)
        returned = tuple(v.type for v in ret.values)
        if returned != self.function_type.outputs.data:
            raise VerifyError(
                f"te.return types {list(map(str, returned))} do not match the function results "
                f"{list(map(str, self.function_type.outputs.data))}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        parts = parse_function(parser, "te.func")
        op = cls(parts.name, parts.inputs, parts.outputs, parts.body)
        op.arg_attrs, op.res_attrs = parts.arg_attrs, parts.res_attrs
        op.attributes |= parts.attributes
        return op

    def print(self, printer: Printer) -> None:
        print_function(printer, self)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`te.return %c, %d : !te.tensor<...>, !te.tensor<...>`"""

    name = "te.return"
    values = var_operand_def(TensorType)
    traits = traits_def(IsTerminator(), HasParent(FuncOp))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


@irdl_op_definition
class VarOp(IRDLOperation):
    """The value of a symbolic shape variable: `%h = te.var "h" : index`.

    The variable is bound from the argument shapes at call time; it must
    appear in a dimension of an argument or result of the enclosing function.
    """

    name = "te.var"
    var_name = prop_def(StringAttr)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$var_name attr-dict `:` type($result)"

    def __init__(self, var_name: str):
        super().__init__(properties={"var_name": StringAttr(var_name)}, result_types=[IndexType()])

    def verify_(self) -> None:
        verify_var_name(self.var_name.data, "te.var")
        func = enclosing_func(self)
        if func is None:
            return
        if unbound_variables(self, {self.var_name.data}):
            raise VerifyError(
                f"symbolic variable '{self.var_name.data}' appears in no argument or result shape "
                f"of @{func.sym_name.data} and is no scalar argument, so nothing can bind it"
            )


def enclosing_func(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _dtypes(attrs: ArrayAttr[DictionaryAttr] | None) -> dict[int, str]:
    found: dict[int, str] = {}
    for i, entries in enumerate(attrs.data if attrs is not None else ()):
        dtype = entries.data.get(DTYPE_ATTR)
        if dtype is not None:
            found[i] = dtype.data if isinstance(dtype, StringAttr) else str(dtype)
    return found


