"""PyTorch's OpInfo samples through `from_torch`, one op a module, against eager.

`op_db` (torch.testing._internal.common_methods_invocations) holds, for every torch
operator, sample inputs that torch's own tests (and Inductor's OpInfo test) use. Each
sample becomes a one-op module whose tensor arguments are the module's inputs; it is
exported (and decomposed to Core ATen, as `from_torch` does), compiled, run, and
compared with eager. Every sample records the Core ATen overloads its graph holds, so
coverage is counted per Core ATen overload: an overload passes when every sample that
reaches it passes.

Used by test_torch_opinfo.py (a fixed sample in `make test`, every op in the long run)
and by bench/core_aten_coverage.py (the coverage table).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch.utils import _pytree

import compiler
from compiler.errors import CompilerError
from compiler.torch.decompose import decompose

TENSOR = object()
"""The place of a tensor argument among a sample's leaves (the module's inputs)."""

RANDOM_OPS = ("rand", "randn", "randint", "bernoulli", "normal", "uniform", "dropout", "multinomial", "randperm")


def core_aten_overloads() -> list[str]:
    """The overloads torch tags `core` (the opset its decompositions end in)."""
    names: set[str] = set()
    for packet_name in dir(torch.ops.aten):
        packet = getattr(torch.ops.aten, packet_name)
        if not hasattr(packet, "overloads"):
            continue
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if torch.Tag.core in op.tags and not packet_name.endswith("_"):
                names.add(str(op))
    return sorted(names)


def opinfos() -> list[Any]:
    from torch.testing._internal.common_methods_invocations import op_db

    return list(op_db)


def opinfo_id(info: Any) -> str:
    return f"{info.name}.{info.variant_test_name}" if info.variant_test_name else info.name


class OneOp(torch.nn.Module):
    """`op(*args, **kwargs)` with the sample's tensors as the module's inputs."""

    def __init__(self, op: Callable[..., Any], spec: Any, constants: list[Any]):
        super().__init__()
        self.op, self.spec, self.constants = op, spec, constants

    def forward(self, *tensors: torch.Tensor) -> Any:
        it = iter(tensors)
        leaves = [next(it) if c is TENSOR else c for c in self.constants]
        args, kwargs = _pytree.tree_unflatten(leaves, self.spec)
        return self.op(*args, **kwargs)


@dataclass
class Outcome:
    op: str
    sample: int
    passed: bool
    aten: set[str] = field(default_factory=set)
    reason: str = ""


def _split(sample: Any) -> tuple[Any, list[Any], list[torch.Tensor]]:
    leaves, spec = _pytree.tree_flatten(((sample.input, *sample.args), dict(sample.kwargs)))
    tensors = [leaf.detach().clone() for leaf in leaves if isinstance(leaf, torch.Tensor)]
    constants = [TENSOR if isinstance(leaf, torch.Tensor) else leaf for leaf in leaves]
    return spec, constants, tensors


def _reason(err: BaseException) -> str:
    """The first line of an error, without the node and source details."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    text = re.sub(r"^from_torch: ", "", text)
    return f"{type(err).__name__}: {text}"[:160]


def _aten_ops(program: torch.export.ExportedProgram) -> set[str]:
    return {str(n.target) for n in program.graph.nodes if n.op == "call_function" and str(n.target).startswith("aten.")}


def _graph_ops(module: torch.nn.Module, tensors: list[torch.Tensor]) -> set[str]:
    """The ATen ops of the sample's graph as exported and as decomposed (an op torch's
    table decomposes is covered by its decomposition)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.export.export(module, tuple(tensors))
    return _aten_ops(exported) | _aten_ops(decompose(exported))


TOLERANCES = {
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-3, 1e-3),
    torch.bfloat16: (1.6e-2, 8e-3),  # torch.testing's rtol for bf16; atol: about two ulps at the scale
}
"""(rtol, atol as a share of the output's largest finite magnitude) per dtype of the outputs."""


def _numpy(t: Any) -> np.ndarray:
    """An output as NumPy (a bfloat16 tensor's values as float32)."""
    if isinstance(t, torch.Tensor) and t.dtype == torch.bfloat16:
        return t.float().numpy()
    return np.asarray(t)


def compare(ours: Any, ref: Any, values: bool = True) -> str:
    """'' when our outputs match eager's (their shapes only when not `values`), else what differs."""
    ref_leaves = [r for r in _pytree.tree_leaves(ref) if isinstance(r, torch.Tensor)]
    our_leaves = [o for o in (ours if isinstance(ours, list | tuple) else [ours]) if o is not None]
    if len(ref_leaves) != len(our_leaves):
        return f"{len(our_leaves)} outputs, eager has {len(ref_leaves)}"
    for k, (o, r) in enumerate(zip(our_leaves, ref_leaves, strict=True)):
        rtol, atol = TOLERANCES.get(r.dtype, TOLERANCES[torch.float32])
        expected = _numpy(r.detach()) if r.dtype != torch.bool else r.detach().numpy().astype(np.int8)
        got = _numpy(o)
        if tuple(got.shape) != tuple(expected.shape):
            return f"output {k}: shape {tuple(got.shape)}, eager {tuple(expected.shape)}"
        if not values:
            continue
        if expected.dtype.kind == "f":
            scale = max(1.0, float(np.nanmax(np.abs(expected), initial=0.0, where=np.isfinite(expected))))
            if not np.allclose(got.astype(np.float64), expected, rtol=rtol, atol=atol * scale, equal_nan=True):
                err = np.nanmax(np.abs(got.astype(np.float64) - expected), initial=0.0)
                return f"output {k}: max error {err:.3g} (scale {scale:.3g})"
        elif not np.array_equal(got.astype(expected.dtype), expected):
            return f"output {k}: values differ"
    return ""


def run_sample(name: str, op: Callable[..., Any], k: int, sample: Any) -> Outcome | None:
    """One sample of `op` through from_torch; None when eager itself cannot run it."""
    spec, constants, tensors = _split(sample)
    module = OneOp(op, spec, constants).eval()
    try:
        with torch.no_grad():
            ref = module(*tensors)
    except Exception:
        return None
    if not any(isinstance(r, torch.Tensor) for r in _pytree.tree_leaves(ref)):
        return Outcome(name, k, False, reason="the op returns no tensor")
    try:
        aten = _graph_ops(module, tensors)
    except Exception as err:  # torch.export's own limits (data-dependent shapes...)
        return Outcome(name, k, False, reason=f"export: {_reason(err)}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            net = compiler.from_torch(module, tuple(tensors))
            ours = net(*tensors)
    except (CompilerError, NotImplementedError, RuntimeError, ValueError, TypeError, IndexError, KeyError,
            AssertionError, AttributeError, ZeroDivisionError, OverflowError) as err:
        return Outcome(name, k, False, aten, _reason(err))
    diff = compare(ours, ref, values="empty" not in name)  # an empty tensor's values are whatever was there
    if diff and "max error" in diff and _matches_in_float64(module, tensors, ours):
        diff = ""
    return Outcome(name, k, not diff, aten, diff)


def _matches_in_float64(module: torch.nn.Module, tensors: list[torch.Tensor], ours: Any) -> bool:
    """Whether our outputs match the op's float64 result rounded to float32, where they
    differ from eager's float32 one: eager's rounding can be the larger error (a layer
    norm's weight gradient over one element: eager 4e-5, exactly 0 in float64)."""
    wide = [t.double() if t.dtype == torch.float32 else t for t in tensors]
    try:
        with torch.no_grad():
            ref = _pytree.tree_map(lambda r: r.float() if isinstance(r, torch.Tensor) and r.dtype == torch.float64
                                   else r, module(*wide))
    except Exception:
        return False
    return not compare(ours, ref)


def samples(info: Any, dtype: torch.dtype, limit: int | None) -> Iterator[tuple[int, Any]]:
    if dtype not in info.supported_dtypes("cpu"):
        return
    try:
        for k, sample in enumerate(info.sample_inputs("cpu", dtype)):
            if limit is not None and k >= limit:
                return
            yield k, sample
    except Exception:
        return


def is_random(info: Any) -> bool:
    return any(r in info.name for r in RANDOM_OPS)


def sample_dtype(info: Any) -> torch.dtype:
    """float32, or for an op without float32 samples (bitwise ops), int64, else bool."""
    supported = info.supported_dtypes("cpu")
    return next((d for d in (torch.float32, torch.int64, torch.bool) if d in supported), torch.float32)


def run_op(info: Any, dtype: torch.dtype | None = None, limit: int | None = None) -> list[Outcome]:
    """The op's samples (in `dtype`, default `sample_dtype`) through from_torch."""
    return _run(opinfo_id(info), info.op, info, dtype or sample_dtype(info), limit)


def _run(name: str, op: Callable[..., Any], info: Any, dtype: torch.dtype, limit: int | None) -> list[Outcome]:
    """The outcomes of the first `limit` samples that run (a sample the op does not
    take, such as a 3-D input of a 2-D resize, is not counted)."""
    torch.manual_seed(0)
    out: list[Outcome] = []
    for k, sample in samples(info, dtype, None):
        if limit is not None and len(out) >= limit:
            break
        outcome = run_sample(name, op, k, sample)
        if outcome is not None:
            out.append(outcome)
    return out


# ---------------------------------------------------------------------------
# Core ATen overloads no OpInfo op reaches
# ---------------------------------------------------------------------------

A = torch.ops.aten


def _pad(kind: str) -> Callable[..., Any]:
    def call(x: torch.Tensor, pad: Any, mode: str, *rest: Any) -> Any:
        return getattr(A, f"{kind}_pad{len(pad) // 2}d")(x, list(pad))
    return call


def _im2col_col2im(x: torch.Tensor, kernel: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    ints = [list(v) if isinstance(v, tuple) else [v, v] for v in (kernel, dilation, padding, stride)]
    return A.col2im(A.im2col(x, *ints), list(x.shape[-2:]), *ints)


def _embedding_bag(weight: torch.Tensor, indices: torch.Tensor, offsets: torch.Tensor, mode: str = "sum",
                   per_sample_weights: Any = None, include_last_offset: bool = False, **kw: Any) -> Any:
    modes = {"sum": 0, "mean": 1, "max": 2}
    return A._embedding_bag(weight, indices, offsets, False, modes[mode], False, per_sample_weights,
                            include_last_offset)[0]


def _upsample_nearest2d(x: torch.Tensor, size: Any = None, scale_factor: Any = None, **kw: Any) -> Any:
    scales = None if scale_factor is None else [float(scale_factor)] * 2
    return A.upsample_nearest2d.vec(x, None if size is None else list(size), scales)


def _listed(v: Any, n: int) -> list[int]:
    return list(v) if isinstance(v, tuple | list) else [int(v)] * n


def _convolution_backward(x: torch.Tensor, w: torch.Tensor, b: Any = None, stride: Any = 1, padding: Any = 0,
                          dilation: Any = 1, groups: int = 1) -> Any:
    """A convolution's gradients, its own output standing for the output's gradient."""
    n = w.ndim - 2
    conv = (_listed(stride, n), _listed(padding, n), _listed(dilation, n), False, [0] * n, groups)
    y = A.convolution(x, w, b, *conv)
    bias_sizes = None if b is None else [w.shape[0]]
    return A.convolution_backward(y, x, w, bias_sizes, *conv, [True, True, b is not None])


def _avg_pool2d_backward(x: torch.Tensor, kernel: Any, stride: Any = None, padding: Any = 0, ceil_mode: bool = False,
                         count_include_pad: bool = True, divisor_override: Any = None) -> Any:
    pool = (_listed(kernel, 2), _listed(stride, 2) if stride else [], _listed(padding, 2), ceil_mode,
            count_include_pad, divisor_override)
    return A.avg_pool2d_backward(A.avg_pool2d(x, *pool), x, *pool)


def _embedding_backward(w: torch.Tensor, idx: torch.Tensor, padding_idx: Any = None, **kw: Any) -> Any:
    y = torch.nn.functional.embedding(idx, w, padding_idx)
    return A.embedding_dense_backward(y, idx, w.shape[0], -1 if padding_idx is None else padding_idx, False)


def _layer_norm_backward(x: torch.Tensor, shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5) -> Any:
    out, mean, rstd = A.native_layer_norm(x, list(shape), weight, bias, eps)
    return A.native_layer_norm_backward(out, x, list(shape), mean, rstd, weight, bias,
                                        [True, weight is not None, bias is not None])


def _group_norm_backward(x: torch.Tensor, groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5) -> Any:
    n, c, hxw = x.shape[0], x.shape[1], x[0, 0].numel()
    out, mean, rstd = A.native_group_norm(x, weight, bias, n, c, hxw, groups, eps)
    return A.native_group_norm_backward(out, x, mean, rstd, weight, n, c, hxw, groups,
                                        [True, weight is not None, weight is not None])


def _no_kwargs(f: Callable[..., Any]) -> Callable[..., Any]:
    """`f` for the samples without keyword arguments (a dtype, a reduce mode): the
    others raise, and a sample eager cannot run is skipped."""
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError("a sample with keyword arguments")
        return f(*args)
    return call


DIRECT: dict[str, tuple[str, Callable[..., Any]]] = {
    "_softmax": ("softmax", _no_kwargs(lambda x, dim: A._softmax(x, dim, False))),
    "_log_softmax": ("log_softmax", _no_kwargs(lambda x, dim: A._log_softmax(x, dim, False))),
    "_adaptive_avg_pool2d": ("nn.functional.adaptive_avg_pool2d", lambda x, size: A._adaptive_avg_pool2d(x, size)),
    "atan2.out": ("atan2", lambda x, y: A.atan2.out(x, y, out=torch.empty(torch.broadcast_shapes(x.shape, y.shape)))),
    "bitwise_and.Scalar": ("bitwise_and", lambda a, b: A.bitwise_and.Scalar(a, 0b1011)),
    "bitwise_or.Scalar": ("bitwise_or", lambda a, b: A.bitwise_or.Scalar(a, 0b1011)),
    "bitwise_xor.Scalar": ("bitwise_xor", lambda a, b: A.bitwise_xor.Scalar(a, 0b1011)),
    "div.Scalar_mode": ("div.floor_rounding", lambda x, y, rounding_mode: A.div.Scalar_mode(x, 2.5,
                                                                                             rounding_mode=rounding_mode)),
    "reflection_pad": ("nn.functional.pad.reflect", _pad("reflection")),
    "replication_pad": ("nn.functional.pad.replicate", _pad("replication")),
    "scatter.value": ("scatter", _no_kwargs(lambda x, dim, index, src: A.scatter.value(x, dim, index, 2.5))),
    "upsample_nearest2d.vec": ("nn.functional.interpolate.nearest", _upsample_nearest2d),
    "col2im": ("nn.functional.unfold", _im2col_col2im),
    "_embedding_bag": ("nn.functional.embedding_bag", _embedding_bag),
    "convolution_backward": ("nn.functional.conv2d", _convolution_backward),
    "convolution_backward_1d": ("nn.functional.conv1d", _convolution_backward),
    "avg_pool2d_backward": ("nn.functional.avg_pool2d", _avg_pool2d_backward),
    "_adaptive_avg_pool2d_backward": ("nn.functional.adaptive_avg_pool2d",
                                      lambda x, size: A._adaptive_avg_pool2d_backward(A._adaptive_avg_pool2d(x, size), x)),
    "embedding_dense_backward": ("nn.functional.embedding", _embedding_backward),
    "native_layer_norm_backward": ("nn.functional.layer_norm", _layer_norm_backward),
    "native_group_norm_backward": ("nn.functional.group_norm", _group_norm_backward),
    "_native_batch_norm_legit.no_stats": ("nn.functional.batch_norm", lambda x, mean, var, weight=None, bias=None,
                                          training=False, momentum=0.1, eps=1e-5:
                                          A._native_batch_norm_legit.no_stats(x, weight, bias, True, momentum, eps)),
}
"""For Core ATen overloads that no OpInfo op's samples reach (their public op decomposes
to others, or calls another overload): the samples of the OpInfo op named, through a
call of the overload (the constant second operand of a `.Scalar` form is ours; a
backward op's output gradient is its forward op's output)."""


def run_direct(
    label: str, infos: dict[str, Any], limit: int | None = None, dtype: torch.dtype | None = None
) -> list[Outcome]:
    opinfo, call = DIRECT[label]
    info = infos[opinfo]
    return _run(f"{label} (direct)", call, info, dtype or sample_dtype(info), limit)


def blamed(outcome: Outcome) -> set[str]:
    """The ops a failed sample counts against: the ones its error names as unsupported
    (or whose converter refused it); none for what torch.export refuses or a sample that
    writes its own inputs (the harness's limit); every op of its graph for a wrong result."""
    harness = ("USER_INPUT_MUTATION", "an input of kind TOKEN")
    if outcome.passed or outcome.reason.startswith("export:") or any(h in outcome.reason for h in harness):
        return set()
    named = re.search(r"([\w.]+\.[\w]+) is not supported", outcome.reason)
    if named is not None:
        also = re.search(r"also unsupported: ([^)]*)\)", outcome.reason)
        return {named.group(1), *(n.strip() for n in (also.group(1).split(",") if also else []))}
    converter = re.match(r"\w+: (aten\.[\w.]+): ", outcome.reason)
    if converter is not None:
        return {converter.group(1)}
    return set(outcome.aten)


@dataclass
class Coverage:
    """Per Core ATen overload: the samples that reached it, and the first failure."""

    reached: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)

    def add(self, outcome: Outcome, core: set[str]) -> None:
        for op in outcome.aten & core:
            self.reached[op] = self.reached.get(op, 0) + 1
        for op in blamed(outcome) & core:
            self.failed.setdefault(op, f"{outcome.op}[{outcome.sample}]: {outcome.reason}")

    def passing(self) -> list[str]:
        return sorted(op for op in self.reached if op not in self.failed)


__all__ = ["DIRECT", "Coverage", "OneOp", "Outcome", "blamed", "compare", "core_aten_overloads", "opinfo_id", "opinfos",
           "run_direct", "run_op", "run_sample", "sample_dtype"]
