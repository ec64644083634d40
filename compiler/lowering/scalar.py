"""lower-to-llvm, step 4: the scalar ops left over become `llvm` ops.

After steps 1-3 (loop ops, `convert-scf-to-cf`, asserts) a function holds
`arith`, `math`, `cf` and `func` ops over `index` and fixed-width values.
`lower_scalar_function` turns them into `llvm` ops one at a time
(`LowerScalarOps`), retypes every `index` value as i64 (in place), and turns the
`func.func` into an `llvm.func`.

Index arithmetic is 64-bit and marked `nsw` (loop counters and addresses
never wrap); floats keep IEEE semantics. Float math and integer min/max are
LLVM intrinsics; `arith.floordivsi` is expanded from sdiv/srem.

On the way, each function's integer constants are made once, at the start of its
entry block (LLVM IR has no constant instructions: the printed program is the
same), and trivial integer arithmetic is folded instead of lowered: `x + 0`,
`x - 0`, `x * 1`, `x * 0`, `x / 1` and index arithmetic of two constants
(loop bounds `0 + extent`, offsets `0 * stride`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from xdsl.dialects import arith, cf, func, llvm, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import Rewriter

from compiler.analysis.walk import walk_ops
from compiler.diagnostics import PassError

NSW = llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,))

_OpT = TypeVar("_OpT", bound=Operation)


def lower_scalar_function(f: func.FuncOp, lowering: LowerScalarOps) -> llvm.FuncOp:
    """One function's scalar ops to llvm, then the function itself (returned).

    One walk over a snapshot of the function's ops, each replaced in place: every op's
    lowering is made of llvm ops only, so nothing needs a second look (xDSL's greedy
    pattern walker, with its worklist and re-matching, took 4x as long on large functions).
    """
    _FunctionLowering(f, lowering).run()
    lowered = _lower_func(f)
    Rewriter.replace_op(f, lowered)
    return lowered


class _FunctionLowering:
    """The scalar lowering of one function: its constants, folds and `index` values."""

    def __init__(self, f: func.FuncOp, lowering: LowerScalarOps):
        self.f = f
        self.lowering = lowering
        self.constants: dict[tuple[int, Attribute], OpResult] = {}
        self.last_constant: Operation | None = None  # hoisted constants keep their first-use order

    def run(self) -> None:
        for region in self.f.regions:
            _retype_block_args(region)
        for op in walk_ops(self.f.body):
            self.visit(op)
        for value in self.constants.values():  # a constant whose only uses were folded away
            if value.first_use is None:
                _drop(value.op)

    def visit(self, op: Operation) -> None:
        for region in op.regions:
            _retype_block_args(region)
        if isinstance(op, arith.ConstantOp | llvm.ConstantOp) and isinstance(op.value, IntegerAttr):
            self.replace_with_value(op, self.constant(op.value, _llvm_type(op.results[0].type)))
            return
        folded = _fold(op)
        if folded is not None:
            if isinstance(folded, int):
                folded = self.constant(IntegerAttr(folded, i64), i64)
            self.replace_with_value(op, folded)
            return
        if isinstance(op, arith.FloorDivSIOp):
            t = _llvm_type(op.result.type)
            assert isinstance(t, IntegerType)
            new: Operation | list[Operation] | None = _floordiv(op.lhs, op.rhs, self.constant(IntegerAttr(0, t), t))
        else:
            new = self.lowering.lower(op)
        if new is None:  # an llvm op already: only its `index` results change
            for result in op.results:
                _retype(result)
            return
        new_ops = [new] if isinstance(new, Operation) else new
        block = op.parent
        assert block is not None
        block.insert_ops_before(new_ops, op)
        name = op.results[0].name_hint if op.results else None
        for new_op in new_ops:  # as Rewriter.replace_op names them
            for result in new_op.results:
                if result.name_hint is None:
                    result.name_hint = name
        for old, result in zip(op.results, new_ops[-1].results, strict=True):
            old.replace_all_uses_with(result)
        _drop(op)

    def constant(self, value: IntegerAttr, t: Attribute) -> OpResult:
        """The function's one `llvm.mlir.constant` of this value and type, at its entry."""
        key = (value.value.data, t)
        found = self.constants.get(key)
        if found is not None:
            return found
        attr = IntegerAttr(value.value.data, i64) if isinstance(value.type, IndexType) else value
        op = _create(llvm.ConstantOp, [], t, {"value": attr})
        entry = self.f.body.blocks.first
        assert entry is not None
        if self.last_constant is not None:
            entry.insert_op_after(op, self.last_constant)
        elif entry.first_op is not None:
            entry.insert_op_before(op, entry.first_op)
        else:
            entry.add_op(op)
        self.last_constant = op
        self.constants[key] = op.results[0]
        return op.results[0]

    @staticmethod
    def replace_with_value(op: Operation, value: SSAValue) -> None:
        op.results[0].replace_all_uses_with(value)
        _drop(op)


def _drop(op: Operation) -> None:
    """Remove an op whose results have no uses left (cheaper than `Rewriter.erase_op`,
    which checks each result and makes a placeholder value for it)."""
    block = op.parent
    assert block is not None
    block.detach_op(op)
    op.drop_all_references()


def _retype(value: SSAValue) -> None:
    """`index` -> i64 in place: the value's uses stay (Rewriter.replace_value_with_new_type
    makes a new value and moves every use to it)."""
    if isinstance(value.type, IndexType):
        value._type = i64  # pyright: ignore[reportPrivateUsage]


def _retype_block_args(region: Region) -> None:
    for block in region.blocks:
        for arg in block.args:
            _retype(arg)


def _create(cls: type[_OpT], operands: Sequence[SSAValue], result_type: Attribute | None, properties: dict[str, Attribute]) -> _OpT:
    """`cls` with these operands, result and properties, as its constructor makes it (with
    the same properties) but without IRDL's argument building and checks, which took a
    third of this step's time."""
    return cls.create(
        operands=operands, result_types=() if result_type is None else (result_type,), properties=properties
    )


def constant_int(value: SSAValue) -> int | None:
    """The integer `value` is when an `arith.constant` (or, once lowered, an
    `llvm.mlir.constant`) defines it, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp | llvm.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


_INDEX_ARITH: dict[type[Operation], Callable[[int, int], int | None]] = {
    arith.AddiOp: lambda a, b: a + b,
    arith.SubiOp: lambda a, b: a - b,
    arith.MuliOp: lambda a, b: a * b,
    arith.FloorDivSIOp: lambda a, b: a // b if b != 0 else None,
}


def _fold(op: Operation) -> SSAValue | int | None:
    """The value or constant `op` computes when that needs no instruction (None: lower it).

    Identities hold for every integer width; two constants are folded for `index`
    arithmetic only (64-bit, and `nsw`: a result out of range stays an instruction).
    """
    if isinstance(op, arith.IndexCastOp) and _llvm_type(op.input.type) == _llvm_type(op.result.type):
        return op.input  # index <-> i64: the same value once index is i64
    if not isinstance(op, arith.AddiOp | arith.SubiOp | arith.MuliOp | arith.FloorDivSIOp | arith.DivSIOp):
        return None
    t = op.results[0].type
    if not isinstance(t, IndexType | IntegerType):  # vectors stay
        return None
    lhs, rhs = op.operands
    a, b = constant_int(lhs), constant_int(rhs)
    if b == 0 and isinstance(op, arith.AddiOp | arith.SubiOp):
        return lhs
    if a == 0 and isinstance(op, arith.AddiOp):
        return rhs
    if b == 1 and isinstance(op, arith.MuliOp | arith.FloorDivSIOp | arith.DivSIOp):
        return lhs
    if a == 1 and isinstance(op, arith.MuliOp):
        return rhs
    if (a == 0 or b == 0) and isinstance(op, arith.MuliOp) and isinstance(t, IndexType):
        return 0
    if a is None or b is None or not isinstance(t, IndexType) or type(op) not in _INDEX_ARITH:
        return None
    result = _INDEX_ARITH[type(op)](a, b)
    if result is None or not -(2**63) <= result < 2**63:
        return None
    return result


_NO_OVERFLOW = IntegerAttr(0, 32)
_NSW_FLAGS = IntegerAttr(NSW.to_int(), 32)

# Index arithmetic can not overflow (sizes are checked at the call boundary), so it
# carries `nsw`, which lets LLVM widen and vectorize loop counters.
_NSW_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
}
_INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShRSIOp: llvm.AShrOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShLIOp: llvm.ShlOp,
}
_INT_BINARY_PROPERTIES: dict[type[Operation], dict[str, Attribute]] = {
    llvm.ShlOp: {"overflowFlags": _NO_OVERFLOW},  # the bf16 conversions shift bits out on purpose
}
_FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_NO_FAST_MATH = llvm.FastMathAttr(None)
_CAST: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}
_CAST_PROPERTIES: dict[type[Operation], dict[str, Attribute]] = {
    llvm.TruncOp: {"overflowFlags": llvm.OverflowAttr(None)},  # what its constructor sets
}
_FLOAT_INTRINSIC: dict[type[Operation], str] = {
    arith.MaximumfOp: "maximum",
    arith.MinimumfOp: "minimum",
    arith.MaxnumfOp: "maxnum",
    arith.MinnumfOp: "minnum",
    math.ExpOp: "exp",
    math.Exp2Op: "exp2",
    math.LogOp: "log",
    math.Log2Op: "log2",
    math.Log10Op: "log10",
    math.SqrtOp: "sqrt",
    math.AbsFOp: "fabs",
    math.FloorOp: "floor",
    math.CeilOp: "ceil",
    math.SinOp: "sin",
    math.CosOp: "cos",
    math.TanhOp: "tanh",
    math.PowFOp: "pow",
    math.FmaOp: "fma",
    math.RoundOp: "round",
    math.RoundEvenOp: "roundeven",
    math.TruncOp: "trunc",
    # libm's, through LLVM's intrinsics (LLVM 19 and later have them)
    math.TanOp: "tan",
    math.AsinOp: "asin",
    math.AcosOp: "acos",
    math.AtanOp: "atan",
    math.Atan2Op: "atan2",
    math.SinhOp: "sinh",
    math.CoshOp: "cosh",
}
_INT_MINMAX: dict[type[Operation], str] = {
    arith.MaxSIOp: "smax",
    arith.MinSIOp: "smin",
    arith.MaxUIOp: "umax",
    arith.MinUIOp: "umin",
}


_FLOAT_SUFFIX: dict[type[Attribute], str] = {Float16Type: "f16", Float32Type: "f32", Float64Type: "f64"}


def _type_suffix(t: Attribute) -> str:
    if isinstance(t, VectorType):  # llvm.fabs.v8f32
        return f"v{t.get_shape()[0]}{_type_suffix(t.element_type)}"
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType):
        return f"i{t.width.data}"
    return _FLOAT_SUFFIX[type(t)]


def _llvm_type(t: Attribute) -> Attribute:
    return i64 if isinstance(t, IndexType) else t


FAST_MATH = llvm.FastMathAttr([llvm.FastMathFlag.REASSOC, llvm.FastMathFlag.ALLOW_CONTRACT])
"""With `fast_math`: the float adds, subtractions and products may be reassociated
(a reduction vectorizes) and contracted (a*b+c into one FMA, rounded once)."""
CONTRACT = llvm.FastMathAttr([llvm.FastMathFlag.ALLOW_CONTRACT])
"""With `fp_contract` (the default): a*b+c may become one FMA, rounded once."""
_FAST_MATH_OPS = (arith.AddfOp, arith.SubfOp, arith.MulfOp)


class LowerScalarOps:
    """arith, math, cf and func.return to llvm, one op at a time."""

    def __init__(self, fast_math: bool = False, fp_contract: bool = True):
        self.float_flags = FAST_MATH if fast_math else CONTRACT if fp_contract else None

    def lower(self, op: Operation) -> Operation | list[Operation] | None:
        """The llvm ops replacing `op` (the last one's results replace its results), or None
        if `op` is not an arith/math/cf/func.return op.

        Ops are built with `_create`, their result types given (`index` as i64): an
        operand may still be `index` until its definition is visited."""
        kind = type(op)
        if (nsw_op := _NSW_BINARY.get(kind)) is not None:
            t = op.results[0].type
            flags = _NSW_FLAGS if isinstance(t, IndexType) else _NO_OVERFLOW
            return _create(nsw_op, op.operands, _llvm_type(t), {"overflowFlags": flags})
        if (int_op := _INT_BINARY.get(kind)) is not None:
            return _create(int_op, op.operands, _llvm_type(op.results[0].type), _INT_BINARY_PROPERTIES.get(int_op, {}))
        if (float_op := _FLOAT_BINARY.get(kind)) is not None:
            fast = self.float_flags if self.float_flags is not None and isinstance(op, _FAST_MATH_OPS) else None
            return _create(float_op, op.operands, op.results[0].type, {"fastmathFlags": fast or _NO_FAST_MATH})
        if (cast_op := _CAST.get(kind)) is not None:
            return _create(cast_op, op.operands, op.results[0].type, _CAST_PROPERTIES.get(cast_op, {}))
        if (name := _FLOAT_INTRINSIC.get(kind)) is not None:
            t = op.results[0].type
            return llvm.CallIntrinsicOp(f"llvm.{name}.{_type_suffix(t)}", op.operands, [t])
        if (name := _INT_MINMAX.get(kind)) is not None:
            t = op.results[0].type
            return llvm.CallIntrinsicOp(
                f"llvm.{name}.{_type_suffix(t)}", op.operands, [_llvm_type(t)]
            )
        match op:
            case arith.ConstantOp():
                return _lower_constant(op)
            case arith.CmpiOp() if not isinstance(op.lhs.type, VectorType):
                return _create(llvm.ICmpOp, op.operands, i1, {"predicate": op.predicate})
            case arith.CmpiOp():
                return llvm.ICmpOp(op.lhs, op.rhs, op.predicate)
            case arith.CmpfOp():
                return llvm.FCmpOp(op.lhs, op.rhs, op.predicate)
            case arith.SelectOp():
                return _create(llvm.SelectOp, op.operands, _llvm_type(op.result.type), {})
            case arith.NegfOp():
                return llvm.FNegOp(op.operand)
            case math.AbsIOp():
                # The i1 flag says whether abs(INT_MIN) is poison: no, it wraps.
                int_min_is_poison = llvm.ConstantOp(IntegerAttr(0, 1), IntegerType(1))
                call = llvm.CallIntrinsicOp(
                    f"llvm.abs.{_type_suffix(op.result.type)}",
                    [op.operand, int_min_is_poison.result],
                    [_llvm_type(op.result.type)],
                )
                return [int_min_is_poison, call]
            case arith.IndexCastOp():
                return _int_cast(op.input, op.result.type, signed=True)
            case arith.FPToSIOp():
                return llvm.CallIntrinsicOp(
                    f"llvm.fptosi.sat.{_type_suffix(op.result.type)}.{_type_suffix(op.input.type)}",
                    [op.input],
                    [_llvm_type(op.result.type)],
                )
            case cf.BranchOp():
                branch = llvm.BrOp.create(operands=op.operands, successors=op.successors)
                branch.attributes |= op.attributes  # a loop's back edge keeps `unroll_full`
                return branch
            case cf.ConditionalBranchOp():
                return llvm.CondBrOp.create(
                    operands=op.operands,
                    successors=op.successors,
                    properties={"operandSegmentSizes": _segment_sizes(op)},
                )
            case func.ReturnOp():
                return llvm.ReturnOp.create(operands=op.operands)
            case _:
                return None


def _segment_sizes(op: cf.ConditionalBranchOp) -> DenseArrayBase:
    """The operand segments of the `llvm.cond_br` of `op`: the condition, each successor's arguments."""
    return DenseArrayBase.from_list(i32, [1, len(op.then_arguments), len(op.else_arguments)])


def _lower_constant(op: arith.ConstantOp) -> Operation:
    """A float constant (`_FunctionLowering.constant` makes the integer ones)."""
    if isinstance(op.value, FloatAttr):
        return _create(llvm.ConstantOp, [], op.result.type, {"value": op.value})
    raise PassError(f"lower-to-llvm: unsupported constant {op.value}", op)


def _int_cast(value: SSAValue, to: Attribute, *, signed: bool) -> Operation:
    """A widening or narrowing cast (`_fold` drops casts between equal widths)."""
    src, dst = _llvm_type(value.type), _llvm_type(to)
    assert isinstance(src, IntegerType)
    assert isinstance(dst, IntegerType)
    if src.width.data < dst.width.data:
        return _create(llvm.SExtOp if signed else llvm.ZExtOp, [value], dst, {})
    return _create(llvm.TruncOp, [value], dst, _CAST_PROPERTIES[llvm.TruncOp])


def _floordiv(lhs: SSAValue, rhs: SSAValue, zero: SSAValue) -> list[Operation]:
    """floor(a / b) = q - ((r != 0) & ((r < 0) != (b < 0))), with q, r from sdiv/srem;
    q - (r < 0) when b is a positive constant (`arith.floordivsi` is lowered by
    `_FunctionLowering`, which has the function's constant 0 of the type)."""
    ops: list[Operation] = []
    t = zero.type

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    def binary(cls: type[Operation], a: SSAValue, b: SSAValue, result: Attribute = t) -> SSAValue:
        return add(_create(cls, [a, b], result, {}))

    def icmp(a: SSAValue, b: SSAValue, predicate: IntegerAttr) -> SSAValue:
        return add(_create(llvm.ICmpOp, [a, b], i1, {"predicate": predicate}))

    ne, slt = IntegerAttr(1, i64), IntegerAttr(2, i64)
    q = binary(llvm.SDivOp, lhs, rhs)
    r = binary(llvm.SRemOp, lhs, rhs)
    divisor = constant_int(rhs)
    if divisor is not None and divisor > 0:  # r < 0 implies r != 0; b < 0 is false
        adjust = icmp(r, zero, slt)
    else:
        signs_differ = binary(llvm.XOrOp, icmp(r, zero, slt), icmp(rhs, zero, slt), i1)
        adjust = binary(llvm.AndOp, icmp(r, zero, ne), signs_differ, i1)
    extended = add(_create(llvm.ZExtOp, [adjust], t, {}))
    add(_create(llvm.SubOp, [q, extended], t, {"overflowFlags": _NO_OVERFLOW}))
    return ops


def llvm_function_type(f: func.FuncOp) -> llvm.LLVMFunctionType:
    """The type `f` has as an `llvm.func` (`index` as i64)."""
    ins = [_llvm_type(t) for t in f.function_type.inputs.data]
    outs = f.function_type.outputs.data
    return llvm.LLVMFunctionType(ins, outs[0] if outs else None)


def _lower_func(f: func.FuncOp) -> llvm.FuncOp:
    new = llvm.FuncOp(
        f.sym_name.data,
        llvm_function_type(f),
        linkage=llvm.LinkageAttr("external"),
        body=Rewriter.move_region_contents_to_new_regions(f.body),
    )
    new.arg_attrs = f.arg_attrs
    return new
