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
