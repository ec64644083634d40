"""compiler-run: compile a function of a .mlir file, run it, print its outputs.

    compiler-run FILE [--entry NAME] [--dim n=16 ...] [--init random|arange|ones] [--seed 0]
    compiler-run --version

The input holds a `te.func` or a `loop.func`; the default pipeline lowers
it and the JIT compiles it. Inputs are filled deterministically (`arange`
by default, or seeded random numbers), outputs start as zeros, and every
output is printed as `NAME = [...]` for lit/FileCheck tests of execution.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from compiler.errors import ArgumentValueError
from compiler.tools.version import add_version_argument

if TYPE_CHECKING:
    import numpy as np


def _parse_dims(items: Sequence[str]) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not value.lstrip("-").isdigit():
            raise ArgumentValueError(f"--dim expects NAME=INT, got '{item}'")
        dims[name] = int(value)
    return dims


def _shape(dims: Sequence[int | str], env: dict[str, int], arg: str) -> tuple[int, ...]:
    from compiler.arith.expr import evaluate, free_vars, parse_expr

    shape: list[int] = []
    for d in dims:
        if isinstance(d, int):
            shape.append(d)
            continue
        e = parse_expr(d)
        missing = sorted(free_vars(e) - env.keys())
        if missing:
            raise ArgumentValueError(f"{arg} has the symbolic dimension '{d}': give --dim {missing[0]}=N")
        shape.append(evaluate(e, env))
    return tuple(shape)


def _fill(shape: tuple[int, ...], dtype: str, init: str, rng: np.random.Generator) -> np.ndarray:
    import numpy as np

    size = int(np.prod(shape))
    data: np.ndarray
    if init == "ones":
        data = np.ones(size)
    elif init == "random":
        data = rng.uniform(-1.0, 1.0, size) if "float" in dtype else rng.integers(-8, 8, size)
    else:
        data = np.arange(size)
    return data.astype(dtype).reshape(shape)


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compiler-run", description=__doc__.split("\n")[0])
    parser.add_argument("file", help="a .mlir file, or - for standard input")
    parser.add_argument("--entry", help="function to run (default: the first one)")
    parser.add_argument("--dim", action="append", default=[], help="bind a symbolic dimension, NAME=INT")
    parser.add_argument("--init", choices=["arange", "random", "ones"], default="arange")
    parser.add_argument("--seed", type=int, default=0)
    add_version_argument(parser, "compiler-run")
    args = parser.parse_args(argv)

    import numpy as np

    from compiler.build import compile_module
    from compiler.context import make_context
    from compiler.tools.compiler_opt import LocatedParser, verify_located

    if args.file == "-":  # standard input, as for compiler-opt
        text, name = sys.stdin.read(), "stdin"
    else:
        with open(args.file) as f:
            text, name = f.read(), args.file
    module = LocatedParser(make_context(), text, name).parse_module()
    verify_located(module)
    names = [op.sym_name.data for op in module.ops if hasattr(op, "sym_name")]
    if not names:
        raise ArgumentValueError(f"{args.file} defines no function")
    entry = args.entry or names[0]
    fn = compile_module(module, entry)
    env = _parse_dims(args.dim)
    rng = np.random.default_rng(args.seed)
    arrays = []
    for spec in fn.specs:
        shape = _shape(spec.dims, env, spec.name)
        arrays.append(np.zeros(shape, spec.dtype) if spec.is_output else _fill(shape, spec.dtype, args.init, rng))
    fn(*arrays)
    np.set_printoptions(threshold=sys.maxsize, linewidth=120, precision=6, suppress=True)
    for spec, a in zip(fn.specs, arrays, strict=True):
        if spec.is_output:
            print(f"{spec.name} = {np.array2string(a, separator=', ')}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    try:
        status = run(argv)
        sys.stdout.flush()  # here, where a closed pipe can still be handled
        return status
    except BrokenPipeError:
        from compiler.tools.compiler_opt import exit_on_broken_pipe

        return exit_on_broken_pipe()
    except (ParseError, DiagnosticException) as err:
        print(err, file=sys.stderr)
    except (ValueError, TypeError, RuntimeError, OSError) as err:
        if os.environ.get("COMPILER_TRACEBACK"):
            raise
        print(f"error: {err}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
