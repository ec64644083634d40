"""ATen converters of normalizations: inference batch norm (folded into a scale and a
shift, or into the conv before it by the importer), layer norm, group norm, batch
norm with the batch's own statistics (training mode, instance norm) with the running
statistics torch would store, the statistics torch saves for a backward (when the
graph reads them), and dropout in inference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

from compiler import ops, te
from compiler.ops.util import accumulator_dtype, product, static
from compiler.te import Tensor
from compiler.torch.aten import Value, aten, unsupported
from compiler.torch.graph import Converter, Permuted


def scale_shift_constants(
    cx: Converter, x: Tensor, mean: Any, var: Any, gamma: Any, beta: Any, eps: float, axis: int = 1
) -> Tensor:
    stats = [mean, var, gamma, beta]
    if all(s is None or isinstance(s, torch.Tensor) for s in stats):
        scale, shift = fold_batch_norm(mean, var, gamma, beta, eps)
        dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16}.get(x.dtype, torch.float32)
        s = cx.param(torch.from_numpy(scale).to(dtype), f"{cx.name}_scale")
        b = cx.param(torch.from_numpy(shift).to(dtype), f"{cx.name}_shift")
        return ops.scale_shift(x, s, b, axis=axis, name=cx.name)
    g = cx.tensor(gamma, "weight") if gamma is not None else None
    beta_t = cx.tensor(beta, "bias") if beta is not None else None
    return ops.batch_norm(x, cx.tensor(mean, "running_mean"), cx.tensor(var, "running_var"), g, beta_t, eps, axis, cx.name)


def fold_batch_norm(
    mean: torch.Tensor, var: torch.Tensor, gamma: torch.Tensor | None, beta: torch.Tensor | None, eps: float
) -> tuple[np.ndarray, np.ndarray]:
    """(scale, shift) with batch_norm(x) = x * scale + shift, in float64."""
    m, v = mean.detach().double().numpy(), var.detach().double().numpy()
    scale = 1.0 / np.sqrt(v + eps)
    if gamma is not None:
        scale = scale * gamma.detach().double().numpy()
    shift = -m * scale
    if beta is not None:
        shift = shift + beta.detach().double().numpy()
    return scale, shift


def running_batch_norm(cx: Converter, x: Any, mean: Any, var: Any, gamma: Any, beta: Any, eps: float) -> Value:
    """A batch norm over dimension 1, in the layout x is stored in."""
    if isinstance(x, Permuted):
        return Permuted(scale_shift_constants(cx, x.tensor, mean, var, gamma, beta, eps, axis=x.perm[1]), x.perm)
    return scale_shift_constants(cx, cx.tensor(x, "input"), mean, var, gamma, beta, eps)


@aten("batch_norm.default")
def batch_norm(cx: Converter, x: Any, gamma: Any, beta: Any, mean: Any, var: Any, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool = False) -> Value:
    if training:
        raise unsupported(cx, "batch norm in training mode (call module.eval() before from_torch)")
    return running_batch_norm(cx, x, mean, var, gamma, beta, eps)


@aten("layer_norm.default")
def layer_norm(cx: Converter, x: Tensor, normalized_shape: Sequence[int], weight: Any = None, bias: Any = None,
               eps: float = 1e-5, cudnn_enable: bool = True) -> Tensor:
    x = cx.tensor(x, "input")
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    g = cx.tensor(weight, "weight") if weight is not None else None
    b = cx.tensor(bias, "bias") if bias is not None else None
    return ops.layer_norm(x, g, b, axes, eps, name=cx.name)


@aten("native_layer_norm.default")
def native_layer_norm(cx: Converter, x: Tensor, normalized_shape: Sequence[int], weight: Any, bias: Any,
                      eps: float) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """The norm, and its mean and 1 / std (kept dimensions of 1) when the graph reads them."""
    out = layer_norm(cx, x, normalized_shape, weight, bias, eps)
    if not used_results(cx) & {1, 2}:
        return out, None, None
    t = cx.tensor(x, "input")
    mean, rstd = moments(cx, t, tuple(range(t.ndim - len(normalized_shape), t.ndim)), eps)
    return out, mean, rstd


def used_results(cx: Converter) -> set[int]:
    """Which results of the node being converted (a tuple) the graph reads."""
    if cx.node is None:
        return set()
    return {int(u.args[1]) for u in cx.node.users if len(u.args) > 1 and isinstance(u.args[1], int)}


def moments(cx: Converter, t: Tensor, axes: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """(mean, 1 / sqrt(variance + eps)) over `axes`, kept as dimensions of 1 (in float32 for float16)."""
    acc = accumulator_dtype(t.dtype, None)
    wide = t if t.dtype == acc else ops.cast(t, acc, name=f"{cx.name}_wide")
    mean = ops.mean(wide, axes, True, name=f"{cx.name}_mean")
    centered = ops.subtract(wide, mean, name=f"{cx.name}_centered")
    variance = ops.mean(ops.multiply(centered, centered, name=f"{cx.name}_squares"), axes, True,
                        name=f"{cx.name}_variance")
    return mean, ops.rsqrt(ops.add(variance, float(eps), name=f"{cx.name}_eps"), name=f"{cx.name}_rstd")


def _normalize_groups(cx: Converter, t: Tensor, groups: int, eps: float) -> Tensor:
    """x normalized over each group of channels (and every position) of each sample."""
    n, c = t.shape[0], t.shape[1]
    cs = static(c)
    if cs is None or cs % groups:
        raise unsupported(cx, f"group norm of {c} channels in {groups} groups is not supported")
    grouped = ops.reshape(t, (n, groups, product(t.shape[1:]) // groups), name=f"{cx.name}_groups")
    normed = ops.layer_norm(grouped, None, None, (2,), float(eps), name=f"{cx.name}_norm")
    return ops.reshape(normed, t.shape, name=f"{cx.name}_ungrouped")


def _affine(cx: Converter, t: Tensor, weight: Any, bias: Any) -> Tensor:
    shape = (1, t.shape[1], *([1] * (t.ndim - 2)))
    if weight is not None:
        t = ops.multiply(t, ops.reshape(cx.tensor(weight, "weight"), shape, name=f"{cx.name}_w"), name=f"{cx.name}_scaled")
    if bias is not None:
        t = ops.add(t, ops.reshape(cx.tensor(bias, "bias"), shape, name=f"{cx.name}_b"), name=f"{cx.name}_shifted")
    return t


@aten("native_group_norm.default")
def native_group_norm(cx: Converter, x: Any, weight: Any, bias: Any, n: Any, c: Any, hxw: Any, group: int,
                      eps: float) -> tuple[Tensor, Tensor | None, Tensor | None]:
    """The norm, and each group's mean and 1 / std ([N, groups]) when the graph reads them."""
    t = cx.tensor(x, "input")
    out = _affine(cx, _normalize_groups(cx, t, int(group), eps), weight, bias)
    if not used_results(cx) & {1, 2}:
        return out, None, None
    grouped = ops.reshape(t, (t.shape[0], int(group), product(t.shape[1:]) // int(group)), name=f"{cx.name}_g")
    mean, rstd = moments(cx, grouped, (2,), eps)
    return out, ops.squeeze(mean, 2, name=f"{cx.name}_mean2"), ops.squeeze(rstd, 2, name=f"{cx.name}_rstd2")


@aten("group_norm.default")
def group_norm(cx: Converter, x: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    return native_group_norm(cx, x, weight, bias, None, None, None, num_groups, eps)[0]


def _batch_statistics(cx: Converter, x: Any, weight: Any, bias: Any, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Batch norm with the batch's own statistics (training mode's forward), and those
    statistics: the mean and the (biased) variance per channel, as [1, C, 1...]."""
    t = cx.tensor(x, "input")
    axes = (0, *range(2, t.ndim))
    mean = ops.mean(t, axes, True, name=f"{cx.name}_mean")
    centered = ops.subtract(t, mean, name=f"{cx.name}_centered")
    variance = ops.mean(ops.multiply(centered, centered, name=f"{cx.name}_sq"), axes, True, name=f"{cx.name}_var")
    normed = ops.multiply(centered, ops.rsqrt(ops.add(variance, float(eps), name=f"{cx.name}_eps"),
                                              name=f"{cx.name}_rstd"), name=f"{cx.name}_normed")
    return _affine(cx, normed, weight, bias), mean, variance


def _saved_statistics(cx: Converter, x: Any, mean: Tensor, variance: Tensor, eps: float) -> tuple[Tensor | None, ...]:
    """What training mode's batch norm saves for its backward, when the graph reads it:
    the batch mean and 1 / sqrt(variance + eps) per channel, as [C]."""
    if not used_results(cx) & {1, 2}:
        return None, None
    t = cx.tensor(x, "input")
    rest = (0,) * (t.ndim - 2)
    saved_mean = te.compute((t.shape[1],), lambda c: mean[(0, c, *rest)], name=f"{cx.name}_save_mean")
    saved_rstd = te.compute((t.shape[1],), lambda c: 1.0 / te.sqrt(variance[(0, c, *rest)] + float(eps)),
                            name=f"{cx.name}_save_rstd")
    return saved_mean, saved_rstd


def empty_statistics(cx: Converter, x: Any) -> tuple[Tensor | None, ...]:
    """The empty [0] tensors torch returns for the saved statistics of an inference-mode
    batch norm, when the graph reads them."""
    if not used_results(cx) & {1, 2}:
        return None, None
    dtype = x.dtype if isinstance(x, Permuted) else cx.tensor(x, "input").dtype
    return tuple(ops.full((0,), 0.0, dtype, name=f"{cx.name}_{k}") for k in ("save_mean", "save_rstd"))


def _training_batch_norm(cx: Converter, x: Any, weight: Any, bias: Any, eps: float) -> tuple[Tensor | None, ...]:
    out, mean, variance = _batch_statistics(cx, x, weight, bias, eps)
    return (out, *_saved_statistics(cx, x, mean, variance, eps))


@aten("_native_batch_norm_legit_no_training.default")
def batch_norm_no_training(cx: Converter, x: Any, gamma: Any, beta: Any, mean: Any, var: Any, momentum: float,
                           eps: float) -> tuple[Value | None, ...]:
    return (running_batch_norm(cx, x, mean, var, gamma, beta, eps), *empty_statistics(cx, x))


@aten("_native_batch_norm_legit.default")
def batch_norm_legit(cx: Converter, x: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,
                     training: bool, momentum: float, eps: float) -> tuple[Value | None, ...]:
    if not training:
        return (running_batch_norm(cx, x, running_mean, running_var, weight, bias, eps), *empty_statistics(cx, x))
    return _training_batch_norm(cx, x, weight, bias, eps)


@aten("_native_batch_norm_legit_functional.default")
def batch_norm_functional(cx: Converter, x: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,
                          training: bool, momentum: float, eps: float) -> tuple[Value | None, ...]:
    """Training mode's batch norm (instance norm's too): the batch's statistics, and the
    running statistics torch would store (momentum-weighted, the variance unbiased)."""
    if not training:
        out = running_batch_norm(cx, x, running_mean, running_var, weight, bias, eps)
        return (out, *empty_statistics(cx, x), running_mean, running_var)
    out, mean, var = _batch_statistics(cx, x, weight, bias, eps)
    saved = _saved_statistics(cx, x, mean, var, eps)
    if running_mean is None or running_var is None:
        return out, *saved, running_mean, running_var
    t = cx.tensor(x, "input")
    count = static(product([t.shape[d] for d in (0, *range(2, t.ndim))])) or 1
    m, unbias = float(momentum), count / max(count - 1, 1)
    rest = (0,) * (t.ndim - 2)
    rm, rv = cx.tensor(running_mean, "running_mean"), cx.tensor(running_var, "running_var")
    new_mean = te.compute(rm.shape, lambda c: rm[c] * (1.0 - m) + mean[(0, c, *rest)] * m,
                          name=f"{cx.name}_running_mean")
    new_var = te.compute(rv.shape, lambda c: rv[c] * (1.0 - m) + var[(0, c, *rest)] * (m * unbias),
                         name=f"{cx.name}_running_var")
    return out, *saved, new_mean, new_var


@aten("_native_batch_norm_legit.no_stats")
def batch_norm_no_stats(cx: Converter, x: Any, weight: Any, bias: Any, training: bool, momentum: float,
                        eps: float) -> tuple[Tensor | None, ...]:
    return _training_batch_norm(cx, x, weight, bias, eps)


@aten("native_dropout.default")
def native_dropout(cx: Converter, x: Any, p: float, train: bool | None) -> tuple[Value, Tensor]:
    if train and p > 0:
        raise unsupported(cx, "dropout in training mode (random numbers) is not supported: call module.eval()")
    t = x if isinstance(x, Permuted) else cx.tensor(x, "input")
    return t, ops.full(tuple(t.shape), 1, ops.MASK, name=f"{cx.name}_mask")
