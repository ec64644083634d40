"""The primitives on a stage's loop nest: `sched.axis` (a root axis), `split`,
`singleton`, `fuse`, `reorder`, the annotations `parallel`, `vectorize` and
`unroll`, and `pragma`.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import IntAttr, StringAttr, UnitAttr
from xdsl.ir import SSAValue
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
from compiler.dialects.sched.schedule import IN_SCHEDULE
from compiler.dialects.sched.types import IterType, parse_iters, print_iters, stage_of


def _same_stage(op: str, values: Sequence[SSAValue]) -> None:
    stages = {stage_of(v) for v in values}
    if len(stages) > 1:
        raise VerifyError(f"{op} mixes axes of stages {', '.join(sorted(stages))}")


@irdl_op_definition
class AxisOp(IRDLOperation):
    """A root axis of a stage: `%j = sched.axis "D" 1` (data-parallel axis 1),
    `%k = sched.axis "D" reduce 0` (reduce axis 0)."""

    traits = IN_SCHEDULE

    name = "sched.axis"
    stage = prop_def(StringAttr)
    index = prop_def(IntAttr)
    reduce = opt_prop_def(StringAttr)
    result = result_def(IterType)

    def __init__(self, stage: str, index: int, *, reduce: bool = False):
        super().__init__(
            properties={
                "stage": StringAttr(stage),
                "index": IntAttr(index),
                "reduce": StringAttr("reduce") if reduce else None,
            },
            result_types=[IterType(stage)],
        )

    @property
    def is_reduce(self) -> bool:
        return self.reduce is not None

    def verify_(self) -> None:
        if stage_of(self.result) != self.stage.data:
            raise VerifyError("sched.axis result type must name its stage")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(" reduce" if self.is_reduce else "")
        printer.print_string(f" {self.index.data}")

    @classmethod
    def parse(cls, parser: Parser) -> AxisOp:
        stage = parser.parse_str_literal(" (the stage name)")
        reduce = parser.parse_optional_keyword("reduce") is not None
        index = parser.parse_integer(allow_negative=False, allow_boolean=False)
        return cls(stage, index, reduce=reduce)


@irdl_op_definition
class SplitOp(IRDLOperation):
    """`%o, %i = sched.split %x by 8 : !sched.iter<"D">` (factor) or `... nparts 4`;
    a symbolic factor is an expression string, `by "s"` (a factor below 1 splits by 1).

    `by 4 disable_predication` (TVM's `split(..., disable_predication=True)`): the
    user states the loops need no bound predicate; infer-bound rejects the split
    unless it proves the factor divides the extent (else the loops would run past it)."""

    traits = IN_SCHEDULE

    name = "sched.split"
    split_axis = operand_def(IterType)
    factor = opt_prop_def(IntAttr)
    factor_expr = opt_prop_def(StringAttr)  # a symbolic factor
    nparts = opt_prop_def(IntAttr)
    disable_predication = opt_prop_def(UnitAttr)
    outer = result_def(IterType)
    inner = result_def(IterType)

    def __init__(
        self,
        parent: SSAValue,
        *,
        factor: int | str | None = None,
        nparts: int | None = None,
        disable_predication: bool = False,
    ):
        t = parent.type
        super().__init__(
            operands=[parent],
            properties={
                "factor": IntAttr(factor) if isinstance(factor, int) else None,
                "factor_expr": StringAttr(factor) if isinstance(factor, str) else None,
                "nparts": None if nparts is None else IntAttr(nparts),
                "disable_predication": UnitAttr() if disable_predication else None,
            },
            result_types=[t, t],
        )

    def verify_(self) -> None:
        if (self.factor is None and self.factor_expr is None) == (self.nparts is None) or (
            self.factor is not None and self.factor_expr is not None
        ):
            raise VerifyError("sched.split takes exactly one of a factor or nparts")
        if self.factor_expr is not None:
            from compiler.dialects.shape import verify_dims

            verify_dims([self.factor_expr.data], "sched.split factor")
            return
        bound = self.factor if self.factor is not None else self.nparts
        assert bound is not None  # exactly one of them, checked above
        value = bound.data
        if value < 1:
            raise VerifyError(f"sched.split needs a positive factor or nparts, got {value}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.split_axis)
        if self.factor is not None:
            printer.print_string(f" by {self.factor.data}")
        elif self.factor_expr is not None:
            printer.print_string(" by ")
            printer.print_string_literal(self.factor_expr.data)
        else:
            assert self.nparts is not None
            printer.print_string(f" nparts {self.nparts.data}")
        if self.disable_predication is not None:
            printer.print_string(" disable_predication")
        printer.print_string(" : ")
        printer.print_attribute(self.split_axis.type)

    @classmethod
    def parse(cls, parser: Parser) -> SplitOp:
        parent = parser.parse_unresolved_operand()
        factor: int | str | None = None
        nparts = None
        if parser.parse_optional_keyword("by") is not None:
            text = parser.parse_optional_str_literal()
            factor = text if text is not None else parser.parse_integer(allow_boolean=False)
        else:
            parser.parse_keyword("nparts", " (sched.split takes `by N` or `nparts N`)")
            nparts = parser.parse_integer(allow_boolean=False)
        disable = parser.parse_optional_keyword("disable_predication") is not None
        parser.parse_punctuation(":")
        t = parser.parse_type()
        return cls(parser.resolve_operand(parent, t), factor=factor, nparts=nparts, disable_predication=disable)


@irdl_op_definition
class SingletonOp(IRDLOperation):
    """`%s = sched.singleton "D"`: a new outermost loop of one iteration in stage D
    (TVM's `s[D].fuse()` of no axis), so that another stage can be attached
    outside all of D's loops."""

    traits = IN_SCHEDULE

    name = "sched.singleton"
    stage = prop_def(StringAttr)
    result = result_def(IterType)

    def __init__(self, stage: str):
        super().__init__(properties={"stage": StringAttr(stage)}, result_types=[IterType(stage)])

    def verify_(self) -> None:
        if stage_of(self.result) != self.stage.data:
            raise VerifyError("sched.singleton result type must name its stage")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)

    @classmethod
    def parse(cls, parser: Parser) -> SingletonOp:
        return cls(parser.parse_str_literal(" (the stage name)"))


@irdl_op_definition
class FuseOp(IRDLOperation):
    """`%f = sched.fuse %outer, %inner : !sched.iter<"D">` (inner must follow outer)."""

    traits = IN_SCHEDULE

    name = "sched.fuse"
    outer = operand_def(IterType)
    inner = operand_def(IterType)
    result = result_def(IterType)

    def __init__(self, outer: SSAValue, inner: SSAValue):
        super().__init__(operands=[outer, inner], result_types=[outer.type])

    def verify_(self) -> None:
        _same_stage("sched.fuse", [self.outer, self.inner])

    def print(self, printer: Printer) -> None:
        print_iters(printer, [self.outer, self.inner])

    @classmethod
    def parse(cls, parser: Parser) -> FuseOp:
        values, _ = parse_iters(parser)
        if len(values) != 2:
            parser.raise_error("sched.fuse takes two axes")
        return cls(values[0], values[1])


@irdl_op_definition
class ReorderOp(IRDLOperation):
    """`sched.reorder %a, %b, %c : !sched.iter<"D">`: these leaves, in this order."""

    traits = IN_SCHEDULE

    name = "sched.reorder"
    axes = var_operand_def(IterType)

    def __init__(self, axes: Sequence[SSAValue]):
        super().__init__(operands=[axes])

    def verify_(self) -> None:
        _same_stage("sched.reorder", self.axes)
        if len(set(self.axes)) != len(self.axes):
            raise VerifyError("sched.reorder names an axis twice")

    def print(self, printer: Printer) -> None:
        print_iters(printer, self.axes)

    @classmethod
    def parse(cls, parser: Parser) -> ReorderOp:
        values, _ = parse_iters(parser)
        return cls(values)


class AxisAnnotationOp(IRDLOperation, ABC):
    """The shape of the annotation ops (`sched.parallel`, `vectorize`, `unroll`): one axis."""

    traits = IN_SCHEDULE

    axis = operand_def(IterType)

    def __init__(self, axis: SSAValue):
        super().__init__(operands=[axis])

    def print(self, printer: Printer) -> None:
        print_iters(printer, [self.axis])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        values, _ = parse_iters(parser)
        if len(values) != 1:
            parser.raise_error(f"{cls.name} takes one axis")
        return cls(values[0])


def _annotation_op(op_name: str, doc: str) -> type[AxisAnnotationOp]:
    class AnnotationOp(AxisAnnotationOp):
        name = op_name

    AnnotationOp.__doc__ = doc
    AnnotationOp.__name__ = op_name.split(".")[1].title() + "Op"
    return irdl_op_definition(AnnotationOp)


ParallelOp = _annotation_op("sched.parallel", "`sched.parallel %i : !sched.iter<\"D\">`")
VectorizeOp = _annotation_op("sched.vectorize", "`sched.vectorize %j : !sched.iter<\"D\">`")
UnrollOp = _annotation_op("sched.unroll", "`sched.unroll %k : !sched.iter<\"D\">`")


@irdl_op_definition
class PragmaOp(IRDLOperation):
    """`sched.pragma %i "name" : !sched.iter<"D">`: a hint on the loop of %i (TVM's
    `pragma`). `unroll`, `vectorize` and `parallel` act as those primitives;
    other names, `name` or `name=value`, are kept on the loop (`loop.pragmas`)
    for the passes that read them."""

    traits = IN_SCHEDULE

    name = "sched.pragma"
    axis = operand_def(IterType)
    pragma = prop_def(StringAttr)

    def __init__(self, axis: SSAValue, pragma: str):
        super().__init__(operands=[axis], properties={"pragma": StringAttr(pragma)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.axis)
        printer.print_string(" ")
        printer.print_string_literal(self.pragma.data)
        printer.print_string(" : ")
        printer.print_attribute(self.axis.type)

    @classmethod
    def parse(cls, parser: Parser) -> PragmaOp:
        unresolved = parser.parse_unresolved_operand()
        pragma = parser.parse_str_literal(" (the pragma)")
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(unresolved, parser.parse_type()), pragma)
