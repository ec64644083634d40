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

The definitions live in one module per story: `types` (the tensor type and the
reduction kinds), `stage` (`te.compute` and the ops of its body: `te.read`,
`te.reduce`, `te.where`, `te.yield`, which name each other in their parent
constraints), `extern` (`te.extern`), `func` (`te.func`, `te.return`, `te.var`)
and `scan` (`te.state`). This package re-exports them all.
"""

from xdsl.ir import Dialect

from compiler.dialects.te.extern import EXTERN_OUTPUT, ExternOp
from compiler.dialects.te.func import FuncOp, ReturnOp, VarOp
from compiler.dialects.te.scan import StateOp
from compiler.dialects.te.stage import ComputeOp, ReadOp, ReduceOp, WhereOp, YieldOp, default_init
from compiler.dialects.te.types import (
    DTYPE_ATTR,
    DYNAMIC,
    SCALAR_ATTR,
    UNSIGNED_DTYPES,
    ReduceKind,
    TensorType,
)

TE = Dialect(
    "te",
    [FuncOp, ReturnOp, VarOp, ComputeOp, ExternOp, ReadOp, ReduceOp, StateOp, WhereOp, YieldOp],
    [TensorType],
)

__all__ = [
    "DTYPE_ATTR",
    "DYNAMIC",
    "EXTERN_OUTPUT",
    "SCALAR_ATTR",
    "TE",
    "UNSIGNED_DTYPES",
    "ComputeOp",
    "ExternOp",
    "FuncOp",
    "ReadOp",
    "ReduceKind",
    "ReduceOp",
    "ReturnOp",
    "StateOp",
    "TensorType",
    "VarOp",
    "WhereOp",
    "YieldOp",
    "default_init",
]
