"""Hugging Face transformers through `compiler.from_torch`: run time against torch eager
and torch.compile, and one dynamic-length build against static ones.

    .venv/bin/python bench/transformers_models.py                 # the full configs, batch 1
    .venv/bin/python bench/transformers_models.py --small         # the tests' small configs
    .venv/bin/python bench/transformers_models.py --only bert --rounds 5 --inductor
    .venv/bin/python bench/transformers_models.py --dynamic       # BERT-base and GPT-2, symbolic
    .venv/bin/python bench/transformers_models.py --dynamic bert --layers 2 --lengths 16,64

Models (`compiler.torch.networks.hf_transformer`: random weights from a config,
nothing is downloaded): BERT-base at sequence length 128 and 512, GPT-2 small
(12 layers, use_cache=False) at 128, ViT-base at 224x224 and MobileNetV2
(default config, tf_padding) at 224x224. `torch.set_num_threads(2)`; after a
warm-up call each, `--rounds` interleaved rounds of one call of ours and one of
eager (`no_grad`); medians. `--inductor` adds torch.compile's default backend
(timed after them; its first call, the compile, in its own column). The error
column is max |ours - eager| / max |eager|.

`--dynamic [bert gpt2]`: issue 37's table. Each model exported with a symbolic batch
(`Dim("batch", max=16)`) and length (`Dim("seq")`, up to its position table: 512 for
BERT, 1024 for GPT-2; `--positions 2048`: tables of 2048 rows, the same models
otherwise), compiled once, then timed at batch 1 and 4 and lengths 16 to the table's
end against a static build of each (interleaved rounds): the ratio is symbolic time
over static time.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/suite.py: a loaded 2-core machine
# ... but a short spin before sleeping (both runtimes read it: ours and torch's libgomp):
# with none, each of attention's eight parallel loops woke its threads from sleep, which
# cost more than the loop at 128 tokens (0.50 ms a call against 0.17 ms with it)
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

import argparse
from collections.abc import Callable

import numpy as np
import torch
from common import (  # bench/, beside this script
    interleaved_medians,
    median_seconds,
    timed,
    timed_result,
)

from compiler.torch import from_torch
from compiler.torch.networks import hf_transformer

MODELS: dict[str, Callable[[bool], tuple[torch.nn.Module, torch.Tensor]]] = {
    "bert_128": lambda small: hf_transformer("bert", small=small),
    "bert_512": lambda small: hf_transformer("bert", small=small, seq=48 if small else 512),
    "gpt2_128": lambda small: hf_transformer("gpt2", small=small),
    "vit": lambda small: hf_transformer("vit", small=small),
    "mobilenetv2_tf": lambda small: hf_transformer("mobilenetv2_tf", small=small),
}


def relative_error(got: np.ndarray, expected: np.ndarray) -> float:
    return float(np.abs(got.astype(np.float64) - expected).max() / np.abs(expected).max())


def compare(names: list[str], small: bool, rounds: int, inductor: bool) -> None:
    print(f"{'model':15} {'compile s':>10} {'ours ms':>9} {'eager ms':>9} {'vs eager':>9} "
          f"{'compile ms':>11} {'vs compile':>10} {'its compile s':>14} {'error':>9}")
    for name in names:
        model, x = MODELS[name](small)
        net, compile_s = timed_result(lambda model=model, x=x: from_torch(model, (x,)))
        with torch.no_grad():
            error = relative_error(net(x), model(x).numpy())
            ours, eager = interleaved_medians(lambda net=net, x=x: net(x), lambda model=model, x=x: model(x), rounds)
            inductor_ms = inductor_compile_s = float("nan")
            if inductor:
                compiled = torch.compile(model)
                inductor_compile_s = timed(lambda compiled=compiled, x=x: compiled(x))
                inductor_ms = median_seconds(lambda compiled=compiled, x=x: compiled(x), rounds) * 1e3
        print(f"{name:15} {compile_s:10.1f} {ours * 1e3:9.2f} {eager * 1e3:9.2f} {eager / ours:8.2f}x "
              f"{inductor_ms:11.2f} {inductor_ms / (ours * 1e3):9.2f}x {inductor_compile_s:14.1f} {error:9.1e}",
              flush=True)


def dynamic_against_static(small: bool, rounds: int, names: list[str], layers: int | None,
                            lengths: list[int] | None, batches: list[int], positions: int | None) -> None:
    """Issue 37's table: each model built once with a symbolic batch and length, timed
    against a static build of each (batch, length)."""
    for name in names:
        top = positions or (1024 if name == "gpt2" else 512)  # the models' position tables
        lengths_to_top = [n for n in (16, 64, 128, 256, 512, 1024, 2048) if n <= top]
        sizes = lengths or ([16, 24, 32, 48] if small else lengths_to_top)
        model, example = hf_transformer(name, small=small, layers=layers, positions=positions)
        dims = {0: torch.export.Dim("batch", max=16), 1: torch.export.Dim("seq", min=2, max=max(top, *sizes))}
        pair = (example.repeat(2, 1),)  # an example of batch 2: batch 1 would be specialised
        dynamic, seconds = timed_result(
            lambda model=model, pair=pair, dims=dims: from_torch(model, pair, dynamic_shapes={"inputs": dims})
        )
        print(f"\n{name}: symbolic build {seconds:.1f} s (batch 1..16, lengths 2..{dims[1].max})")
        print(f"{'batch':>5} {'length':>7} {'static ms':>10} {'symbolic ms':>12} {'symbolic/static':>16} {'error':>9}")
        for batch in batches:
            for n in sizes:
                x = torch.randint(0, int(model.model.config.vocab_size), (batch, n))
                static = from_torch(model, (x,))
                with torch.no_grad():
                    error = relative_error(dynamic(x), model(x).numpy())
                s, d = interleaved_medians(lambda static=static, x=x: static(x),
                                           lambda dynamic=dynamic, x=x: dynamic(x), rounds)
                print(f"{batch:5} {n:7} {s * 1e3:10.2f} {d * 1e3:12.2f} {d / s:15.2f}x {error:9.1e}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the tests' small configs")
    parser.add_argument("--only", nargs="*", help=f"model names: {', '.join(MODELS)}")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--inductor", action="store_true", help="also torch.compile (inductor)")
    parser.add_argument("--dynamic", nargs="*", metavar="MODEL",
                        help="bert and/or gpt2 symbolic in batch and length against static builds")
    parser.add_argument("--layers", type=int, help="with --dynamic: this many layers")
    parser.add_argument("--lengths", help="with --dynamic: comma-separated lengths")
    parser.add_argument("--positions", type=int,
                        help="with --dynamic: position tables of this many rows (2048: lengths up to 2048)")
    parser.add_argument("--batches", default="1,4", help="with --dynamic: comma-separated batch sizes")
    args = parser.parse_args()
    torch.set_num_threads(2)
    if args.dynamic is not None:
        lengths = [int(n) for n in args.lengths.split(",")] if args.lengths else None
        dynamic_against_static(args.small, args.rounds, args.dynamic or ["bert", "gpt2"], args.layers, lengths,
                               [int(b) for b in args.batches.split(",")], args.positions)
        return
    compare([n for n in MODELS if not args.only or n in args.only], args.small, args.rounds, args.inductor)


if __name__ == "__main__":
    main()
