"""float16 networks accumulate in float32 and round once (as PyTorch on CPU):
errors against a float64 reference next to torch eager's own float16 error, and
memory plans that stay at the liveness bound (the float32 accumulators are
registers attached to the stage that rounds them, never full-size buffers)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from compiler import build, ops, te
from compiler.arith.expr import evaluate
from compiler.arith.parse import parse_expr

torch = pytest.importorskip("torch")
nn = torch.nn
Dim = torch.export.Dim

from compiler.torch import from_torch  # noqa: E402
from compiler.torch.networks import BasicBlock, MLPBlock, Seed001, randomize_batch_norms  # noqa: E402


def errors(net, model: nn.Module, x: torch.Tensor) -> tuple[float, float]:
    """(ours, torch eager float16's) largest absolute error against the model in float64."""
    reference = copy.deepcopy(model).double()
    with torch.no_grad():
        exact = reference(x.double()).numpy()
        eager = model(x).double().numpy()
    got = net(x.numpy())
    assert got.dtype == np.float16
    return float(np.abs(got.astype(np.float64) - exact).max()), float(np.abs(eager - exact).max())


def test_seed001_float16_error_is_eager_like() -> None:
    """Measured at 64x64: float16 accumulation (before) was 0.0136 off the float64 result,
    float32 accumulation is 0.0021 (torch eager float16: 0.0024): one rounding per output."""
    torch.manual_seed(4)
    model = Seed001().half().eval()
    x = torch.randn(1, 3, 64, 64, dtype=torch.float16)
    ours, eager = errors(from_torch(model, (x,)), model, x)
    assert ours < 0.004, ours
    assert ours <= eager * 1.25, (ours, eager)


@pytest.mark.parametrize(("cin", "cout", "stride"), [(64, 64, 1), (32, 64, 2)], ids=["identity", "downsample"])
def test_resnet_block_float16(cin: int, cout: int, stride: int) -> None:
    torch.manual_seed(7)
    model = randomize_batch_norms(BasicBlock(cin, cout, stride)).half()
    x = torch.randn(1, cin, 20, 20, dtype=torch.float16)
    ours, eager = errors(from_torch(model, (x,)), model, x)
    assert ours <= eager * 1.25 + 1e-3, (ours, eager)


def test_mlp_block_float16_linear_layer_norm() -> None:
    torch.manual_seed(8)
    model = MLPBlock(dim=256, hidden=1024).half().eval()
    x = torch.randn(2, 9, 256, dtype=torch.float16)
    ours, eager = errors(from_torch(model, (x,)), model, x)
    assert ours <= eager * 1.25 + 1e-3, (ours, eager)


class SoftmaxHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(512, 2048)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        y = self.proj(x)
        return torch.softmax(y, dim=-1), torch.log_softmax(y, dim=-1), y.mean(dim=-1)


def test_softmax_log_softmax_mean_float16() -> None:
    torch.manual_seed(9)
    model = SoftmaxHead().half().eval()
    x = torch.randn(3, 512, dtype=torch.float16)
    net = from_torch(model, (x,))
    reference = copy.deepcopy(model).double()
    with torch.no_grad():
        exact = [t.numpy() for t in reference(x.double())]
        eager = [t.double().numpy() for t in model(x)]
    for got, e, ex in zip(net(x.numpy()), eager, exact, strict=True):
        ours, theirs = np.abs(got.astype(np.float64) - ex).max(), np.abs(e - ex).max()
        assert ours <= theirs * 1.25 + 1e-6, (ours, theirs)


# ---------------------------------------------------------------------------
# Memory: the float32 accumulators never become buffers
# ---------------------------------------------------------------------------


def test_seed001_float16_plan_at_256_static_and_symbolic() -> None:
    """Seed 001 at 256x256: the widest moment is the second conv's padded input and its
    output, (258 * 258 + 256 * 256) * 64 * 2 bytes = 16,908,800, float16 buffers only."""
    torch.manual_seed(4)
    model = Seed001().half().eval()
    static = from_torch(model, (torch.randn(1, 3, 256, 256, dtype=torch.float16),)).memory
    h, w = Dim("h", min=4, max=4096), Dim("w", min=4, max=4096)
    symbolic = from_torch(
        model, (torch.randn(1, 3, 32, 32, dtype=torch.float16),), dynamic_shapes={"x1": {2: h, 3: w}}
    ).memory
    assert static is not None
    assert symbolic is not None
    assert int(static.arena) == static.lower_bound == 16_908_800
    assert evaluate(parse_expr(symbolic.arena), {"h": 256, "w": 256}) == 16_908_800
    for memory in (static, symbolic):
        names = {b.name for b in memory.buffers}
        # the pool computes in NHWC (channels_last) over the leaky_relu it reads, then a
        # transpose writes the NCHW output
        assert names == {"conv2d_pad", "conv2d", "conv2d_1_pad", "conv2d_1", "leaky_relu_1", "avg_pool2d"}
    sizes = {b.name: int(b.size) for b in static.buffers}
    assert sizes["conv2d_1"] == 256 * 256 * 64 * 2  # float16, not a float32 accumulator


def test_ops_conv_float16_plan_and_numerics() -> None:
    """compiler.ops without a schedule (build(auto_schedule=False), TVM's default): the
    conv's float32 sum is a register in the conv's loops; the plan has float16 buffers only
    and meets the liveness bound; one rounding per output."""
    x = te.placeholder((1, 16, 16, 32), name="x", dtype="float16")
    k = te.placeholder((3, 3, 32, 32), name="k", dtype="float16")
    conv = ops.conv2d_nhwc(x, k, padding=1, name="conv")
    assert conv.dtype == "float16"
    assert conv.op.attach_to is None  # the rounding stage; its input is the float32 sum
    (acc_read,) = {n.tensor for n in te.walk(conv.op.body) if isinstance(n, te.Read)}  # type: ignore[arg-type]
    assert acc_read.name == "conv_acc"
    assert acc_read.dtype == "float32"
    assert acc_read.op.attach_to is conv
    act = ops.relu(conv, name="act")
    f = build([x, k, ops.avg_pool2d(act, 2, 2, layout="NHWC", name="pool")], auto_schedule=False)
    assert f.memory is not None
    assert {b.name: int(b.size) for b in f.memory.buffers} == {
        "conv_pad": 18 * 18 * 32 * 2, "conv": 16 * 16 * 32 * 2, "act": 16 * 16 * 32 * 2,
    }
    assert int(f.memory.arena) == f.memory.lower_bound
    rng = np.random.default_rng(0)
    xs = rng.uniform(0, 1, (1, 16, 16, 32)).astype(np.float16)
    ks = rng.uniform(0, 1, (3, 3, 32, 32)).astype(np.float16)
    out = np.zeros((1, 8, 8, 32), np.float16)
    f(xs, ks, out)
    xp = np.pad(xs.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    exact = sum(np.einsum("nhwc,ck->nhwk", xp[:, r : r + 16, s : s + 16], ks[r, s].astype(np.float64))
                for r in range(3) for s in range(3))
    rounded = exact.astype(np.float16).astype(np.float64)  # the conv's output is float16
    expected = rounded.reshape(1, 8, 2, 8, 2, 32).mean(axis=(2, 4))
    # sums of 288 products near 72: float16 accumulation is off by several units (ulp 0.0625)
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=2 ** -10, atol=0)


@pytest.mark.parametrize("op", ["matmul", "dense", "batch_matmul", "sum", "mean", "layer_norm", "softmax"])
def test_ops_float16_reductions_round_once(op: str) -> None:
    """Long float16 reductions against float64, rounded once: within one float16 ulp
    (float16 accumulation of 2048 terms near 1000 is off by tens)."""
    rng = np.random.default_rng(1)
    n, m, k = 4, 3, 2048
    a_np = rng.uniform(0, 1, (n, k)).astype(np.float16)
    b_np = rng.uniform(0, 1, (k, m)).astype(np.float16)
    a = te.placeholder((n, k), name="a", dtype="float16")
    b = te.placeholder((k, m), name="b", dtype="float16")
    wt = te.placeholder((m, k), name="wt", dtype="float16")
    a64, b64 = a_np.astype(np.float64), b_np.astype(np.float64)
    if op == "matmul":
        args, inputs, exact = [a, b, ops.matmul(a, b)], [a_np, b_np], a64 @ b64
    elif op == "dense":
        args, inputs, exact = [a, wt, ops.dense(a, wt)], [a_np, np.ascontiguousarray(b_np.T)], a64 @ b64
    elif op == "batch_matmul":
        a3 = te.placeholder((1, n, k), name="a3", dtype="float16")
        args, inputs, exact = [a3, b, ops.batch_matmul(a3, b)], [a_np[None], b_np], (a64 @ b64)[None]
    elif op == "sum":
        args, inputs, exact = [a, ops.sum(a, axis=1)], [a_np], a64.sum(axis=1)
    elif op == "mean":
        args, inputs, exact = [a, ops.mean(a, axis=1)], [a_np], a64.mean(axis=1)
    elif op == "layer_norm":
        mu, var = a64.mean(axis=1, keepdims=True), a64.var(axis=1, keepdims=True)
        args, inputs, exact = [a, ops.layer_norm(a)], [a_np], (a64 - mu) / np.sqrt(var + 1e-5)
    else:
        z = np.exp(a64 - a64.max(axis=1, keepdims=True))
        args, inputs, exact = [a, ops.softmax(a)], [a_np], z / z.sum(axis=1, keepdims=True)
    f = build(args, auto_schedule=False)
    out = np.zeros(exact.shape, np.float16)
    f(*inputs, out)
    ulp = np.spacing(np.abs(exact).astype(np.float16)).astype(np.float64)
    assert (np.abs(out.astype(np.float64) - exact) <= ulp + 1e-7).all(), np.abs(out.astype(np.float64) - exact).max()
    # the float32 accumulator never is a full-size buffer: the intermediates are float16
    # buffers or small float32 statistics (softmax's and layer_norm's row sums)
    if f.memory is not None:
        for buf in f.memory.buffers:
            assert int(buf.size) <= n * k * 2, buf
