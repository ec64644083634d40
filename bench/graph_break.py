"""The cost of a graph break through `torch.compile(backend="xdsl_tc")`, against eager and
Inductor in the same run (issue 35: a break should cost at most eager + 50 us).

    .venv/bin/python bench/graph_break.py [--batch 8] [--width 64] [--calls 2000] [--rounds 5]

The module is Linear, tanh, a data-dependent branch (the break), Linear, relu: two
small graphs with Python between them. Each contender's time per call is the median of
`--rounds` rounds of `--calls` calls. The compiled code uses the threads the compiler
uses (COMPILER_NUM_THREADS); torch runs on one thread.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import torch


class Branchy(torch.nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.a, self.b = torch.nn.Linear(width, width), torch.nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.tanh(self.a(x))
        if y.sum() > 0:  # a graph break: the branch depends on the data
            y = y * 2
        return torch.relu(self.b(y)) + y


def per_call_us(f: Callable[[], object], calls: int, rounds: int) -> float:
    with torch.no_grad():
        for _ in range(50):
            f()
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _ in range(calls):
                f()
            times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    module = Branchy(args.width).eval()
    x = torch.randn(args.batch, args.width)
    contenders = {"eager": module, "xdsl_tc": torch.compile(module, backend="xdsl_tc"),
                  "inductor": torch.compile(module)}
    times = {name: per_call_us(lambda m=m: m(x), args.calls, args.rounds) for name, m in contenders.items()}
    for name, us in times.items():
        print(f"{name:10s} {us:8.1f} us a call  ({us - times['eager']:+.1f} us against eager)")


if __name__ == "__main__":
    main()
