"""compiler.from_torch against torch eager: whole networks (ResNet-18, a MobileNet
block, a transformer MLP block, seed 001's network), symbolic sizes, errors."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional
Dim = torch.export.Dim

from compiler.arith.expr import evaluate  # noqa: E402
from compiler.arith.parse import parse_expr  # noqa: E402
from compiler.torch import UnsupportedOperatorError, from_torch  # noqa: E402
from compiler.torch.networks import (  # noqa: E402
    BasicBlock,
    InvertedResidual,
    MLPBlock,
    ResNet18,
    Seed001,
    randomize_batch_norms,
)


def assert_matches_torch(net, model: nn.Module, x: torch.Tensor, rtol: float, atol: float) -> None:
    with torch.no_grad():
        expected = model(x).float().numpy()
    got = net(x.numpy())
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.astype(np.float32), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------------
# ResNet-18 (torchvision's structure, written out: no downloads)
# ---------------------------------------------------------------------------


@pytest.mark.long  # a whole ResNet-18: the long run
def test_resnet18() -> None:
    torch.manual_seed(0)
    model = randomize_batch_norms(ResNet18())
    x = torch.randn(1, 3, 64, 64)
    net = from_torch(model, (x,))
    assert_matches_torch(net, model, x, rtol=1e-4, atol=1e-5)
    assert_matches_torch(net, model, torch.randn(1, 3, 64, 64), rtol=1e-4, atol=1e-5)
    # every batch norm folded into its conv: 20 convs, no batch-norm stage left
    assert len(net.graph.folded_batch_norms) == 20
    assert all("batch_norm" not in t.name for t in net.graph.params)
    assert net.memory is not None
    assert int(net.memory.arena) < int(net.memory.no_reuse)


@pytest.mark.long  # several whole networks: the long run
def test_static_and_symbolic_networks_are_auto_scheduled_unless_told_not_to() -> None:
    torch.manual_seed(2)
    model = randomize_batch_norms(BasicBlock(8, 8, 1))
    x = torch.randn(1, 8, 12, 12)
    static = from_torch(model, (x,))
    assert_matches_torch(static, model, x, rtol=1e-4, atol=1e-5)
    fused = from_torch(model, (x,), auto_schedule=False)
    shapes = {"x": {2: Dim("h", min=4), 3: Dim("w", min=4)}}
    symbolic = from_torch(model, (x,), dynamic_shapes=shapes)
    for size in ((9, 13), (4, 4), (12, 12), (31, 17)):
        assert_matches_torch(symbolic, model, torch.randn(1, 8, *size), rtol=1e-4, atol=1e-5)
    symbolic_fused = from_torch(model, (x,), dynamic_shapes=shapes, auto_schedule=False)

    def kinds(net: object) -> set[str]:
        text = str(net.lower(until="loop"))  # type: ignore[attr-defined]
        return {k for k in ("parallel", "vectorized", "unrolled") if f" {k} " in text}

    assert kinds(static) == {"parallel", "vectorized", "unrolled"}  # register tiles, cores
    assert kinds(fused) == set()
    assert kinds(symbolic) == {"parallel", "vectorized", "unrolled"}
    assert kinds(symbolic_fused) == set()


# ---------------------------------------------------------------------------
# MobileNetV2 inverted residual (depthwise separable convolutions, ReLU6)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("cin", "cout", "stride"), [(8, 8, 1), (8, 16, 2)], ids=["residual", "stride2"])
def test_mobilenet_block_symbolic_size(cin: int, cout: int, stride: int) -> None:
    torch.manual_seed(1)
    model = randomize_batch_norms(InvertedResidual(cin, cout, stride))
    h, w = Dim("h", min=4, max=512), Dim("w", min=4, max=512)
    net = from_torch(model, (torch.randn(1, cin, 16, 16),), dynamic_shapes={"x": {2: h, 3: w}})
    for size in [(16, 16), (13, 20)]:
        assert_matches_torch(net, model, torch.randn(1, cin, *size), rtol=1e-4, atol=1e-5)


def test_dynamic_dimension_is_at_least_one() -> None:
    """torch.export's range of a Dim without `min` starts at 0; the compiled network's at 1
    (an empty batch is refused, clearly: with 0 possible, the bounds of every blocked
    loop over it hedge for it), and the function itself declares and checks the range."""
    import compiler

    model = nn.Linear(8, 4).eval()
    net = from_torch(model, (torch.randn(2, 8),), dynamic_shapes={"input": {0: Dim("batch", max=16)}})
    from compiler import te

    batch = net.graph.inputs[0].shape[0]
    assert isinstance(batch, te.Var)
    assert (batch.lower, batch.upper) == (1, 16)
    assert "shape_bounds = {batch = array<i64: 1, 16>}" in net.function.loop_ir
    assert_matches_torch(net, model, torch.randn(1, 8), rtol=1e-5, atol=1e-6)
    with pytest.raises(compiler.ArgumentValueError, match=r"is 0, outside the range \[1, 16\] of batch"):
        net(np.zeros((0, 8), np.float32))


@pytest.mark.long  # several whole networks: the long run
def test_mobilenet_two_blocks_symbolic_size() -> None:
    model = randomize_batch_norms(nn.Sequential(InvertedResidual(8, 8, 1), InvertedResidual(8, 16, 2)))
    h, w = Dim("h", min=4, max=512), Dim("w", min=4, max=512)
    net = from_torch(model, (torch.randn(1, 8, 16, 16),), dynamic_shapes={"input": {2: h, 3: w}})
    for size in [(13, 20), (16, 16)]:
        assert_matches_torch(net, model, torch.randn(1, 8, *size), rtol=1e-4, atol=1e-5)
    # the symbolic plan (verified by build: its offsets are proven disjoint) reuses memory
    memory = net.memory
    assert memory is not None
    for env in ({"h": 13, "w": 20}, {"h": 224, "w": 224}):
        no_reuse = sum(evaluate(parse_expr(b.size), env) for b in memory.buffers)
        assert evaluate(parse_expr(memory.arena), env) < no_reuse


# ---------------------------------------------------------------------------
# Transformer blocks
# ---------------------------------------------------------------------------


def test_transformer_mlp_block_symbolic_sequence() -> None:
    torch.manual_seed(2)
    model = MLPBlock().eval()
    net = from_torch(model, (torch.randn(2, 7, 32),), dynamic_shapes={"x": {1: Dim("seq", max=1024)}})
    for seq in (7, 12):
        assert_matches_torch(net, model, torch.randn(2, seq, 32), rtol=1e-4, atol=1e-5)


class Attention(nn.Module):
    """Multi-head self-attention with explicit views, transposes, matmuls and softmax."""

    def __init__(self, dim: int = 16, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=-1)
        q = q.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.reshape(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-2, -1) * (c // self.heads) ** -0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, c)
        return F.log_softmax(self.proj(y), dim=-1).mean(dim=1)


def test_attention_softmax_matmul_views() -> None:
    torch.manual_seed(3)
    model = Attention().eval()
    x = torch.randn(2, 5, 16)
    net = from_torch(model, (x,))
    assert_matches_torch(net, model, x, rtol=1e-4, atol=1e-5)


class PoolingHead(nn.Module):
    """SigLIP's attention pooling: one learned query over the tokens, through
    nn.MultiheadAttention, whose in_proj_weight the exported program splits into q, k, v."""

    def __init__(self) -> None:
        super().__init__()
        self.attention = nn.MultiheadAttention(32, 4, batch_first=True)
        self.probe = nn.Parameter(torch.randn(1, 1, 32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attention(self.probe.expand(x.shape[0], -1, -1), x, x)[0]


def test_a_split_constant_weight_is_folded_into_constant_weights() -> None:
    """The split of in_proj_weight runs once, at import: q's, k's and v's weights are
    parameters laid out in blocks for the linear's tiles (a split computed at run time
    was read unblocked: SigLIP's head, 1.8 GFLOP/s, a third of its time)."""
    torch.manual_seed(5)
    model = PoolingHead().eval()
    x = torch.randn(2, 20, 32)
    net = from_torch(model, (x,))
    assert_matches_torch(net, model, x, rtol=1e-4, atol=1e-5)
    # the query's projection of the constant probe is folded whole; keys and values are
    # one split piece ([32, 64]: k and v together)
    from_in_proj = [n for n in net.parameters if n.startswith("attention_in_proj_weight")]
    assert from_in_proj == ["attention_in_proj_weight_1_blocked"]


class SharedLayers(nn.Module):
    """ALBERT's sharing: one linear and one conv, each applied three times."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.linear = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(3):
            x = torch.relu(self.conv(x))
        y = x.mean((2, 3))
        for _ in range(3):
            y = torch.tanh(self.linear(y))
        return y


def test_a_shared_weight_is_one_blocked_constant() -> None:
    """A weight that several layers share is blocked once and held once (ALBERT's twelve
    layers each re-blocked the shared weights: 28 s of its import, twelve copies)."""
    torch.manual_seed(6)
    model = SharedLayers().eval()
    x = torch.randn(1, 8, 10, 10)
    net = from_torch(model, (x,))
    assert_matches_torch(net, model, x, rtol=1e-4, atol=1e-5)
    weights = sorted(n for n in net.parameters if "weight" in n)
    assert weights == ["conv_weight_blocked", "linear_weight_blocked"]


class Zoo(nn.Module):
    """One of many ATen operators, each on a small tensor (an integration test of aten.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.bn = nn.BatchNorm2d(4)  # after a relu: not folded, a scale and shift
        self.bn_plain = nn.BatchNorm2d(4, affine=False)
        self.w = nn.Parameter(torch.randn(6, 5))
        self.b = nn.Parameter(torch.randn(5))

    def forward(self, x: torch.Tensor, m: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = self.bn(torch.relu(x))
        y = self.bn_plain(F.hardswish(y) - torch.sigmoid(y) * 0.5 + torch.tanh(y) / 3)
        p1 = F.max_pool2d(y, 3, 2, 1, ceil_mode=True)
        p2 = F.avg_pool2d(F.silu(y), 3, 2, 1, ceil_mode=True, count_include_pad=False)
        p3 = F.adaptive_avg_pool2d(F.hardtanh(y, -0.5, 0.5), (2, 3))
        pooled = torch.cat([p1.flatten(2), p2.flatten(2), p3.flatten(2)], dim=2)  # [n, 4, k]
        a, b = pooled.split([3, pooled.shape[2] - 3], dim=2)
        stats = (a.sum(-1) - b.amax(-1) + 2.0 - pooled.mean((1, 2), keepdim=True).squeeze(-1)).clamp(min=-1.0)
        mm = torch.addmm(self.b, m, self.w) / (1 + m.pow(2).sum())
        batched = torch.bmm(m.unsqueeze(0).expand(2, 4, 6), m.t().unsqueeze(0).expand(2, 6, 4))
        return (
            stats,
            F.log_softmax(mm, dim=0),
            (1 - batched.select(0, 1)) * torch.exp(-torch.rsqrt(batched[0].abs() + 1)),
            F.leaky_relu(x[:, 1:3, ::2, :-1].permute(0, 2, 3, 1).reshape(x.shape[0], -1), 0.2),
        )


def test_operator_zoo() -> None:
    torch.manual_seed(6)
    model = randomize_batch_norms(Zoo())
    x, m = torch.randn(2, 4, 9, 7), torch.randn(4, 6)
    net = from_torch(model, (x, m))
    got = net(x.numpy(), m.numpy())
    with torch.no_grad():
        expected = model(x, m)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------
# Seed 001: permute, two (conv + add + leaky_relu), 2x2 avg_pool in NHWC, permute
# ---------------------------------------------------------------------------


def test_seed001_float16_symbolic() -> None:
    torch.manual_seed(4)
    model = Seed001().half().eval()
    h, w = Dim("h", min=4, max=4096), Dim("w", min=4, max=4096)
    net = from_torch(model, (torch.randn(1, 3, 32, 32, dtype=torch.float16),), dynamic_shapes={"x1": {2: h, 3: w}})
    reference = copy.deepcopy(model).float()
    for size in [(32, 32), (18, 26), (15, 9)]:
        x = torch.randn(1, 3, *size, dtype=torch.float16)
        with torch.no_grad():
            expected = reference(x.float()).numpy()
        got = net(x.numpy())
        assert got.dtype == np.float16
        assert got.shape == (1, 64, size[0] // 2, size[1] // 2)
        # float16 accumulation over 576 products against a float32 reference
        np.testing.assert_allclose(got.astype(np.float32), expected, rtol=2e-2, atol=2e-2)
    memory = net.memory
    assert memory is not None
    by_name = {b.name: b for b in memory.buffers}
    # the permutes cancel (the convs compute in NHWC, channels_last) and every add +
    # leaky_relu is fused: the first into the second conv's pad, the second written over
    # its conv's output; the float32 sums of the convs and of the pool are registers
    # (conv2d_acc, avg_pool2d_sum: not in the plan), and the pool, rounded once in NHWC,
    # is written over the leaky_relu it reads, then transposed into the NCHW output
    assert set(by_name) == {"conv2d_pad", "conv2d", "conv2d_1_pad", "conv2d_1", "leaky_relu_1", "avg_pool2d"}
    assert by_name["leaky_relu_1"].inplace_of == "conv2d_1"
    assert by_name["avg_pool2d"].inplace_of == "leaky_relu_1"
    # and the plan is as small as the static one: the liveness lower bound (16,908,800 at
    # 256x256, what the static plan takes: bench/memory.py)
    for size in [(256, 256), (224, 224), (512, 384)]:
        env = {"h": size[0], "w": size[1]}
        assert evaluate(parse_expr(memory.arena), env) == symbolic_lower_bound(memory, env), size
    assert evaluate(parse_expr(memory.arena), {"h": 256, "w": 256}) == 16_908_800
    assert "x1" in str(net.lower(until="loop"))


def symbolic_lower_bound(memory: object, env: dict[str, int]) -> int:
    """The most bytes live at one statement, sizes evaluated at `env`."""
    buffers = memory.buffers  # type: ignore[attr-defined]
    sizes = [(b.first, b.last, evaluate(parse_expr(b.size), env)) for b in buffers]
    end = max(last for _, last, _ in sizes)
    return max(sum(n for first, last, n in sizes if first <= k <= last) for k in range(end + 1))


def test_seed001_static_plan_pools_in_place() -> None:
    torch.manual_seed(4)
    model = Seed001().half().eval()
    x = torch.randn(1, 3, 16, 16, dtype=torch.float16)
    net = from_torch(model, (x,))
    memory = net.memory
    assert memory is not None
    by_name = {b.name: b for b in memory.buffers}
    assert by_name["leaky_relu_1"].inplace_of == "conv2d_1"
    assert "avg_pool2d_sum" not in by_name  # a float32 register: the pool writes the output
    assert int(memory.arena) == memory.lower_bound
    with torch.no_grad():
        expected = copy.deepcopy(model).float()(x.float()).numpy()
    np.testing.assert_allclose(net(x).astype(np.float32), expected, rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------------------
# Calling conventions and errors
# ---------------------------------------------------------------------------


class Small(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        z = torch.relu(self.conv(x))
        return z, torch.cat([z, y], dim=1)[:, 2:, :, 1:]


def test_dlpack_inputs_several_outputs_and_shape_errors() -> None:
    torch.manual_seed(5)
    model = Small().eval()
    x, y = torch.randn(1, 3, 6, 5), torch.randn(1, 2, 6, 5)
    net = from_torch(model, (x, y), dynamic_shapes={"x": {2: Dim("h")}, "y": {2: Dim("h")}})
    z, cat = net(x, y)  # torch tensors in, through DLPack
    ez, ecat = (t.detach().numpy() for t in model(x, y))
    np.testing.assert_allclose(z, ez, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cat, ecat, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"x\.shape\[1\] is 4, expected 3"):
        net(np.zeros((1, 4, 6, 5), np.float32), y.numpy())
    with pytest.raises(ValueError, match=r"y\.shape\[2\] is 7, expected h = 6 \(h bound from x\.shape\[2\]\)"):
        net(x.numpy(), np.zeros((1, 2, 7, 5), np.float32))
    with pytest.raises(ValueError, match="has 3 dimension"):
        net(np.zeros((3, 6, 5), np.float32), y.numpy())
    with pytest.raises(TypeError, match="expected 2 input"):
        net(x.numpy())
    with pytest.raises(TypeError, match="dtype"):
        net(x.double().numpy(), y.numpy())


class Unsupported(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(x)
        return torch.fft.rfft(y, dim=1).abs()  # the unsupported line


def test_unsupported_op_names_op_node_and_source_line() -> None:
    with pytest.raises(UnsupportedOperatorError) as info:
        from_torch(Unsupported(), (torch.randn(2, 3),))
    message = str(info.value)
    assert "aten._fft_r2c.default is not supported (FFTs are not supported)" in message
    assert "node '_fft_r2c'" in message
    assert re.search(r"test_torch_frontend\.py\", line \d+, in forward", message), message
    assert "torch.fft.rfft(y, dim=1)" in message or "unsupported line" in message


def test_training_mode_batch_norm_uses_batch_statistics_and_updates_the_running_ones() -> None:
    """A module in training mode computes as torch's: the batch's statistics normalize, and
    the running ones (state of the network: the module's buffers) move by the momentum."""
    torch.manual_seed(3)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).train()
    reference = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)).train()
    reference.load_state_dict(model.state_dict())
    net = from_torch(model, (torch.randn(2, 3, 8, 8),))
    for _ in range(2):
        x = torch.randn(2, 3, 8, 8)
        with torch.no_grad():
            expected = reference(x)
        np.testing.assert_allclose(net(x), expected.numpy(), rtol=1e-4, atol=1e-5)
    bn, ref_bn = model[1], reference[1]
    assert isinstance(bn, nn.BatchNorm2d)
    assert isinstance(ref_bn, nn.BatchNorm2d)
    np.testing.assert_allclose(net.state[next(k for k in net.state if k.endswith("running_mean"))],
                               ref_bn.running_mean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.running_var.numpy(), ref_bn.running_var.numpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Memory plan pictures
# ---------------------------------------------------------------------------


def symbolic_plan() -> object:
    """The plan storage-rewrite makes for a conv, relu and pool with a symbolic height
    (the flat IR is enough: no LLVM)."""
    from compiler import lower, ops, te
    from compiler.analysis.memory_summary import memory_summary
    from compiler.dialects import loop

    h = te.var("h")
    x = te.placeholder((1, h, 8, 4), name="x")
    w = te.placeholder((3, 3, 4, 4), name="w")
    act = ops.relu(ops.conv2d_nhwc(x, w, padding=1, name="conv"), name="act")
    module = lower([x, w, ops.avg_pool2d(act, 2, 2, layout="NHWC", name="pool")], until="flat")
    plans = [memory_summary(f) for f in module.ops if isinstance(f, loop.FuncOp)]
    return next(p for p in plans if p.buffers)


def test_plot_boxes_evaluate_symbolic_plans() -> None:
    from compiler.torch.plot import boxes

    memory = symbolic_plan()
    items, arena, bound = boxes(memory, {"h": 8})
    assert {b.name for b in items} == {"conv_pad", "conv", "act", "pool_sum"}
    assert bound <= arena
    assert all(b.offset is not None and b.offset + b.size <= arena for b in items)
    with pytest.raises(ValueError, match="give dims"):
        boxes(memory)


def test_plot_memory_writes_a_png(tmp_path: object) -> None:
    pytest.importorskip("matplotlib")
    from compiler.torch import plot_memory

    path = tmp_path / "plan.png"  # type: ignore[operator]
    plot_memory(symbolic_plan(), path, dims={"h": 8})
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
