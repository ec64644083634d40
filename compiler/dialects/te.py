"""`te`: tensor expressions, TVM's TE as an xDSL dialect.

A `te.func` takes tensors and returns the tensors it computes. Every stage is a
`te.compute` whose region maps an output index (one `index` block argument per
dimension) to one element. Inside a stage, `te.read` reads one element of a
tensor and `te.reduce` folds a body over reduce axes. Scalar math uses xDSL's
`arith` and `math`; index math uses `arith` on `index`.

Lazy `if_then_else`: this dialect reuses `scf.if` with results. Its regions
are only evaluated when taken, which is exactly TVM's `if_then_else` semantics,
it already lowers through `convert-scf-to-cf`, and guard analyses recognise it
by type. A guard TVM marks as `likely` carries the unit attribute `te.likely`.

```mlir
te.func @pad_relu(%x: !te.tensor<["n"], f32>) -> !te.tensor<["n + 2"], f32> {
  %n = te.var "n" : index
  %p = te.compute "pad" (%i) : !te.tensor<["n + 2"], f32> {
    ...
  }
  te.return %p : !te.tensor<["n + 2"], f32>
}
```
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
)
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AttrSizedRegionSegments,
    IRDLOperation,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.str_enum import StrEnum

from compiler.diagnostics import VerifyError, verify_top_level
from compiler.dialects.shape import (
    Dim,
    DimAttr,
    attr_to_dims,
    dims_to_attr,
    parse_dims,
    print_dims,
    verify_dims,
    verify_element_type,
    verify_stage_name,
    verify_var_name,
)

# ---------------------------------------------------------------------------
# Types and attributes
# ---------------------------------------------------------------------------


@irdl_attr_definition
class TensorType(ParametrizedAttribute, TypeAttribute):
    """`!te.tensor<[1, "c", 56], f32>`: a dimension is an int or a symbolic name/expression."""

    name = "te.tensor"
    shape: ArrayAttr[DimAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[Dim], element_type: Attribute):
        super().__init__(dims_to_attr(shape), element_type)

    def get_shape(self) -> tuple[Dim, ...]:
        return attr_to_dims(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            dims = parse_dims(parser, "!te.tensor")
            parser.parse_punctuation(",")
            return [dims, parser.parse_type()]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            print_dims(printer, self.get_shape())
            printer.print_string(", ")
            printer.print_attribute(self.element_type)

    def verify(self) -> None:
        verify_dims(self.get_shape(), "!te.tensor", verify_element_type(self.element_type, "!te.tensor"))


SCALAR_ATTR = "te.scalar"
"""Argument attribute of a `te.func`: this argument, a 0-d i64 tensor, is the value of
the named variable (TVM's scalar arguments: a `te.var` that `build` takes as an int)."""

DYNAMIC = "?"
"""A `te.reduce` extent given by an operand (it depends on the compute's axes)."""


class ReduceKind(StrEnum):
    SUM = auto()
    PROD = auto()
    MAX = auto()
    MIN = auto()


# ---------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------


@irdl_op_definition
class FuncOp(IRDLOperation):
    """A tensor function: tensor arguments in, computed tensors out.

    ```mlir
    te.func @add(%a: !te.tensor<[4], f32>, %b: !te.tensor<[4], f32>) -> !te.tensor<[4], f32> {
      ...
      te.return %c : !te.tensor<[4], f32>
    }
    ```
    """

    name = "te.func"
    body = region_def("single_block")
    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    RESERVED: ClassVar[tuple[str, ...]] = ("sym_name", "function_type", "arg_attrs", "res_attrs")

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

    def verify_(self) -> None:
        verify_top_level(self)
        for i, t in enumerate(self.function_type.inputs.data):
            if not isinstance(t, TensorType):
                raise VerifyError(f"te.func argument {i} must be a !te.tensor, got {t}")
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
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=cls.RESERVED
        )
        if region is None:
            parser.raise_error("te.func needs a body")
        op = cls(name, inputs, outputs, region)
        op.arg_attrs, op.res_attrs = arg_attrs, res_attrs
        if extra is not None:
            op.attributes |= extra.data
        return op

    def print(self, printer: Printer) -> None:
        print_func_op_like(
            printer,
            self.sym_name,
            self.function_type,
            self.body,
            self.attributes,
            arg_attrs=self.arg_attrs,
            res_attrs=self.res_attrs,
            reserved_attr_names=self.RESERVED,
        )


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
        func = _enclosing_func(self)
        if func is None:
            return
        from compiler.dialects.shape import shape_var_names

        known: set[str] = set(func.scalar_args().values())
        for t in (*func.function_type.inputs.data, *func.function_type.outputs.data):
            if isinstance(t, TensorType):
                known.update(shape_var_names(t.get_shape()))
        if self.var_name.data not in known:
            raise VerifyError(
                f"symbolic variable '{self.var_name.data}' appears in no argument or result shape "
                f"of @{func.sym_name.data} and is no scalar argument, so nothing can bind it"
            )


def _enclosing_func(op: Operation) -> FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        parent = parent.parent_op()
    return parent


def _print_index_args(printer: Printer, block: Block) -> None:
    printer.print_string(" (")
    printer.print_list(block.args, lambda a: printer.print_block_argument(a, print_type=False))
    printer.print_string(")")


def _parse_index_args(parser: Parser) -> list[Parser.Argument]:
    def arg() -> Parser.Argument:
        return parser.parse_argument(expect_type=False).resolve(IndexType())

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, arg)


def _yielded(block: Block, count: int = 1) -> YieldOp:
    last = block.last_op
    if not isinstance(last, YieldOp) or len(last.values) != count:
        what = "exactly one value" if count == 1 else f"{count} values"
        raise VerifyError(f"the body must end with a te.yield of {what}")
    return last


def _parse_typed_args(parser: Parser, types: Sequence[Attribute]) -> list[Parser.Argument]:
    """`(%a, %b)` whose types are given (the combiner's accumulators and elements)."""
    unresolved = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
    )
    if len(unresolved) != len(types):
        parser.raise_error(f"expected {len(types)} combiner arguments, got {len(unresolved)}")
    return [a.resolve(t) for a, t in zip(unresolved, types, strict=True)]


@irdl_op_definition
class ComputeOp(IRDLOperation):
    """A stage: one element of the output for each index.

    ```mlir
    %c = te.compute "C" (%i, %j) : !te.tensor<[5, 16], f32> {
      %v = te.read %a[%i, %j] : !te.tensor<[5, 16], f32>
      te.yield %v : f32
    }
    ```
    A `te.reduce`, if any, must be the value the body yields (as in TVM).
    A stage may compute several tensors of one shape in one loop nest (TVM's
    multi-output compute): it yields one element per result, and a reduction
    with several results (argmax) yields all of them, in order.
    """

    name = "te.compute"
    stage = prop_def(StringAttr)
    outputs = var_result_def(TensorType)
    body = region_def("single_block")
    traits = traits_def(Pure())

    def __init__(self, stage: str, result_type: TensorType | Sequence[TensorType], body: Region):
        types = [result_type] if isinstance(result_type, TensorType) else list(result_type)
        super().__init__(properties={"stage": StringAttr(stage)}, result_types=[types], regions=[body])

    @property
    def result(self) -> SSAValue:
        """The first (usually only) tensor the stage computes."""
        return self.outputs[0]

    @property
    def tensor_type(self) -> TensorType:
        t = self.result.type
        assert isinstance(t, TensorType)
        return t

    @property
    def tensor_types(self) -> list[TensorType]:
        return [t for t in self.outputs.types if isinstance(t, TensorType)]

    @property
    def axes(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    def reduction(self) -> ReduceOp | None:
        value = _yielded(self.body.block, len(self.outputs)).values[0]
        owner = value.owner
        return owner if isinstance(owner, ReduceOp) else None

    def verify_(self) -> None:
        verify_stage_name(self.stage.data, "te.compute")
        t = self.tensor_type
        args = self.body.block.args
        if len(args) != t.rank:
            raise VerifyError(
                f"te.compute \"{self.stage.data}\" has {len(args)} index arguments for a "
                f"rank-{t.rank} result"
            )
        if len(self.outputs) == 0:
            raise VerifyError(f"te.compute \"{self.stage.data}\" computes no tensor")
        for other in self.tensor_types[1:]:
            if other.get_shape() != t.get_shape():
                raise VerifyError(
                    f"te.compute \"{self.stage.data}\": every result has the shape of the first, "
                    f"{list(t.get_shape())}, got {list(other.get_shape())}"
                )
        values = _yielded(self.body.block, len(self.outputs)).values
        for value, rt in zip(values, self.tensor_types, strict=True):
            if value.type != rt.element_type:
                raise VerifyError(
                    f"te.compute \"{self.stage.data}\" yields {value.type}, expected the element type "
                    f"{rt.element_type}"
                )
        reductions = [op for op in self.body.walk() if isinstance(op, ReduceOp)]
        if reductions and (len(reductions) > 1 or tuple(values) != tuple(reductions[0].outputs)):
            raise VerifyError(
                f"te.compute \"{self.stage.data}\": a te.reduce must be the value the stage yields "
                "(all of its results, in order)"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.stage.data)
        _print_index_args(printer, self.body.block)
        printer.print_string(" : ")
        printer.print_list(self.outputs.types, printer.print_attribute)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> ComputeOp:
        stage = parser.parse_str_literal(" (the stage name)")
        args = _parse_index_args(parser)
        parser.parse_punctuation(":")
        result_types: list[TensorType] = []
        for t in parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type):
            if not isinstance(t, TensorType):
                parser.raise_error(f"expected a !te.tensor result type, got {t}")
            result_types.append(t)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        op = cls(stage, result_types, parser.parse_region(args))
        if attrs is not None:
            op.attributes |= attrs.data
        return op


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


@irdl_op_definition
class ReadOp(IRDLOperation):
    """One element of a tensor: `%v = te.read %a[%i, %j] : !te.tensor<[5, 16], f32>`."""

    name = "te.read"
    tensor = operand_def(TensorType)
    indices = var_operand_def(IndexType)
    result = result_def()
    traits = traits_def(Pure())

    def __init__(self, tensor: SSAValue | Operation, indices: Sequence[SSAValue | Operation]):
        t = SSAValue.get(tensor).type
        assert isinstance(t, TensorType)
        super().__init__(operands=[tensor, indices], result_types=[t.element_type])

    def verify_(self) -> None:
        t = self.tensor.type
        assert isinstance(t, TensorType)
        if len(self.indices) != t.rank:
            raise VerifyError(
                f"te.read of a rank-{t.rank} tensor takes {t.rank} indices, got {len(self.indices)}"
            )
        if self.result.type != t.element_type:
            raise VerifyError(
                f"te.read result type {self.result.type} is not the element type {t.element_type}"
            )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        with printer.in_square_brackets():
            printer.print_list(self.indices, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.tensor.type)

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        tensor = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if not isinstance(t, TensorType):
            parser.raise_error(f"expected a !te.tensor type, got {t}")
        op = cls(
            parser.resolve_operand(tensor, t),
            [parser.resolve_operand(i, IndexType()) for i in indices],
        )
        op.attributes |= attrs
        return op


def default_init(kind: ReduceKind, element_type: Attribute) -> FloatAttr | IntegerAttr:
    """The identity of a reduction: 0, 1, -inf/min, +inf/max."""
    if isinstance(element_type, IntegerType):
        if kind == ReduceKind.SUM:
            return IntegerAttr(0, element_type)
        if kind == ReduceKind.PROD:
            return IntegerAttr(1, element_type)
        bits = element_type.width.data
        extreme = -(2 ** (bits - 1)) if kind == ReduceKind.MAX else 2 ** (bits - 1) - 1
        return IntegerAttr(extreme, element_type)
    if not isinstance(element_type, AnyFloat):
        raise VerifyError(f"a reduction has no identity for element type {element_type}")
    if kind == ReduceKind.SUM:
        return FloatAttr(0.0, element_type)
    if kind == ReduceKind.PROD:
        return FloatAttr(1.0, element_type)
    return FloatAttr(float("-inf") if kind == ReduceKind.MAX else float("inf"), element_type)


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """A commutative reduction over reduce axes, each running from 0 to its extent.

    ```mlir
    %acc = te.reduce sum (%rc, %ry) in ["c", 3] : f32 {
      ...
      te.yield %p : f32
    }
    ```
    An explicit start value may follow the extents: `init(1.0 : f32)`; the
    default is the identity of the kind (0, 1, -inf, +inf).

    An extent that depends on the compute's axes (TVM's `te.reduce_axis((0, i))`,
    a triangular sum) is `"?"`, and its value an index operand computed in the
    compute's body, one per `"?"` in order (as `memref.alloc`'s dynamic sizes):

    ```mlir
    %y = te.compute "y" (%i) : !te.tensor<[10], f32> {
      %acc = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 { ... }
      te.yield %acc : f32
    }
    ```

    A user reducer (TVM's `te.comm_reducer`) names itself and brings its
    combiner, a region from (accumulators..., elements...) to the new
    accumulators, and one start value per result; with several results
    (argmax over (index, value) pairs) the body yields one element per result:

    ```mlir
    %i, %v = te.reduce argmax (%k) in ["n"] init(-1 : i32, -3.40282347e+38 : f32) : i32, f32 {
      ...
      te.yield %ki, %x : i32, f32
    } combiner (%ai, %av, %bi, %bv) {
      %ge = arith.cmpf oge, %av, %bv : f32
      %ri = arith.select %ge, %ai, %bi : i32
      %rv = arith.select %ge, %av, %bv : f32
      te.yield %ri, %rv : i32, f32
    }
    ```

    A reducer's start values may depend on the compute's axes (TVM allows an
    identity and a combiner that name them): an `identity` region, with no
    arguments, yields them instead of `init(...)`; it and the combiner may use the
    enclosing `te.compute`'s axes (and `te.var`s of their own), nothing else from
    outside. Lowering evaluates the identity where the start values are stored,
    with the axes' values there:

    ```mlir
    %y = te.compute "y" (%i) : !te.tensor<[10], f32> {
      %s = te.reduce sum (%k) in ["?"] dynamic(%i) : f32 { ... } identity {
        %f = ... %i ...
        te.yield %f : f32
      } combiner (%a, %b) {
        %c = arith.addf %a, %b : f32
        %n = ... %i ...
        %m = arith.maximumf %c, %n : f32
        te.yield %m : f32
      }
    }
    ```
    """

    name = "te.reduce"
    kind = prop_def(StringAttr)
    extents = prop_def(ArrayAttr[DimAttr])
    init = opt_prop_def(base(FloatAttr) | base(IntegerAttr))
    inits = opt_prop_def(ArrayAttr)  # the start values of a reduction with several results
    dynamic_extents = var_operand_def(IndexType)  # the values of the "?" extents, in order
    outputs = var_result_def()
    body = region_def("single_block")
    combiner = opt_region_def("single_block")
    identity = opt_region_def("single_block")  # start values of the compute's axes (instead of init)
    traits = lazy_traits_def(lambda: (HasParent(ComputeOp), Pure()))
    irdl_options = (AttrSizedRegionSegments(as_property=True),)

    def __init__(
        self,
        kind: ReduceKind | str,
        extents: Sequence[Dim],
        result_type: Attribute | Sequence[Attribute],
        body: Region,
        init: FloatAttr | IntegerAttr | Sequence[FloatAttr | IntegerAttr] | None = None,
        combiner: Region | None = None,
        dynamic_extents: Sequence[SSAValue] = (),
        identity: Region | None = None,
    ):
        types = list(result_type) if isinstance(result_type, Sequence) else [result_type]
        inits = None if init is None or isinstance(init, FloatAttr | IntegerAttr) else list(init)
        single = init if isinstance(init, FloatAttr | IntegerAttr) else None
        if inits is not None and len(inits) == 1:
            single, inits = inits[0], None
        super().__init__(
            properties={
                "kind": StringAttr(kind if combiner is not None else str(ReduceKind(kind))),
                "extents": dims_to_attr(extents),
                "init": single,
                "inits": None if inits is None else ArrayAttr(inits),
            },
            operands=[list(dynamic_extents)],
            result_types=[types],
            regions=[body, [] if combiner is None else combiner, [] if identity is None else identity],
        )

    @property
    def result(self) -> SSAValue:
        """The first (usually only) result."""
        return self.outputs[0]

    @property
    def is_custom(self) -> bool:
        """A user reducer: combined by its combiner region, not by its kind."""
        return self.combiner is not None

    @property
    def reduce_kind(self) -> ReduceKind:
        return ReduceKind(self.kind.data)

    @property
    def axes(self) -> tuple[SSAValue, ...]:
        return self.body.block.args

    def get_extents(self) -> tuple[Dim, ...]:
        """One per axis; `DYNAMIC` ("?") for an extent given by an operand."""
        return attr_to_dims(self.extents)

    def dynamic_extent_values(self) -> dict[int, SSAValue]:
        """The operand of each "?" extent, by axis position."""
        axes = [k for k, d in enumerate(self.get_extents()) if d == DYNAMIC]
        return dict(zip(axes, self.dynamic_extents, strict=True))

    def axes_named(self) -> list[SSAValue]:
        """The compute's axes that its identity or combiner uses (the regions may use no other
        value from outside)."""
        compute = self.parent_op()
        axes = list(compute.body.block.args) if isinstance(compute, ComputeOp) else []
        used = {
            value
            for region in (self.identity, self.combiner)
            if region is not None
            for op in region.walk()
            for value in op.operands
        }
        return [a for a in axes if a in used]

    def init_values(self) -> list[FloatAttr | IntegerAttr]:
        """One start value per result (constant: not for a reduction with an identity region)."""
        if self.identity is not None:
            raise VerifyError(f"te.reduce {self.kind.data}: its start values are computed by its identity region")
        if self.inits is not None:
            return [a for a in self.inits.data if isinstance(a, FloatAttr | IntegerAttr)]
        if self.init is not None:
            return [self.init]
        return [default_init(self.reduce_kind, self.result.type)]

    def verify_(self) -> None:
        n = len(self.outputs)
        if not self.is_custom:
            if self.kind.data not in set(ReduceKind):
                raise VerifyError(
                    f"unknown reduction '{self.kind.data}': expected one of {', '.join(ReduceKind)}, "
                    "or a combiner region"
                )
            if n != 1:
                raise VerifyError(f"te.reduce {self.kind.data} has one result, got {n}: several need a combiner")
            if self.identity is not None:
                raise VerifyError(f"te.reduce {self.kind.data}: an identity region needs a combiner; use init(...)")
        verify_dims([d for d in self.get_extents() if d != DYNAMIC], "te.reduce extents")
        n_dynamic = sum(d == DYNAMIC for d in self.get_extents())
        if n_dynamic != len(self.dynamic_extents):
            raise VerifyError(
                f"te.reduce has {n_dynamic} dynamic (\"?\") extents but {len(self.dynamic_extents)} "
                "dynamic(...) operands"
            )
        if len(self.axes) != len(self.extents.data):
            raise VerifyError(
                f"te.reduce has {len(self.axes)} axes but {len(self.extents.data)} extents"
            )
        types = list(self.outputs.types)
        values = _yielded(self.body.block, n).values
        if list(values.types) != types:
            raise VerifyError(
                f"te.reduce yields {', '.join(map(str, values.types))} but its result types are "
                f"{', '.join(map(str, types))}"
            )
        if self.is_custom:
            self._verify_combiner(types)
        elif self.init is not None and self.init.type != self.result.type:
            raise VerifyError(
                f"te.reduce init value has type {self.init.type}, expected {self.result.type}"
            )

    def _verify_combiner(self, types: list[Attribute]) -> None:
        has_attrs = self.inits is not None or self.init is not None
        if self.identity is not None:
            if has_attrs:
                raise VerifyError(f"te.reduce {self.kind.data}: init(...) and an identity region: give one of them")
            self._verify_identity(types)
        elif not has_attrs:
            raise VerifyError(f"te.reduce {self.kind.data}: a reducer with a combiner needs its start values, init(...)")
        else:
            inits = self.init_values()
            if len(inits) != len(types) or any(a.type != t for a, t in zip(inits, types, strict=True)):
                got = ", ".join(str(a.type) for a in inits)
                raise VerifyError(
                    f"te.reduce {self.kind.data}: start values of types {got}, expected {', '.join(map(str, types))}"
                )
        assert self.combiner is not None
        block = self.combiner.block
        if list(block.arg_types) != types + types:
            raise VerifyError(
                f"te.reduce {self.kind.data}: the combiner takes the accumulators then the elements "
                f"({', '.join(map(str, types + types))})"
            )
        self._verify_scalar_region(self.combiner, "the combiner", types, "the new accumulators")

    def _verify_identity(self, types: list[Attribute]) -> None:
        assert self.identity is not None
        block = self.identity.block
        if block.args:
            raise VerifyError(f"te.reduce {self.kind.data}: the identity region takes no arguments")
        self._verify_scalar_region(self.identity, "the identity region", types, "the start values")

    def _verify_scalar_region(self, region: Region, what: str, types: list[Attribute], yields: str) -> None:
        """It yields `types`; scalar ops only, using nothing from outside but the compute's
        axes (lowering binds them to their values where the region is evaluated)."""
        last = region.block.last_op
        if not isinstance(last, YieldOp) or list(last.values.types) != types:
            raise VerifyError(
                f"te.reduce {self.kind.data}: {what} must yield {yields} ({', '.join(map(str, types))})"
            )
        compute = self.parent_op()
        axes = set(compute.body.block.args) if isinstance(compute, ComputeOp) else set()
        inside: set[SSAValue] = set()
        for op in region.walk():
            if isinstance(op, ReadOp | ReduceOp | WhereOp):
                raise VerifyError(f"te.reduce {self.kind.data}: {what} can't hold {op.name}")
            inside.update(op.results)
            for inner in op.regions:
                for b in inner.blocks:
                    inside.update(b.args)
        inside.update(region.block.args)
        for op in region.walk():
            for value in op.operands:
                if value not in inside and value not in axes:
                    name = f"%{value.name_hint}" if value.name_hint else "a value"
                    raise VerifyError(
                        f"te.reduce {self.kind.data}: {what} uses {name} from outside it; only the "
                        "compute's axes may be used there"
                    )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data}")
        _print_index_args(printer, self.body.block)
        printer.print_string(" in ")
        print_dims(printer, self.get_extents())
        if self.dynamic_extents:
            printer.print_string(" dynamic(")
            printer.print_list(self.dynamic_extents, printer.print_ssa_value)
            printer.print_string(")")
        if self.init is not None or self.inits is not None:
            printer.print_string(" init(")
            printer.print_list(self.init_values(), printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" : ")
        printer.print_list(self.outputs.types, printer.print_attribute)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.identity is not None:
            printer.print_string(" identity ")
            printer.print_region(self.identity, print_entry_block_args=False)
        if self.combiner is not None:
            printer.print_string(" combiner")
            _print_index_args(printer, self.combiner.block)
            printer.print_string(" ")
            printer.print_region(self.combiner, print_entry_block_args=False)

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        kinds = ", ".join(ReduceKind)
        pos = parser.pos
        kind = parser.parse_identifier(f" (the reduction: one of {kinds}, or a reducer's name)")
        end = parser.pos
        args = _parse_index_args(parser)
        parser.parse_keyword("in")
        extents = parse_dims(parser, "te.reduce extents", dynamic=DYNAMIC)
        dynamic: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic") is not None:
            operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
            dynamic = [parser.resolve_operand(o, IndexType()) for o in operands]
        inits: list[FloatAttr | IntegerAttr] = []
        if parser.parse_optional_keyword("init") is not None:
            for value in parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_attribute):
                if not isinstance(value, FloatAttr | IntegerAttr):
                    parser.raise_error(f"expected an integer or float init value, got {value}")
                inits.append(value)
        parser.parse_punctuation(":")
        result_types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region(args)
        identity = parser.parse_region() if parser.parse_optional_keyword("identity") is not None else None
        combiner = None
        if parser.parse_optional_keyword("combiner") is not None:
            combiner = parser.parse_region(_parse_typed_args(parser, result_types + result_types))
        elif kind not in set(ReduceKind):
            parser.raise_error(f"unknown reduction '{kind}': expected one of {kinds}, or a combiner region", pos, end)
        op = cls(kind, attr_to_dims(extents), result_types, body, inits or None, combiner, dynamic, identity)
        if attrs is not None:
            op.attributes |= attrs.data
        return op


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
        func = _enclosing_func(self)
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
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.init.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

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


@irdl_op_definition
class WhereOp(IRDLOperation):
    """The predicate of a reduction (TVM's `te.sum(..., where=cond)`): in a
    `te.reduce` body, the ops after `te.where %c` and the combination of the
    element happen only where `%c` holds, so reads after it are lazy. Several
    `te.where` are a conjunction (rfactor adds the bound check of a split).

    ```mlir
    %acc = te.reduce sum (%k) in ["n"] : f32 {
      %ok = arith.cmpi sgt, %i, %c1 : index
      te.where %ok
      %v = te.read %a[%k] : !te.tensor<["n"], f32>
      te.yield %v : f32
    }
    ```
    """

    name = "te.where"
    cond = operand_def(IntegerType(1))
    traits = lazy_traits_def(lambda: (HasParent(ReduceOp),))
    assembly_format = "$cond attr-dict"

    def __init__(self, cond: SSAValue | Operation):
        super().__init__(operands=[cond])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`te.yield %v : f32` ends a `te.compute` or `te.reduce` body with the element it produces."""

    name = "te.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(ComputeOp, ReduceOp), Pure()))
    assembly_format = "($values^ `:` type($values))? attr-dict"

    def __init__(self, *values: SSAValue | Operation):
        super().__init__(operands=[values])


TE = Dialect(
    "te",
    [FuncOp, ReturnOp, VarOp, ComputeOp, ExternOp, ReadOp, ReduceOp, StateOp, WhereOp, YieldOp],
    [TensorType],
)
