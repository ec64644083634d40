"""LLM generation on CPU: prefill and decode of a LLaMA-shaped model, ours against eager,
and decode against the memory-bandwidth limit.

    .venv/bin/python bench/llm.py                       # a small LLaMA shape (seconds)
    .venv/bin/python bench/llm.py --tinyllama           # TinyLlama-1.1B's shape (4.4 GB f32)
    .venv/bin/python bench/llm.py --prompt 64 --tokens 16 --rounds 3
    .venv/bin/python bench/llm.py --quant int4          # int4 weights (compiler.quantize)
    .venv/bin/python bench/llm.py --mid --quant int8    # TinyLlama's layer shapes, 4 layers
    .venv/bin/python bench/llm.py --inductor            # also torch.compile on the same recipe
    .venv/bin/python bench/llm.py --quant int8 --torchao  # also torchao's int8 weight-only (a peer)
    .venv/bin/python bench/llm.py --mid --bf16          # the model in bfloat16 (model.to(torch.bfloat16))

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

With `--inductor`, a side runs the recipe module through `torch.compile` (inductor, its
defaults); it compiles its prefill and decode graphs in the warm-up, whose seconds are
printed.

With `--torchao` (and `--quant int8`), two more sides run torchao's int8 weight-only
quantization (`quantize_(model, Int8WeightOnlyConfig())`, per output channel like ours)
of the same float model, eager and through `torch.compile`. torchao 0.18 has no int4
weight-only for float32 on CPU (its int4 layouts need bfloat16 or a GPU library).

With `--quant int8|int4` the linears are quantized (`compiler.quantize`): ours and
eager run the same quantized module (eager dequantizes every weight at every call, in
torch), and a third side, "ours f32", is our build of the float model: the decode
speed-up quantization buys. `--bf16` runs the model in bfloat16 (weights, activations
and cache; ours computes in f32 and rounds each result, as torch's CPU kernels), with
"ours f32" beside it too.

Rounds alternate the sides (a noisy, shared machine slows all alike);
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
MID = Shape(hidden=2048, layers=4, heads=32, kv_heads=4, intermediate=5632, vocab=32000)
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


def torchao_int8(model: torch.nn.Module) -> torch.nn.Module:
    """A copy of `model` with torchao's int8 weight-only linears (a peer of `--quant int8`)."""
    import copy

    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    peer = copy.deepcopy(model)
    quantize_(peer, Int8WeightOnlyConfig())
    return peer


def decode_bytes(lm: CausalLM, shape: Shape, position: int) -> tuple[int, int]:
    """The weights' bytes, and the bytes a decode step at `position` reads: every weight
    but the embedding table (one row of it), and the cache up to the position."""
    weights = sum(int(v.nbytes) for v in lm.net.parameters.values())
    table = lm.net.parameters["model_model_embed_tokens_weight"]
    element = int(table.nbytes) // (shape.vocab * shape.hidden)  # 2 for bfloat16
    embedding = shape.vocab * shape.hidden * element
    head_dim = shape.hidden // shape.heads
    cache_read = 2 * shape.layers * shape.kv_heads * position * head_dim * element
    return weights, weights - embedding + cache_read


class Eager:
    """The recipe module run by torch, stepped like `CausalLM.step` (`inductor`: through
    `torch.compile`)."""

    def __init__(self, model: torch.nn.Module, max_cache_len: int, inductor: bool = False):
        module = static_cache_module(model, max_cache_len)
        self.module: Callable[..., torch.Tensor] = torch.compile(module) if inductor else module
        self.compiled = inductor
        self.position = 0

    def reset(self) -> None:
        self.position = 0  # the recipe rewrites its cache from cache_position on: no reset needed

    def step(self, tokens: list[int]) -> np.ndarray:
        ids = torch.tensor([tokens], dtype=torch.long)
        pos = torch.arange(self.position, self.position + len(tokens))
        with torch.no_grad():
            out = self.module(input_ids=ids, cache_position=pos)
        self.position += len(tokens)
        last: np.ndarray = out[0, -1].float().numpy()
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


@dataclass
class Timings:
    """One side's prefill seconds and median decode seconds a round, every decode step's
    seconds, and whether its greedy tokens matched the first side's in every round (sides
    that run another model, "ours f32" against quantized weights, need not)."""

    prefill: list[float]
    decode: list[float]
    steps: list[float]
    same_tokens: bool = True


def measure(sides: dict[str, CausalLM | Eager], prompt: list[int], tokens: int, rounds: int) -> dict[str, Timings]:
    """Rounds that run every side in turn (a noisy, shared machine slows all alike)."""
    for name, side in sides.items():
        start = time.perf_counter()
        run(side, prompt, 2)  # warm-up (torch.compile compiles here)
        if isinstance(side, Eager) and side.compiled:
            print(f"{name}'s warm-up (its compile): {time.perf_counter() - start:.1f} s")
    timings = {name: Timings([], [], []) for name in sides}
    for _ in range(rounds):
        first: list[int] | None = None
        for name, side in sides.items():
            prefill, steps, out = run(side, prompt, tokens)
            t = timings[name]
            t.prefill.append(prefill)
            t.decode.append(statistics.median(steps))
            t.steps += steps
            first = out if first is None else first
            t.same_tokens = t.same_tokens and out == first
    return timings


def print_table(timings: dict[str, Timings], prompt: int) -> None:
    """ms per side, and each side's time over the first's (the first: ours)."""
    ms, names = 1e3, list(timings)
    ours = timings[names[0]]
    width = [max(12, len(n) + 2) for n in names]
    ratio_width = [max(16, len(n) + len(names[0]) + 3) for n in names]
    header = "".join(f"{n:>{w}}" for n, w in zip(names, width, strict=True))
    header += "".join(f"{n + '/' + names[0]:>{w}}" for n, w in zip(names[1:], ratio_width[1:], strict=True))
    print(f"{'':<32}{header}")
    rows = [
        (f"prefill {prompt} tokens (ms, median)", lambda t: statistics.median(t.prefill)),
        ("prefill (ms, best)", lambda t: min(t.prefill)),
        ("decode (ms/token, median)", lambda t: statistics.median(t.decode)),
        ("decode (ms/token, best)", lambda t: min(t.steps)),
    ]
    for label, of in rows:
        values = "".join(f"{of(timings[n]) * ms:>{w}.2f}" for n, w in zip(names, width, strict=True))
        ratios = "".join(
            f"{of(timings[n]) / of(ours):>{w - 1}.2f}x" for n, w in zip(names[1:], ratio_width[1:], strict=True)
        )
        print(f"{label:<32}{values}{ratios}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tinyllama", action="store_true", help="TinyLlama-1.1B's shape (else a small LLaMA)")
    parser.add_argument("--mid", action="store_true", help="a mid-size LLaMA shape (TinyLlama's layers, 4 of them)")
    parser.add_argument("--quant", choices=("int8", "int4"), help="weight-only quantized linears (compiler.quantize)")
    parser.add_argument("--bf16", action="store_true", help="the model in bfloat16 (weights, activations, cache)")
    parser.add_argument("--prompt", type=int, default=128, help="prefill length")
    parser.add_argument("--tokens", type=int, default=32, help="decode steps per round")
    parser.add_argument("--max-cache-len", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--inductor", action="store_true", help="also torch.compile (inductor) on the recipe")
    parser.add_argument("--torchao", action="store_true", help="also torchao's int8 weight-only (with --quant int8)")
    args = parser.parse_args()
    if args.torchao and args.quant != "int8":
        parser.error("--torchao compares with our int8 weights: add --quant int8")
    if args.bf16 and args.quant:
        parser.error("--bf16 and --quant are two weight formats: choose one")
    if args.prompt + args.tokens + 1 > args.max_cache_len:
        parser.error("--prompt + --tokens must stay below --max-cache-len")

    shape = TINYLLAMA if args.tinyllama else MID if args.mid else SMALL
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (a shared machine: medians move)")
    torch.set_num_threads(args.threads)
    compiler.set_num_threads(args.threads)
    bandwidth = read_bandwidth(args.threads)
    model = model_of(shape, args.max_cache_len)
    module = compiler.quantize(model, args.quant) if args.quant else model
    if args.bf16:
        import copy

        module = copy.deepcopy(model).to(torch.bfloat16)
    start = time.perf_counter()
    lm = CausalLM(module, max_cache_len=args.max_cache_len)
    compile_s = time.perf_counter() - start
    sides: dict[str, CausalLM | Eager] = {"ours": lm, "eager": Eager(module, args.max_cache_len)}
    if args.inductor:
        sides["torch.compile"] = Eager(module, args.max_cache_len, inductor=True)
    if args.torchao:
        peer = torchao_int8(model)
        sides["torchao eager"] = Eager(peer, args.max_cache_len)
        sides["torchao compiled"] = Eager(peer, args.max_cache_len, inductor=True)
    f32: CausalLM | None = None
    if args.quant or args.bf16:  # our float32 build of the same model, for the speed-up the format buys
        sides["ours f32"] = f32 = CausalLM(model, max_cache_len=args.max_cache_len)

    position = args.prompt + args.tokens // 2
    weights, per_token = decode_bytes(lm, shape, position)
    limit = per_token / bandwidth
    limits = {side: limit for side in sides}  # eager and torch.compile read the same module
    if f32 is not None:
        limits["ours f32"] = decode_bytes(f32, shape, position)[1] / bandwidth

    prompt = np.random.default_rng(0).integers(0, shape.vocab, args.prompt).tolist()
    timings = measure(sides, prompt, args.tokens, args.rounds)

    name = "TinyLlama-1.1B shape" if args.tinyllama else "mid-size LLaMA shape" if args.mid else "small LLaMA shape"
    print(
        f"{name}: hidden {shape.hidden}, {shape.layers} layers, {shape.heads} heads ({shape.kv_heads} KV), "
        f"intermediate {shape.intermediate}, vocab {shape.vocab}; {args.quant or ('bf16' if args.bf16 else 'f32')} "
        "weights, batch 1, "
        f"{args.threads} threads; cache {args.max_cache_len} positions"
    )
    print(f"compile (export, import, passes, LLVM): {compile_s:.1f} s {lm.net.stats}")
    print(f"weights {weights / 1e6:.1f} MB; state (KV cache) {lm.net.memory.state if lm.net.memory else 0} bytes")
    print(f"read bandwidth {bandwidth / 1e9:.2f} GB/s; a decode step reads {per_token / 1e6:.1f} MB "
          f"(weights but the embedding, cache to position {position}): limit {limit * 1e3:.2f} ms/token")
    print_table(timings, args.prompt)
    for side, t in timings.items():
        print(f"decode against the bandwidth limit: {side} {statistics.median(t.decode) / limits[side]:.2f}x "
              f"its limit of {limits[side] * 1e3:.2f} ms (1.00x: at the limit)")
    same = timings["eager"].same_tokens
    print(f"greedy tokens identical to eager's on the same weights: {'yes' if same else 'no'}")


if __name__ == "__main__":
    main()
