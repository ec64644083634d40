"""The operators transformers export to, against torch eager: each ATen op through
`from_torch` (its converter and the `compiler.ops` function under it), in float32
and, where torch computes it on CPU, float16; integer and boolean tensors; and
the te-level `compiler.ops` functions with symbolic shapes."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import compiler
from compiler import ops, te

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional
Dim = torch.export.Dim

from long_tests import long_except  # noqa: E402

from compiler.torch import from_torch  # noqa: E402

TOL = {torch.float32: (1e-5, 1e-5), torch.float16: (1e-2, 1e-2)}


class Fn(nn.Module):
    """A module whose forward is `fn` (parameters given as buffers, seen as constants)."""

    def __init__(self, fn: Callable[..., Any], **consts: Any):
        super().__init__()
        self.fn = fn
        for k, v in consts.items():
            self.register_buffer(k, v)

    def forward(self, *args: Any) -> Any:
        return self.fn(self, *args)


def compare(got: Any, expected: Any, rtol: float, atol: float) -> None:
    if isinstance(expected, tuple | list):
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            compare(g, e, rtol, atol)
        return
    e = expected.detach().numpy()
    assert got.shape == e.shape
    if e.dtype == np.bool_ or not np.issubdtype(e.dtype, np.floating):
        assert got.dtype == e.dtype, (got.dtype, e.dtype)
        np.testing.assert_array_equal(got, e)
        return
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol)


def check(
    fn: Callable[..., Any], *args: torch.Tensor, dynamic_shapes: Any = None, rtol: float | None = None,
    atol: float | None = None, consts: dict[str, torch.Tensor] | None = None,
    more: Sequence[Sequence[torch.Tensor]] = (),
) -> Any:
    """Compile fn(self, *args) with from_torch and compare with eager (also on `more` inputs);
    `dynamic_shapes` has an entry per argument."""
    model = Fn(fn, **(consts or {})).eval()
    if dynamic_shapes is not None:  # forward(*args): one parameter, a tuple
        dynamic_shapes = (tuple(dynamic_shapes),)
    net = from_torch(model, args, dynamic_shapes=dynamic_shapes)
    floats = [a.dtype for a in args if a.is_floating_point()]
    r, a = TOL[floats[0] if floats else torch.float32]
    for inputs in (args, *more):
        with torch.no_grad():
            expected = model(*inputs)
        compare(net(*inputs), expected, rtol if rtol is not None else r, atol if atol is not None else a)
    return net


def randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape).to(dtype)


FLOATS = [torch.float32, torch.float16]
ids = pytest.mark.parametrize("dtype", FLOATS, ids=["f32", "f16"])


# ---------------------------------------------------------------------------
# Integer token ids: embedding, gather, index_select, index
# ---------------------------------------------------------------------------


@ids
def test_embedding_int64_ids_numpy_and_torch(dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    table = torch.randn(50, 12).to(dtype)
    tokens = torch.randint(0, 50, (2, 7))
    model = Fn(lambda s, t: F.embedding(t, s.table), table=table)
    net = from_torch(model, (tokens,))
    expected = model(tokens).numpy()
    np.testing.assert_array_equal(net(tokens.numpy()), expected)  # a gather: exact
    np.testing.assert_array_equal(net(tokens), expected)
    assert net.graph.inputs[0].dtype == "int64"


def test_embedding_int32_ids_and_symbolic_length() -> None:
    torch.manual_seed(1)
    table = torch.randn(30, 8)
    tokens = torch.randint(0, 30, (1, 9), dtype=torch.int32)
    check(lambda s, t: F.embedding(t, s.table) * 2.0, tokens, consts={"table": table},
          dynamic_shapes=({1: Dim("seq")},), more=[(torch.randint(0, 30, (1, 4), dtype=torch.int32),)])


def test_embedding_clamps_out_of_range_ids() -> None:
    """Documented: an id outside the table reads the nearest row (torch raises); never out of bounds."""
    table = torch.arange(20.0).reshape(5, 4)
    net = from_torch(Fn(lambda s, t: F.embedding(t, s.table), table=table), (torch.tensor([[0, 1]]),))
    got = net(np.array([[7, -3]], dtype=np.int64))
    np.testing.assert_array_equal(got, table.numpy()[[4, 0]][None])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather(dim: int) -> None:
    torch.manual_seed(2)
    x = torch.randn(4, 5, 6)
    index = torch.randint(0, x.shape[dim], (3, 4, 6))
    check(lambda s, x, i: torch.gather(x, dim, i), x, index)


def test_index_select_and_symbolic_table() -> None:
    torch.manual_seed(3)
    x = torch.randn(6, 5)
    check(lambda s, x, i: torch.index_select(x, 1, i) + 1.0, x, torch.tensor([4, 0, 0, 2]),
          dynamic_shapes=({0: Dim("rows")}, None), more=[(torch.randn(9, 5), torch.tensor([1, 3, 4, 2]))])


@pytest.mark.parametrize(
    "case",
    ["first", "second", "two_adjacent", "two_apart", "negative", "broadcast"],
)
def test_index_tensor(case: str) -> None:
    torch.manual_seed(4)
    x = torch.randn(4, 5, 6)
    i = torch.tensor([[3, 0], [1, 1]])
    j = torch.tensor([3, -2])
    fns = {
        "first": (lambda s, x, i, j: x[i], (x, i, j)),
        "second": (lambda s, x, i, j: x[:, i], (x, i, j)),
        "two_adjacent": (lambda s, x, i, j: x[:, i, j], (x, i, j)),
        "two_apart": (lambda s, x, i, j: x[i, :, j], (x, i, j)),
        "negative": (lambda s, x, i, j: x[j], (x, i, j)),
        "broadcast": (lambda s, x, i, j: x[i, j], (x, i, j)),
    }
    fn, args = fns[case]
    check(fn, *args)


# ---------------------------------------------------------------------------
# Integer and boolean tensors: arithmetic, comparisons, logic, selection
# ---------------------------------------------------------------------------


def test_int64_arithmetic_and_promotion() -> None:
    a = torch.tensor([[3, -2, 7, 0]])
    b = torch.tensor([[1, 5, -3, 2]], dtype=torch.int32)
    check(lambda s, a, b: (a + 1, a * b - 2, a + b, a / 2, a + 0.5, -a, (a * 3).float() * 0.25), a, b)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_tensor_and_scalar(op: str) -> None:
    torch.manual_seed(5)
    x = torch.randint(-3, 3, (3, 8)).float()
    y = torch.randint(-3, 3, (8,)).float()
    n = torch.randint(-3, 3, (3, 8))
    f = getattr(torch, op)
    check(lambda s, x, y, n: (f(x, y), f(x, 1.0), f(n, 0), f(n, y), f(n, 1.5)), x, y, n)


def test_logical_ops_where_and_masked_fill_with_bool_inputs() -> None:
    torch.manual_seed(6)
    x = torch.randn(2, 3, 5)
    m = torch.rand(2, 1, 5) > 0.5
    k = torch.rand(3, 5) > 0.3

    def fn(s: nn.Module, x: torch.Tensor, m: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, ...]:
        both = m & k
        either = torch.logical_or(m, k)
        return (
            torch.where(both, x, -x),
            torch.where(either, x, 0.0),
            torch.where(~m, 2.0, x),
            x.masked_fill(m, -1e4),
            x.masked_fill(~k, torch.finfo(x.dtype).min),
            both,
            (x > 0) & k,
        )

    net = check(fn, x, m, k)
    got = net(x.numpy(), m.numpy(), k.numpy())  # NumPy bools in, NumPy bools out
    assert got[5].dtype == np.bool_
    np.testing.assert_array_equal(got[5], (m & k).numpy())


def test_casts_between_bool_int_and_float() -> None:
    x = torch.tensor([[-1.5, 0.0, 0.25, 3.0]])
    check(lambda s, x: (x.bool(), x.long(), (x > 0).float(), (x > 0).long() + 1, x.to(torch.int32)), x)


# ---------------------------------------------------------------------------
# Creation ops (symbolic sizes keep them in the graph) and arange, cumsum, diff
# ---------------------------------------------------------------------------


def test_full_zeros_ones_like_and_new() -> None:
    x = torch.randn(2, 5)

    def fn(s: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        n = x.shape[1]
        return (
            torch.full_like(x, 2.5) + x,
            torch.zeros_like(x) - x,
            torch.ones_like(x, dtype=torch.bool),
            x.new_ones((3, n)),
            x.new_zeros((n,), dtype=torch.int64),
            x.new_full((n, 2), 7.0),
            torch.ones(n, 2) * 3,
            torch.full((2, n), 4, dtype=torch.int64),
            torch.zeros(n),
        )

    check(fn, x, dynamic_shapes=({1: Dim("n")},), more=[(torch.randn(2, 9),)])


def test_arange_symbolic_and_float() -> None:
    x = torch.randn(3, 6)

    def fn(s: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        n = x.shape[1]
        return (
            x + torch.arange(n),
            torch.arange(2, n + 2),
            torch.arange(0, n, 2),
            torch.arange(0.0, 3.0, 0.5) + x[0, 0],
            torch.arange(n).unsqueeze(0) >= torch.arange(n).unsqueeze(1),
        )

    check(fn, x, dynamic_shapes=({1: Dim("n", min=3)},), more=[(torch.randn(3, 11),)])


@ids
def test_cumsum_float(dtype: torch.dtype) -> None:
    torch.manual_seed(7)
    check(lambda s, x: (torch.cumsum(x, -1), torch.cumsum(x, 0)), randn(3, 17, dtype=dtype))


def test_cumsum_int_and_bool() -> None:
    n = torch.tensor([[1, 0, 3, -2, 5]])
    check(lambda s, n: (torch.cumsum(n, 1), torch.cumsum(n != 0, -1), torch.cumsum(n.int(), 1)), n)


def test_diff_with_prepend_and_bool() -> None:
    n = torch.tensor([[1, 2, 4, 4, 9, 3]])
    x = torch.randn(2, 6)
    check(lambda s, n, x: (torch.diff(n, dim=1, prepend=n[:, :1] - 1), torch.diff(x, n=2), torch.diff(n > 2)), n, x)


# ---------------------------------------------------------------------------
# Padding modes
# ---------------------------------------------------------------------------


@ids
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes_4d(mode: str, dtype: torch.dtype) -> None:
    torch.manual_seed(8)
    x = randn(1, 3, 6, 7, dtype=dtype)
    pads = (2, 1, 0, 3)
    if mode == "constant":
        check(lambda s, x: (F.pad(x, pads, value=1.5), F.pad(x, (1, -2, -1, 2))), x)
    else:
        check(lambda s, x: F.pad(x, pads, mode=mode), x)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_pad_modes_3d(mode: str) -> None:
    torch.manual_seed(9)
    check(lambda s, x: F.pad(torch.relu(x), (2, 3), mode=mode) * 2.0, torch.randn(2, 4, 10))


def test_tf_style_pad_then_conv() -> None:
    """MobileNetV2's tf_padding: an asymmetric constant pad before a strided conv."""
    torch.manual_seed(10)
    conv = nn.Conv2d(3, 8, 3, stride=2).eval()

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = conv

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.conv(F.pad(x, (0, 1, 0, 1)))

    x = torch.randn(1, 3, 16, 16)
    net = from_torch(M().eval(), (x,))
    with torch.no_grad():
        np.testing.assert_allclose(net(x.numpy()), M().eval()(x).numpy(), rtol=1e-4, atol=1e-5)


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------


SDPA_CASES = ["plain", "bool_mask", "float_mask", "causal", "scale", "cross", "broadcast_mask"]


@pytest.mark.parametrize(
    ("case", "dtype"),
    long_except([(c, d) for d in FLOATS for c in SDPA_CASES],  # make test: float16 in three cases
                fast=[(c, torch.float32) for c in SDPA_CASES] + [(c, torch.float16) for c in ("plain", "causal", "bool_mask")]),
)
def test_scaled_dot_product_attention(case: str, dtype: torch.dtype) -> None:
    torch.manual_seed(11)
    b, h, L, S, E = 2, 3, 5, 7 if case == "cross" else 5, 8
    q, k, v = randn(b, h, L, E, dtype=dtype), randn(b, h, S, E, dtype=dtype), randn(b, h, S, E, dtype=dtype)
    args: list[torch.Tensor] = [q, k, v]
    kwargs: dict[str, Any] = {}
    if case == "bool_mask":
        mask = torch.rand(b, 1, L, S) > 0.4
        mask[..., 0] = True  # no fully masked row (torch gives NaN there)
        args.append(mask)
    elif case in ("float_mask", "broadcast_mask"):
        mask = torch.where(torch.rand(L, S) > 0.3, 0.0, torch.finfo(dtype).min).to(dtype)
        mask[:, 0] = 0
        args.append(mask if case == "broadcast_mask" else mask.expand(b, h, L, S).contiguous())
    elif case == "causal":
        kwargs["is_causal"] = True
    elif case == "scale":
        kwargs["scale"] = 0.3

    def fn(s: nn.Module, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, *mask: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask[0] if mask else None, **kwargs)

    check(fn, *args)


def test_attention_from_transposed_projections() -> None:
    """The layout of a transformer layer: linear, view to heads, transpose, attention, back."""
    torch.manual_seed(12)

    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(16, 48)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            q, k, v = self.qkv(x).view(1, -1, 3, 2, 8).permute(2, 0, 3, 1, 4).unbind(0)
            return F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(1, -1, 16)

    model = M().eval()
    x = torch.randn(1, 6, 16)
    net = from_torch(model, (x,))
    with torch.no_grad():
        np.testing.assert_allclose(net(x.numpy()), model(x).numpy(), rtol=1e-4, atol=1e-5)


def test_softmax_with_large_negative_mask_has_no_nan() -> None:
    x = torch.randn(2, 6)
    mask = torch.tensor([[True, True, False, False, True, True], [False] * 6])
    check(lambda s, x, m: torch.softmax(x.masked_fill(m, torch.finfo(x.dtype).min), -1), x, mask)


# ---------------------------------------------------------------------------
# Math and activations
# ---------------------------------------------------------------------------


UNARY: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "erf": torch.erf,
    "exp": torch.exp,
    "log": lambda x: torch.log(x.abs() + 0.5),
    "sqrt": lambda x: torch.sqrt(x.abs()),
    "rsqrt": lambda x: torch.rsqrt(x.abs() + 0.1),
    "pow3": lambda x: x.pow(3.0),
    "pow_tensor": lambda x: torch.pow(x.abs() + 0.5, x),
    "pow_base": lambda x: torch.pow(2.0, x),
    "tanh": torch.tanh,
    "clamp": lambda x: torch.clamp(x, -0.5, 0.7),
    "clamp_min": lambda x: torch.clamp_min(x, 0.1),
    "reciprocal": lambda x: torch.reciprocal(x.abs() + 0.5),
}


@ids
def test_unary_math_in_one_graph(dtype: torch.dtype) -> None:
    """Every function of UNARY, one output each, in one module (one build)."""
    torch.manual_seed(13)
    check(lambda s, x: tuple(fn(x) for fn in UNARY.values()), randn(3, 17, dtype=dtype))


@pytest.mark.long  # each function in a graph of its own (test_unary_math_in_one_graph has them all)
@ids
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_math(name: str, dtype: torch.dtype) -> None:
    torch.manual_seed(13)
    fn = UNARY[name]
    check(lambda s, x: fn(x), randn(3, 17, dtype=dtype))


# ---------------------------------------------------------------------------
# Products, normalisation, shapes
# ---------------------------------------------------------------------------


@ids
def test_matmul_broadcast_batch_and_baddbmm(dtype: torch.dtype) -> None:
    torch.manual_seed(14)
    a, b = randn(2, 1, 4, 8, dtype=dtype), randn(3, 8, 5, dtype=dtype)
    c, d, bias = randn(3, 4, 8, dtype=dtype), randn(3, 8, 5, dtype=dtype), randn(3, 4, 5, dtype=dtype)
    check(lambda s, a, b, c, d, bias: (torch.matmul(a, b), torch.bmm(c, d), torch.baddbmm(bias, c, d, beta=0.5, alpha=2.0)),
          a, b, c, d, bias)


@ids
def test_layer_norm_over_last_two_dims(dtype: torch.dtype) -> None:
    torch.manual_seed(15)
    ln = nn.LayerNorm((4, 6)).to(dtype).eval()
    with torch.no_grad():
        ln.weight.normal_()
        ln.bias.normal_()
    model = Fn(lambda s, x: s.ln(x))
    model.ln = ln  # type: ignore[assignment]
    x = randn(2, 3, 4, 6, dtype=dtype)
    net = from_torch(model.eval(), (x,))
    r, a = TOL[dtype]
    with torch.no_grad():
        compare(net(x), model(x), r, a)


def test_split_chunk_unbind_repeat_expand() -> None:
    torch.manual_seed(16)
    x = torch.randn(2, 6, 4)

    def fn(s: nn.Module, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        a, b, c = x.chunk(3, dim=1)
        p, q = x.split([4, 2], dim=1)
        u = x.unbind(2)
        return (a * c - b, q, p.sum(1), u[3], x.repeat(1, 2, 3), x[:, :1].expand(2, 6, 4) + x, x.unsqueeze(1) * 2)

    check(fn, x)


# ---------------------------------------------------------------------------
# compiler.ops at the te level (symbolic shapes)
# ---------------------------------------------------------------------------


def build_run(args: Sequence[te.Tensor], inputs: Sequence[np.ndarray], out_shape: tuple[int, ...], dtype: str) -> np.ndarray:
    f = compiler.build(list(args))
    out = np.zeros(out_shape, dtype)
    f(*inputs, out)
    return out


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular", "constant"])
def test_ops_pad_modes_symbolic(mode: str) -> None:
    n = te.var("n")
    X = te.placeholder((2, n), name="X")
    Y = ops.pad(X, (0, 2), (0, 3), value=0.0, mode=mode, name="Y")
    x = np.random.default_rng(1).standard_normal((2, 9)).astype("float32")
    np_mode = {"replicate": "edge", "circular": "wrap"}.get(mode, mode)
    got = build_run([X, Y], [x], (2, 14), "float32")
    np.testing.assert_array_equal(got, np.pad(x, ((0, 0), (2, 3)), mode=np_mode))


def test_ops_embedding_advanced_index_cumsum_symbolic() -> None:
    n, m = te.var("n"), te.var("m")
    W = te.placeholder((m, 3), name="W")
    ids_ = te.placeholder((n,), "int64", name="ids")
    E = ops.embedding(W, ids_, name="E")
    C = ops.cumsum(E, 0, name="C")
    cols = te.placeholder((2,), "int64", name="cols")
    J = ops.advanced_index(C, [None, cols], name="J")
    w = np.arange(21, dtype=np.float32).reshape(7, 3)
    i = np.array([6, 0, 2, 2, 5], dtype=np.int64)
    c = np.array([2, -3], dtype=np.int64)
    f = compiler.build([W, ids_, cols, J])
    out = np.zeros((5, 2), np.float32)
    f(w, i, c, out)
    np.testing.assert_array_equal(out, np.cumsum(w[i], 0)[:, [2, 0]])


def test_ops_arange_symbolic_and_where_mask() -> None:
    n = te.var("n")
    A = ops.arange(n, dtype="int64", name="A")
    M = ops.less_equal(ops.reshape(A, (1, n)), ops.reshape(A, (n, 1)), name="M")
    assert M.dtype == ops.MASK
    X = te.placeholder((n, n), name="X")
    Y = ops.where(M, X, -1.0, name="Y")
    x = np.random.default_rng(2).standard_normal((6, 6)).astype("float32")
    got = build_run([X, Y], [x], (6, 6), "float32")
    np.testing.assert_array_equal(got, np.where(np.tril(np.ones((6, 6), bool)), x, -1.0))


def test_ops_scaled_dot_product_attention_matches_numpy() -> None:
    rng = np.random.default_rng(3)
    s = te.var("s")
    Q = te.placeholder((2, s, 8), name="Q")
    K = te.placeholder((2, s, 8), name="K")
    V = te.placeholder((2, s, 4), name="V")
    out = ops.scaled_dot_product_attention(Q, K, V, is_causal=True)
    q, k, v = (rng.standard_normal(shape).astype("float32") for shape in ((2, 5, 8), (2, 5, 8), (2, 5, 4)))
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(8)
    scores = np.where(np.tril(np.ones((5, 5), bool)), scores, -np.inf)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    expected = (p / p.sum(-1, keepdims=True)) @ v
    got = build_run([Q, K, V, out], [q, k, v], (2, 5, 4), "float32")
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("rows", "cols"), [(13, 13), (40, 40), (7, 29)])
def test_batch_matmul_where_sums_the_lower_triangle(rows: int, cols: int) -> None:
    """A `where` on the product's row and k (likely): loop-partition cuts the reduction at
    the diagonal (the rows whose guard fails everywhere get no loop at all); the result
    is the triangular product, whatever tile the auto-scheduler picks."""
    rng = np.random.default_rng(5)
    A = te.placeholder((2, rows, cols), name="A")
    B = te.placeholder((2, cols, 24), name="B")
    C = ops.batch_matmul(A, B, where=lambda row, _col, k: te.likely(k <= row), name="C")
    a, b = rng.standard_normal((2, rows, cols)).astype("float32"), rng.standard_normal((2, cols, 24)).astype("float32")
    expected = np.tril(a) @ b
    np.testing.assert_allclose(build_run([A, B, C], [a, b], (2, rows, 24), "float32"), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("length", long_except([1, 17, 64, 100, 130, 200], fast=[17, 130]))
def test_causal_attention_at_odd_lengths_matches_torch(length: int) -> None:
    """Causal attention whose stages skip the triangle above the diagonal (the scores'
    64 x 64 blocks, the chunks of the row max and sum, the product with V): lengths
    below, at and between the blocks, chunks and tiles."""
    F = pytest.importorskip("torch").nn.functional
    import torch

    q, k, v = (torch.randn(1, 3, length, 16, generator=torch.Generator().manual_seed(s)) for s in (1, 2, 3))
    Q, K, V = (te.placeholder((1, 3, length, 16), name=n) for n in "QKV")
    out = ops.scaled_dot_product_attention(Q, K, V, is_causal=True)
    got = build_run([Q, K, V, out], [t.numpy() for t in (q, k, v)], (1, 3, length, 16), "float32")
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_exact_gelu_is_branch_free_and_takes_its_sign_exactly() -> None:
    """erf's sign comes from a clamp, not a select (a lazy `scf.if`: the loop would not
    vectorize, and a linear layer before it could not take it as its epilogue); erf is odd,
    0 at 0 and +-1 far out, NaN through."""
    x = te.placeholder((9,), name="x")
    f = compiler.build([x, ops.erf(x, name="e")])
    assert "scf.if" not in f.loop_ir
    a = np.array([0.0, -0.0, 1e-35, -1e-35, 0.5, -0.5, 6.0, -30.0, np.nan], np.float32)
    got = np.empty_like(a)
    f(a, got)
    expected = np.array([math.erf(v) if v == v else np.nan for v in a.astype(np.float64)])
    np.testing.assert_allclose(got, expected, atol=2e-7, equal_nan=True)
    np.testing.assert_array_equal(got[4], -got[5])


ROW_BLOCK_CASES = [("plain", 40, 40), ("causal", 40, 40), ("causal", 64, 64), ("padding_mask", 24, 56),
                   ("float_mask", 30, 30), ("user_inlined", 40, 40), ("wide_head", 40, 40)]


@pytest.mark.parametrize(("case", "length", "keys"),
                         long_except(ROW_BLOCK_CASES, fast=[("causal", 40, 40), ("padding_mask", 24, 56), ("user_inlined", 40, 40), ("wide_head", 40, 40)]))
def test_attention_in_row_blocks_matches_torch(monkeypatch: pytest.MonkeyPatch, case: str, length: int, keys: int) -> None:
    """With a small L2 (4 KB), the auto-scheduler computes attention's scores, row max,
    exponentials and row sum per block of query rows, at the output's parallel block loop
    (the score matrix is never whole); the result is torch's. A wide head (72: column
    tiles, wider than any vector tile) runs its column tiles inside the block."""
    torch = pytest.importorskip("torch")
    from compiler.analysis.target import host_target
    from compiler.context import make_context
    from compiler.passes.auto_schedule import AutoSchedulePass
    from compiler.te.to_ir import build_module

    monkeypatch.setenv("COMPILER_CACHE", "0")
    small = dataclasses.replace(host_target(), l2_bytes=4096, cores=2)
    monkeypatch.setattr("compiler.passes.auto_schedule.host_target", lambda: small)
    gen = torch.Generator().manual_seed(7)
    head = 72 if case == "wide_head" else 16
    q, k, v = (torch.randn(1, 3, n, head, generator=gen) for n in (length, keys, keys))
    Q, K, V = (te.placeholder(tuple(t.shape), name=n) for t, n in zip((q, k, v), "QKV", strict=True))
    mask, M = None, None
    if case == "padding_mask":
        mask = torch.arange(keys).reshape(1, 1, 1, keys) < keys - 9
        M = te.placeholder((1, 1, 1, keys), dtype="int8", name="M")
    elif case == "float_mask":
        mask = torch.randn(1, 1, length, keys, generator=gen)
        M = te.placeholder((1, 1, length, keys), name="M")
    out = ops.scaled_dot_product_attention(Q, K, V, mask=M, is_causal=case == "causal")
    args = [Q, K, V, *([M] if M is not None else []), out]
    schedule = None
    if case == "user_inlined":  # the row max's last step (40 = 32 + a tail of 8) inlined by the user
        schedule = te.create_schedule(out.op)
        row_max = next(t for t in _stage_tensors(out) if t.op.name == "attention_max")
        schedule[row_max].compute_inline()
    module, _ = build_module(args, "main", schedule)
    AutoSchedulePass().apply(make_context(), module)
    text = str(module)
    assert 'sched.compute_at "attention_scores", %attention_par' in text
    assert 'sched.compute_at "attention_exp", %attention_par' in text
    assert not any("sched.fuse" in line and "attention_ax3" in line for line in text.splitlines())
    inputs = [t.numpy() for t in (q, k, v)] + ([] if mask is None else [mask.numpy().astype(np.int8) if case == "padding_mask" else mask.numpy()])
    f = compiler.build(args) if schedule is None else compiler.build(schedule, args, auto_schedule=True)
    got = np.zeros((1, 3, length, head), np.float32)
    f(*inputs, got)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=case == "causal").numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def _stage_tensors(out: te.Tensor) -> list[te.Tensor]:
    """Every tensor `out` is computed from, `out` first."""
    from compiler.te.tensors import Read
    from compiler.te.traversal import walk

    found: dict[str, te.Tensor] = {}
    pending = [out]
    while pending:
        t = pending.pop()
        if t.op.name in found:
            continue
        found[t.op.name] = t
        pending += [n.tensor for body in t.op.all_bodies() for n in walk(body) if isinstance(n, Read)]
    return list(found.values())
