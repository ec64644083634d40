"""bfloat16 tensors: stored as bf16, computed in f32 and rounded per result as torch's CPU
kernels do (lowering/bfloat16.py). Arguments are torch tensors (any DLPack bf16 tensor:
NumPy has no bf16)."""

from __future__ import annotations

import numpy as np
import pytest

from compiler import build, ops, te
from compiler.errors import ArgumentTypeError
from compiler.runtime.bfloat16 import bf16_bits, bf16_value

torch = pytest.importorskip("torch")

SPECIAL_F32_BITS = [
    0x00000000, 0x80000000,  # zeros
    0x7F800000, 0xFF800000,  # infinities
    0x7FC00000, 0x7FFFFFFF, 0xFF800001, 0x7F800001,  # NaNs, one whose rounding would carry into the sign
    0x7F7FFFFF, 0xFF7FFFFF,  # the largest floats: round to infinity
    0x7F7F7FFF, 0x7F7F8000,  # just below and at the tie under the largest bf16
    0x3F808000, 0x3F818000,  # ties: to the even neighbour, down and up
    0x3F807FFF, 0x3F808001,  # just off a tie
    0x00000001, 0x00008000, 0x00018000, 0x807FFFFF,  # subnormals and their ties
]


def same_bits(ours: torch.Tensor, theirs: torch.Tensor) -> torch.Tensor:
    """Where two bf16 tensors hold the same value (any NaN equals any NaN)."""
    return (ours.view(torch.int16) == theirs.view(torch.int16)) | (ours.isnan() & theirs.isnan())


def test_f32_to_bf16_rounds_to_nearest_even_as_torch() -> None:
    n = 1 << 14
    bits = np.random.default_rng(0).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    bits[: len(SPECIAL_F32_BITS)] = SPECIAL_F32_BITS
    x = te.placeholder((n,), name="x")
    y = te.compute((n,), lambda i: x[i].astype("bfloat16"), name="y")
    f = build([x, y])
    src = torch.from_numpy(bits.view(np.float32).copy())
    out = torch.empty(n, dtype=torch.bfloat16)
    f(src, out)
    expected = src.to(torch.bfloat16)
    assert bool(same_bits(out, expected).all()), np.flatnonzero(~same_bits(out, expected).numpy())[:8]
    nan_bits = out.view(torch.int16)[src.isnan()].int() & 0xFFC0
    assert bool((nan_bits == 0x7FC0).all())  # every NaN a positive quiet NaN


def test_every_bf16_extends_exactly_to_f32_and_f64() -> None:
    every = torch.arange(-(2**15), 2**15, dtype=torch.int32).to(torch.int16).view(torch.bfloat16)
    x = te.placeholder((2**16,), name="x", dtype="bfloat16")
    as_f32 = te.compute((2**16,), lambda i: x[i].astype("float32"), name="as_f32")
    as_f64 = te.compute((2**16,), lambda i: x[i].astype("float64"), name="as_f64")
    f = build([x, as_f32, as_f64])
    out32, out64 = torch.empty(2**16), torch.empty(2**16, dtype=torch.float64)
    f(every, out32, out64)
    for out, dtype in ((out32, torch.float32), (out64, torch.float64)):
        expected = every.to(dtype)
        assert bool(((out == expected) | (out.isnan() & expected.isnan())).all())


def test_each_arithmetic_result_is_rounded_as_torch_rounds_it() -> None:
    n = 257  # a vector body and a scalar tail
    a = te.placeholder((n,), name="a", dtype="bfloat16")
    b = te.placeholder((n,), name="b", dtype="bfloat16")
    fused = te.compute((n,), lambda i: (a[i] * b[i] + a[i]) / (b[i] - 0.3), name="fused")
    largest = te.compute((n,), lambda i: te.max(a[i], b[i] * 3.0), name="largest")
    f = build([a, b, fused, largest])
    x, y = torch.randn(n).bfloat16(), torch.randn(n).bfloat16()
    out1, out2 = torch.empty(n, dtype=torch.bfloat16), torch.empty(n, dtype=torch.bfloat16)
    f(x, y, out1, out2)
    assert bool(same_bits(out1, (x * y + x) / (y - 0.3)).all())
    assert bool(same_bits(out2, torch.maximum(x, y * 3.0)).all())


def test_rounding_in_slp_vectorized_tails_keeps_numbers_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A normalization's scalar tails (3 = 2 lanes + 1), four of them SLP-vectorized by
    LLVM: a NaN flag made from a sign bit became a `vmovmskps` of xmm18, which read xmm2,
    and element 2 came out NaN whenever b[3] was negative. Serial, as a build outside the
    test suite makes it (the suite makes every stage parallel: outlined, other code)."""
    import dataclasses

    from compiler.analysis.target import PARALLEL_MIN_WORK, host_target
    from compiler.passes import auto_schedule

    serial = dataclasses.replace(host_target(), parallel_min_work=PARALLEL_MIN_WORK)
    monkeypatch.setattr(auto_schedule, "host_target", lambda: serial)
    x = te.placeholder((2, 2, 3), name="x", dtype="bfloat16")
    g = te.placeholder((2, 3), name="g", dtype="bfloat16")
    b = te.placeholder((2, 3), name="b", dtype="bfloat16")
    m, s = te.placeholder((2,), name="m"), te.placeholder((2,), name="s")
    y = te.compute(
        (2, 2, 3),
        lambda i, j, k: ((x[i, j, k].astype("float32") - m[i]) / s[i] * g[j, k].astype("float32")
                         + b[j, k].astype("float32")).astype("bfloat16"),
        name="y",
    )
    f = build([x, g, b, m, s, y])
    gen = torch.Generator().manual_seed(0)
    for _ in range(4):
        X, G, B = (torch.randn(shape, generator=gen).bfloat16() * 4 for shape in ((2, 2, 3), (2, 3), (2, 3)))
        M, S = torch.randn(2, generator=gen), torch.rand(2, generator=gen) + 1
        out = torch.empty(2, 2, 3, dtype=torch.bfloat16)
        f(X, G, B, M, S, out)
        expected = ((X.float() - M[:, None, None]) / S[:, None, None] * G.float() + B.float()).bfloat16()
        assert not bool(out.isnan().any())
        torch.testing.assert_close(out, expected, atol=0.0, rtol=1 / 128)


def test_bf16_casts_to_float16_and_integers_as_torch() -> None:
    n = 300
    x = te.placeholder((n,), name="x", dtype="bfloat16")
    h = te.placeholder((n,), name="h", dtype="float16")
    to_half = te.compute((n,), lambda i: x[i].astype("float16"), name="to_half")
    from_half = te.compute((n,), lambda i: h[i].astype("bfloat16"), name="from_half")
    to_int = te.compute((n,), lambda i: x[i].astype("int32"), name="to_int")
    from_int = te.compute((n,), lambda i: (te.const(0, "int32") + i.astype("int32") * 1001).astype("bfloat16"), name="from_int")
    f = build([x, h, to_half, from_half, to_int, from_int])
    xs = (torch.randn(n) * 100).bfloat16()
    hs = (torch.randn(n) * 100).half()
    outs = [torch.empty(n, dtype=d) for d in (torch.float16, torch.bfloat16, torch.int32, torch.bfloat16)]
    f(xs, hs, *outs)
    assert torch.equal(outs[0], xs.half())
    assert torch.equal(outs[1], hs.bfloat16())
    assert torch.equal(outs[2], xs.int())
    assert torch.equal(outs[3], (torch.arange(n, dtype=torch.int32) * 1001).bfloat16())


@pytest.mark.parametrize("value", [0.1, 1.5, -3.3e38, 3.4e38, 1e-40, float("inf"), float("nan")])
def test_constant_bits_round_as_torch(value: float) -> None:
    expected = torch.tensor([value], dtype=torch.float32).bfloat16().view(torch.int16).item() & 0xFFFF
    if value != value:  # any NaN (torch's own vectorized conversion gives 0xFFFF here)
        assert bf16_bits(value) & 0x7F80 == 0x7F80
        assert bf16_bits(value) & 0x7F
    else:
        assert bf16_bits(value) == expected
    if value == value:
        assert bf16_value(bf16_bits(value)) == torch.tensor([value]).bfloat16().float().item()


def test_products_and_normalizations_accumulate_in_f32() -> None:
    m, k, n = 33, 96, 80
    a = te.placeholder((m, k), name="a", dtype="bfloat16")
    w = te.placeholder((n, k), name="w", dtype="bfloat16")
    g = te.placeholder((n,), name="g", dtype="bfloat16")
    beta = te.placeholder((n,), name="beta", dtype="bfloat16")
    y = ops.dense(a, w, name="y")
    s = ops.softmax(y, axis=1, name="s")
    ln = ops.layer_norm(y, g, beta, axis=(1,), name="ln")
    assert (y.dtype, s.dtype, ln.dtype) == ("bfloat16",) * 3
    f = build([a, w, g, beta, y, s, ln])
    A, W, G, B = torch.randn(m, k).bfloat16(), torch.randn(n, k).bfloat16(), torch.randn(n).bfloat16(), torch.randn(n).bfloat16()
    outs = [torch.empty(m, n, dtype=torch.bfloat16) for _ in range(3)]
    f(A, W, G, B, *outs)
    Y = A @ W.T
    torch.testing.assert_close(outs[0], Y, atol=0.0, rtol=1 / 128)  # one rounding of an f32 sum: an ulp at most
    torch.testing.assert_close(outs[1], torch.softmax(outs[0], 1), atol=1 / 256, rtol=1 / 64)
    torch.testing.assert_close(outs[2], torch.nn.functional.layer_norm(outs[0], (n,), G, B), atol=1 / 32, rtol=1 / 64)


def test_f32_activations_times_bf16_weights_load_bf16_vectors() -> None:
    """Weight-only bf16: a blocked weight [N / 64, K, 64] in bf16 read by an f32 product,
    each weight vector one load of 16-bit lanes widened in registers."""
    k, n, nb = 256, 128, 64
    a = te.placeholder((3, k), name="a")
    w = te.placeholder((n // nb, k, nb), name="w", dtype="bfloat16")
    y = ops.dense(a, w, name="y", out_dtype="float32")
    f = build([a, w, y])
    A, W = torch.randn(3, k), torch.randn(n, k).bfloat16()
    blocked = W.reshape(n // nb, nb, k).transpose(1, 2).contiguous()
    out = torch.empty(3, n)
    f(A, blocked, out)
    torch.testing.assert_close(out, A @ W.float().T, rtol=1e-5, atol=1e-4)
    assert " x i16>" in f.llvm_ir  # vector loads of the bf16 weights


def test_a_wrong_dtype_for_a_bf16_argument_names_it() -> None:
    x = te.placeholder((4,), name="x", dtype="bfloat16")
    y = te.compute((4,), lambda i: x[i] * 2.0, name="y")
    f = build([x, y])
    with pytest.raises(ArgumentTypeError, match=r"x.*bfloat16"):
        f(torch.zeros(4), torch.empty(4, dtype=torch.bfloat16))


# ---------------------------------------------------------------------------
# PyTorch models in bfloat16 (`model.to(torch.bfloat16)`)
# ---------------------------------------------------------------------------

transformers = pytest.importorskip("transformers")


def _llama(causal: bool) -> torch.nn.Module:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, use_cache=False,
    )
    cls = transformers.LlamaForCausalLM if causal else transformers.LlamaModel
    model: torch.nn.Module = cls(config).eval()
    return model


def test_a_bf16_model_imports_with_bf16_weights_and_matches_eager() -> None:
    """Ours is within a few bf16 rounding steps of eager's bf16 run, as close to the
    float32 model as eager's own bf16 run is; the weights stay bf16 (2 bytes each)."""
    from compiler.torch import from_torch

    reference = _llama(causal=False)
    model = _llama(causal=False).to(torch.bfloat16)
    ids = torch.randint(0, 96, (1, 12), generator=torch.Generator().manual_seed(1))
    net = from_torch(model, (ids,))
    out = net(ids).last_hidden_state
    with torch.no_grad():
        eager = model(ids).last_hidden_state
        exact = reference(ids).last_hidden_state
    assert out.dtype == torch.bfloat16
    scale = float(exact.abs().max())
    ours_error = float((out.float() - exact).abs().max()) / scale
    eager_error = float((eager.float() - exact).abs().max()) / scale
    assert ours_error <= 2 * eager_error + 1 / 256, (ours_error, eager_error)
    weights = [v for k, v in net.parameters.items() if "proj" in k]
    assert weights
    assert all(v.dtype == torch.bfloat16 for v in weights)


def test_bf16_decoding_with_a_kv_cache_follows_eager() -> None:
    """Our compiled bf16 model (its KV cache bf16 state) stepped along transformers'
    greedy tokens: every step's logits within a few bf16 rounding steps of eager's
    static-cache module fed the same tokens, and after a reset the same again. (Greedy
    tokens themselves may part where two logits are a rounding apart: with the scores
    in float32, as torch's SDPA kernel keeps them, ours part from transformers' at the
    13th token of this random model.)"""
    from compiler.torch.generate import CausalLM, static_cache_module

    model = _llama(causal=True).to(torch.bfloat16)
    lm = CausalLM(model, max_cache_len=48)
    prompt = [3, 14, 15, 92, 6, 5]
    with torch.no_grad():
        tokens = model.generate(
            torch.tensor([prompt]), max_new_tokens=16, do_sample=False,
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long), pad_token_id=0,
        )[0].tolist()
    state = lm.net.graph.state
    caches = [b for b in state.buffers if "cache" in b.name and b.tensor.ndim == 4] if state else []
    assert caches
    assert all(b.tensor.dtype == "bfloat16" for b in caches)
    for _ in range(2):  # the second time after a reset: the cache written again
        lm.reset()
        eager = static_cache_module(model, 48)
        steps = [prompt, *([t] for t in tokens[len(prompt):-1])]
        position = 0
        for step in steps:
            ours = torch.as_tensor(lm.step(step))
            with torch.no_grad():
                positions = torch.arange(position, position + len(step))
                expected = eager(input_ids=torch.tensor([step]), cache_position=positions)[0, -1].float()
            position += len(step)
            scale = float(expected.abs().max())
            assert float((ours - expected).abs().max()) <= scale / 32, (position, ours, expected)


def test_a_bf16_cnn_with_batch_norm_matches_eager() -> None:
    """Convolutions (NHWC inside), a batch norm folded into its conv, pools and a linear in
    bf16: as close to the float32 model as eager's bf16 run, within a rounding step."""
    import copy

    from compiler.torch import from_torch

    torch.manual_seed(0)
    reference = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 8, 1), torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 5),
    ).eval()
    with torch.no_grad():
        reference[1].running_mean.uniform_(-0.5, 0.5)
        reference[1].running_var.uniform_(0.5, 2.0)
    model = copy.deepcopy(reference).to(torch.bfloat16)
    x = torch.randn(2, 3, 16, 16)
    out = from_torch(model, (x.bfloat16(),))(x.bfloat16())
    with torch.no_grad():
        eager, exact = model(x.bfloat16()).float(), reference(x)
    assert out.dtype == torch.bfloat16
    scale = float(exact.abs().max())
    ours_error = float((out.float() - exact).abs().max()) / scale
    eager_error = float((eager - exact).abs().max()) / scale
    assert ours_error <= 2 * eager_error + 1 / 256, (ours_error, eager_error)


@pytest.mark.parametrize("scheme", ["int8", "int4"])
def test_quantized_weights_of_a_bf16_model(scheme: str) -> None:
    """`compiler.quantize` of a bf16 model: the product runs on the packed weights in
    float32 (the bf16 input widened exactly, the scales in float32) and rounds once to
    bf16; eager rounds its dequantized weights to bf16 first, so the two are within a few
    rounding steps."""
    from compiler import quantize
    from compiler.torch import from_torch

    model = quantize(_llama(causal=False).to(torch.bfloat16), scheme)  # type: ignore[arg-type]
    ids = torch.randint(0, 96, (1, 8), generator=torch.Generator().manual_seed(2))
    out = from_torch(model, (ids,))(ids).last_hidden_state
    with torch.no_grad():
        eager = model(ids).last_hidden_state
    assert out.dtype == torch.bfloat16
    scale = float(eager.float().abs().max())
    assert float((out.float() - eager.float()).abs().max()) <= scale / 64


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_running_sums_of_a_computed_input_in_16_bit_floats(dtype: torch.dtype) -> None:
    """cumsum of a computed input (`cumulative_trapezoid`: the mean of neighbours, then a
    running sum): its float32 sums attached inside the rounding stage made the input's
    bounds name a loop variable, and make-packed-api refused the build."""
    from compiler.torch import from_torch

    class Trapezoid(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.cumulative_trapezoid(x, dim=1)

    x = torch.randn(3, 9).to(dtype)
    out = from_torch(Trapezoid(), (x,))(x)
    expected = Trapezoid()(x)
    torch.testing.assert_close(torch.as_tensor(out), expected, atol=1e-2, rtol=1e-2)
