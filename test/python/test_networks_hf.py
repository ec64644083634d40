"""Whole networks from a real model library (`transformers`' ResNet-18/50, MobileNetV2,
ConvNeXt-tiny at test sizes, random weights from their configs) against torch eager,
and the layout machinery they run on: NHWC convolutions with weights blocked by output
channel, linear layers with blocked weights, the auto-scheduler's blocked tiles, and
no recomputation of elementwise stages inside reductions."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

import compiler  # noqa: E402
from compiler import ops, te  # noqa: E402
from compiler.analysis.target import Target, channel_block  # noqa: E402
from compiler.auto_schedule import plan_function  # noqa: E402
from compiler.dialects import te as te_dialect  # noqa: E402
from compiler.te.to_ir import build_module  # noqa: E402
from compiler.torch.networks import HF_NETWORKS, hf_network  # noqa: E402

# whole networks: the long run only (COMPILER_LONG_TESTS=1, make test-long)
pytestmark = pytest.mark.long


def _max_relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(got - expected).max() / np.abs(expected).max())


@pytest.mark.parametrize("name", HF_NETWORKS)
def test_hf_network_matches_eager(name: str) -> None:
    model, shape = hf_network(name, small=True)
    x = torch.randn(*shape)
    net = compiler.from_torch(model, (x,))
    with torch.no_grad():
        expected = model(x).numpy()
    got = net(x.numpy())
    assert got.shape == expected.shape
    assert _max_relative_error(got, expected) <= 1e-4


def test_channels_last_is_the_same_network_as_nchw() -> None:
    """Both layouts compute the same function; NHWC has no NCHW weight left."""
    model, shape = hf_network("resnet18", small=True, seed=3)
    x = torch.randn(*shape)
    nhwc = compiler.from_torch(model, (x,))
    nchw = compiler.from_torch(model, (x,), channels_last=False)
    np.testing.assert_allclose(nhwc(x.numpy()), nchw(x.numpy()), rtol=1e-4, atol=1e-5)
    weights = [name for name in nhwc.parameters if "weight" in name]
    assert weights  # the check below is not vacuous
    assert all(name.endswith("_blocked") for name in weights)
    assert not any(name.endswith("_blocked") for name in nchw.parameters)


def test_network_with_bound_checks() -> None:
    """Every access of every intermediate checked (guards around the blocked tiles, the
    fused epilogues, the layout transposes): no IndexError, the same result."""
    model, shape = hf_network("mobilenetv2", small=True, seed=5)
    x = torch.randn(*shape)
    net = compiler.from_torch(model, (x,), check_bounds=True)
    with torch.no_grad():
        expected = model(x).numpy()
    assert _max_relative_error(net(x.numpy()), expected) <= 1e-4


@pytest.mark.parametrize(("cin", "cout", "k", "stride", "groups", "hw"), [
    (16, 64, 3, 1, 1, 9),
    (32, 48, 1, 2, 1, 14),
    (24, 24, 3, 2, 24, 11),  # depthwise
    (8, 40, 2, 2, 1, 8),  # 40 channels: blocks of 8 (AVX2) or all 40 (AVX-512)
])
def test_blocked_nhwc_conv_matches_torch(cin: int, cout: int, k: int, stride: int, groups: int, hw: int) -> None:
    kb = channel_block(cout, Target(vector_bits=256))
    x = te.placeholder((1, hw, hw, cin), name="x")
    w = te.placeholder((cout // kb, k, k, cin // groups, kb), name="w")
    y = ops.conv2d_nhwc(x, w, stride, k // 2, groups=groups, name="conv")
    f = compiler.build([x, w, y])
    xt = torch.randn(1, cin, hw, hw)
    wt = torch.randn(cout, cin // groups, k, k)
    expected = torch.nn.functional.conv2d(xt, wt, None, stride, k // 2, 1, groups).permute(0, 2, 3, 1).numpy()
    blocked = ops.block_kernel_hwio(wt.permute(2, 3, 1, 0).contiguous().numpy(), kb)
    out = np.empty(expected.shape, np.float32)
    f(xt.permute(0, 2, 3, 1).contiguous().numpy(), blocked, out)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_blocked_dense_matches_numpy() -> None:
    x = te.placeholder((3, 5, 24), name="x")
    w = te.placeholder((2, 24, 16), name="w")
    y = ops.dense(x, w, name="dense")
    f = compiler.build([x, w, y])
    xs = np.random.rand(3, 5, 24).astype(np.float32)
    ws = np.random.rand(32, 24).astype(np.float32)
    out = np.empty((3, 5, 32), np.float32)
    f(xs, ops.block_dense_weight(ws, 16), out)
    np.testing.assert_allclose(out, xs @ ws.T, rtol=1e-5)
    with pytest.raises(compiler.errors.ExprValueError, match="not blocks of 5"):
        ops.block_dense_weight(ws, 5)


def _plans(tensors: list[te.Tensor], target: Target) -> dict[str, object]:
    module, _ = build_module(tensors, "main", None)
    func = next(op for op in module.ops if isinstance(op, te_dialect.FuncOp))
    return {p.stage: p for p in plan_function(func, None, target)}


def test_blocked_read_sets_the_vector_tile() -> None:
    """A read `w[f // 32, ..., f % 32]` is contiguous in tiles of 32: the plan's vector
    factor is the block whatever the cost model would pick, and no panel is packed."""
    target = Target(vector_bits=256, registers=16, cores=2)
    x = te.placeholder((1, 14, 14, 64), name="x")
    w = te.placeholder((4, 1, 1, 64, 32), name="w")
    y = ops.conv2d_nhwc(x, w, name="conv")
    plan = _plans([x, w, y], target)["conv"]
    assert plan.vector_axis == 3  # type: ignore[attr-defined]
    assert plan.vector_factor == 32  # type: ignore[attr-defined]
    assert plan.pack_input is None  # type: ignore[attr-defined]
    assert plan.unroll_factor * 32 // 8 <= target.registers - 4  # type: ignore[attr-defined]


def test_elementwise_stage_is_not_recomputed_inside_a_reduction() -> None:
    """A residual sum read by a matmul and by an add stays a stage: inlined, the matmul
    would compute it again for each of its outputs."""
    a = te.placeholder((16, 16), name="a")
    b = te.placeholder((16, 16), name="b")
    s = te.compute((16, 16), lambda i, j: te.max(a[i, j] + b[i, j], 0.0), name="s")
    k = te.reduce_axis((0, 16), "k")
    m = te.compute((16, 16), lambda i, j: te.sum(s[i, k] * b[k, j], axis=k), name="m")
    out = te.compute((16, 16), lambda i, j: m[i, j] + s[i, j], name="out")
    plans = _plans([a, b, out], Target(cores=2))
    assert plans["s"].action == "root"  # type: ignore[attr-defined]
    f = compiler.build([a, b, out])
    av, bv = np.random.rand(16, 16).astype(np.float32), np.random.rand(16, 16).astype(np.float32)
    got = np.empty((16, 16), np.float32)
    f(av, bv, got)
    sv = np.maximum(av + bv, 0)
    np.testing.assert_allclose(got, sv @ bv + sv, rtol=1e-5)


def test_memory_reports_the_prepared_constants_apart() -> None:
    """`net.memory.constants`: the bytes of the parameters as bound (blocked, folded),
    beside the arena of the intermediates."""
    model, shape = hf_network("resnet18", small=True)
    net = compiler.from_torch(model, (torch.randn(*shape),))
    memory = net.memory
    assert memory is not None
    assert memory.constants == sum(v.nbytes for v in net.parameters.values())
    assert f"constants {memory.constants} bytes" in repr(memory)
    # every conv weight is there once, in its blocked layout only (batch norms folded in)
    weights = sum(p.numel() for n, p in model.named_parameters() if "convolution.weight" in n)
    blocked = sum(v.size for n, v in net.parameters.items() if n.endswith("_blocked"))
    assert blocked == weights


def test_elementwise_stage_is_not_recomputed_through_a_view() -> None:
    """A GELU read by a matmul through a reshape (GPT-2's MLP: addmm of a view) stays a
    stage: the view is inlined into the matmul, and the GELU must not ride along."""
    a = te.placeholder((4, 8, 16), name="a")
    w = te.placeholder((16, 32), name="w")
    g = ops.gelu(a, "tanh", name="g")
    v = ops.reshape(g, (32, 16), name="v")
    m = ops.matmul(v, w, name="m")
    plans = _plans([a, w, m], Target(cores=2))
    assert plans["g"].action == "root"  # type: ignore[attr-defined]
    assert plans["v"].action == "inline"  # type: ignore[attr-defined]
