"""The project's fuzzer (test/fuzz/fuzz.py) under test: its machinery on known cases,
and a bounded, seeded run over mutated lit inputs and random te programs that must
find no bad bucket (no traceback, internal error, signal, unlocated diagnostic or
timeout from compiler-opt or compiler-run).

COMPILER_FUZZ_INPUTS=10000 runs that many inputs instead of 30 (300 with
COMPILER_LONG_TESTS=1, about 20 s on one core); COMPILER_FUZZ_SEED picks another
seed. The Python API fuzzer (test/fuzz/api_fuzz.py) runs 3 random programs (8 with
COMPILER_LONG_TESTS=1; COMPILER_API_FUZZ_PROGRAMS=N: more),
each built and called with good and mutated arguments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from long_tests import examples

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "fuzz"))

import fuzz  # noqa: E402

INPUTS = examples(30, 300, "COMPILER_FUZZ_INPUTS")
API_PROGRAMS = examples(3, 8, "COMPILER_API_FUZZ_PROGRAMS")
SEED = int(os.environ.get("COMPILER_FUZZ_SEED", "0"))


def test_jobs_are_reproducible_from_the_seed() -> None:
    first = fuzz.make_jobs(3, 30, run_share=0.3, te_share=0.2)
    again = fuzz.make_jobs(3, 30, run_share=0.3, te_share=0.2)
    assert [(j.origin, j.tool, j.args, j.text) for j in first] == [(j.origin, j.tool, j.args, j.text) for j in again]
    assert {j.tool for j in first} == {"opt", "run"}
    assert any(j.origin.startswith("te#") for j in first)


def test_mutations_change_the_text() -> None:
    import random

    text = 'loop.func @f(%a: !loop.buffer<["n", 4], f32>) {\n  %c = arith.constant 2.5 : f32\n}\n'
    rng = random.Random(0)
    changed = sum(fuzz.mutate(rng, text)[0] != text for _ in range(50))
    assert changed >= 40
    assert fuzz.symbolic_dims(text) == ["n"]


def test_ddmin_finds_the_one_line_that_matters() -> None:
    lines = [f"line {k}" for k in range(40)]
    assert fuzz.ddmin(lines, lambda ls: "line 17" in ls, budget=200) == ["line 17"]
    assert fuzz.ddmin(lines, lambda ls: "line 3" in ls and "line 30" in ls, budget=200) == ["line 3", "line 30"]


def test_classify_outcomes() -> None:
    def result(status: int | None, stderr: str, sig: int | None = None) -> fuzz.Result:
        return fuzz.Result(status, sig, "", stderr, 0.1)

    assert fuzz.classify("opt", result(0, "")) == "ok"
    assert fuzz.classify("opt", result(1, "in.mlir:3:5: error: bad\n")) == "diagnostic"
    assert fuzz.classify("opt", result(1, "in.mlir:3:5\n  %x = ...\n  ^\n  expected\n")) == "diagnostic"
    assert fuzz.classify("run", result(1, "compiler-run: error: BoundsError: f: store ...\n")) == "run-error"
    assert fuzz.classify("opt", result(1, "compiler-run: error: x\n")) == "unlocated"
    assert fuzz.classify("opt", result(1, "make-packed-api: symbolic variable\n")) == "unlocated"
    assert fuzz.classify("opt", result(2, "internal error: KeyError: 3\n")) == "internal"
    assert fuzz.classify("opt", result(1, "Traceback (most recent call last):\n  ...\nKeyError: 3\n")) == "traceback"
    assert fuzz.classify("run", result(None, "", sig=11)) == "signal"


def test_a_crash_is_bucketed_and_minimized(tmp_path: Path) -> None:
    """A store far out of bounds with the checks off crashes compiler-run: one bucket,
    whose reproducer keeps the lines the crash needs."""
    text = (ROOT / "test" / "filecheck" / "tools" / "compiler-run-bounds.mlir").read_text()
    text = fuzz._strip_comments(text).replace("  %z = arith.constant 1.0 : f32\n", "  %z = arith.constant 1.0 : f32\n  %unused = arith.constant 3 : index\n")
    job = fuzz.Job(0, "compiler-run-bounds.mlir", [], "run", ["--dim", "n=1", "--no-check-bounds"], text)
    report = fuzz.fuzz([job], out=tmp_path, timeout=60, minimize_budget=60)
    assert [b.signature for b in report.buckets.values()] == ["signal SIGSEGV in compiler-run"]
    reproducer = (tmp_path / "bucket-001" / "input.mlir").read_text()
    assert "%unused" not in reproducer
    assert "loop.store" in reproducer
    assert "--no-check-bounds" in (tmp_path / "bucket-001" / "command.txt").read_text()


LONG_LOOP = """loop.func @long(%a: !loop.buffer<["n"], f32> {loop.output}) {
  %n = loop.var "n" : index
  %c0 = arith.constant 0 : index
  loop.for %i = %c0 extent %n {
    loop.for %j = %c0 extent %n {
      %v = loop.load %a[%j] : !loop.buffer<["n"], f32>
      %w = arith.constant 1.0 : f32
      %s = arith.addf %v, %w : f32
      loop.store %s, %a[%j] : !loop.buffer<["n"], f32>
    }
  }
}
"""


def test_a_program_long_by_itself_is_a_long_run_not_a_timeout(tmp_path: Path) -> None:
    """A timeout of compiler-run on a program whose own loops run 2^40 iterations at its
    sizes is the program's time (`long-run`, a good outcome); the same program at a
    small size counts 12 iterations, so a timeout there would stay a bad one."""
    job = fuzz.Job(0, "long", [], "run", ["--dim", f"n={2**20}"], LONG_LOOP)
    report = fuzz.fuzz([job], out=tmp_path, timeout=2)
    assert report.outcomes == {"long-run": 1}
    assert not report.buckets
    fuzzer = fuzz.Fuzzer(timeout=30, memory_mb=3072, subprocess=False, workdir=tmp_path)
    (tmp_path / "input.mlir").write_text(LONG_LOOP)
    assert fuzzer.long_program(["--dim", f"n={2**20}"])
    assert not fuzzer.long_program(["--dim", "n=3"])


def test_fuzzing_finds_no_bad_bucket(tmp_path: Path) -> None:
    """The bounded run, in a process of its own (it forks a child per input, which a
    pytest worker's threads make unsafe)."""
    out = tmp_path / "fuzz-out"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "test" / "fuzz" / "fuzz.py"), "--inputs", str(INPUTS), "--seed", str(SEED),
         "--out", str(out), "--timeout", "60", "--minimize-budget", "40", "--quiet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["inputs"] == INPUTS, proc.stderr
    reproducers = "\n".join(
        f"{c.parent.name}: {(c.parent / 'command.txt').read_text()}{(c.parent / 'input.mlir').read_text()}"
        for c in sorted(out.glob("*/command.txt"))
    )
    assert summary["buckets"] == [], proc.stdout + reproducers
    assert proc.returncode == 0


def test_api_fuzzing_finds_no_bad_call(tmp_path: Path) -> None:
    """Random programs through build() and calls with mutated arguments: each call ends
    in a CompilerError or the right result, with the guards around the outputs intact."""
    report = tmp_path / "api.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "test" / "fuzz" / "api_fuzz.py"), "--programs", str(API_PROGRAMS),
         "--seed", str(SEED), "--json", str(report)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    summary = json.loads(report.read_text())
    assert summary["programs"] == API_PROGRAMS, proc.stderr
    assert summary["outcomes"].get("ok", 0) > 0
    assert summary["bad"] == {}, proc.stdout
    assert proc.returncode == 0
