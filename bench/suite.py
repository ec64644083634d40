"""The benchmark suite: this project next to PyTorch, Apache TVM and NumPy, in one run.

    .venv/bin/python bench/run.py            # make bench runs this (then bench/memory.py)
    .venv/bin/python bench/run.py --quick    # 3 rounds, smaller workloads (a minute or two)
    .venv/bin/python bench/run.py --only matmul512,maxpool --rounds 9 --json out.json

For every workload, the contenders are this project without a schedule
(`ours none`), this project with the best hand schedule the primitives allow
(`ours best`, one small function per workload below, with a comment saying
what it does), PyTorch with 2 threads and with 1 thread
(`torch.set_num_threads`), Apache TVM 0.27 without a schedule
(`te.create_prim_func` + `tvm.compile` for the host CPU, bench/tvm_peer.py)
and NumPy (one OpenBLAS thread, see below). A peer whose import fails shows
`n/a`.

Method: every contender's output is checked once against the reference
(PyTorch with 2 threads, NumPy without PyTorch) before anything is timed.
Then R interleaved rounds run every contender in turn (ours none, ours best,
each peer), each a few calls (as many as fit in about 0.1 s, at least one);
a contender's time in a round is the mean of its calls. The table shows the
median over the rounds and its spread, IQR / median; a row whose spread is
above 25% is marked `~` and should not be trusted. GFLOP/s counts 2 x MACs
for convolutions and matmuls (bias, activations and pools not counted), one
operation per window element for the max pool and one per operator and
element for the elementwise chain. `x torch2` (`x torch1`) is the time over
PyTorch's time with 2 threads (1 thread): above 1 is slower than PyTorch. The
bytes columns are the intermediate memory of our plan
(`compiler.build(...).memory`: the arena storage-rewrite plans) next to the
liveness lower bound (the most bytes live at one statement; in-place writes
can go below it), and for TVM its allocation after StorageRewrite. Compile
time is not measured here (bench/compile_time.py).

Threads: unless they are set already, OMP_WAIT_POLICY=PASSIVE (a spinning
OpenMP runtime makes PyTorch's 2-thread calls 20x slower on a loaded 2-core
machine) and OPENBLAS_NUM_THREADS=1 (NumPy as a single-thread baseline, like
our schedules, which are serial: see `parallel` below).

The table is also written as JSON (bench/results/<date>-<host>.json, or
--json PATH) so that runs can be compared.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import socket
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# Thread pools on a shared, oversubscribed machine: an OpenMP runtime that spins while
# waiting (libgomp's default, PyTorch's runtime) and a multi-threaded OpenBLAS make every
# 2-thread call wait for a descheduled thread (measured at load 7 on 2 cores: PyTorch's
# 3x3 conv at 1x64x28x28 took 64 ms with 2 threads, 3 ms with 1 or with passive waits;
# NumPy's 256^3 matmul 3-30 ms with 2 BLAS threads, 1 ms with 1). Unless they are set
# already: passive OpenMP waits, and NumPy on one BLAS thread.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


from common import timed, timed_result
from workloads import (  # noqa: F401  (bench/compile_time.py imports resnet_block and seed001 from here)
    WORKLOADS,
    Workload,
    resnet_block,
    seed001,
)

import compiler

HERE = os.path.dirname(os.path.abspath(__file__))

SPREAD_LIMIT = 0.25  # a spread (IQR / median) above this marks a row as untrusted

# ---------------------------------------------------------------------------
# Optional peers
# ---------------------------------------------------------------------------


def _import_torch() -> Any:
    try:
        import torch
    except Exception as e:  # any import failure makes the peer n/a
        return f"n/a ({type(e).__name__}: {e})"
    torch.set_grad_enabled(False)
    global _DEFAULT_TORCH_THREADS
    _DEFAULT_TORCH_THREADS = torch.get_num_threads()
    return torch


# PyTorch's libgomp is the one our JIT code calls (the same soname, loaded first), and
# torch.set_num_threads sets that runtime's thread count for the calling thread: after
# `torch 1t` ran, our parallel loops ran on one thread too (every `ours` figure of the
# earlier runs after the first round). Contenders without a thread count get the
# default back before they run.
_DEFAULT_TORCH_THREADS = 1


def _set_threads(c: Contender, torch: Any) -> None:
    if not isinstance(torch, str):
        torch.set_num_threads(c.threads if c.threads is not None else _DEFAULT_TORCH_THREADS)


def _import_tvm() -> Any:
    try:
        import tvm  # noqa: F401
        import tvm_peer
    except Exception as e:
        return f"n/a ({type(e).__name__}: {e})"
    return tvm_peer


# ---------------------------------------------------------------------------
# Contenders
# ---------------------------------------------------------------------------


@dataclass
class Contender:
    name: str
    run: Callable[[], Any] | None  # None: not available (see status)
    output: Callable[[], np.ndarray] | None = None  # the result of the last run
    status: str = ""
    threads: int | None = None  # torch's intra-op threads while it runs
    memory: dict[str, Any] | None = None
    rounds: list[float] = field(default_factory=list)
    calls: int = 1
    max_abs_error: float | None = None
    first_seconds: float = 0.0  # the verification call


def _evaluate_bytes(expr: str, env: dict[str, int]) -> int | None:
    from compiler.arith.expr import evaluate
    from compiler.arith.parse import parse_expr

    try:
        return int(evaluate(parse_expr(expr), env))
    except Exception:  # an expression we can't evaluate is shown as unknown
        return None


def memory_of(fn: compiler.Function, env: dict[str, int]) -> dict[str, Any]:
    """Intermediate bytes of our plan (the arena) and the liveness lower bound."""
    plan = fn.memory
    if plan is None:
        return {"arena": 0, "lower_bound": 0, "buffers": 0}
    arena = _evaluate_bytes(plan.arena, env)
    bound = plan.lower_bound
    if bound is None:  # symbolic sizes: the most bytes live at one statement, at this run's sizes
        sizes = [(b, _evaluate_bytes(b.size, env)) for b in plan.buffers]
        if all(sz is not None for _, sz in sizes):
            end = max(b.last for b, _ in sizes)
            bound = max(sum(sz or 0 for b, sz in sizes if b.first <= k <= b.last) for k in range(end + 1))
    return {
        "arena": arena,
        "lower_bound": bound,
        "buffers": len(plan.buffers),
        "arena_expr": plan.arena,
        "stack_per_thread": sum(plan.stack.values()),  # packed panels, register tiles
    }


def ours(w: Workload, variant: str, tuning_log: str | None = None) -> Contender:
    """`none`: build() without a schedule (the auto-scheduler), `off`: without a schedule
    and without the auto-scheduler (TVM's default), `tuned`: the tuning log's schedule,
    `best`: the hand schedule."""
    name = f"ours {variant}"
    try:
        if variant == "none":
            fn = compiler.build(w.args, name=w.key, tuning_log=os.devnull)
        elif variant == "off":
            fn = compiler.build(w.args, name=w.key, auto_schedule=False)
        elif variant == "tuned":
            if tuning_log is None:
                return Contender(name, None, status="n/a (no --tuning-log)")
            fn = compiler.build(w.args, name=w.key, tuning_log=tuning_log)
        else:
            fn = compiler.build(w.best(), w.args, name=w.key)
    except Exception as e:  # reported in the table, the run goes on
        return Contender(name, None, status=f"FAILED to compile: {type(e).__name__}: {_first_line(e)}")
    out = np.zeros(w.out_shape, np.float32)
    arrays = [*w.inputs, out]
    return Contender(name, lambda: fn(*arrays), lambda: out, memory=memory_of(fn, w.env))


def torch_contender(w: Workload, torch: Any, threads: int) -> Contender:
    name = f"torch {threads}t"
    if isinstance(torch, str):
        return Contender(name, None, status=torch)
    try:
        run = w.torch(torch)
    except Exception as e:
        return Contender(name, None, status=f"FAILED: {type(e).__name__}: {_first_line(e)}")
    last: list[Any] = [None]

    def call() -> Any:
        last[0] = run()
        return last[0]

    return Contender(name, call, lambda: np.asarray(last[0].numpy()), threads=threads)


def tvm_contender(w: Workload, tvm_peer: Any) -> Contender:
    name = "TVM none"
    if isinstance(tvm_peer, str):
        return Contender(name, None, status=tvm_peer)
    try:
        import tvm

        program = w.tvm(tvm_peer)
        fn = tvm_peer.compile_program(program)
        arrays = [tvm.runtime.tensor(a) for a in w.inputs]
        out = tvm.runtime.empty(w.out_shape, "float32")
        memory = None
        if w.tvm_bytes:
            memory = {"arena": tvm_peer.allocated_bytes(w.tvm(tvm_peer)), "lower_bound": None}
    except Exception as e:
        return Contender(name, None, status=f"FAILED: {type(e).__name__}: {_first_line(e)}")
    return Contender(name, lambda: fn(*arrays, out), lambda: out.numpy(), memory=memory)


def numpy_contender(w: Workload) -> Contender:
    run = w.numpy()
    last: list[np.ndarray | None] = [None]

    def call() -> np.ndarray:
        last[0] = run()
        return last[0]

    return Contender("NumPy", call, lambda: np.asarray(last[0]))


def tune_workload(w: Workload, args: argparse.Namespace) -> float:
    """Tunes `w` into the tuning log; the seconds it took."""
    result, seconds = timed_result(lambda: compiler.tune(w.args, trials=args.tune_trials, timeout=args.tune_seconds,
                                                         log=args.tuning_log, sizes=w.env, name=w.key))
    print(f"  tuned {w.key}: {result.trials} trials in {seconds:.0f} s, auto {result.baseline_ms} ms -> {result.best_ms} ms")
    return seconds


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:300] if text else ""


# ---------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------


def _call(c: Contender, torch: Any) -> None:
    _set_threads(c, torch)
    assert c.run is not None
    c.run()


def verify(contenders: list[Contender], torch: Any) -> None:
    """Run every contender once and compare its output with the reference (PyTorch with
    2 threads, or NumPy without PyTorch)."""
    reference: np.ndarray | None = None
    for c in contenders:
        if c.run is None:
            continue
        try:
            c.first_seconds = timed(lambda c=c: _call(c, torch))
            assert c.output is not None
            result = np.asarray(c.output(), dtype=np.float32)
        except Exception as e:
            c.status = f"FAILED to run: {type(e).__name__}: {_first_line(e)}"
            c.run = None
            continue
        if c.name in ("torch 2t", "NumPy") and reference is None:
            reference = result
        c.max_abs_error = None if reference is None else _error(result, reference)
    if reference is None:
        return
    scale = float(np.max(np.abs(reference))) or 1.0
    for c in contenders:
        if c.run is None:
            continue
        if c.max_abs_error is None:  # ran before the reference existed
            assert c.output is not None
            c.max_abs_error = _error(np.asarray(c.output(), dtype=np.float32), reference)
        if not np.isfinite(c.max_abs_error) or c.max_abs_error > 1e-3 * scale + 1e-5:
            c.status = f"MISMATCH (max |error| {c.max_abs_error:.3g}, max |ref| {scale:.3g})"
        else:
            c.status = "ok"


def _error(result: np.ndarray, reference: np.ndarray) -> float:
    if result.shape != reference.shape:
        return float("inf")
    return float(np.max(np.abs(result - reference)))


def measure(contenders: list[Contender], torch: Any, rounds: int, round_seconds: float) -> None:
    """Interleaved rounds: each round runs every contender in turn, a few calls each."""
    live = [c for c in contenders if c.run is not None]
    for c in live:  # how many calls fit in round_seconds
        if c.first_seconds > 2 * round_seconds:
            continue  # slow: one call a round (its first call was warm-up enough)
        once = timed(lambda c=c: _call(c, torch))
        c.calls = max(1, min(50, int(round_seconds / max(once, 1e-6))))
    for _ in range(rounds):
        for c in live:
            _set_threads(c, torch)
            assert c.run is not None
            start = time.perf_counter()
            for _ in range(c.calls):
                c.run()
            c.rounds.append((time.perf_counter() - start) / c.calls)


def stats(samples: list[float]) -> dict[str, float]:
    med = statistics.median(samples)
    if len(samples) >= 2:
        q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    else:
        q1 = q3 = med
    return {
        "median_ms": med * 1e3,
        "min_ms": min(samples) * 1e3,
        "max_ms": max(samples) * 1e3,
        "iqr_over_median": (q3 - q1) / med if med else 0.0,
        "range_over_median": (max(samples) - min(samples)) / med if med else 0.0,
    }


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _fmt_bytes(v: int | None) -> str:
    if v is None:
        return "?"
    return f"{v / 1024:,.0f}K" if v >= 1024 else f"{v}"


def _bytes_cell(r: dict[str, Any]) -> str:
    if "intermediate_bytes" not in r:
        return ""
    if "liveness_lower_bound" in r:  # ours: the plan / the liveness lower bound (+ per-thread stack)
        stack = r.get("stack_bytes_per_thread") or 0
        extra = f" +{_fmt_bytes(stack)}/thr" if stack >= 1024 else ""
        return f"{_fmt_bytes(r['intermediate_bytes'])} / {_fmt_bytes(r['liveness_lower_bound'])}{extra}"
    return _fmt_bytes(r["intermediate_bytes"])  # TVM's allocation


def workload_rows(w: Workload, contenders: list[Contender]) -> list[dict[str, Any]]:
    medians = {c.name: statistics.median(c.rounds) for c in contenders if c.rounds}
    t2, t1 = medians.get("torch 2t"), medians.get("torch 1t")
    rows = []
    for c in contenders:
        row: dict[str, Any] = {"contender": c.name, "status": c.status, "calls_per_round": c.calls}
        if c.rounds:
            s = stats(c.rounds)
            row.update(s)
            row["rounds_ms"] = [r * 1e3 for r in c.rounds]
            row["gflops"] = w.flops / (s["median_ms"] / 1e3) / 1e9
            row["ratio_to_torch2"] = s["median_ms"] / 1e3 / t2 if t2 else None
            row["ratio_to_torch1"] = s["median_ms"] / 1e3 / t1 if t1 else None
            row["untrusted"] = s["iqr_over_median"] > SPREAD_LIMIT
        if c.memory is not None:
            row["intermediate_bytes"] = c.memory.get("arena")
            row["stack_bytes_per_thread"] = c.memory.get("stack_per_thread", 0)
            if c.name.startswith("ours"):
                row["liveness_lower_bound"] = c.memory.get("lower_bound")
        if c.max_abs_error is not None:
            row["max_abs_error"] = c.max_abs_error
        rows.append(row)
    return rows


HEADER = (f"  {'contender':<10} {'ms':>10} {'spread':>7} {'GFLOP/s':>8} {'x torch2':>9} {'x torch1':>9}"
          f" {'bytes (plan / LB)':>19}  check")


def print_workload(w: Workload, rows: list[dict[str, Any]]) -> None:
    print(f"\n{w.title}: {w.flops / 1e9:.3g} GFLOP" + (f"  [{w.note}]" if w.note else ""))
    print(HEADER)
    for r in rows:
        if "median_ms" not in r:
            print(f"  {r['contender']:<10} {'n/a':>10}  {r['status']}")
            continue
        mark = "~" if r["untrusted"] else " "
        r2 = f"{r['ratio_to_torch2']:.2f}x" if r.get("ratio_to_torch2") else "-"
        r1 = f"{r['ratio_to_torch1']:.2f}x" if r.get("ratio_to_torch1") else "-"
        print(
            f"  {r['contender']:<10} {r['median_ms']:>10.3f} {r['iqr_over_median']:>6.0%}{mark} {r['gflops']:>8.2f} "
            f"{r2:>9} {r1:>9} {_bytes_cell(r):>19}  {r['status'][:70]}"
        )


def print_summary(results: list[dict[str, Any]], names: list[str]) -> None:
    print("\nSummary: median ms (~: spread > 25%, untrusted); ours best's time over PyTorch's (2 and 1 threads)")
    print(f"  {'workload':<14}" + "".join(f"{n:>12}" for n in names) + f"{'best/torch2':>13}{'best/torch1':>13}")
    for res in results:
        by = {r["contender"]: r for r in res["rows"]}
        cells = []
        for n in names:
            r = by.get(n)
            if r is None or "median_ms" not in r:
                cells.append(f"{'n/a':>12}")
            else:
                cells.append(f"{r['median_ms']:>11.2f}{'~' if r['untrusted'] else ' '}")
        best = by.get("ours best", {})
        ratios = "".join(f"{v:>12.2f}x" if v else f"{'-':>13}"
                         for v in (best.get("ratio_to_torch2"), best.get("ratio_to_torch1")))
        print(f"  {res['label']:<14}" + "".join(cells) + ratios)
    print("\nWithout a schedule (none: auto-scheduled, tuned: the tuning log's): our time over PyTorch 2t's"
          " (x/torch2, below 1: faster) and TVM none's time over ours (TVM/x: our speed-up); tuning seconds")
    print(f"  {'workload':<14}{'none/torch2':>13}{'TVM/none':>10}{'tuned/torch2':>14}{'TVM/tuned':>11}{'tuning s':>10}")
    for res in results:
        by = {r["contender"]: r for r in res["rows"]}

        def ms(name: str, by: dict[str, Any] = by) -> float | None:
            r = by.get(name)
            return r.get("median_ms") if r else None

        def ratio(a: float | None, b: float | None) -> str:
            return f"{a / b:.2f}x" if a and b else "-"

        none, tuned, torch2, tvm = ms("ours none"), ms("ours tuned"), ms("torch 2t"), ms("TVM none")
        tune_s = res.get("tune_seconds")
        print(f"  {res['label']:<14}{ratio(none, torch2):>13}{ratio(tvm, none):>10}{ratio(tuned, torch2):>14}"
              f"{ratio(tvm, tuned):>11}{'-' if tune_s is None else f'{tune_s:.0f}':>10}")


def environment(torch: Any, tvm_peer: Any) -> dict[str, Any]:
    env: dict[str, Any] = {
        "host": socket.gethostname(),
        "cpu": _cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "compiler": getattr(compiler, "__version__", "?"),
        "torch": torch if isinstance(torch, str) else torch.__version__,
    }
    if isinstance(tvm_peer, str):
        env["tvm"] = tvm_peer
    else:
        import tvm

        env["tvm"] = tvm.__version__
        env["tvm_target"] = str(tvm_peer.target())
    env["OMP_WAIT_POLICY"] = os.environ.get("OMP_WAIT_POLICY")
    env["OPENBLAS_NUM_THREADS"] = os.environ.get("OPENBLAS_NUM_THREADS")
    with contextlib.suppress(OSError):
        env["load_average"] = [round(v, 2) for v in os.getloadavg()]
    return env


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def default_json_path() -> str:
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    return os.path.join(HERE, "results", f"{stamp}-{socket.gethostname()}.json")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 rounds, smaller workloads")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 7, quick 3)")
    parser.add_argument("--round-seconds", type=float, default=None, help="time per contender and round (default 0.1, quick 0.03)")
    parser.add_argument("--only", default="", help=f"comma-separated workloads: {','.join(WORKLOADS)}")
    parser.add_argument("--tuning-log", default=None, help="the `ours tuned` contender builds with this tuning log")
    parser.add_argument("--tune-trials", type=int, default=0,
                        help="first tune each workload (compiler.tune, this many trials) into --tuning-log")
    parser.add_argument("--tune-seconds", type=float, default=300.0, help="the tuning time limit per workload")
    parser.add_argument("--json", default=None, help="where to write the results (default bench/results/<date>-<host>.json)")
    args = parser.parse_args(argv)
    if args.tune_trials and not args.tuning_log:
        parser.error("--tune-trials needs --tuning-log")
    rounds = args.rounds or (3 if args.quick else 7)
    round_seconds = args.round_seconds or (0.03 if args.quick else 0.1)
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or list(WORKLOADS)
    unknown = [k for k in keys if k not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {list(WORKLOADS)}")

    torch, tvm_peer = _import_torch(), _import_tvm()
    env = environment(torch, tvm_peer)
    print(f"bench/suite.py: {rounds} interleaved rounds, ~{round_seconds:g} s per contender and round"
          f"{' (quick)' if args.quick else ''}")
    print(f"  {env['cpu']}, {env['cores']} cores, host {env['host']}, load average {env.get('load_average')}")
    print(f"  torch {env['torch']} | TVM {env['tvm']} {env.get('tvm_target', '')} | NumPy {env['numpy']}")
    print(f"  OMP_WAIT_POLICY={env['OMP_WAIT_POLICY']} OPENBLAS_NUM_THREADS={env['OPENBLAS_NUM_THREADS']}")

    start = time.perf_counter()
    results = []
    names = ["ours off", "ours none", "ours tuned", "ours best", "torch 2t", "torch 1t", "TVM none", "NumPy"]
    for key in keys:
        w = WORKLOADS[key](args.quick)
        tune_seconds = tune_workload(w, args) if args.tune_trials else None
        contenders = [
            ours(w, "off"),
            ours(w, "none"),
            ours(w, "tuned", args.tuning_log),
            ours(w, "best"),
            torch_contender(w, torch, 2),
            torch_contender(w, torch, 1),
            tvm_contender(w, tvm_peer),
            numpy_contender(w),
        ]
        try:
            verify(contenders, torch)
            measure(contenders, torch, rounds, round_seconds)
        except Exception:  # one broken workload must not end the run
            traceback.print_exc()
        rows = workload_rows(w, contenders)
        print_workload(w, rows)
        results.append({"key": w.key, "label": w.label or w.key, "title": w.title, "gflop": w.flops / 1e9, "note": w.note, "env": w.env,
                        "rows": rows, "tune_seconds": tune_seconds})
        sys.stdout.flush()
    print_summary(results, names)
    elapsed = time.perf_counter() - start

    path = args.json or default_json_path()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    document = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "quick": args.quick,
        "rounds": rounds,
        "round_seconds": round_seconds,
        "spread": "IQR / median over rounds; untrusted above 0.25",
        "ratio": "median time / median time of torch 2t (ratio_to_torch2) or torch 1t (ratio_to_torch1)",
        "seconds": elapsed,
        "environment": env,
        "workloads": results,
    }
    with open(path, "w") as f:
        json.dump(document, f, indent=1)
    print(f"\n{elapsed:.0f} s; results written to {os.path.relpath(path)}")
    failed = [(res["key"], r["contender"], r["status"]) for res in results for r in res["rows"]
              if r["contender"].startswith("ours") and r["status"] != "ok" and not r["status"].startswith("n/a")]
    for key, who, status in failed:
        print(f"  {key}: {who}: {status}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
