"""LLVM's optimizer and code generator in worker processes, one function's module a job.

llvmlite runs every LLVM call under one process-wide lock, so threads of one process
never run two LLVM pipelines at once; processes do. `shared_pool()` starts, when a
build first needs it, one worker per core this process may run on (the first build
pays their start-up, about 0.1 s of a core each, while it runs its passes). A worker
is a fresh interpreter (`python -c ...serve()`, started with `subprocess`: no fork of
a process whose torch or OpenMP threads run, and no re-import of the user's main
script as multiprocessing's spawn and forkserver do) that imports llvmlite and
`engine` only, reads jobs on its stdin and answers on its stdout: a job is the LLVM IR
text of a function's module (`jit.function_text`), the answer its object file
(`engine.object_of`: O3 with both vectorizers, then code generation). The parent loads
the objects into one MCJIT engine (`engine.load_object`), where their calls to each
other resolve.

Jobs go to the worker with the fewest bytes of IR outstanding; a reader thread per
worker fulfils their futures. Failures never hang a build:

* LLVM rejects a module (a compiler bug): the worker answers with the message, and
  `Job.result()` raises `InternalError`;
* a worker dies (killed, out of memory) after it started: its outstanding jobs raise
  `InternalError`, and the next build starts a new pool;
* the pool cannot start (no interpreter to run, a worker that exits before it is ready):
  `shared_pool()` gives None or the jobs raise `WorkerUnavailable`, and the caller
  compiles in this process (`jit._Compilation`);
* the process forks: the child closes its copies of the parent's pipes and starts a
  pool of its own when it needs one;
* a write or read moves part of a message (a raw stdout under PYTHONUNBUFFERED, a signal
  during the system call): `_write` and `_read` go on until it is whole.

The JIT uses the pool for programs of `jit.POOL_MIN_OPS` ops or more (networks); a
smaller one compiles on a thread of this process.

`COMPILER_LLVM_WORKERS` sets the number of workers (0: none, LLVM runs in this process
behind the lowering, on a thread: `jit.FunctionPipeline`); by default, the cores this
process may run on, none on a single core.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
from concurrent.futures import Future
from typing import IO, Any

from compiler.errors import InternalError

ENV_WORKERS = "COMPILER_LLVM_WORKERS"

WORKER_NICENESS = 5
"""Workers run at a lower priority: the parent's lowering is a build's longest path, and the
workers (one per core) share the cores with it. Measured on ResNet-50 against niceness 0,
interleaved, on a machine other jobs loaded: no clear difference (LLVM 4.8-5.6 s vs
4.9-6.0 s)."""

_FRAME = struct.Struct("<Q")  # the length of the pickled message that follows
_READY = "ready"


class WorkerUnavailable(InternalError):
    """A worker exited before it was ready: the pool cannot run here (compile in-process)."""


class WorkerDied(InternalError):
    """A worker exited with jobs outstanding (killed, out of memory): their texts are
    compiled in-process instead. An LLVM error in a job is not this: it raises."""


def worker_count() -> int:
    """`$COMPILER_LLVM_WORKERS` if set, else the cores this process may run on (0 on one
    core: a worker would only compete with the lowering for it)."""
    text = os.environ.get(ENV_WORKERS, "").strip()
    if text.isdigit():
        return int(text)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        cores = os.cpu_count() or 1
    return cores if cores > 1 else 0


# ---------------------------------------------------------------------------
# The worker's side
# ---------------------------------------------------------------------------


def _write(stream: IO[bytes], message: Any) -> None:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    _write_all(stream, _FRAME.pack(len(payload)) + payload)
    stream.flush()


def _write_all(stream: IO[bytes], data: bytes) -> None:
    """Every byte of `data`: a raw stream (stdout under `python -u` or PYTHONUNBUFFERED, as
    in many containers) writes what one system call wrote, part of it when a signal
    interrupts a write to a full pipe (py-spy's samples do), and the rest was lost: the
    parent waited for an answer forever."""
    view = memoryview(data)
    while view:
        view = view[stream.write(view) :]


def _read(stream: IO[bytes]) -> Any | None:
    """The next message, or None at the end of the stream."""
    header = _read_exactly(stream, _FRAME.size)
    if header is None:
        return None
    (size,) = _FRAME.unpack(header)
    payload = _read_exactly(stream, size)
    return None if payload is None else pickle.loads(payload)


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    """`size` bytes, or None when the stream ends first (a raw stream's read returns what one
    system call read: part of a large message)."""
    parts: list[bytes] = []
    missing = size
    while missing > 0:
        part = stream.read(missing)
        if not part:
            return None
        parts.append(part)
        missing -= len(part)
    return b"".join(parts)


def serve() -> None:
    """A worker's loop: (job id, IR text, opt, pic) in, (job id, object or None, error) out,
    until its stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the answers' stream
    from compiler.lowering.engine import object_of

    _write(answers, (_READY, None, None))
    while (job := _read(requests)) is not None:
        number, text, opt, pic = job
        try:
            _write(answers, (number, object_of(text, opt=opt, pic=pic), None))
        except Exception as err:  # the parent raises it; this worker goes on
            _write(answers, (number, None, f"{type(err).__name__}: {err}"))


# ---------------------------------------------------------------------------
# The parent's side
# ---------------------------------------------------------------------------


class _Worker:
    """One worker process, the jobs it has not answered yet, and the thread reading its answers."""

    def __init__(self, command: list[str]):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pending: dict[int, tuple[Future[bytes], int]] = {}
        self.outstanding = 0  # bytes of IR sent and not answered
        self.ready = False
        self.alive = True
        self._lock = threading.Lock()
        # a thread writes the jobs: a job larger than the pipe's buffer would block the
        # lowering until the worker reads it
        self._jobs: queue.SimpleQueue[tuple[int, str, int, bool] | None] = queue.SimpleQueue()
        for target, name in (
            (self._read_answers, "llvm-pool-reader"),
            (self._write_jobs, "llvm-pool-writer"),
        ):
            threading.Thread(target=target, name=name, daemon=True).start()

    def submit(self, number: int, text: str, opt: int, pic: bool) -> Future[bytes]:
        future: Future[bytes] = Future()
        with self._lock:
            if not self.alive:
                future.set_exception(self._gone())
                return future
            self.pending[number] = (future, len(text))
            self.outstanding += len(text)
        self._jobs.put((number, text, opt, pic))
        return future

    def _write_jobs(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        while (job := self._jobs.get()) is not None:
            try:
                _write(stdin, job)
            except (OSError, ValueError):  # the worker is gone (or closed): fail what it had
                self._fail_all()
                return
        with contextlib.suppress(OSError):
            stdin.close()  # the worker's loop ends

    def _read_answers(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            try:
                answer = _read(stdout)
            except (OSError, pickle.UnpicklingError, EOFError):
                answer = None
            if answer is None:
                break
            number, obj, error = answer
            if number == _READY:
                self.ready = True
                continue
            with self._lock:
                found = self.pending.pop(number, None)
                if found is not None:
                    self.outstanding -= found[1]
            if found is None:  # failed already (its worker was closed)
                continue
            future, _ = found
            if error is not None:
                future.set_exception(InternalError(f"LLVM failed on a function's module: {error}"))
            else:
                future.set_result(obj)
        self._fail_all()

    def _gone(self) -> InternalError:
        global _unavailable
        status = self.process.poll()
        if not self.ready:
            _unavailable = True  # no pool again in this process: each start would fail alike
            return WorkerUnavailable(f"an LLVM worker exited before it started (status {status})")
        return WorkerDied(f"an LLVM worker exited (status {status}) with jobs outstanding")

    def _fail_all(self) -> None:
        with self._lock:
            self.alive = False
            pending, self.pending = self.pending, {}
            self.outstanding = 0
        for future, _ in pending.values():
            if not future.done():
                future.set_exception(self._gone())

    def close(self, *, wait: bool = True) -> None:
        """Close its stdin once the jobs sent are written (it exits), and reap it
        (`wait=False`: let it finish the jobs it holds and exit on its own)."""
        self._jobs.put(None)
        if not wait:
            return
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def worker_command() -> list[str]:
    """The command that starts a worker: this interpreter, with the folder holding the
    `compiler` package first on its path (the parent's may have put it there by hand)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = f"import sys; sys.path.insert(0, {root!r}); from compiler.lowering.llvm_pool import serve; serve()"
    return [sys.executable, "-c", code]


class LLVMPool:
    """Worker processes compiling LLVM IR texts to object files (`submit`)."""

    def __init__(self, workers: int, command: list[str] | None = None):
        command = command or worker_command()
        self.pid = os.getpid()
        self._workers: list[_Worker] = []
        try:
            for _ in range(workers):
                self._workers.append(_Worker(command))
        except OSError:  # the ones started go again
            self.close()
            raise
        self._numbers = iter(range(1 << 62))
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        return len(self._workers)

    @property
    def healthy(self) -> bool:
        """Every worker alive (a pool with a dead one is replaced: `shared_pool`)."""
        return all(w.alive and w.process.poll() is None for w in self._workers)

    def submit(self, text: str, *, opt: int = 3, pic: bool = False) -> Future[bytes]:
        """The object file of the LLVM IR `text`, compiled by the least busy worker."""
        with self._lock:
            number = next(self._numbers)
            worker = min(self._workers, key=lambda w: (not w.alive, w.outstanding))
        return worker.submit(number, text, opt, pic)

    def close(self, *, wait: bool = True) -> None:
        for worker in self._workers:
            worker.close(wait=wait)


_shared: LLVMPool | None = None
_shared_lock = threading.Lock()
_unavailable = False
"""Set when workers exited before they were ready: the process compiles in-process from
then on (starting them again for every build would fail alike, and cost each build)."""


def shared_pool() -> LLVMPool | None:
    """The process's pool, started on first use (None: `worker_count()` is 0, or the
    workers cannot be started). A pool with a dead worker, or one inherited through a
    fork, is replaced."""
    global _shared
    with _shared_lock:
        count = worker_count()
        if _shared is not None and (
            _shared.pid != os.getpid() or not _shared.healthy or _shared.size != count
        ):
            if _shared.pid == os.getpid():
                # without waiting: another thread's build may still have jobs on the live
                # workers, which finish them and exit when their stdin closes
                _shared.close(wait=False)
            _shared = None
        if _shared is None and count > 0 and not _unavailable:
            try:
                _shared = LLVMPool(count)
            except OSError:  # no interpreter to start (an embedded Python): in-process
                return None
        return _shared


def _forget_inherited() -> None:
    """In a forked child: the parent's pool is the parent's (its threads are not here); close
    the child's copies of its pipes, so that its workers still see their stdin close when
    the parent exits."""
    global _shared
    if _shared is not None:
        for worker in _shared._workers:
            for stream in (worker.process.stdin, worker.process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        os.close(stream.fileno())
    _shared = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited)


def _close_shared() -> None:
    global _shared
    if _shared is not None and _shared.pid == os.getpid():
        _shared.close()
    _shared = None


atexit.register(_close_shared)  # nothing to do while no pool was started
