"""LLM generation on CPU: prefill and decode of a LLaMA-shaped model, ours against eager,
and decode against the memory-bandwidth limit.

    .venv/bin/python bench/llm.py                       # a small LLaMA shape (seconds)
    .venv/bin/python bench/llm.py --tinyllama           # TinyLlama-1.1B's shape (4.4 GB f32)
    .venv/bin/python bench/llm.py --prompt 64 --tokens 16 --rounds 3

The model has random weights from a config (nothing is downloaded), float32,
batch 1. Both sides run transformers' ExecuTorch recipe
(`TorchExportableModuleWithStaticCache`: a static KV cache of `--max-cache-len`
positions): eager calls the wrapped module (`no_grad`), ours the one function
`compiler.torch.generate.CausalLM` compiles for prefill and decode (symbolic
sequence length, the cache as the network's state).

* prefill: one call on a `--prompt`-token prompt, from an empty cache (ms);
* decode: `--tokens` one-token calls after that prompt (median ms/token);
* bandwidth: the host's read bandwidth, measured as torch's sum over a 512 MB
  float32 array on `--threads` threads (best of 5); the limit is the bytes a
  decode step must read (every weight but the embedding table, of which it reads
  one row; plus the cache up to the position) over that bandwidth.

Rounds alternate ours and eager (a noisy, shared machine slows both alike);
medians over `--rounds` rounds. `torch.set_num_threads(--threads)` and
`compiler.set_num_threads(--threads)`.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as bench/transformers_models.py
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import compiler
from compiler.torch.generate import CausalLM, static_cache_module


@dataclass(frozen=True)
class Shape:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int


SMALL = Shape(hidden=512, layers=4, heads=8, kv_heads=2, intermediate=1408, vocab=8192)
TINYLLAMA = Shape(hidden=2048, layers=22, heads=32, kv_heads=4, intermediate=5632, vocab=32000)


def read_bandwidth(threads: int, megabytes: int = 512) -> float:
    """Bytes per second torch's sum reads from a `megabytes` float32 array (best of 5)."""
    torch.set_num_threads(threads)
    x = torch.ones(megabytes * 2**20 // 4, dtype=torch.float32)
    x.sum()
    best = min(_seconds(lambda: x.sum()) for _ in range(5))
    return x.numel() * 4 / best


def _seconds(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def model_of(shape: Shape, max_cache_len: int) -> torch.nn.Module:
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=shape.vocab, hidden_size=shape.hidden, intermediate_size=shape.intermediate,
        num_hidden_layers=shape.layers, num_attention_heads=shape.heads, num_key_value_heads=shape.kv_heads,
        max_position_embeddings=max_cache_len,
    )
    model: torch.nn.Module = LlamaForCausalLM(config).eval()
    return model


class Eager:
    """The recipe module run by torch, stepped like `CausalLM.step`."""

    def __init__(self, model: torch.nn.Module, max_cache_len: int):
        self.module = static_cache_module(model, max_cache_len)
        self.position = 0

    def reset(self) -> None:
        self.position = 0  # the recipe rewrites its cache from cache_position on: no reset needed

    def step(self, tokens: list[int]) -> np.ndarray:
        ids = torch.tensor([tokens], dtype=torch.long)
        pos = torch.arange(self.position, self.position + len(tokens))
        with torch.no_grad():
            out = self.module(input_ids=ids, cache_position=pos)
        self.position += len(tokens)
        last: np.ndarray = out[0, -1].numpy()
        return last


def run(side: CausalLM | Eager, prompt: list[int], tokens: int) -> tuple[float, list[float], list[int]]:
    """Prefill seconds, the seconds of each decode step, and the greedy tokens."""
    side.reset()
    start = time.perf_counter()
    logits = side.step(prompt)
    prefill = time.perf_counter() - start
    steps, out = [], []
    for _ in range(tokens):
        token = int(np.argmax(logits))
        out.append(token)
        start = time.perf_counter()
        logits = side.step([token])
        steps.append(time.perf_counter() - start)
    return prefill, steps, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tinyllama", action="store_true", help="TinyLlama-1.1B's shape (else a small LLaMA)")
    parser.add_argument("--prompt", type=int, default=128, help="prefill length")
    parser.add_argument("--tokens", type=int, default=32, help="decode steps per round")
    parser.add_argument("--max-cache-len", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.prompt + args.tokens + 1 > args.max_cache_len:
        parser.error("--prompt + --tokens must stay below --max-cache-len")

    shape = TINYLLAMA if args.tinyllama else SMALL
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (a shared machine: medians move)")
    torch.set_num_threads(args.threads)
    compiler.set_num_threads(args.threads)
    bandwidth = read_bandwidth(args.threads)
    model = model_of(shape, args.max_cache_len)
    start = time.perf_counter()
    lm = CausalLM(model, max_cache_len=args.max_cache_len)
    compile_s = time.perf_counter() - start
    eager = Eager(model, args.max_cache_len)

    params = lm.net.parameters
    weights = sum(int(v.nbytes) for v in params.values())
    embedding = shape.vocab * shape.hidden * 4
    head_dim = shape.hidden // shape.heads
    position = args.prompt + args.tokens // 2
    cache_read = 2 * shape.layers * shape.kv_heads * position * head_dim * 4
    per_token = weights - embedding + cache_read
    limit = per_token / bandwidth

    prompt = np.random.default_rng(0).integers(0, shape.vocab, args.prompt).tolist()
    run(lm, prompt, 2)  # warm-up
    run(eager, prompt, 2)
    ours_prefill, eager_prefill, ours_decode, eager_decode = [], [], [], []
    ours_steps: list[float] = []
    eager_steps: list[float] = []
    same = True
    for _ in range(args.rounds):
        p, steps, a = run(lm, prompt, args.tokens)
        ours_prefill.append(p)
        ours_decode.append(statistics.median(steps))
        ours_steps += steps
        p, steps, b = run(eager, prompt, args.tokens)
        eager_prefill.append(p)
        eager_decode.append(statistics.median(steps))
        eager_steps += steps
        same = same and a == b

    ms = 1e3
    op, ep = statistics.median(ours_prefill) * ms, statistics.median(eager_prefill) * ms
    od, ed = statistics.median(ours_decode) * ms, statistics.median(eager_decode) * ms
    name = "TinyLlama-1.1B shape" if args.tinyllama else "small LLaMA shape"
    print(
        f"{name}: hidden {shape.hidden}, {shape.layers} layers, {shape.heads} heads ({shape.kv_heads} KV), "
        f"intermediate {shape.intermediate}, vocab {shape.vocab}; f32, batch 1, {args.threads} threads; "
        f"cache {args.max_cache_len} positions"
    )
    print(f"compile (export, import, passes, LLVM): {compile_s:.1f} s {lm.net.stats}")
    print(f"weights {weights / 1e6:.1f} MB; state (KV cache) {lm.net.memory.state if lm.net.memory else 0} bytes")
    print(f"read bandwidth {bandwidth / 1e9:.2f} GB/s; a decode step reads {per_token / 1e6:.1f} MB "
          f"(weights but the embedding, cache to position {position}): limit {limit * ms:.2f} ms/token")
    print(f"{'':<32}{'ours':>10}{'eager':>10}{'eager/ours':>12}")
    print(f"{'prefill ' + str(args.prompt) + ' tokens (ms, median)':<32}{op:>10.2f}{ep:>10.2f}{ep / op:>11.2f}x")
    bo, be = min(ours_prefill) * ms, min(eager_prefill) * ms
    print(f"{'prefill (ms, best)':<32}{bo:>10.2f}{be:>10.2f}{be / bo:>11.2f}x")
    print(f"{'decode (ms/token, median)':<32}{od:>10.2f}{ed:>10.2f}{ed / od:>11.2f}x")
    bo, be = min(ours_steps) * ms, min(eager_steps) * ms
    print(f"{'decode (ms/token, best)':<32}{bo:>10.2f}{be:>10.2f}{be / bo:>11.2f}x")
    print(f"decode against the bandwidth limit: ours {od / (limit * ms):.2f}x, eager {ed / (limit * ms):.2f}x "
          "the limit (1.00x: at the limit)")
    print(f"greedy tokens identical to eager's: {'yes' if same else 'no'}")


if __name__ == "__main__":
    main()
