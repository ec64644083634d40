"""The package and its tools behave like their ecosystem's: a version,
`--version`, a cheap `import compiler`."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import compiler

ROOT = Path(__file__).resolve().parents[2]


def tool(name: str, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    return subprocess.run(
        [sys.executable, str(ROOT / "tools" / name), *args],
        capture_output=True,
        text=True,
        check=False,
        **kwargs,
    )


def test_version_is_the_installed_distributions() -> None:
    assert compiler.DISTRIBUTION == "xdsl-tensor-compiler"
    assert compiler.__version__ == version(compiler.DISTRIBUTION)


def test_tools_print_their_version_with_xdsl_and_llvm() -> None:
    import llvmlite

    for name in ("compiler-opt", "compiler-run"):
        run = tool(name, "--version")
        assert run.returncode == 0, run.stderr
        lines = run.stdout.splitlines()
        assert lines[0] == f"{name} (xdsl-tensor-compiler) {compiler.__version__}"
        assert lines[1] == f"xDSL {version('xdsl')}"
        assert lines[2].startswith("LLVM ")
        assert lines[2].endswith(f"(llvmlite {llvmlite.__version__})")


def python(code: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_import_compiler_imports_neither_xdsl_nor_numpy() -> None:
    loaded = python(
        "import sys, compiler; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'xdsl', 'numpy', 'llvmlite', 'islpy'}))"
    )
    assert loaded == "[]"


def test_lazy_attributes() -> None:
    out = python(
        "import compiler\n"
        "from compiler import Function, build, lower, ops, te\n"
        "import compiler.driver as submodule\n"  # importing the submodule does not hide the function
        "from compiler.driver import compile_module\n"
        "print(compiler.build is build, callable(compiler.build), compiler.lower is lower,\n"
        "      compiler.Function is Function, compiler.te is te, compiler.ops is ops,\n"
        "      te.placeholder is not None, ops.relu is not None)\n"
        "print(sorted(set(compiler.__all__) - set(dir(compiler))), '__version__' in dir(compiler))\n"
    )
    assert out.splitlines() == ["True True True True True True True True", "[] True"]


def test_unknown_attribute() -> None:
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        compiler.nope  # noqa: B018


ADD = """
te.func @add(%a: !te.tensor<["n"], f32>, %b: !te.tensor<["n"], f32>) -> !te.tensor<["n"], f32> {
  %c = te.compute "C" (%i) : !te.tensor<["n"], f32> {
    %x = te.read %a[%i] : !te.tensor<["n"], f32>
    %y = te.read %b[%i] : !te.tensor<["n"], f32>
    %s = arith.addf %x, %y : f32
    te.yield %s : f32
  }
  te.return %c : !te.tensor<["n"], f32>
}
"""


def test_default_pipeline_pass_applied_programmatically_runs_its_passes() -> None:
    from xdsl.parser import Parser

    from compiler.context import make_context
    from compiler.pipeline import DefaultPipelinePass, default_pipeline, expand_pipelines

    ctx = make_context()
    whole = DefaultPipelinePass(until="flat", tighten_pad_regions=False)
    assert list(whole.passes()) == default_pipeline("flat", tighten_pad_regions=False)
    one, many = (Parser(ctx, ADD).parse_module() for _ in range(2))
    whole.apply(ctx, one)
    for p in default_pipeline("flat", tighten_pad_regions=False):
        p.apply(ctx, many)
    assert str(one) == str(many)
    assert [p.name for p in expand_pipelines([DefaultPipelinePass(until="loop"), whole])] == [
        "apply-cache-stages", "apply-rfactor", "compute-inline", "tighten-pad-regions", "infer-bound", "schedule-ops",
        "apply-cache-stages", "apply-rfactor", "compute-inline", "infer-bound", "schedule-ops",
        "loop-partition", "make-packed-api", "storage-flatten", "storage-rewrite", "unroll-loops",
    ]  # fmt: skip


def test_a_reader_that_stops_early_ends_compiler_opt_quietly(tmp_path: Path) -> None:
    """`compiler-opt big.mlir | head`: no traceback, no 'internal error', the
    status of a process killed by SIGPIPE."""
    big = tmp_path / "big.mlir"
    big.write_text("\n// -----\n".join(ADD.replace("@add", f"@add{i}") for i in range(1000)))
    proc = subprocess.Popen(  # each chunk is written on its own: later writes meet the closed pipe
        [sys.executable, str(ROOT / "tools" / "compiler-opt"), str(big), "--split-input-file"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    assert proc.stdout.read(100).startswith(b"builtin.module")
    proc.stdout.close()  # the output is far larger than a pipe's buffer: the tool is still writing
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    for word in ("Traceback", "internal error", "Exception ignored", "BrokenPipeError"):
        assert word not in stderr


def test_pipeline_options_are_declared_once() -> None:
    """The default-pipeline pass, build, lower, compile_module and from_torch take the
    options of `PipelineOptions` (the pass as its options, after `until` and the
    arguments' `order` and `strided`, which `build` sets from its list); a misspelt
    or non-bool option is an OptionError naming the function."""
    import dataclasses

    import pytest

    from compiler import te
    from compiler.pipeline import DefaultPipelinePass, PipelineOptions

    names = [f.name for f in dataclasses.fields(PipelineOptions)]
    assert [f.name for f in dataclasses.fields(DefaultPipelinePass)] == ["until", "order", "strided", *names]
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1.0, name="B")
    with pytest.raises(compiler.OptionError, match="build: unknown option 'check_bound'"):
        compiler.build([A, B], check_bound=True)
    with pytest.raises(compiler.OptionError, match="lower: option 'loop_partition' is True or False"):
        compiler.lower([A, B], loop_partition=1)  # type: ignore[arg-type]  # the wrong type, on purpose


def test_an_unclosed_string_literal_fails_in_linear_time() -> None:
    """xDSL 0.74's string-literal pattern backtracked exponentially in the length of a
    string left open at the end of the input (fuzz case: a truncated file, 35
    characters after the quote, ran past the fuzzer's 30 s); compiler.registry installs
    a linear one. 2,000 characters are lexed, and refused, at once."""
    import time

    import pytest
    from xdsl.utils.exceptions import ParseError

    from compiler.context import make_context
    from compiler.tools.compiler_opt import LocatedParser

    text = 'te.func @f() attributes {te.realize = ["' + "max(min(m * n - 1, 1) - 1), " * 70
    start = time.perf_counter()
    with pytest.raises(ParseError, match="End of file reached before closing string literal"):
        LocatedParser(make_context(), text, "truncated.mlir").parse_module()
    assert time.perf_counter() - start < 2.0
