"""Whole networks from PyTorch: run time against torch eager, and peak intermediate bytes.

    .venv/bin/python bench/networks.py                  # make bench runs this
    .venv/bin/python bench/networks.py --only resnet18 --rounds 5
    .venv/bin/python bench/networks.py --skip seed001_1024 --json out.json

Networks (compiler/torch/networks.py, the models the frontend's tests check):
ResNet-18 (1000 classes) and MobileNetV2's stem with three inverted residual
blocks at 1x3x224x224 in float32, and seed 001's network in float16 at 256,
512 and 1024 (square images); and, with `transformers` installed (the bench
extra), its ResNet-18, ResNet-50, MobileNetV2 and ConvNeXt-tiny at their default
configs and 1x3x224x224 (`hf_network`: random weights, nothing downloaded), rows
`hf_*`, and its transformers (`hf_transformer`): BERT-base at sequence length
128 and 512 and GPT-2 small at 128 (int64 token ids, batch 1), ViT-base and
MobileNetV2 with TensorFlow padding at 1x3x224x224. Each is compiled by `compiler.from_torch` at its static size (its
default: auto-scheduled, channels_last), its compile time split into export,
import, passes and LLVM.

Run time: `torch.set_num_threads(2)`; R interleaved rounds (ours, then torch
eager under `no_grad`), each one call after one warm-up call; the table shows
the median and the spread (IQR / median, `~` above 25%) and `speed`, our
throughput relative to the peer's (its time over ours: above 1 is faster).
`torch.compile` (Inductor, its default mode; `--no-inductor` leaves it out) is
timed after them on the float32 networks (and the token models): its first call (the compile) and R
calls. A workload whose first calls take longer than `--budget` seconds gets fewer
rounds (one round has no spread: `-`; past the budget, the warm-up calls are
the one measurement). PyTorch on CPU has no fast float16
convolution (seed 001 in float16 takes tens of seconds a call at 256).

Peak intermediate bytes:
* ours: the arena of `net.memory` (every intermediate of the graph in one
  buffer; the output is the caller's, the parameters are bound constants);
* bound: the liveness lower bound of that plan (the most bytes live at one
  statement; in-place writes can go below it);
* torch: what PyTorch's CPU allocator holds during the forward pass, above
  what it held before (input and parameters): the running sum of the
  allocation and free events `torch.profiler` records with
  `profile_memory=True` ("Total Allocated"), at its peak. It is the allocator's own account (so
  oneDNN's scratch buffers and reorders count, and views cost nothing), where
  a hook on live tensors would miss the allocations ops make internally. It
  includes the output (column `out`), which our arena does not;
* relax: Apache TVM's Relax (`relax.frontend.torch.from_exported_program`,
  then its CPU pipeline up to `StaticPlanBlockMemory`): the bytes of its
  planned `R.memory.alloc_storage`s. Its output tensor is allocated apart
  (`R.builtin.alloc_tensor`) and is not counted. Relax's torch frontend keeps
  float16 convolutions' results in float32 (`out_dtype`), so its float16
  intermediates are float32.
A peer whose import or conversion fails prints its error in its column.

The table is printed and written as JSON (bench/results/networks-<date>-<host>.json
or --json PATH).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # see bench/suite.py: a loaded 2-core machine

import argparse
import datetime
import functools
import json
import re
import socket
import statistics
import sys
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from common import timed, timed_result

HERE = os.path.dirname(os.path.abspath(__file__))
SPREAD_LIMIT = 0.25


@dataclass
class Workload:
    name: str
    model: Callable[[], Any]  # a torch.nn.Module in eval mode
    shape: tuple[int, ...]
    dtype: str
    example: Callable[[], Any] | None = None  # the input, when not torch.randn(shape) (token ids)


def workloads() -> list[Workload]:
    import torch

    from compiler.torch.networks import MobileNetStem, ResNet18, Seed001, randomize_batch_norms

    def seeded(make: Callable[[], Any], seed: int) -> Callable[[], Any]:
        def build() -> Any:
            torch.manual_seed(seed)
            return make()

        return build

    items = [
        Workload("resnet18", seeded(lambda: randomize_batch_norms(ResNet18(num_classes=1000)), 0), (1, 3, 224, 224), "float32"),
        Workload("mobilenet", seeded(lambda: randomize_batch_norms(MobileNetStem()), 1), (1, 3, 224, 224), "float32"),
    ]
    for size in (256, 512, 1024):
        items.append(Workload(f"seed001_{size}", seeded(lambda: Seed001().half().eval(), 4), (1, 3, size, size), "float16"))
    try:
        import transformers  # noqa: F401
    except ImportError:
        return items  # the bench extra has it; the table says which rows are missing
    from compiler.torch.networks import HF_NETWORKS, hf_network, hf_transformer

    for name in HF_NETWORKS:
        items.append(Workload(f"hf_{name}", lambda name=name: hf_network(name)[0], (1, 3, 224, 224), "float32"))
    for name, seq in (("bert", 128), ("bert", 512), ("gpt2", 128), ("vit", None), ("mobilenetv2_tf", None)):
        made = functools.cache(lambda name=name, seq=seq: hf_transformer(name, seq=seq))
        shape = (1, seq) if seq else (1, 3, 224, 224)
        label = f"hf_{name}_{seq}" if seq else f"hf_{name}"
        items.append(Workload(label, lambda made=made: made()[0], shape, "int64" if seq else "float32",
                              lambda made=made: made()[1]))
    return items


@dataclass
class Row:
    name: str
    shape: str
    dtype: str
    compile_s: float | None = None
    ours_ms: float | None = None
    ours_spread: float | None = None
    torch_ms: float | None = None
    torch_spread: float | None = None
    rounds: int = 0
    max_error: float | None = None
    ours_bytes: int | None = None
    bound_bytes: int | None = None
    no_reuse_bytes: int | None = None
    torch_bytes: int | None = None
    output_bytes: int | None = None
    relax_bytes: int | None = None
    inductor_ms: float | None = None  # torch.compile (Inductor, its default mode)
    inductor_spread: float | None = None
    inductor_compile_s: float | None = None  # its first call
    phases: dict[str, float] = field(default_factory=dict)  # our compile: export, import, passes, llvm
    errors: dict[str, str] = field(default_factory=dict)


def torch_peak_bytes(model: Any, x: Any) -> int:
    """The most bytes PyTorch's CPU allocator held above its starting point during one
    forward pass: the largest "Total Allocated" of the allocation and free events
    `torch.profiler` records with `profile_memory=True` (counted from the profile's start)."""
    import tempfile

    import torch
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        model(x)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    totals = [e["args"]["Total Allocated"] for e in trace["traceEvents"] if e.get("name") == "[memory]"]
    if not totals:
        raise RuntimeError("the profiler recorded no allocation")
    return int(max(totals))


def relax_planned_bytes(model: Any, x: Any) -> int:
    """The bytes of the storages Relax's static memory planning allocates for `model`."""
    import torch
    import tvm
    from tvm import relax
    from tvm.relax.backend.cpu_generic import pipeline
    from tvm.relax.frontend.torch import from_exported_program

    mod = from_exported_program(torch.export.export(model, (x,)))
    target = tvm.target.Target("llvm")
    with target:
        passes = [
            *pipeline.library_dispatch_passes(target),
            *pipeline.legalize_passes(target),
            *pipeline.dataflow_lower_passes(target),
            relax.transform.StaticPlanBlockMemory(),
        ]
        mod = tvm.transform.Sequential(passes)(mod)
    text = mod["main"].script()
    sizes = [int(n) for n in re.findall(r"R\.memory\.alloc_storage\(R\.shape\(\[(\d+)\]\)", text)]
    if "R.memory.alloc_storage(R.shape([" in text and not sizes:
        raise RuntimeError("a storage of symbolic size")
    return sum(sizes)


def spread(times: list[float]) -> float | None:
    if len(times) < 2:
        return None
    q = statistics.quantiles(times, n=4, method="inclusive")
    return (q[2] - q[0]) / statistics.median(times)


def measure(w: Workload, rounds: int, budget: float, relax: bool, inductor: bool) -> Row:
    import torch

    from compiler.torch import from_torch

    row = Row(w.name, "x".join(map(str, w.shape)), w.dtype)
    model = w.model()
    x = w.example() if w.example is not None else torch.randn(*w.shape, dtype=getattr(torch, w.dtype))
    xn = x.numpy()
    net, row.compile_s = timed_result(lambda: from_torch(model, (x,)))
    row.phases = {k: round(v, 3) for k, v in net.stats.items() if k != "total"}
    memory = net.memory
    if memory is not None:
        row.ours_bytes, row.bound_bytes, row.no_reuse_bytes = int(memory.arena), memory.lower_bound, int(memory.no_reuse)

    def ours() -> object:
        return net(xn)

    def eager() -> object:
        with torch.no_grad():
            return model(x)

    # warm-up: one call each, whose results are checked
    results: dict[str, Any] = {}
    first_ours = timed(lambda: results.setdefault("ours", ours()))
    first_torch = timed(lambda: results.setdefault("torch", eager()))
    got, expected = results["ours"], results["torch"]
    row.max_error = float(np.abs(got.astype(np.float64) - expected.double().numpy()).max())
    row.output_bytes = int(expected.numel() * expected.element_size())
    per_round = first_ours + first_torch
    ours_t, torch_t = [], []
    if per_round > budget:  # calls of minutes: the warm-up calls are the measurement
        row.rounds, ours_t, torch_t = 1, [first_ours], [first_torch]
    else:
        row.rounds = max(1, min(rounds, int(budget / per_round)))
    for _ in range(len(ours_t), row.rounds):
        ours_t.append(timed(ours))
        torch_t.append(timed(eager))
    row.ours_ms, row.ours_spread = statistics.median(ours_t) * 1e3, spread(ours_t)
    row.torch_ms, row.torch_spread = statistics.median(torch_t) * 1e3, spread(torch_t)
    if inductor and w.dtype != "float16":
        try:
            measure_inductor(row, model, x, row.rounds)
        except Exception as err:  # the table reports it
            row.errors["inductor"] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:200]
    try:
        row.torch_bytes = torch_peak_bytes(model, x)
    except Exception as err:  # the table reports it
        row.errors["torch_bytes"] = f"{type(err).__name__}: {err}"
    if relax:
        try:
            row.relax_bytes = relax_planned_bytes(model, x)
        except Exception as err:  # the table reports it
            row.errors["relax"] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"[:200]
    return row


def measure_inductor(row: Row, model: Any, x: Any, rounds: int) -> None:
    """torch.compile's default (Inductor) on the same input: its first call (the compile)
    and `rounds` calls after it, in the same process as ours and eager's."""
    import torch

    compiled = torch.compile(model)
    with torch.no_grad():
        row.inductor_compile_s = timed(lambda: compiled(x))
        times = [timed(lambda: compiled(x)) for _ in range(rounds)]
    row.inductor_ms, row.inductor_spread = statistics.median(times) * 1e3, spread(times)


def _mb(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.2f}"


def _ms(t: float | None, s: float | None) -> str:
    if t is None:
        return "-"
    mark = "-" if s is None else ("~" if s > SPREAD_LIMIT else " ")
    return f"{t:10.1f}{mark}"


def _speed(theirs: float | None, ours: float | None) -> str:
    """Our throughput relative to a peer's (their time over ours: above 1 is faster)."""
    return "-" if ours is None or not theirs else f"{theirs / ours:.2f}"


def table(rows: list[Row]) -> str:
    head = (
        f"{'network':<18} {'input':<13} {'dtype':<8} {'ours ms':>11} {'torch ms':>11} {'speed':>6} "
        f"{'inductor ms':>11} {'speed':>6} {'rounds':>6} {'ours MB':>8} {'bound MB':>8} {'torch MB':>8} "
        f"{'out MB':>7} {'relax MB':>8} {'max err':>8}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        relax = _mb(r.relax_bytes) if "relax" not in r.errors else "error"
        lines.append(
            f"{r.name:<18} {r.shape:<13} {r.dtype:<8} {_ms(r.ours_ms, r.ours_spread):>11} "
            f"{_ms(r.torch_ms, r.torch_spread):>11} {_speed(r.torch_ms, r.ours_ms):>6} "
            f"{_ms(r.inductor_ms, r.inductor_spread):>11} {_speed(r.inductor_ms, r.ours_ms):>6} "
            f"{r.rounds:>6} {_mb(r.ours_bytes):>8} "
            f"{_mb(r.bound_bytes):>8} {_mb(r.torch_bytes):>8} {_mb(r.output_bytes):>7} {relax:>8} "
            f"{'-' if r.max_error is None else f'{r.max_error:.1e}':>8}"
        )
        for what, err in r.errors.items():
            lines.append(f"    {what}: {err}")
    lines.append("")
    lines.append(f"{'compile s':<18} {'ours':>7} {'export':>7} {'import':>7} {'passes':>7} {'llvm':>7} {'inductor':>9}")
    for r in rows:
        if r.compile_s is None:
            continue
        phase = [f"{r.phases.get(k, float('nan')):7.2f}" for k in ("export", "import", "passes", "llvm")]
        ind = "-" if r.inductor_compile_s is None else f"{r.inductor_compile_s:9.1f}"
        lines.append(f"{r.name:<18} {r.compile_s:7.2f} {' '.join(phase)} {ind:>9}")
    return "\n".join(lines)


def available() -> dict[str, str]:
    found: dict[str, str] = {}
    for name, module in (("torch", "torch"), ("tvm", "tvm")):
        try:
            found[name] = __import__(module).__version__
        except Exception as err:  # an optional peer
            found[name] = f"unavailable ({type(err).__name__})"
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="interleaved timing rounds (default 5)")
    parser.add_argument("--budget", type=float, default=60.0, help="seconds of timing per network before rounds are cut")
    parser.add_argument("--only", default="", help="comma-separated network names")
    parser.add_argument("--skip", default="", help="comma-separated network names to leave out")
    parser.add_argument("--json", default="", help="where to write the results (default bench/results/)")
    parser.add_argument("--no-inductor", action="store_true", help="leave torch.compile out (its compile takes ~30 s a network)")
    parser.add_argument("--no-relax", action="store_true", help="leave TVM Relax's memory plan out")
    args = parser.parse_args(argv)
    peers = available()
    print("peers: " + ", ".join(f"{k} {v}" for k, v in peers.items()))
    if not peers["torch"][0].isdigit():
        print("bench/networks.py needs torch (pip install -e '.[torch]'): nothing to measure")
        return 0
    import torch

    torch.set_num_threads(2)
    only = {n for n in args.only.split(",") if n}
    skip = {n for n in args.skip.split(",") if n}
    rows: list[Row] = []
    for w in workloads():
        if (only and w.name not in only) or w.name in skip:
            continue
        print(f"{w.name} {w.shape} {w.dtype} ...", flush=True)
        try:
            relax = peers["tvm"][0].isdigit() and not args.no_relax
            rows.append(measure(w, args.rounds, args.budget, relax=relax, inductor=not args.no_inductor))
        except Exception as err:  # one network's failure is a row, not the end
            traceback.print_exc()
            rows.append(Row(w.name, "x".join(map(str, w.shape)), w.dtype, errors={"ours": f"{type(err).__name__}: {err}"}))
    text = table(rows)
    print(text)
    stamp = datetime.datetime.now().strftime("%Y-%m-%d-%H%M%S")
    path = args.json or os.path.join(HERE, "results", f"networks-{stamp}-{socket.gethostname()}.json")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"peers": peers, "threads": 2, "rows": [asdict(r) for r in rows]}, f, indent=1)
    print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
