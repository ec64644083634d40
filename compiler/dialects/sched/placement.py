"""The primitives that place a stage: `sched.compute_at`, `compute_root`,
`compute_inline`, and `create_group` (a group of stages placed as one).
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, StringAttr, UnitAttr
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from compiler.diagnostics import VerifyError
from compiler.dialects.sched.schedule import IN_SCHEDULE
from compiler.dialects.sched.types import IterType, parse_iters, print_iters


@irdl_op_definition
class ComputeAtOp(IRDLOperation):
    """`sched.compute_at "C", %j : !sched.iter<"D">`: compute C inside D's loop %j
    (C a stage, or a group of `sched.create_group`)."""

    traits = IN_SCHEDULE

    name = "sched.compute_at"
    stage = prop_def(StringAttr)
    axis = operand_def(IterType)

    def __init__(self, stage: str, axis: SSAValue):
        super().__init__(operands=[axis], properties={"stage": StringAttr(stage)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(",")
        print_iters(printer, [self.axis])

    @classmethod
    def parse(cls, parser: Parser) -> ComputeAtOp:
        stage = parser.parse_str_literal(" (the stage name)")
        parser.parse_punctuation(",")
        values, _ = parse_iters(parser)
        return cls(stage, values[0])


class StageDirectiveOp(IRDLOperation, ABC):
    """The shape of `sched.compute_root` and `sched.compute_inline`: a stage name."""

    traits = IN_SCHEDULE

    stage = prop_def(StringAttr)
    assembly_format = "$stage attr-dict"

    def __init__(self, stage: str):
        super().__init__(properties={"stage": StringAttr(stage)})


def _stage_op(op_name: str, doc: str) -> type[StageDirectiveOp]:
    class StageOp(StageDirectiveOp):
        name = op_name

    StageOp.__doc__ = doc
    StageOp.__name__ = op_name.split(".")[1].title().replace("_", "") + "Op"
    return irdl_op_definition(StageOp)


ComputeRootOp = _stage_op(
    "sched.compute_root", '`sched.compute_root "C"`: C (a stage or a group) at the function root, or its group\'s (default).'
)
ComputeInlineOp = _stage_op("sched.compute_inline", '`sched.compute_inline "C"`: C is substituted into its consumers.')


@irdl_op_definition
class CreateGroupOp(IRDLOperation):
    """`sched.create_group "g" outputs ["x1"] inputs ["x"] include_inputs` (TVM's
    `s.create_group(outputs, inputs, include_inputs)`): the stages on a path from an
    output down to an input (the outputs, and the inputs with `include_inputs`) form
    group "g", which `sched.compute_at "g", %j` attaches (every stage of it that is not
    attached itself) and `sched.compute_root "g"` puts back at the root. Inputs are
    stages or arguments of the function. A group that holds every stage of another
    one nests it; a stage of a group can only be computed at a stage of that group."""

    traits = IN_SCHEDULE

    name = "sched.create_group"
    group = prop_def(StringAttr)
    outputs = prop_def(ArrayAttr[StringAttr])
    inputs = prop_def(ArrayAttr[StringAttr])
    include_inputs = opt_prop_def(UnitAttr)

    def __init__(self, group: str, outputs: Sequence[str], inputs: Sequence[str], include_inputs: bool = False):
        super().__init__(
            properties={
                "group": StringAttr(group),
                "outputs": ArrayAttr([StringAttr(o) for o in outputs]),
                "inputs": ArrayAttr([StringAttr(i) for i in inputs]),
                "include_inputs": UnitAttr() if include_inputs else None,
            }
        )

    def verify_(self) -> None:
        outputs = [o.data for o in self.outputs.data]
        inputs = [i.data for i in self.inputs.data]
        if not outputs:
            raise VerifyError(f"sched.create_group \"{self.group.data}\" needs at least one output stage")
        if not inputs:
            raise VerifyError(
                f"sched.create_group \"{self.group.data}\" needs at least one input: its stages are those "
                "between the inputs and the outputs"
            )
        for what, names in (("an output", outputs), ("an input", inputs)):
            if len(set(names)) != len(names):
                raise VerifyError(f"sched.create_group \"{self.group.data}\" names {what} twice")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.group.data)
        for word, names in (("outputs", self.outputs), ("inputs", self.inputs)):
            printer.print_string(f" {word} [")
            printer.print_list(names.data, lambda n: printer.print_string_literal(n.data))
            printer.print_string("]")
        if self.include_inputs is not None:
            printer.print_string(" include_inputs")

    @classmethod
    def parse(cls, parser: Parser) -> CreateGroupOp:
        group = parser.parse_str_literal(" (the group name)")

        def names(word: str) -> list[str]:
            parser.parse_keyword(word, ' (sched.create_group "g" outputs [...] inputs [...])')
            return parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_str_literal(" (a stage name)")
            )

        outputs, inputs = names("outputs"), names("inputs")
        include = parser.parse_optional_keyword("include_inputs") is not None
        return cls(group, outputs, inputs, include)
