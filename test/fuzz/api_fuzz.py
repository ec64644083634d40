"""The Python API under the fuzzer (issue 29, deliverable 4).

    python test/fuzz/api_fuzz.py [--programs 50] [--seed 0] [--timeout 120] [--memory-mb 3072]

Random te programs (placeholders with static or symbolic shapes; elementwise,
padded and reduction stages; float16/32/64) with random schedules go through
`compiler.build()` (random `check_bounds` and `auto_schedule`), and each compiled
function is called with good and mutated arguments:

* good ones, with symbolic sizes 0, 1 or small, and data with NaN and infinities;
* a wrong dtype, rank or static size, too few or too many arguments, `None`, a list,
  a Python float instead of an array;
* a non-contiguous input (`a[::2]`) and output, misaligned arrays (1 and 4 bytes off
  a 64-byte boundary), a read-only output, an output that is an input, an output whose
  elements overlap (a zero stride) and inputs of 2^40 elements (zero strides);
* a symbolic size inconsistent between two arguments.

A call must end in a `compiler.CompilerError` subclass or in the right result (the
NumPy reference of the program, NaNs equal), never another exception or a crash,
and it must write nothing outside its outputs: each output lies between two guard
zones of 64 elements filled with a sentinel, checked after the call.

Each program is built and called in a child process forked from this one (after it
imported the compiler), with a time and memory limit, so that a crash is an outcome
and not the end of the run. The bad outcomes are bucketed by signature (kind, case,
exception type) and printed with the seed and program index that reproduce them.
`test/python/test_fuzz.py` runs a few programs in CI; COMPILER_API_FUZZ_PROGRAMS=N
runs more.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import fuzz  # noqa: E402  (the CLI fuzzer: its child-process helpers)

GUARD = 64  # elements of sentinel on each side of every output


# ---------------------------------------------------------------------------
# Programs with their NumPy references
# ---------------------------------------------------------------------------


@dataclass
class Program:
    """Tensors to build (inputs, then the output), its schedule, build options, and
    what it computes in NumPy."""

    description: str
    args: list[Any]  # te tensors
    schedule: Any
    reference: Callable[[Any], Any]  # input array -> output array
    input_shape: Callable[[int], tuple[int, ...]]  # n -> the input's shape
    dtype: str
    symbolic: bool
    options: dict[str, Any] = field(default_factory=dict)


def random_program(rng: random.Random) -> Program | None:
    """A random program, or None when the API refuses its random schedule (a CompilerError)."""

    from compiler import te
    from compiler.errors import CompilerError

    n = te.var("n")
    symbolic = rng.random() < 0.5
    rank = rng.choice([1, 2, 2, 3])
    static = [rng.choice([1, 3, 4, 8]) for _ in range(rank)]
    dims: list[te.Dim] = list(static)
    if symbolic:
        dims[rng.randrange(rank)] = n
    dtype = rng.choice(["float32", "float32", "float64", "float16"])
    A = te.placeholder(tuple(dims), name="A", dtype=dtype)
    stages = fuzz.random_stages(rng, A, ("ew", "relu", "pad", "reduce", "sub"))
    kinds = [kind for kind, _ in stages]
    steps = [fuzz.numpy_step(kind) for kind in kinds]
    computed = [t for _, t in stages]
    current = computed[-1]

    def reference(x: Any) -> Any:
        for step in steps:
            x = step(x)
        return x

    def input_shape(value: int) -> tuple[int, ...]:
        return tuple(value if not isinstance(d, int) else d for d in dims)

    try:
        s = te.create_schedule(current.op)
        done: list[str] = []
        for t in computed:
            done += [f"{t.name}.{p}" for p in fuzz.random_primitives(rng, s, t, current, fuzz.PRIMITIVES, (1, 2, 3, 4, 8))]
    except CompilerError:
        return None
    options = {"check_bounds": rng.random() < 0.3}
    if rng.random() < 0.3:
        options["auto_schedule"] = True
    return Program(
        f"A{dims} {dtype} -> {' -> '.join(kinds)}; schedule {done}; {options}",
        [A, current],
        s,
        reference,
        input_shape,
        dtype,
        symbolic,
        options,
    )


# ---------------------------------------------------------------------------
# Calls: good and mutated arguments, guarded outputs
# ---------------------------------------------------------------------------


@dataclass
class Guarded:
    """An output array between two guard zones of sentinel values."""

    base: Any
    array: Any

    def intact(self) -> bool:
        import numpy as np

        head, tail = self.base[:GUARD], self.base[-GUARD:]
        return bool(np.all(head.view(np.uint8) == 0xA5) and np.all(tail.view(np.uint8) == 0xA5))


def guarded(shape: tuple[int, ...], dtype: str, *, step: int = 1, offset_bytes: int = 0) -> Guarded:
    """A writable array of `shape` (every `step`-th element of its memory, `offset_bytes`
    past an aligned start) with GUARD sentinel elements before and after."""
    import numpy as np

    itemsize = np.dtype(dtype).itemsize
    count = int(np.prod(shape)) * step
    raw = np.empty((count + 2 * GUARD) * itemsize + 64 + offset_bytes, np.uint8)
    start = (-raw.ctypes.data) % 64 + offset_bytes
    raw[:] = 0xA5
    base = raw[start : start + (count + 2 * GUARD) * itemsize].view(dtype)
    inner = base[GUARD : GUARD + count : step] if count else base[GUARD:GUARD]
    return Guarded(base, inner.reshape(shape))


def _data(rng: Any, shape: tuple[int, ...], dtype: str, *, special: bool) -> Any:
    import numpy as np

    x = rng.uniform(-2, 2, shape).astype(dtype)
    if special and x.size:
        flat = x.reshape(-1)
        for value in (np.nan, np.inf, -np.inf):
            flat[rng.integers(0, flat.size)] = value
    return x


@dataclass
class Case:
    name: str
    args: list[Any]
    outputs: list[Guarded]  # checked for their guards
    expect: Any | None  # the correct output, when the call may succeed
    result_of: Guarded | None = None  # where the result is (None: the last argument)


def cases(program: Program, rng: random.Random) -> list[Case]:
    import numpy as np

    nrng = np.random.default_rng(rng.getrandbits(32))
    dtype = program.dtype
    found: list[Case] = []

    def good(name: str, n: int, *, special: bool = False) -> Case:
        x = _data(nrng, program.input_shape(n), dtype, special=special)
        want = program.reference(x)
        out = guarded(want.shape, dtype)
        return Case(name, [x, out.array], [out], want)

    sizes = [0, 1, 5] if program.symbolic else [3]
    for n in sizes:
        found.append(good(f"good n={n}", n))
    found.append(good("nan and inf", sizes[-1], special=True))
    base = good("base", sizes[-1])
    x, want = base.args[0], base.expect
    assert want is not None
    other = "float64" if dtype != "float64" else "float32"

    def fresh_out() -> Guarded:
        return guarded(want.shape, dtype)

    out = fresh_out()
    found.append(Case("wrong dtype", [x.astype(other), out.array], [out], None))
    out = fresh_out()
    found.append(Case("wrong rank", [x.reshape(-1, 1) if x.ndim == 1 else x.reshape(-1), out.array], [out], None))
    static_axes = [k for k, d in enumerate(program.input_shape(-1)) if d != -1]
    if static_axes:  # one more element along a static axis
        out = fresh_out()
        axis = static_axes[rng.randrange(len(static_axes))]
        wider = np.concatenate([x, np.take(x, [0], axis=axis)], axis=axis) if x.size else np.zeros(
            tuple(d + (k == axis) for k, d in enumerate(x.shape)), dtype
        )
        found.append(Case("wrong size", [wider, out.array], [out], None))
    out = fresh_out()
    found.append(Case("too few", [x], [], None))
    found.append(Case("too many", [x, out.array, out.array], [out], None))
    out = fresh_out()
    found.append(Case("None input", [None, out.array], [out], None))
    found.append(Case("list input", [x.tolist(), out.array], [out], None))
    found.append(Case("float input", [1.5, out.array], [out], None))
    # strided and misaligned (may run, then correctly)
    doubled = np.repeat(x, 2, axis=-1) if x.shape[-1] else x
    found.append(Case("strided input", [doubled[..., ::2], out.array], [out], want))
    out = guarded(want.shape, dtype, step=2)
    found.append(Case("strided output", [x, out.array], [out], want))
    for offset in (1, 4):
        if offset % np.dtype(dtype).itemsize == 0 or offset == 1:
            mis = guarded(x.shape, dtype, offset_bytes=offset)
            mis.array[...] = x
            out = guarded(want.shape, dtype, offset_bytes=offset)
            found.append(Case(f"misaligned by {offset}", [mis.array, out.array], [out, mis], want, out))
    out = fresh_out()
    out.array.flags.writeable = False
    found.append(Case("read-only output", [x, out.array], [out], None))
    if x.shape == want.shape:
        y = x.copy()
        found.append(Case("output is the input", [y, y], [], program.reference(x), None))
    if want.size > 1:
        out = fresh_out()
        overlapping = np.lib.stride_tricks.as_strided(out.array, want.shape, [0] * want.ndim)
        found.append(Case("overlapping output", [x, overlapping], [out], None))
    if program.symbolic:  # the output's n one more than the input's
        other = program.reference(_data(nrng, program.input_shape(sizes[-1] + 1), dtype, special=False))
        out = guarded(other.shape, dtype)
        found.append(Case("inconsistent n", [x, out.array], [out], want if other.shape == want.shape else None))
        huge = np.lib.stride_tricks.as_strided(x, program.input_shape(2**40), [0] * x.ndim)
        out = fresh_out()
        found.append(Case("2^40 elements", [huge, out.array], [out], None))
    return found


# ---------------------------------------------------------------------------
# One program in a child process
# ---------------------------------------------------------------------------


def check_case(fn: Any, case: Case) -> tuple[str, str]:
    """(outcome, detail) of one call: `error:<Class>` or `ok` are good; `wrong-result`,
    `guard-overwritten`, `exception:<Type>` are bad."""
    import numpy as np

    from compiler.errors import CompilerError

    try:
        fn(*case.args)
    except CompilerError as err:
        outcome = f"error:{type(err).__name__}"
        detail = str(err)[:200]
    except Exception as err:
        return f"exception:{type(err).__name__}", str(err)[:300]
    else:
        outcome, detail = "ok", ""
        if case.expect is None:
            outcome = "accepted-bad-argument"
        else:
            got = case.args[-1] if case.result_of is None else case.result_of.array
            tol = 2e-2 if case.expect.dtype == np.float16 else 1e-4
            if got.shape != case.expect.shape or not np.allclose(got, case.expect, rtol=tol, atol=tol, equal_nan=True):
                return "wrong-result", f"max diff {np.nanmax(np.abs(got.astype(np.float64) - case.expect)) if got.shape == case.expect.shape else got.shape}"
    if not all(g.intact() for g in case.outputs):
        return "guard-overwritten", outcome
    return outcome, detail


GOOD_OUTCOMES = ("ok",)


def is_bad(outcome: str) -> bool:
    return not (outcome == "ok" or outcome.startswith("error:"))


def run_program(seed: int, index: int, log: Path) -> None:
    """In the child: make program `index` of `seed`, build it, run its cases; one JSON
    line per event into `log` (flushed, so the last line survives a crash)."""
    import numpy as np

    import compiler
    from compiler.errors import CompilerError

    np.seterr(all="ignore")  # the references meet inf - inf and NaNs on purpose
    rng = random.Random(f"{seed}/{index}")
    with open(log, "a") as out:

        def emit(**record: Any) -> None:
            out.write(json.dumps(record) + "\n")
            out.flush()

        program = random_program(rng)
        if program is None:
            emit(event="skipped", reason="schedule refused")
            return
        emit(event="program", description=program.description)
        try:
            fn = compiler.build(program.schedule, program.args, **program.options)
        except CompilerError as err:
            emit(event="build", outcome=f"error:{type(err).__name__}", detail=str(err)[:300])
            return
        except Exception as err:
            emit(event="build", outcome=f"exception:{type(err).__name__}", detail=str(err)[:300])
            return
        emit(event="build", outcome="ok")
        for case in cases(program, rng):
            emit(event="start", case=case.name)
            outcome, detail = check_case(fn, case)
            emit(event="case", case=case.name, outcome=outcome, detail=detail)


@dataclass
class ApiReport:
    programs: int = 0
    calls: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    bad: dict[str, list[str]] = field(default_factory=dict)  # signature -> where

    def summary(self) -> str:
        lines = [f"{self.programs} programs, {self.calls} calls: " + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))]
        for sig, where in sorted(self.bad.items()):
            lines.append(f"  [{len(where):3d}] {sig}   (first: {where[0]})")
        return "\n".join(lines)


def fuzz_api(seed: int, programs: int, *, timeout: float = 120, memory_mb: int = 3072,
             log: Callable[[str], None] | None = None) -> ApiReport:
    """Build and call `programs` random programs, each in a forked child."""
    import signal

    fuzz.warm_up()
    report = ApiReport()
    with tempfile.TemporaryDirectory(prefix="compiler-api-fuzz-") as tmp:
        for index in range(programs):
            path = Path(tmp) / f"{index}.jsonl"
            limit = fuzz._vm_bytes() + memory_mb * 2**20
            pid = os.fork()
            if pid == 0:
                code = 0
                try:
                    fuzz._child_env(traceback=False)
                    fuzz._limit_child(timeout, limit)
                    devnull = os.open(os.devnull, os.O_WRONLY)
                    os.dup2(devnull, 1)
                    run_program(seed, index, path)
                except BaseException as err:
                    with open(path, "a") as out:
                        out.write(json.dumps({"event": "crash", "outcome": f"exception:{type(err).__name__}", "detail": str(err)[:300]}) + "\n")
                    code = 1
                finally:
                    os._exit(code)
            _, killed_by, timed_out = fuzz._wait(pid, timeout * fuzz.WALL_FACTOR)
            timed_out = timed_out or killed_by == signal.SIGXCPU
            records = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
            where = f"seed {seed} program {index}"
            description = next((r["description"] for r in records if r["event"] == "program"), "?")
            report.programs += 1
            last_case = None
            for r in records:
                if r["event"] == "start":
                    last_case = r["case"]
                if r["event"] in ("case", "build", "crash"):
                    last_case = None if r["event"] == "case" else last_case
                    report.calls += r["event"] == "case"
                    outcome = r["outcome"]
                    report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1
                    if is_bad(outcome):
                        sig = f"{outcome} in {r.get('case', r['event'])}"
                        report.bad.setdefault(sig, []).append(f"{where}: {description}: {r['detail']}")
            if timed_out or killed_by is not None:
                kind = "timeout" if timed_out else f"signal {signal.Signals(killed_by).name}" if killed_by else "?"
                report.outcomes[kind] = report.outcomes.get(kind, 0) + 1
                report.bad.setdefault(f"{kind} in {last_case or 'build'}", []).append(f"{where}: {description}")
            if log and (index + 1) % 10 == 0:
                log(f"{index + 1} programs, {len(report.bad)} bad signatures")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=int(os.environ.get("COMPILER_API_FUZZ_PROGRAMS", "50")))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120.0, help="CPU seconds per program (build and calls)")
    parser.add_argument("--memory-mb", type=int, default=3072)
    parser.add_argument("--json", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    start = time.monotonic()
    report = fuzz_api(args.seed, args.programs, timeout=args.timeout, memory_mb=args.memory_mb,
                      log=lambda m: print(m, file=sys.stderr, flush=True))
    print(report.summary())
    print(f"{time.monotonic() - start:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"programs": report.programs, "calls": report.calls,
                                         "outcomes": report.outcomes, "bad": report.bad}, indent=2) + "\n")
    return 1 if report.bad else 0


if __name__ == "__main__":
    sys.exit(main())
