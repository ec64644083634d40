"""Core ATen coverage of `from_torch`: torch's OpInfo samples, one op a module, against eager.

    .venv/bin/python bench/core_aten_coverage.py [--limit N] [--ops sin,add] [--json out.json]
    .venv/bin/python bench/core_aten_coverage.py --dtype bfloat16 --limit 1   # bf16 samples

Runs every OpInfo op (`op_db`) whose float32 samples export (int64 or bool samples for
an op without float32 ones), then, for the Core ATen overloads no public op reaches,
OpInfo samples through a direct call of the overload (`torch_opinfo.DIRECT`, all their
samples), counts per Core ATen overload the samples that reached it and whether all
passed, and prints the coverage table: overloads passing all their samples, failing (with the first
failure), and not reached by any sample. `--dtype bfloat16` (or float16) runs the samples
of that dtype instead, of the ops whose CPU kernels take it (the rest count as not
reached). Needs `expecttest` (the test extra has it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "python"))

import torch
from torch_opinfo import (
    DIRECT,
    Coverage,
    core_aten_overloads,
    is_random,
    opinfo_id,
    opinfos,
    run_direct,
    run_op,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=None, help="samples per op (default: all)")
    parser.add_argument("--ops", default="", help="comma-separated OpInfo names (default: all)")
    parser.add_argument("--json", default="", help="write the per-op outcomes here")
    parser.add_argument("--dtype", choices=("float32", "float16", "bfloat16"), default=None,
                        help="the samples' dtype (default: float32, else int64 or bool for an op without)")
    args = parser.parse_args()
    dtype = getattr(torch, args.dtype) if args.dtype else None
    torch.set_num_threads(1)
    wanted = set(args.ops.split(",")) if args.ops else None
    core = set(core_aten_overloads())
    coverage = Coverage()
    per_op: dict[str, list[dict[str, object]]] = {}
    start = time.perf_counter()
    infos = {opinfo_id(info): info for info in opinfos()}
    runs = [(name, lambda info=info: run_op(info, dtype, args.limit)) for name, info in infos.items()
            if not is_random(info)]
    runs += [(f"{label} (direct)", lambda label=label: run_direct(label, infos, dtype=dtype)) for label in DIRECT]
    for name, run in runs:
        if wanted is not None and name not in wanted:
            continue
        outcomes = run()
        for o in outcomes:
            coverage.add(o, core)
        per_op[name] = [{"sample": o.sample, "passed": o.passed, "aten": sorted(o.aten), "reason": o.reason}
                        for o in outcomes]
        passed = sum(o.passed for o in outcomes)
        print(f"{name:40s} {passed}/{len(outcomes)}", flush=True)
    print(f"\n{len(per_op)} OpInfo ops ({args.dtype or 'float32'} samples) in {time.perf_counter() - start:.0f} s\n")
    passing, failing = coverage.passing(), sorted(coverage.failed)
    unreached = sorted(core - set(coverage.reached))
    print(f"Core ATen overloads: {len(core)}; reached {len(coverage.reached)}; all samples pass {len(passing)} "
          f"({100 * len(passing) / len(core):.1f}% of all)\n")
    print("| overload | samples | first failure |\n|---|---:|---|")
    for op in failing:
        print(f"| {op} | {coverage.reached[op]} | {coverage.failed[op]} |")
    print("\nnot reached by any sample: " + ", ".join(unreached))
    if args.json:
        Path(args.json).write_text(json.dumps({"per_op": per_op, "passing": passing, "failed": coverage.failed,
                                               "unreached": unreached}, indent=1))


if __name__ == "__main__":
    main()
