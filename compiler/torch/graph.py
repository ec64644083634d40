"""The state of one import: FX nodes to te values, parameters, errors.

A node's value is a `te.Tensor` (computed from the inputs), a
`torch.Tensor` (a constant: a parameter, a buffer, or anything torch
computed at import time from constants alone), a Python scalar or list,
a te dimension (a `SymInt` of the graph), or a tuple of these (ops with
several results). Constants become `te.placeholder`s, bound once to their
values by the compiled network, only where a te stage reads them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import fx

from compiler import ops, te
from compiler.errors import UnsupportedOpError
from compiler.names import fresh_name
from compiler.ops.util import same_dim
from compiler.torch.symbolic import sympy_to_dim

TE_DTYPES: dict[torch.dtype, str] = {
    torch.bool: "int8",  # a mask of 0/1 bytes (ops.MASK): te tensors have no bool type
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.float32: "float32",
    torch.float64: "float64",
    torch.int8: "int8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.uint8: "uint8",
}


def te_dtype(dtype: torch.dtype, what: str) -> str:
    if dtype not in TE_DTYPES:
        raise UnsupportedOpError(f"{what}: dtype {dtype} is not supported (expected one of "
                                  f"{', '.join(TE_DTYPES.values())})")
    return TE_DTYPES[dtype]


def op_name(node: fx.Node) -> str:
    """`aten.conv2d.default`, or the Python name of a non-ATen target."""
    target = node.target
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return str(target)
    return getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or str(target)


def _frames(trace: str) -> list[list[str]]:
    frames: list[list[str]] = []
    for line in trace.splitlines():
        if line.lstrip().startswith("File "):
            frames.append([line.strip()])
        elif frames and line.strip():
            frames[-1].append(line.strip())
    return frames


def source_of(node: fx.Node) -> str:
    """The user's source line that torch.export recorded for a node: the innermost frame
    outside torch itself, then the innermost frame if that is inside torch."""
    frames = _frames(node.meta.get("stack_trace") or "")
    if not frames:
        return "  (torch.export recorded no source line for this node)"
    torch_dir = str(Path(torch.__file__).parent)
    user = [f for f in frames if torch_dir not in f[0]]
    shown = [user[-1]] if user else []
    if frames[-1] not in shown:
        shown.append(frames[-1])
    lines = []
    for k, frame in enumerate(shown):
        lines.append(("  " if k == 0 else "  called from torch: ") + frame[0])
        lines.extend("    " + code for code in frame[1:])
    return "\n".join(lines)


def module_path(node: fx.Node) -> tuple[str, str] | None:
    """The innermost module of torch.export's module stack: its path (`layer1.0.bn1`, ''
    for the top module) and class name; None without a stack."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return None
    path, kind = list(stack.values())[-1]
    name = getattr(kind, "__name__", None) or str(kind).rsplit(".", 1)[-1].strip("'>")
    return str(path).removeprefix("L['self'].").removeprefix("L['self']"), name


def module_of(node: fx.Node) -> str:
    """`in module 'layer1.0.bn1' (BatchNorm2d)` from torch.export's module stack, or ''."""
    found = module_path(node)
    if found is None:
        return ""
    path, name = found
    return f" in module '{path}' ({name})" if path else f" in the top module ({name})"


def where(node: fx.Node) -> str:
    return f"node '{node.name}' of the exported graph ({op_name(node)}){module_of(node)}, at\n{source_of(node)}"


class UnsupportedOperatorError(UnsupportedOpError):
    """An ATen operator (or one of its variants) that compiler.torch cannot lower."""

    def __init__(self, message: str, node: fx.Node | None = None):
        super().__init__(message)
        self.node = node


NCHW_OF_NHWC = (0, 3, 1, 2)
"""The `Permuted.perm` of an NHWC tensor seen as NCHW (the layout of `channels_last`)."""


@dataclass(frozen=True, eq=False)
class Permuted:
    """A tensor read through a permutation, the value of `aten.permute`: logical
    dimension d is dimension perm[d] of `tensor` (as `ops.transpose(tensor, perm)`).

    Elementwise converters compute in `tensor`'s layout and keep the permutation, so
    a permute, elementwise ops and the inverse permute (seed 001's NHWC section
    between NCHW convolutions) cost nothing and leave the data where it was: the
    stages stay in place over their inputs. Any other use materializes the
    transpose (a stage the fusion schedule inlines into its consumer)."""

    tensor: te.Tensor
    perm: tuple[int, ...]

    @property
    def shape(self) -> tuple[te.Dim, ...]:
        return tuple(self.tensor.shape[p] for p in self.perm)

    @property
    def dtype(self) -> str:
        return self.tensor.dtype

    @property
    def inverse(self) -> tuple[int, ...]:
        inv = [0] * len(self.perm)
        for d, p in enumerate(self.perm):
            inv[p] = d
        return tuple(inv)


def sanitize(name: str) -> str:
    out = re.sub(r"\W", "_", name)
    return out if out and not out[0].isdigit() else f"t_{out}"


ParamArray = np.ndarray | torch.Tensor
"""A constant as the compiled function takes it: a NumPy array, or a torch tensor for
bfloat16 (NumPy has no bf16; the function takes any DLPack tensor)."""


def param_array(value: torch.Tensor) -> ParamArray:
    """A constant's values, C-contiguous, as `ParamArray` (a bool mask as int8 bytes)."""
    if value.dtype == torch.bfloat16:
        return value.detach().cpu().contiguous()
    array = value.detach().cpu().numpy()
    if not array.flags.c_contiguous:  # (np.ascontiguousarray makes a 0-d array 1-D)
        array = np.ascontiguousarray(array)
    return array.view(np.int8) if array.dtype == np.bool_ else array


def host_array(t: torch.Tensor) -> np.ndarray:
    """A tensor's elements as a contiguous NumPy array to lay out in blocks; a bfloat16
    tensor's as their int16 bits (`from_host_array` makes them bf16 again)."""
    t = t.detach().cpu().contiguous()
    return t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()


def from_host_array(array: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
    """`host_array`'s inverse: the tensor of dtype `dtype` over `array`'s memory."""
    t = torch.from_numpy(array)
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


@dataclass
class Converter:
    """Values of the nodes converted so far, and the constants bound as placeholders."""

    values: dict[fx.Node, Any] = field(default_factory=dict)
    params: list[te.Tensor] = field(default_factory=list)
    param_values: list[ParamArray] = field(default_factory=list)
    _param_cache: dict[int, te.Tensor] = field(default_factory=dict)
    _param_keep: list[torch.Tensor] = field(default_factory=list)
    _names: set[str] = field(default_factory=set)
    const_names: dict[int, str] = field(default_factory=dict)  # id(tensor) -> its state_dict name
    _transposed: dict[int, tuple[Permuted, te.Tensor]] = field(default_factory=dict)
    _blocked: dict[tuple[int, str], te.Tensor] = field(default_factory=dict)
    node: fx.Node | None = None  # the node being converted (for names and errors)
    channels_last: bool = True
    """Convolutions and pools compute in NHWC (their results are `Permuted` NCHW views,
    which elementwise ops keep): the vector lanes run along the channels, which every
    layer has many of, where NCHW's rows shrink to 7 in a network's last stages."""
    symbols: dict[str, te.Var] = field(default_factory=dict)  # torch's size symbols (sympy names) -> te vars

    def unique(self, name: str) -> str:
        base = sanitize(name)
        out = fresh_name(base, self._names, "_")
        self._names.add(out)
        return out

    @property
    def name(self) -> str:
        """A stage name for the node being converted."""
        return sanitize(self.node.name) if self.node is not None else "stage"

    def param(self, value: torch.Tensor, name: str) -> te.Tensor:
        """The placeholder bound to a constant tensor (one per tensor object)."""
        key = id(value)
        if key not in self._param_cache:
            name = self.const_names.get(key, name)
            array = param_array(value)
            dtype = te_dtype(value.dtype, f"constant {name}")
            t = te.placeholder(tuple(int(d) for d in value.shape), dtype, name=self.unique(name))
            self._param_cache[key] = t
            self._param_keep.append(value)  # keeps id() unique while cached
            self.params.append(t)
            self.param_values.append(array)
        return self._param_cache[key]

    def blocked_param(
        self, source: torch.Tensor, layout: str, make: Callable[[], np.ndarray], what: str = "weight"
    ) -> te.Tensor:
        """The placeholder bound to `make()`, the constant `source` laid out in blocks for a
        kernel's tiles (`layout` names the layout and block), made once per source and
        layout and named after the source (`<name>_blocked`): a weight shared by several
        layers (ALBERT's twelve) is one constant, blocked once (ALBERT's 16384x4096
        weights re-blocked for each layer took 28 s of its import and twelve times their
        memory)."""
        key = (id(source), layout)
        if key not in self._blocked:
            name = self.const_names.get(id(source), f"{self.name}_{what}")
            self._blocked[key] = self.param(from_host_array(make(), source.dtype), f"{name}_blocked")
            self._param_keep.append(source)  # keeps id(source) unique while cached
        return self._blocked[key]

    def tensor(self, value: Any, what: str = "operand") -> te.Tensor:
        """A tensor operand as a te tensor (constants become placeholders)."""
        if isinstance(value, te.Tensor):
            return value
        if isinstance(value, Permuted):
            if id(value) not in self._transposed:
                name = sanitize(f"{self.name}_{what}_t")
                self._transposed[id(value)] = (value, ops.transpose(value.tensor, value.perm, name=name))
            return self._transposed[id(value)][1]
        if isinstance(value, torch.Tensor):
            return self.param(value, f"{self.name}_{what}")
        if value is None:
            raise UnsupportedOperatorError(f"the {what} is a value this importer does not produce (None)", self.node)
        raise UnsupportedOperatorError(f"the {what} must be a tensor, got {type(value).__name__}", self.node)

    def torch_size(self, axis: int) -> te.Dim | None:
        """Dimension `axis` of the node's result as torch computed it (its symbolic
        size as a te dimension), or None when torch recorded no tensor or it has no te form.
        torch knows the ranges of its symbols: `min(seq, 64)` is `seq` when seq <= 64."""
        val = self.node.meta.get("val") if self.node is not None else None
        if not isinstance(val, torch.Tensor) or not -val.ndim <= axis < val.ndim:
            return None
        d = val.shape[axis]
        if isinstance(d, int):
            return d
        try:
            return sympy_to_dim(d.node.expr, self.symbols)
        except UnsupportedOpError:
            return None

    def torch_shaped(self, value: te.Tensor) -> te.Tensor:
        """`value` with torch's symbolic sizes where ours are another expression of the same
        value (a clamped slice's `max(min(seq + 1, ...) - 1, 0)` for torch's `seq`): a
        moves-only stage, which the fusion schedule inlines. Size expressions then stay
        as torch proved them instead of compounding from op to op."""
        sizes = [d for k in range(value.ndim) if (d := self.torch_size(k)) is not None]
        if len(sizes) != value.ndim or all(same_dim(a, b) for a, b in zip(value.shape, sizes, strict=True)):
            return value
        return te.compute(tuple(sizes), lambda *i: value[i], name=f"{self.name}_sized")

    def operand(self, value: Any, what: str = "operand") -> te.Tensor | float | int:
        """A tensor, or a Python number for a scalar or a one-element constant."""
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int | float):
            return value
        if isinstance(value, torch.Tensor) and value.ndim == 0:
            return value.item()
        if isinstance(value, te.Expr):  # a symbolic size (a SymInt of the graph): a 0-d int64 tensor
            size = value
            return te.compute((), lambda: size.astype("int64"), name=self.unique(f"{self.name}_{what}"))
        return self.tensor(value, what)
