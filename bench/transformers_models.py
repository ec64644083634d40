"""Hugging Face transformers through `compiler.from_torch`: run time against torch eager.

    .venv/bin/python bench/transformers_models.py                 # the full configs, batch 1
    .venv/bin/python bench/transformers_models.py --small         # the tests' small configs
    .venv/bin/python bench/transformers_models.py --only bert --rounds 5 --inductor

Models, random weights from a config (nothing is downloaded): BERT-base at
sequence length 128, GPT-2 small (12 layers, use_cache=False) at 128, ViT-base
at 224x224 and MobileNetV2 (default config, tf_padding) at 224x224.
`torch.set_num_threads(2)`; each round times one call of ours and one of
eager (`no_grad`) after a warm-up call; the table shows medians. `--inductor`
adds torch.compile's default backend (its compile time included in the
compile column). The error column is max |ours - eager| / max |eager|.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
import transformers
from common import median_seconds  # bench/, beside this script

from compiler.torch import from_torch
from compiler.torch.networks import LastHiddenState


def models(small: bool) -> dict[str, tuple[torch.nn.Module, torch.Tensor]]:
    torch.manual_seed(0)
    seq, vocab, image = (12, 96, 32) if small else (128, None, 224)
    layers = {"num_hidden_layers": 2} if small else {}
    bert_cfg = (
        transformers.BertConfig(vocab_size=96, hidden_size=48, num_attention_heads=3, intermediate_size=96, **layers)
        if small
        else transformers.BertConfig()
    )
    gpt_cfg = (
        transformers.GPT2Config(vocab_size=96, n_embd=32, n_layer=2, n_head=4, bos_token_id=0, eos_token_id=0)
        if small
        else transformers.GPT2Config()
    )
    vit_cfg = (
        transformers.ViTConfig(hidden_size=32, num_attention_heads=2, intermediate_size=64, image_size=32, patch_size=8,
                               **layers)
        if small
        else transformers.ViTConfig()
    )
    mnv2_cfg = transformers.MobileNetV2Config(image_size=image, tf_padding=True)
    ids = torch.randint(0, vocab or 30000, (1, seq))
    pixels = torch.randn(1, 3, image, image)
    return {
        "bert": (LastHiddenState(transformers.BertModel(bert_cfg).eval()).eval(), ids),
        "gpt2": (LastHiddenState(transformers.GPT2Model(gpt_cfg).eval(), use_cache=False).eval(), ids),
        "vit": (LastHiddenState(transformers.ViTModel(vit_cfg).eval()).eval(), pixels),
        "mobilenet_v2": (LastHiddenState(transformers.MobileNetV2Model(mnv2_cfg).eval()).eval(), pixels),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the tests' small configs")
    parser.add_argument("--only", nargs="*", help="model names")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--inductor", action="store_true", help="also torch.compile (inductor)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    print(f"{'model':14} {'compile s':>10} {'ours ms':>9} {'eager ms':>9} {'speedup':>8} {'inductor ms':>12} {'error':>9}")
    for name, (model, x) in models(args.small).items():
        if args.only and name not in args.only:
            continue
        start = time.perf_counter()
        net = from_torch(model, (x,))
        compile_s = time.perf_counter() - start
        with torch.no_grad():
            expected = model(x).numpy()
            error = float(np.abs(net(x) - expected).max() / np.abs(expected).max())
            ours = median_seconds(lambda net=net, x=x: net(x), args.rounds)
            eager = median_seconds(lambda model=model, x=x: model(x), args.rounds)
            inductor = float("nan")
            if args.inductor:
                compiled = torch.compile(model)
                inductor = median_seconds(lambda compiled=compiled, x=x: compiled(x), args.rounds)
        print(f"{name:14} {compile_s:10.1f} {ours * 1e3:9.2f} {eager * 1e3:9.2f} {eager / ours:7.2f}x "
              f"{inductor * 1e3:12.2f} {error:9.1e}", flush=True)


if __name__ == "__main__":
    main()
