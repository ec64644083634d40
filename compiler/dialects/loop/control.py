"""Control flow: `loop.for`, `loop.if` and `loop.assert`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, UnitAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import NoTerminator

from compiler.diagnostics import VerifyError
from compiler.dialects.loop.types import UNROLL_FULL, UNROLL_FULL_MAX_TRIPS, LoopKind
from compiler.runtime.packed import MAX_ERROR_VALUES


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
        if not 1 <= self.step.value.data < 2**63:  # a 64-bit index: 2^63 wraps to a negative step
            raise VerifyError(f"loop.for step must be in [1, 2^63 - 1], got {self.step.value.data}")
        args = self.body.block.args
        if len(args) != 1 or not isinstance(args[0].type, IndexType):
            raise VerifyError("loop.for body must have exactly one index argument")
        if UNROLL_FULL in self.attributes:
            self._verify_unroll_full()

    def _verify_unroll_full(self) -> None:
        owner = self.extent.owner
        extent = owner.value if isinstance(owner, arith.ConstantOp) else None
        if not isinstance(extent, IntegerAttr):
            raise VerifyError(f"loop.for {{{UNROLL_FULL}}} needs a constant extent")
        trips = -(-extent.value.data // self.step.value.data)
        if trips > UNROLL_FULL_MAX_TRIPS:
            raise VerifyError(
                f"loop.for {{{UNROLL_FULL}}} has {trips} iterations, more than the {UNROLL_FULL_MAX_TRIPS} it may unroll"
            )

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


MAX_ASSERT_VALUES = MAX_ERROR_VALUES
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
