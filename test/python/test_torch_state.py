"""Programs with state (compiler.torch.state): buffers the module writes held by the
compiled network, written in place, kept across calls; prefill and decode of a LLaMA
model through transformers' static-cache recipe, and `generate` against transformers'."""

from __future__ import annotations

import copy
import types
from typing import Any

import numpy as np
import pytest
import torch

import compiler
from compiler.torch.state import ExportError

transformers = pytest.importorskip("transformers")


class Writes(torch.nn.Module):
    """Every kind of buffer write: index_put at positions, a slice write, copy_ and add_."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("rows", torch.zeros(8, 4))
        self.register_buffer("window", torch.zeros(6, 4))
        self.register_buffer("total", torch.zeros(4))
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.rows[pos] = x
        self.window[1:3] = x[:2] * 2.0
        self.total.copy_(self.total + x.sum(0))
        self.count.add_(x.shape[0])
        return self.rows.sum(0) + self.window.sum(0) * self.total


def _eager_state(m: torch.nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in m.named_buffers()}


def test_buffer_writes_match_eager_and_persist() -> None:
    module = Writes().eval()
    eager = copy.deepcopy(module)
    net = compiler.from_torch(module, (torch.ones(2, 4), torch.tensor([0, 1])))
    assert set(net.state) == {"rows", "window", "total", "count"}
    assert repr(net).endswith(", 0 parameters, 4 state buffers>"), repr(net)
    arrays = dict(net.state)
    rng = np.random.default_rng(0)
    for pos in ([3, 5], [0, 7], [6, 2]):
        x = torch.from_numpy(rng.standard_normal((2, 4)).astype(np.float32))
        p = torch.tensor(pos)
        expected = eager(x, p).detach().numpy()
        got = net(x, p)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
        for name, value in _eager_state(eager).items():
            np.testing.assert_allclose(net.state[name], value, rtol=1e-5, atol=1e-5, err_msg=name)
    for name, array in net.state.items():  # the same arrays, updated in place
        assert array is arrays[name]
    assert int(net.state["count"]) == 6
    net.reset_state()
    for name, array in net.state.items():
        assert not array.any(), name


def test_reset_state_restores_nonzero_initial_values() -> None:
    module = Writes().eval()
    with torch.no_grad():
        module.total.fill_(1.5)
    net = compiler.from_torch(module, (torch.ones(2, 4), torch.tensor([0, 1])))
    net(torch.ones(2, 4), torch.tensor([2, 3]))
    assert not np.allclose(net.state["total"], 1.5)
    net.reset_state()
    np.testing.assert_array_equal(net.state["total"], np.full(4, 1.5, np.float32))
    np.testing.assert_array_equal(net.state["rows"], np.zeros((8, 4), np.float32))


def test_memory_report_lists_state_apart() -> None:
    net = compiler.from_torch(Writes().eval(), (torch.ones(2, 4), torch.tensor([0, 1])))
    memory = net.memory
    assert memory is not None
    state_bytes = sum(a.nbytes for a in net.state.values())
    assert memory.state == state_bytes
    assert f"state (written in place by every call, kept across calls; not in the arena): {state_bytes} bytes" in str(memory)
    stateless = compiler.from_torch(torch.nn.Linear(4, 4).eval(), (torch.ones(2, 4),))
    assert stateless.memory is not None
    assert stateless.memory.state is None
    assert "state" not in str(stateless.memory)


def test_write_outside_the_buffer_is_an_error_naming_it() -> None:
    net = compiler.from_torch(Writes().eval(), (torch.ones(2, 4), torch.tensor([0, 1])))
    net(torch.ones(2, 4), torch.tensor([0, 1]))
    before = {k: v.copy() for k, v in net.state.items()}
    with pytest.raises(compiler.ArgumentValueError, match="state rows: the program writes position 9"):
        net(torch.full((2, 4), 3.0), torch.tensor([1, 9]))
    for name, array in net.state.items():  # no buffer written: all or none
        np.testing.assert_array_equal(array, before[name], err_msg=name)


class HeldElsewhere(torch.nn.Module):
    """A buffer the module also reaches through a cache object (as transformers'
    static-cache recipe), written in place."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("keys", torch.zeros(4, 3))
        self.cache = types.SimpleNamespace(layers=[self.keys])

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.cache.layers[0].index_copy_(0, pos, x)
        return self.keys.sum(0)


@pytest.mark.parametrize("strict", [False, True])
def test_strict_export_asked_for_exports_once(strict: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module that reaches its buffers through another object is exported again
    strictly when the first export shows it; `strict=True` (what CausalLM asks for)
    exports strictly at once. Both give the same state and results."""
    calls: list[bool] = []
    export = torch.export.export

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(bool(kwargs.get("strict")))
        return export(*args, **kwargs)

    monkeypatch.setattr(torch.export, "export", counting)
    net = compiler.from_torch(HeldElsewhere(), (torch.ones(1, 3), torch.tensor([2])), strict=strict)
    assert calls == ([True] if strict else [False, True])
    np.testing.assert_allclose(net(torch.full((1, 3), 2.0), torch.tensor([0])), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(net.state["keys"][:, 0], [2.0, 0.0, 0.0, 0.0])


class Branchy(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # data-dependent control flow: torch.export fails
            return x + 1
        return x - 1


def test_export_failure_names_the_module_and_the_cause() -> None:
    with pytest.raises(ExportError, match=r"torch.export could not export module Branchy: \w+") as info:
        compiler.from_torch(Branchy(), (torch.ones(3),))
    assert isinstance(info.value, compiler.CompilerError)
    assert isinstance(info.value.__cause__, Exception)


# ---------------------------------------------------------------------------
# A LLaMA model through transformers' static-cache recipe
# ---------------------------------------------------------------------------


def _tiny_llama() -> Any:
    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
    )
    return transformers.LlamaForCausalLM(config).eval()


@pytest.fixture(scope="module")
def lm() -> Any:
    from compiler.torch.generate import CausalLM

    return CausalLM(_tiny_llama(), max_cache_len=24)


def test_prefill_and_decode_match_eager(lm: Any) -> None:
    from compiler.torch.generate import static_cache_module

    eager = static_cache_module(_tiny_llama(), 24)
    lm.reset()
    prompt = [5, 17, 3, 40, 2]
    with torch.no_grad():
        expected = eager(input_ids=torch.tensor([prompt]), cache_position=torch.arange(5))[0, -1].numpy()
        np.testing.assert_allclose(lm.step(prompt), expected, rtol=1e-4, atol=1e-5)
        for k, token in enumerate([7, 11, 13]):
            ids, pos = torch.tensor([[token]]), torch.tensor([5 + k])
            expected = eager(input_ids=ids, cache_position=pos)[0, -1].numpy()
            np.testing.assert_allclose(lm.step([token]), expected, rtol=1e-4, atol=1e-5)


def test_decode_writes_only_its_cache_row(lm: Any) -> None:
    lm.reset()
    lm.step([1, 2, 3])
    caches = {k: v for k, v in lm.net.state.items() if "cache" in k}
    assert caches
    before = {k: v.copy() for k, v in caches.items()}
    assert all(np.any(v[:, :, :3]) and not np.any(v[:, :, 3:]) for v in before.values())
    lm.step([4])
    for name, array in lm.net.state.items():
        if name not in caches:
            continue
        assert array is caches[name]  # the state's own memory, written in place
        changed = np.nonzero(np.any(array != before[name], axis=(0, 1, 3)))[0]
        assert changed.tolist() == [3], name
    # no stage of the function holds a whole cache: the updated caches are inlined selects
    memory = lm.net.memory
    assert memory is not None
    cache_bytes = next(iter(caches.values())).nbytes
    names = [b.name for b in memory.buffers if b.name.startswith("index_copy") and not b.name.endswith("_inverse")]
    assert names == [], names
    assert memory.state == sum(a.nbytes for a in lm.net.state.values()) >= 4 * cache_bytes


def test_one_function_one_set_of_parameters(lm: Any) -> None:
    params = lm.net.parameters
    weights = sum(v.nbytes for v in params.values())
    model_bytes = sum(p.numel() * 4 for p in _tiny_llama().parameters())
    assert weights <= model_bytes * 1.05 + 4096  # not two copies (prefill and decode)
    shapes = lm.net.input_shapes
    assert any("seq" in s for s in shapes), shapes


def test_generate_matches_transformers_greedy(lm: Any) -> None:
    model = _tiny_llama()
    prompt = [3, 14, 15, 92, 6, 5]
    with torch.no_grad():
        expected = model.generate(
            torch.tensor([prompt]), max_new_tokens=12, do_sample=False, attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            pad_token_id=0,
        )[0].tolist()
    streamed: list[int] = []
    got = lm.generate(prompt, 12, streamer=streamed.append)
    assert got == expected
    assert streamed == got[len(prompt):]


def test_sampling_is_seeded(lm: Any) -> None:
    prompt = [1, 2, 3]
    a = lm.generate(prompt, 8, do_sample=True, top_k=20, top_p=0.9, temperature=0.8, seed=7)
    b = lm.generate(prompt, 8, do_sample=True, top_k=20, top_p=0.9, temperature=0.8, seed=7)
    assert a == b
    assert len(a) == 11
    assert lm.generate(prompt, 8, do_sample=True, top_k=1, seed=3) == lm.generate(prompt, 8)


def test_sample_filters() -> None:
    from compiler.torch.generate import sample

    logits = np.array([0.0, 5.0, 4.9, -3.0], np.float32)
    rng = np.random.default_rng(0)
    assert sample(logits) == 1
    draws = {sample(logits, do_sample=True, top_k=2, rng=rng) for _ in range(200)}
    assert draws == {1, 2}
    draws = {sample(logits, do_sample=True, top_p=0.3, rng=rng) for _ in range(50)}
    assert draws == {1}


def test_generate_refuses_more_tokens_than_the_cache(lm: Any) -> None:
    with pytest.raises(compiler.ArgumentValueError, match="exceed the cache's 24 positions"):
        lm.generate(list(range(20)), 10)


FAMILIES = {
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM", {}),
    "mistral": ("MistralConfig", "MistralForCausalLM", {}),
    "gemma": ("GemmaConfig", "GemmaForCausalLM", {"head_dim": 8}),
    "phi3": ("Phi3Config", "Phi3ForCausalLM", {"pad_token_id": 0}),
}


@pytest.mark.long  # a minute a family on two cores
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_other_families_generate_as_transformers(family: str) -> None:
    from compiler.torch.generate import CausalLM

    config_class, model_class, extra = FAMILIES[family]
    torch.manual_seed(0)
    config = getattr(transformers, config_class)(
        vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64, **extra,
    )
    model = getattr(transformers, model_class)(config).eval()
    prompt = [3, 14, 15, 9, 6]
    with torch.no_grad():
        expected = model.generate(
            torch.tensor([prompt]), max_new_tokens=8, do_sample=False,
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long), pad_token_id=0,
        )[0].tolist()
    assert CausalLM(model, max_cache_len=24).generate(prompt, 8) == expected


def test_state_is_the_modules_buffer_memory() -> None:
    module = Writes().eval()
    net = compiler.from_torch(module, (torch.ones(2, 4), torch.tensor([0, 1])))
    net(torch.full((2, 4), 2.0), torch.tensor([4, 6]))
    for name, buffer in module.named_buffers():  # one copy of the state: the module's own
        assert np.shares_memory(net.state[name], buffer.numpy()), name
    assert module.rows[4].tolist() == [2.0] * 4
    assert int(module.count) == 2


def test_dynamo_graphs_share_the_modules_buffers() -> None:
    """Each graph torch.compile hands the backend (one per input shape here) compiles
    with the module's buffers as its state: a write by one is seen by the next."""
    module = Writes().eval()
    eager = copy.deepcopy(module)
    compiled = torch.compile(module, backend="xdsl_tc", dynamic=False)
    rng = np.random.default_rng(1)
    for pos in ([3, 5], [0, 7], [2], [6]):
        x = torch.from_numpy(rng.standard_normal((len(pos), 4)).astype(np.float32))
        p = torch.tensor(pos)
        with torch.no_grad():
            expected, got = eager(x, p), compiled(x, p)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-5)
        for name, value in _eager_state(eager).items():
            np.testing.assert_allclose(dict(module.named_buffers())[name].numpy(), value, rtol=1e-5, atol=1e-5)


def test_static_cache_module_leaves_the_models_generation_config() -> None:
    from compiler.torch.generate import static_cache_module

    model = _tiny_llama()
    before = model.generation_config
    wrapped = static_cache_module(model, 24)
    assert model.generation_config is before
    caches = [name for name, _ in wrapped.named_buffers() if name.startswith("key_cache_")]
    assert len(caches) == 2


class Doubled(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("b", torch.zeros(4, 3))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        self.b.index_copy_(0, pos, x)
        return self.b * 2  # an elementwise reader: the fusion schedule inlines the write itself


def test_written_value_is_inlined_once_and_never_a_buffer() -> None:
    module = Doubled().eval()
    eager = copy.deepcopy(module)
    net = compiler.from_torch(module, (torch.ones(2, 3), torch.tensor([0, 1])))
    assert net.graph.inlined.count("index_copy") == 1
    memory = net.memory
    assert memory is not None
    assert "index_copy" not in [b.name for b in memory.buffers]
    for pos in ([1, 2], [3, 0]):
        x = torch.full((2, 3), float(pos[0] + 1))
        np.testing.assert_array_equal(net(x, torch.tensor(pos)), eager(x, torch.tensor(pos)).numpy())
