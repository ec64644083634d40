"""Text generation with a decoder LM compiled with its KV cache: prefill and decode.

```python
lm = CausalLM(model, max_cache_len=256)           # a transformers causal LM (eval mode)
tokens = lm.generate(prompt_ids, max_new_tokens=32)                 # greedy
tokens = lm.generate(prompt_ids, 32, do_sample=True, top_k=50, top_p=0.9, seed=0)
lm.generate(prompt_ids, 32, streamer=lambda t: print(t, end=" ", flush=True))
```

The model is wrapped by transformers' ExecuTorch recipe
(`TorchExportableModuleWithStaticCache`: a static cache whose tensors are
buffers, written with `index_copy_` at `cache_position`) and compiled once by
`from_torch` with the sequence length a symbolic dimension (`seq`, 1 to
`max_cache_len`). The one function is both entry points: prefill runs the
whole prompt in one call (seq = prompt length), decode one token per call
(seq = 1). One set of parameters and one cache (the network's state,
`compiler.torch.state`) serve both; a second, decode-only build would hold
the weights once more unless it shared the arrays, and buy only what a
static seq = 1 saves over the symbolic loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch

from compiler.errors import ArgumentValueError
from compiler.torch.net import TorchFunction, from_torch


def static_cache_module(model: torch.nn.Module, max_cache_len: int, batch_size: int = 1) -> torch.nn.Module:
    """`model` (a transformers causal LM) in transformers' ExecuTorch recipe: a static KV
    cache of `max_cache_len` positions held as buffers, one call per step with
    `cache_position`."""
    from transformers import GenerationConfig
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    config = GenerationConfig(
        use_cache=True,
        cache_implementation="static",
        cache_config={"batch_size": batch_size, "max_cache_len": max_cache_len},
    )
    lm: Any = model  # a transformers PreTrainedModel
    previous = getattr(lm, "generation_config", None)
    lm.generation_config = config  # what the recipe reads, in its constructor only
    try:
        wrapped: torch.nn.Module = TorchExportableModuleWithStaticCache(
            model, batch_size=batch_size, max_cache_len=max_cache_len
        )
    finally:
        lm.generation_config = previous  # the user's model keeps its own
    return wrapped


class CausalLM:
    """A causal LM compiled with its cache; `generate` runs a prompt to new tokens.

    `options` are `from_torch`'s (`auto_schedule`, `fast_math`...). `net` is the
    compiled function: its `state` is the cache, its `memory` report lists it apart
    from the parameters.
    """

    def __init__(self, model: torch.nn.Module, max_cache_len: int, **options: Any):
        from torch.export import Dim

        self.max_cache_len = max_cache_len
        self.module = static_cache_module(model.eval(), max_cache_len)
        seq = Dim("seq", min=1, max=max_cache_len)
        example = (torch.zeros((1, 2), dtype=torch.long), None, torch.arange(2))
        shapes = {"input_ids": {1: seq}, "inputs_embeds": None, "cache_position": {0: seq}}
        with torch.no_grad():
            # strict: the recipe's cache object holds the module's buffers (compiler.torch.state)
            self.net: TorchFunction = from_torch(self.module, example, dynamic_shapes=shapes, strict=True, **options)
        self.position = 0
        """The next free position of the cache (the tokens it holds)."""

    def reset(self) -> None:
        """An empty cache: the next call starts a new sequence."""
        self.net.reset_state()
        self.position = 0

    def step(self, tokens: Sequence[int] | np.ndarray) -> np.ndarray:
        """Run `tokens` (one call: a prompt's prefill, or one token's decode) at the next
        positions of the cache; returns the logits of the last token (float32, [vocab])."""
        ids = np.asarray(tokens, dtype=np.int64).reshape(1, -1)
        n = ids.shape[1]
        if n == 0:
            raise ArgumentValueError("CausalLM.step: no tokens")
        if self.position + n > self.max_cache_len:
            raise ArgumentValueError(
                f"CausalLM.step: {self.position} cached + {n} new tokens exceed the cache's "
                f"{self.max_cache_len} positions (max_cache_len)"
            )
        positions = np.arange(self.position, self.position + n, dtype=np.int64)
        logits = self.net(ids, None, positions)
        self.position += n
        if isinstance(logits, torch.Tensor):  # a bfloat16 model's (NumPy has no bf16)
            logits = logits.float().numpy()
        last: np.ndarray = np.asarray(logits, dtype=np.float32)[0, -1]
        return last

    def generate(
        self,
        prompt: Sequence[int] | np.ndarray,
        max_new_tokens: int,
        *,
        do_sample: bool = False,
        temperature: float = 1.0,
        top_k: int | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        eos_token_id: int | None = None,
        streamer: Callable[[int], None] | None = None,
    ) -> list[int]:
        """The prompt's tokens followed by up to `max_new_tokens` new ones (fewer when
        `eos_token_id` comes). Greedy by default (the most likely token, as transformers'
        `generate(do_sample=False)`); `do_sample=True` draws from the softmax of the
        logits / `temperature`, kept to the `top_k` most likely tokens and to the smallest
        set whose probability reaches `top_p` (a NumPy generator seeded with `seed`).
        `streamer(token)` is called with each new token as it comes. The cache starts
        empty (`reset`)."""
        tokens = [int(t) for t in np.asarray(prompt).reshape(-1)]
        self.reset()
        rng = np.random.default_rng(seed)
        logits = self.step(tokens)
        for k in range(max_new_tokens):
            token = sample(logits, do_sample=do_sample, temperature=temperature, top_k=top_k, top_p=top_p, rng=rng)
            tokens.append(token)
            if streamer is not None:
                streamer(token)
            if token == eos_token_id or k == max_new_tokens - 1:
                break
            logits = self.step([token])
        return tokens


def sample(
    logits: np.ndarray,
    *,
    do_sample: bool = False,
    temperature: float = 1.0,
    top_k: int | None = None,
    top_p: float | None = None,
    rng: np.random.Generator | None = None,
) -> int:
    """The next token from a row of logits: the argmax (greedy), or a draw (see `generate`)."""
    if not do_sample:
        return int(np.argmax(logits))
    if temperature <= 0:
        raise ArgumentValueError(f"sample: temperature must be > 0, got {temperature}")
    scores = logits.astype(np.float64) / temperature
    if top_k is not None and 0 < top_k < scores.size:
        kth = np.partition(scores, -top_k)[-top_k]
        scores = np.where(scores < kth, -np.inf, scores)
    probs = np.exp(scores - scores.max())
    probs /= probs.sum()
    if top_p is not None and top_p < 1.0:
        order = np.argsort(-probs, kind="stable")
        cumulative = np.cumsum(probs[order])
        keep = cumulative - probs[order] < top_p  # the smallest prefix reaching top_p
        mask = np.zeros_like(probs, dtype=bool)
        mask[order[keep]] = True
        probs = np.where(mask, probs, 0.0)
        probs /= probs.sum()
    generator = rng if rng is not None else np.random.default_rng()
    return int(generator.choice(probs.size, p=probs))


__all__ = ["CausalLM", "sample", "static_cache_module"]
