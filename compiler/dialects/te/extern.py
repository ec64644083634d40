"""`te.extern`: a stage computed by an external function over whole buffers."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import (
    Attribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from compiler.diagnostics import VerifyError
from compiler.dialects.shape import (
    verify_stage_name,
)

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------
from compiler.dialects.te.types import TensorType

EXTERN_OUTPUT = -1
"""Not used as a position: `ExternOp.call_args` holds -1 for an operand, k >= 0 for output k."""


def _is_extern_scalar(t: Attribute) -> bool:
    return isinstance(t, IndexType | AnyFloat) or (isinstance(t, IntegerType) and t.width.data > 1)


@irdl_op_definition
class ExternOp(IRDLOperation):
    """A stage computed by an external function over whole buffers (TVM's `te.extern`).

    ```mlir
    %b = te.extern "B" @add_one(%a, out 0, %n) : (!te.tensor<["n"], f32>, index) -> !te.tensor<["n"], f32>
    ```
    The call's arguments, in order: a tensor operand passes the base pointer of its
    whole dense row-major buffer, `out k` the buffer of result k, a scalar operand
    (index, integer, float) its value. The callee returns nothing the program uses.
    The stage has no loops: it can't be split, attached or inlined, and every tensor
    it reads is realized whole before it.
    """

    name = "te.extern"
    stage = prop_def(StringAttr)
    callee = prop_def(SymbolRefAttr)
    call_args = prop_def(ArrayAttr[IntegerAttr])  # -1: the next operand; k >= 0: result k
    args = var_operand_def()
    outputs = var_result_def(TensorType)

    def __init__(
        self,
        stage: str,
        callee: str,
        call_args: Sequence[SSAValue | int],
        result_types: Sequence[TensorType],
    ):
        operands = [a for a in call_args if not isinstance(a, int)]
        layout = [IntegerAttr(a if isinstance(a, int) else EXTERN_OUTPUT, 64) for a in call_args]
        super().__init__(
            properties={"stage": StringAttr(stage), "callee": SymbolRefAttr(callee), "call_args": ArrayAttr(layout)},
            operands=[operands],
            result_types=[list(result_types)],
        )

    @property
    def result(self) -> SSAValue:
        """The first (usually only) tensor the stage computes."""
        return self.outputs[0]

    @property
    def callee_name(self) -> str:
        return self.callee.root_reference.data

    def arguments(self) -> list[SSAValue | int]:
        """The call's arguments in order: an operand, or the index of a result."""
        operands = iter(self.args)
        return [next(operands) if a.value.data == EXTERN_OUTPUT else a.value.data for a in self.call_args.data]

    @property
    def tensor_types(self) -> list[TensorType]:
        return [t for t in self.outputs.types if isinstance(t, TensorType)]

    def inputs(self) -> list[SSAValue]:
        """The tensors the callee reads (whole)."""
        return [a for a in self.args if isinstance(a.type, TensorType)]

    def verify_(self) -> None:
        verify_stage_name(self.stage.data, "te.extern")
        where = f"te.extern \"{self.stage.data}\""
        if not self.callee_name.isidentifier():
            raise VerifyError(f"{where}: the callee @{self.callee_name} is not a C identifier")
        if not self.outputs:
            raise VerifyError(f"{where} computes no tensor")
        positions = [a.value.data for a in self.call_args.data]
        if positions.count(EXTERN_OUTPUT) != len(self.args):
            raise VerifyError(
                f"{where}: {positions.count(EXTERN_OUTPUT)} operand positions in the call for {len(self.args)} operands"
            )
        for k in positions:
            if not EXTERN_OUTPUT <= k < len(self.outputs):
                raise VerifyError(f"{where}: out {k} names no result (it has {len(self.outputs)})")
        unpassed = [str(k) for k in range(len(self.outputs)) if k not in positions]
        if unpassed:
            raise VerifyError(f"{where}: the callee is not given result(s) {', '.join(unpassed)} (out k) to write")
        for value in self.args:
            if not isinstance(value.type, TensorType) and not _is_extern_scalar(value.type):
                raise VerifyError(f"{where}: an argument is a tensor or an index, integer or float scalar, got {value.type}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(" ")
        printer.print_attribute(self.callee)
        printer.print_string("(")
        printer.print_list(
            self.arguments(),
            lambda a: printer.print_string(f"out {a}") if isinstance(a, int) else printer.print_operand(a),
        )
        printer.print_string(")")
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" : ")
        printer.print_attribute(FunctionType.from_lists(list(self.args.types), list(self.outputs.types)))

    @classmethod
    def parse(cls, parser: Parser) -> ExternOp:
        stage = parser.parse_str_literal(" (the stage name)")
        callee = parser.parse_symbol_name().data

        def argument() -> UnresolvedOperand | int:
            if parser.parse_optional_keyword("out") is not None:
                return parser.parse_integer(allow_boolean=False, allow_negative=False)
            return parser.parse_unresolved_operand()

        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        ftype = parser.parse_function_type()
        operands = [a for a in args if not isinstance(a, int)]
        if len(operands) != len(ftype.inputs.data):
            parser.raise_error(f"te.extern: {len(operands)} operands but {len(ftype.inputs.data)} operand types")
        types = iter(ftype.inputs.data)
        resolved = [a if isinstance(a, int) else parser.resolve_operand(a, next(types)) for a in args]
        results: list[TensorType] = []
        for t in ftype.outputs.data:
            if not isinstance(t, TensorType):
                parser.raise_error(f"expected a !te.tensor result type, got {t}")
            results.append(t)
        op = cls(stage, callee, resolved, results)
        if attrs is not None:
            op.attributes |= attrs.data
        return op
