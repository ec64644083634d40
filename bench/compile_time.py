"""Compile time: ours cold (object cache off) and warm (cache filled), start-up costs,
and Apache TVM's compile time for the same programs, in the same run.

    .venv/bin/python bench/compile_time.py [--repeats 5] [--no-tvm] [--workloads seed000,matmul]
        [--networks resnet50]

* workloads: the seed 000 chain, a matmul, the ResNet basic block and seed 001's
  network at 256x256 of bench/suite.py (built without a schedule: auto-scheduled);
* in-process: `compiler.build` of each workload, `COMPILER_CACHE=0` (cold: every pass
  and LLVM run) and with a filled cache (warm: the build entry gives the object and the
  function's metadata, no pass runs), medians of `--repeats` builds after one untimed build;
  and cold without the auto-scheduler (`auto_schedule=False`: TVM's default schedule, the
  program TVM compiles below);
* a second process: `python -c "build it"` end to end (interpreter, imports, build),
  first with an empty cache, then again with the cache the first one filled, and the
  `compiler.build` call alone as that process times it (the first build in a process;
  the warm one: whether it imported xDSL); then the issue 27 table: the first build in
  a new process and the in-process cold build against TVM compiling its default
  schedule for the host CPU, and the warm build in a new process;
* `import compiler`, `import compiler, compiler.te, compiler.ops`, `compiler.build`,
  `compiler.load_module` (ctypes and NumPy only) and `compiler-opt --help`, each in a
  fresh interpreter (none of the first four imports xDSL);
* `--networks resnet50`: `from_torch` of `transformers`' ResNetModel (default config,
  1x3x224x224) in a new process with an empty cache, its phases, with the LLVM worker
  processes (`compiler/lowering/llvm_pool.py`) and without (`COMPILER_LLVM_WORKERS=0`);
* `--symbolic [bert,gpt2,llama]`: issue 37's table, each `transformers` model of
  `compiler.torch.networks.hf_transformer` (BERT-base, GPT-2, a LLaMA-style model) compiled by `from_torch` in
  a new process with the cache off, static at batch 1 and `--length` (128), then with a
  symbolic batch (`Dim("batch", max=16)`) and a symbolic length (`Dim("seq", min=2,
  max=512)`), the ratio and the slowest passes of the symbolic build
  (`compiler.pass_timing`); only this table is printed;
* TVM 0.27 if `import tvm` works (it runs in a subprocess: two copies of LLVM in one
  process are asking for trouble): `tvm.compile(te.create_prim_func(args), target="llvm")`
  and the first `ex["main"]`, where TVM generates machine code (lazily); and the same for
  the host CPU (`{"kind": "llvm", "mcpu": <host>}`), which ours always compiles for.

The cache used here is a temporary folder, never ~/.cache. Timings are not tests:
quote medians and ratios measured in one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))
from common import timed, timed_result  # noqa: E402

MATMUL_N = 512


def seed000_ours() -> list[Any]:
    from seed_chain import seed000_chain

    inputs, y3 = seed000_chain()
    return [*inputs, y3]


def matmul_ours() -> list[Any]:
    from compiler import ops, te

    a = te.placeholder((MATMUL_N, MATMUL_N), name="A")
    b = te.placeholder((MATMUL_N, MATMUL_N), name="B")
    return [a, b, ops.matmul(a, b, name="C")]


def resnet_block_ours() -> list[Any]:
    from suite import resnet_block

    return resnet_block(quick=False).args


def seed001_ours() -> list[Any]:
    from suite import seed001

    return seed001(quick=False).args


WORKLOADS: dict[str, tuple[str, Callable[[], list[Any]]]] = {
    "seed000 chain": ("seed000_ours", seed000_ours),
    f"matmul {MATMUL_N}^3": ("matmul_ours", matmul_ours),
    "resnet block": ("resnet_block_ours", resnet_block_ours),
    "seed001 256^2": ("seed001_ours", seed001_ours),
}
ALL_WORKLOADS = list(WORKLOADS)


def median(xs: list[float]) -> float:
    return statistics.median(xs)


# ---------------------------------------------------------------------------
# Ours, in this process
# ---------------------------------------------------------------------------


def in_process(repeats: int) -> dict[str, dict[str, float]]:
    import compiler

    results: dict[str, dict[str, float]] = {}
    for label, (_, make) in WORKLOADS.items():
        args = make()
        row: dict[str, float] = {}
        os.environ["COMPILER_CACHE"] = "0"
        compiler.build(args, name="f")  # untimed: first-use imports and Python warm-up
        for mode in ("cold", "warm"):
            if mode == "warm":
                os.environ["COMPILER_CACHE"] = "1"
                compiler.build(args, name="f")  # fills the cache
            totals, passes, llvm = [], [], []
            for _ in range(repeats):
                f, seconds = timed_result(lambda args=args: compiler.build(args, name="f"))
                totals.append(seconds)
                passes.append(f.stats.seconds["passes"])
                llvm.append(f.stats.seconds["llvm"])
                assert f.from_cache == (mode == "warm"), (label, mode)
            row[mode] = median(totals)
            row[f"{mode} passes"] = median(passes)
            row[f"{mode} llvm"] = median(llvm)
        os.environ["COMPILER_CACHE"] = "0"
        compiler.build(args, name="f", auto_schedule=False)
        same = [timed(lambda args=args: compiler.build(args, name="f", auto_schedule=False)) for _ in range(repeats)]
        row["cold unscheduled"] = median(same)
        results[label] = row
    return results


# ---------------------------------------------------------------------------
# Fresh interpreters
# ---------------------------------------------------------------------------

PROCESS_BUILD = """
import sys, time, json
sys.path[:0] = [{root!r}, {bench!r}]
t0 = time.perf_counter()
import compiler, compiler.te, compiler.ops
t1 = time.perf_counter()
from compile_time import {make}
args = {make}()
t2 = time.perf_counter()
f = compiler.build(args, name="f")
t3 = time.perf_counter()
assert f.from_cache == (sys.argv[1] == "warm")
print(json.dumps({{"import": t1 - t0, "build": t3 - t2, "xdsl": "xdsl" in sys.modules}}))
"""


def wall(command: list[str], env: dict[str, str] | None = None) -> float:
    return run(command, env)[0]


def run(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Wall seconds of the command, and what it printed."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr}")
    return seconds, done.stdout


def second_process(repeats: int) -> dict[str, dict[str, Any]]:
    """`python -c build` with an empty cache, then with the one it filled: end to end
    (`cold`, `warm`), and the `compiler.build` call alone, timed in that process (`cold
    build`, `warm build`; `warm xdsl`: whether the warm process imported xDSL)."""
    results: dict[str, dict[str, Any]] = {}
    for label, (make, _) in WORKLOADS.items():
        script = PROCESS_BUILD.format(root=str(ROOT), bench=str(BENCH), make=make)
        times: dict[str, list[float]] = {"cold": [], "warm": [], "cold build": [], "warm build": []}
        imported_xdsl = False
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="compile-time-cache-") as cache:
                env = {**os.environ, "COMPILER_CACHE_DIR": cache, "COMPILER_CACHE": "1"}
                for mode in ("cold", "warm"):
                    seconds, out = run([sys.executable, "-c", script, mode], env)
                    inside = json.loads(out.strip().splitlines()[-1])
                    times[mode].append(seconds)
                    times[f"{mode} build"].append(inside["build"])
                    imported_xdsl |= mode == "warm" and inside["xdsl"]
        results[label] = {k: median(v) for k, v in times.items()}
        results[label]["warm xdsl"] = imported_xdsl
    return results


def start_up(repeats: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "import compiler": [sys.executable, "-c", "import compiler"],
        "import compiler, compiler.te, compiler.ops": [
            sys.executable,
            "-c",
            "import compiler, compiler.te, compiler.ops",
        ],
        "import compiler; compiler.build": [sys.executable, "-c", "import compiler; compiler.build"],
        "import compiler; compiler.load_module": [
            sys.executable,
            "-c",
            "import compiler; compiler.load_module",
        ],
        "compiler-opt --help": [sys.executable, str(ROOT / "tools" / "compiler-opt"), "--help"],
    }
    return {name: median([wall(cmd, env) for _ in range(repeats)]) for name, cmd in commands.items()}


NETWORK_BUILD = """
import sys, time, json
sys.path[:0] = [{root!r}]
import torch
torch.set_num_threads(2)
import compiler
from compiler.torch.networks import hf_network
model, shape = hf_network({name!r})
net = compiler.from_torch(model, (torch.randn(*shape),))
print(json.dumps(net.stats))
"""


def networks(names: list[str], repeats: int) -> dict[str, dict[str, float]]:
    """`from_torch` of each network (a `compiler.torch.networks.hf_network`) in a new process
    with an empty cache, its phases' seconds (medians), with the LLVM workers (`llvm_pool`)
    and without (`COMPILER_LLVM_WORKERS=0`), interleaved."""
    runs: dict[str, list[dict[str, float]]] = {}
    for _ in range(repeats):
        for name in names:
            for workers in ("default", "0"):
                with tempfile.TemporaryDirectory(prefix="compile-time-cache-") as cache:
                    env = {**os.environ, "COMPILER_CACHE_DIR": cache, "COMPILER_CACHE": "1"}
                    if workers == "0":
                        env["COMPILER_LLVM_WORKERS"] = "0"
                    script = NETWORK_BUILD.format(root=str(ROOT), name=name)
                    _, out = run([sys.executable, "-c", script], env)
                label = f"{name} (workers {workers})"
                runs.setdefault(label, []).append(json.loads(out.strip().splitlines()[-1]))
    return {label: {k: median([r[k] for r in rs]) for k in rs[0]} for label, rs in runs.items()}


SYMBOLIC_BUILD = """
import json, sys, time
sys.path.insert(0, {root!r})
import torch
from compiler.pass_timing import watch_passes
from compiler.torch import from_torch
from compiler.torch.networks import hf_transformer
model, x = hf_transformer({name!r}, seq={length})
dynamic = None
if {symbolic}:
    x = x.repeat(2, 1)
    Dim = torch.export.Dim
    dynamic = {{"inputs": {{0: Dim("batch", max=16), 1: Dim("seq", min=2, max=512)}}}}
start = time.perf_counter()
with watch_passes() as watch:
    net = from_torch(model, (x,), dynamic_shapes=dynamic)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "passes": watch.report(3)}}))
"""


def symbolic(names: list[str], length: int) -> dict[str, dict[str, Any]]:
    """Static (batch 1, `length`) and symbolic (batch, seq) `from_torch` builds of each
    model, each in a new process with the cache off: seconds, and the symbolic build's
    slowest passes."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        row: dict[str, Any] = {}
        for kind in ("static", "symbolic"):
            env = {**os.environ, "COMPILER_CACHE": "0"}
            script = SYMBOLIC_BUILD.format(root=str(ROOT), name=name, length=length, symbolic=kind == "symbolic")
            _, text = run([sys.executable, "-c", script], env)
            result = json.loads(text.strip().splitlines()[-1])
            row[kind] = result["seconds"]
            row[f"{kind} passes"] = result["passes"]
        out[name] = row
    return out


def print_symbolic(rows: dict[str, dict[str, Any]], length: int) -> None:
    print(f"from_torch compile time, seconds, cache off, a new process each: static at batch 1 and "
          f"length {length}, symbolic in batch and length\n")  # fmt: skip
    print(f"{'model':<8} {'static':>8} {'symbolic':>9} {'ratio':>6}")
    for name, row in rows.items():
        print(f"{name:<8} {row['static']:8.1f} {row['symbolic']:9.1f} {row['symbolic'] / row['static']:5.1f}x")
    for name, row in rows.items():
        print(f"\n{name}, symbolic, slowest passes:\n{row['symbolic passes']}")


# ---------------------------------------------------------------------------
# TVM, in a subprocess
# ---------------------------------------------------------------------------


def tvm_worker(repeats: int, cpu: str) -> None:
    """Prints {"version", "import", workload: {"compile", "codegen", "host"}} as JSON
    ("host": compile + codegen for the CPU `cpu`)."""
    start = time.perf_counter()
    try:
        import tvm
        from tvm import te
    except Exception as err:  # not installed, or broken: the table says so
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}))
        return
    import_s = time.perf_counter() - start
    from tvm_peer import resnet_block, seed000, seed001_nchw

    def matmul() -> list[Any]:
        a = te.placeholder((MATMUL_N, MATMUL_N), name="A")
        b = te.placeholder((MATMUL_N, MATMUL_N), name="B")
        k = te.reduce_axis((0, MATMUL_N), name="k")
        c = te.compute((MATMUL_N, MATMUL_N), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="C")
        return [a, b, c]

    out: dict[str, Any] = {"version": tvm.__version__, "import": import_s}
    host = {"kind": "llvm", "mcpu": cpu}
    makers = dict(zip(ALL_WORKLOADS, (seed000, matmul, resnet_block, seed001_nchw), strict=True))
    for label in WORKLOADS:
        make = makers[label]
        compile_s, codegen_s, host_s = [], [], []
        for k in range(repeats + 1):
            args = make()
            t0 = time.perf_counter()
            ex = tvm.compile(te.create_prim_func(args), target="llvm")
            t1 = time.perf_counter()
            ex["main"]  # TVM generates machine code when the function is first looked up
            t2 = time.perf_counter()
            tvm.compile(te.create_prim_func(make()), target=host)["main"]
            t3 = time.perf_counter()
            if k:  # the first is a warm-up
                compile_s.append(t1 - t0)
                codegen_s.append(t2 - t1)
                host_s.append(t3 - t2)
        out[label] = {"compile": median(compile_s), "codegen": median(codegen_s), "host": median(host_s)}
    print(json.dumps(out))


def tvm_results(repeats: int, cpu: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--tvm-worker", "--repeats", str(repeats), "--cpu", cpu,
         "--workloads", ",".join(WORKLOADS)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        return {"error": f"the TVM worker failed (status {done.returncode}): {done.stderr.strip()[-500:]}"}


# ---------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-tvm", action="store_true", help="skip Apache TVM")
    parser.add_argument(
        "--workloads",
        default="",
        help="comma-separated prefixes of the workloads to run (e.g. 'seed000,matmul'; default: all)",
    )
    parser.add_argument(
        "--networks",
        default="",
        help="comma-separated hf_network names (e.g. 'resnet50'): cold from_torch in a new process, "
        "with and without the LLVM workers",
    )
    parser.add_argument(
        "--symbolic",
        nargs="?",
        const="bert,gpt2,llama",
        default="",
        help="only the static vs symbolic (batch, length) build table of these transformers models "
        "(default bert,gpt2,llama)",
    )
    parser.add_argument("--length", type=int, default=128, help="the static build's length (--symbolic)")
    parser.add_argument("--tvm-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cpu", default="generic", help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.workloads:
        wanted = [w.strip() for w in options.workloads.split(",") if w.strip()]
        for label in list(WORKLOADS):
            if not any(label.startswith(w) for w in wanted):
                del WORKLOADS[label]
    if options.tvm_worker:
        tvm_worker(options.repeats, options.cpu)
        return
    if options.symbolic:
        names = [n.strip() for n in options.symbolic.split(",") if n.strip()]
        print_symbolic(symbolic(names, options.length), options.length)
        return

    with tempfile.TemporaryDirectory(prefix="compile-time-cache-") as cache:
        os.environ["COMPILER_CACHE_DIR"] = cache  # never the user's ~/.cache
        ours = in_process(options.repeats)
        processes = second_process(max(2, options.repeats // 2))
    import compiler
    from compiler.lowering.jit import target_description

    target = target_description()
    tvm = {"error": "skipped (--no-tvm)"} if options.no_tvm else tvm_results(options.repeats, target["cpu"])
    startup = start_up(options.repeats)

    print(f"compile time, seconds, medians of {options.repeats} "
          f"(compiler {compiler.__version__}, LLVM {target['llvm']}, CPU {target['cpu']}, "
          f"{os.cpu_count()} cores)\n")  # fmt: skip
    tvm_ok = "error" not in tvm
    tvm_head = f"TVM {tvm['version']}" if tvm_ok else "TVM"
    print(f"{'workload':<16} {'cold':>7} {'(passes':>8} {'llvm)':>6} {'warm':>7} {'(passes':>8} "
          f"{'llvm)':>6} {'cold/warm':>9}   {tvm_head + ' compile+codegen':>28}")  # fmt: skip
    for label, row in ours.items():
        line = (
            f"{label:<16} {row['cold']:7.3f} {row['cold passes']:8.3f} {row['cold llvm']:6.3f} "
            f"{row['warm']:7.3f} {row['warm passes']:8.3f} {row['warm llvm']:6.3f} "
            f"{row['cold'] / row['warm']:8.1f}x"
        )
        if tvm_ok:
            t = tvm[label]
            total = t["compile"] + t["codegen"]
            line += (
                f"   {t['compile']:6.3f} + {t['codegen']:5.3f} = {total:6.3f}"
                f"  (ours cold {row['cold'] / total:4.1f}x, warm {row['warm'] / total:4.1f}x)"
            )
        print(line)
    if not tvm_ok:
        print(f"TVM: {tvm['error']}")
    else:
        print(f"TVM: target=\"llvm\" (generic CPU; ours compiles for the host CPU); import tvm {tvm['import']:.2f} s")
        print(f"\nthe same program and schedule (TVM's default; ours auto_schedule=False), cold, "
              f"for the host CPU ({target['cpu']}) and TVM's generic one")  # fmt: skip
        print(f"{'workload':<16} {'ours':>7} {'TVM host':>9} {'TVM generic':>12} {'ours/TVM host':>14}")
        for label, row in ours.items():
            t = tvm[label]
            generic = t["compile"] + t["codegen"]
            print(
                f"{label:<16} {row['cold unscheduled']:7.3f} {t['host']:9.3f} {generic:12.3f} "
                f"{row['cold unscheduled'] / t['host']:13.1f}x"
            )

    print("\na new process: python -c 'import compiler, compiler.te, compiler.ops; build(...)': "
          "end to end, and the build call alone (timed in the process)")  # fmt: skip
    print(f"{'workload':<16} {'empty cache':>12} {'(build)':>8} {'warm cache':>11} {'(build)':>8}  warm imports xDSL")
    for label, row in processes.items():
        print(
            f"{label:<16} {row['cold']:12.3f} {row['cold build']:8.3f} {row['warm']:11.3f} "
            f"{row['warm build']:8.3f}  {row['warm xdsl']}"
        )
    if tvm_ok:
        print("\nthe issue's table: ours auto-scheduled; TVM its default schedule for the host CPU "
              "(compile + codegen, median, in process)")  # fmt: skip
        print(f"{'program':<16} {'ours first build':>17} {'ours cold':>10} {tvm_head:>10} "
              f"{'first/TVM':>10} {'cold/TVM':>9} {'ours warm (new process)':>24}")  # fmt: skip
        for label, row in processes.items():
            t_host = tvm[label]["host"]
            cold = ours[label]["cold"]
            print(
                f"{label:<16} {row['cold build']:17.3f} {cold:10.3f} {t_host:10.3f} "
                f"{row['cold build'] / t_host:9.2f}x {cold / t_host:8.2f}x {row['warm build']:24.3f}"
            )

    if options.networks:
        names = [n.strip() for n in options.networks.split(",") if n.strip()]
        rows = networks(names, max(1, options.repeats // 2))
        print("\nnetworks: from_torch in a new process, empty cache (seconds; LLVM workers: the default, and none)")
        print(f"{'network':<28} {'export':>7} {'import':>7} {'passes':>7} {'llvm':>7} {'total':>7}")
        for label, row in rows.items():
            print(
                f"{label:<28} {row['export']:7.2f} {row['import']:7.2f} {row['passes']:7.2f} "
                f"{row['llvm']:7.2f} {row['total']:7.2f}"
            )

    print("\nstart-up, a fresh interpreter each")
    for name, seconds in startup.items():
        print(f"  {name:<40} {seconds:6.3f} s")


if __name__ == "__main__":
    main()
