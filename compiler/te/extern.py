"""`te.extern`: a stage whose outputs an external function computes (TVM's).

```python
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.extern((n,), [A], lambda ins, outs: te.call_extern(
    "int32", "my_add_one", ins[0].data, outs[0].data, n), name="B")
```

`fcompute(ins, outs)` gets one `Buffer` per input tensor and per output and
returns the call: `te.call_extern(dtype, name, *args)`, whose arguments are
buffers' `.data` (the base pointer of the whole tensor: dense, row-major,
realized whole) and scalars (te.var shape expressions, ints, floats). The
function is found at build time among the process's symbols (libc, libm, a
library loaded with `ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)`) and the
functions registered with `compiler.register_extern`. Its return value is
ignored (TVM's `dtype` argument is kept for compatibility).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from compiler.errors import ExprTypeError, ExprValueError
from compiler.te.nodes import INDEX, Dim, Expr, ExprLike, IterVar, as_expr, check_dtype
from compiler.te.tensors import Operation, Read, Tensor, check_shape
from compiler.te.traversal import walk


@dataclass(eq=False)
class BufferData(Expr):
    """`buf.data`: the base pointer of a whole tensor, an argument of `call_extern`."""

    tensor: Tensor
    dtype: str = "handle"


@dataclass(eq=False)
class ExternCall(Expr):
    """`te.call_extern(dtype, name, *args)`: the body of a `te.extern` stage."""

    func: str
    args: tuple[Expr, ...]
    dtype: str


@dataclass(eq=False)
class Buffer:
    """A tensor as `fcompute` of `te.extern` sees it (TVM's `decl_buffer`)."""

    tensor: Tensor

    @property
    def data(self) -> BufferData:
        return BufferData(self.tensor)

    @property
    def shape(self) -> tuple[Dim, ...]:
        return self.tensor.shape

    @property
    def dtype(self) -> str:
        return self.tensor.dtype

    @property
    def name(self) -> str:
        return self.tensor.name


@dataclass(eq=False)
class ExternOp(Operation):
    """The operation of a `te.extern` stage: no axes, its body the call."""

    inputs: tuple[Tensor, ...] = field(default=(), repr=False)

    def extern_inputs(self) -> tuple[Tensor, ...]:
        return self.inputs

    @property
    def call(self) -> ExternCall:
        assert isinstance(self.body, ExternCall)
        return self.body

    def __repr__(self) -> str:
        return f"ExternOp({self.name}, {self.call.func})"


def call_extern(dtype: str, func_name: str, *args: ExprLike | BufferData) -> ExternCall:
    """A call of the C function `func_name` (TVM's `call_extern`): buffers' `.data`
    pass pointers, te.var expressions and ints pass int64, floats float32."""
    if not isinstance(func_name, str) or not func_name.isidentifier():
        raise ExprValueError(f"call_extern: the function name must be a C identifier, got {func_name!r}")
    converted = tuple(_extern_arg(a, func_name, k) for k, a in enumerate(args))
    return ExternCall(func_name, converted, dtype)


def _extern_arg(arg: ExprLike | BufferData, func_name: str, k: int) -> Expr:
    if isinstance(arg, BufferData):
        return arg
    if isinstance(arg, Buffer | Tensor):
        raise ExprTypeError(f"call_extern {func_name}: argument {k} is a buffer; pass its pointer, `.data`")
    e = as_expr(arg, INDEX)
    if e.dtype == "bool" or builtins.any(isinstance(n, Read | IterVar | BufferData) for n in walk(e)):
        raise ExprTypeError(
            f"call_extern {func_name}: argument {k} must be a buffer's .data or a scalar of "
            "te.var shape variables and constants"
        )
    return e


def extern(
    shape: Sequence[Dim] | Sequence[Sequence[Dim]],
    inputs: Sequence[Tensor],
    fcompute: Callable[[list[Buffer], list[Buffer]], ExternCall],
    name: str = "extern",
    dtype: str | Sequence[str] | None = None,
) -> Tensor | list[Tensor]:
    """TVM's `te.extern`: tensors of `shape` (a list of shapes for several outputs) that
    the external call `fcompute(ins, outs)` returns computes from `inputs`, whole.
    One output gives a Tensor, several a list. `dtype` defaults to the first input's
    (float32 without inputs). The stage can't be split, attached or inlined, and the
    stages it reads are computed whole before it; its consumers schedule as usual.

    >>> A = te.placeholder((16,), name="A")
    >>> B = te.extern((16,), [A], lambda ins, outs: te.call_extern(
    ...     "int32", "memcpy", outs[0].data, ins[0].data, 64), name="B")
    >>> B.op
    ExternOp(B, memcpy)
    """
    shapes = _shapes(shape, name)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise ExprTypeError(f"extern {name}: inputs must be tensors, got {t!r}")
        if t.strided:
            raise ExprValueError(f"extern {name}: input {t.name} is strided; an external function takes dense buffers")
    default = inputs[0].dtype if inputs else "float32"
    dtypes = [dtype or default] * len(shapes) if dtype is None or isinstance(dtype, str) else list(dtype)
    if len(dtypes) != len(shapes):
        raise ExprValueError(f"extern {name}: {len(dtypes)} dtypes for {len(shapes)} outputs")
    op = ExternOp(name, inputs=tuple(inputs))
    outputs = tuple(
        Tensor(s, check_dtype(d), op, value_index=k) for k, (s, d) in enumerate(zip(shapes, dtypes, strict=True))
    )
    op.output_tensor = outputs[0]
    if len(outputs) > 1:
        op.outputs = outputs
    call = fcompute([Buffer(t) for t in inputs], [Buffer(t) for t in outputs])
    if not isinstance(call, ExternCall):
        raise ExprTypeError(f"extern {name}: fcompute must return te.call_extern(...), got {call!r}")
    written = {a.tensor.uid for a in call.args if isinstance(a, BufferData)}
    missing = [f"outs[{k}]" for k, t in enumerate(outputs) if t.uid not in written]
    if missing:
        raise ExprValueError(f"extern {name}: the call is not given {', '.join(missing)}.data to write")
    known = {t.uid for t in (*inputs, *outputs)}
    for a in call.args:
        if isinstance(a, BufferData) and a.tensor.uid not in known:
            raise ExprValueError(f"extern {name}: the call passes {a.tensor.name}, which is not among its inputs")
    op.body = call
    return outputs[0] if len(outputs) == 1 else list(outputs)


def _shapes(shape: Sequence[Dim] | Sequence[Sequence[Dim]], name: str) -> list[tuple[Dim, ...]]:
    items = list(shape) if isinstance(shape, list | tuple) else [shape]
    several = bool(items) and builtins.all(isinstance(s, list | tuple) for s in items)
    raw = items if several else [items]
    return [check_shape(s, f"extern {name}") for s in raw]  # type: ignore[arg-type]  # checked there

