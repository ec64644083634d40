"""Attention alone: `compiler.ops.scaled_dot_product_attention` against torch's
`scaled_dot_product_attention`, by sequence length, causal and not.

    .venv/bin/python bench/attention.py                          # lengths 128..2048
    .venv/bin/python bench/attention.py --lengths 128,512 --rounds 9

Batch 1, 12 heads, head size 64, float32, q/k/v of the same length;
`torch.set_num_threads(2)` and our parallel loops on the host's cores. Each
build is auto-scheduled for the host; after a warm-up call (checked against
torch: the error column is max |ours - torch| / max |torch|), `--rounds`
interleaved rounds of one call each; medians. `speed` is torch's time over ours
(above 1: we are faster). Results are also written as JSON
(bench/results/attention-<date>-<host>.json, or --json PATH).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/suite.py: a loaded 2-core machine
# ... but a short spin before sleeping (both runtimes read it: ours and torch's libgomp):
# with none, each of attention's eight parallel loops woke its threads from sleep, which
# cost more than the loop at 128 tokens (0.50 ms a call against 0.17 ms with it)
os.environ.setdefault("GOMP_SPINCOUNT", "20000")

import argparse
import datetime
import json
import socket
from dataclasses import asdict, dataclass

import numpy as np
import torch
from common import interleaved_medians, timed_result  # bench/, beside this script

import compiler
from compiler import ops, te

HERE = os.path.dirname(os.path.abspath(__file__))
HEADS, HEAD_SIZE = 12, 64


@dataclass
class Row:
    length: int
    causal: bool
    compile_s: float
    ours_ms: float
    torch_ms: float
    error: float


def measure(length: int, causal: bool, rounds: int) -> Row:
    shape = (1, HEADS, length, HEAD_SIZE)
    q, k, v = (te.placeholder(shape, name=n) for n in "qkv")
    f, compile_s = timed_result(lambda: compiler.build([q, k, v, ops.scaled_dot_product_attention(q, k, v, is_causal=causal)]))
    tq, tk, tv = (torch.randn(shape) for _ in range(3))
    arrays = [t.numpy() for t in (tq, tk, tv)]
    out = np.empty(shape, np.float32)

    def theirs() -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)

    f(*arrays, out)
    expected = theirs().numpy()
    error = float(np.abs(out - expected).max() / np.abs(expected).max())
    ours_s, torch_s = interleaved_medians(lambda: f(*arrays, out), theirs, rounds)
    return Row(length, causal, compile_s, ours_s * 1e3, torch_s * 1e3, error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="128,256,512,1024,2048", help="comma-separated sequence lengths")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", default="", help="where to write the results (default bench/results/)")
    args = parser.parse_args()
    torch.set_num_threads(2)
    rows: list[Row] = []
    print(f"{'length':>7} {'causal':>7} {'ours ms':>9} {'torch ms':>9} {'speed':>7} {'compile s':>10} {'error':>9}")
    for length in (int(n) for n in args.lengths.split(",")):
        for causal in (False, True):
            r = measure(length, causal, args.rounds)
            rows.append(r)
            print(f"{r.length:7} {r.causal!s:>7} {r.ours_ms:9.2f} {r.torch_ms:9.2f} {r.torch_ms / r.ours_ms:6.2f}x "
                  f"{r.compile_s:10.2f} {r.error:9.1e}", flush=True)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    path = args.json or os.path.join(HERE, "results", f"attention-{stamp}-{socket.gethostname()}.json")
    with open(path, "w") as f:
        json.dump({"threads": 2, "heads": HEADS, "head_size": HEAD_SIZE, "rows": [asdict(r) for r in rows]}, f, indent=1)
    print(f"written {path}")


if __name__ == "__main__":
    main()
