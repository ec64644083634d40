"""Property tests: random programs under random legal schedules (hypothesis).

No legal schedule may change a result or touch memory outside a buffer:

* programs: elementwise chains (with skip connections, so a stage can have two
  consumers one of which reads the other), matmul-like reductions (with a producer
  and an epilogue), padded convolutions (a pad stage whose `te.if_then_else` reads
  a placeholder), two consumers of one stage, guarded stencils (i-1, i+1);
  with static extents and with symbolic ones (`te.var`, bound at call time from
  the argument shapes; one build is called at several drawn sizes, size 1 and
  sizes no factor divides included);
* schedules: every form of every primitive, in random order: split by factor
  and by nparts (1, dividing or not, larger than the extent), nested splits,
  fuse of 0 to 3 consecutive leaves, before and after splits, reorder, tile,
  compute_at at any leaf of any consumer (the target may be split, fused or
  reordered afterwards: the attach point moves), compute_inline, compute_root,
  parallel, vectorize, unroll, pragma; vectorize/parallel of a reduce axis must
  raise ValueError;
* checks: every input and output lives inside guard memory (NaN around the
  inputs, so an out-of-bounds read shows in the result; a sentinel around the
  outputs, checked after each call), inputs are unchanged, outputs match NumPy,
  and `compiler.build(..., check_bounds=True)` checks every access of every
  buffer, intermediates included.

COMPILER_PROPERTY_EXAMPLES sets the examples per test (small by default; set it
to thousands for a long search). COMPILER_PROPERTY_SUBPROCESS=1 runs each example
in a child interpreter (a crash fails the example instead of the pytest
process); COMPILER_PROPERTY_LOG=DIR appends each case (JSON) to DIR/<pid>.jsonl
before running it, so a case that kills the process can be replayed with
`python test/python/test_schedule_properties.py CASE.json` (which prints the
case as a script and runs it).

A failing example is reported as a self-contained script (hypothesis `note`).
The bugs these tests found have regression tests at the end of this file.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from long_tests import examples
from references import assert_guard_unchanged, guarded_array

import compiler
from compiler import te
from compiler.te.tensors import collect_stages

EXAMPLES = examples(3, 20)  # per program kind
SUBPROCESS = os.environ.get("COMPILER_PROPERTY_SUBPROCESS", "") not in ("", "0")
LOG_DIR = os.environ.get("COMPILER_PROPERTY_LOG", "")
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# ---------------------------------------------------------------------------
# Programs: source text, argument shapes and a NumPy reference
# ---------------------------------------------------------------------------

Arrays = dict[str, np.ndarray]


@dataclass
class Program:
    dims: list[str]  # the size variables, te.var when symbolic
    lines: list[str]  # defines the tensors and `args`, `outputs`
    inputs: list[tuple[str, tuple[str, ...]]]  # name, shape (Python expressions of the dims)
    outputs: list[tuple[str, tuple[str, ...]]]
    reference: Callable[[Arrays, dict[str, int]], Arrays]
    min_size: dict[str, int] = field(default_factory=dict)


def _index(ndim: int) -> tuple[str, ...]:
    return ("i", "j", "l")[:ndim]


def _shifted(x: np.ndarray, axis: int, delta: int) -> np.ndarray:
    """y[i] = x[i + delta] along `axis`, 0 outside (the guarded neighbour read)."""
    y = np.zeros_like(x)
    n = x.shape[axis]
    src = [slice(None)] * x.ndim
    dst = [slice(None)] * x.ndim
    if delta > 0:
        src[axis], dst[axis] = slice(delta, n), slice(0, max(n - delta, 0))
    else:
        src[axis], dst[axis] = slice(0, max(n + delta, 0)), slice(-delta, n)
    y[tuple(dst)] = x[tuple(src)]
    return y


CHAIN_OPS = ("mul", "add", "square", "skip", "reverse", "broadcast")


def chain_program(ndim: int, ops: list[str], middle_output: bool = False) -> Program:
    """A -> B -> C ...: elementwise stages; `skip` adds the stage two back (or A),
    `reverse` reads the last axis backwards, `broadcast` adds the first column;
    `middle_output`: the first stage is a result too (and still read by the next)."""
    dims = ["n", "m", "p"][:ndim]
    idx = ", ".join(_index(ndim))
    shape = f"({', '.join(dims)},)"
    names = ["A", *["B", "C", "D", "E", "F"][: len(ops)]]
    last = f"{dims[-1]} - 1 - {_index(ndim)[-1]}"
    reversed_idx = ", ".join([*_index(ndim)[:-1], last])
    column = ", ".join(_index(ndim)[:1] + ("0",) * (ndim - 1)) if ndim > 1 else "0"
    lines = [f'A = te.placeholder({shape}, name="A")']
    for k, op in enumerate(ops, start=1):
        prev, me = names[k - 1], names[k]
        back = names[max(k - 2, 0)]
        body = {
            "mul": f"{prev}[{idx}] * 2.0",
            "add": f"{prev}[{idx}] + 1.0",
            "square": f"{prev}[{idx}] * {prev}[{idx}]",
            "skip": f"{prev}[{idx}] + {back}[{idx}]",
            "reverse": f"{prev}[{reversed_idx}] - 0.25",
            "broadcast": f"{prev}[{idx}] + {prev}[{column}]",
        }[op]
        lines.append(f'{me} = te.compute({shape}, lambda {idx}: {body}, name="{me}")')
    outs = [names[1], names[-1]] if middle_output and len(ops) > 1 else [names[-1]]
    lines.append(f"args, outputs = [A, {', '.join(outs)}], [{', '.join(outs)}]")

    def reference(xs: Arrays, sizes: dict[str, int]) -> Arrays:
        values = [xs["A"].astype(np.float64)]
        for k, op in enumerate(ops, start=1):
            prev, back = values[k - 1], values[max(k - 2, 0)]
            column = prev[:1] if ndim == 1 else prev[(slice(None),) + (slice(0, 1),) * (ndim - 1)]
            values.append(
                {
                    "mul": prev * 2.0,
                    "add": prev + 1.0,
                    "square": prev * prev,
                    "skip": prev + back,
                    "reverse": np.flip(prev, axis=-1) - 0.25,
                    "broadcast": prev + column,
                }[op]
            )
        return {name: values[names.index(name)] for name in outs}

    return Program(dims, lines, [("A", tuple(dims))], [(o, tuple(dims)) for o in outs], reference)


def matmul_program(producer: bool, epilogue: bool, reducer: str) -> Program:
    """C[i, j] = sum/max_k A2[i, k] * B[k, j], A2 = A * 2 (or A), D = C + 1."""
    lines = ['A = te.placeholder((n, r), name="A")', 'B = te.placeholder((r, m), name="B")']
    a = "A"
    if producer:
        lines.append('A2 = te.compute((n, r), lambda i, q: A[i, q] * 2.0, name="A2")')
        a = "A2"
    lines.append('k = te.reduce_axis((0, r), name="k")')
    lines.append(f'C = te.compute((n, m), lambda i, j: te.{reducer}({a}[i, k] * B[k, j], axis=k), name="C")')
    out = "C"
    if epilogue:
        lines.append('D = te.compute((n, m), lambda i, j: C[i, j] + 1.0, name="D")')
        out = "D"
    lines.append(f"args, outputs = [A, B, {out}], [{out}]")

    def reference(xs: Arrays, sizes: dict[str, int]) -> Arrays:
        av = xs["A"].astype(np.float64) * (2.0 if producer else 1.0)
        products = av[:, :, None] * xs["B"].astype(np.float64)[None, :, :]
        c = products.sum(axis=1) if reducer == "sum" else products.max(axis=1)
        return {out: c + 1.0 if epilogue else c}

    return Program(
        ["n", "m", "r"], lines, [("A", ("n", "r")), ("B", ("r", "m"))], [(out, ("n", "m"))], reference
    )


def _plus(dim: str, delta: int) -> str:
    return dim if delta == 0 else f"{dim} + {delta}" if delta > 0 else f"{dim} - {-delta}"


def _conv_out(dim: str, pad: int, kernel: int, stride: int) -> str:
    if stride == 1:
        return _plus(dim, 2 * pad - kernel + 1)
    return f"({_plus(dim, 2 * pad - kernel)}) // {stride} + 1"


def conv_program(channels: int, filters: int, kernel: int, pad: int, relu: bool, stride: int = 1) -> Program:
    """P = pad(X) (te.if_then_else reading X), Y = conv(P, W) (strided), Z = leaky relu(Y)."""
    ph, pw = _plus("h", 2 * pad), _plus("w", 2 * pad)
    oh, ow = _conv_out("h", pad, kernel, stride), _conv_out("w", pad, kernel, stride)
    sy = "y" if stride == 1 else f"y * {stride}"
    sx = "x" if stride == 1 else f"x * {stride}"
    inside = f"te.all(y >= {pad}, y < {_plus('h', pad)}, x >= {pad}, x < {_plus('w', pad)})"
    lines = [
        f'X = te.placeholder(({channels}, h, w), name="X")',
        f'W = te.placeholder(({filters}, {channels}, {kernel}, {kernel}), name="W")',
        f"P = te.compute(({channels}, {ph}, {pw}), lambda q, y, x: "
        f'te.if_then_else({inside}, X[q, y - {pad}, x - {pad}], 0.0), name="P")',
        f'rc = te.reduce_axis((0, {channels}), name="rc")',
        f'ry = te.reduce_axis((0, {kernel}), name="ry")',
        f'rx = te.reduce_axis((0, {kernel}), name="rx")',
        f"Y = te.compute(({filters}, {oh}, {ow}), lambda o, y, x: "
        f'te.sum(P[rc, {sy} + ry, {sx} + rx] * W[o, rc, ry, rx], axis=[rc, ry, rx]), name="Y")',
    ]
    out = "Y"
    if relu:
        lines.append(
            f'Z = te.compute(({filters}, {oh}, {ow}), lambda o, y, x: te.max(Y[o, y, x], 0.0) + Y[o, y, x] * 0.125, name="Z")'
        )
        out = "Z"
    lines.append(f"args, outputs = [X, W, {out}], [{out}]")

    def reference(xs: Arrays, sizes: dict[str, int]) -> Arrays:
        x = np.pad(xs["X"].astype(np.float64), ((0, 0), (pad, pad), (pad, pad)))
        w = xs["W"].astype(np.float64)
        h, wd = (x.shape[1] - kernel) // stride + 1, (x.shape[2] - kernel) // stride + 1
        y = np.zeros((filters, h, wd))
        for ry in range(kernel):
            for rx in range(kernel):
                window = x[:, ry : ry + stride * (h - 1) + 1 : stride, rx : rx + stride * (wd - 1) + 1 : stride]
                y += np.einsum("chw,fc->fhw", window, w[:, :, ry, rx])
        return {out: np.maximum(y, 0.0) + y * 0.125 if relu else y}

    low = max(1, kernel - 2 * pad)
    return Program(
        ["h", "w"],
        lines,
        [("X", (str(channels), "h", "w")), ("W", (str(filters), str(channels), str(kernel), str(kernel)))],
        [(out, (str(filters), oh, ow))],
        reference,
        {"h": low, "w": low},
    )


def two_consumers_program(ndim: int, axis: int, variant: str) -> Program:
    """B = A * 3 read by C (B[i] + B[i + 2]) and D (B[i + 1] * 2, or * C[i] in the
    diamond); `join`: E = C - D; `outputs`: C and D are both results."""
    dims = ["n", "m"][:ndim]
    idx = _index(ndim)

    def at(delta: int) -> str:
        return ", ".join(f"{v} + {delta}" if k == axis and delta else v for k, v in enumerate(idx))

    small = tuple(_plus(d, -2) if k == axis else d for k, d in enumerate(dims))
    full, part, i0 = f"({', '.join(dims)},)", f"({', '.join(small)},)", ", ".join(idx)
    lam = f"lambda {i0}:"
    d_body = f"B[{at(1)}] * C[{i0}]" if variant == "diamond" else f"B[{at(1)}] * 2.0"
    lines = [
        f'A = te.placeholder({full}, name="A")',
        f'B = te.compute({full}, {lam} A[{i0}] * 3.0, name="B")',
        f'C = te.compute({part}, {lam} B[{i0}] + B[{at(2)}], name="C")',
        f'D = te.compute({part}, {lam} {d_body}, name="D")',
    ]
    if variant == "outputs":
        lines.append("args, outputs = [A, C, D], [C, D]")
        outs = ["C", "D"]
    else:
        lines.append(f'E = te.compute({part}, {lam} C[{i0}] - D[{i0}], name="E")')
        lines.append("args, outputs = [A, E], [E]")
        outs = ["E"]

    def reference(xs: Arrays, sizes: dict[str, int]) -> Arrays:
        b = xs["A"].astype(np.float64) * 3.0
        n = b.shape[axis]
        take = lambda lo: np.take(b, np.arange(lo, lo + n - 2), axis=axis)  # noqa: E731
        c = take(0) + take(2)
        d = take(1) * (c if variant == "diamond" else 2.0)
        return {"C": c, "D": d} if variant == "outputs" else {"E": c - d}

    return Program(
        dims,
        lines,
        [("A", tuple(dims))],
        [(o, small) for o in outs],
        reference,
        {dims[axis]: 3},
    )


def stencil_program(ndim: int, axes: list[int], depth: int, tail: bool) -> Program:
    """B = A * 2, then `depth` stencils: x[i] + x[i - 1] + x[i + 1] along `axes`, the
    neighbours guarded (0 outside); `tail`: a last elementwise stage."""
    dims = ["n", "m"][:ndim]
    idx = _index(ndim)
    i0 = ", ".join(idx)
    full = f"({', '.join(dims)},)"
    lines = [f'A = te.placeholder({full}, name="A")', f'B = te.compute({full}, lambda {i0}: A[{i0}] * 2.0, name="B")']
    names = ["B", "C", "D"][: depth + 1]
    for src, dst in itertools.pairwise(names):
        terms = [f"{src}[{i0}]"]
        for a in axes:
            lo = ", ".join(f"{v} - 1" if k == a else v for k, v in enumerate(idx))
            hi = ", ".join(f"{v} + 1" if k == a else v for k, v in enumerate(idx))
            terms.append(f"te.if_then_else({idx[a]} > 0, {src}[{lo}], 0.0)")
            terms.append(f"te.if_then_else({idx[a]} < {dims[a]} - 1, {src}[{hi}], 0.0)")
        lines.append(f'{dst} = te.compute({full}, lambda {i0}: {" + ".join(terms)}, name="{dst}")')
    out = names[-1]
    if tail:
        lines.append(f'T = te.compute({full}, lambda {i0}: {out}[{i0}] * 0.5, name="T")')
        out = "T"
    lines.append(f"args, outputs = [A, {out}], [{out}]")

    def reference(xs: Arrays, sizes: dict[str, int]) -> Arrays:
        x = xs["A"].astype(np.float64) * 2.0
        for _ in range(depth):
            x = x + sum(_shifted(x, a, -1) + _shifted(x, a, 1) for a in axes)
        return {out: x * 0.5 if tail else x}

    return Program(dims, lines, [("A", tuple(dims))], [(out, tuple(dims))], reference)


def make_program(kind: str, params: dict[str, Any]) -> Program:
    return {
        "chain": chain_program,
        "matmul": matmul_program,
        "conv": conv_program,
        "two_consumers": two_consumers_program,
        "stencil": stencil_program,
    }[kind](**params)


PROGRAM_KINDS = ("chain", "matmul", "conv", "two_consumers", "stencil")


# ---------------------------------------------------------------------------
# A case: a program, concrete sizes and a schedule, all printable as a script
# ---------------------------------------------------------------------------


@dataclass
class Case:
    kind: str
    params: dict[str, Any]
    symbolic: bool
    sizes: list[dict[str, int]]  # one build, called at each (one entry when static)
    schedule: list[str] = field(default_factory=list)
    auto_schedule: bool = False  # build(..., auto_schedule=True): the rest scheduled automatically

    def program(self) -> Program:
        return make_program(self.kind, self.params)

    def program_source(self) -> str:
        p = self.program()
        if self.symbolic:
            head = [f'{d} = te.var("{d}")' for d in p.dims]
        else:
            head = [f"{d} = {self.sizes[0][d]}" for d in p.dims]
        return "\n".join(head + p.lines + ["s = te.create_schedule([t.op for t in outputs])"]) + "\n"

    def source(self) -> str:
        return self.program_source() + "".join(line + "\n" for line in self.schedule)

    def script(self) -> str:
        """A self-contained reproducer."""
        return (
            "# run from test/python: python -c \"import test_schedule_properties as t; "
            "t.run_case(t.Case(**CASE))\"\n"
            f"CASE = {json.dumps(asdict(self))}\n"
            "import compiler\nfrom compiler import te\n"
            "from test_schedule_properties import expect_value_error\n"
            + self.source()
            + "f = compiler.build(s, args, check_bounds=True"
            + f"{', auto_schedule=True' if self.auto_schedule else ''})\n"
            + f"# called with sizes {self.sizes}\n"
        )


def expect_value_error(call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """A primitive that must be rejected (vectorize/parallel of a reduce axis)."""
    with pytest.raises(ValueError, match="reduce axis"):
        call(*args, **kwargs)


def execute(source: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"te": te, "expect_value_error": expect_value_error}
    exec(compile(source, "<case>", "exec"), namespace)
    return namespace


GUARD_MIN = 4096  # elements of guard memory each side of every argument (at least)


def parse_primitive(line: str) -> tuple[list[str], str, str, str]:
    """A schedule line as (the variables it assigns, stage, primitive, arguments);
    a primitive that must be rejected is `rejected <primitive>`."""
    results = line.split(" = ")[0].split(", ") if " = " in line else []
    stage = line.split("s[")[1].split("]")[0]
    if line.startswith("expect_value_error("):
        return [], stage, "rejected " + line.split("].")[1].split(",")[0], ""
    call, args = line.split("].", 1)[1].split("(", 1)
    return results, stage, call, args[:-1]


def run_case(case: Case, check_bounds: bool = True) -> None:
    """Build the case once and call it at each of its sizes; raise on any difference."""
    program = case.program()
    namespace = execute(case.source())
    options = {"check_bounds": True} if check_bounds else {}
    if case.auto_schedule:
        options["auto_schedule"] = True
    f = compiler.build(namespace["s"], namespace["args"], **options)
    rng = np.random.default_rng(len(case.schedule))
    for sizes in case.sizes:
        env = dict(sizes)
        inputs: Arrays = {}
        held: list[tuple[str, np.ndarray, np.ndarray, np.ndarray, int]] = []
        call_args: list[np.ndarray] = []
        for name, dims in program.inputs:
            shape = tuple(int(eval(d, {}, env)) for d in dims)
            values = rng.uniform(-1.0, 1.0, shape).astype(np.float32)
            guard = max(GUARD_MIN, 4 * values.size)
            whole, view = guarded_array(shape, guard, np.nan, values)
            inputs[name] = values
            held.append((name, whole, view, values, guard))
            call_args.append(view)
        outputs: dict[str, tuple[np.ndarray, np.ndarray, int]] = {}
        for name, dims in program.outputs:
            shape = tuple(int(eval(d, {}, env)) for d in dims)
            guard = max(GUARD_MIN, 4 * int(np.prod(shape)))
            whole, view = guarded_array(shape, guard)
            outputs[name] = (whole, view, guard)
            call_args.append(view)
        f(*call_args)
        expected = program.reference(inputs, sizes)
        for name, whole, view, values, guard in held:
            assert_guard_unchanged(whole, guard, np.nan, what=f"input {name}")
            np.testing.assert_array_equal(view, values, err_msg=f"input {name} was written ({sizes})")
        for name, (whole, view, guard) in outputs.items():
            assert_guard_unchanged(whole, guard, what=f"output {name}")
            np.testing.assert_allclose(
                view, expected[name].astype(np.float32), rtol=1e-4, atol=1e-4, err_msg=f"output {name} ({sizes})"
            )


def run_case_isolated(case: Case, check_bounds: bool = True) -> None:
    """`run_case` in a child interpreter: a crash (an out-of-bounds write that
    corrupts the heap) fails this case instead of the test process."""
    code = (
        "import json, sys\n"
        "import test_schedule_properties as t\n"
        f"t.run_case(t.Case(**json.loads(sys.stdin.read())), {check_bounds})\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), *sys.path]))
    done = subprocess.run(
        [sys.executable, "-c", code], input=json.dumps(asdict(case)), capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise AssertionError(f"the case failed in a child process (status {done.returncode}):\n{done.stderr[-4000:]}")


def check(case: Case) -> None:
    note(case.script())
    if LOG_DIR:
        os.makedirs(LOG_DIR, exist_ok=True)
        with open(os.path.join(LOG_DIR, f"{os.getpid()}.jsonl"), "a") as log:
            log.write(json.dumps(asdict(case)) + "\n")
    (run_case_isolated if SUBPROCESS else run_case)(case)


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

SIZES = st.one_of(st.sampled_from([1, 2, 3, 5, 7]), st.integers(1, 13))


@st.composite
def program_params(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    if kind == "chain":
        ndim = draw(st.integers(1, 3), label="ndim")
        ops = draw(st.lists(st.sampled_from(CHAIN_OPS), min_size=1, max_size=4), label="ops")
        return {"ndim": ndim, "ops": ops, "middle_output": draw(st.integers(0, 3), label="middle output?") == 0}
    if kind == "matmul":
        return {
            "producer": draw(st.booleans(), label="producer"),
            "epilogue": draw(st.booleans(), label="epilogue"),
            "reducer": draw(st.sampled_from(["sum", "max"]), label="reducer"),
        }
    if kind == "conv":
        return {
            "channels": draw(st.integers(1, 3), label="channels"),
            "filters": draw(st.integers(1, 3), label="filters"),
            "kernel": draw(st.sampled_from([3, 1, 2]), label="kernel"),
            "pad": draw(st.sampled_from([1, 0, 2]), label="pad"),
            "relu": draw(st.booleans(), label="relu"),
            "stride": draw(st.integers(1, 2), label="stride"),
        }
    if kind == "two_consumers":
        ndim = draw(st.integers(1, 2), label="ndim")
        return {
            "ndim": ndim,
            "axis": draw(st.integers(0, ndim - 1), label="axis"),
            "variant": draw(st.sampled_from(["join", "outputs", "diamond"]), label="variant"),
        }
    assert kind == "stencil"
    ndim = draw(st.integers(1, 2), label="ndim")
    axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True), label="axes")
    return {
        "ndim": ndim,
        "axes": sorted(axes),
        "depth": draw(st.integers(1, 2), label="depth"),
        "tail": draw(st.booleans(), label="tail"),
    }


@st.composite
def program_cases(draw: st.DrawFn, kind: str) -> Case:
    params = draw(program_params(kind))
    symbolic = draw(st.booleans(), label="symbolic")
    program = make_program(kind, params)

    def one_size() -> dict[str, int]:
        return {d: max(draw(SIZES, label=f"size {d}"), program.min_size.get(d, 1)) for d in program.dims}

    sizes = [one_size() for _ in range(draw(st.integers(1, 3), label="calls") if symbolic else 1)]
    return Case(kind, params, symbolic, sizes)


FACTORS = st.sampled_from([2, 3, 1, 4, 5, 7, 8, 16, 64])
PRAGMAS = [("unroll", None), ("vectorize", None), ("parallel", None), ("auto_unroll_max_step", 16), ("hint", None)]
STEPS = ("split", "split_nparts", "fuse", "reorder", "tile", "annotate", "compute_at", "compute_root", "inline")


class ScheduleBuilder:
    """Draws primitives one at a time, applies each to the real schedule (so the
    next draw sees the leaves it made) and records it as a line of source."""

    def __init__(self, data: st.DataObject, case: Case):
        self.data = data
        self.case = case
        self.ns = execute(case.program_source())
        self.s = self.ns["s"]
        self.outputs: list[te.Tensor] = self.ns["outputs"]
        self.stages = collect_stages(self.outputs)
        self.names: dict[int, str] = {}
        for t in self.stages:
            for k, iv in enumerate(t.op.axis):
                self.names[id(iv)] = f"{t.name}.op.axis[{k}]"
            for k, iv in enumerate(t.op.reduce_axis):
                self.names[id(iv)] = f"{t.name}.op.reduce_axis[{k}]"
        self.fresh = 0
        self.attach: dict[str, tuple[te.Tensor, te.IterVar]] = {}  # stage -> (target, leaf), moved like TVM
        self.inlined: set[str] = set()

    # -- helpers ------------------------------------------------------------

    def draw(self, strategy: st.SearchStrategy[Any], label: str) -> Any:
        return self.data.draw(strategy, label=label)

    def choose(self, items: list[Any], label: str) -> Any:
        """One of `items`, drawn as its index (short reports, shrinks to the first)."""
        return items[self.draw(st.integers(0, len(items) - 1), label)]

    def emit(self, line: str) -> None:
        exec(compile(line, "<schedule>", "exec"), self.ns)
        self.case.schedule.append(line)

    def new_names(self, stage: te.Tensor, *tags: str) -> list[str]:
        self.fresh += 1
        return [f"{stage.name}_{tag}{self.fresh}" for tag in tags]

    def name(self, iv: te.IterVar) -> str:
        return self.names[id(iv)]

    def leaves(self, t: te.Tensor) -> list[te.IterVar]:
        return list(self.s[t].leaves)

    def readers(self, t: te.Tensor) -> list[te.Tensor]:
        return [c for c in self.stages if any(isinstance(n, te.Read) and n.tensor is t for n in te.walk(c.op.body))]

    def consumers(self, t: te.Tensor) -> list[te.Tensor]:
        """The stages that read `t`, through inlined stages (the final inline set)."""
        found: list[te.Tensor] = []
        for c in self.readers(t):
            for x in self.consumers(c) if c.name in self.inline_set else [c]:
                if x not in found:
                    found.append(x)
        return found

    def move(self, old: te.IterVar, new: te.IterVar) -> None:
        for stage, (target, iv) in list(self.attach.items()):
            if iv is old:
                self.attach[stage] = (target, new)

    def attach_path(self, t: te.Tensor) -> list[int]:
        path: list[int] = []
        while t.name in self.attach:
            target, iv = self.attach[t.name]
            leaves = self.leaves(target)
            position = [id(x) for x in leaves].index(id(iv))
            path += [id(x) for x in leaves[: position + 1]]
            t = target
        return path

    # -- the schedule ---------------------------------------------------------

    def build(self) -> None:
        """Random primitives, then compute_at of some stages, then more primitives
        (which split, fuse or reorder attach targets), then annotations."""
        inlinable = [t for t in self.stages if t not in self.outputs and not t.op.reduce_axis]
        self.inline_set = {t.name for t in inlinable if self.draw(st.integers(0, 2), f"inline {t.name}?") == 1}
        if self.inline_set and self.draw(st.booleans(), "inline first?"):  # else split, fuse, ... it first
            for t in self.stages:
                if t.name in self.inline_set:
                    self.step_inline(t)
        self.random_steps(8)
        for t in reversed(self.stages):
            if self.draw(st.booleans(), f"compute_at {t.name}?"):
                self.step_compute_at(t)
        self.random_steps(6)
        for t in self.stages:
            if t.name in self.inline_set and t.name not in self.inlined:
                self.step_inline(t)
        self.legalize_attachments()
        for _ in range(self.draw(st.integers(0, 3), "annotations")):
            self.step_annotate(self.choose(self.live(), "stage"))

    def live(self) -> list[te.Tensor]:
        return [t for t in self.stages if t.name not in self.inlined]

    def random_steps(self, most: int) -> None:
        for _ in range(self.draw(st.integers(0, most), "steps")):
            t = self.choose(self.live(), "stage")
            getattr(self, "step_" + self.draw(st.sampled_from(STEPS), "primitive"))(t)

    def legalize_attachments(self) -> None:
        """A stage computed at a consumer's loop whose other consumers do not all run
        inside that loop is not a legal schedule: compute it at the root instead.
        Consumers first, so their attachments are final when a producer is checked."""
        for t in reversed(self.stages):
            if t.name not in self.attach:
                continue
            target, iv = self.attach[t.name]
            others = [c for c in self.consumers(t) if c is not target]
            if any(id(iv) not in self.attach_path(c) for c in others):
                self.emit(f"s[{t.name}].compute_root()")
                del self.attach[t.name]

    def step_split(self, t: te.Tensor, nparts: bool = False) -> None:
        leaf = self.choose(self.leaves(t), "leaf")
        value = self.draw(FACTORS, "nparts" if nparts else "factor")
        outer, inner = self.new_names(t, "o", "i")
        how = "nparts" if nparts else "factor"
        self.emit(f"{outer}, {inner} = s[{t.name}].split({self.name(leaf)}, {how}={value})")
        for name in (outer, inner):
            self.names[id(self.ns[name])] = name
        self.move(leaf, self.ns[inner])

    def step_split_nparts(self, t: te.Tensor) -> None:
        self.step_split(t, nparts=True)

    def step_fuse(self, t: te.Tensor) -> None:
        leaves = self.leaves(t)
        count = self.draw(st.integers(0, min(3, len(leaves))), "fuse count")
        runs = [
            k for k in range(len(leaves) - count + 1)
            if len({iv.is_reduce for iv in leaves[k : k + count]}) <= 1
        ]
        if count and not runs:
            return
        start = self.choose(runs, "fuse start") if count else 0
        axes = leaves[start : start + count]
        (fused,) = self.new_names(t, "f")
        self.emit(f"{fused} = s[{t.name}].fuse({', '.join(self.name(iv) for iv in axes)})")
        new = self.ns[fused]
        if id(new) not in self.names:
            self.names[id(new)] = fused
        for iv in axes:
            self.move(iv, new)

    def step_reorder(self, t: te.Tensor) -> None:
        leaves = self.leaves(t)
        positions = self.draw(st.lists(st.integers(0, len(leaves) - 1), min_size=1, unique=True), "reorder")
        order = [leaves[k] for k in positions]
        self.emit(f"s[{t.name}].reorder({', '.join(self.name(iv) for iv in order)})")

    def step_tile(self, t: te.Tensor) -> None:
        leaves = self.leaves(t)
        if len(leaves) < 2:
            return
        kx, ky = self.draw(st.lists(st.integers(0, len(leaves) - 1), min_size=2, max_size=2, unique=True), "tile")
        x, y = leaves[kx], leaves[ky]
        fx, fy = self.draw(FACTORS, "x factor"), self.draw(FACTORS, "y factor")
        names = self.new_names(t, "xo", "yo", "xi", "yi")
        self.emit(f"{', '.join(names)} = s[{t.name}].tile({self.name(x)}, {self.name(y)}, {fx}, {fy})")
        for name in names:
            self.names[id(self.ns[name])] = name
        self.move(x, self.ns[names[2]])
        self.move(y, self.ns[names[3]])

    def step_annotate(self, t: te.Tensor) -> None:
        leaf = self.choose(self.leaves(t), "leaf")
        kind = self.draw(st.sampled_from(["unroll", "vectorize", "parallel", "pragma"]), "annotation")
        axis = self.name(leaf)
        if kind == "pragma":
            pragma, value = self.draw(st.sampled_from(PRAGMAS), "pragma")
            if pragma in ("vectorize", "parallel") and leaf.is_reduce:
                self.emit(f'expect_value_error(s[{t.name}].pragma, {axis}, "{pragma}")')
            else:
                extra = "" if value is None else f", {value}"
                self.emit(f's[{t.name}].pragma({axis}, "{pragma}"{extra})')
        elif kind in ("vectorize", "parallel") and leaf.is_reduce:
            self.emit(f"expect_value_error(s[{t.name}].{kind}, {axis})")
        else:
            self.emit(f"s[{t.name}].{kind}({axis})")

    def step_compute_at(self, t: te.Tensor) -> None:
        if t in self.outputs or t.name in self.inline_set:
            return
        target = self.choose(self.consumers(t), "attach to")
        leaf = self.choose(self.leaves(target), "attach leaf")
        self.emit(f"s[{t.name}].compute_at(s[{target.name}], {self.name(leaf)})")
        self.attach[t.name] = (target, leaf)

    def step_compute_root(self, t: te.Tensor) -> None:
        if t in self.outputs or t.name in self.inline_set:
            return
        self.emit(f"s[{t.name}].compute_root()")
        self.attach.pop(t.name, None)

    def step_inline(self, t: te.Tensor) -> None:
        if t.name not in self.inline_set:
            return
        self.emit(f"s[{t.name}].compute_inline()")
        self.inlined.add(t.name)
        self.attach.pop(t.name, None)


def draw_case(data: st.DataObject, kind: str) -> Case:
    case = data.draw(program_cases(kind), label="program")
    ScheduleBuilder(data, case).build()
    return case


# ---------------------------------------------------------------------------
# The property tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", PROGRAM_KINDS)
@SETTINGS
@given(data=st.data())
def test_random_schedules_keep_results_and_bounds(kind: str, data: st.DataObject) -> None:
    check(draw_case(data, kind))




FORMS = (
    "split by factor",
    "split by nparts",
    "nested split",
    "fuse of 0 axes",
    "fuse of 1 axis",
    "fuse of 2 axes",
    "fuse of 3 axes",
    "reorder",
    "tile",
    "compute_at",
    "compute_at, then its target split/fused/tiled",
    "compute_at a reduction's reduce axis",
    "compute_inline",
    "compute_inline of a stage split, fused or annotated before",
    "compute_root",
    "parallel",
    "vectorize",
    "unroll",
    "pragma unroll/vectorize/parallel",
    "pragma with a name or value of its own",
    "vectorize/parallel of a reduce axis rejected",
    "symbolic sizes",
    "size 1",
    "several calls of one build",
)


def forms_of(case: Case) -> set[str]:
    """The primitive and program forms a case exercises (FORMS)."""
    found: set[str] = set()
    made: dict[str, str] = {}  # leaf variable -> the primitive that made it
    attached: dict[str, tuple[str, str]] = {}  # stage -> (target, the compute_at line)
    scheduled: set[str] = set()  # stages a loop primitive was applied to
    for line in case.schedule:
        if "expect_value_error" in line:
            found.add("vectorize/parallel of a reduce axis rejected")
            continue
        target, stage, call, args = parse_primitive(line)
        if call == "split":
            found.add("split by nparts" if "nparts=" in line else "split by factor")
            if made.get(args.split(",")[0]) in ("split", "tile"):
                found.add("nested split")
        elif call == "fuse":
            count = len([a for a in args.split(", ") if a])
            found.add({0: "fuse of 0 axes", 1: "fuse of 1 axis"}.get(count, f"fuse of {count} axes"))
        elif call == "pragma":
            name = line.split('"')[1]
            own = name not in ("unroll", "vectorize", "parallel") or line.count(",") > 1
            found.add("pragma with a name or value of its own" if own else "pragma unroll/vectorize/parallel")
        elif call == "compute_at":
            found.add("compute_at")
            attached[stage] = (line.split("s[")[2].split("]")[0], line)
            if ".op.reduce_axis[" in line:
                found.add("compute_at a reduction's reduce axis")
        elif call in ("compute_inline", "compute_root"):
            attached.pop(stage, None)
            found.add(call)
            if call == "compute_inline" and stage in scheduled:
                found.add("compute_inline of a stage split, fused or annotated before")
        elif call:
            found.add(call)
        if call in ("split", "fuse", "reorder", "tile", "parallel", "vectorize", "unroll", "pragma"):
            scheduled.add(stage)
        for name in target:
            made[name] = call
        if call in ("split", "fuse", "tile") and any(stage == tgt for tgt, _ in attached.values()):
            found.add("compute_at, then its target split/fused/tiled")
    if case.symbolic:
        found.add("symbolic sizes")
    if len(case.sizes) > 1:
        found.add("several calls of one build")
    if any(v == 1 for sizes in case.sizes for v in sizes.values()):
        found.add("size 1")
    return found


def test_the_generator_draws_every_form() -> None:
    """The strategies reach every form (a generator that silently stopped drawing one
    would make the property tests weaker without failing them)."""
    seen: set[str] = set()

    @settings(max_examples=120, database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data(), kind=st.sampled_from(PROGRAM_KINDS))
    def draw(data: st.DataObject, kind: str) -> None:
        seen.update(forms_of(draw_case(data, kind)))

    draw()
    assert set(FORMS) - seen == set()

# ---------------------------------------------------------------------------
# Bugs the property tests found (fixed): one regression test each
# ---------------------------------------------------------------------------


def _guarded_run(f: compiler.Function, inputs: list[np.ndarray], out_shape: tuple[int, ...]) -> np.ndarray:
    whole, out = guarded_array(out_shape, GUARD_MIN)
    f(*inputs, out)
    assert_guard_unchanged(whole, GUARD_MIN)
    return out


@pytest.mark.parametrize("form", ["split", "fuse()", "unroll", "compute_at", "split after compute_inline"])
def test_primitives_on_an_inlined_stage(form: str) -> None:
    """Found by the property tests: the sched ops of a stage inlined before or after them
    were left behind (TVM ignores the leaves and attachment of an inlined stage)."""
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((8,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    if form == "split":
        s[B].split(B.op.axis[0], factor=2)
    elif form == "fuse()":
        s[B].fuse()
    elif form == "unroll":
        s[B].unroll(B.op.axis[0])
    elif form == "compute_at":
        s[B].compute_at(s[C], C.op.axis[0])
    s[B].compute_inline()
    if form == "split after compute_inline":
        s[B].split(B.op.axis[0], factor=2)
    f = compiler.build(s, [A, C])
    a = np.linspace(-1.0, 1.0, 8, dtype=np.float32)
    np.testing.assert_allclose(_guarded_run(f, [a], (8,)), a * 2.0 + 1.0, rtol=1e-6)


def test_memory_plan_of_symbolic_sizes_n_and_n_minus_2() -> None:
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((n - 2,), lambda i: B[i] + B[i + 2], name="C")
    D = te.compute((n - 2,), lambda i: C[i] * 2.0, name="D")
    f = compiler.build(te.create_schedule(D.op), [A, D])
    a = np.linspace(-1.0, 1.0, 9, dtype=np.float32)
    np.testing.assert_allclose(_guarded_run(f, [a], (7,)), (a[:-2] + a[2:]) * 6.0, rtol=1e-6)


@pytest.mark.parametrize("n", [2, 3, 9, 70])
def test_memory_plan_of_two_consumers_of_size_n_minus_2(n: int) -> None:
    """Found once `check()` stopped rerunning symbolic cases at static sizes: with D
    parallel, C sits after B and verify-memory-plan could not prove that C's
    `4n - 8` bytes fit before the arena's end, `(4n + 55) // 64 * 128`, which holds
    only for n >= 2 (the verifier now knows it: E's extent n - 2 is an array's)."""
    size = te.var("n")
    A = te.placeholder((size,), name="A")
    B = te.compute((size,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((size - 2,), lambda i: B[i] + B[i + 2], name="C")
    D = te.compute((size - 2,), lambda i: B[i + 1] * 2.0, name="D")
    E = te.compute((size - 2,), lambda i: C[i] - D[i], name="E")
    s = te.create_schedule(E.op)
    s[D].parallel(D.op.axis[0])
    f = compiler.build(s, [A, E], check_bounds=True)
    a = np.linspace(-1.0, 1.0, n, dtype=np.float32) ** 3
    b = a * 3.0
    np.testing.assert_allclose(_guarded_run(f, [a], (n - 2,)), b[:-2] + b[2:] - b[1:-1] * 2.0, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (2, 5), (3, 8)])
def test_memory_plan_of_a_stage_attached_under_an_nparts_split(n: int, m: int) -> None:
    """Found the same way: D attached under E's split by nparts has an extent
    `max(min(..., m - 1), 0) + 1`; verify-memory-plan split each min/max into its
    operands, which forgets that the max is at least 0, and could not place C inside
    the arena (it now also tries the max as an atom of its bounds first)."""
    sn, sm = te.var("n"), te.var("m")
    A = te.placeholder((sn, sm), name="A")
    B = te.compute((sn, sm), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((sn, sm), lambda i, j: B[i, j] * 2.0, name="C")
    D = te.compute((sn, sm), lambda i, j: C[i, j] * 2.0, name="D")
    E = te.compute((sn, sm), lambda i, j: D[i, j] + D[i, 0], name="E")
    s = te.create_schedule([B.op, E.op])
    s[B].split(s[B].split(B.op.axis[0], factor=2)[0], factor=2)
    eo, _ = s[E].split(E.op.axis[1], nparts=2)
    s[D].compute_at(s[E], eo)
    f = compiler.build(s, [A, B, E], check_bounds=True)
    a = np.linspace(-1.0, 1.0, n * m, dtype=np.float32).reshape(n, m)
    b, e = np.empty_like(a), np.empty_like(a)
    f(a, b, e)
    np.testing.assert_allclose(b, a * 2.0, rtol=1e-6)
    np.testing.assert_allclose(e, a * 8.0 + a[:, :1] * 8.0, rtol=1e-6)


@pytest.mark.parametrize(("n", "m"), [(2, 0), (2, 3), (5, 1), (9, 4)])
def test_memory_plan_of_flattened_extents_m_times_n_minus_2(n: int, m: int) -> None:
    """Found the same way (test_auto_schedule's partial schedules): after storage-flatten
    E's extent is `m * n - m * 2`, from which the verifier could not tell that D,
    placed after B at `(4mn + 63) // 64 * 64 + (4mn - 8m + 63) // 64 * 64`, misses B's
    4mn bytes (n >= 2 does not follow: m may be 0). It now also tries `b - a - c * e
    >= 0` for each argument extent e (>= 0) and a few small c."""
    sn, sm = te.var("n"), te.var("m")
    A = te.placeholder((sn, sm), name="A")
    B = te.compute((sn, sm), lambda i, j: A[i, j] * 3.0, name="B")
    C = te.compute((sn - 2, sm), lambda i, j: B[i, j] + B[i + 2, j], name="C")
    D = te.compute((sn - 2, sm), lambda i, j: B[i + 1, j] * 2.0, name="D")
    E = te.compute((sn - 2, sm), lambda i, j: C[i, j] - D[i, j], name="E")
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[0])
    s[B].unroll(B.op.axis[0])
    s[C].unroll(C.op.axis[0])
    f = compiler.build(s, [A, E], check_bounds=True, auto_schedule=True)
    a = np.linspace(-1.0, 1.0, n * m, dtype=np.float32).reshape(n, m) ** 3
    b = a * 3.0
    e = np.empty((n - 2, m), np.float32)
    f(a, e)
    np.testing.assert_allclose(e, b[:-2] + b[2:] - b[1:-1] * 2.0, rtol=1e-5, atol=1e-6)


def test_compute_at_a_stage_that_does_not_read_the_producer() -> None:
    """B has two consumers, C and D, both computed at E's outer loop: B can only be
    computed there too, and E does not read B."""
    A = te.placeholder((12,), name="A")
    B = te.compute((12,), lambda i: A[i] * 3.0, name="B")
    C = te.compute((10,), lambda i: B[i] + B[i + 2], name="C")
    D = te.compute((10,), lambda i: B[i + 1] * 2.0, name="D")
    E = te.compute((10,), lambda i: C[i] - D[i], name="E")
    s = te.create_schedule(E.op)
    xo, _ = s[E].split(E.op.axis[0], factor=4)
    s[C].compute_at(s[E], xo)
    s[D].compute_at(s[E], xo)
    s[B].compute_at(s[E], xo)
    f = compiler.build(s, [A, E])
    a = np.linspace(-1.0, 1.0, 12, dtype=np.float32) ** 3  # not linear: C - D is not 0
    b = a * 3.0
    np.testing.assert_allclose(_guarded_run(f, [a], (10,)), b[:10] + b[2:] - b[1:11] * 2.0, rtol=1e-5)



def test_attached_split_stage_under_a_nested_split_reads_in_bounds() -> None:
    """Found by the property tests (fixed in e6f0590): the consumer's loop runs past
    its domain (split by 3, then the outer loop by 2), and the attached stage, split
    itself, was computed at i = 4 and read A[4] of a 4-element A."""
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] * 2.0, name="B")
    C = te.compute((4,), lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=3)
    s[C].split(xo, factor=2)
    s[B].split(B.op.axis[0], factor=1)
    s[B].compute_at(s[C], xi)
    f = compiler.build(s, [A, C], check_bounds=True)
    a = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    np.testing.assert_allclose(_guarded_run(f, [a], (4,)), a * 2.0 + 1.0, rtol=1e-6)



def test_attached_fused_stage_under_a_nested_split_reads_in_bounds() -> None:
    A = te.placeholder((3, 2), name="A")
    B = te.compute((3, 2), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((3, 2), lambda i, j: B[i, j] + 1.0, name="C")
    s = te.create_schedule(C.op)
    _, ji = s[C].split(C.op.axis[1], factor=8)
    jio, _ = s[C].split(ji, factor=7)
    s[B].compute_at(s[C], jio)
    s[B].fuse(*B.op.axis)
    f = compiler.build(s, [A, C], check_bounds=True)
    a = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(_guarded_run(f, [a], (3, 2)), a * 2.0 + 1.0, rtol=1e-6)


def main(argv: list[str]) -> None:
    """`python test_schedule_properties.py CASE.json|CASES.jsonl [LINE]`: print a
    logged case as a script and run it (in this process)."""
    with open(argv[1]) as f:
        lines = [line for line in f if line.strip()]
    case = Case(**json.loads(lines[int(argv[2]) if len(argv) > 2 else -1]))
    print(case.script())
    run_case(case)
    print("ok")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv)


@pytest.mark.parametrize("shape", [(2, 3), (5, 1), (1, 4), (3, 0), (0, 2)])
def test_attach_target_fused_after_compute_at_with_symbolic_sizes(shape: tuple[int, int]) -> None:
    """Found by test_auto_schedule's partial schedules: B computed at D's first axis,
    then D's axes fused, so B's region is bounded through `f % m` with a symbolic m
    (IntSet reads a divisor m >= 0 as max(m, 1)); empty shapes run no iteration."""
    n, m = te.var("n"), te.var("m")
    A = te.placeholder((n, m), name="A")
    B = te.compute((n, m), lambda i, j: A[i, j] * 2.0, name="B")
    D = te.compute((n, m), lambda i, j: B[i, j] + B[i, 0], name="D")  # reads B[i, min(j, 0)..max(j, 0)]
    s = te.create_schedule(D.op)
    s[B].compute_at(s[D], D.op.axis[0])
    s[D].fuse(D.op.axis[0], D.op.axis[1])
    f = compiler.build(s, [A, D], check_bounds=True)
    a = np.linspace(-1.0, 1.0, shape[0] * shape[1], dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(_guarded_run(f, [a], shape), 2.0 * (a + a[:, :1]), rtol=1e-6)


@settings(max_examples=examples(40, 300), deadline=None)
@given(st.data())
def test_a_stages_consumers_are_its_entry_of_the_consumer_map(data: st.DataObject) -> None:
    """`ScheduleData.consumers` (one stage, asked while the replay changes the stages) and
    `consumer_map` (every stage at once, InferBound's) agree, through chains of inlined
    stages, on random DAGs of elementwise stages."""
    from compiler.schedule.model import ScheduleModel, schedule_of
    from compiler.te.to_ir import build_module

    count = data.draw(st.integers(2, 9), label="stages")
    x = te.placeholder((8,), name="x")
    tensors = [x]
    for k in range(count):
        reads = data.draw(st.lists(st.sampled_from(tensors), min_size=1, max_size=3), label=f"reads of s{k}")
        tensors.append(te.compute((8,), lambda i, r=tuple(reads): sum((t[i] for t in r), te.const(1.0)), name=f"s{k}"))
    s = te.create_schedule(tensors[-1].op)
    reached = {id(t.op) for t in collect_stages([tensors[-1]])}
    for t in tensors[1:-1]:
        if id(t.op) in reached and data.draw(st.booleans(), label=f"inline {t.op.name}"):
            s[t].compute_inline()
    module, _ = build_module([x, tensors[-1]], "main", s)
    func = module.ops.first
    model = ScheduleModel.build(func, schedule_of(module, func))  # type: ignore[arg-type]
    everyone = model.consumer_map()
    for stage in model.stages.values():
        assert model.consumers(stage) == everyone[stage.name], stage.name
