"""Hugging Face `transformers` models through `from_torch`, against torch eager:
BERT, GPT-2 (use_cache=False), ViT and MobileNetV2 (tf_padding) at small configs
with random weights (built from a config object: nothing is downloaded).

float32: the largest error is at most 1e-4 of the output's largest magnitude."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
nn = torch.nn

from compiler import te  # noqa: E402
from compiler.torch import from_torch  # noqa: E402

# the small models run by default (the import of every transformer is checked in CI); the
# slowest two only in the long run (COMPILER_LONG_TESTS=1, make test-long)

Dim = torch.export.Dim

VOCAB, SEQ = 96, 12


class Outputs(nn.Module):
    """A model called with keyword options, returning its output tensors as a tuple."""

    def __init__(self, model: nn.Module, names: tuple[str, ...], **options: Any):
        super().__init__()
        self.model, self.names, self.options = model, names, options

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = self.model(x, **self.options)
        return tuple(getattr(out, n) for n in self.names)


def assert_close(net: Any, model: nn.Module, x: torch.Tensor, feed: Any = None) -> None:
    with torch.no_grad():
        expected = [e.numpy() for e in model(x)]
    got = net(x if feed is None else feed)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        scale = float(np.abs(e).max())
        err = float(np.abs(g.astype(np.float64) - e).max())
        assert err <= 1e-4 * scale, f"max error {err:.3g} against an output scale of {scale:.3g}"


def tokens(batch: int = 1, seq: int = SEQ) -> torch.Tensor:
    return torch.randint(0, VOCAB, (batch, seq))


def test_bert() -> None:
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=48, num_hidden_layers=2, num_attention_heads=3, intermediate_size=96,
        max_position_embeddings=64,
    )
    model = Outputs(transformers.BertModel(config).eval(), ("last_hidden_state", "pooler_output")).eval()
    x = tokens()
    net = from_torch(model, (x,))
    assert_close(net, model, x, feed=x.numpy())  # int64 NumPy token ids
    y = tokens()
    assert_close(net, model, y)  # int64 torch token ids


@pytest.mark.long  # make test: the zoo's LLaMA and BLOOM decoders
def test_gpt2() -> None:
    torch.manual_seed(1)
    config = transformers.GPT2Config(
        vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4, n_positions=64, bos_token_id=0, eos_token_id=0
    )
    model = Outputs(transformers.GPT2Model(config).eval(), ("last_hidden_state",), use_cache=False).eval()
    x = tokens(2)
    net = from_torch(model, (x,))
    assert_close(net, model, x, feed=x.numpy())
    assert_close(net, model, tokens(2))


def test_vit() -> None:
    torch.manual_seed(2)
    config = transformers.ViTConfig(
        hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64, image_size=32, patch_size=8
    )
    model = Outputs(transformers.ViTModel(config).eval(), ("last_hidden_state", "pooler_output")).eval()
    x = torch.randn(1, 3, 32, 32)
    net = from_torch(model, (x,))
    assert_close(net, model, x, feed=x.numpy())


@pytest.mark.long
def test_mobilenet_v2_tf_padding() -> None:
    torch.manual_seed(3)
    config = transformers.MobileNetV2Config(image_size=32, depth_multiplier=0.35, tf_padding=True)
    model = Outputs(transformers.MobileNetV2Model(config).eval(), ("last_hidden_state", "pooler_output")).eval()
    for m in model.modules():  # batch norms with statistics other than the defaults
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    x = torch.randn(1, 3, 32, 32)
    net = from_torch(model, (x,))
    assert len(net.graph.folded_batch_norms) == 52
    assert_close(net, model, x, feed=x.numpy())


class BertWithMask(nn.Module):
    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids, attention_mask=mask).last_hidden_state


def test_bert_dynamic_batch_and_sequence_with_padding_mask() -> None:
    """One build, symbolic in batch and seq, at several sizes; the padding mask from
    attention_mask (int64 0/1) goes through the same symbolic graph."""
    torch.manual_seed(4)
    config = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=64,
    )
    model = BertWithMask(transformers.BertModel(config).eval()).eval()
    batch, seq = Dim("batch", max=8), Dim("seq", max=64)
    ids, mask = tokens(2), torch.ones(2, SEQ, dtype=torch.int64)
    net = from_torch(model, (ids, mask), dynamic_shapes={"ids": {0: batch, 1: seq}, "mask": {0: batch, 1: seq}})
    assert [d.name if isinstance(d, te.Var) else d for d in net.graph.inputs[0].shape] == ["batch", "seq"]
    for b, s in [(1, 5), (2, 12), (3, 40)]:
        ids, mask = tokens(b, s), torch.ones(b, s, dtype=torch.int64)
        mask[-1, s // 2 :] = 0  # the last sequence is padded
        with torch.no_grad():
            expected = model(ids, mask).numpy()
        got = net(ids.numpy(), mask)
        assert got.shape == expected.shape
        assert float(np.abs(got - expected).max()) <= 1e-4 * float(np.abs(expected).max())


@pytest.mark.long
def test_bert_dynamic_length_attention_in_row_blocks() -> None:
    """A symbolic length up to 512 (issue 37): attention's scores at the longest length
    outgrow L2, so they are computed in blocks of query rows, each block a thread's own
    (the loop IR allocates the scores block on the stack); right at one block, at
    several, and at a partial last one."""
    torch.manual_seed(5)
    config = transformers.BertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=8, intermediate_size=64,
        max_position_embeddings=512,
    )
    from compiler.torch.networks import LastHiddenState

    model = LastHiddenState(transformers.BertModel(config).eval()).eval()
    dynamic = {"inputs": {0: Dim("batch", max=4), 1: Dim("seq", min=2, max=512)}}
    net = from_torch(model, (tokens(2),), dynamic_shapes=dynamic)
    assert 'loop.alloc local "scaled_dot_product_attention_scores"' in net.function.loop_ir
    for b, n in ((1, 5), (2, 130), (1, 300), (1, 512)):
        ids = tokens(b, n)
        with torch.no_grad():
            expected = model(ids).numpy()
        got = net(ids)
        assert float(np.abs(got - expected).max()) <= 1e-4 * float(np.abs(expected).max())


@pytest.mark.long
def test_gpt2_dynamic_batch_and_sequence() -> None:
    """GPT-2 built once, symbolic in batch and length (issue 37): each Conv1D flattens
    (batch, seq) to one axis and back, which infer-bound unflattens to batch x seq rows
    (the build stalled before); right at several sizes."""
    from compiler.torch.networks import hf_transformer

    model, x = hf_transformer("gpt2", small=True, seq=16)
    dynamic = {"inputs": {0: Dim("batch", max=8), 1: Dim("seq", min=2, max=64)}}
    net = from_torch(model, (x.repeat(2, 1),), dynamic_shapes=dynamic)
    for b, n in ((1, 2), (2, 5), (3, 16), (1, 33)):
        ids = tokens(b, n)
        with torch.no_grad():
            expected = model(ids).numpy()
        got = net(ids)
        assert got.shape == expected.shape
        assert float(np.abs(got - expected).max()) <= 1e-4 * float(np.abs(expected).max())


@pytest.mark.long
def test_gpt2_dynamic_sequence() -> None:
    """GPT-2 (causal attention) built once with a symbolic length: the causal reductions'
    loops are cut at the diagonal of a symbolic square, and the memory plan, symbolic in
    seq, verifies (it needed a proof by cases on an empty sequence)."""
    from compiler.torch.networks import hf_transformer

    model, x = hf_transformer("gpt2", small=True, seq=16)
    net = from_torch(model, (x,), dynamic_shapes={"inputs": {1: Dim("seq", min=2, max=64)}})
    for n in (2, 5, 16, 33, 64):
        ids = tokens(1, n)
        with torch.no_grad():
            expected = model(ids).numpy()
        got = net(ids)
        assert got.shape == expected.shape
        assert float(np.abs(got - expected).max()) <= 1e-4 * float(np.abs(expected).max())
