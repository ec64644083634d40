"""Weight-only quantization (compiler.quantize): int8 per output channel and int4 in
groups of 32, packed two a byte. The quantized module run eagerly (dequantizing in
torch) is the reference; the compiled network keeps the weights packed and dequantizes
inside the product's loop (no float weight in its memory). Also te.shift_right, which
unpacks the int4 nibbles."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
import torch
from long_tests import long_except

import compiler
from compiler import te
from compiler.torch.quantize import (
    GROUP,
    Int4Linear,
    Int8Linear,
    dequantize_int4,
    dequantize_int8,
    quantize,
    unpack_int4,
)

# ---------------------------------------------------------------------------
# te.shift_right
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32"])
def test_shift_right_matches_numpy(dtype: str) -> None:
    """Arithmetic for signed types, logical for uint8; by a constant (vectorized) and by
    an amount that varies with the index."""
    a_t = te.placeholder((64,), dtype, name="A")
    by_three = te.compute((64,), lambda i: te.shift_right(a_t[i], 3), name="B")
    varying = te.compute((64,), lambda i: te.shift_right(a_t[i], (i % 4).astype(dtype)), name="C")
    f = compiler.build([a_t, by_three, varying])
    info = np.iinfo(dtype)
    a = np.random.default_rng(0).integers(info.min, info.max, 64, endpoint=True).astype(dtype)
    b, c = np.empty_like(a), np.empty_like(a)
    f(a, b, c)  # uint8 arrays as they are: the compiled function's arguments are uint8
    np.testing.assert_array_equal(b, a >> 3)
    np.testing.assert_array_equal(c, a >> (np.arange(64) % 4).astype(dtype))
    assert (b < 0).any() == (dtype != "uint8")  # the sign is kept, or zeros come in


def test_shift_right_refuses_floats() -> None:
    x = te.placeholder((4,), name="x")
    with pytest.raises(compiler.ExprTypeError, match="shift_right needs integer"):
        te.shift_right(x[0], 1)


# ---------------------------------------------------------------------------
# The quantized torch module
# ---------------------------------------------------------------------------


def _mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Linear(64, 96), torch.nn.GELU(), torch.nn.Linear(96, 48, bias=False), torch.nn.Linear(48, 20)
    ).eval()


def test_int8_is_per_channel_within_half_a_step() -> None:
    linear = torch.nn.Linear(64, 16)
    q = Int8Linear(linear)
    assert q.weight.dtype == torch.int8
    assert q.weight.shape == (16, 64)
    assert q.scale.shape == (16,)
    w = linear.weight.detach()
    np.testing.assert_allclose(q.scale.numpy(), w.abs().amax(1).numpy() / 127, rtol=1e-6)
    error = (dequantize_int8(q.weight, q.scale) - w).abs()
    assert (error <= q.scale[:, None] / 2 + 1e-7).all()


def test_int4_packs_two_values_a_byte_in_groups_of_32() -> None:
    linear = torch.nn.Linear(96, 8, bias=False)
    q = Int4Linear(linear)
    assert q.weight.dtype == torch.uint8
    assert q.weight.shape == (8, 48)
    assert q.scales.shape == (8, 96 // GROUP)
    values = unpack_int4(q.weight)
    assert values.min() >= -8
    assert values.max() <= 7
    # element 2i in the low nibble of byte i, 2i + 1 in the high one, stored as q + 8
    np.testing.assert_array_equal((q.weight & 15).numpy(), (values[:, 0::2] + 8).numpy())
    np.testing.assert_array_equal((q.weight >> 4).numpy(), (values[:, 1::2] + 8).numpy())
    w = linear.weight.detach()
    step = q.scales.repeat_interleave(GROUP, dim=1)
    assert ((dequantize_int4(q.weight, q.scales) - w).abs() <= step / 2 + 1e-7).all()


def test_quantize_replaces_linears_of_a_copy() -> None:
    model = _mlp()
    q = quantize(model, "int4")
    kinds = [type(m).__name__ for m in q]
    assert kinds == ["Int4Linear", "GELU", "Int4Linear", "Int8Linear"]  # 48 inputs: not groups of 32
    assert all(type(m) is not Int4Linear for m in model)  # the model is left as it was
    x = torch.randn(3, 64)
    with torch.no_grad():
        assert (q(x) - model(x)).abs().max() < 0.05
    with pytest.raises(compiler.ArgumentValueError, match="scheme must be"):
        quantize(model, "int3")  # type: ignore[arg-type]  # what a user may pass


# ---------------------------------------------------------------------------
# Compiled: the weights stay packed
# ---------------------------------------------------------------------------


def _float_bytes(model: torch.nn.Module) -> int:
    return sum(m.weight.numel() * 4 for m in model.modules() if isinstance(m, torch.nn.Linear))


@pytest.mark.parametrize("scheme", ["int8", "int4"])
def test_compiled_matches_eager_with_packed_weights(scheme: str) -> None:
    model = _mlp()
    q = quantize(model, scheme)  # type: ignore[arg-type]  # a Scheme literal
    x = torch.randn(2, 5, 64)
    net = compiler.from_torch(q, (x,))
    with torch.no_grad():
        expected = q(x).numpy()
    np.testing.assert_allclose(np.asarray(net(x.numpy())), expected, rtol=1e-5, atol=1e-5)
    weights = {k: v for k, v in net.parameters.items() if k.endswith("weight_blocked")}
    assert len(weights) == 3
    assert all(v.dtype == np.int8 for v in weights.values())
    elements = [96 * 64, 48 * 96, 20 * 48]
    per_element = [0.5, 0.5, 1] if scheme == "int4" else [1, 1, 1]  # the last: 48 inputs, int8
    assert sorted(v.nbytes for v in weights.values()) == sorted(int(e * b) for e, b in zip(elements, per_element, strict=True))
    memory = net.memory
    assert memory is not None
    assert memory.constants is not None
    assert memory.constants == sum(v.nbytes for v in net.parameters.values())
    assert memory.constants < _float_bytes(model) * (0.45 if scheme == "int4" else 0.3)


@pytest.mark.parametrize("scheme", ["int8", "int4"])
def test_no_float_weight_is_ever_allocated(scheme: str) -> None:
    """One linear at batch 1 (decode's shape): the program's only buffers are its
    arguments (the packed weight among them) and register tiles; nothing the size of a
    float weight is allocated, and no stage computes one."""
    torch.manual_seed(1)
    linear = torch.nn.Linear(256, 128, bias=False).eval()
    net = compiler.from_torch(quantize(linear, scheme), (torch.randn(1, 256),))  # type: ignore[arg-type]
    stages = [t.name for t in _stages(net)]
    assert len(stages) == (2 if scheme == "int8" else 1), stages  # the product (and int8's scaling)
    memory = net.memory  # None for int4: one stage, no buffer of its own but the result
    float_weight = 256 * 128 * 4
    assert memory is None or all(int(b.size) < float_weight // 16 for b in memory.buffers)
    assert memory is None or sum(memory.stack.values()) < float_weight // 16
    ir = str(net.lower("loop"))
    allocated = re.findall(r"loop\.alloc .*: !loop\.buffer<\[([\d, ]*)\], (\w+)>", ir)
    assert all(math.prod(int(d) for d in shape.split(", ")) < 256 * 128 // 16 for shape, _ in allocated), allocated
    assert "[128, 256], f32" not in ir
    assert "[256, 128], f32" not in ir
    assert ("[2, 256, 64], i8" if scheme == "int8" else "[2, 128, 64], i8") in ir  # the packed weight, read


def _stages(net: Any) -> list[Any]:
    from compiler.te.tensors import collect_stages

    return collect_stages(net.graph.outputs)


# ---------------------------------------------------------------------------
# A LLaMA model through the static-cache recipe: generation as transformers'
# ---------------------------------------------------------------------------

transformers = pytest.importorskip("transformers")


def _llama() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=96, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    )
    return transformers.LlamaForCausalLM(config).eval()


@pytest.mark.parametrize("scheme", long_except(["int8", "int4"], fast=["int4"]))  # int8's converters: above
def test_generate_matches_transformers_on_the_quantized_weights(scheme: str) -> None:
    """32 greedy tokens as transformers' `generate` on the same quantized module, and the
    prompt's logits within 1e-4 of eager's (the error printed: `pytest -s`)."""
    from compiler.torch.generate import CausalLM, static_cache_module

    model = _llama()
    q = quantize(model, scheme)  # type: ignore[arg-type]
    lm = CausalLM(q, max_cache_len=48)
    params = lm.net.parameters
    assert params["model_lm_head_weight_blocked"].dtype == np.int8  # the head is quantized too
    assert params["model_model_embed_tokens_weight"].dtype == np.float32  # the table is not
    prompt = [3, 14, 15, 92, 6, 5]
    with torch.no_grad():
        eager = static_cache_module(quantize(model, scheme), 48)  # type: ignore[arg-type]
        expected_logits = eager(input_ids=torch.tensor([prompt]), cache_position=torch.arange(6))[0, -1].numpy()
        float_logits = static_cache_module(model, 48)(
            input_ids=torch.tensor([prompt]), cache_position=torch.arange(6)
        )[0, -1].numpy()
        expected = q.generate(
            torch.tensor([prompt]), max_new_tokens=32, do_sample=False,
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long), pad_token_id=0,
        )[0].tolist()
    lm.reset()
    error = float(np.abs(lm.step(prompt) - expected_logits).max())
    quantization = float(np.abs(expected_logits - float_logits).max())
    print(f"{scheme}: logits max error {error:.2e} vs eager (quantized), {quantization:.2e} quantized vs float")
    assert error < 1e-4
    assert lm.generate(prompt, 32) == expected
    assert len(expected) == len(prompt) + 32
