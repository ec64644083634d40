"""lower-to-llvm, step 0: bfloat16 is a storage type; its arithmetic runs in f32.

A `bf16` value is the upper half of an f32: 1 sign bit, 8 exponent bits, 7 mantissa
bits. CPUs have no bf16 arithmetic (AVX-512 BF16 and AMX only convert and take dot
products), and torch's CPU kernels compute bf16 in f32 and round each result, as
Inductor does inside its fused kernels. Here, before anything else is lowered:

1. every `arith`/`math` op that computes on bf16 values runs on their f32 extensions
   and its bf16 results are the f32 results rounded (a compare, a cast to an integer
   or from one, a math function the same way);
2. the conversions are integer ops, so they vectorize and need no runtime library:
   bf16 -> f32 is the 16 bits shifted into the top of an i32 (exact), f32 -> bf16
   rounds to nearest even (`(b + 0x7FFF + ((b >> 16) & 1)) >> 16`) and keeps a NaN a
   quiet positive NaN (`runtime/bfloat16.py` does the same in NumPy). Branch-free,
   and without a flag made from a sign bit: the vectorizer has no vector compare or
   select, and LLVM 22 turned such a flag, in SLP-vectorized scalar tails, into a
   `vmovmskps` of a register it cannot encode (xmm18: the instruction read xmm2, and a
   layer norm's tail element came out NaN);
3. what is left of bf16 only moves bits (loads, stores, selects, an `scf.if`'s
   results), so every bf16 type (scalars, buffer elements) becomes i16.

LLVM 22 has a `bfloat` type, but llvmlite's IR builder has none, and on a host without
AVX-512 BF16 LLVM rounds f32 -> bfloat with a call to `__truncsfbf2`, which a JIT in
this process may not resolve: the integer ops give the same bits on every host.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float32Type,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    f32,
    i16,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.dialects import loop
from compiler.runtime.bfloat16 import bf16_bits, bf16_value

BF16 = BFloat16Type()


def is_bf16(t: Attribute) -> bool:
    return isinstance(t, BFloat16Type)


def has_bfloat16(module: ModuleOp) -> bool:
    return any(_bf16_in(v.type) is not None for op in walk_ops(module) for v in _values_of(op))


def legalize_bfloat16(module: ModuleOp) -> None:
    """Steps 1-3 on every function of `module` (nothing to do without bf16)."""
    if not has_bfloat16(module):
        return
    for op in walk_ops(module):
        if _computes_on_bf16(op):
            _in_f32(op)
    # all chosen before any is rewritten: a rounding's replacement is i16, and the
    # extension that reads it must still be found
    ops = walk_ops(module)
    extensions = [op for op in ops if isinstance(op, arith.ExtFOp) and is_bf16(op.input.type)]
    roundings = [op for op in ops if isinstance(op, arith.TruncFOp) and is_bf16(op.result.type)]
    constants = [op for op in ops if isinstance(op, arith.ConstantOp) and is_bf16(op.result.type)]
    for ext in extensions:
        _replace_extension(ext)
    for rounding in roundings:
        _replace_rounding(rounding)
    for constant in constants:
        _replace_constant(constant)
    _retype(module)


# -- step 1: arithmetic in f32 ---------------------------------------------------

_MOVES_BITS = (arith.ConstantOp, arith.SelectOp, arith.BitcastOp, arith.ExtFOp, arith.TruncFOp)


def _computes_on_bf16(op: Operation) -> bool:
    if op.dialect_name() not in ("arith", "math") or isinstance(op, _MOVES_BITS):
        return False
    return any(is_bf16(v.type) for v in (*op.operands, *op.results))


def _in_f32(op: Operation) -> None:
    """`op` on the f32 extensions of its bf16 operands; its bf16 results rounded back."""
    new: list[Operation] = []
    operands = [_emit(new, arith.ExtFOp(v, f32)) if is_bf16(v.type) else v for v in op.operands]
    wide = type(op).create(
        operands=operands,
        result_types=[f32 if is_bf16(r.type) else r.type for r in op.results],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    new.append(wide)
    results = [
        _emit(new, arith.TruncFOp(w, BF16)) if is_bf16(r.type) else w
        for r, w in zip(op.results, wide.results, strict=True)
    ]
    Rewriter.insert_op(new, InsertPoint.before(op))
    for old, value in zip(op.results, results, strict=True):
        old.replace_all_uses_with(value)
    Rewriter.erase_op(op)


def _emit(ops: list[Operation], op: Operation) -> SSAValue:
    ops.append(op)
    return op.results[0]


# -- step 2: the conversions as integer ops ---------------------------------------


def _replace_extension(op: arith.ExtFOp) -> None:
    """bf16 -> f32: the bits in the top half of an i32 (then to f64 if asked)."""
    new: list[Operation] = []
    c = _constants(new)
    source = op.input.owner
    if isinstance(source, arith.ConstantOp) and isinstance(source.value, FloatAttr):  # the exact f32
        value = _emit(new, arith.ConstantOp(FloatAttr(bf16_value(bf16_bits(source.value.value.data)), f32)))
    else:
        wide = _emit(new, arith.ExtUIOp(op.input, i32))  # the bf16 value is i16 after step 3
        value = _emit(new, arith.BitcastOp(_emit(new, arith.ShLIOp(wide, c(16))), f32))
    if not isinstance(op.result.type, Float32Type):
        value = _emit(new, arith.ExtFOp(value, op.result.type))
    _replace(op, new, value)


def _replace_rounding(op: arith.TruncFOp) -> None:
    """f32 (or f64, through f32) -> bf16, rounded to nearest even; a NaN stays a quiet,
    positive NaN (as `runtime.bfloat16.to_bf16_bits` rounds in NumPy)."""
    new: list[Operation] = []
    c = _constants(new)
    value = op.input
    if not isinstance(value.type, Float32Type):
        value = _emit(new, arith.TruncFOp(value, f32))
    bits = _emit(new, arith.BitcastOp(value, i32))
    magnitude = _emit(new, arith.AndIOp(bits, c(0x7FFFFFFF)))
    lsb = _emit(new, arith.AndIOp(_emit(new, arith.ShRUIOp(magnitude, c(16))), c(1)))
    rounded = _emit(new, arith.AddiOp(_emit(new, arith.AddiOp(magnitude, c(0x7FFF))), lsb))
    capped = _emit(new, arith.MinUIOp(rounded, c(0x7FFFFFFF)))  # a NaN's carry stops below the sign
    nan_high = _emit(new, arith.AddiOp(magnitude, c(0x7FFFFF)))  # bit 31: a NaN
    sign = _emit(new, arith.AndIOp(bits, _emit(new, arith.XOrIOp(nan_high, c(-1)))))
    signed = _emit(new, arith.OrIOp(_emit(new, arith.AndIOp(sign, c(-0x80000000))), capped))
    quiet = _emit(new, arith.AndIOp(_emit(new, arith.ShRUIOp(nan_high, c(25))), c(0x40)))
    high = _emit(new, arith.OrIOp(_emit(new, arith.ShRUIOp(signed, c(16))), quiet))
    _replace(op, new, _emit(new, arith.TruncIOp(high, i16)))


def _replace_constant(op: arith.ConstantOp) -> None:
    assert isinstance(op.value, FloatAttr)
    bits = bf16_bits(op.value.value.data)
    _replace(op, [c := arith.ConstantOp(IntegerAttr(bits, i16))], c.result)


def _constants(ops: list[Operation]) -> Callable[[int], SSAValue]:
    """i32 constants, each emitted once into `ops`."""
    made: dict[int, SSAValue] = {}

    def constant(value: int) -> SSAValue:
        if value not in made:
            made[value] = _emit(ops, arith.ConstantOp(IntegerAttr(value, i32)))
        return made[value]

    return constant


def _replace(op: Operation, new: list[Operation], value: SSAValue) -> None:
    Rewriter.insert_op(new, InsertPoint.before(op))
    op.results[0].replace_all_uses_with(value)
    Rewriter.erase_op(op)


# -- step 3: bf16 becomes i16 ---------------------------------------------------


def _bf16_in(t: Attribute) -> Attribute | None:
    """`t` with i16 for bf16 (a scalar or a buffer's elements), or None if it has none."""
    if is_bf16(t):
        return i16
    if isinstance(t, loop.BufferType) and is_bf16(t.element_type):
        return loop.BufferType(t.get_shape(), i16, t.get_strides())
    return None


def _values_of(op: Operation) -> list[SSAValue]:
    """The values an op defines: its results and its regions' block arguments."""
    return [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]


def _retype(module: ModuleOp) -> None:
    for op in walk_ops(module):
        for value in _values_of(op):
            new_type = _bf16_in(value.type)
            if new_type is not None:
                Rewriter.replace_value_with_new_type(value, new_type)
        if isinstance(op, loop.FuncOp):
            inputs = [a.type for a in op.body.block.args]
            op.properties["function_type"] = FunctionType.from_lists(inputs, [])


