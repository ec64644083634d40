"""The profiler on a whole network: its slowest stages, and what the profiling variant costs.

    .venv/bin/python bench/profile_network.py --model resnet18 --top 15
    .venv/bin/python bench/profile_network.py --model resnet50 --top 15 --overhead --rounds 20
    .venv/bin/python bench/profile_network.py --model resnet18 --trace trace.json

Models: Hugging Face `transformers`' ResNet-18, ResNet-50, MobileNetV2 and
ConvNeXt-tiny built from their configs with random weights (no download:
`compiler.torch.networks.hf_network`), at 1x3x224x224 float32, compiled by
`compiler.from_torch`; torch and the compiler run 2 threads.

`net.profile(x, repeat=R)` prints its table (the `--top` slowest stages). `--overhead`
times the normal function and its profiling variant (`Function.profiling_variant`) in R
interleaved rounds, one call each per round, and prints both medians and their ratio.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/suite.py: a loaded 2-core machine

import argparse
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import interleaved_medians  # bench/, beside this script


def overhead(net: Any, x: Any, rounds: int) -> tuple[float, float]:
    """Median ms of the normal function and of its profiling variant, interleaved."""
    arrays, outputs = net._arguments([x])
    args = [*arrays, *net._params, *outputs]
    plain, variant = net.function, net.function.profiling_variant()
    plain(*args)
    variant(*args)
    a, b = interleaved_medians(lambda: plain(*args), lambda: variant(*args), rounds)
    return a * 1e3, b * 1e3


def main() -> None:
    from compiler.torch.networks import HF_NETWORKS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=HF_NETWORKS, default="resnet18")
    parser.add_argument("--top", type=int, default=15, help="rows of the table (default 15)")
    parser.add_argument("--repeat", type=int, default=10, help="profiled calls (default 10)")
    parser.add_argument("--overhead", action="store_true", help="time the profiling variant against the normal function")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of --overhead (default 20)")
    parser.add_argument("--trace", help="write the profile's chrome trace here")
    args = parser.parse_args()

    import torch

    import compiler
    from compiler.torch.networks import hf_network

    torch.set_num_threads(2)
    compiler.set_num_threads(2)
    x = torch.randn(1, 3, 224, 224)
    start = time.perf_counter()
    net = compiler.from_torch(hf_network(args.model)[0], (x,))
    print(f"{args.model}: compiled in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    prof = net.profile(x, repeat=args.repeat)
    print(f"profile (the variant compiled, {args.repeat} calls) in {time.perf_counter() - start:.1f} s")
    print(prof.table(limit=args.top))
    if args.trace:
        print(f"trace: {prof.save_chrome_trace(args.trace)}")
    if args.overhead:
        plain, variant = overhead(net, x, args.rounds)
        print(
            f"call: normal {plain:.2f} ms, profiling variant {variant:.2f} ms "
            f"({100 * (variant / plain - 1):+.1f}%), {args.rounds} interleaved rounds, medians"
        )


if __name__ == "__main__":
    main()
