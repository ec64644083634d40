"""Weight-only quantization of a torch module's linear layers: int8 and int4.

```python
qmodel = compiler.quantize(model, "int8")   # or "int4"; model itself is left as it was
qmodel(x)                                    # eager: dequantizes in torch (the reference)
net = compiler.from_torch(qmodel, (x,))      # the weights stay packed in the network
```

* int8: one float scale per output channel (symmetric, `max|w| / 127`), the weight
  an int8 [N, K] buffer (torchao's int8 weight-only, llama.cpp's Q8_0 with one block a row).
* int4: groups of 32 along the input dimension, one float scale a group (symmetric,
  `max|w| / 7`, values in [-8, 7] stored as q + 8), two values a byte: element 2i of a
  row in the low nibble of byte i, 2i + 1 in the high one; the weight a uint8
  [N, K / 2] buffer, the scales [N, K / 32] (llama.cpp's Q4_0, torchao's int4 weight-only
  with group size 32).

Every `nn.Linear` is replaced, the LM head included (a decode step reads it whole: a
sixteenth of TinyLlama's weights). Embedding tables stay float: a step reads one row of
them. An int4 linear whose in-features are not a multiple of 32 is quantized to int8
instead (its rows do not split into groups).

The quantized linears call two torch custom ops, `xdsl_tc::linear_int8` and
`xdsl_tc::linear_int4`, so `torch.export` keeps each as one node with the packed
buffers as its operands (a dequantization written in ATen would be folded to a float
weight at import): `aten_quant` converts each to one te reduction that reads the
packed weight and dequantizes in its loop.
"""

from __future__ import annotations

import copy
from typing import Literal

import torch
from torch import nn
from torch.nn import functional

from compiler.errors import ArgumentValueError

GROUP = 32
"""The int4 group: input features that share a scale."""
INT4_OFFSET = 8
"""An int4 value q in [-8, 7] is stored as q + 8, in [0, 15]."""

Scheme = Literal["int8", "int4"]


def dequantize_int8(weight: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """The float [N, K] weight of an int8 one and its per-row scales."""
    return weight.to(scale.dtype) * scale[:, None]


def unpack_int4(packed: torch.Tensor) -> torch.Tensor:
    """The values q in [-8, 7] of a packed [N, K / 2] uint8 weight, as int8 [N, K]."""
    low = torch.bitwise_and(packed, 15)
    high = torch.bitwise_right_shift(packed, 4)
    values = torch.stack([low, high], dim=-1).reshape(packed.shape[0], -1)
    return values.to(torch.int8) - INT4_OFFSET


def dequantize_int4(packed: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """The float [N, K] weight of a packed int4 one and its [N, K / 32] group scales."""
    return unpack_int4(packed).to(scales.dtype) * scales.repeat_interleave(GROUP, dim=1)


@torch.library.custom_op(
    "xdsl_tc::linear_int8", mutates_args=(), schema="(Tensor x, Tensor weight, Tensor scale, Tensor? bias) -> Tensor"
)
def linear_int8(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """`linear(x, dequantize_int8(weight, scale), bias)`."""
    return functional.linear(x, dequantize_int8(weight, scale).to(x.dtype), bias)


@torch.library.custom_op(
    "xdsl_tc::linear_int4", mutates_args=(), schema="(Tensor x, Tensor weight, Tensor scales, Tensor? bias) -> Tensor"
)
def linear_int4(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    """`linear(x, dequantize_int4(weight, scales), bias)`."""
    return functional.linear(x, dequantize_int4(weight, scales).to(x.dtype), bias)


@linear_int8.register_fake
def _linear_int8_shape(x: torch.Tensor, weight: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


@linear_int4.register_fake
def _linear_int4_shape(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, bias: torch.Tensor | None) -> torch.Tensor:
    return x.new_empty((*x.shape[:-1], weight.shape[0]))


class Int8Linear(nn.Module):
    """A linear layer with an int8 weight [N, K] and a float scale per output channel."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        w = linear.weight.detach()
        scale = w.abs().amax(dim=1).clamp(min=torch.finfo(w.dtype).tiny) / 127
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.register_buffer("weight", torch.round(w / scale[:, None]).clamp(-127, 127).to(torch.int8))
        self.register_buffer("scale", scale)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = linear_int8(x, self.weight, self.scale, self.bias)
        return y

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int8 per channel"


class Int4Linear(nn.Module):
    """A linear layer with int4 weights, two a byte ([N, K / 2] uint8), and a float scale
    per group of 32 input features ([N, K / 32])."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        w = linear.weight.detach()
        n, k = w.shape
        groups = w.reshape(n, k // GROUP, GROUP)
        scales = groups.abs().amax(dim=2).clamp(min=torch.finfo(w.dtype).tiny) / 7
        q = torch.round(groups / scales[..., None]).clamp(-INT4_OFFSET, 7).reshape(n, k) + INT4_OFFSET
        stored = q.to(torch.uint8)
        self.in_features, self.out_features = k, n
        self.register_buffer("weight", stored[:, 0::2] | (stored[:, 1::2] << 4))
        self.register_buffer("scales", scales)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y: torch.Tensor = linear_int4(x, self.weight, self.scales, self.bias)
        return y

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, int4 groups of {GROUP}"


def quantized_linear(linear: nn.Linear, scheme: Scheme) -> nn.Module:
    """`linear` with its weight quantized by `scheme` (int4 falls back to int8 when the
    in-features are not a multiple of the group)."""
    if scheme == "int4" and linear.in_features % GROUP == 0:
        return Int4Linear(linear)
    return Int8Linear(linear)


def quantize(module: nn.Module, scheme: Scheme, *, inplace: bool = False) -> nn.Module:
    """`module` with every `nn.Linear` replaced by its weight-only quantized form
    (`scheme`: "int8" or "int4"); a copy unless `inplace` (a large model's copy holds
    its float weights twice while it is made)."""
    if scheme not in ("int8", "int4"):
        raise ArgumentValueError(f"quantize: scheme must be 'int8' or 'int4', got {scheme!r}")
    target = module if inplace else copy.deepcopy(module)
    if isinstance(target, nn.Linear):
        return quantized_linear(target, scheme)
    for parent in list(target.modules()):
        for attr, child in list(parent.named_children()):
            if isinstance(child, nn.Linear):
                setattr(parent, attr, quantized_linear(child, scheme))
    return target


__all__ = [
    "GROUP",
    "Int4Linear",
    "Int8Linear",
    "dequantize_int4",
    "dequantize_int8",
    "linear_int4",
    "linear_int8",
    "quantize",
    "unpack_int4",
]
