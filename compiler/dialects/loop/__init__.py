"""`loop`: imperative loop nests over buffers, TVM's TIR as an xDSL dialect.

`schedule-ops` lowers `te` to this dialect; the storage passes rewrite it;
`lower-to-llvm` turns it into xDSL's `llvm` dialect. Scalar and index math
stay in `arith`/`math`; `scf.if` with results carries lazy selects.

```mlir
loop.func @add(%a: !loop.buffer<["n"], f32>, %c: !loop.buffer<["n"], f32>) {
  %c0 = arith.constant 0 : index
  %n = loop.var "n" : index
  %t = loop.alloc "T" [%c0] : !loop.buffer<["n"], f32>
  loop.for %i = %c0 extent %n vectorized {
    %v = loop.load %a[%i] : !loop.buffer<["n"], f32>
    loop.store %v, %t[%i] : !loop.buffer<["n"], f32>
  }
}
```

Buffers are indexed in *logical* coordinates: `loop.alloc` records the
realized region (a min per dimension, the extents are the type's shape) and
element `[i, j]` lives at `(i - min0) * stride0 + (j - min1) * stride1`. The
storage passes make that arithmetic explicit.

The definitions live in one module per story: `types` (`!loop.buffer`, the
loop kinds), `func` (`loop.func`, `loop.var`, `loop.call_extern`), `control`
(`loop.for`, `loop.if`, `loop.assert`) and `memory` (`loop.alloc`, `loop.view`,
`loop.load`, `loop.store`). This package re-exports them all.
"""

from xdsl.ir import Dialect

from compiler.dialects.loop.control import ASSERT_ERRORS, MAX_ASSERT_VALUES, AssertOp, ForOp, IfOp
from compiler.dialects.loop.func import DTYPE_ATTR, SCALAR_ATTR, CallExternOp, FuncOp, VarOp
from compiler.dialects.loop.memory import AllocOp, LoadOp, StoreOp, ViewOp
from compiler.dialects.loop.types import (
    UNROLL_FULL,
    UNROLL_FULL_MAX_TRIPS,
    BufferType,
    LoopKind,
    element_bytes,
)

LOOP = Dialect(
    "loop",
    [
        FuncOp,
        VarOp,
        ForOp,
        AllocOp,
        ViewOp,
        LoadOp,
        StoreOp,
        IfOp,
        AssertOp,
        CallExternOp,
    ],
    [BufferType],
)

__all__ = [
    "ASSERT_ERRORS",
    "DTYPE_ATTR",
    "LOOP",
    "MAX_ASSERT_VALUES",
    "SCALAR_ATTR",
    "UNROLL_FULL",
    "UNROLL_FULL_MAX_TRIPS",
    "AllocOp",
    "AssertOp",
    "BufferType",
    "CallExternOp",
    "ForOp",
    "FuncOp",
    "IfOp",
    "LoadOp",
    "LoopKind",
    "StoreOp",
    "VarOp",
    "ViewOp",
    "element_bytes",
]
