"""lower-to-llvm, step 4: the scalar ops left over become `llvm` ops.

After steps 1-3 (loop ops, `convert-scf-to-cf`, asserts) a function holds
`arith`, `math`, `cf` and `func` ops over `index` and fixed-width values.
`lower_scalar_ops` turns them into `llvm` ops one at a time (`LowerScalarOps`),
retypes every `index` value as i64, and turns each `func.func` into an
`llvm.func`.

Index arithmetic is 64-bit and marked `nsw` (loop counters and addresses
never wrap); floats keep IEEE semantics. Float math and integer min/max are
LLVM intrinsics; `arith.floordivsi` is expanded from sdiv/srem.
"""

from __future__ import annotations

from typing import Protocol

from xdsl.dialects import arith, cf, func, llvm, math
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from compiler.diagnostics import PassError

NSW = llvm.OverflowAttr((llvm.OverflowFlag.NO_SIGNED_WRAP,))


def lower_scalar_ops(module: ModuleOp, *, fast_math: bool = False, fp_contract: bool = True) -> None:
    """arith/math/cf/func.return -> llvm, `index` -> i64, then func.func -> llvm.func.

    One walk over a snapshot of the ops, each replaced in place: every op's lowering
    is made of llvm ops only, so nothing needs a second look (xDSL's greedy pattern
    walker, with its worklist and re-matching, took 4x as long on large functions).
    """
    lowering = LowerScalarOps(fast_math, fp_contract)
    for op in list(module.walk()):
        if isinstance(op, arith.IndexCastOp) and _llvm_type(op.input.type) == _llvm_type(op.result.type):
            Rewriter.replace_op(op, [], [op.input])  # index <-> i64: the same value once index is i64
            continue
        new = lowering.lower(op)
        if new is not None:
            Rewriter.replace_op(op, new)
    _index_to_i64(module)
    for f in [op for op in module.ops if isinstance(op, func.FuncOp)]:
        Rewriter.replace_op(f, _lower_func(f))


class _BinaryCtor(Protocol):
    """An llvm op class built from two operands (`llvm.AddOp(lhs, rhs)`)."""

    def __call__(self, lhs: SSAValue, rhs: SSAValue, /) -> Operation: ...


class _OverflowBinaryCtor(Protocol):
    """An llvm op class with overflow flags (`llvm.AddOp(lhs, rhs, overflow=NSW)`)."""

    def __call__(
        self, lhs: SSAValue, rhs: SSAValue, /, *, overflow: llvm.OverflowAttr = ...
    ) -> Operation: ...


class _FloatBinaryCtor(Protocol):
    """An llvm float op class (`llvm.FAddOp(lhs, rhs, fast_math=...)`)."""

    def __call__(
        self, lhs: SSAValue, rhs: SSAValue, /, fast_math: llvm.FastMathAttr | None = None
    ) -> Operation: ...


class _CastCtor(Protocol):
    """An llvm cast class built from its operand and result type."""

    def __call__(self, arg: SSAValue, res_type: Attribute, /) -> Operation: ...


# Index arithmetic can not overflow (sizes are checked at the call boundary), so it
# carries `nsw`, which lets LLVM widen and vectorize loop counters.
_NSW_BINARY: dict[type[Operation], _OverflowBinaryCtor] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
}
_INT_BINARY: dict[type[Operation], _BinaryCtor] = {
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
}
_FLOAT_BINARY: dict[type[Operation], _FloatBinaryCtor] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}
_CAST: dict[type[Operation], _CastCtor] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
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
    math.TruncOp: "trunc",
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
        if `op` is not an arith/math/cf/func.return op."""
        if (nsw_ctor := _NSW_BINARY.get(type(op))) is not None:
            if isinstance(op.results[0].type, IndexType):
                return nsw_ctor(op.operands[0], op.operands[1], overflow=NSW)
            return nsw_ctor(op.operands[0], op.operands[1])
        if (ctor := _INT_BINARY.get(type(op))) is not None:
            return ctor(op.operands[0], op.operands[1])
        if (float_ctor := _FLOAT_BINARY.get(type(op))) is not None:
            if self.float_flags is not None and isinstance(op, _FAST_MATH_OPS):
                return float_ctor(op.operands[0], op.operands[1], fast_math=self.float_flags)
            return float_ctor(op.operands[0], op.operands[1])
        if (cast := _CAST.get(type(op))) is not None:
            return cast(op.operands[0], op.results[0].type)
        if (name := _FLOAT_INTRINSIC.get(type(op))) is not None:
            t = op.results[0].type
            return llvm.CallIntrinsicOp(f"llvm.{name}.{_type_suffix(t)}", op.operands, [t])
        if (name := _INT_MINMAX.get(type(op))) is not None:
            t = op.results[0].type
            return llvm.CallIntrinsicOp(
                f"llvm.{name}.{_type_suffix(t)}", op.operands, [_llvm_type(t)]
            )
        match op:
            case arith.ConstantOp():
                return _lower_constant(op)
            case arith.FloorDivSIOp():
                return _floordiv(op.lhs, op.rhs)
            case arith.CmpiOp():
                return llvm.ICmpOp(op.lhs, op.rhs, op.predicate)
            case arith.CmpfOp():
                return llvm.FCmpOp(op.lhs, op.rhs, op.predicate)
            case arith.SelectOp():
                return llvm.SelectOp(op.cond, op.lhs, op.rhs)
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
                branch = llvm.BrOp(op.successor, *op.arguments)
                branch.attributes |= op.attributes  # a loop's back edge keeps `unroll_full`
                return branch
            case cf.ConditionalBranchOp():
                return llvm.CondBrOp(
                    op.cond, op.then_block, op.then_arguments, op.else_block, op.else_arguments
                )
            case func.ReturnOp():
                return llvm.ReturnOp(*op.arguments)
            case _:
                return None


def _lower_constant(op: arith.ConstantOp) -> Operation:
    value, t = op.value, op.result.type
    if isinstance(t, IndexType):
        assert isinstance(value, IntegerAttr)
        return llvm.ConstantOp(IntegerAttr(value.value.data, i64), i64)
    if isinstance(value, IntegerAttr | FloatAttr):
        return llvm.ConstantOp(value, t)
    raise PassError(f"lower-to-llvm: unsupported constant {value}")


def _int_cast(value: SSAValue, to: Attribute, *, signed: bool) -> Operation:
    """A widening or narrowing cast (`lower_scalar_ops` drops casts between equal widths)."""
    src, dst = _llvm_type(value.type), _llvm_type(to)
    assert isinstance(src, IntegerType)
    assert isinstance(dst, IntegerType)
    if src.width.data < dst.width.data:
        return llvm.SExtOp(value, dst) if signed else llvm.ZExtOp(value, dst)
    return llvm.TruncOp(value, dst)


def _floordiv(lhs: SSAValue, rhs: SSAValue) -> list[Operation]:
    """floor(a / b) = q - ((r != 0) & ((r < 0) != (b < 0))), with q, r from sdiv/srem."""
    ops: list[Operation] = []

    def add(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    ne, slt = IntegerAttr(1, i64), IntegerAttr(2, i64)
    q = add(llvm.SDivOp(lhs, rhs))
    r = add(llvm.SRemOp(lhs, rhs))
    zero = add(llvm.ConstantOp(IntegerAttr(0, i64), i64))
    signs_differ = add(llvm.XOrOp(add(llvm.ICmpOp(r, zero, slt)), add(llvm.ICmpOp(rhs, zero, slt))))
    adjust = add(llvm.AndOp(add(llvm.ICmpOp(r, zero, ne)), signs_differ))
    add(llvm.SubOp(q, add(llvm.ZExtOp(adjust, i64))))
    return ops


def _index_to_i64(module: ModuleOp) -> None:
    """Retype every `index` result and block argument as i64 (constants are lowered already).

    A direct walk: xDSL's recursive `TypeConversionPattern` rebuilds every
    attribute of every op and took most of this pass's time on the packed
    functions' checks.
    """
    for op in module.walk():
        for result in op.results:
            if isinstance(result.type, IndexType):
                Rewriter.replace_value_with_new_type(result, i64)
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if isinstance(arg.type, IndexType):
                        Rewriter.replace_value_with_new_type(arg, i64)


def _lower_func(f: func.FuncOp) -> llvm.FuncOp:
    ins = [_llvm_type(t) for t in f.function_type.inputs.data]
    outs = f.function_type.outputs.data
    new = llvm.FuncOp(
        f.sym_name.data,
        llvm.LLVMFunctionType(ins, outs[0] if outs else None),
        linkage=llvm.LinkageAttr("external"),
        body=Rewriter.move_region_contents_to_new_regions(f.body),
    )
    new.arg_attrs = f.arg_attrs
    return new
