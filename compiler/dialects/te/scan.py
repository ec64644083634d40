"""`te.state`: the state of a scan, the previous rows of the stage it names."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import (
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from compiler.diagnostics import VerifyError

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------
from compiler.dialects.syntax import print_attributes_and_types
from compiler.dialects.te.func import enclosing_func
from compiler.dialects.te.stage import ComputeOp
from compiler.dialects.te.types import TensorType


@irdl_op_definition
class StateOp(IRDLOperation):
    """The state of a scan (TVM's `te.scan` state placeholder): output `index` of the
    stage `stage` as of the previous step. That stage is the scan: its first axis
    (time) runs from `init`'s first extent to its own, one step at a time, and the
    stages that read the state are computed inside that loop; `init` (a stage over
    the first rows) writes the scan's buffer before the loop. Reads of the state read
    the scan's buffer.

    ```mlir
    %init = te.compute "s_init" (%z, %i) : !te.tensor<[1, "n"], f32> { ... }
    %state = te.state "scan"[0] init %init : !te.tensor<[1, "n"], f32> -> !te.tensor<["m", "n"], f32>
    %scan = te.compute "scan" (%t, %j) : !te.tensor<["m", "n"], f32> {
      %prev = te.read %state[%t - 1, %j] ...
    }
    ```
    """

    name = "te.state"
    stage = prop_def(StringAttr)
    index = prop_def(IntegerAttr)
    init = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, stage: str, index: int, init: SSAValue, result_type: TensorType):
        super().__init__(
            properties={"stage": StringAttr(stage), "index": IntegerAttr(index, IndexType())},
            operands=[init],
            result_types=[result_type],
        )

    @property
    def output_index(self) -> int:
        return self.index.value.data

    @property
    def init_type(self) -> TensorType:
        t = self.init.type
        assert isinstance(t, TensorType)  # operand_def(TensorType)
        return t

    def verify_(self) -> None:
        init, state = self.init.type, self.result.type
        assert isinstance(init, TensorType)
        assert isinstance(state, TensorType)
        what = f'te.state of "{self.stage.data}"'
        if not isinstance(self.init.owner, ComputeOp):
            raise VerifyError(f"{what}: its init must be a te.compute result")
        if init.element_type != state.element_type:
            raise VerifyError(f"{what}: init of {init.element_type}, state of {state.element_type}")
        if init.rank != state.rank or state.rank == 0:
            raise VerifyError(f"{what}: init and state must have the same rank, at least 1 (the time axis first)")
        if list(init.get_shape())[1:] != list(state.get_shape())[1:]:
            raise VerifyError(
                f"{what}: init {list(init.get_shape())} and state {list(state.get_shape())} differ past the time axis"
            )
        self._verify_scan_stage(state)

    def _verify_scan_stage(self, state: TensorType) -> None:
        """The stage it names is a te.compute of the function with that result."""
        func = enclosing_func(self)
        if func is None:
            return
        name = self.stage.data
        scans = [op for op in func.body.ops if isinstance(op, ComputeOp) and op.stage.data == name]
        if not scans:
            raise VerifyError(f'te.state of "{name}": no te.compute of @{func.sym_name.data} is named "{name}"')
        k = self.output_index
        if k >= len(scans[0].outputs) or scans[0].outputs[k].type != state:
            raise VerifyError(f'te.state of "{name}": the scan has no result {k} of type {state}')

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(f"[{self.output_index}] init ")
        printer.print_operand(self.init)
        print_attributes_and_types(printer, self.attributes, [self.init.type, self.result.type])

    @classmethod
    def parse(cls, parser: Parser) -> StateOp:
        stage = parser.parse_str_literal(" (the scan's stage name)")
        parser.parse_punctuation("[")
        index = parser.parse_integer(allow_negative=False)
        parser.parse_punctuation("]")
        parser.parse_keyword("init")
        unresolved = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        init_type = parser.parse_type()
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if not isinstance(init_type, TensorType) or not isinstance(result_type, TensorType):
            parser.raise_error("te.state: expected !te.tensor types")
        op = cls(stage, index, parser.resolve_operand(unresolved, init_type), result_type)
        op.attributes |= attrs
        return op
