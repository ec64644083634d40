"""LLVM in worker processes (compiler/lowering/llvm_pool.py): a function's module a job,
the objects loaded into one engine; failures surface as CompilerErrors, never hangs."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from references import conv2d_reference

import compiler
from compiler import ops, te
from compiler.errors import CompilerError, InternalError, ModuleLoadError
from compiler.lowering import engine, jit, llvm_pool

WAIT = 60  # seconds: a result that takes longer is a hang

# two modules, each defining one function and declaring the other's: neither links alone
TWICE = 'define i64 @"twice"(i64 %x) {\n  %y = mul i64 %x, 2\n  ret i64 %y\n}\n'
CALLER = (
    'declare i64 @"twice"(i64)\n'
    'define i64 @"twice_plus_one"(i64 %x) {\n'
    '  %y = call i64 @"twice"(i64 %x)\n  %z = add i64 %y, 1\n  ret i64 %z\n}\n'
)


@pytest.fixture
def fresh_pool(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The shared pool started again for the test (with the test's settings) and after it;
    builds compile (no cache)."""
    monkeypatch.setenv("COMPILER_CACHE", "0")
    monkeypatch.setattr(llvm_pool, "_unavailable", False)
    llvm_pool._close_shared()
    yield
    monkeypatch.undo()
    llvm_pool._close_shared()


def test_two_modules_compile_in_workers_and_call_each_other() -> None:
    pool = llvm_pool.LLVMPool(2)
    try:
        jobs = [pool.submit(TWICE), pool.submit(CALLER)]
        objects = [job.result(timeout=WAIT) for job in jobs]
    finally:
        pool.close()
    bundle = engine.pack_objects(objects)
    assert engine.unpack_objects(bundle) == objects
    loaded = engine.load_object(bundle)
    call = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(
        loaded.get_function_address("twice_plus_one")
    )
    assert call(20) == 41


def test_a_single_object_is_its_own_bundle() -> None:
    obj = engine.object_of(TWICE)
    assert engine.pack_objects([obj]) == obj
    assert engine.unpack_objects(obj) == [obj]
    bundle = engine.pack_objects([obj, obj])
    for cut in (len(engine.BUNDLE_MAGIC) + 2, len(engine.BUNDLE_MAGIC) + 9, len(bundle) - 1):
        with pytest.raises(ModuleLoadError, match="truncated"):  # in the header too
            engine.unpack_objects(bundle[:cut])


def _conv_relu() -> tuple[list[te.Tensor], np.ndarray, list[np.ndarray]]:
    x = te.placeholder((1, 8, 12, 12), name="x")
    w = te.placeholder((8, 8, 3, 3), name="w")
    y = ops.relu(ops.conv2d_nchw(x, w, padding=1, name="y"), name="r")
    rng = np.random.default_rng(7)
    a = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    k = rng.standard_normal((8, 8, 3, 3)).astype(np.float32)
    expected = np.maximum(
        conv2d_reference(a.astype(np.float64), k.astype(np.float64), stride=1, pad=1), 0
    )
    return [x, w, y], expected, [a, k]


def _check_runs(f: compiler.Function, expected: np.ndarray, inputs: list[np.ndarray]) -> None:
    out = np.zeros(expected.shape, np.float32)
    f(*inputs, out)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_a_build_compiles_each_function_in_a_worker(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)  # this small program too
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="pooled")
    objects = engine.unpack_objects(f._jit.object_code)
    assert len(objects) >= 2  # the packed function and its compute function at least
    _check_runs(f, expected, inputs)
    # the IR texts are made in this process when asked for: one module, as without workers
    assert "@pooled_compute" in f.llvm_ir


def test_the_packed_function_is_compiled_at_its_own_level(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    """The packed function (argument checks, run once a call) goes to the workers at
    `PACKED_ENTRY_OPT`, every other function at the build's level; the program runs."""
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    levels: dict[str, int] = {}
    submit = llvm_pool.LLVMPool.submit

    def recording(self: llvm_pool.LLVMPool, text: str, *, opt: int = 3, pic: bool = False) -> Future[bytes]:
        defined = text.split("define ", 1)[1]
        levels[defined.split('@"', 1)[1].split('"', 1)[0]] = opt
        return submit(self, text, opt=opt, pic=pic)

    monkeypatch.setattr(llvm_pool.LLVMPool, "submit", recording)
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="levels")
    _check_runs(f, expected, inputs)
    assert levels.pop("levels") == jit.PACKED_ENTRY_OPT < 3
    assert levels
    assert set(levels.values()) == {3}, levels


def test_a_small_program_compiles_in_process(monkeypatch: pytest.MonkeyPatch, fresh_pool: None) -> None:
    """Below `POOL_MIN_OPS`, the workers' start-up would cost more than they gain."""
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="small")
    assert not f._jit.object_code.startswith(engine.BUNDLE_MAGIC)
    assert llvm_pool._shared is None  # not started
    _check_runs(f, expected, inputs)


def test_without_workers_the_build_compiles_in_process(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "0")
    assert llvm_pool.shared_pool() is None
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="in_process")
    assert not f._jit.object_code.startswith(engine.BUNDLE_MAGIC)  # one linked object
    _check_runs(f, expected, inputs)


def test_an_llvm_error_in_a_worker_is_a_compiler_error() -> None:
    pool = llvm_pool.LLVMPool(1)
    try:
        bad = pool.submit(
            'define i32 @"f"() {\n  ret i64 0\n}\n'
        )  # the wrong type: LLVM rejects it
        with pytest.raises(InternalError, match="LLVM failed"):
            bad.result(timeout=WAIT)
        assert pool.submit(TWICE).result(timeout=WAIT)  # the worker goes on
    finally:
        pool.close()


def test_a_worker_that_dies_fails_its_jobs() -> None:
    pool = llvm_pool.LLVMPool(1)
    try:
        assert pool.submit(TWICE).result(timeout=WAIT)  # started
        pool._workers[0].process.kill()
        pool._workers[0].process.wait()
        with pytest.raises(llvm_pool.WorkerDied, match="exited"):
            pool.submit(TWICE).result(timeout=WAIT)
        assert not pool.healthy
    finally:
        pool.close()


def test_a_dead_shared_pool_is_replaced(monkeypatch: pytest.MonkeyPatch, fresh_pool: None) -> None:
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "1")
    first = llvm_pool.shared_pool()
    assert first is not None
    assert first.submit(TWICE).result(timeout=WAIT)
    first._workers[0].process.kill()
    first._workers[0].process.wait()
    second = llvm_pool.shared_pool()
    assert second is not None
    assert second is not first
    assert second.submit(TWICE).result(timeout=WAIT)


def test_a_build_works_when_the_workers_cannot_start(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    """Workers that exit at once: the build's jobs are compiled in this process (an object
    per function, as the workers would have made), and the process starts no pool again."""
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)  # this small program too
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    monkeypatch.setattr(
        llvm_pool, "worker_command", lambda: [sys.executable, "-c", "raise SystemExit(3)"]
    )
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="fallback")
    _check_runs(f, expected, inputs)
    assert len(engine.unpack_objects(f._jit.object_code)) >= 2  # sent to the pool, done here
    assert llvm_pool.shared_pool() is None  # remembered: no second start
    pool = llvm_pool.LLVMPool(1)
    try:
        with pytest.raises(llvm_pool.WorkerUnavailable, match="before it started"):
            pool.submit(TWICE).result(timeout=WAIT)
    finally:
        pool.close()


def test_a_build_works_when_no_worker_can_be_run(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)  # this small program too
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    monkeypatch.setattr(llvm_pool, "worker_command", lambda: ["/nonexistent/python"])
    assert llvm_pool.shared_pool() is None
    args, expected, inputs = _conv_relu()
    _check_runs(compiler.build(args, name="no_workers"), expected, inputs)


def test_a_lowering_failure_with_workers_raises_it(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None
) -> None:
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)  # this small program too
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")

    def lower() -> object:
        raise CompilerError("lowering failed")

    with pytest.raises(CompilerError, match="lowering failed"):
        jit.compile_object(lower, "a program that does not lower", cache=False)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", "7", "x"])
def test_the_worker_count_reads_the_environment(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, text)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    assert llvm_pool.worker_count() == (7 if text == "7" else cores if cores > 1 else 0)


def test_a_library_links_the_objects_of_the_workers(
    monkeypatch: pytest.MonkeyPatch, fresh_pool: None, tmp_path: Path
) -> None:
    monkeypatch.setattr(jit, "POOL_MIN_OPS", 0)
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "2")
    args, expected, inputs = _conv_relu()
    f = compiler.build(args, name="exported")
    shared = f._jit.shared_object(cache=False)
    assert len(engine.unpack_objects(shared)) >= 2
    _check_runs(compiler.load_module(f.export_library(tmp_path / "exported.so", cache=False)), expected, inputs)


def test_a_forked_child_starts_its_own_pool(monkeypatch: pytest.MonkeyPatch, fresh_pool: None) -> None:
    monkeypatch.setenv(llvm_pool.ENV_WORKERS, "1")
    parent = llvm_pool.shared_pool()
    assert parent is not None
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child: a pool of its own compiles
        ok = False
        with contextlib.suppress(BaseException):
            pool = llvm_pool.shared_pool()
            ok = pool is not None and pool is not parent and bool(pool.submit(TWICE).result(timeout=WAIT))
        os.write(write, b"1" if ok else b"0")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.close(read)
    os.waitpid(child, 0)
    assert answer == b"1"
    assert llvm_pool.shared_pool() is parent  # the parent's is untouched
    assert parent.submit(TWICE).result(timeout=WAIT)


@pytest.mark.parametrize("error", [llvm_pool.WorkerDied("killed"), InternalError("LLVM failed on a function's module")])
def test_jobs_of_a_dead_worker_compile_here_and_llvm_errors_raise(error: InternalError) -> None:
    """A worker that died mid-build (killed, out of memory) leaves its functions' texts:
    they are compiled in this process. An LLVM error in a job raises."""
    compilation = jit._Compilation(3, pic=False, workers=False)
    done: Future[bytes] = Future()
    done.set_result(engine.object_of(TWICE, opt=3, pic=False))
    failed: Future[bytes] = Future()
    failed.set_exception(error)
    compilation.jobs = [(TWICE, 3, done), (CALLER, 3, failed)]
    if isinstance(error, llvm_pool.WorkerDied):
        loaded = engine.load_object(compilation.finish()[0])
        call = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(loaded.get_function_address("twice_plus_one"))
        assert call(20) == 41
    else:
        with pytest.raises(InternalError, match="LLVM failed"):
            compilation.finish()


def test_whole_messages_cross_streams_that_take_and_give_a_few_bytes_a_call() -> None:
    """A raw stream (stdout under `python -u`) writes and reads what one system call does:
    part of a message when a signal interrupts it. `_write` and `_read` carry it whole."""

    class Trickle:
        def __init__(self) -> None:
            self.data = bytearray()
            self.at = 0

        def write(self, data: memoryview) -> int:
            self.data += bytes(data[:1000])
            return min(len(data), 1000)

        def read(self, size: int) -> bytes:
            part = bytes(self.data[self.at : self.at + min(size, 777)])
            self.at += len(part)
            return part

        def flush(self) -> None:
            pass

    stream = Trickle()
    message = (7, os.urandom(600_000), None)
    llvm_pool._write(stream, message)  # type: ignore[arg-type]
    llvm_pool._write(stream, "next")  # type: ignore[arg-type]
    assert llvm_pool._read(stream) == message  # type: ignore[arg-type]
    assert llvm_pool._read(stream) == "next"  # type: ignore[arg-type]
    assert llvm_pool._read(stream) is None  # type: ignore[arg-type]


def test_an_unbuffered_worker_interrupted_by_signals_answers_whole() -> None:
    """A worker whose stdout is raw (PYTHONUNBUFFERED=1, common in containers), its writes
    interrupted by signals (as py-spy's samples do), still delivers every object: the
    rest of a partly written answer was lost, and the build waited forever."""
    import signal
    import time

    root = str(Path(llvm_pool.__file__).resolve().parents[2])
    code = (
        "import signal, sys; signal.signal(signal.SIGUSR1, lambda *a: None); "
        f"sys.path.insert(0, {root!r}); from compiler.lowering.llvm_pool import serve; serve()"
    )
    blob = os.urandom(400_000)  # an object of about this size: many pipe buffers
    escaped = "".join("\\" + format(b, "02X") for b in blob)  # LLVM's string escapes: \XX each byte
    text = f'@"blob" = constant [{len(blob)} x i8] c"{escaped}"\n'
    pool = llvm_pool.LLVMPool(1, [sys.executable, "-u", "-c", code])
    try:
        worker = pool._workers[0]
        deadline = time.monotonic() + WAIT
        while not worker.ready and time.monotonic() < deadline:  # its handler is set: signals are safe
            time.sleep(0.01)
        jobs = [pool.submit(text, opt=0) for _ in range(4)]
        pid = worker.process.pid
        while not all(j.done() for j in jobs) and time.monotonic() < deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGUSR1)
            time.sleep(0.0002)
        for job in jobs:
            assert blob in job.result(timeout=1)
    finally:
        pool.close()
