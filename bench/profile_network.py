"""The profiler on a whole network: its slowest stages, and what the profiling variant costs.

    .venv/bin/python bench/profile_network.py --model resnet18 --top 15
    .venv/bin/python bench/profile_network.py --model resnet50 --top 15 --overhead --rounds 20
    .venv/bin/python bench/profile_network.py --model resnet18 --trace trace.json
    .venv/bin/python bench/profile_network.py --zoo swin --top 20 --torch-profile

`--zoo FAMILY` profiles a family of the model zoo (`compiler.torch.zoo`) at its default
config instead, with its own example inputs; `--torch-profile` prints torch's profiler
table of eager on the same inputs beside ours, and the call times of both.

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


def overhead(net: Any, inputs: tuple[Any, ...], rounds: int) -> tuple[float, float]:
    """Median ms of the normal function and of its profiling variant, interleaved."""
    arrays, outputs = net._arguments(inputs)
    args = [*arrays, *net._params, *net._state, *outputs]
    plain, variant = net.function, net.function.profiling_variant()
    plain(*args)
    variant(*args)
    a, b = interleaved_medians(lambda: plain(*args), lambda: variant(*args), rounds)
    return a * 1e3, b * 1e3


def _model(args: argparse.Namespace) -> tuple[Any, tuple[Any, ...], str]:
    """The module, its example inputs and its name, from --zoo or --model."""
    import torch

    if args.zoo:
        from compiler.torch.zoo import build

        case = build(args.zoo, small=False)
        return case.module, case.example_args, f"{args.zoo} (default config, {case.params / 1e6:.0f}M parameters)"
    from compiler.torch.networks import hf_network

    return hf_network(args.model)[0], (torch.randn(1, 3, 224, 224),), args.model


def eager_table(model: Any, inputs: tuple[Any, ...], net: Any, args: argparse.Namespace) -> None:
    """torch's profiler table of eager on the same inputs, and both call times (medians)."""
    import torch

    with torch.no_grad():
        model(*inputs)
        with torch.profiler.profile() as p:
            for _ in range(args.repeat):
                model(*inputs)
        print(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=args.top))
        ours, eager = interleaved_medians(lambda: net(*inputs), lambda: model(*inputs), args.rounds)
    print(f"call: ours {ours * 1e3:.2f} ms, eager {eager * 1e3:.2f} ms ({eager / ours:.2f}x eager), medians of {args.rounds}")


def main() -> None:
    from compiler.torch.networks import HF_NETWORKS
    from compiler.torch.zoo import FAMILIES

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=HF_NETWORKS, default="resnet18")
    parser.add_argument("--zoo", metavar="FAMILY", choices=FAMILIES, help="a zoo family at its default config instead of --model")
    parser.add_argument("--torch-profile", action="store_true", help="torch's profiler table of eager too")
    parser.add_argument("--top", type=int, default=15, help="rows of the table (default 15)")
    parser.add_argument("--repeat", type=int, default=10, help="profiled calls (default 10)")
    parser.add_argument("--overhead", action="store_true", help="time the profiling variant against the normal function")
    parser.add_argument("--rounds", type=int, default=20, help="rounds of --overhead (default 20)")
    parser.add_argument("--trace", help="write the profile's chrome trace here")
    args = parser.parse_args()

    import torch

    import compiler

    torch.set_num_threads(2)
    compiler.set_num_threads(2)
    model, inputs, name = _model(args)
    start = time.perf_counter()
    with torch.no_grad():
        net = compiler.from_torch(model, inputs)
    print(f"{name}: compiled in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    prof = net.profile(*inputs, repeat=args.repeat)
    print(f"profile (the variant compiled, {args.repeat} calls) in {time.perf_counter() - start:.1f} s")
    print(prof.table(limit=args.top))
    if args.trace:
        print(f"trace: {prof.save_chrome_trace(args.trace)}")
    if args.torch_profile:
        eager_table(model, inputs, net, args)
    if args.overhead:
        plain, variant = overhead(net, inputs, args.rounds)
        print(
            f"call: normal {plain:.2f} ms, profiling variant {variant:.2f} ms "
            f"({100 * (variant / plain - 1):+.1f}%), {args.rounds} interleaved rounds, medians"
        )


if __name__ == "__main__":
    main()
