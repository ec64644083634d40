"""The Python tensor-expression frontend, with TVM's TE names.

```python
from compiler import te
n = te.var("n")
A = te.placeholder((n, 16), name="A")
k = te.reduce_axis((0, 16), name="k")
B = te.compute((n,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
s = te.create_schedule(B.op)
```

`expr` builds the expression trees, `schedule` records schedules on them,
`to_ir` emits both as the `te` and `sched` dialects.
"""

from compiler.te.expr import (
    Call,
    Cast,
    Compare,
    Const,
    Dim,
    Expr,
    ExprLike,
    IterVar,
    Logical,
    Operation,
    Read,
    Reduce,
    Select,
    Tensor,
    Var,
    all,
    any,
    comm_reducer,
    compute,
    const,
    if_then_else,
    likely,
    logical_not,
    max,
    max_value,
    maximum,
    min,
    min_value,
    minimum,
    placeholder,
    prod,
    reduce_axis,
    sum,
    var,
    walk,
)
from compiler.te.extern import Buffer, ExternOp, call_extern, extern
from compiler.te.intrinsics import abs, ceil, cos, exp, floor, log, power, sigmoid, sin, sqrt, tanh
from compiler.te.scan import scan
from compiler.te.schedule import Schedule, Stage, create_schedule

__all__ = [
    "Buffer",
    "Call",
    "Cast",
    "Compare",
    "Const",
    "Dim",
    "Expr",
    "ExprLike",
    "ExternOp",
    "IterVar",
    "Logical",
    "Operation",
    "Read",
    "Reduce",
    "Schedule",
    "Select",
    "Stage",
    "Tensor",
    "Var",
    "abs",
    "all",
    "any",
    "call_extern",
    "ceil",
    "comm_reducer",
    "compute",
    "const",
    "cos",
    "create_schedule",
    "exp",
    "extern",
    "floor",
    "if_then_else",
    "likely",
    "log",
    "logical_not",
    "max",
    "max_value",
    "maximum",
    "min",
    "min_value",
    "minimum",
    "placeholder",
    "power",
    "prod",
    "reduce_axis",
    "scan",
    "sigmoid",
    "sin",
    "sqrt",
    "sum",
    "tanh",
    "var",
    "walk",
]
