"""Stream tokens from a small random LLaMA model compiled with its KV cache.

    make generate                    # greedy, then checked against transformers' generate
    python docs/examples/generate_stream.py --sample --top-k 40 --top-p 0.9 --seed 1

The model has random weights (nothing is downloaded) and no tokenizer: the tokens
print as ids, each as soon as the compiled decode step makes it. The prompt runs
in one call (prefill), then one call per token (decode): the same compiled
function, the same weights, one cache (`net.state`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from compiler.torch.generate import CausalLM


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--prompt-length", type=int, default=8)
    parser.add_argument("--tokens", type=int, default=24, help="new tokens to generate")
    parser.add_argument("--max-cache-len", type=int, default=64)
    parser.add_argument("--sample", action="store_true", help="sample (top-k/top-p) instead of greedy")
    parser.add_argument("--top-k", type=int, default=None)
    parser.add_argument("--top-p", type=float, default=None)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(args.seed)
    config = LlamaConfig(
        vocab_size=args.vocab, hidden_size=args.hidden, intermediate_size=args.hidden * 2,
        num_hidden_layers=args.layers, num_attention_heads=4, num_key_value_heads=2,
        max_position_embeddings=args.max_cache_len,
    )
    model = LlamaForCausalLM(config).eval()
    start = time.perf_counter()
    lm = CausalLM(model, max_cache_len=args.max_cache_len)
    print(f"compiled in {time.perf_counter() - start:.1f} s: {lm.net}")
    print(f"memory: {lm.net.memory!r}")
    prompt = np.random.default_rng(args.seed).integers(0, args.vocab, args.prompt_length).tolist()
    print(f"prompt: {' '.join(map(str, prompt))}")
    print("new tokens:", end="", flush=True)
    stamps: list[float] = []

    def stream(token: int) -> None:
        stamps.append(time.perf_counter())
        print(f" {token}", end="", flush=True)

    start = time.perf_counter()
    tokens = lm.generate(
        prompt, args.tokens, do_sample=args.sample, top_k=args.top_k, top_p=args.top_p,
        temperature=args.temperature, seed=args.seed, streamer=stream,
    )
    print()
    first = stamps[0] - start
    per_token = (stamps[-1] - stamps[0]) / max(len(stamps) - 1, 1) * 1e3
    print(f"prefill + first token {first * 1e3:.1f} ms; decode {per_token:.2f} ms/token")
    if not args.sample:
        with torch.no_grad():
            expected = model.generate(
                torch.tensor([prompt]), max_new_tokens=args.tokens, do_sample=False,
                attention_mask=torch.ones(1, len(prompt), dtype=torch.long), pad_token_id=0,
            )[0].tolist()
        same = "yes" if tokens == expected else f"NO (transformers: {expected[len(prompt):]})"
        print(f"same tokens as transformers' generate (greedy): {same}")
        if tokens != expected:
            sys.exit(1)


if __name__ == "__main__":
    main()
