"""The on-disk object cache, shared libraries (`Function.export_library`), loading them
back without xDSL or LLVM (`compiler.load_module`), and calling one from C.

Every test points the cache at its own `tmp_path` (conftest.py already keeps the
whole run away from ~/.cache); none depends on an earlier run.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import compiler
from compiler import te
from compiler.lowering.object_cache import (
    CacheWarning,
    ObjectCache,
    cache_dir,
    cache_enabled,
    cache_key,
)
from compiler.runtime.module import FORMAT, METADATA_SYMBOL, ModuleMetadata, load_module
from compiler.runtime.packed import ErrorEntry

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty cache folder for this test (and its subprocesses)."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("COMPILER_CACHE_DIR", str(folder))
    monkeypatch.delenv("COMPILER_CACHE", raising=False)
    return folder


def entries(folder: Path) -> list[Path]:
    objects = folder / "objects"
    return sorted(objects.iterdir()) if objects.exists() else []


def add_program(parallel: bool = False) -> tuple[compiler.Function, tuple[np.ndarray, ...]]:
    """C[i, j] = A[i, j] + 2 * B[j] over a symbolic n, optionally on OpenMP threads."""
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    B = te.placeholder((16,), name="B")
    C = te.compute((n, 16), lambda i, j: A[i, j] + B[j] * 2.0, name="C")
    s = te.create_schedule(C.op)
    if parallel:
        s[C].parallel(C.op.axis[0])
    f = compiler.build(s, [A, B, C], name="add2")
    rng = np.random.default_rng(0)
    a = rng.random((7, 16), np.float32)
    b = rng.random(16, np.float32)
    return f, (a, b, np.zeros((7, 16), np.float32))


def check_add(f, a: np.ndarray, b: np.ndarray) -> None:
    c = np.zeros_like(a)
    f(a, b, c)
    np.testing.assert_allclose(c, a + 2 * b, rtol=1e-6)


def error_of(f, *arrays: object) -> tuple[type, str]:
    with pytest.raises((TypeError, ValueError)) as info:
        f(*arrays)
    return type(info.value), str(info.value)


def bad_calls(a: np.ndarray, b: np.ndarray) -> list[tuple[object, ...]]:
    """Calls that fail one check each: count, dtype, shape, not an array, read-only output."""
    readonly = np.zeros_like(a)
    readonly.flags.writeable = False
    return [
        (a, b),
        (a.astype(np.float64), b, np.zeros_like(a)),
        (a, b, np.zeros((8, 16), np.float32)),
        (a, b[:8], np.zeros_like(a)),
        (a, [1.0] * 16, np.zeros_like(a)),
        (a, b, readonly),
    ]


# ---------------------------------------------------------------------------
# The object cache
# ---------------------------------------------------------------------------


def test_second_build_loads_the_object(cache: Path) -> None:
    first, (a, b, _) = add_program()
    assert not first.from_cache
    assert len(entries(cache)) == 1
    second, _ = add_program()
    assert second.from_cache
    check_add(first, a, b)
    check_add(second, a, b)
    assert len(entries(cache)) == 1
    # what LLVM would have shown is still there, computed when asked for
    assert "@add2(" in second.llvm_ir.replace('"', "")
    assert "llvm.func @add2" in second.llvm_dialect_ir


def test_errors_are_the_same_from_the_cache(cache: Path) -> None:
    first, (a, b, _) = add_program()
    second, _ = add_program()
    assert second.from_cache
    for call in bad_calls(a, b):
        assert error_of(second, *call) == error_of(first, *call)


def test_parallel_program_from_the_cache(cache: Path) -> None:
    _first, (a, b, _) = add_program(parallel=True)
    second, _ = add_program(parallel=True)
    assert second.from_cache
    check_add(second, a, b)


SCRIPT = """
import sys
import numpy as np
import compiler
from compiler import te
from compiler.lowering import jit

if sys.argv[1] == "warm":  # LLVM must not run: the object comes from the cache
    def boom(*args, **kwargs):
        raise AssertionError("LLVM ran although the object was cached")
    jit.optimize = jit.to_llvm_ir = boom

n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 3.0 + 1.0, name="B")
f = compiler.build([A, B], name="axpb")
a = np.arange(10, dtype=np.float32)
b = np.empty_like(a)
f(a, b)
assert np.array_equal(b, a * 3 + 1), b
print("from_cache", f.from_cache)
"""


def run_script(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_second_process_skips_llvm(cache: Path) -> None:
    cold = run_script("cold")
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.split() == ["from_cache", "False"]
    warm = run_script("warm")
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.split() == ["from_cache", "True"]


def test_two_processes_write_at_once(cache: Path) -> None:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SCRIPT, "cold"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        for _ in range(2)
    ]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.startswith("from_cache")
    assert len(entries(cache)) == 1  # one whole entry, no temporary file left behind
    assert run_script("warm").stdout.split() == ["from_cache", "True"]


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda data: data[: len(data) // 2], "truncated"),
        (lambda data: data[:20], "truncated"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]), "checksum"),
        (lambda data: b"garbage!" + data[8:], "bad magic"),
        (lambda data: b"", "truncated"),
    ],
    ids=["half", "header", "flipped-byte", "magic", "empty"],
)
def test_damaged_entry_is_compiled_again(cache: Path, damage, problem: str) -> None:
    _first, (a, b, _) = add_program()
    (entry,) = entries(cache)
    entry.write_bytes(damage(entry.read_bytes()))
    with pytest.warns(CacheWarning, match=problem):
        again, _ = add_program()
    assert not again.from_cache
    check_add(again, a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the entry was overwritten with a good one
        third, _ = add_program()
    assert third.from_cache
    check_add(third, a, b)


def test_cache_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPILER_CACHE", "0")
    assert not cache_enabled()
    f, (a, b, _) = add_program()
    g, _ = add_program()
    assert not f.from_cache
    assert not g.from_cache
    assert entries(cache) == []
    check_add(g, a, b)


def test_cache_off_per_call(cache: Path) -> None:
    from compiler.driver import compile_module
    from compiler.te.to_ir import build_module

    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1.0, name="B")
    for _ in range(2):
        module, _sig = build_module([A, B], "inc", None)
        f = compile_module(module, "inc", cache=False)
        assert not f.from_cache
    assert entries(cache) == []
    module, _sig = build_module([A, B], "inc", None)
    assert not compile_module(module, "inc").from_cache
    module, _sig = build_module([A, B], "inc", None)
    assert compile_module(module, "inc").from_cache


def test_unwritable_cache_warns_and_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("COMPILER_CACHE_DIR", str(blocker / "cache"))
    with pytest.warns(CacheWarning, match="cannot write"):
        f, (a, b, _) = add_program()
    check_add(f, a, b)


def test_cache_folder_follows_the_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPILER_CACHE_DIR", str(tmp_path / "explicit"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("COMPILER_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "xdsl-tensor-compiler"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "xdsl-tensor-compiler"
    for off in ("0", "false", "OFF", "no"):
        monkeypatch.setenv("COMPILER_CACHE", off)
        assert not cache_enabled()
        assert cache_enabled(True)
    monkeypatch.setenv("COMPILER_CACHE", "1")
    assert cache_enabled()
    assert not cache_enabled(False)


def test_key_names_program_kind_and_target() -> None:
    target = {"triple": "x86_64-unknown-linux-gnu", "cpu": "skylake", "features": "+avx2"}
    key = cache_key("program", kind="jit", target=target)
    assert key == cache_key("program", kind="jit", target=dict(target))
    assert key != cache_key("program 2", kind="jit", target=target)
    assert key != cache_key("program", kind="pic", target=target)
    assert key != cache_key("program", kind="jit", target={**target, "cpu": "znver3"})
    assert key != cache_key("program", kind="jit", target={**target, "features": "-avx2"})


def test_entry_of_another_key_is_rejected(tmp_path: Path) -> None:
    store = ObjectCache(tmp_path)
    k1, k2 = "1" * 64, "2" * 64
    store.store(k1, b"object one")
    assert store.load(k1) == b"object one"
    shutil.copy(store.path(k1), store.path(k2))
    with pytest.warns(CacheWarning, match="another key"):
        assert store.load(k2) is None
    assert sorted(p.name for p in (tmp_path / "objects").iterdir()) == [f"{k1}.o", f"{k2}.o"]


# ---------------------------------------------------------------------------
# Build entries: a warm build runs no pass
# ---------------------------------------------------------------------------


def builds(folder: Path, level: str = "builds") -> list[Path]:
    """The build entries keyed by the te module's text (`level="graphs"`: by the Python
    program, read first: `compiler.graph_cache`)."""
    found = folder / level
    return sorted(found.iterdir()) if found.exists() else []


def twice_program(
    split: int | None = None, **options: object
) -> tuple[compiler.Function, tuple[np.ndarray, ...]]:
    """C[i, j] = B[i, j] + B[i, 15 - j], B = 2 A over a symbolic n: B is an intermediate
    buffer of n * 64 bytes (a symbolic memory plan)."""
    n = te.var("n")
    A = te.placeholder((n, 16), name="A")
    B = te.compute((n, 16), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((n, 16), lambda i, j: B[i, j] + B[i, 15 - j], name="C")
    s = te.create_schedule(C.op)
    if split is not None:
        s[C].split(C.op.axis[1], factor=split)
    f = compiler.build(s, [A, C], name="twice", **options)
    a = np.random.default_rng(1).random((5, 16), np.float32)
    return f, (a, 2 * a + 2 * a[:, ::-1])


@pytest.fixture
def pass_runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The functions whose passes `compile_module` ran, in order."""
    build_module = importlib.import_module("compiler.driver.cache")  # where the passes run on a hit
    compile_module = importlib.import_module("compiler.driver.compile")  # where a miss runs them

    ran: list[str] = []
    lower = compile_module.lower_to_flat

    def counting(module, name, options, texts=None):  # type: ignore[no-untyped-def]
        ran.append(name)
        return lower(module, name, options, texts)

    monkeypatch.setattr(build_module, "lower_to_flat", counting)
    monkeypatch.setattr(compile_module, "lower_to_flat", counting)
    return ran


def run_twice(f: compiler.Function, a: np.ndarray) -> np.ndarray:
    c = np.zeros_like(a)
    f(a, c)
    return c


def test_warm_build_runs_no_pass(cache: Path, pass_runs: list[str]) -> None:
    cold, (a, expected) = twice_program()
    assert pass_runs == ["twice"]
    assert len(builds(cache)) == 1
    warm, _ = twice_program()
    assert pass_runs == ["twice"]  # nothing lowered: specs, errors and memory plan came from the entry
    assert warm.from_cache
    assert set(warm.stats.seconds) >= {"passes", "llvm", "total"}
    np.testing.assert_allclose(run_twice(warm, a), expected, rtol=1e-6)
    assert warm.specs == cold.specs
    assert warm.specs[0].dims == ("n", 16)
    assert warm._errors == cold._errors
    assert warm.memory == cold.memory
    assert warm.memory is not None
    assert warm.memory.arena == "n * 64"
    assert [b.size for b in warm.memory.buffers] == ["n * 64"]
    for call in [(a,), (a, np.zeros((6, 16), np.float32)), (a.astype(np.float64), np.zeros_like(a))]:
        assert error_of(warm, *call) == error_of(cold, *call)
    # the IR texts are computed on first use, by running the passes on a copy (for the
    # cold build too: its passes did not print them)
    assert warm.loop_ir == cold.loop_ir
    assert pass_runs == ["twice", "twice", "twice"]
    assert warm.flat_ir == cold.flat_ir
    assert pass_runs == ["twice", "twice", "twice"]
    assert warm.llvm_dialect_ir == cold.llvm_dialect_ir
    assert "define" in warm.llvm_ir
    assert len(entries(cache)) == 1  # reading the IR compiled nothing


@pytest.mark.parametrize(
    "changed",
    [{"check_bounds": True}, {"fast_math": True}, {"loop_partition": False}, {"split": 4}],
    ids=["check_bounds", "fast_math", "loop_partition", "schedule"],
)
def test_changed_option_or_schedule_misses(cache: Path, pass_runs: list[str], changed: dict) -> None:
    twice_program()
    f, (a, expected) = twice_program(**changed)
    assert pass_runs == ["twice", "twice"]
    np.testing.assert_allclose(run_twice(f, a), expected, rtol=1e-6)
    assert len(builds(cache)) == 2
    again, _ = twice_program(**changed)
    assert again.from_cache
    assert pass_runs == ["twice", "twice"]
    assert again.memory == f.memory


def test_key_names_function_and_options() -> None:
    from compiler.driver.cache import build_key
    from compiler.driver.lowered import CompileOptions

    options = CompileOptions()
    key = build_key("module", "f", options)
    assert key == build_key("module", "f", CompileOptions())
    assert key != build_key("module 2", "f", options)
    assert key != build_key("module", "g", options)
    for field, value in [
        ("order", ("B", "A")),
        ("strided", ("A",)),
        ("tighten_pad_regions", False),
        ("check_bounds", True),
        ("auto_schedule", True),
        ("loop_partition", False),
        ("fast_math", True),
        ("fp_contract", False),
    ]:
        assert key != build_key("module", "f", dataclasses.replace(options, **{field: value})), field


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda data: data[: len(data) // 2], "truncated"),
        (lambda data: data[:-1] + bytes([data[-1] ^ 0xFF]), "checksum"),
        (lambda data: b"", "truncated"),
    ],
    ids=["half", "flipped-byte", "empty"],
)
def test_damaged_build_entry_is_compiled_again(cache: Path, pass_runs: list[str], damage, problem: str) -> None:
    cold, (a, expected) = twice_program()
    (entry,) = builds(cache)
    (graph,) = builds(cache, "graphs")
    for damaged in (entry, graph):  # both levels: the build reads the program's, then the module's
        damaged.write_bytes(damage(damaged.read_bytes()))
    with pytest.warns(CacheWarning, match=problem) as caught:
        again, _ = twice_program()
    assert {str(w.message).split(" is ")[0] for w in caught} == {f"compiler cache: {graph}", f"compiler cache: {entry}"}
    assert pass_runs == ["twice", "twice"]  # the passes ran again (the object was still cached)
    np.testing.assert_allclose(run_twice(again, a), expected, rtol=1e-6)
    assert again.memory == cold.memory
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the entry was overwritten with a good one
        third, _ = twice_program()
    assert pass_runs == ["twice", "twice"]
    assert third.from_cache


def test_unreadable_build_entry_is_compiled_again(cache: Path, pass_runs: list[str]) -> None:
    from compiler.lowering.object_cache import build_cache, graph_cache

    twice_program()
    (entry,) = builds(cache)
    (graph,) = builds(cache, "graphs")
    build_cache().store(entry.stem, b'{"object": "0", "specs": []}')  # a whole entry, but not one we read
    graph_cache().store(graph.stem, b'{"object": "0", "specs": []}')
    with pytest.warns(CacheWarning, match="unreadable") as caught:
        again, (a, expected) = twice_program()
    assert len(caught) == 2  # both levels
    assert pass_runs == ["twice", "twice"]
    np.testing.assert_allclose(run_twice(again, a), expected, rtol=1e-6)
    assert twice_program()[0].from_cache
    assert pass_runs == ["twice", "twice"]


def test_build_entry_without_its_object_compiles_again(cache: Path, pass_runs: list[str]) -> None:
    twice_program()
    for path in entries(cache):
        path.unlink()
    f, (a, expected) = twice_program()
    assert not f.from_cache
    assert pass_runs == ["twice", "twice"]
    np.testing.assert_allclose(run_twice(f, a), expected, rtol=1e-6)


def test_no_build_entry_without_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch, pass_runs: list[str]) -> None:
    twice_program()
    twice_program(check_bounds=True)
    monkeypatch.setenv("COMPILER_CACHE", "0")
    f, _ = twice_program()
    assert not f.from_cache
    assert pass_runs == ["twice"] * 3
    monkeypatch.delenv("COMPILER_CACHE")
    with pytest.MonkeyPatch.context() as m:
        m.setenv("COMPILER_CACHE_DIR", str(cache.parent / "other"))
        twice_program()
    assert len(builds(cache.parent / "other")) == 1
    assert len(builds(cache)) == 2


WARM_SCRIPT = """
import json
import sys
import numpy as np
import compiler
import compiler.driver.cache
from compiler import te

api = sys.modules["compiler.driver.cache"]
warm = sys.argv[1] == "warm"
if warm:  # no pass may run (nor LLVM: the pipeline and `jit` must not even be imported)
    def boom(*args, **kwargs):
        raise AssertionError("a pass ran although the build was cached")
    saved = api.lower_to_flat
    api.lower_to_flat = boom

n = te.var("n")
A = te.placeholder((n, 16), name="A")
B = te.compute((n, 16), lambda i, j: A[i, j] * 2.0, name="B")
C = te.compute((n, 16), lambda i, j: B[i, j] + B[i, 15 - j], name="C")
f = compiler.build(te.create_schedule(C.op), [A, C], name="twice")
a = np.arange(48, dtype=np.float32).reshape(3, 16)
c = np.zeros_like(a)
f(a, c)
assert np.array_equal(c, 2 * a + 2 * a[:, ::-1]), c
heavy = ("compiler.pipeline", "compiler.passes", "compiler.lowering.jit", "xdsl.backend.llvm.convert", "xdsl.dialects.llvm")
backend = [m for m in heavy if m in sys.modules]
if warm:
    api.lower_to_flat = saved
print(json.dumps({"from_cache": f.from_cache, "backend": backend, "memory": f.memory.as_dict(), "specs": list(map(str, f.specs)),
                  "loop_ir": f.loop_ir, "flat_ir": f.flat_ir}))
"""


def test_second_process_runs_no_pass(cache: Path) -> None:
    runs = {}
    for mode in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", WARM_SCRIPT, mode], capture_output=True, text=True, cwd=ROOT, check=False
        )
        assert done.returncode == 0, done.stderr
        runs[mode] = json.loads(done.stdout)
    assert [runs["cold"].pop("from_cache"), runs["warm"].pop("from_cache")] == [False, True]
    assert runs["cold"].pop("backend") != []
    assert runs["warm"].pop("backend") == []  # loading the object needs llvmlite's bindings only
    assert runs["warm"] == runs["cold"]  # memory plan (symbolic), specs and the recomputed IR
    assert runs["warm"]["memory"]["arena"] == "n * 64"


# ---------------------------------------------------------------------------
# Shared libraries
# ---------------------------------------------------------------------------

needs_cc = pytest.mark.skipif(
    not (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")),
    reason="no C compiler (cc, gcc, clang) to link a shared library with",
)


@needs_cc
@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "openmp"])
def test_export_and_load(cache: Path, tmp_path: Path, parallel: bool) -> None:
    f, (a, b, _) = add_program(parallel=parallel)
    path = f.export_library(tmp_path / "add2.so")
    assert path == tmp_path / "add2.so"
    assert path.exists()
    g = load_module(path)
    assert compiler.load_module is load_module
    check_add(g, a, b)
    assert [(s.name, s.dims, s.dtype, s.is_output) for s in g.specs] == [
        (s.name, tuple(s.dims), s.dtype, s.is_output) for s in f.specs
    ]
    assert g.specs[0].dims == ("n", 16)
    for call in bad_calls(a, b):
        assert error_of(g, *call) == error_of(f, *call)
    meta = g.metadata
    assert meta.name == "add2"
    assert meta.openmp == parallel
    assert meta.compiler_version == compiler.__version__


@needs_cc
def test_export_of_a_cached_function(cache: Path, tmp_path: Path) -> None:
    add_program()
    f, (a, b, _) = add_program()
    assert f.from_cache  # nothing was lowered to the llvm dialect yet
    check_add(load_module(f.export_library(tmp_path / "lib" / "add2.so")), a, b)
    # the position-independent object is cached too: exporting again runs no LLVM
    assert len(entries(cache)) == 2
    f.export_library(tmp_path / "again.so")
    assert len(entries(cache)) == 2


LOADER = """
import sys
import numpy as np
import compiler

f = compiler.load_module(sys.argv[1])
a = np.arange(32, dtype=np.float32).reshape(2, 16)
b = np.ones(16, np.float32)
c = np.zeros_like(a)
f(a, b, c)
assert np.array_equal(c, a + 2), c
try:
    f(a, b, np.zeros((3, 16), np.float32))
except ValueError as err:
    print(err)
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"xdsl", "llvmlite", "islpy"})
print("imported:", heavy)
"""


@needs_cc
def test_loading_needs_no_compiler(cache: Path, tmp_path: Path) -> None:
    f, (a, b, _) = add_program(parallel=True)
    path = f.export_library(tmp_path / "add2.so")
    expected = error_of(f, a[:2], b, np.zeros((3, 16), np.float32))[1]
    done = subprocess.run(
        [sys.executable, "-c", LOADER, str(path)], capture_output=True, text=True, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [expected, "imported: []"]


@needs_cc
def test_metadata_is_embedded(cache: Path, tmp_path: Path) -> None:
    import ctypes

    f, _ = add_program()
    path = f.export_library(tmp_path / "lib" / "add2.so")
    assert list(path.parent.iterdir()) == [path]  # no file next to the library
    library = ctypes.CDLL(str(path))
    start = ctypes.c_char.in_dll(library, METADATA_SYMBOL)
    data = json.loads(ctypes.string_at(ctypes.addressof(start)))
    assert data["name"] == "add2"
    assert data["abi"] == "int32_t(DLTensor **args, int32_t num_args, int64_t *error_values)"
    assert [a["name"] for a in data["args"]] == ["A", "B", "C"]
    assert len(data["errors"]) == len(f._packed.errors)
    assert ModuleMetadata.from_json(json.dumps(data)).errors == f._packed.errors


def test_load_module_starts_light() -> None:
    """`compiler.load_module` needs ctypes only: no xDSL, no LLVM, and no NumPy until an
    array (or an int for a scalar argument) is passed."""
    code = (
        "import sys, compiler\n"
        "compiler.load_module\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'xdsl', 'llvmlite', 'islpy'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"]


def test_load_module_rejects_other_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_module(tmp_path / "missing.so")
    import _ctypes  # a shared library that export_library did not write

    with pytest.raises(ValueError, match="not a library written by export_library"):
        load_module(_ctypes.__file__)
    with pytest.raises(ValueError, match="unknown metadata format"):
        ModuleMetadata.from_json('{"format": "something-else"}')


def test_metadata_of_the_older_format_still_loads() -> None:
    """module-1 libraries (at most 4 error values) load: the caller's array of 6 holds them."""
    metadata = ModuleMetadata("f", [], [ErrorEntry("f: x is {0}", "ValueError", 1)])
    text = metadata.to_json()
    assert f'"format":"{FORMAT}"' in text
    assert FORMAT.endswith("module-2")
    assert ModuleMetadata.from_json(text) == metadata
    older = text.replace(FORMAT, "xdsl-tensor-compiler/module-1")
    assert ModuleMetadata.from_json(older) == metadata


def test_export_without_a_c_compiler(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compiler.lowering.export import LinkerNotFoundError

    f, _ = add_program()
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(LinkerNotFoundError, match="needs a C compiler"):
        f.export_library(tmp_path / "add2.so")
    assert not (tmp_path / "add2.so").exists()


@needs_cc
def test_link_failure_is_reported(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f, _ = add_program()
    monkeypatch.setenv("CC", "false")
    with pytest.raises(RuntimeError, match=r"linking add2\.so failed"):
        f.export_library(tmp_path / "add2.so")
    assert list(tmp_path.glob("*add2.so*")) == []


# ---------------------------------------------------------------------------
# A C caller
# ---------------------------------------------------------------------------

C_PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>

/* dlpack.h, the part the ABI needs */
typedef struct { int32_t device_type; int32_t device_id; } DLDevice;
typedef struct { uint8_t code; uint8_t bits; uint16_t lanes; } DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

enum { kDLCPU = 1, kDLFloat = 2 };

int32_t add2(DLTensor **args, int32_t num_args, int64_t *error_values);

static DLTensor matrix(float *data, int64_t *shape) {
  DLTensor t = {data, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0};
  return t;
}

static DLTensor vector(float *data, int64_t *shape) {
  DLTensor t = {data, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, shape, NULL, 0};
  return t;
}

int main(void) {
  float a[3 * 16], b[16], c[4 * 16];
  int64_t a_shape[2] = {3, 16}, b_shape[1] = {16}, c_shape[2] = {3, 16}, bad_shape[2] = {4, 16};
  int64_t error_values[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 3 * 16; i++) a[i] = (float)i;
  for (int j = 0; j < 16; j++) b[j] = 0.5f * (float)j;
  DLTensor ta = matrix(a, a_shape), tb = vector(b, b_shape), tc = matrix(c, c_shape);
  DLTensor *args[3] = {&ta, &tb, &tc};

  int32_t status = add2(args, 3, error_values);
  printf("status %d\n", status);
  for (int i = 0; i < 3; i++) {
    printf("row %d:", i);
    for (int j = 0; j < 16; j += 5) printf(" %g", c[i * 16 + j]);
    printf("\n");
  }

  DLTensor wrong = matrix(c, bad_shape);
  args[2] = &wrong;
  status = add2(args, 3, error_values);
  printf("status %d values %lld %lld\n", status, (long long)error_values[0], (long long)error_values[1]);

  status = add2(args, 2, error_values);
  printf("status %d values %lld %lld\n", status, (long long)error_values[0], (long long)error_values[1]);
  return 0;
}
"""


@needs_cc
def test_c_program_calls_the_library(cache: Path, tmp_path: Path) -> None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert cc is not None
    f, _ = add_program(parallel=True)
    library = f.export_library(tmp_path / "libadd2.so")
    (tmp_path / "main.c").write_text(C_PROGRAM)
    build = subprocess.run(
        [cc, "-std=c11", "-Wall", "-o", "main", "main.c", str(library), f"-Wl,-rpath,{tmp_path}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./main"], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    a = np.arange(48, dtype=np.float32).reshape(3, 16)
    expected = a + 2 * (0.5 * np.arange(16, dtype=np.float32))
    assert lines[0] == "status 0"
    for i in range(3):
        assert lines[1 + i] == f"row {i}: " + " ".join(f"{v:g}" for v in expected[i, ::5])
    # the failure codes and values are the ones the Python side turns into its messages
    g = load_module(library)
    b = 0.5 * np.arange(16, dtype=np.float32)
    for line, call in [
        (lines[4], (a, b, np.zeros((4, 16), np.float32))),  # C.shape[0] is 4, expected n = 3
        (lines[5], (a, b)),  # 2 arguments instead of 3
    ]:
        word, code, _values, *values = line.split()
        assert word == "status"
        assert int(code) > 0
        error = g._packed.error(int(code), [int(v) for v in values])
        assert (type(error), str(error)) == error_of(g, *call)
    assert lines[4].split()[3:] == ["4", "3"]
