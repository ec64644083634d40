"""The model zoo (`compiler.torch.zoo`) through `compiler.from_torch`, against torch eager
and torch.compile's default backend (inductor), one markdown table.

    .venv/bin/python bench/zoo.py                          # every family at its default config
    .venv/bin/python bench/zoo.py --small --families bert gpt2 --rounds 3
    .venv/bin/python bench/zoo.py --families llama --no-inductor

Models: `transformers` classes from their configs' defaults with random weights (nothing
is downloaded), batch 1 at 128 tokens, 224x224 images, 1 s of waveform or 2 s of mel
frames (`--small`: the tests' configs, 12 tokens, 32-64 px). A default over 500M
parameters runs with fewer layers: the notes under the table say which.

For each family: one `from_torch` build (its seconds: "our compile s"), a warm-up call
of each, then `--rounds` interleaved rounds of one call of ours and one of eager
(`no_grad`), medians; then torch.compile (its first call, the compile, not timed in the
median) for `--rounds` calls. The ratios are the other's time over ours (above 1: ours
is faster). The error column is max |ours - eager| / max |eager| over the outputs. A
family that does not import prints its first error line in place of the times.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as bench/transformers_models.py: a loaded machine
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

import argparse
import math
import warnings
from dataclasses import dataclass

import numpy as np
import torch
from common import (  # bench/, beside this script
    interleaved_medians,
    median_seconds,
    timed,
    timed_result,
)

from compiler.torch import from_torch
from compiler.torch.zoo import FAMILIES, build


@dataclass
class Row:
    name: str
    params: int
    ours_ms: float = math.nan
    eager_ms: float = math.nan
    inductor_ms: float = math.nan
    compile_s: float = math.nan
    error: float = math.nan
    failure: str = ""


def relative_error(got: object, expected: tuple[torch.Tensor, ...]) -> float:
    outs = tuple(got) if isinstance(got, (tuple, list)) else (got,)
    worst = 0.0
    for g, e in zip(outs, expected, strict=True):
        ref = e.numpy().astype(np.float64)
        worst = max(worst, float(np.abs(np.asarray(g, dtype=np.float64) - ref).max() / np.abs(ref).max()))
    return worst


def first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0] if lines else ''}"[:160]


def measure(name: str, *, small: bool, rounds: int, inductor: bool) -> Row:
    case = build(name, small=small)
    model, args = case.module, case.example_args
    row = Row(name, case.params)
    with torch.no_grad():
        expected = model(*args)
        try:
            net, row.compile_s = timed_result(lambda: from_torch(model, args))
            row.error = relative_error(net(*args), expected)
            ours, eager = interleaved_medians(lambda: net(*args), lambda: model(*args), rounds)
            row.ours_ms, row.eager_ms = ours * 1e3, eager * 1e3
        except Exception as err:  # a family that does not import: its error in the table
            row.failure = first_line(err)
            row.eager_ms = median_seconds(lambda: model(*args), rounds) * 1e3
        if inductor:
            torch._dynamo.reset()
            try:
                compiled = torch.compile(model)
                timed(lambda: compiled(*args))  # the compile
                row.inductor_ms = median_seconds(lambda: compiled(*args), rounds) * 1e3
            except Exception as err:
                row.failure += f" (torch.compile: {first_line(err)})"
    return row


def fmt(x: float, spec: str, suffix: str = "") -> str:
    return "-" if math.isnan(x) else format(x, spec) + suffix


def print_row(row: Row) -> None:
    params = f"{row.params / 1e6:.1f}M" if row.params >= 100_000 else f"{row.params / 1e3:.1f}K"
    eager_ratio = row.eager_ms / row.ours_ms
    inductor_ratio = row.inductor_ms / row.ours_ms
    cells = [
        row.name, params, fmt(row.ours_ms, ".2f"), fmt(row.eager_ms, ".2f"), fmt(eager_ratio, ".2f", "x"),
        fmt(row.inductor_ms, ".2f"), fmt(inductor_ratio, ".2f", "x"), fmt(row.compile_s, ".1f"),
        fmt(row.error, ".1e") if not row.failure else row.failure.replace("|", "/"),
    ]
    print("| " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--families", nargs="*", help=f"family names (default: all): {', '.join(FAMILIES)}")
    parser.add_argument("--rounds", type=int, default=5, help="timed calls of each (medians)")
    parser.add_argument("--small", action="store_true", help="the tests' small configs")
    parser.add_argument("--no-inductor", action="store_true", help="skip torch.compile (inductor)")
    parser.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    args = parser.parse_args()
    unknown = [n for n in args.families or () if n not in FAMILIES]
    if unknown:
        parser.error(f"unknown families {', '.join(unknown)}: one of {', '.join(FAMILIES)}")
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    names = args.families or list(FAMILIES)
    print(f"{'small' if args.small else 'default'} configs, batch 1, {args.rounds} rounds, "
          f"{args.threads} threads; ratios: their ms / ours\n")
    print("| model | params | ours ms | eager ms | eager/ours | torch.compile ms | compile/ours | our compile s | max error |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in names:
        print_row(measure(name, small=args.small, rounds=args.rounds, inductor=not args.no_inductor))
    notes = [f"* {n}: {FAMILIES[n].note}" for n in names if FAMILIES[n].note and not args.small]
    if notes:
        print("\n" + "\n".join(notes))


if __name__ == "__main__":
    main()
