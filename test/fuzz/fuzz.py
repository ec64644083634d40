"""The project's own fuzzer of `compiler-opt` and `compiler-run` (issue 29).

    python test/fuzz/fuzz.py [--inputs 2000] [--seed 0] [--out fuzz-out] [--timeout 30]
                             [--memory-mb 3072] [--run-share 0.3] [--te-share 0.15]
                             [--no-minimize] [--subprocess] [--quiet]
    make fuzz FUZZ_ARGS='--inputs 10000 --seed 7'

What it does, input by input (all random choices from one seeded generator, so a
seed and a count give the same inputs, in the same order, on every machine):

1. A seed text: a chunk (between `// -----` lines, comments dropped) of a lit input
   under test/filecheck, or a random te program built through the Python API
   (`compiler.te`: placeholders with static or symbolic shapes, elementwise, padded
   and reduction stages, a random schedule: split, reorder, fuse, vectorize, parallel,
   unroll, compute_at, compute_inline) printed at the `te` stage.
2. One to three mutations: a line deleted, duplicated or two lines swapped; an
   integer made 0, -1, 1, 2^31 - 1, 2^31 or 2^63; a type changed (f16, f32, f64, i1,
   i8, i32, i64, index); a float constant changed (1.0e+308, -0.0, 65504.0, 1.0e-45,
   a NaN); a quoted name (a stage, a buffer, a dimension) renamed, to another name
   of the input or to one that is not a valid name.
3. A tool: `compiler-opt` with a random pipeline (`default-pipeline{...}` up to a
   random stage with random options, a slice of its passes, or one to three of the
   project's passes in any order; sometimes `-t llvm`), or `compiler-run` with random
   `--dim` values (0, 1, small, negative, 2^31, 2^40, 2^62) for the input's
   symbolic dimensions.
4. A child process runs it with a time limit (`--timeout` seconds of CPU time,
   `resource.setrlimit(RLIMIT_CPU)`, and five times that of wall-clock time: the
   machine may be shared) and a memory limit (`RLIMIT_AS`: `--memory-mb` above what
   the fuzzer itself maps). By default the child is forked from this process after
   it imported the compiler (about 10x faster than starting Python); `--subprocess`
   runs the real `tools/compiler-opt` / `tools/compiler-run` scripts instead.

Each outcome is classified:

| outcome     | meaning                                                      | good |
|-------------|--------------------------------------------------------------|------|
| ok          | exit status 0                                                | yes  |
| diagnostic  | a located diagnostic, `file:line:col: error: ...` (or xDSL's parse error header `file:line:col`) | yes |
| run-error   | `compiler-run: error: ...`: the command line or the run (a BoundsError, an argument check) | yes |
| traceback   | a Python traceback                                           | no   |
| internal    | `internal error: ...`                                        | no   |
| signal      | killed by a signal (SIGSEGV, SIGABRT...)                     | no   |
| unlocated   | an error message without a location                          | no   |
| long-run    | a `compiler-run` timeout of a program whose own loops run at least `LONG_RUN_ITERATIONS` times at its `--dim` sizes (counted on its flat IR: the time is the program's, not the compiler's) | yes |
| timeout     | still running after `--timeout` seconds                      | no   |

The bad ones are put in buckets by signature (the outcome with the exception type
and the innermost frame of the compiler for a traceback or an internal error,
the message with names and numbers blanked for an unlocated one, the signal and
tool for a signal). For each bucket the fuzzer minimizes its first input by delta
debugging over lines (ddmin: drop chunks of lines while the signature stays the
same) and writes `<out>/<bucket>/input.mlir`, `command.txt` (the tool's command
line) and `stderr.txt`, and `<out>/summary.json` with the counts. The exit
status is 1 when a bucket was found.

`test/python/test_fuzz.py` runs a bounded number of inputs in CI and asserts that
no bucket is found; COMPILER_FUZZ_INPUTS=10000 makes it run that many.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
LIT_ROOT = ROOT / "test" / "filecheck"
TOOLS = {"opt": ROOT / "tools" / "compiler-opt", "run": ROOT / "tools" / "compiler-run"}

GOOD = ("ok", "diagnostic", "run-error", "long-run")
BAD = ("traceback", "internal", "signal", "unlocated", "timeout")

LONG_RUN_ITERATIONS = 10**9
"""Loop iterations at which a program may take the fuzzer's time limit by itself (a
mutated reduction over 2^31 - 1 elements, run for 16 rows: 3.4e10 iterations, 31 s)."""

# ---------------------------------------------------------------------------
# Seeds
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Seed:
    origin: str  # a lit file and chunk (`passes/x.mlir#2`) or `te#k`
    text: str


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")) + "\n"


def lit_seeds(root: Path = LIT_ROOT) -> list[Seed]:
    """Every chunk of every lit input (Inputs/ included), comment lines dropped."""
    seeds: list[Seed] = []
    for path in sorted(root.rglob("*.mlir")):
        chunks = path.read_text().split("// -----")
        for k, chunk in enumerate(chunks):
            text = _strip_comments(chunk)
            if text.strip():
                seeds.append(Seed(f"{path.relative_to(root)}#{k}", text))
    return seeds


PRIMITIVES = ("split", "vectorize", "parallel", "unroll", "reorder", "fuse", "at", "inline")
"""The schedule primitives `random_primitives` draws from."""


def random_primitives(
    rng: random.Random, s: Any, t: Any, current: Any, kinds: Sequence[str], factors: Sequence[int]
) -> list[str]:
    """Up to two primitives drawn from `kinds` applied to stage `t` of schedule `s` (whose
    output is `current`; `at` and `inline` end the stage's turn); the names of those that
    applied. Shared by this fuzzer and api_fuzz.py."""
    stage = s[t]
    done: list[str] = []
    for _ in range(rng.choice([0, 1, 2])):
        axes = stage.leaf_axes
        if not axes:
            break
        axis = rng.choice(axes)
        primitive = rng.choice(list(kinds))
        if primitive == "split":
            stage.split(axis, factor=rng.choice(list(factors)))
        elif primitive == "vectorize":
            stage.vectorize(axes[-1])
        elif primitive == "parallel":
            stage.parallel(axes[0])
        elif primitive == "unroll":
            stage.unroll(axis)
        elif primitive == "reorder" and len(axes) >= 2:
            stage.reorder(*reversed(axes))
        elif primitive == "fuse" and len(axes) >= 2:
            stage.fuse(axes[0], axes[1])
        elif primitive == "at" and t is not current:
            consumer = s[current]
            stage.compute_at(consumer, rng.choice(consumer.leaf_axes))
            return [*done, primitive]
        elif primitive == "inline" and t is not current:
            stage.compute_inline()
            return [*done, primitive]
        else:
            continue
        done.append(primitive)
    return done


def random_stages(rng: random.Random, source: Any, kinds: Sequence[str]) -> list[tuple[str, Any]]:
    """One to three random stages after the te tensor `source`, each of a kind drawn from
    `kinds` (elementwise "ew", "relu", "pad" of the last axis, "reduce" over it, "sub"; a
    reduction of a 1-d tensor becomes "sub"): (kind, tensor) each; `numpy_step(kind)` is
    a stage's NumPy reference. Shared by this fuzzer and api_fuzz.py."""
    from compiler import te

    stages: list[tuple[str, Any]] = []
    current = source
    for k in range(rng.choice([1, 2, 3])):
        kind = rng.choice(list(kinds))
        src = current
        if kind == "reduce" and len(src.shape) < 2:
            kind = "sub"
        name = f"S{k}"
        if kind == "ew":
            current = te.compute(src.shape, lambda *i, s=src: s[i] * 2.0 + 1.0, name=name)
        elif kind == "relu":
            current = te.compute(src.shape, lambda *i, s=src: te.max(s[i], te.const(0.0, s.dtype)), name=name)
        elif kind == "sub":
            current = te.compute(src.shape, lambda *i, s=src: s[i] - 1.0, name=name)
        elif kind == "pad":
            shape = (*src.shape[:-1], src.shape[-1] + 2)

            def pad(*i: te.Expr, s: te.Tensor = src) -> te.Expr:
                last = i[-1]
                inside = te.all(last >= 1, last < s.shape[-1] + 1)
                return te.if_then_else(inside, s[(*i[:-1], last - 1)], te.const(0.0, s.dtype))

            current = te.compute(shape, pad, name=name)
        else:
            r = te.reduce_axis((0, src.shape[-1]), name=f"r{k}")
            current = te.compute(src.shape[:-1], lambda *i, s=src, r=r: te.sum(s[(*i, r)], axis=r), name=name)
        stages.append((kind, current))
    return stages


def numpy_step(kind: str) -> Callable[[Any], Any]:
    """What a `random_stages` stage of this kind computes, in NumPy."""
    import numpy as np

    if kind == "ew":
        return lambda x: x * 2 + 1
    if kind == "relu":
        return lambda x: np.where(np.isnan(x), x, np.maximum(x, 0))
    if kind == "sub":
        return lambda x: x - 1
    if kind == "pad":
        return lambda x: np.pad(x, [(0, 0)] * (x.ndim - 1) + [(1, 1)])
    return lambda x: x.sum(axis=-1, dtype=np.float64).astype(x.dtype)


def random_te_program(rng: random.Random) -> str | None:
    """A random te program with a random schedule, printed at the te stage (None when
    the random schedule is one the API refuses: a CompilerError, as it should)."""
    from compiler import te
    from compiler.driver import lower
    from compiler.errors import CompilerError

    n = te.var("n")
    sizes: list[te.Dim] = [1, 3, 8, 16, n]
    dims = [rng.choice(sizes) for _ in range(rng.choice([1, 2, 2, 3]))]
    dtype = rng.choice(["float32", "float32", "float64", "float16"])
    A = te.placeholder(tuple(dims), name="A", dtype=dtype)
    tensors = [A, *(t for _, t in random_stages(rng, A, ("ew", "ew", "pad", "reduce", "relu")))]
    current = tensors[-1]
    try:
        s = te.create_schedule(current.op)
        for t in tensors[1:]:
            random_primitives(rng, s, t, current, (*PRIMITIVES, "split"), (1, 2, 3, 4, 8, 16))
        return str(lower(s, [A, current], name=rng.choice(["f", "main"]), until="te"))
    except CompilerError:
        return None


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------

INTEGER = re.compile(r"(?<![\w%#@.\-])-?\d+(?![\w.])")
TYPE = re.compile(r"\b(f16|f32|f64|i1|i8|i32|i64|index)\b")
FLOAT = re.compile(r"(?<![\w.])-?\d+\.\d*(?:[eE][+-]?\d+)?")
QUOTED = re.compile(r'"([A-Za-z_][\w.]*)"')
INTEGERS = ["0", "-1", "1", str(2**31 - 1), str(2**31), str(2**63)]
TYPES = ["f16", "f32", "f64", "i1", "i8", "i32", "i64", "index"]
FLOATS = ["1.0e+308", "-0.0", "65504.0", "1.0e-45", "3.4028235e+38", "0x7FC00000"]


def _replace_one(rng: random.Random, pattern: re.Pattern[str], line: str, choices: Sequence[str]) -> str | None:
    matches = list(pattern.finditer(line))
    if not matches:
        return None
    m = rng.choice(matches)
    return line[: m.start()] + rng.choice(choices) + line[m.end() :]


def _mutate_token(rng: random.Random, lines: list[str], pattern: re.Pattern[str], choices: Sequence[str]) -> str:
    candidates = [k for k, line in enumerate(lines) if pattern.search(line)]
    if not candidates:
        return "none"
    k = rng.choice(candidates)
    new = _replace_one(rng, pattern, lines[k], choices)
    assert new is not None
    lines[k] = new
    return f"token@{k + 1}"


def mutate(rng: random.Random, text: str) -> tuple[str, list[str]]:
    """`text` with one to three random mutations, and their names."""
    lines = text.splitlines()
    done: list[str] = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not lines:
            break
        kind = rng.choice(["delete", "duplicate", "swap", "integer", "integer", "type", "float", "rename"])
        k = rng.randrange(len(lines))
        if kind == "delete":
            del lines[k]
        elif kind == "duplicate":
            lines.insert(k, lines[k])
        elif kind == "swap":
            j = rng.randrange(len(lines))
            lines[k], lines[j] = lines[j], lines[k]
        elif kind == "integer":
            _mutate_token(rng, lines, INTEGER, INTEGERS)
        elif kind == "type":
            _mutate_token(rng, lines, TYPE, TYPES)
        elif kind == "float":
            _mutate_token(rng, lines, FLOAT, FLOATS)
        else:
            names = sorted({m.group(1) for line in lines for m in QUOTED.finditer(line)})
            if names:
                old = rng.choice(names)
                new = rng.choice([*names, "Z", "arena", "n", "h", "0 P", "n + 1", ""])
                if rng.random() < 0.5:  # every occurrence: a consistent rename
                    lines = [line.replace(f'"{old}"', f'"{new}"') for line in lines]
                else:
                    _mutate_token(rng, lines, re.compile(f'"{re.escape(old)}"'), [f'"{new}"'])
        done.append(kind)
    return "\n".join(lines) + "\n", done


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

DIM_VALUES = [0, 1, 1, 2, 3, 4, 7, 16, 64, -1, 2**31, 2**40, 2**62]
DIMS_IN_TYPE = re.compile(r"<\s*\[([^\]]*)\]")
VAR = re.compile(r'(?:te|loop)\.var\s+"(\w+)"')


def symbolic_dims(text: str) -> list[str]:
    """The names of the symbolic dimensions an input mentions (in types and `*.var`)."""
    names = set(VAR.findall(text))
    for dims in DIMS_IN_TYPE.findall(text):
        for quoted in re.findall(r'"([^"]*)"', dims):
            names.update(re.findall(r"[A-Za-z_]\w*", quoted))
    return sorted(names)


def _pass_names() -> list[str]:
    from compiler.registry import get_all_passes

    return sorted(get_all_passes())


def random_pipeline(rng: random.Random) -> list[str]:
    """compiler-opt arguments after the input file: `-p ...`, maybe `-t llvm`."""
    from compiler.pipeline import STAGES, default_pipeline

    choice = rng.random()
    if choice < 0.45:
        until = rng.choice(STAGES)
        options = [f"until={until}"]
        for name in ("check-bounds", "loop-partition", "auto-schedule", "tighten-pad-regions", "fast-math"):
            if rng.random() < 0.2:
                options.append(f"{name}={rng.choice(['true', 'false'])}")
        argv = ["-p", f"default-pipeline{{{' '.join(options)}}}"]
        if until == "llvm" and rng.random() < 0.3:
            argv += ["-t", "llvm"]
        return argv
    if choice < 0.75:
        passes = [str(p) for p in default_pipeline("llvm", check_bounds=rng.random() < 0.3)]
        start = rng.randrange(len(passes))
        stop = rng.randrange(start + 1, len(passes) + 1)
        return ["-p", ",".join(passes[start:stop])]
    names = _pass_names()
    return ["-p", ",".join(rng.choice(names) for _ in range(rng.choice([1, 2, 3])))]


def random_dims(rng: random.Random, text: str) -> list[str]:
    argv: list[str] = []
    for name in symbolic_dims(text):
        if rng.random() < 0.95:
            argv += ["--dim", f"{name}={rng.choice(DIM_VALUES)}"]
    if rng.random() < 0.1:
        argv += ["--init", "random"]
    return argv


@dataclass
class Job:
    index: int
    origin: str
    mutations: list[str]
    tool: str  # "opt" or "run"
    args: list[str]  # after the input file
    text: str

    def argv(self, path: str) -> list[str]:
        return [path, *self.args]

    def command(self, path: str) -> str:
        return " ".join([f"compiler-{self.tool}", *[_shell_quote(a) for a in self.argv(path)]])


def _shell_quote(arg: str) -> str:
    return arg if re.fullmatch(r"[\w./=,:+-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def make_jobs(seed: int, count: int, *, run_share: float, te_share: float) -> list[Job]:
    """`count` jobs, the same for the same seed."""
    rng = random.Random(seed)
    seeds = lit_seeds()
    jobs: list[Job] = []
    te_count = 0
    while len(jobs) < count:
        if rng.random() < te_share:
            text = random_te_program(random.Random(rng.getrandbits(64)))
            if text is None:
                continue
            origin = f"te#{te_count}"
            te_count += 1
        else:
            chosen = rng.choice(seeds)
            origin, text = chosen.origin, chosen.text
        mutated, mutations = mutate(rng, text) if rng.random() < 0.9 else (text, [])
        if rng.random() < run_share:
            job = Job(len(jobs), origin, mutations, "run", random_dims(rng, mutated), mutated)
        else:
            job = Job(len(jobs), origin, mutations, "opt", random_pipeline(rng), mutated)
        jobs.append(job)
    return jobs


# ---------------------------------------------------------------------------
# Running a job in a child process
# ---------------------------------------------------------------------------


@dataclass
class Result:
    status: int | None  # exit status, None when killed
    signal: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


def _vm_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


WALL_FACTOR = 5
"""The wall-clock limit is this many times the CPU-time limit: the machine is shared,
and a child that waits (a hang, not a loop) is still stopped."""


def _limit_child(timeout: float, memory_bytes: int) -> None:
    """`timeout` seconds of CPU time (then SIGXCPU), `memory_bytes` of address space."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    cpu = max(1, int(timeout))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child_env(*, traceback: bool) -> None:
    os.environ["COMPILER_CACHE"] = "0"  # the object cache would hide compilations
    os.environ.pop("COMPILER_TRACEBACK", None)
    if traceback:
        os.environ["COMPILER_TRACEBACK"] = "1"
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def _wait(pid: int, timeout: float) -> tuple[int | None, int | None, bool]:
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None, signal.SIGKILL, True
        time.sleep(delay)
        delay = min(delay * 2, 0.05)
    if os.WIFSIGNALED(status):
        return None, os.WTERMSIG(status), False
    return os.WEXITSTATUS(status), None, False


def _tool_main(tool: str) -> Callable[[list[str]], int]:
    if tool == "iterations":
        return iterations_main
    if tool == "opt":
        from compiler.tools.compiler_opt import main as opt_main

        return opt_main
    from compiler.tools.compiler_run import main as run_main

    return run_main


def iterations_main(argv: list[str]) -> int:
    """`input.mlir [--dim N=V]...`: print an upper bound of the loop iterations the program
    runs at those sizes (its flat IR, as `compiler-run` builds it: every loop's trip count
    bounded over the sizes and the ranges of the loops around it, times theirs), or
    `unbounded`."""
    from compiler.analysis.value_names import ValueNames, enclosing_loops, loop_ranges
    from compiler.analysis.walk import walk_ops
    from compiler.arith.expr import IndexConst
    from compiler.arith.simplify import const_bounds
    from compiler.context import make_context
    from compiler.dialects import loop
    from compiler.tools.compiler_opt import LocatedParser
    from compiler.tools.compiler_opt import main as opt_main

    path, dims = argv[0], dict(a.split("=", 1) for a in argv[2::2])
    flat = str(Path(path).with_suffix(".flat.mlir"))
    if opt_main([path, "-p", "default-pipeline{until=flat}", "-o", flat]) != 0:
        return 1
    module = LocatedParser(make_context(), Path(flat).read_text(), flat).parse_module()
    sizes = {name: (IndexConst(int(v)), IndexConst(int(v))) for name, v in dims.items()}
    names = ValueNames()
    runs: dict[loop.ForOp, int] = {}  # iterations of each loop's body, all told
    for op in walk_ops(module):  # outer loops first
        if not isinstance(op, loop.ForOp):
            continue
        _, trips = const_bounds(names.expr(op.extent), {**sizes, **loop_ranges(op, names)})
        if trips is None:
            os.write(1, b"unbounded\n")  # the descriptor: under pytest, print goes to its capture
            return 0
        around = enclosing_loops(op)  # innermost first
        runs[op] = max(trips, 0) * (runs[around[0]] if around else 1)
    os.write(1, f"{sum(runs.values())}\n".encode())
    return 0


def warm_up() -> None:
    """Import what the tools import lazily, once, before forking (not the JIT's state)."""
    import numpy  # noqa: F401

    import compiler.driver
    import compiler.lowering.jit
    import compiler.tools.compiler_opt
    import compiler.tools.compiler_run  # noqa: F401
    from compiler.registry import get_all_dialects, get_all_passes

    for factory in [*get_all_dialects().values(), *get_all_passes().values()]:
        factory()


def run_forked(
    tool: str, argv: list[str], workdir: Path, *, timeout: float, memory_mb: int, traceback: bool = False
) -> Result:
    """Run the tool's `main(argv)` in a child forked from this (warm) process."""
    out, err = workdir / "stdout", workdir / "stderr"
    main = _tool_main(tool)
    limit = _vm_bytes() + memory_mb * 2**20
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 1
        try:
            fd_out = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            fd_err = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd_out, 1)
            os.dup2(fd_err, 2)
            _child_env(traceback=traceback)
            faulthandler.disable()  # pytest's would print the crash to the parent's stderr
            _limit_child(timeout, limit)
            sys.argv = [f"compiler-{tool}", *argv]
            code = main(argv)
        except SystemExit as exit_:  # argparse
            code = exit_.code if isinstance(exit_.code, int) else 1
        except BaseException:  # what the interpreter would print
            import traceback as tb

            tb.print_exc()
            code = 1
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    status, sig, timed_out = _wait(pid, timeout * WALL_FACTOR)
    return Result(status, sig, out.read_text(errors="replace"), err.read_text(errors="replace"), time.monotonic() - start, timed_out)


def run_subprocess(
    tool: str, argv: list[str], workdir: Path, *, timeout: float, memory_mb: int, traceback: bool = False
) -> Result:
    """Run the real `tools/compiler-<tool>` script (as a user would) with the same limits."""
    import subprocess

    env = dict(os.environ, COMPILER_CACHE="0", OMP_NUM_THREADS="1")
    env.pop("COMPILER_TRACEBACK", None)
    if traceback:
        env["COMPILER_TRACEBACK"] = "1"
    limit = memory_mb * 2**20 + 2**30  # a fresh interpreter maps less than the fuzzer

    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, str(TOOLS[tool]), *argv],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout * WALL_FACTOR,
            env=env,
            cwd=workdir,
            preexec_fn=lambda: _limit_child(timeout, limit),
        )
    except subprocess.TimeoutExpired as expired:
        stderr = expired.stderr.decode(errors="replace") if isinstance(expired.stderr, bytes) else ""
        return Result(None, signal.SIGKILL, "", stderr, time.monotonic() - start, True)
    sig = -proc.returncode if proc.returncode < 0 else None
    status = None if sig is not None else proc.returncode
    return Result(status, sig, proc.stdout, proc.stderr, time.monotonic() - start)


# ---------------------------------------------------------------------------
# Classification and buckets
# ---------------------------------------------------------------------------

LOCATED = re.compile(r"^[^\s:][^:\n]*:\d+:\d+(?::|$)", re.MULTILINE)
FRAME = re.compile(r'File "([^"]+)", line \d+, in (\w+)')


def classify(tool: str, result: Result) -> str:
    err = result.stderr
    if result.timed_out or result.signal == signal.SIGXCPU:
        return "timeout"
    if result.signal is not None:
        return "signal"
    if "Traceback (most recent call last)" in err:
        return "traceback"
    if "internal error:" in err:
        return "internal"
    if result.status == 0:
        return "ok"
    first = next((line for line in err.splitlines() if line.strip()), "")
    if LOCATED.match(first):
        return "diagnostic"
    if tool == "run" and first.startswith("compiler-run: error: "):
        return "run-error"
    return "unlocated"


def _blank(message: str) -> str:
    """A message with its names and numbers blanked, so that one bug is one bucket."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", message)
    message = re.sub(r"[%@]\w[\w.]*", "%_", message)
    message = re.sub(r"-?\b\d+\b", "N", message)
    message = re.sub(r"<[^<>]*>", "<_>", message)
    return message[:90]


def signature(tool: str, outcome: str, result: Result) -> str:
    """What makes two bad outcomes one bucket."""
    err = result.stderr
    if outcome == "signal":
        assert result.signal is not None
        return f"signal {signal.Signals(result.signal).name} in compiler-{tool}"
    if outcome == "timeout":
        return f"timeout of compiler-{tool}"
    if outcome == "traceback":
        frames = [(Path(f).name, fn) for f, fn in FRAME.findall(err) if "/compiler/" in f or "/xdsl/" in f]
        # the exception line: the first unindented line after the last frame (a message
        # may run over several lines)
        lines = err.splitlines()
        frame_lines = [k for k, line in enumerate(lines) if line.startswith("  File ")]
        after = lines[frame_lines[-1] + 1 :] if frame_lines else lines
        last = next((line for line in after if line and not line.startswith(" ")), "")
        exc = last.split(":")[0].rsplit(".", 1)[-1]
        where = f"{frames[-1][0]}:{frames[-1][1]}" if frames else "?"
        return f"traceback {exc} at {where}"
    if outcome == "internal":
        line = next(line for line in err.splitlines() if "internal error:" in line)
        return "internal " + _blank(line.split("internal error:", 1)[1].strip())
    first = next((line for line in err.splitlines() if line.strip()), "(no message)")
    return "unlocated " + _blank(first)


# ---------------------------------------------------------------------------
# Minimization (ddmin over lines)
# ---------------------------------------------------------------------------


def ddmin(lines: list[str], still_fails: Callable[[list[str]], bool], budget: int) -> list[str]:
    """Zeller's delta debugging: the smallest subsequence of `lines` (1-minimal when the
    budget of tests allows) for which `still_fails` holds."""
    n = 2
    tests = 0
    while len(lines) >= 2 and tests < budget:
        size = max(1, len(lines) // n)
        chunks = [lines[i : i + size] for i in range(0, len(lines), size)]
        reduced = False
        for k in range(len(chunks)):
            complement = [line for j, c in enumerate(chunks) if j != k for line in c]
            tests += 1
            if complement and still_fails(complement):
                lines = complement
                n = max(n - 1, 2)
                reduced = True
                break
            if tests >= budget:
                break
        if not reduced:
            if n >= len(lines):
                break
            n = min(len(lines), n * 2)
    return lines


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------


@dataclass
class Bucket:
    signature: str
    outcome: str
    count: int = 0
    first: int = -1  # the index of the first job that fell in it
    origins: list[str] = field(default_factory=list)


@dataclass
class Report:
    inputs: int = 0
    seconds: float = 0.0
    outcomes: dict[str, int] = field(default_factory=dict)
    buckets: dict[str, Bucket] = field(default_factory=dict)

    @property
    def bad(self) -> list[Bucket]:
        return list(self.buckets.values())

    def summary(self) -> str:
        lines = [f"{self.inputs} inputs in {self.seconds:.0f} s: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))]
        for b in sorted(self.buckets.values(), key=lambda b: -b.count):
            lines.append(f"  [{b.count:4d}] {b.signature}   (first: input {b.first}, {b.origins[0]})")
        return "\n".join(lines)


class Fuzzer:
    def __init__(self, *, timeout: float, memory_mb: int, subprocess: bool, workdir: Path):
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.runner = run_subprocess if subprocess else run_forked
        self.workdir = workdir

    def run(self, tool: str, text: str, args: list[str]) -> tuple[str, str, Result]:
        """(outcome, signature or "", result) of one input."""
        path = self.workdir / "input.mlir"
        path.write_text(text)
        result = self.runner(tool, [str(path), *args], self.workdir, timeout=self.timeout, memory_mb=self.memory_mb)
        outcome = classify(tool, result)
        if outcome == "timeout" and tool == "run" and self.long_program(args):
            outcome = "long-run"
        sig = signature(tool, outcome, result) if outcome in BAD else ""
        if outcome == "internal":  # the frames of the internal error, for its bucket
            again = self.runner(
                tool, [str(path), *args], self.workdir, timeout=self.timeout, memory_mb=self.memory_mb, traceback=True
            )
            if classify(tool, again) == "traceback":
                sig = "internal " + signature(tool, "traceback", again).removeprefix("traceback ")
        return outcome, sig, result

    def long_program(self, args: list[str]) -> bool:
        """Whether the program in input.mlir runs `LONG_RUN_ITERATIONS` loop iterations at
        the sizes `args` bind (`iterations_main`, under the same limits: a compiler that
        hangs on it is still a timeout)."""
        path = self.workdir / "input.mlir"
        count = run_forked("iterations", [str(path), *args], self.workdir, timeout=self.timeout, memory_mb=self.memory_mb)
        words = count.stdout.split()
        return classify("opt", count) == "ok" and bool(words) and words[-1].isdigit() and int(words[-1]) >= LONG_RUN_ITERATIONS

    def minimize(self, job: Job, sig: str, budget: int) -> str:
        def still_fails(lines: list[str]) -> bool:
            _, s, _ = self.run(job.tool, "\n".join(lines) + "\n", job.args)
            return s == sig

        return "\n".join(ddmin(job.text.splitlines(), still_fails, budget)) + "\n"


def fuzz(
    jobs: Sequence[Job],
    *,
    out: Path | None,
    timeout: float = 30.0,
    memory_mb: int = 3072,
    subprocess: bool = False,
    minimize_budget: int = 150,
    log: Callable[[str], None] | None = None,
) -> Report:
    """Run `jobs`, bucket the bad outcomes, minimize one reproducer per bucket into `out`."""
    report = Report()
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="compiler-fuzz-") as tmp:
        fuzzer = Fuzzer(timeout=timeout, memory_mb=memory_mb, subprocess=subprocess, workdir=Path(tmp))
        if not subprocess:
            warm_up()
        for job in jobs:
            outcome, sig, result = fuzzer.run(job.tool, job.text, job.args)
            report.inputs += 1
            report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
            if outcome in BAD:
                bucket = report.buckets.get(sig)
                if bucket is None:
                    bucket = report.buckets[sig] = Bucket(sig, outcome, first=job.index)
                    if log:
                        log(f"new bucket at input {job.index} ({job.origin}, {job.mutations}): {sig}")
                    if out is not None:
                        _write_bucket(out, len(report.buckets), job, result, fuzzer, sig, minimize_budget)
                bucket.count += 1
                bucket.origins.append(job.origin)
            if log and report.inputs % 100 == 0:
                log(f"{report.inputs} inputs, {time.monotonic() - start:.0f} s, {len(report.buckets)} buckets, {report.outcomes}")
        report.seconds = time.monotonic() - start
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        summary = {
            "inputs": report.inputs,
            "seconds": round(report.seconds, 1),
            "outcomes": report.outcomes,
            "buckets": [asdict(b) | {"origins": sorted(set(b.origins))[:10]} for b in report.buckets.values()],
        }
        (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return report


def _write_bucket(out: Path, number: int, job: Job, result: Result, fuzzer: Fuzzer, sig: str, budget: int) -> None:
    folder = out / f"bucket-{number:03d}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "original.mlir").write_text(job.text)
    text = fuzzer.minimize(job, sig, budget) if budget > 0 else job.text
    (folder / "input.mlir").write_text(text)
    (folder / "command.txt").write_text(
        f"# {sig}\n# input {job.index}: {job.origin}, mutations {job.mutations}\n{job.command('input.mlir')}\n"
    )
    (folder / "stderr.txt").write_text(result.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--inputs", type=int, default=int(os.environ.get("COMPILER_FUZZ_INPUTS", "2000")))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-out"))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per input")
    parser.add_argument("--memory-mb", type=int, default=3072, help="memory per input, above the fuzzer's own")
    parser.add_argument("--run-share", type=float, default=0.3, help="share of inputs run with compiler-run")
    parser.add_argument("--te-share", type=float, default=0.15, help="share of random te programs")
    parser.add_argument("--minimize-budget", type=int, default=150, help="tool runs to minimize a bucket (0: none)")
    parser.add_argument("--subprocess", action="store_true", help="run the tool scripts, not forked children")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N inputs (resume a run)")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no BLAS threads in a forking process
    sys.path.insert(0, str(ROOT))
    jobs = make_jobs(args.seed, args.inputs, run_share=args.run_share, te_share=args.te_share)[args.skip :]
    if args.out.exists():
        shutil.rmtree(args.out)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    report = fuzz(
        jobs,
        out=args.out,
        timeout=args.timeout,
        memory_mb=args.memory_mb,
        subprocess=args.subprocess,
        minimize_budget=args.minimize_budget,
        log=None if args.quiet else log,
    )
    print(report.summary())
    print(f"reproducers and summary.json in {args.out}")
    return 1 if report.buckets else 0


if __name__ == "__main__":
    sys.exit(main())
