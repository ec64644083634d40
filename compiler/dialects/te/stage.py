"""A `te.compute` stage and the ops of its body: `te.read`, `te.reduce`, `te.where`, `te.yield`.

They stay in one module because their parent constraints name each other both
ways (a `te.reduce` lives in a `te.compute`, which checks the reduce it yields;
`te.yield` ends either).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import (
    Attribute,
    Block,
    Operation,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    AttrSizedRegionSegments,
    IRDLOperation,
    base,
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
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
)

from compiler.diagnostics import VerifyError
from compiler.dialects.shape import (
    Dim,
    DimAttr,
    attr_to_dims,
    dims_to_attr,
    parse_dims,
    print_dims,
    shape_var_names,
    verify_dims,
    verify_stage_name,
)
from compiler.dialects.syntax import parse_access, print_access
from compiler.dialects.te.types import DYNAMIC, ReduceKind, TensorType, unbound_variables


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
        print_access(printer, self.tensor, self.indices, self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> ReadOp:
        tensor, indices, attrs = parse_access(parser, TensorType, "!te.tensor")
        op = cls(tensor, indices)
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

    def _verify_extents_bound(self) -> None:
        names = shape_var_names([d for d in self.get_extents() if d != DYNAMIC])
        if unbound := unbound_variables(self, set(names)):
            raise VerifyError(
                f"te.reduce extent names symbolic variable '{unbound[0]}', which appears in no argument or "
                "result shape of its te.func and is no scalar argument, so nothing can bind it"
            )

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
        self._verify_extents_bound()
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
