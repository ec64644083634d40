"""`sched`: schedules of `te` functions, TVM's `Schedule`/`Stage` as IR.

A `sched.schedule @f { ... }` holds the schedule primitives applied to the
stages of `te.func @f`. Iteration variables are SSA values of type
`!sched.iter<"Stage">`: a root axis comes from `sched.axis`, new ones from
`sched.split` and `sched.fuse`.

```mlir
sched.schedule @f {
  %i = sched.axis "D" 0 : !sched.iter<"D">
  %j = sched.axis "D" 1 : !sched.iter<"D">
  %jo, %ji = sched.split %j by 8 : !sched.iter<"D">
  sched.reorder %jo, %i, %ji : !sched.iter<"D">
  sched.compute_at "C", %ji : !sched.iter<"D">
  sched.vectorize %ji : !sched.iter<"D">
  sched.compute_inline "B"
}
```

The verifier of `sched.schedule` rejects invalid schedules: unknown stages
or axes, splitting or fusing an axis that is no longer a leaf, reordering
axes of another stage, attaching a stage inside a loop that some reader of it runs outside,
attachment cycles, inlining a reduction or an output, factoring (`sched.rfactor`)
a data axis or a stage others are computed at, and using a stage's axes from
before its rfactor; a `sched.cache_write` of a stage that is attached,
inlined, annotated, has stages attached to it or its reduce axes split, a
`sched.cache_read` whose reader does not read the tensor, axes a cache_write
replaced, a `sched.storage_align` of a non-root axis or of an output, and a
`sched.create_group` whose inputs the outputs do not read or that cuts
through another group, or a stage of a group computed at a stage outside it;
for a scan (`te.state`), a time axis split, fused, reordered inward or
annotated, a scan or its init attached or inlined, and a stage that reads the
scan's state computed outside its time loop; for a `te.extern` stage, any
primitive on it and attaching or inlining a stage it reads.
"""

from __future__ import annotations

from abc import ABC
from collections.abc import Callable, Collection, Sequence
from typing import Self

from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    OpResult,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, NoTerminator, SymbolTable
from xdsl.utils.exceptions import VerifyException

from compiler.diagnostics import ScheduleVerifyError, VerifyError
from compiler.dialects import te
from compiler.dialects.shape import verify_stage_name
from compiler.dialects.storage_scopes import CACHE_SCOPES
from compiler.names import fresh_name


@irdl_attr_definition
class IterType(ParametrizedAttribute, TypeAttribute):
    """`!sched.iter<"D">`: an iteration variable of stage D."""

    name = "sched.iter"
    stage: StringAttr

    def __init__(self, stage: str):
        super().__init__(StringAttr(stage))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [StringAttr(parser.parse_str_literal(" (the stage name)"))]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.stage.data)


def _stage_of(value: SSAValue) -> str:
    t = value.type
    assert isinstance(t, IterType)
    return t.stage.data


def _parse_iters(parser: Parser) -> tuple[list[SSAValue], IterType]:
    names = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_unresolved_operand)
    parser.parse_punctuation(":")
    t = parser.parse_type()
    if not isinstance(t, IterType):
        parser.raise_error(f"expected a !sched.iter type, got {t}")
    return [parser.resolve_operand(n, t) for n in names], t


def _print_iters(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string(" ")
    printer.print_list(values, printer.print_operand)
    printer.print_string(" : ")
    printer.print_attribute(values[0].type)


def _same_stage(op: str, values: Sequence[SSAValue]) -> None:
    stages = {_stage_of(v) for v in values}
    if len(stages) > 1:
        raise VerifyError(f"{op} mixes axes of stages {', '.join(sorted(stages))}")


_IN_SCHEDULE = lazy_traits_def(lambda: (HasParent(ScheduleOp),))
"""The primitives' trait: they exist inside a `sched.schedule` only."""


@irdl_op_definition
class AxisOp(IRDLOperation):
    """A root axis of a stage: `%j = sched.axis "D" 1` (data-parallel axis 1),
    `%k = sched.axis "D" reduce 0` (reduce axis 0)."""

    traits = _IN_SCHEDULE

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
        if _stage_of(self.result) != self.stage.data:
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

    traits = _IN_SCHEDULE

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

    traits = _IN_SCHEDULE

    name = "sched.singleton"
    stage = prop_def(StringAttr)
    result = result_def(IterType)

    def __init__(self, stage: str):
        super().__init__(properties={"stage": StringAttr(stage)}, result_types=[IterType(stage)])

    def verify_(self) -> None:
        if _stage_of(self.result) != self.stage.data:
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

    traits = _IN_SCHEDULE

    name = "sched.fuse"
    outer = operand_def(IterType)
    inner = operand_def(IterType)
    result = result_def(IterType)

    def __init__(self, outer: SSAValue, inner: SSAValue):
        super().__init__(operands=[outer, inner], result_types=[outer.type])

    def verify_(self) -> None:
        _same_stage("sched.fuse", [self.outer, self.inner])

    def print(self, printer: Printer) -> None:
        _print_iters(printer, [self.outer, self.inner])

    @classmethod
    def parse(cls, parser: Parser) -> FuseOp:
        values, _ = _parse_iters(parser)
        if len(values) != 2:
            parser.raise_error("sched.fuse takes two axes")
        return cls(values[0], values[1])


@irdl_op_definition
class ReorderOp(IRDLOperation):
    """`sched.reorder %a, %b, %c : !sched.iter<"D">`: these leaves, in this order."""

    traits = _IN_SCHEDULE

    name = "sched.reorder"
    axes = var_operand_def(IterType)

    def __init__(self, axes: Sequence[SSAValue]):
        super().__init__(operands=[axes])

    def verify_(self) -> None:
        _same_stage("sched.reorder", self.axes)
        if len(set(self.axes)) != len(self.axes):
            raise VerifyError("sched.reorder names an axis twice")

    def print(self, printer: Printer) -> None:
        _print_iters(printer, self.axes)

    @classmethod
    def parse(cls, parser: Parser) -> ReorderOp:
        values, _ = _parse_iters(parser)
        return cls(values)


class AxisAnnotationOp(IRDLOperation, ABC):
    """The shape of the annotation ops (`sched.parallel`, `vectorize`, `unroll`): one axis."""

    traits = _IN_SCHEDULE

    axis = operand_def(IterType)

    def __init__(self, axis: SSAValue):
        super().__init__(operands=[axis])

    def print(self, printer: Printer) -> None:
        _print_iters(printer, [self.axis])

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        values, _ = _parse_iters(parser)
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

    traits = _IN_SCHEDULE

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


@irdl_op_definition
class ComputeAtOp(IRDLOperation):
    """`sched.compute_at "C", %j : !sched.iter<"D">`: compute C inside D's loop %j
    (C a stage, or a group of `sched.create_group`)."""

    traits = _IN_SCHEDULE

    name = "sched.compute_at"
    stage = prop_def(StringAttr)
    axis = operand_def(IterType)

    def __init__(self, stage: str, axis: SSAValue):
        super().__init__(operands=[axis], properties={"stage": StringAttr(stage)})

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        printer.print_string(",")
        _print_iters(printer, [self.axis])

    @classmethod
    def parse(cls, parser: Parser) -> ComputeAtOp:
        stage = parser.parse_str_literal(" (the stage name)")
        parser.parse_punctuation(",")
        values, _ = _parse_iters(parser)
        return cls(stage, values[0])


@irdl_op_definition
class RfactorOp(IRDLOperation):
    """`sched.rfactor %ki as "B.rf" factor_axis 0 : !sched.iter<"B">` (TVM's
    `s.rfactor(B, ki, factor_axis)`): splits reduction B into a new stage "B.rf"
    that reduces over every reduce axis but %ki and keeps %ki as a data axis
    (inserted before data axis `factor_axis`, 0 when omitted), and a stage B that
    reduces "B.rf" over that axis. Axes of B made before are retired: B starts
    over with fresh axes (`sched.axis "B" ...` after this op)."""

    traits = _IN_SCHEDULE

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
        if self.factor_stage.data == _stage_of(self.axis):
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


class StageDirectiveOp(IRDLOperation, ABC):
    """The shape of `sched.compute_root` and `sched.compute_inline`: a stage name."""

    traits = _IN_SCHEDULE

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

    traits = _IN_SCHEDULE

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

    traits = _IN_SCHEDULE

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

    traits = _IN_SCHEDULE

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


@irdl_op_definition
class CreateGroupOp(IRDLOperation):
    """`sched.create_group "g" outputs ["x1"] inputs ["x"] include_inputs` (TVM's
    `s.create_group(outputs, inputs, include_inputs)`): the stages on a path from an
    output down to an input (the outputs, and the inputs with `include_inputs`) form
    group "g", which `sched.compute_at "g", %j` attaches (every stage of it that is not
    attached itself) and `sched.compute_root "g"` puts back at the root. Inputs are
    stages or arguments of the function. A group that holds every stage of another
    one nests it; a stage of a group can only be computed at a stage of that group."""

    traits = _IN_SCHEDULE

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


@irdl_op_definition
class ScheduleOp(IRDLOperation):
    """`sched.schedule @f { ... }`: the schedule of `te.func @f`."""

    name = "sched.schedule"
    func = prop_def(SymbolRefAttr)
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def __init__(self, func: str, body: Region | None = None):
        super().__init__(
            properties={"func": SymbolRefAttr(func)}, regions=[body or Region(Block())]
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.func.root_reference.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> ScheduleOp:
        name = parser.parse_symbol_name().data
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(name, parser.parse_region())
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def verify_(self) -> None:
        module = self.parent_op()
        if not isinstance(module, ModuleOp):
            raise VerifyError("sched.schedule must be at the top level of a module")
        func = SymbolTable.lookup_symbol(module, self.func)
        if func is None:
            raise VerifyError(f"sched.schedule names no function {self.func}")
        if not isinstance(func, te.FuncOp):
            raise VerifyError(f"sched.schedule must name a te.func, {self.func} is not one")
        for op in self.body.block.ops:  # the replay knows the axes of this schedule only
            try:  # and assumes each primitive valid: verified first (the walk reaches them later)
                op.verify(verify_nested_ops=False)
            except VerifyException as err:
                raise ScheduleVerifyError(str(err), op) from None
            for value in op.operands:
                if not (isinstance(value, OpResult) and value.op.parent_block() is self.body.block):
                    raise ScheduleVerifyError(
                        f"{op.name} uses %{value.name_hint or '?'}, which this sched.schedule does not define", op
                    )
        for check in _SCHEDULE_CHECKERS:
            check(func, self)


ScheduleChecker = Callable[[te.FuncOp, ScheduleOp], None]
_SCHEDULE_CHECKERS: list[ScheduleChecker] = []


def install_schedule_checker(check: ScheduleChecker) -> None:
    """Adds a check of the schedule's meaning to the `sched.schedule` verifier.

    Replaying a schedule (which axes are leaves, attach scopes and cycles) is
    analysis, `compiler.schedule.model`; the dialect only defines the
    ops, so the model installs itself here when imported. The registry loads
    it with the dialect, so every context that can parse `sched` verifies it.
    """
    if check not in _SCHEDULE_CHECKERS:
        _SCHEDULE_CHECKERS.append(check)


SCHED = Dialect(
    "sched",
    [
        ScheduleOp,
        AxisOp,
        SplitOp,
        FuseOp,
        SingletonOp,
        ReorderOp,
        ParallelOp,
        VectorizeOp,
        UnrollOp,
        PragmaOp,
        ComputeAtOp,
        ComputeRootOp,
        ComputeInlineOp,
        RfactorOp,
        CacheReadOp,
        CacheWriteOp,
        StorageAlignOp,
        CreateGroupOp,
    ],
    [IterType],
)
