"""lower-to-llvm, step 0 (math): `math.exp` and `math.tanh` on f32 as arithmetic in vectors.

LLVM lowers `llvm.exp.v16f32` to sixteen calls of libm's `expf` (no vector math
library is linked), so a loop computing exp (a softmax, an erf-based GELU, a
sigmoid) runs at scalar speed however it is vectorized: ConvNeXt-tiny's GELUs took
a tenth of the network. `expand_math` rewrites each f32 `math.exp` (before
vectorize.py, which handles every op used) into the usual range reduction:

    x  = min(max(x, -176), 89)         NaN stays NaN (maximumf/minimumf propagate it)
    n  = floor(x * log2(e) + 0.5)      x = n * ln2 + r, |r| <= ln2 / 2
    r  = (x - n * ln2_hi) - n * ln2_lo ln2 in two parts: r exact to float rounding
    p  = 1 + r + r^2/2! + ... + r^6/6! (Horner; relative error below 2e-7 on the range)
    exp(x) = p * 2^n1 * 2^n2,  n1 = floor(n / 2), n2 = n - n1,
             2^k = bitcast((bits(k + 1.5 * 2^23) - bits(1.5 * 2^23) + 127) * 2^23)

2^n in two factors, each a normal float for n in [-252, 129]: results below 2^-126
round into the denormals (and to 0 below x = -103.3) and above the largest float to
+inf, as libm's; at the floor (n = -254) both factors are +0.0, so the many inputs far
below the range (a mask's lowest value) give 0 without a denormal multiply. f64 and f16 `math.exp` stay libm calls
(16-bit float math runs in f32 through `ops.util.in_float32`).

`math.tanh` (GPT-2's GELU) is built on it: (1 - t) / (1 + t) with t = exp(-2|x|),
a Taylor polynomial below |x| = 0.25 (where 1 - t would cancel), and x's sign, blended
without a select (`tanh_ops`).
"""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32, i32
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from compiler.analysis.walk import walk_ops
from compiler.dialects import loop

_LN2_HI = 0.693145751953125  # ln2's high bits: n * _LN2_HI is exact for |n| <= 128
_LN2_LO = 1.428606765330187e-06
_TAYLOR = [1.0 / pymath.factorial(k) for k in range(6, -1, -1)]  # 1/6!, ..., 1/1!, 1/0!
_MAGIC = 12582912.0  # 1.5 * 2^23: k + _MAGIC has the bits _MAGIC_BITS + k for |k| < 2^22
_MAGIC_BITS = 0x4B400000
_EXP_FLOOR = -176.0
"""Where exp's input is clamped from below: n = -254 there, both scale factors 2^-127,
which the bit trick builds as +0.0, so the result is 0 without an underflowing multiply
(a denormal result costs x86 a microcode assist: a masked softmax, whose masked scores
all land here, ran its exp 3x slower at -104, where the factors were 2^-75)."""


class _Emitter:
    """Ops appended in order, inserted before the exp they replace."""

    def __init__(self) -> None:
        self.ops: list[Operation] = []

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def f(self, value: float) -> SSAValue:
        return self.add(arith.ConstantOp(FloatAttr(value, f32)))

    def i(self, value: int) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, i32)))


def exp_ops(x: SSAValue) -> tuple[list[Operation], SSAValue]:
    """The ops computing exp(x) for an f32 `x` (module docstring), and their result."""
    e = _Emitter()
    clamped = e.add(arith.MinimumfOp(e.add(arith.MaximumfOp(x, e.f(_EXP_FLOOR))), e.f(89.0)))
    t = e.add(arith.AddfOp(e.add(arith.MulfOp(clamped, e.f(1.4426950408889634))), e.f(0.5)))
    n = e.add(math.FloorOp(t))
    r = e.add(arith.SubfOp(clamped, e.add(arith.MulfOp(n, e.f(_LN2_HI)))))
    r = e.add(arith.SubfOp(r, e.add(arith.MulfOp(n, e.f(_LN2_LO)))))
    p = e.f(_TAYLOR[0])
    for c in _TAYLOR[1:]:
        p = e.add(arith.AddfOp(e.add(arith.MulfOp(p, r)), e.f(c)))
    n1 = e.add(math.FloorOp(e.add(arith.MulfOp(n, e.f(0.5)))))
    n2 = e.add(arith.SubfOp(n, n1))
    result = p
    for k in (n1, n2):
        # the integer k as bits without fptosi (LLVM scalarizes a vector fptosi.sat): k +
        # 1.5 * 2^23 holds k in its low mantissa bits
        shifted = e.add(arith.BitcastOp(e.add(arith.AddfOp(k, e.f(_MAGIC))), i32))
        exponent = e.add(arith.SubiOp(shifted, e.i(_MAGIC_BITS - 127)))
        result = e.add(arith.MulfOp(result, e.add(arith.BitcastOp(e.add(arith.MuliOp(exponent, e.i(1 << 23))), f32))))
    return e.ops, result


_TANH_SMALL = 0.25
"""Below it, tanh's Taylor polynomial (to x^11: error below 1e-10); above, (1 - t) / (1 + t)
with t = exp(-2|x|), whose 1 - t loses at most 2e-7 there."""
_TANH_TAYLOR = [-1382 / 155925, 62 / 2835, -17 / 315, 2 / 15, -1 / 3, 1.0]  # of x^11 ... x^1, in x^2


def tanh_ops(x: SSAValue) -> tuple[list[Operation], SSAValue]:
    """The ops computing tanh(x) for an f32 `x` from `exp_ops` (a vector exp), an odd
    polynomial near 0 and the sign of x; NaN stays NaN, +-inf gives +-1.

    No compare or select: vectorize.py has neither on vectors, so a select kept every
    loop with a tanh scalar unless LLVM's own vectorizer took it (GPT-2's GELU ran at
    8.5 ns an element). The two forms are blended by a weight clamped to 0 or 1,
    `w = clamp((0.25 - |x|) * 1e30, 0, 1)`, as `large + w * (small - large)`, exactly
    `small` where w = 1 (both have x's sign and lie within a factor of 2 of each other,
    so their difference is exact); x's sign is `clamp(x * 1e30, -1, 1)`, exactly +-1
    where the large form is used."""
    e = _Emitter()

    def clamp(v: SSAValue, lo: float, hi: float) -> SSAValue:
        return e.add(arith.MinimumfOp(e.add(arith.MaximumfOp(v, e.f(lo))), e.f(hi)))

    a = e.add(math.AbsFOp(x))
    exp_list, t = exp_ops(e.add(arith.MulfOp(a, e.f(-2.0))))
    e.ops.extend(exp_list)
    large = e.add(arith.DivfOp(e.add(arith.SubfOp(e.f(1.0), t)), e.add(arith.AddfOp(e.f(1.0), t))))
    large = e.add(arith.MulfOp(large, clamp(e.add(arith.MulfOp(x, e.f(1e30))), -1.0, 1.0)))
    near = clamp(x, -_TANH_SMALL, _TANH_SMALL)  # the polynomial stays finite at +-inf
    x2 = e.add(arith.MulfOp(near, near))
    p = e.f(_TANH_TAYLOR[0])
    for c in _TANH_TAYLOR[1:]:
        p = e.add(arith.AddfOp(e.add(arith.MulfOp(p, x2)), e.f(c)))
    small = e.add(arith.MulfOp(p, near))
    weight = clamp(e.add(arith.MulfOp(e.add(arith.SubfOp(e.f(_TANH_SMALL), a)), e.f(1e30))), 0.0, 1.0)
    return e.ops, e.add(arith.AddfOp(large, e.add(arith.MulfOp(weight, e.add(arith.SubfOp(small, large))))))


def expand_math(func: loop.FuncOp) -> None:
    """Every f32 `math.exp` and `math.tanh` of `func` as `exp_ops` and `tanh_ops`
    (fast-math flags are dropped: the expansion's rounding is its own)."""
    for op in [op for op in walk_ops(func) if isinstance(op, math.ExpOp | math.TanhOp) and op.result.type == f32]:
        ops, result = (exp_ops if isinstance(op, math.ExpOp) else tanh_ops)(op.operand)
        Rewriter.insert_op(ops, InsertPoint.before(op))
        op.result.replace_all_uses_with(result)
        Rewriter.erase_op(op)
