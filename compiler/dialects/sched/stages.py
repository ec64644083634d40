"""The primitives that add stages or lay out a stage's buffer: `sched.rfactor`,
`cache_read`, `cache_write` (and the names of the stages they create) and
`storage_align`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer

from compiler.diagnostics import VerifyError
from compiler.dialects.sched.schedule import IN_SCHEDULE
from compiler.dialects.sched.types import IterType, stage_of
from compiler.dialects.shape import verify_stage_name
from compiler.dialects.storage_scopes import CACHE_SCOPES
from compiler.names import fresh_name


@irdl_op_definition
class RfactorOp(IRDLOperation):
    """`sched.rfactor %ki as "B.rf" factor_axis 0 : !sched.iter<"B">` (TVM's
    `s.rfactor(B, ki, factor_axis)`): splits reduction B into a new stage "B.rf"
    that reduces over every reduce axis but %ki and keeps %ki as a data axis
    (inserted before data axis `factor_axis`, 0 when omitted), and a stage B that
    reduces "B.rf" over that axis. Axes of B made before are retired: B starts
    over with fresh axes (`sched.axis "B" ...` after this op)."""

    traits = IN_SCHEDULE

    name = "sched.rfactor"
    axis = operand_def(IterType)
    factor_stage = prop_def(StringAttr)
    factor_axis = prop_def(IntAttr)

    def __init__(self, axis: SSAValue, factor_stage: str, factor_axis: int = 0):
        super().__init__(
            operands=[axis],
            properties={"factor_stage": StringAttr(factor_stage), "factor_axis": IntAttr(factor_axis)},
        )

    def verify_(self) -> None:
        verify_stage_name(self.factor_stage.data, "sched.rfactor")
        if self.factor_stage.data == stage_of(self.axis):
            raise VerifyError(f"sched.rfactor: the new stage needs a name other than \"{self.factor_stage.data}\"")
        if self.factor_axis.data < 0:
            raise VerifyError(f"sched.rfactor: factor_axis must be >= 0, got {self.factor_axis.data}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.axis)
        printer.print_string(" as ")
        printer.print_string_literal(self.factor_stage.data)
        if self.factor_axis.data != 0:
            printer.print_string(f" factor_axis {self.factor_axis.data}")
        printer.print_string(" : ")
        printer.print_attribute(self.axis.type)

    @classmethod
    def parse(cls, parser: Parser) -> RfactorOp:
        unresolved = parser.parse_unresolved_operand()
        parser.parse_keyword("as", " (sched.rfactor %axis as \"Name\")")
        name = parser.parse_str_literal(" (the name of the new stage)")
        factor_axis = 0
        if parser.parse_optional_keyword("factor_axis") is not None:
            factor_axis = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(unresolved, parser.parse_type()), name, factor_axis)


def cache_stage_name(tensor: str, scope: str, taken: Collection[str]) -> str:
    """The name of the stage `sched.cache_read`/`cache_write` creates: `<tensor>.<scope>`
    (TVM's), suffixed `C.local1`, `C.local2`, ... when a stage or argument has it."""
    return fresh_name(f"{tensor}.{scope}", taken)


def _verify_scope(op_name: str, scope: str) -> None:
    if scope not in CACHE_SCOPES:
        raise VerifyError(f"{op_name}: unknown storage scope \"{scope}\" (expected one of {', '.join(CACHE_SCOPES)})")


@irdl_op_definition
class CacheReadOp(IRDLOperation):
    """`sched.cache_read "A", "local" readers ["B", "C"]`: a new stage `A.local`
    (`A.local[i] = A[i]`) computed before B and C, which read it instead of A
    (TVM's `cache_read`). A is a stage or an argument of the function."""

    traits = IN_SCHEDULE

    name = "sched.cache_read"
    tensor = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    readers = prop_def(ArrayAttr[StringAttr])
    assembly_format = "$tensor `,` $scope `readers` $readers attr-dict"

    def __init__(self, tensor: str, scope: str, readers: Sequence[str]):
        super().__init__(
            properties={
                "tensor": StringAttr(tensor),
                "scope": StringAttr(scope),
                "readers": ArrayAttr([StringAttr(r) for r in readers]),
            }
        )

    def verify_(self) -> None:
        _verify_scope(self.name, self.scope.data)
        names = [r.data for r in self.readers.data]
        if not names:
            raise VerifyError("sched.cache_read needs at least one reader")
        if len(set(names)) != len(names):
            raise VerifyError("sched.cache_read names a reader twice")


@irdl_op_definition
class CacheWriteOp(IRDLOperation):
    """`sched.cache_write "C", "local"`: C's computation moves to a new stage
    `C.local` (its axes, reduce axes and body) and C becomes the copy
    `C[i] = C.local[i]` (TVM's `cache_write`). Splits, fuses and reorders of C
    made before it define the cache's layout (one dimension per data-parallel
    loop of C, TVM's relayout) and are then undone: C's loops start afresh. A
    multi-output stage moves all its outputs to one multi-output cache stage."""

    traits = IN_SCHEDULE

    name = "sched.cache_write"
    stage = prop_def(StringAttr)
    scope = prop_def(StringAttr)
    assembly_format = "$stage `,` $scope attr-dict"

    def __init__(self, stage: str, scope: str):
        super().__init__(properties={"stage": StringAttr(stage), "scope": StringAttr(scope)})

    def verify_(self) -> None:
        _verify_scope(self.name, self.scope.data)


@irdl_op_definition
class StorageAlignOp(IRDLOperation):
    """`sched.storage_align %i factor 16 offset 1 : !sched.iter<"B">`: the stride of
    B's buffer dimension %i (a root axis) is padded so that `stride % 16 == 1`
    (TVM's `storage_align`)."""

    traits = IN_SCHEDULE

    name = "sched.storage_align"
    axis = operand_def(IterType)
    factor = prop_def(IntAttr)
    offset = prop_def(IntAttr)

    def __init__(self, axis: SSAValue, factor: int, offset: int):
        super().__init__(operands=[axis], properties={"factor": IntAttr(factor), "offset": IntAttr(offset)})

    def verify_(self) -> None:
        factor, offset = self.factor.data, self.offset.data
        if factor < 1:
            raise VerifyError(f"sched.storage_align needs a positive factor, got {factor}")
        if not 0 <= offset < factor:
            raise VerifyError(f"sched.storage_align needs 0 <= offset < factor, got offset {offset} for factor {factor}")

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.axis)
        printer.print_string(f" factor {self.factor.data} offset {self.offset.data} : ")
        printer.print_attribute(self.axis.type)

    @classmethod
    def parse(cls, parser: Parser) -> StorageAlignOp:
        unresolved = parser.parse_unresolved_operand()
        parser.parse_keyword("factor", " (sched.storage_align %axis factor F offset O)")
        factor = parser.parse_integer(allow_boolean=False)
        parser.parse_keyword("offset", " (sched.storage_align %axis factor F offset O)")
        offset = parser.parse_integer(allow_boolean=False)
        parser.parse_punctuation(":")
        return cls(parser.resolve_operand(unresolved, parser.parse_type()), factor, offset)
