"""`compiler.lower` and `compiler.build`: the Python entry points.

`build([A, B, C])` runs the default pipeline (`compiler.pipeline`), JIT
compiles the result and returns a `Function` whose arguments are arrays in
the order of the list, outputs included, as in TVM. Arrays are NumPy arrays
or any object with `__dlpack__`; they are passed zero-copy.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from compiler import te as T
from compiler.dialects import loop, te
from compiler.ir_builder import build_module, mlir_type
from compiler.pipeline import Stage, default_pipeline
from compiler.schedule import Schedule

_NUMPY_DTYPES = {
    "float16": np.float16,
    "float32": np.float32,
    "float64": np.float64,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
}


def _split_args(
    schedule_or_args: Schedule | Sequence[T.Tensor], args: Sequence[T.Tensor] | None
) -> tuple[Schedule | None, Sequence[T.Tensor]]:
    if isinstance(schedule_or_args, Schedule):
        if args is None:
            raise TypeError("build(s, args): the argument tensors are missing")
        return schedule_or_args, args
    if args is not None:
        raise TypeError("build(s, args): the first argument must be a schedule (te.create_schedule)")
    return None, schedule_or_args


def lower(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
    until: Stage = "llvm",
) -> ModuleOp:
    """The IR after the default pipeline (or after the stage `until`).

    `lower([A, B, C])` or, with a schedule, `lower(s, [A, B, C])`.
    """
    from compiler.context import make_context

    schedule, tensors = _split_args(schedule_or_args, args)
    module, _ = build_module(tensors, name, schedule)
    ctx = make_context()
    for p in default_pipeline(until):
        p.apply(ctx, module)
    module.verify()
    return module


@dataclass
class ArgSpec:
    name: str
    dims: tuple[int | str, ...]
    dtype: str
    is_output: bool


@dataclass
class CompileStats:
    seconds: dict[str, float] = field(default_factory=dict)


class Function:
    """A compiled tensor function: call it with arrays in the order given to `build`.

    `specs` describe the ABI arguments (inputs then outputs, as the
    `loop.func` has them); `call_order[k]` is the ABI index of the k-th
    array the caller passes.
    """

    def __init__(
        self,
        name: str,
        module: ModuleOp,
        specs: list[ArgSpec],
        call_order: list[int],
        stats: CompileStats,
    ):
        from compiler.context import make_context
        from compiler.dialects import loop
        from compiler.lowering.jit import jit_compile
        from compiler.lowering.to_llvm import assert_messages, symbolic_vars

        self.name = name
        self.stats = stats
        self.specs = [specs[i] for i in call_order]
        self._abi_positions = [call_order.index(i) for i in range(len(specs))]
        loop_func = next(op for op in module.ops if isinstance(op, loop.FuncOp) and op.sym_name.data == name)
        self.loop_ir = ""  # the IR after schedule-ops, set by compile_module
        self.flat_ir = str(module)
        self._vars = symbolic_vars(loop_func)
        self._messages = assert_messages(loop_func)
        start = time.perf_counter()
        ctx = make_context()
        for p in default_pipeline("llvm")[len(default_pipeline("flat")) :]:
            p.apply(ctx, module)
        self.llvm_dialect_ir = str(module)
        self._jit = jit_compile(module)
        stats.seconds["llvm"] = time.perf_counter() - start
        proto = ctypes.CFUNCTYPE(
            ctypes.c_int32, *([ctypes.c_void_p] * len(specs)), *([ctypes.c_int64] * len(self._vars))
        )
        self._fn = proto(self._jit.address(name))

    @property
    def llvm_ir(self) -> str:
        """The optimized LLVM IR."""
        return self._jit.optimized_ir

    def assembly(self) -> str:
        return self._jit.assembly()

    def __call__(self, *arrays: Any) -> None:
        if len(arrays) != len(self.specs):
            raise TypeError(
                f"{self.name}() takes {len(self.specs)} arrays "
                f"({', '.join(s.name for s in self.specs)}), got {len(arrays)}"
            )
        converted = [_as_array(a, s, self.name) for a, s in zip(arrays, self.specs, strict=True)]
        env = self._bind(converted)
        pointers = [converted[i].ctypes.data for i in self._abi_positions]
        code = self._fn(*pointers, *(env[v] for v in self._vars))
        if code != 0:
            raise RuntimeError(f"{self.name}: {self._messages[code - 1]}")

    def _bind(self, arrays: list[np.ndarray]) -> dict[str, int]:
        """Bind symbolic dimensions from shapes, then check every dimension."""
        from compiler.arith.expr import evaluate, parse_expr
        from compiler.dialects.shape import is_symbol_name

        env: dict[str, int] = {}
        origin: dict[str, str] = {}
        for spec, a in zip(self.specs, arrays, strict=True):
            for axis, d in enumerate(spec.dims):
                if is_symbol_name(d) and d not in env:
                    env[d] = a.shape[axis]  # type: ignore[assignment]
                    origin[d] = f"{spec.name}.shape[{axis}]"
        for spec, a in zip(self.specs, arrays, strict=True):
            for axis, d in enumerate(spec.dims):
                expected = d if isinstance(d, int) else evaluate(parse_expr(d), env)
                if a.shape[axis] != expected:
                    where = "" if isinstance(d, int) else f" = {d}" + _bound_from(d, origin)
                    raise ValueError(
                        f"{self.name}: {spec.name}.shape[{axis}] is {a.shape[axis]}, "
                        f"expected {expected}{where}"
                    )
        return env


def _bound_from(dim: str, origin: dict[str, str]) -> str:
    from compiler.arith.expr import free_vars, parse_expr

    names = sorted(free_vars(parse_expr(dim)))
    return " (" + ", ".join(f"{n} bound from {origin[n]}" for n in names if n in origin) + ")"


def _as_array(value: Any, spec: ArgSpec, fname: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        array = value
    elif hasattr(value, "__dlpack__"):
        array = np.from_dlpack(value)
    else:
        raise TypeError(
            f"{fname}: argument {spec.name} must be a NumPy array or a DLPack tensor, "
            f"got {type(value).__name__}"
        )
    expected = np.dtype(_NUMPY_DTYPES[spec.dtype])
    if array.dtype != expected:
        raise TypeError(f"{fname}: {spec.name}.dtype is {array.dtype}, expected {expected}")
    if array.ndim != len(spec.dims):
        raise ValueError(f"{fname}: {spec.name}.ndim is {array.ndim}, expected {len(spec.dims)}")
    if not array.flags.c_contiguous:
        raise ValueError(
            f"{fname}: {spec.name} is not C-contiguous (strides {array.strides}); "
            "pass np.ascontiguousarray(...)"
        )
    if spec.is_output and not array.flags.writeable:
        raise ValueError(f"{fname}: output {spec.name} is read-only")
    return array


def specs_of(func: loop.FuncOp) -> list[ArgSpec]:
    """The ABI arguments of a `loop.func` before storage-flatten (N-D shapes)."""
    from compiler.passes.schedule_ops import OUTPUT_ATTR

    attrs = func.arg_attrs.data if func.arg_attrs is not None else [None] * len(func.args)
    specs: list[ArgSpec] = []
    for i, (arg, attr) in enumerate(zip(func.args, attrs, strict=True)):
        t = arg.type
        assert isinstance(t, loop.BufferType)
        is_output = attr is not None and OUTPUT_ATTR in attr.data
        specs.append(ArgSpec(arg.name_hint or f"arg{i}", t.get_shape(), dtype_of(t.element_type), is_output))
    return specs


def dtype_of(t: Attribute) -> str:
    for dtype in _NUMPY_DTYPES:
        if mlir_type(dtype, element=True) == t:
            return dtype
    raise TypeError(f"no NumPy dtype for element type {t}")


def compile_module(module: ModuleOp, name: str, call_order: list[int] | None = None) -> Function:
    """Compile the `te.func` or `loop.func` named `name` of a module."""
    from compiler.context import make_context

    stats = CompileStats()
    start = time.perf_counter()
    ctx = make_context()
    if any(isinstance(op, te.FuncOp) for op in module.ops):
        for p in default_pipeline("loop"):
            p.apply(ctx, module)
    func = next((op for op in module.ops if isinstance(op, loop.FuncOp) and op.sym_name.data == name), None)
    if func is None:
        raise ValueError(f"no function @{name} in the module")
    specs = specs_of(func)
    loop_ir = str(module)
    for p in default_pipeline("flat")[len(default_pipeline("loop")) :]:
        p.apply(ctx, module)
    module.verify()
    stats.seconds["passes"] = time.perf_counter() - start
    order = call_order if call_order is not None else list(range(len(specs)))
    fn = Function(name, module, specs, order, stats)
    fn.loop_ir = loop_ir
    return fn


def build(
    schedule_or_args: Schedule | Sequence[T.Tensor],
    args: Sequence[T.Tensor] | None = None,
    name: str = "main",
) -> Function:
    """Compile `args` (inputs and outputs, in call order) into a callable.

    `build([A, B, C])`, or with a schedule `build(s, [A, B, C])`.
    """
    start = time.perf_counter()
    schedule, tensors = _split_args(schedule_or_args, args)
    module, sig = build_module(tensors, name, schedule)
    abi = sig.inputs + sig.outputs
    abi_index = {t.uid: i for i, t in enumerate(abi)}
    fn = compile_module(module, name, [abi_index[t.uid] for t in sig.args])
    fn.stats.seconds["total"] = time.perf_counter() - start
    return fn
