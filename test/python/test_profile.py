"""The profiler: `Function.profile`, `TorchFunction.profile` (compiler/profile.py,
instrument-stages, the native clock of compiler/lowering/profile_marks.py).

Timings are not asserted against each other's speed, only for consistency: the stages'
medians add up to the profiled call's median (within 10%), with enough work per
stage (milliseconds) that a loaded machine's noise stays well inside that.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import torch
from references import conv2d_reference
from xdsl.parser import Parser

import compiler
import compiler.profile
from compiler import ops, te
from compiler.context import make_context
from compiler.driver import compile_module
from compiler.passes.instrument_stages import InstrumentStagesPass


@pytest.fixture
def one_thread() -> Iterator[None]:
    """One thread: a fork of two threads on a loaded 2-core machine waits for a time slice
    (milliseconds), which makes every median noisy."""
    compiler.set_num_threads(1)
    yield
    compiler.set_num_threads(None)


def conv_chain(channels: int = 64, size: int = 56) -> tuple[list[te.Tensor], te.Tensor, te.Tensor]:
    x = te.placeholder((1, channels, size, size), name="x")
    w1 = te.placeholder((channels, channels, 3, 3), name="w1")
    w2 = te.placeholder((channels, channels, 3, 3), name="w2")
    c1 = ops.conv2d_nchw(x, w1, padding=1, name="c1")
    r1 = ops.relu(c1, name="r1")
    c2 = ops.conv2d_nchw(r1, w2, padding=1, name="c2")
    out = ops.relu(c2, name="out")
    return [x, w1, w2, out], c1, c2


def arrays_for(tensors: list[te.Tensor], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal([int(d) for d in t.shape]).astype(np.float32) for t in tensors]


@pytest.fixture(scope="module")
def chain() -> tuple[compiler.Function, list[np.ndarray], list[te.Tensor]]:
    tensors, _, _ = conv_chain()
    # the convolutions as written (an empty schedule the auto-scheduler extends, not
    # their NHWC fast form): out's nest then computes c2, a reduction, and the relu
    schedule = te.create_schedule(tensors[-1].op)
    return compiler.build(schedule, tensors, auto_schedule=True), arrays_for(tensors), tensors


def adds_up(prof: compiler.profile.Profile) -> bool:
    """The rows' medians add up to the median call within 10%."""
    return abs(prof.stages_ms - prof.call_ms) <= 0.10 * prof.call_ms


def _preemptions() -> int:
    """The times the OS took this thread's core away (involuntary context switches)."""
    return resource.getrusage(resource.RUSAGE_THREAD).ru_nivcsw


def profile_until_quiet(
    profile: Callable[[], compiler.profile.Profile], tries: int = 5
) -> tuple[compiler.profile.Profile, int]:
    """A profile whose rows add up, or the last of `tries`; and how often the OS preempted
    this thread while it ran."""
    for _ in range(tries):
        before = _preemptions()
        prof = profile()
        preempted = _preemptions() - before
        if adds_up(prof):
            break
    return prof, preempted


def check_adds_up(prof: compiler.profile.Profile, preempted: int) -> None:
    """The marks cover each call (what they leave out, the argument checks and the arena,
    is small), and the rows' medians add up to the median call. The second is skipped,
    not failed, when the OS preempted the profiling thread in most of the calls: a
    preemption (another process's time slice, milliseconds) lands in one nest of a call,
    so when it hits every call it counts in the call's median but in no nest's."""
    assert 0 <= prof.outside_ms <= 0.10 * prof.call_ms, str(prof)
    if not adds_up(prof) and preempted >= prof.repeat // 2:
        pytest.skip(f"the OS preempted the profiled thread {preempted} times in {prof.repeat} calls:\n{prof}")
    assert adds_up(prof), str(prof)


def test_rows_add_up_to_the_call(chain, one_thread) -> None:
    f, arrays, _ = chain
    prof, preempted = profile_until_quiet(lambda: f.profile(*arrays, repeat=21))
    assert prof.repeat == 21
    assert [r.ms for r in prof.rows] == sorted((r.ms for r in prof.rows), reverse=True)
    assert {"c1", "c1_pad", "c2_pad", "out"} <= {r.name for r in prof.rows}
    assert prof.call_ms > 1.0, "too little work for a stable median"
    assert sum(r.share for r in prof.rows) == pytest.approx(prof.stages_ms / prof.call_ms)
    check_adds_up(prof, preempted)


def test_profiled_call_computes_the_same(chain) -> None:
    f, arrays, _tensors = chain
    x, w1, w2, out = arrays
    f.profile(x, w1, w2, out, repeat=2)
    c1 = np.maximum(conv2d_reference(x, w1, 1, 1), 0)
    expected = np.maximum(conv2d_reference(c1, w2, 1, 1), 0)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-3)


def test_gflops_exactly_for_reductions(chain) -> None:
    f, arrays, _ = chain
    prof = f.profile(*arrays, repeat=3)
    rows = {r.name: r for r in prof.rows}
    assert rows["c1_pad"].gflops is None
    assert rows["c2_pad"].gflops is None
    macs = 1 * 64 * 56 * 56 * (64 * 3 * 3)
    for name in ("c1", "out"):  # out's nest computes c2 (a reduction) and the relu
        row = rows[name]
        assert row.gflops is not None
        assert row.gflops * row.ms * 1e6 == pytest.approx(2 * macs, rel=1e-9)
    assert "c2" in rows["out"].stages
    assert rows["c1"].shape == (1, 64, 56, 56)
    assert rows["c1_pad"].shape == (1, 64, 58, 58)
    assert all(r.schedule for r in prof.rows)
    assert all(r.module == "" and r.op == "" for r in prof.rows)


def test_table_sorted_by_time(chain) -> None:
    f, arrays, _ = chain
    prof = f.profile(*arrays, repeat=3)
    text = str(prof)
    assert "median call" in text
    assert "outside the stages" in text
    lines = text.splitlines()[2:]
    assert [line.split()[1] for line in lines] == [r.name for r in prof.rows]
    assert len(prof.table(limit=2).splitlines()) == 1 + 1 + 2 + 1  # head, header, 2 rows, "... more"


def test_chrome_trace(chain, tmp_path) -> None:
    f, arrays, _ = chain
    prof = f.profile(*arrays, repeat=4)
    path = prof.save_chrome_trace(tmp_path / "trace.json")
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    stages = [e for e in events if e["ph"] == "X" and e["cat"] == "stage"]
    calls = [e for e in events if e["ph"] == "X" and e["cat"] == "call"]
    nests = len(f.profiling_variant()._stages or [])
    assert len(calls) == 4
    assert len(stages) == 4 * nests
    assert {e["name"] for e in stages} == {r.name for r in prof.rows}
    for e in stages + calls:
        assert {"ts", "dur", "pid", "tid", "name", "args"} <= e.keys()
        assert e["dur"] >= 0
    for n, call in enumerate(calls):  # each call's stages lie inside it, in order
        mine = [e for e in stages if e["args"]["call"] == n]
        assert all(call["ts"] <= e["ts"] and e["ts"] + e["dur"] <= call["ts"] + call["dur"] + 1e-3 for e in mine)
        assert [e["ts"] for e in mine] == sorted(e["ts"] for e in mine)
    assert {e["name"] for e in events if e["ph"] == "M"} <= {"process_name", "thread_name"}


def test_parallel_chunks_on_thread_tracks(chain) -> None:
    """Each thread's chunks of a parallel loop: on the thread's track, inside its stage."""
    f, arrays, _ = chain
    compiler.set_num_threads(2)
    try:
        prof = f.profile(*arrays, repeat=3)
    finally:
        compiler.set_num_threads(None)
    events = prof.chrome_trace()["traceEvents"]
    stages = {(e["args"]["call"], e["name"]): e for e in events if e["ph"] == "X" and e["cat"] == "stage"}
    chunks = [e for e in events if e["ph"] == "X" and e["cat"] == "chunk"]
    assert {e["args"]["thread"] for e in chunks} == {0, 1}
    assert {e["name"] for e in chunks} == {r.name for r in prof.rows}  # every nest here forks
    for e in chunks:
        stage = stages[(e["args"]["call"], e["name"])]
        assert stage["ts"] <= e["ts"]
        assert e["ts"] + e["dur"] <= stage["ts"] + stage["dur"] + 1e-3
        assert 0 <= e["args"]["busy_ms"] <= e["dur"] / 1e3 + 1e-6
    tracks = {e["tid"] for e in chunks}
    assert len(tracks) == 2
    named = {e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert tracks <= named
    for r in prof.rows:
        assert r.busy_ms is not None
        assert r.busy_ms <= r.ms * 1.001


def test_normal_build_has_no_marks(chain) -> None:
    f, _, _ = chain
    for text in (f.loop_ir, f.flat_ir, f.llvm_ir):
        assert "compiler_profile_mark" not in text
    variant = f.profiling_variant()
    assert variant is not f
    assert variant.profiling_variant() is variant
    assert f.profiling_variant() is variant  # made once
    assert "compiler_profile_mark" in variant.flat_ir
    assert variant.flat_ir.count("compiler_profile_mark") == 2 * len(variant._stages or [])


def test_same_program_same_ir_without_profiling() -> None:
    tensors, _, _ = conv_chain(8, 12)
    before = compiler.lower(tensors, until="flat", auto_schedule=True)
    f = compiler.build(tensors)
    assert str(before) == f.flat_ir


def test_wrong_arguments_raise_as_the_call(chain) -> None:
    f, arrays, _ = chain
    bad = [arrays[0][:, :, :10], *arrays[1:]]
    with pytest.raises(compiler.errors.CompilerError) as called:
        f(*bad)
    with pytest.raises(type(called.value)) as profiled:
        f.profile(*bad)
    assert str(profiled.value) == str(called.value)
    with pytest.raises(compiler.errors.CompilerError) as few:
        f(*arrays[:2])
    with pytest.raises(type(few.value)) as profiled_few:
        f.profile(*arrays[:2])
    assert str(profiled_few.value) == str(few.value)
    with pytest.raises(compiler.errors.OptionError, match="repeat"):
        f.profile(*arrays, repeat=0)


def test_symbolic_shapes() -> None:
    n = te.var("n")
    a = te.placeholder((n, 64), name="a")
    b = te.placeholder((64, 64), name="b")
    k = te.reduce_axis((0, 64), name="k")
    c = te.compute((n, 64), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="c")
    d = te.compute((n, 64), lambda i, j: c[i, j] + 1.0, name="d")
    f = compiler.build([a, b, d])
    x, y = np.ones((96, 64), np.float32), np.ones((64, 64), np.float32)
    out = np.empty((96, 64), np.float32)
    prof = f.profile(x, y, out, repeat=3)
    np.testing.assert_allclose(out, 65.0)
    rows = {r.name: r for r in prof.rows}
    assert rows["d"].shape == (96, 64)
    reductions = [r for r in prof.rows if "c" in r.stages]
    assert len(reductions) == 1
    assert reductions[0].gflops is not None
    assert reductions[0].gflops * reductions[0].ms * 1e6 == pytest.approx(2 * 96 * 64 * 64)


def test_output_rows_keep_their_stage_names() -> None:
    """An output stage named `y_2`: xDSL drops a `_2` from name hints, so `build` names
    the argument `y2` (to_ir.unique_names), and the row is named as the argument."""
    a = te.placeholder((256, 256), name="a")
    y = te.compute((256, 256), lambda i, j: a[i, j] * 2.0, name="y")
    y2 = te.compute((256, 256), lambda i, j: y[i, j] + 1.0, name="y_2")
    f = compiler.build([a, y2])
    prof = f.profile(np.ones((256, 256), np.float32), np.empty((256, 256), np.float32), repeat=2)
    assert "y2" in {r.name for r in prof.rows}
    assert [s.name for s in f.specs] == ["a", "y2"]


def test_profiling_variant_from_the_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPILER_CACHE_DIR", str(tmp_path))
    tensors, _, _ = conv_chain(8, 16)
    arrays = arrays_for(tensors)
    first = compiler.build(tensors).profile(*arrays, repeat=2)
    again = compiler.build(tensors)
    assert again.from_cache
    variant = again.profiling_variant()
    assert variant.from_cache  # its own build entry, with its stage records
    second = again.profile(*arrays, repeat=2)
    assert [(r.name, r.shape, r.schedule, r.stages) for r in sorted(second.rows, key=lambda r: r.name)] == [
        (r.name, r.shape, r.schedule, r.stages) for r in sorted(first.rows, key=lambda r: r.name)
    ]


# ---------------------------------------------------------------------------
# Networks: rows name the torch modules
# ---------------------------------------------------------------------------


def _sequential() -> torch.nn.Module:
    from compiler.torch.networks import randomize_batch_norms

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(16, 64, 3, padding=1),
        torch.nn.BatchNorm2d(64),
        torch.nn.ReLU(),
        torch.nn.Conv2d(64, 64, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(64, 10),
    )
    return randomize_batch_norms(model).eval()


def test_sequential_rows_name_modules(one_thread) -> None:
    model = _sequential()
    x = torch.randn(1, 16, 96, 96)
    net = compiler.from_torch(model, (x,))
    prof, preempted = profile_until_quiet(lambda: net.profile(x, repeat=21))
    rows = {r.name: r for r in prof.rows}
    modules = dict(model.named_modules())
    for r in prof.rows:
        assert r.module in modules, r
        assert r.op.startswith("aten."), r
    convs = [r for r in prof.rows if r.gflops is not None and isinstance(modules[r.module], torch.nn.Conv2d)]
    assert {r.module for r in convs} == {"0", "3"}
    folded = next(r for r in convs if r.module == "0")  # the batch norm folded into conv 0
    assert "conv2d" in folded.op
    assert "batch_norm" in folded.op
    assert any(isinstance(modules[r.module], torch.nn.Linear) for r in rows.values())
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(net(x), expected, rtol=1e-4, atol=1e-4)
    check_adds_up(prof, preempted)


def test_network_wrong_input_raises_as_the_call() -> None:
    model = _sequential()
    net = compiler.from_torch(model, (torch.randn(1, 16, 16, 16),))
    bad = torch.randn(1, 16, 16, 17)
    with pytest.raises(compiler.errors.CompilerError) as called:
        net(bad)
    with pytest.raises(type(called.value)) as profiled:
        net.profile(bad)
    assert str(profiled.value) == str(called.value)


@pytest.mark.long  # a whole ResNet: the long run
def test_transformers_resnet_rows_name_modules() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic")
    torch.manual_seed(0)
    model = transformers.ResNetModel(config).eval()
    x = torch.randn(1, 3, 32, 32)
    net = compiler.from_torch(model, (x,))
    prof = net.profile(x, repeat=3)
    modules = dict(model.named_modules())
    conv_rows = [r for r in prof.rows if r.gflops is not None and "conv" in r.op]
    conv_modules = {name for name, m in modules.items() if isinstance(m, torch.nn.Conv2d)}
    # every conv of the model has a row naming it (the shortcut 1x1 conv too)
    assert {r.module for r in conv_rows} == conv_modules
    for r in prof.rows:
        assert r.module in modules, r
    assert any(r.module.startswith("encoder.stages.1.layers.0") for r in conv_rows)


def test_instrumented_loop_ir_compiles_and_runs() -> None:
    """compiler-opt's output of instrument-stages, compiled as it is: the marks' callee is
    found (no LinkError), and without a profile recording they store nothing."""
    text = """
    loop.func @copy(%A: !loop.buffer<[64], f32>, %B: !loop.buffer<[64], f32> {loop.output}) {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      loop.for %i = %c0 extent %c64 {
        %v = loop.load %A[%i] : !loop.buffer<[64], f32>
        loop.store %v, %B[%i] : !loop.buffer<[64], f32>
      }
    }
    """
    ctx = make_context()
    module = Parser(ctx, text).parse_module()
    InstrumentStagesPass().apply(ctx, module)
    f = compile_module(module, "copy", cache=False)
    a, b = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    f(a, b)
    np.testing.assert_array_equal(a, b)
